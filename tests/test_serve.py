"""`errorsite serve`: pages under the base_url's path, rebuilt and reloaded on change, problems shown."""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from generator import serve

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
