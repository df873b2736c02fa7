"""Real libraries of five styles, extracted, their real error output looked up in three paste forms.

click (a CLI that raises through helpers), marshmallow (a validation library that
raises its messages by key and from class attributes), packaging (a parser that
wraps its tokenizer's errors), arrow (a date parser whose messages list what it
tried) and croniter (a schedule's text inside each message), at the versions the
`test` extra pins. What each
failing use prints, and which records document it, come from tests/real_libraries.py.
Counted over all pastes of a library: the first answer documents the error (or is a
page that lists the raise that does) in 95% or more; a confident first answer that
does neither in at most 1%; and no paste of one library gets a confident answer from
another library's site.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
from pathlib import Path

import pytest
import real_libraries as real
from test_gitrepo import Repo

from errorsite import cli

MIN_FIRST = 0.95
MAX_CONFIDENT_WRONG = 0.01


def _commit(path: Path) -> None:
    Repo(path).commit()


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, real.Site]:
    """Return each library's site, by name."""
    return {lib.name: real.make_site(lib, tmp_path_factory.mktemp(lib.name), _commit) for lib in real.LIBRARIES}


@pytest.fixture(scope="module")
def cases(sites: dict[str, real.Site]) -> dict[str, list[real.Paste]]:
    """Return each library's pastes: every failing use's output in each form, with its documenting records."""
    return {name: real.pastes(site) for name, site in sites.items()}


def test_the_libraries_are_the_pinned_versions() -> None:
    pinned = {"click": "8.1.7", "marshmallow": "4.4.0", "packaging": "26.4", "arrow": "1.4.0", "croniter": "7.0.0"}
    assert {name: importlib.metadata.version(name) for name in pinned} == pinned


@pytest.mark.parametrize("library", [lib.name for lib in real.LIBRARIES])
def test_every_failing_use_has_a_record(cases: dict[str, list[real.Paste]], library: str) -> None:
    uses = {c.use for c in cases[library]}
    assert len(uses) >= 20
    assert sorted({c.use for c in cases[library] if not c.expected}) == []


def test_messages_by_key_and_from_class_attributes_are_the_records(
        sites: dict[str, real.Site], cases: dict[str, list[real.Paste]]) -> None:
    site = sites["marshmallow"]
    documented = {c.use: sorted({site.records[i]["message"] for i in c.expected}) for c in cases["marshmallow"]}
    assert documented["required"] == ["Missing data for required field."]
    assert documented["not a valid integer"] == ["Not a valid number."]
    assert "Not a valid integer." in [v["message"] for c in cases["marshmallow"] if c.use == "not a valid integer"
                                      for i in c.expected for v in site.records[i].get("variants", [])]
    assert documented["below range"] == ["Must be greater than or equal to {min}."]
    assert documented["shorter than"] == ["Shorter than minimum length {min}."]
    assert {site.records[i]["exception"] for c in cases["marshmallow"] for i in c.expected} == {"ValidationError"}


def test_a_wrapped_error_is_answered_by_the_error_it_wraps_with_a_note(sites: dict[str, real.Site],
                                                                       cases: dict[str, list[real.Paste]]) -> None:
    site = sites["packaging"]
    whole = next(c for c in cases["packaging"] if c.use == "extras without comma" and c.form == "whole")
    assert "The above exception was the direct cause" in whole.text
    top = site.search(whole.text)[0]
    assert top["id"] in whole.expected and top["confident"] and top["other_class"] == "InvalidRequirement"
    wrap = [r for r in site.records.values() if r["exception"] == "InvalidRequirement" and r["message"] == "{str(e)}"]
    assert wrap, "the wrapping raise has a record of its own"


@pytest.mark.parametrize("library", [lib.name for lib in real.LIBRARIES])
def test_lookup_puts_the_documenting_page_first(sites: dict[str, real.Site], cases: dict[str, list[real.Paste]],
                                                library: str) -> None:
    found = real.measure(sites[library], cases[library])
    assert found.first >= MIN_FIRST * found.pastes, found.missed
    assert found.confident_wrong <= MAX_CONFIDENT_WRONG * found.pastes, found.missed


@pytest.mark.parametrize("library", [lib.name for lib in real.LIBRARIES])
def test_no_confident_answer_for_another_librarys_messages(sites: dict[str, real.Site],
                                                           cases: dict[str, list[real.Paste]], library: str) -> None:
    others = [c for name, found in cases.items() if name != library for c in found]
    assert real.confident_elsewhere(sites[library], others) == []


def test_lookup_prints_the_note_and_the_other_places(sites: dict[str, real.Site],
                                                     cases: dict[str, list[real.Paste]]) -> None:
    site = sites["packaging"]
    content = site.repo.parent / "content"
    printed = io.StringIO()
    wrapped = next(c for c in cases["packaging"] if c.use == "extras without comma" and c.form == "last line")
    version = next(c for c in cases["packaging"] if c.use == "invalid version" and c.form == "message")
    with contextlib.redirect_stdout(printed):
        assert cli.main(["lookup", wrapped.text, "--content", str(content)]) == 0
        assert cli.main(["lookup", version.text, "--content", str(content)]) == 0
    text = printed.getvalue()
    assert "printed as InvalidRequirement: a base class, a wrapper or a label of ParserSyntaxError" in text
    assert "raised at 5 places; the others: " in text
