"""Measure errorsite on a real library at full size: init, build, what a search loads, lookup, peak memory.

Run: python benchmarks/library_bench.py [--package sglang==0.5.23 ...] [--source DIR] [--work DIR]
                                        [--sample N] [--lookups N] [--seed S] [--load N] [--extract-only]
     python benchmarks/library_bench.py --site DIR [--sample N] [--seed S]

The library comes from the registry (`pip download NAME==VERSION --no-deps`: a wheel holds its
sources) or from a folder (`--source`, e.g. an installed package in site-packages). Its Python
files are committed into a fresh git repository, then each step runs as its own process, as a
maintainer runs it, timed with its peak memory (the largest resident set of the process and its
children): `errorsite init`, a cold `errorsite build`, a second `errorsite extract` after one file
changed, `errorsite check --source` after three files changed (what a pull request's check runs; both
read what init kept in the user's cache folder, a folder of the run's own, whose size is printed),
`errorsite extract` after two more changed files once the folder lost what those two runs did not use
(what the Action lets go of before it saves the folder, as one CI run's; the extract is the next run's,
and finds every record file written anew, as the next run's fresh clone does),
`errorsite lookup --site` per message, and `errorsite lookup --content` once, then per message with
what the first kept. The floor those extracts are measured against is `ast.parse` of every tracked
`.py` file, in a process of its own on every core, in the same run. The repository is packed once its
records are committed (`git gc`), and git starts no repack of its own in the background meanwhile. Peak
memory is that of the whole process tree (every worker's resident set added up), sampled as it runs. `--load N` keeps N busy
processes running meanwhile: the figures that count are those of a machine that is not idle.
`--package` may be given more than once: each library is measured in turn.

What one search loads is measured over real pastes of the library's own messages: a sample of
its records' templates, filled as programs fill them and pasted in every form of
`match_eval.paste_forms` (message, exception line, traceback, chained traceback, log lines, terminal
wrap, ...), each read through the index's fragments as the search page reads them
(`search.sharded.load_for`, the steps match.js takes: tests/test_match.py checks that both read the
same fragments). It reports the median and the worst bytes a search loaded, and that every search
gave the whole index's answer. `--site DIR` measures only that, on a site already built: per paste
form, with what the heaviest searches loaded of each kind of fragment.

The goals are printed beside each figure; the script exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.match_eval import paste_forms, render  # noqa: E402
from errorsite.search import sharded, shards  # noqa: E402
from errorsite.search.index import field_positions, load_index, read_index_script  # noqa: E402
from errorsite.search.rank import search  # noqa: E402

ERRORSITE = [sys.executable, "-m", "errorsite"]
GOALS = {
    "init MB": 500.0, "re-extract s": 2.0, "check --source s": 3.0, "extract after the Action's deletion s": 2.0,
    "build s": 25.0,
    "search KB median": 150.0, "search KB worst": 150.0, "lookup s": 0.3,
    "lookup --content kept s": 0.3,
}
"""The goals, by the figure they bound (at most)."""
FLOOR_TIMES = 2.0
"""`init` may take at most this many times the parse floor measured in the same run."""

PARSE_FLOOR = """
import ast, subprocess, sys, warnings
from concurrent.futures import ProcessPoolExecutor

def parse(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(open(path, "rb").read())
        except (SyntaxError, ValueError):
            pass
    return 0

if __name__ == "__main__":
    files = subprocess.run(["git", "ls-files", "-z", "*.py"], capture_output=True, check=True).stdout.decode().split("\\0")
    with ProcessPoolExecutor() as pool:
        sum(pool.map(parse, [f for f in files if f], chunksize=16))
"""
"""The floor: `ast.parse` of every tracked `.py` file, on every core, as a process of its own."""


def tree_rss(pid: int) -> int:
    """Return the memory of a process and all its descendants, from /proc (0 once it is gone).

    Each process counts its proportional set size: a page it shares with a process it forked counts
    half in each, so the sum is what the tree holds, not its pages counted once per process."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup", "rb") as rollup:
                total += next(int(line.split()[1]) * 1024 for line in rollup if line.startswith(b"Pss:"))
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", "rb") as children:
                    todo += [int(child) for child in children.read().split()]
        except (OSError, ValueError):
            continue  # ended meanwhile
    return total


def run(argv: list[str], cwd: Path) -> tuple[float, float, str]:
    """Run a command; return its wall seconds, the peak resident memory of its process tree in MB, and its output."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(argv, cwd=cwd, stdout=output, stderr=subprocess.STDOUT)
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_rss(process.pid))
            time.sleep(0.1)  # reading a large process's page tables is not free
        seconds = time.perf_counter() - started
        output.seek(0)
        out = output.read()
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({process.returncode}):\n{out.decode(errors='replace')}")
    return seconds, peak / 1024**2, out.decode(errors="replace")


def make_repository(package: str | None, source: Path | None, work: Path) -> Path:
    """Return a git repository holding the library's Python files, committed."""
    repo = work / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    if source is not None:
        shutil.copytree(source, repo / source.name, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        assert package is not None
        download = work / "download"
        download.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", package, "--no-deps", "--only-binary", ":all:",
                        "-q", "-d", str(download)], check=True)
        name = package.split("==")[0].replace("-", "_").lower()
        wheel = next(p for p in sorted(download.glob("*.whl")) if p.name.lower().startswith(name))
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.endswith(".py") and ".dist-info/" not in member and ".data/" not in member:
                    archive.extract(member, repo)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "config", "gc.auto", "0"], cwd=repo, check=True)  # no repack in the background: see measure
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "library"], cwd=repo, check=True)
    return repo


def pastes(index: dict[str, Any], sample: int, seed: int) -> list[tuple[str, str]]:
    """Return every paste form of `sample` of the index's messages, filled as programs fill them, as (form, text)."""
    rng = random.Random(seed)
    at = field_positions(index)
    rows = rng.sample(index["records"], min(sample, len(index["records"])))
    out = []
    for row in rows:
        record = {"exception": row[at["exception"]], "path": row[at["path"]], "line": row[at["line"]],
                  "function": row[at["function"]]}
        out += list(paste_forms(record, render(row[at["message"]], rng), Path("/usr/lib/python3/site-packages"),
                                rng).items())
    return out


def search_loads(site: Path, texts: list[str]) -> tuple[list[dict[str, int]], int]:
    """Return the bytes each search of `texts` loaded by kind of fragment (`kind`), and how many answers differed
    from the whole index's."""
    index = load_index(read_index_script((site / "search-index.js").read_bytes()) or {})
    loads, differ = [], 0
    for text in texts:
        loaded: dict[str, int] = {}

        def read(path: str) -> Any:
            body = (site / path).read_bytes()
            loaded[kind(path)] = loaded.get(kind(path), 0) + len(body)
            return shards.read_script(body)

        found = sharded.search_loaded(sharded.load_for(read, text, 20), text, 20)
        differ += found != search(index, text, 20)
        loads.append(loaded)
    return loads, differ


def search_bytes(site: Path, texts: list[str]) -> tuple[list[int], int]:
    """Return the bytes of the fragments each search of `texts` loaded, and how many answers differed from the whole index's."""
    loads, differ = search_loads(site, texts)
    return [sum(loaded.values()) for loaded in loads], differ


def kind(path: str) -> str:
    """Return the kind of a fragment: its folder under search/ (`p`, `f`, `r`, ...), or its name (`lengths`)."""
    parts = path.removeprefix(shards.FOLDER).split("/")
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".js")


def measure_site(site: Path, sample: int, seed: int, heaviest: int = 8) -> dict[str, float]:
    """Print what one search of a built site loads, per paste form and for the heaviest searches by kind of
    fragment; return the figures."""
    texts = pastes(read_index_script((site / "search-index.js").read_bytes()) or {}, sample, seed)
    loads, differ = search_loads(site, [text for _, text in texts])
    sizes = [sum(loaded.values()) for loaded in loads]
    print("| paste form | median KB | worst KB |\n| --- | ---: | ---: |")
    for form in dict.fromkeys(form for form, _ in texts):
        mine = [size for (f, _), size in zip(texts, sizes) if f == form]
        print(f"| {form} | {statistics.median(mine) / 1024:.1f} | {max(mine) / 1024:.1f} |")
    print("\nheaviest searches, KB by kind of fragment:")
    for k in sorted(range(len(sizes)), key=lambda k: -sizes[k])[:heaviest]:
        parts = " ".join(f"{name} {size / 1024:.1f}" for name, size in sorted(loads[k].items(), key=lambda kv: -kv[1]))
        print(f"  {sizes[k] / 1024:6.1f} {texts[k][0]:14} {parts}")
    fragments = [p for p in (site / shards.FOLDER).rglob("*.js") if shards.is_fragment(p.relative_to(site).as_posix())]
    return {"searches": len(sizes), "search KB median": statistics.median(sizes) / 1024,
            "search KB worst": max(sizes) / 1024, "answers unlike the whole index": differ,
            "fragments MB": sum(p.stat().st_size for p in fragments) / 1024**2, "fragments": len(fragments)}


def files_changed(repo: Path, count: int, commit: bool) -> None:
    """Change `count` Python files of the repository that hold a raise (a line in one function), and commit them."""
    documented = sorted({json.loads(p.read_text())["source"]["path"] for p in (repo / "content" / "errors").glob("*.json")})
    rng = random.Random(len(documented) + count)
    for name in rng.sample(documented, count):
        path = repo / name
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        at = next((i for i, line in enumerate(lines) if line.lstrip().startswith("raise ")), len(lines) - 1)
        indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
        lines.insert(at, f"{indent}_changed = {count}  # an edit next to a raise\n")
        path.write_text("".join(lines), encoding="utf-8")
    if commit:
        subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "-qam", "edit"],
                       cwd=repo, check=True)


def set_back(cache: Path) -> float:
    """Set the time of every entry of the cache folder an hour back, as the Action finds them in a folder it restored;
    return the time a run that starts now starts at."""
    long_ago = time.time() - 3600
    for entry in (cache / "errorsite" / "facts").iterdir():
        os.utime(entry, (long_ago, long_ago))
    return time.time()


def let_go(cache: Path, started: float) -> None:
    """Delete the entries of the cache folder that no run used since `started`, as the Action does before it saves
    the folder (action.yml, "Let go of what this run did not read")."""
    for entry in (cache / "errorsite" / "facts").iterdir():
        if entry.is_file() and entry.stat().st_mtime < started:
            entry.unlink()


def checked_out_again(folder: Path) -> None:
    """Write every file of `folder` anew with the bytes it has, as a fresh clone's checkout does (every CI run's): a
    file of another inode and a later time."""
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        path.unlink()
        path.write_bytes(data)


def measure(package: str | None, source: Path | None, work: Path, args: argparse.Namespace) -> dict[str, float]:
    """Return the figures of one library."""
    repo = make_repository(package, source, work)
    # A cache folder of this measurement's own: init is a first extract (nothing kept), the later steps read
    # what init and extract kept (`extract.facts`), as on a maintainer's machine or a CI runner that keeps it.
    cache = work / "user-cache"
    shutil.rmtree(cache, ignore_errors=True)
    os.environ["XDG_CACHE_HOME"] = str(cache)
    figures: dict[str, float] = {}
    figures["python files"] = len(list(repo.rglob("*.py")))
    figures["parse floor s"], figures["parse floor MB"], _ = run([sys.executable, "-c", PARSE_FLOOR], repo)
    figures["init s"], figures["init MB"], _ = run([*ERRORSITE, "init", "."], repo)
    figures["init / floor"] = figures["init s"] / figures["parse floor s"]
    figures["records"] = len(list((repo / "content" / "errors").glob("*.json")))
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "-qm", "records"],
                   cwd=repo, check=True)
    # Packed now, as a repository is, rather than by the repack git would start in the background after this commit
    # (sglang's 17,000 loose objects): that one ran during the steps measured next, on the same two cores.
    subprocess.run(["git", "gc", "--quiet"], cwd=repo, check=True)
    files_changed(repo, 1, commit=True)
    # The Action's cache: the extract and the check below are one CI run, whose folder is saved once the run let go
    # of what it did not use; the extract measured after that is the next run's.
    started = set_back(cache)
    figures["re-extract s"], figures["re-extract MB"], _ = run([*ERRORSITE, "extract", "."], repo)
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "-qam", "re-pinned"],
                   cwd=repo, check=True)
    files_changed(repo, 3, commit=True)
    figures["check --source s"], figures["check --source MB"], _ = run(
        [*ERRORSITE, "check", "--content", "content", "--source", "."], repo)
    figures["kept facts MB"] = sum(f.stat().st_size for f in (cache / "errorsite" / "facts").iterdir()) / 1024**2
    let_go(cache, started)
    files_changed(repo, 2, commit=True)
    checked_out_again(repo / "content" / "errors")
    figures["extract after the Action's deletion s"], figures["extract after the Action's deletion MB"], _ = run(
        [*ERRORSITE, "extract", "."], repo)
    if args.extract_only:
        return figures
    figures["build s"], figures["build MB"], out = run([*ERRORSITE, "build", "--content", "content", "--out", "site"], repo)
    print(out.strip().splitlines()[-1])
    site = repo / "site"
    texts = [text for _, text in pastes(read_index_script((site / "search-index.js").read_bytes()) or {},
                                        args.sample, args.seed)]
    sizes, differ = search_bytes(site, texts)
    figures["searches"] = len(sizes)
    figures["search KB median"] = statistics.median(sizes) / 1024
    figures["search KB worst"] = max(sizes) / 1024
    figures["answers unlike the whole index"] = differ
    figures["whole index KB"] = (site / "search-index.js").stat().st_size / 1024
    rng = random.Random(args.seed)
    timed = [run([*ERRORSITE, "lookup", text, "--site", "site"], repo)[:2] for text in rng.sample(texts, args.lookups)]
    figures["lookup s"] = statistics.median(t for t, _ in timed)
    figures["lookup s worst"] = max(t for t, _ in timed)
    figures["lookup MB"] = max(m for _, m in timed)
    figures["lookup --content s"], figures["lookup --content MB"], _ = run(
        [*ERRORSITE, "lookup", texts[0], "--content", "content"], repo)
    # The first lookup kept the folder's answers (its files are older than the build): later ones read no record.
    kept = [run([*ERRORSITE, "lookup", text, "--content", "content"], repo)[0] for text in rng.sample(texts, args.lookups)]
    figures["lookup --content kept s"] = statistics.median(kept)
    return figures


def report(name: str, figures: dict[str, float]) -> list[str]:
    """Print a library's figures beside their goals; return the names of those that missed."""
    missed = []
    print(f"\n{name} (load average {os.getloadavg()[0]:.1f})\n")
    print("| figure | measured | goal |\n| --- | ---: | ---: |")
    for figure, value in figures.items():
        goal = FLOOR_TIMES if figure == "init / floor" else GOALS.get(figure)
        print(f"| {figure} | {value:,.2f} | {'' if goal is None else f'<= {goal:g}'} |")
        if goal is not None and value > goal:
            missed.append(f"{name}: {figure}")
    if figures.get("answers unlike the whole index"):
        missed.append(f"{name}: answers unlike the whole index")
    return missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", action="append", help="NAME==VERSION on the registry, once per library "
                        "(default: sglang==0.5.23 and sympy==1.14.0)")
    parser.add_argument("--source", type=Path, help="a folder of the library's sources instead (an installed package)")
    parser.add_argument("--work", type=Path, help="where to make the repositories (default: a temporary folder)")
    parser.add_argument("--sample", type=int, default=40, help="messages pasted in every form (default: %(default)s)")
    parser.add_argument("--lookups", type=int, default=10, help="lookup processes timed (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--load", type=int, default=0, help="busy processes kept running meanwhile (default: none)")
    parser.add_argument("--extract-only", action="store_true", help="measure extract and check alone, not build and search")
    parser.add_argument("--site", type=Path, help="measure only what a search loads, of this site already built")
    args = parser.parse_args()
    if args.site:
        missed = report(f"{args.site}, searches", measure_site(args.site, args.sample, args.seed))
        sys.exit(1 if missed else 0)
    work = args.work or Path(tempfile.mkdtemp(prefix="library-bench-"))
    libraries: list[tuple[str | None, Path | None]] = [(None, args.source)] if args.source else [
        (package, None) for package in args.package or ["sglang==0.5.23", "sympy==1.14.0"]]
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    missed = []
    try:
        for package, source in libraries:
            name = str(source) if source else str(package)
            figures = measure(package, source, work / name.replace("/", "_"), args)
            missed += report(f"{name}, {args.load} busy processes", figures)
    finally:
        for process in busy:
            process.kill()
    if missed:
        print("\nmissed: " + "; ".join(missed))
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
