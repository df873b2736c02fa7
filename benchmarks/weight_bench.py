"""What a built site weighs per record: each kind of file, each part of an error page, each field of the JSON API.

Run: python benchmarks/weight_bench.py SITE             (a site `errorsite build` wrote)
     python benchmarks/weight_bench.py --records N [--keep DIR]   (N synthetic records, built first)

Every figure is bytes per record, uncompressed, as the files are on disk. An error page is cut at its
landmarks (head, header, each section of main, the provenance, the site's footer); the markup of its
code blocks is counted apart: the spans Pygments wraps tokens in, the line numbers, and the code itself.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import synthesize  # noqa: E402

AREAS = [
    ("error pages", re.compile(r"errors/[^/]+/index\.html")),
    ("record JSON", re.compile(r"api/errors/[^/]+\.json")),
    ("API lists", re.compile(r"api/(errors|patterns)\.json")),
    ("search index", re.compile(r"search-index\.js")),
    ("search fragments", re.compile(r"search/.+")),
    ("list pages", re.compile(r"(errors|exceptions|files|tags)/(.+/)?index\.html")),
]
"""What each file of a site is, by the first pattern its path matches; the rest is `other`."""

PARTS = [
    ("head", r"<head>", r"</head>"),
    ("header and search box", r'<header class="top">', r"</header>"),
    ("kicker, title, tags, notices", r'<article class="error"', r"<section "),
    ("provenance", r'<footer class="provenance">', r"</footer>"),
    ("site footer and scripts", r'<footer class="site-footer">', r"</html>"),
]
"""The parts of an error page outside its sections: a name, where it starts and where it ends."""

SECTION = re.compile(r'<section aria-labelledby="([^"]+)">.*?</section>', re.S)
CODE = re.compile(r'<pre class="code[^"]*"[^>]*><code>(.*?)</code></pre>', re.S)
TOKEN = re.compile(r'<span class="(?!ln")[^"]*">|</span>')
LINE = re.compile(r'<span class="ln"[^>]*></span>')
PATTERN = re.compile(r""" data-pattern=(?:"[^"]*"|'[^']*')""")


def area_of(path: str) -> str:
    """Return the kind of file `path` is (see AREAS)."""
    return next((name for name, pattern in AREAS if pattern.fullmatch(path)), "other")


def weigh_site(site: Path) -> tuple[int, Counter[str], Counter[str], Counter[str]]:
    """Return the record count, the bytes of each area, of each part of the error pages, and of each JSON field."""
    areas: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    fields: Counter[str] = Counter()
    for folder, _, names in os.walk(site):
        for name in names:
            path = Path(folder, name)
            relative = path.relative_to(site).as_posix()
            area = area_of(relative)
            data = path.read_bytes()
            areas[area] += len(data)
            if area == "error pages":
                weigh_page(data.decode(), parts)
            elif area == "record JSON":
                for key, value in json.loads(data).items():
                    fields[key] += len(json.dumps({key: value}, ensure_ascii=False, indent=1).encode()) - 4
    records = len(list((site / "api" / "errors").glob("*.json")))
    return records, areas, parts, fields


def weigh_page(html: str, parts: Counter[str]) -> None:
    """Add the bytes of each part of one error page to `parts`."""
    parts["whole page"] += len(html.encode())
    for name, start, end in PARTS:
        found = re.search(f"{start}.*?(?={end})", html, re.S)
        if found:
            parts[name] += len(found.group().encode()) + (len(end) if end.startswith("</") else 0)
    for section in SECTION.finditer(html):
        parts[f"section: {section.group(1)}"] += len(section.group().encode())
    for block in CODE.finditer(html):
        code = block.group(1)
        tokens = sum(len(t.encode()) for t in TOKEN.findall(code))
        lines = sum(len(t.encode()) for t in LINE.findall(code))
        parts["code: token spans"] += tokens
        parts["code: line numbers"] += lines
        parts["code: text"] += len(code.encode()) - tokens - lines
    parts["data-pattern attributes"] += sum(len(p.encode()) for p in PATTERN.findall(html))


def report(records: int, areas: Counter[str], parts: Counter[str], fields: Counter[str]) -> str:
    """Return the figures as three Markdown tables, in bytes per record."""
    total = sum(areas.values())
    lines = [f"{records:,} records, {total:,} bytes: {total / records / 1024:.1f} KB a record", "",
             "| file | KB a record | share |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {size / records / 1024:.2f} | {size / total:.0%} |" for name, size in areas.most_common()]
    lines += ["", "| part of an error page | bytes a page |", "| --- | ---: |"]
    lines += [f"| {name} | {size / records:,.0f} |" for name, size in parts.most_common()]
    lines += ["", "| field of api/errors/<id>.json | bytes a record |", "| --- | ---: |"]
    lines += [f"| {name} | {size / records:,.0f} |" for name, size in fields.most_common()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", type=Path, help="a built site")
    parser.add_argument("--records", type=int, help="synthesize this many records and build them first")
    parser.add_argument("--keep", type=Path, help="build into this folder instead of a temporary one")
    args = parser.parse_args()
    if args.site is None and args.records is None:
        parser.error("give a built site or --records N")
    if args.site is not None:
        print(report(*weigh_site(args.site)))
        return
    with tempfile.TemporaryDirectory() as temporary:
        work = args.keep or Path(temporary)
        synthesize(args.records, work / "content")
        subprocess.run([sys.executable, "-m", "errorsite", "build", "--content", str(work / "content"),
                        "--out", str(work / "site"), "--quiet"], check=True)
        print(report(*weigh_site(work / "site")))


if __name__ == "__main__":
    main()
