"""Long lists split into numbered pages under the page limit, and the sitemap into files under the protocol's."""

from __future__ import annotations

import json
import re
import shutil
import sys
import xml.etree.ElementTree as ElementTree
from collections import deque
from html.parser import HTMLParser
from pathlib import Path
from posixpath import dirname, join, normpath
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from errorsite import cli, load, paging, render, validate
from errorsite.sitebuild import pipeline

from browser_support import BuiltSite, Sites, open_tab

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from synth import synthesize  # noqa: E402

SMALL = {"PAGE_BYTES": 14_000, "CHROME_BYTES": 8_000}
"""A page limit that splits a site of 150 records: about 24 items a page."""
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


class Page(HTMLParser):
    """The links of a page, and the items of its lists of errors and groups."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, dict[str, str | None]]] = []
        self.items: list[str] = []
        self.ids: list[str] = []
        self.depth = 0
        self.in_list = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "ul" and found.get("class", "") and str(found["class"]).split()[0] in ("errors", "groups"):
            self.in_list = 1
        elif tag == "ul" and self.in_list:
            self.in_list += 1
        if tag == "a" and found.get("href"):
            self.links.append((str(found["href"]), found))
            if self.in_list == 1:
                self.items.append(str(found["href"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "ul" and self.in_list:
            self.in_list -= 1


def parsed(body: bytes) -> Page:
    page = Page()
    page.feed(body.decode())
    return page


def target(path: str, link: str) -> str:
    """Return the site path a relative link on the page at `path` leads to."""
    return normpath(join(dirname(path), unquote(urlsplit(link).path)))


def pages_of(files: dict[str, bytes], head: str) -> list[str]:
    """Return the paths of every page of the list whose first page is `head`, in order, checking that they are
    numbered without a gap."""
    found = [head] + [p for p in files if paging.head_of(p) == head]
    numbers = [int(re.search(r"/page/(\d+)/index\.html$", p).group(1)) for p in found[1:]]  # type: ignore[union-attr]
    assert sorted(numbers) == list(range(2, len(found) + 1))
    return [paging.page_path(head, n) for n in range(1, len(found) + 1)]


def unwrite(content: Path, count: int) -> None:
    """Take the prose out of the first `count` records, by id, so that lists have errors not yet written."""
    for path in sorted((content / "errors").glob("*.json"))[:count]:
        data = json.loads(path.read_text())
        for key in ("meaning", "solutions", "example_fix", "when", "analysis"):
            data.pop(key, None)
        path.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("paging") / "content"
    synthesize(150, folder, seed=5)
    unwrite(folder, 40)
    return folder


@pytest.fixture(scope="module")
def files(content: Path) -> dict[str, bytes]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in SMALL.items():
            patch.setattr(paging, name, value)
        patch.setattr(paging, "SITEMAP_URLS", 40)
        return render.render_site(validate.build_site(load.load(content)))


def records(content: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (content / "errors").glob("*.json")}


def test_split_fills_pages_in_order_and_leaves_room_for_the_links(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paging, "PAGE_BYTES", 1_000)
    monkeypatch.setattr(paging, "CHROME_BYTES", 200)
    monkeypatch.setattr(paging, "LINK_BYTES", 10)
    assert paging.split([100] * 8) == [0]  # 800 bytes fit one page, which has no links
    starts = paging.split([100] * 30)
    # 4 pages and their 6 links (4, previous, next) take 60 bytes of each page's 800: 7 items a page.
    assert starts == [0, 7, 14, 21, 28]
    assert paging.split([900, 100, 100]) == [0, 1]  # an item over the room of a page gets a page
    assert paging.split([]) == [0]


def test_pages_are_numbered_and_found_from_their_first() -> None:
    assert paging.page_path("errors/index.html", 1) == "errors/index.html"
    assert paging.page_path("errors/index.html", 3) == "errors/page/3/index.html"
    assert paging.head_of("files/pkg/a.py/page/12/index.html") == "files/pkg/a.py/index.html"
    assert paging.head_of("sitemap-2.xml") == "sitemap.xml"
    for other in ("errors/page/index.html", "errors/page/1/index.html", "errors/page/02/index.html", "sitemap.xml",
                  "errors/page/2/x.html", "sitemap-0.xml"):
        assert paging.head_of(other) is None, other
    assert paging.page_link(1, 4) == "page/4/index.html" and paging.page_link(4, 1) == "../../index.html"
    assert paging.page_link(4, 2) == "../2/index.html"


def test_every_list_page_is_under_the_limit(files: dict[str, bytes]) -> None:
    pages = {path: len(body) for path, body in files.items()
             if path.startswith(("errors/index.html", "errors/page/", "exceptions/", "files/", "tags/"))}
    assert max(pages.values()) <= SMALL["PAGE_BYTES"], max(pages, key=pages.__getitem__)
    # Every list that grows with the records is split at this limit.
    for head in ("errors/index.html", "files/index.html", "exceptions/ValueError/index.html"):
        assert len(pages_of(files, head)) > 1, head


def heads_of(files: dict[str, bytes], prefix: str) -> list[str]:
    return [p for p in files if p.startswith(prefix) and p.endswith("/index.html") and paging.head_of(p) is None
            and p.count("/") >= 2]


def test_every_record_is_on_exactly_one_page_of_each_of_its_lists(content: Path, files: dict[str, bytes]) -> None:
    every = records(content)
    expected: dict[str, list[str]] = {"errors/index.html": sorted(every)}
    for record_id, data in every.items():
        heads = [f"exceptions/{data['exception']}/index.html", f"files/{data['source']['path']}/index.html",
                 *(f"tags/{tag}/index.html" for tag in data["tags"])]
        for head in heads:
            expected.setdefault(head, []).append(record_id)
    assert sorted(expected) == sorted(["errors/index.html", *heads_of(files, "exceptions/"),
                                       *heads_of(files, "files/"), *heads_of(files, "tags/")])
    for head, members in expected.items():
        listed = []
        for path in pages_of(files, head):
            listed += [target(path, link).split("/")[1] for link in parsed(files[path]).items]
        assert sorted(listed) == sorted(members), head


def test_written_pages_come_first_across_pages_and_the_first_page_says_where_the_others_start(
        files: dict[str, bytes]) -> None:
    pages = pages_of(files, "errors/index.html")
    kinds = []
    for path in pages:
        body = files[path].decode()
        for kind, items in re.findall(r'<ul class="errors (written|unwritten)">\n(.*?)</ul>', body, re.S):
            kinds += [kind] * items.count("<li>")
    assert kinds == ["written"] * 110 + ["unwritten"] * 40
    first = parsed(files["errors/index.html"])
    # The home page's "Help write them" goes to #not-written on the first page, which links the page they start on.
    start = next(link for link, attrs in first.links if attrs.get("id") == "not-written")
    holder = target("errors/index.html", start)
    assert 'id="not-written">Not yet written (40)</h2>' in files[holder].decode()
    assert holder == next(p for p in pages if "errors unwritten" in files[p].decode())
    assert 'errors/index.html#not-written">Help write them' in files["index.html"].decode()


@pytest.mark.parametrize("head", ["errors/index.html", "files/index.html", "exceptions/ValueError/index.html"])
def test_previous_and_next_links_agree_and_each_page_links_every_other(files: dict[str, bytes], head: str) -> None:
    pages = pages_of(files, head)
    for number, path in enumerate(pages, 1):
        page = parsed(files[path])
        prev = {target(path, link) for link, attrs in page.links if attrs.get("rel") == "prev"}
        nxt = {target(path, link) for link, attrs in page.links if attrs.get("rel") == "next"}
        assert prev == ({pages[number - 2]} if number > 1 else set()), path
        assert nxt == ({pages[number]} if number < len(pages) else set()), path
        linked = {target(path, link) for link, _ in page.links} & set(pages) - {path}
        assert linked == set(pages) - {path}, path
        text = files[path].decode()
        assert f"Page {number} of {len(pages)}" in text and f'<span aria-current="page">{number}</span>' in text
        assert re.search(f"<title>[^<]*, page {number} of {len(pages)} · ", text), path


def test_every_record_is_a_few_clicks_from_the_home_page(content: Path, files: dict[str, bytes]) -> None:
    depth = {"index.html": 0}
    queue = deque(["index.html"])
    while queue:
        path = queue.popleft()
        if depth[path] == 3:
            continue
        for link, _ in parsed(files[path]).links:
            if re.match(r"[a-z]+:", link) or link.startswith("#"):
                continue
            found = target(path, link)
            if found.endswith(".html") and found in files and found not in depth:
                depth[found] = depth[path] + 1
                queue.append(found)
    assert {f"errors/{i}/index.html" for i in records(content)} <= depth.keys()


def test_the_sitemap_is_an_index_of_files_under_the_limit_naming_every_record(content: Path,
                                                                               files: dict[str, bytes]) -> None:
    base = "https://example.github.io/tinyserve/"
    index = ElementTree.fromstring(files["sitemap.xml"])
    assert index.tag == f"{SITEMAP}sitemapindex"
    named = [loc.text for loc in index.iter(f"{SITEMAP}loc")]
    parts = sorted((p for p in files if paging.head_of(p) == "sitemap.xml"), key=lambda p: int(p[8:-4]))
    assert named == [base + p for p in parts] and len(parts) > 1
    urls: list[str] = []
    for part in parts:
        tree = ElementTree.fromstring(files[part])
        assert tree.tag == f"{SITEMAP}urlset"
        found = [loc.text or "" for loc in tree.iter(f"{SITEMAP}loc")]
        assert 0 < len(found) <= 40
        urls += found
    # Every record's page, and the first page of every list, which links its later pages.
    expected = {"", "errors/", "exceptions/", "files/", "tags/", "search/"}
    for record_id, data in records(content).items():
        expected |= {f"errors/{record_id}/", f"exceptions/{data['exception']}/", f"files/{data['source']['path']}/",
                     *(f"tags/{tag}/" for tag in data["tags"])}
    assert urls == sorted(base + path for path in expected)
    assert b"Sitemap: " + base.encode() + b"sitemap.xml" in files["robots.txt"]


def test_a_list_under_the_limit_is_one_page(content: Path) -> None:
    files = render.render_site(validate.build_site(load.load(content)))
    assert not any(paging.head_of(p) for p in files)
    assert b"<urlset" in files["sitemap.xml"] and b"Page 1 of" not in files["errors/index.html"]


def test_the_real_limit_splits_the_list_of_every_error_at_a_realistic_size(tmp_path: Path) -> None:
    # 1,300 records make a list of every error of about 330 KB: two pages under 300 KB, each well filled.
    synthesize(1300, tmp_path / "content", seed=11)
    site = validate.build_site(load.load(tmp_path / "content"))
    renderer = render.Renderer(site)
    for head in ("errors/index.html", "exceptions/ValueError/index.html"):
        pages = {path: make() for path, make in renderer.series(head).items()}
        sizes = [len(body) for body in pages.values()]
        assert max(sizes) <= paging.PAGE_BYTES == 300_000
        if head == "errors/index.html":
            assert len(pages) == 2 and sum(sizes) > 300_000 and min(sizes) > 20_000
        assert sum(parsed(body).items.__len__() for body in pages.values()) == len(renderer.errors_lists[head][3])


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def edit(content: Path, record_id: str, change: object) -> None:
    path = content / "errors" / f"{record_id}.json"
    data = json.loads(path.read_text())
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data, indent=2))


STEPS = [
    ("title to the front", lambda c, ids: edit(c, ids[45], lambda d: d.update(title="A first title"))),
    ("title to the end", lambda c, ids: edit(c, ids[3], lambda d: d.update(title="Zz last title"))),
    ("title in place", lambda c, ids: edit(c, ids[10], lambda d: d.update(title=(d.get("title") or "Untitled") + " again"))),
    ("long title", lambda c, ids: edit(c, ids[20], lambda d: d.update(title="W" * 120))),
    ("written", lambda c, ids: edit(c, ids[0], lambda d: d.update(meaning="Now it is explained."))),
    ("unwritten", lambda c, ids: edit(c, ids[50], lambda d: [d.pop(k, None) for k in ("meaning", "solutions",
                                                                                      "example_fix", "when")])),
    ("exception", lambda c, ids: edit(c, ids[30], lambda d: d.update(exception="KeyError"))),
    ("place", lambda c, ids: edit(c, ids[31], lambda d: d["source"].update(path="tinyserve/elsewhere.py"))),
    ("tags", lambda c, ids: edit(c, ids[32], lambda d: d.update(tags=["brand-new"]))),
]


def test_an_incremental_build_equals_a_clean_build_as_pages_fill_and_empty(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SMALL.items():
        monkeypatch.setattr(paging, name, value)
    monkeypatch.setattr(paging, "SITEMAP_URLS", 50)
    content = tmp_path / "content"
    synthesize(60, content, seed=5)
    unwrite(content, 20)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    assert len([p for p in tree(out) if paging.head_of(p) == "errors/index.html"]) >= 2

    def same_as_clean(step: str) -> None:
        clean = tmp_path / f"clean-{len(list(tmp_path.glob('clean-*')))}"
        pipeline.build(content, clean / "site", jobs=1)
        assert tree(out) == tree(clean / "site"), step
        shutil.rmtree(clean)

    for step, change in STEPS:
        change(content, sorted(p.stem for p in (content / "errors").glob("*.json")))
        result = pipeline.build(content, out, jobs=1)
        assert not result.full, step
        same_as_clean(step)
    # Records added until the lists and the sitemap take more pages, then removed until they take fewer.
    ids = sorted(p.stem for p in (content / "errors").glob("*.json"))
    pages = len([p for p in tree(out) if p.startswith("errors/") and "/page/" in p])
    for n in range(30):
        data = json.loads((content / "errors" / f"{ids[n]}.json").read_text())
        data.update(id=f"added-{n}", related=[])
        (content / "errors" / f"added-{n}.json").write_text(json.dumps(data))
    pipeline.build(content, out, jobs=1)
    same_as_clean("added")
    assert len([p for p in tree(out) if p.startswith("errors/") and "/page/" in p]) > pages
    sitemaps = len([p for p in tree(out) if paging.head_of(p) == "sitemap.xml"])
    assert sitemaps >= 3
    for path in (content / "errors").glob("*.json"):
        if not path.stem.startswith("added-") and path.stem not in ids[:4]:
            path.unlink()
    for path in (content / "errors").glob("*.json"):
        edit(content, path.stem, lambda d: d.update(related=[]))
    pipeline.build(content, out, jobs=1)
    same_as_clean("removed")
    assert len([p for p in tree(out) if p.startswith("errors/") and "/page/" in p]) < pages
    assert len([p for p in tree(out) if paging.head_of(p) == "sitemap.xml"]) < sitemaps


# In real tools: the Nu HTML Checker, and Chromium at a phone's width, without JavaScript and from file://


@pytest.fixture(scope="module")
def paged_site(sites: Sites, content: Path) -> BuiltSite:
    """Return a site of 150 records built with the small page limit, served beside the others."""
    out = sites.folder / "served" / "paged"
    base_url = f"{sites.server_url}/paged/"
    with pytest.MonkeyPatch.context() as patch:
        for name, value in SMALL.items():
            patch.setattr(paging, name, value)
        assert cli.main(["build", "--content", str(content), "--out", str(out), "--base-url", base_url, "--quiet"]) == 0
    site = BuiltSite("paged", out, base_url)
    assert len([p for p in site.pages() if "/page/" in p]) > 5
    return site


def paged_pages(site: BuiltSite) -> list[str]:
    """Return the pages of the lists that take more than one page, and their first pages."""
    later = [p for p in site.pages() if paging.head_of(p)]
    return sorted({*later, *(paging.head_of(p) or "" for p in later)})


@pytest.mark.java
@pytest.mark.node
def test_paged_lists_are_valid_html(paged_site: BuiltSite) -> None:
    from test_html_validity import vnu_files

    messages = vnu_files([str(paged_site.out_path / p) for p in paged_pages(paged_site)])
    assert messages == []


@pytest.mark.browser
def test_paged_lists_fit_a_phone_and_read_without_javascript(browser: Any, paged_site: BuiltSite,
                                                             server_url: str) -> None:
    from test_layout import measure

    found = {}
    with open_tab(browser, server_url, 360, javascript=False) as tab:
        for page in paged_pages(paged_site):
            tab.page.goto(paged_site.url(page), wait_until="load")
            problems = measure(tab.page)
            if problems:
                found[page] = problems
            assert tab.page.locator("main ul.errors li, main ul.groups li").count() > 0, page
            assert tab.page.locator("nav.pages a").count() >= 2, page
    assert found == {}


@pytest.mark.browser
def test_the_pages_of_a_list_link_each_other_from_file_and_under_the_prefix(browser: Any, paged_site: BuiltSite,
                                                                            server_url: str) -> None:
    pages = pages_of({p: b"" for p in paged_site.pages()}, "errors/index.html")
    for start in (paged_site.url(), paged_site.out_path.as_uri() + "/"):
        with open_tab(browser, server_url, 1280, javascript=False) as tab:
            tab.page.goto(start + "index.html")
            tab.page.click("main a[href$='errors/index.html']")
            for number in range(2, len(pages) + 1):
                tab.page.click("p.pager a[rel=next]")
                tab.page.wait_for_url(f"**/errors/page/{number}/index.html")
                assert tab.page.inner_text("p.pager").startswith(f"Page {number} of {len(pages)}")
            tab.page.click("nav.pages a >> text='1'")
            tab.page.wait_for_url("**/errors/index.html")
            first = tab.page.eval_on_selector("main ul.errors a", "a => a.href")
            tab.page.click("main ul.errors a")
            assert tab.page.url == first and tab.page.locator("main h1").is_visible()
