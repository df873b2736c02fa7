"""errorsite edit: a record's prose as one Markdown document, and back, through a real editor process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from errorsite import cli, edit
from errorsite.problems import Invalid, Problem, UserError

from conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent

EDITOR = '''\
import json, os, pathlib, sys, time
path = pathlib.Path(sys.argv[1])
plan = json.loads(os.environ["EDIT_PLAN"])
count = pathlib.Path(os.environ["EDIT_COUNT"])
run = int(count.read_text()) if count.exists() else 0
count.write_text(str(run + 1))
step = plan[min(run, len(plan) - 1)]
text = path.read_text(encoding="utf-8")
for old, new in step.get("replace", []):
    assert old in text, old
    text = text.replace(old, new)
for old, new, times in step.get("grow", []):
    text = text.replace(old, old + new * times)
path.write_text(text, encoding=step.get("encoding", "utf-8"))
if "peek" in step:
    time.sleep(1.5)
    pathlib.Path(step["peek"]).write_bytes(pathlib.Path(step["record"]).read_bytes())
if "remove" in step:
    time.sleep(step["remove"])
    path.unlink()
sys.exit(step.get("exit", 0))
'''


def all_records() -> list[tuple[str, dict[str, Any]]]:
    paths = sorted((ROOT / "content" / "errors").glob("*.json")) + sorted((FIXTURES / "basic" / "errors").glob("*.json"))
    return [(p.name, json.loads(p.read_text(encoding="utf-8"))) for p in paths]


@pytest.mark.parametrize(("name", "data"), all_records(), ids=[n for n, _ in all_records()])
def test_every_record_comes_back_from_its_document_identical(name: str, data: dict[str, Any]) -> None:
    back = edit.parse(edit.document(data), data)
    assert json.dumps(back, ensure_ascii=False) == json.dumps(data, ensure_ascii=False)


TRICKY = {
    "id": "tricky", "exception": "ValueError", "message": "bad {x} --> {y}",
    "source": {"commit": "abcdef1", "path": "a.py", "line": 1, "snippet": {"start": 1, "code": "raise X\n"}},
    "title": "A title",
    "meaning": "# Solutions\n\n\\# Solutions\n\n## Solution 3\n\n# Titel\n\n```\n# What it means\n```\n",
    "solutions": ["One\n\n## Solution 2 is not a heading here", "Two\n\n\n  indented"],
    "example_fix": {"before": "\n  x --flag\n", "after": "y", "check": {"before": "false", "after": "true"}},
    "when": {"situations": "Only situations."},
    "related": ["other"], "tags": ["a-b", "c"],
    "analysis": {"by": "ai-assisted", "model": "m 1", "date": "2026-01-02", "commit": "abcdef1",
                 "reviewed": {"by": "Ada Lovelace", "date": "2026-01-03"}, "note": "n"},
    "review": {"since": "abcdef2", "why": "code changed"},
}


def test_headings_inside_fields_blank_ends_and_what_the_code_owns_survive() -> None:
    text = edit.document(TRICKY)
    assert "\\# Solutions\n\n\\\\# Solutions\n\n\\## Solution 3" in text
    assert "bad {x} --&gt; {y}" in text and '"source"' not in text and "raise X" not in text
    assert edit.parse(text, TRICKY) == TRICKY


def test_an_edited_document_changes_only_what_was_edited() -> None:
    text = edit.document(TRICKY).replace("Only situations.", "Other situations.").replace(
        "## Solution 2\n\nTwo", "## Solution 2\n\nSecond").replace("- c\n", "")
    text = text.replace("reviewed by: Ada Lovelace\n", "")
    back = edit.parse(text, TRICKY)
    assert back["when"] == {"situations": "Other situations."}
    assert back["solutions"][1] == "Second\n\n\n  indented" and back["tags"] == ["a-b"]
    assert back["analysis"]["reviewed"] == {"date": "2026-01-03"}
    assert back["example_fix"]["check"] == TRICKY["example_fix"]["check"]
    emptied = edit.parse(edit.document(TRICKY).replace("review: code changed since abcdef2\n", ""), TRICKY)
    assert "review" not in emptied


@pytest.mark.parametrize(("change", "reason"), [
    (("# Title", "# Titel"), "unknown heading '# Titel'"),
    (("## Solution 1", "Stray text\n\n## Solution 1"), "text directly under '# Solutions'"),
    (("# Tags\n\n- a-b", "# Tags\n\na-b"), "'a-b' under '# Tags' is not a list item"),
    (("model: m 1", "modell: m 1"), "'modell: m 1' is not a provenance line"),
    (("## Trigger", "## Before"), "'## Before' is not a part of # When it happens"),
])
def test_a_document_it_cannot_read_says_where(change: tuple[str, str], reason: str) -> None:
    text = edit.document(TRICKY).replace(*change, 1)
    with pytest.raises(Invalid) as bad:
        edit.parse(text, TRICKY)
    assert reason in bad.value.message and bad.value.message.startswith("line ")
    assert bad.value.page == "edit-bad-document"


def test_a_section_twice_is_refused() -> None:
    with pytest.raises(Invalid, match="appears twice"):
        edit.parse(edit.document(TRICKY) + "\n# Title\n\nAgain\n", TRICKY)


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    script = tmp_path / "fake_editor.py"
    script.write_text(EDITOR, encoding="utf-8")
    monkeypatch.setenv("EDIT_COUNT", str(tmp_path / "count"))

    def plan(*steps: dict[str, Any]) -> str:
        monkeypatch.setenv("EDIT_PLAN", json.dumps(list(steps)))
        return f"{sys.executable} {script}"

    return plan


def record_path(content: Path, record_id: str = "batch-tokens-multiple") -> Path:
    return content / "errors" / f"{record_id}.json"


def test_writing_a_skeletons_meaning_through_the_editor(content: Path, editor: Any) -> None:
    command = editor({"replace": [("# What it means\n\n", "# What it means\n\nThe batch is `{}` tokens.\n\n")]})
    before = json.loads(record_path(content).read_text())
    result = edit.edit(content, "batch-tokens-multiple", command, lambda problems: "k")
    assert result.written
    after = json.loads(record_path(content).read_text())
    assert after.pop("meaning") == "The batch is `{}` tokens."
    assert after == before


def test_an_unchanged_document_writes_nothing(content: Path, editor: Any) -> None:
    data = record_path(content, "batch-tokens-below-chunk").read_bytes()
    result = edit.edit(content, "batch-tokens-below-chunk", editor({}), lambda problems: "k")
    assert not result.written and record_path(content, "batch-tokens-below-chunk").read_bytes() == data


def test_an_invalid_edit_is_offered_again_then_written(content: Path, editor: Any) -> None:
    asked: list[list[Problem]] = []
    command = editor({"replace": [("# Related\n\n", "# Related\n\n- no-such-id\n\n")]},
                     {"replace": [("- no-such-id", "- batch-tokens-below-chunk")]})
    original = record_path(content).read_bytes()

    def ask(problems: list[Problem]) -> str:
        asked.append(problems)
        assert record_path(content).read_bytes() == original  # the bad edit never reached the file
        return "e"

    assert edit.edit(content, "batch-tokens-multiple", command, ask).written
    assert [(p.pointer, p.reason) for p in asked[0]] == [("/related/0", "no record has the id 'no-such-id'")]
    assert json.loads(record_path(content).read_text())["related"] == ["batch-tokens-below-chunk"]


def test_an_invalid_edit_kept_as_a_copy_loses_nothing(content: Path, editor: Any) -> None:
    command = editor({"replace": [("# What it means\n\n", "# What it means\n\nMy careful words.\n\n"),
                                  ("# Tags\n\n- batching", "# Tags\n\n- Not A Slug")]})
    original = record_path(content).read_bytes()
    with pytest.raises(UserError) as stopped:
        edit.edit(content, "batch-tokens-multiple", command, lambda problems: "k")
    assert stopped.value.page == "edit-not-written"
    copy = content.parent / "batch-tokens-multiple.edit.md"
    assert str(copy) in stopped.value.message and "My careful words." in copy.read_text()
    assert record_path(content).read_bytes() == original


def test_serve_sees_each_valid_save_and_a_failed_editor_puts_the_file_back(content: Path, editor: Any,
                                                                             tmp_path: Path) -> None:
    peek = tmp_path / "seen-while-editing.json"
    original = record_path(content).read_bytes()
    command = editor({"replace": [("# What it means\n\n", "# What it means\n\nPreview me.\n\n")],
                      "peek": str(peek), "record": str(record_path(content)), "exit": 1})
    with pytest.raises(UserError) as failed:
        edit.edit(content, "batch-tokens-multiple", command, lambda problems: "k")
    assert failed.value.page == "editor-failed" and "status 1" in failed.value.message
    assert json.loads(peek.read_text())["meaning"] == "Preview me."
    assert record_path(content).read_bytes() == original


def test_the_command_line_edits_with_visual_or_editor(content: Path, editor: Any, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor({"replace": [("# Title\n\n", "# Title\n\nBatch tokens not a multiple of 8\n\n")]}))
    assert cli.main(["edit", "--content", str(content), "batch-tokens-multiple"]) == 0
    assert capsys.readouterr().out.startswith("wrote ")
    assert json.loads(record_path(content).read_text())["title"] == "Batch tokens not a multiple of 8"
    assert cli.main(["edit", "--content", str(content), "batch-token-multiple"]) == 1
    assert "did you mean 'batch-tokens-multiple'?" in capsys.readouterr().err
    assert edit.editor_command({"EDITOR": "nano", "VISUAL": "code --wait"}) == "code --wait"
    assert edit.editor_command({}) == "vi"


def test_a_hand_formatted_file_keeps_its_layout(content: Path, editor: Any) -> None:
    path = record_path(content)
    data = json.loads(path.read_text())
    path.write_text(json.dumps(data, indent=4) + "\n")
    before = path.read_text().splitlines()
    command = editor({"replace": [("# What it means\n\n", "# What it means\n\nExplained.\n\n")]})
    assert edit.edit(content, "batch-tokens-multiple", command, lambda problems: "k").written
    after = path.read_text().splitlines()
    assert '    "meaning": "Explained.",' in after
    assert [line for line in after if "meaning" not in line] == before


def test_the_kept_copy_is_never_written_through_a_link_placed_at_its_name(content: Path, editor: Any,
                                                                           tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    (content.parent / "batch-tokens-multiple.edit.md").symlink_to(outside)  # dangling: its target does not exist
    command = editor({"replace": [("# Tags\n\n- batching", "# Tags\n\n- Not A Slug")]})
    with pytest.raises(UserError) as stopped:
        edit.edit(content, "batch-tokens-multiple", command, lambda problems: "k")
    assert not outside.exists()
    copy = content.parent / "batch-tokens-multiple.edit-2.md"
    assert str(copy) in stopped.value.message and "Not A Slug" in copy.read_text()


def test_an_edit_larger_than_check_reads_is_not_written(content: Path, editor: Any) -> None:
    asked: list[list[Problem]] = []
    command = editor({"grow": [("# What it means\n\n", "Far too many words. ", 60_000)]})
    original = record_path(content).read_bytes()

    def ask(problems: list[Problem]) -> str:
        asked.append(problems)
        return "k"

    with pytest.raises(UserError) as stopped:
        edit.edit(content, "batch-tokens-multiple", command, ask)
    assert stopped.value.page == "edit-not-written"
    [[problem]] = asked
    assert problem.page == "file-too-large"
    assert problem.reason.endswith(" bytes; errorsite check reads at most 1,048,576 of a record file")
    assert record_path(content).read_bytes() == original
    assert cli.main(["check", "--content", str(content)]) == 0


def test_a_document_saved_in_another_encoding_is_kept_as_saved(content: Path, editor: Any,
                                                               capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDITOR", editor({"replace": [("# What it means\n\n", "# What it means\n\nCafé au lait.\n\n")],
                                         "encoding": "latin-1"}))
    monkeypatch.delenv("VISUAL", raising=False)
    original = record_path(content).read_bytes()
    assert cli.main(["edit", "--content", str(content), "batch-tokens-multiple"]) == 1
    err = capsys.readouterr().err
    copy = content.parent / "batch-tokens-multiple.edit.md"
    assert ("error: the editor saved the document in an encoding other than UTF-8 (byte 0xe9 at line "
            f"{edit.document(json.loads(original)).split(chr(10)).index('# What it means') + 3}); the record was not written and your text is "
            f"kept, as saved, in {copy}") in err
    assert "/errors/edit-document-unreadable/" in err and "this is a bug" not in err
    assert b"Caf\xe9 au lait." in copy.read_bytes()
    assert record_path(content).read_bytes() == original


@pytest.mark.parametrize("saved_first", [True, False])
def test_a_document_the_editor_removed_keeps_what_was_saved(content: Path, editor: Any, saved_first: bool) -> None:
    change = [("# What it means\n\n", "# What it means\n\nMy careful words.\n\n")] if saved_first else []
    # The editor saves, waits for errorsite to see the save, then removes the document.
    command = editor({"replace": change, "remove": 1.5 if saved_first else 0})
    original = record_path(content).read_bytes()
    with pytest.raises(UserError) as lost:
        edit.edit(content, "batch-tokens-multiple", command, lambda problems: "k")
    assert lost.value.page == "edit-document-removed"
    assert lost.value.message.startswith("the editor removed the document ")
    copy = content.parent / "batch-tokens-multiple.edit.md"
    if saved_first:
        assert lost.value.message.endswith(f"the record was not written and your text as last saved is kept in {copy}")
        assert "My careful words." in copy.read_text(encoding="utf-8")
    else:
        assert lost.value.message.endswith("the record was not written and no change to it had been saved")
        assert not copy.exists()
    assert record_path(content).read_bytes() == original


def test_a_document_saved_as_utf8_with_a_byte_order_mark_is_read(content: Path, editor: Any) -> None:
    command = editor({"replace": [("# What it means\n\n", "# What it means\n\nCafé.\n\n")], "encoding": "utf-8-sig"})
    assert edit.edit(content, "batch-tokens-multiple", command, lambda problems: "k").written
    assert json.loads(record_path(content).read_text(encoding="utf-8"))["meaning"] == "Café."
