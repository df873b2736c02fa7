"""Match what a user pasted against error message templates, and rank records.

The algorithm is specified in docs/matching.md; templates/static/match.js is
the same algorithm for the browser and must give identical answers. Pure
functions: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model import Record

INDEX_VERSION = 2
URL_PATTERN = "errors/{id}/"
MEANING_CHARS = 300
K1 = 1.2
B = 0.75
MIN_LITERAL = 6
MAX_EXPR = 300
MAX_QUERY_TERMS = 64
MAX_FUZZY_TOKENS = 8
MAX_PREFIX_TERMS = 50
PREFIX_WEIGHT = 0.9
FUZZY_WEIGHTS = (1.0, 0.7, 0.5)
CONFIDENT_LITERAL = 20
"""A full match whose literal text is under two thirds of the message needs this many literal characters to be confident."""
MIN_WRAP = 40
"""A paste whose longest lines are this long or longer may have been cut at a terminal's width."""
CONFIDENT_CUT = 30
"""A cut partial needs this many literal characters, and to stop inside a literal, to be confident."""
GENERIC_EXCEPTIONS = frozenset({"Error", "Exception", "Warning"})
"""Names programs print in front of a message that say nothing about its class (click's `Error: ...`)."""
STOP_WORDS = frozenset("""
an and are as at be been but by can could did do does for from had has have if in into is it its may
might must no nor not of on or our should so such than that the their then there these they this those
to was we were what when where which while who will with would you your
""".split())
"""Words that say nothing alone: a record that shares only these with the paste is no result."""
FIELD_WEIGHTS = (("title", 2), ("message", 2), ("variants", 1), ("exception", 1), ("function", 1),
                 ("path", 1), ("tags", 1), ("meaning", 1))

WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
NON_WORD_RANGES = ((0x80, 0xBF), (0xD7, 0xD7), (0xF7, 0xF7), (0x2000, 0x2BFF),
                   (0x3000, 0x303F), (0xFF00, 0xFF0F), (0x1F000, 0x1FAFF))

_PERCENT = re.compile(r"%(?:\([^()]*\))?[-#0+]*(?:\*|[0-9]+)?(?:\.(?:\*|[0-9]+))?[hlL]?[diouxXeEfFgGcrsa]")
_REPR = re.compile(
    r"""[bBrRuUfF]{0,2}(['"])[\s\S]*\1|\[[\s\S]*\]|\([\s\S]*\)|\{[\s\S]*\}|<[\s\S]*>"""
    r"|[A-Za-z_][A-Za-z0-9_.]*\([\s\S]*\)|[-+]?[0-9][A-Za-z0-9_.+-]*|None|True|False|Ellipsis|NotImplemented|[-+]?inf|nan"
)
"""What Python's repr of a value looks like: quoted, bracketed, a call, a number or a constant."""
_REPR_FIELD = re.compile(r"![ra](?::|$)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FRAME = re.compile(r'^[ \t]*File "([^"]+)", line ([0-9]+)(?:, in ([^ \t]+))?')
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):")
_EXCEPTION = re.compile(r"^((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*):(?:[ \t]+|$)")
_SEP = re.compile(r"[ \t]*(?:[:|]|-(?![^ \t]))?[ \t]*")
_BRACKET = re.compile(r"\[[^\]\r\n]{1,80}\]")
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}:[0-9]{2}:[0-9]{2}|DEBUG|INFO|WARN|ERROR|CRITICAL|FATAL")
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?)?"
    r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
)
_LEVEL = re.compile(r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?=[ \t:|-]|$)")
_LOGGER = re.compile(r"in [A-Za-z_][A-Za-z0-9_.]*:|[A-Za-z_][A-Za-z0-9_.]*(?::(?=[^ \t])|(?=[ \t]+-[ \t]))")
_URLISH = re.compile(r"[^ \t\n\r\f\v\xa0'\"<>()\[\]{}`]+")
"""A run of text that may be a URL: no whitespace, quotes or brackets."""
_WEB = re.compile(r"https?://")
_SUGGESTION = re.compile(r"[ \t]+(?:Did you mean[^\n]*\?|\(Possible options: [^\n]*\))[ \t]*\Z")
"""A suggestion appended to a message: `Did you mean ...?` (Python, click, ...), click's `(Possible options: ...)`."""

Segments = list[str | None]


# --- normalisation --------------------------------------------------------


def _lower_char(ch: str) -> str:
    low = ch.lower()
    if len(low) == 1 and (ord(low) > 0xFFFF) == (ord(ch) > 0xFFFF):
        return low
    return ch


def lower(text: str) -> str:
    """Return `text` lowercased code point by code point, keeping its length."""
    if text.isascii():
        return text.lower()
    return "".join(_lower_char(ch) for ch in text)


def normalize(text: str) -> tuple[str, list[int]]:
    """Return `text` lowercased, whitespace runs as one space, trimmed; and each char's source index."""
    low = lower(text)
    out: list[str] = []
    where: list[int] = []
    space = False
    for i, ch in enumerate(low):
        if ch in WHITESPACE:
            space = True
            continue
        if space and out:
            out.append(" ")
            where.append(i - 1)
        space = False
        out.append(ch)
        where.append(i)
    return "".join(out), where


def _collapse(text: str) -> str:
    """Return `text` lowercased with whitespace runs as one space (not trimmed)."""
    out: list[str] = []
    for ch in lower(text):
        if ch in WHITESPACE:
            if not out or out[-1] != " ":
                out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def is_word(ch: str) -> bool:
    """Return whether `ch` is part of a word (for tokens and literal boundaries)."""
    c = ord(ch)
    if c < 0x80:
        return ch.isalnum()
    if ch in WHITESPACE:
        return False
    return not any(lo <= c <= hi for lo, hi in NON_WORD_RANGES)


def tokenize(text: str) -> list[tuple[str, int, int]]:
    """Return the words of `text` (lowercased, 2+ code points) with their code point ranges."""
    low = lower(text)
    words = []
    start = -1
    for i, ch in enumerate(low + " "):
        if i < len(low) and is_word(ch):
            if start < 0:
                start = i
        elif start >= 0:
            if i - start >= 2:
                words.append((low[start:i], start, i))
            start = -1
    return words


# --- templates ------------------------------------------------------------


def _close(message: str, i: int) -> int:
    depth = 0
    for j in range(i, min(len(message), i + MAX_EXPR)):
        if message[j] == "{":
            depth += 1
        elif message[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _parse(message: str) -> list[tuple[int, int] | None]:
    """Return the literal pieces of `message` as (start, end), None for placeholders."""
    pieces: list[tuple[int, int] | None] = []
    start = i = 0

    def flush(end: int) -> None:
        if end > start:
            pieces.append((start, end))

    while i < len(message):
        ch = message[i]
        pair = message[i:i + 2]
        if pair in ("{{", "}}", "%%"):
            i += 2
            continue
        end = -1
        if ch == "{":
            end = _close(message, i) + 1
        elif ch == "%":
            m = _PERCENT.match(message, i)
            end = m.end() if m else -1
        if end > 0:
            flush(i)
            if not pieces or pieces[-1] is not None:
                pieces.append(None)
            i = start = end
            continue
        i += 1
    flush(i)
    return pieces


def _compile(message: str) -> tuple[Segments, list[int]]:
    """Return the normalised segments and each literal's [start, end] in `message` (flat)."""
    pieces = _parse(message)
    segs: Segments = []
    pos: list[int] = []
    for k, piece in enumerate(pieces):
        if piece is None:
            if not segs or segs[-1] is not None:
                segs.append(None)
            continue
        start, end = piece
        if k == 0:
            while start < end and message[start] in WHITESPACE:
                start += 1
        if k == len(pieces) - 1:
            while end > start and message[end - 1] in WHITESPACE:
                end -= 1
        lit = _collapse(_unescape(message, start, end))
        if lit:
            segs.append(lit)
            pos += [start, end]
    return segs, pos


def _unescape(message: str, start: int, end: int) -> str:
    """Return the literal text of message[start:end] with `{{`, `}}`, `%%` unescaped."""
    out = []
    i = start
    while i < end:
        out.append(message[i])
        i += 2 if message[i:i + 2] in ("{{", "}}", "%%") and i + 1 < end else 1
    return "".join(out)


def template_parts(message: str) -> list[tuple[str, bool]]:
    """Return the template as (text, is_placeholder) runs, literal text unescaped, as matching reads it."""
    parts: list[tuple[str, bool]] = []
    pos = 0
    for piece in _parse(message):
        if piece is None:
            continue
        start, end = piece
        if start > pos:
            parts.append((message[pos:start], True))
        parts.append((_unescape(message, start, end), False))
        pos = end
    if pos < len(message):
        parts.append((message[pos:], True))
    return parts


def repr_placeholders(message: str) -> list[int]:
    """Return the positions (among placeholders) of those that show a repr: `{x!r}`, `{x!a}`, `%r`, `%a`.

    A run of adjacent placeholders is one placeholder and shows a repr only if it is a single one.
    """
    out = []
    holes = [text for text, hole in template_parts(message) if hole]
    for n, text in enumerate(holes):
        if text[0] == "{" and _close(text, 0) == len(text) - 1:
            if _REPR_FIELD.search(text[1:-1]):
                out.append(n)
        elif text[0] == "%" and _PERCENT.fullmatch(text) and text[-1] in "ra":
            out.append(n)
    return out


def compile_template(message: str) -> list[str | None]:
    """Return the template as normalised literal segments, None for each placeholder."""
    return _compile(message)[0]


# --- matching one template ------------------------------------------------


def _boundary(text: str, q: int, lit: str) -> bool:
    return q == 0 or not is_word(lit[0]) or not is_word(text[q - 1])


def _find_first(text: str, lit: str) -> int:
    """Return the leftmost occurrence of the template's opening literal at a word boundary."""
    q = text.find(lit)
    while q >= 0 and not _boundary(text, q, lit):
        q = text.find(lit, q + 1)
    return q if q >= 0 else -2


def _find_after(text: str, lit: str, p: int) -> int:
    """Return the leftmost occurrence of `lit` after a placeholder starting at `p` (-1: virtual space).

    A literal that starts with a space may start one character earlier (the placeholder was empty
    and collapsing ate the space); a literal that is only a space, only when it is not found at or
    after `p`: values are rarely empty, and `{name} {path!r}` splits `Path 'x'` at its own space.
    """
    q = text.find(lit, p)
    if lit[0] == " " and (lit != " " or q < 0):
        if p == 0 and text.startswith(lit[1:]):
            return -1
        if p > 0 and text[p - 1] == " ":
            q = text.find(lit, p - 1)
    return q if q >= 0 else -2


def _ends_at(text: str, lit: str, p: int, first: bool) -> int:
    """Return where `lit` starts if the text ends with it and it may start there, else -2."""
    q = len(text) - len(lit)
    if first:
        return q if q >= 0 and text.endswith(lit) and _boundary(text, q, lit) else -2
    if q >= p and text.endswith(lit):
        return q
    if lit[0] == " " and q == p - 1 and (p == 0 or text[p - 1] == " ") and text.endswith(lit[1:]):
        return q
    return -2


def _tail(text: str, lit: str, p: int, first: bool) -> int:
    """Return how many chars of `lit` the text's end covers from the leftmost start >= p, or 0."""
    n = len(text)
    if not first and lit[0] == " " and (p == 0 or text[p - 1] == " "):
        if p == 0 and n > 0 and lit[1:].startswith(text):
            return n + 1
        p = max(p - 1, 0)
    q = max(p, n - len(lit) + 1)
    while q < n:
        q = text.find(lit[0], q)
        if q < 0:
            return 0
        if lit.startswith(text[q:]) and (not first or _boundary(text, q, lit)):
            return n - q
        q += 1
    return 0


def _walk(segs: Segments, text: str) -> tuple[str, list[int], list[int]]:
    """Match `segs` against normalised `text`.

    Return (end, covered, values): how the match ended ("full" when every
    literal was found and nothing came before the template; "cut" when the
    text stopped inside the template and nothing came before it; else
    "noise"), the number of chars of each literal that matched (a shorter list
    when it stopped), and for a full match the [start, end) of each
    placeholder's value in `text`.
    """
    covered: list[int] = []
    values: list[int] = []
    if not segs:
        return "cut", covered, values
    p = 0
    open_at = -1
    opening = 0
    last = len(segs) - 1
    for k, seg in enumerate(segs):
        if seg is None:
            open_at = p
            continue
        first = k == 0
        if k == last:
            q = _ends_at(text, seg, p, first)
        else:
            q = _find_first(text, seg) if first else _find_after(text, seg, p)
        if q == -2 and k == last - 1 and len(seg) > 1 and seg[-1] == " ":
            # The last placeholder was empty, and trimming took the space before it.
            q = _ends_at(text, seg[:-1], p, first)
            if q != -2:
                if first:
                    opening = q
                if open_at >= 0:
                    values += [open_at, max(q, open_at)]
                covered.append(len(seg))
                return _explained(opening), covered, values + [len(text), len(text)]
        if q == -2:
            if k == last:
                found = _find_first(text, seg) if first else _find_after(text, seg, p)
                if found != -2:
                    covered.append(len(seg))
                    return "noise", covered, []
            covered.append(_tail(text, seg, p, first))
            if first:
                opening = len(text) - covered[-1]
            return "cut" if opening == 0 else "noise", covered, []
        if first:
            opening = q
        if open_at >= 0:
            values += [open_at, max(q, open_at)]
            open_at = -1
        covered.append(len(seg))
        p = q + len(seg)
    if open_at >= 0:
        values += [open_at, len(text)]
    return _explained(opening), covered, values


def _explained(opening: int) -> str:
    """Return how a walk through every literal ended: a full match explains the text from its start.

    A template found further in (`Expected {x}` inside `too many values to unpack (expected 2)`)
    does not explain the message: it is noise.
    """
    return "full" if opening == 0 else "noise"


# --- paste forms ----------------------------------------------------------


def _strip_log(line: str) -> tuple[str, str]:
    """Return `line` without a log prefix (timestamp, level, logger), and without it up to a logger name only.

    What looks like a logger name may be the message's start (`ERROR: file:// scheme ...`).
    """
    pos = 0
    seen = False
    logger = -1
    while True:
        sep = _SEP.match(line, pos)
        pos = sep.end() if sep else pos
        m = _BRACKET.match(line, pos)
        if m:
            seen = seen or bool(_STAMP.search(m.group()))
            pos = m.end()
            continue
        m = _TIMESTAMP.match(line, pos) or _LEVEL.match(line, pos)
        named = not m and seen
        if named:
            m = _LOGGER.match(line, pos)
        if not m or m.end() == pos:
            break
        if named and logger < 0:
            logger = pos
        seen = True
        pos = m.end()
    if not seen:
        return line, line
    return line[pos:], line[logger if logger >= 0 else pos:]


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a pasted traceback."""

    path: str
    """The file as the traceback names it, `\\` read as `/`."""
    line: int
    function: str
    """The function's name as the traceback shows it ("" when the line has none)."""


@dataclass(frozen=True, slots=True)
class Paste:
    """What a user pasted, read: the message in each form it may take, and its context."""

    forms: tuple[str, ...]
    """Candidate messages, most cleaned first, duplicates removed; the last is the text as pasted."""
    exception: str
    """The exception name in front of the message ("" when none)."""
    frames: tuple[Frame, ...]
    """The frames of the last traceback, outermost first (of the whole text when it has no header)."""
    firsts: tuple[int, ...] = (0,)
    """Where in `forms` each reading of the paste (its cut lines joined, as pasted) starts: its most cleaned form."""


def _named(head: str, rest: list[str]) -> tuple[str, list[str]]:
    """Return the exception name in front of `head` ("" when none) and the messages after it."""
    m = _EXCEPTION.match(head)
    if not m:
        return "", []
    exception = m.group(1)
    message = "\n".join([head[m.end():]] + rest)
    # KeyError shows its message as a repr, in quotes.
    if exception.split(".")[-1] == "KeyError" and len(message) >= 2 and message[0] in "'\"" and message[-1] == message[0]:
        return exception, [message[1:-1], message]
    return exception, [message]


def _unwrap(text: str) -> str | None:
    """Return `text` with a terminal's hard wrap undone, or None when it has none.

    A terminal that cuts long lines cuts them at its width: a line of the paste's greatest
    length (at least MIN_WRAP code points) continues on the next line, unless that one starts
    with whitespace or is blank (then the break reads as the space it may have been anyway), or
    it is a traceback's header or frame line (`python -c` prints a frame with no code under it).
    """
    lines = _LINE_BREAK.split(text)
    width = max(len(line) for line in lines)
    out = lines[0]
    joined = False
    for before, line in zip(lines, lines[1:]):
        cut = (width >= MIN_WRAP and len(before) == width and line[:1] not in ("", " ", "\t")
               and not _FRAME.match(before) and not _TRACEBACK.search(before))
        joined = joined or cut
        out += ("" if cut else "\n") + line
    return out if joined else None


def read_paste(text: str) -> Paste:
    """Return the candidate messages in `text`, its exception name and its traceback frames.

    A paste that a terminal hard-wrapped is read with its cut lines joined first, then as pasted.
    """
    joined = _unwrap(text)
    paste = _read(text)
    if joined is None:
        return paste
    first = _read(joined)
    forms = tuple(dict.fromkeys(first.forms + paste.forms))
    return Paste(forms, first.exception, first.frames, (0, forms.index(paste.forms[0])))


def _read(text: str) -> Paste:
    """Return the candidate messages in `text`, its exception name and its traceback frames, lines as they are."""
    lines = _LINE_BREAK.split(text)
    starts = [i for i, line in enumerate(lines) if _TRACEBACK.search(line)]
    # Frames of an earlier, chained traceback belong to another exception.
    framed = lines[starts[-1] + 1:] if starts else lines
    frames = tuple(Frame(m.group(1).replace("\\", "/"), int(m.group(2)), m.group(3) or "")
                   for m in map(_FRAME.match, framed) if m)
    body = lines
    if starts:
        rest = lines[starts[-1] + 1:]
        at = next((i for i, line in enumerate(rest) if line.strip(" \t") and line[0] not in " \t"), len(rest))
        body = rest[at:]
        while body and not body[-1].strip(" \t"):
            body = body[:-1]
    while body and not body[0].strip(" \t"):
        body = body[1:]
    if not body:
        return Paste((text,), "", frames)
    head, named = _strip_log(body[0])
    exception, forms = _named(head, body[1:])
    if not starts:
        # A CLI prints its usage, a blank line, then `Error: message`: the last paragraph is the error.
        filled = [i for i, line in enumerate(body) if line.strip(" \t")]
        ends = filled[-1] + 1
        gap = max((i for i in range(ends) if not body[i].strip(" \t")), default=-1)
        tail_exception, tail_forms = _named(body[gap + 1], body[gap + 2:ends]) if gap > 0 else ("", [])
        if tail_exception:
            exception, forms = tail_exception, tail_forms + ["\n".join(body[gap + 1:ends])] + forms
    forms.append("\n".join([head] + body[1:]))
    forms.append("\n".join([named] + body[1:]))
    forms.append(text)
    # A suggestion a library appends to the message (`Did you mean --mode?`) is no part of its template.
    start = forms[0].rfind("\n") + 1
    suggestion = _SUGGESTION.search(forms[0], start) if len(forms[0]) - start <= MAX_EXPR else None
    if suggestion:
        forms.insert(0, forms[0][:suggestion.start()])
    return Paste(tuple(dict.fromkeys(forms)), exception, frames)


def _quality(segs: Segments, norm: str, covered: list[int]) -> int:
    """Return the literal chars of the paste a match explains.

    A space that an empty placeholder implies is covered for the spans, but
    it is not in the paste: not before a first empty value, and never more
    than the paste's length.
    """
    total = sum(covered)
    second = segs[1] if len(segs) > 1 and segs[0] is None else None
    if second is not None and second[0] == " " and covered:
        lit = second[1:]
        if norm.startswith(lit) or lit.startswith(norm):
            total -= 1
    return min(total, len(norm))


def _values(raw: str, where: list[int], spans: list[int]) -> list[str]:
    out = []
    for i in range(0, len(spans), 2):
        start, end = spans[i], spans[i + 1]
        out.append(raw[where[start]:where[end - 1] + 1] if end > start else "")
    return out


def fill(message: str, text: str) -> list[str] | None:
    """Return the values of `message`'s placeholders in the concrete `text`, or None if it does not match."""
    segs = compile_template(message)
    for raw in read_paste(text).forms:
        norm, where = normalize(raw)
        end, _, spans = _walk(segs, norm)
        if end == "full":
            return _values(raw, where, spans)
    return None


# --- the index ------------------------------------------------------------

INDEX_FIELDS = ("id", "title", "message", "exception", "path", "removed", "dl", "first", "pattern", "spans",
                "line", "function", "written", "reprs", "variants")
"""The fields of an index row, in the order rows store them; the index carries this list as `fields`."""


def _first_word(segs: Segments) -> str:
    """Return the first whole word (2+ chars) of the literal text, or ""."""
    for k, seg in enumerate(segs):
        if seg is None:
            continue
        for word, start, end in tokenize(seg):
            if start == 0 and k > 0:
                continue
            if end == len(seg) and k < len(segs) - 1:
                continue
            return word
    return ""


def search_entry(record: Record) -> dict[str, Any]:
    """Return what the search index needs of one record."""
    from . import markdown

    return {
        "id": record.id, "title": record.title, "exception": record.exception,
        "message": record.message, "path": record.source.path, "line": record.source.line,
        "function": record.source.function or "", "tags": list(record.tags),
        "meaning": markdown.plain(record.meaning) if record.meaning else "",
        "status": record.status, "url": record.url,
        "written": record.written, "variants": [v.message for v in record.variants],
    }


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


def _is_written(rec: dict[str, Any]) -> bool:
    """Return whether a search entry's page has prose (entries without `written`: whether it has a meaning)."""
    return bool(rec["written"] if "written" in rec else rec.get("meaning"))


def _variant_json(message: str) -> dict[str, Any]:
    """Return a variant wording as the index stores it."""
    segs, pos = _compile(message)
    return {"message": message, "pattern": [0 if s is None else s for s in segs], "spans": pos,
            "first": _first_word(segs), "reprs": repr_placeholders(message)}


def build_index(records: list[dict[str, Any]],
                terms_of: Callable[[dict[str, Any]], dict[str, int]] = document_terms,
                base_url: str = "") -> dict[str, Any]:
    """Return the compact, JSON-able search index of `records` published at `base_url`; `terms_of` may answer from a cache."""
    records = sorted(records, key=lambda r: r["id"])
    docs: list[dict[str, int]] = []
    for rec in records:
        if rec["url"] != URL_PATTERN.format(id=rec["id"]):
            raise ValueError(
                f"record {rec['id']}: url {rec['url']!r} is not {URL_PATTERN!r}. "
                "See https://errorsite.github.io/errorsite/errors/index-url-mismatch/"
            )
        docs.append(terms_of(rec))
    terms = sorted({t for tf in docs for t in tf})
    number = {t: i for i, t in enumerate(terms)}
    postings: list[list[int]] = [[] for _ in terms]
    last = [0] * len(terms)
    for d, tf in enumerate(docs):
        for t in sorted(tf):
            i = number[t]
            postings[i].append((d - last[i]) * 8 + min(tf[t], 7))
            last[i] = d
    n = len(records)
    lengths = [sum(tf.values()) for tf in docs]
    rows = []
    for rec, length in zip(records, lengths):
        segs, pos = _compile(rec["message"])
        row = {
            "id": rec["id"], "title": rec.get("title") or rec["message"], "message": rec["message"],
            "exception": rec["exception"], "path": rec.get("path") or "",
            "removed": 1 if rec.get("status") == "removed" else 0, "dl": length,
            "first": number.get(_first_word(segs), -1), "pattern": [0 if s is None else s for s in segs],
            "spans": pos, "line": rec.get("line") or 0, "function": rec.get("function") or "",
            "written": 1 if _is_written(rec) else 0, "reprs": repr_placeholders(rec["message"]),
            "variants": [_variant_json(m) for m in rec.get("variants") or ()],
        }
        rows.append([row[name] for name in INDEX_FIELDS])
    return {
        "version": INDEX_VERSION,
        "url": URL_PATTERN,
        "base_url": base_url,
        "avgdl": round(sum(lengths) / n, 4) if n else 1,
        "fields": list(INDEX_FIELDS),
        "stop": sorted(STOP_WORDS),
        "records": rows,
        "terms": terms,
        "idf": [round(math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)), 4) for p in postings],
        "postings": postings,
    }


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
    title: str
    exception: str
    path: str
    line: int
    function: str
    removed: bool
    written: bool
    """The page has prose; a skeleton's has not."""
    length: int
    """Weighted token count (BM25's document length)."""
    templates: tuple[Template, ...]
    """The message, then each variant in the record's order."""


@dataclass(frozen=True, slots=True)
class SearchIndex:
    """A search index read back from its JSON form (`build_index`), rows by field name."""

    rows: tuple[Row, ...]
    terms: list[str]
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
    at = {name: i for i, name in enumerate(data["fields"])}

    def template(message: str, pattern: list[Any], spans: list[int], first: str, reprs: list[int]) -> Template:
        return Template(message, [None if s == 0 else s for s in pattern], tuple(spans), first, tuple(reprs))

    rows = []
    for values in data["records"]:
        def get(name: str) -> Any:
            return values[at[name]]

        first = get("first")
        main = template(get("message"), get("pattern"), get("spans"), terms[first] if first >= 0 else "", get("reprs"))
        variants = [template(v["message"], v["pattern"], v["spans"], v["first"], v["reprs"]) for v in get("variants")]
        rows.append(Row(get("id"), get("title"), get("exception"), get("path"), get("line"), get("function"),
                        bool(get("removed")), bool(get("written")), get("dl"), (main, *variants)))
    return SearchIndex(tuple(rows), terms, {t: i for i, t in enumerate(terms)}, data["idf"], data["postings"],
                       data["avgdl"], frozenset(data["stop"]), data.get("base_url", ""))


# --- words ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Expansion:
    """A term a query token stands for."""

    term: int
    weight: float
    near: bool
    """Found as a near spelling (edit distance), not the token or a completion of it."""


@dataclass(frozen=True, slots=True)
class QueryToken:
    """One distinct word of the paste and the terms it expands to."""

    word: str
    stop: bool
    """A stop word: it scores, but a record that shares only stop words is no result."""
    expansions: tuple[Expansion, ...]


@dataclass(slots=True)
class WordScores:
    """What the words of a paste found."""

    score: dict[int, float] = field(default_factory=dict)
    """BM25 score per row."""
    near: set[int] = field(default_factory=set)
    """Rows where some token's best contribution was a near spelling."""
    content: set[int] = field(default_factory=set)
    """Rows reached by a token that is not a stop word: only these can be word results."""
    shown: set[str] = field(default_factory=set)
    """Terms searched for tokens that are not stop words: the ones to highlight in titles."""


def _edits(a: str, b: str, limit: int) -> int:
    """Return the Levenshtein distance of `a` and `b`, or limit + 1 when it exceeds `limit`."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return min(prev[-1], limit + 1)


def _completions(index: SearchIndex, token: str) -> list[Expansion]:
    """Return the first terms the token is a proper prefix of (the user may still be typing it)."""
    found = [i for i, t in enumerate(index.terms) if t.startswith(token) and t != token]
    return [Expansion(i, PREFIX_WEIGHT, False) for i in found[:MAX_PREFIX_TERMS]]


def _near_spellings(index: SearchIndex, token: str) -> list[Expansion]:
    """Return the ASCII terms within edit distance 1 (2 for tokens longer than 6) of `token`."""
    limit = 1 if len(token) <= 6 else 2
    out = []
    for i, term in enumerate(index.terms):
        if abs(len(term) - len(token)) <= limit and term.isascii():
            d = _edits(token, term, limit)
            if d <= limit:
                out.append(Expansion(i, FUZZY_WEIGHTS[d], True))
    return out


def _query(index: SearchIndex, message: str) -> list[QueryToken]:
    """Return the distinct tokens of `message` (sorted) with the terms each expands to."""
    words = tokenize(message)
    tokens = list(dict.fromkeys(word for word, _, _ in words))[:MAX_QUERY_TERMS]
    typing = bool(words) and words[-1][2] == len(message) and words[-1][0] == tokens[-1]
    fuzzy = [t for t in tokens if t not in index.number and len(t) >= 4 and t.isascii() and not t.isdigit()]
    fuzzy = fuzzy[:MAX_FUZZY_TOKENS]
    out = []
    for token in sorted(tokens):
        exp = [Expansion(index.number[token], 1.0, False)] if token in index.number else []
        if typing and token == tokens[-1] and len(token) >= 3:
            exp += _completions(index, token)
        if token in fuzzy:
            exp += _near_spellings(index, token)
        if exp:
            out.append(QueryToken(token, token in index.stop, tuple(exp)))
    return out


def _word_scores(index: SearchIndex, query: list[QueryToken]) -> WordScores:
    """Return the BM25 score of every row the query's terms reach."""
    rows = index.rows
    found = WordScores()
    for token in query:
        best: dict[int, tuple[float, bool]] = {}
        for e in token.expansions:
            idf = index.idf[e.term]
            if not token.stop:
                found.shown.add(index.terms[e.term])
            d = 0
            for v in index.postings[e.term]:
                d += v >> 3
                tf = v & 7
                norm = K1 * (1 - B + B * rows[d].length / index.avgdl)
                s = e.weight * (idf * (tf * (K1 + 1)) / (tf + norm))
                if d not in best or s > best[d][0]:
                    best[d] = (s, e.near)
        for d in sorted(best):
            found.score[d] = found.score.get(d, 0.0) + best[d][0]
            if best[d][1]:
                found.near.add(d)
            if not token.stop:
                found.content.add(d)
    return found


# --- templates against the paste -------------------------------------------


@dataclass(frozen=True, slots=True)
class Form:
    """One paste form, normalised."""

    raw: str
    norm: str
    where: list[int]
    """Each normalised character's index in `raw`."""
    first: bool
    """The most cleaned form of a reading of the paste."""
    removed: int
    """Code points at the start that cleaning removed: how much longer the form is than the most
    cleaned form of its reading, when it ends with that form; else 0."""


class Tier(IntEnum):
    """How a result accounts for the paste; a higher tier always ranks first."""

    WORDS = 1
    """It shares words (or near spellings) only."""
    NOISY = 2
    """A template matched, but with text it cannot produce around it."""
    EXPLAINS = 3
    """A template matched the whole paste (full), or all of it up to where the paste stops (cut)."""


@dataclass(frozen=True, slots=True)
class TemplateMatch:
    """The best match of one of a record's templates against the paste."""

    end: str
    """"full", "cut" (the paste stops inside the template, nothing before it) or "noise"."""
    quality: int
    """Literal characters of the paste the template explains."""
    covered: list[int]
    """Characters matched of each literal, up to where the match stopped."""
    values: list[str]
    """For a full match, each placeholder's text as pasted; else empty."""
    variant: int | None
    """Which template: None for the message, else the position in the record's variants."""
    length: int
    """Code points of the paste form it matched, normalised."""
    reprs_hold: bool
    """Every placeholder that shows a repr holds text that looks like one (always true unless full)."""
    cleaned: bool
    """It matched the most cleaned paste form, or the template starts with a literal: a leading
    placeholder did not take the exception name or log prefix that cleaning removed as its value."""
    held: int
    """For a full match, the normalised code points of the values that a literal follows and that
    are one word looking like a repr (`'--token'`, `[1, 2]` is two): the template bounds them."""

    @property
    def tier(self) -> Tier:
        """Return how well the match accounts for the paste."""
        return Tier.NOISY if self.end == "noise" else Tier.EXPLAINS

    @property
    def explains(self) -> bool:
        """Return whether the template explains the paste on its own text (see docs/matching.md, Confidence)."""
        if self.end == "full":
            enough = 3 * self.quality >= 2 * (self.length - self.held) or self.quality >= CONFIDENT_LITERAL
            return enough and self.reprs_hold
        return self.end == "cut" and self.quality >= CONFIDENT_CUT and self.covered[-1] > 0


def _fits(match: TemplateMatch) -> tuple[int, int, bool, bool]:
    """Return what decides between two matches of one record: tier, quality, full over cut, cleaned."""
    return match.tier, match.quality, match.end == "full", match.cleaned


def _held(segs: Segments, norm: str, spans: list[int]) -> int:
    """Return the code points of the values of a full match that a literal follows and that are one word like a repr."""
    held = 0
    for n, k in enumerate(k for k, seg in enumerate(segs) if seg is None):
        value = norm[spans[2 * n]:spans[2 * n + 1]]
        word = value.strip(" ")
        if k < len(segs) - 1 and word and " " not in word and _REPR.fullmatch(word):
            held += len(value)
    return held


def _in_removed(segs: Segments, norm: str, spans: list[int], removed: int) -> int:
    """Return the literal code points of a full match of a template that starts with a placeholder
    that lie in the first `removed` code points (the exception name or log prefix cleaning removed)."""
    inside = 0
    for j, lit in enumerate(seg for seg in segs if seg is not None):
        start = spans[2 * j + 1]
        inside += len(norm[start:min(start + len(lit), removed)])
    return inside


def _match_template(template: Template, forms: list[Form], variant: int | None) -> TemplateMatch | None:
    """Return the best match of `template` over the paste forms, or None."""
    segs = template.segments
    best: TemplateMatch | None = None
    for form in forms:
        end, covered, spans = _walk(segs, form.norm)
        total = _quality(segs, form.norm, covered)
        if end == "full" and segs[0] is None and form.removed:
            # A leading placeholder took what cleaning removed: literal text found there is no message text.
            total -= _in_removed(segs, form.norm, spans, form.removed)
        if total < MIN_LITERAL and 2 * total < len(form.norm) or total == 0:
            continue
        # A full or cut match fits the whole paste; text after the closing literal does not.
        # In a less cleaned form a leading placeholder would take the exception name or
        # log prefix as its value: such a partial is cut only in the most cleaned form.
        if end == "cut" and not form.first and segs[0] is None:
            end = "noise"
        values = _values(form.raw, form.where, spans) if end == "full" else []
        reprs_hold = all(n >= len(values) or _REPR.fullmatch(values[n]) for n in template.reprs)
        held = _held(segs, form.norm, spans) if end == "full" else 0
        found = TemplateMatch(end, total, covered, values, variant, len(form.norm), reprs_hold,
                              form.first or segs[0] is not None, held)
        if best is None or _fits(found) > _fits(best):
            best = found
        if end == "full":
            break
    return best


def _match_row(row: Row, forms: list[Form], present: set[str]) -> TemplateMatch | None:
    """Return the best match of any of the row's templates whose first word the paste has, or None."""
    best: TemplateMatch | None = None
    for k, template in enumerate(row.templates):
        if not template.first or template.first not in present:
            continue
        found = _match_template(template, forms, k - 1 if k else None)
        if found and (best is None or _fits(found) > _fits(best)):
            best = found
    return best


# --- ranking --------------------------------------------------------------


@dataclass(frozen=True, slots=True, order=True)
class FrameHit:
    """Where a pasted traceback names a record's raise: depth of the innermost such frame (1 = outermost, 0 = none)."""

    at_line: int
    """A frame in the record's file at the record's line."""
    in_function: int
    """A frame in the record's file and function."""
    in_file: int
    """A frame in the record's file (path suffix: 2+ trailing components, or the whole path)."""
    suffix: int
    """The most trailing path components any such frame shares with the record's path."""


NO_FRAME = FrameHit(0, 0, 0, 0)


def _shared_suffix(mine: list[str], theirs: list[str]) -> int:
    """Return how many trailing path components two paths share."""
    n = 0
    while n < min(len(mine), len(theirs)) and mine[-1 - n] == theirs[-1 - n]:
        n += 1
    return n


def _frame_hit(row: Row, frames: tuple[Frame, ...]) -> FrameHit:
    """Return where the paste's traceback names the row's raise."""
    if not frames or not row.path:
        return NO_FRAME
    mine = row.path.split("/")
    function = row.function.split(".")[-1] or "<module>"
    at_line = in_function = in_file = suffix = 0
    for depth, frame in enumerate(frames, 1):
        n = _shared_suffix(mine, frame.path.split("/"))
        if n < min(2, len(mine)):
            continue
        in_file, suffix = depth, max(suffix, n)
        if frame.line == row.line:
            at_line = depth
        if frame.function.split(".")[-1] == function:
            in_function = depth
    return FrameHit(at_line, in_function, in_file, suffix)


def _linked(index: SearchIndex, text: str) -> set[int]:
    """Return the rows whose page's URL under the index's `base_url` the text contains (docs/matching.md, Links)."""
    base = index.base_url
    site = base.split("://", 1)[1] if "://" in base else ""
    path = site[site.find("/"):] if site else base
    rows: dict[str, int] = {}
    found = set()
    for url in _URLISH.findall(text) if "errors/" in text else ():
        url = url.rstrip(".,;:!?").split("#")[0].removesuffix("/index.html").removesuffix("/")
        web = _WEB.match(url)
        prefix = site if web else path
        rest = url[web.end():] if web else url
        if prefix and rest.startswith(prefix + "errors/"):
            rows = rows or {row.id: d for d, row in enumerate(index.rows)}
            d = rows.get(rest[len(prefix) + 7:])
            if d is not None:
                found.add(d)
    return found


@dataclass(frozen=True, slots=True, order=True)
class RankKey:
    """How a result ranks: fields compare in order, greater first; equal keys go by id."""

    linked: bool
    """The paste contains the URL of the record's page: the page the message itself names."""
    tier: Tier
    strength: float
    """Quality for template matches (the one explaining most of the paste with literal text wins,
    so a long message's template ranks above a short one that fits by swallowing the rest into a
    value); the word score for word results."""
    full: bool
    """A full match over a cut one."""
    cleaned: bool
    """A template that starts with a placeholder explains the most cleaned paste form, not only a form
    where the placeholder takes the exception name or log prefix (`{x}.{y} must be object` would take
    `pkg.` of `pkg.Error: foo must be object`); always true for a template that starts with a literal."""
    frames: FrameHit
    """Among records that explain the text alike, the traceback decides."""
    exception: bool
    """The pasted exception's last dotted part is the record's."""
    active: bool
    """Over removed."""
    written: bool
    """A written page over a skeleton."""
    words: float
    """For template matches, the word score: the most distinctive shared words."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A record that may be a result, with what found it."""

    row: int
    key: RankKey
    match: TemplateMatch | None
    """The template match, None for a word result."""
    confident: bool
    """The paste links to the record's page, or its template explains the paste and the paste's exception and
    traceback do not say otherwise."""


def _names_a_class(name: str) -> bool:
    """Return whether an exception name's last part is written like a class (CapWords)."""
    return "A" <= name[:1] <= "Z"


def _contradicts(paste: Paste, row: Row, frames: FrameHit) -> bool:
    """Return whether the paste's exception name or traceback shows that the row did not raise it."""
    theirs, mine = paste.exception.split(".")[-1], row.exception.split(".")[-1]
    other_class = (_names_a_class(theirs) and theirs not in GENERIC_EXCEPTIONS and _names_a_class(mine)
                   and theirs != mine)
    return other_class or bool(paste.frames) and frames.in_file == 0


def _candidate(index: SearchIndex, d: int, match: TemplateMatch | None, words: WordScores, paste: Paste,
               linked: bool) -> Candidate:
    """Return row `d` as a candidate, with its rank key."""
    row = index.rows[d]
    score = words.score.get(d, 0.0)
    exception = bool(paste.exception) and paste.exception.split(".")[-1] == row.exception.split(".")[-1]
    frames = _frame_hit(row, paste.frames)
    if match is None:
        key = RankKey(linked, Tier.WORDS, score, False, False, frames, exception, not row.removed, row.written, 0.0)
        return Candidate(d, key, None, linked)
    key = RankKey(linked, match.tier, match.quality, match.end == "full", match.cleaned, frames, exception, not row.removed,
                  row.written, score)
    return Candidate(d, key, match, linked or match.explains and not _contradicts(paste, row, frames))


def _candidates(index: SearchIndex, paste: Paste, forms: list[Form], words: WordScores, limit: int,
                linked: set[int]) -> list[Candidate]:
    """Return every record the paste links to or a template matched, and the word results that can reach the top `limit`."""
    present = {w for w, _, _ in tokenize(forms[-1].norm)}
    matched = {}
    for d, row in enumerate(index.rows):
        found = _match_row(row, forms, present)
        if found:
            matched[d] = found
    eligible = {d: s for d, s in words.score.items() if d in words.content}
    # Only the best `limit` word scores (and their ties) can reach the top.
    ranked = sorted(eligible.values(), reverse=True)
    floor = ranked[limit - 1] if 0 < limit <= len(ranked) else 0.0
    rows = sorted(set(matched) | linked | {d for d, s in eligible.items() if s >= floor})
    return [_candidate(index, d, matched.get(d), words, paste, d in linked) for d in rows]


# --- results --------------------------------------------------------------


def _end_of(message: str, start: int, count: int) -> int:
    """Return the index in `message` after `count` normalised chars of literal text from `start`."""
    i = start
    while count > 0 and i < len(message):
        if message[i] in WHITESPACE:
            while i < len(message) and message[i] in WHITESPACE:
                i += 1
        else:
            i += 2 if message[i:i + 2] in ("{{", "}}", "%%") else 1
        count -= 1
    return i


def _template_spans(template: Template, covered: list[int]) -> list[list[int]]:
    """Return the ranges of `template.message` a match covered, the last cut where the match stopped."""
    literals = [s for s in template.segments if s is not None]
    spans = []
    for k, count in enumerate(covered):
        start, end = template.spans[2 * k], template.spans[2 * k + 1]
        if count:
            spans.append([start, end if count == len(literals[k]) else _end_of(template.message, start, count)])
    return spans


def _result(index: SearchIndex, found: Candidate, words: WordScores) -> dict[str, Any]:
    """Return one result as search gives it."""
    row = index.rows[found.row]
    match = found.match
    linked = found.key.linked
    if match is None:
        spans = [[s, e] for w, s, e in tokenize(row.title) if w in words.shown and w not in index.stop]
        kind = "link" if linked else "near" if found.row in words.near else "words"
        return {"id": row.id, "score": found.key.strength, "kind": kind, "values": [], "spans": spans,
                "confident": found.confident, "variant": None, "linked": linked}
    template = row.templates[0 if match.variant is None else match.variant + 1]
    return {"id": row.id, "score": match.quality, "kind": "full" if match.end == "full" else "partial",
            "values": match.values, "spans": _template_spans(template, match.covered),
            "confident": found.confident, "variant": match.variant, "linked": linked}


def search(index: SearchIndex | dict[str, Any], text: str, limit: int = 10) -> list[dict[str, Any]]:
    """Return the records that best match `text`, best first (see docs/matching.md, Results)."""
    if not isinstance(index, SearchIndex):
        index = load_index(index)
    paste = read_paste(text)
    normal = [normalize(raw) for raw in paste.forms]
    forms = []
    for i, (raw, (norm, where)) in enumerate(zip(paste.forms, normal)):
        clean = normal[max(f for f in paste.firsts if f <= i)][0]
        forms.append(Form(raw, norm, where, i in paste.firsts, len(norm) - len(clean) if norm.endswith(clean) else 0))
    words = _word_scores(index, _query(index, forms[0].norm))
    found = _candidates(index, paste, forms, words, limit, _linked(index, text))
    found.sort(key=lambda c: index.rows[c.row].id)
    found.sort(key=lambda c: c.key, reverse=True)
    return [_result(index, c, words) for c in found[:limit]]
