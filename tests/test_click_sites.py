"""A real library that raises through helpers: click's own sources, extracted, and its real error output looked up.

click (pinned in the test extra) raises its usage errors through
`self.fail(...)`, `ctx.fail(...)` and exception classes that build their
own message. Its installed sources become a git repository, extract writes
the records, a small click program is run with bad command lines in a
subprocess, and each printed output (whole, and its `Error: ...` line alone)
is passed to `errorsite lookup`. The page it puts first must be the one that
documents the error, found
independently: the same command line is run in-process, the exception is
caught, and its traceback is walked from the innermost frame out to the
first of click's lines that a record is pinned to (the raise, or the helper
call above it); when no frame has one, the exception class's own-message
record documents it.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.metadata
import io
import json
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from test_gitrepo import Repo

from errorsite import cli
from errorsite.extract import sync

PROGRAM = textwrap.dedent('''
    import click


    @click.group()
    def main():
        """A tiny program whose command lines fail in every way click knows."""


    @main.command()
    @click.argument("name")
    @click.option("--count", type=int)
    @click.option("--ratio", type=float)
    @click.option("--level", type=click.IntRange(0, 5))
    @click.option("--mode", type=click.Choice(["fast", "slow"]))
    @click.option("--flag", type=bool)
    @click.option("--uid", type=click.UUID)
    @click.option("--when", type=click.DateTime(["%Y-%m-%d"]))
    @click.option("--src", type=click.Path(exists=True))
    @click.option("--out-dir", type=click.Path(file_okay=False))
    @click.option("--infile", type=click.File("r"))
    @click.option("--pair", type=(int, int))
    @click.option("--verbose", is_flag=True)
    def run(**options):
        """Run."""


    @main.command()
    @click.option("--token", required=True)
    def login(token):
        """Log in."""


    if __name__ == "__main__":
        main()
''')

COMMAND_LINES = {
    "missing argument": ["run"],
    "no such option": ["run", "x", "--nope"],
    "no such option, did you mean": ["run", "x", "--coutn", "3"],
    "not a valid integer": ["run", "x", "--count", "abc"],
    "not a valid float": ["run", "x", "--ratio", "fast"],
    "out of range": ["run", "x", "--level", "9"],
    "not one of the choices": ["run", "x", "--mode", "medium"],
    "not a valid boolean": ["run", "x", "--flag", "maybe"],
    "not a valid UUID": ["run", "x", "--uid", "zzz"],
    "does not match the format": ["run", "x", "--when", "2020"],
    "path does not exist": ["run", "x", "--src", "/nonexistent/errorsite-test"],
    "directory is a file": ["run", "x", "--out-dir", "{file}"],
    "file cannot be opened": ["run", "x", "--infile", "/nonexistent/errorsite-test"],
    "one extra argument": ["run", "x", "y"],
    "extra arguments": ["run", "x", "y", "z"],
    "option requires an argument": ["run", "x", "--count"],
    "option requires two arguments": ["run", "x", "--pair"],
    "bad value in a tuple": ["run", "x", "--pair", "1", "b"],
    "flag takes no value": ["run", "x", "--verbose=3"],
    "no such command": ["deploy"],
    "missing required option": ["login"],
}
"""Failing command lines of the program, by the kind of error they make."""


@dataclass(frozen=True)
class Case:
    """One failing command line: what it printed, and which records document its error."""

    output: str
    """The program's standard error."""
    expected: frozenset[str]
    """Ids of the records that document the error (one, or the class's own-message records)."""
    listed: tuple[str, ...]
    """The ids of every page `errorsite lookup` listed for the whole output, explaining or weaker, best first."""
    explained: tuple[str, ...]
    """The ids of the pages lookup says explain the output's error line (`Error: ...`), best first."""
    whole: tuple[str, ...]
    """The ids of the pages lookup says explain the whole output (usage, blank line, error), best first."""

    @property
    def first_is_right(self) -> bool:
        """Return whether the first page lookup says explains the error line documents the error."""
        return bool(self.explained) and self.explained[0] in self.expected


def test_click_is_the_pinned_version() -> None:
    assert importlib.metadata.version("click") == "8.1.7"


@pytest.fixture(scope="module")
def click_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, dict]]:
    """Return click's sources as a git repository, the extracted content folder, and the records by id."""
    tmp = tmp_path_factory.mktemp("click")
    repo = Repo(tmp / "repo")
    shutil.copytree(Path(click.__file__).parent, repo.path / "click", ignore=shutil.ignore_patterns("__pycache__"))
    repo.commit()
    content = tmp / "content"
    sync.run(repo.path, "HEAD", "pallets/click", content)
    records = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (content / "errors").glob("*.json")}
    return repo.path, content, records


@pytest.fixture(scope="module")
def cases(click_site: tuple[Path, Path, dict[str, dict]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    """Return every failing command line's output, its documenting records, and the page lookup put first."""
    repo, content, records = click_site
    tmp = tmp_path_factory.mktemp("program")
    program = tmp / "prog.py"
    program.write_text(PROGRAM, encoding="utf-8")
    a_file = tmp / "a-file.txt"
    a_file.write_text("x", encoding="utf-8")
    spans = _Spans(repo)
    namespace: dict[str, object] = {}
    exec(compile(PROGRAM, str(program), "exec"), namespace)
    group = namespace["main"]
    assert isinstance(group, click.Group)
    found = {}
    for kind, line in COMMAND_LINES.items():
        args = [a.replace("{file}", str(a_file)) for a in line]
        result = subprocess.run([sys.executable, str(program), *args], capture_output=True, text=True, cwd=tmp)
        assert result.returncode == 2, (kind, result.stderr)
        with pytest.raises(click.ClickException) as caught:
            group.main(args, prog_name="prog.py", standalone_mode=False)
        error_line = result.stderr.strip().splitlines()[-1]
        found[kind] = Case(result.stderr, _documenting(caught.value, records, spans),
                           _lookup(result.stderr, content)[1], _explained(error_line, content),
                           _explained(result.stderr, content))
    return found


class _Spans:
    """The line span of every raise, call and return in click's files, for telling which frame a record is at."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.ends: dict[str, dict[int, int]] = {}

    def covers(self, record: dict, path: str, line: int) -> bool:
        """Return whether a traceback line of `path` falls inside the statement or call the record is pinned to."""
        source = record["source"]
        if source["path"] != path:
            return False
        if path not in self.ends:
            ends: dict[int, int] = {}
            for node in ast.walk(ast.parse((self.repo / path).read_text(encoding="utf-8"))):
                if isinstance(node, (ast.Raise, ast.Call, ast.Return)):
                    ends[node.lineno] = max(ends.get(node.lineno, 0), node.end_lineno or node.lineno)
            self.ends[path] = ends
        start = source["line"]
        return start in self.ends[path] and start <= line <= self.ends[path][start]


def _documenting(error: BaseException, records: dict[str, dict], spans: _Spans) -> frozenset[str]:
    """Return the records that document a caught error: at its innermost click frame that has one, else its class's own message."""
    root = Path(click.__file__).parent.parent
    frames = []
    tb = error.__traceback__
    while tb is not None:
        filename = Path(tb.tb_frame.f_code.co_filename)
        if filename.is_relative_to(Path(click.__file__).parent):
            frames.append((filename.relative_to(root).as_posix(), tb.tb_lineno))
        tb = tb.tb_next
    for path, line in reversed(frames):
        at = [i for i, r in records.items() if spans.covers(r, path, line)]
        if at:
            return frozenset(at)
    for cls in type(error).__mro__:
        own = [i for i, r in records.items()
               if r["source"]["path"] == "click/exceptions.py" and r["exception"] == cls.__qualname__
               and r["source"].get("function", "").startswith(cls.__qualname__ + ".")]
        if own:
            return frozenset(own)
    return frozenset()


def _lookup(output: str, content: Path) -> tuple[int, tuple[str, ...]]:
    """Return the exit status of `errorsite lookup` for an output, and the ids of every page it listed, best first."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
        status = cli.main(["lookup", output, "--content", str(content)])
    return status, tuple(re.findall(r"errors/([0-9a-f]{16})/", printed.getvalue()))


def _explained(output: str, content: Path) -> tuple[str, ...]:
    """Return the ids of the pages lookup says explain an output (none when it says no page does)."""
    status, listed = _lookup(output, content)
    return listed if status == 0 else ()


def test_every_click_error_has_a_record(cases: dict[str, Case]) -> None:
    assert len(cases) >= 15
    assert {kind: bool(case.expected) for kind, case in cases.items()} == {kind: True for kind in cases}


def test_the_records_of_helpers_and_classes_are_the_ones_that_document_click_errors(
        cases: dict[str, Case], click_site: tuple[Path, Path, dict[str, dict]]) -> None:
    records = click_site[2]
    messages = {kind: sorted(records[i]["message"] for i in case.expected) for kind, case in cases.items()}
    assert messages["not a valid integer"] == ["{value!r} is not a valid {number_type}."]
    assert messages["one extra argument"] == ["Got unexpected extra argument ({args})"]
    assert messages["missing argument"] == ["Missing argument{param_hint}.{msg}", "Missing parameter: {param_name}"]
    # NoSuchOption.format_message only appends a suggestion to the message it was given: not a site of its own.
    assert messages["no such option"] == ["No such option: {name}"]


def test_lookup_lists_the_documenting_page_for_the_whole_output(cases: dict[str, Case]) -> None:
    missed = {kind: case.output.strip().splitlines()[-1] for kind, case in cases.items()
              if not set(case.listed) & case.expected}
    assert missed == {}


FIRST_PAGE_FLOOR = 21
"""Error lines of the 21 whose first explaining page is the documenting one, at least.

Measured 21 of 21: the suggestion NoSuchOption appends is read apart, `Path
'...' does not exist.` and `... is a file.` split at the space between name
and path, and the quoted option of `Missing option '--token'.` is held by
the literals around it. Pasted whole, with click's `Usage:` and `Try ...`
lines above the error, lookup reads the last paragraph and puts the same
page first.
"""


def test_lookup_puts_the_documenting_page_first(cases: dict[str, Case]) -> None:
    missed = {kind: case.output.strip().splitlines()[-1] for kind, case in cases.items() if not case.first_is_right}
    assert len(cases) - len(missed) >= FIRST_PAGE_FLOOR, missed


def test_the_whole_output_is_explained_as_its_error_line_is(cases: dict[str, Case]) -> None:
    # The usage lines above the blank line are no message: lookup reads the last paragraph.
    differ = {kind: (case.whole[:1], case.explained[:1]) for kind, case in cases.items()
              if case.whole[:1] != case.explained[:1]}
    assert differ == {}
