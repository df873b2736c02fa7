"""`errorsite serve`: build, serve on 127.0.0.1, rebuild on every change and reload open pages.

Pages are served under the path of the site's base_url, as GitHub Pages serves them. Only in
served HTML, a small script waits on `/__errorsite/wait` and reloads the page after the next
build; when the content is broken, the page shows the problems. Built files never change.
"""

from __future__ import annotations

import html
import json
import mimetypes
import os
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from . import build, cache
from .assets import templates_dir
from .problems import UserError

WAIT_PATH = "/__errorsite/wait"
POLL_SECONDS = 0.05
"""How often the watcher looks at the content's modification times."""
WAIT_SECONDS = 25.0
"""How long a page's request for the next build is held open before it asks again."""
RELOAD_SCRIPT = """<script>(function(){var v=%d;function w(){fetch("%s?version="+v,{cache:"no-store"})\
.then(function(r){return r.json()}).then(function(d){if(d.version!==v){location.reload()}else{w()}})\
.catch(function(){setTimeout(w,1000)})}w()})();</script>"""
PROBLEMS_BOX = ('<div id="errorsite-problems" role="alert" style="position:fixed;inset:auto 0 0 0;max-height:60vh;'
                'overflow:auto;margin:0;padding:1em;background:#fff0f0;color:#600;border-top:3px solid #c00;'
                'z-index:2147483647;font:14px/1.4 monospace;white-space:pre-wrap">'
                "<strong>The content has problems; this page shows the last good build.</strong>\n%s</div>")


class Server:
    """A development server for one content folder; `start()` builds and serves, `stop()` ends both."""

    def __init__(self, content: Path, port: int = 8000, base_url: str | None = None,
                 log: Callable[[str], None] = print) -> None:
        self.content = content
        self.out = content.absolute().parent / cache.CACHE_DIR / "serve" / "site"
        self.base_url = base_url
        self.log = log
        self.version = 0
        self.problems: str | None = None
        self.prefix = "/"
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.httpd = _listen(port, self)
        self.httpd.daemon_threads = True
        self.threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        """Return the URL of the served site's home page."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{self.prefix}"

    def start(self) -> None:
        """Build once, then serve and watch in background threads."""
        stamp = self.stamp()
        self.rebuild()
        self.threads = [threading.Thread(target=self.httpd.serve_forever, daemon=True),
                        threading.Thread(target=self.watch, args=(stamp,), daemon=True)]
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        """Stop serving and watching."""
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        with self.changed:
            self.changed.notify_all()
        for thread in self.threads:
            thread.join(timeout=5)

    def stamp(self) -> tuple[object, ...]:
        """Return the names, sizes and times of every file a build reads."""
        errors = self.content / "errors"
        try:
            records = sorted((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in os.scandir(errors))
        except OSError:
            records = []
        try:
            settings = (self.content / "site.toml").stat()
            setting = (settings.st_size, settings.st_mtime_ns)
        except OSError:
            setting = (0, 0)
        return (tuple(records), setting, cache.tree_stamp(templates_dir()))

    def watch(self, stamp: tuple[object, ...]) -> None:
        """Rebuild whenever the content or the templates change."""
        while not self.stopping.wait(POLL_SECONDS):
            now = self.stamp()
            if now != stamp:
                stamp = now
                self.rebuild()

    def rebuild(self) -> None:
        """Build incrementally; keep the last good site and show the problems when the content is broken."""
        started = time.perf_counter()
        try:
            result = build.build(self.content, self.out, self.base_url)
        except UserError as error:
            problems: str | None = str(error)
            self.log(f"error: {error}")
        else:
            problems = None
            if self.version:
                self.log(f"rebuilt in {time.perf_counter() - started:.2f} s: {result.written} files changed")
        self.prefix = _prefix(self.out) or self.prefix
        with self.changed:
            self.problems = problems
            self.version += 1
            self.changed.notify_all()

    def wait(self, version: int) -> int:
        """Return the build version once it differs from `version`, or after a while."""
        with self.changed:
            self.changed.wait_for(lambda: self.version != version or self.stopping.is_set(), WAIT_SECONDS)
            return self.version

    def page(self, body: bytes) -> bytes:
        """Return an HTML page with the reload script and any problems added."""
        extra = RELOAD_SCRIPT % (self.version, WAIT_PATH)
        if self.problems is not None:
            extra = PROBLEMS_BOX % html.escape(self.problems) + extra
        text = body.decode("utf-8")
        at = text.rfind("</body>")
        at = len(text) if at < 0 else at
        return (text[:at] + extra + text[at:]).encode("utf-8")


def _prefix(out: Path) -> str | None:
    """Return the path of the built site's base_url, from its sitemap."""
    try:
        sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    except OSError:
        return None
    start = sitemap.find("<loc>")
    if start < 0:
        return None
    path = urlsplit(html.unescape(sitemap[start + 5 : sitemap.find("</loc>", start)])).path
    return path if path.endswith("/") else path.rsplit("/", 1)[0] + "/"


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            path = urlsplit(self.path).path
            if path == WAIT_PATH:
                query = urlsplit(self.path).query
                known = int(query.partition("version=")[2] or 0)
                self.send(HTTPStatus.OK, json.dumps({"version": server.wait(known)}).encode(), "application/json")
                return
            if not path.startswith(server.prefix):
                self.send_response(HTTPStatus.FOUND)
                self.send_header("Location", server.prefix)
                self.end_headers()
                return
            self.send_file(unquote(path[len(server.prefix):]))

        def send_file(self, relative: str) -> None:
            root = server.out.resolve()
            target = (root / relative).resolve()
            if root != target and root not in target.parents:
                target = root / "404.html"
            if target.is_dir():
                if not self.path.split("?")[0].endswith("/"):
                    self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                    self.send_header("Location", self.path.split("?")[0] + "/")
                    self.end_headers()
                    return
                target = target / "index.html"
            status = HTTPStatus.OK
            if not target.is_file():
                status, target = HTTPStatus.NOT_FOUND, root / "404.html"
            try:
                body = target.read_bytes()
            except OSError:
                # Nothing built yet: the content has been broken since the server started.
                body, target = b"<!doctype html><title>errorsite</title><body></body>", root / "404.html"
            kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            if kind == "text/html":
                body = server.page(body)
            self.send(status, body, kind)

        def send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", f"{kind}; charset=utf-8" if kind.startswith(("text/", "application/j")) else kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
            return

    return Handler


def _listen(port: int, server: Server) -> ThreadingHTTPServer:
    """Return an HTTP server bound to 127.0.0.1:`port`."""
    try:
        return ThreadingHTTPServer(("127.0.0.1", port), _handler(server))
    except OSError as error:
        raise UserError(
            f"cannot listen on 127.0.0.1:{port}: {error.strerror}",
            hint="another program uses the port; pick another with --port N, or --port 0 for any free one",
            page="port-unavailable",
        ) from None


def serve(content: Path, port: int, base_url: str | None, log: Callable[[str], None] = print) -> None:
    """Serve until interrupted."""
    server = Server(content, port, base_url, log)
    server.start()
    log(f"serving {server.url} (Ctrl-C stops)")
    try:
        while True:
            time.sleep(3600)
    finally:
        server.stop()
