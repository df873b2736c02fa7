"""The README and docs/: every relative link names a file of the repository, as GitHub resolves it."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
"""A Markdown link or image: [text](target) or ![alt](target "title")."""


def links(text: str) -> list[str]:
    """Return the targets of the Markdown links of `text`, outside code blocks and code spans."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return LINK.findall(text)


def test_links_are_found_where_they_are() -> None:
    text = "See [a](docs/a.md), ![b](b.png), `[c](c.md)`, and\n```\n[d](d.md)\n```\n[e](https://e.x/)."
    assert links(text) == ["docs/a.md", "b.png", "https://e.x/"]


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / unquote(target.partition("#")[0])).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), f"{page.relative_to(ROOT)}: {target}"


def test_the_readme_is_short_and_starts_with_what_errorsite_is() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[:3] == ["Install", "Quick start for maintainers", "For readers"]
    assert len(text.splitlines()) < 150 and "](docs/page.png)" in text
