"""Every page passes the Nu HTML Checker, the W3C's validator, with no error and no warning.

The checker runs once over every page and stylesheet of all the sites, in one JVM: most of a run
is the JVM starting and warming up, paid once instead of once per site.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from browser_support import VNU_JAR, BuiltSite, Sites, require_java

pytestmark = [pytest.mark.java, pytest.mark.node]


SITES = ["embedded", "basic", "hostile", "synthetic", "library"]


def vnu_files(files: list[str]) -> list[dict]:
    """Return every message the checker has about `files`, warnings and notes included."""
    java = require_java()
    result = subprocess.run(
        [java, "-Xss8m", "-jar", str(VNU_JAR), "--format", "json", "--also-check-css", *files],
        capture_output=True, text=True, timeout=600,
    )
    # The checker writes its report to stderr and exits 1 when it has anything to say.
    report = json.loads(result.stderr or result.stdout)
    return report["messages"]


def files_of(site: BuiltSite) -> list[str]:
    """Return the site's pages and its stylesheet, the files the checker reads."""
    pages = [str(site.out_path / page) for page in site.pages()]
    assert pages, f"{site.name} has no pages"
    return [*pages, str(site.out_path / "static" / "style.css")]


def vnu(site: BuiltSite) -> list[dict]:
    """Return every message the checker has about the site's pages and CSS, warnings and notes included."""
    return vnu_files(files_of(site))


@pytest.fixture(scope="module")
def messages_by_site(sites: Sites) -> dict[str, list[dict]]:
    """Return the checker's messages about each site, from one run over all of them.

    A message about no file of a site (one without a URL, say) counts against every site.
    """
    built = [sites[name] for name in SITES]
    messages = vnu_files([file for site in built for file in files_of(site)])
    prefixes = {site.name: f"file:{site.out_path}/" for site in built}
    found: dict[str, list[dict]] = {name: [] for name in SITES}
    for message in messages:
        owners = [name for name, prefix in prefixes.items() if message.get("url", "").startswith(prefix)]
        for name in owners or SITES:
            found[name].append(message)
    return found


def described(messages: list[dict], site: BuiltSite) -> str:
    """Return the messages as `page:line: type: message` lines, the first 40 of them."""
    lines = []
    for m in messages[:40]:
        page = m.get("url", "").removeprefix(f"file:{site.out_path}/")
        kind = m["type"] + (f"/{m['subType']}" if "subType" in m else "")
        lines.append(f"{page}:{m.get('lastLine', '?')}: {kind}: {m['message']}")
    return "\n".join(lines) + (f"\n... and {len(messages) - 40} more" if len(messages) > 40 else "")


@pytest.mark.parametrize("name", SITES)
def test_every_page_is_valid_html(sites: Sites, messages_by_site: dict[str, list[dict]], name: str) -> None:
    site = sites[name]
    messages = messages_by_site[name]
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
