"""`errorsite serve`: pages under the base_url's path, rebuilt and reloaded on change, problems shown."""

from __future__ import annotations

import concurrent.futures
import json
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from errorsite import serve

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from synth import synthesize  # noqa: E402


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[serve.Server]:
    """Return a running server on a free port, over a small synthesized content folder."""
    synthesize(6, tmp_path / "content", seed=5)
    running = serve.Server(tmp_path / "content", port=0, log=lambda text: None)
    running.start()
    yield running
    running.stop()


def get(url: str) -> tuple[int, str]:
    """Return the status and text of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def first_id(server: serve.Server) -> str:
    """Return the id of the first record."""
    return sorted(p.stem for p in (server.content / "errors").glob("*.json"))[0]


def edit(server: serve.Server, record_id: str, text: str) -> None:
    """Write `text` as the record's file."""
    (server.content / "errors" / f"{record_id}.json").write_text(text)


def wait_for(server: serve.Server, version: int) -> int:
    """Return the version after the next build, as a page's reload script would see it."""
    status, body = get(f"http://127.0.0.1:{server.httpd.server_address[1]}{serve.WAIT_PATH}?version={version}")
    assert status == 200
    return json.loads(body)["version"]


def test_serves_pages_under_the_base_url_path_with_the_reload_script(server: serve.Server) -> None:
    assert server.url.endswith("/tinyserve/")
    status, body = get(server.url)
    assert status == 200 and "<h1>" in body and serve.WAIT_PATH in body
    assert serve.WAIT_PATH not in (server.out / "index.html").read_text()
    status, body = get(server.url + "errors/no-such-error/")
    assert status == 404


def test_a_changed_record_is_rebuilt_and_served(server: serve.Server) -> None:
    record_id = first_id(server)
    path = server.content / "errors" / f"{record_id}.json"
    data = json.loads(path.read_text())
    data["meaning"] = "A brand new explanation."
    version = server.version
    started = time.perf_counter()
    edit(server, record_id, json.dumps(data))
    assert wait_for(server, version) != version
    assert time.perf_counter() - started < 5
    status, body = get(f"{server.url}errors/{record_id}/")
    assert status == 200 and "A brand new explanation." in body


def test_a_broken_record_shows_its_problems_until_fixed(server: serve.Server) -> None:
    record_id = first_id(server)
    good = (server.content / "errors" / f"{record_id}.json").read_text()
    version = server.version
    edit(server, record_id, good.replace('"exception"', '"exceptoin"', 1))
    version = wait_for(server, version)
    status, body = get(server.url)
    assert status == 200 and "errorsite-problems" in body and "exceptoin" in body
    edit(server, record_id, good)
    wait_for(server, version)
    status, body = get(server.url)
    assert "errorsite-problems" not in body


def test_a_record_read_half_written_is_built_again_without_showing_its_problems(
        server: serve.Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # An editor that truncates a file and then writes it can be read in between: the build fails on
    # what it read, the file changes again meanwhile, and only the build of the whole file counts.
    logged: list[str] = []
    server.log = logged.append
    record_id = first_id(server)
    path = server.content / "errors" / f"{record_id}.json"
    whole = json.loads(path.read_text())
    whole["title"] = "Saved in two writes"
    real = serve.pipeline.build

    def build_then_finish_writing(*args: object, **kwargs: object) -> object:
        try:
            return real(*args, **kwargs)
        finally:
            if path.read_text() == "":
                monkeypatch.setattr(serve.pipeline, "build", real)
                path.write_text(json.dumps(whole))

    monkeypatch.setattr(serve.pipeline, "build", build_then_finish_writing)
    version = server.version
    path.write_text("")
    version = wait_for(server, version)
    status, body = get(f"{server.url}errors/{record_id}/")
    assert status == 200 and "Saved in two writes" in body and "errorsite-problems" not in body
    assert not any(line.startswith("error:") for line in logged)
    # A file that stays broken is shown as before.
    path.write_text("{")
    wait_for(server, version)
    status, body = get(server.url)
    assert "errorsite-problems" in body and any(line.startswith("error:") for line in logged)


def raw(server: serve.Server, target: str, host: str | None = None, method: str = "GET") -> tuple[int, bytes]:
    """Return the status and body of a request sent as written, with `host` as its Host header."""
    port = server.httpd.server_address[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        head = f"{method} {target} HTTP/1.1\r\n"
        head += f"Host: {host if host is not None else f'127.0.0.1:{port}'}\r\n" if host != "" else ""
        conn.sendall((head + "Connection: close\r\n\r\n").encode("latin-1"))
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data.partition(b"\r\n\r\n")[2]


def test_a_crash_in_a_rebuild_is_shown_and_the_watcher_goes_on(server: serve.Server, monkeypatch: pytest.MonkeyPatch) -> None:
    logged: list[str] = []
    server.log = logged.append
    real = serve.pipeline.build

    def crash(*args: object, **kwargs: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(serve.pipeline, "build", crash)
    record_id = first_id(server)
    path = server.content / "errors" / f"{record_id}.json"
    data = json.loads(path.read_text())
    version = server.version
    data["meaning"] = "First edit."
    edit(server, record_id, json.dumps(data))
    version = wait_for(server, version)
    status, body = get(server.url)
    assert status == 200 and "errorsite-problems" in body
    assert "RecursionError: maximum recursion depth exceeded" in body and "bug in errorsite" in body
    assert any("RecursionError" in line and "bug in errorsite" in line for line in logged)
    monkeypatch.setattr(serve.pipeline, "build", real)
    data["meaning"] = "Second edit, after the crash."
    edit(server, record_id, json.dumps(data))
    # A busy machine may let the watcher build once more what it saw before the second edit (a write it saw in two
    # steps), now with the real build: the second edit is in a build that follows.
    for _ in range(5):
        version = wait_for(server, version)
        status, body = get(f"{server.url}errors/{record_id}/")
        if "Second edit, after the crash." in body:
            break
    assert status == 200 and "Second edit, after the crash." in body and "errorsite-problems" not in body


def test_an_exception_whose_message_raises_is_still_reported() -> None:
    class Hostile(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert "Hostile: (its message could not be read)" in serve.crash_report(Hostile())


@pytest.mark.parametrize("target, status", [
    ("/%00", 400),
    ("/tinyserve/%00", 400),
    ("/tinyserve/%ff%fe", 400),
    ("/tinyserve/a%0ab", 400),
    (f"{serve.WAIT_PATH}?version=abc", 400),
    (f"{serve.WAIT_PATH}?version=-1", 400),
    (f"{serve.WAIT_PATH}?version=" + "9" * 40, 400),
    ("/tinyserve/../../../etc/passwd", 404),
    ("/tinyserve/%2e%2e/%2e%2e/etc/passwd", 404),
    ("/tinyserve/errors/../index.html", 404),
    ("/tinyserve/" + "a" * 5000, 404),
])
def test_bad_requests_get_a_4xx_and_the_server_goes_on(server: serve.Server, target: str, status: int) -> None:
    logged: list[str] = []
    server.log = logged.append
    assert raw(server, target)[0] == status
    assert logged == []
    assert get(server.url)[0] == 200


@pytest.mark.parametrize("debug", [False, True])
def test_a_crash_is_one_line_with_where_to_report_it_and_its_traceback_only_with_debug(
        server: serve.Server, monkeypatch: pytest.MonkeyPatch, debug: bool) -> None:
    logged: list[str] = []
    server.log = logged.append
    server.debug = debug

    def crash(*args: object, **kwargs: object) -> object:
        raise KeyError("state")

    monkeypatch.setattr(serve.pipeline, "build", crash)
    server.rebuild()
    monkeypatch.setattr(server, "page", lambda body: 1 / 0)
    assert raw(server, "/tinyserve/")[0] == 500
    assert len(logged) == 2
    for line, what in zip(logged, ["KeyError: 'state'", "ZeroDivisionError: division by zero"]):
        first = line.splitlines()[0]
        assert first.startswith("error: ") and what in first
        assert "this is a bug in errorsite" in first and "https://github.com/errorsite/errorsite/issues" in first
        if debug:
            assert line.splitlines()[1] == "Traceback (most recent call last):"
        else:
            assert line == first and "errorsite --debug serve" in line


def test_only_loopback_host_names_are_answered(server: serve.Server) -> None:
    port = server.httpd.server_address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert raw(server, "/tinyserve/", host)[0] == 200, host
    for host in (f"attacker.example:{port}", "attacker.example", f"127.0.0.1:{port + 1}", "localhost", ""):
        status, body = raw(server, "/tinyserve/", host)
        assert status == 421 and b"<h1>" not in body, host
    assert raw(server, f"{serve.WAIT_PATH}?version=0", f"evil.example:{port}")[0] == 421


def test_head_requests_get_headers_only(server: serve.Server) -> None:
    status, body = raw(server, "/tinyserve/", method="HEAD")
    assert status == 200 and body == b""


def test_two_hundred_concurrent_requests_are_all_answered(server: serve.Server) -> None:
    assert server.httpd.request_queue_size >= 128
    with concurrent.futures.ThreadPoolExecutor(max_workers=200) as pool:
        statuses = list(pool.map(lambda _: get(server.url)[0], range(200)))
    assert statuses == [200] * 200


def test_a_reader_who_goes_away_is_not_reported(server: serve.Server, capfd: pytest.CaptureFixture[str]) -> None:
    logged: list[str] = []
    server.log = logged.append
    port = server.httpd.server_address[1]
    for _ in range(5):
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        conn.sendall(f"GET {serve.WAIT_PATH}?version={server.version} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        time.sleep(0.1)
        # Closing with a zero linger resets the connection: the server's answer finds no reader.
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
        version = server.version
        server.rebuild()
        assert server.version == version + 1
    big = "/tinyserve/static/" + sorted(p.name for p in (server.out / "static").iterdir())[0]
    for _ in range(5):
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.sendall(f"GET {big} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        conn.close()
    time.sleep(0.5)
    assert get(server.url)[0] == 200
    assert [line for line in logged if not line.startswith("rebuilt")] == []
    assert "Traceback" not in capfd.readouterr().err


def test_a_reader_who_leaves_in_the_middle_of_a_request_is_not_reported(server: serve.Server,
                                                                      capfd: pytest.CaptureFixture[str]) -> None:
    logged: list[str] = []
    server.log = logged.append
    port = server.httpd.server_address[1]
    for _ in range(5):
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        conn.sendall(b"GET /tinyserve/ HT")
        time.sleep(0.1)
        # The reset reaches the server while it reads the request line, before any handler runs.
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()
    time.sleep(0.5)
    assert get(server.url)[0] == 200
    assert logged == []
    assert "Traceback" not in capfd.readouterr().err


def test_a_failing_request_is_logged_as_a_bug_and_the_server_goes_on(server: serve.Server, monkeypatch: pytest.MonkeyPatch) -> None:
    logged: list[str] = []
    server.log = logged.append
    monkeypatch.setattr(server, "page", lambda body: 1 / 0)
    status, body = raw(server, "/tinyserve/")
    monkeypatch.undo()
    assert status == 500 and b"see its terminal" in body
    assert any("ZeroDivisionError" in line and "bug in errorsite" in line for line in logged)
    assert get(server.url)[0] == 200


@pytest.mark.browser
def test_a_headless_browsers_virtual_time_runs_out_on_a_served_page(server: serve.Server, tmp_path: Path) -> None:
    # Virtual time stands still while a request is open: a held reload request would make this run forever.
    url = f"http://127.0.0.1:{server.httpd.server_address[1]}/"
    started = time.monotonic()
    done = subprocess.run(["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "<h1>" in done.stdout and serve.WAIT_PATH in done.stdout
    assert time.monotonic() - started < 100
    status, body = get(f"{url[:-1]}{serve.WAIT_PATH}?hold=0&version={server.version + 1}")
    assert status == 200 and json.loads(body) == {"version": server.version}
