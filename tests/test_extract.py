"""Finding raise sites: message templates, names, snippets, file selection, and check --source."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_gitrepo import Repo

from generator.extract import sync
from generator.extract.globs import FileFilter
from generator.extract.scan import WINDOW, scan_files
from generator.extract.sites import Scan

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


def test_multiline_fstring_expressions_keep_their_text() -> None:
    source = (
        "def f(a, d):\n"
        "    raise ValueError(\n"
        "        f\"first {a!r} \"\n"
        "        f'then {d[\"k\"]:>{a}} '\n"
        "        f\"\"\"and {len(\n"
        "            d)}\"\"\"\n"
        "    )\n"
    )
    [site] = scan_file("m.py", source.encode()).sites
    assert site.line == 2
    assert site.message == 'first {a!r} then {d["k"]:>{a}} and {len(\n            d)}'


def working_interpreter(name: str) -> str | None:
    """Return a runnable interpreter called `name` (on PATH or under pyenv), if there is one."""
    version = name.removeprefix("python")
    candidates = [shutil.which(name), *sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python")))]
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "-c", "pass"], capture_output=True).returncode == 0:
            return candidate
    return None


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="already running on 3.12 or later")
@pytest.mark.parametrize("python", ["python3.12", "python3.13"])
def test_templates_are_the_same_on_newer_pythons(python: str) -> None:
    """Python 3.12 parses f-strings anew (PEP 701); templates must not change with it."""
    interpreter = working_interpreter(python)
    if interpreter is None:
        pytest.skip(f"{python} is not installed")
    forms = [statement for statement, _, _ in MESSAGE_FORMS]
    script = (
        "import json, sys\nfrom generator.extract.scan import scan_files\n"
        "forms = json.load(sys.stdin)\n"
        "print(json.dumps([[s.message for s in scan_files({'m.py': "
        "('def f(a, b, x, view, d, width, trans):\\n    ' + f + '\\n').encode()}).sites] for f in forms]))\n"
    )
    result = subprocess.run([interpreter, "-c", script], input=json.dumps(forms), capture_output=True,
                            text=True, cwd=Path(__file__).parent.parent, check=True)
    assert json.loads(result.stdout) == [[message] for _, _, message in MESSAGE_FORMS]


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
        },
    }
    [unicode] = [r for r in records.values() if r["exception"] == "KeyError"]
    assert unicode["source"]["path"] == "pkg/ünï.py"
    assert "function" not in unicode["source"]
    text = (content / "errors" / f"{unicode['id']}.json").read_text(encoding="utf-8")
    assert "ünïcode ☃" in text
    assert "cannot parse broken.py: line 1" in "\n".join(report.lines())


def test_site_order_and_ids_do_not_depend_on_the_listing(tmp_path: Path) -> None:
    files = {f"m{n}.py": b'raise ValueError("same")\nraise ValueError("same")\n' for n in range(3)}
    forward = scan_files(files)
    backward = scan_files(dict(reversed(list(files.items()))))
    assert forward == backward
