"""A library adopts errorsite: init, prose, CI checks, commits that touch no raise, an edited message, a squash merge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_gitrepo import Repo

from errorsite import cli
from errorsite.recordjson import dumps

CORE = '''\
"""The library's core."""


class Config:
    def __init__(self, size, name):
        if size <= 0:
            raise ValueError(f"size must be positive, got {size}")
        if not name:
            raise ValueError("name must not be empty")
        self.size, self.name = size, name

    def get(self, key):
        if key not in ("size", "name"):
            raise KeyError(f"unknown setting {key!r}")
        return getattr(self, key)


def load(path):
    if not path.endswith(".toml"):
        raise ValueError(f"{path} is not a TOML file")
    raise FileNotFoundError(f"no config at {path}")
'''

IO = '''\
"""Reading and writing."""


def read(stream, limit):
    if limit < 1:
        raise ValueError("limit must be at least 1")
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise OverflowError(f"input longer than {limit} bytes")
    return data


def write(stream, data):
    if stream.closed:
        raise RuntimeError("cannot write to a closed stream")
    if not isinstance(data, bytes):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    stream.write(data)


def open_url(url):
    if not url.startswith("https://"):
        raise ValueError(f"only https URLs are supported: {url}")
    raise NotImplementedError("network access is not implemented yet")


def close(stream):
    if stream is None:
        raise AttributeError("no stream to close")
    stream.close()
'''

TESTS = 'def test_nothing():\n    raise AssertionError("tests are not documented")\n'


def content_files(content: Path) -> dict[str, tuple[bytes, int]]:
    """Return (bytes, mtime in ns) of every file in the content folder."""
    return {p.relative_to(content).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(content.rglob("*")) if p.is_file()}


def records(content: Path) -> dict[str, dict]:
    """Return every record by message."""
    found = [json.loads(p.read_text(encoding="utf-8")) for p in (content / "errors").glob("*.json")]
    return {r["message"]: r for r in found}


def write_prose(content: Path, record: dict, words: str) -> None:
    """Write a maintainer's prose into a record."""
    path = content / "errors" / f"{record['id']}.json"
    prose = {"meaning": f"{words}.", "solutions": [f"Fix {words}."], "analysis": {"by": "human", "date": "2026-12-01"}}
    path.write_text(dumps({**record, **prose}), encoding="utf-8")


def test_a_library_adopts_errorsite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "mylib")
    repo.write("src/mylib/__init__.py", '"""mylib."""\n')
    repo.write("src/mylib/core.py", CORE)
    repo.write("src/mylib/io.py", IO)
    repo.write("tests/test_core.py", TESTS)
    repo.write("pyproject.toml", '[project]\nname = "mylib"\n')
    repo.git("remote", "add", "origin", "https://github.com/acme/mylib.git")
    repo.git("branch", "-M", "main")
    repo.commit("the library")
    content = repo.path / "content"

    def run(*argv: str) -> tuple[int, str, str]:
        status = cli.main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    def check() -> tuple[int, str, str]:
        return run("check", "--content", str(content), "--source", str(repo.path), "--strict")

    def extract() -> tuple[int, str, str]:
        return run("extract", str(repo.path), "--content", str(content))

    # init -> extract: a record per raise of the library, none of the tests.
    status, out, _ = run("init", str(repo.path))
    assert status == 0 and "extract: added 12," in out
    assert extract()[0] == 0
    found = records(content)
    assert len(found) == 12 and "tests are not documented" not in found

    # Prose for three records, committed with the settings and the workflow.
    edited_message = "limit must be at least 1"
    for message in (edited_message, "name must not be empty", "no stream to close"):
        write_prose(content, found[message], message)
    repo.commit("error reference")

    status, out, err = check()
    assert (status, err) == (0, "")
    assert "raise sites: 12 at" in out and "pages written (with prose): 3 of 12 (25.0%)" in out
    assert out.splitlines()[-1] == "ok: 12 records, no problems"
    status, out, _ = run("build", "--content", str(content), "--out", str(tmp_path / "site"))
    assert status == 0 and "built 12 records" in out
    assert all((tmp_path / "site" / "errors" / r["id"] / "index.html").is_file() for r in found.values())

    # A commit that touches no raise: extract rewrites no file.
    repo.write("README.md", "# mylib\n")
    repo.write("src/mylib/__init__.py", '"""mylib: a library."""\n\nVERSION = "1.0"\n')
    repo.commit("docs")
    before = content_files(content)
    status, out, _ = extract()
    assert status == 0 and out.splitlines()[-1].startswith("added 0, re-pinned 0, changed 0, marked removed 0, unchanged 12;")
    assert content_files(content) == before

    # A commit that edits one written message: review, the old wording as an earlier variant, the prose kept.
    repo.write("src/mylib/io.py", IO.replace(edited_message, "limit must be 1 or more"))
    edit = repo.commit("clearer message")
    status, out, _ = extract()
    assert f"changed {found[edited_message]['id']} src/mylib/io.py:6 (message edited; review: message changed)" in out
    record = records(content)["limit must be 1 or more"]
    assert record["id"] == found[edited_message]["id"]
    assert record["review"] == {"since": edit, "why": "message changed"}
    assert record["variants"] == [{"message": edited_message, "kind": "earlier", "until": edit}]
    assert (record["meaning"], record["solutions"]) == (f"{edited_message}.", [f"Fix {edited_message}."])
    assert record["source"]["commit"] == edit
    assert len({r["source"]["commit"] for r in records(content).values()}) == 2
    repo.commit("re-pin the edited record")
    assert check()[0] == 0

    # A squash merge: the branch's commits are replaced by one commit, the branch deleted and collected.
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/mylib/net.py", 'def get(url):\n    raise ConnectionError(f"cannot reach {url}")\n\n\n'
               'def post(url):\n    raise ConnectionError(f"cannot post to {url}")\n')
    feature = repo.commit("network")
    assert extract()[0] == 0
    repo.commit("records of the network errors")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--squash", "feature")
    squashed = repo.commit("network (#12)")
    repo.git("branch", "-D", "feature")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")

    status, out, err = check()
    assert status == 1
    problems = [line for line in err.splitlines() if not line.startswith("  see ")]
    first = min(r["id"] for r in records(content).values() if r["source"]["path"] == "src/mylib/net.py")
    assert problems == [f"{content}/errors: 2 records are pinned to commit {feature[:12]}, which is not in the history of HEAD"
                        f" (this clone does not have it; rebased or squashed away?), first {content}/errors/{first}.json"
                        " (re-pin them with `errorsite extract REPO_DIR` and commit the records;"
                        " their source links would 404 once the branch is gone)"]
    assert err.count("errors/unreachable-pin/") == 1
    assert out.splitlines()[-1] == "failed: 14 records; 1 problem"
    assert "no problems" not in out

    # extract re-pins the two records to the squashed commit; the check passes.
    status, out, _ = extract()
    assert status == 0 and "re-pinned 2," in out.splitlines()[-1]
    assert {r["source"]["commit"] for r in records(content).values() if r["source"]["path"] == "src/mylib/net.py"} == {squashed}
    status, out, err = check()
    assert (status, err) == (0, "")
    assert out.splitlines()[-1] == "ok: 14 records, no problems"
