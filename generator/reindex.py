"""Change one record's terms in a built search index, touching only those terms.

`match.build_index` stays the reference: for the same records, `update_index` gives the same
index, value for value, and so the same bytes once serialised.
"""

from __future__ import annotations

import math
from typing import Any

from .match import _first_word


def update_index(index: dict[str, Any], doc: int, old: dict[str, int], new: dict[str, int]) -> None:
    """Change, in place, the weighted terms of the record at row `doc` from `old` to `new`.

    Only the record's terms may differ: its id, title, message, exception, place and status
    (everything else a row holds) must be those the index was built with.
    """
    terms: list[str] = index["terms"]
    number = {t: i for i, t in enumerate(terms)}
    touched = sorted(t for t in old.keys() | new.keys() if old.get(t) != new.get(t))
    docs = {t: _decode(index["postings"][number[t]]) if t in number else {} for t in touched}
    for term in touched:
        docs[term].pop(doc, None)
        if term in new:
            docs[term][doc] = min(new[term], 7)
    rows = index["records"]
    rows[doc][6] = sum(new.values())
    n = len(rows)
    index["avgdl"] = round(sum(row[6] for row in rows) / n, 4)
    if all((t in number) == bool(found) for t, found in docs.items()):
        for term, found in docs.items():
            i = number[term]
            index["postings"][i] = _encode(found)
            index["idf"][i] = _idf(n, len(found))
        return
    _renumber(index, docs)


def _renumber(index: dict[str, Any], docs: dict[str, dict[int, int]]) -> None:
    """Rebuild the term list when terms appear or vanish, and every reference to a term's number."""
    old_terms: list[str] = index["terms"]
    postings = dict(zip(old_terms, index["postings"]))
    idf = dict(zip(old_terms, index["idf"]))
    n = len(index["records"])
    for term, found in docs.items():
        postings[term] = _encode(found)
        idf[term] = _idf(n, len(found))
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


def _decode(posting: list[int]) -> dict[int, int]:
    """Return a term's postings as {row: capped weight}."""
    found, doc = {}, 0
    for value in posting:
        doc += value // 8
        found[doc] = value % 8
    return found


def _encode(found: dict[int, int]) -> list[int]:
    out, last = [], 0
    for doc in sorted(found):
        out.append((doc - last) * 8 + found[doc])
        last = doc
    return out


def _idf(n: int, df: int) -> float:
    return round(math.log(1 + (n - df + 0.5) / (df + 0.5)), 4)
