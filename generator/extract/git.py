"""Read files of a git repository at a commit through git itself, never checking out.

A snapshot costs three git processes however many files it holds: `rev-parse`
for the commit, `ls-tree` for the listing, and `cat-file --batch-check` for
which objects this clone has. Their bytes are read when first asked for, many
at once with one `cat-file --batch` (`Blobs`): a re-extract that kept what
nearly every file says reads the bytes of nearly none.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..problems import UserError

FILE_MODES = frozenset({"100644", "100755"})
"""Tree entry modes of regular files; symlinks and submodules are not source files."""

_COMMIT_ID = re.compile(r"[0-9a-f]{4,64}")
"""A full or abbreviated commit id, the only pins worth asking git about."""

_FOUND = re.compile(rb"[0-9a-f]{40,64} ([a-z]+) ([0-9]+)")
"""The header `cat-file --batch` writes before an object it found (else "<name> missing")."""


@dataclass(frozen=True)
class Snapshot:
    """The wanted files of a repository at one commit."""

    commit: str
    """Full hex id of the commit the files were read at."""
    files: Blobs
    """File contents by relative POSIX path, read when first asked for."""
    blobs: dict[str, str]
    """The blob id git gives each of those files, by path."""


class Blobs(Mapping[str, bytes]):
    """The bytes of files at a commit, by path, each read from git when first asked for.

    `load` reads many in one `cat-file --batch`; a file asked for alone is read alone. Each read runs
    a git process of its own, so a worker forked from the scan reads what it needs without sharing
    a pipe with anyone.
    """

    def __init__(self, repo_dir: Path, blobs: dict[str, str], read: dict[str, bytes] | None = None) -> None:
        self._repo_dir = repo_dir
        self._blobs = blobs
        self._read: dict[str, bytes] = read if read is not None else {}

    def __getitem__(self, path: str) -> bytes:
        if path not in self._read:
            if path not in self._blobs:
                raise KeyError(path)
            self.load([path])
        return self._read[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)

    def __contains__(self, path: object) -> bool:
        return path in self._blobs

    def load(self, paths: Iterable[str]) -> None:
        """Read the bytes of those of `paths` not read yet, in one git process."""
        wanted = {path: self._blobs[path] for path in paths if path not in self._read and path in self._blobs}
        if wanted:
            contents = read_objects(self._repo_dir, sorted(set(wanted.values())))
            # An object git said it has and then lost (the repository changed under the run) stays unread: asking
            # for it is a KeyError, as for a file the snapshot does not hold.
            self._read.update((path, data) for path, oid in wanted.items() if (data := contents[oid]) is not None)

    def forget(self) -> None:
        """Let go of the bytes read so far (shared with the views `only` made): a file asked for again is read again."""
        self._read.clear()

    def only(self, paths: Iterable[str]) -> Blobs:
        """Return the files of `paths` alone; the bytes read so far are shared with this one."""
        return Blobs(self._repo_dir, {path: self._blobs[path] for path in paths}, self._read)


def snapshot(repo_dir: Path, rev: str, wanted: Callable[[str], bool]) -> Snapshot:
    """Return the files at `rev` whose path `wanted` accepts (those whose object this clone lacks left out)."""
    commit = resolve(repo_dir, rev)
    blobs = {path: oid for path, oid in list_tree(repo_dir, commit).items() if wanted(path)}
    present = present_objects(repo_dir, sorted(set(blobs.values())))
    blobs = {path: oid for path, oid in blobs.items() if oid in present}
    return Snapshot(commit, Blobs(repo_dir, blobs), blobs)


def resolve(repo_dir: Path, rev: str) -> str:
    """Return the full hex id of the commit that `rev` names."""
    _check_repo(repo_dir)
    result = _git(repo_dir, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"])
    if result.returncode != 0 or not result.stdout.strip():
        raise UserError(
            f"{repo_dir}: no commit named {rev!r}",
            hint="give a branch, tag or commit id that `git log` shows in that repository",
            page="unknown-commit",
        )
    return result.stdout.decode("ascii").strip()


def list_tree(repo_dir: Path, commit: str) -> dict[str, str]:
    """Return the blob id of every regular file at `commit`, by path."""
    result = _git(repo_dir, ["ls-tree", "-r", "-z", "--full-tree", commit])
    _raise_for(result, repo_dir, "ls-tree")
    files: dict[str, str] = {}
    for entry in result.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, oid = meta.decode("ascii").split(" ")
        if kind == "blob" and mode in FILE_MODES:
            files[raw_path.decode("utf-8", "surrogateescape")] = oid
    return files


def read_objects(repo_dir: Path, names: Iterable[str]) -> dict[str, bytes | None]:
    """Return the contents of each object name (`<oid>` or `<commit>:<path>`); None when missing."""
    names = list(names)
    if not names:
        return {}
    # A name with a line break would split into two requests; git cannot be asked for it.
    askable = [n for n in names if "\n" not in n and "\r" not in n]
    request = "".join(f"{n}\n" for n in askable).encode("utf-8", "surrogateescape")
    result = _git(repo_dir, ["cat-file", "--batch"], stdin=request)
    _raise_for(result, repo_dir, "cat-file")
    found = _parse_batch(result.stdout, askable)
    return {n: found.get(n) for n in names}


def present_objects(repo_dir: Path, oids: list[str]) -> frozenset[str]:
    """Return those of the blob ids `oids` that this clone has."""
    if not oids:
        return frozenset()
    result = _git(repo_dir, ["cat-file", "--batch-check"], stdin="".join(f"{oid}\n" for oid in oids).encode("ascii"))
    _raise_for(result, repo_dir, "cat-file")
    return frozenset(oid for oid, line in zip(oids, result.stdout.decode("ascii", "replace").splitlines())
                     if (found := _FOUND.fullmatch(line.encode("ascii"))) is not None and found[1] == b"blob")


def _parse_batch(output: bytes, names: list[str]) -> dict[str, bytes | None]:
    """Return the objects of a `cat-file --batch` answer, in the order they were asked."""
    found: dict[str, bytes | None] = {}
    pos = 0
    for name in names:
        end = output.index(b"\n", pos)
        header = _FOUND.fullmatch(output[pos:end])
        pos = end + 1
        if header is None:
            found[name] = None
            continue
        size = int(header[2])
        found[name] = output[pos:pos + size] if header[1] == b"blob" else None
        pos += size + 1
    return found


def _check_repo(repo_dir: Path) -> None:
    """Raise a UserError unless `repo_dir` is inside a git work tree or is a git directory."""
    if not repo_dir.is_dir():
        raise UserError(
            f"{repo_dir}: no such folder",
            hint="give the folder of a git repository (the one holding `.git`)",
            page="repository-folder-missing",
        )
    result = _git(repo_dir, ["rev-parse", "--git-dir"])
    if result.returncode == 0:
        return
    message = _stderr(result)
    if "not a git repository" in message:
        raise UserError(
            f"{repo_dir}: not a git repository",
            # extract, check --source and init all land here: the hint names none of them.
            hint="errorsite reads the library's files through git: give the folder of a clone, or `git init` this folder and commit first",
            page="not-a-git-repository",
        )
    _raise_for(result, repo_dir, "rev-parse")


def run(repo_dir: Path, args: list[str], stdin: bytes | None = None) -> bytes:
    """Return what a git command printed in `repo_dir`; its failure is a UserError in git's words."""
    result = _git(repo_dir, args, stdin)
    _raise_for(result, repo_dir, args[0])
    return result.stdout


def _git(repo_dir: Path, args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run git in `repo_dir` and return what it did; a missing git is a UserError."""
    env = {**os.environ, "LC_ALL": "C", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
    try:
        return subprocess.run(
            ["git", "-C", str(repo_dir), *args],
            input=stdin, capture_output=True, env=env, check=False,
        )
    except FileNotFoundError:
        raise UserError(
            "git is not installed or not on PATH",
            hint="install git (https://git-scm.com/downloads) and check that `git --version` works",
            page="git-not-found",
        ) from None


def _raise_for(result: subprocess.CompletedProcess[bytes], repo_dir: Path, command: str) -> None:
    """Raise a UserError carrying git's own words when a git command failed."""
    if result.returncode == 0:
        return
    raise UserError(
        f"{repo_dir}: git {command} failed: {_stderr(result)}",
        hint="run the same git command in that folder to see what git needs",
        page="git-failed",
    )


def _stderr(result: subprocess.CompletedProcess[bytes]) -> str:
    """Return git's error output as one line."""
    return " ".join(result.stderr.decode("utf-8", "replace").split())


@dataclass(frozen=True)
class History:
    """Which pinned commits lie in the history of one commit."""

    shallow: bool
    """The clone is shallow: a commit it lacks may still exist upstream."""
    reachable: frozenset[str]
    """Pins (as the records write them) that are the commit itself or one of its ancestors."""
    missing: frozenset[str]
    """Pins that are commit ids this clone does not have."""


def history(repo_dir: Path, head: str, pins: Iterable[object]) -> History:
    """Return which of `pins` are `head` or its ancestors, and which this clone lacks.

    A pin that is not a commit id (a record not yet valid) is neither: it is
    in no history, and no clone would have it.
    """
    asked = sorted({pin for pin in pins if isinstance(pin, str) and _COMMIT_ID.fullmatch(pin)})
    shallow = _git(repo_dir, ["rev-parse", "--is-shallow-repository"])
    _raise_for(shallow, repo_dir, "rev-parse")
    if not asked:
        return History(shallow.stdout.strip() == b"true", frozenset(), frozenset())
    # A pin may be abbreviated: batch-check gives each one's full id, or says it is missing.
    request = "".join(f"{pin}^{{commit}}\n" for pin in asked).encode("ascii")
    checked = _git(repo_dir, ["cat-file", "--batch-check"], stdin=request)
    _raise_for(checked, repo_dir, "cat-file")
    full = {}
    for pin, answer in zip(asked, checked.stdout.decode("ascii", "replace").splitlines()):
        oid, _, kind = answer.partition(" ")
        if kind.startswith("commit"):
            full[pin] = oid
    ancestors = _git(repo_dir, ["rev-list", head])
    _raise_for(ancestors, repo_dir, "rev-list")
    known = set(ancestors.stdout.decode("ascii").split())
    return History(
        shallow.stdout.strip() == b"true",
        frozenset(pin for pin, oid in full.items() if oid in known),
        frozenset(pin for pin in asked if pin not in full),
    )


def is_ancestor(repo_dir: Path, commit: str, head: str) -> bool:
    """Return whether `commit` is `head` or one of its ancestors (False when this clone cannot tell)."""
    if commit == head:
        return True
    return bool(_COMMIT_ID.fullmatch(commit)) and _git(
        repo_dir, ["merge-base", "--is-ancestor", commit, head]).returncode == 0


def file_versions(repo_dir: Path, since: str, until: str, path: str, limit: int) -> list[tuple[str, bytes | None]]:
    """Return (commit, the file at `path` then) for each commit after `since` up to `until` that changed it, newest first.

    At most `limit` commits; the file is None at a commit that deleted it.
    """
    log = run(repo_dir, ["log", "--format=%H", f"--max-count={limit}", f"{since}..{until}", "--", path])
    commits = log.decode("ascii").split()
    contents = read_objects(repo_dir, [f"{commit}:{path}" for commit in commits])
    return [(commit, contents[f"{commit}:{path}"]) for commit in commits]


def work_tree_files(repo_dir: Path) -> list[str]:
    """Return the work tree's files that git tracks or would track (ignored ones left out), sorted."""
    _check_repo(repo_dir)
    result = _git(repo_dir, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    _raise_for(result, repo_dir, "ls-files")
    return sorted({p.decode("utf-8", "surrogateescape") for p in result.stdout.split(b"\0") if p})


def remote_urls(repo_dir: Path) -> dict[str, str]:
    """Return the fetch URL of each remote, by name."""
    result = _git(repo_dir, ["remote", "-v"])
    _raise_for(result, repo_dir, "remote")
    urls: dict[str, str] = {}
    for line in result.stdout.decode("utf-8", "replace").splitlines():
        name, _, rest = line.partition("\t")
        url, _, kind = rest.rpartition(" ")
        if kind == "(fetch)":
            urls[name] = url
    return urls
