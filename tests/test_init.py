"""`errorsite init`: settings from the remote and the layout, a workflow, no file that exists changed."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from test_gitrepo import Repo

from errorsite import cli, init
from errorsite.problems import UserError


def tree(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Return (bytes, mtime) of every file under `folder` outside `.git`."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file() and ".git" not in p.relative_to(folder).parts[:1]}


@pytest.mark.parametrize("url", [
    "https://github.com/Acme/my-lib.git",
    "https://github.com/Acme/my-lib",
    "https://token@github.com/Acme/my-lib/",
    "git@github.com:Acme/my-lib.git",
    "ssh://git@github.com/Acme/my-lib.git",
    "ssh://git@github.com:22/Acme/my-lib",
    "git://github.com/Acme/my-lib.git",
])
def test_github_remote_forms(url: str) -> None:
    assert init.github_remote({"origin": url}) == init.Remote("Acme/my-lib", None)


def test_origin_first_then_any_github_remote_and_a_note_without_one() -> None:
    assert init.github_remote({"fork": "git@github.com:me/lib.git", "origin": "https://github.com/up/lib"}).repo == "up/lib"
    assert init.github_remote({"a": "https://gitlab.com/x/y.git", "b": "git@github.com:x/y.git"}).repo == "x/y"
    none = init.github_remote({})
    assert none.repo is None and "no git remote" in (none.note or "")
    other = init.github_remote({"origin": "https://gitlab.com/x/y.git"})
    assert other.repo is None and "https://gitlab.com/x/y.git" in (other.note or "")


@pytest.mark.parametrize("url", ["https://github.com/Acme/..", "git@github.com:./my-lib.git", "https://github.com/Ac me/lib"])
def test_a_github_remote_that_is_no_owner_name_gives_no_repo(url: str) -> None:
    assert init.github_remote({"origin": url}).repo is None


def layout(files: dict[str, bytes]) -> init.Layout:
    return init.find_layout(sorted(files), files.__getitem__)


def test_src_layout_leaves_out_tests_docs_helpers_and_a_vendored_link_helper() -> None:
    found = layout({
        "src/mylib/__init__.py": b"", "src/mylib/core.py": b"", "src/mylib/_links.py": b"OPT_OUT = 'ERRORSITE_NO_LINKS'\n",
        "src/mylib/testing/__init__.py": b"", "src/mylib/tests/test_core.py": b"", "src/other/__init__.py": b"",
        "tests/test_a.py": b"", "docs/conf.py": b"", "setup.py": b"",
    })
    assert found == init.Layout(
        "src", ("src/mylib/**/*.py", "src/other/**/*.py"),
        ("src/mylib/testing/**", "src/mylib/tests/**", "/src/mylib/_links.py"),
    )


def test_flat_layout_takes_top_level_packages_and_modules() -> None:
    found = layout({
        "mylib/__init__.py": b"", "mylib/examples/demo.py": b"", "single.py": b"", "setup.py": b"", "conftest.py": b"",
        "tests/__init__.py": b"", "benchmarks/__init__.py": b"", "scripts/x.py": b"", "test_it.py": b"",
        "docs/__init__.py": b"",
    })
    assert found == init.Layout("flat", ("mylib/**/*.py", "/single.py"), ("mylib/examples/**",))


def test_no_package_reads_every_file() -> None:
    assert layout({"tests/test_a.py": b"", "setup.py": b""}) == init.Layout("unknown", (), ("tests/**",))


def library(path: Path, remote: str | None = "git@github.com:acme/mylib.git") -> Repo:
    repo = Repo(path)
    repo.write("src/mylib/__init__.py", 'def f(x):\n    raise ValueError(f"bad {x}")\n')
    repo.write("tests/test_f.py", 'def test():\n    raise AssertionError("not documented")\n')
    if remote:
        repo.git("remote", "add", "origin", remote)
    repo.commit()
    return repo


def test_init_writes_settings_workflow_gitignore_and_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = library(tmp_path / "lib")
    assert cli.main(["init", str(repo.path)]) == 0
    out = capsys.readouterr().out
    assert "wrote content/site.toml" in out and "wrote .github/workflows/errors.yml" in out
    settings = tomllib.loads((repo.path / "content" / "site.toml").read_text())
    assert settings == {"title": "mylib error reference", "repo": "acme/mylib", "base_url": "https://acme.github.io/mylib/",
                        "source": {"include": ["src/mylib/**/*.py"], "exclude": [], "ids": "words"}}
    assert (repo.path / ".gitignore").read_text() == "site/\n.errorsite-cache/\n"
    assert (repo.path / ".github/workflows/errors.yml").read_text() == init.workflow("content")
    # Readable URLs from the start: the first record's id is its message's words.
    [record] = (repo.path / "content" / "errors").glob("*.json")
    assert record.name == "bad.json"
    assert '"message": "bad {x}"' in record.read_text()
    assert cli.main(["check", "--content", str(repo.path / "content"), "--source", str(repo.path), "--strict"]) == 0


def test_init_twice_gives_the_same_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = library(tmp_path / "lib")
    assert cli.main(["init", str(repo.path)]) == 0
    first = tree(repo.path)
    assert cli.main(["init", str(repo.path)]) == 0
    assert tree(repo.path) == first
    assert "kept content/site.toml (it exists" in capsys.readouterr().out


def test_init_changes_no_file_that_exists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = library(tmp_path / "lib")
    for name, text in {".gitignore": "*.pyc\n", "content/site.toml": 'title = "Mine"\nrepo = "acme/mylib"\n',
                       ".github/workflows/errors.yml": "name: mine\n"}.items():
        repo.write(name, text)
        os.utime(repo.path / name, ns=(1_000_000_000, 1_000_000_000))
    before = tree(repo.path)
    assert cli.main(["init", str(repo.path)]) == 0
    after = tree(repo.path)
    assert {name: after[name] for name in before} == before
    assert sorted(set(after) - set(before)) == [f"content/errors/{p.name}" for p in (repo.path / "content/errors").iterdir()]
    out = capsys.readouterr().out
    assert "note: add to .gitignore: site/ .errorsite-cache/" in out
    assert out.count("kept ") == 3


def test_without_a_remote_init_says_so_and_writes_no_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = library(tmp_path / "lib", remote=None)
    assert cli.main(["init", str(repo.path), "--content", str(repo.path / "docs" / "errors")]) == 0
    assert "note: the repository has no git remote" in capsys.readouterr().out
    settings = tomllib.loads((repo.path / "docs" / "errors" / "site.toml").read_text())
    assert "repo" not in settings and "base_url" not in settings and settings["title"] == "lib error reference"
    assert 'content: "docs/errors"' in (repo.path / ".github/workflows/errors.yml").read_text()


def test_a_repository_without_commits_gets_settings_and_a_note(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "lib")
    repo.write("mylib/__init__.py", 'raise ValueError("x")\n')
    report = init.init(repo.path)
    assert report.extract is None and any("no commit yet" in note for note in report.notes)
    assert (repo.path / "content" / "site.toml").is_file()


def test_content_outside_the_repository_is_a_user_error(tmp_path: Path) -> None:
    repo = library(tmp_path / "lib")
    with pytest.raises(UserError) as caught:
        init.init(repo.path, tmp_path / "elsewhere")
    assert caught.value.page == "content-outside-repository"
    assert not (tmp_path / "elsewhere").exists()


def test_a_folder_that_is_not_a_repository_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError) as caught:
        init.init(tmp_path)
    assert caught.value.page == "not-a-git-repository"
    assert list(tmp_path.iterdir()) == []
