"""Five real libraries of different styles, their failing uses, what those print, and which records document them.

A CLI (click: helpers and classes that build their own message), a validation library
that raises its messages by key (marshmallow: dicts of messages, class attributes
that methods format), a parser that wraps its errors (packaging: a tokenizer's
helper, `raise InvalidRequirement(str(e)) from e`, details indented under the
message), and two that read dates and schedules (arrow: a parser's messages that
list what it tried; croniter: the schedule as written inside each message), whose
uses are those of their programs in benchmarks/real_programs/. Each is installed from the registry at the version the `test` extra pins;
its installed sources become a git repository that extract reads. Each failing use
is run for real in a subprocess, printed as Python (or click) prints it, and pasted in
three forms: the message only, its last line with the class, the whole output. Which
records document it is found independently, in this process: the same use is run,
the exception caught, and its traceback walked from the innermost frame out to the
first of the library's lines that a record is pinned to (the raise, or the helper
call above it); a record that only passes a handled error's text on (`{str(e)}`)
sends to the error it handled; with no such frame, the class's own-message records.

Used by tests/test_real_libraries.py and benchmarks/match_eval.py (`--real`).
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from test_click_sites import COMMAND_LINES, PROGRAM

from errorsite import load, validate
from errorsite.extract import sync
from errorsite.search.index import build_index, load_index, search_entry
from errorsite.search.rank import search


@dataclass(frozen=True)
class Library:
    """A library, how to make it fail, and where its sources are."""

    name: str
    """The distribution, as the `test` extra pins it."""
    package: str
    """The import package whose folder is copied into the repository."""
    repo: str
    """owner/name of its records."""
    setup: str
    """Code run before each use (imports, a small program)."""
    uses: dict[str, str]
    """Each failing use, by what goes wrong: a statement that raises."""
    cli: bool = False
    """The uses run a click program: it prints its usage and `Error: ...`, not a traceback."""


CLICK = Library(
    "click", "click", "pallets/click",
    PROGRAM.replace('if __name__ == "__main__":\n    main()\n', ""),
    {kind: f"main({args!r}, prog_name='prog.py')" for kind, args in COMMAND_LINES.items()
     if "{file}" not in " ".join(args)},
    cli=True,
)

MARSHMALLOW = Library("marshmallow", "marshmallow", "marshmallow-code/marshmallow", textwrap.dedent("""
    import enum
    from marshmallow import fields, missing, validate

    class Color(enum.Enum):
        RED = 1
        BLUE = 2
"""), {
    "not a valid integer": 'fields.Integer().deserialize("abc")',
    "strict integer": "fields.Integer(strict=True).deserialize(1.5)",
    "not a valid number": 'fields.Float().deserialize("fast")',
    "special float": 'fields.Float().deserialize("nan")',
    "not a valid decimal": 'fields.Decimal().deserialize("x")',
    "not a valid boolean": 'fields.Boolean().deserialize("maybe")',
    "not a valid string": "fields.String().deserialize(42)",
    "null": "fields.String().deserialize(None)",
    "required": "fields.String(required=True).deserialize(missing)",
    "not a valid UUID": 'fields.UUID().deserialize("zzz")',
    "not a valid date": 'fields.Date().deserialize("2020-13-45")',
    "not a valid datetime": 'fields.DateTime().deserialize("yesterday")',
    "not a valid period": 'fields.TimeDelta().deserialize("x")',
    "not a valid list": 'fields.List(fields.Integer()).deserialize("x")',
    "not a valid tuple": "fields.Tuple((fields.Integer(),)).deserialize(5)",
    "not a valid mapping": 'fields.Dict().deserialize("x")',
    "not a valid email": 'validate.Email()("nope")',
    "not a valid URL": 'validate.URL()("nope")',
    "not a valid IP": 'fields.IP().deserialize("1.2.3")',
    "not a valid IPv4": 'fields.IPv4().deserialize("::1")',
    "naive datetime": 'fields.NaiveDateTime().deserialize("2020-01-01T00:00:00+02:00")',
    "unknown enum": 'fields.Enum(Color).deserialize("PURPLE")',
    "shorter than": 'validate.Length(min=3)("ab")',
    "length between": 'validate.Length(min=3, max=5)("abcdefgh")',
    "length equal": 'validate.Length(equal=2)("abc")',
    "below range": "validate.Range(min=18)(5)",
    "outside exclusive range": "validate.Range(min=0, max=1, min_inclusive=False)(0)",
    "one of": 'validate.OneOf(["fast", "slow"])("medium")',
    "contains only": 'validate.ContainsOnly(["a", "b"])(["c"])',
    "equal": "validate.Equal(3)(4)",
    "regexp": r'validate.Regexp(r"\d+")("abc")',
})

PACKAGING = Library("packaging", "packaging", "pypa/packaging", textwrap.dedent("""
    from packaging.markers import Marker
    from packaging.requirements import Requirement
    from packaging.specifiers import Specifier, SpecifierSet
    from packaging.utils import parse_sdist_filename, parse_wheel_filename
    from packaging.version import Version
"""), {
    "unclosed extras": 'Requirement("foo[")',
    "space in name": 'Requirement("foo bar")',
    "marker without value": 'Requirement("foo >= 1.0 ; python_version >")',
    "url missing": 'Requirement("name @ ")',
    "extras without comma": 'Requirement("foo[bar baz]")',
    "unclosed version parenthesis": 'Requirement("foo (>=1.0")',
    "no name": 'Requirement("==1.0")',
    "bad specifier in requirement": 'Requirement("foo =>1.0")',
    "invalid version": 'Version("1.0-foo-bar")',
    "empty version part": 'Version("1..2")',
    "invalid specifier": 'Specifier("=>1.0")',
    "compatible needs two parts": 'Specifier("~=1")',
    "invalid specifier set": 'SpecifierSet(">=1.0,foo")',
    "marker without value alone": 'Marker("python_version >")',
    "marker ends with and": "Marker(\"os_name == 'nt' and\")",
    "unknown marker variable": "Marker(\"foo == 'bar'\")",
    "wheel extension": 'parse_wheel_filename("foo.tar.gz")',
    "wheel parts": 'parse_wheel_filename("foo-1.0-py3-none.whl")',
    "wheel project name": 'parse_wheel_filename("foo__bar-1.0-py3-none-any.whl")',
    "wheel version": 'parse_wheel_filename("foo-1.x.y-py3-none-any.whl")',
    "sdist extension": 'parse_sdist_filename("foo-1.0.whl")',
    "sdist without version": 'parse_sdist_filename("foo.tar.gz")',
    "sdist version": 'parse_sdist_filename("foo-bar.tar.gz")',
})

PROGRAMS = Path(__file__).resolve().parent.parent / "benchmarks" / "real_programs"
"""The programs benchmarks/real_eval.py runs: a library's real uses, each a mistake its users make."""


def from_program(name: str, leave_out: frozenset[str]) -> Library:
    """Return the library of a program of benchmarks/real_programs/ (`<name>_app.py`): the program is the setup
    and each of its USES a use, but those in `leave_out` (errors the library does not raise itself)."""
    path = PROGRAMS / f"{name}_app.py"
    source = path.read_text(encoding="utf-8")
    values: dict[str, Any] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("DISTRIBUTION", "PACKAGE", "REPO"):
                values[node.targets[0].id] = ast.literal_eval(node.value)
            elif node.targets[0].id == "USES" and isinstance(node.value, ast.Dict):
                values["USES"] = [ast.literal_eval(k) for k in node.value.keys if k is not None]
    assert leave_out <= set(values["USES"]), f"{path.name} has no use {sorted(leave_out - set(values['USES']))}"
    return Library(values["DISTRIBUTION"].split("==")[0], values["PACKAGE"], values["REPO"], source,
                   {use: f"USES[{use!r}]()" for use in values["USES"] if use not in leave_out})


# Python's own errors, raised inside the library's code or before it runs: no record documents them.
ARROW = from_program("arrow", frozenset({"month thirteen", "iso week out of range", "compare with a date"}))
CRONITER = from_program("croniter", frozenset({"start given as text"}))

LIBRARIES = (CLICK, MARSHMALLOW, PACKAGING, ARROW, CRONITER)

FORMS = ("message", "last line", "whole")
"""How each output is pasted: the message only, its last line with the class, the whole output."""

RUNNER = textwrap.dedent("""
    import contextlib, io, json, sys, traceback
    setup, uses = json.load(sys.stdin)
    namespace = {"__name__": "app"}
    exec(compile(setup, "app.py", "exec"), namespace)
    out = []
    for use in uses:
        printed = io.StringIO()
        with contextlib.redirect_stderr(printed):
            try:
                exec(compile(use, "app.py", "exec"), namespace)
            except SystemExit:
                pass
            except BaseException as error:
                # What an uncaught exception prints: the interpreter's own hook.
                sys.excepthook(type(error), error, error.__traceback__)
        out.append(printed.getvalue())
    json.dump(out, sys.stdout)
""")


@dataclass(frozen=True)
class Paste:
    """One way a user pastes one failing use's output."""

    library: str
    use: str
    form: str
    text: str
    expected: frozenset[str]
    """Ids of the records that document the error."""


@dataclass
class Site:
    """A library's sources as a repository, its extracted records and their search index."""

    library: Library
    repo: Path
    records: dict[str, dict[str, Any]]
    index: dict[str, Any]

    def search(self, text: str) -> list[dict[str, Any]]:
        """Return what lookup finds for a paste, best first."""
        return search(self.loaded, text, 10)

    @property
    def loaded(self) -> Any:
        if not hasattr(self, "_loaded"):
            self._loaded = load_index(self.index)
        return self._loaded


def make_site(library: Library, folder: Path, commit: Callable[[Path], None]) -> Site:
    """Return a library's site: its installed sources committed (by `commit`) and extracted into `folder`."""
    source = Path(importlib.import_module(library.package).__file__ or "").parent
    repo = folder / "repo"
    shutil.copytree(source, repo / library.package, ignore=shutil.ignore_patterns("__pycache__"))
    commit(repo)
    content = folder / "content"
    sync.run(repo, "HEAD", library.repo, content)
    site = validate.build_site(load.load(content))
    records = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (content / "errors").glob("*.json")}
    index = json.loads(json.dumps(build_index([search_entry(r) for r in site.records])))
    return Site(library, repo, records, index)


def printed(library: Library) -> dict[str, str]:
    """Return what each failing use prints, run for real in one Python process."""
    payload = json.dumps([library.setup, list(library.uses.values())])
    done = subprocess.run([sys.executable, "-c", RUNNER], input=payload, capture_output=True, text=True,
                          timeout=120, check=True)
    return dict(zip(library.uses, json.loads(done.stdout)))


def pastes(site: Site) -> list[Paste]:
    """Return every failing use's output in each paste form, with the records that document its error."""
    library = site.library
    spans = _Spans(site.repo)
    namespace: dict[str, Any] = {"__name__": "app"}
    exec(compile(library.setup, "app.py", "exec"), namespace)
    found = []
    for use, output in printed(library).items():
        error = _caught(library, library.uses[use], namespace)
        expected = documenting(error, site, spans)
        for form, text in zip(FORMS, forms(library, output, error)):
            found.append(Paste(library.name, use, form, text, expected))
    return found


def _caught(library: Library, use: str, namespace: dict[str, Any]) -> BaseException:
    """Return the exception a use raises in this process (click's, unhandled by its standalone mode)."""
    code = use[:-1] + ", standalone_mode=False)" if library.cli else use
    try:
        exec(compile(code, "app.py", "exec"), namespace)
    except BaseException as error:  # noqa: BLE001 - any exception is the one under test
        return error
    raise AssertionError(f"{library.name}: {use} did not fail")


def forms(library: Library, output: str, error: BaseException) -> tuple[str, str, str]:
    """Return an output as pasted: the message only, its last line with the class, the whole output."""
    if library.cli:
        last = output.strip().splitlines()[-1]
        return last.split(": ", 1)[1], last, output
    cls = type(error)
    name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    start = output.rindex("\n" + name + ":") + 1
    line = output[start:].rstrip("\n")
    return line[len(name) + 2:], line, output


class _Spans:
    """The line span of every raise, call and return in the library's files, for telling which frame a record is at."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.ends: dict[str, dict[int, int]] = {}

    def covers(self, record: dict[str, Any], path: str, line: int) -> bool:
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


_RELAY = re.compile(r"\{[^{}]*\}")
"""A message that is one placeholder passes on the text of the error it handled."""


def documenting(error: BaseException, site: Site, spans: _Spans) -> frozenset[str]:
    """Return the records that document a caught error: at its innermost frame of the library that has one
    (through a record that passes a handled error's text on, the handled error's), else its class's own message."""
    package = site.library.package
    root = Path(importlib.import_module(package).__file__ or "").parent
    current: BaseException | None = error
    while current is not None:
        frames = []
        tb = current.__traceback__
        while tb is not None:
            filename = Path(tb.tb_frame.f_code.co_filename)
            if filename.is_relative_to(root):
                frames.append((package + "/" + filename.relative_to(root).as_posix(), tb.tb_lineno))
            tb = tb.tb_next
        at: list[str] = next((hit for path, line in reversed(frames)
                              if (hit := [i for i, r in site.records.items() if spans.covers(r, path, line)])), [])
        if at and not all(_RELAY.fullmatch(site.records[i]["message"]) for i in at):
            return frozenset(at)
        if not at:
            break
        current = current.__cause__ or current.__context__
    # The class of the error whose text was printed: the handled one, when the raise passed its text on.
    for cls in [*(type(current).__mro__ if current is not None else ()), *type(error).__mro__]:
        own = [i for i, r in site.records.items()
               if r["exception"] == cls.__qualname__ and r["source"].get("function", "").startswith(cls.__qualname__ + ".")]
        if own:
            return frozenset(own)
    return frozenset()


@dataclass(frozen=True)
class Measure:
    """How lookup did on one library's pastes."""

    pastes: int
    first: int
    """Pastes whose first answer documents the error (or is a page that lists the one that does)."""
    confident_wrong: int
    """Pastes whose first answer is confident and neither documents the error nor lists the page that does."""
    through_places: int
    """Pastes whose first answer is right only as a page that lists the raise that documents the error."""
    missed: tuple[tuple[str, str, str], ...]
    """(use, form, first id) of each paste whose first answer is not right."""


def right(result: dict[str, Any], expected: frozenset[str]) -> bool:
    """Return whether an answer documents the error: its page, or a page that says it covers that one's raise."""
    return bool({result["id"], *result["places"]} & expected)


def measure(site: Site, cases: list[Paste]) -> Measure:
    """Return how often lookup puts a page that documents the error first, and how often it is confidently wrong."""
    first = wrong = listed = 0
    missed = []
    for case in cases:
        results = site.search(case.text)
        top = results[0] if results else None
        ok = top is not None and right(top, case.expected)
        first += ok
        listed += bool(ok and top is not None and top["id"] not in case.expected)
        wrong += bool(top and top["confident"] and not ok)
        if not ok:
            missed.append((case.use, case.form, top["id"] if top else ""))
    return Measure(len(cases), first, wrong, listed, tuple(missed))


def confident_elsewhere(site: Site, cases: list[Paste]) -> list[tuple[str, str, str]]:
    """Return (library, use, form) of each paste of another library that the site answers confidently."""
    return [(c.library, c.use, c.form) for c in cases if any(r["confident"] for r in site.search(c.text)[:1])]
