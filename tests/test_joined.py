"""The kept join of a repository folder's indexes (`extract.joined`): after every run, what it holds is what a join of
every file's index gives, whether the run made it again from the changed files or joined everything; a run whose
changes keep the layout joins nothing; a damaged or foreign kept join is never trusted."""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_facts import _let_go_of_what_a_run_did_not_use
from test_gitrepo import Repo
from test_lastrun import LIBRARY, REPO, _check_random_steps, _edit_code, _library_repo, _records

from errorsite.extract import joined, scan, sync
from errorsite.extract.context import ROW_KINDS, join
from errorsite.extract.facts import FactStore
from errorsite.sitebuild import state


def _kept(repo: Path) -> joined.JoinedIndex:
    kept = FactStore.open(False, False, repo).joined()
    assert kept is not None
    return kept


def _assert_kept_is_the_join(repo: Path, called: frozenset[str] | None, step: str) -> None:
    """Assert that the folder's kept join holds, key by key, what joining every file's index gives (the calls by a
    name in `called`, as the scan asked)."""
    store = FactStore.open(False, False)
    kept = _kept(repo)
    state = kept._state()
    try:
        assert state is not None, step
        indexes = [store.index(path, blob) for path, blob in sorted(state.files.items())]
        whole = join([index for index in indexes if index is not None], called)
        assert None not in indexes and state.layout == whole.layout, step
        for kind in ROW_KINDS:
            table = whole.table(kind)
            assert isinstance(table, dict)
            assert set(state.digests[kind]) == set(table), (step, kind)
            for key, rows in table.items():
                assert kept.read_rows(kind, key) == rows, (step, kind, key)
                assert state.digests[kind][key] == joined.rows_digest(rows), (step, kind, key)
    finally:
        kept.save()


def _counting_joins(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[frozenset[str] | None]]:
    """Count the runs that join every file's index; and keep the names whose calls each run's context keeps."""
    joins: list[int] = []
    called: list[frozenset[str] | None] = []
    real_join, real_context = joined.join, joined.JoinedIndex.context

    def counted(*args: Any, **kwargs: Any) -> Any:
        joins.append(1)
        return real_join(*args, **kwargs)

    def context(self: joined.JoinedIndex, *args: Any) -> Any:
        called.append(args[-1])
        return real_context(self, *args)

    monkeypatch.setattr(joined, "join", counted)
    monkeypatch.setattr(joined.JoinedIndex, "context", context)
    return joins, called


def _edit(repo: Repo, rng: random.Random, step: int) -> str:
    """Make one random edit of the library: one of `test_lastrun`'s, or one that changes its layout alone (an import,
    a class's bases), which defines no new name."""
    kind = rng.choice(["code", "code", "import", "bases"])
    if kind == "code":
        return _edit_code(repo, rng, step)
    files = sorted(p.relative_to(repo.path).as_posix() for p in (repo.path / "pkg").rglob("*.py"))
    path = rng.choice(files)
    text = (repo.path / path).read_text()
    if kind == "import":
        repo.write(path, f"import json as json_{step % 3}\n" + text)
    elif "class " in text:
        repo.write(path, re.sub(r"class (\w+)(\(\w*\))?:", lambda m: f"class {m.group(1)}({rng.choice(['', 'Exception', 'ValueError'])}):", text, count=1))
    return f"{kind} {path}"


def _cold_twin(repo: Path, tmp_path: Path) -> Path:
    """Return a copy of the repository folder, whose runs find nothing kept of its own."""
    twin = tmp_path / "twin"
    shutil.rmtree(twin, ignore_errors=True)
    shutil.copytree(repo, twin, symlinks=True)
    return twin


@pytest.mark.parametrize("seed", [5, 6])
def test_what_a_run_keeps_of_the_join_is_the_join_of_every_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                seed: int) -> None:
    repo, content = _library_repo(tmp_path)
    joins, called = _counting_joins(monkeypatch)
    sync.run(repo.path, "HEAD", REPO, content)
    assert joins == [1]  # nothing kept yet
    rng = random.Random(seed)
    patched = 0
    for step in range(20):
        done = _edit(repo, rng, step)
        repo.commit(f"step {step}")
        before = len(joins)
        sync.run(repo.path, "HEAD", REPO, content)
        patched += len(joins) == before
        _assert_kept_is_the_join(repo.path, called[-1], f"step {step}: {done}")
    assert patched >= 5  # most edits keep the layout


def test_an_edit_inside_functions_joins_nothing_and_writes_what_a_run_from_nothing_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, content = _library_repo(tmp_path)
    sync.run(repo.path, "HEAD", REPO, content)
    joins, called = _counting_joins(monkeypatch)
    # A line before a raise, and a raise's message reworded: the rows of the file's functions and calls move.
    core = LIBRARY["pkg/core.py"].replace("    if not path:\n", "    path = path.strip()\n    if not path:\n")
    repo.write("pkg/core.py", core.replace("no config at", "no configuration at"))
    repo.commit("edit")
    twin = _cold_twin(repo.path, tmp_path)
    report = sync.run(repo.path, "HEAD", REPO, content)
    assert joins == []
    _assert_kept_is_the_join(repo.path, called[-1], "edit")
    cold = sync.run(twin, "HEAD", REPO, twin / "content")
    assert report.lines(verbose=True) == cold.lines(verbose=True)
    assert _records(content) == _records(twin / "content") != {}


def _after_the_action_let_go(tmp_path: Path) -> tuple[Repo, Path, FactStore, set[str]]:
    """Return a library repository whose first run was followed by one in CI, which edited util.py and kept only
    what it used, as the Action keeps the cache folder; with the store, and the names of its entries after the first
    run."""
    repo, content = _library_repo(tmp_path)
    sync.run(repo.path, "HEAD", REPO, content)
    store = FactStore.open(False, False, repo.path)
    first = {entry.name for entry in store.folder.iterdir()}
    repo.write("pkg/util.py", LIBRARY["pkg/util.py"].replace("    if n < 0:\n", "    n = int(n)\n    if n < 0:\n"))
    repo.commit("util")
    _let_go_of_what_a_run_did_not_use(store, lambda: sync.run(repo.path, "HEAD", REPO, content))
    return repo, content, store, first


def _counting_indexes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Return the list of the files whose index is made from their syntax from now on."""
    indexed: list[str] = []
    real_index_file = scan.index_file

    def index_file(path: str, *args: Any) -> Any:
        indexed.append(path)
        return real_index_file(path, *args)

    monkeypatch.setattr(scan, "index_file", index_file)
    return indexed


def test_an_edit_after_the_action_let_go_of_unused_indexes_makes_only_the_edited_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The run in CI kept only what it used: not the indexes of the files it left alone.
    repo, content, _, _ = _after_the_action_let_go(tmp_path)
    # The next run edits core.py, untouched since the first run, inside its functions.
    joins, called = _counting_joins(monkeypatch)
    indexed = _counting_indexes(monkeypatch)
    repo.write("pkg/core.py", LIBRARY["pkg/core.py"].replace("no config at", "no configuration at"))
    repo.commit("core")
    twin = _cold_twin(repo.path, tmp_path)
    report = sync.run(repo.path, "HEAD", REPO, content)
    assert joins == [] and set(indexed) <= {"pkg/core.py"}
    cold = sync.run(twin, "HEAD", REPO, twin / "content")  # which makes every file's index again, for the next line
    _assert_kept_is_the_join(repo.path, called[-1], "after the Action let go")
    assert report.lines(verbose=True) == cold.lines(verbose=True)
    assert _records(content) == _records(twin / "content")


def test_after_the_action_let_go_a_new_import_makes_only_the_edited_files_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, content, store, apart = _after_the_action_let_go(tmp_path)
    # The calls and index of every file as it is are kept, read by that run or not.
    blobs = _kept_files(repo.path)
    assert blobs is not None
    for path, blob in blobs.items():
        for part in ("calls", "index"):
            name = store._name(path, blob, part)
            assert name not in apart or (store.folder / name).exists(), (path, part)
    joins, _ = _counting_joins(monkeypatch)
    indexed = _counting_indexes(monkeypatch)
    repo.write("pkg/errors.py", "import json\n" + LIBRARY["pkg/errors.py"])  # the layout changes: every index is read
    repo.commit("import")
    twin = _cold_twin(repo.path, tmp_path)
    report = sync.run(repo.path, "HEAD", REPO, content)
    assert joins == [1] and set(indexed) <= {"pkg/errors.py"}
    cold = sync.run(twin, "HEAD", REPO, twin / "content")
    assert report.lines(verbose=True) == cold.lines(verbose=True)
    assert _records(content) == _records(twin / "content")


def _damage(path: Path, sql: str, *args: object) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute(sql, args)
    db.close()


@pytest.mark.parametrize("damage", ["row", "foreign row", "digests", "layout", "part", "no part", "not a database"])
def test_a_damaged_or_foreign_kept_join_is_never_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         damage: str) -> None:
    repo, content = _library_repo(tmp_path)
    sync.run(repo.path, "HEAD", REPO, content)
    path = _kept(repo.path).path
    # The edit below makes the run read the calls of `check` and `load` (the edited file makes them).
    if damage == "row":
        _damage(path, "UPDATE rows SET body = substr(body, 1, length(body) - 1) WHERE kind = 'calls' AND key = 'check'")
    elif damage == "foreign row":
        other = joined.JoinedIndex(path, b"another user's key" * 2)
        db = sqlite3.connect(path)
        with db:
            for key, body in db.execute("SELECT key, body FROM rows WHERE kind = 'calls'").fetchall():
                db.execute("UPDATE rows SET code = ? WHERE kind = 'calls' AND key = ?", (other._code("calls", key, body), key))
        db.close()
    elif damage == "digests":
        _damage(path, "UPDATE digests SET body = X'00'")
    elif damage == "part":  # what the edited file was
        _damage(path, "UPDATE parts SET body = substr(body, 1, length(body) - 1) WHERE path = 'pkg/core.py'")
    elif damage == "no part":
        _damage(path, "DELETE FROM parts WHERE path = 'pkg/core.py'")
    elif damage == "layout":
        _damage(path, "UPDATE state SET code = X'00' WHERE name = 'layout'")
    else:
        path.write_bytes(b"not a database, not even close" * 100)
    joins, called = _counting_joins(monkeypatch)
    repo.write("pkg/core.py", LIBRARY["pkg/core.py"].replace("no config at", "no configuration at"))
    repo.commit("edit")
    twin = _cold_twin(repo.path, tmp_path)
    report = sync.run(repo.path, "HEAD", REPO, content)
    assert joins == [1]  # joined again, from every file's index
    _assert_kept_is_the_join(repo.path, called[-1], damage)
    cold = sync.run(twin, "HEAD", REPO, twin / "content")
    assert report.lines(verbose=True) == cold.lines(verbose=True)
    assert _records(content) == _records(twin / "content")


def test_runs_with_a_kept_join_write_what_runs_from_nothing_write(tmp_path: Path) -> None:
    _check_random_steps(tmp_path, 9, 25)


def _kept_files(repo: Path) -> dict[str, str] | None:
    kept = _kept(repo)
    state = kept._state()
    kept.save()
    return None if state is None else state.files


@pytest.mark.parametrize("held", ["written", "locked whole"])
def test_a_run_that_finds_the_kept_join_held_by_another_leaves_it_to_that_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: str) -> None:
    repo, content = _library_repo(tmp_path)
    sync.run(repo.path, "HEAD", REPO, content)
    path = _kept(repo.path).path
    before = _kept_files(repo.path)
    assert before is not None
    monkeypatch.setattr(joined, "LOCK_WAIT", 0.2)
    monkeypatch.setattr(state, "WAL_ATTEMPTS", 3)  # how often a run asks for the journal a lock keeps it from
    _, called = _counting_joins(monkeypatch)
    other = sqlite3.connect(path, isolation_level=None)
    if held == "written":
        other.execute("BEGIN IMMEDIATE")  # another run writing: this one reads, and cannot write
    else:
        other.execute("PRAGMA journal_mode=DELETE")
        other.execute("BEGIN EXCLUSIVE")  # nobody may even read it
    try:
        repo.write("pkg/core.py", LIBRARY["pkg/core.py"].replace("no config at", "no configuration at"))
        repo.commit("edit")
        twin = _cold_twin(repo.path, tmp_path)
        report = sync.run(repo.path, "HEAD", REPO, content)
        cold = sync.run(twin, "HEAD", REPO, twin / "content")
        assert report.lines(verbose=True) == cold.lines(verbose=True)
        assert _records(content) == _records(twin / "content")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert _kept_files(repo.path) == before  # neither written nor deleted under the other run
    sync.run(repo.path, "HEAD", REPO, content)
    _assert_kept_is_the_join(repo.path, called[-1], "after the other run")
