"""Change one record's terms in a built search index, touching only those terms.

`match.build_index` stays the reference: for the same records, `update_index` gives the same
index, value for value, and so the same bytes once serialised.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from itertools import accumulate
from typing import Any

from ..match import _first_word


def update_index(index: dict[str, Any], doc: int, old: dict[str, int], new: dict[str, int]) -> None:
    """Change, in place, the weighted terms of the record at row `doc` from `old` to `new`.

    Only the record's terms may differ: its id, title, message, exception, place and status
    (everything else a row holds) must be those the index was built with.
    """
    terms: list[str] = index["terms"]
    number = {t: i for i, t in enumerate(terms)}
    touched = sorted(t for t in old.keys() | new.keys() if old.get(t) != new.get(t))
    postings = {t: _patched(index["postings"][number[t]] if t in number else [], doc, min(new.get(t, 0), 7))
                for t in touched}
    rows = index["records"]
    rows[doc][6] = sum(new.values())
    n = len(rows)
    index["avgdl"] = round(sum(row[6] for row in rows) / n, 4)
    if all((t in number) == bool(posting) for t, posting in postings.items()):
        for term, posting in postings.items():
            index["postings"][number[term]] = posting
            index["idf"][number[term]] = _idf(n, len(posting))
        return
    _renumber(index, postings)


def _renumber(index: dict[str, Any], changed: dict[str, list[int]]) -> None:
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
        if row[7] >= 0:
            word = old_terms[row[7]]
        else:
            # Its first word was no term before; it may be one now.
            word = _first_word([None if s == 0 else s for s in row[8]])
        row[7] = number.get(word, -1)
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
