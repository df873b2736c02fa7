"""Match what a user pasted against error message templates, and rank records.

The algorithm is specified in docs/matching.md; templates/static/match.js is
the same algorithm for the browser and must give identical answers. Pure
functions: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

INDEX_VERSION = 1
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
FIELD_WEIGHTS = (("title", 2), ("message", 2), ("exception", 1), ("function", 1),
                 ("path", 1), ("tags", 1), ("meaning", 1))

WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
NON_WORD_RANGES = ((0x80, 0xBF), (0xD7, 0xD7), (0xF7, 0xF7), (0x2000, 0x2BFF),
                   (0x3000, 0x303F), (0xFF00, 0xFF0F), (0x1F000, 0x1FAFF))

_PERCENT = re.compile(r"%(?:\([^()]*\))?[-#0+]*(?:\*|[0-9]+)?(?:\.(?:\*|[0-9]+))?[hlL]?[diouxXeEfFgGcrsa]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FRAME = re.compile(r'^[ \t]*File "([^"]+)", line [0-9]+')
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):")
_EXCEPTION = re.compile(r"^((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Z][A-Za-z0-9_]*):(?:[ \t]+|$)")
_SEP = re.compile(r"[ \t]*[:|-]?[ \t]*")
_BRACKET = re.compile(r"\[[^\]\r\n]{1,80}\]")
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}:[0-9]{2}:[0-9]{2}|DEBUG|INFO|WARN|ERROR|CRITICAL|FATAL")
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?)?"
    r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
)
_LEVEL = re.compile(r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?=[ \t:|-]|$)")
_LOGGER = re.compile(r"in [A-Za-z_][A-Za-z0-9_.]*:|[A-Za-z_][A-Za-z0-9_.]*(?::(?=[^ \t])|(?=[ \t]+-[ \t]))")

Segments = list  # list[str | None]


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
    """Return the leftmost occurrence of `lit` after a placeholder starting at `p` (-1: virtual space)."""
    if lit[0] == " ":
        if p == 0 and text.startswith(lit[1:]):
            return -1
        if p > 0 and text[p - 1] == " ":
            p -= 1
    q = text.find(lit, p)
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

    Return (end, covered, values): how the match ended ("full"; "cut" when the
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
                if open_at >= 0:
                    values += [open_at, max(q, open_at)]
                covered.append(len(seg))
                return "full", covered, values + [len(text), len(text)]
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
    return "full", covered, values


# --- paste forms ----------------------------------------------------------


def _strip_log(line: str) -> str:
    """Return `line` without a log prefix (timestamp, level, logger), if it has one."""
    pos = 0
    seen = False
    while True:
        pos = _SEP.match(line, pos).end()
        m = _BRACKET.match(line, pos)
        if m:
            seen = seen or bool(_STAMP.search(m.group()))
            pos = m.end()
            continue
        m = _TIMESTAMP.match(line, pos) or _LEVEL.match(line, pos)
        if not m and seen:
            m = _LOGGER.match(line, pos)
        if not m or m.end() == pos:
            break
        seen = True
        pos = m.end()
    return line[pos:] if seen else line


def paste_forms(text: str) -> tuple[list[str], str, list[str]]:
    """Return the candidate messages in `text` (most cleaned first), the exception name, and frame paths."""
    lines = _LINE_BREAK.split(text)
    frames = [m.group(1) for m in map(_FRAME.match, lines) if m]
    body = lines
    starts = [i for i, line in enumerate(lines) if _TRACEBACK.search(line)]
    if starts:
        rest = lines[starts[-1] + 1:]
        at = next((i for i, line in enumerate(rest) if line.strip(" \t") and line[0] not in " \t"), len(rest))
        body = rest[at:]
        while body and not body[-1].strip(" \t"):
            body = body[:-1]
    while body and not body[0].strip(" \t"):
        body = body[1:]
    if not body:
        return [text], "", frames
    head = _strip_log(body[0])
    forms = []
    exception = ""
    m = _EXCEPTION.match(head)
    if m:
        exception = m.group(1)
        message = "\n".join([head[m.end():]] + body[1:])
        # KeyError shows its message as a repr, in quotes.
        if exception.split(".")[-1] == "KeyError" and len(message) >= 2 and message[0] in "'\"" and message[-1] == message[0]:
            forms.append(message[1:-1])
        forms.append(message)
    forms.append("\n".join([head] + body[1:]))
    forms.append(text)
    unique = [f for i, f in enumerate(forms) if f not in forms[:i]]
    return unique, exception, frames


def _quality(segs: Segments, norm: str, covered: list[int]) -> int:
    """Return the literal chars of the paste a match explains.

    A space that an empty placeholder implies is covered for the spans, but
    it is not in the paste: not before a first empty value, and never more
    than the paste's length.
    """
    total = sum(covered)
    if len(segs) > 1 and segs[0] is None and segs[1][0] == " " and covered:
        lit = segs[1][1:]
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
    for raw in paste_forms(text)[0]:
        norm, where = normalize(raw)
        end, _, spans = _walk(segs, norm)
        if end == "full":
            return _values(raw, where, spans)
    return None


# --- the index ------------------------------------------------------------


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


def document_terms(rec: dict[str, Any]) -> dict[str, int]:
    """Return the weighted term frequencies of one record of the index."""
    tf: dict[str, int] = {}
    for field, weight in FIELD_WEIGHTS:
        value = rec.get(field) or ""
        if field == "tags":
            value = " ".join(value)
        elif field == "meaning":
            value = value[:MEANING_CHARS]
        for word, _, _ in tokenize(value):
            tf[word] = tf.get(word, 0) + weight
    return tf


def build_index(records: list[dict[str, Any]],
                terms_of: Callable[[dict[str, Any]], dict[str, int]] = document_terms) -> dict[str, Any]:
    """Return the compact, JSON-able search index of `records`; `terms_of` may answer from a cache."""
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
        word = _first_word(segs)
        rows.append([
            rec["id"], rec.get("title") or rec["message"], rec["message"], rec["exception"],
            rec.get("path") or "", 1 if rec.get("status") == "removed" else 0, length,
            number.get(word, -1), [0 if s is None else s for s in segs], pos,
            rec.get("line") or 0,
        ])
    return {
        "version": INDEX_VERSION,
        "url": URL_PATTERN,
        "avgdl": round(sum(lengths) / n, 4) if n else 1,
        "records": rows,
        "terms": terms,
        "idf": [round(math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)), 4) for p in postings],
        "postings": postings,
    }


# --- search ---------------------------------------------------------------


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


def _expand(index: dict[str, Any], number: dict[str, int], token: str, typing: bool) -> list[tuple[int, float, bool]]:
    """Return the (term, weight, fuzzy) a query token stands for: itself, completions, or near spellings."""
    terms = index["terms"]
    out = []
    if token in number:
        out.append((number[token], 1.0, False))
    if typing and len(token) >= 3:
        completions = [i for i, t in enumerate(terms) if t.startswith(token) and t != token]
        out += [(i, PREFIX_WEIGHT, False) for i in completions[:MAX_PREFIX_TERMS]]
    return out


def _fuzzy(index: dict[str, Any], token: str) -> list[tuple[int, float, bool]]:
    limit = 1 if len(token) <= 6 else 2
    out = []
    for i, term in enumerate(index["terms"]):
        if abs(len(term) - len(token)) <= limit and term.isascii():
            d = _edits(token, term, limit)
            if d <= limit:
                out.append((i, FUZZY_WEIGHTS[d], True))
    return out


def _query_terms(index: dict[str, Any], number: dict[str, int], message: str) -> list[list[tuple[int, float, bool]]]:
    """Return, per distinct query token (sorted), the terms it expands to."""
    words = tokenize(message)
    tokens: list[str] = []
    for word, _, _ in words:
        if word not in tokens:
            tokens.append(word)
    tokens = tokens[:MAX_QUERY_TERMS]
    typing = bool(words) and words[-1][2] == len(message) and bool(tokens) and words[-1][0] == tokens[-1]
    fuzzy = [t for t in tokens if t not in number and len(t) >= 4 and t.isascii() and not t.isdigit()]
    fuzzy = fuzzy[:MAX_FUZZY_TOKENS]
    out = []
    for token in sorted(tokens):
        exp = _expand(index, number, token, typing and token == tokens[-1])
        if token in fuzzy:
            exp += _fuzzy(index, token)
        if exp:
            out.append(exp)
    return out


def _bm25(index: dict[str, Any], query: list[list[tuple[int, float, bool]]]) -> tuple[dict[int, float], set[int], set[str]]:
    """Return BM25 score per record, the records that needed a near spelling, and the terms searched."""
    rows = index["records"]
    avgdl = index["avgdl"]
    scores: dict[int, float] = {}
    near: set[int] = set()
    terms: set[str] = set()
    for expansions in query:
        best: dict[int, tuple[float, bool]] = {}
        for term, weight, fuzzy in expansions:
            idf = index["idf"][term]
            terms.add(index["terms"][term])
            d = 0
            for v in index["postings"][term]:
                d += v >> 3
                tf = v & 7
                norm = K1 * (1 - B + B * rows[d][6] / avgdl)
                s = weight * (idf * (tf * (K1 + 1)) / (tf + norm))
                if d not in best or s > best[d][0]:
                    best[d] = (s, fuzzy)
        for d in sorted(best):
            scores[d] = scores.get(d, 0.0) + best[d][0]
            if best[d][1]:
                near.add(d)
    return scores, near, terms


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


def _path_hit(path: str, frames: list[str]) -> int:
    """Return how many trailing path components `path` shares with the best frame (0 if too few)."""
    mine = path.split("/")
    best = 0
    for frame in frames:
        theirs = frame.replace("\\", "/").split("/")
        n = 0
        while n < min(len(mine), len(theirs)) and mine[-1 - n] == theirs[-1 - n]:
            n += 1
        if n >= min(2, len(mine)):
            best = max(best, n)
    return best


def search(index: dict[str, Any], text: str, limit: int = 10) -> list[dict[str, Any]]:
    """Return the records that best match `text`, best first."""
    rows = index["records"]
    number = {t: i for i, t in enumerate(index["terms"])}
    forms, exception, frames = paste_forms(text)
    normed = [(raw, *normalize(raw)) for raw in forms]
    present = {number[w] for w, _, _ in tokenize(normed[-1][1]) if w in number}
    query = _query_terms(index, number, normed[0][1])
    scores, near, terms = _bm25(index, query)
    found: dict[int, tuple[int, int, list[str], list[list[int]]]] = {}
    for d, row in enumerate(rows):
        if row[7] < 0 or row[7] not in present:
            continue
        segs = [None if s == 0 else s for s in row[8]]
        best = None
        for i, (raw, norm, where) in enumerate(normed):
            end, covered, spans = _walk(segs, norm)
            total = _quality(segs, norm, covered)
            if total < MIN_LITERAL and 2 * total < len(norm) or total == 0:
                continue
            # A full or cut match fits the whole paste; text after the closing literal does not.
            # In a less cleaned form a leading placeholder would take the exception name or
            # log prefix as its value: such a partial is cut only in the most cleaned form.
            if end == "cut" and i > 0 and segs[0] is None:
                end = "noise"
            key = (2 if end == "noise" else 3, total, 1 if end == "full" else 0)
            if best is None or key > best[0]:
                best = (key, _values(raw, where, spans) if end == "full" else [], covered)
            if end == "full":
                break
        if best:
            found[d] = best
    results = []
    # Only the best `limit` word scores (and their ties) can reach the top.
    ranked = sorted(scores.values(), reverse=True)
    floor = ranked[limit - 1] if 0 < limit <= len(ranked) else 0.0
    for d in set(found) | {d for d, v in scores.items() if v >= floor}:
        row = rows[d]
        score = scores.get(d, 0.0)
        (tier, quality, full), values, covered = found.get(d, ((1, score, 0), [], []))
        hit = [_path_hit(row[4], frames), 1 if exception and exception.split(".")[-1] == row[3].split(".")[-1] else 0]
        key = (tier, quality, full, *hit, 1 - row[5], score if tier > 1 else 0)
        results.append((key, row[0], d, values, covered))
    results.sort(key=lambda r: tuple(-x for x in r[0]) + (r[1],))
    out = []
    for key, rid, d, values, covered in results[:limit]:
        row = rows[d]
        if key[0] > 1:
            spans = []
            for k, count in enumerate(covered):
                start, end = row[9][2 * k], row[9][2 * k + 1]
                if count:
                    spans.append([start, end if count == len(row[8][_literal_at(row[8], k)]) else _end_of(row[2], start, count)])
            name = "full" if key[2] else "partial"
        else:
            spans = [[s, e] for w, s, e in tokenize(row[1]) if w in terms]
            name = "near" if d in near else "words"
        out.append({"id": rid, "score": key[1], "kind": name, "values": values, "spans": spans})
    return out


def _literal_at(pattern: list, k: int) -> int:
    """Return the position in `pattern` of its k-th literal."""
    seen = -1
    for i, seg in enumerate(pattern):
        if seg != 0:
            seen += 1
            if seen == k:
                return i
    return -1
