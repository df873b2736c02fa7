"""Measure what `source.guard`, `source.callers` and `source.names` add to extract's scan of a repository.

Run: python benchmarks/context_bench.py REPO [--rev HEAD] [--runs 2] [--load N]

Each run is a fresh process that reads the repository's files at `rev` and
scans them, timed from the first parse to the last site: once as extract
scans (guards, callers and names), once without them (every guard left
empty, no index joined), alternating, so that a change in the machine's
load falls on both alike. Prints each run's seconds and peak resident
memory, the CPU time spent in the code that makes the new fields, the
medians, and what the new fields add. `--load N` keeps N busy
processes running meanwhile, to measure under load. A library of at least
10,000 raise sites is the case that matters: sglang 0.5.23's wheel, made
into a git repository, has about 12,500.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from errorsite.extract import context, git, scan  # noqa: E402
from errorsite.extract.globs import FileFilter  # noqa: E402
from errorsite.model import SourceSettings  # noqa: E402

MODES = ("with", "without")
"""`with`: the scan extract runs; `without`: the same scan with no guard, callers or names."""


def measure(repo: Path, rev: str, mode: str) -> dict[str, float]:
    """Return the seconds (wall and CPU), peak memory and site count of one scan of `repo` at `rev` (in this process).

    In a scan with the new fields, `inside` is the CPU time spent in the code that makes them (indexing
    files, reading guards, joining callers and names): what they add, free of run-to-run noise.
    """
    files = git.snapshot(repo, rev, FileFilter.of_settings(SourceSettings())).files
    inside = [0.0]
    if mode == "without":
        scan.Guards.of = lambda self, node: ()  # type: ignore[method-assign]
    else:
        scan.index_file = _timed(scan.index_file, inside)  # type: ignore[assignment]
        scan.Guards.of = _timed(scan.Guards.of, inside)  # type: ignore[method-assign]
        context.Context.annotate = _timed(context.Context.annotate, inside)  # type: ignore[method-assign]
    start, cpu = time.perf_counter(), time.process_time()
    found = scan.scan_files(files, context=mode == "with")
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    with_fields = sum(1 for s in found.sites if s.guard or s.callers or s.names)
    return {"seconds": seconds, "cpu": cpu_seconds, "inside": inside[0],
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "sites": len(found.sites), "files": found.files, "with_fields": with_fields}


def _timed(function: Callable[..., Any], total: list[float]) -> Callable[..., Any]:
    """Return `function` adding the CPU time of each call to `total[0]` (calls do not nest)."""
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            total[0] += time.process_time() - start
    return timed


def run_child(repo: Path, rev: str, mode: str) -> dict[str, float]:
    """Return what `measure` returns, from a fresh process (so that peak memory is this scan's alone)."""
    done = subprocess.run([sys.executable, __file__, str(repo), "--rev", rev, "--child", mode],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def main() -> None:
    """Parse the arguments, run the scans and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a git repository")
    parser.add_argument("--rev", default="HEAD", help="the commit to scan")
    parser.add_argument("--runs", type=int, default=2, help="scans of each kind")
    parser.add_argument("--load", type=int, default=0, help="busy processes to keep running meanwhile")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.repo, args.rev, args.child)))
        return
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.load} busy processes added")
        results: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
        for number in range(args.runs):
            for mode in MODES if number % 2 == 0 else MODES[::-1]:
                result = run_child(args.repo, args.rev, mode)
                results[mode].append(result)
                print(f"{mode:>7}: {result['sites']:,.0f} sites in {result['files']:,.0f} files, {result['seconds']:.2f} s"
                      f" ({result['cpu']:.2f} s CPU), peak {result['peak_mb']:.0f} MB"
                      + (f"; {result['inside']:.2f} s CPU making the fields, {result['with_fields']:,.0f} sites have"
                         " some" if mode == "with" else ""))
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        for process in busy:
            process.kill()
            process.wait()
    median = {mode: {key: statistics.median(r[key] for r in results[mode]) for key in ("seconds", "cpu", "peak_mb")}
              for mode in MODES}
    inside = statistics.median(r["inside"] for r in results["with"])
    for key, unit in (("seconds", "s wall"), ("cpu", "s CPU")):
        added = median["with"][key] - median["without"][key]
        print(f"median {unit}: with {median['with'][key]:.2f}, without {median['without'][key]:.2f};"
              f" added {added:+.2f} ({added / median['without'][key]:+.1%})")
    print(f"CPU spent making the fields: {inside:.2f} s ({inside / median['without']['cpu']:+.1%} of a scan without them)")
    print(f"peak memory: with {median['with']['peak_mb']:.0f} MB, without {median['without']['peak_mb']:.0f} MB;"
          f" added {median['with']['peak_mb'] - median['without']['peak_mb']:+.0f} MB")


if __name__ == "__main__":
    main()
