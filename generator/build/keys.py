"""Hashes that say what an output file depends on, so a build renders only files whose inputs changed.

A record's own pages depend on its whole file; pages that list or link to a record show only
its summary (see `summary_key`). A file whose inputs are not known here depends on every
record's whole file, which is always safe.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import urls
from ..model import Record, Site


@dataclass(frozen=True, slots=True)
class Link:
    """One related error shown on a record's page."""

    id: str
    """The related record's id."""
    automatic: bool
    """Whether errorsite found it (True) or the record's `related` names it (False)."""


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


def code_digest() -> str:
    """Return a hash of the Python and library versions the output depends on."""
    from importlib.metadata import version

    return digest(sys.version, *(version(name) for name in ("jinja2", "markdown-it-py", "pygments")))


def summary_key(record: Record) -> str:
    """Return a hash of what other pages show of a record: list pages, related links, the API, the index rows."""
    s = record.source
    # The home page lists the newest prose by its analysis date and commit.
    analysis = (record.analysis.date, record.analysis.commit) if record.analysis else None
    # The search index holds every wording of the message, not only its terms.
    return digest(repr((record.id, record.title, record.exception, record.message, s.path, s.line, s.function,
                        record.tags, record.status, record.written, analysis,
                        tuple(v.message for v in record.variants))))


def related_key(records: Iterable[Record]) -> str:
    """Return a hash of everything the related map is made from: place, words, tags and links."""
    return digest(repr([(r.id, r.message, r.tags, r.source.path, r.source.line, r.source.function, r.status,
                         r.related) for r in records]))


INDEX_FIELDS = ("id", "title", "message", "exception", "path", "status", "line", "function", "written", "variants")
"""What the search index takes of a record's search entry, besides its terms (see match.build_index)."""


def index_key(entry: Mapping[str, Any], terms: Mapping[str, int]) -> str:
    """Return a hash of what the search index takes of one record."""
    return digest(repr([entry[name] for name in INDEX_FIELDS]), repr(sorted(terms.items())))


def search_index_key(common: str, index_keys: Iterable[str]) -> str:
    """Return the hash the search index depends on, from every record's `index_key` in id order."""
    return digest(common, *index_keys)


def record_keys(record_id: str, sha: str, related: Iterable[Link], summaries: Mapping[str, str],
                common: str) -> dict[str, str]:
    """Return the keys of a record's page and JSON: its file, and the summaries of its related errors."""
    own = digest(common, sha)
    return {urls.output_path(urls.record_json(record_id)): own,
            urls.output_path(urls.error(record_id)): digest(
                own, *(f"{summaries[link.id]}:{link.automatic}" for link in related))}


SHARED_BY_SUMMARY = ("index.html", "errors/index.html", "exceptions/index.html", "files/index.html",
                     "tags/index.html", "sitemap.xml", "api/errors.json", "api/patterns.json")
"""Files that show every record's summary."""
FIXED = ("search/index.html", "404.html", "api/schema.json", "robots.txt", ".nojekyll", "CNAME")
"""Files that depend on the code, templates and settings only (as do static/ files)."""


def page_keys(site: Site, related: Mapping[str, tuple[Link, ...]], plan: Iterable[str], shas: Mapping[str, str],
              summaries: Mapping[str, str], common: str) -> dict[str, str]:
    """Return, for every output file of `plan`, a hash of everything its bytes depend on.

    `shas` and `summaries` give each record's file hash and `summary_key` by id.
    """
    every_summary = digest(common, *summaries.values())
    every_file = digest(common, *sorted(shas.values()))
    keys = dict.fromkeys(plan, every_file)
    for record in site.records:
        keys.update(record_keys(record.id, shas[record.id], related[record.id], summaries, common))
    for path, members in groups(site.records).items():
        keys[urls.output_path(path)] = digest(common, path, *(summaries[i] for i in members))
    for old, new in site.config.redirects:
        keys[urls.output_path(urls.error(old))] = digest(common, old, new, summaries[new])
    for path in SHARED_BY_SUMMARY:
        keys[path] = digest(every_summary, path)
    for path in keys:
        if path.startswith("static/") or path in FIXED:
            keys[path] = digest(common, path)
    return keys


def groups(records: Iterable[Record]) -> dict[str, list[str]]:
    """Return the ids of the records each exception, file and tag page lists, by that page's URL."""
    found: dict[str, list[str]] = {}
    for record in records:
        found.setdefault(urls.exception(record.exception), []).append(record.id)
        found.setdefault(urls.source_file(record.source.path), []).append(record.id)
        for tag in record.tags:
            found.setdefault(urls.tag(tag), []).append(record.id)
    return found
