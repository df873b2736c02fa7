"""Time `errorsite extract --history` on a real repository: cold, rerun, and after a new tag.

Run: python benchmarks/history_bench.py REPO_DIR [--tags GLOB] [--include GLOB]... [--runs N]

REPO_DIR is a clone with its tags (for example `git clone` of pallets/click). The repository is
cloned again into a temporary folder, so that its newest release tag can be deleted and made
again; each run is its own process, as a maintainer would run it, with its own empty cache
folder (XDG_CACHE_HOME) for the cold run. Printed: the release tags, the records, and the
median seconds of each of

- cold: an empty cache, every tag's files scanned;
- rerun: nothing changed, every tag known;
- new tag: the newest tag deleted, a run, the tag made again: the time of the run after it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def errorsite(*args: str, env: dict[str, str]) -> tuple[float, str]:
    """Run errorsite in its own process; return the seconds it took and its last line."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "errorsite", *args], env=env, capture_output=True, text=True,
                          check=True)
    return time.perf_counter() - started, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repo_dir", type=Path)
    parser.add_argument("--tags", default="v*", help="[history] tags (default: v*)")
    parser.add_argument("--include", action="append", default=[])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        repo = work / "repo"
        subprocess.run(["git", "clone", "-q", str(args.repo_dir), str(repo)], check=True)
        content = work / "content"
        content.mkdir()
        (content / "site.toml").write_text(f"[history]\ntags = {json.dumps(args.tags)}\n")
        flags = [f"--include={glob}" for glob in args.include]
        base = {**os.environ, "XDG_CACHE_HOME": str(work / "cache")}
        subprocess.run([sys.executable, "-m", "errorsite", "extract", str(repo), "--content", str(content), *flags],
                       env=base, capture_output=True, check=True)
        records = len(list((content / "errors").glob("*.json")))
        listed = subprocess.run(["git", "-C", str(repo), "tag", "--list", args.tags, "--sort=creatordate"],
                                capture_output=True, text=True, check=True).stdout.split()
        newest = listed[-1]
        commit = subprocess.run(["git", "-C", str(repo), "rev-list", "-n1", newest], capture_output=True, text=True,
                                check=True).stdout.strip()
        history = ["extract", str(repo), "--content", str(content), "--history", *flags]
        cold, rerun, after = [], [], []
        for run in range(args.runs):
            env = {**base, "XDG_CACHE_HOME": str(work / f"cold-{run}")}
            seconds, last = errorsite(*history, env=env)
            cold.append(seconds)
            seconds, _ = errorsite(*history, env=env)
            rerun.append(seconds)
            subprocess.run(["git", "-C", str(repo), "tag", "-d", newest], capture_output=True, check=True)
            errorsite(*history, env=env)
            subprocess.run(["git", "-C", str(repo), "tag", newest, commit], check=True)
            seconds, after_line = errorsite(*history, env=env)
            after.append(seconds)
        print(f"{args.repo_dir}: {len(listed)} tags matching {args.tags!r}, {records} records, {os.cpu_count()} cores")
        print(f"  cold      {statistics.median(cold):6.2f} s   ({last})")
        print(f"  rerun     {statistics.median(rerun):6.2f} s")
        print(f"  new tag   {statistics.median(after):6.2f} s   ({after_line})")


if __name__ == "__main__":
    main()
