"""What the last extract left (`extract.lastrun`): a run that takes the records no change reached as they are writes,
byte for byte, what a run that reads and matches every record writes, over random edits of the code, of the records
and of the history; and it parses only the records a change reaches."""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from test_gitrepo import Repo

from errorsite import load
from errorsite.extract import git, lastrun, sync
from errorsite.problems import ProblemsFound

REPO = "owner/name"

LIBRARY = {
    "pkg/__init__.py": "from .core import load, check\n",
    "pkg/core.py": '''\
from .errors import ConfigError


def load(path):
    if not path:
        raise ValueError("path must not be empty")
    if path.endswith(".bak"):
        raise ValueError("path must not be empty")
    return check(path)


def check(path, strict=False):
    if strict and " " in path:
        raise ConfigError(f"no spaces allowed in {path!r}")
    raise FileNotFoundError(f"no config at {path!r}")


class Reader:
    def read(self, text):
        if not text:
            raise SyntaxError("cannot parse an empty config")
        return load(text)
''',
    "pkg/errors.py": '''\
class ConfigError(Exception):
    """A config that cannot be used."""


def fail(name):
    raise KeyError(f"unknown setting {name!r}")
''',
    "pkg/util.py": '''\
def helper(n):
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if n > 100:
        raise ValueError(f"n must be >= 0, got {n}")
    return n
''',
}


def _edit_code(repo: Repo, rng: random.Random, step: int) -> str:
    """Make one random edit of the library of the kinds commits make; return what it did."""
    files = sorted(p.relative_to(repo.path).as_posix() for p in (repo.path / "pkg").rglob("*.py"))
    path = rng.choice(files)
    text = (repo.path / path).read_text()
    kind = rng.choice(["shift", "reword", "twin", "drop", "rename", "delete", "caller", "restore", "nothing"])
    if kind == "shift":
        repo.write(path, f"# step {step}\n" + text)
    elif kind == "reword" and '("' in text:
        at = rng.choice([i for i in range(len(text)) if text.startswith('("', i)])
        repo.write(path, text[:at + 2] + f"step {step} " + text[at + 2:])
    elif kind == "twin":
        lines = text.splitlines(keepends=True)
        raises = [i for i, line in enumerate(lines) if line.lstrip().startswith("raise ")]
        if raises:
            at = rng.choice(raises)
            indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
            lines[at:at] = [f"{indent}if step == {step}:\n", f"    {lines[at]}"]
            repo.write(path, "".join(lines))
    elif kind == "drop":
        lines = text.splitlines(keepends=True)
        raises = [i for i, line in enumerate(lines) if line.lstrip().startswith("raise ")]
        if raises:
            at = rng.choice(raises)
            lines[at] = lines[at][:len(lines[at]) - len(lines[at].lstrip())] + "pass\n"
            repo.write(path, "".join(lines))
    elif kind == "rename" and not path.endswith("__init__.py"):
        repo.write(path.replace(".py", f"_{step}.py"), text)
        repo.remove(path)
    elif kind == "delete" and len(files) > 2:
        repo.remove(path)
    elif kind == "caller":
        repo.write(path, text + f"\n\ndef use_{step}(x):\n    return load(x)\n")
    elif kind == "restore":
        for name, source in LIBRARY.items():
            repo.write(name, source)
    return f"{kind} {path}"


def _edit_records(content: Path, rng: random.Random, step: int) -> str:
    """Make one random edit of the record files of the kinds people make; return what it did."""
    names = sorted(p.name for p in (content / "errors").glob("*.json"))
    if not names:
        return "no records"
    path = content / "errors" / rng.choice(names)
    data = json.loads(path.read_text())
    kind = rng.choice(["prose", "message", "removed", "active", "delete", "same bytes", "layout", "nothing"])
    if kind == "prose":
        data["meaning"] = f"Written at step {step}."
    elif kind == "message":
        data["message"] = data["message"] + " (edited by hand)"
    elif kind == "removed":
        data["status"] = "removed"
    elif kind == "active":
        data.pop("status", None)
    elif kind == "delete":
        path.unlink()
        return f"{kind} {path.name}"
    if kind == "same bytes":
        path.write_bytes(path.read_bytes())
    elif kind == "layout":
        path.write_text(json.dumps(data, indent=4, sort_keys=True))
    elif kind != "nothing":
        path.write_text(json.dumps(data, indent=2))
    return f"{kind} {path.name}"


def _library_repo(tmp_path: Path, more: dict[str, str] | None = None) -> tuple[Repo, Path]:
    """Return a repository holding LIBRARY (and `more`), committed, and the content folder it will have."""
    repo = Repo(tmp_path / "repo")
    for name, source in {**LIBRARY, **(more or {})}.items():
        repo.write(name, source)
    repo.commit("library")
    return repo, repo.path / "content"


def counting_git_reads(monkeypatch: pytest.MonkeyPatch, pinned: bool = False) -> list[str]:
    """Return the list of every object name git is asked for the bytes of from now on; with `pinned`, only the
    files at a pin's commit (`commit:path`), not the blobs a scan reads."""
    asked: list[str] = []
    real = git.read_objects

    def counted(repo_dir: Path, names: Iterable[str]) -> dict[str, bytes | None]:
        names = list(names)
        asked.extend(name for name in names if not pinned or ":" in name)
        return real(repo_dir, names)

    monkeypatch.setattr(git, "read_objects", counted)
    return asked


def _records(content: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((content / "errors").glob("*.json"))}


def _check_random_steps(tmp_path: Path, seed: int, steps: int) -> None:
    """Assert that each run of one folder writes and reports what a run of a copy of it with nothing left writes."""
    repo, content = _library_repo(tmp_path)
    rng = random.Random(seed)
    for step in range(steps):
        done = [_edit_code(repo, rng, step)]
        if step and rng.random() < 0.6:
            done.append(_edit_records(content, rng, step))
        if step > 2 and rng.random() < 0.15:
            repo.git("reset", "-q", "--soft", "HEAD~1")  # the last run's commit leaves the history
            done.append("rewritten history")
        repo.commit(f"step {step}")
        twin = tmp_path / f"twin-{step}"
        shutil.copytree(repo.path, twin, symlinks=True)
        report = sync.run(repo.path, "HEAD", REPO, content)
        cold = sync.run(twin, "HEAD", REPO, twin / "content")
        assert report.lines(verbose=True) == cold.lines(verbose=True), f"step {step}: {done}"
        assert _records(content) == _records(twin / "content"), f"step {step}: {done}"
        shutil.rmtree(twin)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_run_that_takes_what_the_last_left_writes_what_a_run_reading_everything_writes(
        tmp_path: Path, seed: int) -> None:
    _check_random_steps(tmp_path, seed, 30)


def _counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the record files each run reads and parses (what it checks of those it wrote aside)."""
    parsed = [0]
    real = lastrun.RecordFiles.parse

    def counted(self: lastrun.RecordFiles, name: str, raw: bytes | None = None) -> object:
        parsed[0] += name not in self.data
        return real(self, name, raw)

    monkeypatch.setattr(lastrun.RecordFiles, "parse", counted)
    return parsed


def test_a_run_after_an_edit_parses_only_the_records_the_edit_reaches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, content = _library_repo(tmp_path)
    records = len(sync.run(repo.path, "HEAD", REPO, content).added)
    repo.commit("records")
    parsed = _counting_parses(monkeypatch)
    again = sync.run(repo.path, "HEAD", REPO, content)
    assert parsed[0] == 0 and len(again.unchanged) == records
    # A line added above one raise of util.py moves it and the one below: only their two records are parsed.
    util = repo.path / "pkg" / "util.py"
    util.write_text(util.read_text().replace("    if n < 0:", "    n = int(n)\n    if n < 0:"))
    repo.commit("edit")
    moved = sync.run(repo.path, "HEAD", REPO, content)
    assert parsed[0] == 2 and len(moved.repinned) == 2 and len(moved.unchanged) == records - 2
    # A record edited by hand is parsed again; the others are not (but those of its place and message: the one
    # raise of errors.py has none).
    record = content / "errors" / f"{next(c.id for c in moved.unchanged if c.path == 'pkg/errors.py')}.json"
    record.write_text(record.read_text().replace('"id"', '"meaning": "Written.",\n  "id"', 1))
    parsed[0] = 0
    sync.run(repo.path, "HEAD", REPO, content)
    assert parsed[0] == 1


def test_records_a_checkout_wrote_anew_with_their_bytes_are_read_but_not_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, content = _library_repo(tmp_path)
    records = len(sync.run(repo.path, "HEAD", REPO, content).added)
    repo.commit("records")
    files = sorted((content / "errors").glob("*.json"))
    for path in files:  # written long enough ago for their time to tell, as the next run finds them
        os.utime(path, ns=(path.stat().st_mtime_ns - 10 * load.RACY_NS,) * 2)
    sync.run(repo.path, "HEAD", REPO, content)
    # What a fresh clone does to every file: another file (another inode, a later time) of the same bytes; and one
    # file whose message lost its last character for another, of the same size.
    for path in files:
        data = path.read_bytes()
        path.unlink()
        path.write_bytes(data)
    # One whose place and message no other record shares (matching reads the records of a group together).
    messages = [json.loads(path.read_text())["message"] for path in files]
    edited = next(path for path, message in zip(files, messages) if messages.count(message) == 1)
    data = json.loads(edited.read_text())
    data["message"] = data["message"][:-1] + ("X" if data["message"][-1] != "X" else "Y")
    size = edited.stat().st_size
    edited.write_text(json.dumps(data, indent=2) + "\n")
    assert edited.stat().st_size == size
    twin = tmp_path / "twin"
    shutil.copytree(repo.path, twin, symlinks=True)
    parsed = _counting_parses(monkeypatch)
    report = sync.run(repo.path, "HEAD", REPO, content)
    assert parsed[0] == 1
    cold = sync.run(twin, "HEAD", REPO, twin / "content")
    assert report.lines(verbose=True) == cold.lines(verbose=True) and _records(content) == _records(twin / "content")
    assert len(report.unchanged) < records


def test_a_record_broken_since_the_last_run_is_a_problem_though_nothing_else_changed(tmp_path: Path) -> None:
    repo, content = _library_repo(tmp_path)
    sync.run(repo.path, "HEAD", REPO, content)
    broken = sorted((content / "errors").glob("*.json"))[3]
    broken.write_text(broken.read_text()[:-3])
    with pytest.raises(ProblemsFound) as found:
        sync.run(repo.path, "HEAD", REPO, content)
    assert [p.file.partition(".json")[0] + ".json" for p in found.value.problems] == [str(broken)]


def test_an_errors_folder_the_system_will_not_list_is_a_problem_for_extract_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, content = _library_repo(tmp_path)
    sync.run(repo.path, "HEAD", REPO, content)
    listing = os.scandir

    def refused(path: Any) -> Any:
        if Path(path) == content / "errors":
            raise PermissionError(13, "Permission denied")  # as root, no permission refuses it: made here
        return listing(path)

    monkeypatch.setattr(os, "scandir", refused)
    with pytest.raises(ProblemsFound) as found:
        sync.run(repo.path, "HEAD", REPO, content)
    assert [(p.file, p.page) for p in found.value.problems] == [(str(content / "errors"), "unreadable-folder")]


def test_a_run_after_an_edit_reads_from_git_only_the_bytes_of_what_the_edit_reaches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, content = _library_repo(tmp_path, {
        f"pkg/plain_{n}.py": f"def f_{n}(x):\n    if x:\n        raise ValueError('bad value {n}')\n" for n in range(40)})
    sync.run(repo.path, "HEAD", REPO, content)
    repo.commit("records")
    asked = counting_git_reads(monkeypatch)
    sync.run(repo.path, "HEAD", REPO, content)
    assert asked == []
    plain = repo.path / "pkg" / "plain_7.py"
    plain.write_text("# a comment\n" + plain.read_text())
    repo.commit("edit")
    report = sync.run(repo.path, "HEAD", REPO, content)
    assert [c.path for c in report.repinned] == ["pkg/plain_7.py"]
    assert asked == [repo.git("rev-parse", "HEAD:pkg/plain_7.py").strip()]


def test_a_check_after_extract_reads_again_neither_the_records_nor_the_pins_extract_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from errorsite import cli, validate

    repo, content = _library_repo(tmp_path)
    sync.run(repo.path, "HEAD", REPO, content)
    repo.commit("records")
    checked: list[str] = []
    real_check = validate.check_record
    monkeypatch.setattr(validate, "check_record", lambda raw: checked.append(Path(raw.file).name) or real_check(raw))
    asked = counting_git_reads(monkeypatch, pinned=True)
    argv = ["check", "--content", str(content), "--source", str(repo.path)]
    assert cli.main(argv) == 0
    assert checked == [] and asked == []
    # A record edited by hand since: check reads and checks it, and its pin, as it would with nothing kept.
    record = sorted((content / "errors").glob("*.json"))[0]
    data = json.loads(record.read_text())
    data["source"]["snippet"]["code"] += "\n# drifted"
    record.write_text(json.dumps(data, indent=2))
    assert cli.main(argv) == 1
    assert checked == [record.name] and len(asked) == 1
    assert "snippet drifted" in capsys.readouterr().err


def test_a_damaged_or_foreign_entry_of_what_a_run_left_is_never_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.extract.facts import FactStore

    repo, content = _library_repo(tmp_path)
    records = len(sync.run(repo.path, "HEAD", REPO, content).added)
    store = FactStore.open(False, False)
    entry = store.folder / store.folder_entry_name("last run", (content, repo.path))
    data = entry.read_bytes()
    entry.write_bytes(data[:40] + bytes([data[40] ^ 0xFF]) + data[41:])
    parsed = _counting_parses(monkeypatch)
    assert len(sync.run(repo.path, "HEAD", REPO, content).unchanged) == records
    assert parsed[0] == records  # every record read again, and what this run left kept anew
    parsed[0] = 0
    sync.run(repo.path, "HEAD", REPO, content)
    assert parsed[0] == 0
    # One made with another user's key (a copied cache folder): right shape, wrong signature.
    other = FactStore(store.folder, os.urandom(32), store.salt)
    last = store.last_run(content, repo.path)
    assert last is not None
    other.keep_last_run(content, repo.path, last)
    assert store.last_run(content, repo.path) is None
    sync.run(repo.path, "HEAD", REPO, content)
    assert parsed[0] == records


def test_what_a_run_read_of_the_folders_entries_is_marked_used(tmp_path: Path) -> None:
    """The Action lets go of every entry a run neither read nor wrote: one read and kept as it was must say it."""
    from errorsite import cli
    from errorsite.extract.facts import FactStore

    repo, content = _library_repo(tmp_path)
    argv = ["check", "--content", str(content), "--source", str(repo.path)]
    sync.run(repo.path, "HEAD", REPO, content)
    assert cli.main(argv) == 0
    store, checks = FactStore.open(False, False), FactStore.open(False, False)
    entries = [store.folder / store.folder_entry_name("last run", (content, repo.path)),
               store.folder / store.folder_entry_name("pins", (repo.path,)),
               checks.folder / checks.folder_entry_name("records checked", (content,))]
    sync.run(repo.path, "HEAD", REPO, content)  # settled: from now on a run leaves what the last one left
    kept = [entry.read_bytes() for entry in entries]
    for entry in entries:
        os.utime(entry, (1_000_000_000, 1_000_000_000))
    sync.run(repo.path, "HEAD", REPO, content)
    assert cli.main(argv) == 0
    # Nothing changed: each was read, none written again, and each says it was used.
    assert [entry.read_bytes() for entry in entries] == kept
    assert all(entry.stat().st_mtime > 1_000_000_000 for entry in entries)
