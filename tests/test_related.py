"""Related errors: hand-picked first, then suggestions by place, tags and wording, at most eight."""

from __future__ import annotations

from generator.model import Record, Snippet, Source
from generator.search.related import MAX_RELATED, message_words, related_map


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
    assert [(r.record.id, r.automatic) for r in result] == [
        ("far", False), ("same-function", True), ("same-file", True), ("same-tag", True)]


def test_similar_messages_relate_across_files() -> None:
    records = [record("a", message="page_size must be a power of two, got {n}"),
               record("b", path="z.py", function="g", message="block_size must be a power of two, got {n}"),
               record("c", path="y.py", function="k", message="completely different")]
    assert [r.record.id for r in related_map(records)["a"]] == ["b"]


def test_no_duplicates_no_self_no_removed_at_most_eight() -> None:
    records = [record(f"r{i:02}", line=i) for i in range(20)] + [record("gone", status="removed")]
    records[0] = record("r00", related=("r05", "r05"))
    result = related_map(records)["r00"]
    ids = [r.record.id for r in result]
    assert len(ids) == MAX_RELATED == len(set(ids))
    assert ids[0] == "r05" and "r00" not in ids and "gone" not in ids


def test_message_words_read_the_template_as_matching_does() -> None:
    # `{{literal}}` is literal text and `%(name)s` a placeholder, as for the page and the index.
    assert message_words("expected {{literal}} braces, got %(name)s") == {"expected", "literal", "braces", "got"}
    assert message_words("{x!r} is not {kind:>{width}}, 50% done") == {"not", "done"}


def test_records_sharing_only_a_placeholder_name_are_not_related_by_wording() -> None:
    records = [record("a", path="a.py", message="cannot open %(filename)s"),
               record("b", path="b.py", function="g", message="%(filename)s, the file, broke")]
    assert related_map(records)["a"] == ()
