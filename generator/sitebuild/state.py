"""What a build keeps for the next one: one row per record file, one per output file, and a few settings.

It lives in one SQLite file in the build cache (see `paths`), read and written a row at a time,
so a build that changed one record reads and writes a few rows. Every value is keyed by
content hashes (of the record files, the settings, the templates and errorsite's own code),
never by time alone, so a stale value is never used.
"""

from __future__ import annotations

import marshal
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from ..model import (
    Analysis, Caller, Check, Definition, ExampleFix, Record, Release, Review, Reviewed, Snippet, Source, Summary, Tally,
    Variant, Verified, When,
)
from ..search.related import Group, Link, Links, group_list
from .keys import NO_TALLY, group_names, retallied

T = TypeVar("T")

RACY = -1
"""The modification time saved for a file changed close to a build: its hash decides whether it changed."""


class FileStat(NamedTuple):
    """A file's size and modification time, as one directory scan gives them, or as a build saved them."""

    size: int
    """Its size in bytes."""
    mtime_ns: int
    """Its modification time (RACY when a build saved it so)."""


# Not frozen: a build makes one per record file, and a frozen class's constructor takes longer.
@dataclass(slots=True)
class Stamp:
    """What tells whether a record file changed since the last build, without reading it."""

    size: int
    """Its size in bytes."""
    mtime_ns: int
    """Its modification time, or RACY when its hash alone decides."""
    sha: str
    """Hash of its bytes."""


@dataclass(frozen=True, slots=True)
class Search:
    """What the search index takes of one record."""

    entry: dict[str, Any]
    """Its search entry, as `search.index.search_entry` makes it."""
    terms: dict[str, int]
    """Its weighted terms, as `search.index.document_terms` makes them."""
    key: str
    """Hash of both (`keys.index_key`): the index changes when it does."""


@dataclass(frozen=True, slots=True)
class Made:
    """What a build makes of one record besides its pages."""

    search: Search
    """What the search index takes of it."""
    summary: Summary
    """What other pages show of it."""
    summary_key: str
    """Hash of its summary (`keys.summary_key`)."""
    relating_key: str
    """Hash of what relates it to other records (`keys.relating_key`)."""


@dataclass(frozen=True, slots=True)
class RecordRow:
    """One record file: what the last build read and made of it."""

    name: str
    """The file, as the user would name it."""
    stamp: Stamp
    """Its size, time and hash."""
    record: Record
    """Its validated record."""
    made: Made
    """Its search terms and summary."""
    related: tuple[Link, ...]
    """Its related errors, as its page lists them."""


@dataclass(frozen=True, slots=True)
class OutputRow:
    """One file of the output."""

    key: str
    """Hash of everything its bytes depend on (see `keys`)."""
    sha: str
    """Hash of its bytes."""


@dataclass(frozen=True, slots=True)
class Meta:
    """What a build keeps besides its rows."""

    env: str = ""
    """Hash of errorsite's code, templates, libraries, content folder and command-line settings."""
    code: str = ""
    """Hash of errorsite's code and libraries (see `inputs.Inputs.code`)."""
    env_stamp: tuple[Any, ...] = ()
    """Names, sizes and times of the code and template files, to skip hashing them when unchanged."""
    settings: str = ""
    """Hash of site.toml's bytes."""
    config_key: str = ""
    """What validated records depend on besides their own file."""
    salt: str = ""
    """What highlighted code depends on besides the code (see `store.HighlightStore`)."""
    related_key: str = ""
    """Hash of what the related map was made from (see `keys.related_key`)."""
    lexers: dict[str, str] = field(default_factory=dict)
    """Source path -> the name of its Pygments lexer (finding it by file name is slow)."""
    marker: tuple[int, int, int] = (0, 0, 0)
    """Device, inode and time of the output's marker file, to tell our last output from any other."""
    records: int = 0
    """Records of the last build."""
    pages: int = 0
    """HTML pages of the last build."""
    size: int = 0
    """Bytes of every file of the output the last build wrote."""
    base_path: str = "/"
    """The path of the site's base_url, where it is served."""
    behind: tuple[str, ...] | None = None
    """Output paths where the previous tree (the output before the last build) differs from the output;
    None when that tree is unknown (see `write.commit_changes`)."""


@dataclass(frozen=True, slots=True)
class Head:
    """What tells whether anything changed since the last build: its settings and every file's stamp."""

    meta: Meta
    """Settings of the last build."""
    stamps: dict[str, tuple[int, int]]
    """Record file name -> its size and time as saved, which equal its `FileStat` when it is unchanged (plain
    tuples: a build reads 10,000 of them in half the time)."""
    racy: dict[str, str]
    """Record file name -> its hash, of the files whose hash alone decides (saved with the time RACY)."""


class Saved:
    """The saved fields of records' summaries (see `_card`), read a few at a time, or all at once once many are."""

    __slots__ = ("ids", "_read", "_all", "_misses")

    FEW = 256
    """How many summaries are read one by one before the rest are read in one go (quicker for more)."""

    def __init__(self, ids: Collection[str], read: Callable[[Collection[str] | None], dict[str, bytes]]) -> None:
        self.ids = ids
        """The ids of the saved summaries, in the order saved."""
        self._read = read
        """What reads the saved fields of the summaries of some ids, or of all (None)."""
        self._all: dict[str, bytes] | None = None
        self._misses = 0

    def fields(self, record_id: str) -> bytes:
        """Return the saved fields of one record's summary."""
        if self._all is None:
            self._misses += 1
            if self._misses <= self.FEW:
                return self._read([record_id])[record_id]
            self._all = self._read(None)
        return self._all[record_id]

    def every(self) -> dict[str, bytes]:
        """Return the saved fields of every summary, by id."""
        if self._all is None:
            self._all = self._read(None)
        return self._all


class Summaries(Mapping[str, Summary]):
    """Record id -> its summary as the last build saved it (without its fragments), or as an edit made it.

    Each saved summary is read and decoded when first asked for: most edits use a few hundred of
    10,000, and reading and decoding them all would take longer than the rest of the edit.
    """

    __slots__ = ("_saved", "_made", "_changed")

    def __init__(self, saved: Saved, made: dict[str, Summary] | None = None,
                 changed: Mapping[str, Summary] | None = None) -> None:
        self._saved = saved
        """The saved summaries."""
        self._made = {} if made is None else made
        """Record id -> its saved summary, decoded; shared with the mappings `edited` makes."""
        self._changed = dict(changed or {})
        """Record id -> its summary after an edit (one of the saved ids)."""

    def __getitem__(self, record_id: str) -> Summary:
        found = self._changed.get(record_id) or self._made.get(record_id)
        if found is None:
            if record_id not in self._saved.ids:
                raise KeyError(record_id)
            found = self._made[record_id] = _card_summary(self._saved.fields(record_id))
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._saved.ids)

    def __len__(self) -> int:
        return len(self._saved.ids)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._saved.ids

    def edited(self, changed: Mapping[str, Summary]) -> Summaries:
        """Return these summaries with those of `changed` (ids of these) instead."""
        return Summaries(self._saved, self._made, {**self._changed, **changed})

    def all(self) -> dict[str, Summary]:
        """Return every summary, by id, in the order saved."""
        made, ids = self._made, self._saved.ids
        if len(made) < len(ids):
            saved = self._saved.every()
            made.update((i, _card_summary(saved[i])) for i in ids if i not in made)
        changed = self._changed
        return {i: changed.get(i) or made[i] for i in ids}


@dataclass(frozen=True, slots=True)
class Cards:
    """Records' summaries, as the last build saved them: what an edit of a few records needs to render
    the pages that list them."""

    summaries: Summaries
    """Record id -> its summary."""
    keys: dict[str, str]
    """Record id -> the hash of its summary."""


@dataclass(frozen=True, slots=True)
class State:
    """Everything a build keeps for the next one."""

    meta: Meta
    """Settings of the build."""
    rows: dict[str, RecordRow]
    """Record file name -> its row."""
    outputs: dict[str, OutputRow]
    """Output path -> its row."""


EMPTY = State(Meta(), {}, {})
"""The state before any build."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    name TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, sha TEXT NOT NULL,
    id TEXT NOT NULL, index_key TEXT NOT NULL, summary_key TEXT NOT NULL, relating_key TEXT NOT NULL,
    summary BLOB NOT NULL,
    related BLOB NOT NULL, search BLOB NOT NULL, record BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS records_by_id ON records (id);
CREATE TABLE IF NOT EXISTS cards (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL, sha TEXT NOT NULL,
    summary_key TEXT NOT NULL, place TEXT NOT NULL, dated TEXT, summary BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS cards_by_name ON cards (name);
CREATE INDEX IF NOT EXISTS cards_by_place ON cards (place);
CREATE INDEX IF NOT EXISTS cards_by_dated ON cards (dated);
CREATE TABLE IF NOT EXISTS outputs (path TEXT PRIMARY KEY, key TEXT NOT NULL, sha TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS linked (id TEXT NOT NULL, other TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS linked_by_other ON linked (other);
CREATE INDEX IF NOT EXISTS linked_by_id ON linked (id);
CREATE TABLE IF NOT EXISTS groups (kind TEXT NOT NULL, name TEXT NOT NULL, id TEXT NOT NULL, line INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS groups_by_name ON groups (kind, name);
CREATE INDEX IF NOT EXISTS groups_by_id ON groups (id);
CREATE TABLE IF NOT EXISTS listed (kind TEXT NOT NULL, name TEXT NOT NULL, id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS listed_by_name ON listed (kind, name);
CREATE INDEX IF NOT EXISTS listed_by_id ON listed (id);
CREATE TABLE IF NOT EXISTS tallies (
    kind TEXT NOT NULL, name TEXT NOT NULL, records INTEGER NOT NULL, written INTEGER NOT NULL,
    drafted INTEGER NOT NULL, PRIMARY KEY (kind, name));
"""
# `linked` holds each record's related ids again, so that the records whose pages link one are found
# without reading every record's related errors. `cards` holds again what every build or edit reads
# of every record: its stamp and its summary without its list item and API lines. It
# reads 10,000 of them in a fifth of the time it takes from the wide rows of `records`, and more than
# half of a summary's bytes are those fragments, which an update takes from the pages the last build wrote.
# `groups` holds the groups that relate records (`search.related.group_list`), and `listed` the list
# pages of each record (`keys.group_names`), so that an edit finds the records it may relate anew,
# and those on the list pages it changes, without going through every summary.
META_FIELDS = tuple(Meta.__dataclass_fields__)


class Damaged(Exception):
    """The saved state cannot be read or written: it is discarded, and the build starts without it."""


DAMAGE = (sqlite3.DatabaseError, ValueError, EOFError, TypeError, KeyError, IndexError)
"""What reading a damaged SQLite file or marshalled value raises."""


class SavedState:
    """The state of the last build in one SQLite file.

    Values are marshalled plain tuples, which load faster than anything else; `encode` and
    `decode` turn a record into them and back.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            fast_writes(db)
            # Read the file through a memory map: an edit reads thousands of its pages, each
            # otherwise a system call.
            db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            db.executescript(SCHEMA)
            self._db = db
        return self._db

    def head(self) -> Head:
        """Return the settings and every record file's stamp; an empty head when the file is damaged."""
        try:
            db = self._connect()
            meta = _meta(db)
            stamps = {name: (size, mtime) for name, size, mtime in db.execute("SELECT name, size, mtime FROM cards")}
            racy = dict(db.execute("SELECT name, sha FROM cards WHERE mtime = ?", (RACY,)))
            return Head(meta, stamps, racy)
        except DAMAGE:
            self.discard()
            return Head(Meta(), {}, {})

    def load(self) -> State:
        """Return the whole state; the empty one when the file is damaged."""
        try:
            db = self._connect()
            meta = _meta(db)
            rows = {row[0]: _record_row(row) for row in db.execute("SELECT * FROM records")}
            outputs = {path: OutputRow(key, sha) for path, key, sha in db.execute("SELECT path, key, sha FROM outputs")}
            return State(meta, rows, outputs)
        except DAMAGE:
            self.discard()
            return EMPTY

    def discard(self) -> None:
        """Delete the saved state, whatever it holds."""
        self.close()
        delete_database(self.path)

    def save(self, state: State, old: State) -> None:
        """Make the saved state `state`, atomically, writing the rows that differ from `old`'s (the saved one).

        A row of `state` that is `old`'s own object is taken as saved already. The state files
        of other formats are deleted.
        """
        for other in self.path.parent.iterdir():
            if other.name.startswith("state") and not other.name.startswith(self.path.name):
                other.unlink(missing_ok=True)
        try:
            db = self._connect()
            with _transaction(db):
                db.executemany("DELETE FROM records WHERE name = ?", ((name,) for name in old.rows.keys() - state.rows.keys()))
                ids = {row.record.id for row in state.rows.values()}
                gone = {row.record.id for row in old.rows.values()} - ids
                db.executemany("DELETE FROM linked WHERE id = ?", ((i,) for i in gone))
                db.executemany("DELETE FROM cards WHERE id = ?", ((i,) for i in gone))
                db.executemany("DELETE FROM groups WHERE id = ?", ((i,) for i in gone))
                db.executemany("DELETE FROM listed WHERE id = ?", ((i,) for i in gone))
                _relink(db, {row.record.id: row.related for name, row in state.rows.items() if old.rows.get(name) is not row})
                db.executemany("DELETE FROM outputs WHERE path = ?", ((path,) for path in old.outputs.keys() - state.outputs.keys()))
                # One row at a time: all of them at once would double the memory of a large site.
                fresh = [row for name, row in state.rows.items() if old.rows.get(name) is not row]
                db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               (_columns(row) for row in fresh))
                db.executemany("INSERT OR REPLACE INTO cards VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (_card(row) for row in fresh))
                _regroup(db, fresh)
                db.execute("DELETE FROM tallies")
                tallies: dict[tuple[str, str], Tally] = {}
                retallied(tallies, (), (row.made.summary for row in state.rows.values()))
                db.executemany("INSERT INTO tallies VALUES (?, ?, ?, ?, ?)", ((*group, *tally) for group, tally in tallies.items()))
                db.executemany("INSERT OR REPLACE INTO outputs VALUES (?, ?, ?)",
                               ((path, row.key, row.sha) for path, row in state.outputs.items()
                                if old.outputs.get(path) != row))
                _put_meta(db, {name: getattr(state.meta, name) for name in META_FIELDS})
        except sqlite3.DatabaseError as error:
            raise Damaged(self.path) from error

    def update(self, rows: Iterable[RecordRow], outputs: dict[str, OutputRow], meta: dict[str, Any],
               links: Links | None = None, gone: Iterable[str] = ()) -> None:
        """Replace some record rows, output rows and settings, and other records' related errors
        (`links`, by id); forget the output rows of `gone`; atomically."""
        rows = list(rows)
        try:
            db = self._connect()
            with _transaction(db):
                _retally(db, rows)
                db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               [_columns(row) for row in rows])
                db.executemany("INSERT OR REPLACE INTO cards VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [_card(row) for row in rows])
                _regroup(db, rows)
                db.executemany("UPDATE records SET related = ? WHERE id = ?",
                               [(_links(found), i) for i, found in (links or {}).items()])
                _relink(db, {**(links or {}), **{row.record.id: row.related for row in rows}})
                db.executemany("INSERT OR REPLACE INTO outputs VALUES (?, ?, ?)",
                               [(path, row.key, row.sha) for path, row in outputs.items()])
                db.executemany("DELETE FROM outputs WHERE path = ?", [(path,) for path in gone])
                _put_meta(db, meta)
        except sqlite3.DatabaseError as error:
            raise Damaged(self.path) from error

    def restamp(self, stamps: dict[str, Stamp]) -> None:
        """Replace the size and time saved for the record files `stamps` names (their hashes are unchanged)."""
        try:
            db = self._connect()
            with _transaction(db):
                for table in ("records", "cards"):
                    db.executemany(f"UPDATE {table} SET size = ?, mtime = ? WHERE name = ? AND sha = ?",
                                   [(s.size, s.mtime_ns, name, s.sha) for name, s in stamps.items()])
        except sqlite3.DatabaseError as error:
            raise Damaged(self.path) from error

    def forget(self) -> None:
        """Mark the output and the previous tree as unknown, so that a build interrupted while writing is
        followed by a full one, which does not trust the previous tree."""
        self.update([], {}, {"marker": (0, 0, 0), "behind": None})

    def rows(self, names: Iterable[str]) -> dict[str, RecordRow]:
        """Return the rows of the record files `names` that have one."""
        return self._select("SELECT * FROM records WHERE name = ?", names, lambda row: (row[0], _record_row(row)))

    def records(self, ids: Iterable[str]) -> dict[str, Record]:
        """Return the saved records of `ids` that have one."""
        return self._select("SELECT id, record FROM records WHERE id = ?", ids,
                            lambda row: (row[0], decode(marshal.loads(row[1]))))

    def outputs(self, paths: Iterable[str]) -> dict[str, OutputRow]:
        """Return the rows of the output files `paths` that have one."""
        return self._select("SELECT path, key, sha FROM outputs WHERE path = ?", paths,
                            lambda row: (row[0], OutputRow(row[1], row[2])))

    def cards(self, ids: Iterable[str] | None = None) -> Cards:
        """Return the summary of every record, or of the records `ids`, without their list items and API lines."""
        query = "SELECT id, summary_key FROM cards"
        try:
            db = self._connect()
            keys = dict(db.execute(query).fetchall() if ids is None else [
                row for i in ids for row in db.execute(query + " WHERE id = ?", (i,))])
        except DAMAGE as error:
            raise Damaged(self.path) from error
        return Cards(Summaries(Saved(keys, self._summaries)), keys)

    def _summaries(self, ids: Collection[str] | None) -> dict[str, bytes]:
        """Return the saved summaries (see `_card`) of the records `ids`, or of every record (None), by id."""
        query = "SELECT id, summary FROM cards"
        if ids is not None:
            return self._select(query + " WHERE id = ?", ids, tuple)
        try:
            return dict(self._connect().execute(query).fetchall())
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def tallies(self) -> dict[tuple[str, str], Tally]:
        """Return the tally of every group records are counted in (see `keys.tallied`), by (kind, name)."""
        try:
            return {(kind, name): Tally(records, written, drafted)
                    for kind, name, records, written, drafted in self._connect().execute("SELECT * FROM tallies")}
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def recent(self, limit: int) -> list[str]:
        """Return the ids of the `limit` written records whose prose is newest, as saved, newest first
        (as `render.recently_changed` orders them)."""
        try:
            return [i for (i,) in self._connect().execute(
                "SELECT id FROM cards WHERE dated IS NOT NULL ORDER BY dated DESC, place LIMIT ?", (limit,))]
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def shas(self, ids: Iterable[str]) -> dict[str, str]:
        """Return the hash of the file of each record of `ids`, by id."""
        return self._select("SELECT id, sha FROM cards WHERE id = ?", ids, tuple)

    def following(self, order: str, skip: Collection[str]) -> tuple[str, str] | None:
        """Return the id and place of the first record after the place `order` in list order
        (`Summary.order`, as saved), but the records `skip`; None when there is none."""
        try:
            rows = self._connect().execute("SELECT id, place FROM cards WHERE place > ? ORDER BY place LIMIT ?",
                                           (order, len(skip) + 1))
            return next(((i, place) for i, place in rows if i not in skip), None)
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def newer(self, date: str, skip: Collection[str], limit: int) -> int:
        """Return how many records but `skip` are written with a prose date after `date`, counting up to `limit`."""
        try:
            rows = self._connect().execute("SELECT id FROM cards WHERE dated > ? ORDER BY dated DESC LIMIT ?",
                                           (date, limit + len(skip)))
            return min(limit, sum(i not in skip for i, in rows))
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def links(self, ids: Iterable[str]) -> Links:
        """Return the related errors of the records `ids`."""
        return self._select("SELECT id, related FROM records WHERE id = ?", ids, lambda row: (
            row[0], tuple(Link(other, automatic) for other, automatic in marshal.loads(row[1]))))

    def linking(self, ids: Iterable[str]) -> set[str]:
        """Return the ids of the records whose related errors include any of `ids`."""
        try:
            db = self._connect()
            return {found for i in ids for (found,) in db.execute("SELECT id FROM linked WHERE other = ?", (i,))}
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def listed(self, groups: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        """Return the ids, in id order, of the records on the list page of each of `groups` (`keys.group_names`),
        once per time a record is on it."""
        try:
            db = self._connect()
            return {(kind, name): [i for (i,) in db.execute(
                "SELECT id FROM listed WHERE kind = ? AND name = ? ORDER BY id", (kind, name))] for kind, name in groups}
        except DAMAGE as error:
            raise Damaged(self.path) from error

    def members(self, limits: Mapping[Group, int]) -> dict[Group, list[str]]:
        """Return the ids of the active records of each group of `limits`, at most its limit of them (see
        `search.related.Members`)."""
        found: dict[Group, list[str]] = {}
        try:
            db = self._connect()
            for (kind, name), limit in limits.items():
                found[kind, name] = [i for (i,) in db.execute(
                    "SELECT id FROM groups WHERE kind = ? AND name = ? ORDER BY line, id LIMIT ?" if kind == "file" else
                    "SELECT id FROM groups WHERE kind = ? AND name = ? LIMIT ?", (kind, name, limit))]
        except DAMAGE as error:
            raise Damaged(self.path) from error
        return found

    def _select(self, query: str, values: Iterable[str], make: Callable[[Any], tuple[str, T]]) -> dict[str, T]:
        """Return what `make` makes of the row `query` selects for each of `values`, by the key it gives."""
        found = {}
        try:
            db = self._connect()
            for value in values:
                row = db.execute(query, (value,)).fetchone()
                if row is not None:
                    key, made = make(row)
                    found[key] = made
        except DAMAGE as error:
            raise Damaged(self.path) from error
        return found

    def close(self) -> None:
        """Close the file."""
        if self._db is not None:
            self._db.close()
            self._db = None


def _meta(db: sqlite3.Connection) -> Meta:
    values = {name: marshal.loads(value) for name, value in db.execute("SELECT name, value FROM meta")}
    return Meta(**{name: values[name] for name in META_FIELDS}) if values else Meta()


def _put_meta(db: sqlite3.Connection, values: dict[str, Any]) -> None:
    db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                   ((name, marshal.dumps(value)) for name, value in values.items()))


def _columns(row: RecordRow) -> tuple[Any, ...]:
    """Return a record row as stored: small columns first, so reading them stops before the large ones."""
    s, made = row.stamp, row.made
    summary = made.summary
    return (row.name, s.size, s.mtime_ns, s.sha, row.record.id, made.search.key, made.summary_key, made.relating_key,
            marshal.dumps(tuple(getattr(summary, name) for name in SUMMARY_FIELDS)), _links(row.related),
            marshal.dumps((made.search.entry, made.search.terms)), marshal.dumps(encode(row.record)))


SUMMARY_FIELDS = tuple(Summary._fields)
FRAGMENTS = ("item", "error_line", "pattern_line")
"""The last fields of a summary, which `cards` leaves out."""
CARD_FIELDS = SUMMARY_FIELDS[:-len(FRAGMENTS)]
NO_FRAGMENTS = (None,) * len(FRAGMENTS)
"""What a summary read from `cards` holds in place of its fragments."""
assert SUMMARY_FIELDS[-len(FRAGMENTS):] == FRAGMENTS


def _card(row: RecordRow) -> tuple[Any, ...]:
    """Return a record's row of `cards`: its stamp, its place in lists, the date of its prose when it is
    written (what orders the home page's recent pages), and its summary without its fragments."""
    s, made = row.stamp, row.made
    summary = made.summary
    return (row.record.id, row.name, s.size, s.mtime_ns, s.sha, made.summary_key, summary.order,
            summary.analysis_date if summary.written else None,
            marshal.dumps(tuple(getattr(made.summary, name) for name in CARD_FIELDS)))


def _regroup(db: sqlite3.Connection, rows: list[RecordRow]) -> None:
    """Make the `groups` and `listed` rows of each record of `rows` those of its summary."""
    db.executemany("DELETE FROM groups WHERE id = ?", ((row.record.id,) for row in rows))
    db.executemany("DELETE FROM listed WHERE id = ?", ((row.record.id,) for row in rows))
    db.executemany("INSERT INTO groups VALUES (?, ?, ?, ?)", ((kind, name, row.record.id, row.made.summary.line)
                                                           for row in rows for kind, name in group_list(row.made.summary)))
    db.executemany("INSERT INTO listed VALUES (?, ?, ?)",
                   ((kind, name, row.record.id) for row in rows for kind, name in group_names(row.made.summary)))


def _retally(db: sqlite3.Connection, rows: list[RecordRow]) -> None:
    """Make the saved tallies count the summaries of `rows` instead of the saved ones of their records."""
    saved = [_card_summary(found[0]) for row in rows
             for found in db.execute("SELECT summary FROM cards WHERE id = ?", (row.record.id,))]
    change: dict[tuple[str, str], Tally] = {}
    retallied(change, saved, (row.made.summary for row in rows))
    db.executemany("INSERT INTO tallies VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, name) DO UPDATE SET "
                   "records = records + excluded.records, written = written + excluded.written, "
                   "drafted = drafted + excluded.drafted",
                   [(*group, *tally) for group, tally in change.items() if tally != NO_TALLY])
    db.execute("DELETE FROM tallies WHERE records = 0")


def _card_summary(saved: bytes) -> Summary:
    """Return the summary of a row of `cards` (see `_card`), without its fragments."""
    return Summary._make(marshal.loads(saved) + NO_FRAGMENTS)


def _relink(db: sqlite3.Connection, links: Links) -> None:
    """Make the `linked` rows of each record of `links` its related ids."""
    db.executemany("DELETE FROM linked WHERE id = ?", ((i,) for i in links))
    db.executemany("INSERT INTO linked VALUES (?, ?)", ((i, link.id) for i, found in links.items() for link in found))


def _links(links: tuple[Link, ...]) -> bytes:
    return marshal.dumps(tuple((link.id, link.automatic) for link in links))


def _record_row(columns: tuple[Any, ...]) -> RecordRow:
    name, size, mtime, sha, _, index_key, summary_key, relating_key, summary, related, search, record = columns
    entry, terms = marshal.loads(search)
    made = Made(Search(entry, terms, index_key), Summary._make(marshal.loads(summary)), summary_key, relating_key)
    return RecordRow(name, Stamp(size, mtime, sha), decode(marshal.loads(record)), made,
                     tuple(Link(other, automatic) for other, automatic in marshal.loads(related)))


def fast_writes(db: sqlite3.Connection) -> None:
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
            import time

            time.sleep(0.05)
    db.execute("PRAGMA synchronous=NORMAL")


MMAP_BYTES = 1 << 30
"""How much of the state file SQLite maps into memory (it maps no more than the file holds)."""

WAL_ATTEMPTS = 200
"""How often to try to set the journal mode while another process holds the file (0.05 s apart)."""


def delete_database(path: Path) -> None:
    """Delete an SQLite file and its journals."""
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
        (path.parent / name).unlink(missing_ok=True)


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


Encoded = tuple[Any, ...]
"""A record as nested plain tuples: what is stored and sent between processes (only `decode` reads it)."""


def encode(record: Record) -> Encoded:
    """Return the record as nested plain tuples."""
    s = record.source
    fix = record.example_fix
    return (
        record.id, record.exception, record.message, record.title,
        (s.repo, s.commit, s.path, s.line, s.function, s.snippet.start, s.snippet.code, s.guard,
         tuple((c.path, c.line, c.function) for c in s.callers),
         tuple((name, (d.path, d.line, d.kind, d.help, d.flag)) for name, d in s.names)),
        record.meaning, record.solutions,
        (fix.before, fix.after, fix.language, fix.code, fix.code_language, fix.note,
         (fix.check.files, fix.check.before, fix.check.after) if fix.check else None,
         (fix.verified.commit, fix.verified.date) if fix.verified else None) if fix else None,
        (record.when.trigger, record.when.situations) if record.when else None,
        record.related, record.tags,
        (record.analysis.by, record.analysis.date, record.analysis.note, record.analysis.commit,
         record.analysis.model, (record.analysis.reviewed.by, record.analysis.reviewed.date)
         if record.analysis.reviewed else None)
        if record.analysis else None,
        record.status, record.file,
        tuple((v.message, v.kind, v.until) for v in record.variants),
        (record.review.since, record.review.why) if record.review else None,
        tuple((h.release, h.commit, h.change) for h in record.history),
    )


def decode(t: Encoded) -> Record:
    """Return the record that `encode` flattened."""
    (record_id, exception, message, title, s, meaning, solutions, fix, when, related, tags, analysis, status, file,
     variants, review, history) = t
    return Record(
        id=record_id, exception=exception, message=message, title=title,
        source=Source(s[0], s[1], s[2], s[3], s[4], Snippet(s[5], s[6]), s[7], tuple(Caller(*c) for c in s[8]),
                      tuple((name, Definition(*d)) for name, d in s[9])),
        meaning=meaning, solutions=solutions,
        example_fix=_example_fix(fix) if fix else None,
        when=When(*when) if when else None,
        related=related, tags=tags,
        analysis=_analysis(analysis) if analysis else None,
        status=status, file=file,
        variants=tuple(Variant(*v) for v in variants),
        review=Review(*review) if review else None,
        history=tuple(Release(*h) for h in history),
    )


def _analysis(t: Encoded) -> Analysis:
    by, date, note, commit, model, reviewed = t
    return Analysis(by, date, note, commit, model, Reviewed(*reviewed) if reviewed else None)


def _example_fix(t: Encoded) -> ExampleFix:
    before, after, language, code, code_language, note, check, verified = t
    return ExampleFix(before=before, after=after, language=language, code=code, code_language=code_language,
                      note=note, check=Check(*check) if check else None,
                      verified=Verified(*verified) if verified else None)
