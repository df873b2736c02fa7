"""`errorsite serve`: build, serve on 127.0.0.1, rebuild on every change and reload open pages.

Pages are served under the path of the site's base_url, as GitHub Pages serves them. Only in
served HTML, a small script waits on `/__errorsite/wait` and reloads the page after the next
build; when the content is broken, the page shows the problems. Built files never change.
"""

from __future__ import annotations

import html
import json
import mimetypes
import socket
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from .sitebuild import pipeline
from .sitebuild.inputs import scan
from .sitebuild.keys import tree_stamp
from .sitebuild import paths
from .assets import templates_dir
from .problems import BUG_REPORT_URL, UserError, crash_summary

WAIT_PATH = "/__errorsite/wait"
POLL_SECONDS = 0.05
"""How often the watcher looks at the content's modification times."""
WAIT_SECONDS = 25.0
"""How long a page's request for the next build is held open before it asks again."""
RELOAD_SCRIPT = """<script>(function(){var v=%d;function w(){fetch("%s?hold=0&version="+v,{cache:"no-store"})\
.then(function(r){return r.json()}).then(function(d){if(d.version!==v){location.reload()}else{setTimeout(w,1000)}})\
.catch(function(){setTimeout(w,1000)})}w()})();</script>"""
"""Asks every second, answered at once: a request held open would stop a headless browser's virtual
time (`--virtual-time-budget`), which waits for the network, from ever running out."""
BACKLOG = 128
"""Connections the listening socket queues before it accepts them (the standard library's 5 drops some)."""
MAX_VERSION_DIGITS = 18
"""A build version longer than this is not one the server gave out."""
DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout)
"""A reader closed the tab or the connection timed out: nothing to report."""
PROBLEMS_BOX = ('<div id="errorsite-problems" role="alert" style="position:fixed;inset:auto 0 0 0;max-height:60vh;'
                'overflow:auto;margin:0;padding:1em;background:#fff0f0;color:#600;border-top:3px solid #c00;'
                'z-index:2147483647;font:14px/1.4 monospace;white-space:pre-wrap">'
                "<strong>The content has problems; this page shows the last good build.</strong>\n%s</div>")

STOP_POLL = 0.05
"""Seconds between the serving loop's looks for `stop` while idle: socketserver's default, half a
second, made Ctrl-C and every stop wait that long. Requests are answered as they come either way."""


class Server:
    """A development server for one content folder; `start()` builds and serves, `stop()` ends both."""

    def __init__(self, content: Path, port: int = 8000, base_url: str | None = None,
                 log: Callable[[str], None] = print, debug: bool = False) -> None:
        self.content = content
        self.out = paths.serve_output(content)
        self.base_url = base_url
        self.log = log
        self.debug = debug
        """Whether a crash's report carries its traceback (`errorsite --debug serve`)."""
        self.version = 0
        self.problems: str | None = None
        self.prefix = "/"
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.httpd = _listen(port, self)
        self.threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        """Return the URL of the served site's home page."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{self.prefix}"

    def start(self) -> None:
        """Build once, then serve and watch in background threads."""
        stamp = self.stamp()
        self.rebuild()
        self.threads = [threading.Thread(target=self.httpd.serve_forever, args=(STOP_POLL,), daemon=True),
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
        records = sorted(scan(self.content / "errors").items())
        try:
            settings = (self.content / "site.toml").stat()
            setting = (settings.st_size, settings.st_mtime_ns)
        except OSError:
            setting = (0, 0)
        return (tuple(records), setting, tree_stamp(templates_dir()))

    def watch(self, stamp: tuple[object, ...]) -> None:
        """Rebuild whenever the content or the templates change."""
        while not self.stopping.wait(POLL_SECONDS):
            try:
                now = self.stamp()
                if now != stamp:
                    stamp = now
                    self.rebuild(now)
            except Exception as error:  # noqa: BLE001 - the watcher must outlive any one failure
                # rebuild() reports its own failures; this is the log itself or the stamp failing.
                self.report_bug("the watcher failed (it keeps watching)", error)

    def rebuild(self, stamp: tuple[object, ...] | None = None) -> None:
        """Build incrementally; keep the last good site and show the problems when the content is broken.

        With the `stamp` of the files the build reads, taken before it, problems are neither shown
        nor logged when those files changed while it ran: an editor that saves a file in more than
        one write can leave it half-written for an instant, and the watcher sees the change and
        builds again.
        """
        started = time.perf_counter()
        try:
            result = pipeline.build(self.content, self.out, self.base_url)
        except UserError as error:
            if stamp is not None and self.stamp() != stamp:
                return
            problems: str | None = str(error)
            self.log(f"error: {error}")
        except Exception as error:  # noqa: BLE001 - a crash must not stop the server or the watcher
            problems = crash_report(error)
            self.report_bug("the build crashed (the server keeps running)", error)
        else:
            problems = None
            self.prefix = result.base_path
            if self.version:
                self.log(f"rebuilt in {time.perf_counter() - started:.2f} s: {result.written} files changed")
        with self.changed:
            self.problems = problems
            self.version += 1
            self.changed.notify_all()

    def report_bug(self, what: str, error: BaseException) -> None:
        """Log a crash in one line, as a bug with where to report it; its traceback only with --debug."""
        line = (f"error: {what}: {crash_summary(error)}; this is a bug in errorsite, "
                f"please report it at {BUG_REPORT_URL}")
        if self.debug:
            self.log(f"{line}\n{traceback.format_exc()}")
        else:
            self.log(f"{line} with the output of 'errorsite --debug serve ...'")

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


def crash_report(error: BaseException) -> str:
    """Return what the page and terminal say about a build that crashed: a bug, not the user's mistake."""
    return (f"the build crashed with {crash_summary(error)}\n"
            f"  this is a bug in errorsite; please report it at {BUG_REPORT_URL}\n"
            "  the server keeps running and rebuilds on the next change")


def allowed_hosts(port: int) -> frozenset[str]:
    """Return the Host header values under which the server answers (loopback names only)."""
    names = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    if port == 80:  # browsers leave out the default port
        names |= {"127.0.0.1", "localhost", "[::1]"}
    return frozenset(names)


def _request_path(target: str) -> str | None:
    """Return the decoded path of a request target, or None when it is not a valid one."""
    try:
        path = unquote(urlsplit(target).path, errors="strict")
    except (ValueError, UnicodeDecodeError):
        return None
    if not path.startswith("/") or any(ord(c) < 32 or ord(c) == 127 for c in path):
        return None
    return path


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        with_body = True
        """False while answering a HEAD: headers only."""

        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            self.guarded(body=True)

        def do_HEAD(self) -> None:  # noqa: N802 - the name http.server calls
            self.guarded(body=False)

        def guarded(self, body: bool) -> None:
            """Answer the request; a crash is logged as a bug and answered 500, a reader who left is not."""
            try:
                self.answer(body)
            except DISCONNECTS:
                self.close_connection = True
            except Exception as error:  # noqa: BLE001 - one failing request must not take the server down
                self.close_connection = True
                server.report_bug(f"a request for {self.path!r} failed", error)
                try:
                    self.send_text(HTTPStatus.INTERNAL_SERVER_ERROR, "the server failed; see its terminal")
                except OSError:
                    pass

        def answer(self, body: bool) -> None:
            """Answer a GET (with `body`) or a HEAD: the wait endpoint, a redirect, or a file."""
            self.with_body = body
            hosts = allowed_hosts(server.httpd.server_address[1])
            if (self.headers.get("Host") or "").strip().lower() not in hosts:
                # Another name that resolves to 127.0.0.1 (DNS rebinding) must not read the preview.
                self.send_text(HTTPStatus.MISDIRECTED_REQUEST, "this server answers only to 127.0.0.1 and localhost")
                return
            path = _request_path(self.path)
            if path is None:
                self.send_text(HTTPStatus.BAD_REQUEST, "not a valid path")
                return
            if path == WAIT_PATH:
                self.send_wait()
                return
            if not path.startswith(server.prefix):
                self.send_response(HTTPStatus.FOUND)
                self.send_header("Location", server.prefix)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_file(path[len(server.prefix):], path.endswith("/"))

        def send_wait(self) -> None:
            """Answer the build's version: after the build after `?version=N`, or at once with `hold=0`."""
            values = parse_qs(urlsplit(self.path).query).get("version", ["0"])
            known = values[-1]
            if not known.isascii() or not known.isdigit() or len(known) > MAX_VERSION_DIGITS:
                self.send_text(HTTPStatus.BAD_REQUEST, "version must be a build number")
                return
            hold = parse_qs(urlsplit(self.path).query).get("hold", ["1"])[-1] != "0"
            version = server.wait(int(known)) if hold else server.version
            self.send(HTTPStatus.OK, json.dumps({"version": version}).encode(), "application/json")

        def send_file(self, relative: str, slash: bool) -> None:
            """Send the built file at `relative`, the folder's index.html, or the 404 page with status 404."""
            root = server.out.resolve()
            target = _inside(root, relative)
            if target is not None and _is(target, stat.S_ISDIR):
                if not slash:
                    self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                    self.send_header("Location", urlsplit(self.path).path + "/")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                target = target / "index.html"
            status = HTTPStatus.OK
            if target is None or not _is(target, stat.S_ISREG):
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

        def send_text(self, status: HTTPStatus, text: str) -> None:
            """Send a short plain-text answer to a request the server will not serve."""
            self.send(status, f"{status.value} {status.phrase}: {text}\n".encode(), "text/plain")

        def send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", f"{kind}; charset=utf-8" if kind.startswith(("text/", "application/j")) else kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.with_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
            return

    return Handler


def _inside(root: Path, relative: str) -> Path | None:
    """Return the resolved path of `relative` under `root`, or None when it leaves `root` or cannot exist."""
    if ".." in relative.split("/"):
        return None
    try:
        target = (root / relative).resolve()
    except (OSError, ValueError, RuntimeError):
        return None
    return target if target == root or root in target.parents else None


def _is(path: Path, kind: Callable[[int], bool]) -> bool:
    """Return whether `path` exists and is of `kind` (a `stat.S_IS*` test); a name too long is not."""
    try:
        return kind(path.stat().st_mode)
    except (OSError, ValueError):
        return False


class _HTTPServer(ThreadingHTTPServer):
    """A threading HTTP server with a normal backlog that reports crashes of a request but not disconnects."""

    request_queue_size = BACKLOG
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], server: Server) -> None:
        self.owner = server
        super().__init__(address, handler)

    def handle_error(self, request: object, client_address: object) -> None:
        """Say nothing when the reader went away; report anything else as a bug, and keep serving."""
        error = sys.exc_info()[1]
        if error is None or isinstance(error, DISCONNECTS):
            return
        self.owner.report_bug("a request failed", error)


def _listen(port: int, server: Server) -> ThreadingHTTPServer:
    """Return an HTTP server bound to 127.0.0.1:`port`."""
    try:
        return _HTTPServer(("127.0.0.1", port), _handler(server), server)
    except OSError as error:
        raise UserError(
            f"cannot listen on 127.0.0.1:{port}: {error.strerror}",
            hint="another program uses the port; pick another with --port N, or --port 0 for any free one",
            page="port-unavailable",
        ) from None


def serve(content: Path, port: int, base_url: str | None, log: Callable[[str], None] = print,
          debug: bool = False) -> None:
    """Serve until interrupted; with `debug`, a crash's report carries its traceback."""
    server = Server(content, port, base_url, log, debug)
    server.start()
    log(f"serving {server.url} (Ctrl-C stops)")
    try:
        while True:
            time.sleep(3600)
    finally:
        server.stop()
