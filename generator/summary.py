"""What pages other than a record's own show of it: its summary (`model.Summary`).

A summary also holds what the lists of every record show of it, made once per record file: its
place in them, its list item and its API lines. An edit of one record then joins those lists
instead of making them again (see `build.update`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from markupsafe import Markup

from . import urls
from .model import Record, Summary
from .search.related import message_words
from .search.template import compile_template

FORBIDDEN = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff]")
"""Code points HTML forbids in a document: controls other than white space, and noncharacters."""

ROOT = "\0"
"""Where a ready-made list item holds the page's root, and an API line the site's base URL.

No text of a page holds it (see `visible`), and JSON writes it escaped, so the lists replace it
in one call."""
ROOT_BYTES = ROOT.encode()
"""`ROOT` in the UTF-8 of the ready-made items and lines."""

COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""JSON without spaces, written by the C encoder."""


def summarize(record: Record) -> Summary:
    """Return the summary of a record."""
    source, analysis = record.source, record.analysis
    summary = Summary(
        id=record.id, title=record.title, exception=record.exception, message=record.message,
        path=source.path, line=source.line, function=source.function, commit=source.commit,
        tags=record.tags, status=record.status, written=record.written, drafted=record.drafted,
        analysis_date=analysis.date if analysis else None, analysis_commit=analysis.commit if analysis else None,
        variants=tuple(v.message for v in record.variants), related=record.related,
        words=message_words(record.message),
        order=reading_order(record.written, record.title, record.id), item=b"", error_line=b"", pattern_line=b"",
    )
    return summary._replace(item=list_item(summary, ROOT).encode(), error_line=error_line(summary),
                   pattern_line=pattern_line(summary))


def coverage(records: int, written: int, drafted: int) -> str:
    """Return how many pages a person wrote or reviewed, how many are drafts, and how many show only the code."""
    return (f"{written - drafted:,} written or reviewed by a person, {drafted:,} drafted (not yet reviewed), "
            f"{records - written:,} from the code only")


def reading_order(written: bool, title: str, record_id: str) -> str:
    """Return the key that lists written pages first, then by title in natural order (the id breaks ties)."""
    return f"{0 if written else 1}{natural_key(title)}\0{record_id}"


def natural_key(text: str) -> str:
    """Return a sort key that orders text as people do: case and leading marks aside, `page 2` before `page 10`.

    The key is text, which sorts quicker than parts: each run of digits is its value's digits after
    a mark of how many there are, so that 10 follows 9; each run of other text ends in U+0001, so
    that text sorts before the longer text it begins.
    """
    words = text.lstrip("…`'\"([{<_-. ")
    return "".join(_number_key(part) if i % 2 else f"{part.casefold()}\1"
                   for i, part in enumerate(re.split(r"(\d+)", words)))


def _number_key(digits: str) -> str:
    value = str(int(digits))
    return f"{chr(0x100 + len(value))}{value}"


class Mark(Markup):
    """Text a page holds as it is, forbidden code points included: where `render.Lists` puts a list."""


def visible(value: Any) -> Any:
    """Return a value for a page with forbidden code points shown as U+FFFD, as browsers would."""
    if not isinstance(value, str) or type(value) is Mark or not FORBIDDEN.search(value):
        return value
    cleaned = FORBIDDEN.sub("\ufffd", value)
    return Markup(cleaned) if isinstance(value, Markup) else cleaned


def html(text: str) -> str:
    """Return text as a page shows it: escaped, forbidden code points replaced (see `visible`)."""
    return str(Markup.escape(visible(text)))


def list_item(r: Summary, root: str, show_line: bool = False, pill: bool = False) -> str:
    """Return a record's item in a list of errors: title, exception, place, whether removed or not yet written.

    `root` is the page's root as HTML; `show_line` gives the line without the file (on a file's
    list); `pill` marks a page not yet written.
    """
    exception = html(r.exception_name)
    meta = f"line {r.line} · <code>{exception}</code>" if show_line else \
        f"<code>{exception}</code> · <code>{html(r.path).replace('/', '/<wbr>')}:{r.line}</code>"
    if r.status == "removed":
        meta += ' · <span class="badge removed">removed</span>'
    if pill and not r.written:
        meta += ' · <span class="badge">not yet written</span>'
    if r.drafted:
        meta += ' · <span class="badge drafted">AI draft, not reviewed</span>'
    return f'<li><a href="{root}{html(urls.error(r.id))}">{html(r.title)}</a>\n<span class="meta">{meta}</span></li>\n'


def error_line(r: Summary) -> bytes:
    """Return a record's line of api/errors.json, with ROOT for the base URL."""
    fields = {"id": r.id, "title": r.title, "exception": r.exception, "message": r.message, "path": r.path,
              "line": r.line, "tags": r.tags, "status": r.status}
    return f'{COMPACT.encode(fields)[:-1]},"url":"{ROOT}errors/{r.id}/"}}'.encode()


def pattern_line(r: Summary) -> bytes:
    """Return a record's line of api/patterns.json, with ROOT for the base URL; empty when it is removed."""
    if r.status != "active":
        return b""
    rest = COMPACT.encode({"exception": r.exception, "pattern": compile_template(r.message)})
    return f'{{"id":{COMPACT.encode(r.id)},"url":"{ROOT}errors/{r.id}/",{rest[1:]}'.encode()
