"""Time `errorsite verify` over errorsite's own reference, as CI runs it.

Run: python benchmarks/verify_bench.py [--runs N]
Each run copies content/ to a temporary folder (the repository's records are
never written) and runs `errorsite verify` there as its own process. Prints the
wall time, the CPU time of verify and every command it started, and the load
average, which on a shared machine explains most of the spread.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_run() -> tuple[float, float, str]:
    """Return the wall seconds, CPU seconds and summary line of one verify run on a copy of content/."""
    with tempfile.TemporaryDirectory() as folder:
        content = Path(folder) / "content"
        shutil.copytree(ROOT / "content", content)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "errorsite", "verify", "--content", str(content)],
                                capture_output=True, text=True, cwd=ROOT, check=False)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(result.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, result.stdout.strip()


def main() -> None:
    """Run verify the given number of times and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    walls = []
    for _ in range(args.runs):
        load = os.getloadavg()[0]
        wall, cpu, summary = one_run()
        walls.append(wall)
        print(f"{wall:6.1f} s wall, {cpu:5.1f} s CPU, load average {load:.1f} before the run: {summary}")
    print(f"median {statistics.median(walls):.1f} s wall over {len(walls)} runs on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
