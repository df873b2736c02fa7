"""End to end: the embedded reference, built under a GitHub Pages path prefix, has no broken link."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from posixpath import normpath
from urllib.parse import unquote, urlsplit

import pytest

from errorsite import cli

from test_own_reference import CONTENT

BASE = "https://owner.github.io/errorsite/"


class Links(HTMLParser):
    """Collects every href, src and form action of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [value for name, value in attrs if name in ("href", "src", "action") and value]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("prefixed") / "site"
    assert cli.main(["build", "--content", str(CONTENT), "--out", str(out), "--base-url", BASE, "--quiet"]) == 0
    return out


def resolve(site: Path, page: Path, link: str) -> Path | None:
    """Return the file a link leads to inside the site, or None when it leads elsewhere."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc:
        if not link.startswith(BASE):
            return None
        target = link.removeprefix(BASE)
    elif link.startswith("/"):
        prefix = urlsplit(BASE).path
        assert link.startswith(prefix), f"{page}: {link} escapes the path prefix {prefix}"
        target = link.removeprefix(prefix)
    else:
        target = normpath(str(PurePosixPath(page.parent.relative_to(site).as_posix()) / unquote(parts.path)))
        assert not target.startswith(".."), f"{page}: {link} leaves the site"
    target = unquote(urlsplit(target).path)
    path = site / target
    return path / "index.html" if target.endswith("/") or path.is_dir() else path


def test_every_link_and_asset_resolves_under_the_prefix(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 60
    checked = 0
    for page in pages:
        parser = Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            if link.startswith("#"):
                continue
            target = resolve(site, page, link)
            if target is not None:
                assert target.is_file(), f"{page.relative_to(site)}: {link} -> {target.relative_to(site)} is missing"
                checked += 1
    assert checked > 1000


def test_internal_links_are_relative_except_on_the_404_page(site: Path) -> None:
    for page in site.rglob("*.html"):
        if page.name == "404.html":
            continue
        parser = Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            assert not link.startswith("/"), f"{page}: {link}"


def test_the_404_page_works_at_any_depth_and_from_file(site: Path) -> None:
    # GitHub Pages serves it for a missing page at any depth, and a reader may open it from disk:
    # it loads nothing (its style is inline), and its links name the published site's pages.
    text = (site / "404.html").read_text(encoding="utf-8")
    parser = Links()
    parser.feed(text)
    assert "<style>" in text and 'rel="stylesheet"' not in text and "<script" not in text
    assert parser.links and all(link.startswith(BASE) for link in parser.links if not link.startswith(("#", "data:")))
    for link in parser.links:
        if link.startswith(BASE):
            target = site / unquote(urlsplit(link).path.removeprefix(urlsplit(BASE).path))
            assert (target / "index.html" if target.is_dir() else target).is_file(), link
