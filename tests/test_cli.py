"""The command line: exit codes, clean errors, and what a failed build leaves behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from errorsite import cli
from errorsite.sitebuild.paths import user_cache
from errorsite.sitebuild.write import MARKER

from conftest import edit_record


def run(*argv: str) -> int:
    return cli.main(list(argv))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_then_rebuild(content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"
    assert run("build", "--content", str(content), "--out", str(out)) == 0
    assert "built 3 records" in capsys.readouterr().out
    assert (out / MARKER).is_file() and (out / "errors/old-kv-dtype/index.html").is_file()
    assert run("build", "--content", str(content), "--out", str(out), "--quiet") == 0
    assert capsys.readouterr().out == ""


def test_the_summary_counts_one_record_in_the_singular(content: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    kept, *others = sorted((content / "errors").glob("*.json"))
    for extra in others:
        extra.unlink()
    edit_record(content, kept.stem, lambda d: d.pop("related", None))
    assert run("build", "--content", str(content), "--out", str(tmp_path / "site")) == 0
    assert capsys.readouterr().out.startswith("built 1 record, ")


def test_failed_build_leaves_the_previous_site_untouched(content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"
    run("build", "--content", str(content), "--out", str(out))
    before = snapshot(out)
    edit_record(content, "old-kv-dtype", lambda d: d.update(soluton=[]))
    edit_record(content, "batch-tokens-multiple", lambda d: d["source"].update(line="x"))
    assert run("build", "--content", str(content), "--out", str(out)) == 1
    err = capsys.readouterr().err
    assert "old-kv-dtype.json: /soluton: unknown field 'soluton' (did you mean 'solutions'?)" in err
    assert "batch-tokens-multiple.json: /source/line: must be an integer" in err
    assert "2 problems found; nothing was written." in err
    assert "https://errorsite.github.io/errorsite/errors/unknown-field/" in err
    assert "Traceback" not in err
    assert snapshot(out) == before
    # The previous tree (in .errorsite-cache) may sit beside the output; no staging folder may remain.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".errorsite-cache") == ["content", "site"]


def test_failed_first_build_writes_nothing(content: Path, tmp_path: Path) -> None:
    edit_record(content, "old-kv-dtype", lambda d: d.update(id="wrong"))
    assert run("build", "--content", str(content), "--out", str(tmp_path / "site")) == 1
    assert not (tmp_path / "site").exists()


def test_refuses_to_replace_a_folder_it_did_not_write(content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("precious")
    assert run("build", "--content", str(content), "--out", str(out)) == 1
    assert "not empty and was not written by errorsite" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "precious"
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_builds_into_an_empty_folder(content: Path, tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    assert run("build", "--content", str(content), "--out", str(out)) == 0
    assert (out / "index.html").is_file()


def test_check_writes_nothing(content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("check", "--content", str(content)) == 0
    assert "3 records" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content"]


def test_missing_content_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("check", "--content", str(tmp_path / "nope")) == 1
    err = capsys.readouterr().err
    assert "does not exist" in err and "errors/content-not-found/" in err


def test_usage_errors_exit_2_with_a_link(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("build", "--no-such-flag") == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --no-such-flag" in err and "errors/bad-usage/" in err
    assert run() == 2


def test_build_with_no_arguments_builds_the_embedded_reference_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("build", "--quiet") == 0
    pages = list((tmp_path / "site" / "errors").glob("*/index.html"))
    assert len(pages) >= 15
    said = [line for line in capsys.readouterr().err.splitlines() if "errorsite's own error reference" in line]
    assert len(said) == 1


@pytest.mark.parametrize("command", [("check",), ("build", "--quiet"), ("lookup", "anything")])
def test_a_content_folder_here_is_used_without_a_word(
        command: tuple[str, ...], content: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(content.parent)
    if content.name != "content":
        content.rename(content.parent / "content")
    run(*command)
    assert "own error reference" not in capsys.readouterr().err


def test_python_dash_m_and_the_console_script(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The command leaves without tidying the interpreter away: what it printed still all arrives,
    # and its status is main's.
    lookup = ["lookup", "max_batch_tokens must be a multiple of 8, got 1001", "--content", str(content)]
    assert run(*lookup) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n") > 2
    for command in ([sys.executable, "-m", "errorsite"], [str(Path(sys.executable).with_name("errorsite"))]):
        result = subprocess.run([*command, "--version"], capture_output=True, text=True, check=False)
        assert result.returncode == 0 and result.stdout.startswith("errorsite "), command
        result = subprocess.run([*command, *lookup], capture_output=True, text=True, check=False)
        assert result.returncode == 0 and result.stdout == printed, command
        result = subprocess.run([*command, "lookup", "--content", str(content / "missing"), "x"],
                                capture_output=True, text=True, check=False)
        assert result.returncode == 1 and "content-not-found" in result.stderr, command


def test_lookup_prints_the_best_match_first(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    traceback = (
        'Traceback (most recent call last):\n  File "tinyserve/config/batching.py", line 10, in check_batching\n'
        "ValueError: max_batch_tokens must be a multiple of 8, got 1001\n"
    )
    assert run("lookup", traceback, "--content", str(content)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("https://example.github.io/tinyserve/errors/batch-tokens-multiple/  [full]")
    # A page that shares words comes after, under its own heading.
    assert lines[1:3] == ["", "Weaker candidates:"]
    assert lines[3].startswith("  https://example.github.io/tinyserve/errors/batch-tokens-below-chunk/  [words]")


def test_lookup_says_when_no_page_explains_the_message(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The template occurs inside this message but does not explain it from its start.
    wrapped = "RuntimeError: worker 3 failed: max_batch_tokens must be a multiple of 8, got 1001"
    assert run("lookup", wrapped, "--content", str(content)) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["No page explains this message.", "",
                         "Weak candidates (they share words or part of the text; none explains it):"]
    assert lines[3].startswith("  https://example.github.io/tinyserve/errors/batch-tokens-multiple/  [partial]")
    # A traceback that never passes through the record's file says it was raised elsewhere.
    elsewhere = ('Traceback (most recent call last):\n  File "/opt/other/limits.py", line 4, in check\n'
                 "ValueError: max_batch_tokens must be a multiple of 8, got 1001\n")
    assert run("lookup", elsewhere, "--content", str(content)) == 1
    assert capsys.readouterr().out.startswith("No page explains this message.\n")
    # Words that only stop words share find nothing at all.
    assert run("lookup", "zzqx of the", "--content", str(content)) == 1
    assert capsys.readouterr().out == "No page explains this message.\n"


def test_lookup_matches_every_wording_of_a_record(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    earlier = {"message": "max_batch_tokens must be divisible by 8 (got %d)", "kind": "earlier", "until": "4f2a9c1"}
    edit_record(content, "batch-tokens-multiple", lambda d: d.update(variants=[earlier]))
    assert run("lookup", "ValueError: max_batch_tokens must be divisible by 8 (got 12)", "--content", str(content)) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("https://example.github.io/tinyserve/errors/batch-tokens-multiple/  [full, earlier wording]")


def test_lookup_from_a_built_site_prints_what_lookup_from_content_prints(content: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    earlier = {"message": "max_batch_tokens must be divisible by 8 (got %d)", "kind": "earlier", "until": "4f2a9c1"}
    edit_record(content, "batch-tokens-multiple", lambda d: d.update(variants=[earlier]))
    assert run("build", "--quiet", "--content", str(content), "--out", str(tmp_path / "site")) == 0
    messages = ["ValueError: max_batch_tokens must be divisible by 8 (got 12)",
                "RuntimeError: worker 3 failed: max_batch_tokens must be a multiple of 8, got 1001", "zzqx of the"]
    for message in messages:
        code = run("lookup", message, "--content", str(content))
        from_content = capsys.readouterr().out
        assert run("lookup", message, "--site", str(tmp_path / "site")) == code
        assert capsys.readouterr().out == from_content
    # A content folder is no built site: said so, with the error's page.
    assert run("lookup", "anything", "--site", str(content)) == 1
    err = capsys.readouterr().err
    assert "is not a site built by errorsite: it lacks search/manifest.js" in err
    assert "errors/lookup-site-unreadable/" in err
    (tmp_path / "site" / "search" / "lengths.js").write_text("ERRORSITE_SHARD(\"lengths\",17);\n")
    assert run("lookup", "max_batch_tokens must be a multiple of 8, got 1001", "--site", str(tmp_path / "site")) == 1
    assert "its search index is damaged" in capsys.readouterr().err


def test_explain_from_content_and_from_a_built_site(content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("explain", "batch-tokens-below-chunk", "--content", str(content)) == 0
    text = capsys.readouterr().out
    for part in ("What it means", "Solutions\n  1. Raise `--max-batch-tokens`", "Before:\n    tinyserve",
                 "tinyserve/config/batching.py:5 in check_batching"):
        assert part in text
    run("build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet")
    assert run("explain", "max_batch_tokens must be a multiple of 8, got 3", "--site", str(tmp_path / "site")) == 0
    assert "errors/batch-tokens-multiple/" in capsys.readouterr().out
    assert run("explain", "no-such-id", "--site", str(tmp_path / "site")) == 1
    assert "errors/nothing-to-explain/" in capsys.readouterr().err


def test_serve_on_a_port_in_use_is_a_clean_error(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert run("serve", "--content", str(content), "--port", str(port)) == 1
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "errors/port-unavailable/" in err


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_serve_on_a_port_that_cannot_be_is_a_usage_error(content: Path, capsys: pytest.CaptureFixture[str],
                                                         port: str) -> None:
    assert run("serve", "--content", str(content), "--port", port) == 2
    err = capsys.readouterr().err
    assert f"argument --port: invalid port value: '{port}'" in err and "errors/bad-usage/" in err
    assert "bug" not in err


def test_a_file_system_error_is_a_clean_error(content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    assert run("build", "--content", str(content), "--out", str(tmp_path / "a-file" / "site")) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "errors/file-system-error/" in err


def crash_with(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    """Make every build raise `error`, as a bug in errorsite would."""
    from errorsite.sitebuild import pipeline

    def crash(*args: object, **kwargs: object) -> object:
        raise error

    monkeypatch.setattr(pipeline, "build", crash)


def test_a_crash_is_one_line_that_says_it_is_a_bug(content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    crash_with(monkeypatch, KeyError("state\nrow"))
    assert run("build", "--content", str(content), "--out", str(tmp_path / "site")) == cli.BUG_EXIT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: this is a bug in errorsite (KeyError: 'state\\nrow')")
    assert "https://github.com/errorsite/errorsite/issues" in err and "--debug" in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_prints_the_traceback_of_a_crash(content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    crash_with(monkeypatch, RecursionError("maximum recursion depth exceeded"))
    argv = ["build", "--content", str(content), "--out", str(tmp_path / "site")]
    argv = ["--debug", *argv] if where == "before" else [*argv, "--debug"]
    assert run(*argv) == cli.BUG_EXIT
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):") and "in crash" in err
    assert err.rstrip().splitlines()[-1].startswith("error: this is a bug in errorsite (RecursionError:")


def test_an_exception_whose_message_raises_is_still_one_line(content: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    class Hostile(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    crash_with(monkeypatch, Hostile())
    assert run("build", "--content", str(content), "--out", str(tmp_path / "site")) == cli.BUG_EXIT
    assert "this is a bug in errorsite (Hostile: (its message could not be read))" in capsys.readouterr().err


def test_an_os_error_about_errorsites_own_files_is_a_bug(content: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    internal = str(Path(cli.__file__).parent / "templates" / "missing.html")
    crash_with(monkeypatch, FileNotFoundError(2, "No such file or directory", internal))
    assert run("build", "--content", str(content), "--out", str(tmp_path / "site")) == cli.BUG_EXIT
    err = capsys.readouterr().err
    assert "this is a bug in errorsite (FileNotFoundError" in err and "file-system-error" not in err


@pytest.mark.parametrize("error", [
    PermissionError(13, "Permission denied", "/somewhere/else"),
    OSError(28, "No space left on device", "/tmp/x"),
    FileNotFoundError(2, "No such file or directory", "{out}/errors/x/index.html"),
    FileNotFoundError(2, "No such file or directory", "{out_parent}/.errorsite-cache/site.0123/errors"),
    FileNotFoundError(2, "No such file or directory", "{cache}/builds/0123/state-12.sqlite"),
    NotADirectoryError(20, "Not a directory", "{out_parent}/.site.new-123/errors"),
    FileNotFoundError(2, "No such file or directory", "{content}/errors/gone.json"),
])
def test_an_os_error_about_a_path_the_user_chose_is_theirs(content: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch, error: OSError) -> None:
    out = tmp_path / "site"
    error.filename = error.filename.format(out=out, out_parent=tmp_path, content=content, cache=user_cache())
    crash_with(monkeypatch, error)
    assert run("build", "--content", str(content), "--out", str(out)) == 1
    err = capsys.readouterr().err
    assert "errors/file-system-error/" in err and "bug" not in err


def test_a_reader_that_stops_reading_is_no_bug(content: Path) -> None:
    program = [sys.executable, "-m", "errorsite", "lookup", "--content", str(content), "-"]
    with subprocess.Popen(program, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.stdout.close()  # like `| head -0`: the pipe is gone before errorsite prints
        _, err = proc.communicate(b"max_batch_tokens must be a multiple of 8, got 1001\n" * 2000, timeout=60)
    assert b"bug" not in err and b"Traceback" not in err, err
    assert proc.returncode == 1


@pytest.mark.parametrize("command", [["check"], ["build", "--quiet"], ["extract", "."]])
def test_a_command_run_in_a_folder_deleted_under_it_says_so(tmp_path: Path, command: list[str]) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); from errorsite import cli; sys.exit(cli.main(sys.argv[2:]))"
    result = subprocess.run([sys.executable, "-c", script, str(gone), *command], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.startswith("error: the current folder no longer exists")
    assert "errors/working-folder-gone/" in result.stderr and "this is a bug" not in result.stderr
