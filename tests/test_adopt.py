"""A library adopts errorsite: init, prose, CI checks, commits that touch no raise, an edited message, a squash merge."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from test_gitrepo import Repo
from test_workflows import ROOT, action_checkout, run_steps

from errorsite import cli
from errorsite.extract.globs import LINK_HELPER_HEAD
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


def cli_runner(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Return a function that runs errorsite's command line and gives its status, output and errors."""
    def run(*argv: str) -> tuple[int, str, str]:
        status = cli.main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err
    return run


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

    run = cli_runner(capsys)

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


# --- the first week, as a maintainer lives it: the workflow's steps run as the Action runs them -----

WEEK_CORE = '''\
"""The library's core."""

# Settings of a run.


class Config:
    def __init__(self, size, name):
        if size <= 0:
            raise ValueError(f"size must be positive, got {size}")
        if not name:
            raise ValueError("name must not be empty")
        self.size, self.name = size, name


def load(path):
    if not path.endswith(".toml"):
        raise ValueError(f"{path} is not a TOML file")
    raise FileNotFoundError(f"no config at {path}")
'''

WEEK_PYPROJECT = '[project]\nname = "mylib"\nversion = "8.1.3"\n'

EXAMPLE_CHECK = {
    "before": "PYTHONPATH=src python3 -c 'from mylib.core import Config; Config(0, \"a\")'",
    "after": "PYTHONPATH=src python3 -c 'from mylib.core import Config; Config(1, \"a\")'",
}
"""An example fix's check that raises from the record's own file (copied into the check's folder)."""

HELPER_CALL = """
import sys
sys.path.insert(0, {src!r})
from mylib._errorsite import url_for
print(url_for({message!r}))
"""


def helper_url(src: Path, message: str) -> str:
    """Return what the vendored link helper in `src/mylib/_errorsite` prints for `message`, in a fresh process."""
    code = HELPER_CALL.format(src=str(src), message=message)
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def landing(site: Path, url: str, base: str) -> Path:
    """Return the page a published URL shows in the built site, following a redirect page once."""
    assert url.startswith(base)
    page = site / url.removeprefix(base).partition("?")[0] / "index.html"
    text = page.read_text(encoding="utf-8")
    moved = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', text)
    if moved is None:
        return page.resolve()
    target = (page.parent / moved.group(1)).resolve()
    return target / "index.html" if target.is_dir() else target


def job_inputs(workflow: dict, job: str) -> dict[str, str]:
    """Return the inputs a job of the workflow gives errorsite's Action, as the runner passes them (strings)."""
    [step] = [s for s in workflow["jobs"][job]["steps"] if s["uses"].startswith("errorsite/errorsite@")]
    return {key: str(value).lower() if isinstance(value, bool) else str(value) for key, value in step["with"].items()}


def test_the_first_week_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "mylib")
    repo.write("pyproject.toml", WEEK_PYPROJECT)
    repo.write("src/mylib/__init__.py", '"""mylib."""\n')
    repo.write("src/mylib/core.py", WEEK_CORE)
    repo.git("remote", "add", "origin", "https://github.com/acme/mylib.git")
    repo.git("branch", "-M", "main")
    repo.commit("the library")
    content = repo.path / "content"
    errors = content / "errors"
    src = repo.path / "src"
    base = "https://acme.github.io/mylib/"

    run = cli_runner(capsys)

    # Monday: init, prose, an example checked, the helper vendored; all committed.
    status, out, _ = run("init", str(repo.path))
    assert status == 0 and "extract: added 4," in out
    assert sorted(p.stem for p in errors.glob("*.json")) == [
        "is-not-a-toml-file", "name-must-not-be-empty", "no-config-at", "size-must-be-positive-got"]
    sized = errors / "size-must-be-positive-got.json"
    record = json.loads(sized.read_text(encoding="utf-8"))
    record.update(meaning="The size is zero or negative.", solutions=["Pass a positive size."],
                  analysis={"by": "human", "date": "2026-12-01"},
                  example_fix={"before": "Config(0, 'a')", "after": "Config(1, 'a')", "language": "python",
                               "check": {"files": {"src/mylib/__init__.py": "", "src/mylib/core.py": WEEK_CORE},
                                         **EXAMPLE_CHECK}})
    sized.write_text(dumps(record), encoding="utf-8")
    assert run("verify", "--content", str(content))[0] == 0
    assert json.loads(sized.read_text(encoding="utf-8"))["example_fix"]["verified"]["by"] == "errorsite verify"
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [vendor_hook] = [h for h in hooks if h["id"] == "errorsite-vendor"]
    # The hook as pre-commit runs it in the library: its entry, then the library's args.
    hook_argv = [*shlex.split(vendor_hook["entry"])[1:], str(src / "mylib" / "_errorsite"), "--content", str(content)]
    status, out, _ = run(*hook_argv)
    assert status == 0 and "(4 patterns," in out
    repo.commit("error reference")

    # The workflow init wrote, run as the Action runs it: errorsite installed from the Action's own folder.
    workflow = yaml.safe_load((repo.path / ".github" / "workflows" / "errors.yml").read_text(encoding="utf-8"))
    runner = tmp_path / "runner"
    runner.mkdir()
    checkout = action_checkout(tmp_path / "_actions" / "errorsite" / "errorsite" / f"v{cli.__version__}")
    assert run_steps(repo.path, runner, job_inputs(workflow, "check"), action_path=checkout) == [0, 0, 0]
    assert (runner / "path").read_text() == f"{runner / 'errorsite-venv' / 'bin'}\n"
    installed = {"action_path": checkout, "skip": ("Install errorsite",)}

    def job(name: str) -> list[int]:
        # Each job runs in its own checkout, as actions/checkout makes it: the full history, nothing else.
        work = runner / "work"
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", str(repo.path), str(work)], check=True)
        return run_steps(work, runner, job_inputs(workflow, name), **installed)  # type: ignore[arg-type]

    def pull_request() -> list[int]:
        return job("check")

    def deploy() -> list[int]:
        return job("publish")

    published = runner / "errorsite-site"
    assert deploy() == [0, 0, 0, 0] and (published / "errors" / "size-must-be-positive-got" / "index.html").is_file()

    # Tuesday: a commit that only changes comments outside every snippet rewrites no record.
    repo.write("src/mylib/core.py", WEEK_CORE.replace("# Settings of a run.", "# The settings of one run.")
               + "\n\n# The end of the core.\n")
    repo.commit("comments")
    before = content_files(content)
    status, out, _ = run("extract", str(repo.path), "--content", str(content))
    assert status == 0 and "re-pinned 0," in out.splitlines()[-1]
    assert content_files(content) == before
    assert pull_request() == [0, 0]

    # Wednesday: three comment lines above the class move every raise; its verified example is kept, and the
    # default branch's job re-pins, checks and builds: the deploy goes on.
    moved = WEEK_CORE.replace("# Settings of a run.\n", "# Settings of a run.\n# Made once.\n# Checked when made.\n#\n")
    repo.write("src/mylib/core.py", moved)
    repo.commit("more comments")
    assert deploy() == [0, 0, 0, 0]
    page = (published / "errors" / "size-must-be-positive-got" / "index.html").read_text(encoding="utf-8")
    assert "core.py#L12" in page and "may be out of date" not in page
    status, out, _ = run("extract", str(repo.path), "--content", str(content))
    assert status == 0 and "re-pinned 4," in out.splitlines()[-1]
    assert all("review" not in json.loads(p.read_text(encoding="utf-8")) for p in errors.glob("*.json"))
    assert json.loads(sized.read_text(encoding="utf-8"))["example_fix"]["verified"]["by"] == "errorsite verify"
    repo.commit("records re-pinned")
    assert pull_request() == [0, 0]

    # Thursday: a readable name for a page; the old URL and the helper vendored before still reach it.
    before_rename = helper_url(src, "no config at settings.toml")
    # (No `?v=`: mylib is not installed here, so it has no version to report.)
    assert before_rename == f"{base}errors/no-config-at/"
    assert run("rename", "no-config-at", "config-file-missing", "--content", str(content))[0] == 0
    # The helper vendored before the rename, not yet refreshed, still prints the old URL (which lands, below).
    assert helper_url(src, "no config at settings.toml") == before_rename
    # Before the commit: check names the stale vendored patterns and the command; the hook refreshes them.
    status, out, err = run("check", "--content", str(content), "--source", str(repo.path))
    assert status == 1 and "src/mylib/_errorsite/patterns.bin: the vendored patterns are not what the records give" in err
    assert f"refresh it with `errorsite vendor {os.path.relpath(src / 'mylib' / '_errorsite')} --content {content}`" in err
    assert run(*hook_argv)[0] == 0
    assert helper_url(src, "no config at settings.toml").startswith(f"{base}errors/config-file-missing/")
    repo.commit("rename")
    assert pull_request() == [0, 0]
    assert deploy() == [0, 0, 0, 0]
    # The URL the helper printed before the rename (in a release of the library already installed) still lands.
    assert landing(published, before_rename, base) == (published / "errors" / "config-file-missing" / "index.html").resolve()

    # Friday: a reworded message. check names the record and the command; extract keeps the prose; the hook
    # refreshes the patterns, and the helper links the new wording.
    repo.write("src/mylib/core.py", moved.replace("size must be positive, got", "size must be 1 or more, got"))
    repo.commit("clearer message")
    status, out, err = run("check", "--content", str(content), "--source", str(repo.path), "--strict")
    assert status == 1
    assert f"documented by {sized}" in out + err
    assert f"run: errorsite extract {repo.path}" in out + err
    assert run("extract", str(repo.path), "--content", str(content))[0] == 0
    record = json.loads(sized.read_text(encoding="utf-8"))
    assert record["message"] == "size must be 1 or more, got {size}" and record["meaning"] == "The size is zero or negative."
    status, out, err = run("check", "--content", str(content), "--source", str(repo.path), "--strict")
    assert status == 1 and "vendored-patterns-stale" in err
    assert helper_url(src, "size must be 1 or more, got 0") == "None"
    assert run(*hook_argv)[0] == 0
    assert helper_url(src, "size must be 1 or more, got 0").startswith(f"{base}errors/size-must-be-positive-got/")
    assert helper_url(src, "size must be positive, got 0").startswith(f"{base}errors/size-must-be-positive-got/")
    repo.commit("records of the clearer message")
    assert pull_request() == [0, 0]

    # A feature branch squash-merged and collected: the deploy re-pins and publishes.
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/mylib/net.py", 'def get(url):\n    raise ConnectionError(f"cannot reach {url}")\n')
    repo.commit("network")
    assert run("extract", str(repo.path), "--content", str(content))[0] == 0
    assert run(*hook_argv)[0] == 0
    repo.commit("records of the network errors")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--squash", "feature")
    squashed = repo.commit("network (#12)")
    repo.git("branch", "-D", "feature")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    assert pull_request() == [1, 0]
    assert deploy() == [0, 0, 0, 0]
    net = (published / "errors" / "cannot-reach" / "index.html").read_text(encoding="utf-8")
    assert f"/blob/{squashed}/src/mylib/net.py#L2" in net


PARSER = '''\
"""Parsing."""


class Parser:
    def __init__(self, text):
        self.text = text

    def parse(self):
        if not self.text:
            raise ValueError("nothing to parse")
        return self.text.split()


def loads(text):
    return Parser(text).parse()
'''


def test_a_helper_vendored_after_init_is_errorsites_code_not_the_librarys(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # The README's order: init first, the helper vendored later. Its raises, calls and names are errorsite's:
    # `Entry.parse(item)` in it is no caller of the library's Parser.parse, and vendoring re-pins no record.
    repo = Repo(tmp_path / "mylib")
    repo.write("mylib/__init__.py", '"""mylib."""\n')
    repo.write("mylib/parser.py", PARSER)
    repo.git("remote", "add", "origin", "https://github.com/acme/mylib.git")
    repo.commit("the library")
    content = repo.path / "content"

    run = cli_runner(capsys)

    status, out, _ = run("init", str(repo.path))
    assert status == 0 and "extract: added 1," in out and "(2 files at" in out
    repo.commit("error reference")
    before = content_files(content)
    assert run("vendor", str(repo.path / "mylib" / "_errorsite"), "--content", str(content))[0] == 0
    repo.write("mylib/__init__.py", '"""mylib."""\n\nfrom mylib._errorsite import install\n\ninstall()\n')
    repo.commit("the link helper")
    assert (repo.path / "mylib" / "_errorsite" / "__init__.py").read_bytes().startswith(LINK_HELPER_HEAD)

    status, out, _ = run("extract", str(repo.path), "--content", str(content), "--verbose")
    assert status == 0, out
    assert out.splitlines()[-1].startswith("added 0, re-pinned 0, changed 0, marked removed 0, unchanged 1;"), out
    assert "(2 files at" in out.splitlines()[-1] and "_errorsite" not in out
    assert content_files(content) == before
    [record] = records(content).values()
    assert [c["function"] for c in record["source"]["callers"]] == ["loads"]
    status, out, err = run("check", "--content", str(content), "--source", str(repo.path), "--strict")
    assert (status, err) == (0, ""), out + err
    assert "raise sites: 1 at" in out
