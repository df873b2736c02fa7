"""Data inside a page's `<script>` elements and in the search index's scripts: nothing in it ends the
element or changes how the HTML parser reads the rest of the page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser_support import open_tab

from errorsite import cli
from errorsite.scriptdata import script_safe
from errorsite.search import shards
from errorsite.search.index import read_index_script

HOSTILE = "<!--<script>"
MESSAGE = f"the option {HOSTILE} is not known; see </SCRIPT > and <Script"
RELEASE = f"v1{HOSTILE}"
VERSIONS = [{"release": RELEASE, "change": "added", "message": MESSAGE},
            {"release": "v2</script>", "change": "changed", "message": "the option is not known"}]
PARSER_SEQUENCES = re.compile(r"<!--|<script|</script", re.IGNORECASE)
"""What makes the HTML parser end a script element or read on past its end."""


def test_script_safe_json_reads_the_same_and_has_no_markup() -> None:
    data = {"a": MESSAGE, "b": [RELEASE, "x < y", "<\u2028>"]}
    text = json.dumps(data, ensure_ascii=False)
    for safe in (script_safe(text), script_safe(text.encode()).decode()):
        assert "<" not in safe
        assert json.loads(safe) == data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a built site whose one error has a message and a release that hold what a script must not."""
    content = tmp_path_factory.mktemp("content")
    (content / "errors").mkdir()
    (content / "site.toml").write_text('title = "Lib errors"\nbase_url = "https://example.org/lib/"\n')
    record = {"id": "e", "exception": "ValueError", "message": "the option is not known", "tags": ["web"],
              "source": {"commit": "a" * 40, "path": "m.py", "line": 1, "snippet": {"start": 1, "code": "raise X"}},
              "variants": [{"message": MESSAGE, "kind": "earlier", "until": "2" * 40}],
              "history": [{"release": RELEASE, "commit": "1" * 40, "change": "added"},
                          {"release": "v2</script>", "commit": "2" * 40, "change": "changed"}]}
    (content / "errors" / "e.json").write_text(json.dumps(record))
    out = tmp_path_factory.mktemp("site")
    assert cli.main(["build", "--content", str(content), "--out", str(out), "--quiet"]) == 0
    return out


def test_the_versions_script_holds_nothing_the_html_parser_acts_on(site: Path) -> None:
    page = (site / "errors" / "e" / "index.html").read_text(encoding="utf-8")
    start = page.index('<script type="application/json" id="versions">')
    data = page[page.index(">", start) + 1:page.index("</script>", start)]
    assert not PARSER_SEQUENCES.search(data)
    assert json.loads(data) == VERSIONS


def test_the_search_index_and_its_fragments_hold_no_markup(site: Path) -> None:
    index = (site / "search-index.js").read_bytes()
    assert b"<" not in index
    assert MESSAGE in json.dumps(read_index_script(index), ensure_ascii=False)
    fragments = [p for p in (site / "search").rglob("*.js")]
    assert fragments
    assert not [p for p in fragments if b"<" in p.read_bytes()]
    rows = [shards.read_script(p.read_bytes()) for p in (site / "search").rglob("r/*.js")]
    assert MESSAGE in json.dumps(rows, ensure_ascii=False)


@pytest.mark.browser
def test_the_page_keeps_its_tags_message_and_version_script(browser: Any, site: Path) -> None:
    page_url = (site / "errors" / "e" / "index.html").as_uri()
    with open_tab(browser, "http://127.0.0.1:9") as tab:
        tab.page.goto(f"{page_url}?v={quote(RELEASE)}")
        # The element ends where the page ends it: what follows it is markup again, not script text.
        assert json.loads(tab.page.text_content("#versions")) == VERSIONS
        assert tab.page.eval_on_selector_all("main .tags li", "es => es.map(e => e.textContent)") == ["#web"]
        assert MESSAGE in tab.page.inner_text(".variants")
        tab.page.wait_for_selector("#reader-version:not([hidden])")
        assert tab.page.inner_text("#reader-version") == (
            f"Version {RELEASE} raises this error, worded as it was before release v2</script>: {MESSAGE}")
