"""Measure the search index size and search time on 10,000 synthetic records.

Run: python benchmarks/search_bench.py [--records N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from errorsite.search.index import build_index  # noqa: E402
from errorsite.search.rank import search  # noqa: E402

SUBJECTS = ["tp_size", "page_size", "draft_topk", "max_batch_size", "chunk_size", "column", "index", "route", "adapter",
            "tokenizer", "kv cache", "scheduler", "middleware", "request body", "parquet file", "dtype", "port", "quantization"]
VERBS = ["must be positive", "is not supported", "does not match", "could not be loaded", "exceeds the limit",
         "is already registered", "was not found", "must be set together with", "conflicts with", "is deprecated"]
EXTRAS = ["got {value!r}", "expected one of {choices}", "see {url} for details", "set {flag} to override",
          "in {path} at line {line}", "for backend {backend}", "(%d items)", "with dtype %s"]
AREAS = ["srv/config", "srv/spec", "srv/memory", "web/routing", "web/forms", "tabula/io", "tabula/frame", "srv/lora"]
WORDS = ("the option counts workers pages tokens rows columns batches requests adapters kernels backends layers "
         "memory cache drafts blocks files paths routes handlers sessions values limits settings").split()


def synthesize(n: int, seed: int = 7) -> list[dict]:
    """Return `n` realistic, varied error records."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        subject = rng.choice(SUBJECTS) + ("" if rng.random() < 0.5 else f"_{rng.choice(WORDS)}")
        message = f"{subject} {rng.choice(VERBS)}"
        for _ in range(rng.randint(0, 3)):
            message += rng.choice([", ", "; ", ". "]) + rng.choice(EXTRAS)
        area = rng.choice(AREAS)
        rid = f"{i:016x}"
        records.append({
            "id": rid, "title": message[:80], "exception": rng.choice(["ValueError", "RuntimeError", "pkg.errors.ConfigError"]),
            "message": message, "path": f"{area}/{rng.choice(WORDS)}_{i % 97}.py", "line": rng.randint(1, 2000),
            "function": f"check_{rng.choice(WORDS)}", "tags": rng.sample(WORDS, 2),
            "meaning": " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))).capitalize() + ".",
            "status": "removed" if rng.random() < 0.05 else "active", "url": f"errors/{rid}/",
        })
    return records


QUERIES = [
    "ValueError: tp_size must be positive, got -1",
    "page_size is not supported; expected one of ['a', 'b']",
    "2024-05-01 12:00:03,114 ERROR [srv] route was not found. see https://x/y for details",
    "kv cache exceeds the lim",
    "dflash block size",
    "tokenizer adapters",
    "schedular midleware",
    "d",
    "Traceback (most recent call last):\n  File \"/x/srv/config/tokens_3.py\", line 9, in f\n    raise\nValueError: port conflicts with 8080",
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    args = parser.parse_args()
    records = synthesize(args.records)
    start = time.perf_counter()
    index = build_index(records)
    built = time.perf_counter() - start
    raw = json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode()
    packed = gzip.compress(raw, 9)
    n = len(records)
    print(f"records: {n}, index built in {built:.2f} s")
    print(f"index: {len(raw) / 1e6:.2f} MB raw, {len(packed) / 1e6:.2f} MB gzip; "
          f"per record {len(raw) / n:.0f} B raw, {len(packed) / n:.0f} B gzip")
    print("\nPython search (ms, median of 5):")
    for query in QUERIES:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            results = search(index, query)
            times.append(time.perf_counter() - start)
        top = results[0]["kind"] if results else "-"
        print(f"  {sorted(times)[2] * 1000:8.1f}  {top:8} {query[:60]!r}")
    node = shutil.which("node")
    if not node:
        print("\nnode not found: no JS timings")
        return 0
    script = f"""
const m = require({json.dumps(str(ROOT / 'templates' / 'static' / 'match.js'))});
const fs = require('fs');
let t = process.hrtime.bigint();
const index = JSON.parse(fs.readFileSync(0, 'utf8'));
console.log(`\\nNode: parse index ${{Number(process.hrtime.bigint() - t) / 1e6}} ms`);
console.log('Node search (ms, median of 5, first call warms the term map):');
for (const q of {json.dumps(QUERIES)}) {{
  const times = [];
  let r;
  for (let i = 0; i < 5; i++) {{ t = process.hrtime.bigint(); r = m.search(index, q, 10); times.push(Number(process.hrtime.bigint() - t) / 1e6); }}
  times.sort((a, b) => a - b);
  console.log(`  ${{times[2].toFixed(1).padStart(8)}}  ${{(r[0] ? r[0].kind : '-').padEnd(8)}} ${{JSON.stringify(q.slice(0, 60))}}`);
}}
"""
    subprocess.run([node, "-e", script], input=raw, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
