"""mypy over `generator/`, with the settings in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    """Return mypy's run from the repository's root, which reads `[tool.mypy]` and keeps `.mypy_cache/` there."""
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_generator_has_no_type_error() -> None:
    done = mypy()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues found" in done.stdout


def test_the_settings_reject_what_the_code_must_not_do(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def untyped(x):\n"
        "    y = 1\n"
        "    return y.nothing\n"
        "\n"
        "def implicit_optional(x: int = None) -> int:\n"
        "    return 1\n"
        "\n"
        "def unused_ignore() -> int:\n"
        "    return 1  # type: ignore[return-value]\n",
        encoding="utf-8")
    done = mypy(str(sample))
    found = {line.rsplit("[", 1)[-1].rstrip("]") for line in done.stdout.splitlines() if ": error: " in line}
    assert found == {"no-untyped-def", "assignment", "unused-ignore", "attr-defined"}, done.stdout
