"""Lists split into numbered pages, each under PAGE_BYTES, and the sitemap into files of at most SITEMAP_URLS.

A list that fits on one page keeps its one page. A longer one is cut, in list order, into pages
that each hold as many items as fit: its first page stays where the list always was
(`errors/index.html`), the others follow at `errors/page/2/index.html`, `errors/page/3/index.html`
and so on, as Hugo and mkdocs-material number them (docs/architecture.md says why numbers).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

PAGE_BYTES = 300_000
"""The most a list page may weigh, in bytes of HTML. Tests lower it to split small lists."""

CHROME_BYTES = 20_000
"""What a list page holds besides its items and its page links, at most: the header, the footer,
the heading and the lead (a heading names a source path of up to 512 bytes, escaped)."""

LINK_BYTES = 64
"""What each link of a paged list's navigation costs, at most (`<li><a href="../123/index.html">123</a></li>`)."""

SITEMAP_URLS = 50_000
"""The most URLs one sitemap file may hold (the sitemap protocol's limit); past it, sitemap.xml is an index."""


def split(sizes: Sequence[int]) -> list[int]:
    """Return where each page of a list starts, as indices into `sizes` (each item's bytes): [0] for one page.

    Pages are filled in order, each with as many items as fit its share of PAGE_BYTES, which
    leaves room for a link to every page; a single item larger than that still gets a page.
    """
    reserve = 0
    while True:
        budget = PAGE_BYTES - CHROME_BYTES - reserve
        starts = [0]
        used = 0
        for at, size in enumerate(sizes):
            if used and used + size > budget:
                starts.append(at)
                used = 0
            used += size
        # The links to every page, and to the previous and next ones, take room from every page:
        # more pages make more links, so fill again until the room left holds them all.
        need = LINK_BYTES * (len(starts) + 2) if len(starts) > 1 else 0
        if need <= reserve:
            return starts
        reserve = need


def page_path(head: str, number: int) -> str:
    """Return the path of page `number` (from 1) of the list whose first page is `head` (`.../index.html`)."""
    return head if number == 1 else f"{head.removesuffix('index.html')}page/{number}/index.html"


def page_link(start: int, target: int) -> str:
    """Return the relative link from page `start` of a list to its page `target` (both from 1)."""
    if start == 1:
        return "index.html" if target == 1 else f"page/{target}/index.html"
    return "../../index.html" if target == 1 else f"../{target}/index.html"


def sitemap_path(number: int) -> str:
    """Return the path of the sitemap file `number` (from 1) that a sitemap index names."""
    return f"sitemap-{number}.xml"


def following(head: str) -> Iterator[str]:
    """Yield the path of each file after the first of a list, in order: its pages from the second, or the
    sitemap files the sitemap index `sitemap.xml` names."""
    number = 1
    while True:
        number += 1
        yield sitemap_path(number - 1) if head == SITEMAP else page_path(head, number)


def head_of(path: str) -> str | None:
    """Return the first file of the list that `path` follows in (see `following`); None when it follows none."""
    found = LATER.fullmatch(path)
    if found is None:
        return None
    return SITEMAP if found["sitemap"] else f"{found['folder']}index.html"


SITEMAP = "sitemap.xml"
"""The sitemap, or the sitemap index that names the sitemap files (`sitemap_path`)."""
LATER = re.compile(r"(?P<folder>.*/)page/(?:[2-9]|[1-9][0-9]+)/index\.html|(?P<sitemap>sitemap-[1-9][0-9]*\.xml)")
"""The path of a file after the first of a list (see `following`)."""
