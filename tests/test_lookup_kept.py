"""lookup --content keeps its answers in the user's cache: a later lookup of the same folder reads no record."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from errorsite import cli, load, lookup
from errorsite.sitebuild.paths import lookup_path

from conftest import edit_record

MESSAGES = [
    "ValueError: max_batch_tokens must be a multiple of 8, got 1001",
    'Traceback (most recent call last):\n  File "tinyserve/config/batching.py", line 10, in check_batching\n'
    "ValueError: max_batch_tokens must be a multiple of 8, got 1001\n",
    "RuntimeError: worker 3 failed: max_batch_tokens must be a multiple of 8, got 1001",
    "zzqx of the",
]


def settle(content: Path) -> None:
    """Date every file of `content` a minute back, as files are once the clock has moved past their writes."""
    past = time.time() - 60
    for path in [content / "site.toml", *(content / "errors").iterdir()]:
        os.utime(path, (past, past))


def answers(content: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> list[tuple[int, str]]:
    out = []
    for message in MESSAGES:
        code = cli.main(["lookup", message, "--content", str(content), *extra])
        out.append((code, capsys.readouterr().out))
    return out


def no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make reading the content folder's records fail, so that only the kept answers can answer."""
    def refuse(folder: Path) -> load.Content:
        raise AssertionError(f"read the records of {folder}")

    monkeypatch.setattr(load, "load", refuse)


def test_a_second_lookup_answers_from_what_the_first_kept(content: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    settle(content)
    first = answers(content, capsys)
    assert first[0][0] == 0 and "errors/batch-tokens-multiple/  [full]" in first[0][1]
    assert lookup_path(content, lookup.FORMAT).is_file()
    with monkeypatch.context() as patched:
        no_reading(patched)
        assert answers(content, capsys) == first
    # Another base URL is another answer: the folder is read again.
    other = answers(content, capsys, "--base-url", "https://docs.example.org/ref/")
    assert "https://docs.example.org/ref/errors/batch-tokens-multiple/" in other[0][1]


@pytest.mark.parametrize("change", ["reword", "add", "remove", "settings"])
def test_a_changed_folder_is_read_again(content: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    settle(content)
    answers(content, capsys)
    errors = content / "errors"
    if change == "reword":
        edit_record(content, "batch-tokens-multiple",
                    lambda d: d.update(message="max_batch_tokens must be divisible by 8, got {max_batch_tokens}"))
    elif change == "add":
        copy = (errors / "old-kv-dtype.json").read_text().replace('"old-kv-dtype"', '"old-kv-dtype-again"')
        (errors / "old-kv-dtype-again.json").write_text(copy)
    elif change == "remove":
        (errors / "batch-tokens-multiple.json").unlink()
    else:
        settings = content / "site.toml"
        settings.write_text(settings.read_text().replace("https://example.github.io/tinyserve/",
                                                         "https://example.github.io/other/"))
    reads = []
    real = load.load
    monkeypatch.setattr(load, "load", lambda folder: reads.append(folder) or real(folder))
    code = cli.main(["lookup", "ValueError: max_batch_tokens must be divisible by 8, got 1001", "--content", str(content)])
    out = capsys.readouterr().out
    assert reads == [content]
    if change == "reword":
        assert code == 0 and out.startswith("https://example.github.io/tinyserve/errors/batch-tokens-multiple/  [full]")
    elif change == "add":
        code = cli.main(["lookup", "old-kv-dtype-again", "--content", str(content)])
        assert "errors/old-kv-dtype-again/" in capsys.readouterr().out
    elif change == "remove":
        assert "batch-tokens-multiple" not in out
    else:
        assert "https://example.github.io/other/" in out


def test_a_file_changed_just_now_is_not_kept(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A file written this second may be written again keeping its size and time: nothing is kept.
    settle(content)
    os.utime(content / "errors" / "old-kv-dtype.json")
    answers(content, capsys)
    assert not lookup_path(content, lookup.FORMAT).exists()
    settle(content)
    answers(content, capsys)
    assert lookup_path(content, lookup.FORMAT).is_file()


def test_a_damaged_kept_file_is_made_again(content: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    settle(content)
    first = answers(content, capsys)
    kept = lookup_path(content, lookup.FORMAT)
    for damage in (b"not a database", kept.read_bytes()[: kept.stat().st_size // 3]):
        kept.write_bytes(damage)
        assert answers(content, capsys) == first
        with monkeypatch.context() as patched:
            no_reading(patched)
            assert answers(content, capsys) == first


def test_invalid_content_is_reported_and_not_kept(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_record(content, "old-kv-dtype", lambda d: d.pop("exception"))
    settle(content)
    assert cli.main(["lookup", MESSAGES[0], "--content", str(content)]) == 1
    assert "old-kv-dtype.json" in capsys.readouterr().err
    assert not lookup_path(content, lookup.FORMAT).exists()


def test_a_cache_that_is_not_errorsites_own_is_not_used(content: Path, capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cache = tmp_path / "cache"
    (cache / "errorsite").mkdir(parents=True)
    (cache / "errorsite" / "lookup").symlink_to(elsewhere)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    settle(content)
    assert cli.main(["lookup", MESSAGES[0], "--content", str(content)]) == 0
    captured = capsys.readouterr()
    assert "errors/batch-tokens-multiple/  [full]" in captured.out
    assert "lookup reads every record: refused to use the build cache" in captured.err and "is a link" in captured.err
    assert list(elsewhere.iterdir()) == []
