"""Where a build keeps what is not the site: its state, highlighted code, compiled templates, the previous tree.

A build trusts what it reads back from its cache (compiled templates are code, highlighted code
is HTML), so the cache lives where no repository can put a file: errorsite's folder in the
user's cache folder (`user_cache`), one folder per output named by the hash of the output's
absolute path. The folders errorsite makes there must be its own: real folders (not links),
owned by the user, writable by nobody else, and not tracked by git; any other is refused. Each
cached value is also authenticated with a key that only that folder holds (`key`), so a value
that did not come from a build of this user's fails its check and is made again.

The previous tree (the output before the last build) must be on the output's file system, to
be exchanged with the output in one rename, so it lies beside the output, in `.errorsite-cache/`,
under a name made with that key: no repository can hold a file at a path it cannot know.
Deleting any of it is always safe: the next build is a full one and fills it again.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ..problems import UserError

KEY_BYTES = 32
"""Length of the user's cache key (`key`)."""
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class UnsafeCache(UserError):
    """A folder or file of the build cache is not errorsite's own: a build would trust what another put there."""

    def __init__(self, place: Path, why: str, detail: str = "") -> None:
        super().__init__(
            f"refused to use the build cache: {str(place)!r} {why.format(detail)}",
            hint="errorsite trusts only a cache folder of your own that no repository can fill; remove that "
            "folder (deleting the cache is always safe), or set XDG_CACHE_HOME to a folder of your own",
            page="cache-folder-unsafe")
        self.place = place
        """The folder or file refused."""


# Why a folder or file of the cache is refused (`UnsafeCache`); `{}` is the detail given.
NO_HOME = "is unknown, and XDG_CACHE_HOME is not set: errorsite finds no folder to keep its build cache in"
LINK = "is a link"
NOT_FOLDER = "is not a folder"
NOT_FILE = "is not a regular file"
OWNER = "belongs to another user"
SHARED = "may be written by other users"
UNREADABLE = "cannot be read ({})"
NO_KEY = f"does not hold a key of {KEY_BYTES} bytes"
TRACKED = "holds files tracked by the git repository {!r}"


CACHE_DIR = ".errorsite-cache"
"""The folder, beside the output, that holds the previous tree of each output."""
STATE_FORMAT = 14
"""Changes whenever the saved state's tables change: a state of another format is discarded."""


def user_cache() -> Path:
    """Return errorsite's folder in the user's cache folder (it may not exist yet).

    `$XDG_CACHE_HOME/errorsite` when that is set to an absolute path, else the platform's place:
    `~/.cache/errorsite`, `~/Library/Caches/errorsite` (macOS), `%LOCALAPPDATA%\\errorsite\\cache` (Windows).
    """
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "errorsite"
    if sys.platform == "win32" and os.path.isabs(os.environ.get("LOCALAPPDATA", "")):
        return Path(os.environ["LOCALAPPDATA"]) / "errorsite" / "cache"
    try:
        home = Path.home()
    except RuntimeError:
        raise UnsafeCache(Path("~"), NO_HOME) from None
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "errorsite"
    return home / ".cache" / "errorsite"


def cache_folder(out: Path) -> Path:
    """Return the cache folder of the output folder `out`, made and proven errorsite's own."""
    return own_folder(user_cache() / "builds" / _name(out))


def state_path(out: Path) -> Path:
    """Return the SQLite file that holds the state of the last build of `out`."""
    return cache_folder(out) / f"state-{STATE_FORMAT}.sqlite"


@contextmanager
def build_lock(out: Path, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the lock of the builds of `out` while the block runs: a second build of `out` waits for the first.

    Two builds of one output at once would each swap in a tree that the other half changed. The
    lock is a file of the output's cache folder, locked with `flock`, which the system releases
    when a process ends, however it ends: a killed build leaves no lock behind. `waiting` is
    called once before waiting for another build. Without `fcntl` (Windows) builds do not wait.
    """
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = cache_folder(out) / "lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW | NONBLOCK, 0o600)
    except OSError as error:
        raise UnsafeCache(path, LINK if os.path.islink(path) else UNREADABLE, error.strerror or "") from None
    try:
        _check_owned(path, os.fstat(fd), file=True)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def highlight_path(out: Path) -> Path:
    """Return the SQLite file of highlighted code of the builds of `out`."""
    return cache_folder(out) / "highlight.sqlite"


def templates_path() -> Path:
    """Return the folder of compiled templates, shared by every build of this user (they are errorsite's own)."""
    return own_folder(user_cache() / "templates")


def serve_output(content: Path) -> Path:
    """Return the folder that `errorsite serve` builds the site of `content` into."""
    return own_folder(user_cache() / "serve" / _name(content)) / "site"


def lookup_path(content: Path, version: int) -> Path:
    """Return the file that `errorsite lookup` keeps the answers of `content` in (see `lookup`), in its folder proven
    errorsite's own; `version` is the file's format."""
    return own_folder(user_cache() / "lookup") / f"{_name(content)}-{version}.sqlite"


def _name(folder: Path) -> str:
    """Return the name of what the cache keeps for `folder`: the hash of its absolute path."""
    return hashlib.sha256(os.fsencode(_absolute(folder))).hexdigest()[:32]


def previous_tree(out: Path) -> Path:
    """Return where the output as it was before the last build is kept (see `write.commit_changes`)."""
    out = Path(_absolute(out))
    token = hashlib.blake2b(os.fsencode(out), key=key(), digest_size=12, person=b"previous").hexdigest()
    folder = out.parent / CACHE_DIR
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise UnsafeCache(folder, LINK if folder.is_symlink() else NOT_FOLDER)
    return folder / f"{out.name}.{token}"


def key() -> bytes:
    """Return the user's cache key: random bytes kept in the user's cache folder, made on first use."""
    return _key(own_folder(user_cache()))


def _key(folder: Path) -> bytes:
    path = folder / "key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as made:
            made.write(os.urandom(KEY_BYTES))
    data = read_cached(path, KEY_BYTES)
    if data is None or len(data) != KEY_BYTES:
        raise UnsafeCache(path, NO_KEY)
    return data


def read_cached(path: Path, limit: int) -> bytes | None:
    """Return the bytes of a file of the user's cache, or None when it is missing or longer than `limit` (damaged).

    The file must be a regular file of the user's own, opened without following a link and
    without blocking (a FIFO put in its place would hang a reader), and no more than `limit`
    bytes are ever read: a cache file is errorsite's, so anything else raises `UnsafeCache`.
    """
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | NONBLOCK | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as error:
        raise UnsafeCache(path, LINK if os.path.islink(path) else UNREADABLE, error.strerror or "") from None
    with os.fdopen(fd, "rb") as kept:
        info = os.fstat(kept.fileno())
        _check_owned(path, info, file=True)
        if info.st_size > limit:
            return None
        data = kept.read(limit + 1)
    return data if len(data) <= limit else None


def write_cached(path: Path, *chunks: bytes | memoryview) -> None:
    """Replace a file of the user's cache by `chunks`, one after the other, whole or not at all.

    The bytes go to a file of a name nobody can have chosen, created exclusively without
    following a link (`mkstemp`), renamed over `path`: the rename replaces the entry, never a
    link's target. `path`'s folder must be one `own_folder` returned.
    """
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
        os.replace(name, path)
    except BaseException:
        os.unlink(name)
        raise


def own_folder(folder: Path) -> Path:
    """Return `folder`, made when missing, once it is proven a folder of errorsite's own (see the module)."""
    root = user_cache()
    root.parent.mkdir(parents=True, exist_ok=True)
    for place in reversed((folder, *folder.parents)):
        if place != root and not place.is_relative_to(root):
            continue
        try:
            place.mkdir(mode=0o700)
        except FileExistsError:
            pass
        _check_owned(place, place.lstat(), file=False)
    _not_tracked(root)
    return folder


def _check_owned(place: Path, info: os.stat_result, file: bool) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeCache(place, LINK)
    if not (stat.S_ISREG(info.st_mode) if file else stat.S_ISDIR(info.st_mode)):
        raise UnsafeCache(place, NOT_FILE if file else NOT_FOLDER)
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UnsafeCache(place, OWNER)
    if hasattr(os, "getuid") and info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeCache(place, SHARED)


@lru_cache(maxsize=8)
def _not_tracked(root: Path) -> None:
    """Raise unless no git repository tracks a file under `root` (the cache folder of a repository is input)."""
    top = next((place for place in (root, *root.parents) if (place / ".git").exists()), None)
    if top is None:
        return
    import subprocess  # only a cache inside a work tree needs it: a build that changes nothing does not wait for it

    try:
        tracked = subprocess.run(["git", "-C", str(top), "ls-files", "-z", "--", str(root)],
                                 capture_output=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        tracked = b""  # no git to ask: nothing it tracks can have been checked out here by it
    if tracked:
        raise UnsafeCache(root, TRACKED, str(top))


def _absolute(path: Path) -> str:
    """Return `path` absolute, its parent resolved (the path itself may not exist yet, or be a link)."""
    path = path.absolute()
    return str(path.parent.resolve() / path.name)
