"""The search index in fragments: a small manifest, and the files one search needs, found by the paste's words.

The whole index (`index.build_index`) is 0.5 KB a record: 6 MB for a library of 12,000 errors,
more than a reader should download to search once. Its fragments hold the same values, cut by
what a search looks up (docs/matching.md, Fragments): the words of the paste name the fragments
of their terms' postings and of the templates whose first word they are, each template only by
what a paste must hold for it to match (`match.anchor`); the rows come last, only those that can
be results. A search over the rows and terms it loaded gives what a search of the whole index gives,
value for value (`sharded`, which reads them; `match.js` alike). This module makes them, and what
both sides share: the buckets, the numbers' digits, the fragments' names and scripts.

Every fragment is a script, `ERRORSITE_SHARD("<name>",<JSON>);`, so that a page opened from
file:// loads it with a script tag. Which fragments exist depends on the number of records
alone, so a build knows them before it makes the index.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import mul
from typing import Any

from ..scriptdata import script_safe
from .index import INDEX_VERSION, field_positions, segments
from .match import anchor
from .template import compile_template, first_word

SHARDS_VERSION = 3
"""The format of the fragments; a reader of another version must not guess."""
FOLDER = "search/"
"""Where the fragments are, relative to the site's root."""
MANIFEST = FOLDER + "manifest.js"
"""The one fragment every search loads first: the index's settings and the number of buckets."""
LENGTHS = FOLDER + "lengths.js"
"""Every row's length (BM25's document length), which scores every row a term reaches."""
SHORTEST, LONGEST = 2, 24
"""The fragments of ASCII terms by length, for near spellings: one per length, the last for every longer term."""
PER_BUCKET = 16
"""About how many records' terms, templates and ids share a bucket."""
PREFIX = 2
"""Code points of a term that name its fragment of the vocabulary: every completion of a word of 3+
code points is in the fragment of the word itself."""
LONG_POSTING = 1024
"""A posting of more digits than this is in a fragment of its own kind (`t`), read only when its term is searched:
such a term (`sglang` in every record of sglang) would weigh on each search of another word of its bucket."""
CALL = b"ERRORSITE_SHARD("
"""How every fragment starts; then its name as JSON, a comma, its data as JSON, and END."""
END = b");\n"

# Numbers are written as digits of an alphabet of the 90 ASCII characters from "#" to "~" that
# JSON and HTML leave alone (no backslash, no "<"): the first 45 end a number, the other 45 go
# before its last digit. A posting of a word that every record has is a character a record.
DIGITS = "".join(chr(c) for c in range(0x23, 0x7F) if chr(c) not in "\\<")
BASE = len(DIGITS) // 2


def encode_numbers(values: Iterable[int]) -> str:
    """Return non-negative integers as one string of digits (see DIGITS)."""
    out: list[str] = []
    for value in values:
        digits = [DIGITS[value % BASE]]
        value //= BASE
        while value:
            digits.append(DIGITS[BASE + value % BASE])
            value //= BASE
        out.extend(reversed(digits))
    return "".join(out)


_VALUE = {ch: i for i, ch in enumerate(DIGITS)}
LONGER = len(DIGITS) - 1
"""In `encode_lengths`, the digit before a value of LONGER or more, written as `encode_numbers` does."""


def encode_lengths(values: Iterable[int]) -> str:
    """Return non-negative integers, most below LONGER, as one digit each (see DIGITS); a larger one as the digit
    LONGER and its value less LONGER, as `encode_numbers` writes it."""
    return "".join(DIGITS[v] if v < LONGER else DIGITS[LONGER] + encode_numbers([v - LONGER]) for v in values)


def decode_lengths(text: str) -> list[int]:
    """Return the integers `encode_lengths` wrote."""
    out = []
    i = 0
    while i < len(text):
        digit = _VALUE[text[i]]
        i += 1
        if digit < LONGER:
            out.append(digit)
            continue
        end = i
        while _VALUE[text[end]] >= BASE:
            end += 1
        out.append(LONGER + decode_numbers(text[i:end + 1])[0])
        i = end + 1
    return out


def decode_numbers(text: str) -> list[int]:
    """Return the integers `encode_numbers` wrote."""
    out = []
    value = 0
    for ch in text:
        digit = _VALUE[ch]
        if digit >= BASE:
            value = value * BASE + digit - BASE
        else:
            out.append(value * BASE + digit)
            value = 0
    return out


KINDS = "finpstv"
"""The families of buckets: templates by first word, ids, rows by line, postings, places by message, long postings,
vocabulary."""
TEMPLATE_SPREAD = 8
"""Templates by first word have this many times the buckets of the others: a search loads every template of
each first word in the paste, and a shared bucket adds another word's (on sglang, half of what a traceback loaded)."""


def spread(kind: str) -> int:
    """Return how many times `buckets` the family `kind` has."""
    return TEMPLATE_SPREAD if kind == "f" else 1


def buckets(records: int) -> int:
    """Return how many buckets of postings, templates, vocabulary and ids an index of `records` records has."""
    n = 1
    while n * PER_BUCKET < records:
        n *= 2
    return n


def bucket(text: str, count: int) -> int:
    """Return the bucket of `text` among `count`: a hash of its code points that match.js computes alike, `h = (h * 31
    + code point) mod 2**32` over them, which is the sum of each code point times 31 to the power of how many follow it.

    Summed in C (`map`, `sum`) rather than stepped in Python: an edit's fragments hash every row's keys."""
    size = len(text)
    powers = _POWERS if size <= len(_POWERS) else _powers(size)
    return (sum(map(mul, map(ord, text), powers[len(powers) - size:])) & 0xFFFFFFFF) % count


def _powers(size: int) -> list[int]:
    """Return 31 to the power of size - 1, ..., 1, 0, each mod 2**32."""
    return [pow(31, k, 1 << 32) for k in range(size - 1, -1, -1)]


_POWERS = _powers(256)


def length_name(length: int) -> str:
    """Return the fragment of the ASCII terms of `length` code points."""
    return f"{FOLDER}l/{min(max(length, SHORTEST), LONGEST)}.js"


def names(records: int) -> list[str]:
    """Return the path of every fragment of an index of `records` records, sorted."""
    count = buckets(records)
    out = [MANIFEST, LENGTHS]
    out += [f"{FOLDER}{kind}/{b}.js" for kind in KINDS for b in range(count * spread(kind))]
    out += [length_name(n) for n in range(SHORTEST, LONGEST + 1)]
    out += [f"{FOLDER}r/{d}.js" for d in range(records)]
    return sorted(out)


def is_fragment(path: str) -> bool:
    """Return whether an output path is a fragment of the search index."""
    return path.startswith(FOLDER) and path.endswith(".js")


def script(name: str, data: Any) -> bytes:
    """Return a fragment's script: it hands its data to the page that loads it."""
    import orjson

    return CALL + orjson.dumps(name) + b"," + script_safe(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)) + END


def script_data(data: bytes) -> bytes | None:
    """Return the JSON of the data in a fragment's script, or None when it is not one."""
    if not data.startswith(CALL) or not data.endswith(END):
        return None
    name_end = data.find(b'",', len(CALL))
    return data[name_end + 2:-len(END)] if name_end >= 0 else None


def read_script(data: bytes) -> Any:
    """Return the data of a fragment's script, or None when it is not one."""
    import orjson

    found = script_data(data)
    return None if found is None else orjson.loads(found)


def row_templates(row: list[Any], at: dict[str, int]) -> list[tuple[str, Any, Any, str]]:
    """Return a row's templates as (first word, pattern, reprs, message): its message, then its variants."""
    main = (row[at["first"]], row[at["pattern"]], row[at["reprs"]], row[at["message"]])
    return [main] + [(v["first"], v["pattern"], v["reprs"], v["message"]) for v in row[at["variants"]]]


def raise_key(line: int, path: str) -> str:
    """Return what a traceback's frame and the raises it can be at share: the line and the file's name (a frame is
    at a raise when its path ends with the raise's last two parts, `rank.frame_hit`)."""
    return f"{line} {path.rsplit('/', 1)[-1]}"


def message_key(exception: str, message: str) -> str:
    """Return what records that raise one message share, as one string: the exception and the wording."""
    return exception + "\n" + message


def fragments(index: dict[str, Any], only: Iterable[str] | None = None) -> dict[str, bytes]:
    """Return the fragments of the whole index `index` by path: all of them, or those of `only`."""
    rows: list[list[Any]] = index["records"]
    n = len(rows)
    count = buckets(n)
    wanted = set(names(n)) if only is None else set(only) & set(names(n))
    at = field_positions(index)
    out: dict[str, Any] = {}
    if MANIFEST in wanted:
        out[MANIFEST] = {"version": SHARDS_VERSION, "index": INDEX_VERSION, "url": index["url"],
                         "base_url": index["base_url"], "avgdl": index["avgdl"], "records": n, "buckets": count,
                         "fields": index["fields"], "stop": index["stop"]}
    if LENGTHS in wanted:
        out[LENGTHS] = encode_lengths(row[at["dl"]] for row in rows)
    for name in wanted:
        if name.startswith(f"{FOLDER}r/"):
            out[name] = rows[int(name[len(FOLDER) + 2:-3])]
    terms: list[str] = index["terms"]

    # The kinds of the fragments wanted: a key of another kind is not hashed (an edit wants a few fragments, and
    # hashing every id and raise key of the index cost most of cutting them).
    kinds = {path[len(FOLDER):].split("/")[0] for path in wanted if path.startswith(FOLDER)}

    def want(kind: str, key: str) -> str | None:
        if kind not in kinds:
            return None
        path = f"{FOLDER}{kind}/{bucket(key, count * spread(kind))}.js"
        return path if path in wanted else None

    firsts: dict[str, str | None] = {}  # want("f", word) by first word: templates share a few hundred
    places: dict[str, list[str]] = {}
    # A template's entry in the fragment of its first word: 1 when its anchor is all its literals (else 0), and the
    # anchor's literals (`match.anchor`), with the rows of every template of that first word and anchor.
    anchors: dict[str, dict[str, dict[tuple[Any, ...], list[int]]]] = {}
    by_rows = any(p.startswith(tuple(f"{FOLDER}{kind}/" for kind in "fins")) for p in wanted)
    # Only what a wanted kind holds is made of each row: an edit wants a few fragments of a few kinds.
    templated, placed, raised = ("f" in kinds or "s" in kinds), "s" in kinds, "n" in kinds
    for d, row in enumerate(rows if by_rows else ()):
        row_id = row[at["id"]]
        for first, pattern, _, message in row_templates(row, at) if templated else ():
            if placed:
                ids = places.setdefault(message_key(row[at["exception"]], message), [])
                if row_id not in ids[-1:]:
                    ids.append(row_id)
            if not first:
                continue
            path = firsts[first] if first in firsts else firsts.setdefault(first, want("f", first))
            if path:
                literals, whole = anchor(segments(pattern))
                found = anchors.setdefault(path, {}).setdefault(first, {}).setdefault((int(whole), *literals), [])
                if d not in found[-1:]:
                    found.append(d)
        path = want("i", row_id)
        if path:
            out.setdefault(path, {})[row_id] = d
        if not raised:
            continue
        key = raise_key(row[at["line"]], row[at["path"]])
        path = want("n", key)
        if path and row[at["path"]]:
            relays = 1 if row[at["pattern"]] == [0] else 0
            out.setdefault(path, {}).setdefault(key, []).append([d, row[at["path"]], relays])
    for path, by_first in anchors.items():
        out[path] = {first: [[rows, *entry] for entry, rows in found.items()] for first, found in by_first.items()}
    for key, ids in places.items():
        path = want("s", key) if len(ids) > 1 else None  # a message one record raises has no entry
        if path:
            out.setdefault(path, {})[key] = ids
    # A term's postings and long postings are in buckets of one count: its hash is found once, for both.
    postings_in, long_in = ("p" in kinds), ("t" in kinds)
    prefixes: dict[str, str | None] = {}  # want("v", prefix): terms share their first code points
    for t, term in enumerate(terms):
        path = long = None
        if postings_in or long_in:
            number = bucket(term, count * spread("p"))  # spread("t") is the same
            path = f"{FOLDER}p/{number}.js" if postings_in else None
            long = f"{FOLDER}t/{number}.js" if long_in else None
            path, long = (path if path in wanted else None), (long if long in wanted else None)
        if path or long:
            posting = encode_numbers(index["postings"][t])
            if path:
                out.setdefault(path, {})[term] = [index["idf"][t]] + ([] if len(posting) > LONG_POSTING else [posting])
            if long and len(posting) > LONG_POSTING:
                out.setdefault(long, {})[term] = posting
        start = term[:PREFIX]
        path = prefixes[start] if start in prefixes else prefixes.setdefault(start, want("v", start))
        if path:
            out.setdefault(path, []).append(term)
        if term.isascii() and length_name(len(term)) in wanted:
            out.setdefault(length_name(len(term)), []).append(term)
    empty: dict[str, Any] = {"f": {}, "i": {}, "n": {}, "p": {}, "s": {}, "t": {}, "v": [], "l": []}
    return {path: script(path[len(FOLDER):-3], out[path] if path in out else empty[path.split("/")[1]])
            for path in sorted(wanted)}


def readable(manifest: Any) -> bool:
    """Return whether a manifest is of the fragments this errorsite writes and reads."""
    return isinstance(manifest, dict) and manifest.get("version") == SHARDS_VERSION \
        and manifest.get("index") == INDEX_VERSION


PLACED = ("line", "path", "message", "exception", "variants")
"""The fields of a search entry that the fragments of raise keys, places and templates hold something of."""


def touched(index: dict[str, Any], changes: Iterable[tuple[dict[str, Any], dict[str, Any]]],
            terms: Iterable[str]) -> list[str]:
    """Return the fragments that can change when records change from the first search entry to the second of
    `changes` (same ids) and the weights of `terms` change, in an index of as many records."""
    rows = index["records"]
    count = buckets(len(rows))
    at = field_positions(index)
    position = {row[at["id"]]: d for d, row in enumerate(rows)}
    out = {MANIFEST, LENGTHS}
    for term in terms:
        out |= {f"{FOLDER}{kind}/{bucket(term, count)}.js" for kind in "pt"}
        out.add(f"{FOLDER}v/{bucket(term[:PREFIX], count)}.js")
        if term.isascii():
            out.add(length_name(len(term)))
    for before, after in changes:
        out |= {f"{FOLDER}r/{position[entry['id']]}.js" for entry in (before, after)}
        if all(before.get(field) == after.get(field) for field in PLACED):
            continue  # its raise key, places and templates are as they were: a new title, tags or prose
        for entry in (before, after):
            out.add(f"{FOLDER}n/{bucket(raise_key(entry.get('line') or 0, entry.get('path') or ''), count)}.js")
            for message in (entry["message"], *entry["variants"]):
                out.add(f"{FOLDER}s/{bucket(message_key(entry['exception'], message), count)}.js")
                first = first_word(compile_template(message))
                if first:
                    out.add(f"{FOLDER}f/{bucket(first, count * TEMPLATE_SPREAD)}.js")
    return sorted(out)
