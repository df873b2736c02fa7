"""The search index in fragments: a small manifest, and the files one search needs, found by the paste's words.

The whole index (`index.build_index`) is 0.5 KB a record: 6 MB for a library of 12,000 errors,
more than a reader should download to search once. Its fragments hold the same values, cut by
what a search looks up (docs/matching.md, Fragments): the words of the paste name the fragments
of their terms' postings, of the templates whose first word they are, and of the vocabulary
around them; the rows come last, only those that can be results. A search over the rows and
terms it loaded gives what a search of the whole index gives, value for value: `sub_index` makes
an index of them in the whole index's form, and `rank.search` runs on it (`match.js` alike).

Every fragment is a script, `ERRORSITE_SHARD("<name>",<JSON>);`, so that a page opened from
file:// loads it with a script tag. Which fragments exist depends on the number of records
alone, so a build knows them before it makes the index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..scriptdata import script_safe
from .index import INDEX_VERSION, Row, SearchIndex, Template, field_positions, load_index, segments
from .match import forms_of
from .paste import group_members, held_messages, page_ids, read_paste
from .template import compile_template, first_word
from .text import tokenize
from .rank import answer_places, candidate_rows, search
from .words import MAX_FUZZY_TOKENS, MAX_PREFIX_TERMS, MAX_QUERY_TERMS, query

SHARDS_VERSION = 2
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


KINDS = "finpsv"
"""The families of buckets: templates by first word, ids, rows by line, postings, places by message, vocabulary."""
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
    """Return the bucket of `text` among `count`: a hash of its code points that match.js computes alike."""
    h = 0
    for ch in text:
        h = (h * 31 + ord(ch)) & 0xFFFFFFFF
    return h % count


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
        out[LENGTHS] = encode_numbers(row[at["dl"]] for row in rows)
    for d, row in enumerate(rows):
        if f"{FOLDER}r/{d}.js" in wanted:
            out[f"{FOLDER}r/{d}.js"] = row
    terms: list[str] = index["terms"]

    def want(kind: str, key: str) -> str | None:
        path = f"{FOLDER}{kind}/{bucket(key, count * spread(kind))}.js"
        return path if path in wanted else None

    firsts: set[str] = set()
    places: dict[str, list[str]] = {}
    by_rows = any(p.startswith(tuple(f"{FOLDER}{kind}/" for kind in "finsv")) for p in wanted)
    for d, row in enumerate(rows if by_rows else ()):
        row_id = row[at["id"]]
        for k, (first, pattern, reprs, message) in enumerate(_templates(row, at)):
            ids = places.setdefault(message_key(row[at["exception"]], message), [])
            if row_id not in ids[-1:]:
                ids.append(row_id)
            if not first:
                continue
            firsts.add(first)
            path = want("f", first)
            if path:
                out.setdefault(path, {}).setdefault(first, []).append([d, k, pattern, reprs])
        path = want("i", row_id)
        if path:
            out.setdefault(path, {})[row_id] = d
        path = want("n", str(row[at["line"]]))
        if path and row[at["path"]]:
            relays = 1 if row[at["pattern"]] == [0] else 0
            out.setdefault(path, {}).setdefault(str(row[at["line"]]), []).append([d, row[at["path"]], relays])
    for key, ids in places.items():
        path = want("s", key)
        if path and len(ids) > 1:
            out.setdefault(path, {})[key] = ids
    for t, term in enumerate(terms):
        path = want("p", term)
        if path:
            out.setdefault(path, {})[term] = [index["idf"][t], encode_numbers(index["postings"][t])]
        path = want("v", term[:PREFIX])
        if path:
            out.setdefault(path, {"terms": [], "first": []})["terms"].append(term)
            if term in firsts:
                out[path]["first"].append(term)
        if term.isascii() and length_name(len(term)) in wanted:
            out.setdefault(length_name(len(term)), []).append(term)
    empty: dict[str, Any] = {"f": {}, "i": {}, "n": {}, "p": {}, "s": {}, "v": {"terms": [], "first": []}, "l": []}
    return {path: script(path[len(FOLDER):-3], out[path] if path in out else empty[path.split("/")[1]])
            for path in sorted(wanted)}


def readable(manifest: Any) -> bool:
    """Return whether a manifest is of the fragments this errorsite writes and reads."""
    return isinstance(manifest, dict) and manifest.get("version") == SHARDS_VERSION \
        and manifest.get("index") == INDEX_VERSION


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
        out |= {f"{FOLDER}p/{bucket(term, count)}.js", f"{FOLDER}v/{bucket(term[:PREFIX], count)}.js"}
        if term.isascii():
            out.add(length_name(len(term)))
    for entry in (e for change in changes for e in change):
        out.add(f"{FOLDER}r/{position[entry['id']]}.js")
        out.add(f"{FOLDER}n/{bucket(str(entry.get('line') or 0), count)}.js")
        for message in (entry["message"], *entry["variants"]):
            out.add(f"{FOLDER}s/{bucket(message_key(entry['exception'], message), count)}.js")
            first = first_word(compile_template(message))
            if first:
                out |= {f"{FOLDER}f/{bucket(first, count * TEMPLATE_SPREAD)}.js",
                        f"{FOLDER}v/{bucket(first[:PREFIX], count)}.js"}
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
    lines: set[int]
    """The lines of its traceback's frames, chained ones included."""


def _plan(text: str) -> Plan:
    paste = read_paste(text)
    forms = forms_of(paste)
    tokens = tokenize(forms[0].norm)
    words = list(dict.fromkeys(w for w, _, _ in tokens))[:MAX_QUERY_TERMS]
    typing = bool(tokens) and tokens[-1][2] == len(forms[0].norm) and tokens[-1][0] == words[-1]
    lines = {f.line for frames in (paste.frames, *paste.causes) for f in frames} if paste.frames else set()
    return Plan(text, forms[0].norm, words, typing, {w for form in forms for w, _, _ in tokenize(form.norm)}, lines)


def load_for(read: Read, text: str, limit: int = 10) -> Loaded:
    """Return the part of the index that a search of `text` for `limit` results needs, read fragment by fragment
    (of a `readable` manifest).

    Steps, as match.js takes them, each for every part of an exception group's output (or each
    message an error holds, and the whole text): the
    manifest; the vocabulary of the paste's words, the rows' lengths, the ids the paste links to
    and the rows at its traceback's lines; the postings of its words (and of the completions of a
    word being typed), the templates whose first word it has, and the ASCII terms of the lengths
    near spellings need; the postings of those near spellings; then, of the rows that a template
    matched, the traceback names, the words reached among the best `limit`, or the paste links to,
    each row; last, the other records that raise those rows' messages.
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

    def path(kind: str, key: str) -> str:
        return f"{FOLDER}{kind}/{bucket(key, count * spread(kind))}.js"

    vocabulary: dict[str, dict[str, Any]] = {}
    for p in sorted({path("v", w[:PREFIX]) for w in present}):
        vocabulary[p] = get(p)
    lengths = decode_numbers(get(LENGTHS)) if n else []
    linked: dict[str, int] = {}
    for p in sorted({path("i", i) for i in ids}):
        linked.update({i: d for i, d in get(p).items() if i in ids})
    lines = {line for plan in plans for line in plan.lines}
    raises: dict[int, tuple[str, int, bool]] = {}
    for p in sorted({path("n", str(line)) for line in lines}):
        for line, found in get(p).items():
            if int(line) in lines:
                raises.update({d: (where, int(line), bool(relays)) for d, where, relays in found})

    def known(word: str) -> bool:
        return word in vocabulary[path("v", word[:PREFIX])]["terms"]

    terms = {t for v in vocabulary.values() for t in v["terms"]}
    needed: set[str] = set()
    fuzzy: set[str] = set()
    for plan in plans:
        needed |= {w for w in plan.words if known(w)}
        last = plan.words[-1] if plan.words else ""
        if plan.typing and len(last) >= 3:
            needed |= set([t for t in vocabulary[path("v", last[:PREFIX])]["terms"] if t.startswith(last) and t != last]
                          [:MAX_PREFIX_TERMS])
        fuzzy |= set([w for w in plan.words if not known(w) and len(w) >= 4 and w.isascii() and not w.isdigit()]
                     [:MAX_FUZZY_TOKENS])
    for p in sorted({length_name(m) for w in fuzzy for m in range(len(w) - 2, len(w) + 3)}):
        terms.update(get(p))
    firsts = {w for w in present if w in vocabulary[path("v", w[:PREFIX])]["first"]}
    templates: dict[int, list[tuple[int, str, Any, Any]]] = {}
    for p in sorted({path("f", w) for w in firsts}):
        for first, entries in get(p).items():
            if first in firsts:
                for d, k, pattern, reprs in entries:
                    templates.setdefault(d, []).append((k, first, pattern, reprs))
    postings: dict[str, list[Any]] = {}
    for p in sorted({path("p", t) for t in needed}):
        postings.update(get(p))
    sub = SubIndex(manifest, sorted(terms))
    if fuzzy:
        vocab = sub.vocabulary()
        near = {sub.terms[e.term] for plan in plans for token in query(vocab, plan.query) for e in token.expansions}
        for p in sorted({path("p", t) for t in near - postings.keys()}):
            postings.update(get(p))
    stubs = sub.searchable(postings, lengths, templates, linked, raises)
    rows = sorted({d for plan in plans for d in candidate_rows(stubs, plan.text, limit)})
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

    def _stubs(self, lengths: list[int], templates: dict[int, list[tuple[int, str, Any, Any]]],
               linked: dict[str, int], raises: dict[int, tuple[str, int, bool]]) -> tuple[Row, ...]:
        """Return a row per record, with only what finds the rows that can be results: length, the templates the
        paste's words start, linked id, and the place of a raise the traceback may name.

        Rows of none of these are only their length, and share one object a length."""
        ids = {d: i for i, d in linked.items()}
        plain: dict[int, Row] = {}
        out = []
        for d, length in enumerate(lengths):
            found = templates.get(d)
            if not found and d not in ids and d not in raises:
                if length not in plain:
                    plain[length] = Row("", "", "", "", 0, "", False, False, length, (), False)
                out.append(plain[length])
                continue
            where, line, relays = raises.get(d, ("", 0, False))
            # A template the paste's words do not start is never tried: it stands in only for its place.
            tpls = [Template("", [None] if relays and k == 0 else [""], (), "", ())
                    for k in range(1 + max((k for k, *_ in found or ()), default=0))]
            for k, first, pattern, reprs in found or ():
                tpls[k] = Template("", segments(pattern), (), first, tuple(reprs))
            out.append(Row(ids.get(d, ""), "", "", where, line, "", False, False, length, tuple(tpls), False))
        return tuple(out)

    def _lists(self, postings: dict[str, list[Any]], keep: Callable[[list[int]], list[int]]) -> tuple[list[list[int]], list[float]]:
        lists = [keep(decode_numbers(postings[t][1])) if t in postings else [] for t in self.terms]
        return lists, [postings[t][0] if t in postings else 0.0 for t in self.terms]

    def vocabulary(self) -> SearchIndex:
        """Return an index of no rows with the terms loaded: enough to expand the words of a query."""
        return load_index(self._index([], [[] for _ in self.terms], [0.0] * len(self.terms)))

    def searchable(self, postings: dict[str, list[Any]], lengths: list[int],
                   templates: dict[int, list[tuple[int, str, Any, Any]]], linked: dict[str, int],
                   raises: dict[int, tuple[str, int, bool]]) -> SearchIndex:
        """Return an index of every record, each with only what finds the rows that can be results (`_stubs`)."""
        lists, idf = self._lists(postings, lambda p: p)
        vocabulary = self.vocabulary()
        return SearchIndex(self._stubs(lengths, templates, linked, raises), vocabulary.terms, vocabulary.number, idf,
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
