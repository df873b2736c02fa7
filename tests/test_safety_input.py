"""Hostile and clumsy input gives problems naming the file and the JSON pointer: nothing escapes, hangs or crashes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from errorsite import cli, load, schema, validate
from errorsite.sitebuild.paths import CACHE_DIR
from errorsite.problems import ProblemsFound

from conftest import FIXTURES, edit_record

GOOD = "batch-tokens-below-chunk"
ROOT = Path(__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Return the exit status and standard error of one errorsite command."""
    status = cli.main(list(argv))
    return status, capsys.readouterr().err


def problems_of(content: Path) -> list[tuple[str, str, str]]:
    """Return (file name, pointer, page) for every problem of `content`."""
    with pytest.raises(ProblemsFound) as caught:
        validate.build_site(load.load(content))
    return [(Path(p.file.partition(":")[0]).name, p.pointer, p.page) for p in caught.value.problems]


def files_under(folder: Path) -> set[Path]:
    """Return every file, folder and link below `folder`."""
    return {Path(top, name) for top, dirs, files in os.walk(folder) for name in dirs + files}


def subprocess_check(content: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """Run `errorsite check` (or `command`) in its own process: a hang or an exhausted memory fails the test."""
    return subprocess.run([sys.executable, "-m", "errorsite", *(command or ("check",)), "--content", str(content)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def _at(pointer: str, value: Any):
    def change(data: dict[str, Any]) -> None:
        *parents, last = pointer.strip("/").split("/")
        for key in parents:
            data = data.setdefault(key, {}) if not key.isdigit() else data[int(key)]
        if last.isdigit():
            data[int(last)] = value
        else:
            data[last] = value
    return change


def _full(data: dict[str, Any]) -> None:
    """Give the good record every optional field that has a pattern."""
    data["variants"] = [{"message": "other wording", "kind": "earlier", "until": "abcdef1"}]
    data["review"] = {"since": "abcdef1", "why": "moved"}
    data["analysis"] = {"by": "human", "date": "2026-11-30", "commit": "abcdef1"}
    data["example_fix"]["check"] = {"files": {"a/b.py": "x"}, "before": "false", "after": "true"}
    data["example_fix"]["verified"] = {"commit": "abcdef1", "date": "2026-11-30", "by": "errorsite verify"}
    data["example_fix"]["language"] = "shell"
    data["source"]["repo"] = "example/tinyserve"


LINE_BREAK_FIELDS = [
    ("/id", GOOD + "\n"),
    ("/exception", "ValueError\n"),
    ("/source/repo", "example/tinyserve\n"),
    ("/source/commit", "abcdef1\n"),
    ("/source/path", "a\n/../../../../escaped"),
    ("/source/path", "tinyserve/config.py\n"),
    ("/source/function", "check\n"),
    ("/tags/0", "batching\n"),
    ("/related/0", "batch-tokens-multiple\n"),
    ("/variants/0/until", "abcdef1\n"),
    ("/review/since", "abcdef1\n"),
    ("/analysis/by", "human\n"),
    ("/analysis/date", "2026-11-30\n"),
    ("/analysis/commit", "abcdef1\n"),
    ("/example_fix/language", "shell\n"),
    ("/example_fix/verified/commit", "abcdef1\n"),
    ("/example_fix/verified/date", "2026-11-30\n"),
]


@pytest.mark.parametrize("pointer, value", LINE_BREAK_FIELDS, ids=[f"{p} {v!r}" for p, v in LINE_BREAK_FIELDS])
def test_a_line_break_in_any_pattern_field_fails_check_build_and_the_schema(
        tmp_path: Path, content: Path, capsys: pytest.CaptureFixture[str], pointer: str, value: str) -> None:
    edit_record(content, GOOD, _full)
    validate.build_site(load.load(content))  # the full record is valid before the change
    edit_record(content, GOOD, _at(pointer, value))
    assert (f"{GOOD}.json", pointer, "bad-format") in problems_of(content)
    data = json.loads((content / "errors" / f"{GOOD}.json").read_text())
    errors = list(jsonschema.Draft202012Validator(schema.SCHEMA).iter_errors(data))
    assert pointer in {"".join(f"/{part}" for part in e.absolute_path) for e in errors}

    status, err = run(capsys, "check", "--content", str(content))
    assert status == 1 and f"{pointer}: " in err and "Traceback" not in err
    out = tmp_path / "work" / "site"
    out.parent.mkdir()
    before = files_under(tmp_path)
    status, err = run(capsys, "build", "--content", str(content), "--out", str(out), "--quiet")
    assert status == 1 and "bad-format" in err
    new = files_under(tmp_path) - before
    assert [p for p in new if not (p.is_relative_to(out) or p.is_relative_to(out.parent / CACHE_DIR))] == []
    assert not any(p.name == "escaped" for p in files_under(tmp_path))


def test_a_line_break_in_a_check_file_name_is_refused(content: Path) -> None:
    edit_record(content, GOOD, _full)
    edit_record(content, GOOD, lambda d: d["example_fix"]["check"]["files"].update({"a/c.py\n": "x"}))
    assert (f"{GOOD}.json", "/example_fix/check/files/a~1c.py\n", "bad-format") in problems_of(content)


@pytest.mark.parametrize("path", [".", "a/.", "./a.py", "a/./b.py", "a//b.py", "a/", "..", "a/..", "/a.py",
                                  "a\\b.py", "a\tb.py", "a\u0085b.py", "a\u2028b.py", "a\x7fb.py"])
def test_paths_that_are_not_plain_relative_paths(content: Path, capsys: pytest.CaptureFixture[str], path: str) -> None:
    edit_record(content, GOOD, _at("/source/path", path))
    assert problems_of(content) == [(f"{GOOD}.json", "/source/path", "bad-format")]


@pytest.mark.node
@pytest.mark.parametrize("pattern", [
    schema.ID_PATTERN, schema.DOTTED_NAME, schema.SAFE_PATH, schema.REPO, schema.COMMIT, schema.DATE, schema.TAG,
    schema.ONE_LINE])
def test_each_pattern_means_the_same_in_python_and_in_javascript(pattern: str) -> None:
    samples = ["a", "a\n", "a\r", "\na", "a/b.py", "a/./b.py", ".", "a/.", "..", "a/..", "a//b", "/a", "a\\b",
               "a\u0085b", "a\u2028", "abcdef1", "abcdef1\n", "2026-11-30", "2026-11-30\n", "o/r", "../..",
               "o/.", "Value.Error", "x" * 70, ""]
    script = ("const [p, samples] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "const u = new RegExp(p, 'u'), plain = new RegExp(p);"
              "console.log(JSON.stringify(samples.map(s => [u.test(s), plain.test(s)])));")
    done = subprocess.run(["node", "-e", script], input=json.dumps([pattern, samples]), capture_output=True,
                          text=True, check=True)
    python = [bool(re.fullmatch(pattern, s)) for s in samples]
    assert python == [bool(re.search(pattern, s)) for s in samples]  # a search is a full match: jsonschema agrees
    assert json.loads(done.stdout) == [[p, p] for p in python]
    assert python[samples.index("a\n")] is False


COLLISIONS = [
    ({"batch-tokens-multiple": "index.html"}, "/source/path"),
    ({GOOD: "tinyserve/a", "batch-tokens-multiple": "tinyserve/a/index.html"}, "/source/path"),
    ({GOOD: "tinyserve/Config.py", "batch-tokens-multiple": "tinyserve/config.py"}, "/source/path"),
    ({GOOD: "tinyserve/caf\u00e9.py", "batch-tokens-multiple": "tinyserve/cafe\u0301.py"}, "/source/path"),
]


@pytest.mark.parametrize("paths, pointer", COLLISIONS, ids=["list page", "file and folder", "letter case",
                                                             "unicode normalisation"])
def test_pages_that_would_collide_are_problems(content: Path, capsys: pytest.CaptureFixture[str],
                                               paths: dict[str, str], pointer: str) -> None:
    for record_id, path in paths.items():
        edit_record(content, record_id, _at("/source/path", path))
    found = [f for f in problems_of(content) if f[2] == "page-collision"]
    assert found == [("batch-tokens-multiple.json", pointer, "page-collision")]
    status, err = run(capsys, "check", "--content", str(content))
    assert status == 1 and "batch-tokens-multiple.json: /source/path: its page 'files/" in err


@pytest.mark.parametrize("paths, pointer", COLLISIONS[1:3], ids=["file and folder", "letter case"])
def test_a_build_reports_colliding_pages_and_writes_nothing(tmp_path: Path, content: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           paths: dict[str, str], pointer: str) -> None:
    for record_id, path in paths.items():
        edit_record(content, record_id, _at("/source/path", path))
    status, err = run(capsys, "build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet")
    assert status == 1 and f"batch-tokens-multiple.json: {pointer}: its page 'files/" in err
    assert "errors/page-collision/" in err and not (tmp_path / "site").exists()


def test_an_exception_named_like_the_list_page_collides(content: Path) -> None:
    edit_record(content, GOOD, _at("/exception", "index.html"))
    assert problems_of(content) == [(f"{GOOD}.json", "/exception", "page-collision")]


def test_records_on_one_source_file_share_its_page(content: Path) -> None:
    for record_id in (GOOD, "batch-tokens-multiple"):
        edit_record(content, record_id, _at("/source/path", "tinyserve/same.py"))
    assert validate.build_site(load.load(content))


def test_a_fifo_record_is_a_problem_not_a_hang(content: Path) -> None:
    os.mkfifo(content / "errors" / "pipe.json")
    done = subprocess_check(content)
    assert done.returncode == 1 and "pipe.json: the file is a named pipe (FIFO), not a regular file" in done.stderr


@pytest.mark.parametrize("name", ["errors/zero.json", "site.toml"])
def test_a_link_to_dev_zero_is_refused_before_reading(content: Path, name: str) -> None:
    (content / name).unlink(missing_ok=True)
    (content / name).symlink_to("/dev/zero")
    done = subprocess_check(content)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "a link to '/dev/zero', outside" in done.stderr


@pytest.mark.parametrize("make, reason", [
    (os.mkfifo, "the file is a named pipe (FIFO), not a regular file"),
    (lambda path: path.symlink_to("/dev/zero"), "a link to '/dev/zero', outside"),
], ids=["fifo", "dev-zero"])
def test_special_record_files_fail_a_build_with_a_problem(tmp_path: Path, content: Path, make: Any,
                                                          reason: str) -> None:
    make(content / "errors" / "special.json")
    done = subprocess_check(content, "build", "--out", str(tmp_path / "site"))
    assert done.returncode == 1 and f"special.json: {reason}" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "site").exists()


def test_a_fifo_site_toml_is_a_problem_not_a_hang(content: Path) -> None:
    (content / "site.toml").unlink()
    os.mkfifo(content / "site.toml")
    done = subprocess_check(content)
    assert done.returncode == 1 and "site.toml: the file is a named pipe (FIFO), not a regular file" in done.stderr


def test_a_build_with_a_fifo_site_toml_is_a_problem_not_a_hang(tmp_path: Path, content: Path) -> None:
    (content / "site.toml").unlink()
    os.mkfifo(content / "site.toml")
    done = subprocess_check(content, "build", "--out", str(tmp_path / "site"))
    assert done.returncode == 1 and "site.toml: the file is a named pipe (FIFO), not a regular file" in done.stderr
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("special, kind", [("/dev/null", "character device"), ("/", "folder")])
def test_special_files_are_named_and_refused(special: str, kind: str) -> None:
    # Creating a device node needs privileges, so the rule is shown on the mode of an existing one.
    with pytest.raises(load.Invalid, match=f"the file is a {kind}, not a regular file"):
        load.regular_file(os.stat(special).st_mode)


def test_a_folder_named_like_a_record_is_a_problem(content: Path) -> None:
    (content / "errors" / "folder.json").mkdir()
    assert ("folder.json", "", "not-a-regular-file") in problems_of(content)


def test_links_out_of_the_content_folder_are_refused(tmp_path: Path, content: Path) -> None:
    outside = tmp_path / "secret.json"
    outside.write_text((content / "errors" / f"{GOOD}.json").read_text())
    (content / "errors" / f"{GOOD}.json").unlink()
    (content / "errors" / f"{GOOD}.json").symlink_to(outside)
    assert (f"{GOOD}.json", "", "file-outside-folder") in problems_of(content)


def test_an_errors_folder_that_leads_elsewhere_is_refused(tmp_path: Path, content: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (content / "errors").rename(elsewhere)
    (content / "errors").symlink_to(elsewhere)
    assert problems_of(content) == [("errors", "", "file-outside-folder")]


def test_a_record_file_that_is_a_link_inside_the_errors_folder_is_a_problem(content: Path) -> None:
    # verify writes record files back: through a link it would replace the link, or write elsewhere.
    path = content / "errors" / f"{GOOD}.json"
    path.rename(content / "errors" / "stored.txt")
    path.symlink_to("stored.txt")
    assert problems_of(content) == [(f"{GOOD}.json", "", "record-is-a-link")]


def test_an_errors_folder_that_cannot_be_listed_is_a_problem_not_a_folder_of_no_records(
        content: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As root no permission stops a listing: the system's refusal is made here.
    listing = os.scandir

    def refused(path: Any) -> Any:
        if Path(path) == content / "errors":
            raise PermissionError(13, "Permission denied")
        return listing(path)

    monkeypatch.setattr(os, "scandir", refused)
    assert problems_of(content) == [("errors", "", "unreadable-folder")]


def test_a_huge_sparse_record_is_not_read_whole(content: Path) -> None:
    with open(content / "errors" / "sparse.json", "wb") as file:
        file.truncate(8 * 1024 ** 3)
    done = subprocess_check(content)
    assert done.returncode == 1
    assert "sparse.json: the file is 8,589,934,592 bytes; errorsite reads at most 1,048,576 from it" in done.stderr


def test_an_oversized_site_toml(content: Path) -> None:
    (content / "site.toml").write_text('title = "x"\n' + "# padding\n" * 30_000)
    assert ("site.toml", "", "file-too-large") in problems_of(content)


@pytest.mark.parametrize("text, pointer, page", [
    ("[" * 10_000 + "]" * 10_000, "/0" * load.MAX_DEPTH, "too-deeply-nested"),
    ('{"id": "deep", "x": ' + '{"a": [' * 5_000 + "1" + "]}" * 5_000 + "}", "/x" + "/a/0" * 15 + "/a",
     "too-deeply-nested"),
    ('{"x": ' + "[" * 40 + "]" * 40 + "}", "/x" + "/0" * (load.MAX_DEPTH - 1), "too-deeply-nested"),
    ('{"source": {"line": 1' + "0" * 4_999 + "}}", "/source/line", "json-number-too-large"),
    ('{"source": {"line": 1' + "0" * 4_299 + "}}", "/source/line", "json-number-too-large"),
    ('{"source": {"line": 1e999}}', "/source/line", "json-number-too-large"),
    ('{"id": "a", "source": {"path": "a.py", "path": "b.py"}}', "/source/path", "duplicate-key"),
])
def test_json_nobody_can_use_is_a_problem_at_its_pointer(content: Path, capsys: pytest.CaptureFixture[str],
                                                          text: str, pointer: str, page: str) -> None:
    (content / "errors" / "bad.json").write_text(text)
    assert ("bad.json", pointer, page) in problems_of(content)
    status, err = run(capsys, "check", "--content", str(content))
    assert status == 1 and f"bad.json: {pointer}: " in err and "Traceback" not in err


@pytest.mark.parametrize("line", [10 ** 4_299, 10 ** 9], ids=["4,300 digits", "a billion"])
def test_a_line_number_beyond_the_maximum_fails_check_and_build(
        tmp_path: Path, content: Path, capsys: pytest.CaptureFixture[str], line: int) -> None:
    edit_record(content, GOOD, lambda d: d["source"].update(line=line, snippet={"start": line, "code": "x\n"}))
    found = problems_of(content)
    assert {(f"{GOOD}.json", "/source/line"), (f"{GOOD}.json", "/source/snippet/start")} <= {f[:2] for f in found}
    status, err = run(capsys, "build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet")
    assert status == 1 and f"{GOOD}.json: /source/line: " in err and "Traceback" not in err


def test_every_duplicate_key_is_reported(content: Path) -> None:
    path = content / "errors" / f"{GOOD}.json"
    text = path.read_text().replace('"id": ', '"id": "x", "id": ', 1).replace('"line": 5', '"line": 5, "line": 6')
    path.write_text(text)
    found = problems_of(content)
    assert (f"{GOOD}.json", "/id", "duplicate-key") in found
    assert (f"{GOOD}.json", "/source/line", "duplicate-key") in found


def test_a_deep_record_fails_build_with_a_problem(tmp_path: Path, content: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (content / "errors" / "deep.json").write_text("[" * 10_000 + "]" * 10_000)
    status, err = run(capsys, "build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet")
    assert status == 1 and "deep.json: /0/0/0" in err and "too-deeply-nested" in err


@pytest.mark.parametrize("toml, pointer, page", [
    ('base_url = "javascript:alert(1)"\n', "/base_url", "base-url-not-http"),
    ('base_url = "ftp://example.org/"\n', "/base_url", "base-url-not-http"),
    ('base_url = "example.org/errors/"\n', "/base_url", "base-url-not-http"),
    ('base_url = "https://user@example.org/"\n', "/base_url", "base-url-not-http"),
    ('base_url = "https://example.org/\\nDisallow: /"\n', "/base_url", "setting-control-character"),
    ('base_url = "//other.host/"\n', "/base_url", "base-url-bad-path"),
    ('base_url = "https://example.org//other.host/"\n', "/base_url", "base-url-bad-path"),
    ('base_url = "https://example.org/a/../b/"\n', "/base_url", "base-url-bad-path"),
    ('base_url = "/a/./b/"\n', "/base_url", "base-url-bad-path"),
    ('base_url = "https://example.org/?q=1"\n', "/base_url", "base-url-bad-path"),
    ('base_url = "https://example.org/a b/"\n', "/base_url", "base-url-bad-path"),
    ('cname = "errors.example.org\\nevil.example"\n', "/cname", "setting-control-character"),
    ('cname = "https://errors.example.org"\n', "/cname", "cname-not-a-host"),
    ('cname = "errors.example.org/path"\n', "/cname", "cname-not-a-host"),
    ('title = "a\\u001b[31mred"\n', "/title", "setting-control-character"),
    ('title = "two\\nlines"\n', "/title", "setting-control-character"),
    ('source_url = "https://x/{repo}\\n{path}"\n', "/source_url", "setting-control-character"),
    ('repo = "../.."\n', "/repo", "setting-repo-format"),
    ('repo = "owner/name\\n"\n', "/repo", "setting-control-character"),
    ('[verify]\nsetup = "make\\nrm -rf /"\n', "/verify/setup", "setting-control-character"),
    ('[verify]\ntimeout = 1' + "0" * 4_000 + "\n", "/verify/timeout", "setting-wrong-type"),
    ('[source]\ninclude = ["src/*.py\\n"]\n', "/source/include", "setting-control-character"),
    ('[redirects]\n"old\\n" = "batch-tokens-multiple"\n', "/redirects/old\n", "redirect-not-an-id"),
    ("x = " + "[" * 10_000 + "]" * 10_000 + "\n", "", "toml-too-deep"),
    ("x = 1" + "0" * 5_000 + "\n", "", "toml-number-too-large"),
])
def test_every_bad_setting_is_its_own_problem(tmp_path: Path, content: Path, capsys: pytest.CaptureFixture[str],
                                              toml: str, pointer: str, page: str) -> None:
    (content / "site.toml").write_text(toml)
    assert ("site.toml", pointer, page) in problems_of(content)
    out = tmp_path / "site"
    status, err = run(capsys, "build", "--content", str(content), "--out", str(out), "--quiet")
    assert status == 1 and f"errors/{page}/" in err and "Traceback" not in err
    assert not (out / "robots.txt").exists() and not (out / "CNAME").exists()


@pytest.mark.parametrize("base_url, page", [
    ("javascript:alert(1)", "base-url-not-http"),
    ("//other.host/", "base-url-bad-path"),
    ("https://example.org/\nDisallow: /", "setting-control-character"),
])
def test_a_bad_base_url_flag_is_refused(tmp_path: Path, content: Path, capsys: pytest.CaptureFixture[str],
                                        base_url: str, page: str) -> None:
    out = tmp_path / "site"
    status, err = run(capsys, "build", "--content", str(content), "--out", str(out), "--base-url", base_url)
    assert status == 1 and f"errors/{page}/" in err and not out.exists()
    status, err = run(capsys, "lookup", "must be at least", "--content", str(content), "--base-url", base_url)
    assert status == 1 and f"errors/{page}/" in err


@pytest.mark.parametrize("base_url", ["https://owner.github.io/repo/", "http://localhost:8000", "/", "/docs/errors/",
                                      "https://example.org/a%20b/", "http://[::1]:8000/"])
def test_good_base_urls_are_accepted(content: Path, base_url: str) -> None:
    (content / "site.toml").write_text(f'base_url = "{base_url}"\ncname = "errors.example.org"\n')
    site = validate.build_site(load.load(content))
    assert site.config.base_url == base_url.rstrip("/") + "/"


@pytest.fixture
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a folder holding `site/`, built from the basic content."""
    where = tmp_path_factory.mktemp("built")
    assert cli.main(["build", "--content", str(FIXTURES / "basic"), "--out", str(where / "site"), "--quiet"]) == 0
    return where


def test_explain_does_not_read_outside_errors(built: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(built)
    status, err = run(capsys, "explain", "../../api/patterns", "--site", "site")
    assert status == 1 and "nothing-to-explain" in err
    assert "tinyserve" not in capsys.readouterr().out


def test_explain_refuses_a_link_out_of_the_site(built: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(built)
    (built / "secret.json").write_text('{"url": "stolen"}')
    (built / "site" / "api" / "errors" / "linked.json").symlink_to(built / "secret.json")
    status, err = run(capsys, "explain", "linked", "--site", "site")
    assert status == 1 and "file-outside-folder" in err and "stolen" not in err


def test_explain_still_finds_a_record_by_id(built: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(built)
    assert cli.main(["explain", GOOD, "--site", "site"]) == 0
    assert "max_batch_tokens" in capsys.readouterr().out


def test_control_characters_in_a_pointer_are_printed_escaped(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_record(content, GOOD, _at("/\x1b[31mx", 1))
    status, err = run(capsys, "check", "--content", str(content))
    assert status == 1 and "\x1b" not in err and "\\x1b[31mx" in err


def test_explain_prints_no_terminal_control_characters(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_record(content, GOOD, lambda d: d.update(title="\x1b[2J\x1b]0;owned\x07 title", meaning="a\x08b\n\nc\td"))
    assert cli.main(["explain", GOOD, "--content", str(content)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x08" not in out
    assert "\\x1b[2J\\x1b]0;owned\\x07 title" in out and "a\\x08b" in out


def test_explain_reports_a_site_file_too_deep_to_read(built: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(built)
    (built / "site" / "api" / "errors" / f"{GOOD}.json").write_text("[" * 10_000 + "]" * 10_000)
    status, err = run(capsys, "explain", GOOD, "--site", "site")
    assert status == 1 and f"{GOOD}.json: /0/0/0" in err and "too-deeply-nested" in err
