"""CI runs the README's test command with every test, and a skipped test fails it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from no_skip import NO_SKIP

ROOT = Path(__file__).resolve().parent.parent

SAMPLE = """
import pytest

@pytest.mark.skip(reason="no tool here")
def test_marked() -> None:
    pass

def test_skips_itself() -> None:
    pytest.skip("no interpreter here")

@pytest.mark.xfail(reason="known")
def test_expected_failure() -> None:
    assert False

def test_passes() -> None:
    pass
"""


def test_a_skip_fails_the_run_when_skips_are_forbidden(pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_sample=SAMPLE)
    monkeypatch.setenv(NO_SKIP, "1")
    result = pytester.runpytest_inprocess("-p", "no_skip")
    result.assert_outcomes(passed=1, failed=1, errors=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"*skipped, which {NO_SKIP} forbids: no tool here*",
                                 f"*skipped, which {NO_SKIP} forbids: no interpreter here*"])


def test_a_module_skipped_whole_fails_the_run_when_skips_are_forbidden(pytester: pytest.Pytester,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_sample="import pytest\npytest.importorskip('no_such_module_anywhere')\n"
                                    "def test_a() -> None:\n    pass\n")
    monkeypatch.setenv(NO_SKIP, "1")
    result = pytester.runpytest_inprocess("-p", "no_skip")
    assert result.ret != pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"*skipped, which {NO_SKIP} forbids: *no_such_module_anywhere*"])


@pytest.mark.parametrize("value", [None, "0"])
def test_skips_stay_skips_on_a_developers_machine(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                  value: str | None) -> None:
    pytester.makepyfile(test_sample=SAMPLE)
    if value is None:
        monkeypatch.delenv(NO_SKIP, raising=False)
    else:
        monkeypatch.setenv(NO_SKIP, value)
    result = pytester.runpytest_inprocess("-p", "no_skip")
    result.assert_outcomes(passed=1, skipped=2, xfailed=1)
    assert result.ret == pytest.ExitCode.OK


def test_ci_runs_the_readme_test_command_unchanged_with_skips_forbidden() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    pattern = re.search(r"grep -m1 -E '([^']+)' README\.md", ci)
    assert pattern, ".ci/run no longer takes its test command from README.md"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if re.search(pattern[1], line))
    words = shlex.split(command)
    assert words[-3:] == [".venv/bin/python", "-m", "pytest"], "the README's test command must run every test"
    assert re.search(rf"^export {NO_SKIP}=1$", ci[:ci.index('bash -c "$test_command"')], re.M)


def test_the_markers_of_what_a_test_needs_are_registered(pytestconfig: pytest.Config) -> None:
    registered = {line.split(":", 1)[0] for line in pytestconfig.getini("markers")}
    assert {"browser", "node", "java"} <= registered
