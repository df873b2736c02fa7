"""Built sites, a local web server and headless Chromium, shared by the checks that use real tools.

Loaded as a pytest plugin from conftest.py, so that every fixture here is built
once per session: each site is built once, with the address it is served at
as its base URL, under its own path prefix (`/basic/`, `/hostile/`, ...) as
GitHub Pages serves a project site, missing pages answered by its 404.html; one
Chromium serves every test. The Nu HTML Checker and axe-core come from
`node_modules/` (`npm ci`), Chromium and Java from Debian; nothing is
downloaded while the tests run, and a missing tool fails the test with what to
install.
"""

from __future__ import annotations

import functools
import json
import mimetypes
import shutil
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import pytest

from errorsite import assets, cli

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VNU_JAR = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SETUP_HINT = ("run .ci/run, which installs them; or by hand: "
              "apt-get install chromium default-jre-headless nodejs npm && npm ci --ignore-scripts")
SYNTHETIC_RECORDS = 1000
LIBRARY_RECORDS = 320
LIBRARY_WRITTEN = 4
"""Of the library site's synthetic records, how many keep their prose (the others are skeletons)."""
WIDTHS = (360, 1280)
SCHEMES = ("light", "dark")


def require(ok: bool, what: str) -> None:
    """Fail the test, not skip it, when a tool the checks need is missing."""
    if not ok:
        pytest.fail(f"{what} is missing: {SETUP_HINT}", pytrace=False)


def require_java() -> str:
    """Return the java command and the checker's jar, or fail saying what to install."""
    java = shutil.which("java")
    require(java is not None, "java (Debian package default-jre-headless)")
    require(VNU_JAR.is_file(), f"{VNU_JAR.relative_to(ROOT)} (npm package vnu-jar)")
    return str(java)


def require_axe() -> Path:
    """Return axe-core's script, or fail saying what to install."""
    require(AXE_JS.is_file(), f"{AXE_JS.relative_to(ROOT)} (npm package axe-core)")
    return AXE_JS


@dataclass(frozen=True)
class BuiltSite:
    """One site built into a folder and served by the local server."""

    name: str
    """Its path prefix on the server, without slashes."""
    out_path: Path
    """The folder the build wrote."""
    base_url: str = field(default="")
    """Where the local server serves it, ending in `/`."""

    def pages(self) -> list[str]:
        """Return every HTML page, as sorted site-relative POSIX paths."""
        return sorted(p.relative_to(self.out_path).as_posix() for p in self.out_path.rglob("*.html"))

    def fullest_error(self) -> str:
        """Return the id of the error whose page has the most sections, the first by id among equals."""
        pages = sorted(p for p in (self.out_path / "errors").glob("*/index.html"))
        return max(pages, key=lambda p: p.read_text(encoding="utf-8").count("<h2")).parent.name

    def url(self, page: str = "") -> str:
        """Return the served URL of a site-relative path (already percent-encoded)."""
        return self.base_url + page


def synthetic_content(out: Path) -> Path:
    """Write the content folder of the 1,000-record synthetic site and return it."""
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.synth import synthesize
    finally:
        sys.path.remove(str(ROOT))
    synthesize(SYNTHETIC_RECORDS, out)
    return out


LONG_PATH = ("tinyserve/distributed/long_subsystem_name_for_layout_checks/another_deeply_nested_package/"
             "configuration_validation_helpers_with_a_long_name.py")
LONG_COMMAND = ("tinyserve serve --model /models/very-long-organisation-name/a-model-with-a-long-name-and-version-"
                "suffix-v2.5-instruct --chunk-size 8192 --max-batch-tokens 4096 --tensor-parallel-size 8 "
                "--pipeline-parallel-size 2 --kv-cache-dtype fp8 --enable-prefix-caching")
TRACEBACK_OF_A_VARIANT = """Traceback (most recent call last):
  File "/srv/app/launch.py", line 12, in <module>
    main()
  File "/usr/lib/python3/site-packages/tinyserve/config/batching.py", line 3, in check
    raise ValueError(f"chunk_size ({args.chunk_size}) must not exceed max_batch_tokens ({args.max_batch_tokens})")
ValueError: chunk_size (8192) must not exceed max_batch_tokens (4096)"""
"""A paste of EVERY_FIELD's message, with its frames."""
EVERY_FIELD = "every-field"
"""The library record that has every field of record format 1.1."""
LONG_LINES = "long-lines"
"""A written library record with a long path, long example lines and a message without values."""
BACKTICKS = "backticks-skeleton"
"""An unwritten library record whose message quotes a placeholder in backticks."""


def _library_record(record_id: str, message: str, path: str, **fields: Any) -> dict[str, Any]:
    code = f"def check(args):\n    if args.bad:\n        raise ValueError(f{message!r})\n"
    return {"id": record_id, "exception": "ValueError", "message": message,
            "source": {"commit": "4f2a9c1d0b7e6a5f4e3d2c1b0a9f8e7d6c5b4a39", "path": path, "line": 3,
                       "function": "check", "snippet": {"start": 1, "code": code}}, **fields}


def library_content(out: Path) -> Path:
    """Write a content folder like a real library's: 320 synthetic records, a few written, and three by hand.

    Of the synthetic records only the first few (by id) keep their prose. The hand-made ones are
    EVERY_FIELD (variants, review, analysis.commit, a verified check), LONG_LINES and BACKTICKS.
    """
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.synth import synthesize
    finally:
        sys.path.remove(str(ROOT))
    synthesize(LIBRARY_RECORDS, out, seed=7)
    prose = ("meaning", "solutions", "example_fix", "when", "analysis")
    for n, path in enumerate(sorted((out / "errors").glob("*.json"))):
        if n >= LIBRARY_WRITTEN:
            data = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps({k: v for k, v in data.items() if k not in prose}, indent=2), encoding="utf-8")
    fix = {"before": "tinyserve serve --chunk-size 8192 --max-batch-tokens 4096",
           "after": "tinyserve serve --chunk-size 2048 --max-batch-tokens 4096"}
    records = [
        _library_record(
            EVERY_FIELD, "chunk_size ({args.chunk_size}) must not exceed max_batch_tokens ({args.max_batch_tokens})",
            "tinyserve/config/batching.py",
            meaning="Every chunk of a prompt must fit into one batch.",
            solutions=["Lower `--chunk-size`.", "Or raise `--max-batch-tokens`."],
            example_fix={**fix, "check": {"files": {"serve.toml": "chunk_size = 8192\nmax_batch_tokens = 4096\n"},
                                          "before": "tinyserve serve --config serve.toml",
                                          "after": "tinyserve serve --config serve.toml --chunk-size 2048"},
                         "verified": {"commit": "d4e5f6a7b8c9d0e1f2a3", "date": "2026-11-25", "by": "errorsite verify"}},
            variants=[
                {"message": "chunk_sizes ({sizes}) must not exceed max_batch_tokens ({args.max_batch_tokens})",
                 "kind": "plural"},
                {"message": "chunk_size must be set when max_batch_tokens is {args.max_batch_tokens}",
                 "kind": "alternative"},
                {"message": "chunk_size {args.chunk_size} is larger than max_batch_tokens", "kind": "earlier",
                 "until": "a1b2c3d4e5f6a7b8"},
            ],
            review={"since": "b2c3d4e5f6a7b8c9", "why": "code changed"},
            analysis={"by": "human", "date": "2026-11-29", "commit": "c3d4e5f6a7b8c9d0e1f2"},
            tags=["batching"]),
        _library_record(
            LONG_LINES, "speculative decoding cannot be combined with pipeline parallelism; disable one of them",
            LONG_PATH, meaning="The draft model runs on one pipeline stage only.",
            example_fix={"before": LONG_COMMAND, "after": LONG_COMMAND.replace(" --pipeline-parallel-size 2", ""),
                         "code": f"# {LONG_COMMAND}\nif args.pipeline_parallel_size > 1 and args.speculative:\n"
                                 "    args.speculative = False\n"},
            analysis={"by": "human", "date": "2026-11-28"}),
        _library_record(BACKTICKS, "`{name}` is not a known sampling parameter; expected one of {choices}",
                        "tinyserve/sampling/params.py"),
    ]
    for record in records:
        (out / "errors" / f"{record['id']}.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    return out


def build(content: Path, out: Path, base_url: str) -> None:
    """Build a content folder into `out` with the command line, as a user would for where it is served."""
    code = cli.main(["build", "--content", str(content), "--out", str(out), "--base-url", base_url])
    assert code == 0, f"building {content} failed"


class Sites:
    """Builds each named site the first time a test asks for it."""

    SOURCES = {
        "basic": lambda tmp: FIXTURES / "basic",
        "hostile": lambda tmp: FIXTURES / "hostile",
        "embedded": lambda tmp: assets.embedded_content(),
        "synthetic": lambda tmp: synthetic_content(tmp / "synthetic-content"),
        "library": lambda tmp: library_content(tmp / "library-content"),
    }

    def __init__(self, folder: Path, server_url: str) -> None:
        self.folder = folder
        self.server_url = server_url
        self.built: dict[str, BuiltSite] = {}
        self.lock = threading.Lock()

    def __getitem__(self, name: str) -> BuiltSite:
        with self.lock:
            if name not in self.built:
                out = self.folder / "served" / name
                base_url = f"{self.server_url}/{name}/"
                build(self.SOURCES[name](self.folder), out, base_url)
                self.built[name] = BuiltSite(name, out, base_url)
            return self.built[name]


class PagesHandler(BaseHTTPRequestHandler):
    """Serves `<served>/<site>/...` like GitHub Pages serves a project site."""

    served: Path

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        """Send a file, a folder's index.html, a redirect to add the slash, or the site's 404 page."""
        path = unquote(urlsplit(self.path).path)
        parts = [p for p in path.split("/") if p]
        if not parts or ".." in parts:
            return self.send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")
        site = self.served / parts[0]
        target = self.served.joinpath(*parts)
        if target.is_dir() and not path.endswith("/"):
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", urlsplit(self.path).path + "/")
            self.end_headers()
            return None
        if target.is_dir():
            target = target / "index.html"
        if target.is_file():
            return self.send(HTTPStatus.OK, target.read_bytes(), _content_type(target))
        missing = site / "404.html"
        body = missing.read_bytes() if missing.is_file() else b"not found"
        return self.send(HTTPStatus.NOT_FOUND, body, "text/html; charset=utf-8")

    def send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        """Send one complete response."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Keep test output quiet."""


def _content_type(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"{kind}; charset=utf-8" if kind.startswith("text/") or kind.endswith(("javascript", "json")) else kind


@contextmanager
def serve(folder: Path) -> Iterator[tuple[Sites, str]]:
    """Serve the sites built into `folder` on a free local port; yield them and the server's origin."""
    (folder / "served").mkdir(exist_ok=True)
    handler = type("Handler", (PagesHandler,), {"served": folder / "served"})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield Sites(folder, origin), origin
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def launch() -> Iterator[Any]:
    """Start Debian's Chromium, headless, with nothing to download; yield the browser."""
    require(CHROMIUM.is_file(), f"{CHROMIUM} (Debian package chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Sites, str]]:
    """Return the sites, each built on first use and served under `/<name>/`, and the server's origin."""
    with serve(tmp_path_factory.mktemp("sites")) as pair:
        yield pair


@pytest.fixture(scope="session")
def sites(served: tuple[Sites, str]) -> Sites:
    """Return the sites, each built on first use and served under `/<name>/`."""
    return served[0]


@pytest.fixture(scope="session")
def server_url(served: tuple[Sites, str]) -> str:
    """Return the local server's origin, like `http://127.0.0.1:8123`."""
    return served[1]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Return the session's one headless Chromium (a test that asks for it is marked `browser`)."""
    with launch() as chromium:
        yield chromium


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Refuse a test that asks for Chromium without the `browser` marker: `-m "not browser"` must leave none."""
    unmarked = [item.nodeid for item in items
                if "browser" in getattr(item, "fixturenames", ()) and item.get_closest_marker("browser") is None]
    if unmarked:
        raise pytest.UsageError("mark these tests @pytest.mark.browser, they use Chromium: " + ", ".join(unmarked))


@functools.cache
def refusing_proxy() -> str:
    """Return the address of a proxy that refuses every connection: a local port bound, never listened on."""
    port = socket.socket()
    port.bind(("127.0.0.1", 0))
    _HELD.append(port)
    return f"http://127.0.0.1:{port.getsockname()[1]}"


_HELD: list[socket.socket] = []
"""The refusing proxy's port, held for as long as the tests run so that nothing else takes it."""


@dataclass
class Tab:
    """A page in a fresh browser context, and every request it made."""

    page: Any
    requests: list[str]
    """Every URL the page asked for, in order, local or not."""


@contextmanager
def open_tab(browser: Any, server_url: str, width: int = 1280, scheme: str = "light",
             javascript: bool = True, scripts: tuple[Path, ...] = ()) -> Iterator[Tab]:
    """Yield a page in a new context; requests that leave the local server are recorded and refused.

    Each of `scripts` runs in every document the page opens, before the document's own scripts:
    the browser keeps it, instead of the test sending it again to each page.
    """
    # Every request but those to the local server goes to a proxy that refuses it: the browser refuses
    # them itself, without stopping each request to ask this process, as routing every request does.
    context = browser.new_context(
        viewport={"width": width, "height": 800}, color_scheme=scheme, java_script_enabled=javascript,
        reduced_motion="reduce", proxy={"server": refusing_proxy(), "bypass": urlsplit(server_url).netloc},
    )
    for script in scripts:
        context.add_init_script(path=str(script))
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        yield Tab(page, requests)
    finally:
        context.close()


@dataclass(frozen=True)
class View:
    """A page in a state worth checking: its site, its path and query, and what a reader typed."""

    name: str
    site: str
    path: str
    typed: str = ""
    """Text typed into the header's search box, to open its suggestions."""
    wait_for: str = "main h1"
    """A selector that is visible once the page is ready."""

    def show(self, tab: Tab, sites: Sites) -> None:
        """Open the view in `tab` and bring it into its state."""
        page = tab.page
        site = sites[self.site]
        path = self.path.replace("{fullest}", site.fullest_error()) if "{fullest}" in self.path else self.path
        page.goto(site.url(path), wait_until="load")
        if self.typed:
            page.fill(".top .searchbox textarea", self.typed)
        page.wait_for_selector(self.wait_for, state="visible" if self.wait_for != "main h1" else "attached")


VIEWS = [
    View("home", "basic", "index.html"),
    View("error-every-section", "basic", "errors/batch-tokens-below-chunk/index.html"),
    View("error-with-your-values", "basic",
         "errors/batch-tokens-below-chunk/index.html?m=max_batch_tokens%20(2048)%20must%20be%20at%20least%20"
         "chunk_size%20(4096)%3B%20raise%20--max-batch-tokens%20or%20lower%20--chunk-size.",
         wait_for="#yours"),
    View("error-skeleton", "basic", "errors/batch-tokens-multiple/index.html"),
    View("error-removed", "basic", "errors/old-kv-dtype/index.html"),
    View("search-results", "basic", "search/index.html?q=max_batch_tokens", wait_for="#results li"),
    View("search-suggestions", "basic", "errors/old-kv-dtype/index.html", typed="max batch tokens",
         wait_for=".suggest li"),
    View("all-errors", "basic", "errors/index.html"),
    View("exception-types", "basic", "exceptions/index.html"),
    View("exception", "basic", "exceptions/ValueError/index.html"),
    View("source-file", "basic", "files/tinyserve/config/batching.py/index.html"),
    View("404", "basic", "404.html"),
    View("404-at-a-missing-address", "basic", "errors/no-such-error/"),
    View("hostile-error", "hostile", "errors/hostile-everything/index.html"),
    View("hostile-skeleton", "hostile", "errors/hostile-skeleton/index.html"),
    View("hostile-home", "hostile", "index.html"),
    View("hostile-search", "hostile", "search/index.html?q=%3Cscript%3E", wait_for="#results li"),
    View("embedded-home", "embedded", "index.html"),
    View("embedded-error", "embedded", "errors/{fullest}/index.html"),
    View("embedded-search", "embedded", "search/index.html?q=build", wait_for="#results li"),
    View("synthetic-error", "synthetic", "errors/{fullest}/index.html"),
    View("library-home", "library", "index.html"),
    View("library-every-field", "library", f"errors/{EVERY_FIELD}/index.html"),
    View("library-every-field-with-your-values", "library",
         f"errors/{EVERY_FIELD}/index.html?m=" + quote(TRACEBACK_OF_A_VARIANT), wait_for="#yours"),
    View("library-long-lines", "library", f"errors/{LONG_LINES}/index.html"),
    View("library-skeleton", "library", f"errors/{BACKTICKS}/index.html"),
    View("library-all-errors", "library", "errors/index.html"),
    View("library-exception", "library", "exceptions/ValueError/index.html"),
    View("library-long-file", "library", f"files/{LONG_PATH}/index.html"),
    View("library-search-full", "library", "search/index.html?q=" + quote(TRACEBACK_OF_A_VARIANT),
         wait_for="#results li"),
    View("library-search-none", "library", "search/index.html?q=" + quote("chunk size of the scheduler is wrong"),
         wait_for="#results li"),
]
