"""Every rule of the record format: one broken input each, and the problem it gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errorsite import load, validate
from errorsite.problems import ProblemsFound

from conftest import edit_record

GOOD = "batch-tokens-below-chunk"


def problems_of(content: Path) -> list[tuple[str, str, str]]:
    """Return (file name, pointer, page) for every problem of `content`."""
    with pytest.raises(ProblemsFound) as caught:
        validate.build_site(load.load(content))
    return [(Path(p.file).name, p.pointer, p.page) for p in caught.value.problems]


def test_valid_content_gives_a_site(content: Path) -> None:
    site = validate.build_site(load.load(content))
    assert [r.id for r in site.records] == ["batch-tokens-below-chunk", "batch-tokens-multiple", "old-kv-dtype"]
    record = site.by_id[GOOD]
    assert record.source.repo == "example/tinyserve"
    assert record.example_fix is not None and record.example_fix.language == "shell"
    assert site.by_id["batch-tokens-multiple"].title == "max_batch_tokens must be a multiple of 8, got …"


def _set(pointer: str, value: Any):
    def change(data: dict[str, Any]) -> None:
        *parents, last = pointer.strip("/").split("/")
        for key in parents:
            data = data[key]
        data[last] = value
    return change


def _drop(pointer: str):
    def change(data: dict[str, Any]) -> None:
        *parents, last = pointer.strip("/").split("/")
        for key in parents:
            data = data[key]
        del data[last]
    return change


CASES = [
    ("unknown top-level field", _set("/soluton", []), "/soluton", "unknown-field"),
    ("unknown source field", _set("/source/lines", 3), "/source/lines", "unknown-field"),
    ("unknown example_fix field", _set("/example_fix/before_", "x"), "/example_fix/before_", "unknown-field"),
    ("unknown when field", _set("/when/trigers", "x"), "/when/trigers", "unknown-field"),
    ("unknown analysis field", _set("/analysis/who", "x"), "/analysis/who", "unknown-field"),
    ("missing message", _drop("/message"), "/message", "missing-field"),
    ("missing commit", _drop("/source/commit"), "/source/commit", "missing-field"),
    ("missing snippet code", _drop("/source/snippet/code"), "/source/snippet/code", "missing-field"),
    ("missing after", _drop("/example_fix/after"), "/example_fix/after", "missing-field"),
    ("line as string", _set("/source/line", "5"), "/source/line", "wrong-type"),
    ("line as bool", _set("/source/line", True), "/source/line", "wrong-type"),
    ("line as fraction", _set("/source/line", 5.5), "/source/line", "wrong-type"),
    ("line zero", _set("/source/line", 0), "/source/line", "number-too-small"),
    ("solutions not a list", _set("/solutions", "do it"), "/solutions", "wrong-type"),
    ("solution not a string", _set("/solutions", ["ok", 3]), "/solutions/1", "wrong-type"),
    ("empty message", _set("/message", ""), "/message", "empty-string"),
    ("message too long", _set("/message", "x" * 4001), "/message", "string-too-long"),
    ("title too long", _set("/title", "t" * 121), "/title", "string-too-long"),
    ("bad id", _set("/id", "Bad_Id"), "/id", "bad-format"),
    ("id not the file name", _set("/id", "another-id"), "/id", "id-file-mismatch"),
    ("dotted name", _set("/exception", "value error"), "/exception", "bad-format"),
    ("short commit", _set("/source/commit", "abc12"), "/source/commit", "bad-format"),
    ("upper-case commit", _set("/source/commit", "ABCDEF1"), "/source/commit", "bad-format"),
    ("absolute path", _set("/source/path", "/etc/passwd"), "/source/path", "bad-format"),
    ("dot-dot path", _set("/source/path", "a/../../b.py"), "/source/path", "bad-format"),
    ("backslash path", _set("/source/path", "a\\b.py"), "/source/path", "bad-format"),
    ("NUL in path", _set("/source/path", "a\u0000b.py"), "/source/path", "bad-format"),
    ("bad repo", _set("/source/repo", "not a repo"), "/source/repo", "bad-format"),
    ("line after the snippet", _set("/source/line", 99), "/source/line", "line-outside-snippet"),
    ("line before the snippet", _set("/source/snippet/start", 7), "/source/line", "line-outside-snippet"),
    ("bad tag", _set("/tags", ["Has Space"]), "/tags/0", "bad-format"),
    ("bad status", _set("/status", "gone"), "/status", "not-allowed-value"),
    ("bad date", _set("/analysis/date", "1 May 2026"), "/analysis/date", "bad-format"),
    ("unknown related", _set("/related", ["no-such-id"]), "/related/0", "unknown-related"),
    ("self related", _set("/related", [GOOD]), "/related/0", "related-to-itself"),
    ("unknown lexer", _set("/example_fix/language", "no-such-lexer"), "/example_fix/language", "unknown-language"),
    ("record not an object", lambda data: data.clear() or data.update(x=1), "/x", "unknown-field"),
]


@pytest.mark.parametrize("change, pointer, page", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_rule_names_file_pointer_and_page(content: Path, change, pointer: str, page: str) -> None:
    edit_record(content, GOOD, change)
    assert (f"{GOOD}.json", pointer, page) in problems_of(content)


def test_unknown_field_suggests_the_right_name(content: Path) -> None:
    edit_record(content, GOOD, _set("/soluton", []))
    with pytest.raises(ProblemsFound) as caught:
        validate.build_site(load.load(content))
    assert "did you mean 'solutions'?" in str(caught.value)


def test_all_problems_of_all_files_in_one_run(content: Path) -> None:
    edit_record(content, GOOD, _set("/source/line", "x"))
    edit_record(content, GOOD, _set("/tags", ["A"]))
    edit_record(content, "old-kv-dtype", _drop("/exception"))
    found = problems_of(content)
    assert found == sorted(found)
    assert (f"{GOOD}.json", "/source/line", "wrong-type") in found
    assert (f"{GOOD}.json", "/tags/0", "bad-format") in found
    assert ("old-kv-dtype.json", "/exception", "missing-field") in found


def test_duplicate_ids(content: Path) -> None:
    (content / "errors" / "copy.json").write_text((content / "errors" / f"{GOOD}.json").read_text())
    found = problems_of(content)
    assert ("copy.json", "/id", "id-file-mismatch") in found
    assert ("copy.json", "/id", "duplicate-id") in found


def test_one_mistake_is_reported_once(content: Path) -> None:
    edit_record(content, "batch-tokens-multiple", _set("/source/line", "x"))
    assert problems_of(content) == [("batch-tokens-multiple.json", "/source/line", "wrong-type")]


@pytest.mark.parametrize("text, page", [
    (b"{\"id\": 1,,}", "invalid-json"),
    (b"\xff\xfe{}", "invalid-utf8"),
    (b"[1, 2]", "wrong-type"),
])
def test_unreadable_record_files(content: Path, text: bytes, page: str) -> None:
    (content / "errors" / "broken.json").write_bytes(text)
    assert [(name.partition(":")[0], pointer, p) for name, pointer, p in problems_of(content)] == [("broken.json", "", page)]


def test_invalid_json_gives_line_and_column(content: Path) -> None:
    (content / "errors" / "broken.json").write_bytes(b'{\n  "id": "broken",\n  "x": ]\n}')
    with pytest.raises(ProblemsFound) as caught:
        validate.build_site(load.load(content))
    assert "broken.json:3:8: invalid JSON: Expecting value" in str(caught.value)


def test_record_over_one_mebibyte(content: Path) -> None:
    (content / "errors" / "huge.json").write_bytes(b'{"id": "huge", "x": "' + b"a" * (1024 * 1024) + b'"}')
    assert ("huge.json", "", "file-too-large") in problems_of(content)


def test_byte_order_mark_is_accepted(content: Path) -> None:
    path = content / "errors" / f"{GOOD}.json"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert GOOD in validate.build_site(load.load(content)).by_id


@pytest.mark.parametrize("toml, pointer, page", [
    ('title = "x"\nbase_url = ', "", "invalid-toml"),
    ('titel = "x"\n', "/titel", "unknown-setting"),
    ("title = 3\n", "/title", "setting-not-a-string"),
    ('source_url = "https://x/{nope}"\n', "/source_url", "url-pattern-unknown-placeholder"),
    ('issue_url = "javascript:alert(1)//{repo}"\n', "/issue_url", "url-pattern-not-http"),
    ('[redirects]\nbatch-tokens-multiple = "old-kv-dtype"\n', "/redirects/batch-tokens-multiple", "redirect-from-live-id"),
    ('[redirects]\ngone = "missing"\n', "/redirects/gone", "redirect-target-missing"),
])
def test_settings_problems(content: Path, toml: str, pointer: str, page: str) -> None:
    (content / "site.toml").write_text(toml)
    assert ("site.toml", pointer, page) in problems_of(content)


def test_integral_float_counts_as_integer(content: Path) -> None:
    edit_record(content, GOOD, _set("/source/line", 5.0))
    assert validate.build_site(load.load(content)).by_id[GOOD].source.line == 5


def test_default_title_is_cut_at_a_word_boundary() -> None:
    title = validate.default_title("word " * 40)
    assert len(title) <= 81 and title.endswith("word…")


def test_default_title_reads_as_text() -> None:
    # Placeholders of every style show as one neutral mark; backticks quote names in
    # messages but a title is plain text; literal braces are undoubled.
    title = validate.default_title
    assert title("`{name}` must be at least {limit!r}") == "… must be at least …"
    assert title("chunk ({args.chunk_size}) exceeds %d, got %s %r") == "chunk (…) exceeds …, got …"
    assert title("use one of {{'auto', 'fp8'}}") == "use one of {'auto', 'fp8'}"
    assert title("{}: {}") == ""  # nothing to read: the caller falls back to the id


def test_every_bad_redirect_is_reported(content: Path) -> None:
    (content / "site.toml").write_text('[redirects]\nBad = "old-kv-dtype"\nfine-old = "old-kv-dtype"\nx = 3\n')
    assert problems_of(content) == [("site.toml", "/redirects/Bad", "redirect-not-an-id"),
                                    ("site.toml", "/redirects/x", "redirect-not-an-id")]


def test_a_blank_title_or_message_still_gives_a_title(content: Path) -> None:
    edit_record(content, GOOD, lambda d: d.update(title="  ", message=" \n "))
    # Where it is raised, as a reader would name it, not the id.
    assert validate.build_site(load.load(content)).by_id[GOOD].title == "ValueError in check_batching"


def test_many_records_are_checked_in_worker_processes_with_every_problem_named(
        content: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    import os

    from errorsite.sitebuild import workers

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    good = json.loads((content / "errors" / f"{GOOD}.json").read_text(encoding="utf-8"))
    for n in range(workers.PARALLEL_MIN):
        good["id"] = f"copy-{n:03}"
        (content / "errors" / f"copy-{n:03}.json").write_text(json.dumps(good), encoding="utf-8")
    assert len(validate.build_site(load.load(content)).records) == workers.PARALLEL_MIN + 3
    edit_record(content, "copy-123", lambda d: d["source"].update(line="seven"))
    edit_record(content, "copy-250", lambda d: d.pop("message"))
    assert problems_of(content) == [("copy-123.json", "/source/line", "wrong-type"),
                                    ("copy-250.json", "/message", "missing-field")]


def test_check_checks_again_only_the_record_files_that_changed(content: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from errorsite import cli

    checked: list[str] = []
    real = validate.check_record

    def counted(raw: load.RawRecord) -> Any:
        checked.append(Path(raw.file).name)
        return real(raw)

    monkeypatch.setattr(validate, "check_record", counted)
    assert cli.main(["check", "--content", str(content)]) == 0
    assert sorted(checked) == sorted(p.name for p in (content / "errors").glob("*.json"))
    checked.clear()
    assert cli.main(["check", "--content", str(content)]) == 0
    assert checked == []
    # An edit, a copy under another name: each is checked again, and what is wrong is said as without a kept check.
    edit_record(content, GOOD, lambda data: data.update(title=42))
    copy = content / "errors" / "a-copy.json"
    copy.write_bytes((content / "errors" / "old-kv-dtype.json").read_bytes())
    assert cli.main(["check", "--content", str(content)]) == 1
    assert sorted(checked) == ["a-copy.json", f"{GOOD}.json"]
    assert "a-copy.json: /id" in capsys.readouterr().err


def test_a_record_file_checked_before_is_parsed_into_the_same_values_without_looking_for_what_no_record_holds(
        content: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite import cli

    assert cli.main(["check", "--content", str(content)]) == 0
    edit_record(content, GOOD, lambda data: data.update(meaning="Edited."))
    looked: list[Any] = []
    real_glance, real_load = load._usable_at_a_glance, load.load
    loaded: list[load.Content] = []
    monkeypatch.setattr(load, "_usable_at_a_glance", lambda data: looked.append(data["id"]) or real_glance(data))
    monkeypatch.setattr(load, "load", lambda folder, passed=None: loaded.append(real_load(folder, passed)) or loaded[-1])
    assert cli.main(["check", "--content", str(content)]) == 0
    assert looked == [GOOD]  # the edited file alone
    assert loaded == [real_load(content)]  # the very values a parse that looks at every file gives
