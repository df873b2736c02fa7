"""Measure errorsite on a real library at full size: init, build, what a search loads, lookup, peak memory.

Run: python benchmarks/library_bench.py [--package sglang==0.5.23] [--source DIR] [--work DIR]
                                        [--sample N] [--lookups N] [--seed S]

The library comes from the registry (`pip download NAME==VERSION --no-deps`: a wheel holds its
sources) or from a folder (`--source`, e.g. an installed package in site-packages). Its Python
files are committed into a fresh git repository, then each step runs as its own process, as a
maintainer runs it, timed with its peak memory (the largest resident set of the process and its
children): `errorsite init`, a cold `errorsite build`, a second `errorsite extract` after one file
changed, `errorsite lookup --site` per message, and `errorsite lookup --content` once, then per message with
what the first kept.

What one search loads is measured over real pastes of the library's own messages: a sample of
its records' templates, filled as programs fill them and pasted in every form of
`match_eval.paste_forms` (message, exception line, traceback, chained traceback, log lines, terminal
wrap, ...), each read through the index's fragments as the search page reads them
(`search.shards.load_for`, the steps match.js takes: tests/test_match.py checks that both read the
same fragments). It reports the median and the worst bytes a search loaded, and that every search
gave the whole index's answer.

The goals of issue 27 are printed beside each figure; the script exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
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
from errorsite.search import shards  # noqa: E402
from errorsite.search.index import field_positions, load_index, read_index_script  # noqa: E402
from errorsite.search.rank import search  # noqa: E402

ERRORSITE = [sys.executable, "-m", "errorsite"]
GOALS = {
    "init s": 12.0, "init MB": 400.0, "re-extract s": 2.0, "build s": 25.0,
    "search KB median": 150.0, "search KB worst": 150.0, "lookup s": 0.3,
    "lookup --content kept s": 0.3,
}
"""Issue 27's goals, by the figure they bound (at most)."""


def run(argv: list[str], cwd: Path) -> tuple[float, float, str]:
    """Run a command; return its wall seconds, its peak resident memory in MB (its children's included), and its output."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({process.returncode}):\n{out.decode(errors='replace')}")
    return seconds, usage.ru_maxrss / 1024, out.decode(errors="replace")


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
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "library"], cwd=repo, check=True)
    return repo


def pastes(index: dict[str, Any], sample: int, seed: int) -> list[str]:
    """Return every paste form of `sample` of the index's messages, filled as programs fill them."""
    rng = random.Random(seed)
    at = field_positions(index)
    rows = rng.sample(index["records"], min(sample, len(index["records"])))
    out = []
    for row in rows:
        record = {"exception": row[at["exception"]], "path": row[at["path"]], "line": row[at["line"]],
                  "function": row[at["function"]]}
        out += list(paste_forms(record, render(row[at["message"]], rng), Path("/usr/lib/python3/site-packages"),
                                rng).values())
    return out


def search_bytes(site: Path, texts: list[str]) -> tuple[list[int], int]:
    """Return the bytes of the fragments each search of `texts` loaded, and how many answers differed from the whole index's."""
    index = load_index(read_index_script((site / "search-index.js").read_bytes()) or {})
    sizes, differ = [], 0
    for text in texts:
        loaded: list[int] = []

        def read(path: str) -> Any:
            body = (site / path).read_bytes()
            loaded.append(len(body))
            return shards.read_script(body)

        found = shards.search_loaded(shards.load_for(read, text, 20), text, 20)
        differ += found != search(index, text, 20)
        sizes.append(sum(loaded))
    return sizes, differ


def one_file_changed(repo: Path) -> None:
    """Change one Python file of the repository (a comment at its end) and commit it."""
    path = sorted(repo.rglob("*.py"))[len(list(repo.rglob("*.py"))) // 2]
    path.write_text(path.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "-qam", "edit"],
                   cwd=repo, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", default="sglang==0.5.23", help="NAME==VERSION on the registry (default: %(default)s)")
    parser.add_argument("--source", type=Path, help="a folder of the library's sources instead (an installed package)")
    parser.add_argument("--work", type=Path, help="where to make the repository (default: a temporary folder)")
    parser.add_argument("--sample", type=int, default=40, help="messages pasted in every form (default: %(default)s)")
    parser.add_argument("--lookups", type=int, default=10, help="lookup processes timed (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="library-bench-"))
    repo = make_repository(None if args.source else args.package, args.source, work)
    figures: dict[str, float] = {}
    figures["python files"] = len(list(repo.rglob("*.py")))
    figures["init s"], figures["init MB"], _ = run([*ERRORSITE, "init", "."], repo)
    figures["records"] = len(list((repo / "content" / "errors").glob("*.json")))
    one_file_changed(repo)
    figures["re-extract s"], figures["re-extract MB"], _ = run([*ERRORSITE, "extract", "."], repo)
    figures["build s"], figures["build MB"], out = run([*ERRORSITE, "build", "--content", "content", "--out", "site"], repo)
    print(out.strip().splitlines()[-1])
    site = repo / "site"
    texts = pastes(read_index_script((site / "search-index.js").read_bytes()) or {}, args.sample, args.seed)
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
    missed = []
    print(f"\n{args.source or args.package} in {repo} (load average {os.getloadavg()[0]:.1f})\n")
    print("| figure | measured | goal |\n| --- | ---: | ---: |")
    for name, value in figures.items():
        goal = GOALS.get(name)
        print(f"| {name} | {value:,.2f} | {'' if goal is None else f'<= {goal:g}'} |")
        if goal is not None and value > goal:
            missed.append(name)
    if differ:
        missed.append("answers unlike the whole index")
    if missed:
        print("\nmissed: " + ", ".join(missed))
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
