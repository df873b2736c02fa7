"""Every page passes the Nu HTML Checker, the W3C's validator, with no error and no warning.

The checker runs once per site over all its pages and its stylesheet, in one JVM.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from browser_support import VNU_JAR, BuiltSite, Sites, require_java

pytestmark = [pytest.mark.java, pytest.mark.node]


def vnu(site: BuiltSite) -> list[dict]:
    """Return every message the checker has about the site's pages and CSS, warnings and notes included."""
    java = require_java()
    pages = [str(site.out_path / page) for page in site.pages()]
    assert pages, f"{site.name} has no pages"
    result = subprocess.run(
        [java, "-Xss8m", "-jar", str(VNU_JAR), "--format", "json", "--also-check-css",
         *pages, str(site.out_path / "static" / "style.css")],
        capture_output=True, text=True, timeout=300,
    )
    # The checker writes its report to stderr and exits 1 when it has anything to say.
    report = json.loads(result.stderr or result.stdout)
    return report["messages"]


def described(messages: list[dict], site: BuiltSite) -> str:
    """Return the messages as `page:line: type: message` lines, the first 40 of them."""
    lines = []
    for m in messages[:40]:
        page = m.get("url", "").removeprefix(f"file:{site.out_path}/")
        kind = m["type"] + (f"/{m['subType']}" if "subType" in m else "")
        lines.append(f"{page}:{m.get('lastLine', '?')}: {kind}: {m['message']}")
    return "\n".join(lines) + (f"\n... and {len(messages) - 40} more" if len(messages) > 40 else "")


@pytest.mark.parametrize("name", ["embedded", "basic", "hostile", "synthetic", "library"])
def test_every_page_is_valid_html(sites: Sites, name: str) -> None:
    site = sites[name]
    messages = vnu(site)
    assert messages == [], f"{len(messages)} messages from the Nu HTML Checker:\n{described(messages, site)}"


def test_the_checker_reports_what_it_finds(tmp_path: Path) -> None:
    # Guards the test above: a checker that silently checks nothing would pass it.
    broken = tmp_path / "broken"
    (broken / "static").mkdir(parents=True)
    (broken / "index.html").write_text("<!doctype html><html><p>no title, no lang")
    (broken / "static" / "style.css").write_text("p{colour:red}")
    messages = vnu(BuiltSite("broken", broken))
    assert {m["type"] for m in messages} == {"error", "info"}
    assert any("title" in m["message"] for m in messages)
    assert any("colour" in m["message"] for m in messages)
