"""Time errorsite builds (cold, warm, one change, no change) and Hugo on the same pages.

Run: python benchmarks/build_bench.py [N ...] [--no-hugo] [--keep DIR] [--load N] [--serve N]
The records are written just before the cold build, as a fresh clone's are; the first build after
it is a title edit ("first edit after a clone": every record file is then new to the build). After
the one-change build (prose appended), it times a build after each kind of single-record edit
(title, message, tags, status, related, prose), each on three records in turn (one build per
record), and prints the median and the slowest of the three. `--load N` keeps N busy processes
running meanwhile: the figures that count are those of a machine that is not idle. The goals
are printed beside the figures they bound; the script exits 1 when one is missed.
Default N: 1000 10000. Each build runs as its own process, as a writer would run it, with its
code compiled once as an installed package has it (even where PYTHONDONTWRITEBYTECODE is set); the
peak memory is the largest resident set of any one process of the build. Hugo runs when
`hugo` is on the PATH (Debian: apt-get install -y hugo), on one Markdown page per record with
the same snippet (highlighted, numbered, raise line marked), prose and related links.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import synthesize  # noqa: E402

from errorsite.sitebuild import paths  # noqa: E402

HUGO_CONFIG = """baseURL = "https://example.github.io/tinyserve/"
title = "tinyserve errors"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
[markup.highlight]
noClasses = false
lineNos = true
lineNumbersInTable = false
"""
HUGO_SINGLE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · {{ .Site.Title }}</title>
<link rel="stylesheet" href="{{ "style.css" | relURL }}"></head><body><header><a href="{{ "/" | relURL }}">{{ .Site.Title }}</a></header>
<main><h1>{{ .Title }}</h1><p><code>{{ .Params.exception }}</code>: {{ .Params.message }}</p>{{ .Content }}
<h2>Related errors</h2><ul>{{ range .Params.related }}{{ with $.Site.GetPage (printf "/errors/%s" .) }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}{{ end }}</ul>
</main></body></html>
"""
HUGO_LIST = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head><body><main><h1>{{ .Title }}</h1>
<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></main></body></html>
"""


def hugo_site(content: Path, site: Path) -> None:
    """Write a Hugo project with one page per record of `content`."""
    (site / "layouts" / "_default").mkdir(parents=True)
    (site / "content" / "errors").mkdir(parents=True)
    (site / "hugo.toml").write_text(HUGO_CONFIG)
    (site / "layouts" / "_default" / "single.html").write_text(HUGO_SINGLE)
    (site / "layouts" / "_default" / "list.html").write_text(HUGO_LIST)
    for path in sorted((content / "errors").glob("*.json")):
        (site / "content" / "errors" / f"{path.stem}.md").write_text(hugo_page(json.loads(path.read_text())))


def hugo_page(d: dict) -> str:
    """Return the Markdown page of one record, with the sections errorsite renders."""
    source = d["source"]
    fix = d["example_fix"]
    front = {"title": d["message"][:80], "exception": d["exception"], "message": d["message"],
             "related": d["related"], "tags": d["tags"]}
    hl = source["line"] - source["snippet"]["start"] + 1
    solutions = "\n".join(f"{i}. {s}" for i, s in enumerate(d["solutions"], 1))
    return (
        json.dumps(front, indent=1) + "\n\n"
        f"## What it means\n\n{d['meaning']}\n\n"
        f"## Source\n\n`{source['path']}:{source['line']}` in `{source['function']}`\n\n"
        f"```python {{linenos=inline,linenostart={source['snippet']['start']},hl_lines=[{hl}]}}\n"
        f"{source['snippet']['code']}```\n\n"
        f"## Solutions\n\n{solutions}\n\n"
        f"## Example fix\n\n```shell\n{fix['before']}\n```\n\n```shell\n{fix['after']}\n```\n\n"
        f"```python\n{fix['code']}```\n\n{fix['note']}\n\n"
        f"## When it happens\n\n{d['when']['trigger']}\n\n{d['when']['situations']}\n"
    )


EDITS = {
    "title": lambda d, other: d.update(title="A title edited for the benchmark"),
    "message": lambda d, other: d.update(message=d["message"] + " (edited)"),
    "tags": lambda d, other: d.update(tags=["edited"]),
    "status": lambda d, other: d.update(status="removed"),
    "related": lambda d, other: d.update(related=[other]),
    "prose": lambda d, other: d.update(meaning="A new first sentence. " + d.get("meaning", "")),
}
"""Each kind of single-record edit the benchmark times: what it does to a record's data."""


EDIT_GOAL = (10_000, 0.5)
"""A build after any single-record edit at this many records or more takes at most this many seconds (the first
edit after a clone included)."""
HUGO_GOAL = 2.0
"""errorsite renders at least this many times Hugo's pages per second."""


def edit(record: Path, kind: str, other: str) -> None:
    """Make one edit of a kind (see EDITS) to a record file."""
    data = json.loads(record.read_text())
    EDITS[kind](data, other)
    record.write_text(json.dumps(data, indent=2) + "\n")


def edit_kinds(content: Path, build: list[str], repeat: int = 3) -> dict[str, list[float]]:
    """Return the seconds of the builds after each kind of edit, one record at a time, `repeat` records per kind."""
    records = sorted((content / "errors").glob("*.json"))
    times: dict[str, list[float]] = {}
    for number, kind in enumerate(EDITS):
        times[kind] = []
        for k in range(repeat):
            edit(records[(number + 1) * len(records) // (len(EDITS) + 2) + k], kind, records[0].stem)
            times[kind].append(run(build)[0])
    return times


def run(command: list[str], cwd: Path | None = None) -> tuple[float, int]:
    """Run `command`; return its wall time in seconds and its largest process's peak RSS in MB."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if status:
        raise SystemExit(f"failed: {' '.join(command)}")
    return elapsed, usage.ru_maxrss // 1024


def bench(n: int, work: Path, hugo: bool) -> dict[str, float]:
    """Return the timings of one size."""
    content = work / f"content-{n}"
    synthesize(n, content)
    out = work / f"site-{n}"
    cache = work / "cache"
    build = [sys.executable, "-m", "errorsite", "build", "--quiet", "--content", str(content), "--out", str(out)]
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(work / paths.CACHE_DIR, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    row: dict[str, float] = {"records": n}
    row["cold"], row["rss"] = run(build)
    row["pages"] = sum(1 for _ in out.rglob("*.html"))
    records = sorted((content / "errors").glob("*.json"))
    edit(records[n // 3], "title", records[0].stem)
    row["first edit"], _ = run(build)
    paths.state_path(out).unlink()
    shutil.rmtree(out)
    row["warm"], _ = run(build)
    record = sorted((content / "errors").glob("*.json"))[n // 2]
    data = json.loads(record.read_text())
    data["meaning"] += " Edited for the benchmark."
    record.write_text(json.dumps(data, indent=2) + "\n")
    row["one"], row["one_rss"] = run(build)
    row["none"], _ = run(build)
    for kind, seconds in edit_kinds(content, build).items():
        row[f"edit {kind}"], row[f"edit {kind} max"] = statistics.median(seconds), max(seconds)
    if hugo:
        project = work / f"hugo-{n}"
        hugo_site(content, project)
        command = ["hugo", "--quiet", "-s", str(project), "-d", str(project / "public")]
        row["hugo"], row["hugo_rss"] = run(command)
        row["hugo_pages"] = sum(1 for _ in (project / "public").rglob("*.html"))
        page = sorted((project / "content" / "errors").glob("*.md"))[n // 2]
        page.write_text(page.read_text() + "\nEdited for the benchmark.\n")
        row["hugo_one"], _ = run(command)
    return row


def serve_latency(n: int, work: Path, edits: int = 7) -> float:
    """Return the median seconds from saving a record to its page being served anew, via the reload endpoint."""
    import urllib.request

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from errorsite import serve

    content = work / f"serve-{n}" / "content"
    synthesize(n, content)
    server = serve.Server(content, port=0, log=lambda text: None)
    server.start()
    port = server.httpd.server_address[1]
    record = sorted((content / "errors").glob("*.json"))[n // 3]
    times = []
    try:
        for number in range(edits):
            time.sleep(0.3)
            data = json.loads(record.read_text())
            data["meaning"] = f"Edit number {number} of the benchmark."
            version = server.version
            started = time.perf_counter()
            # Saved whole in one step, as editors that write a new file and rename it do: a watcher
            # that looks while the file is half written rebuilds once more.
            record.with_suffix(".tmp").write_text(json.dumps(data, indent=2))
            record.with_suffix(".tmp").replace(record)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{serve.WAIT_PATH}?version={version}") as reply:
                reply.read()
            with urllib.request.urlopen(f"{server.url}errors/{record.stem}/") as reply:
                assert f"Edit number {number} " in reply.read().decode()
            times.append(time.perf_counter() - started)
    finally:
        server.stop()
    return statistics.median(times)


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--no-hugo", action="store_true", help="skip Hugo even when it is installed")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--load", type=int, default=0, help="busy processes kept running meanwhile (default: none)")
    parser.add_argument("--serve", type=int, metavar="N",
                        help="also measure errorsite serve, from saving a record to its new page, at N records")
    args = parser.parse_args()
    hugo = not args.no_hugo and shutil.which("hugo") is not None
    work = args.keep or Path(tempfile.mkdtemp(prefix="errorsite-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    # Every build runs as an installed errorsite does, its modules compiled once (pip compiles a
    # wheel's modules as it installs them), here into the work folder; not compiled again by each
    # process, as under PYTHONDONTWRITEBYTECODE, which costs every build about 45 ms.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(work / "bytecode")
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")  # each build's cache (see errorsite.sitebuild.paths)
    header = (f"{'records':>8} {'pages':>7} {'cold s':>7} {'pages/s':>8} {'warm s':>7} {'1-change s':>10} "
              f"{'no-change s':>11} {'peak MB':>8}")
    if hugo:
        header += f" {'hugo s':>7} {'hugo p/s':>8} {'hugo 1-ch s':>11} {'hugo MB':>8} {'ratio':>6}"
    print(header, flush=True)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    missed: list[str] = []
    try:
        if args.serve:
            print(f"serve: {serve_latency(args.serve, work) * 1000:.0f} ms from save to reloaded page "
                  f"at {args.serve} records (median of 7)", flush=True)
        for n in args.sizes:
            r = bench(n, work, hugo)
            line = (f"{n:>8} {r['pages']:>7.0f} {r['cold']:>7.2f} {r['pages'] / r['cold']:>8.0f} {r['warm']:>7.2f} "
                    f"{r['one']:>10.3f} {r['none']:>11.3f} {max(r['rss'], r['one_rss']):>8.0f}")
            if hugo:
                hugo_rate = r["hugo_pages"] / r["hugo"]
                line += (f" {r['hugo']:>7.2f} {hugo_rate:>8.0f} {r['hugo_one']:>11.2f} {r['hugo_rss']:>8.0f} "
                         f"{r['pages'] / r['cold'] / hugo_rate:>6.2f}")
            print(line, flush=True)
            print(f"  first edit after a clone (a title): {r['first edit']:.3f} s; single-record edits, median (slowest)"
                  " of 3 records, s: " + ", ".join(
                      f"{kind} {r[f'edit {kind}']:.3f} ({r[f'edit {kind} max']:.3f})" for kind in EDITS), flush=True)
            missed += goals_missed(r, hugo)
        print(f"load average {os.getloadavg()[0]:.1f} with {args.load} busy processes", flush=True)
    finally:
        for process in busy:
            process.kill()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if missed:
        print("missed: " + "; ".join(missed))
    sys.exit(1 if missed else 0)


def goals_missed(r: dict[str, float], hugo: bool) -> list[str]:
    """Print each goal that bounds a figure of one size beside it; return those missed."""
    missed = []
    records, seconds = EDIT_GOAL
    if r["records"] >= records:
        slowest = max(r["first edit"], *(r[f"edit {kind} max"] for kind in EDITS))
        print(f"  goal: every edit at {r['records']:,.0f} records <= {seconds} s: slowest {slowest:.3f} s")
        if slowest > seconds:
            missed.append(f"{r['records']:,.0f} records: an edit took {slowest:.3f} s")
    if hugo:
        ratio = r["pages"] / r["cold"] / (r["hugo_pages"] / r["hugo"])
        print(f"  goal: >= {HUGO_GOAL}x Hugo's pages per second: {ratio:.2f}x")
        if ratio < HUGO_GOAL:
            missed.append(f"{r['records']:,.0f} records: {ratio:.2f}x Hugo")
    return missed


if __name__ == "__main__":
    main()
