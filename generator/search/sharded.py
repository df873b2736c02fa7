"""A search over the index's fragments (`shards`): what one search loads of them, in the steps match.js takes
(`load_for`), and its results, the whole index's value for value (`search_loaded`).

`lookup` and `explain` read a built site this way; the site's search page does the same in match.js
(`loadFor`), and tests/test_match.py checks that both load the same fragments and give the same answers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .index import INDEX_VERSION, Row, SearchIndex, Template, field_positions, load_index
from .match import anchored, forms_of
from .paste import group_members, held_messages, page_ids, read_paste
from .rank import answer_places, candidate_rows, search
from .shards import (FOLDER, LENGTHS, MANIFEST, PREFIX, bucket, decode_lengths, decode_numbers, length_name,
                     message_key, raise_key, row_templates, spread)
from .text import tokenize
from .words import MAX_FUZZY_TOKENS, MAX_PREFIX_TERMS, MAX_QUERY_TERMS, fuzzy_limit, query


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
            for *_, message in row_templates(row, at)}
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
