"""The joined index of a repository folder's files (`context.join`), kept between extracts so that a run reads of it
only what a change reaches.

Finding the callers and names of a site reads the library's layout whole (`context.Layout`) and, by key, rows that
carry lines: a function's row, the calls by a name, the options and the constants of a name. A re-extract takes most
sites' callers and names as they were, when the layout and the digest of each row they read are the same
(`Context.annotate`), and finds them again for the few sites a change moved or reached. Joining every file's index
for that costs what the library's size costs; this file keeps the join instead: the layout, the digest of every key's
rows, and the rows themselves, read one key at a time.

A run whose changed files say what they said of the layout (`context.layout_part`: an edit inside functions, a
comment, a reworded message) and whose library defines the same names takes the layout as kept, and makes again only
the rows of the keys the changed files held or hold now, from the kept rows of that key and the changed files' new
indexes: the rows of a key are in path order, so a file's part of them is taken out and its new part put in its
place. What a file said of the layout and the keys it held are kept with the join, by path (`_Part`), so that such a
run reads no index of what a file was: a cache the Action kept holds only what its last run used, which is not the
index a file had before a later change. Any other change joins every file's index again and keeps what changed of
it. `tests/test_joined.py` checks that the rows, digests and layout a run takes are those a join of every file gives.

One SQLite file per repository folder (its name is the folder's pack entry's, `FactStore.pack`), in the user's facts
folder. Each pickle in it (the layout, the files and blobs it was made of, each key's rows, each file's part) is
authenticated with the user's cache key before it is unpickled: a damaged or foreign one makes the run join every
index again and keep the join anew. A run reads the rows it needs within one read of the file, so another run
writing it meanwhile cannot mix two states; what the run changed is written in the same transaction, or not at all
when another run wrote first.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import sqlite3
import zlib
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, cast

from ..model import Definition
from ..sitebuild.state import delete_database, fast_writes
from .context import ROW_KINDS, Context, FileIndex, Layout, join, layout_part, row_keys, rows_digest

class DamagedJoin(Exception):
    """A kept row failed its check while a run read it, or could not be read: the run joins every index again (see
    `JoinedIndex`). Never shown: it says nothing a user can act on."""


class _Part(NamedTuple):
    """What the join keeps of one file, besides its rows: what a run needs of what the file was, to make the rows of
    its keys again once it changed."""

    blob: str
    """The blob id of the file's bytes."""
    layout: bytes
    """A digest of what the file says of the layout (`context.layout_part`)."""
    keys: tuple[tuple[str, Any], ...]
    """Each key, as kind and key, the file may add rows to (`context.row_keys`): every one it adds rows to."""


def _part(index: FileIndex, blob: str, called: frozenset[str] | None) -> _Part:
    """Return the part of the file of `index`, at the bytes of `blob`, in a join of the calls by a name in `called`."""
    return _Part(blob, _layout_digest(index), row_keys(index, called))


def _layout_digest(index: FileIndex) -> bytes:
    """Return a digest of what a file says of the layout: two files whose digests are equal say the same."""
    return hashlib.blake2b(repr(layout_part(index)).encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _State(NamedTuple):
    """What a kept join was made of, with its layout and every key's digest."""

    files: dict[str, str]
    """The blob id of each file whose index it joined, by path."""
    called: bytes
    """A digest of the names whose calls it kept (see `context.join`)."""
    layout: Layout
    digests: dict[str, dict[Any, bytes]]
    """By kind, the digest of each key's rows (`context.rows_digest`)."""
    buckets: list[dict[str, dict[Any, bytes]]]
    """The same digests as the file holds them, in BUCKETS parts (see `_bucket`)."""


LOCK_WAIT = 30.0
"""How many seconds a run waits for another that writes the file."""

BUCKETS = 1024
"""How many parts the digests are kept in: a run writes again only the parts that hold a digest it changed."""

_TABLES = ("CREATE TABLE IF NOT EXISTS state (name TEXT PRIMARY KEY, body BLOB NOT NULL, code BLOB NOT NULL)",
           "CREATE TABLE IF NOT EXISTS rows (kind TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL, "
           "code BLOB NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID",
           "CREATE TABLE IF NOT EXISTS digests (bucket INTEGER PRIMARY KEY, body BLOB NOT NULL, code BLOB NOT NULL)",
           "CREATE TABLE IF NOT EXISTS parts (path TEXT PRIMARY KEY, body BLOB NOT NULL, code BLOB NOT NULL) "
           "WITHOUT ROWID")


def _key_text(kind: str, key: Any) -> str:
    """Return a key as the file holds it: a function's (path, qualified name) joined by a NUL, a name as it is."""
    return "\0".join(key) if kind == "function" else str(key)


def _bucket(kind: str, key: Any) -> int:
    """Return the part of the digests a key's digest is kept in."""
    return zlib.crc32(f"{kind}\0{_key_text(kind, key)}".encode("utf-8", "surrogatepass")) % BUCKETS


def _called_digest(called: frozenset[str] | None) -> bytes:
    return hashlib.blake2b(repr(None if called is None else sorted(called)).encode("utf-8", "surrogatepass"),
                           digest_size=16).digest()


class _KeptRows:
    """The rows of one kind of a kept join, read from the file when first asked, with those a run changed."""

    def __init__(self, joined: JoinedIndex, kind: str, present: Mapping[Any, bytes]) -> None:
        self.joined, self.kind, self.present = joined, kind, present
        self.changed: dict[Any, Any] = {}
        """The rows of each key this run changed (None: no file holds any now)."""
        self._read: dict[Any, Any] = {}

    def get(self, key: Any, default: Any = None, /) -> Any:
        if key in self.changed:
            found = self.changed[key]
        elif key not in self.present:
            found = None
        elif key in self._read:
            found = self._read[key]
        else:
            found = self._read[key] = self.joined.read_rows(self.kind, key)
        return default if found is None else found


class JoinedIndex:
    """The kept join of one repository folder (see the module)."""

    def __init__(self, path: Path, secret: bytes) -> None:
        self.path = path
        """The SQLite file."""
        self.secret = secret
        """The user's cache key."""
        self._db: sqlite3.Connection | None = None
        self._write: Callable[[sqlite3.Connection], None] | None = None
        """What `save` writes: what `context` changed."""

    def context(self, blobs: Mapping[str, str], index: Callable[[str], FileIndex],
                called: frozenset[str] | None) -> Context:
        """Return the context of the files whose blob ids are `blobs` (by path), whose indexes `index` gives:
        from the kept join where the change allows, else joined again. `save` then keeps what changed."""
        state = self._state()
        called_digest = _called_digest(called)
        if state is not None and state.files.keys() == blobs.keys() and state.called == called_digest:
            patched = self._patched(state, blobs, index, called)
            if patched is not None:
                return patched
        indexes = [index(path) for path in sorted(blobs)]
        context = join(indexes, called)
        digests = {kind: {key: rows_digest(rows) for key, rows in _items(context.table(kind))} for kind in ROW_KINDS}
        context.known_digests(digests)
        files, layout = dict(blobs), context.layout
        # A file's part is what its bytes and the names asked for make: one whose bytes and names are as kept is. Made
        # now, so that the indexes go before the sites are annotated.
        kept = state.files if state is not None and state.called == called_digest else {}
        parts = [(found.path, _part(found, files[found.path], called)) for found in indexes
                 if kept.get(found.path) != files[found.path]]
        del indexes

        def write(db: sqlite3.Connection) -> None:
            if state is None:
                db.execute("DELETE FROM rows")  # what a damaged state left
                db.execute("DELETE FROM parts")
            for kind, now in digests.items():
                before = state.digests.get(kind, {}) if state is not None else {}
                db.executemany("DELETE FROM rows WHERE kind = ? AND key = ?",
                               [(kind, _key_text(kind, key)) for key in before.keys() - now.keys()])
                db.executemany("INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?)", (
                    self._row(kind, key, context.table(kind).get(key))
                    for key, digest in now.items() if before.get(key) != digest))
            buckets: list[dict[str, dict[Any, bytes]]] = [{} for _ in range(BUCKETS)]
            for kind, now in digests.items():
                for key, digest in now.items():
                    buckets[_bucket(kind, key)].setdefault(kind, {})[key] = digest
            # What is as the file holds it is not written again: a change of the layout changes few rows.
            self._put_buckets(db, buckets, [n for n in range(BUCKETS) if state is None or buckets[n] != state.buckets[n]])
            if state is None or state.layout.structure != layout.structure:
                self._put(db, "layout", layout)
            if state is not None:
                db.executemany("DELETE FROM parts WHERE path = ?", [(path,) for path in state.files.keys() - files.keys()])
            self._put_parts(db, parts)
            self._put(db, "files", (files, called_digest))

        self._write = write
        return context

    def _patched(self, state: _State, blobs: Mapping[str, str], index: Callable[[str], FileIndex],
                 called: frozenset[str] | None) -> Context | None:
        """Return the kept join with the rows of the changed files made again, or None when a changed file says
        something else of the layout."""
        changed = sorted(path for path, blob in blobs.items() if state.files[path] != blob)
        pairs = []
        for path in changed:
            old, new = self.read_part(path, state.files[path]), index(path)
            if old.layout != _layout_digest(new):
                return None
            pairs.append((old, new))
        digests = state.digests
        tables = {kind: _KeptRows(self, kind, digests.setdefault(kind, {})) for kind in ROW_KINDS}
        context = Context(state.layout, tables)
        touched: set[int] = set()
        for old, new in pairs:
            for kind, key, rows in _file_rows(context, new, called, old.keys):
                tables[kind].changed[key] = rows
                bucket = _bucket(kind, key)
                touched.add(bucket)
                part = state.buckets[bucket].setdefault(kind, {})
                if rows is None:
                    digests[kind].pop(key, None)
                    part.pop(key, None)
                else:
                    digests[kind][key] = part[key] = rows_digest(rows)
        context.known_digests(digests)
        files = dict(blobs)

        def write(db: sqlite3.Connection) -> None:
            for kind, table in tables.items():
                db.executemany("DELETE FROM rows WHERE kind = ? AND key = ?",
                               [(kind, _key_text(kind, key)) for key, rows in table.changed.items() if rows is None])
                db.executemany("INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?)",
                               [self._row(kind, key, rows) for key, rows in table.changed.items() if rows is not None])
            self._put_buckets(db, state.buckets, sorted(touched))
            self._put_parts(db, [(new.path, _part(new, files[new.path], called)) for _, new in pairs])
            self._put(db, "files", (files, state.called))

        self._write = write if changed else None
        return context

    def save(self) -> None:
        """Keep what `context` changed, unless another run wrote the file since this one read it; close it."""
        db, write, self._write = self._db, self._write, None
        if db is None:
            return
        try:
            if write is not None:
                write(db)
            db.execute("COMMIT")
        except sqlite3.Error:
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        finally:
            self._close()
        try:
            os.utime(self.path)  # used by this run (see `FactStore._read`)
        except OSError:
            pass

    def discard(self) -> None:
        """Delete the file, damaged: the next `context` joins every index and keeps the join anew."""
        self._write = None
        self._close()
        delete_database(self.path)

    def read_rows(self, kind: str, key: Any) -> Any:
        """Return the kept rows of a key, once their authentication holds; raise DamagedJoin otherwise."""
        assert self._db is not None
        text = _key_text(kind, key)
        try:
            row = self._db.execute("SELECT body, code FROM rows WHERE kind = ? AND key = ?", (kind, text)).fetchone()
        except sqlite3.Error:
            raise DamagedJoin from None
        if row is None or not all(isinstance(part, bytes) for part in row) \
                or not hmac.compare_digest(row[1], self._code(kind, text, row[0])):
            raise DamagedJoin
        try:
            return pickle.loads(row[0])
        except Exception:  # authenticated, so ours: another Python wrote it
            raise DamagedJoin from None

    def read_part(self, path: str, blob: str) -> _Part:
        """Return the kept part of a file at the bytes the join was made of, once its authentication holds; raise
        DamagedJoin otherwise (every file of the join has one)."""
        assert self._db is not None
        try:
            row = self._db.execute("SELECT body, code FROM parts WHERE path = ?", (path,)).fetchone()
        except sqlite3.Error:
            raise DamagedJoin from None
        if row is None or not all(isinstance(part, bytes) for part in row) \
                or not hmac.compare_digest(row[1], self._code("parts", path, row[0])):
            raise DamagedJoin
        try:
            part = pickle.loads(row[0])
        except Exception:  # authenticated, so ours: another Python wrote it
            raise DamagedJoin from None
        if not isinstance(part, _Part) or part.blob != blob:
            raise DamagedJoin
        return part

    def _state(self) -> _State | None:
        """Open the file and start the read this run makes of it; return what it holds, or None when it holds nothing
        usable (it is then written whole)."""
        try:
            self._begin()
            assert self._db is not None
            files, layout = self._get(self._db, "files"), self._get(self._db, "layout")
            buckets = self._buckets(self._db)
        except sqlite3.OperationalError:
            # Another run holds the file longer than LOCK_WAIT: this one joins every index, and leaves the file to it.
            self._close()
            return None
        except sqlite3.DatabaseError:
            self.discard()
            try:
                self._begin()
            except sqlite3.Error:
                self._close()
            return None
        if not (isinstance(files, tuple) and len(files) == 2 and isinstance(files[0], dict)
                and isinstance(files[1], bytes) and isinstance(layout, Layout) and buckets is not None):
            return None
        digests: dict[str, dict[Any, bytes]] = {kind: {} for kind in ROW_KINDS}
        for part in buckets:
            for kind, found in part.items():
                digests[kind].update(found)
        return _State(files[0], files[1], layout, digests, buckets)

    def _buckets(self, db: sqlite3.Connection) -> list[dict[str, dict[Any, bytes]]] | None:
        """Return every part of the digests, or None when one is missing or fails its check."""
        buckets: list[dict[str, dict[Any, bytes]] | None] = [None] * BUCKETS
        for number, body, code in db.execute("SELECT bucket, body, code FROM digests"):
            if not (isinstance(number, int) and 0 <= number < BUCKETS and isinstance(body, bytes)
                    and isinstance(code, bytes) and hmac.compare_digest(code, self._code("digests", str(number), body))):
                return None
            try:
                part = pickle.loads(body)
            except Exception:  # authenticated, so ours: another Python wrote it
                return None
            if not isinstance(part, dict) or not part.keys() <= set(ROW_KINDS):
                return None
            buckets[number] = part
        return None if any(part is None for part in buckets) else cast(list[dict[str, dict[Any, bytes]]], buckets)

    def _put_buckets(self, db: sqlite3.Connection, buckets: list[dict[str, dict[Any, bytes]]],
                     numbers: Iterable[int]) -> None:
        rows = []
        for number in numbers:
            body = pickle.dumps(buckets[number], protocol=pickle.HIGHEST_PROTOCOL)
            rows.append((number, body, self._code("digests", str(number), body)))
        db.executemany("INSERT OR REPLACE INTO digests VALUES (?, ?, ?)", rows)

    def _put_parts(self, db: sqlite3.Connection, parts: Iterable[tuple[str, _Part]]) -> None:
        rows = []
        for path, part in parts:
            body = pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
            rows.append((path, body, self._code("parts", path, body)))
        db.executemany("INSERT OR REPLACE INTO parts VALUES (?, ?, ?)", rows)

    def _begin(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = self._db = sqlite3.connect(self.path, timeout=LOCK_WAIT, isolation_level=None)
        fast_writes(db)
        for table in _TABLES:
            db.execute(table)
        db.execute("BEGIN")

    def _get(self, db: sqlite3.Connection, name: str) -> object:
        row = db.execute("SELECT body, code FROM state WHERE name = ?", (name,)).fetchone()
        if row is None or not all(isinstance(part, bytes) for part in row) \
                or not hmac.compare_digest(row[1], self._code("state", name, row[0])):
            return None
        try:
            return pickle.loads(row[0])
        except Exception:  # authenticated, so ours: another Python wrote it
            return None

    def _put(self, db: sqlite3.Connection, name: str, value: object) -> None:
        body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        db.execute("INSERT OR REPLACE INTO state VALUES (?, ?, ?)", (name, body, self._code("state", name, body)))

    def _row(self, kind: str, key: Any, rows: Any) -> tuple[str, str, bytes, bytes]:
        text = _key_text(kind, key)
        body = pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)
        return kind, text, body, self._code(kind, text, body)

    def _code(self, kind: str, key: str, body: bytes) -> bytes:
        """Return the authentication of a key's rows (or, of kind "state", of an entry of the state)."""
        # The file's name changes with errorsite's code (the facts' salt): no other version reads it.
        head = f"{kind}\0{len(key)}:{key}\0".encode("utf-8", "surrogatepass")
        return hashlib.blake2b(head + body, key=self.secret, digest_size=32).digest()

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def _items(table: object) -> Iterable[tuple[Any, Any]]:
    assert isinstance(table, dict)
    return table.items()


def _entry_path(entry: Any) -> str:
    """Return the file a row of a key's rows is of."""
    return entry.path if isinstance(entry, Definition) else entry[0]


def _file_rows(context: Context, new: FileIndex, called: frozenset[str] | None, old: Iterable[tuple[str, Any]]
               ) -> Iterable[tuple[str, Any, Any]]:
    """Yield the rows, as kind, key and rows (None: none), of each key the file of `new` holds or may have held (`old`,
    its part's keys) whose rows change: the kept rows of the key with the file's part of them made again from `new`,
    in its place in path order."""
    path = new.path
    made: dict[tuple[str, Any], Any] = {}
    for kind, key, rows in context.rows_of(new, called):
        if kind == "function":
            made.setdefault((kind, key), rows)
        else:
            made[(kind, key)] = rows
    for kind, key in dict.fromkeys([*old, *made]):
        if kind == "function":
            yield kind, key, made.get((kind, key))
            continue
        before = context.table(kind).get(key, ())
        kept = [entry for entry in before if _entry_path(entry) != path]
        if (kind, key) not in made and len(kept) == len(before):
            continue  # a key the file may have added rows to, and did not
        at = bisect_right([_entry_path(entry) for entry in kept], path)
        rows = kept[:at] + made.get((kind, key), []) + kept[at:]
        yield kind, key, rows or None
