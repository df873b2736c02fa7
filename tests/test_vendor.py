"""`errorsite vendor` writes only inside the library's repository, and replaces only what it wrote."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from errorsite import cli, link

HELPER = Path(link.__file__).read_bytes()


def git_repository(folder: Path) -> Path:
    """Return `folder`, made a git repository with a package `src/mylib`."""
    (folder / "src" / "mylib").mkdir(parents=True)
    (folder / "src" / "mylib" / "__init__.py").write_text("VERSION = 1\n")
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def vendor(folder: Path | str, content: Path) -> int:
    return cli.main(["vendor", str(folder), "--content", str(content)])


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_parent_linked_outside_the_repository_is_refused_and_nothing_is_written(
        content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The Action's form: a relative folder, run in a pull request's checkout whose `src/mylib` is a link.
    repo = git_repository(tmp_path / "repo")
    outside = tmp_path / "home" / ".config"
    outside.mkdir(parents=True)
    (repo / "src" / "mylib" / "__init__.py").unlink()
    (repo / "src" / "mylib").rmdir()
    os.symlink(outside, repo / "src" / "mylib")
    monkeypatch.chdir(repo)
    assert vendor("src/mylib/_errorsite", content) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: refusing to vendor the link helper into 'src/mylib/_errorsite': "
                          f"'src/mylib' leads to {str(outside)!r}, outside the repository {str(repo)!r}\n")
    assert "errors/vendor-outside-repository/" in err
    assert files_under(tmp_path / "home") == [".config"]


def test_a_parent_linked_into_another_repository_is_refused(content: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    # The link leads to a folder that holds `.git`: that repository is not the one the checkout is.
    repo = git_repository(tmp_path / "repo")
    other = git_repository(tmp_path / "other")
    os.symlink(other / "src", repo / "lib")
    assert vendor(repo / "lib" / "mylib" / "_errorsite", content) == 1
    assert "errors/vendor-outside-repository/" in capsys.readouterr().err
    assert files_under(other / "src") == ["mylib", "mylib/__init__.py"]


def test_outside_a_repository_no_folder_on_the_way_may_be_a_link(content: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "pkg")
    assert vendor(tmp_path / "pkg" / "_errorsite", content) == 1
    err = capsys.readouterr().err
    assert "and it is in no git repository" in err and "errors/vendor-outside-repository/" in err
    assert files_under(tmp_path / "elsewhere") == []


def test_a_link_that_stays_inside_the_repository_is_followed(content: Path, tmp_path: Path) -> None:
    repo = git_repository(tmp_path / "repo")
    os.symlink("src", repo / "lib")
    assert vendor(repo / "lib" / "mylib" / "_errorsite", content) == 0
    assert (repo / "src" / "mylib" / "_errorsite" / "__init__.py").read_bytes() == HELPER
    assert (repo / "src" / "mylib" / "_errorsite" / "patterns.bin").is_file()


def test_the_packages_own_init_that_names_the_opt_out_variable_is_not_replaced(
        content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = tmp_path / "src" / "mylib"
    package.mkdir(parents=True)
    mine = 'import os\n\nLINKS = os.environ.get("ERRORSITE_NO_LINKS", "") in ("", "0")\n'
    for text in (mine, "# errorsite link helper: my notes on it\nimport os\n",
                 "# errorsite link helper: prints the URL of an error's reference page. Not.\n"):
        (package / "__init__.py").write_text(text)
        assert vendor(package, content) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"error: refusing to vendor the link helper: {str(package / '__init__.py')!r} is not"
                              " errorsite's link helper (its first line is not the helper's), and vendor replaces"
                              " only what it wrote\n  hint: vendor into a folder of its own inside the package,")
        assert f"delete {str(package / '__init__.py')!r} and run vendor again" in err
        assert "errors/vendor-not-ours/" in err
        assert (package / "__init__.py").read_text() == text and not (package / "patterns.bin").exists()


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_an_older_copy_of_the_helper_is_replaced(content: Path, tmp_path: Path, end: bytes) -> None:
    folder = tmp_path / "src" / "mylib" / "_errorsite"
    folder.mkdir(parents=True)
    first = HELPER.split(b"\n", 1)[0]
    (folder / "__init__.py").write_bytes(first + end + b"# an older version\nOPT_OUT = 'ERRORSITE_NO_LINKS'\n")
    assert vendor(folder, content) == 0
    assert (folder / "__init__.py").read_bytes() == HELPER


def test_a_special_file_in_the_helpers_place_is_not_read(content: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "_errorsite"
    folder.mkdir()
    os.mkfifo(folder / "__init__.py")
    assert vendor(folder, content) == 1
    assert "errors/vendor-not-ours/" in capsys.readouterr().err
