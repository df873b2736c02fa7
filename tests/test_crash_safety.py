"""Builds are crash-safe: a build stopped at any moment leaves the old site or the new one, caches
that are damaged are made again, and no write or delete ever leaves the output folder."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from errorsite import validate
from errorsite.sitebuild import pipeline
from errorsite.sitebuild import paths, workers, write
from errorsite.sitebuild.store import HighlightStore
from errorsite.problems import UserError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from synth import synthesize  # noqa: E402

KILLS = 8
"""How many builds the kill test stops with SIGKILL."""


def tree(folder: Path) -> dict[str, bytes]:
    """Return every file under `folder` by relative path, as `rglob` finds them (links to folders not followed).

    The kill test reads its 4,000-file site some thirty times: os.walk does it without a Path per file.
    """
    prefix = os.path.join(folder, "")
    found = {}
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            if os.path.isfile(path):
                with open(path, "rb") as file:
                    found[path.removeprefix(prefix)] = file.read()
    return dict(sorted(found.items()))


def leftovers(out: Path) -> list[str]:
    """Return what builds left beside `out`: anything but the output, its cache and the content."""
    return sorted(p.name for p in out.parent.iterdir() if p.name not in (out.name, paths.CACHE_DIR, "content"))


def versions(work: Path, n: int) -> list[dict[str, bytes]]:
    """Return the record files of content A, B and C, in the order the kill test builds them: A, B, A, C.

    B differs from A by a prose edit, a title edit and one more record (a whole-state build, which
    also deletes files going back to A); C by a prose edit only (a build of the edited pages alone).
    """
    a = work / "a"
    synthesize(n, a, seed=5)
    names = sorted((a / "errors").glob("*.json"))
    first, second = (json.loads(p.read_text()) for p in names[:2])
    b = tree(a / "errors")
    b[names[0].name] = json.dumps(dict(first, meaning=first["meaning"] + " Edited.")).encode()
    b[names[1].name] = json.dumps(dict(second, title="A title of its own")).encode()
    b["added-record.json"] = json.dumps(dict(first, id="added-record", related=[])).encode()
    c = tree(a / "errors")
    c[names[2].name] = c[names[2].name].replace(b'"meaning": "', b'"meaning": "Changed. ', 1)
    return [tree(a / "errors"), b, tree(a / "errors"), c]


def use(content: Path, version: dict[str, bytes]) -> None:
    """Make the record files of `content` exactly `version`."""
    errors = content / "errors"
    for path in errors.glob("*.json"):
        if path.name not in version:
            path.unlink()
    for name, data in version.items():
        if not (errors / name).exists() or (errors / name).read_bytes() != data:
            (errors / name).write_bytes(data)


def test_kill_9_during_incremental_builds_leaves_the_old_or_the_new_site(tmp_path: Path) -> None:
    contents = versions(tmp_path / "versions", 2000)
    content = tmp_path / "work" / "content"
    shutil.copytree(tmp_path / "versions" / "a", content)
    out = tmp_path / "work" / "site"
    command = [sys.executable, "-m", "errorsite", "build", "--quiet", "--content", str(content), "--out", str(out)]
    pipeline.build(content, out)
    sites, seconds = [], []
    for step in range(len(contents)):
        use(content, contents[(step + 1) % len(contents)])
        started = time.perf_counter()
        subprocess.run(command, check=True, cwd=ROOT)
        seconds.append(time.perf_counter() - started)
        sites.append(tree(out))
    sites = sites[-1:] + sites[:-1]  # the site of each content
    assert len({tuple(sorted(site.items())) for site in sites}) == 3
    rng = random.Random(11)
    for kill in range(KILLS):
        step = kill % len(contents)
        assert tree(out) == sites[step]
        use(content, contents[(step + 1) % len(contents)])
        process = subprocess.Popen(command, cwd=ROOT)
        time.sleep(rng.uniform(0.05, seconds[step]))
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert tree(out) in (sites[step], sites[(step + 1) % len(contents)]), f"kill {kill} left a mixed site"
        pipeline.build(content, out)
        assert tree(out) == sites[(step + 1) % len(contents)]
        assert leftovers(out) == []


def test_a_hundred_clean_builds_with_workers_never_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Small content, but rendered by several worker processes that open the new caches at once.
    monkeypatch.setattr(workers, "PARALLEL_MIN", 10)
    monkeypatch.setattr(workers, "CHUNK", 2)
    content = tmp_path / "content"
    synthesize(4, content, seed=2)
    out = tmp_path / "site"
    first = None
    for _ in range(100):
        shutil.rmtree(paths.cache_folder(out), ignore_errors=True)
        shutil.rmtree(paths.templates_path(), ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        pipeline.build(content, out, jobs=2)
        first = first or tree(out)
        assert tree(out) == first


def damage(path: Path, how: str) -> None:
    """Damage a cache file the ways a stopped write or a bad disk does."""
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(random.Random(1).randbytes(len(data)))
    elif how == "header":
        path.write_bytes(b"\xff" * 100 + data[100:])


@pytest.mark.parametrize("how", ["truncated", "empty", "garbage", "header"])
@pytest.mark.parametrize("which", ["highlight", "state", "templates"])
def test_a_damaged_cache_file_is_discarded_and_made_again(tmp_path: Path, which: str, how: str) -> None:
    content = tmp_path / "content"
    synthesize(6, content, seed=4)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    clean = tree(out)
    folder = paths.cache_folder(out)
    files = {"highlight": [paths.highlight_path(out)],
             "state": sorted(folder.glob("state-*.sqlite")),
             "templates": sorted(paths.templates_path().iterdir())}[which]
    assert files
    for path in files:
        damage(path, how)
    if which != "state":
        # Only a build that renders reads these: one without a state or an output renders every page.
        for state in folder.glob("state-*"):
            state.unlink()
        shutil.rmtree(out)
    pipeline.build(content, out, jobs=1)
    assert tree(out) == clean
    shutil.rmtree(out)
    paths.state_path(out).unlink()
    pipeline.build(content, out, jobs=1)
    assert tree(out) == clean


def test_a_damaged_highlight_cache_is_rewritten_whole(tmp_path: Path) -> None:
    content = tmp_path / "content"
    synthesize(3, content, seed=4)
    store_path = tmp_path / "highlight.sqlite"
    store = HighlightStore(store_path, "salt", b"key")
    store.put("<b>x</b>", "lines", "python", "x")
    store.close()
    damage(store_path, "truncated")
    store = HighlightStore(store_path, "salt", b"key")
    assert store.get("lines", "python", "x") is None
    store.put("<b>y</b>", "lines", "python", "y")
    store.close()
    store = HighlightStore(store_path, "salt", b"key")
    assert store.get("lines", "python", "y") == "<b>y</b>"
    store.close()


ESCAPES = ["../outside.txt", "a/../../outside.txt", "/tmp/outside.txt", "a\n/../../../outside.txt", "a/./b",
           "a//b", "", ".", "a/..", "x\0y"]


@pytest.mark.parametrize("path", ESCAPES)
def test_the_write_layer_refuses_a_path_outside_its_folder(tmp_path: Path, path: str) -> None:
    staging = write.staging_folder(tmp_path / "out" / "site")
    with pytest.raises(write.OutsideFolder):
        write.write_file(staging, path, b"escaped")
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []


def test_a_symlink_inside_the_folder_does_not_lead_a_write_out(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    staging = write.staging_folder(tmp_path / "site")
    (staging / "errors").symlink_to(elsewhere)
    with pytest.raises(write.OutsideFolder):
        write.write_file(staging, "errors/x/index.html", b"escaped")
    assert list(elsewhere.iterdir()) == []


def test_a_record_whose_page_would_escape_is_stopped_by_the_write_layer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    content = tmp_path / "content"
    synthesize(3, content, seed=4)
    out = tmp_path / "deep" / "er" / "site"
    pipeline.build(content, out, jobs=1)
    before = tree(out)
    name = sorted((content / "errors").glob("*.json"))[0]
    data = json.loads(name.read_text())
    data["source"]["path"] = "a\n/../../../../../../escaped"
    name.write_text(json.dumps(data))
    # As if validation let the path through: only the write layer is left to stop it.
    monkeypatch.setattr(validate, "check_record", lambda raw: iter(()))
    monkeypatch.setattr(validate, "build_site", lambda raw, base_url=None: pytest.fail("validation ran"))
    with pytest.raises(write.OutsideFolder):
        pipeline.build(content, out, jobs=1)
    assert not any(p.name == "escaped" for p in tmp_path.rglob("*"))
    assert tree(out) == before


def test_cleanup_never_deletes_a_path_outside_the_output(tmp_path: Path) -> None:
    content = tmp_path / "content"
    synthesize(3, content, seed=4)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    staging = write.staging_folder(out)
    with pytest.raises(write.OutsideFolder):
        write.commit_changes(staging, out, paths.previous_tree(out), [], ["../victim.txt"], None)
    assert victim.read_text() == "keep me"
    assert not staging.exists()


def test_a_symlink_planted_in_the_output_never_leads_a_build_out(tmp_path: Path) -> None:
    content = tmp_path / "content"
    synthesize(3, content, seed=4)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(out / "errors", elsewhere)
    before = tree(elsewhere)
    shutil.rmtree(out / "errors")
    (out / "errors").symlink_to(elsewhere)
    for number in range(3):
        name = sorted((content / "errors").glob("*.json"))[0]
        data = json.loads(name.read_text())
        data["meaning"] = f"Edit {number}."
        name.write_text(json.dumps(data))
        try:
            pipeline.build(content, out, jobs=1)
        except write.OutsideFolder:
            pass
        assert tree(elsewhere) == before


def test_an_output_that_is_a_symlink_is_refused_and_kept(tmp_path: Path) -> None:
    content = tmp_path / "content"
    synthesize(3, content, seed=4)
    target = tmp_path / "webroot"
    pipeline.build(content, target, jobs=1)
    before = tree(target)
    link = tmp_path / "site"
    link.symlink_to(target)
    for out in (link, tmp_path / "dangling"):
        if out.name == "dangling":
            out.symlink_to(tmp_path / "missing")
        with pytest.raises(UserError) as error:
            pipeline.build(content, out, jobs=1)
        assert error.value.page == "output-is-a-link"
        assert out.is_symlink()
    assert tree(target) == before
    assert not (tmp_path / "missing").exists()


def test_leftovers_of_stopped_builds_go_once_their_process_is_gone(tmp_path: Path) -> None:
    content = tmp_path / "content"
    synthesize(3, content, seed=4)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for pid in (finished.pid, running.pid):
            (tmp_path / f".site.new-{pid}-k3j9x0aq" / "errors").mkdir(parents=True)
        (tmp_path / f".site.old-{finished.pid}-4f0c2a9be1d3").mkdir()
        (tmp_path / ".site.new-x").mkdir()  # not errorsite's naming
        # Named as errorsite once named them, without the random part: a repository may hold such a folder.
        (tmp_path / f".site.new-{finished.pid}").mkdir()
        (tmp_path / "content" / "errors" / next(iter(tree(content / "errors")))).touch()
        pipeline.build(content, out, jobs=1)
        assert leftovers(out) == sorted([".site.new-x", f".site.new-{finished.pid}", f".site.new-{running.pid}-k3j9x0aq"])
    finally:
        running.kill()
        running.wait()


def test_a_swap_stopped_halfway_without_exchange_gets_the_old_site_back(tmp_path: Path) -> None:
    content = tmp_path / "content"
    synthesize(3, content, seed=4)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    before = tree(out)
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    # Where a system without an atomic exchange stops between its two renames.
    out.rename(tmp_path / f".site.old-{finished.pid}-4f0c2a9be1d3")
    write.clean_leftovers(out)
    assert tree(out) == before
    assert leftovers(out) == []


def test_builds_without_an_atomic_exchange_still_give_the_same_site(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    content = tmp_path / "content"
    synthesize(5, content, seed=4)
    clean = tmp_path / "clean"
    monkeypatch.setattr(write, "_exchange", lambda a, b: False)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    for number in range(3):
        name = sorted((content / "errors").glob("*.json"))[number]
        data = json.loads(name.read_text())
        data["meaning"] = f"Edit {number}."
        name.write_text(json.dumps(data))
        pipeline.build(content, out, jobs=1)
        shutil.rmtree(clean, ignore_errors=True)
        pipeline.build(content, clean, jobs=1)
        assert tree(out) == tree(clean)
    assert leftovers(out) == ["clean"]


def test_an_incremental_build_never_writes_into_the_live_output(tmp_path: Path) -> None:
    content = tmp_path / "content"
    synthesize(5, content, seed=4)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    inodes = {p: p.stat().st_ino for p in out.rglob("*") if p.is_file()}
    contents = tree(out)
    name = sorted((content / "errors").glob("*.json"))[0]
    data = json.loads(name.read_text())
    data["meaning"] = "Edited."
    name.write_text(json.dumps(data))
    old = out.stat().st_ino
    pipeline.build(content, out, jobs=1)
    assert out.stat().st_ino != old  # a new folder took its place
    previous = paths.previous_tree(out)
    assert tree(previous) == contents  # the old folder, as it was, files untouched
    assert all(p.stat().st_ino == inodes[out / p.relative_to(previous)] for p in previous.rglob("*") if p.is_file())


def test_a_built_site_has_the_mode_a_new_folder_gets(tmp_path: Path) -> None:
    # The site is written into a folder made under a random name (mkdtemp's 0700); a web server must still read it.
    content = tmp_path / "content"
    synthesize(3, content, seed=4)
    pipeline.build(content, tmp_path / "site", jobs=1)
    (tmp_path / "plain").mkdir()
    assert (tmp_path / "site").stat().st_mode == (tmp_path / "plain").stat().st_mode
