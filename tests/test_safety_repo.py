"""A repository is input from strangers: nothing in its tree is run, unpickled, trusted as HTML, or followed out.

Each test plays one attempt a hostile repository (or pull request) can make on a maintainer who
builds, checks, verifies or sets up errorsite in it.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from errorsite import cli
from errorsite.assets import templates_dir
from errorsite.sitebuild import paths
from errorsite.sitebuild.keys import digest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from synth import synthesize  # noqa: E402

PAYLOAD = '<img src="x" onerror="document.title=1" id="forged">'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Return the exit status and standard error of one errorsite command."""
    status = cli.main(list(argv))
    return status, capsys.readouterr().err


def pages(out: Path) -> str:
    """Return every file of a built site, as one text."""
    return "".join(p.read_text(errors="replace") for p in sorted(out.rglob("*")) if p.is_file())


class Run:
    """What unpickling a forged file runs: it leaves a file behind."""

    def __init__(self, witness: Path) -> None:
        self.witness = witness

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, (f"open({str(self.witness)!r}, 'w').write('ran')",))


def forged_compiled_template(witness: Path) -> bytes:
    """Return a compiled template as Jinja's file cache reads it, sealed as the old cache checked, that runs code."""
    from jinja2 import bccache

    body = bccache.bc_magic + pickle.dumps(Run(witness), 2)
    return hashlib.blake2b(body, digest_size=16).digest() + body


def test_compiled_templates_a_repository_holds_are_never_loaded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "repo"
    synthesize(3, repo / "content", seed=1)
    witness = tmp_path / "ran"
    # What a repository can commit: a compiled template for each template, where the cache beside
    # the output used to be, named as Jinja names them for an installed errorsite.
    folder = repo / paths.CACHE_DIR / "templates"
    folder.mkdir(parents=True)
    for template in sorted(templates_dir().glob("*.html")):
        name = hashlib.sha1(f"{template.name}|{os.path.normpath(template)}".encode()).hexdigest()
        (folder / f"{name}.sealed").write_bytes(forged_compiled_template(witness))
    status, err = run(capsys, "build", "--content", str(repo / "content"), "--out", str(repo / "site"), "--quiet")
    assert status == 0, err
    assert not witness.exists()
    assert (repo / "site" / "index.html").is_file()


def test_a_compiled_template_not_made_with_the_users_key_is_compiled_again(tmp_path: Path) -> None:
    from errorsite.sitebuild import pipeline

    content, out = tmp_path / "content", tmp_path / "site"
    synthesize(3, content, seed=1)
    pipeline.build(content, out, jobs=1)
    clean = pages(out)
    compiled = sorted(paths.templates_path().glob("*.code"))
    assert compiled
    for path in compiled:
        # Right but for its authentication code: what anyone without the key can write.
        data = path.read_bytes()
        path.write_bytes(hashlib.sha256(data[32:]).digest() + data[32:].replace(b"Related errors", b"Forged errors!"))
    shutil.rmtree(out)
    paths.state_path(out).unlink()
    pipeline.build(content, out, jobs=1)
    assert pages(out) == clean


def test_highlighted_code_in_the_cache_is_not_trusted_without_the_users_key(tmp_path: Path) -> None:
    from errorsite.sitebuild import pipeline

    content, out = tmp_path / "content", tmp_path / "site"
    synthesize(3, content, seed=1)
    pipeline.build(content, out, jobs=1)
    assert PAYLOAD not in pages(out)
    # Every row forged as anyone can: its HTML and its unkeyed hash, which the old check compared.
    with sqlite3.connect(paths.highlight_path(out)) as db:
        keys = [key for key, in db.execute("SELECT key FROM lines")]
        assert keys
        db.executemany("UPDATE lines SET html = ?, sum = ? WHERE key = ?",
                       [(PAYLOAD, digest(PAYLOAD), key) for key in keys])
    db.close()
    shutil.rmtree(out)
    paths.state_path(out).unlink()
    pipeline.build(content, out, jobs=1)
    assert PAYLOAD not in pages(out)


def test_a_highlight_cache_a_repository_holds_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, clone = tmp_path / "first", tmp_path / "clone"
    synthesize(3, first / "content", seed=1)
    assert run(capsys, "build", "--content", str(first / "content"), "--out", str(first / "site"), "--quiet")[0] == 0
    # The clone holds what a repository can commit: everything the first build left beside its output, forged.
    shutil.copytree(first, clone, ignore=shutil.ignore_patterns("site"), symlinks=True)
    for store in (clone / paths.CACHE_DIR).rglob("*.sqlite"):
        with sqlite3.connect(store) as db:
            if db.execute("SELECT name FROM sqlite_master WHERE name = 'lines'").fetchone():
                db.execute("UPDATE lines SET html = ?, sum = ?",
                           (PAYLOAD, digest(PAYLOAD)))
        db.close()
    assert run(capsys, "build", "--content", str(clone / "content"), "--out", str(clone / "site"), "--quiet")[0] == 0
    assert PAYLOAD not in pages(clone / "site")


@pytest.mark.parametrize("link", ["templates", "site/previous", "site"])
def test_a_link_a_repository_holds_in_the_cache_leads_no_write_out(tmp_path: Path, link: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    synthesize(3, repo / "content", seed=1)
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    (outside / "x.sealed.tmp-999999999").write_text("mine too")
    place = repo / paths.CACHE_DIR / link
    place.parent.mkdir(parents=True)
    place.symlink_to(outside)
    for _ in range(2):
        status, err = run(capsys, "build", "--content", str(repo / "content"), "--out", str(repo / "site"), "--quiet")
        assert status == 0, err
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt", "x.sealed.tmp-999999999"]
    assert place.is_symlink()


def test_a_cache_folder_that_is_a_link_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    synthesize(3, repo / "content", seed=1)
    outside.mkdir()
    (repo / paths.CACHE_DIR).symlink_to(outside)
    status, err = run(capsys, "build", "--content", str(repo / "content"), "--out", str(repo / "site"), "--quiet")
    assert status == 1 and "is a link" in err and "errors/cache-folder-unsafe/" in err
    assert list(outside.iterdir()) == []


def test_a_users_cache_folder_that_is_a_link_or_shared_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    synthesize(3, tmp_path / "content", seed=1)
    build = ("build", "--content", str(tmp_path / "content"), "--out", str(tmp_path / "site"), "--quiet")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "errorsite").symlink_to(elsewhere)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    status, err = run(capsys, *build)
    assert status == 1 and "is a link" in err and "errors/cache-folder-unsafe/" in err
    assert list(elsewhere.iterdir()) == []
    (tmp_path / "cache" / "errorsite").unlink()
    (tmp_path / "cache" / "errorsite").mkdir(mode=0o777)
    os.chmod(tmp_path / "cache" / "errorsite", 0o777)
    status, err = run(capsys, *build)
    assert status == 1 and "may be written by other users" in err
    os.chmod(tmp_path / "cache" / "errorsite", 0o700)
    assert run(capsys, *build)[0] == 0


def test_a_cache_folder_tracked_by_git_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    synthesize(3, repo / "content", seed=1)
    # A repository that carries a cache folder, and a settings file that points XDG_CACHE_HOME into it.
    (repo / "cache" / "errorsite").mkdir(parents=True, mode=0o700)
    (repo / "cache" / "errorsite" / "key").write_bytes(b"k" * 32)
    os.chmod(repo / "cache" / "errorsite" / "key", 0o600)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(repo / "cache"))
    status, err = run(capsys, "build", "--content", str(repo / "content"), "--out", str(repo / "site"), "--quiet")
    assert status == 1 and "tracked by the git repository" in err and "errors/cache-folder-unsafe/" in err
    assert not (repo / "site").exists()


@pytest.mark.parametrize("kind", ["loop", "dangling"])
@pytest.mark.parametrize("when", ["new", "replacing a record"])
def test_a_record_file_whose_link_cannot_be_followed_is_a_problem(tmp_path: Path, kind: str, when: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    content, out = tmp_path / "content", tmp_path / "site"
    synthesize(3, content, seed=1)
    build = ("build", "--content", str(content), "--out", str(out), "--quiet")
    assert run(capsys, *build)[0] == 0
    before = pages(out)
    name = content / "errors" / "zz-linked.json"
    if when != "new":
        name = sorted((content / "errors").glob("*.json"))[1]
        name.unlink()
    name.symlink_to(name.name if kind == "loop" else "gone.json")
    for command in (("check", "--content", str(content)), build):
        status, err = run(capsys, *command)
        assert status == 1, err
        assert f"{name}: cannot read the file: " in err and "errors/unreadable-file/" in err
        assert "bug" not in err
    assert pages(out) == before  # the site is never published without the record


def verify_content(folder: Path) -> Path:
    """Return a content folder with one record whose check holds."""
    from errorsite.recordjson import dumps

    data = {
        "id": "disk-full", "exception": "OSError", "message": "disk full while writing {path}",
        "source": {"commit": "4f2a9c1d0b7e", "path": "mylib/store.py", "line": 2,
                   "snippet": {"start": 1, "code": "def f(x):\n    raise OSError(x)\n"}},
        "meaning": "The note $(touch /tmp/errorsite-pwned) is only text.",
        "example_fix": {"before": "mylib save /full/disk", "after": "mylib save /tmp/out",
                        "check": {"before": "echo 'OSError: disk full while writing /full/disk' >&2; exit 1",
                                  "after": "echo saved"}},
    }
    (folder / "errors").mkdir(parents=True)
    (folder / "site.toml").write_text('title = "mylib errors"\nrepo = "acme/mylib"\n', encoding="utf-8")
    (folder / "errors" / "disk-full.json").write_text(dumps(data), encoding="utf-8")
    return folder


def test_verify_writes_through_no_link_a_pull_request_placed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = verify_content(tmp_path / "content")
    profile = tmp_path / "home" / ".bashrc"
    profile.parent.mkdir()
    profile.write_text("# mine\n")
    record = content / "errors" / "disk-full.json"
    (record.parent / f".{record.name}.verify-tmp").symlink_to(profile)
    status = cli.main(["verify", "--content", str(content)])
    assert status == 0, capsys.readouterr()
    assert profile.read_text() == "# mine\n"
    assert not record.is_symlink() and '"verified"' in record.read_text()
    assert (record.parent / f".{record.name}.verify-tmp").is_symlink()


def test_a_record_that_is_a_link_is_a_problem_for_check_build_and_verify(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    content = verify_content(tmp_path / "content")
    record = content / "errors" / "disk-full.json"
    stored = record.with_name("stored.txt")
    record.rename(stored)
    record.symlink_to(stored.name)
    before = stored.read_bytes()
    for command in (["check"], ["build", "--out", str(tmp_path / "site")], ["verify"]):
        status, err = run(capsys, *command, "--content", str(content))
        assert status == 1, err
        assert f"{record}: the record file is a link to {str(stored)!r}" in err and "errors/record-is-a-link/" in err
    assert record.is_symlink() and stored.read_bytes() == before
    assert not (tmp_path / "site").exists()


def library(path: Path, remote: bool = True) -> Path:
    """Return a git repository of a small library, committed."""
    from test_gitrepo import Repo

    repo = Repo(path)
    repo.write("src/mylib/__init__.py", 'def f(x):\n    raise ValueError(f"bad {x}")\n')
    if remote:
        repo.git("remote", "add", "origin", "git@github.com:acme/mylib.git")
    repo.commit()
    return repo.path


def test_init_writes_nothing_through_a_github_folder_that_is_a_link(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    repo, outside = library(tmp_path / "lib"), tmp_path / "outside"
    outside.mkdir()
    (repo / ".github").symlink_to(outside)
    status, err = run(capsys, "init", str(repo))
    assert status == 1 and "refused to write '.github/workflows/errors.yml'" in err
    assert "errors/init-outside-repository/" in err
    assert list(outside.iterdir()) == []
    assert not (repo / "content").exists() and not (repo / ".gitignore").exists()  # checked before any is written


@pytest.mark.parametrize("target", ["/dev/zero", "gone.txt", "outside"])
@pytest.mark.parametrize("place", [".gitignore", "src/mylib/zero.py"])
def test_init_reads_nothing_through_a_link_the_repository_holds(tmp_path: Path, place: str, target: str) -> None:
    import resource

    repo, outside = library(tmp_path / "lib"), tmp_path / "outside.txt"
    outside.write_text("site/\n.errorsite-cache/\nERRORSITE_NO_LINKS\n")
    (repo / place).symlink_to(outside if target == "outside" else target)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(repo), "add", "-A"],
                   check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(repo), "commit", "-qm",
                    "a link"], check=True)

    def bounded() -> None:  # reading /dev/zero must end in a second, not take the machine's memory
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    done = subprocess.run([sys.executable, "-m", "errorsite", "init", str(repo)], capture_output=True, text=True,
                          timeout=120, preexec_fn=bounded)
    assert done.returncode == 0, done.stderr
    assert "wrote .github/workflows/errors.yml" in done.stdout and (repo / "content" / "site.toml").is_file()
    assert len(list((repo / "content" / "errors").glob("*.json"))) == 1  # the link is no file of the library's code
    if place == ".gitignore":
        # git reads no .gitignore that is a link, whatever it leads to: the lines still need a file.
        assert "note: git reads no .gitignore that is a link: make it a file holding site/ .errorsite-cache/" \
            in done.stdout
    assert outside.read_text() == "site/\n.errorsite-cache/\nERRORSITE_NO_LINKS\n"


@pytest.mark.parametrize("name", ["errors #1", "errors\nstrict: false\ndeploy: true", "a: b", "${{ github.token }}",
                                  "odd\x7f\x85\u2028name", '"quoted"'])
def test_init_quotes_the_content_folder_in_the_workflow(tmp_path: Path, name: str) -> None:
    import yaml

    from errorsite import init

    repo = library(tmp_path / "lib")
    init.init(repo, repo / name)
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "errors.yml").read_text(encoding="utf-8"))
    for job in workflow["jobs"].values():
        inputs = job["steps"][-1]["with"]
        assert inputs["content"].replace("${{ '${{' }}", "${{") == name
        assert set(inputs) <= {"content", "strict", "repin", "deploy"} and inputs.get("strict", True) is True


def test_init_writes_valid_toml_for_a_folder_name_with_del(tmp_path: Path) -> None:
    import tomllib

    from errorsite import init

    repo = library(tmp_path / "lib\x7fname", remote=False)  # the title is then the folder's name
    init.init(repo)
    settings = tomllib.loads((repo / "content" / "site.toml").read_text(encoding="utf-8"))
    assert settings["title"] == "libname error reference"
    assert cli.main(["check", "--content", str(repo / "content")]) == 0
    workflow = (repo / ".github" / "workflows" / "errors.yml").read_bytes()
    assert b"\x7f" not in workflow


def test_init_in_a_folder_whose_name_is_not_utf8_is_a_user_error(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from test_gitrepo import Repo

    path = Path(os.fsdecode(os.fsencode(tmp_path) + b"/lib\xff"))
    repo = Repo(path)
    repo.write("mylib/__init__.py", 'def f(x):\n    raise ValueError(f"bad {x}")\n')
    repo.commit()
    status, err = run(capsys, "init", str(path))
    assert status == 1 and "not UTF-8" in err and "errors/name-not-utf8/" in err and "bug" not in err
    assert not (path / "content").exists()


def test_when_the_first_extract_fails_init_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = library(tmp_path / "lib")
    (repo / "content").mkdir()
    (repo / "content" / "site.toml").write_text("title = 1\n")
    status, err = run(capsys, "init", str(repo))
    assert status == 1
    assert "init wrote .github/workflows/errors.yml, .gitignore; then the first extract stopped, and wrote no record" in err
    assert "nothing was written" not in err
    assert "content/site.toml: /title: must be a string" in err
    assert sorted(p.name for p in (repo / "content").iterdir()) == ["site.toml"]


def test_actions_that_can_publish_or_come_from_third_parties_are_pinned_to_a_commit() -> None:
    import re

    import yaml

    root = Path(__file__).resolve().parent.parent
    pinned = re.compile(r"[^@]+@[0-9a-f]{40}")
    for path in sorted((root / ".github" / "workflows").glob("*.yml")):
        for name, job in yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"].items():
            publishes = (job.get("permissions") or {}).get("id-token") == "write"
            for step in job.get("steps", []):
                uses = step.get("uses", "")
                if uses and not uses.startswith("./") and (publishes or not uses.startswith("actions/")):
                    assert pinned.fullmatch(uses), f"{path.name}: job {name}: {uses} is not pinned to a commit"


def test_neither_the_action_nor_a_workflow_runs_verify(tmp_path: Path) -> None:
    import re

    import yaml

    from errorsite import init

    # The README's promise: a record's check is code, and only a person runs it (errorsite verify).
    root = Path(__file__).resolve().parent.parent
    repo = library(tmp_path / "lib")
    init.init(repo)
    action = yaml.safe_load((root / "action.yml").read_text(encoding="utf-8"))
    scripts = "\n".join(step["run"] for step in action["runs"]["steps"] if "run" in step)
    commands = set(re.findall(r"\berrorsite (\w+)", scripts)) | set(re.findall(r"args=\((\w+)", scripts))
    assert commands == {"extract", "vendor", "check", "build"}
    ours = sorted((root / ".github" / "workflows").glob("*.yml"))
    for path in [repo / ".github" / "workflows" / "errors.yml", *ours]:
        for job in yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"].values():
            for step in job.get("steps", []):
                assert not re.search(r"\bverify\b", str(step.get("run", "")).replace("git rev-parse -q --verify", ""))
                assert "verify" not in str(step.get("with", ""))


DAEMON = """
import os, sys, time
if os.fork():
    os._exit(0)
os.setsid()
if os.fork():
    os._exit(0)
devnull = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(devnull, fd)
with open("pid.tmp", "w") as file:
    file.write(str(os.getpid()))
os.rename("pid.tmp", "pid")
time.sleep(3)
open("late", "w").write("ran on")
"""


def running(pid: int) -> bool:
    """Return whether process `pid` runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("ending", ["at the timeout", "when the command ends"])
def test_verify_ends_a_process_that_left_the_commands_session(tmp_path: Path, ending: str) -> None:
    import time

    from errorsite import verify

    (tmp_path / "daemon.py").write_text(DAEMON)
    # The command waits until the detached process has written its pid: it has left the session by then.
    started = "python daemon.py; until [ -s pid ]; do sleep 0.05; done"
    command = f"{started}; sleep 30" if ending == "at the timeout" else f"{started}; echo started"
    run_ = verify.run_command(command, tmp_path, timeout=2)
    assert (run_.status is None) == (ending == "at the timeout")
    pid = int((tmp_path / "pid").read_text())
    assert not running(pid)
    time.sleep(3.5)
    assert not (tmp_path / "late").exists()


@pytest.mark.parametrize("path", ["a/" * 2999 + "x.py", "pkg/" + "n" * 256 + ".py", "é/" * 200 + "x.py"])
def test_a_source_path_no_file_system_takes_is_refused_by_check_before_build(tmp_path: Path, path: str,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import json

    content = tmp_path / "content"
    synthesize(2, content, seed=1)
    record = sorted((content / "errors").glob("*.json"))[0]
    data = json.loads(record.read_text())
    data["source"]["path"] = path
    record.write_text(json.dumps(data))
    for command in (("check", "--content", str(content)),
                    ("build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet")):
        status, err = run(capsys, *command)
        assert status == 1, err
        assert f"{record}: /source/path: the path is " in err and "errors/source-path-too-long/" in err
    assert not (tmp_path / "site").exists()


def test_the_longest_source_path_check_takes_builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    content = tmp_path / "content"
    synthesize(2, content, seed=1)
    record = sorted((content / "errors").glob("*.json"))[0]
    data = json.loads(record.read_text())
    data["source"]["path"] = "n" * 255 + "/" + "m" * 101 + "/" + "é" * 75 + "x.py"  # a longest name, and 512 bytes in all
    assert len(data["source"]["path"].encode()) == 512
    record.write_text(json.dumps(data))
    assert run(capsys, "check", "--content", str(content))[0] == 0
    assert run(capsys, "build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet")[0] == 0


@pytest.mark.parametrize("planted", [".site.toml.rename-tmp", "errors/.batch-tokens-multiple.json.rename-tmp",
                                     "errors/.batch-not-a-multiple.json.rename-tmp"])
def test_rename_writes_through_no_link_a_pull_request_placed(tmp_path: Path, content: Path, planted: str) -> None:
    # A committed link at the name a temporary file once had must not lead rename's writes out of the repository.
    victim = tmp_path / "bashrc"
    victim.write_text("export PATH=/usr/bin\n")
    (content / planted).symlink_to(victim)
    assert cli.main(["rename", "batch-tokens-multiple", "batch-not-a-multiple", "--content", str(content)]) == 0
    assert victim.read_text() == "export PATH=/usr/bin\n"
    assert not (content / "site.toml").is_symlink() and not (content / "errors/batch-not-a-multiple.json").is_symlink()
    assert "batch-not-a-multiple" in (content / "site.toml").read_text()
    assert not [p for p in content.rglob("*") if p.name.endswith(".tmp")]


def tagged_repo(path: Path) -> Path:
    """Return a repository with one release tag of one raise, for `extract --history`."""
    from test_gitrepo import Repo

    repo = Repo(path)
    repo.write("pkg/core.py", "def f(n):\n    raise ValueError(f'n must be positive, got {n}')\n")
    repo.commit()
    repo.git("tag", "-a", "v1.0", "-m", "v1.0")
    return repo.path


def history_run(capsys: pytest.CaptureFixture[str], repo: Path) -> tuple[int, str]:
    return run(capsys, "extract", str(repo), "--content", str(repo / "content"), "--history")


def test_extract_history_writes_its_cache_through_no_link(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo, outside = tagged_repo(tmp_path / "repo"), tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "xdg" / "errorsite").mkdir(parents=True, mode=0o700)
    (tmp_path / "xdg" / "errorsite" / "history").symlink_to(outside)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    status, err = history_run(capsys, repo)
    assert status == 1 and "is a link" in err and "errors/cache-folder-unsafe/" in err
    assert list(outside.iterdir()) == []


def test_a_relative_cache_home_leads_no_cache_into_the_checkout(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tagged_repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    status, err = history_run(capsys, repo)
    assert status == 0, err
    assert not (repo / "cache").exists()
    assert list((tmp_path / "home" / ".cache" / "errorsite" / "history").glob("*.json"))


@pytest.mark.parametrize("kind", ["fifo", "huge"])
def test_a_history_cache_file_that_is_no_cache_is_no_hang_and_no_exhaustion(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    from errorsite.extract import history

    repo = tagged_repo(tmp_path / "repo")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    place = history.cache_path(repo)
    if kind == "fifo":
        os.mkfifo(place)
    else:
        with open(place, "wb") as huge:  # sparse: no disk is spent, but a reader of it all would need 3 GB
            huge.truncate(3 * 1024**3)
    status, err = history_run(capsys, repo)
    if kind == "fifo":
        assert status == 1 and "is not a regular file" in err and "errors/cache-folder-unsafe/" in err
    else:
        assert status == 0, err
        assert place.stat().st_size < 1024**2  # taken as damaged, and made again
        assert json.loads(place.read_bytes())["format"] == history.CACHE_FORMAT


def test_a_fifo_in_place_of_the_cache_key_is_refused_not_waited_for(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    synthesize(3, tmp_path / "content", seed=1)
    (tmp_path / "xdg" / "errorsite").mkdir(parents=True, mode=0o700)
    os.mkfifo(tmp_path / "xdg" / "errorsite" / "key", 0o600)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    paths._not_tracked.cache_clear()
    status, err = run(capsys, "build", "--content", str(tmp_path / "content"), "--out", str(tmp_path / "site"), "--quiet")
    assert status == 1 and "errors/cache-folder-unsafe/" in err, err


def site_tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_builds_of_one_output_take_turns(tmp_path: Path) -> None:
    # Two builds into one folder at once left a mix of two sites; the second now waits for the first's lock.
    content, out, clean = tmp_path / "content", tmp_path / "site", tmp_path / "clean"
    synthesize(40, content, seed=3)
    assert cli.main(["build", "--content", str(content), "--out", str(out), "--quiet"]) == 0
    before = site_tree(out)
    for path in sorted((content / "errors").glob("*.json"))[:10]:
        record = json.loads(path.read_text())
        path.write_text(json.dumps({**record, "title": "Retitled while another build ran"}))
    command = [sys.executable, "-m", "errorsite", "build", "--content", str(content), "--out", str(out), "--quiet"]
    with paths.build_lock(out):
        second = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        assert second.stderr is not None
        line = second.stderr.readline()  # the build says it waits, then waits: nothing is written meanwhile
        assert line == f"errorsite: waiting for another build of {out} to finish\n"
        assert second.poll() is None
        assert site_tree(out) == before
    assert second.wait(timeout=300) == 0, second.stderr.read()
    assert cli.main(["build", "--content", str(content), "--out", str(clean), "--quiet"]) == 0
    assert site_tree(out) == site_tree(clean)
