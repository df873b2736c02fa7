"""The build cache: what the last build read, rendered and wrote, and highlighted code by content hash.

It lives in `.errorsite-cache/` beside the output folder (`site/` -> `.errorsite-cache/site/`).
Deleting it is always safe: the next build is a full one and refills it. Every entry is keyed by
content hashes (of the record files, the settings, the templates and errorsite's own code), never
by time alone, so a stale entry is never used.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import pickle
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model import Analysis, ExampleFix, Record, Snippet, Source, When

CACHE_DIR = ".errorsite-cache"
STATE_FORMAT = 2


def cache_folder(out: Path) -> Path:
    """Return the cache folder of the output folder `out`."""
    out = out.absolute()
    return out.parent / CACHE_DIR / out.name


def digest(*parts: str | bytes) -> str:
    """Return a short hash of `parts`, each kept apart from the next."""
    if all(type(part) is str for part in parts):
        # Lengths first keep the parts apart; one update is much faster than one per part.
        text = ",".join(str(len(part)) for part in parts) + ":" + "".join(parts)  # type: ignore[arg-type]
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def tree_digest(folder: Path) -> str:
    """Return a hash of every file's name and bytes under `folder`."""
    parts: list[str | bytes] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        parts += [path.relative_to(folder).as_posix(), path.read_bytes()]
    return digest(*parts)


def tree_stamp(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """Return every file's name, size and modification time under `folder`, cheaply."""
    stamps = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            stat = path.stat()
            stamps.append((path.relative_to(folder).as_posix(), stat.st_size, stat.st_mtime_ns))
    return tuple(stamps)


@dataclass(slots=True)
class FileEntry:
    """One record file as the last build saw it."""

    size: int
    mtime_ns: int
    sha: str
    """Hash of the file's bytes."""
    record: tuple[Any, ...]
    """The validated record, as plain tuples (they load many times faster than the dataclasses)."""


@dataclass(slots=True)
class State:
    """Everything a build keeps for the next one."""

    env: str = ""
    """Hash of errorsite's code, templates, libraries, content folder and command-line settings."""
    env_stamp: tuple[Any, ...] = ()
    """Names, sizes and times of the code and template files, to skip hashing them when unchanged."""
    settings: str = ""
    """Hash of site.toml's bytes."""
    config_key: str = ""
    """What validated records depend on besides their own file."""
    files: dict[str, FileEntry] = field(default_factory=dict)
    related: tuple[str, dict[str, tuple[tuple[str, bool], ...]]] = ("", {})
    """Hash of every record's place, words and tags, and the related map it gave."""
    search: dict[str, tuple[dict[str, Any], dict[str, int]]] = field(default_factory=dict)
    """Record file hash -> its search index entry and weighted terms."""
    lexers: dict[str, str] = field(default_factory=dict)
    """Source path -> the name of its Pygments lexer (finding it by file name is slow)."""
    pages: dict[str, str] = field(default_factory=dict)
    """Output path -> hash of everything its bytes depend on."""
    manifest: dict[str, str] = field(default_factory=dict)
    """Output path -> hash of the bytes written there."""
    marker: tuple[int, int, int] = (0, 0, 0)
    """Device, inode and time of the output's marker file, to tell our last output from any other."""
    summary: tuple[int, int] = (0, 0)
    """Records and pages of the last build."""


def load_state(folder: Path) -> State:
    """Return the saved state, or an empty one when there is none or it is unreadable."""
    try:
        saved = marshal.loads((folder / "state.marshal").read_bytes())
        if saved[0] != STATE_FORMAT:
            return State()
        values = saved[1]
        values["files"] = {name: FileEntry(*entry) for name, entry in values["files"].items()}
        return State(**values)
    except (OSError, EOFError, ValueError, TypeError, KeyError, IndexError):
        return State()


def load_head(folder: Path) -> State:
    """Return the part of the saved state that tells whether anything changed (fast to load)."""
    try:
        with open(folder / "head.pickle", "rb") as handle:
            saved = pickle.load(handle)
    except (OSError, pickle.PickleError, EOFError, AttributeError, ValueError, TypeError):
        return State()
    if not isinstance(saved, tuple) or len(saved) != 7 or saved[0] != STATE_FORMAT:
        return State()
    _, env, env_stamp, settings, marker, summary, stats = saved
    files = {name: FileEntry(size, mtime_ns, sha, ()) for name, (size, mtime_ns, sha) in stats.items()}
    return State(env=env, env_stamp=env_stamp, settings=settings, files=files, marker=marker, summary=summary)


def save_state(folder: Path, state: State) -> None:
    """Save `state` atomically: the whole of it, then its head."""
    folder.mkdir(parents=True, exist_ok=True)
    stats = {name: (e.size, e.mtime_ns, e.sha) for name, e in state.files.items()}
    head = (STATE_FORMAT, state.env, state.env_stamp, state.settings, state.marker, state.summary, stats)
    values = {name: getattr(state, name) for name in State.__slots__}  # type: ignore[attr-defined]
    values["files"] = {name: (e.size, e.mtime_ns, e.sha, e.record) for name, e in state.files.items()}
    # marshal: the state is plain tuples, dicts and strings, which it reads twice as fast as pickle.
    for name, data in (("state.marshal", marshal.dumps((STATE_FORMAT, values))),
                       ("head.pickle", pickle.dumps(head, protocol=pickle.HIGHEST_PROTOCOL))):
        temp = folder / f"{name}.{os.getpid()}"
        temp.write_bytes(data)
        os.replace(temp, folder / name)


def forget_state(folder: Path) -> None:
    """Delete the saved state, so that an interrupted build is followed by a full one."""
    (folder / "head.pickle").unlink(missing_ok=True)
    (folder / "state.marshal").unlink(missing_ok=True)


def record_to_tuple(record: Record) -> tuple[Any, ...]:
    """Return the record as nested plain tuples."""
    s = record.source
    fix = record.example_fix
    return (
        record.id, record.exception, record.message, record.title,
        (s.repo, s.commit, s.path, s.line, s.function, s.snippet.start, s.snippet.code),
        record.meaning, record.solutions,
        (fix.before, fix.after, fix.language, fix.code, fix.code_language, fix.note) if fix else None,
        (record.when.trigger, record.when.situations) if record.when else None,
        record.related, record.tags,
        (record.analysis.by, record.analysis.date, record.analysis.note) if record.analysis else None,
        record.status, record.file,
    )


def record_from_tuple(t: tuple[Any, ...]) -> Record:
    """Return the record that `record_to_tuple` flattened."""
    s = t[4]
    return Record(
        id=t[0], exception=t[1], message=t[2], title=t[3],
        source=Source(s[0], s[1], s[2], s[3], s[4], Snippet(s[5], s[6])),
        meaning=t[5], solutions=t[6],
        example_fix=ExampleFix(*t[7]) if t[7] else None,
        when=When(*t[8]) if t[8] else None,
        related=t[9], tags=t[10],
        analysis=Analysis(*t[11]) if t[11] else None,
        status=t[12], file=t[13],
    )


class HighlightStore:
    """Highlighted code by content hash, kept across builds in one SQLite file."""

    def __init__(self, path: Path, salt: str) -> None:
        self.path = path
        self.salt = salt
        self.new: dict[str, str] = {}
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30)
            self._db.execute("CREATE TABLE IF NOT EXISTS lines (key TEXT PRIMARY KEY, html TEXT NOT NULL)")
        return self._db

    def get(self, *parts: str) -> str | None:
        """Return the HTML made from `parts`, or None."""
        key = digest(self.salt, *parts)
        found = self.new.get(key)
        if found is not None:
            return found
        row = self._connect().execute("SELECT html FROM lines WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def put(self, html: str, *parts: str) -> None:
        """Keep the HTML made from `parts`, to be written when the store closes."""
        self.new[digest(self.salt, *parts)] = html

    def reopen(self) -> None:
        """Forget the connection, in a process forked from the one that opened it."""
        self._db = None
        self.new = {}

    def add(self, entries: dict[str, str]) -> None:
        """Store highlighted code that other processes produced."""
        if entries:
            db = self._connect()
            with db:
                db.executemany("INSERT OR REPLACE INTO lines VALUES (?, ?)", sorted(entries.items()))

    def close(self) -> None:
        """Write what this process highlighted, and close."""
        self.add(self.new)
        self.new = {}
        if self._db is not None:
            self._db.close()
            self._db = None


def code_digest() -> str:
    """Return a hash of the Python and library versions the output depends on."""
    from importlib.metadata import version

    return digest(sys.version, *(version(name) for name in ("jinja2", "markdown-it-py", "pygments")))
