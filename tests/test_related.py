"""Related errors: hand-picked first, then suggestions by place, tags and wording, at most eight."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from errorsite.model import Record, Snippet, Source
from errorsite.search.related import MAX_RELATED, RARE, Link, message_words, related_links, relink
from errorsite.summary import summarize


def related_map(records: list[Record]) -> dict[str, tuple[Link, ...]]:
    """Return the related errors of every record."""
    return related_links({r.id: summarize(r) for r in records})


def record(rid: str, path: str = "a.py", line: int = 1, function: str | None = "f", tags: tuple[str, ...] = (),
           message: str = "something failed", related: tuple[str, ...] = (), status: str = "active") -> Record:
    source = Source("o/r", "abcdef1", path, line, function, Snippet(line, "raise X"))
    return Record(rid, "ValueError", message, message, source, tags=tags, related=related, status=status)


def test_hand_picked_first_then_automatic_by_closeness() -> None:
    records = [
        record("me", related=("far",)),
        record("far", path="z.py", function="g", message="unrelated words entirely"),
        record("same-function", line=5),
        record("same-file", line=9, function="h", message="other text here"),
        record("same-tag", path="b.py", tags=("t",), message="nothing alike"),
    ]
    records[0] = record("me", related=("far",), tags=("t",))
    result = related_map(records)["me"]
    assert [(r.id, r.automatic) for r in result] == [
        ("far", False), ("same-function", True), ("same-file", True), ("same-tag", True)]


def test_similar_messages_relate_across_files() -> None:
    records = [record("a", message="page_size must be a power of two, got {n}"),
               record("b", path="z.py", function="g", message="block_size must be a power of two, got {n}"),
               record("c", path="y.py", function="k", message="completely different")]
    assert [r.id for r in related_map(records)["a"]] == ["b"]


def test_no_duplicates_no_self_no_removed_at_most_eight() -> None:
    records = [record(f"r{i:02}", line=i) for i in range(20)] + [record("gone", status="removed")]
    records[0] = record("r00", related=("r05", "r05"))
    result = related_map(records)["r00"]
    ids = [r.id for r in result]
    assert len(ids) == MAX_RELATED == len(set(ids))
    assert ids[0] == "r05" and "r00" not in ids and "gone" not in ids


def test_message_words_read_the_template_as_matching_does() -> None:
    # `{{literal}}` is literal text and `%(name)s` a placeholder, as for the page and the index.
    assert message_words("expected {{literal}} braces, got %(name)s") == ("braces", "expected", "got", "literal")
    assert message_words("{x!r} is not {kind:>{width}}, 50% done") == ("done", "not")


def test_records_sharing_only_a_placeholder_name_are_not_related_by_wording() -> None:
    records = [record("a", path="a.py", message="cannot open %(filename)s"),
               record("b", path="b.py", function="g", message="%(filename)s, the file, broke")]
    assert related_map(records)["a"] == ()


WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]


def random_record(rng: random.Random, rid: str) -> Record:
    """Return a record with a random place, tags, wording, status and related ids."""
    words = " ".join(rng.sample(WORDS, rng.randint(0, 3)))
    return record(rid, path=rng.choice(["a.py", "b.py", "c.py"]), line=rng.randint(1, 40),
                  function=rng.choice(["f", "g", None]), tags=tuple(rng.sample(["t", "u", "v"], rng.randint(0, 2))),
                  message=f"{words} failed {{x}}", status=rng.choice(["active"] * 5 + ["removed"]),
                  related=tuple(rng.sample([f"r{i}" for i in range(5)], rng.randint(0, 2))))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10**6), st.integers(3, 90), st.integers(1, 4), st.booleans(), st.booleans())
def test_relink_finds_every_list_an_edit_changes(seed: int, size: int, edits: int, common: bool,
                                                 wordless: bool) -> None:
    # Groups of up to 90 records cross RARE (50), so joining or leaving one changes every member;
    # with one tag and one file for all and no words, only places relate records (windows in a file).
    rng = random.Random(seed)

    def made(rid: str) -> Record:
        made = random_record(rng, rid)
        if common:
            made = replace(made, tags=("shared",), source=replace(made.source, path="a.py"))
        return replace(made, message="{x}") if wordless else made

    before = [made(f"r{i}") for i in range(size)]
    after = list(before)
    changed = rng.sample(range(size), min(edits, size))
    for index in changed:
        after[index] = made(before[index].id)
    old = {r.id: summarize(r) for r in before}
    new = {r.id: summarize(r) for r in after}
    was, now = related_links(old), related_links(new)
    found = relink(old, new, [before[i].id for i in changed])
    assert all(found[i] == now[i] for i in found)
    assert all(was[i] == now[i] for i in now if i not in found)


def test_a_word_group_crossing_rare_relinks_its_members() -> None:
    records = [record(f"r{i:03}", path=f"p{i}.py", function=None, message="quota reached") for i in range(RARE)]
    records.append(record("odd", path="q.py", function=None, message="nothing alike"))
    old = {r.id: summarize(r) for r in records}
    new = dict(old)
    new["odd"] = summarize(replace(records[-1], message="quota reached"))
    assert related_links(old)["r000"] and not related_links(new)["r000"]
    assert relink(old, new, ["odd"])["r000"] == ()
