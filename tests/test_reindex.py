"""Changing one record's terms in an index gives the index build_index makes from scratch."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from errorsite.sitebuild import reindex
from errorsite.sitebuild.state import Search
from errorsite.search.index import build_index, index_script, split_script

WORDS = ["size", "must", "be", "at", "least", "chunk", "page", "x", "{value}", "{{", "%s", "tokens"]
TERMS = ["size", "must", "chunk", "page", "tokens", "least", "alpha", "beta", "zeta"]

messages = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
weights = st.dictionaries(st.sampled_from(TERMS), st.integers(1, 9), max_size=5)


def entry(number: int, message: str) -> dict[str, Any]:
    """Return a search entry of the record `number`."""
    return {"id": f"e{number:02d}", "title": "", "exception": "ValueError", "message": message,
            "path": "a.py", "line": number, "status": "active", "url": f"errors/e{number:02d}/"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(messages, weights), min_size=1, max_size=20), st.integers(0, 19), weights)
def test_update_equals_build(records: list[tuple[str, dict[str, int]]], which: int, new: dict[str, int]) -> None:
    entries = [entry(i, message) for i, (message, _) in enumerate(records)]
    before = {e["id"]: terms for e, (_, terms) in zip(entries, records)}
    doc = which % len(entries)
    after = {**before, entries[doc]["id"]: new}
    split = split_script(index_script(build_index(entries, lambda e: before[e["id"]])))  # as read back from a built site
    assert split is not None
    head, lines = split
    reindex.update_index(head, lines["postings"], doc, len(entries), before[entries[doc]["id"]], new)
    expected = build_index(entries, lambda e: after[e["id"]])
    assert {**head, "postings": [json.loads(line) for line in lines["postings"]]} == \
        {k: v for k, v in expected.items() if k != "records"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(messages, weights), min_size=1, max_size=20), st.integers(0, 19), messages, weights,
       st.sampled_from(["active", "removed"]), st.lists(messages, max_size=2))
def test_replacing_a_record_equals_build(records: list[tuple[str, dict[str, int]]], which: int, message: str,
                                         new: dict[str, int], status: str, variants: list[str]) -> None:
    entries = [entry(i, message) for i, (message, _) in enumerate(records)]
    before = {e["id"]: terms for e, (_, terms) in zip(entries, records)}
    doc = which % len(entries)
    changed = {**entry(doc, message), "title": f"Title {message}", "status": status, "variants": variants,
               "written": bool(variants)}
    after = {**before, changed["id"]: new}
    script = index_script(build_index(entries, lambda e: before[e["id"]], "https://x.test/"))
    patched = reindex.patch_script(script, [(Search({}, before[changed["id"]], ""), Search(changed, new, ""))])
    expected = build_index([changed if e["id"] == changed["id"] else e for e in entries],
                           lambda e: after[e["id"]], "https://x.test/")
    assert patched == index_script(expected)


def test_an_index_script_splits_into_its_rows_and_joins_again_to_the_same_bytes() -> None:
    entries = [{**entry(i, f"size {i} must be <b>"), "title": "<script>"} for i in range(3)]
    script = index_script(build_index(entries, lambda e: {"size": 2}))
    assert b"<" not in script[len(b"window.ERRORSITE_INDEX="):]
    split = split_script(script)
    assert split is not None
    head, lines = split
    assert len(lines["records"]) == 3 and all(line.startswith(b'["e0') for line in lines["records"])
    assert lines["postings"] == [b"[2,10,10]"] and "records" not in head and "postings" not in head
    assert reindex.patch_script(script, []) == script
    # A record the index does not hold, or a script that is not an index, is not patched.
    stranger = Search({**entry(7, "x"), "id": "e07"}, {"x": 1}, "")
    assert reindex.patch_script(script, [(stranger, stranger)]) is None
    assert reindex.patch_script(b"window.X=1;\n", []) is None
