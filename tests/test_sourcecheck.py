"""`check --source`: pins against the file at their commit, history, undocumented sites, coverage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_extract import commit_sources
from test_extract import scan_file
from test_gitrepo import Repo
from test_lastrun import counting_git_reads

from errorsite import cli, validate
from errorsite.extract import sync
from errorsite.extract.check import SourceReport, check_source
from errorsite.extract.sites import RaiseSite
from errorsite.load import RawRecord
from errorsite.model import Config, Site, SourceSettings


def check(records: list[tuple[str, dict]], repo_dir: Path, repo: str | None = None, strict: bool = False,
          min_written: float | None = None) -> SourceReport:
    """Return the `check --source` report of these (file, record object) pairs against `repo_dir`."""
    config = Config(repo=repo)
    # The pins are what is checked here, not the rest of the record: no validation.
    site = Site(config, tuple(validate.to_record(RawRecord(f, d), config) for f, d in records))
    return check_source(site, repo_dir, SourceSettings(), strict=strict, min_written=min_written)


def pinned_record(site: RaiseSite, commit: str, record_id: str = "r1") -> dict:
    """Return a record object pinned to `site` at `commit`."""
    return sync.skeleton(record_id, site, commit, None)


def test_check_source_accepts_exact_snippets_and_reports_drift(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    source = 'def f(x):\r\n\tif x:\r\n\t\traise ValueError("crlf")\r\n\treturn 1\r\n\n\ndef g():\n    raise KeyError("g")\n'
    commit = commit_sources(repo, {"m.py": source})
    sites = scan_file("m.py", source.encode()).sites
    good = [("good.json", pinned_record(site, commit, f"r{n}")) for n, site in enumerate(sites)]
    report = check(good, repo.path)
    assert report.problems == ()
    assert (report.sites, report.documented, report.coverage) == (2, 2, 1.0)

    drifted = pinned_record(sites[0], commit)
    drifted["source"]["snippet"]["code"] = drifted["source"]["snippet"]["code"].replace("return 1", "return 2")
    shifted = pinned_record(sites[0], commit)
    shifted["source"]["snippet"]["start"] = 2
    too_long = pinned_record(sites[1], commit)
    too_long["source"]["snippet"]["code"] += "\nextra"
    lf_only = pinned_record(sites[0], commit)
    lf_only["source"]["snippet"]["code"] = lf_only["source"]["snippet"]["code"].replace("\r\n", "\n")
    report = check(
        [("drifted.json", drifted), ("shifted.json", shifted), ("long.json", too_long), ("lf.json", lf_only)],
        repo.path,
    )
    found = {p.file: p for p in report.problems}
    assert set(found) == {"drifted.json", "shifted.json", "long.json", "lf.json"}
    assert "line 4 of the file is '\\treturn 1'" in found["drifted.json"].reason
    assert "'\\treturn 2'" in found["drifted.json"].reason
    assert "line 2 of the file" in found["shifted.json"].reason
    assert "line 9 of the file is (end of file)" in found["long.json"].reason
    assert "line 1 of the file is 'def f(x):\\r\\n'" in found["lf.json"].reason
    assert {p.pointer for p in report.problems} == {"/source/snippet/code"}
    assert all(p.page == "snippet-drift" for p in report.problems)
    assert report.failed


def test_check_source_reports_a_line_that_is_not_a_raise(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    source = 'def f(x):\n    y = 1\n    raise ValueError(\n        "multi"\n    )\n'
    commit = commit_sources(repo, {"m.py": source})
    [site] = scan_file("m.py", source.encode()).sites
    record = pinned_record(site, commit)
    for line, ok in [(3, True), (4, True), (5, True), (2, False)]:
        record["source"]["line"] = line
        problems = check([("r.json", record)], repo.path).problems
        assert [p.pointer for p in problems] == ([] if ok else ["/source/line"])


def test_check_source_reports_missing_files_and_skips_removed_and_foreign_records(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    commit = commit_sources(repo, {"m.py": 'raise ValueError("v")\n'})
    [site] = scan_file("m.py", b'raise ValueError("v")\n').sites
    moved = pinned_record(site, commit)
    moved["source"]["path"] = "gone.py"
    removed = {**moved, "status": "removed"}
    foreign = {**moved, "source": {**moved["source"], "repo": "someone/else"}}
    report = check([("moved.json", moved), ("removed.json", removed), ("foreign.json", foreign)],
                                  repo.path, repo="owner/name")
    assert [(p.file, p.page) for p in report.problems] == [("moved.json", "source-not-found")]


def test_check_source_lists_undocumented_sites_and_coverage(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    old = commit_sources(repo, {"a.py": 'def f():\n    raise ValueError("one")\n'})
    [documented] = scan_file("a.py", b'def f():\n    raise ValueError("one")\n').sites
    record = pinned_record(documented, old)
    head = 'def g():\n    raise ValueError("one")\n\ndef h():\n    raise KeyError("two")\n    raise KeyError("three")\n'
    commit_sources(repo, {"a.py": "", "b.py": head})
    report = check([("r.json", record)], repo.path)
    assert report.problems == ()
    assert [(s.path, s.line, s.message) for s in report.undocumented] == [("b.py", 5, "two"), ("b.py", 6, "three")]
    assert (report.documented, report.sites) == (1, 3)
    assert report.lines()[2] == "to document 2 undocumented raise sites, run: errorsite extract . (then write the new pages and commit the records)"
    assert "raise sites: 3 at" in report.lines()[3] and report.lines()[3].endswith("1 documented (documentation coverage 33.3%)")
    assert not report.failed
    strict = check([("r.json", record)], repo.path, strict=True)
    assert strict.failed


def squash_history(tmp_path: Path) -> tuple[Repo, str, str, list[RaiseSite]]:
    """Return a repository whose feature commit was squash-merged, and (feature commit, squashed commit, its sites)."""
    repo = Repo(tmp_path / "repo")
    commit_sources(repo, {"m.py": 'def f():\n    raise ValueError("base")\n'})
    repo.git("branch", "-M", "main")
    repo.git("checkout", "-q", "-b", "feature")
    source = 'def f():\n    raise ValueError("base")\n\n\ndef g():\n    raise KeyError("new")\n    raise KeyError("newer")\n'
    feature = commit_sources(repo, {"m.py": source})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--squash", "feature")
    repo.git("commit", "-q", "-m", "squashed")
    return repo, feature, repo.git("rev-parse", "HEAD").strip(), scan_file("m.py", source.encode()).sites


def test_pins_outside_the_history_are_one_problem_per_commit(tmp_path: Path) -> None:
    repo, feature, _, sites = squash_history(tmp_path)
    records = [(f"r{n}.json", pinned_record(site, feature, f"r{n}")) for n, site in enumerate(sites)]
    [problem] = check(records, repo.path).problems
    assert (problem.page, problem.file, problem.pointer) == ("unreachable-pin", ".", "")
    assert f"3 records are pinned to commit {feature[:12]}" in problem.reason
    assert "it is not an ancestor of HEAD" in problem.reason

    repo.git("branch", "-D", "feature")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    [problem] = check(records, repo.path).problems
    assert problem.page == "unreachable-pin" and "this clone does not have it" in problem.reason


def test_a_shallow_clone_is_one_problem_that_names_the_fix(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    old = commit_sources(repo, {"m.py": 'def f():\n    raise ValueError("v")\n'})
    [site] = scan_file("m.py", b'def f():\n    raise ValueError("v")\n').sites
    commit_sources(repo, {"other.py": "x = 1\n"})
    clone = tmp_path / "clone"
    repo.git("clone", "-q", "--depth", "1", f"file://{repo.path}", str(clone))
    records = [("a.json", pinned_record(site, old, "a")), ("b.json", pinned_record(site, old, "b"))]
    [problem] = check(records, clone).problems
    assert problem.page == "shallow-clone"
    assert "2 records are pinned to 1 commit outside its history" in problem.reason
    assert "fetch-depth: 0" in problem.hint and "git fetch --unshallow" in problem.hint
    assert check(records, repo.path).problems == ()


def test_coverage_counts_written_and_review_pages_and_min_written_fails_below(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    source = 'def f():\n    raise ValueError("a")\n    raise ValueError("b")\n    raise ValueError("c")\n    raise ValueError("d")\n'
    commit = commit_sources(repo, {"m.py": source})
    sites = scan_file("m.py", source.encode()).sites
    records = [(f"r{n}.json", pinned_record(site, commit, f"r{n}")) for n, site in enumerate(sites)]
    records[0][1]["meaning"] = "Written."
    records[1][1].update(meaning="Written too.", review={"since": commit, "why": "code changed"})
    report = check(records, repo.path, min_written=50)
    assert (report.records, report.written, report.review, report.written_share) == (4, 2, 1, 0.5)
    assert not report.failed
    assert "pages written (with prose): 2 of 4 (50.0%); at least 50% wanted" in report.lines()
    assert "pages needing review: 1" in report.lines()
    assert check(records, repo.path, min_written=50.1).failed


def test_source_settings_are_read_by_extract_and_check_and_flags_override_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = Repo(tmp_path / "repo")
    commit_sources(repo, {
        "pkg/a.py": 'def f(x):\n    assert x, "x must be set"\n    raise ValueError("mine")\n',
        "pkg/_vendor/b.py": 'def g():\n    raise KeyError("vendored")\n',
    })
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.toml").write_text('repo = "o/n"\n[source]\nexclude = ["pkg/_vendor/**"]\nasserts = true\n')
    assert cli.main(["extract", str(repo.path), "--content", str(content)]) == 0
    assert sorted(r["message"] for r in records(content)) == ["mine", "x must be set"]
    capsys.readouterr()

    assert cli.main(["check", "--content", str(content), "--source", str(repo.path), "--strict"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("active pages: ") and out[1].startswith("raise sites: 2 at ")
    assert out[-1] == "ok: 2 records, no problems"

    assert cli.main(["check", "--content", str(content), "--source", str(repo.path), "--strict", "--no-asserts",
                     "--exclude", "nothing", "--min-written", "10"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "undocumented: pkg/_vendor/b.py:2: KeyError: vendored"
    assert out[-1] == "failed: 2 records; 1 undocumented raise site, 0.0% of pages written, below 10%"
    assert not any("no problems" in line for line in out)

    assert cli.main(["extract", str(repo.path), "--content", str(content), "--include", "pkg/_vendor/*.py",
                     "--exclude", "nothing"]) == 0
    assert sorted((r["message"], r.get("status", "active")) for r in records(content)) == [
        ("mine", "removed"), ("vendored", "active"), ("x must be set", "removed")]


def records(content: Path) -> list[dict]:
    """Return every record object in `content`."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((content / "errors").glob("*.json"))]


def test_an_undocumented_site_names_the_record_it_had_and_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo")
    source = ('def version(text):\n    if not text:\n        raise ValueError(f"Invalid version: {text!r}")\n'
              '    raise KeyError("gone for good")\n')
    commit_sources(repo, {"pkg/v.py": source})
    content = tmp_path / "my content"
    assert cli.main(["extract", str(repo.path), "--content", str(content)]) == 0
    files = {json.loads(p.read_text())["message"]: p for p in (content / "errors").glob("*.json")}
    commit_sources(repo, {"pkg/v.py": source.replace("Invalid version: {text!r}", "Not a valid version: {text!r}")
                          .replace('    raise KeyError("gone for good")\n', "")})
    assert cli.main(["extract", str(repo.path), "--content", str(content)]) == 0
    commit_sources(repo, {"pkg/v.py": source.replace("Invalid version: {text!r}", "Invalid version string: {text!r}")})
    capsys.readouterr()
    assert cli.main(["check", "--content", str(content), "--source", str(repo.path), "--strict",
                     "--include", "pkg/*.py"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("active pages: ")
    assert out[1:6] == [
        "undocumented: pkg/v.py:3: ValueError: Invalid version string: {text!r}",
        f"  documented by {files['Invalid version: {text!r}']} until its message was reworded"
        " (it says 'Not a valid version: {text!r}'): extract re-pins it and keeps its prose",
        "undocumented: pkg/v.py:4: KeyError: gone for good",
        f"  documented by {files['gone for good']}, marked removed: extract makes it active again",
        f"to document 2 undocumented raise sites, 2 of them with their record, run: errorsite extract {repo.path}"
        f" --content '{content}' '--include=pkg/*.py' (then write the new pages and commit the records)",
    ]
    assert cli.main(["extract", str(repo.path), "--content", str(content), "--include=pkg/*.py"]) == 0
    assert cli.main(["check", "--content", str(content), "--source", str(repo.path), "--strict"]) == 0


def test_a_pin_found_in_step_is_not_read_again_and_one_that_drifted_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = Repo(tmp_path / "repo")
    source = 'def f(x):\n    if x:\n        raise ValueError("f")\n\n\ndef g():\n    raise KeyError("g")\n'
    commit = commit_sources(repo, {"m.py": source})
    sites = scan_file("m.py", source.encode()).sites
    good = [(f"r{n}.json", pinned_record(site, commit, f"r{n}")) for n, site in enumerate(sites)]
    drifted = pinned_record(sites[0], commit, "drifted")
    drifted["source"]["snippet"]["code"] = drifted["source"]["snippet"]["code"].replace('"f"', '"F"')
    short = pinned_record(sites[1], commit[:10], "short")
    asked = counting_git_reads(monkeypatch, pinned=True)
    records = [*good, ("drifted.json", drifted), ("short.json", short)]
    first = check(records, repo.path)
    assert [p.file for p in first.problems] == ["drifted.json"]
    assert sorted(asked) == sorted([f"{commit[:10]}:m.py", f"{commit}:m.py"])
    asked.clear()
    # The pins in step are not read again; the drifted one and the one by an abbreviated id are, every time.
    again = check(records, repo.path)
    assert again.problems == first.problems
    assert sorted(asked) == sorted([f"{commit[:10]}:m.py", f"{commit}:m.py"])
    asked.clear()
    assert check(good, repo.path).problems == () and asked == []
