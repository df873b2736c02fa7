"""Pages of an error's releases: the line under the title, earlier wordings, reviews, tombstones,
release pages, the "What changed" index and api/releases.json, from a repository with tags."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser_support import open_tab
from test_gitrepo import Repo
from test_history import LOADER, STEADY, WORDINGS, by_message, tag

from errorsite import load, releases, render, validate
from errorsite.extract import history, sync
from errorsite.search import shards
from errorsite.sitebuild import pipeline


def text(html: str) -> str:
    """Return the words of some HTML, tags dropped and spaces squeezed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


def section(page: str, start: str, end: str) -> str:
    return page[page.index(start):page.index(end, page.index(start))]


@pytest.fixture
def built(tmp_path: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict]]:
    """Return the site of a repository whose tags add, reword, move, remove and raise again one error;
    another error is raised in two places until one of them goes."""
    repo = Repo(tmp_path / "repo")
    shared = 'def {name}():\n    raise KeyError("no such plugin is installed")\n'
    commits = {
        "v1.0": tag(repo, "v1.0", {"pkg/config.py": LOADER.format(wording=WORDINGS[0]), "pkg/steady.py": STEADY,
                                   "pkg/a.py": shared.format(name="a"), "pkg/b.py": shared.format(name="b")}),
        "v1.1": tag(repo, "v1.1", {"pkg/config.py": LOADER.format(wording=WORDINGS[1])}),
        "v2.0": tag(repo, "v2.0", {"pkg/config.py": LOADER.format(wording=WORDINGS[2]), "pkg/a.py": None}),
        "v2.1": tag(repo, "v2.1", {"pkg/config.py": None, "pkg/loading.py": LOADER.format(wording=WORDINGS[2])}),
        "v3.0": tag(repo, "v3.0", {"pkg/loading.py": "def load(path):\n    return path\n"}),
        "v3.1": tag(repo, "v3.1", {"pkg/loading.py": LOADER.format(wording=WORDINGS[2])}),
    }
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.toml").write_text('title = "Lib errors"\nbase_url = "https://example.org/lib/"\n')
    # The records were first extracted at v1.0, as a project that documents its errors would have.
    sync.run(repo.path, "v1.0", content_dir=content, repo="owner/lib")
    sync.run(repo.path, content_dir=content, repo="owner/lib")
    history.run(repo.path, content, repo="owner/lib")
    site = validate.build_site(load.load(content))
    files = {path: data.decode() for path, data in render.render_site(site).items()}
    return files, commits, by_message(content)


def test_the_line_under_the_title_tells_the_story_in_releases(built: tuple[dict[str, str], dict[str, str], dict[str, dict]]) -> None:
    files, _, records = built
    page = files[f"errors/{records[WORDINGS[2]]['id']}/index.html"]
    assert text(section(page, '<p class="releases">', "</p>")) == (
        "Raised since v1.0 · wording changed in v1.1, v2.0 · no longer raised as of v3.0 · raised again in v3.1")
    assert '<a href="../../releases/v1.1/index.html">v1.1</a>' in page
    variants = text(section(page, '<ul class="variants">', "</ul>"))
    assert f"Earlier wording, printed from v1.0 until v1.1 changed it {WORDINGS[0]}" in variants
    assert f"Earlier wording, printed from v1.1 until v2.0 changed it {WORDINGS[1]}" in variants
    data = json.loads(section(page, '<script type="application/json" id="versions">', "</script>").split(">", 1)[1])
    assert data == [
        {"release": "v1.0", "change": "added", "message": WORDINGS[0]},
        {"release": "v1.1", "change": "changed", "message": WORDINGS[1]},
        {"release": "v2.0", "change": "changed", "message": WORDINGS[2]},
        {"release": "v3.0", "change": "removed", "message": None},
        {"release": "v3.1", "change": "added", "message": WORDINGS[2]},
    ]
    assert '<script src="../../static/version.js" defer></script>' in page
    steady = files[f"errors/{records['n must be an int, got {n!r}']['id']}/index.html"]
    assert text(section(steady, '<p class="releases">', "</p>")) == "Raised since v1.0"


def test_a_removed_error_names_its_release_and_where_its_message_is_raised_now(
        built: tuple[dict[str, str], dict[str, str], dict[str, dict]]) -> None:
    files, _, records = built
    pages = [p for path, p in files.items() if path.startswith("errors/") and "no such plugin" in p and "removed" in p]
    removed = [p for p in pages if 'class="notice removed"' in p]
    assert len(removed) == 1
    notice = text(section(removed[0], '<p class="notice removed"', "</p>"))
    assert notice == ("No longer raised. Release v2.0 and later do not raise this error. This page stays so that links"
                      " from older versions keep working. The same message is now raised at pkg/b.py:2.")
    left = records[WORDINGS[0]]
    assert left["status"] == "removed" and left["history"][-1]["change"] == "removed"
    assert text(section(files[f"errors/{left['id']}/index.html"], '<p class="notice removed"', "</p>")) == (
        "No longer raised. Release v1.1 and later do not raise this error. This page stays so that links from older"
        " versions keep working. It is now raised, reworded, at pkg/loading.py:4.")


def test_release_pages_list_what_each_release_added_reworded_and_removed(
        built: tuple[dict[str, str], dict[str, str], dict[str, dict]]) -> None:
    files, commits, records = built
    loader = records[WORDINGS[2]]
    page = files["releases/v2.0/index.html"]
    assert "<h1>Release v2.0</h1>" in page
    assert text(section(page, '<p class="lead">', "</p>")) == (
        f"2 errors changed in this release, tagged at commit {commits['v2.0'][:10]}.")
    reworded = text(section(page, '<section aria-labelledby="changed">', "</section>"))
    assert reworded == (f"Reworded errors (1) {validate.default_title(WORDINGS[2])} FileNotFoundError Before: {WORDINGS[1]}Now: {WORDINGS[2]}")
    assert "Errors no longer raised (1) no such plugin is installed KeyError" in text(page)
    assert "New errors" not in page
    pasted = unescape(section(page, '<section aria-labelledby="paste">', "</section>"))
    assert (f"- [`FileNotFoundError`: {validate.default_title(WORDINGS[2])}](https://example.org/lib/errors/{loader['id']}/):"
            f" {WORDINGS[1]} → {WORDINGS[2]}") in pasted
    first = text(files["releases/v1.1/index.html"])
    assert f"Before: {WORDINGS[0]}Now: {WORDINGS[1]}" in first  # the wording of that release, not today's
    index = files["releases/index.html"]
    assert re.findall(r'<a href="\.\./(releases/[^"]+)">', index) == [
        "releases/v3.1/index.html", "releases/v3.0/index.html", "releases/v2.0/index.html",
        "releases/v1.1/index.html", "releases/v1.0/index.html"]
    assert "releases/v2.1/index.html" not in files  # a move changes no error


def test_api_releases_carries_the_same(built: tuple[dict[str, str], dict[str, str], dict[str, dict]]) -> None:
    files, commits, records = built
    data = json.loads(files["api/releases.json"])
    assert [r["release"] for r in data["releases"]] == ["v3.1", "v3.0", "v2.0", "v1.1", "v1.0"]
    v2 = data["releases"][2]
    loader = records[WORDINGS[2]]
    assert v2["commit"] == commits["v2.0"] and v2["url"] == "https://example.org/lib/releases/v2.0/"
    assert v2["added"] == []
    assert v2["changed"] == [{"id": loader["id"], "exception": "FileNotFoundError", "message": WORDINGS[2],
                              "title": validate.default_title(WORDINGS[2]), "url": f"https://example.org/lib/errors/{loader['id']}/",
                              "earlier": WORDINGS[1], "wording": WORDINGS[2]}]
    assert [e["message"] for e in v2["removed"]] == ["no such plugin is installed"]
    # Five raise sites; the record extract left behind when the loader moved and was reworded in one step is not a sixth.
    assert len(data["releases"][-1]["added"]) == 5
    record = json.loads(files[f"api/errors/{loader['id']}.json"])
    assert record["history"][0] == {"release": "v1.0", "commit": commits["v1.0"], "change": "added"}


def record(history: list[dict[str, str]], **more: object) -> dict[str, object]:
    base = {"id": "e", "exception": "ValueError", "message": "new words",
            "source": {"commit": "a" * 40, "path": "m.py", "line": 1, "snippet": {"start": 1, "code": "raise X"}},
            "meaning": "Prose.", "history": history}
    return {**base, **more}


def review_notice(tmp_path: Path, data: dict[str, object]) -> str:
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    (content / "errors" / "e.json").write_text(json.dumps(data))
    page = render.render_site(validate.build_site(load.load(content)))["errors/e/index.html"].decode()
    return text(section(page, '<p class="notice review"', "</p>"))


def test_the_review_notice_names_the_release_where_the_message_changed(tmp_path: Path) -> None:
    released = record([{"release": "v1", "commit": "1" * 40, "change": "added"},
                       {"release": "v2", "commit": "2" * 40, "change": "changed"}],
                      variants=[{"message": "old words", "kind": "earlier", "until": "2" * 40}],
                      review={"since": "c" * 40, "why": "message changed"})
    assert review_notice(tmp_path / "a", released).startswith(
        "This page may be out of date: the message changed in release v2 (commit cccccccccc).")
    unreleased = record([{"release": "v1", "commit": "1" * 40, "change": "added"}],
                        variants=[{"message": "old words", "kind": "earlier", "until": "c" * 40}],
                        review={"since": "c" * 40, "why": "message changed"})
    assert review_notice(tmp_path / "b", unreleased).startswith(
        "This page may be out of date: the code changed at commit cccccccccc, where the message changed,"
        " not yet in a release.")


def test_a_removed_wording_that_an_active_error_now_prints_reworded_names_it_as_reworded(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    history = [{"release": "v1", "commit": "1" * 40, "change": "added"}]
    gone = record([*history, {"release": "v2", "commit": "2" * 40, "change": "removed"}], status="removed",
                  message="Multi commands in chain mode cannot have optional arguments.")
    now = record([*history, {"release": "v2", "commit": "2" * 40, "change": "changed"}], id="now",
                 message="A group in chain mode cannot have optional arguments.",
                 variants=[{"message": gone["message"], "kind": "earlier", "until": "2" * 40}])
    (content / "errors" / "e.json").write_text(json.dumps(gone))
    (content / "errors" / "now.json").write_text(json.dumps(now))
    page = render.render_site(validate.build_site(load.load(content)))["errors/e/index.html"].decode()
    assert text(section(page, '<p class="notice removed"', "</p>")) == (
        "No longer raised. Release v2 and later do not raise this error. This page stays so that links from older"
        " versions keep working. It is now raised, reworded, at m.py:1.")


def test_what_the_code_did_after_the_last_release_is_said_as_not_yet_released(tmp_path: Path) -> None:
    history = [{"release": "v1", "commit": "1" * 40, "change": "added"},
               {"release": "v2", "commit": "2" * 40, "change": "removed"}]
    for name, data, said in (
            ("again", record(history), "Raised since v1 · no longer raised as of v2 · raised again, not yet in a release"),
            ("gone", record(history[:1], status="removed"), "Raised since v1 · no longer raised, not yet in a release")):
        content = tmp_path / name
        (content / "errors").mkdir(parents=True)
        (content / "errors" / "e.json").write_text(json.dumps(data))
        page = render.render_site(validate.build_site(load.load(content)))["errors/e/index.html"].decode()
        assert text(section(page, '<p class="releases">', "</p>")) == said


def test_release_order_merges_the_histories_and_names_sort_with_numbers() -> None:
    from errorsite.model import Release

    def h(*names: str) -> tuple[Release, ...]:
        return tuple(Release(n, "0" * 40, "added") for n in names)

    assert releases.release_order([h("v1.9", "v1.10"), h("v1.2", "v1.9"), h("v0.9rc1")]) == [
        "v0.9rc1", "v1.2", "v1.9", "v1.10"]
    # Releases no history puts in order go as versions: a release candidate before its release.
    assert releases.release_order([h("8.0.0"), h("8.0.0rc1"), h("8.0.0a1"), h("7.1", "8.0.2")]) == [
        "7.1", "8.0.0a1", "8.0.0rc1", "8.0.0", "8.0.2"]
    assert releases.release_url("v1.0") == "releases/v1.0/index.html"
    assert re.fullmatch(r"releases/release-1\.0-[0-9a-f]{8}/index.html", releases.release_url("release/1.0"))


def test_an_incremental_build_renders_the_release_pages_again_when_a_title_changes(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    data = record([{"release": "v1", "commit": "1" * 40, "change": "added"}])
    (content / "errors" / "e.json").write_text(json.dumps(data))
    pipeline.build(content, tmp_path / "site", jobs=1)
    assert "new words" in (tmp_path / "site" / "releases" / "v1" / "index.html").read_text()
    (content / "errors" / "e.json").write_text(json.dumps({**data, "title": "A better title"}))
    pipeline.build(content, tmp_path / "site", jobs=1)
    assert "A better title" in (tmp_path / "site" / "releases" / "v1" / "index.html").read_text()
    site = tmp_path / "site"
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    prose = {**data, "title": "A better title", "meaning": "Other prose."}
    (content / "errors" / "e.json").write_text(json.dumps(prose))
    result = pipeline.build(content, site, jobs=1)
    assert "Other prose." in (site / "errors" / "e" / "index.html").read_text()
    # Prose alone: the update renders the record's own files and the search index it is in, not the site.
    index = 1 + len(shards.names(1))
    assert not result.full and result.rendered <= 2 + index
    rewritten = {p.relative_to(site).as_posix() for p, t in before.items() if p.stat().st_mtime_ns != t}
    assert {p for p in rewritten if not p.startswith("search")} == {"errors/e/index.html", "api/errors/e.json"}


@pytest.mark.browser
def test_the_page_says_what_the_readers_version_raised_and_nothing_without_javascript(
        browser: Any, built: tuple[dict[str, str], dict[str, str], dict[str, dict]], tmp_path: Path) -> None:
    files, _, records = built
    out = tmp_path / "site"
    for path, body in files.items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(body)
    page_url = (out / "errors" / records[WORDINGS[2]]["id"] / "index.html").as_uri()
    said = {
        "v1.1.5": f"Version v1.1.5 raises this error, worded as it was before release v2.0: {WORDINGS[1]}",
        "1.0": f"Version 1.0 raises this error, worded as it was before release v1.1: {WORDINGS[0]}",
        "v2.0": "Version v2.0 raises this error with the wording shown here.",
        "3.0.2": "Version 3.0.2 does not raise this error: release v3.0 no longer raised it.",
        "v0.9": "Version v0.9 does not raise this error: release v1.0 first raised it.",
        "v3.1rc1": "Version v3.1rc1 does not raise this error: release v3.0 no longer raised it.",
        "4.0": "Version 4.0 raises this error with the wording shown here.",
        "<b>nightly</b>": "This page cannot place version <b>nightly</b> among the releases above.",
    }
    with open_tab(browser, "http://127.0.0.1:9") as tab:
        for version, words in said.items():
            tab.page.goto(f"{page_url}?v={quote(version)}")
            tab.page.wait_for_selector("#reader-version:not([hidden])")
            assert tab.page.inner_text("#reader-version") == words
            assert tab.page.eval_on_selector_all("#reader-version *:not(code)", "es => es.length") == 0
    with open_tab(browser, "http://127.0.0.1:9", javascript=False) as tab:
        tab.page.goto(f"{page_url}?v=1.0")
        assert not tab.page.is_visible("#reader-version")
        assert "wording changed in v1.1, v2.0" in tab.page.inner_text("p.releases")


@pytest.mark.browser
def test_a_pasted_earlier_wording_with_a_version_in_the_search_box_finds_its_page(
        browser: Any, built: tuple[dict[str, str], dict[str, str], dict[str, dict]], tmp_path: Path) -> None:
    files, _, records = built
    out = tmp_path / "site"
    for path, body in files.items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(body)
    pasted = "FileNotFoundError: no config file found at /etc/app.toml"
    with open_tab(browser, "http://127.0.0.1:9") as tab:
        tab.page.goto((out / "search" / "index.html").as_uri())
        tab.page.fill("main .searchbox input[name=v]", "1.1.2")
        tab.page.fill("main .searchbox textarea", pasted)
        tab.page.wait_for_selector("#results li")
        link = tab.page.get_attribute("#results li:first-child a", "href")
        assert link.startswith(f"../errors/{records[WORDINGS[2]]['id']}/index.html?m=") and link.endswith("&v=1.1.2")
        assert tab.page.evaluate("new URL(location.href).searchParams.get('v')") == "1.1.2"
        tab.page.click("#results li:first-child a")
        tab.page.wait_for_selector("#reader-version:not([hidden])")
        assert tab.page.inner_text("#reader-version") == (
            f"Version 1.1.2 raises this error, worded as it was before release v2.0: {WORDINGS[1]}")
        wording = tab.page.inner_text(".variants li:nth-child(2) .meta")
        assert wording == "Earlier wording, printed from v1.1 until v2.0 changed it"


def test_lookup_with_a_version_says_what_that_version_printed(
        built: tuple[dict[str, str], dict[str, str], dict[str, dict]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from errorsite import cli

    _, _, records = built
    content = tmp_path / "content"
    loader = records[WORDINGS[2]]["id"]
    assert cli.main(["lookup", "FileNotFoundError: no config file found at /etc/app.toml", "--content", str(content),
                     "--version", "v1.1.2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        f"https://example.org/lib/errors/{loader}/?v=v1.1.2  [full, earlier wording, printed from v1.1 until v2.0"
        f" changed it]  FileNotFoundError: {validate.default_title(WORDINGS[2])}",
        f"    Version v1.1.2 raises this error, worded as it was before release v2.0: {WORDINGS[1]}",
    ]
    assert cli.main(["lookup", "FileNotFoundError: cannot find the config file at /etc/app.toml", "--content",
                     str(content), "--version", "3.0.1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "    Version 3.0.1 does not raise this error: release v3.0 no longer raised it."
