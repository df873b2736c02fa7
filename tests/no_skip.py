"""Under ERRORSITE_NO_SKIP (`.ci/run` sets it), a skipped test fails the run.

Loaded as a pytest plugin from conftest.py. CI must run every test: a skip
there hides a missing tool or interpreter, so it is reported as a failure
with the skip's reason. A developer's run is unchanged: skips stay skips, and
`-m "not browser"` deselects (it does not skip).
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

NO_SKIP = "ERRORSITE_NO_SKIP"


def skips_forbidden() -> bool:
    """Return whether the environment asks for a run without skips."""
    return os.environ.get(NO_SKIP, "") not in ("", "0")


def _fail(report: pytest.TestReport | pytest.CollectReport) -> None:
    reason = report.longrepr[2].removeprefix("Skipped: ") if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"skipped, which {NO_SKIP} forbids: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Turn a skipped test (not an expected failure) into a failed one when skips are forbidden."""
    report = yield
    if report.skipped and not hasattr(report, "wasxfail") and skips_forbidden():
        _fail(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Turn a module skipped as a whole into a collection error when skips are forbidden."""
    report = yield
    if report.skipped and skips_forbidden():
        _fail(report)
    return report
