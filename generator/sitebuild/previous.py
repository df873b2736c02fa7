"""What the last build's long lists show of each record, read back from the files it wrote.

An edit of one record renders the lists of every error again (the page of all errors, the list
pages of its groups, api/errors.json, api/patterns.json), where every other record's part is the
same bytes as before. Reading those parts back from the file the last build wrote costs a
fraction of making 10,000 of them again (see `render.Known`); changing only the edited records'
parts of the file (`spliced_lines`, `spliced_items`) costs less still.

A file is read only when it still hashes to what the last build wrote. Each part names its
record (the item's link, the line's id), so a part is never taken for another record's; a file
laid out otherwise than expected gives nothing, and every part is made again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from operator import methodcaller
from pathlib import Path

from ..summary import html
from .keys import digest

LIST_START = b'<ul class="errors'
"""Where a list of errors begins on a list page (`templates/list.html`)."""
ITEM_END = b"</li>\n"
"""How each list item ends (`summary.list_item`); no item holds it elsewhere, its text is escaped."""
LINES_END = b"\n]}\n"
"""How an API list with lines ends (`render._json_lines`): a line per record, each opening with its id."""


def read(out: Path, path: str, sha: str) -> bytes | None:
    """Return the bytes of the output file `path` when they still hash to `sha`; else None."""
    try:
        body = (out / path).read_bytes()
    except OSError:
        return None
    return body if digest(body) == sha else None


def list_items(page: bytes, root: str, skip: Iterable[str]) -> dict[str, bytes]:
    """Return, by record id, the item of each record on a list page with the root `root`, but those of `skip`."""
    prefix = f'<li><a href="{html(root)}errors/'.encode()
    named = re.compile(re.escape(prefix) + rb"([a-z0-9-]+)/")
    found: dict[str, bytes] = {}
    at = page.find(LIST_START)
    while at >= 0:
        begin = page.find(b">\n", at) + 2
        end = page.find(b"</ul>", begin)
        if begin < 2 or end < 0:
            return {}
        *items, rest = page[begin:end].split(ITEM_END)
        # Each item opens with the link to its record, and no item's text holds `<`: one link per item.
        record_ids = named.findall(page, begin, end)
        if rest or len(record_ids) != len(items) or not all(map(methodcaller("startswith", prefix), items)):
            return {}
        found.update(zip(map(bytes.decode, record_ids), [item + ITEM_END for item in items]))
        at = page.find(LIST_START, end)
    for record_id in skip:
        found.pop(record_id, None)
    return found


def sections(page: bytes) -> dict[bool, bytes] | None:
    """Return the items of each list of errors on a list page (`templates/list.html`), by whether they are of
    written pages; None when the page is not laid out as expected."""
    found: dict[bool, bytes] = {}
    at = page.find(LIST_START)
    while at >= 0:
        begin = page.find(b">\n", at) + 2
        end = page.find(b"</ul>", begin)
        kind = SECTIONS.get(page[at + len(LIST_START):begin - 2]) if begin >= 2 else None
        if kind is None or end < 0 or kind in found or page[begin:end] and not page[begin:end].endswith(ITEM_END):
            return None
        found[kind] = page[begin:end]
        at = page.find(LIST_START, end)
    return found


SECTIONS = {b' written"': True, b' unwritten"': False}
"""How a list page's lists of errors end their class, by whether they hold written pages."""


@dataclass(frozen=True, slots=True)
class LineChange:
    """One record's line of an API list before and after an edit (see `spliced_lines`)."""

    before: bytes
    """Its line in the file; empty when the file has none."""
    after: bytes
    """Its new line; empty when the new file has none."""
    following: bytes
    """The line of the first record after it, by id, that the new file lists; empty when there is none."""


def spliced_lines(body: bytes, changes: Iterable[LineChange]) -> bytes | None:
    """Return an API list (api/errors.json, api/patterns.json) with some records' lines changed, dropped or added.

    `changes` come in descending order of id, so that the line a new one goes before is in the
    file as it will stay. None when the file is not laid out as expected: a line is not where
    its change says, or the list would become empty or was.
    """
    begin = body.find(b"[\n") + 1
    if begin < 1 or not body.endswith(LINES_END):
        return None
    for change in changes:
        if change.before:
            at = body.find(b"\n" + change.before + b",\n", begin)
            if at < 0:
                at = body.find(b"\n" + change.before + LINES_END, begin)
            if at < 0:
                return None
            end = at + 1 + len(change.before)
            if change.after:
                body = body[:at + 1] + change.after + body[end:]
            elif body.startswith(b",\n", end):
                body = body[:at + 1] + body[end + 2:]
            elif at > begin:
                body = body[:at - 1] + body[end:]  # the last line: the separator before it goes
            else:
                return None
        elif change.after:
            if change.following:
                at = body.find(b"\n" + change.following, begin)
                if at < 0:
                    return None
                body = body[:at + 1] + change.after + b",\n" + body[at + 1:]
            else:
                body = body[:-len(LINES_END)] + b",\n" + change.after + LINES_END
    return body


@dataclass(frozen=True, slots=True)
class ItemChange:
    """One record's item on the page of all errors before and after an edit (see `spliced_items`)."""

    before: bytes
    """Its item on the page."""
    after: bytes
    """Its new item."""
    following: str | None
    """The id of the record whose item it goes before; None when it goes last in its list."""
    written: bool
    """Whether its page is written: which list it is in, when the page has two."""


def spliced_items(page: bytes, root: str, changes: Iterable[ItemChange]) -> bytes | None:
    """Return the page of all errors (`errors/index.html`, root `root`) with some records' items changed and moved.

    The page's other text must stay the same: no record's page becomes written or unwritten.
    `changes` come in descending order of new place, so that the item each goes before is where
    it will stay. None when the page is not laid out as expected.
    """
    changes = list(changes)
    for change in changes:
        at = page.find(change.before)
        if at < 0 or page[at - 1:at] != b"\n" or not change.before.endswith(ITEM_END):
            return None
        page = page[:at] + page[at + len(change.before):]
    lists = page.count(LIST_START)
    if lists not in (1, 2):
        return None
    for change in changes:
        if change.following is not None:
            at = page.find(f'\n<li><a href="{html(root)}errors/{change.following}/'.encode()) + 1
        else:
            start = page.find(LIST_START)
            if lists == 2 and not change.written:
                start = page.find(LIST_START, start + 1)
            at = page.find(b"\n</ul>", start) + 1
        if at < 1:
            return None
        page = page[:at] + change.after + page[at:]
    return page
