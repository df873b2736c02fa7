"""`errorsite rename`: a record's new id, its old URL kept working, and nothing else in its files changed."""

from __future__ import annotations

import json
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from errorsite import cli, link
from errorsite.rename import with_redirect

OLD, NEW = "batch-tokens-multiple", "batch-not-a-multiple"


def run(*argv: str) -> int:
    return cli.main(list(argv))


def test_rename_moves_the_file_updates_related_and_adds_the_redirect(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    errors = content / "errors"
    before = (errors / f"{OLD}.json").read_text(encoding="utf-8")
    referrers = [p for p in errors.glob("*.json") if OLD in json.loads(p.read_text(encoding="utf-8")).get("related", [])]
    assert referrers
    assert run("rename", OLD, NEW, "--content", str(content)) == 0
    out = capsys.readouterr().out
    assert f"renamed {OLD} to {NEW}" in out and f"errors/{OLD}/ leads to errors/{NEW}/" in out
    assert not (errors / f"{OLD}.json").exists()
    after = (errors / f"{NEW}.json").read_text(encoding="utf-8")
    # The id is the only change: every other byte of the person's file stays.
    assert after == before.replace(f'"id": "{OLD}"', f'"id": "{NEW}"', 1)
    for path in referrers:
        related = json.loads(path.read_text(encoding="utf-8"))["related"]
        assert NEW in related and OLD not in related
    settings = tomllib.loads((content / "site.toml").read_text(encoding="utf-8"))
    assert settings["redirects"] == {OLD: NEW}
    assert run("check", "--content", str(content)) == 0


def test_the_old_url_and_a_link_helper_vendored_before_reach_the_page(content: Path, tmp_path: Path) -> None:
    vendored = tmp_path / "pkg" / "_errorsite"
    assert run("vendor", str(vendored), "--content", str(content)) == 0
    url = link.Linker.from_file(vendored / link.PATTERNS_FILE).url_for("max_batch_tokens must be a multiple of 8, got 100")
    assert url is not None and f"/errors/{OLD}/" in url
    assert run("rename", OLD, NEW, "--content", str(content)) == 0
    site = tmp_path / "site"
    assert run("build", "--content", str(content), "--out", str(site), "--quiet") == 0
    base = tomllib.loads((content / "site.toml").read_text(encoding="utf-8"))["base_url"]
    old_folder = site / url.removeprefix(base).partition("?")[0]
    target = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', (old_folder / "index.html").read_text(encoding="utf-8"))
    assert target is not None
    landed = (old_folder / target.group(1)).resolve()
    assert landed == (site / "errors" / NEW / "index.html").resolve() and landed.is_file()


def test_renaming_again_retargets_and_renaming_back_undoes(content: Path) -> None:
    settings = content / "site.toml"
    original = settings.read_text(encoding="utf-8")
    assert run("rename", OLD, NEW, "--content", str(content)) == 0
    assert run("rename", NEW, "third-name", "--content", str(content)) == 0
    # A redirect never leads to a retired id: the first one now goes straight to the record.
    assert tomllib.loads(settings.read_text(encoding="utf-8"))["redirects"] == {OLD: "third-name", NEW: "third-name"}
    assert run("rename", "third-name", NEW, "--content", str(content)) == 0
    assert tomllib.loads(settings.read_text(encoding="utf-8"))["redirects"] == {OLD: NEW, "third-name": NEW}
    assert run("check", "--content", str(content)) == 0
    assert settings.read_text(encoding="utf-8").startswith(original)


@pytest.mark.parametrize(("old", "new", "page"), [
    ("no-such-record", "anything", "rename-unknown-id"),
    (OLD, "Not_An_Id", "rename-bad-id"),
    (OLD, "old-kv-dtype", "rename-id-taken"),
])
def test_a_rename_that_cannot_be_done_changes_nothing(
    content: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, page: str,
) -> None:
    before = {p.name: p.read_bytes() for p in content.rglob("*") if p.is_file()}
    assert run("rename", old, new, "--content", str(content)) == 1
    assert f"/errors/{page}/" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in content.rglob("*") if p.is_file()} == before


def test_a_retired_id_is_neither_renamed_nor_taken(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("rename", OLD, NEW, "--content", str(content)) == 0
    assert run("rename", OLD, "fresh", "--content", str(content)) == 1
    err = capsys.readouterr().err
    assert "retired id that redirects to" in err and f"rename {NEW!r} instead" in err
    assert run("rename", "old-kv-dtype", OLD, "--content", str(content)) == 1
    assert "/errors/rename-id-taken/" in capsys.readouterr().err


def test_site_toml_keeps_its_comments_and_layout() -> None:
    text = '# mine\ntitle = "t"  # the title\n\n[redirects]\n# kept\ngone = "a"   # why\n\n[source]\ninclude = ["x"]\n'
    settings = tomllib.loads(text)
    assert with_redirect(text, "a", "b", settings) == (
        '# mine\ntitle = "t"  # the title\n\n[redirects]\n# kept\ngone = "b"   # why\na = "b"\n\n[source]\ninclude = ["x"]\n')
    assert with_redirect('title = "t"', "a", "b", {"title": "t"}) == 'title = "t"\n\n[redirects]\na = "b"\n'


def test_redirects_that_cannot_be_edited_line_by_line_are_left_alone(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = content / "site.toml"
    settings.write_text(settings.read_text(encoding="utf-8") + 'redirects = { gone = "old-kv-dtype" }\n', encoding="utf-8")
    before = settings.read_bytes()
    assert run("rename", OLD, NEW, "--content", str(content)) == 1
    assert "/errors/redirects-not-editable/" in capsys.readouterr().err
    assert settings.read_bytes() == before and (content / "errors" / f"{OLD}.json").exists()


@pytest.mark.browser
def test_the_old_url_keeps_the_readers_version_and_anchor(content: Path, tmp_path: Path, browser: Any) -> None:
    """The link helper adds `?v=` to the URL it prints; a page renamed since lands with it, and the anchor too."""
    assert run("rename", OLD, NEW, "--content", str(content)) == 0
    site = tmp_path / "site"
    assert run("build", "--content", str(content), "--out", str(site), "--quiet") == 0
    page = browser.new_page()
    try:
        page.goto((site / "errors" / OLD / "index.html").as_uri() + "?v=8.1.3#source")
        page.wait_for_url("**/errors/" + NEW + "/index.html?v=8.1.3#source")
        assert page.url.endswith(f"/errors/{NEW}/index.html?v=8.1.3#source")
    finally:
        page.close()


class Scripts(HTMLParser):
    """Collects what of a page runs as script: script elements without `src` that are not JSON data,
    event handler attributes and `javascript:` addresses."""

    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "script" and "src" not in named and named.get("type") != "application/json":
            self.inline.append(self.get_starttag_text() or tag)
        self.inline += [f"{tag} {name}" for name, value in attrs
                        if name.startswith("on") or (value or "").strip().lower().startswith("javascript:")]


def test_no_page_of_a_site_with_redirects_has_an_inline_script(content: Path, tmp_path: Path) -> None:
    """So that a site can be served with `Content-Security-Policy: script-src 'self'`."""
    assert run("rename", OLD, NEW, "--content", str(content)) == 0
    site = tmp_path / "site"
    assert run("build", "--content", str(content), "--out", str(site), "--quiet") == 0
    moved = (site / "errors" / OLD / "index.html").read_text(encoding="utf-8")
    assert f'data-moved-to="../{NEW}/index.html"' in moved and '<script src="../../static/site.js">' in moved
    found = {}
    for page in sorted(site.rglob("*.html")):
        parser = Scripts()
        parser.feed(page.read_text(encoding="utf-8"))
        if parser.inline:
            found[page.relative_to(site).as_posix()] = parser.inline
    assert found == {}
