"""What the last build's long lists show of each record, read back from the files it wrote.

An edit of one record renders the lists of every error again (the page of all errors, the list
pages of its groups, api/errors.json, api/patterns.json), where every other record's part is the
same bytes as before. Reading those parts back from the file the last build wrote costs a
fraction of making 10,000 of them again (see `render.Known`).

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
