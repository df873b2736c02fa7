"""Who wrote a page, told honestly: the provenance line, the draft notice, lists, search and the coverage counts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from errorsite import cli, load, render, validate
from errorsite.search.index import index_of

from conftest import edit_record

DRAFT = {"by": "ai-assisted", "model": "tiny-7b", "date": "2026-11-20", "commit": "abcdef1234567"}


def drafted(data: dict[str, Any]) -> None:
    data["analysis"] = dict(DRAFT)


def reviewed(data: dict[str, Any]) -> None:
    data["analysis"] = {**DRAFT, "reviewed": {"by": "Ada Lovelace", "date": "2026-11-25"}}


def unwritten_with_a_drafted_check(data: dict[str, Any]) -> None:
    drafted(data)
    data.update(meaning="Drafted meaning.", solutions=["Drafted fix."],
                example_fix={"before": "a", "after": "b", "check": {"before": "false", "after": "true"}})


def site_files(content: Path) -> dict[str, str]:
    site = validate.build_site(load.load(content))
    return {path: data.decode() for path, data in render.render_site(site).items() if path.endswith((".html", ".js"))}


def footer(html: str) -> str:
    found = re.search(r'<footer class="provenance">\s*<p>(.*?)</p>', html, re.S)
    assert found
    return re.sub(r"<[^>]+>", "", found.group(1))


def test_a_draft_says_who_drafted_it_and_that_no_person_reviewed_it(content: Path) -> None:
    edit_record(content, "batch-tokens-below-chunk", drafted)
    html = site_files(content)["errors/batch-tokens-below-chunk/index.html"]
    assert footer(html) == ("AI-assisted analysis of example/tinyserve@abcdef1234 (2026-11-20), model tiny-7b, "
                            "not yet reviewed by a person.")
    assert "AI-assisted draft, not yet reviewed by a person." in html
    assert html.index("AI-assisted draft") < html.index('<h2 id="message">')


def test_a_reviewed_draft_names_its_reviewer_and_drops_the_notice(content: Path) -> None:
    edit_record(content, "batch-tokens-below-chunk", reviewed)
    html = site_files(content)["errors/batch-tokens-below-chunk/index.html"]
    assert footer(html) == ("AI-assisted analysis of example/tinyserve@abcdef1234 (2026-11-20), model tiny-7b. "
                            "Reviewed by Ada Lovelace on 2026-11-25.")
    assert "not yet reviewed" not in html


def test_a_page_of_a_site_without_a_repo_names_the_commit_alone(content: Path) -> None:
    # `init` in a repository with no git remote writes no repo: the footer has no owner/name to give.
    settings = content / "site.toml"
    settings.write_text(settings.read_text().replace('repo = "example/tinyserve"\n', ""))
    edit_record(content, "batch-tokens-below-chunk", lambda d: d["source"].pop("repo", None))
    edit_record(content, "batch-tokens-multiple", drafted)
    pages = site_files(content)
    assert footer(pages["errors/batch-tokens-multiple/index.html"]) == (
        "AI-assisted analysis at commit abcdef1234 (2026-11-20), model tiny-7b, not yet reviewed by a person.")
    html = pages["errors/batch-tokens-below-chunk/index.html"]
    assert "example/tinyserve" not in html
    assert re.match(r"(Written by hand|Extracted from the source)( \(\d{4}-\d\d-\d\d\))? at commit [0-9a-f]{10}\.$",
                    footer(html)), footer(html)


def test_a_drafted_check_is_not_shown_as_checked_before_verify_holds(content: Path) -> None:
    edit_record(content, "batch-tokens-multiple", unwritten_with_a_drafted_check)
    html = site_files(content)["errors/batch-tokens-multiple/index.html"]
    assert "Example fix" in html and "Example checked" not in html and "How it was checked" not in html


def test_lists_search_and_coverage_tell_written_drafted_and_skeleton_apart(content: Path) -> None:
    edit_record(content, "batch-tokens-multiple", unwritten_with_a_drafted_check)
    edit_record(content, "old-kv-dtype", lambda d: [d.pop(k, None) for k in ("meaning", "solutions", "example_fix",
                                                                              "when", "analysis")])
    files = site_files(content)
    listing = files["errors/index.html"]
    assert "3 errors, 2 written (1 of them AI-assisted drafts not yet reviewed)." in re.sub(r"<[^>]+>", "", listing)
    item = re.search(r'<li><a href="[^"]*batch-tokens-multiple/index.html">.*?</li>', listing, re.S)
    assert item and "AI draft, not reviewed" in item.group()
    person = re.search(r'<li><a href="[^"]*batch-tokens-below-chunk/index.html">.*?</li>', listing, re.S)
    assert person and "AI draft" not in person.group()
    home = re.sub(r"<[^>]+>", "", files["index.html"])
    assert ("1 of 3 pages written or reviewed by a person (33%); 1 drafted with AI assistance, not yet reviewed; "
            "1 from the code only") in home
    index = index_of(validate.build_site(load.load(content)))
    at = index["fields"].index("written")
    assert {row[0]: row[at] for row in index["records"]} == {
        "batch-tokens-below-chunk": 2, "batch-tokens-multiple": 1, "old-kv-dtype": 0}
    assert "AI draft, not reviewed" in files["static/search.js"]


def test_check_counts_each_kind_of_page(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_record(content, "batch-tokens-multiple", unwritten_with_a_drafted_check)
    assert cli.main(["check", "--content", str(content)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # The removed record is not counted: these are the pages of errors the code raises now.
    assert lines == ["active pages: 1 written or reviewed by a person, 1 drafted (not yet reviewed), "
                     "0 from the code only", "ok: 3 records, no problems"]


def test_an_unknown_field_in_reviewed_is_a_problem(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_record(content, "batch-tokens-below-chunk",
                lambda d: d.update(analysis={**DRAFT, "reviewed": {"by": "Ada", "date": "2026-11-25", "ok": True}}))
    assert cli.main(["check", "--content", str(content)]) == 1
    assert "/analysis/reviewed/ok: unknown field 'ok'" in capsys.readouterr().err


def test_the_record_json_keeps_the_provenance(content: Path) -> None:
    edit_record(content, "batch-tokens-below-chunk", reviewed)
    site = validate.build_site(load.load(content))
    data = json.loads(render.render_site(site)["api/errors/batch-tokens-below-chunk.json"])
    assert data["analysis"]["reviewed"] == {"by": "Ada Lovelace", "date": "2026-11-25"}
    assert data["analysis"]["model"] == "tiny-7b"


def test_build_counts_each_kind_of_page_after_a_whole_build_an_edit_and_no_change(
        content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"

    def pages_line() -> str:
        assert cli.main(["build", "--content", str(content), "--out", str(out)]) == 0
        return capsys.readouterr().out.splitlines()[-1]

    assert pages_line() == "pages: 2 written or reviewed by a person, 0 drafted (not yet reviewed), 1 from the code only"
    edit_record(content, "batch-tokens-multiple", unwritten_with_a_drafted_check)
    assert pages_line() == "pages: 2 written or reviewed by a person, 1 drafted (not yet reviewed), 0 from the code only"
    assert pages_line() == "pages: 2 written or reviewed by a person, 1 drafted (not yet reviewed), 0 from the code only"
    edit_record(content, "batch-tokens-multiple", lambda d: d["analysis"].update(reviewed={"by": "Ada", "date": "2026-12-01"}))
    assert pages_line() == "pages: 3 written or reviewed by a person, 0 drafted (not yet reviewed), 0 from the code only"
    home = (out / "index.html").read_text()
    assert "<strong>3 of 3</strong> pages written or reviewed by a person (100%)." in home
