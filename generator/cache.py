"""The build cache: what the last build read, rendered and wrote, and highlighted code by content hash.

It lives in `.errorsite-cache/` beside the output folder (`site/` -> `.errorsite-cache/site/`).
Deleting it is always safe: the next build is a full one and refills it. Every entry is keyed by
content hashes (of the record files, the settings, the templates and errorsite's own code), never
by time alone, so a stale entry is never used.
"""

from __future__ import annotations

import hashlib
import marshal
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model import Analysis, Check, ExampleFix, Record, Review, Snippet, Source, Variant, Verified, When

CACHE_DIR = ".errorsite-cache"
STATE_FORMAT = 4


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
    salt: str = ""
    """What highlighted code depends on besides the code (see HighlightStore)."""
    files: dict[str, FileEntry] = field(default_factory=dict)
    related: tuple[str, dict[str, tuple[tuple[str, bool], ...]]] = ("", {})
    """Hash of every record's place, words and tags, and the related map it gave."""
    search: dict[str, tuple[dict[str, Any], dict[str, int], str]] = field(default_factory=dict)
    """Record file hash -> its search index entry, weighted terms, and the hash of what the index takes of them."""
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
    behind: tuple[str, ...] | None = None
    """Output paths where the previous tree (the output before the last build) differs from the output;
    None when that tree is unknown (see `write.commit_changes`)."""


META = ("env", "env_stamp", "settings", "config_key", "salt", "lexers", "marker", "summary", "behind")
"""The State fields kept whole, one row each; records and outputs have a row each."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    name TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, sha TEXT NOT NULL,
    id TEXT NOT NULL, index_key TEXT, related BLOB, search BLOB, record BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS files_by_id ON files (id, index_key);
CREATE INDEX IF NOT EXISTS files_stat ON files (name, size, mtime, sha);
CREATE TABLE IF NOT EXISTS outputs (path TEXT PRIMARY KEY, key TEXT NOT NULL, sha TEXT NOT NULL);
"""



@dataclass(frozen=True, slots=True)
class SavedFile:
    """One record file's row: what the last build saw and made of it."""

    name: str
    size: int
    mtime_ns: int
    sha: str
    id: str
    record: tuple[Any, ...]
    """The validated record, as `record_to_tuple` gives it."""
    search: tuple[dict[str, Any], dict[str, int]] | None
    """Its search index entry and weighted terms."""
    index_key: str | None
    """Hash of what the search index takes of them."""
    related: tuple[tuple[str, bool], ...] | None
    """Its related errors: id, and whether errorsite found it."""

    def row(self) -> tuple[Any, ...]:
        """Return the row as stored."""
        # Small columns first: reading them then stops before the large ones.
        return (self.name, self.size, self.mtime_ns, self.sha, self.id, self.index_key,
                None if self.related is None else marshal.dumps(self.related),
                None if self.search is None else marshal.dumps(self.search), marshal.dumps(self.record))


class Damaged(Exception):
    """The saved state cannot be read or written: it is discarded, and the build starts without it."""


DAMAGE = (sqlite3.DatabaseError, ValueError, EOFError, TypeError, KeyError)
"""What reading a damaged SQLite file or marshalled value raises."""


class SavedState:
    """The state of the last build in one SQLite file, read and written a row at a time.

    Values are marshalled: the state is plain tuples, dicts and strings, which marshal reads
    faster than anything else. A build that changed one record reads and writes a few rows.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / f"state-{STATE_FORMAT}.sqlite"
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            _fast_writes(db)
            db.executescript(SCHEMA)
            self._db = db
        return self._db

    def head(self) -> State:
        """Return what tells whether anything changed: settings, marker and each file's size, time and hash."""
        try:
            db = self._connect()
            meta = {name: marshal.loads(value) for name, value in db.execute("SELECT name, value FROM meta")}
            files = {name: FileEntry(size, mtime, sha, ())
                     for name, size, mtime, sha in db.execute("SELECT name, size, mtime, sha FROM files")}
            return State(**{name: meta[name] for name in META}, files=files)
        except DAMAGE:
            return self._unreadable()

    def load(self) -> State:
        """Return the whole state."""
        try:
            state = self.head()
            db = self._connect()
            related = {}
            for name, sha, record_id, record, search, index_key, found in db.execute(
                    "SELECT name, sha, id, record, search, index_key, related FROM files"):
                state.files[name].record = marshal.loads(record)
                if search is not None:
                    state.search[sha] = (*marshal.loads(search), index_key)
                if found is not None:
                    related[record_id] = marshal.loads(found)
            key = db.execute("SELECT value FROM meta WHERE name = 'related'").fetchone()
            state.related = (marshal.loads(key[0]) if key else "", related)
            for path, key, sha in db.execute("SELECT path, key, sha FROM outputs"):
                state.pages[path], state.manifest[path] = key, sha
            return state
        except DAMAGE:
            return self._unreadable()

    def _unreadable(self) -> State:
        """Start again from an empty state when the file is damaged or from another version."""
        self.discard()
        return State()

    def discard(self) -> None:
        """Delete the saved state, whatever it holds."""
        self.close()
        _delete_database(self.path)

    def save(self, state: State) -> None:
        """Replace the whole saved state with `state`, atomically; delete the state files of other versions."""
        for old in self.path.parent.iterdir():
            if old.name.startswith(("state", "head.pickle")) and not old.name.startswith(self.path.name):
                old.unlink(missing_ok=True)
        try:
            self._save(state)
        except sqlite3.DatabaseError as error:
            raise Damaged(self.path) from error

    def _save(self, state: State) -> None:
        db = self._connect()
        with _transaction(db):
            db.execute("DELETE FROM files")
            db.execute("DELETE FROM outputs")
            # One row at a time: all of them at once would double the memory of a large site.
            db.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", _file_rows(state))
            db.executemany("INSERT INTO outputs VALUES (?, ?, ?)",
                           ((path, key, state.manifest[path]) for path, key in state.pages.items()))
            self._put_meta(db, {**{name: getattr(state, name) for name in META}, "related": state.related[0]})

    def update(self, files: list[SavedFile], outputs: list[tuple[str, str, str]], meta: dict[str, Any]) -> None:
        """Replace some rows of records, outputs and settings, atomically."""
        try:
            db = self._connect()
            with _transaction(db):
                db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               [f.row() for f in files])
                db.executemany("INSERT OR REPLACE INTO outputs VALUES (?, ?, ?)", outputs)
                self._put_meta(db, meta)
        except sqlite3.DatabaseError as error:
            raise Damaged(self.path) from error

    def forget(self) -> None:
        """Mark the output and the previous tree as unknown, so that a build interrupted while writing is
        followed by a full one, which does not trust the previous tree."""
        try:
            db = self._connect()
            with _transaction(db):
                self._put_meta(db, {"marker": (0, 0, 0), "behind": None})
        except sqlite3.DatabaseError as error:
            raise Damaged(self.path) from error

    def files(self, names: list[str]) -> dict[str, SavedFile]:
        """Return the rows of the record files `names` that have one."""
        try:
            return self._files(names)
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def _files(self, names: list[str]) -> dict[str, SavedFile]:
        found = {}
        for name in names:
            row = self._connect().execute("SELECT * FROM files WHERE name = ?", (name,)).fetchone()
            if row is not None:
                name, size, mtime, sha, record_id, index_key, related, search, record = row
                found[name] = SavedFile(name, size, mtime, sha, record_id, marshal.loads(record),
                                        None if search is None else marshal.loads(search), index_key,
                                        None if related is None else marshal.loads(related))
        return found

    def records(self, ids: list[str]) -> dict[str, tuple[Any, ...]]:
        """Return the saved records of `ids`, as plain tuples."""
        found = {}
        try:
            for record_id in ids:
                row = self._connect().execute("SELECT record FROM files WHERE id = ?", (record_id,)).fetchone()
                if row is not None:
                    found[record_id] = marshal.loads(row[0])
        except DAMAGE as error:
            raise Damaged(self.path) from error
        return found

    def index_keys(self) -> dict[str, str | None]:
        """Return, by record id, the hash of what the search index takes of each record."""
        try:
            return dict(self._connect().execute("SELECT id, index_key FROM files"))
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def outputs(self, paths: list[str]) -> dict[str, tuple[str, str]]:
        """Return the dependency hash and the bytes' hash of the output files `paths` that have them."""
        found = {}
        try:
            for path in paths:
                row = self._connect().execute("SELECT key, sha FROM outputs WHERE path = ?", (path,)).fetchone()
                if row is not None:
                    found[path] = row
        except DAMAGE as error:
            raise Damaged(self.path) from error
        return found

    def close(self) -> None:
        """Close the file."""
        if self._db is not None:
            self._db.close()
            self._db = None

    @staticmethod
    def _put_meta(db: sqlite3.Connection, values: dict[str, Any]) -> None:
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                       ((name, marshal.dumps(value)) for name, value in values.items()))


def _fast_writes(db: sqlite3.Connection) -> None:
    """Commit without waiting for the disk: a crash of the machine may lose the last commits, never the file."""
    for attempt in range(WAL_ATTEMPTS):
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as error:
            # Changing the journal mode does not wait for another process's lock, as other statements do.
            if "locked" not in str(error) or attempt == WAL_ATTEMPTS - 1:
                raise
            time.sleep(0.05)
    db.execute("PRAGMA synchronous=NORMAL")


WAL_ATTEMPTS = 200
"""How often to try to set the journal mode while another process holds the file (0.05 s apart)."""


def _delete_database(path: Path) -> None:
    """Delete an SQLite file and its journals."""
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
        (path.parent / name).unlink(missing_ok=True)


def _file_rows(state: State) -> Iterator[tuple[Any, ...]]:
    related = state.related[1]
    for name, e in state.files.items():
        record_id = e.record[0]
        search = state.search.get(e.sha)
        yield SavedFile(name, e.size, e.mtime_ns, e.sha, record_id, e.record, search and search[:2],
                        search and search[2], related.get(record_id)).row()


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """BEGIN ... COMMIT, or ROLLBACK on any error (the connection runs in autocommit mode)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def record_to_tuple(record: Record) -> tuple[Any, ...]:
    """Return the record as nested plain tuples."""
    s = record.source
    fix = record.example_fix
    return (
        record.id, record.exception, record.message, record.title,
        (s.repo, s.commit, s.path, s.line, s.function, s.snippet.start, s.snippet.code),
        record.meaning, record.solutions,
        (fix.before, fix.after, fix.language, fix.code, fix.code_language, fix.note,
         (fix.check.files, fix.check.before, fix.check.after) if fix.check else None,
         (fix.verified.commit, fix.verified.date) if fix.verified else None) if fix else None,
        (record.when.trigger, record.when.situations) if record.when else None,
        record.related, record.tags,
        (record.analysis.by, record.analysis.date, record.analysis.note, record.analysis.commit)
        if record.analysis else None,
        record.status, record.file,
        tuple((v.message, v.kind, v.until) for v in record.variants),
        (record.review.since, record.review.why) if record.review else None,
    )


def record_from_tuple(t: tuple[Any, ...]) -> Record:
    """Return the record that `record_to_tuple` flattened."""
    s = t[4]
    return Record(
        id=t[0], exception=t[1], message=t[2], title=t[3],
        source=Source(s[0], s[1], s[2], s[3], s[4], Snippet(s[5], s[6])),
        meaning=t[5], solutions=t[6],
        example_fix=_example_fix(t[7]) if t[7] else None,
        when=When(*t[8]) if t[8] else None,
        related=t[9], tags=t[10],
        analysis=Analysis(*t[11]) if t[11] else None,
        status=t[12], file=t[13],
        variants=tuple(Variant(*v) for v in t[14]),
        review=Review(*t[15]) if t[15] else None,
    )


def _example_fix(t: tuple[Any, ...]) -> ExampleFix:
    """Return the example fix that `record_to_tuple` flattened."""
    return ExampleFix(before=t[0], after=t[1], language=t[2], code=t[3], code_language=t[4], note=t[5],
                      check=Check(*t[6]) if t[6] else None, verified=Verified(*t[7]) if t[7] else None)


class HighlightStore:
    """Highlighted code by content hash, kept across builds in one SQLite file.

    Only the process that made the store writes to the file; the worker processes forked from
    it only read. A damaged file is a cache miss, then deleted and made again when written.
    """

    def __init__(self, path: Path, salt: str) -> None:
        self.path = path
        self.salt = salt
        self.new: dict[str, str] = {}
        self._db: sqlite3.Connection | None = None
        self._reader = False
        """Whether this is a worker's copy, which reads a file that its parent set up."""
        self._damaged = False

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            if self._reader:
                self._db = sqlite3.connect(self.path, timeout=30)
                return self._db
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = self._open()
            except sqlite3.DatabaseError:
                self._discard()
                self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            _fast_writes(db)
            db.execute("CREATE TABLE IF NOT EXISTS lines (key TEXT PRIMARY KEY, html TEXT NOT NULL, sum TEXT NOT NULL)")
        except BaseException:
            db.close()
            raise
        return db

    def _discard(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        _delete_database(self.path)
        self._damaged = False

    def prepare(self) -> None:
        """Open the file (making it when missing) before worker processes are forked to read it."""
        try:
            self._connect()
        except sqlite3.DatabaseError:
            self._damaged = True

    def get(self, *parts: str) -> str | None:
        """Return the HTML made from `parts`, or None."""
        key = digest(self.salt, *parts)
        found = self.new.get(key)
        if found is not None or self._damaged:
            return found
        try:
            row = self._connect().execute("SELECT html, sum FROM lines WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError:
            self._damaged = True
            return None
        if row is None or type(row[0]) is not str or row[1] != digest(row[0]):
            return None  # a damaged row is a miss, and replaced when written
        return row[0]

    def put(self, html: str, *parts: str) -> None:
        """Keep the HTML made from `parts`, to be written when the store closes."""
        self.new[digest(self.salt, *parts)] = html

    def reopen(self) -> None:
        """Forget the connection, in a process forked from the one that opened it; only read from then on."""
        self._db = None
        self._reader = True
        self.new = {}

    def add(self, entries: dict[str, str]) -> None:
        """Store highlighted code that other processes produced."""
        if not entries:
            return
        try:
            self._insert(entries)
        except sqlite3.DatabaseError:
            self._discard()
            self._insert(entries)

    def _insert(self, entries: dict[str, str]) -> None:
        if self._damaged:
            self._discard()
        db = self._connect()
        with db:
            db.executemany("INSERT OR REPLACE INTO lines VALUES (?, ?, ?)",
                           ((key, html, digest(html)) for key, html in sorted(entries.items())))

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
