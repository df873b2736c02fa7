"""Highlighted code by content hash, kept across builds in one SQLite file (see `paths.highlight_path`)."""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
from pathlib import Path

from .keys import digest
from .state import delete_database, fast_writes


class HighlightStore:
    """Highlighted code by content hash, kept across builds in one SQLite file.

    Only the process that made the store writes to the file; the worker processes forked from
    it only read. A damaged file is a cache miss, then deleted and made again when written. The
    HTML goes into pages as it is, so each row carries a code made with the user's cache key
    (`paths.key`) from its key and its HTML: a row that anything else wrote is a miss.
    """

    def __init__(self, path: Path, salt: str, key: bytes) -> None:
        self.path = path
        self.salt = salt
        self.key = key
        """The user's cache key, which authenticates each row."""
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
            fast_writes(db)
            db.execute("CREATE TABLE IF NOT EXISTS lines (key TEXT PRIMARY KEY, html TEXT NOT NULL, sum TEXT NOT NULL)")
        except BaseException:
            db.close()
            raise
        return db

    def _discard(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        delete_database(self.path)
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
        if row is None or type(row[0]) is not str or type(row[1]) is not str \
                or not hmac.compare_digest(row[1], self._code(key, row[0])):
            return None  # a damaged or foreign row is a miss, and replaced when written
        return row[0]

    def _code(self, key: str, html: str) -> str:
        """Return the authentication code of the row of `key` holding `html`."""
        data = f"{len(key)}:{key}{html}".encode("utf-8", "surrogatepass")
        return hashlib.blake2b(data, key=self.key, digest_size=16).hexdigest()

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
                           ((key, html, self._code(key, html)) for key, html in sorted(entries.items())))

    def close(self) -> None:
        """Write what this process highlighted, and close."""
        self.add(self.new)
        self.new = {}
        if self._db is not None:
            self._db.close()
            self._db = None
