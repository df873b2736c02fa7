"""The figures of lookup on the real output of the suite's real libraries, pinned per library.

tests/test_real_libraries.py holds every library to 95% first and 1% confident-wrong;
these tests pin what lookup does now, so that a change that drops one paste of one
library fails here, naming the paste. benchmarks/real_eval.py measures more libraries
(and pastes of errors no record documents) the same way, from the registry.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import real_libraries as real
from test_gitrepo import Repo

PINNED = {"click": (60, 60, 0), "marshmallow": (93, 93, 0), "packaging": (69, 69, 0), "arrow": (72, 72, 0),
          "croniter": (72, 72, 0)}
"""Library -> (pastes, pastes whose first answer documents the error, confident first answers that do not)."""


def _commit(path: Path) -> None:
    Repo(path).commit()


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, real.Site]:
    return {lib.name: real.make_site(lib, tmp_path_factory.mktemp(lib.name), _commit) for lib in real.LIBRARIES}


@pytest.mark.parametrize("library", sorted(PINNED))
def test_lookup_keeps_each_librarys_figures(sites: dict[str, real.Site], library: str) -> None:
    site = sites[library]
    found = real.measure(site, real.pastes(site))
    assert (found.pastes, found.first, found.confident_wrong) == PINNED[library], found.missed


def test_the_pinned_figures_are_every_library_of_the_suite() -> None:
    assert sorted(PINNED) == sorted(lib.name for lib in real.LIBRARIES)


def test_a_message_a_class_builds_around_an_unrecorded_one_finds_the_class(sites: dict[str, real.Site]) -> None:
    # click 8.1.7 has no record of a message like this one (a type of the program's own, say): its page is
    # BadParameter.format_message's, confidently, not a raise site whose composed wording found ': ' inside it.
    site = sites["click"]
    top = site.search("Error: Invalid value for '--size': 'XL' is too big for the box.")[0]
    record = site.records[top["id"]]
    assert (record["message"], record["source"]["function"]) == ("Invalid value for {param_hint}: {message}",
                                                                  "BadParameter.format_message")
    assert top["confident"]
