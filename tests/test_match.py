"""Tests for the matching engine, in Python and, through Node, in the browser script."""

from __future__ import annotations

import importlib.util
import json
import random
import shutil
import sys
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from errorsite.search import sharded, shards
from errorsite.search.index import INDEX_FIELDS, INDEX_VERSION, Template, build_index, load_index
from errorsite.search.match import anchor, anchored, forms_of, match_template, value_form
from errorsite.search.paste import read_paste
from errorsite.search.rank import search
from errorsite.search.template import compile_template, first_word
from errorsite.search.text import lower, lower_table
from errorsite.search.walk import fill

HERE = Path(__file__).parent
CASES = json.loads((HERE / "match_cases.json").read_text(encoding="utf-8"))
RUNNER = HERE / "match_runner.js"


def run_node(index: dict[str, Any], calls: list[list[Any]]) -> list[Any]:
    """Return the browser script's answers to `calls`, made against `index`."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the browser matcher (templates/static/match.js) cannot be tested; install Node.js 18 or later")
    payload = json.dumps({"index": index, "calls": calls}, ensure_ascii=False)
    done = subprocess.run([node, str(RUNNER)], input=payload.encode(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def index() -> dict[str, Any]:
    # One index, built by Python and serialised, exactly as the site ships it.
    return json.loads(json.dumps(build_index(CASES["records"], base_url=CASES["base_url"])))


@pytest.fixture(scope="module")
def js_answers(index: dict[str, Any]) -> list[Any]:
    return run_node(index, [["search", case["input"], 10] for case in CASES["cases"]])


def check(case: dict[str, Any], results: list[dict[str, Any]]) -> None:
    """Assert what a case of match_cases.json expects: the first ids in order, and of the first result its
    kind, which wording matched (`variant`), whether it is `confident` and whether the paste links to its page
    (`linked`), the other records that raise its message (`places`), those of them of another class that nothing
    in the paste tells apart from it (`twins`) and the pasted class it is not
    (`other_class`); `no_page`: no result is confident."""
    ids = [r["id"] for r in results]
    if case.get("no_page"):
        assert not any(r["confident"] for r in results)
        return
    if not case["expect"]:
        assert ids == []
        return
    assert ids[:len(case["expect"])] == case["expect"]
    for name in ("kind", "variant", "confident", "linked", "places", "other_class"):
        if name in case:
            assert results[0][name] == case[name], name


CASE_IDS = [f"{i:03d}-{c['input'][:40]!r}" for i, c in enumerate(CASES["cases"])]


@pytest.mark.parametrize("number", range(len(CASES["cases"])), ids=CASE_IDS)
def test_python_ranks_case(index: dict[str, Any], number: int) -> None:
    case = CASES["cases"][number]
    check(case, search(index, case["input"]))


@pytest.mark.node
@pytest.mark.parametrize("number", range(len(CASES["cases"])), ids=CASE_IDS)
def test_js_ranks_case(js_answers: list[Any], number: int) -> None:
    check(CASES["cases"][number], js_answers[number])


@pytest.mark.node
@pytest.mark.parametrize("number", range(len(CASES["cases"])), ids=CASE_IDS)
def test_python_and_js_agree(index: dict[str, Any], js_answers: list[Any], number: int) -> None:
    assert js_answers[number] == search(index, CASES["cases"][number]["input"])


def test_cases_cover_every_kind(index: dict[str, Any]) -> None:
    kinds = {r["kind"] for case in CASES["cases"] for r in search(index, case["input"])}
    assert kinds == {"full", "partial", "words", "near", "link", "frame"}
    assert len(CASES["cases"]) >= 80 and len(CASES["records"]) >= 40


def test_full_match_values_and_spans(index: dict[str, Any]) -> None:
    top = search(index, "ValueError: Cannot cast column 'price' from float64 to int32: 17 values would be truncated")[0]
    assert top["id"] == "cast-truncates"
    assert top["values"] == ["'price'", "float64", "int32", "17"]
    message = next(r["message"] for r in CASES["records"] if r["id"] == "cast-truncates")
    assert [message[s:e] for s, e in top["spans"]] == ["Cannot cast column ", " from ", " to ", ": ", " values would be truncated"]


def test_values_keep_case_and_newlines(index: dict[str, Any]) -> None:
    top = search(index, "Failed to load adapter Sql-LoRA:\r\nshape\n  mismatch")[0]
    assert top["values"] == ["Sql-LoRA", "shape\n  mismatch"]


def test_spans_count_code_points(index: dict[str, Any]) -> None:
    top = search(index, "Stop token '🙂' 🚫 is not in the vocabulary")[0]
    message = next(r["message"] for r in CASES["records"] if r["id"] == "stop-token-emoji")
    assert [message[s:e] for s, e in top["spans"]] == ["Stop token ", " 🚫 is not in the vocabulary"]
    assert top["values"] == ["'🙂'"]


def test_partial_spans_stop_where_the_text_stops(index: dict[str, Any]) -> None:
    top = search(index, "Requested  context_length=1 exceeds the mo")[0]
    message = next(r["message"] for r in CASES["records"] if r["id"] == "context-too-long")
    assert top["kind"] == "partial"
    assert [message[s:e] for s, e in top["spans"]] == ["Requested context_length=", " exceeds the mo"]


def test_word_spans_point_into_the_title(index: dict[str, Any]) -> None:
    top = search(index, "parquet codec")[0]
    title = next(r["title"] for r in CASES["records"] if r["id"] == "parquet-codec")
    assert [title[s:e].lower() for s, e in top["spans"]] == ["parquet", "codec", "codec"]


def test_a_variant_gives_its_own_values_and_spans(index: dict[str, Any]) -> None:
    top = search(index, "Found 3 invalid entries in data/train.jsonl")[0]
    record = next(r for r in CASES["records"] if r["id"] == "invalid-entries")
    assert (top["id"], top["variant"], top["values"]) == ("invalid-entries", 0, ["3", "data/train.jsonl"])
    assert [record["variants"][0][s:e] for s, e in top["spans"]] == ["Found ", " invalid entries in "]


def test_index_rows_carry_their_field_names(index: dict[str, Any]) -> None:
    assert index["fields"] == list(INDEX_FIELDS)
    assert {len(row) for row in index["records"]} == {len(INDEX_FIELDS)}
    row = next(r for r in load_index(index).rows if r.id == "tokenizer-missing")
    assert (row.path, row.line, row.function, row.written) == ("srv/tokenizer.py", 88, "load_tokenizer", True)
    assert [t.message for t in row.templates] == ["tokenizer file {path} is missing", "could not find tokenizer at {path}"]
    skeleton = next(r for r in load_index(index).rows if r.id == "shard-corrupt-cache")
    assert not skeleton.written


def test_both_runtimes_read_rows_by_field_name_not_position(index: dict[str, Any], js_answers: list[Any]) -> None:
    # The same index with its fields in reverse order: a reader that took a value by position would differ.
    order = list(reversed(index["fields"]))
    at = {name: i for i, name in enumerate(index["fields"])}
    shuffled = dict(index, fields=order, records=[[row[at[name]] for name in order] for row in index["records"]])
    inputs = [case["input"] for case in CASES["cases"]]
    assert [search(shuffled, text) for text in inputs] == [search(index, text) for text in inputs]
    assert run_node(shuffled, [["search", text, 10] for text in inputs]) == js_answers


def test_removed_record_is_listed_by_its_active_twin(index: dict[str, Any]) -> None:
    # One message, one answer: the active record, whose page lists the removed one.
    results = search(index, "workers must be positive, got -2")
    ids = [r["id"] for r in results]
    assert "name-positive-old" not in ids
    assert results[ids.index("name-positive")]["places"] == ["name-positive-old"]


def test_limit(index: dict[str, Any]) -> None:
    assert len(search(index, "config", limit=3)) == 3


def test_index_is_compact_and_versioned(index: dict[str, Any]) -> None:
    assert index["version"] == INDEX_VERSION == 3
    per_record = len(json.dumps(index, ensure_ascii=False)) / len(index["records"])
    assert per_record < 1200


def test_index_rejects_an_unexpected_url() -> None:
    record = dict(CASES["records"][0], url="elsewhere/")
    with pytest.raises(ValueError, match="elsewhere"):
        build_index([record])


@pytest.mark.parametrize(("message", "segments"), [
    ("got {x!r}. Use {}", ["got ", None, ". use ", None]),
    ("{a}{b} and {c:>{width}}", [None, " and ", None]),
    ("Model %s has %d layers (%.2f%%) %(name)s", ["model ", None, " has ", None, " layers (", None, "%) ", None]),
    ("literal {{braces}} and 100%% sure", ["literal {braces} and 100% sure"]),
    ("  Wrapped\n   over   lines  ", ["wrapped over lines"]),
    ("{", ["{"]),
    ("}", ["}"]),
    ("50% done", ["50% done"]),
    ("", []),
    ("{x}", [None]),
    ("(.*?)+[a-z]$ {x} ^\\d", ["(.*?)+[a-z]$ ", None, " ^\\d"]),
    ("İstanbul ΣΑΣ", ["İstanbul σασ"]),
])
def test_compile_template(message: str, segments: list[str | None]) -> None:
    assert compile_template(message) == segments


@pytest.mark.parametrize(("message", "text", "values"), [
    ("got {x}", "got 5", ["5"]),
    ("x must be positive, got {x}", "ValueError: x must be positive, got -3", ["-3"]),
    ("{name} must be positive", "ValueError: retries must be positive", ["retries"]),
    ("a {x} b", "a  b", [""]),
    ("value {x}", "value", [""]),
    ("{x} is bad", "is bad", [""]),
    ("expected {a}, got {b}", "expected [1, 2], got {'k': 'v'}", ["[1, 2]", "{'k': 'v'}"]),
    ("pattern {p} failed", "pattern (.*?)+$ failed", ["(.*?)+$"]),
    ("literal {{x}} then {y}", "literal {x} then 1", ["1"]),
    ("100%% of %s", "100% of GPU", ["GPU"]),
    ("no placeholders", "NO   placeholders", []),
    ("x must be positive", "max must be positive", None),
    ("x must be positive", "x must be positive, got 1", None),
    ("", "anything", None),
    ("{x}", "", [""]),
    ("a{x}", "", None),
])
def test_fill(message: str, text: str, values: list[str] | None) -> None:
    assert fill(message, text) == values


def test_fill_and_search_are_fast_on_huge_input(index: dict[str, Any]) -> None:
    huge = "a" * 100_000
    hostile = "{" * 50_000 + "x" * 50_000
    start = time.perf_counter()
    assert fill("a{x}b{y}c", huge) is None
    assert fill("{x} is " * 300, ("y is " * 30_000)) is not None
    compile_template(hostile)
    fill(hostile[:4000], huge)
    search(index, "Traceback (most recent call last):\n" + "  File \"x.py\", line 1, in f\n" * 3000 + "ValueError: " + huge)
    assert time.perf_counter() - start < 5


@pytest.mark.node
def test_js_is_fast_on_huge_input(index: dict[str, Any]) -> None:
    huge = "a" * 100_000
    start = time.perf_counter()
    run_node(index, [["fill", compile_template("a{x}b{y}c"), huge], ["search", huge, 10]])
    assert time.perf_counter() - start < 5


# --- properties -------------------------------------------------------------

CHARS = st.sampled_from(list("abcXYZ019 _-.,:;'\"()[]/\\\n\t=>!?éßİΣ🙂{}%"))
LITERAL = st.text(st.sampled_from(list("abcXYZ019 _-.,:;'\"()[]/\n=>éİΣ🙂")), min_size=1, max_size=12)
PLACEHOLDER = st.sampled_from(["{x}", "{}", "{obj.attr!r}", "{n:>{w}}", "%s", "%d", "%(name)s", "%.2f"])
ESCAPE = st.sampled_from([("{{", "{"), ("}}", "}"), ("%%", "%")])


@st.composite
def template_and_text(draw: st.DrawFn) -> tuple[str, str]:
    """Return a random template and a text it renders to."""
    template, text = [], []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["literal", "placeholder", "escape"]))
        if kind == "literal":
            piece = draw(LITERAL)
            template.append(piece)
            text.append(piece)
        elif kind == "placeholder":
            template.append(draw(PLACEHOLDER))
            text.append(draw(st.text(CHARS, max_size=10)))
        else:
            written, shown = draw(ESCAPE)
            template.append(written)
            text.append(shown)
    return "".join(template), "".join(text)


@settings(max_examples=300, deadline=None)
@given(template_and_text())
def test_fill_recovers_a_rendered_template(pair: tuple[str, str]) -> None:
    template, text = pair
    assume(template.strip())  # a message of white space alone is no message
    values = fill(template, text)
    assert values is not None
    assert len(values) == compile_template(template).count(None)


@settings(max_examples=300, deadline=None)
@given(template_and_text(), st.text(CHARS, max_size=20), st.text(CHARS, max_size=20), st.integers(0, 40))
def test_a_template_matches_only_a_paste_that_holds_its_anchor(pair: tuple[str, str], before: str, after: str,
                                                               cut: int) -> None:
    # What a search of the fragments loads of the templates: a row whose template matches must be among them.
    template, text = pair
    assume(template.strip())  # a message of white space alone is no message
    segments = compile_template(template)
    for pasted in (text, before + text, text + after, before + text + after, text[:cut], (before + text)[:cut]):
        forms = forms_of(read_paste(pasted))
        found = match_template(Template(template, segments, (), first_word(segments), ()), forms, None)
        values = [value_form(v) for v in found.values] if found and found.end == "full" else []
        for form in values:
            inner = match_template(Template(template, segments, (), first_word(segments), ()), [form], None)
            if inner and inner.end == "full":
                assert anchored(*anchor(segments), [form.norm]), (template, form.raw)
        if found:
            assert anchored(*anchor(segments), [f.norm for f in forms]), (template, pasted, found)


@pytest.mark.node
@settings(max_examples=5, deadline=None)
@given(st.lists(template_and_text(), min_size=60, max_size=60), st.lists(st.text(CHARS, max_size=60), min_size=20, max_size=20))
def test_python_and_js_agree_on_random_input(index: dict[str, Any], pairs: list[tuple[str, str]], noise: list[str]) -> None:
    calls: list[list[Any]] = []
    expected: list[Any] = []
    for template, text in pairs:
        segments = compile_template(template)
        calls += [["fill", segments, text], ["fill", segments, text[::-1]]]
        expected += [fill(template, text), fill(template, text[::-1])]
    for text in noise + [text for _, text in pairs[:20]]:
        calls.append(["search", text, 10])
        expected.append(search(index, text))
    assert run_node(index, calls) == expected


# --- lowercasing: one table for both runtimes ---------------------------------


def lower_table_script() -> Any:
    """Return scripts/lower_table.py, which writes the table into match.js, as a module."""
    spec = importlib.util.spec_from_file_location("lower_table", HERE.parent / "scripts" / "lower_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EVERY_CODE_POINT = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
NEWER_CAPITALS = "\ua7cb\ua7dc\u1c89\U00010d50\U00016ea0"
"""Capitals that gained a lowercase form in Unicode 16, after the tables of Python 3.11 (Unicode 14)."""


def test_the_shipped_lowercasing_table_is_the_one_this_python_makes() -> None:
    script = lower_table_script()
    assert script.main(["--check"]) == 0
    assert lower_table() == script.python_lowercase()
    assert lower("ÀΣİ\U00010400Ꭰ") == "àσİ\U00010428ꭰ"  # İ's lowercase is two code points: it stays


@pytest.mark.node
def test_js_lowercases_every_code_point_as_python_does() -> None:
    js = run_node({}, [["lower", EVERY_CODE_POINT]])[0]
    ours = lower(EVERY_CODE_POINT)
    assert len(js) == len(ours)
    differ = [f"U+{ord(c):04X}: js U+{ord(j):04X}, python U+{ord(p):04X}"
              for c, j, p in zip(EVERY_CODE_POINT, js, ours) if j != p]
    assert differ == []


@pytest.mark.node
def test_a_message_with_letters_newer_than_pythons_tables_is_found_alike() -> None:
    records = [{"id": "unit", "title": "Unknown unit", "exception": "ValueError", "status": "active",
                "message": f"unit {NEWER_CAPITALS}Ab is not known in {{table}}", "path": "u.py", "line": 1,
                "url": "errors/unit/"},
               {"id": "other", "title": "Other", "exception": "ValueError", "status": "active",
                "message": "unit ab is not known here", "path": "u.py", "line": 2, "url": "errors/other/"}]
    index = json.loads(json.dumps(build_index(records, base_url="https://example.org/")))
    pastes = [f"ValueError: unit {NEWER_CAPITALS}Ab is not known in metric", f"{NEWER_CAPITALS.lower()}ab", NEWER_CAPITALS]
    ours = [search(index, paste) for paste in pastes]
    assert ours[0][0]["id"] == "unit" and ours[0][0]["kind"] == "full"
    assert run_node(index, [["search", paste, 10] for paste in pastes]) == ours


# --- the index in fragments -------------------------------------------------


@pytest.fixture(scope="module")
def fragments(index: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a folder with the fragments of the cases' index, as a site has them."""
    folder = tmp_path_factory.mktemp("fragments")
    for path, body in shards.fragments(index).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(body)
    return folder


def test_any_fragments_made_alone_are_those_of_the_whole_index(index: dict[str, Any]) -> None:
    # An edit makes only the fragments it touches (`fragments(index, only)`): of one kind, or of several.
    whole = shards.fragments(index)
    empty = {shards.script(n[len(shards.FOLDER):-3], v) for n in whole for v in ({}, [])}
    full = sorted(n for n, body in whole.items() if body not in empty)
    by_kind: dict[str, list[str]] = {}
    for name in full:
        by_kind.setdefault(name[len(shards.FOLDER):].split("/")[0] if name.startswith(shards.FOLDER) else "", []).append(name)
    assert {"f", "i", "n", "p", "s", "r"} <= by_kind.keys()
    rng = random.Random(7)
    for kind, names in by_kind.items():
        only = rng.sample(names, min(8, len(names)))
        assert shards.fragments(index, only) == {n: whole[n] for n in only}, kind
    mixed = rng.sample(sorted(whole), 40)
    assert shards.fragments(index, mixed) == {n: whole[n] for n in sorted(mixed)}


EDITS = {
    "title": lambda r: r.update(title="A title of its own"),
    "tags": lambda r: r.update(tags=["edited"]),
    "meaning": lambda r: r.update(meaning="A meaning written anew."),
    "message": lambda r: r.update(message=r["message"] + " (edited)"),
    "exception": lambda r: r.update(exception="LookupError"),
    "line": lambda r: r.update(line=r["line"] + 7),
    "path": lambda r: r.update(path="pkg/moved.py"),
    "variants": lambda r: r.update(variants=["an earlier wording of {name}"]),
    "removed": lambda r: r.update(status="removed"),
}
"""Edits of one record, each of one field of its search entry."""


@pytest.mark.parametrize("kind", sorted(EDITS))
def test_the_fragments_an_edit_touches_are_all_that_change(kind: str) -> None:
    from errorsite.search.index import document_terms

    records = [dict(r, variants=list(r.get("variants") or ())) for r in CASES["records"]]
    before = json.loads(json.dumps(build_index(records, base_url=CASES["base_url"])))
    whole_before = shards.fragments(before)
    for number in (3, 17):
        edited = [dict(r) for r in records]
        EDITS[kind](edited[number])
        after = json.loads(json.dumps(build_index(edited, base_url=CASES["base_url"])))
        old_terms, new_terms = document_terms(records[number]), document_terms(edited[number])
        terms = {t for t in old_terms.keys() | new_terms.keys() if old_terms.get(t) != new_terms.get(t)}
        touched = shards.touched(after, [(records[number], edited[number])], terms)
        whole_after = shards.fragments(after)
        changed = {n for n in whole_after if whole_after[n] != whole_before.get(n)}
        assert changed <= set(touched), (kind, number, sorted(changed - set(touched)))
        if kind in ("title", "tags", "meaning"):
            # Nothing of a raise key, a place or a template changed: none of their fragments is made again.
            assert not any(n.startswith(tuple(f"{shards.FOLDER}{k}/" for k in "fns")) for n in touched), touched


def sharded_search(folder: Path, text: str, limit: int = 10) -> tuple[list[dict[str, Any]], list[str]]:
    """Return the results of a search of the fragments in `folder`, and the fragments it read."""
    loaded = sharded.load_for(lambda path: shards.read_script((folder / path).read_bytes()), text, limit)
    return sharded.search_loaded(loaded, text, limit), loaded.paths


@pytest.mark.parametrize("number", range(len(CASES["cases"])), ids=CASE_IDS)
def test_fragments_give_the_whole_index_answer(index: dict[str, Any], fragments: Path, number: int) -> None:
    text = CASES["cases"][number]["input"]
    found, paths = sharded_search(fragments, text)
    assert found == search(index, text)
    assert paths[0] == shards.MANIFEST


def paste_forms() -> list[str]:
    """Return the cases' records' messages, filled, in every form a benchmark pastes: log lines, tracebacks (chained
    ones too), wrapped by a terminal..."""
    sys.path.insert(0, str(HERE.parent))
    try:
        from benchmarks.match_eval import paste_forms as forms, render
    finally:
        sys.path.remove(str(HERE.parent))
    rng = random.Random(5)
    return [text for record in CASES["records"][::9]
            for text in forms(record, render(record["message"], rng), Path("/srv/site-packages"), rng).values()]


@pytest.mark.node
def test_js_reads_the_same_fragments_and_gives_the_same_answers(index: dict[str, Any], fragments: Path) -> None:
    texts = [case["input"] for case in CASES["cases"]] + ["constructor __proto__ toString", "chunk_si"] + paste_forms()
    answers = run_node(index, [["sharded", str(fragments), text, 10] for text in texts])
    for text, answer in zip(texts, answers):
        found, paths = sharded_search(fragments, text)
        assert answer["results"] == found == search(index, text), text
        assert sorted(answer["paths"]) == sorted(paths), text


@pytest.mark.node
def test_long_postings_are_read_from_their_own_fragments_alike(index: dict[str, Any], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # On a large site a word of most records has a posting too long to share a fragment: here, of 3 records or more.
    monkeypatch.setattr(shards, "LONG_POSTING", 2)
    for path, body in shards.fragments(index).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(body)
    texts = [case["input"] for case in CASES["cases"][::4]] + paste_forms()[::3] + ["must be posi", "tp_sise must"]
    answers = run_node(index, [["sharded", str(tmp_path), text, 10] for text in texts])
    read = set()
    for text, answer in zip(texts, answers):
        found, paths = sharded_search(tmp_path, text)
        assert answer["results"] == found == search(index, text), text
        assert sorted(answer["paths"]) == sorted(paths), text
        read |= {p for p in paths if p.startswith("search/t/")}
    assert read, "no long posting read"


def test_a_search_reads_only_the_fragments_its_words_need(index: dict[str, Any], fragments: Path) -> None:
    words = [t for t in index["terms"] if t.isalpha() and len(t) == 8][:3]
    _, paths = sharded_search(fragments, " ".join(words) + ".")
    every = shards.names(len(index["records"]))
    assert len(paths) < len(every)
    assert not any(p.startswith("search/l/") for p in paths), "no near spellings for known words"
    _, typo = sharded_search(fragments, " ".join(words) + " " + words[0][::-1] + ".")
    # A word that is no term: the terms of 6 to 10 letters give its near spellings.
    assert {p for p in typo if p.startswith("search/l/")} == {f"search/l/{n}.js" for n in range(6, 11)}
    _, short = sharded_search(fragments, " ".join(words) + " " + words[0][:6][::-1] + ".")
    # Of 6 letters, its near spellings are one edit away: the terms of 5 to 7 letters.
    assert {p for p in short if p.startswith("search/l/")} == {f"search/l/{n}.js" for n in range(5, 8)}
    assert not any(p.startswith("search/v/") for p in paths + typo + short), "no word is being typed"
    _, typed = sharded_search(fragments, " ".join(words) + " " + words[0][:4])
    assert [p for p in typed if p.startswith("search/v/")] == [f"search/v/{shards.bucket(words[0][:2], count)}.js"
                                                               for count in [shards.buckets(len(index['records']))]]


@given(st.text(max_size=300), st.sampled_from([1, 8, 64, 512, 4096]))
@example("\U0001F600 a long word " * 30, 4096)
def test_a_bucket_is_the_hash_match_js_steps_through(text: str, count: int) -> None:
    # match.js: h = (Math.imul(h, 31) + code point) >>> 0 over the text's code points, then h % count.
    h = 0
    for ch in text:
        h = (h * 31 + ord(ch)) & 0xFFFFFFFF
    assert shards.bucket(text, count) == h % count


def test_numbers_round_trip() -> None:
    values = [0, 1, 44, 45, 46, 2024, 45 ** 3, 10 ** 9]
    assert shards.decode_numbers(shards.encode_numbers(values)) == values
    assert set(shards.encode_numbers(values)).isdisjoint('\\"<')


def test_lengths_round_trip_one_digit_each_but_long_ones(index: dict[str, Any]) -> None:
    values = [0, 1, shards.LONGER - 1, shards.LONGER, shards.LONGER + 45, 10 ** 6, 7]
    assert shards.decode_lengths(shards.encode_lengths(values)) == values
    assert len(shards.encode_lengths(range(shards.LONGER))) == shards.LONGER
    # The cases' index has rows that long: both runtimes read them (test_js_reads_the_same_fragments...).
    dl = index["fields"].index("dl")
    assert max(row[dl] for row in index["records"]) >= shards.LONGER
