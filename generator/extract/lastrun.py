"""What the last extract left in a content folder: the next run reads and matches only the records a change reaches.

After a run every record of the repository that matched a site is in step with it: run again on the
same site, `sync` leaves its file as it is. So a run keeps, for each record file, its size, time and
a digest of its bytes, what matching reads of it (`sync.Known`), and the digest of the site it was
left in step with (`LastRun`). The next run of the same content folder and repository

- parses only the record files whose size or bytes changed: a file of the same size, time and inode
  is taken as it is, one of the same size whose time or inode changed (a checkout wrote it again,
  or it was written too close to the last run for its time to tell: the rule the build follows,
  `load.RACY_NS`) is read and its bytes compared;
- leaves out of matching each group of records of one place and message whose records are as the
  last run left them and whose sites are the very sites they were left in step with (rule 1 of
  matching pairs such a group in line order, and each record stays unchanged), when the commit the
  last run read is an ancestor of this one (a pin in its history is in this one's);
- matches the rest as a run without this would, and reads a record file's data only when it must
  change it.

The records come out byte for byte as a run that read every file writes (tests/test_lastrun.py
checks it over random edits of code and records). What a run left is kept in the user's cache folder
(`facts.FactStore`, authenticated like every entry), by the content folder and the repository folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat as modes
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from .. import load
from ..problems import Invalid, Problem, ProblemsFound

FULL_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
"""A commit id written out in full (SHA-1 or SHA-256)."""

RACY = -1
"""The time of a record file changed so close to the run that only its bytes' digest can tell it is unchanged."""


class Left(NamedTuple):
    """A record file as a run left it."""

    size: int
    """Its size in bytes."""
    mtime_ns: int
    """Its modification time, or RACY."""
    inode: int
    """Its inode: a file put in its place is another file."""
    digest: bytes
    """A digest of its bytes."""
    known: Any
    """What matching reads of it (`sync.Known`), or None when it is not a usable record of the run's repository."""
    site: bytes | None
    """The digest of the site it is in step with (`sites.Scan.digests`): run on that site, sync leaves it unchanged."""


@dataclass(frozen=True, slots=True)
class LastRun:
    """What one extract run left in a content folder."""

    commit: str
    """The commit it read."""
    owner: tuple[str | None, str | None]
    """The repository whose records it matched and `site.toml`'s repo: which records are the run's own."""
    records: dict[str, Left]
    """Each record file it left, by name."""


class Written(NamedTuple):
    """A record file a run wrote, as what comes after it needs it: the file's bytes are let go once written (at init,
    every record's, which counted in the run's peak memory three times over: as text, as bytes and parsed)."""

    size: int
    """Its size in bytes."""
    digest: bytes
    """The digest of its bytes (`load.RawRecord.digest`)."""
    checked: bytes | None
    """Its `validate.checked_key` when it passes the record format's checks, run as check runs them on the bytes
    written (None: it does not, or the run keeps no checks)."""
    pin: bytes | None
    """Its `pin_key` when it is pinned to the commit read: its snippet and line are the site's, read at that commit,
    so a later check finds the pin in step (None otherwise, or when the run keeps no checks)."""


def pin_key(commit: str, path: str, line: int, start: int, code: str) -> bytes | None:
    """Return a digest of a pin (commit, path, line, snippet) by which `check --source` knows one it found, or
    extract wrote, in step with the file at its commit; None for a pin by an abbreviated commit id, which more
    objects in the clone may make ambiguous."""
    if not FULL_COMMIT.fullmatch(commit):
        return None
    text = "\0".join((commit, path, str(line), str(start), code))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass
class RecordFiles:
    """The record files of a content folder for one run: every file's name, what matching reads of each of the
    run's own, and their data, read only when needed (see the module's docstring)."""

    errors_dir: Path
    """The folder of record files."""
    scanned_ns: int
    """When the files were listed: a file changed since `load.RACY_NS` before may change unseen."""
    stats: dict[str, os.stat_result]
    """Each file by name, as listed."""
    left: dict[str, Left] = field(default_factory=dict)
    """What the last run left of each file still as it left it, by name."""
    digests: dict[str, bytes] = field(default_factory=dict)
    """The digest of each file read by this run, by name."""
    data: dict[str, Any] = field(default_factory=dict)
    """The data of each file parsed by this run, by name."""

    @classmethod
    def read(cls, content_dir: Path, last: LastRun | None) -> RecordFiles:
        """Return the record files of `content_dir`, each parsed unless `last` left it as it is; raise ProblemsFound
        for files that cannot be read, all of them."""
        errors_dir = content_dir / "errors"
        scanned_ns = time.time_ns()
        stats: dict[str, os.stat_result] = {}
        if errors_dir.is_dir():
            try:
                load.inside(errors_dir, content_dir)
            except Invalid as error:
                raise ProblemsFound([Problem.of(str(errors_dir), "", error)]) from None
            # The names `load.load` reads (`*.json`, hidden ones and folders too: a folder is a problem).
            try:
                with os.scandir(errors_dir) as entries:
                    for entry in entries:
                        if entry.name.endswith(".json"):
                            try:
                                stats[entry.name] = entry.stat(follow_symlinks=False)
                            except OSError:
                                stats[entry.name] = os.stat_result((0,) * 10)  # gone or unreadable: read, as load does
            except OSError as error:
                load.unlisted(errors_dir, error)
        files = cls(errors_dir, scanned_ns, dict(sorted(stats.items())))
        kept = last.records if last is not None else {}
        problems: list[Problem] = []
        for name, stat in files.stats.items():
            before = kept.get(name)
            raw = files._as_left(name, stat, before) if before is not None else None
            if before is not None and raw is None:
                files.left[name] = before
                continue
            try:
                files.parse(name, raw or None)
            except ProblemsFound as found:
                problems.extend(found.problems)
        if problems:
            raise ProblemsFound(problems)
        return files

    def _as_left(self, name: str, stat: os.stat_result, before: Left) -> bytes | None:
        """Return None when a file is as the last run left it (same size, time and inode, or same size and bytes),
        else the bytes it was read as to tell (b"" when it was not read)."""
        if not (modes.S_ISREG(stat.st_mode) and stat.st_size == before.size):
            return b""
        if before.mtime_ns != RACY and stat.st_mtime_ns == before.mtime_ns and stat.st_ino == before.inode:
            return None
        # Written too close to the last run for its time to tell, or written again since: a checkout (every CI run's
        # clone) writes every file anew with the bytes it had. Reading and digesting them costs a third of parsing.
        try:
            data = load.read_bytes(self.errors_dir / name, link=False)
        except Invalid:
            return b""
        self.digests[name] = load.file_digest(data)
        return None if self.digests[name] == before.digest else data

    def parse(self, name: str, raw: bytes | None = None) -> Any:
        """Return the data of a record file, read now (unless given as `raw`) if this run has not; raise
        ProblemsFound when it cannot be."""
        if name in self.data:
            return self.data[name]
        path = self.errors_dir / name
        try:
            if raw is None:
                raw = load.read_bytes(path, link=False)
            self.digests[name] = load.file_digest(raw)
            value = self.data[name] = load.parse_json(raw)
        except load.FileProblems as found:
            raise ProblemsFound(found.problems(str(path))) from None
        except Invalid as error:
            raise ProblemsFound([Problem.of(str(path), "", error)]) from None
        return value

    def unsettle(self) -> None:
        """Forget which sites the records were in step with: their pins may not be in this commit's history."""
        self.left = {name: left._replace(site=None) for name, left in self.left.items()}

    def kept(self, commit: str, owner: tuple[str | None, str | None], known: dict[str, Any],
             settled: dict[str, bytes | None], written: dict[str, Written]) -> LastRun:
        """Return what this run leaves: what matching reads of each file (`known`, by name) and the site each is now
        in step with (`settled`), with the files' stamps; `written` holds the files this run wrote, by name."""
        out = {}
        racy_after = self.scanned_ns - load.RACY_NS
        for name, stat in self.stats.items():
            if name not in written and modes.S_ISREG(stat.st_mode):
                digest = self.digests.get(name) or self.left[name].digest
                mtime = stat.st_mtime_ns if stat.st_mtime_ns < racy_after else RACY
                out[name] = Left(stat.st_size, mtime, stat.st_ino, digest, known.get(name), settled.get(name))
        for name, wrote in written.items():
            try:
                stat = (self.errors_dir / name).stat(follow_symlinks=False)
            except OSError:
                continue
            if modes.S_ISREG(stat.st_mode) and stat.st_size == wrote.size:
                # Written just now: its time cannot tell a later write in the same tick, its bytes can.
                out[name] = Left(stat.st_size, RACY, stat.st_ino, wrote.digest, known.get(name), settled.get(name))
        return LastRun(commit, owner, dict(sorted(out.items())))
