"""Rendering: sections and their order, links, escaping, the API, determinism."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from errorsite import load, render, validate
from errorsite.search.template import template_parts

from conftest import FIXTURES, edit_record

SECTIONS = ["Error message", "What it means", "Source", "Solutions", "Example fix", "When it happens", "Related errors"]


def build(content: Path, base_url: str | None = None) -> dict[str, bytes]:
    return render.render_site(validate.build_site(load.load(content), base_url))


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return build(FIXTURES / "basic")


def page(files: dict[str, bytes], path: str) -> str:
    return files[path].decode()


def headings(html: str) -> list[str]:
    return re.findall(r"<h2 id=\"[^\"]+\">([^<]+)</h2>", html)


def test_full_record_has_every_section_in_order(files: dict[str, bytes]) -> None:
    assert headings(page(files, "errors/batch-tokens-below-chunk/index.html")) == SECTIONS


def test_sections_without_data_are_left_out(files: dict[str, bytes]) -> None:
    html = page(files, "errors/batch-tokens-multiple/index.html")
    # Not yet written: what the code says (its guard and callers) is all "When it happens" holds.
    assert headings(html) == ["Error message", "Source", "When it happens", "Related errors"]
    assert "<h3 id=\"from-the-code\">From the code</h3>" in html and "<dt>Trigger</dt>" not in html
    assert headings(page(files, "errors/old-kv-dtype/index.html")).count("When it happens") == 0
    assert "This page is not yet written" in html
    assert "content/errors/batch-tokens-multiple.json" in html


def test_removed_record_shows_a_notice_first(files: dict[str, bytes]) -> None:
    html = page(files, "errors/old-kv-dtype/index.html")
    assert html.index("No longer raised") < html.index("<h1>")


def test_snippet_numbers_lines_as_in_the_file_and_marks_the_raise(files: dict[str, bytes]) -> None:
    html = page(files, "errors/batch-tokens-below-chunk/index.html")
    # The stylesheet numbers the lines: a counter of the snippet's block, which starts at the line before its first.
    snippet = re.search(r'<pre class="code numbered"[^>]* style="counter-reset:ln (\d+)"[^>]*><code>(.*?)</code>', html, re.S)
    assert snippet and snippet.group(1) == "0"
    lines = snippet.group(2).split("\n")
    assert len(lines) == 11 and all('<span class="ln"></span>' in line for line in lines)  # a final blank line too
    assert lines[4].startswith('<mark class="hl" id="raise-line"><span class="ln"></span>')
    assert lines[8] == '<span class="ln"></span>\t<span class="k">if</span> args<span class="o">.</span>max_batch_tokens ' \
        '<span class="o">%</span> <span class="mi">8</span>:'


def test_placeholders_are_distinct_from_literal_text(files: dict[str, bytes]) -> None:
    html = page(files, "errors/old-kv-dtype/index.html")
    assert '<var class="ph">{dtype!r}</var>' in html
    assert "use one of {&#39;auto&#39;, &#39;fp8&#39;}" in html


def test_template_parts() -> None:
    assert template_parts("a {x!r} b {{c}} %s %% {d:{w}}") == [
        ("a ", False), ("{x!r}", True), (" b {c} ", False), ("%s", True), (" % ", False), ("{d:{w}}", True),
    ]


def test_permalink_and_provenance(files: dict[str, bytes]) -> None:
    html = page(files, "errors/batch-tokens-below-chunk/index.html")
    assert "https://github.com/example/tinyserve/blob/4f2a9c1d0b7e6a5f4e3d2c1b0a9f8e7d6c5b4a39/tinyserve/config/batching.py#L5" in html
    assert "pinned to <code>4f2a9c1d0b</code>" in html
    assert "example/tinyserve@4f2a9c1d0b" in html
    assert 'href="../../api/errors/batch-tokens-below-chunk.json"' in html
    assert "issues/new?title=Error%20page%20batch-tokens-below-chunk" in html


def test_example_fix_marks_what_changed(files: dict[str, bytes]) -> None:
    html = page(files, "errors/batch-tokens-below-chunk/index.html")
    assert "<del><span class=\"m\">2048</span></del>" in html
    assert "<ins><span class=\"m\">8192</span></ins>" in html


def test_related_lists_hand_picked_first_then_suggested(content: Path) -> None:
    edit_record(content, "batch-tokens-multiple", lambda d: d.update(tags=["batching", "config"]))
    html = build(content)["errors/batch-tokens-below-chunk/index.html"].decode()
    related = html[html.index('id="related"'):]
    assert related.index("batch-tokens-multiple") < related.index("old-kv-dtype") if "old-kv-dtype" in related else True
    html = build(content)["errors/batch-tokens-multiple/index.html"].decode()
    related = html[html.index('id="related"'):]
    assert related.index("Suggested: the nearest by place, tags and wording.") < related.index("batch-tokens-below-chunk")


def test_suggested_related_errors_follow_the_hand_picked_under_one_note(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(FIXTURES.parent.parent))
    try:
        from benchmarks.synth import synthesize
    finally:
        sys.path.remove(str(FIXTURES.parent.parent))
    synthesize(40, tmp_path / "content")
    site = validate.build_site(load.load(tmp_path / "content"))
    files = render.render_site(site)
    for record in site.records:
        html = page(files, f"errors/{record.id}/index.html")
        related = html[html.index('id="related"'):html.index("</section>", html.index('id="related"'))]
        links = re.findall(r'<li><a href="\.\./([^/]+)/index.html">', related)
        picked = len(record.related)
        assert links[:picked] == list(record.related) and len(links) > picked
        assert related.count("suggested") == 1 and "<span class=\"auto\">" not in related
        note = related.index("Also suggested: the nearest by place, tags and wording.")
        assert related.rindex(f"../{record.related[-1]}/") < note < related.index(f"../{links[picked]}/")


def test_one_message_raised_at_several_places_says_so_on_each_page(content: Path) -> None:
    first = json.loads((content / "errors" / "batch-tokens-below-chunk.json").read_text(encoding="utf-8"))
    edit_record(content, "batch-tokens-multiple", lambda d: d.update(exception=first["exception"], message=first["message"]))
    files = build(content)
    html = page(files, "errors/batch-tokens-below-chunk/index.html")
    assert "The same message is raised at 2 places; this page covers them all." in html
    source = html[html.index('id="source"'):]
    assert 'href="../batch-tokens-multiple/index.html"' in source
    related = html[html.index('id="related"'):]
    assert related.index("batch-tokens-multiple") < related.index("</ul>")
    assert "raised at" not in page(files, "errors/old-kv-dtype/index.html")


def test_suggested_related_errors_never_say_a_message_twice(content: Path) -> None:
    # attrs raises `can't set attribute` at three places: each page lists the others under Source, not again under
    # Related errors, and of two suggestions that say one message the page lists one (its page lists the other).
    base = json.loads((content / "errors" / "batch-tokens-multiple.json").read_text(encoding="utf-8"))
    for rid, message in [("twin-a", base["message"]), ("twin-b", base["message"]),
                         ("other-a", "the batch budget {n} is not supported here"),
                         ("other-b", "the batch budget {n} is not supported here")]:
        (content / "errors" / f"{rid}.json").write_text(json.dumps({**base, "id": rid, "message": message}))
    files = build(content)
    html = page(files, "errors/batch-tokens-multiple/index.html")
    source = html[html.index('id="source"'):html.index('id="related"')]
    assert "../twin-a/index.html" in source and "../twin-b/index.html" in source
    related = html[html.index('id="related"'):]
    related = related[:related.index("</section>")]
    assert "twin-a" not in related and "twin-b" not in related
    assert ("../other-a/index.html" in related) != ("../other-b/index.html" in related)
    twin = page(files, "errors/twin-a/index.html")
    twin_related = twin[twin.index('id="related"'):]
    assert "../batch-tokens-multiple/index.html" not in twin_related[:twin_related.index("</section>")]


def test_every_error_page_links_to_its_exception_file_and_tags(files: dict[str, bytes]) -> None:
    html = page(files, "errors/batch-tokens-below-chunk/index.html")
    for href in ("exceptions/ValueError/index.html", "files/tinyserve/config/batching.py/index.html",
                 "tags/batching/index.html", "tags/config/index.html"):
        assert f'href="../../{href}"' in html
        assert href in files


def test_file_page_lists_errors_in_line_order(files: dict[str, bytes]) -> None:
    html = page(files, "files/tinyserve/config/batching.py/index.html")
    assert html.index("line 5") < html.index("line 10")


def test_head_has_title_description_canonical_and_open_graph(files: dict[str, bytes]) -> None:
    for path in [p for p in files if p.endswith(".html") and p != "404.html"]:
        html = page(files, path)
        assert re.search(r"<title>[^<]+</title>", html), path
        assert '<meta name="description" content="' in html, path
        assert '<link rel="canonical" href="https://example.github.io/tinyserve/' in html, path
        assert '<meta property="og:title"' in html, path


def test_site_files(files: dict[str, bytes]) -> None:
    for path in ("index.html", "404.html", "sitemap.xml", "robots.txt", ".nojekyll", "search/index.html",
                 "search-index.js", "api/errors.json", "api/schema.json", "api/patterns.json", "static/style.css"):
        assert path in files
    assert "CNAME" not in files
    assert b"Sitemap: https://example.github.io/tinyserve/sitemap.xml" in files["robots.txt"]
    assert b"<loc>https://example.github.io/tinyserve/errors/old-kv-dtype/</loc>" in files["sitemap.xml"]


def test_cname(content: Path) -> None:
    with (content / "site.toml").open("a") as f:
        f.write('cname = "errors.example.org"\n')
    assert build(content)["CNAME"] == b"errors.example.org\n"


def test_api_matches_the_records(files: dict[str, bytes]) -> None:
    summary = json.loads(files["api/errors.json"])
    assert [e["id"] for e in summary["errors"]] == ["batch-tokens-below-chunk", "batch-tokens-multiple", "old-kv-dtype"]
    first = summary["errors"][0]
    assert set(first) >= {"id", "title", "exception", "message", "path", "line", "tags", "url"}
    assert first["url"] == "https://example.github.io/tinyserve/errors/batch-tokens-below-chunk/"
    record = json.loads(files["api/errors/batch-tokens-below-chunk.json"])
    source = json.loads((FIXTURES / "basic/errors/batch-tokens-below-chunk.json").read_text())
    for key in ("message", "meaning", "solutions", "when", "related", "tags", "analysis"):
        assert record[key] == source[key]
    assert record["source"]["snippet"] == source["source"]["snippet"]
    assert record["source"]["repo"] == "example/tinyserve"
    assert record["example_fix"]["language"] == "shell"


def test_base_url_override(content: Path) -> None:
    files = build(content, "https://other.example/x")
    assert b'href="https://other.example/x/errors/old-kv-dtype/"' in files["errors/old-kv-dtype/index.html"]


def test_redirect_from_a_retired_id(content: Path) -> None:
    with (content / "site.toml").open("a") as f:
        f.write('[redirects]\nold-batch-check = "batch-tokens-multiple"\n')
    html = build(content)["errors/old-batch-check/index.html"].decode()
    assert 'content="0; url=../batch-tokens-multiple/index.html"' in html


def test_two_builds_are_identical() -> None:
    assert build(FIXTURES / "basic") == build(FIXTURES / "basic")


class Links(HTMLParser):
    """Collects every href and src of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src", "action") and value:
                self.links.append(value)


def internal_links(html: str) -> list[str]:
    parser = Links()
    parser.feed(html)
    return [link for link in parser.links if not re.match(r"[a-z]+:", link) and not link.startswith("#")]


def test_every_internal_link_resolves(files: dict[str, bytes]) -> None:
    from posixpath import dirname, join, normpath
    from urllib.parse import unquote, urlsplit

    for path, body in files.items():
        if not path.endswith(".html") or path == "404.html":
            continue
        for link in internal_links(body.decode()):
            target = normpath(join(dirname(path), unquote(urlsplit(link).path)))
            assert not target.startswith(".."), (path, link)
            assert target in files, (path, link)


HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&'


def test_hostile_text_in_every_field_is_inert(content: Path) -> None:
    def poison(data: dict) -> None:
        data.update(title=HOSTILE, message=HOSTILE + " {x}", meaning=HOSTILE + " [a](javascript:alert(3))",
                    solutions=[HOSTILE, "<b>bold</b>"], tags=["config"])
        data["when"] = {"trigger": HOSTILE, "situations": HOSTILE}
        data["example_fix"] = {"before": HOSTILE, "after": HOSTILE + "x", "code": HOSTILE, "note": HOSTILE}
        data["analysis"] = {"by": HOSTILE, "note": HOSTILE}
        data["source"]["function"] = HOSTILE
        data["source"]["path"] = "a/<script>.py"
        data["source"]["snippet"]["code"] = HOSTILE + "\n" * 10
    edit_record(content, "batch-tokens-below-chunk", poison)
    files = build(content)
    for path, body in files.items():
        text = body.decode()
        if path.endswith(".html"):
            assert "<script>alert" not in text and "<img" not in text and "<b>" not in text, path
            assert not re.search(r"(href|src|action)=\"\s*javascript", text, re.I), path
            assert "onerror=alert" not in text.replace("onerror=alert(2)&gt;", ""), path
        if path == "search-index.js":
            assert "<" not in text and "\\u003cscript>" in text


def test_a_very_long_path_segment_still_gets_a_file_page(content: Path, tmp_path: Path) -> None:
    # The longest name a file system allows (255 bytes), beyond what a page's folder name keeps.
    long_name = "x" * 252 + ".py"
    edit_record(content, "old-kv-dtype", lambda d: d["source"].update(path=f"pkg/{long_name}"))
    files = build(content)
    pages = [p for p in files if p.startswith("files/pkg/") and p.endswith("/index.html")]
    assert len(pages) == 1 and all(len(part.encode()) <= 255 for part in pages[0].split("/"))
    from errorsite.sitebuild import write
    staging = write.staging_folder(tmp_path / "out")
    write.write_file(staging, pages[0], files[pages[0]])
    assert (staging / pages[0]).is_file()


def test_titles_show_literal_braces_once(files: dict[str, bytes]) -> None:
    assert "<h1>kv_cache_dtype … is not supported; use one of {&#39;auto&#39;, &#39;fp8&#39;}</h1>" in page(files, "errors/old-kv-dtype/index.html")


@pytest.mark.parametrize("value", [
    {}, [], "", {"empty": [], "nested": {}}, {"tags": ["a", "b"], "line": 12, "gone": None, "on": True, "off": False},
    [[[]], [{}], {"k": [1, [2, {"z": "y"}]]}], {1: "int key", True: "bool key", None: "null key", 2.5: "float key"},
    {"text": "quote \" backslash \\ line\u2028sep \x00 é 漢 <script>", "big": 10**30, "float": -0.0, "tuple": (1, 2)},
    render.SCHEMA,
])
def test_json_files_are_those_json_dumps_writes(value: object) -> None:
    assert render._json(value) == (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode()


def test_the_home_page_shows_the_groups_with_the_most_errors_and_links_the_rest(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    sys.path.insert(0, str(FIXTURES.parent.parent))
    try:
        from benchmarks.synth import synthesize
    finally:
        sys.path.remove(str(FIXTURES.parent.parent))
    synthesize(300, tmp_path / "content")
    monkeypatch.setattr(render, "HOME_GROUPS_LIMIT", 10)
    site = validate.build_site(load.load(tmp_path / "content"))
    home = render.render_site(site)["index.html"].decode()
    files = {r.source.path for r in site.records}
    counts = {path: sum(r.source.path == path for r in site.records) for path in files}
    shown = re.findall(r"Every error in <code>(.*?)</code>", home)
    assert len(shown) == 10 < len(files)
    # The ten files with the most errors; every file is one click away, on the page of all files.
    assert min(counts[re.sub(r"<[^>]+>", "", p)] for p in shown) >= sorted(counts.values())[-10]
    assert f'All {len(files)} source files</a>' in home
    assert 'href="./files/index.html">All' in home
