"""An error's story across release tags: added, reworded, moved, removed, raised again; and a rerun after a new tag."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from test_gitrepo import GIT_ENV, Repo

from errorsite import cli
from errorsite.extract import history, sync

LOADER = '''\
def load(path):
    if not path:
        raise ValueError("path must not be empty")
    raise FileNotFoundError(f"{wording}")
'''

STEADY = '''\
def check(n):
    raise TypeError(f"n must be an int, got {n!r}")
'''

WORDINGS = ("no config file at {path}", "no config file found at {path}", "cannot find the config file at {path}")


def tag(repo: Repo, name: str, files: dict[str, str | None]) -> str:
    """Write (or, for None, delete) files, commit, tag, and return the commit."""
    for path, text in files.items():
        if text is None:
            repo.remove(path)
        else:
            repo.write(path, text)
    commit = repo.commit(f"release {name}")
    repo.git("tag", "-a", name, "-m", name)
    return commit


@pytest.fixture
def story(tmp_path: Path) -> tuple[Repo, dict[str, str]]:
    """Return a repository whose tags add, reword twice, move, remove and re-add one error."""
    repo = Repo(tmp_path / "repo")
    commits = {
        "v1.0": tag(repo, "v1.0", {"pkg/config.py": LOADER.format(wording=WORDINGS[0]), "pkg/steady.py": STEADY}),
        "v1.1": tag(repo, "v1.1", {"pkg/config.py": LOADER.format(wording=WORDINGS[1])}),
        "v1.2": tag(repo, "v1.2", {"README.md": "nothing about errors\n"}),
        "v2.0": tag(repo, "v2.0", {"pkg/config.py": LOADER.format(wording=WORDINGS[2])}),
        "v2.1": tag(repo, "v2.1", {"pkg/config.py": None, "pkg/loading.py": LOADER.format(wording=WORDINGS[2])}),
        "v3.0": tag(repo, "v3.0", {"pkg/loading.py": "def load(path):\n    return path\n"}),
        "v3.1": tag(repo, "v3.1", {"pkg/loading.py": LOADER.format(wording=WORDINGS[2])}),
    }
    repo.git("tag", "not-a-release")  # outside [history] tags: never walked
    return repo, commits


def extract(repo: Repo, content: Path) -> history.HistoryReport:
    sync.run(repo.path, content_dir=content)
    return history.run(repo.path, content)


def by_message(content: Path) -> dict[str, dict]:
    records = [json.loads(p.read_text()) for p in sorted((content / "errors").glob("*.json"))]
    return {r["message"]: r for r in records}


def test_one_error_added_reworded_twice_moved_removed_and_raised_again(story: tuple[Repo, dict[str, str]],
                                                                        tmp_path: Path) -> None:
    repo, commits = story
    report = extract(repo, tmp_path / "content")
    assert (report.tags, report.errors, report.records) == (7, 3, 3)
    loader = by_message(tmp_path / "content")[WORDINGS[2]]
    assert loader["source"]["path"] == "pkg/loading.py"
    assert loader["history"] == [
        {"release": "v1.0", "commit": commits["v1.0"], "change": "added"},
        {"release": "v1.1", "commit": commits["v1.1"], "change": "changed"},
        {"release": "v2.0", "commit": commits["v2.0"], "change": "changed"},
        {"release": "v3.0", "commit": commits["v3.0"], "change": "removed"},
        {"release": "v3.1", "commit": commits["v3.1"], "change": "added"},
    ]
    assert loader["variants"] == [
        {"message": WORDINGS[0], "kind": "earlier", "until": commits["v1.1"]},
        {"message": WORDINGS[1], "kind": "earlier", "until": commits["v2.0"]},
    ]
    steady = by_message(tmp_path / "content")["n must be an int, got {n!r}"]
    assert steady["history"] == [{"release": "v1.0", "commit": commits["v1.0"], "change": "added"}]
    assert "variants" not in steady


def test_a_rerun_after_a_new_tag_scans_only_that_tag(story: tuple[Repo, dict[str, str]], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    repo, commits = story
    content = tmp_path / "content"
    extract(repo, content)
    again = history.run(repo.path, content)
    assert (again.scanned, again.cached, again.written) == (0, 7, 0)
    commits["v3.2"] = tag(repo, "v3.2", {"pkg/loading.py": LOADER.format(wording="cannot find the config file {path}")})
    listed: list[str] = []
    list_tree = history.git.list_tree
    sync.run(repo.path, content_dir=content)
    monkeypatch.setattr(history.git, "list_tree", lambda repo_dir, commit: listed.append(commit) or list_tree(repo_dir, commit))
    after = history.run(repo.path, content)
    assert (after.scanned, after.cached) == (1, 7)
    assert listed == [commits["v3.2"]]  # the new tag alone (git diff, not a listing, says what it renamed)
    loader = by_message(content)["cannot find the config file {path}"]
    assert loader["history"][-1] == {"release": "v3.2", "commit": commits["v3.2"], "change": "changed"}
    assert loader["variants"][-1] == {"message": WORDINGS[2], "kind": "earlier", "until": commits["v3.2"]}
    assert [v["message"] for v in loader["variants"]] == list(WORDINGS)


def test_an_error_no_release_raised_yet_has_no_history(story: tuple[Repo, dict[str, str]], tmp_path: Path) -> None:
    repo, _ = story
    repo.write("pkg/new.py", 'def f():\n    raise KeyError("not released yet")\n')
    repo.commit("unreleased")
    extract(repo, tmp_path / "content")
    assert "history" not in by_message(tmp_path / "content")["not released yet"]


def dated_commit(repo: Repo, date: str) -> None:
    """Commit everything with `date` as its commit date."""
    repo.git("add", "-A")
    env = {**os.environ, **GIT_ENV, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", date],
                   cwd=repo.path, env=env, check=True)


def test_ancestors_come_first_and_a_tag_off_the_main_line_goes_by_its_commit_date(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("a.py", "x = 1\n")
    dated_commit(repo, "2024-01-01T00:00:00+00:00")
    repo.git("tag", "v1.0")
    repo.git("checkout", "-q", "-b", "maintenance")
    repo.write("a.py", "x = 2\n")
    dated_commit(repo, "2024-03-01T00:00:00+00:00")
    repo.git("tag", "v1.0.1")
    repo.git("checkout", "-q", "v1.0")
    repo.write("a.py", "x = 3\n")
    dated_commit(repo, "2024-02-01T00:00:00+00:00")
    repo.git("tag", "v2.0")
    # A clock set wrong: this commit is dated before its parent, and still comes after it.
    repo.write("a.py", "x = 4\n")
    dated_commit(repo, "2023-12-01T00:00:00+00:00")
    repo.git("tag", "v2.1")
    assert [t.name for t in history.release_tags(repo.path, "v*")] == ["v1.0", "v2.0", "v2.1", "v1.0.1"]
    assert [t.name for t in history.release_tags(repo.path, "v2*")] == ["v2.0", "v2.1"]


def test_cli_extract_history_prints_what_it_walked(story: tuple[Repo, dict[str, str]], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = story
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cli.main(["extract", str(repo.path), "--content", str(tmp_path / "content"), "--history"]) == 0
    out = capsys.readouterr().out
    assert "history: 7 release tags (5 scanned, 2 known), 3 errors followed, 3 records with a history, 3 written" in out
    assert list((tmp_path / "xdg" / "errorsite" / "history").glob("*.json"))


def test_a_class_renamed_and_its_message_reworded_in_one_release_is_one_history(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    old = 'class MultiCommand:\n    def check(self):\n        raise RuntimeError("Multi commands in chain mode cannot have optional arguments.")\n'
    new = 'class Group:\n    def check(self):\n        raise RuntimeError("A group in chain mode cannot have optional arguments.")\n'
    first = tag(repo, "v1", {"core.py": old})
    second = tag(repo, "v2", {"core.py": new})
    extract(repo, tmp_path / "content")
    record = by_message(tmp_path / "content")["A group in chain mode cannot have optional arguments."]
    assert record["history"] == [{"release": "v1", "commit": first, "change": "added"},
                                 {"release": "v2", "commit": second, "change": "changed"}]
    assert record["variants"] == [{"message": "Multi commands in chain mode cannot have optional arguments.",
                                   "kind": "earlier", "until": second}]


def test_no_matching_release_tag_is_a_user_error_that_names_the_tags_there_are(
        story: tuple[Repo, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = story
    content = tmp_path / "content"
    extract(repo, content)
    before = {p.name: p.read_bytes() for p in (content / "errors").glob("*.json")}
    (content / "site.toml").write_text('[history]\ntags = "release-*"\n')
    assert cli.main(["extract", str(repo.path), "--content", str(content), "--history"]) == 1
    err = capsys.readouterr().err
    assert f"{repo.path}: no release tag matches [history] tags 'release-*'" in err
    assert "hint: its newest tags are " in err and "errors/no-release-tags/" in err
    assert {p.name: p.read_bytes() for p in (content / "errors").glob("*.json")} == before


def test_a_maintenance_release_dated_after_a_newer_one_is_compared_with_its_own_line(tmp_path: Path) -> None:
    """A fix released on 1.x after 2.0 neither removes 2.0's new error nor adds it again in 2.1."""
    repo = Repo(tmp_path / "repo")
    old = 'def load(path):\n    raise ValueError(f"no config file at {path}")\n'
    new = old + '\n\ndef save(path):\n    raise OSError(f"cannot write the config file {path}")\n'
    repo.write("pkg/config.py", old)
    dated_commit(repo, "2024-01-01T00:00:00+00:00")
    repo.git("tag", "v1.0")
    repo.git("checkout", "-q", "-b", "maintenance")
    repo.write("pkg/config.py", old.replace("no config file at", "no configuration file at"))
    dated_commit(repo, "2024-03-01T00:00:00+00:00")
    repo.git("tag", "v1.0.1")
    repo.git("checkout", "-q", "v1.0")
    repo.write("pkg/config.py", new)
    dated_commit(repo, "2024-02-01T00:00:00+00:00")
    repo.git("tag", "v2.0")
    repo.write("README.md", "2.1\n")
    dated_commit(repo, "2024-04-01T00:00:00+00:00")
    repo.git("tag", "v2.1")
    commits = {t: repo.git("rev-parse", f"{t}^{{commit}}").strip() for t in ("v1.0", "v1.0.1", "v2.0")}
    tags = history.release_tags(repo.path, "v*")
    assert [(t.name, tags[t.base].name if t.base >= 0 else None) for t in tags] == [
        ("v1.0", None), ("v2.0", "v1.0"), ("v1.0.1", "v1.0"), ("v2.1", "v2.0")]
    assert [t.name for t in tags if t.current] == ["v2.1"]
    extract(repo, tmp_path / "content")
    records = by_message(tmp_path / "content")
    assert records["cannot write the config file {path}"]["history"] == [
        {"release": "v2.0", "commit": commits["v2.0"], "change": "added"}]
    # The wording 1.0.1 printed is that release's change, and the main line never printed it.
    assert records["no config file at {path}"]["history"] == [
        {"release": "v1.0", "commit": commits["v1.0"], "change": "added"},
        {"release": "v1.0.1", "commit": commits["v1.0.1"], "change": "changed"}]


def test_a_release_line_merged_forward_is_compared_with_its_own_last_release(tmp_path: Path) -> None:
    """5.x merges 4.x (whose tag the walk places later by date): 5.x is compared with 5.0, not with 4.x."""
    repo = Repo(tmp_path / "repo")
    repo.write("pkg/a.py", 'def f():\n    raise ValueError("one")\n')
    dated_commit(repo, "2024-01-01T00:00:00+00:00")
    repo.git("tag", "v4.0")
    repo.git("branch", "4.x")
    for day in ("05", "10", "15"):  # the main line moves on more than the maintenance line does
        repo.write("CHANGES", f"work of January {day}\n")
        dated_commit(repo, f"2024-01-{day}T00:00:00+00:00")
    repo.write("pkg/a.py", 'def f():\n    raise ValueError("one")\n\n\ndef g():\n    raise ValueError("two")\n')
    dated_commit(repo, "2024-02-01T00:00:00+00:00")
    repo.git("tag", "v5.0")
    repo.git("checkout", "-q", "4.x")
    repo.write("NOTES", "a fix\n")
    dated_commit(repo, "2024-03-01T00:00:00+00:00")
    repo.git("tag", "v4.x")
    repo.git("checkout", "-q", "-b", "5.x", "v5.0")
    repo.git("merge", "-q", "--no-edit", "v4.x")
    repo.write("NOTES", "a fix, merged\n")
    dated_commit(repo, "2024-04-01T00:00:00+00:00")
    repo.git("tag", "v5.x")
    tags = history.release_tags(repo.path, "v*")
    assert [(t.name, tags[t.base].name if t.base >= 0 else None) for t in tags] == [
        ("v4.0", None), ("v5.0", "v4.0"), ("v4.x", "v4.0"), ("v5.x", "v5.0")]
    extract(repo, tmp_path / "content")
    assert [h["release"] for h in by_message(tmp_path / "content")["two"]["history"]] == ["v5.0"]


def test_a_rewording_of_the_code_inside_placeholders_alone_is_a_change_not_a_removal(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    before = 'def parse(ctx, args):\n    raise RuntimeError("Got unexpected extra argument{} ({})".format(s, " ".join(args)))\n'
    after = ('def parse(ctx, args):\n    raise RuntimeError(\n        "Got unexpected extra"\n'
             '        f" argument{\'s\' if len(args) != 1 else \'\'}"\n        f" ({\' \'.join(map(str, args))})"\n    )\n')
    first = tag(repo, "v1", {"cli.py": before})
    second = tag(repo, "v2", {"cli.py": after})
    extract(repo, tmp_path / "content")
    records = [json.loads(p.read_text()) for p in (tmp_path / "content" / "errors").glob("*.json")]
    assert len(records) == 1
    assert records[0]["history"] == [{"release": "v1", "commit": first, "change": "added"},
                                     {"release": "v2", "commit": second, "change": "changed"}]


def test_a_package_moved_into_src_keeps_the_releases_before_the_move(tmp_path: Path) -> None:
    """[source] include names today's layout (src/pkg/...); a release before the move read pkg/... and raised the same errors."""
    repo = Repo(tmp_path / "repo")
    # Enough lines alike for git to see a rename (half of the file, by default).
    old = '"""Reading the configuration."""\n\nimport os\n\n\ndef load(path):\n    raise ValueError(f"no config file at {path}")\n'
    legacy = 'def convert(path):\n    raise RuntimeError("legacy configuration files are not read any more")\n'
    oldest = tag(repo, "v0.9", {"pkg/legacy.py": legacy})
    # The raise moves from a file that is gone before the package moves, and still has its first release.
    first = tag(repo, "v1.0", {"pkg/config.py": old + "\n\n" + legacy, "pkg/legacy.py": None,
                               "pkg/tests/test_config.py": 'raise KeyError("a test")\n'})
    second = tag(repo, "v2.0", {"pkg/config.py": None, "src/pkg/config.py": old.replace("at {path}", "found at {path}") + "\n\n" + legacy,
                                "pkg/tests/test_config.py": None, "src/pkg/tests/test_config.py": 'raise KeyError("a test")\n'})
    repo.write("src/pkg/extra.py", 'def f():\n    raise OSError("unreleased")\n')
    repo.commit("after the release")
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.toml").write_text('[source]\ninclude = ["src/pkg/**/*.py"]\n')
    extract(repo, content)
    records = by_message(content)
    assert set(records) == {"no config file found at {path}", "legacy configuration files are not read any more",
                            "unreleased"}  # the tests stay out, before the move too
    assert records["legacy configuration files are not read any more"]["history"] == [
        {"release": "v0.9", "commit": oldest, "change": "added"}]
    assert records["no config file found at {path}"]["history"] == [
        {"release": "v1.0", "commit": first, "change": "added"},
        {"release": "v2.0", "commit": second, "change": "changed"}]
    assert records["no config file found at {path}"]["variants"] == [
        {"message": "no config file at {path}", "kind": "earlier", "until": second}]


def test_a_package_moved_after_the_last_release_keeps_its_releases(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    first = tag(repo, "v1.0", {"pkg/config.py": 'def load(path):\n    raise ValueError(f"no config file at {path}")\n'})
    repo.git("mv", "pkg", "src")
    repo.commit("src layout")
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.toml").write_text('[source]\ninclude = ["src/**/*.py"]\n')
    extract(repo, content)
    assert by_message(content)["no config file at {path}"]["history"] == [
        {"release": "v1.0", "commit": first, "change": "added"}]


def test_a_release_tagged_beside_the_main_line_before_the_package_moved_reads_its_files(tmp_path: Path) -> None:
    """click 0.6 and 0.7 were tagged on commits 1.0 does not descend from: they raise what 0.5.1 did, from click/."""
    repo = Repo(tmp_path / "repo")
    code = '"""Commands."""\n\nimport sys\n\n\ndef name(cmd):\n    raise TypeError("Command has no name.")\n'
    first = tag(repo, "v1.0", {"pkg/core.py": code})
    repo.git("checkout", "-q", "-b", "release")
    tag(repo, "v1.1", {"pkg/VERSION": "1.1\n"})
    repo.git("checkout", "-q", "-")
    repo.git("mv", "pkg", "src")
    repo.commit("src layout")
    repo.git("tag", "v2.0")
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.toml").write_text('[source]\ninclude = ["src/**/*.py"]\n')
    extract(repo, content)
    assert [t.name for t in history.release_tags(repo.path, "v*") if t.base >= 0] == ["v1.1", "v2.0"]
    assert by_message(content)["Command has no name."]["history"] == [
        {"release": "v1.0", "commit": first, "change": "added"}]


def test_two_releases_beside_each_other_that_bring_the_same_error_tell_it_once(tmp_path: Path) -> None:
    """click 0.7 was tagged on a commit 1.0 does not descend from; both are compared with 0.5.1 and bring the same changes."""
    repo = Repo(tmp_path / "repo")
    base = tag(repo, "v0.5", {"pkg/core.py": 'def run():\n    raise RuntimeError("Missing command")\n'})
    changed = ('def run():\n    raise RuntimeError("Missing command.")\n\n\n'
               'def stream(name):\n    raise TypeError(f"Unknown standard stream {name!r}")\n')
    repo.git("checkout", "-q", "-b", "release")
    side = tag(repo, "v0.7", {"pkg/core.py": changed, "VERSION": "0.7\n"})
    repo.git("checkout", "-q", "-")
    repo.write("pkg/core.py", changed)
    repo.commit("the same changes on the main line")
    later = tag(repo, "v1.0", {"NEWS": "1.0\n"})
    assert [(t.name, t.base) for t in history.release_tags(repo.path, "v*")] == [("v0.5", -1), ("v0.7", 0), ("v1.0", 0)]
    extract(repo, tmp_path / "content")
    records = by_message(tmp_path / "content")
    assert records["Unknown standard stream {name!r}"]["history"] == [{"release": "v0.7", "commit": side, "change": "added"}]
    assert records["Missing command."]["history"] == [{"release": "v0.5", "commit": base, "change": "added"},
                                                      {"release": "v0.7", "commit": side, "change": "changed"}]
    assert records["Missing command."]["variants"] == [{"message": "Missing command", "kind": "earlier", "until": side}]
    assert later


def test_a_record_left_behind_by_a_class_renamed_and_reworded_in_one_step_is_gone_from_that_release(tmp_path: Path) -> None:
    """Re-pinning at v2 gives the reworded raise a new record and marks the old one removed; the walk follows one error."""
    repo = Repo(tmp_path / "repo")
    old = 'class MultiCommand:\n    def check(self):\n        raise RuntimeError("Multi commands in chain mode cannot have optional arguments.")\n'
    new = 'class Group:\n    def check(self):\n        raise RuntimeError("A group in chain mode cannot have optional arguments.")\n'
    first = tag(repo, "v1", {"core.py": old})
    content = tmp_path / "content"
    sync.run(repo.path, content_dir=content)
    second = tag(repo, "v2", {"core.py": new})
    extract(repo, content)
    records = by_message(content)
    gone = records["Multi commands in chain mode cannot have optional arguments."]
    assert gone["status"] == "removed"
    assert gone["history"] == [{"release": "v1", "commit": first, "change": "added"},
                               {"release": "v2", "commit": second, "change": "removed"}]
    assert records["A group in chain mode cannot have optional arguments."]["history"][-1]["change"] == "changed"


class Counted(dict):  # type: ignore[type-arg]
    """A dict that counts its look-ups."""

    reads = 0

    def __getitem__(self, key: object) -> object:
        Counted.reads += 1
        return super().__getitem__(key)


def test_finding_each_tags_base_grows_with_the_tags_below_it_not_their_pairs() -> None:
    # 2,000 tags on one line did not finish in minutes: each tag compared every pair of the tags below it.
    n = 300
    commits = [f"{i:040x}" for i in range(n)]
    index = {c: i for i, c in enumerate(commits)}
    below = Counted({c: (1 << i) - 1 for i, c in enumerate(commits)})
    ancestry = history.Ancestry(below, (1 << n) - 1, {c: [commits[i - 1]] if i else [] for i, c in enumerate(commits)})
    ordered = [history.Tag(f"v{i}", c, i) for i, c in enumerate(commits)]
    Counted.reads = 0
    based = history._with_bases(ordered, ancestry, index, commits[-1])
    assert [t.base for t in based] == [-1, *range(n - 1)] and based[-1].current
    assert Counted.reads <= n * n  # the pairs' way read it about n³ / 6 times
