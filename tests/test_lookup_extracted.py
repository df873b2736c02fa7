"""Small repositories extracted, their code run for real, and what it printed looked up.

Each repository raises in one of the ways a page must still be found for: a standard
error re-raised with a suffix, one message raised at several places, an exception
group of the repository's errors.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_extract_sites import PARSER_ERRORS, extract_repo
from test_match import run_node

from errorsite import load, validate
from errorsite.search.index import index_of
from errorsite.search.rank import search


def _printed(repo: Path, code: str) -> str:
    """Return what Python prints on standard error when `code` runs with the repository importable."""
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    return done.stderr


def _lookup(content: Path, text: str) -> list[dict]:
    return search(_index(content), text)


def _index(content: Path) -> dict:
    """Return the search index of a content folder as the site ships it: serialised, and read back."""
    return json.loads(json.dumps(index_of(validate.build_site(load.load(content)))))


def _answers(index: dict, text: str) -> list[dict]:
    """Return the answers to `text`, once the search page's matcher (match.js) gave the very same."""
    results = search(index, text)
    assert run_node(index, [["search", text, 10]]) == [results]
    return results


def test_a_standard_error_wrapped_with_a_suffix_is_found_by_its_frame(tmp_path: Path) -> None:
    repo, content, records = extract_repo(tmp_path, {
        "dates/__init__.py": "",
        "dates/parser.py": (
            "from datetime import date\n\n\n"
            "class DateError(ValueError):\n"
            "    def __str__(self):\n"
            "        return self.args[0] % self.args[1:]\n\n\n"
            "def parse(text):\n"
            "    year, month, day = map(int, text.split('-'))\n"
            "    try:\n"
            "        return date(year, month, day)\n"
            "    except ValueError as e:\n"
            '        raise DateError(str(e) + ": %s", text) from e\n'
        ),
    })
    wrapped = records[("dates/parser.py", 14)]
    assert wrapped["message"] == "{str(e)}: %s"
    output = _printed(repo.path, "from dates.parser import parse; parse('2024-02-30')")
    assert output.rstrip().endswith("DateError: day is out of range for month: 2024-02-30")
    top = _lookup(content, output)[0]
    assert (top["id"], top["kind"], top["confident"]) == (wrapped["id"], "frame", True)
    # The message alone has no word of the template: nothing says which page it is.
    assert not any(r["confident"] for r in _lookup(content, "day is out of range for month: 2024-02-30"))


def test_one_message_raised_at_several_places_is_one_answer(tmp_path: Path) -> None:
    lines = "".join(f"    if kind == {n}:\n        raise BadTag(f\"Invalid tag: {{tag!r}}\")\n" for n in range(5))
    repo, content, records = extract_repo(tmp_path, {
        "tags.py": f"class BadTag(ValueError):\n    pass\n\n\ndef check(tag, kind):\n{lines}",
    })
    ids = sorted(r["id"] for r in records.values() if r["exception"] == "BadTag")
    assert len(ids) == 5
    results = _lookup(content, "Invalid tag: 'release-candidate-2024-final'")
    assert [r["id"] in ids for r in results] == [True]
    assert results[0]["confident"] and sorted([results[0]["id"], *results[0]["places"]]) == ids
    output = _printed(repo.path, "import tags; tags.check('release-candidate-2024-final', 3)")
    named = records[("tags.py", 13)]["id"]
    top = _lookup(content, output)[0]
    assert (top["id"], top["confident"]) == (named, True)
    assert sorted(top["places"]) == sorted(set(ids) - {named})


def test_each_error_of_an_exception_group_finds_its_page(tmp_path: Path) -> None:
    repo, content, records = extract_repo(tmp_path, {
        "checks.py": (
            "class ConfigError(Exception):\n    pass\n\n\n"
            "def check_workers(config):\n"
            "    if config.get('workers', 1) < 1:\n"
            "        raise ConfigError(f\"workers must be at least one, got {config['workers']}\")\n\n\n"
            "def check_name(config):\n"
            "    if 'name' not in config:\n"
            '        raise ValueError("the configuration has no name to run under")\n\n\n'
            "def check(config):\n"
            "    problems = []\n"
            "    for step in (check_workers, check_name):\n"
            "        try:\n"
            "            step(config)\n"
            "        except Exception as error:\n"
            "            problems.append(error)\n"
            "    if problems:\n"
            '        raise ExceptionGroup("the configuration is not valid", problems)\n'
        ),
    })
    output = _printed(repo.path, "import checks; checks.check({'workers': 0})")
    assert "Exception Group Traceback" in output
    results = _lookup(content, output)
    assert [(r["id"], r["confident"]) for r in results[:2]] == [
        (records[("checks.py", 7)]["id"], True), (records[("checks.py", 12)]["id"], True)]


@pytest.mark.node
def test_a_group_raised_around_errors_no_page_explains_finds_its_own_page_first(tmp_path: Path) -> None:
    # cattrs' shape: `While structuring list[int] (2 sub-exceptions)` around the ValueErrors `int()` raised, which
    # share words with another page of the library, none explaining them.
    repo, content, records = extract_repo(tmp_path, {
        "convert.py": (
            "class ValidationGroup(ExceptionGroup):\n    pass\n\n\n"
            "def structure(values):\n"
            "    errors = []\n"
            "    for value in values:\n"
            "        try:\n"
            "            int(value)\n"
            "        except ValueError as error:\n"
            "            errors.append(error)\n"
            "    if errors:\n"
            '        raise ValidationGroup(f"while structuring {values!r} as whole numbers", errors)\n\n\n'
            "def parse(text):\n"
            '    raise ValueError(f"invalid literal {text!r} in a base 10 setting")\n'
        ),
    })
    output = _printed(repo.path, "import convert; convert.structure(['a', 'b'])")
    assert "Exception Group Traceback" in output and "(2 sub-exceptions)" in output
    results = _answers(_index(content), output)
    assert (results[0]["id"], results[0]["confident"]) == (records[("convert.py", 13)]["id"], True)


@pytest.mark.node
def test_an_error_whose_traceback_the_library_rewrote_to_end_in_its_template_finds_its_page(tmp_path: Path) -> None:
    # Jinja's shape: the raise's file is gone from the traceback, which ends at the template's line.
    repo, content, records = extract_repo(tmp_path, {
        "tmpl/__init__.py": "",
        "tmpl/compiler.py": (
            "class TemplateAssertionError(Exception):\n    pass\n\n\n"
            "def check(names):\n"
            "    if len(set(names)) < len(names):\n"
            '        raise TemplateAssertionError(f"block {names[0]!r} defined twice")\n'
        ),
        "tmpl/environment.py": (
            "from .compiler import TemplateAssertionError, check\n\n\n"
            "def compile_blocks(names):\n"
            "    try:\n"
            "        check(names)\n"
            "    except TemplateAssertionError as error:\n"
            '        code = compile("\\n" * 2 + "raise error from None", "<template>", "exec")\n'
            '        exec(code, {"error": error.with_traceback(None)})\n'
        ),
    })
    output = _printed(repo.path, "import tmpl.environment as e; e.compile_blocks(['a', 'a'])")
    assert 'File "<template>", line 3' in output and "compiler.py" not in output
    index = _index(content)
    results = _answers(index, output)
    assert (results[0]["id"], results[0]["confident"]) == (records[("tmpl/compiler.py", 7)]["id"], True)
    # Where the traceback ends in a Python file, none of the package's, the same text raised there is another error.
    elsewhere = output.replace('File "<template>", line 3, in <module>', 'File "/app/blocks.py", line 3, in <module>')
    assert not search(index, elsewhere)[0]["confident"]
    # Nor is a template's error that passes through no frame of the package.
    outside = output.replace("/tmpl/environment.py", "/engine/environment.py")
    assert not search(index, outside)[0]["confident"]
    # Jinja also leaves out its internal frames: the template's line, then a frame of the package that is not the
    # raise's (`environment.py`, in `getattr`), then the error.
    lines = output.rstrip("\n").split("\n")
    package_frame = next(n for n, line in enumerate(lines) if "environment.py" in line)
    inner = "\n".join(lines[:-1] + lines[package_frame:package_frame + 2] + lines[-1:]) + "\n"
    assert inner.index('File "<template>"') < inner.rindex("environment.py")
    results = _answers(index, inner)
    assert (results[0]["id"], results[0]["confident"]) == (records[("tmpl/compiler.py", 7)]["id"], True)


def test_errors_a_factory_builds_from_the_class_its_caller_names(tmp_path: Path) -> None:
    """tomlkit's shape: the message a class builds, printed by its base with the position, answers every paste form;
    a handled error's text passed on from a raise no record has is answered by its text, never by the frame."""
    repo, content, records = extract_repo(tmp_path, PARSER_ERRORS)
    own = records[("toml/errors.py", 12)]["id"]
    output = _printed(repo.path, "from toml.parser import Parser; Parser('ab@').parse()")
    last = output.rstrip().splitlines()[-1]
    assert last == "toml.errors.UnexpectedChar: Unexpected character: '@' at line 1 col 2"
    for paste in (output, last, last.split(": ", 1)[1]):
        top = _lookup(content, paste)[0]
        assert (top["id"], top["confident"]) == (own, True), paste
    output = _printed(repo.path, "from toml.parser import Parser; Parser('aa').parse()")
    assert "The above exception was the direct cause" in output
    top = _lookup(content, output)[0]
    assert top["id"] == records[("toml/errors.py", 17)]["id"] and not top["confident"]
