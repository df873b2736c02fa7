"""An incremental build writes the same bytes as a clean build, whatever edits came before."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errorsite import assets, render
from errorsite.sitebuild import pipeline
from errorsite.sitebuild import inputs, paths, state, workers
from errorsite.search.index import read_index_script
from errorsite.search.rank import search
from errorsite.problems import UserError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from synth import synthesize  # noqa: E402

OPS = ["prose", "unwritten", "title", "message", "tags", "status", "related", "place", "variant", "add", "delete",
       "break", "template", "settings", "touch", "redirect", "repin", "dated", "exception", "unknown-related",
       "collide", "drafted"]


def tree(folder: Path) -> dict[str, bytes]:
    """Return every file under `folder` by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def ids(content: Path) -> list[str]:
    """Return the record ids of a content folder."""
    return sorted(p.stem for p in (content / "errors").glob("*.json"))


def edit(content: Path, record_id: str, change: object) -> None:
    """Apply `change` to one record's data."""
    path = content / "errors" / f"{record_id}.json"
    data = json.loads(path.read_text())
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data, indent=2))


def apply(op: str, n: int, content: Path, templates: Path) -> bool:
    """Apply one edit; return False when it leaves the content broken on purpose."""
    present = ids(content)
    target = present[n % len(present)]
    if op == "prose":
        edit(content, target, lambda d: d.update(meaning=f"Now `{n}` explains it."))
    elif op == "drafted":
        # An AI-assisted draft, reviewed every other time: its list item, the search and the counts change.
        reviewed = {"reviewed": {"by": "Ada", "date": "2026-11-02"}} if n % 2 else {}
        edit(content, target, lambda d: d.update(meaning=f"Drafted `{n}`.", analysis={
            "by": "ai-assisted", "model": "m", "date": f"2026-11-{n % 28 + 1:02d}", **reviewed}))
    elif op == "unwritten":
        edit(content, target, lambda d: [d.pop(k, None) for k in ("meaning", "solutions", "example_fix", "when")])
    elif op == "status":
        edit(content, target, lambda d: d.update(status="active" if d.get("status") == "removed" else "removed"))
    elif op == "related":
        edit(content, target, lambda d: d.update(related=[present[(n + i) % len(present)] for i in (1, 2)
                                                          if present[(n + i) % len(present)] != target]))
    elif op == "place":
        edit(content, target, lambda d: d["source"].update(path=f"pkg/moved_{n % 3}.py", function=f"moved_{n}"))
    elif op == "title":
        edit(content, target, lambda d: d.update(title=f"Title {n}"))
    elif op == "message":
        edit(content, target, lambda d: d.update(message=f"value {{x}} must exceed {n} tokens"))
    elif op == "variant":
        edit(content, target, lambda d: d.update(variants=[{"message": f"quota {{x}} ran out after {n} calls",
                                                            "kind": "alternative"}]))
    elif op == "tags":
        edit(content, target, lambda d: d.update(tags=[f"tag-{n % 3}"]))
    elif op == "add" and f"new-{n}" not in present:
        data = json.loads((content / "errors" / f"{target}.json").read_text())
        data.update(id=f"new-{n}", related=[target])
        (content / "errors" / f"new-{n}.json").write_text(json.dumps(data))
    elif op == "delete" and len(present) > 2:
        (content / "errors" / f"{target}.json").unlink()
        for other in ids(content):
            edit(content, other, lambda d: d.update(related=[r for r in d.get("related", []) if r != target]))
        (content / "site.toml").write_text((content / "site.toml").read_text().split("[redirects]")[0])
    elif op == "repin":
        edit(content, target, lambda d: d["source"].update(commit=f"{n:07x}abc"))
    elif op == "dated":
        edit(content, target, lambda d: d.update(analysis={"by": "human", "date": f"2026-0{1 + n % 9}-1{n % 10}"}))
    elif op == "exception":
        edit(content, target, lambda d: d.update(exception=f"pkg.Error{n % 4}"))
    elif op == "unknown-related":
        edit(content, target, lambda d: d.update(related=["no-such-record"]))
        return False
    elif op == "collide":
        edit(content, target, lambda d: d.update(tags=[f"tag-{n % 3}", f"TAG-{n % 3}"]))
        return False
    elif op == "break":
        (content / "errors" / f"{target}.json").write_text("{ not json")
        return False
    elif op == "template":
        page = templates / "error.html"
        page.write_text(page.read_text() + f"<!-- {n} -->\n")
    elif op == "settings":
        text = (content / "site.toml").read_text().split("\n", 1)[1]
        (content / "site.toml").write_text(f'title = "Errors {n}"\n' + text)
    elif op == "touch":
        path = content / "errors" / f"{target}.json"
        path.write_bytes(path.read_bytes())
    elif op == "redirect" and "[redirects]" not in (content / "site.toml").read_text():
        with open(content / "site.toml", "a") as handle:
            handle.write(f'[redirects]\nretired-{n} = "{target}"\n')
    return True


@pytest.fixture()
def templates(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return a copy of the templates that the build uses instead of the shipped ones."""
    folder = tmp_path_factory.mktemp("templates") / "templates"
    shutil.copytree(assets.templates_dir(), folder)
    monkeypatch.setattr(render, "templates_dir", lambda: folder)
    monkeypatch.setattr(inputs, "templates_dir", lambda: folder)
    return folder


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 50)), min_size=1, max_size=6), st.booleans())
def test_incremental_build_equals_clean_build(tmp_path_factory: pytest.TempPathFactory, templates: Path,
                                              monkeypatch: pytest.MonkeyPatch, steps: list[tuple[str, int]],
                                              large: bool) -> None:
    # A large site's home page counts each group's errors instead of listing them, and an update
    # then renders only the shared files that show what changed: 3 makes the 7 records a large site,
    # and 2 recent pages leave dated pages out of that list.
    monkeypatch.setattr(render, "HOME_LIST_LIMIT", 3 if large else 1000)
    monkeypatch.setattr(render, "RECENT_LIMIT", 2 if large else 8)
    work = tmp_path_factory.mktemp("work")
    shutil.copytree(assets.templates_dir(), templates, dirs_exist_ok=True)
    (templates / "error.html").write_text((assets.templates_dir() / "error.html").read_text())
    content = work / "content"
    synthesize(7, content, seed=3)
    out = work / "inc" / "site"
    pipeline.build(content, out, jobs=1)
    for number, (op, n) in enumerate(steps):
        if not apply(op, n, content, templates):
            before = tree(out)
            with pytest.raises(UserError):
                pipeline.build(content, out, jobs=1)
            assert tree(out) == before
            synthesize(7, content, seed=3)
            for extra in (content / "errors").glob("new-*.json"):
                extra.unlink()
            (content / "site.toml").write_text((content / "site.toml").read_text())
        pipeline.build(content, out, jobs=1)
        clean = work / f"clean{number}" / "site"
        pipeline.build(content, clean, jobs=1)
        assert tree(out) == tree(clean), (op, n)


def test_a_build_after_errorsite_changed_finds_the_related_errors_again(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.search import related

    content = tmp_path / "content"
    synthesize(7, content, seed=3)
    out = tmp_path / "site"
    pipeline.build(content, out, jobs=1)
    assert "Related errors" in (out / "errors" / ids(content)[0] / "index.html").read_text()
    # Another errorsite, whose code relates no error to another: the records, and so what relates them, are the same.
    real = inputs.environment
    monkeypatch.setattr(inputs, "environment", lambda *given: tuple(
        part + "-other" if n < 2 else part for n, part in enumerate(real(*given))))
    monkeypatch.setattr(related.Neighbourhood, "links", lambda self, card: ())
    pipeline.build(content, out, jobs=1)
    clean = tmp_path / "clean"
    pipeline.build(content, clean, jobs=1)
    assert tree(out) == tree(clean)
    assert "Related errors" not in (out / "errors" / ids(content)[0] / "index.html").read_text()


def test_unchanged_build_renders_nothing(tmp_path: Path) -> None:
    synthesize(5, tmp_path / "content")
    first = pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    again = pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    assert first.rendered > 0 and first.full
    assert again.rendered == 0 and again.records == 5


def test_one_prose_change_renders_only_its_pages(tmp_path: Path) -> None:
    synthesize(20, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    record_id = ids(tmp_path / "content")[4]
    edit(tmp_path / "content", record_id, lambda d: d["solutions"].append("Restart it."))
    result = pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    assert not result.full
    assert result.written == 2  # its page and its JSON; titles, lists and search do not change
    assert "Restart it." in (tmp_path / "site" / "errors" / record_id / "index.html").read_text()


@pytest.mark.parametrize("change", [
    lambda d: d.update(title="A new title"),
    lambda d: d.update(message=d["message"] + " (reworded)"),
    lambda d: d.update(tags=["brand-new"]),
    lambda d: d.update(status="removed"),
    lambda d: d.update(exception="pkg.OtherError"),
    lambda d: [d.pop(k, None) for k in ("meaning", "solutions", "example_fix", "when")],
], ids=["title", "message", "tags", "status", "exception", "unwritten"])
def test_an_edit_other_pages_show_reads_no_other_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        change: object) -> None:
    synthesize(60, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=2)
    record_id = ids(tmp_path / "content")[7]
    edit(tmp_path / "content", record_id, change)

    def whole_state(self: object) -> None:
        raise AssertionError("the build read every record's state")

    monkeypatch.setattr(pipeline.SavedState, "load", whole_state)
    result = pipeline.build(tmp_path / "content", tmp_path / "site", jobs=2)
    monkeypatch.undo()
    # Its pages, and the fragments of the search index that hold its row and terms (about 20).
    assert not result.full and result.rendered < 60
    pipeline.build(tmp_path / "content", tmp_path / "clean", jobs=1)
    assert tree(tmp_path / "site") == tree(tmp_path / "clean")


def test_an_edit_no_list_of_every_record_shows_decodes_only_the_summaries_its_pages_show(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A new related id shows only on the record's page, and on a large site's home page not at all.
    monkeypatch.setattr(render, "HOME_LIST_LIMIT", 5)
    synthesize(60, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    record_ids = ids(tmp_path / "content")
    edit(tmp_path / "content", record_ids[7], lambda d: d.update(related=[record_ids[30]]))

    def every_summary(self: object) -> None:
        raise AssertionError("the build decoded every record's summary")

    with monkeypatch.context() as patched:
        patched.setattr(state.Summaries, "all", every_summary)
        result = pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    assert not result.full and result.written > 0
    pipeline.build(tmp_path / "content", tmp_path / "clean", jobs=1)
    assert tree(tmp_path / "site") == tree(tmp_path / "clean")


def test_saved_summaries_are_decoded_when_used_and_an_edit_lays_its_own_over_them(tmp_path: Path) -> None:
    synthesize(12, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    saved = state.SavedState(paths.state_path(tmp_path / "site"))
    try:
        summaries = saved.cards().summaries
    finally:
        saved.close()
    record_ids = ids(tmp_path / "content")
    assert sorted(summaries) == record_ids and len(summaries) == 12 and "nope" not in summaries
    whole = summaries.all()
    assert list(whole) == list(summaries) and all(whole[i] == summaries[i] for i in record_ids)
    assert summaries[record_ids[3]].id == record_ids[3] and summaries[record_ids[3]].item is None
    renamed = summaries[record_ids[3]]._replace(title="Renamed")
    edited = summaries.edited({record_ids[3]: renamed})
    assert edited[record_ids[3]] is renamed and edited.all()[record_ids[3]] is renamed
    assert summaries[record_ids[3]].title != "Renamed" and edited[record_ids[4]] == summaries[record_ids[4]]


def test_parallel_build_equals_serial_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synthesize(30, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "a" / "site", jobs=1)
    monkeypatch.setattr(workers, "PARALLEL_MIN", 1)
    monkeypatch.setattr(workers, "CHUNK", 7)
    result = pipeline.build(tmp_path / "content", tmp_path / "b" / "site", jobs=2)
    assert result.rendered > 60
    assert tree(tmp_path / "a" / "site") == tree(tmp_path / "b" / "site")


def test_deleting_the_cache_is_safe(tmp_path: Path) -> None:
    synthesize(5, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    before = tree(tmp_path / "site")
    shutil.rmtree(paths.cache_folder(tmp_path / "site").parent)
    assert pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1).full
    assert tree(tmp_path / "site") == before


def test_a_variant_edit_reaches_the_search_index(tmp_path: Path) -> None:
    synthesize(6, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    record_id = ids(tmp_path / "content")[2]
    pasted = "QuotaError: quota 'gpu' ran out after 17 calls"
    index = read_index_script((tmp_path / "site" / "search-index.js").read_bytes())
    assert index is not None and not any(r["confident"] for r in search(index, pasted, 5))
    edit(tmp_path / "content", record_id,
         lambda d: d.update(variants=[{"message": "quota {name!r} ran out after {n} calls", "kind": "alternative"}]))
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    index = read_index_script((tmp_path / "site" / "search-index.js").read_bytes())
    assert index is not None
    first = search(index, pasted, 5)[0]
    assert (first["id"], first["kind"], first["variant"]) == (record_id, "full", 0)


def test_removed_record_files_are_deleted_from_the_output(tmp_path: Path) -> None:
    synthesize(6, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    gone = ids(tmp_path / "content")[0]
    (tmp_path / "content" / "errors" / f"{gone}.json").unlink()
    for other in ids(tmp_path / "content"):
        edit(tmp_path / "content", other, lambda d: d.update(related=[r for r in d["related"] if r != gone]))
    result = pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    assert result.deleted >= 2  # its page and JSON, and any list that held only it
    assert not (tmp_path / "site" / "errors" / gone).exists()


def test_lists_are_read_back_only_from_the_page_they_were_written_to(tmp_path: Path) -> None:
    from errorsite.sitebuild import previous

    synthesize(12, tmp_path / "content")
    pipeline.build(tmp_path / "content", tmp_path / "site", jobs=1)
    page = (tmp_path / "site" / "errors" / "index.html").read_bytes()
    every = ids(tmp_path / "content")
    items = previous.list_items(page, "../", every[:2])
    assert sorted(items) == every[2:]
    assert all(item.startswith(b'<li><a href="../errors/' + i.encode() + b"/") for i, item in items.items())
    assert all(item in page for item in items.values())
    # Another root, a list laid out otherwise, or a foreign item: nothing is taken.
    assert previous.list_items(page, "../../", []) == {}
    assert previous.list_items(page.replace(b"</li>\n</ul>", b"</li>\nx</ul>"), "../", []) == {}
    assert previous.read(tmp_path / "site", "api/errors.json", "0" * 32) is None


def test_api_lists_are_spliced_where_their_lines_go() -> None:
    from errorsite.sitebuild.previous import LineChange, spliced_lines

    def body(*lines: bytes) -> bytes:
        return b'{"version":1,"errors":[\n' + b",\n".join(lines) + b"\n]}\n"

    a, b, c, new = b'{"id":"a"}', b'{"id":"b"}', b'{"id":"c"}', b'{"id":"b","x":1}'
    assert spliced_lines(body(a, b, c), [LineChange(b, new, b"")]) == body(a, new, c)
    assert spliced_lines(body(a, b, c), [LineChange(c, b"", b""), LineChange(a, b"", b"")]) == body(b)
    assert spliced_lines(body(a, c), [LineChange(b"", b, c)]) == body(a, b, c)
    assert spliced_lines(body(a, b), [LineChange(b"", c, b"")]) == body(a, b, c)
    # A line that is not there, or a list that would be left empty, is not spliced.
    assert spliced_lines(body(a, c), [LineChange(b, new, b"")]) is None
    assert spliced_lines(body(a), [LineChange(a, b"", b"")]) is None
    assert spliced_lines(b'{"version":1,"errors":[]}\n', [LineChange(b"", a, b"")]) is None



def test_the_page_of_all_errors_is_spliced_where_its_items_go() -> None:
    from errorsite.sitebuild.previous import ItemChange, spliced_items

    def item(i: str, title: str = "t") -> bytes:
        return f'<li><a href="../errors/{i}/index.html">{title}</a>\n<span class="meta">m</span></li>\n'.encode()

    def page(*lists: list[bytes]) -> bytes:
        return b"<h1>All</h1>\n" + b"".join(b'<ul class="errors">\n' + b"".join(items) + b"</ul>\n"
                                            for items in lists) + b"<footer>\n"

    a, b, c, d = item("a"), item("b"), item("c"), item("d")
    # A changed item in place, an item moved before another, an item moved to the end of its list.
    assert spliced_items(page([a, b, c]), "../", [ItemChange(b, item("b", "new"), "c", True)]) == \
        page([a, item("b", "new"), c])
    assert spliced_items(page([a, b, c]), "../", [ItemChange(c, c, "a", True)]) == page([c, a, b])
    assert spliced_items(page([a, b], [c, d]), "../", [ItemChange(a, a, None, True)]) == page([b, a], [c, d])
    assert spliced_items(page([a, b], [c, d]), "../", [ItemChange(c, c, None, False)]) == page([a, b], [d, c])
    # Two moves, the later place first: the second goes before the item the first put in place.
    assert spliced_items(page([a, b, c]), "../", [ItemChange(a, a, None, True), ItemChange(b, b, "a", True)]) == \
        page([c, b, a])
    # An item that is not there, a next record that is not there, or another layout: not spliced.
    assert spliced_items(page([a, c]), "../", [ItemChange(b, b, None, True)]) is None
    assert spliced_items(page([a, b]), "../", [ItemChange(b, b, "x", True)]) is None
    assert spliced_items(page([a], [b], [c]), "../", [ItemChange(b, b, None, True)]) is None
    assert spliced_items(page([a, b]), "../../", [ItemChange(b, b, "a", True)]) is None



def test_an_edit_relates_the_records_of_a_long_file_by_their_lines(tmp_path: Path) -> None:
    # Records sharing only common words are related to their neighbours in line order in a file of
    # more than 2 * NEIGHBOURS + 1 records: an update reads a file's records in that order, not by id.
    content = tmp_path / "content"
    synthesize(60, content)
    for n, i in enumerate(ids(content)):
        edit(content, i, lambda d: (d["source"].update(path="tinyserve/one.py"),
                                    d.update(message=f"value{n} failed here", tags=["common"], related=[])))
    pipeline.build(content, tmp_path / "site", jobs=1)
    by_line = sorted(ids(content), key=lambda i: json.loads((content / "errors" / f"{i}.json").read_text())["source"]["line"])
    assert by_line != ids(content)
    edit(content, by_line[30], lambda d: d.update(message="other30 failed here"))
    assert not pipeline.build(content, tmp_path / "site", jobs=1).full
    pipeline.build(content, tmp_path / "clean", jobs=1)
    assert tree(tmp_path / "site") == tree(tmp_path / "clean")


def newest(content: Path) -> str:
    """Return the id of the record with the newest analysis date (the first of the home page's recent pages)."""
    dated = {i: json.loads((content / "errors" / f"{i}.json").read_text())["analysis"]["date"] for i in ids(content)}
    return max(sorted(dated), key=lambda i: dated[i])


@pytest.mark.parametrize("change", [
    ("newest", lambda d: d.update(title="A new title")),
    ("last-recent", lambda d: d.update(title="A new title")),
    ("other", lambda d: d.update(title="A new title")),
    ("other", lambda d: d.update(analysis={"by": "human", "date": "2030-01-01"})),
    ("newest", lambda d: d.update(analysis={"by": "human", "date": "2001-01-01"})),
    ("other", lambda d: d.update(status="removed")),
    ("other", lambda d: d.update(tags=["brand-new"])),
    ("other", lambda d: d.update(exception="pkg.OtherError")),
    ("other", lambda d: d["source"].update(path="pkg/elsewhere.py")),
    ("other", lambda d: [d.pop(k, None) for k in ("meaning", "solutions", "example_fix", "when")]),
], ids=["recent-title", "last-recent-title", "title", "becomes-recent", "leaves-recent", "status", "tags", "exception", "place",
        "unwritten"])
def test_an_edit_of_a_large_site_equals_a_clean_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      change: tuple[str, object]) -> None:
    # The home page of a large site counts each group's errors and names a few recent pages: an
    # update renders it, and every other shared file, only when it shows what the edit changed.
    monkeypatch.setattr(render, "HOME_LIST_LIMIT", 5)
    monkeypatch.setattr(render, "RECENT_LIMIT", 3)
    content = tmp_path / "content"
    synthesize(20, content)
    pipeline.build(content, tmp_path / "site", jobs=1)
    which, edit_data = change
    recent = re.findall(r'<a href="\./errors/([^/]+)/', (tmp_path / "site" / "index.html").read_text()
                        .split('class="errors recent"')[1].split("</ul>")[0])
    assert len(recent) == 3 and recent[0] == newest(content)
    target = {"newest": recent[0], "last-recent": recent[-1]}.get(which) or \
        next(i for i in ids(content) if i not in recent)
    edit(content, target, edit_data)
    result = pipeline.build(content, tmp_path / "site", jobs=1)
    # Pages, and the fragments of the search index that hold the record's row and terms (about 20).
    assert not result.full and result.rendered < 55
    pipeline.build(content, tmp_path / "clean", jobs=1)
    assert tree(tmp_path / "site") == tree(tmp_path / "clean")


def test_a_record_removed_and_brought_back_keeps_its_place_in_the_api_lists(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render, "HOME_LIST_LIMIT", 5)
    content = tmp_path / "content"
    synthesize(20, content)
    pipeline.build(content, tmp_path / "site", jobs=1)
    for number, status in enumerate(["removed", "active", "removed", "active"]):
        # The first record, one in the middle, and the last, by id.
        for target in (ids(content)[0], ids(content)[9], ids(content)[-1]):
            edit(content, target, lambda d: d.update(status=status))
        assert not pipeline.build(content, tmp_path / "site", jobs=1).full
        pipeline.build(content, tmp_path / f"clean{number}", jobs=1)
        assert tree(tmp_path / "site") == tree(tmp_path / f"clean{number}")


def test_an_edit_of_a_title_renders_the_pages_that_link_it_without_markdown_it(tmp_path: Path) -> None:
    # Every page's Markdown is kept in the highlight store by its text: the pages that link an
    # edited record are rendered again from it, so the update does not import markdown-it.
    import subprocess

    content = tmp_path / "content"
    synthesize(30, content)
    pipeline.build(content, tmp_path / "site", jobs=1)
    record_id = ids(content)[3]
    edit(content, record_id, lambda d: d.update(title="A new title"))
    program = ("import sys; from pathlib import Path; from errorsite.sitebuild import pipeline; "
               f"result = pipeline.build(Path({str(content)!r}), Path({str(tmp_path / 'site')!r}), jobs=1); "
               "print(result.full, result.rendered, 'markdown_it' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout.split()
    assert shown[0] == "False" and int(shown[1]) > 3 and shown[2] == "False"
    pipeline.build(content, tmp_path / "clean", jobs=1)
    assert tree(tmp_path / "site") == tree(tmp_path / "clean")
    assert "A new title" in (tmp_path / "site" / "errors" / record_id / "index.html").read_text()


def record_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Return the list of every file `load.read_bytes` reads from now on."""
    from errorsite import load

    read: list[Path] = []
    real = load.read_bytes

    def counted(path: Path, *args: Any, **kwargs: Any) -> bytes:
        read.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(load, "read_bytes", counted)
    return read


def long_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the next build a long one: the clock it reads runs three seconds on once it has looked at the record
    files, so that files written just before it are long past when it ends."""
    import time

    later = {"ns": 0}

    class Clock:
        @staticmethod
        def time_ns() -> int:
            return time.time_ns() + later["ns"]

    real_scan = inputs.scan

    def scan(errors: Path) -> dict[str, state.FileStat]:
        found = real_scan(errors)
        later["ns"] = 3 * 10**9
        return found

    monkeypatch.setattr(inputs, "time", Clock)
    monkeypatch.setattr(inputs, "scan", scan)


def test_files_written_just_before_a_build_are_later_known_by_their_time(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # A file changed within two seconds of the build that read it is compared by its hash (its
    # size and time could stay the same through another write); once its time is older, a build
    # saves it, and the builds after that read no record file to find that nothing changed.
    import os
    import time

    content = tmp_path / "content"
    synthesize(5, content)
    pipeline.build(content, tmp_path / "site", jobs=1)
    hours_ago = time.time_ns() - 7200 * 10**9
    for path in (content / "errors").glob("*.json"):
        os.utime(path, ns=(hours_ago, hours_ago))
    read = record_reads(monkeypatch)
    assert pipeline.build(content, tmp_path / "site", jobs=1).rendered == 0
    assert len([p for p in read if p.suffix == ".json"]) == 5  # compared by hash, then saved by time
    read.clear()
    assert pipeline.build(content, tmp_path / "site", jobs=1).rendered == 0
    assert [p for p in read if p.suffix == ".json"] == []


def test_a_whole_build_of_files_written_just_before_it_saves_them_by_their_time(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # A fresh clone writes every record file just before its first build; once that build ends long enough after
    # their times, it checks their bytes again and saves their times, so that the next build (the first edit) reads
    # no record file to find which changed.
    content = tmp_path / "content"
    synthesize(5, content)
    with pytest.MonkeyPatch.context() as long:
        long_build(long)
        assert pipeline.build(content, tmp_path / "site", jobs=1).full
    read = record_reads(monkeypatch)
    assert pipeline.build(content, tmp_path / "site", jobs=1).rendered == 0
    assert [p for p in read if p.suffix == ".json"] == []


def test_a_file_written_again_with_the_same_size_and_time_is_never_saved_by_its_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The hazard the hash guards against: a write after the build read a file, in the same clock tick and of the
    # same size. The whole build must not save that file by its time; the next build sees the new bytes.
    import os

    content = tmp_path / "content"
    synthesize(5, content)
    record = sorted((content / "errors").glob("*.json"))[2]
    real_settled = inputs.Inputs.settled

    def settled(self: inputs.Inputs, shas: dict[str, str]) -> dict[str, state.Stamp]:
        before = record.stat()
        data = json.loads(record.read_text())
        meaning = data["meaning"]
        data["meaning"] = ("Z" if meaning[0] != "Z" else "Y") + meaning[1:]
        record.write_text(json.dumps(data, indent=2) + "\n")
        os.utime(record, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert record.stat().st_size == before.st_size
        return real_settled(self, shas)

    long_build(monkeypatch)
    monkeypatch.setattr(inputs.Inputs, "settled", settled)
    assert pipeline.build(content, tmp_path / "site", jobs=1).full
    monkeypatch.undo()
    new_start = json.loads(record.read_text())["meaning"].split()[0]
    assert pipeline.build(content, tmp_path / "site", jobs=1).rendered > 0
    assert f"<p>{new_start} " in (tmp_path / "site" / "errors" / record.stem / "index.html").read_text()


def test_every_build_says_how_many_bytes_its_output_holds(tmp_path: Path) -> None:
    # The build's summary gives the bytes of the site per record: a whole build counts them, an
    # update adds what the files it changed and deleted weigh more or less.
    from errorsite.sitebuild.outputs import tree_size

    content, out = tmp_path / "content", tmp_path / "site"
    synthesize(20, content)
    record_ids = ids(content)
    steps = [lambda: None, lambda: edit(content, record_ids[3], lambda d: d.update(title="A new title")),
             lambda: edit(content, record_ids[4], lambda d: d.update(meaning="Short now.")),
             lambda: edit(content, record_ids[5], lambda d: d.update(tags=["brand-new"])),
             lambda: edit(content, record_ids[5], lambda d: d.update(tags=["config"])),
             lambda: (content / "errors" / f"{record_ids[6]}.json").unlink()]
    for number, step in enumerate(steps):
        step()
        for other in ids(content):
            if number == len(steps) - 1:
                edit(content, other, lambda d: d.update(related=[r for r in d["related"] if r != record_ids[6]]))
        result = pipeline.build(content, out, jobs=1)
        assert result.size == tree_size(out) > 0, number
        assert result.full == (number == 0) and (result.rendered < 60 or number in (0, len(steps) - 1))
