"""{path: bytes} -> the output folder, atomically (the only writer of the site).

The output folder is never changed file by file. A build makes the whole new tree in a folder
of its own and exchanges it with the output in one rename, so a build stopped at any moment,
even by kill -9, leaves the previous site or the new one:

- a full build writes a fresh tree beside the output (`.site.new-<pid>-<random>` for `site/`);
- an incremental build brings the previous tree up to date and exchanges it with the output.
  The previous tree is the output before the last build, kept in the build cache; it shares
  its unchanged files with the output (hard links) and differs from it only in the files the
  last build changed, so bringing it up to date touches those and this build's changes only.

Every path is resolved and proven inside its folder before anything is written or deleted.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from ..problems import UserError

MARKER = ".errorsite-build"
"""Marks a folder as errorsite's output, which a later build may replace."""
MARKER_TEXT = b"This folder is written by errorsite build and replaced by the next build.\n"


class OutsideFolder(UserError):
    """A file about to be written or deleted resolves outside its folder; it never is.

    Validation keeps every record's page inside the output, so the one way here
    is a link that someone placed inside the output folder: a user error, named
    as such, rather than a crash.
    """

    def __init__(self, path: str, folder: Path) -> None:
        super().__init__(
            f"refused to write or delete {path!r}: it is not a file inside {str(folder)!r}",
            hint="errorsite follows no link in the folders it writes: remove the link, or build into a fresh folder",
            page="write-outside-output")
        self.path = path
        """The site-relative path that was refused."""
        self.folder = folder
        """The folder it had to stay in."""


def inside(folder: Path, path: str) -> Path:
    """Return `folder / path`, or raise OutsideFolder unless it resolves to a file inside `folder`.

    `folder` must be resolved already. The check compares resolved paths, so neither `..`, an
    absolute path, a line break nor a symbolic link on the way can lead out of the folder.
    """
    segments = path.split("/")
    if "\0" in path or any(segment in ("", ".", "..") for segment in segments):
        raise OutsideFolder(path, folder)
    target = folder.joinpath(*segments)
    resolved = target.resolve()
    if resolved == folder or not resolved.is_relative_to(folder):
        raise OutsideFolder(path, folder)
    return target


def check_output(out: Path) -> None:
    """Raise a UserError unless `out` is missing, empty, or an earlier build's output."""
    if out.is_symlink():
        # Replacing the folder would replace the link itself (by a folder) and leave its target
        # as it was; writing into the target would replace a folder that --out does not name.
        raise UserError(
            f"output {str(out)!r} is a symbolic link",
            hint="give the folder the link points to as --out, or build into a folder and copy it there",
            page="output-is-a-link",
        )
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(
            f"output {str(out)!r} exists and is not a folder",
            hint="choose another --out, or move the file away",
            page="output-is-a-file",
        )
    if any(out.iterdir()) and not (out / MARKER).is_file():
        raise UserError(
            f"output folder {str(out)!r} is not empty and was not written by errorsite",
            hint="errorsite only replaces its own output; choose another --out or empty the folder",
            page="output-not-ours",
        )


def staging_folder(out: Path) -> Path:
    """Return a fresh, empty, resolved folder beside `out` to write a build into before it is committed."""
    out = _resolved(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # A name nobody can have chosen, made exclusively: nothing a repository holds beside `out` is removed or reused.
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-{os.getpid()}-", dir=out.parent))
    os.chmod(staging, 0o777 & ~_umask())  # what `mkdir` gives: the folder becomes the site
    return staging


def remove_staging(staging: Path) -> None:
    """Remove a staging folder (`staging_folder`) that is not to be committed, with what it holds."""
    _remove(staging)


def write_file(staging: Path, path: str, body: bytes) -> None:
    """Write one file of the site into the (resolved) staging folder."""
    target = inside(staging, path)
    try:
        target.write_bytes(body)
    except FileNotFoundError:
        # Most folders exist already: asking first would cost a system call for every file.
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)


def commit_all(staging: Path, out: Path) -> None:
    """Mark the staging folder, which holds the whole site, and swap it in for `out`."""
    check_output(out)
    out = _resolved(out)
    try:
        (staging / MARKER).write_bytes(MARKER_TEXT)
        _swap(staging, out)
    finally:
        _remove(staging)


def commit_changes(staging: Path, out: Path, previous: Path, changed: Iterable[str], gone: Iterable[str],
                   behind: Iterable[str] | None) -> list[str]:
    """Make `previous` the new site and exchange it with `out`; return where the two now differ.

    `previous` is errorsite's copy of the output as it was before the last build, differing
    from `out` at the paths `behind` (None when unknown: it is made again from `out`). The new
    site is `out` with the `changed` files of staging and without the files in `gone`.
    """
    _check_marker(out)
    out = _resolved(out)
    previous = _resolved(previous)
    try:
        changed, gone = set(changed), set(gone)
        if behind is None or previous.is_symlink() or not (previous / MARKER).is_file():
            copy_tree(out, previous)
            behind = ()
        for path in sorted(changed | gone | set(behind)):
            target = inside(previous, path)
            if path in changed:
                _place(target, inside(staging, path), move=True)
            elif path in gone or not inside(out, path).is_file():
                target.unlink(missing_ok=True)
            else:
                _place(target, inside(out, path), move=False)
        _prune(previous, gone | set(behind))
        _check_marker(out)
        _swap(previous, out, keep=True)
    finally:
        _remove(staging)
    return sorted(changed | gone)


def copy_tree(source: Path, copy: Path) -> None:
    """Make `copy` a copy of the folder `source`, sharing its files as hard links where it can."""
    source, copy = _resolved(source), _resolved(copy)
    _remove(copy)
    copy.parent.mkdir(parents=True, exist_ok=True)
    _copy_folder(str(source), str(copy))


def remove_in_background(folder: Path) -> Callable[[], None]:
    """Start deleting a folder of errorsite's own in another process; return what waits until it is gone.

    The folder is first renamed, so it is gone from its place at once.
    """
    folder = _resolved(folder)
    if not folder.exists() and not folder.is_symlink():
        return lambda: None
    trash = folder.with_name(f".{folder.name}.gone-{os.getpid()}-{secrets.token_hex(6)}")
    folder.rename(trash)
    if not hasattr(os, "fork"):
        return lambda: _remove(trash)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only deletes
        try:
            shutil.rmtree(trash, ignore_errors=True)
        finally:
            os._exit(0)
    return lambda: _wait(pid)


def _wait(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass  # already waited for


def clean_leftovers(out: Path) -> None:
    """Remove what builds of `out` that were stopped left beside it, once their process is gone."""
    out = _resolved(out)
    if not out.parent.is_dir():
        return
    own = re.compile(rf"\.{re.escape(out.name)}\.(new|old|gone)-([0-9]+)-[0-9a-z_]{{8,}}")
    for entry in sorted(out.parent.iterdir()):
        found = own.fullmatch(entry.name)
        if not found or process_running(int(found.group(2))):
            continue
        if found.group(1) == "old" and not out.exists() and not out.is_symlink() and not entry.is_symlink():
            entry.rename(out)  # stopped halfway through a swap without exchange: the old site comes back
        else:
            _remove(entry)


def _copy_folder(source: str, copy: str) -> None:
    os.mkdir(copy)
    with os.scandir(source) as entries:
        for entry in entries:
            target = os.path.join(copy, entry.name)
            if entry.is_dir(follow_symlinks=False):
                _copy_folder(entry.path, target)
            elif entry.is_file(follow_symlinks=False):
                _link(entry.path, target)


def _link(source: str | Path, target: str | Path) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
        shutil.copyfile(source, target)


def _place(target: Path, source: Path, move: bool) -> None:
    """Put `source` at `target` by a new directory entry, never by writing into a file that may be shared."""
    target.unlink(missing_ok=True)
    try:
        _put(target, source, move)
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
        _put(target, source, move)


def _put(target: Path, source: Path, move: bool) -> None:
    if move:
        os.replace(source, target)
    else:
        _link(source, target)


def _prune(folder: Path, paths: Iterable[str]) -> None:
    """Remove the folders of `paths` under `folder` that are left empty."""
    parents = {parent for path in paths for parent in inside(folder, path).parents if parent.is_relative_to(folder)}
    for parent in sorted(parents - {folder}, key=lambda p: len(p.parts), reverse=True):
        if parent.is_dir() and not parent.is_symlink() and _empty(parent):
            parent.rmdir()


def _empty(folder: Path) -> bool:
    """Return whether a folder holds nothing, reading only its first entry (`errors/` holds one per record)."""
    with os.scandir(folder) as entries:
        return next(entries, None) is None


def _check_marker(out: Path) -> None:
    if out.is_symlink() or not (out / MARKER).is_file():
        raise UserError(
            f"output folder {str(out)!r} lost errorsite's marker file during the build",
            hint="another program changed the folder meanwhile; look at it, remove it yourself if it is "
            "safe to, and build again, or choose another --out",
            page="output-changed-during-build",
        )


def _swap(new: Path, out: Path, keep: bool = False) -> None:
    """Put the folder `new` in the place of `out` in one step; `out`'s old tree goes to `new` (kept) or away."""
    if not out.exists():
        new.rename(out)
        if keep:
            new.mkdir()
        return
    if not _exchange(new, out):
        # Without an atomic exchange there is an instant with no `out`; `clean_leftovers` undoes it.
        old = out.with_name(f".{out.name}.old-{os.getpid()}-{secrets.token_hex(6)}")
        out.rename(old)
        try:
            new.rename(out)
        except BaseException:
            old.rename(out)
            raise
        old.rename(new)
    if not keep:
        _remove(new)


RENAME_EXCHANGE = 2
"""renameat2's flag (Linux) and renamex_np's RENAME_SWAP (macOS): both swap two paths atomically."""
AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step; return False when the system cannot."""
    if sys.platform not in ("linux", "darwin"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    names = (os.fsencode(a), os.fsencode(b))
    if sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        status = libc.renamex_np(*names, RENAME_EXCHANGE)
    elif hasattr(libc, "renameat2"):
        status = libc.renameat2(AT_FDCWD, names[0], AT_FDCWD, names[1], RENAME_EXCHANGE)
    else:
        return False
    if status == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(a), None, str(b))


def process_running(pid: int) -> bool:
    """Return whether process `pid` still runs (this one counts as running)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _umask() -> int:
    """Return the process's file mode creation mask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove(path: Path) -> None:
    """Delete a folder of errorsite's own (or a link in its place, without following it)."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
        return
    for attempt in range(REMOVE_ATTEMPTS):
        try:
            shutil.rmtree(path)
            return
        except FileNotFoundError:
            # Another process deletes it too (that of a stopped build): go on with what is left.
            if not path.exists() or attempt == REMOVE_ATTEMPTS - 1:
                return


REMOVE_ATTEMPTS = 100
"""How often to go on deleting a folder that another process deletes at the same time."""


def _resolved(out: Path) -> Path:
    """Return `out` with its parent resolved but `out` itself as named (it may not exist yet)."""
    out = out.absolute()
    return out.parent.resolve() / out.name
