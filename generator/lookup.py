"""`errorsite lookup --content`: the answers of a content folder, kept so that a second lookup reads no record.

A search of a content folder needs the index of every record, and making it reads and validates
every record file: seconds for a library of 10,000 errors. So the first lookup of a folder keeps
what a built site keeps for its search box, in one SQLite file of the user's cache folder
(`sitebuild.paths.user_cache`, where no repository can put a file; one file per content folder,
named by the hash of its absolute path): the index's fragments (`search.shards`) and each record
file's bytes. A later lookup of the same folder, whose record files have the same names, sizes
and times, with the same settings, base URL and errorsite, reads only the fragments its text
needs and the records it prints, as `lookup --site` reads a built site. Any other lookup reads
the folder and keeps it again.

A file changed within `load.RACY_NS` of the look at its time may change again keeping its size and
time (as a build's stamps, `sitebuild.inputs`): a folder holding one is answered and not kept.
A kept file that cannot be read, or that does not hold what it should, is a miss and is made
again. Deleting the folder `lookup/` of the cache is always safe.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__, load
from .load import RawRecord
from .model import Record
from .problems import Invalid

FORMAT = 1
"""Changes whenever what the kept file holds changes: a file of another format is never read."""

Answer = tuple[list[dict[str, Any]], dict[str, Record], str]
"""The results, best first; the records they name, by id; the base URL of the pages."""


@dataclass(frozen=True, slots=True)
class Stamp:
    """What the kept answers of a content folder were made from."""

    key: str
    """Hash of the record files' names, sizes and times, the settings' bytes, the base URL and the code."""
    racy: bool
    """Whether a record file or the settings changed too recently for their times to be trusted."""


def search_content(content: Path, text: str, limit: int, base_url: str | None) -> Answer:
    """Return what a search of `text` in the records of `content` gives, from the kept answers when they are current."""
    from .sitebuild.paths import UnsafeCache, lookup_path

    stamp = _stamp(content, base_url)
    try:
        kept = lookup_path(content, FORMAT)
    except UnsafeCache as refused:
        print(f"errorsite: lookup reads every record: {refused.message}", file=sys.stderr)
        kept = None
    if kept is not None:
        answer = _from_kept(kept, stamp, content, text, limit, base_url)
        if answer is not None:
            return answer
    from .search.index import index_of
    from .search.rank import search
    from .validate import build_site

    read = load.load(content)
    site = build_site(read, base_url)
    index = index_of(site)
    if kept is not None and not stamp.racy:
        _keep(kept, stamp, index, [raw.file for raw in read.records])
    return search(index, text, limit=limit), site.by_id, site.config.base_url


def _stamp(content: Path, base_url: str | None) -> Stamp:
    from .assets import PACKAGE
    from .sitebuild.inputs import UNREADABLE, scan, settings_bytes
    from .sitebuild.keys import digest, tree_stamp

    now = time.time_ns()
    files = sorted((os.path.basename(name), size, mtime) for name, (size, mtime) in scan(content / "errors").items())
    settings = content / "site.toml"
    try:
        settings_ns = settings.stat().st_mtime_ns
    except OSError:
        settings_ns = 0
    code = tree_stamp(PACKAGE)
    racy = any(mtime >= now - load.RACY_NS or (size, mtime) == UNREADABLE for _, size, mtime in files) \
        or settings_ns >= now - load.RACY_NS
    key = digest(str(FORMAT), __version__, repr(files), settings_bytes(settings), repr(base_url), repr(code))
    return Stamp(key, racy)


def _from_kept(kept: Path, stamp: Stamp, content: Path, text: str, limit: int, base_url: str | None) -> Answer | None:
    """Return the answer from the kept file when it holds the answers of `stamp`; else None."""
    from .search import sharded, shards
    from .validate import site_config, to_record

    try:
        if not stat.S_ISREG(kept.lstat().st_mode):
            return None
        db = sqlite3.connect(f"{kept.as_uri()}?mode=ro", uri=True)
    except (OSError, sqlite3.Error):
        return None
    try:
        row = db.execute("SELECT value FROM meta WHERE name = 'stamp'").fetchone()
        if row is None or row[0] != stamp.key:
            return None

        def read(name: str) -> Any:
            found = db.execute("SELECT data FROM fragments WHERE name = ?", (name,)).fetchone()
            if found is None:
                raise KeyError(name)
            return load.parse_json(shards.script_data(found[0]) or found[0])

        loaded = sharded.load_for(read, text, limit)
        results = sharded.search_loaded(loaded, text, limit)
        config = site_config(load.read_settings(content)[0], str(content / "site.toml"), base_url)[0]
        by_id = {}
        for result in results:
            found = db.execute("SELECT file, data FROM records WHERE id = ?", (result["id"],)).fetchone()
            if found is None:
                raise KeyError(result["id"])
            by_id[result["id"]] = to_record(RawRecord(found[0], load.parse_json(found[1])), config)
        return results, by_id, config.base_url
    except (sqlite3.Error, Invalid, KeyError, IndexError, TypeError, ValueError, AttributeError):
        return None  # damaged, cut short or of another errorsite: made again from the records
    finally:
        db.close()


def _keep(kept: Path, stamp: Stamp, index: dict[str, Any], files: list[str]) -> None:
    """Write the fragments of `index` and the bytes of the record files `files` into `kept`, whole or not at all."""
    from .search import shards

    records = []
    for file in files:
        try:
            data = load.read_bytes(Path(file), link=False)
        except Invalid:
            return  # changed since it was read: the next lookup reads the folder again
        records.append((load.parse_json(data)["id"], file, data))
    try:
        fd, name = tempfile.mkstemp(dir=kept.parent, prefix=f".{kept.name}.", suffix=".tmp")
    except OSError:
        return  # a cache that cannot be written costs the next lookup its time, nothing else
    os.close(fd)
    temporary = Path(name)
    try:
        db = sqlite3.connect(temporary)
        try:
            db.execute("PRAGMA journal_mode = OFF")
            with db:
                db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
                db.execute("CREATE TABLE fragments (name TEXT PRIMARY KEY, data BLOB NOT NULL)")
                db.execute("CREATE TABLE records (id TEXT PRIMARY KEY, file TEXT NOT NULL, data BLOB NOT NULL)")
                db.executemany("INSERT INTO fragments VALUES (?, ?)", sorted(shards.fragments(index).items()))
                db.executemany("INSERT INTO records VALUES (?, ?, ?)", records)
                db.execute("INSERT INTO meta VALUES ('stamp', ?)", (stamp.key,))
        finally:
            db.close()
        os.replace(temporary, kept)
    except (OSError, sqlite3.Error):
        pass  # a cache that cannot be written (a full disk) costs the next lookup its time, nothing else
    finally:
        if temporary.exists():
            temporary.unlink()
