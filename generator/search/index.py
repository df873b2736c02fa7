"""The search index: what a record contributes, the compact JSON the site ships, and reading it back.

Rows are lists to keep the index small, and the index names their fields once (`fields`), so
both runtimes read values by name (docs/matching.md, The index).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..scriptdata import script_safe
from .template import Segments, compile_with_spans, first_word, repr_placeholders
from .text import tokenize

if TYPE_CHECKING:
    from ..sitebuild.highlight import Store
    from ..model import Record, Site

INDEX_VERSION = 3
"""The format of the index; a reader of another version must not guess."""
URL_PATTERN = "errors/{id}/"
"""Every record's page, relative to the site's root."""
MEANING_CHARS = 300
"""How much of a record's meaning counts for its words."""
STOP_WORDS = frozenset("""
an and are as at be been but by can could did do does for from had has have if in into is it its may
might must no nor not of on or our should so such than that the their then there these they this those
to was we were what when where which while who will with would you your
""".split())
"""Words that say nothing alone: a record that shares only these with the paste is no result."""
FIELD_WEIGHTS = (("title", 2), ("message", 2), ("variants", 1), ("exception", 1), ("function", 1),
                 ("path", 1), ("tags", 1), ("meaning", 1))
"""How much each field of a record counts for its words."""
INDEX_FIELDS = ("id", "title", "message", "exception", "path", "removed", "dl", "first", "pattern", "spans",
                "line", "function", "written", "reprs", "variants", "yielded")
"""The fields of an index row, in the order rows store them; the index carries this list as `fields`."""


def search_entry(record: Record, store: Store | None = None) -> dict[str, Any]:
    """Return what the search index needs of one record (the plain text of its Markdown from `store` when it holds it)."""
    from .. import markdown

    return {
        "id": record.id, "title": record.title, "exception": record.exception,
        "message": record.message, "path": record.source.path, "line": record.source.line,
        "function": record.source.function or "", "tags": list(record.tags),
        "meaning": markdown.plain(record.meaning, store) if record.meaning else "",
        "status": record.status, "url": record.url,
        "written": WRITTEN_BY_PERSON if record.written and not record.drafted else DRAFTED if record.drafted else 0,
        "variants": [v.message for v in record.variants],
        "yielded": yielded(record),
    }


YIELD = re.compile(r"[ \t]*yield\b")
"""A line that yields a value: a validator's error, which a caller raises elsewhere."""


def yielded(record: Record) -> bool:
    """Return whether the record's source line yields its error rather than raising it (see docs/extract.md)."""
    source = record.source
    lines = source.snippet.code.splitlines()
    at = source.line - source.snippet.start
    return 0 <= at < len(lines) and YIELD.match(lines[at]) is not None


def document_terms(rec: dict[str, Any]) -> dict[str, int]:
    """Return the weighted term frequencies of one record of the index."""
    tf: dict[str, int] = {}
    for name, weight in FIELD_WEIGHTS:
        value = rec.get(name) or ""
        if name in ("tags", "variants"):
            value = " ".join(value)
        elif name == "meaning":
            value = value[:MEANING_CHARS]
        for word, _, _ in tokenize(value):
            tf[word] = tf.get(word, 0) + weight
    return tf


WRITTEN_BY_PERSON = 2
"""`written` of an index row whose prose a person wrote or reviewed."""
DRAFTED = 1
"""`written` of an index row whose prose is an AI-assisted draft not yet reviewed; 0 is a page without prose."""


def _written(rec: dict[str, Any]) -> int:
    """Return a search entry's `written`: who wrote its prose (entries without it: a meaning is a person's)."""
    value = rec.get("written", bool(rec.get("meaning")))
    if isinstance(value, bool):
        return WRITTEN_BY_PERSON if value else 0
    return value if value in (DRAFTED, WRITTEN_BY_PERSON) else 0


def _pattern(segs: Segments) -> list[str | int]:
    """Return a compiled template as the index stores it: 0 for a placeholder."""
    return [0 if s is None else s for s in segs]


def segments(pattern: list[str | int]) -> Segments:
    """Return the compiled template that the index stores as `pattern`."""
    return [None if s == 0 else str(s) for s in pattern]


def _variant_json(message: str) -> dict[str, Any]:
    """Return a variant wording as the index stores it."""
    segs, spans = compile_with_spans(message)
    return {"message": message, "pattern": _pattern(segs), "spans": spans,
            "first": first_word(segs), "reprs": repr_placeholders(message)}


def _check_url(rec: dict[str, Any]) -> None:
    if rec["url"] != URL_PATTERN.format(id=rec["id"]):
        raise ValueError(
            f"record {rec['id']}: url {rec['url']!r} is not {URL_PATTERN!r}. "
            "See https://errorsite.github.io/errorsite/errors/index-url-mismatch/"
        )


def _postings(docs: list[dict[str, int]], number: dict[str, int]) -> list[list[int]]:
    """Return each term's posting: per record containing it, (record - previous) * 8 + min(tf, 7)."""
    postings: list[list[int]] = [[] for _ in number]
    last = [0] * len(number)
    for d, tf in enumerate(docs):
        for t in sorted(tf):
            i = number[t]
            postings[i].append((d - last[i]) * 8 + min(tf[t], 7))
            last[i] = d
    return postings


def _row(rec: dict[str, Any], length: int) -> list[Any]:
    """Return one record's row: its values in the order of INDEX_FIELDS."""
    segs, spans = compile_with_spans(rec["message"])
    row = {
        "id": rec["id"], "title": rec.get("title") or rec["message"], "message": rec["message"],
        "exception": rec["exception"], "path": rec.get("path") or "",
        "removed": 1 if rec.get("status") == "removed" else 0, "dl": length,
        "first": first_word(segs), "pattern": _pattern(segs),
        "spans": spans, "line": rec.get("line") or 0, "function": rec.get("function") or "",
        "written": _written(rec), "reprs": repr_placeholders(rec["message"]),
        "variants": [_variant_json(m) for m in rec.get("variants") or ()],
        "yielded": 1 if rec.get("yielded") else 0,
    }
    return [row[name] for name in INDEX_FIELDS]


def idf(n: int, df: int) -> float:
    """Return the stored inverse document frequency of a term in `df` of `n` records."""
    return round(math.log(1 + (n - df + 0.5) / (df + 0.5)), 4)


def build_index(records: list[dict[str, Any]],
                terms_of: Callable[[dict[str, Any]], dict[str, int]] = document_terms,
                base_url: str = "") -> dict[str, Any]:
    """Return the compact, JSON-able search index of `records` published at `base_url`; `terms_of` may answer from a cache."""
    records = sorted(records, key=lambda r: r["id"])
    for rec in records:
        _check_url(rec)
    docs = [terms_of(rec) for rec in records]
    terms = sorted({t for tf in docs for t in tf})
    number = {t: i for i, t in enumerate(terms)}
    postings = _postings(docs, number)
    n = len(records)
    lengths = [sum(tf.values()) for tf in docs]
    return {
        "version": INDEX_VERSION,
        "url": URL_PATTERN,
        "base_url": base_url,
        "avgdl": average_length(sum(lengths), n),
        "dl_sum": sum(lengths),
        "fields": list(INDEX_FIELDS),
        "stop": sorted(STOP_WORDS),
        "records": [_row(rec, length) for rec, length in zip(records, lengths)],
        "terms": terms,
        "idf": [idf(n, len(p)) for p in postings],
        "postings": postings,
    }


def average_length(total: int, records: int) -> float:
    """Return the stored average document length of `records` records of `total` length (1 for no records)."""
    return round(total / records, 4) if records else 1


def index_of(site: Site) -> dict[str, Any]:
    """Return the search index of a validated site's records."""
    return build_index([search_entry(r) for r in site.records], base_url=site.config.base_url)


def field_positions(index: dict[str, Any]) -> dict[str, int]:
    """Return where each named field sits in the rows of a built index (its `fields`), for code that edits rows."""
    return {name: i for i, name in enumerate(index["fields"])}


@dataclass(frozen=True, slots=True)
class Template:
    """One wording of a record's message, as matching reads it."""

    message: str
    """The template as the record writes it."""
    segments: Segments
    """Normalised literals, None for each placeholder (see `compile_template`)."""
    spans: tuple[int, ...]
    """Each literal's start and end in `message`, flat, in code points."""
    first: str
    """The first whole literal word, "" when none: the template is tried only on pastes that have it."""
    reprs: tuple[int, ...]
    """Placeholders (by position) that show a repr, so a confident match must find a repr there."""


@dataclass(frozen=True, slots=True)
class Row:
    """One record of the search index."""

    id: str
    """The record's id: its page is `errors/<id>/`."""
    title: str
    """The page's title, as result lists show it."""
    exception: str
    """The exception class named in the record."""
    path: str
    """The source file of the raise, for ties a traceback breaks."""
    line: int
    """The line of the raise in that file."""
    function: str
    """The function around the raise, for tracebacks that give no line of this file."""
    removed: bool
    """The raise is gone from the code; the page stays and says so."""
    written: bool
    """The page has prose; a skeleton's has not."""
    length: int
    """Weighted token count (BM25's document length)."""
    templates: tuple[Template, ...]
    """The message, then each variant in the record's order."""
    yielded: bool
    """The source yields the error and a caller raises it elsewhere: a traceback need not name its file."""


@dataclass(frozen=True, slots=True)
class SearchIndex:
    """A search index read back from its JSON form (`build_index`), rows by field name."""

    rows: tuple[Row, ...]
    """Every record, in the index's order."""
    terms: list[str]
    """Every term of the index, each once."""
    number: dict[str, int]
    """Each term's position in `terms`."""
    idf: list[float]
    postings: list[list[int]]
    avgdl: float
    stop: frozenset[str]
    """Stop words, as the index lists them."""
    base_url: str
    """Where the site is published ("" when unknown): a paste that links to one of its pages decides."""


def load_index(data: dict[str, Any]) -> SearchIndex:
    """Return the index `build_index` made, read by the names in its `fields`."""
    terms: list[str] = data["terms"]
    at = field_positions(data)

    def template(message: str, pattern: list[str | int], spans: list[int], first: str, reprs: list[int]) -> Template:
        return Template(message, segments(pattern), tuple(spans), first, tuple(reprs))

    def row(values: list[Any]) -> Row:
        def get(name: str) -> Any:
            return values[at[name]]

        main = template(get("message"), get("pattern"), get("spans"), get("first"), get("reprs"))
        variants = [template(v["message"], v["pattern"], v["spans"], v["first"], v["reprs"]) for v in get("variants")]
        return Row(get("id"), get("title"), get("exception"), get("path"), get("line"), get("function"),
                   bool(get("removed")), bool(get("written")), get("dl"), (main, *variants), bool(get("yielded")))

    return SearchIndex(tuple(row(values) for values in data["records"]), terms, {t: i for i, t in enumerate(terms)},
                       data["idf"], data["postings"], data["avgdl"], frozenset(data["stop"]),
                       data.get("base_url", ""))


SCRIPT_START, SCRIPT_END = b"window.ERRORSITE_INDEX=", b";\n"
"""What wraps the index's JSON in `search-index.js`, a script so that the site works from file:// too."""


def index_script(index: dict[str, Any]) -> bytes:
    """Return the search index as the script `search-index.js`: compact JSON with a line per row and per posting."""
    return joined_script({name: value for name, value in index.items() if name not in LINED},
                         {name: map(json_line, index[name]) for name in LINED})


LINED = ("postings", "records")
"""The long lists of the index, which its script holds an item per line (in name order, as the script has them)."""


def json_line(value: Any) -> bytes:
    """Return an item of a long list of the index (`LINED`) as its line of the script."""
    # orjson writes compact UTF-8 JSON several times quicker than json. Imported here: orjson
    # brings uuid and platform with it, which a build where nothing changed would wait for and not use.
    import orjson

    return script_safe(orjson.dumps(value))


def joined_script(head: dict[str, Any], lines: Mapping[str, Iterable[bytes]]) -> bytes:
    """Return the script of the index `head` (without its long lists) whose long lists are `lines` (see `json_line`).

    Each item of a long list is a line of its own: an edit of one record changes its row's line,
    the lines of the postings of its terms, and the short lists, and the rest of the file is the
    same bytes (`split_script`, `build.reindex`).
    """
    import orjson

    data = script_safe(orjson.dumps({**head, **{name: f"\0{name}\0" for name in LINED}}, option=orjson.OPT_SORT_KEYS))
    # Written into one buffer as the lines come: orjson gives each line a buffer of at least 4 KB,
    # which a list of 10,000 rows would keep, and every joined copy of 5 MB would add to the peak.
    out = bytearray(SCRIPT_START)
    for name in LINED:
        before, data = data.split(f'"\\u0000{name}\\u0000"'.encode(), 1)
        out += before
        opening = b"[\n"
        for line in lines[name]:
            out += opening
            out += line
            opening = b",\n"
        out += b"[]" if opening == b"[\n" else b"\n]"
    out += data
    out += SCRIPT_END
    return bytes(out)


def script_json(script: bytes) -> bytes | None:
    """Return the JSON inside a script that `index_script` wrote, or None when it is not one."""
    if not (script.startswith(SCRIPT_START) and script.endswith(SCRIPT_END)):
        return None
    return script[len(SCRIPT_START):-len(SCRIPT_END)]


def read_index_script(script: bytes) -> dict[str, Any] | None:
    """Return the index that `index_script` wrote (serialised again, it gives the same bytes), or None."""
    import orjson

    data = script_json(script)
    return None if data is None else orjson.loads(data)


def split_script(script: bytes) -> tuple[dict[str, Any], dict[str, list[bytes]]] | None:
    """Return the index that `index_script` wrote without its long lists, and the lines of those; None
    when it is not one. Joined again (`joined_script`), they give the same bytes."""
    import orjson

    data = script_json(script)
    if data is None:
        return None
    lines = {}
    rest = []
    at = 0
    for name in LINED:
        # Each list is "[]", or "[\n" and its lines and "\n]": no line holds a newline, JSON escapes them.
        key = f'"{name}":'.encode()
        begin = data.find(key, at)
        start = begin + len(key)
        if begin < 0 or not data.startswith((b"[]", b"[\n"), start):
            return None
        end = data.find(b"\n]", start) if data.startswith(b"[\n", start) else start
        if end < 0:
            return None
        rest.append(data[at:start] + b"0")
        lines[name] = data[start + 2:end].split(b",\n") if end > start else []
        at = end + 2
    head = orjson.loads(b"".join(rest) + data[at:])
    for name in LINED:
        del head[name]
    return head, lines
