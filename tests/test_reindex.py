"""Changing one record's terms in an index gives the index build_index makes from scratch."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from generator import match
from generator.build import reindex

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
    index = match.build_index(entries, lambda e: before[e["id"]])
    index = json.loads(json.dumps(index))  # as read back from a built site
    reindex.update_index(index, doc, before[entries[doc]["id"]], new)
    expected = match.build_index(entries, lambda e: after[e["id"]])
    assert json.dumps(index, sort_keys=True) == json.dumps(expected, sort_keys=True)


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
    index = json.loads(json.dumps(match.build_index(entries, lambda e: before[e["id"]], "https://x.test/")))
    reindex.replace_record(index, changed, before[changed["id"]], new)
    expected = match.build_index([changed if e["id"] == changed["id"] else e for e in entries],
                                 lambda e: after[e["id"]], "https://x.test/")
    assert json.dumps(index, sort_keys=True) == json.dumps(expected, sort_keys=True)
