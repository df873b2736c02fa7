"""site.toml settings: the [source] and [verify] tables and the type each of their values takes."""

from __future__ import annotations

from typing import Any

import pytest

from errorsite.config import settings_to_config
from errorsite.model import SourceSettings, VerifySettings


@pytest.mark.parametrize(("settings", "pointer", "reason", "hint"), [
    ({"source": ["src/*.py"]}, "/source", "must be a table, got ['src/*.py']", "write a [source] table"),
    ({"verify": "make"}, "/verify", "must be a table, got 'make'", "write a [verify] table"),
    ({"source": {"include": "src/*.py"}}, "/source/include", "must be an array of strings, got 'src/*.py'",
     "see [source] in the record format"),
    ({"source": {"warnings": "true"}}, "/source/warnings", "must be true or false, got 'true'",
     "see [source] in the record format"),
    ({"verify": {"timeout": 0}}, "/verify/timeout", "must be a whole number of seconds from 1 to 86,400, got 0",
     "see [verify] in the record format"),
    ({"verify": {"timeout": True}}, "/verify/timeout", "must be a whole number of seconds from 1 to 86,400, got True",
     "see [verify] in the record format"),
])
def test_a_table_or_a_value_of_the_wrong_type_is_one_problem_on_its_page(
    settings: dict[str, Any], pointer: str, reason: str, hint: str,
) -> None:
    config, problems = settings_to_config(settings, "site.toml")
    assert [(p.file, p.pointer, p.reason, p.hint, p.page) for p in problems] == [
        ("site.toml", pointer, reason, hint, "setting-wrong-type")]
    # The bad table or value is left out; the defaults stand in for it.
    assert (config.source, config.verify) == (SourceSettings(), VerifySettings())


def test_tables_of_the_right_types_are_read() -> None:
    config, problems = settings_to_config(
        {"source": {"include": ["src/*.py"], "warnings": True}, "verify": {"setup": "make", "timeout": 120}}, "site.toml")
    assert problems == []
    assert config.source == SourceSettings(include=("src/*.py",), warnings=True)
    assert (config.verify.setup, config.verify.timeout) == ("make", 120)


def test_source_ids_is_words_or_hash_and_hash_without_the_key() -> None:
    assert settings_to_config({}, "site.toml")[0].source.ids == "hash"
    assert settings_to_config({"source": {"ids": "words"}}, "site.toml")[0].source.ids == "words"
    config, problems = settings_to_config({"source": {"ids": "word"}}, "site.toml")
    assert [(p.pointer, p.reason, p.hint, p.page) for p in problems] == [
        ("/source/ids", "must be one of 'words', 'hash', got 'word'", "did you mean 'words'?", "unknown-id-rule")]
    assert config.source.ids == "hash"
