"""What a build reads before it decides what to do: the record files' stamps, the settings, the code.

`scan` is the one look at the content folder: the build and `serve`'s watcher both use it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from .. import __version__, load
from ..assets import PACKAGE, templates_dir
from ..load import RawRecord
from ..model import Config
from ..problems import Invalid
from . import write
from .keys import code_digest, digest, tree_digest, tree_stamp
from .state import RACY, Encoded, FileStat, Head, Meta, Stamp, encode

UNREADABLE = (-1, -1)
"""The size and time of a record file whose link cannot be followed: no saved stamp has them."""


@dataclass(frozen=True, slots=True)
class Inputs:
    """Everything a build reads before rendering, besides the records themselves."""

    content: Path
    """The content folder."""
    out: Path
    """The output folder."""
    base_url: str | None
    """The base URL given on the command line, if any."""
    files: dict[str, FileStat]
    """Record file name (as the user would name it) -> its size and time."""
    scanned_ns: int
    """When the record files were scanned: a file changed since `load.RACY_NS` before may change unseen."""
    settings: bytes
    """The bytes of site.toml (or a token for a missing or unreadable one)."""
    env: str
    """Hash of everything besides the content that the output depends on."""
    code: str
    """Hash of errorsite's code and libraries: what records, summaries and search terms are made by."""
    env_stamp: tuple[Any, ...]
    """Names, sizes and times of the code and templates that `env` was made from."""
    marker: tuple[int, int, int]
    """Device, inode and time of the output's marker file; zeros when it has none."""

    @property
    def settings_path(self) -> Path:
        """Return the path of site.toml."""
        return self.content / "site.toml"

    def stamp(self, name: str, sha: str) -> Stamp:
        """Return the stamp to save for a record file read as `sha`."""
        stat = self.files[name]
        # Another write in the same clock tick would keep size and time: trust the hash only.
        mtime_ns = RACY if stat.mtime_ns >= self.scanned_ns - load.RACY_NS else stat.mtime_ns
        return Stamp(stat.size, mtime_ns, sha)

    def settled(self, shas: dict[str, str]) -> dict[str, Stamp]:
        """Return the stamps, with their times, of the record files (by name, read as `shas`) written close to when
        the build began, whose time is now long enough past and whose bytes are still those read.

        A fresh clone or copy writes every file just before its first build: without this, the next build (the
        first edit) would read and hash them all again (`_same_bytes`), 2 s of an edit of 5,000 records on a busy
        machine. A file written again after this reading has a later time, as any edit after a build has.
        """
        past = time.time_ns() - load.RACY_NS
        found = {}
        for name, sha in shas.items():
            stat = self.files[name]
            if not self.scanned_ns - load.RACY_NS <= stat.mtime_ns < past:
                continue  # trusted by its time already, or still too recent
            try:
                same = digest(load.read_bytes(Path(name))) == sha
                now = os.stat(name)  # after the read: a write meanwhile shows in its size or time
            except (OSError, Invalid):
                continue
            if same and (now.st_size, now.st_mtime_ns) == stat:
                found[name] = Stamp(stat.size, stat.mtime_ns, sha)
        return found


def read_inputs(content: Path, out: Path, base_url: str | None, last: Meta) -> Inputs:
    """Return the inputs of a build of `content` into `out`; `last` saves hashing unchanged code."""
    env, code, env_stamp = environment(content, base_url, last)
    settings = settings_bytes(content / "site.toml")
    scanned_ns = time.time_ns()
    return Inputs(content, out, base_url, scan(content / "errors"), scanned_ns, settings, env, code,
                  env_stamp, marker(out))


def scan(errors: Path) -> dict[str, FileStat]:
    """Return every record file's name (as the user would name it), size and modification time."""
    found = {}
    try:
        entries = list(os.scandir(errors))
    except OSError:
        return {}
    # A named tuple's own constructor is Python code: tuple's, in C, takes a sixth of a scan of 10,000 files less.
    stat_of = partial(tuple.__new__, FileStat)
    for entry in entries:
        if entry.name.endswith(".json"):
            try:
                st = entry.stat()
            except OSError:
                if entry.is_symlink():
                    # A link that leads nowhere or to itself: read, so that it is a problem, never skipped.
                    found[entry.path] = stat_of(UNREADABLE)
                continue  # else deleted since the scan began
            found[entry.path] = stat_of((st.st_size, st.st_mtime_ns))
    return found


def changed_files(files: dict[str, FileStat], head: Head) -> list[str]:
    """Return the record files of `files` (all of which the last build read) that changed since, sorted."""
    stamps = head.stamps
    # Comparing tuples is the quick test; a file whose hash alone decides never passes it.
    return sorted(name for name, stat in files.items() if stamps[name] != stat and not _same_bytes(name, stat, head))


def _same_bytes(name: str, stat: FileStat, head: Head) -> bool:
    """Return whether a record file whose hash alone decides (`RACY`) still has the bytes the last build read."""
    sha = head.racy.get(name)
    if sha is None or head.stamps[name] != (stat.size, RACY):
        return False
    try:
        return digest(load.read_bytes(Path(name))) == sha
    except (OSError, Invalid):
        return False


def environment(content: Path, base_url: str | None, last: Meta) -> tuple[str, str, tuple[Any, ...]]:
    """Return the hash of everything besides the content that the output depends on, the hash of
    errorsite's code within it (`Inputs.code`), and their stamp."""
    stamp = (str(content), base_url, __version__, tree_stamp(PACKAGE), tree_stamp(templates_dir()))
    recent = time.time_ns() - load.RACY_NS
    if last.env and stamp == last.env_stamp and all(t < recent for part in stamp[3:] for _, _, t in part):
        return last.env, last.code, stamp
    code = digest(__version__, code_digest(), tree_digest(PACKAGE))
    env = digest(str(content.absolute()), repr(base_url), code, tree_digest(templates_dir()))
    return env, code, stamp


def settings_bytes(path: Path) -> bytes:
    """Return the bytes of site.toml, read as the one reader reads it (never a FIFO, never past its limit)."""
    if not os.path.lexists(path):
        return b"\0missing"
    try:
        return load.read_bytes(path, load.MAX_SETTINGS_BYTES)
    except (OSError, Invalid):
        # Validation names the problem; here it only has to differ from every readable file.
        return b"\0unreadable"


def marker(out: Path) -> tuple[int, int, int]:
    """Return the device, inode and time of the output's marker file; zeros when it has none."""
    try:
        st = (out / write.MARKER).stat()
    except OSError:
        return (0, 0, 0)
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


def read_config(inputs: Inputs) -> tuple[Config, bool]:
    """Return the site's settings with the command line's base URL applied, and whether they have a problem."""
    from .. import validate

    path = inputs.settings_path
    values: dict[str, Any] = {}
    if path.exists():
        try:
            values = load.read_toml(path)
        except Invalid:
            return validate.site_config({}, str(path), inputs.base_url)[0], True
    config, problems = validate.site_config(values, str(path), inputs.base_url)
    return config, bool(problems)


def config_key(config: Config, code: str) -> str:
    """Return the hash of what validated records, their summaries and search terms depend on besides
    their own file: the settings they read, and the code that makes them (`Inputs.code`)."""
    return digest(repr(config.repo), code)


@dataclass(frozen=True, slots=True)
class ReadRecord:
    """A record file read and validated, in the form that is cheap to send between processes."""

    sha: str
    """Hash of the file's bytes."""
    record: Encoded | None
    """Its record, encoded (see `state.decode`); None when the file is the one the last build read."""


def read_record(name: str, config: Config, known: str | None) -> ReadRecord | None:
    """Return the hash of a record file and its validated record; None when it has a problem.

    `known` is the hash of the file as the last build read it, with the same settings: when the
    file still has it, its record is the last build's and is not validated again.
    """
    from .. import validate

    try:
        data = load.read_bytes(Path(name), link=False)
        sha = digest(data)
        if sha == known:
            return ReadRecord(sha, None)
        raw = RawRecord(name, load.parse_json(data))
    except Invalid:
        return None
    if next(validate.check_record(raw), None) is not None:
        return None
    return ReadRecord(sha, encode(validate.to_record(raw, config)))
