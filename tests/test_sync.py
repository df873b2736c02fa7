"""Keeping records current across commits: ids, prose, pins, status, and byte-stable output."""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from pathlib import Path

import pytest
from test_gitrepo import Repo

from errorsite import load, validate
from errorsite.extract import sync
from errorsite.problems import ProblemsFound, UserError
from errorsite.recordjson import dumps

REPO = "owner/name"

PROSE = {
    "title": "A hand-written title",
    "meaning": "What it *means*, with `code` and --flags.",
    "solutions": ["First fix.", "Second fix."],
    "example_fix": {"before": "old", "after": "new"},
    "when": {"trigger": "When it happens."},
    "related": [],
    "tags": ["config"],
    "analysis": {"by": "human", "date": "2024-01-02"},
}

V1 = {
    "pkg/config.py": '''\
"""Config."""


class Loader:
    def load(self, path):
        if not path:
            raise ValueError("path must not be empty")
        raise FileNotFoundError(f"no config at {path!r}")

    def parse(self, text):
        raise SyntaxError("cannot parse the config file, check its syntax")


def legacy(x):
    raise RuntimeError("legacy mode is gone")
''',
    "pkg/util.py": '''\
def helper(n):
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return n
''',
}

V2 = {
    "pkg/config.py": '''\
"""Config, now with a header that moves every line down."""

import os


class Loader:
    def load(self, path):
        if not path:
            raise ValueError("path must not be empty")
        raise FileNotFoundError(f"no config at {path!r}")

    def parse_text(self, text):
        raise SyntaxError("cannot parse the config file, check its syntax")

    def validate(self, data):
        raise KeyError(f"unknown key {data!r}")
''',
    "pkg/util.py": '''\
def helper(n):
    if n < 0:
        raise ValueError(f"n must be zero or more, got {n}")
    return n


def legacy(x):
    raise RuntimeError("legacy mode is gone")
''',
}


def ids_by_message(content: Path) -> dict[str, str]:
    """Return record id by message, for every record in `content`."""
    return {r["message"]: r["id"] for r in records(content).values()}


def records(content: Path) -> dict[str, dict]:
    """Return every record in `content` by id."""
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted((content / "errors").glob("*.json"))}


def snapshot_files(content: Path) -> dict[str, tuple[bytes, int]]:
    """Return (bytes, mtime in ns) of every record file."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in (content / "errors").glob("*.json")}


def age_files(content: Path) -> None:
    """Set every record file's mtime far in the past, so that any rewrite shows."""
    for path in (content / "errors").glob("*.json"):
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))


def add_prose(content: Path, record_id: str) -> None:
    """Write hand-made prose into one record file, as a maintainer would."""
    path = content / "errors" / f"{record_id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(dumps({**data, **PROSE, "title": f"Title of {record_id}"}), encoding="utf-8")


def run(repo: Repo, content: Path, rev: str = "HEAD") -> sync.ExtractReport:
    """Run extract on `repo` at `rev` into `content`."""
    return sync.run(repo.path, rev, REPO, content, [], [], False)


@pytest.fixture
def history(tmp_path: Path) -> tuple[Repo, str, str]:
    """Return a repository with two commits (V1, V2) and their ids."""
    repo = Repo(tmp_path / "repo")
    for name, text in V1.items():
        repo.write(name, text)
    first = repo.commit("v1")
    for name, text in V2.items():
        repo.write(name, text)
    second = repo.commit("v2")
    return repo, first, second


def test_records_follow_the_code_and_keep_prose(history: tuple[Repo, str, str], tmp_path: Path) -> None:
    repo, first, second = history
    content = tmp_path / "content"
    report = run(repo, content, first)
    assert len(report.added) == 5
    before = ids_by_message(content)
    for record_id in before.values():
        add_prose(content, record_id)

    report = run(repo, content, second)
    after = records(content)
    by_id = {c.id: c for c in report.repinned + report.changed + report.removed + report.added}

    empty = after[before["path must not be empty"]]
    assert empty["source"] == {
        "repo": REPO, "commit": second, "path": "pkg/config.py", "line": 9, "function": "Loader.load",
        "snippet": {"start": 7, "code": "\n".join(V2["pkg/config.py"].splitlines()[6:10])},
        "guard": ["not path"], "names": {"path": {"path": "pkg/config.py", "line": 7, "kind": "parameter"}},
    }
    assert by_id[empty["id"]] in report.repinned

    renamed = after[before["cannot parse the config file, check its syntax"]]
    assert (renamed["source"]["function"], renamed["source"]["line"]) == ("Loader.parse_text", 13)
    assert "moved from pkg/config.py:Loader.parse" in by_id[renamed["id"]].note

    moved = after[before["legacy mode is gone"]]
    assert (moved["source"]["path"], moved["source"]["function"], moved["source"]["line"]) == ("pkg/util.py", "legacy", 8)
    assert by_id[moved["id"]] in report.changed

    edited = after[before["n must be >= 0, got {n}"]]
    assert edited["message"] == "n must be zero or more, got {n}"
    assert by_id[edited["id"]].note == "message edited; review: message changed"
    assert edited["variants"] == [{"message": "n must be >= 0, got {n}", "kind": "earlier", "until": second}]
    assert edited["review"] == {"since": second, "why": "message changed"}
    assert renamed["review"] == {"since": second, "why": "moved"}
    assert moved["review"] == {"since": second, "why": "moved"}
    assert "review" not in empty and "variants" not in empty

    for record_id in before.values():
        record = after[record_id]
        assert {k: record[k] for k in PROSE if k != "title"} == {k: v for k, v in PROSE.items() if k != "title"}
        assert record["title"] == f"Title of {record_id}"
        assert record["id"] == record_id

    [added] = report.added
    new = after[added.id]
    assert (new["message"], new["exception"], new["source"]["line"]) == ("unknown key {data!r}", "KeyError", 16)
    assert new["id"] == hashlib.sha256(
        f"{REPO}\npkg/config.py\nLoader.validate\nKeyError\nunknown key {{data!r}}".encode()).hexdigest()[:16]
    assert "title" not in new
    assert {r["source"]["commit"] for r in after.values()} == {second}
    assert all("status" not in r for r in after.values())
    assert (len(report.repinned), len(report.changed), len(report.removed), report.total) == (2, 3, 0, 6)


def test_deleted_raise_is_marked_removed_and_restored_when_it_returns(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f():\n    raise ValueError("stays")\n\ndef g():\n    raise KeyError("goes away")\n')
    first = repo.commit()
    repo.write("m.py", 'def f():\n    raise ValueError("stays")\n')
    second = repo.commit()
    content = tmp_path / "content"
    run(repo, content, first)
    gone = ids_by_message(content)["goes away"]
    add_prose(content, gone)

    report = run(repo, content, second)
    assert [c.id for c in report.removed] == [gone]
    record = records(content)[gone]
    assert record["status"] == "removed"
    assert record["source"]["commit"] == first
    assert record["meaning"] == PROSE["meaning"]
    assert "marked removed 1" in report.summary()

    age_files(content)
    again = run(repo, content, second)
    assert again.removed == () and len(again.unchanged) == 2
    assert all(mtime == 1_000_000_000 for _, mtime in snapshot_files(content).values())

    back = run(repo, content, first)
    assert [(c.id, c.note) for c in back.changed] == [(gone, "restored, was removed")]
    record = records(content)[gone]
    assert (record.get("status"), record["source"]["commit"], record["meaning"]) == (None, first, PROSE["meaning"])


def test_rerun_rewrites_nothing_and_round_trip_keeps_ids_and_prose(
    history: tuple[Repo, str, str], tmp_path: Path,
) -> None:
    repo, first, second = history
    content = tmp_path / "content"
    run(repo, content, first)
    for record_id in ids_by_message(content).values():
        add_prose(content, record_id)
    run(repo, content, second)
    at_second = snapshot_files(content)

    age_files(content)
    aged = snapshot_files(content)
    report = run(repo, content, second)
    assert report.added == report.repinned == report.changed == report.removed == ()
    assert snapshot_files(content) == aged

    run(repo, content, first)
    run(repo, content, second)
    assert {name: data for name, (data, _) in snapshot_files(content).items()} == {
        name: data for name, (data, _) in at_second.items()}


def test_identical_sites_get_distinct_deterministic_ids(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    source = 'def f(x):\n    if x:\n        raise ValueError("twice")\n    raise ValueError("twice")\n'
    repo.write("m.py", source)
    repo.commit()
    ids = []
    for name in ("one", "two"):
        report = run(repo, tmp_path / name)
        ids.append([(c.line, c.id) for c in report.added])
    assert ids[0] == ids[1]
    base = f"{REPO}\nm.py\nf\nValueError\ntwice"
    assert ids[0] == [(3, hashlib.sha256(base.encode()).hexdigest()[:16]),
                      (4, hashlib.sha256(f"{base}\n2".encode()).hexdigest()[:16])]


def test_an_id_held_by_another_record_is_never_reused(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f():\n    raise ValueError("v")\n')
    repo.commit()
    base = f"{REPO}\nm.py\nf\nValueError\nv"
    squatter = hashlib.sha256(base.encode()).hexdigest()[:16]
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    old = {"id": squatter, "exception": "OSError", "message": "retired", "status": "removed",
           "source": {"repo": REPO, "commit": "a" * 40, "path": "old.py", "line": 1,
                      "snippet": {"start": 1, "code": "x"}}}
    (content / "errors" / f"{squatter}.json").write_text(dumps(old), encoding="utf-8")
    [added] = run(repo, content).added
    assert added.id == hashlib.sha256(f"{base}\n2".encode()).hexdigest()[:16]
    assert records(content)[squatter] == old


def test_message_linking_to_its_page_keeps_that_id(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f(p):\n'
               '    raise ValueError(f"bad {p}; see https://x.github.io/y/errors/bad-path/")\n'
               '    raise KeyError("see docs/errors/no-key for help")\n'
               '    raise OSError("log written to /var/errors/app.log")\n')
    repo.commit()
    content = tmp_path / "content"
    run(repo, content)
    by_message = ids_by_message(content)
    assert by_message["bad {p}; see https://x.github.io/y/errors/bad-path/"] == "bad-path"
    assert by_message["see docs/errors/no-key for help"] == "no-key"
    assert len(by_message["log written to /var/errors/app.log"]) == 16


def test_other_repositories_and_unknown_fields_are_left_alone(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f():\n    raise ValueError("v")\n')
    repo.commit()
    content = tmp_path / "content"
    run(repo, content)
    [mine] = records(content).values()
    path = content / "errors" / f"{mine['id']}.json"
    path.write_text(json.dumps({**mine, "x-custom": {"keep": True}}, indent=4), encoding="utf-8")
    foreign = {**mine, "id": "foreign", "source": {**mine["source"], "repo": "other/repo", "path": "gone.py"}}
    foreign_text = json.dumps(foreign, indent=3)
    (content / "errors" / "foreign.json").write_text(foreign_text, encoding="utf-8")

    mine_text = path.read_text(encoding="utf-8")
    report = run(repo, content)
    assert report.total == 1
    assert (content / "errors" / "foreign.json").read_text(encoding="utf-8") == foreign_text
    assert path.read_text(encoding="utf-8") == mine_text

    repo.write("m.py", 'def f():\n    x = 1\n    raise ValueError("v")\n')
    repo.commit()
    run(repo, content)
    assert json.loads(path.read_text(encoding="utf-8"))["x-custom"] == {"keep": True}
    # Only the pin's lines change; the person's four-space layout stays.
    changed = [line for line in difflib.ndiff(mine_text.splitlines(), path.read_text(encoding="utf-8").splitlines())
               if line.startswith(("-", "+"))]
    assert sorted(line.split(":")[0].strip("-+ ") for line in changed) == [
        '"code"', '"code"', '"commit"', '"commit"', '"line"', '"line"']


def test_site_toml_repo_is_the_default_owner(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'raise ValueError("v")\n')
    repo.commit()
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.toml").write_text('repo = "owner/name"\n', encoding="utf-8")
    report = sync.run(repo.path, "HEAD", None, content, [], [], False)
    [record] = records(content).values()
    assert "repo" not in record["source"]
    assert record["id"] == hashlib.sha256(f"{REPO}\nm.py\n\nValueError\nv".encode()).hexdigest()[:16]
    assert len(report.added) == 1
    assert len(run(repo, content).unchanged) == 1


def test_broken_record_file_stops_the_run(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'raise ValueError("v")\n')
    repo.commit()
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    (content / "errors" / "bad.json").write_text('{"id": "bad",\n  oops}', encoding="utf-8")
    with pytest.raises(ProblemsFound) as caught:
        run(repo, content)
    [problem] = caught.value.problems
    assert (problem.file, problem.page) == (str(content / "errors" / "bad.json") + ":2:3", "invalid-json")
    assert sorted(p.name for p in (content / "errors").iterdir()) == ["bad.json"]


def test_a_record_with_a_byte_order_mark_passes_extract_as_it_passes_check(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'raise ValueError("v")\n')
    repo.commit()
    content = tmp_path / "content"
    run(repo, content)
    [path] = (content / "errors").glob("*.json")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    marked = path.read_bytes()
    assert [r.id for r in validate.build_site(load.load(content)).records] == [path.stem]
    report = run(repo, content)
    assert [c.id for c in report.unchanged] == [path.stem] and not report.added and not report.removed
    assert path.read_bytes() == marked


@pytest.mark.parametrize("errors_folder", [True, False])
def test_a_broken_site_toml_is_the_problem_check_reports(tmp_path: Path, errors_folder: bool) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'raise ValueError("v")\n')
    repo.commit()
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    (content / "site.toml").write_text('title = "x"\nbase_url = \n', encoding="utf-8")
    checked = [(p.file, p.pointer, p.page) for p in load.load(content).problems]
    if not errors_folder:
        (content / "errors").rmdir()
    with pytest.raises(ProblemsFound) as caught:
        run(repo, content)
    assert [(p.file, p.pointer, p.page) for p in caught.value.problems] == checked
    assert checked == [(str(content / "site.toml"), "", "invalid-toml")]
    assert not (content / "errors").exists() or not any((content / "errors").iterdir())


def test_bad_repo_name_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError) as caught:
        sync.run(tmp_path, "HEAD", "not a repo name", tmp_path / "content", [], [], False)
    assert caught.value.page == "invalid-repo-name"


def test_report_lines_name_each_change(history: tuple[Repo, str, str], tmp_path: Path) -> None:
    repo, first, second = history
    content = tmp_path / "content"
    run(repo, content, first)
    lines = run(repo, content, second).lines()
    assert lines[-1].startswith("added 1, re-pinned 2, changed 3, marked removed 0, unchanged 0; total 6 records")
    assert any(line.startswith("added ") and line.endswith("pkg/config.py:16") for line in lines)
    assert any(line.startswith("changed ") and line.endswith("pkg/util.py:3 (message edited)") for line in lines)


def test_edited_messages_pair_by_similarity_one_to_one(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f():\n    raise ValueError("the width must be positive")\n'
               '    raise ValueError("the height must be positive")\n')
    first = repo.commit()
    repo.write("m.py", 'def f():\n    raise ValueError("the height must be a positive number")\n'
               '    raise ValueError("something else entirely, unrelated")\n')
    second = repo.commit()
    content = tmp_path / "content"
    run(repo, content, first)
    before = ids_by_message(content)
    report = run(repo, content, second)
    after = ids_by_message(content)
    assert after["the height must be a positive number"] == before["the height must be positive"]
    assert [c.id for c in report.removed] == [before["the width must be positive"]]
    assert [c.line for c in report.added] == [3]


def test_identical_raises_keep_their_records_when_code_shifts_and_round_trips(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    two = 'def f(x):\n    if x:\n        raise ValueError("same")\n    raise ValueError("same")\n'
    repo.write("m.py", two)
    first = repo.commit()
    repo.write("m.py", "import os\nimport sys\n\n\n" + two)
    shifted = repo.commit()
    repo.write("m.py", "import os\n\n\ndef f(x):\n    y = x\n    raise ValueError(\"same\")\n")
    one_left = repo.commit()
    content = tmp_path / "content"
    run(repo, content, first)
    upper, lower = (c.id for c in run(repo, content, first).unchanged)

    report = run(repo, content, shifted)
    assert [(c.id, c.line) for c in report.repinned] == [(upper, 7), (lower, 8)]

    run(repo, content, one_left)
    run(repo, content, first)
    assert {r["id"]: r["source"]["line"] for r in records(content).values()} == {upper: 3, lower: 4}
    at_first = file_bytes(content)
    run(repo, content, one_left)
    at_one_left = file_bytes(content)
    assert sorted(r.get("status", "active") for r in records(content).values()) == ["active", "removed"]
    for rev, expected in [(first, at_first), (one_left, at_one_left), (first, at_first)]:
        run(repo, content, rev)
        assert file_bytes(content) == expected


def file_bytes(content: Path) -> dict[str, bytes]:
    """Return the bytes of every record file."""
    return {name: data for name, (data, _) in snapshot_files(content).items()}


def test_commits_that_touch_no_record_move_no_pin(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f():\n    raise ValueError("one")\n\n\ndef g():\n    raise KeyError("two")\n')
    first = repo.commit()
    content = tmp_path / "content"
    run(repo, content)
    age_files(content)
    before = snapshot_files(content)
    repo.write("other.py", "x = 1\n")
    repo.commit()
    repo.write("m.py", 'def f():\n    raise ValueError("one")\n\n\ndef g():\n    y = 2\n    raise KeyError("two")\n')
    third = repo.commit()

    report = run(repo, content)
    assert [c.id for c in report.unchanged] == [ids_by_message(content)["one"]]
    assert len(report.repinned) == 1
    pins = {r["message"]: r["source"]["commit"] for r in records(content).values()}
    assert pins == {"one": first, "two": third}
    after = snapshot_files(content)
    unchanged = f"{ids_by_message(content)['one']}.json"
    assert after[unchanged] == before[unchanged]


def test_a_pin_rebased_away_is_repinned_with_the_commits_extract_wrote(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f():\n    raise ValueError("one")\n')
    repo.commit()
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("n.py", 'def g():\n    raise KeyError("two")\n')
    feature = repo.commit()
    content = tmp_path / "content"
    run(repo, content)
    record_id = ids_by_message(content)["two"]
    add_prose(content, record_id)
    # As extract writes them when a message is edited on the branch: at the pin's commit.
    path = content / "errors" / f"{record_id}.json"
    earlier = {"message": "old two", "kind": "earlier", "until": feature}
    path.write_text(dumps({**records(content)[record_id], "review": {"since": feature, "why": "message changed"},
                           "variants": [earlier, {"message": "twos", "kind": "plural"}]}), encoding="utf-8")
    repo.git("checkout", "-q", "-")
    repo.write("n.py", 'def g():\n    raise KeyError("two")\n')
    rebased = repo.commit("the same change, rebased")

    report = run(repo, content)
    assert len(report.repinned) == 2
    assert [c.note for c in report.repinned] == [f"pinned commit {feature[:12]} is not in the history"] * 2
    assert {r["source"]["commit"] for r in records(content).values()} == {rebased}
    record = records(content)[record_id]
    assert record["source"]["commit"] == rebased
    assert record["review"] == {"since": rebased, "why": "message changed"} and record["meaning"] == PROSE["meaning"]
    assert record["variants"] == [{**earlier, "until": rebased}, {"message": "twos", "kind": "plural"}]
    age_files(content)
    aged = snapshot_files(content)
    assert run(repo, content).repinned == ()
    assert snapshot_files(content) == aged


def test_edited_message_keeps_its_old_wording_and_other_variants(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f(n):\n    raise ValueError(f"bad count {n}")\n')
    repo.commit()
    content = tmp_path / "content"
    run(repo, content)
    [record_id] = ids_by_message(content).values()
    plural = {"message": "bad counts {n}", "kind": "plural"}
    path = content / "errors" / f"{record_id}.json"
    analysis = {"by": "human", "date": "2026-12-01", "commit": "abc1234"}
    path.write_text(dumps({**records(content)[record_id], "variants": [plural], "meaning": "Prose.", "analysis": analysis}),
                    encoding="utf-8")
    repo.write("m.py", 'def f(n):\n    raise ValueError(f"bad count: {n}")\n')
    second = repo.commit()
    run(repo, content)
    record = records(content)[record_id]
    assert record["variants"] == [plural, {"message": "bad count {n}", "kind": "earlier", "until": second}]
    assert record["review"] == {"since": second, "why": "message changed"}

    repo.write("m.py", 'def f(n):\n    y = n\n    raise ValueError(f"bad count {n}")\n')
    third = repo.commit()
    run(repo, content)
    record = records(content)[record_id]
    assert record["message"] == "bad count {n}"
    assert record["variants"] == [plural, {"message": "bad count: {n}", "kind": "earlier", "until": third}]
    assert record["review"] == {"since": second, "why": "message changed"}
    assert record["meaning"] == "Prose."
    assert record["analysis"] == analysis


def test_a_record_whose_pin_is_not_a_commit_id_is_repinned(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f():\n    raise ValueError("one")\n\n\ndef g():\n    raise KeyError("two")\n')
    head = repo.commit()
    content = tmp_path / "content"
    run(repo, content)
    for record_id, pin in zip(sorted(records(content)), (12345, "not\na commit")):
        path = content / "errors" / f"{record_id}.json"
        data = records(content)[record_id]
        path.write_text(dumps({**data, "source": {**data["source"], "commit": pin}}), encoding="utf-8")
    report = run(repo, content)
    assert len(report.repinned) == 2
    assert {r["source"]["commit"] for r in records(content).values()} == {head}


def test_words_ids_read_like_the_message_and_add_a_short_hash_only_on_collision(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f(x, n):\n'
               '    raise ValueError(f"Invalid version: {x!r}")\n'
               '    raise KeyError("Invalid version: %s" % n)\n'
               '    raise TypeError(f"{x}")\n'
               '    raise OSError("Le fichier n\'a pas été trouvé dans le dossier indiqué, vérifiez le chemin")\n'
               '    raise RuntimeError(f"can\'t freeze {x}: it\'s \'frozen\' already")\n')
    repo.commit()
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.toml").write_text('[source]\nids = "words"\n\n[redirects]\ngone-now = "invalid-version"\n')
    (content / "errors").mkdir()
    report = run(repo, content)
    by_line = {c.line: c.id for c in report.added}
    base = f"{REPO}\nm.py\nf\nKeyError\nInvalid version: %s"
    assert by_line[2] == "invalid-version"
    assert by_line[3] == "invalid-version-" + hashlib.sha256(base.encode()).hexdigest()[:6]
    assert by_line[4] == "type-error-in-f"  # no literal word: named as a reader names it
    assert by_line[5] == "le-fichier-na-pas-ete-trouve-dans-le-dossier"
    assert by_line[6] == "cant-freeze-its-frozen-already"
    assert len(by_line[5]) <= sync.WORDS_CHARS


def test_a_message_without_a_word_is_named_by_its_exception_and_function(tmp_path: Path) -> None:
    # sglang 0.5.23 had 31 records like these, each with a 16-hex-digit id and a page titled with it.
    repo = Repo(tmp_path / "repo")
    repo.write("pkg/model_runner.py",
               'class ModelRunner:\n    def load_weights(self, e):\n        raise RuntimeError(f"{str(e)}")\n\n'
               '    def reload(self, e):\n        raise RuntimeError(f"{e}")\n        raise RuntimeError(f"{e!r}")\n\n\n'
               'if __debug__:\n    raise ImportError(f"{__name__}")\n')
    repo.commit()
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    (content / "site.toml").write_text('[source]\nids = "words"\n')
    ids = {c.line: c.id for c in run(repo, content).added}
    assert ids[3] == "runtime-error-in-load-weights" and ids[6] == "runtime-error-in-reload"
    assert ids[7].startswith("runtime-error-in-reload-") and len(ids[7]) == len("runtime-error-in-reload-") + 6
    assert ids[11] == "import-error-in-model-runner"
    titles = {r.id: r.title for r in validate.build_site(load.load(content)).records}
    assert titles["runtime-error-in-load-weights"] == "RuntimeError in ModelRunner.load_weights"
    assert titles["import-error-in-model-runner"] == "ImportError in pkg/model_runner.py"


def test_a_retired_id_is_never_given_to_a_new_site(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'def f():\n    raise ValueError("port in use")\n    raise KeyError("no such key")\n')
    repo.commit()
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    (content / "site.toml").write_text('[source]\nids = "words"\n\n[redirects]\nport-in-use = "no-such-key"\n')
    ids = {c.line: c.id for c in run(repo, content).added}
    assert ids[3] == "no-such-key" and ids[2].startswith("port-in-use-") and len(ids[2]) == len("port-in-use-") + 6
    assert validate.build_site(load.load(content))


VERIFIED_PROSE = {**PROSE, "example_fix": {"before": "old", "after": "new",
                                           "verified": {"commit": "0" * 40, "date": "2024-01-03", "by": "errorsite verify"}}}


def checked_record(repo: Repo, content: Path, source: str) -> tuple[Path, str]:
    """Commit `source` as m.py, extract it, give its one record prose checked at its pin, keys in a person's order."""
    repo.write("m.py", source)
    repo.commit()
    [added] = run(repo, content).added
    path = content / "errors" / f"{added.id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    fix = {**VERIFIED_PROSE["example_fix"], "verified": {**VERIFIED_PROSE["example_fix"]["verified"],
                                                           "commit": data["source"]["commit"]}}
    # A person's order: prose first, the code's fields after.
    person = {"id": data["id"], **VERIFIED_PROSE, "example_fix": fix,
              **{k: v for k, v in data.items() if k != "id"}}
    path.write_text(json.dumps(person, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path, path.read_text(encoding="utf-8")


def changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line.startswith(("-", "+"))]


FUNCTION = 'def f(x):\n    if x < 0:\n        raise ValueError(f"x must be >= 0, got {x}")\n    return x\n'


def test_a_comment_above_a_raise_moves_its_pin_and_its_check_but_asks_no_review(tmp_path: Path) -> None:
    repo, content = Repo(tmp_path / "repo"), tmp_path / "content"
    path, before = checked_record(repo, content, FUNCTION)
    repo.write("m.py", 'def f(x):\n    # Negative values come from old configs.\n\n    # Refuse them.\n'
               '    if x < 0:  # see the changelog\n        raise ValueError(\n            f"x must be >= 0, got {x}"\n'
               '        )\n    return x\n')
    commit = repo.commit()
    report = run(repo, content)
    assert [c.note for c in report.repinned] == [""] and not report.changed
    after = path.read_text(encoding="utf-8")
    record = json.loads(after)
    assert "review" not in record
    assert record["source"]["commit"] == commit and record["source"]["line"] == 6
    assert record["example_fix"]["verified"] == {"commit": commit, "date": "2024-01-03", "by": "errorsite verify"}
    assert list(record) == list(json.loads(before))  # the person's key order
    assert sorted(line.split(":")[0].strip("-+ ") for line in changed_lines(before, after)) == [
        '"code"', '"code"', '"commit"', '"commit"', '"commit"', '"commit"', '"line"', '"line"']
    assert validate.build_site(load.load(content))


def test_a_header_comment_moves_lines_only(tmp_path: Path) -> None:
    repo, content = Repo(tmp_path / "repo"), tmp_path / "content"
    path, before = checked_record(repo, content, FUNCTION)
    repo.write("m.py", "# Copyright the authors.\n# Licensed under the MIT license.\n" + FUNCTION)
    repo.commit()
    run(repo, content)
    after = path.read_text(encoding="utf-8")
    assert "review" not in json.loads(after)
    # The raise's line and the line of its parameter `x` (`source.names`) both move down.
    assert sorted(line.split(":")[0].strip("-+ ") for line in changed_lines(before, after)) == [
        '"commit"', '"commit"', '"commit"', '"commit"', '"line"', '"line"', '"line"', '"line"', '"start"', '"start"']
    # A commit that does not touch the code moves nothing and writes nothing.
    repo.write("README", "news\n")
    repo.commit()
    age_files(content)
    run(repo, content)
    assert path.read_text(encoding="utf-8") == after and path.stat().st_mtime_ns == 1_000_000_000


def test_a_code_change_asks_for_review_and_leaves_the_check_where_it_ran(tmp_path: Path) -> None:
    repo, content = Repo(tmp_path / "repo"), tmp_path / "content"
    path, before = checked_record(repo, content, FUNCTION)
    checked_at = json.loads(before)["source"]["commit"]
    repo.write("m.py", FUNCTION.replace("if x < 0:", "if x <= 0:"))
    commit = repo.commit()
    [change] = run(repo, content).repinned
    assert change.note == "review: code changed"
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["review"] == {"since": commit, "why": "code changed"}
    assert record["example_fix"]["verified"]["commit"] == checked_at


def test_in_a_long_function_a_comment_that_pushes_a_line_out_of_the_window_is_no_change(tmp_path: Path) -> None:
    repo, content = Repo(tmp_path / "repo"), tmp_path / "content"
    body = "".join(f"    a{i} = {i}\n" for i in range(50))
    path, before = checked_record(repo, content, "def long():\n" + body + '    raise ValueError("too long")\n' + body)
    repo.write("m.py", "def long():\n" + body + "    # Explain.\n" + '    raise ValueError("too long")\n' + body)
    repo.commit()
    run(repo, content)
    assert "review" not in json.loads(path.read_text(encoding="utf-8"))
    repo.write("m.py", "def long():\n" + body + "    b = 1\n" + '    raise ValueError("too long")\n' + body)
    repo.commit()
    run(repo, content)
    assert json.loads(path.read_text(encoding="utf-8"))["review"]["why"] == "code changed"


def test_review_and_earlier_wording_name_the_commit_where_the_message_changed(tmp_path: Path) -> None:
    repo, content = Repo(tmp_path / "repo"), tmp_path / "content"
    path, _ = checked_record(repo, content, FUNCTION)
    repo.write("m.py", FUNCTION.replace("x must be >= 0", "x must be zero or more"))
    reworded = repo.commit("reword")
    repo.write("m.py", "# A header.\n" + FUNCTION.replace("x must be >= 0", "x must be zero or more"))
    repo.commit("header")
    repo.write("other.py", "X = 1\n")
    repo.commit("elsewhere")
    run(repo, content)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["review"] == {"since": reworded, "why": "message changed"}
    assert record["variants"] == [{"message": "x must be >= 0, got {x}", "kind": "earlier", "until": reworded}]


def test_review_names_the_commit_where_the_code_changed(tmp_path: Path) -> None:
    repo, content = Repo(tmp_path / "repo"), tmp_path / "content"
    path, _ = checked_record(repo, content, FUNCTION)
    changed = FUNCTION.replace("if x < 0:", "if x <= 0:")
    repo.write("m.py", changed)
    at = repo.commit("stricter")
    repo.write("m.py", changed.replace("    return x", "    # Done.\n    return x"))
    head = repo.commit("comment")
    run(repo, content)
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["review"] == {"since": at, "why": "code changed"}
    assert record["source"]["commit"] == head


def test_a_function_moved_within_its_file_moves_its_lines_not_its_review_state(tmp_path: Path) -> None:
    repo, content = Repo(tmp_path / "repo"), tmp_path / "content"
    other = 'def g(y):\n    """Another function."""\n    return y * 2\n'
    path, before = checked_record(repo, content, FUNCTION + "\n\n" + other)
    repo.write("m.py", other + "\n\n" + FUNCTION)
    commit = repo.commit("reorder")
    [change] = run(repo, content).repinned
    record = json.loads(path.read_text(encoding="utf-8"))
    assert (change.note, record["source"]["line"], record["source"]["snippet"]["start"]) == ("", 8, 6)
    assert "review" not in record and record["example_fix"]["verified"]["commit"] == commit
