"""Finding raise sites: message templates, names, snippets, file selection, and check --source."""

from __future__ import annotations

import ast
import bisect
import hashlib
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_gitrepo import Repo

from errorsite.extract import sync
from errorsite.extract.globs import FileFilter
from errorsite.extract.scan import WINDOW, scan_files
from errorsite.extract.sites import Scan

MESSAGE_FORMS = [
    # (raise statement, exception, message template)
    ('raise ValueError("plain")', "ValueError", "plain"),
    ('raise ValueError("literal {braces} }")', "ValueError", "literal {{braces}} }}"),
    ("raise ValueError('single' \"implicit\" 'concat')", "ValueError", "singleimplicitconcat"),
    ('raise ValueError(f"got {a!r} and {b}")', "ValueError", "got {a!r} and {b}"),
    ('raise ValueError(f"{view.attention_backend!r} unsupported")', "ValueError",
     "{view.attention_backend!r} unsupported"),
    ('raise ValueError(f"{x:.2f} {a!s:>10} {b!a}")', "ValueError", "{x:.2f} {a!s:>10} {b!a}"),
    ('raise ValueError(f"{x:>{width}.{b}f}")', "ValueError", "{x:>{width}.{b}f}"),
    ('raise ValueError(f"{{literal}} {a}")', "ValueError", "{{literal}} {a}"),
    ("raise ValueError(f\"key {d['k']} and {d.get('x', 1)}\")", "ValueError", "key {d['k']} and {d.get('x', 1)}"),
    ('raise ValueError("plain " f"{a}" " tail")', "ValueError", "plain {a} tail"),
    ('raise ValueError(f"{a + b:>4}")', "ValueError", "{a + b:>4}"),
    ('raise ValueError("got {} and {name}".format(a, name=b))', "ValueError", "got {} and {name}"),
    ('raise ValueError("got %s and %d%%" % (a, b))', "ValueError", "got %s and %d%%"),
    ('raise ValueError("got %(a)r" % {"a": a})', "ValueError", "got %(a)r"),
    ('raise ValueError("got " + repr(a) + " and " + b)', "ValueError", "got {repr(a)} and {b}"),
    ('raise ValueError(a + " tail")', "ValueError", "{a} tail"),
    ('raise ValueError(msg="by keyword")', "ValueError", "by keyword"),
    ('raise HTTPError(status=404, detail="no such page")', "HTTPError", "no such page"),
    ('raise HTTPError(code="E1", message="the message")', "HTTPError", "the message"),
    ('raise ValueError(_("translated"))', "ValueError", "translated"),
    ('raise ValueError(gettext("translated {n}"))', "ValueError", "translated {{n}}"),
    ('raise ValueError(_("got {n}").format(n=a))', "ValueError", "got {n}"),
    ('raise ValueError(_("got %s") % a)', "ValueError", "got %s"),
    ('raise ValueError(ngettext("one file", "%d files", b) % b)', "ValueError", "one file"),
    ('raise ValueError(trans.gettext_lazy("lazy"))', "ValueError", "lazy"),
    ('raise HTTPError(404, "first string wins", "second")', "HTTPError", "first string wins"),
    ('raise errors.ConfigError("dotted")', "errors.ConfigError", "dotted"),
    ('raise pkg.errors.ConfigError("deep") from a', "pkg.errors.ConfigError", "deep"),
    ('raise ValueError("chained") from None', "ValueError", "chained"),
    ('raise ValueError("ünïcödé → ☃")', "ValueError", "ünïcödé → ☃"),
]


def scan_file(path: str, data: bytes, asserts: bool = False) -> Scan:
    """Return what a scan of a repository holding only this one file finds."""
    return scan_files({path: data}, asserts)


def body(statement: str) -> bytes:
    """Return a module whose function `f` holds `statement`."""
    return f"def f(a, b, x, view, d, width, trans):\n    {statement}\n".encode()


@pytest.mark.parametrize(("statement", "exception", "message"), MESSAGE_FORMS)
def test_message_forms(statement: str, exception: str, message: str) -> None:
    scan = scan_file("m.py", body(statement))
    assert [(s.line, s.function, s.exception, s.message) for s in scan.sites] == [(2, "f", exception, message)]


MULTILINE_FSTRING = (
    "def f(a, d):\n"
    "    raise ValueError(\n"
    "        f\"first {a!r} \"\n"
    "        f'then {d[\"k\"]:>{a}} '\n"
    "        f\"\"\"and {len(\n"
    "            d)}\"\"\"\n"
    "    )\n"
)
MULTILINE_TEMPLATE = 'first {a!r} then {d["k"]:>{a}} and {len(\n            d)}'
"""The template of MULTILINE_FSTRING: each field as written, line break and indent included."""


def test_multiline_fstring_expressions_keep_their_text() -> None:
    [site] = scan_file("m.py", MULTILINE_FSTRING.encode()).sites
    assert site.line == 2
    assert site.message == MULTILINE_TEMPLATE


Span = tuple[int, int, int, int]
"""(lineno, col_offset, end_lineno, end_col_offset) of a node; columns count UTF-8 bytes, as ast's do."""
Layout = Callable[[ast.JoinedStr], list[Span]]
"""Where each part of an f-string (or of a format spec) goes."""


def whole_fstring(joined: ast.JoinedStr) -> list[Span]:
    """Every part at the place of its whole f-string, as Python 3.11 and older parse it."""
    return [(joined.lineno, joined.col_offset, joined.end_lineno or 0, joined.end_col_offset or 0)] * len(joined.values)


def own_places(text: str) -> Layout:
    """Each part at a place of its own, as Python 3.12 and later parse it: a field from its `{` to its `}`,
    literal text between the fields."""
    data = text.encode()
    starts = [0, *itertools.accumulate(len(line) for line in data.splitlines(keepends=True))]

    def offset(line: int | None, col: int | None) -> int:
        return starts[(line or 1) - 1] + (col or 0)

    def position(at: int, end: bool = False) -> tuple[int, int]:
        # An end at a line's start is the end of the line before, as ast places it.
        line = (bisect.bisect_left if end else bisect.bisect_right)(starts, at) - 1
        return line + 1, at - starts[line]

    def inside(joined: ast.JoinedStr) -> tuple[int, int]:
        """Return where the f-string's text starts, after prefix and quotes, and ends, before its closing quotes."""
        begin, end = offset(joined.lineno, joined.col_offset), offset(joined.end_lineno, joined.end_col_offset)
        while chr(data[begin]) in "rRbBfFuU":
            begin += 1
        opening, closing = data[begin:begin + 3], data[end - 3:end]
        return (begin + (3 if len(set(opening)) == 1 else 1),
                end - (3 if len(set(closing)) == 1 else 1))

    def field(part: ast.FormattedValue) -> tuple[int, int]:
        # The expression's place is exact on every version; the field's braces are around it.
        expr = part.value
        end, depth = offset(expr.end_lineno, expr.end_col_offset), 0
        while data[end] != ord("}") or depth:
            depth += {ord("{"): 1, ord("}"): -1}.get(data[end], 0)
            end += 1
        return data.rindex(b"{", 0, offset(expr.lineno, expr.col_offset)), end + 1

    def layout(joined: ast.JoinedStr) -> list[Span]:
        fields = [field(part) if isinstance(part, ast.FormattedValue) else None for part in joined.values]
        edges = inside(joined)
        spans: list[Span] = []
        for n, found in enumerate(fields):
            if found is None:
                # Literal text: from the field before (or the opening quotes) to the field after (or the closing ones).
                before = fields[n - 1] if n else None
                after = fields[n + 1] if n + 1 < len(fields) else None
                found = (before[1] if before else edges[0], after[0] if after else edges[1])
            spans.append((*position(found[0]), *position(found[1], end=True)))
        return spans

    return layout


def nowhere(joined: ast.JoinedStr) -> list[Span]:
    """Every part at an empty span that holds none of its text, unlike either parser."""
    return [(1, 0, 1, 0)] * len(joined.values)


def laid_out(tree: ast.AST, layout: Layout | None, split: bool) -> ast.AST:
    """Return `tree` with the parts of its f-strings placed by `layout`, its literal parts cut in two if `split`."""
    for joined in [node for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)]:
        spans = layout(joined) if layout is not None else [None] * len(joined.values)
        parts: list[ast.expr] = []
        for part, span in zip(joined.values, spans):
            if span is not None:
                part.lineno, part.col_offset, part.end_lineno, part.end_col_offset = span
            if split and isinstance(part, ast.Constant) and isinstance(part.value, str) and len(part.value) > 1:
                parts += [ast.copy_location(ast.Constant(part.value[:1]), part),
                          ast.copy_location(ast.Constant(part.value[1:]), part)]
            else:
                parts.append(part)
        joined.values = parts
    return tree


def test_the_parser_places_fstring_parts_as_its_version_does() -> None:
    """PEP 701 (Python 3.12) gives each part of an f-string its own place; before, each had the whole f-string's.

    `whole_fstring` and `own_places` lay parts out both ways, so each version tests the templates under both.
    """
    source = 'f"aaa{b}ccc"'
    joined = ast.parse(source, mode="eval").body
    assert isinstance(joined, ast.JoinedStr)
    native = [(part.lineno, part.col_offset, part.end_lineno, part.end_col_offset) for part in joined.values]
    assert native == (own_places(source) if sys.version_info >= (3, 12) else whole_fstring)(joined)
    assert own_places(source)(joined) == [(1, 2, 1, 5), (1, 5, 1, 8), (1, 8, 1, 11)]


@pytest.mark.parametrize(("layout", "split"), [("whole", False), ("own", False), ("nowhere", False), (None, True)])
def test_templates_do_not_depend_on_how_the_parser_lays_out_fstrings(
    layout: str | None, split: bool, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Python 3.12 parses f-strings anew (PEP 701): where their parts are placed, and literal text
    in one or several pieces, must not change a template (test_message_forms holds them as parsed)."""
    parse = ast.parse

    def parse_laid_out(source: str | bytes, *args: Any, **kwargs: Any) -> ast.AST:
        tree = parse(source, *args, **kwargs)
        # The scan parses a file as ast.parse(text); expressions it parses again (mode="eval") stay as they are.
        if args or kwargs:
            return tree
        text = source.decode() if isinstance(source, bytes) else source
        layouts: dict[str | None, Layout | None] = {
            "whole": whole_fstring, "own": own_places(text), "nowhere": nowhere, None: None}
        return laid_out(tree, layouts[layout], split)

    monkeypatch.setattr(ast, "parse", parse_laid_out)
    found = [[s.message for s in scan_file("m.py", body(statement)).sites] for statement, _, _ in MESSAGE_FORMS]
    [multiline] = scan_file("m.py", MULTILINE_FSTRING.encode()).sites
    assert found == [[message] for _, _, message in MESSAGE_FORMS]
    assert multiline.message == MULTILINE_TEMPLATE


SKIPPED_FORMS = [
    ("raise", "bare raise"),
    ("raise a", "without a message"),
    ("raise ValueError", "without a message"),
    ("raise ValueError()", "no message"),
    ("raise ValueError(a)", "computed elsewhere"),
    ("raise ValueError(str(a))", "computed elsewhere"),
    ("raise ValueError(a.format(b))", "computed elsewhere"),
    ('raise ValueError(", ".join(a))', "computed elsewhere"),
    ('raise ValueError(b"bytes")', "computed elsewhere"),
    ('raise type(a)("computed class")', "class is computed"),
    ('raise ValueError("")', "empty message"),
]


@pytest.mark.parametrize(("statement", "reason"), SKIPPED_FORMS)
def test_raises_without_a_literal_message_are_skipped_with_a_reason(statement: str, reason: str) -> None:
    scan = scan_file("m.py", body(statement))
    assert scan.sites == ()
    [skipped] = scan.skipped
    assert (skipped.path, skipped.line) == ("m.py", 2)
    assert reason in skipped.reason


def test_qualified_function_names() -> None:
    source = b'''\
raise RuntimeError("module")

class Outer:
    raise RuntimeError("class body")

    class Inner:
        async def method(self):
            raise RuntimeError("inner method")

    def method(self):
        def helper():
            def deepest():
                raise RuntimeError("deepest")
        raise RuntimeError("method")

def function():
    class Local:
        def m(self):
            raise RuntimeError("local class")
    try:
        pass
    except Exception:
        raise RuntimeError("in handler")
    finally:
        if True:
            raise RuntimeError("in finally")
    match x:
        case 1:
            raise RuntimeError("in match")
'''
    scan = scan_file("m.py", source)
    assert [(s.message, s.function) for s in scan.sites] == [
        ("module", ""), ("class body", "Outer"), ("inner method", "Outer.Inner.method"),
        ("deepest", "Outer.method.helper.deepest"), ("method", "Outer.method"),
        ("local class", "function.Local.m"), ("in handler", "function"), ("in finally", "function"),
        ("in match", "function"),
    ]


def test_asserts_only_when_asked() -> None:
    source = b'def f(x):\n    assert x, "x must be set"\n    assert x\n    assert x, f"got {x}"\n    assert x, x\n'
    assert scan_file("m.py", source).sites == ()
    scan = scan_file("m.py", source, asserts=True)
    assert [(s.line, s.exception, s.message) for s in scan.sites] == [
        (2, "AssertionError", "x must be set"), (4, "AssertionError", "got {x}")]
    assert [(s.line, s.reason) for s in scan.skipped] == [(5, "assert message computed elsewhere")]


def test_an_exception_a_validator_yields_is_a_site() -> None:
    # Validators that report every problem yield their errors (jsonschema's keywords), which a
    # caller raises: each yielded exception with a message is a site, of kind "yield".
    source = (b'class SchemaError(Exception):\n    pass\n\n\nclass Note:\n    pass\n\n\n'
              b'def required(instance, names):\n'
              b'    for name in names:\n'
              b'        if name not in instance:\n'
              b'            yield SchemaError(f"{name!r} is a required property")\n'
              b'    yield ValueError("no properties at all")\n'
              b'    yield Note("not an exception")\n'
              b'    yield instance\n')
    scan = scan_file("m.py", source)
    assert [(s.line, s.exception, s.message, s.kind) for s in scan.sites] == [
        (12, "SchemaError", "{name!r} is a required property", "yield"), (13, "ValueError", "no properties at all", "yield")]
    assert scan.by_kind()["yield"] == 2


def test_line_of_a_multiline_raise_is_the_raise_keyword() -> None:
    source = b'def f():\n    x = 1\n    raise ValueError(\n        "spread "\n        "out"\n    )\n'
    [site] = scan_file("m.py", source).sites
    assert site.line == 3


def test_short_function_snippet_is_the_whole_function_with_decorators() -> None:
    source = b'import x\n\n@decorator\n@other(\n    1)\ndef f():\n    """Doc."""\n\n    raise ValueError("v")\n\nafter = 1\n'
    [site] = scan_file("m.py", source).sites
    assert site.snippet_start == 3
    assert site.snippet_code == '@decorator\n@other(\n    1)\ndef f():\n    """Doc."""\n\n    raise ValueError("v")'


def test_long_function_snippet_is_a_window_clipped_to_the_function() -> None:
    lines = ["def f(x):"] + [f"    x{n} = {n}" for n in range(60)] + ["    raise ValueError('late')", "y = 1"]
    source = "\n".join(lines) + "\n"
    [site] = scan_file("m.py", source.encode()).sites
    assert site.line == 62
    assert site.snippet_start == 62 - WINDOW
    assert site.snippet_code == "\n".join(lines[62 - WINDOW - 1:62])

    early = ["def f(x):", "    raise ValueError('early')"] + [f"    x{n} = {n}" for n in range(60)]
    [site] = scan_file("m.py", "\n".join(early).encode()).sites
    assert (site.snippet_start, site.snippet_code) == (1, "\n".join(early[:2 + WINDOW]))


def test_module_level_snippet_is_a_window_clipped_to_the_file() -> None:
    lines = [f"x{n} = {n}" for n in range(30)]
    lines[20] = 'raise SystemExit("stop")'
    [site] = scan_file("m.py", ("\n".join(lines) + "\n").encode()).sites
    assert site.function == ""
    assert site.snippet_start == 21 - WINDOW
    assert site.snippet_code == "\n".join(lines[21 - WINDOW - 1:30])


def test_crlf_tabs_and_lone_cr_are_kept_verbatim() -> None:
    source = b'def f(x):\r\n\tif x:\r\n\t\traise ValueError("tab\\tcrlf")\r\n\treturn x\r\n'
    [site] = scan_file("m.py", source).sites
    assert (site.line, site.message) == (3, "tab\tcrlf")
    assert site.snippet_code == 'def f(x):\r\n\tif x:\r\n\t\traise ValueError("tab\\tcrlf")\r\n\treturn x'

    old_mac = b'def f():\r    x = 1\r    raise ValueError("cr")\r'
    [site] = scan_file("m.py", old_mac).sites
    assert (site.line, site.snippet_code) == (3, 'def f():\r    x = 1\r    raise ValueError("cr")')


def test_form_feed_is_not_a_line_break() -> None:
    source = b'\x0c\ndef f():\n    x = 1 \x0c\n    raise ValueError("ff")\n'
    [site] = scan_file("m.py", source).sites
    assert site.line == 4
    assert site.snippet_code == 'def f():\n    x = 1 \x0c\n    raise ValueError("ff")'


def test_coding_cookie_and_bom_are_honoured() -> None:
    latin = '# -*- coding: latin-1 -*-\ndef f():\n    raise ValueError("café")\n'.encode("latin-1")
    [site] = scan_file("m.py", latin).sites
    assert site.message == "café"
    assert "café" in site.snippet_code

    bom = b'\xef\xbb\xbfdef f():\n    raise ValueError("bom")\n'
    [site] = scan_file("m.py", bom).sites
    assert (site.snippet_start, site.snippet_code) == (1, 'def f():\n    raise ValueError("bom")')


@pytest.mark.parametrize(("data", "reason"), [
    (b"def f(:\n    raise ValueError('x')\n", "line 1"),
    (b"x = 1\x00\nraise ValueError('x')\n", "null"),
    (b"raise ValueError('\xff\xfe not utf-8')\n", "cannot decode"),
    (b"x = 1\ny = 2\nraise ValueError('\xff\xfe not utf-8')\n", "cannot decode: 'utf-8' codec"),
    (b"# coding: no-such-codec\nraise ValueError('x')\n", "no-such-codec"),
])
def test_unparsable_files_are_reported_not_fatal(data: bytes, reason: str) -> None:
    scan = scan_files({"bad.py": data, "good.py": b"raise ValueError('fine')\n"})
    assert [s.path for s in scan.sites] == ["good.py"]
    [failure] = scan.failures
    assert failure.path == "bad.py"
    assert reason in failure.reason.lower()


@pytest.mark.parametrize(("path", "selected"), [
    ("pkg/mod.py", True),
    ("mod.py", True),
    ("pkg/mod.pyi", False),
    ("setup.cfg", False),
    ("tests/test_mod.py", False),
    ("tests/helpers.py", False),
    ("pkg/tests/helpers.py", False),
    ("pkg/test/helpers.py", False),
    ("pkg/test_mod.py", False),
    ("pkg/mod_test.py", False),
    ("pkg/conftest.py", False),
    ("docs/conf.py", False),
    ("doc/conf.py", False),
    ("pkg/docs/util.py", True),
    ("examples/demo.py", False),
    ("pkg/examples/demo.py", False),
    ("pkg/testing.py", True),
    ("pkg/contest.py", True),
])
def test_default_file_selection(path: str, selected: bool) -> None:
    assert FileFilter.of([], [])(path) is selected


def test_user_globs() -> None:
    chosen = FileFilter.of(["src/**/*.py", "tools/[ab]?.py"], ["src/vendor/**", "*_pb2.py"])
    assert chosen("src/pkg/deep/mod.py")
    assert chosen("src/mod.py")
    assert chosen("tools/a1.py")
    assert not chosen("tools/c1.py")
    assert not chosen("tools/a12.py")
    assert not chosen("lib/mod.py")
    assert not chosen("src/vendor/six.py")
    assert not chosen("src/api_pb2.py")
    assert not chosen("src/tests/test_x.py")
    assert FileFilter.of(["*.py"], ["[!a]*.py"])("abc.py")
    assert not FileFilter.of(["*.py"], ["[!a]*.py"])("xbc.py")
    assert not FileFilter.of(["pkg/*.py"], [])("pkg/sub/mod.py")


def commit_sources(repo: Repo, files: dict[str, str | bytes]) -> str:
    """Write `files` into `repo`, commit, and return the commit id."""
    for name, content in files.items():
        repo.write(name, content)
    return repo.commit()


def test_run_writes_one_skeleton_record_per_site(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    commit = commit_sources(repo, {
        "pkg/a.py": 'def f(x):\n    if x:\n        raise ValueError(f"bad {x!r}")\n    raise ValueError(x)\n',
        "pkg/ünï.py": 'raise KeyError("ünïcode ☃")\n',
        "tests/test_a.py": 'raise ValueError("test only")\n',
        "broken.py": "def (\n",
    })
    content = tmp_path / "content"
    report = sync.run(repo.path, "HEAD", "owner/name", content, [], [], False)
    assert report.commit == commit
    assert len(report.added) == 2
    assert [(s.path, s.line) for s in report.skipped] == [("pkg/a.py", 4)]
    assert [f.path for f in report.failures] == ["broken.py"]
    records = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in (content / "errors").iterdir()}
    expected_id = hashlib.sha256(b"owner/name\npkg/a.py\nf\nValueError\nbad {x!r}").hexdigest()[:16]
    assert records[f"{expected_id}.json"] == {
        "id": expected_id, "exception": "ValueError", "message": "bad {x!r}",
        "source": {
            "repo": "owner/name", "commit": commit, "path": "pkg/a.py", "line": 3, "function": "f",
            "snippet": {"start": 1, "code": 'def f(x):\n    if x:\n        raise ValueError(f"bad {x!r}")\n    raise ValueError(x)'},
            "guard": ["x"],
            "names": {"x": {"path": "pkg/a.py", "line": 1, "kind": "parameter"}},
        },
    }
    [unicode] = [r for r in records.values() if r["exception"] == "KeyError"]
    assert unicode["source"]["path"] == "pkg/ünï.py"
    assert "function" not in unicode["source"]
    text = (content / "errors" / f"{unicode['id']}.json").read_text(encoding="utf-8")
    assert "ünïcode ☃" in text
    assert "cannot parse broken.py: line 1" in "\n".join(report.lines())


def test_a_yielded_error_is_found_from_a_traceback_that_does_not_pass_its_file(tmp_path: Path) -> None:
    # A validator yields the error and the caller raises it: the traceback names the caller's
    # file, not the validator's, and still explains the page it finds.
    from errorsite.sitebuild import pipeline
    from errorsite.search.index import read_index_script
    from errorsite.search.rank import search

    repo = Repo(tmp_path / "repo")
    commit_sources(repo, {
        "pkg/keywords.py": 'from pkg.errors import SchemaError\n\n\ndef required(instance, names):\n'
                           '    for name in names:\n        if name not in instance:\n'
                           '            yield SchemaError(f"{name!r} is a required property")\n',
        "pkg/checks.py": 'def check(size):\n    if size < 0:\n        raise ValueError(f"size {size} is negative")\n',
        "pkg/errors.py": "class SchemaError(Exception):\n    pass\n",
    })
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "owner/name", content, [], [], False)
    pipeline.build(content, tmp_path / "site", jobs=1)
    index = read_index_script((tmp_path / "site" / "search-index.js").read_bytes())
    assert index is not None
    traceback = ('Traceback (most recent call last):\n  File "/venv/lib/pkg/validate.py", line 9, in validate\n'
                 "    raise error\n{}\n")
    [found] = search(index, traceback.format("pkg.errors.SchemaError: 'name' is a required property"), limit=1)
    assert found["kind"] == "full" and found["confident"]
    # A raised error's own file must be in its traceback.
    [other] = search(index, traceback.format("ValueError: size -1 is negative"), limit=1)
    assert other["kind"] == "full" and not other["confident"]


def test_site_order_and_ids_do_not_depend_on_the_listing(tmp_path: Path) -> None:
    files = {f"m{n}.py": b'raise ValueError("same")\nraise ValueError("same")\n' for n in range(3)}
    forward = scan_files(files)
    backward = scan_files(dict(reversed(list(files.items()))))
    assert forward == backward
