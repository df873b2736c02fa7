"""Linking messages to pages from the published patterns.json, as a library would."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from generator import link, load, render, validate

from conftest import FIXTURES

BASE = "https://example.github.io/tinyserve/errors/"


@pytest.fixture(scope="module")
def patterns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = render.render_site(validate.build_site(load.load(FIXTURES / "basic")))
    path = tmp_path_factory.mktemp("api") / "patterns.json"
    path.write_bytes(files["api/patterns.json"])
    return path


def test_patterns_json_lists_active_records_only(patterns: Path) -> None:
    data = json.loads(patterns.read_text())
    assert data["version"] == 1
    assert [p["id"] for p in data["patterns"]] == ["batch-tokens-below-chunk", "batch-tokens-multiple"]
    assert data["patterns"][1]["pattern"] == ["max_batch_tokens must be a multiple of 8, got ", None]


@pytest.mark.parametrize("message, page", [
    ("max_batch_tokens (1024) must be at least chunk_size (4096); raise --max-batch-tokens or lower --chunk-size.",
     "batch-tokens-below-chunk"),
    ("max_batch_tokens must be a multiple of 8, got 1001", "batch-tokens-multiple"),
    ("MAX_BATCH_TOKENS must be a multiple of 8,\n   got 3", "batch-tokens-multiple"),
])
def test_url_for_a_concrete_message(patterns: Path, message: str, page: str) -> None:
    assert link.Linker.from_file(patterns).url_for(message, "ValueError") == f"{BASE}{page}/"


def test_no_url_for_an_unknown_message(patterns: Path) -> None:
    linker = link.Linker.from_file(patterns)
    assert linker.url_for("something else entirely") is None
    assert linker.url_for("max_batch_tokens must be a multiple of 16") is None


def test_module_level_url_for_reads_the_environment(patterns: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link, "_default", None)
    monkeypatch.delenv("ERRORSITE_PATTERNS", raising=False)
    assert link.url_for("max_batch_tokens must be a multiple of 8, got 1") is None
    monkeypatch.setenv("ERRORSITE_PATTERNS", str(patterns))
    assert link.url_for("max_batch_tokens must be a multiple of 8, got 1") == f"{BASE}batch-tokens-multiple/"


def test_annotate_adds_the_link_once_per_page(patterns: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(link.OPT_OUT, raising=False)
    linker = link.Linker.from_file(patterns)
    first = linker.annotate(ValueError("max_batch_tokens must be a multiple of 8, got 1"))
    again = linker.annotate(ValueError("max_batch_tokens must be a multiple of 8, got 2"))
    assert first.__notes__ == [f"See {BASE}batch-tokens-multiple/"]
    assert not hasattr(again, "__notes__")


HOOKED = """
import sys
sys.path.insert(0, {gen!r})
import link
link.use({patterns!r}).install()
for n in (1, 2):
    try:
        raise ValueError(f"max_batch_tokens must be a multiple of 8, got {{n}}")
    except ValueError as error:
        sys.excepthook(type(error), error, error.__traceback__)
raise ValueError("max_batch_tokens must be a multiple of 8, got 3")
"""


@pytest.mark.parametrize("opt_out, expected", [("", 1), ("1", 0), ("0", 1)])
def test_vendored_hook_prints_the_link_once_and_honours_the_opt_out(patterns: Path, opt_out: str, expected: int) -> None:
    script = HOOKED.format(gen=str(Path(link.__file__).parent), patterns=str(patterns))
    env = {"PATH": "/usr/bin:/bin", link.OPT_OUT: opt_out}
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, env=env)
    assert result.returncode == 1
    assert result.stderr.count("Traceback") == 3
    assert result.stderr.count(f"See {BASE}batch-tokens-multiple/") == expected


@pytest.mark.parametrize("data", [{"version": 2, "patterns": []}, {"version": 1, "errors": []}])
def test_a_file_that_is_not_patterns_json_is_a_clear_error(data: dict) -> None:
    with pytest.raises(ValueError, match="errors/patterns-version/"):
        link.Linker(data)
