"""Change some records of a built search index, touching only what they change.

`search.index.build_index` stays the reference: for the same records, a patched index is the same
index, value for value, and so the same bytes once serialised (`tests/test_reindex.py`).
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from typing import Any

from ..search.index import average_length, build_index, idf, joined_script, json_line, split_script
from .state import Search


def patch_script(script: bytes, changes: list[tuple[Search, Search]]) -> bytes | None:
    """Return the script `script` of an index with each record changed from the first to the second of `changes`.

    Only the changed records' lines are made again; the others keep their bytes. None when the
    script is not an index that `search.index.index_script` wrote, or lacks a changed record.
    """
    found = split_script(script)
    if found is None:
        return None
    head, lines = found
    for before, after in changes:
        if not replace_record(head, lines["records"], lines["postings"], after.entry, before.terms, after.terms):
            return None
    return joined_script(head, lines)


def replace_record(head: dict[str, Any], rows: list[bytes], postings: list[bytes], entry: dict[str, Any],
                   old: dict[str, int], new: dict[str, int]) -> bool:
    """Change, in place, the record of `entry`'s id from weighted terms `old` to `entry` with terms `new`.

    `head` is the index without its long lists, `rows` and `postings` the lines of those (see
    `search.index.split_script`). Every other row stays as it is. False when the index holds no
    row of that id.
    """
    # Each line opens with its row's id, and the lines are in id order: `["id"` sorts just before its line.
    opening = b'["' + entry["id"].encode() + b'"'
    doc = bisect_left(rows, opening)
    if doc == len(rows) or not rows[doc].startswith(opening + b","):
        return False
    update_index(head, postings, doc, len(rows), old, new)
    rows[doc] = json_line(build_index([entry], lambda _: new, head["base_url"])["records"][0])
    return True


def update_index(head: dict[str, Any], postings: list[bytes], doc: int, n: int, old: dict[str, int],
                 new: dict[str, int]) -> None:
    """Change, in place, the terms of the index `head` (without its long lists; `postings` the lines of
    its postings) of `n` records for the record at row `doc` from `old` to `new`: postings, term list, lengths."""
    import orjson

    terms: list[str] = head["terms"]
    number = {t: i for i, t in enumerate(terms)}
    touched = sorted(t for t in old.keys() | new.keys() if old.get(t) != new.get(t))
    changed = {t: _patched(orjson.loads(postings[number[t]]) if t in number else [], doc, min(new.get(t, 0), 7))
               for t in touched}
    head["dl_sum"] += sum(new.values()) - sum(old.values())
    head["avgdl"] = average_length(head["dl_sum"], n)
    idfs: list[float] = head["idf"]
    for term, posting in changed.items():
        if term in number:
            postings[number[term]] = json_line(posting)
            idfs[number[term]] = idf(n, len(posting))
    if any((t in number) != bool(posting) for t, posting in changed.items()):
        _renumber(head, postings, n, {t: posting for t, posting in changed.items() if (t in number) != bool(posting)})


def _renumber(head: dict[str, Any], postings: list[bytes], n: int, changed: dict[str, list[int]]) -> None:
    """Make the term list of an index of `n` records again when the terms of `changed` appear (with their
    posting) or vanish (with none); rows name their first word, not its number, so no row changes."""
    known = dict(zip(head["terms"], zip(postings, head["idf"])))
    for term, posting in changed.items():
        if posting:
            known[term] = (json_line(posting), idf(n, len(posting)))
        else:
            del known[term]
    terms = sorted(known)
    head["terms"] = terms
    postings[:] = [known[t][0] for t in terms]
    head["idf"] = [known[t][1] for t in terms]


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

