"""Reading files at a commit through git: listing, one batched read, and user errors."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from errorsite import cli
from errorsite.extract import git
from errorsite.problems import UserError

GIT_ENV = {
    "GIT_AUTHOR_DATE": "2024-01-02T03:04:05+00:00",
    "GIT_COMMITTER_DATE": "2024-01-02T03:04:05+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


class Repo:
    """A throwaway git repository that tests write files into and commit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q")

    def git(self, *args: str) -> str:
        """Run git in the repository and return its output."""
        result = subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false", *args],
            cwd=self.path, env={**os.environ, **GIT_ENV}, capture_output=True, check=True,
        )
        return result.stdout.decode()

    def write(self, name: str, content: str | bytes) -> None:
        """Write a file (bytes exactly as given, text as UTF-8 with no newline translation)."""
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())

    def remove(self, name: str) -> None:
        """Delete a file from the work tree."""
        (self.path / name).unlink()

    def commit(self, message: str = "change") -> str:
        """Commit everything and return the commit id."""
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """Return an empty repository."""
    return Repo(tmp_path / "repo")


def test_snapshot_reads_wanted_files_at_the_commit(repo: Repo) -> None:
    repo.write("a.py", "one\n")
    repo.write("pkg/b.py", b"\x00\xffbinary\r\n")
    repo.write("notes.txt", "not wanted\n")
    first = repo.commit()
    repo.write("a.py", "two\n")
    repo.commit()
    snap = git.snapshot(repo.path, first[:7], lambda p: p.endswith(".py"))
    assert snap.commit == first
    assert snap.files == {"a.py": b"one\n", "pkg/b.py": b"\x00\xffbinary\r\n"}


def test_non_ascii_and_odd_paths_come_back_unquoted(repo: Repo) -> None:
    names = ["pkg/ünïcode.py", "with space.py", "日本/モジュール.py", 'quote"tab\t.py']
    for name in names:
        repo.write(name, f"# {name}\n")
    repo.commit()
    snap = git.snapshot(repo.path, "HEAD", lambda p: True)
    assert snap.files == {name: f"# {name}\n".encode() for name in names}


def test_symlinks_and_submodule_entries_are_not_files(repo: Repo) -> None:
    repo.write("real.py", "x = 1\n")
    os.symlink("real.py", repo.path / "link.py")
    repo.commit()
    assert set(git.snapshot(repo.path, "HEAD", lambda p: True).files) == {"real.py"}


def test_a_snapshot_reads_bytes_when_asked_and_many_in_one_git_process(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(60):
        repo.write(f"m{n}.py", f"value = {n}\n")
    repo.commit()
    calls: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        calls.append(args)
        return real_run(args, **kwargs)

    monkeypatch.setattr(git.subprocess, "run", counting_run)
    snap = git.snapshot(repo.path, "HEAD", lambda p: True)
    assert len(snap.files) == 60 and "m59.py" in snap.files
    assert len(calls) <= 4 and [c[3:] for c in calls if c[3] == "cat-file"] == [["cat-file", "--batch-check"]]
    calls.clear()
    assert snap.files["m42.py"] == b"value = 42\n"
    snap.files.load(snap.files)
    assert [c[3:] for c in calls] == [["cat-file", "--batch"], ["cat-file", "--batch"]]
    assert dict(snap.files) == {f"m{n}.py": f"value = {n}\n".encode() for n in range(60)}
    assert len(calls) == 2


def test_read_objects_by_commit_and_path(repo: Repo) -> None:
    repo.write("a b.py", "first\n")
    first = repo.commit()
    repo.write("a b.py", "second\n")
    second = repo.commit()
    found = git.read_objects(repo.path, [f"{first}:a b.py", f"{second}:a b.py", f"{first}:gone.py", "0" * 40])
    assert found == {f"{first}:a b.py": b"first\n", f"{second}:a b.py": b"second\n",
                     f"{first}:gone.py": None, "0" * 40: None}


def test_unknown_commit_is_a_user_error(repo: Repo) -> None:
    repo.write("a.py", "")
    repo.commit()
    with pytest.raises(UserError) as caught:
        git.resolve(repo.path, "no-such-branch")
    assert caught.value.page == "unknown-commit"
    assert "no-such-branch" in caught.value.message


def test_empty_repository_has_no_commit(repo: Repo) -> None:
    with pytest.raises(UserError) as caught:
        git.resolve(repo.path, "HEAD")
    assert caught.value.page == "unknown-commit"


def test_folder_that_is_not_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    plain = tmp_path / "plain"
    plain.mkdir()
    for folder, page in ((plain, "not-a-git-repository"), (tmp_path / "missing", "repository-folder-missing")):
        with pytest.raises(UserError) as caught:
            git.snapshot(folder, "HEAD", lambda p: True)
        assert caught.value.page == page
        assert str(folder) in caught.value.message


COMMANDS = ("extract", "check", "init")
"""The commands that read a folder through git, so each may say it is not a repository."""


@pytest.mark.parametrize("command", COMMANDS)
def test_not_a_repository_hint_holds_for_the_command_that_raised_it(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    plain = tmp_path / "plain"
    plain.mkdir()
    (tmp_path / "content" / "errors").mkdir(parents=True)
    argv = {
        "extract": ["extract", str(plain), "--content", str(tmp_path / "content")],
        "check": ["check", "--content", str(tmp_path / "content"), "--source", str(plain)],
        "init": ["init", str(plain)],
    }[command]
    assert cli.main(argv) != 0
    err = capsys.readouterr().err
    assert "errors/not-a-git-repository/" in err
    hint = next(line for line in err.splitlines() if line.lstrip().startswith("hint:"))
    # `git init` is advice, not the name of an errorsite command.
    others = [c for c in COMMANDS if c != command and c in hint.replace("git init", "")]
    assert others == [], f"the hint of `{command}` speaks of {others}: {hint}"


def test_missing_git_is_a_user_error(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo.path / "nowhere"))
    with pytest.raises(UserError) as caught:
        git.resolve(repo.path, "HEAD")
    assert caught.value.page == "git-not-found"
    assert caught.value.hint
