"""Time to first search result in headless Chromium, and the index's size, for N synthetic records.

Run: python benchmarks/search_browser_bench.py [N]   (default 10000; needs Debian's chromium)

Builds a synthetic site, serves it on 127.0.0.1, opens the search page with a
pasted message in `?q=` (the index, the engine and the UI load from scratch,
cache disabled), and reports the time from navigation to the first result on
screen, then the time for one more query typed on the warm page.
"""

from __future__ import annotations

import gzip
import sys
import tempfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.synth import synthesize  # noqa: E402
from errorsite import cli  # noqa: E402
from errorsite.search.index import field_positions, read_index_script  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
RUNS = 5


class Quiet(SimpleHTTPRequestHandler):
    """Serves files without logging each request."""

    def log_message(self, *args: object) -> None:
        """Log nothing."""


def filled(message: str) -> str:
    """Return a message template with its placeholders filled the way a program would."""
    out, depth = [], 0
    for char in message:
        if char == "{":
            depth += 1
            if depth == 1:
                out.append("42")
        elif char == "}":
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out).replace("%s", "'auto'").replace("%d", "7").replace("%r", "'x'")


def main() -> None:
    """Build, serve and measure; print a small table."""
    from playwright.sync_api import sync_playwright

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    work = Path(tempfile.mkdtemp(prefix="search-bench-"))
    synthesize(n, work / "content")
    cli.main(["build", "--content", str(work / "content"), "--out", str(work / "site"), "--quiet"])
    index_js = (work / "site" / "search-index.js").read_bytes()
    index = read_index_script(index_js)
    assert index is not None
    query = "ValueError: " + filled(index["records"][n // 2][field_positions(index)["message"]])
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(work / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/search/index.html?q={quote(query)}"
    cold, warm = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for _ in range(RUNS):
            context = browser.new_context()
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector("#results li")
            cold.append(page.evaluate("performance.now()"))
            started = page.evaluate("""() => { const box = document.querySelector('main .searchbox textarea');
                const t = performance.now(); box.value = 'kv cache block size'; box.dispatchEvent(new Event('input'));
                return performance.now() - t; }""")
            warm.append(started)
            context.close()
        browser.close()
    server.shutdown()
    size = len(index_js)
    print(f"records: {n}")
    print(f"index: {size / 1e6:.2f} MB raw ({size / n:.0f} B/record), "
          f"{len(gzip.compress(index_js)) / 1e6:.2f} MB gzip ({len(gzip.compress(index_js)) / n:.0f} B/record)")
    print(f"first result after navigation: median {sorted(cold)[RUNS // 2]:.0f} ms (runs: {', '.join(f'{t:.0f}' for t in cold)})")
    print(f"next query on the warm page: median {sorted(warm)[RUNS // 2]:.1f} ms")


if __name__ == "__main__":
    main()
