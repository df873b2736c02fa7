"""Change some records of a built search index, touching only what they change.

`match.build_index` stays the reference: for the same records, a patched index is the same
index, value for value, and so the same bytes once serialised (`tests/test_reindex.py`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from itertools import accumulate
from typing import Any

from .. import match, render
from .state import Search


def patch_script(index: dict[str, Any], changes: list[tuple[Search, Search]]) -> bytes:
    """Return the script of `index` with each record changed from the first to the second of `changes`."""
    for before, after in changes:
        replace_record(index, after.entry, before.terms, after.terms)
    return render.search_script(index)


def replace_record(index: dict[str, Any], entry: dict[str, Any], old: dict[str, int], new: dict[str, int]) -> None:
    """Change, in place, the record of `entry`'s id from weighted terms `old` to `entry` with terms `new`.

    The index must hold a row for that id already; every other row stays as it is.
    """
    fields: list[str] = index["fields"]
    doc = bisect_left([row[0] for row in index["records"]], entry["id"])
    update_index(index, doc, old, new)
    # The row's own values depend on the record alone, but for the number of its first word.
    row = match.build_index([entry], lambda _: new, index["base_url"])["records"][0]
    pattern = row[fields.index("pattern")]
    word = match._first_word([None if s == 0 else s for s in pattern])
    terms: list[str] = index["terms"]
    at = bisect_left(terms, word)
    row[fields.index("first")] = at if word and at < len(terms) and terms[at] == word else -1
    index["records"][doc] = row


def update_index(index: dict[str, Any], doc: int, old: dict[str, int], new: dict[str, int]) -> None:
    """Change, in place, the weighted terms of the record at row `doc` from `old` to `new`.

    Only the record's terms change: its other values stay those the index was built with.
    """
    fields: list[str] = index["fields"]
    length, first = fields.index("dl"), fields.index("first")
    terms: list[str] = index["terms"]
    number = {t: i for i, t in enumerate(terms)}
    touched = sorted(t for t in old.keys() | new.keys() if old.get(t) != new.get(t))
    postings = {t: _patched(index["postings"][number[t]] if t in number else [], doc, min(new.get(t, 0), 7))
                for t in touched}
    rows = index["records"]
    rows[doc][length] = sum(new.values())
    n = len(rows)
    index["avgdl"] = round(sum(row[length] for row in rows) / n, 4)
    if all((t in number) == bool(posting) for t, posting in postings.items()):
        for term, posting in postings.items():
            index["postings"][number[term]] = posting
            index["idf"][number[term]] = _idf(n, len(posting))
        return
    _renumber(index, postings, first, fields.index("pattern"))


def _renumber(index: dict[str, Any], changed: dict[str, list[int]], first: int, pattern: int) -> None:
    """Rebuild the term list when terms appear or vanish, and every reference to a term's number."""
    old_terms: list[str] = index["terms"]
    postings = dict(zip(old_terms, index["postings"]))
    idf = dict(zip(old_terms, index["idf"]))
    n = len(index["records"])
    for term, posting in changed.items():
        postings[term] = posting
        idf[term] = _idf(n, len(posting))
    terms = sorted(t for t, p in postings.items() if p)
    number = {t: i for i, t in enumerate(terms)}
    for row in index["records"]:
        if row[first] >= 0:
            word = old_terms[row[first]]
        else:
            # Its first word was no term before; it may be one now.
            word = match._first_word([None if s == 0 else s for s in row[pattern]])
        row[first] = number.get(word, -1)
    index["terms"] = terms
    index["postings"] = [postings[t] for t in terms]
    index["idf"] = [idf[t] for t in terms]


def _patched(posting: list[int], doc: int, weight: int) -> list[int]:
    """Return a term's posting with row `doc` at capped `weight`, or without it when `weight` is 0.

    Each entry is (row - previous row) * 8 + weight: only the entry of `doc` and the one after it change.
    """
    rows = list(accumulate(value // 8 for value in posting))
    at = bisect_left(rows, doc)
    after = at + 1 if at < len(rows) and rows[at] == doc else at
    previous = rows[at - 1] if at else 0
    out = posting[:at]
    if weight:
        out.append((doc - previous) * 8 + weight)
        previous = doc
    if after < len(rows):
        out.append((rows[after] - previous) * 8 + posting[after] % 8)
        out += posting[after + 1 :]
    return out


def _idf(n: int, df: int) -> float:
    return round(math.log(1 + (n - df + 0.5) / (df + 0.5)), 4)
