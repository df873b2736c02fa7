"""The search index in fragments: a small manifest, and the files one search needs, found by the paste's words.

The whole index (`index.build_index`) is 0.5 KB a record: 6 MB for a library of 12,000 errors,
more than a reader should download to search once. Its fragments hold the same values, cut by
what a search looks up (docs/matching.md, Fragments): the words of the paste name the fragments
of their terms' postings and of the templates whose first word they are, each template only by
what a paste must hold for it to match (`match.anchor`); the rows come last, only those that can
be results. A search over the rows and
terms it loaded gives what a search of the whole index gives, value for value: `sub_index` makes
an index of them in the whole index's form, and `rank.search` runs on it (`match.js` alike).

Every fragment is a script, `ERRORSITE_SHARD("<name>",<JSON>);`, so that a page opened from
file:// loads it with a script tag. Which fragments exist depends on the number of records
alone, so a build knows them before it makes the index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import mul
from typing import Any

from ..scriptdata import script_safe
from .index import INDEX_VERSION, Row, SearchIndex, Template, field_positions, load_index, segments
from .match import anchor, anchored, forms_of
from .paste import group_members, held_messages, page_ids, read_paste
from .template import compile_template, first_word
from .words import MAX_FUZZY_TOKENS, MAX_PREFIX_TERMS, MAX_QUERY_TERMS, fuzzy_limit, query
from .text import tokenize
from .rank import answer_places, candidate_rows, search

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


def _templates(row: list[Any], at: dict[str, int]) -> list[tuple[str, Any, Any, str]]:
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
        for first, pattern, _, message in _templates(row, at) if templated else ():
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


Read = Callable[[str], Any]
"""Return the data of a fragment by path (`read_script` of its bytes); the reader may count what it loads."""


@dataclass(frozen=True, slots=True)
class Loaded:
    """What a search loaded of the fragments: an index in the whole index's form, of the rows that can be results."""

    index: dict[str, Any]
    """The rows that can be results (in the whole index's order) and the terms the paste's words need."""
    places: dict[str, list[str]]
    """The ids of every record that raises a message of those rows (`message_key`), when more than one does."""
    paths: list[str]
    """Every fragment read, in the order read."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What one paste (an exception group's part, or the whole text) asks of the index."""

    text: str
    query: str
    """The most cleaned form, normalised: its words are the query's."""
    words: list[str]
    """The query's distinct words, at most MAX_QUERY_TERMS."""
    typing: bool
    """The last word ends the text: it is completed."""
    present: set[str]
    """Every word of every paste form: the first words of templates it may match."""
    norms: list[str]
    """Every paste form, normalised: what a template's anchor is looked for in."""
    frames: set[str]
    """The line and file name of its traceback's frames, chained ones included (`raise_key`)."""


def _plan(text: str) -> Plan:
    paste = read_paste(text)
    forms = forms_of(paste)
    tokens = tokenize(forms[0].norm)
    words = list(dict.fromkeys(w for w, _, _ in tokens))[:MAX_QUERY_TERMS]
    typing = bool(tokens) and tokens[-1][2] == len(forms[0].norm) and tokens[-1][0] == words[-1]
    chains = (paste.frames, *paste.causes) if paste.frames else ()
    frames = {raise_key(f.line, f.path) for chain in chains for f in chain}
    return Plan(text, forms[0].norm, words, typing, {w for form in forms for w, _, _ in tokenize(form.norm)},
                [form.norm for form in forms], frames)


def load_for(read: Read, text: str, limit: int = 10) -> Loaded:
    """Return the part of the index that a search of `text` for `limit` results needs, read fragment by fragment
    (of a `readable` manifest).

    Steps, as match.js takes them, each for every part of an exception group's output (or each
    message an error holds, and the whole text): the manifest; the postings of the query's words,
    the templates whose first word the paste has, the vocabulary around a word being typed, the
    rows' lengths, the ids the paste links to and the rows of a raise at a line and in a file of a
    frame of its traceback; the postings of the completions of a word being typed, the ASCII terms of
    the lengths near spellings need, and the long postings of the query's words; the postings of the
    near spellings; the long postings of the completions and near spellings; then each row that can
    be a result: a template's anchor is in the paste, the traceback names it, it is among the best
    `limit` word scores, or the paste links to it; last, the other records that raise those rows'
    messages.
    """
    paths: list[str] = []

    def get(path: str) -> Any:
        paths.append(path)
        return read(path)

    manifest = get(MANIFEST)
    n, count = manifest["records"], manifest["buckets"]
    plans = [_plan(t) for t in group_members(text) or [*(held_messages(text) or ()), text]]
    ids = page_ids(text, manifest["base_url"])
    present = {w for plan in plans for w in plan.present | set(plan.words)}
    words = {w for plan in plans for w in plan.words}

    def path(kind: str, key: str) -> str:
        return f"{FOLDER}{kind}/{bucket(key, count * spread(kind))}.js"

    postings: dict[str, list[Any]] = {}
    idf: dict[str, float] = {}
    """The weight of every term of the postings' fragments read: a term is known when its fragment has it."""
    long: dict[str, str] = {}

    def read_postings(names: Iterable[str]) -> None:
        for p in sorted(set(names)):
            for term, (weight, *posting) in get(p).items():
                idf[term] = weight
                if posting:
                    postings[term] = [weight, posting[0]]

    def read_long(terms: Iterable[str]) -> None:
        wanted = {t for t in terms if t in idf and t not in postings}
        for p in sorted({path("t", t) for t in wanted} - set(paths)):
            long.update(get(p))
        postings.update({t: [idf[t], long[t]] for t in wanted})

    read_postings(path("p", w) for w in words)
    typed = {plan.words[-1] for plan in plans if plan.typing and len(plan.words[-1]) >= 3}
    vocabulary: dict[str, list[str]] = {p: get(p) for p in sorted({path("v", w[:PREFIX]) for w in typed})}
    anchors: list[tuple[list[int], list[str], bool]] = []
    for p in sorted({path("f", w) for w in present}):
        for first, entries in get(p).items():
            if first in present:
                anchors += [(rows, literals, bool(whole)) for rows, whole, *literals in entries]
    lengths = decode_lengths(get(LENGTHS)) if n else []
    linked: dict[str, int] = {}
    for p in sorted({path("i", i) for i in ids}):
        linked.update({i: d for i, d in get(p).items() if i in ids})
    frames = {key for plan in plans for key in plan.frames}
    raises: dict[int, tuple[str, int, bool]] = {}
    for p in sorted({path("n", key) for key in frames}):
        for key, found in get(p).items():
            if key in frames:
                line = int(key.split(" ", 1)[0])
                raises.update({d: (where, line, bool(relays)) for d, where, relays in found})

    terms = {w for w in words if w in idf}
    fuzzy: set[str] = set()
    for plan in plans:
        last = plan.words[-1] if plan.words else ""
        if plan.typing and len(last) >= 3:
            terms |= set([t for t in vocabulary[path("v", last[:PREFIX])] if t.startswith(last) and t != last]
                         [:MAX_PREFIX_TERMS])
        fuzzy |= set([w for w in plan.words if w not in idf and len(w) >= 4 and w.isascii() and not w.isdigit()]
                     [:MAX_FUZZY_TOKENS])
    read_postings(path("p", t) for t in terms - idf.keys())
    near = {length_name(len(w) + k) for w in fuzzy for k in range(-fuzzy_limit(w), fuzzy_limit(w) + 1)}
    for p in sorted(near):
        terms.update(get(p))
    read_long(w for w in words if w in idf)
    sub = SubIndex(manifest, sorted(terms))
    vocab = sub.vocabulary()
    searched = {sub.terms[e.term] for plan in plans for token in query(vocab, plan.query) for e in token.expansions}
    read_postings(path("p", t) for t in searched - idf.keys())
    read_long(searched)
    stubs = sub.searchable(postings, lengths, linked, raises)
    norms = [norm for plan in plans for norm in plan.norms]
    rows = sorted({d for plan in plans for d in candidate_rows(stubs, plan.text, limit)}
                  | {d for rows, literals, whole in anchors if anchored(literals, whole, norms) for d in rows})
    full = {d: get(f"{FOLDER}r/{d}.js") for d in rows}
    at = field_positions(manifest)
    keys = {message_key(row[at["exception"]], message) for row in full.values()
            for *_, message in _templates(row, at)}
    places: dict[str, list[str]] = {}
    for p in sorted({path("s", key) for key in keys}):
        places.update({key: found for key, found in get(p).items() if key in keys})
    return Loaded(sub.whole(full, postings), places, paths)


def search_loaded(loaded: Loaded, text: str, limit: int = 10) -> list[dict[str, Any]]:
    """Return the results of `text` from what `load_for` loaded: the whole index's results, value for value."""
    results = search(loaded.index, text, limit)
    index = load_index(loaded.index)
    rows = {row.id: row for row in index.rows}

    def places(exception: str, message: str) -> list[str]:
        return loaded.places.get(message_key(exception, message), [])

    for result in results:
        twins = [rows[i] for i in result["twins"]]
        result["places"] = answer_places(rows[result["id"]], result["variant"], twins, places)
    return results


@dataclass(slots=True)
class SubIndex:
    """The terms a search loaded, and the rows it needs, made into indexes of the whole index's form."""

    manifest: dict[str, Any]
    terms: list[str]
    """Every term the search loaded, in the whole index's order (a subset of its terms)."""

    def _index(self, rows: list[list[Any]], postings: list[list[int]], idf: list[float]) -> dict[str, Any]:
        m = self.manifest
        return {"version": INDEX_VERSION, "url": m["url"], "base_url": m["base_url"], "avgdl": m["avgdl"],
                "fields": m["fields"], "stop": m["stop"], "records": rows, "terms": self.terms, "idf": idf,
                "postings": postings}

    def _stubs(self, lengths: list[int], linked: dict[str, int],
               raises: dict[int, tuple[str, int, bool]]) -> tuple[Row, ...]:
        """Return a row per record, with only what finds the rows that word scores, links and the traceback can make
        results: length, linked id, and the place of a raise the traceback may name.

        Rows of none of these are only their length, and share one object a length."""
        ids = {d: i for i, d in linked.items()}
        plain: dict[int, Row] = {}
        out = []
        for d, length in enumerate(lengths):
            if d not in ids and d not in raises:
                if length not in plain:
                    plain[length] = Row("", "", "", "", 0, "", False, False, length, (), False)
                out.append(plain[length])
                continue
            where, line, relays = raises.get(d, ("", 0, False))
            # No template is tried: the message stands in only for whether it passes on a handled error's text.
            template = Template("", [None] if relays else [""], (), "", ())
            out.append(Row(ids.get(d, ""), "", "", where, line, "", False, False, length, (template,), False))
        return tuple(out)

    def _lists(self, postings: dict[str, list[Any]], keep: Callable[[list[int]], list[int]]) -> tuple[list[list[int]], list[float]]:
        lists = [keep(decode_numbers(postings[t][1])) if t in postings else [] for t in self.terms]
        return lists, [postings[t][0] if t in postings else 0.0 for t in self.terms]

    def vocabulary(self) -> SearchIndex:
        """Return an index of no rows with the terms loaded: enough to expand the words of a query."""
        return load_index(self._index([], [[] for _ in self.terms], [0.0] * len(self.terms)))

    def searchable(self, postings: dict[str, list[Any]], lengths: list[int], linked: dict[str, int],
                   raises: dict[int, tuple[str, int, bool]]) -> SearchIndex:
        """Return an index of every record, each with only what finds the rows word scores, links and the traceback
        can make results (`_stubs`)."""
        lists, idf = self._lists(postings, lambda p: p)
        vocabulary = self.vocabulary()
        return SearchIndex(self._stubs(lengths, linked, raises), vocabulary.terms, vocabulary.number, idf,
                           lists, vocabulary.avgdl, vocabulary.stop, vocabulary.base_url)

    def whole(self, rows: dict[int, list[Any]], postings: dict[str, list[Any]]) -> dict[str, Any]:
        """Return the index of `rows` (by their number in the whole index), its postings cut to them."""
        order = sorted(rows)
        number = {d: k for k, d in enumerate(order)}

        def keep(posting: list[int]) -> list[int]:
            out, d, last = [], 0, 0
            for value in posting:
                d += value >> 3
                if d in number:
                    out.append((number[d] - last) * 8 + (value & 7))
                    last = number[d]
            return out

        lists, idf = self._lists(postings, keep)
        return self._index([rows[d] for d in order], lists, idf)
