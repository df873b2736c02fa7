"""Hashes that say what an output file depends on, so a build renders only files whose inputs changed.

A record's own pages depend on its whole file; pages that list or link to a record show only
its summary (see `summary_key`). A file whose inputs are not known here depends on every
record's whole file, which is always safe.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .. import paging, urls
from ..model import Config, Summary, Tally
from ..search.related import Link, Links, relating


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

    return digest(sys.version, *(version(name) for name in ("jinja2", "markdown-it-py", "orjson", "pygments")))


def summary_key(summary: Summary) -> str:
    """Return a hash of what other pages show of a record: list pages, related links, the API, the index rows."""
    return digest(repr(tuple(getattr(summary, name) for name in SUMMARY_FIELDS)))


SUMMARY_FIELDS = tuple(f for f in Summary._fields if f != "words")
"""The fields of a summary that its hash takes: its words come from its message, and a set's repr
is not in the same order from one process to the next."""


def relating_key(summary: Summary) -> str:
    """Return a hash of what relates a record to others (see `search.related.relating`)."""
    return digest(summary.id, repr(relating(summary)))


def related_key(relating_keys: Iterable[str]) -> str:
    """Return a hash of everything the related map is made from: every record's `relating_key`.

    It is their sum (modulo 2**128), which no order changes, so that an edit of a few records
    updates it without the others' keys (`related_key_after`).
    """
    return _hex(sum(int(key, 16) for key in relating_keys))


def related_key_after(key: str, changes: Iterable[tuple[str, str]]) -> str:
    """Return the `related_key` after the relating keys of some records changed (from, to)."""
    return _hex(int(key, 16) + sum(int(after, 16) - int(before, 16) for before, after in changes))


def _hex(value: int) -> str:
    return format(value % 2**128, "032x")


INDEX_FIELDS = ("id", "title", "message", "exception", "path", "status", "line", "function", "written", "variants")
"""What the search index takes of a record's search entry, besides its terms (see search.index.build_index)."""


def index_key(entry: Mapping[str, Any], terms: Mapping[str, int]) -> str:
    """Return a hash of what the search index takes of one record."""
    return digest(repr([entry[name] for name in INDEX_FIELDS]), repr(sorted(terms.items())))


STALE = ""
"""The key saved for a file an update wrote without finding all it depends on: no key is ever
equal to it, so a whole build renders that file again."""


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


def group_key(common: str, path: str, members: Iterable[str], summaries: Mapping[str, str]) -> str:
    """Return the key of the list page at `path` (a URL), from its members' summaries."""
    return digest(common, path, *(summaries[i] for i in members))


def redirect_key(common: str, old: str, new: str, summaries: Mapping[str, str]) -> str:
    """Return the key of the page at a retired id's URL: it names its successor."""
    return digest(common, old, new, summaries[new])


def shared_keys(common: str, summaries: Mapping[str, str]) -> dict[str, str]:
    """Return the keys of the files that show every record's summary (`summaries` in id order)."""
    every_summary = digest(common, *summaries.values())
    return {path: digest(every_summary, path) for path in SHARED_BY_SUMMARY}


def page_keys(cards: Iterable[Summary], config: Config, related: Links, plan: Iterable[str],
              shas: Mapping[str, str], summaries: Mapping[str, str], common: str) -> dict[str, str]:
    """Return, for every output file of `plan`, a hash of everything its bytes depend on.

    `shas` and `summaries` give each record's file hash and `summary_key` by id, in id order.
    """
    every_file = digest(common, *sorted(shas.values()))
    keys = dict.fromkeys(plan, every_file)
    cards = list(cards)
    for card in cards:
        keys.update(record_keys(card.id, shas[card.id], related[card.id], summaries, common))
    lists = set()
    for path, members in groups(cards).items():
        lists.add(urls.output_path(path))
        keys[urls.output_path(path)] = group_key(common, path, members, summaries)
    for old, new in config.redirects:
        keys[urls.output_path(urls.error(old))] = redirect_key(common, old, new, summaries)
    keys.update(shared_keys(common, summaries))
    for path in keys:
        if path.startswith("static/") or path in FIXED:
            keys[path] = digest(common, path)
    for path in keys:
        head = paging.head_of(path)
        if head is not None and path not in lists and (head in SHARED_BY_SUMMARY or head in lists):
            keys[path] = later_key(keys[head], path)
    return keys


def later_key(head_key: str, path: str) -> str:
    """Return the key of a file after the first of a list (`paging.following`), from the first's: a list is
    split again whenever what it lists changes."""
    return digest(head_key, path)


def groups(cards: Iterable[Summary]) -> dict[str, list[str]]:
    """Return the ids of the records each exception, file and tag page lists, by that page's URL."""
    found: dict[str, list[str]] = {}
    for card in cards:
        for path in group_pages(card):
            found.setdefault(path, []).append(card.id)
    return found


def group_pages(card: Summary) -> list[str]:
    """Return the URLs of the exception, file and tag pages that list a record."""
    return [group_url(group) for group in group_names(card)]


def group_names(card: Summary) -> list[tuple[str, str]]:
    """Return the (kind, name) of each list page of a record: its exception, its file, its tags."""
    return [("exception", card.exception), ("file", card.path), *(("tag", t) for t in card.tags)]


def tallied(card: Summary) -> list[tuple[str, str]]:
    """Return the (kind, name) of each group a record is counted in: its list pages (`group_names`) and its status."""
    return [*group_names(card), ("status", card.status)]


def retallied(tallies: dict[tuple[str, str], Tally], before: Iterable[Summary], after: Iterable[Summary]) -> None:
    """Change, in place, the tally of each group (see `tallied`) from counting the records `before` to `after`."""
    for sign, cards in ((-1, before), (1, after)):
        for card in cards:
            for group in tallied(card):
                records, written, drafted = tallies.get(group, NO_TALLY)
                tallies[group] = Tally(records + sign, written + sign * card.written, drafted + sign * card.drafted)


NO_TALLY = Tally(0, 0, 0)
"""The tally of a group without records."""


def group_url(group: tuple[str, str]) -> str:
    """Return the URL of the list page of a (kind, name) of `group_names`."""
    kind, name = group
    return urls.exception(name) if kind == "exception" else urls.source_file(name) if kind == "file" else urls.tag(name)
