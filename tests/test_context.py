"""What extract writes of the code around each raise: `source.guard`, `source.callers`, `source.names`."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from test_gitrepo import Repo

from errorsite import cli, load, validate
from errorsite.extract import sync
from errorsite.sitebuild import state
from errorsite.extract.scan import scan_files
from errorsite.extract.sites import RaiseSite
from errorsite.model import Caller, Definition
from errorsite.recordjson import dumps

FIXTURE = Path(__file__).parent / "fixtures" / "context" / "guards.py"


def canonical(condition: str) -> str:
    """Return a condition as `ast.unparse` writes it (`except`/`case` lines are not expressions: kept as they are)."""
    if condition.startswith(("except", "case ")):
        return condition
    return ast.unparse(ast.parse(condition, mode="eval"))


def sites(files: dict[str, str]) -> dict[str, RaiseSite]:
    """Return the sites of `files` by message."""
    found = scan_files({path: text.encode() for path, text in files.items()}, context=True).sites
    return {site.message: site for site in found}


GUARDS = [
    ("nested if", ["a > 0", "b is None"]),
    ("elif", ["mode != 'fast'", "mode == 'slow'"]),
    ("else of an elif chain", ["mode != 'fast'", "mode != 'slow'", "mode not in ('a', 'b')"]),
    ("early exits in two blocks", ["items", "item is not None", "item > limit"]),
    ("while", ["queue and queue[0] != 'stop'"]),
    ("while else", ["not (queue and queue[0] != 'stop')"]),
    ("except tuple", ["except (OSError, ValueError)"]),
    ("except then if", ["except KeyError", "error.args"]),
    ("except", ["except Exception"]),
    ("case with guard", ["case ['go', direction] if direction != 'up'"]),
    ("case mapping", ["case {'kind': 'load', **rest}"]),
    ("and, or, not", ["a and (b or not c)"]),
    ("walrus", ["not (a and (b or not c))", "(n := len(data)) > 10 and not (a or b)"]),
    ("for and with add nothing", []),
    ("inner function's own guard", ["value < 0"]),
    ("the call in a test is not guarded by that test", []),
]


@pytest.mark.parametrize(("message", "expected"), GUARDS, ids=[m for m, _ in GUARDS])
def test_guard_of_every_construct(message: str, expected: list[str]) -> None:
    found = sites({"pkg/guards.py": FIXTURE.read_text(encoding="utf-8")})
    assert found[message].guard == tuple(canonical(c) for c in expected)


def test_guard_text_is_what_ast_unparse_writes() -> None:
    found = sites({"pkg/guards.py": FIXTURE.read_text(encoding="utf-8")})
    assert found["else of an elif chain"].guard[2] == "mode not in ('a', 'b')"
    assert found["walrus"].guard[1] == "(n := len(data)) > 10 and (not (a or b))"


def test_a_negation_is_printed_as_what_it_says_only_where_exactly_equivalent() -> None:
    # sglang 0.5.23: `if not cfg.enable_amd_monokernel: return` read `not not cfg.enable_amd_monokernel`, and
    # `if cfg.pp_size != 1: raise` before a raise `not cfg.pp_size != 1`.
    text = ("def f(cfg, x, y, items):\n"
            "    if not cfg.enabled:\n        return\n"
            "    if cfg.pp_size != 1:\n        raise ValueError('pp')\n"
            "    if x is not None:\n        raise ValueError('x')\n"
            "    if y not in items:\n        raise ValueError('y')\n"
            "    if x < y:\n        raise ValueError('order')\n"
            "    if x == y == 0:\n        raise ValueError('chain')\n"
            "    if x and y:\n        raise ValueError('and')\n"
            "    raise ValueError('last')\n")
    found = sites({"pkg/a.py": text})
    # `not x < y` holds for a NaN where `x >= y` does not; a chain and a conjunction stay as they are.
    assert found["last"].guard == ("cfg.enabled", "cfg.pp_size == 1", "x is None", "y in items", "not x < y",
                                   "not x == y == 0", "not (x and y)")


def test_an_assert_raises_when_its_test_fails() -> None:
    text = "def f(x):\n    if x:\n        assert x > 2, 'x must be above two'\n"
    found = {s.message: s for s in scan_files({"a.py": text.encode()}, asserts=True).sites}
    assert found["x must be above two"].guard == ("x", "not x > 2")


PACKAGE = {
    "pkg/core.py": (
        "def _validate(size):\n"
        "    if size < 0:\n"
        "        raise ValueError(f'size {size} must not be negative')\n"
        "\n"
        "\n"
        "class Pool:\n"
        "    def __init__(self, workers):\n"
        "        if workers < 1:\n"
        "            raise ValueError('a pool needs workers')\n"
        "\n"
        "    def resize(self, n):\n"
        "        raise RuntimeError(f'cannot resize to {n}')\n"
        "\n"
        "    def get(self, key):\n"
        "        raise KeyError('no such thing here')\n"
        "\n"
        "    def grow(self):\n"
        "        self.resize(len(self.workers) + 1)\n"
    ),
    "pkg/api.py": (
        "from .core import Pool, _validate\n"
        "\n"
        "\n"
        "def _internal(size):\n"
        "    _validate(size)\n"
        "\n"
        "\n"
        "def allocate(size):\n"
        "    _validate(size)\n"
        "    _validate(size * 2)\n"
        "\n"
        "\n"
        "def start(config):\n"
        "    pool = Pool(4)\n"
        "    pool.resize(2)\n"
        "    return config.get('workers')\n"
    ),
    "pkg/_private.py": "from .core import _validate\n\n\ndef helper(size):\n    return _validate(size)\n",
}


def test_callers_across_modules_public_first() -> None:
    found = sites(PACKAGE)
    assert found["size {size} must not be negative"].callers == (
        Caller("pkg/api.py", 9, "allocate"),
        Caller("pkg/_private.py", 5, "helper"),
        Caller("pkg/api.py", 5, "_internal"),
    )


def test_callers_of_a_constructor_and_of_methods() -> None:
    found = sites(PACKAGE)
    assert found["a pool needs workers"].callers == (Caller("pkg/api.py", 14, "start"),)
    assert found["cannot resize to {n}"].callers == (Caller("pkg/api.py", 15, "start"), Caller("pkg/core.py", 18, "Pool.grow"))
    # `config.get(...)` is as likely a dict's: it is no caller of Pool.get.
    assert found["no such thing here"].callers == ()


def test_at_most_five_callers() -> None:
    calls = "".join(f"def use{n}():\n    run()\n\n\n" for n in range(8))
    found = sites({"a.py": "def run():\n    raise ValueError('ran')\n\n\n" + calls})
    assert [c.function for c in found["ran"].callers] == ["use0", "use1", "use2", "use3", "use4"]


NAMES = {
    "tool/cli.py": (
        "import argparse\n"
        "\n"
        "import click\n"
        "\n"
        "\n"
        "def main(argv=None):\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--num-workers', type=int, help='How many worker processes to start.')\n"
        "    args = parser.parse_args(argv)\n"
        "    if args.num_workers < 1:\n"
        "        raise SystemExit(f'--num-workers must be positive, got {args.num_workers}')\n"
        "\n"
        "\n"
        "@click.command()\n"
        "@click.option('--page-size', '-p', type=int, help='Tokens per KV-cache page.')\n"
        "def serve(page_size):\n"
        "    if page_size % 2:\n"
        "        raise click.BadParameter(f'page size {page_size} must be even')\n"
    ),
    "tool/config.py": (
        "from dataclasses import dataclass, field\n"
        "from typing import Annotated, ClassVar\n"
        "\n"
        "from pydantic import BaseModel, Field\n"
        "\n"
        "MAX_LEN = 4096\n"
        '"""Longest input, in tokens."""\n'
        "\n"
        "\n"
        "@dataclass\n"
        "class ServerArgs:\n"
        "    chunk_size: int = 8\n"
        '    """Tokens per prefill chunk."""\n'
        "    max_batch: Annotated[int, 'The most requests in one batch.'] = 32\n"
        "    dtype: str = field(default='auto', metadata={'help': 'Data type of the weights.'})\n"
        "    registry: ClassVar[dict] = {}\n"
        "\n"
        "    def check(self):\n"
        "        if self.dtype != 'auto' and self.chunk_size > self.max_batch:\n"
        "            raise ValueError(f'chunk_size {self.chunk_size} exceeds max_batch {self.max_batch}')\n"
        "\n"
        "\n"
        "class Limits(BaseModel):\n"
        "    timeout: float = Field(30.0, description='Seconds to wait for a reply.')\n"
        "\n"
        "\n"
        "def clip(n, limits):\n"
        '    """Clip a length.\n'
        "\n"
        "    Args:\n"
        "        n: the length to clip, in tokens.\n"
        "        limits: the limits to clip to.\n"
        '    """\n'
        "    if n > MAX_LEN or limits.timeout < 0:\n"
        "        raise ValueError(f'{n} is longer than {MAX_LEN}')\n"
        "\n"
        "\n"
        "def _check_size(size):\n"
        "    if size < 0:\n"
        "        raise ValueError(f'size {size} must not be negative')\n"
        "\n"
        "\n"
        "def resize(size):\n"
        '    """:param size: the new size, in pages."""\n'
        "    _check_size(size)\n"
    ),
}


def test_names_of_a_parameter_options_fields_and_constants() -> None:
    found = sites(NAMES)
    assert dict(found["--num-workers must be positive, got {args.num_workers}"].names) == {
        "args.num_workers": Definition("tool/cli.py", 8, "option", "How many worker processes to start.", "--num-workers"),
    }
    assert dict(found["page size {page_size} must be even"].names) == {
        "page_size": Definition("tool/cli.py", 15, "option", "Tokens per KV-cache page.", "--page-size"),
    }
    assert dict(found["chunk_size {self.chunk_size} exceeds max_batch {self.max_batch}"].names) == {
        "self.chunk_size": Definition("tool/config.py", 12, "option", "Tokens per prefill chunk."),
        "self.max_batch": Definition("tool/config.py", 14, "option", "The most requests in one batch."),
        "self.dtype": Definition("tool/config.py", 15, "option", "Data type of the weights."),
    }
    assert dict(found["{n} is longer than {MAX_LEN}"].names) == {
        "n": Definition("tool/config.py", 27, "parameter", "the length to clip, in tokens."),
        "MAX_LEN": Definition("tool/config.py", 6, "constant", "Longest input, in tokens."),
        "limits.timeout": Definition("tool/config.py", 24, "option", "Seconds to wait for a reply."),
    }


def test_a_local_variable_is_not_an_option_of_another_file() -> None:
    files = {**NAMES, "tool/pool.py": "def spawn():\n    num_workers = 3\n    raise ValueError(f'cannot start {num_workers}')\n"}
    assert sites(files)["cannot start {num_workers}"].names == ()


def test_a_private_functions_parameter_is_set_at_its_public_caller() -> None:
    found = sites(NAMES)
    assert dict(found["size {size} must not be negative"].names) == {
        "size": Definition("tool/config.py", 43, "parameter", "the new size, in pages."),
    }


def test_the_fields_are_written_validated_and_read_back(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    for path, text in NAMES.items():
        repo.write(path, text)
    repo.commit()
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "acme/tool", content, [], [], False)
    raws = load.load(content).records
    data = {raw.data["message"]: raw.data for raw in raws}["page size {page_size} must be even"]
    assert data["source"]["guard"] == ["page_size % 2"]
    assert data["source"]["names"] == {"page_size": {"path": "tool/cli.py", "line": 15, "kind": "option",
                                                      "flag": "--page-size", "help": "Tokens per KV-cache page."}}
    assert "callers" not in data["source"]
    site = validate.build_site(load.load(content))
    record = next(r for r in site.records if r.message == "page size {page_size} must be even")
    assert record.source.guard == ("page_size % 2",)
    assert not record.written


def test_a_changed_guard_is_rewritten_without_review_and_prose_is_kept(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("a.py", "def f(x):\n    if x:\n        raise ValueError('bad x')\n")
    repo.commit()
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "acme/a", content, [], [], False)
    path = next((content / "errors").glob("*.json"))
    prose = {"meaning": "x was set.", "when": {"trigger": "Setting x."}, "analysis": {"by": "human"}}
    path.write_text(dumps({**json.loads(path.read_text(encoding="utf-8")), **prose}), encoding="utf-8")
    # Only the test changes: the snippet changes too, so the pin moves; nothing the prose says is touched.
    repo.write("a.py", "def f(x):\n    if x > 1:\n        raise ValueError('bad x')\n")
    repo.commit()
    sync.run(repo.path, "HEAD", "acme/a", content, [], [], False)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["source"]["guard"] == ["x > 1"]
    assert {k: data[k] for k in prose} == prose
    assert data["review"]["why"] == "code changed"  # the snippet's code changed, as before 1.2


def test_context_alone_is_written_into_a_record_without_a_review(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("a.py", "def f(x):\n    if x:\n        raise ValueError('bad x')\n")
    repo.commit()
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "acme/a", content, [], [], False)
    path = next((content / "errors").glob("*.json"))
    data = json.loads(path.read_text(encoding="utf-8"))
    # A record written before 1.2, with prose: same pin, no guard yet.
    old = {**data, "meaning": "x was set.", "source": {k: v for k, v in data["source"].items() if k not in ("guard", "names")}}
    path.write_text(dumps(old), encoding="utf-8")
    report = sync.run(repo.path, "HEAD", "acme/a", content, [], [], False)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["source"]["guard"] == ["x"]
    assert "review" not in data
    assert data["meaning"] == "x was set."
    assert [c.note for c in report.changed] == ["guard, callers or names updated"]
    # A second run finds nothing to do.
    report = sync.run(repo.path, "HEAD", "acme/a", content, [], [], False)
    assert len(report.unchanged) == 1 and not report.changed


def test_too_many_callers_is_a_problem() -> None:
    raw = load.RawRecord("content/errors/a.json", {
        "id": "a", "exception": "ValueError", "message": "bad",
        "source": {"commit": "abcdef1", "path": "a.py", "line": 1, "snippet": {"start": 1, "code": "raise"},
                   "callers": [{"path": "b.py", "line": n, "function": "f"} for n in range(1, 7)]},
    })
    problems = list(validate.check_record(raw))
    assert [(p.pointer, p.reason) for p in problems] == [("/source/callers", "has 6 items; at most 5 are allowed")]


def test_the_built_page_says_it_and_the_builds_state_keeps_it(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    for path, text in NAMES.items():
        repo.write(path, text)
    repo.commit()
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "acme/tool", content, [], [], False)
    record = next(r for r in validate.build_site(load.load(content)).records
                  if r.message == "page size {page_size} must be even")
    assert state.decode(state.encode(record)) == record
    assert cli.main(["build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet"]) == 0
    html = (tmp_path / "site" / "errors" / record.id / "index.html").read_text(encoding="utf-8")
    assert "<h3 id=\"from-the-code\">From the code</h3>" in html
    assert "the option <code>--page-size</code>" in html and "Tokens per KV-cache page." in html
    assert "This page is not yet written" in html


def test_a_field_of_another_file_only_when_its_name_is_unique_and_the_receiver_is_named_for_its_class() -> None:
    # Two classes `limits` is named for (a Limits in two files) hold a `timeout`: neither is known to be it.
    files = {**NAMES, "tool/other.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Limits:\n    timeout: int = 1\n",
             "tool/use.py": ("def wait(limits):\n    raise TimeoutError(f'gave up after {limits.timeout} s')\n\n\n"
                             "def parse(leaf):\n    raise ValueError(f'bad leaf, timeout {leaf.timeout}')\n")}
    assert sites(files)["gave up after {limits.timeout} s"].names == ()
    del files["tool/other.py"]
    assert dict(sites(files)["gave up after {limits.timeout} s"].names) == {
        "limits.timeout": Definition("tool/config.py", 24, "option", "Seconds to wait for a reply."),
    }
    # `leaf` is no Limits: a field that only shares the attribute's name sets nothing here.
    assert sites(files)["bad leaf, timeout {leaf.timeout}"].names == ()

def test_a_local_variable_is_no_field_of_a_class_in_its_file() -> None:
    # rich 13.9.4, traceback.py: `exc_type, ... = sys.exc_info()` in Traceback.__init__ is no field of the dataclass Stack.
    text = ("from dataclasses import dataclass\nimport sys\n\n\n@dataclass\nclass Stack:\n    exc_type: str\n\n\n"
            "def show(trace=None):\n    if trace is None:\n        exc_type, value, tb = sys.exc_info()\n"
            "        if exc_type is None:\n            raise ValueError('trace required outside an except block')\n")
    found = sites({"pkg/tb.py": text})["trace required outside an except block"]
    assert dict(found.names) == {"trace": Definition("pkg/tb.py", 10, "parameter", None)}


def test_a_method_called_on_self_of_a_class_that_defines_it_calls_that_method_only() -> None:
    # rich 13.9.4: `self.get(name)` in Layout.__getitem__ calls Layout.get, not Capture.get nor Measurement.get.
    files = {
        "pkg/capture.py": "class Capture:\n    def get(self):\n        raise ValueError('no result yet')\n",
        "pkg/layout.py": ("class Layout:\n    def get(self, name):\n        return None\n\n"
                          "    def __getitem__(self, name):\n        return self.get(name)\n\n\n"
                          "class Child(Capture):\n    def use(self):\n        return self.get()\n"),
    }
    found = sites(files)["no result yet"]
    # Child defines no get: self.get() there is an inherited one, maybe Capture's.
    assert found.callers == (Caller("pkg/layout.py", 11, "Child.use"),)
    # Layout.get's own caller is still found.
    layout = "class Layout:\n    def get(self, name):\n        raise KeyError(f'no layout {name}')\n\n    def __getitem__(self, name):\n        return self.get(name)\n"
    assert sites({"pkg/layout.py": layout})["no layout {name}"].callers == (Caller("pkg/layout.py", 6, "Layout.__getitem__"),)
    # rich's PromptBase.__call__ calls self.process_response(...): the override of Confirm, a class based on it, too.
    prompt = ("class PromptBase:\n    def process_response(self, value):\n        return value\n\n"
              "    def __call__(self):\n        return self.process_response('x')\n\n\n"
              "class Confirm(PromptBase):\n    def process_response(self, value):\n        raise ValueError('enter Y or N')\n")
    assert sites({"pkg/prompt.py": prompt})["enter Y or N"].callers == (Caller("pkg/prompt.py", 6, "PromptBase.__call__"),)
    # rich's Stack, a list, calls self.append(...): a list's, not Text.append; a mixin's self.fetch() is its sibling's.
    files = {"pkg/text.py": "class Text:\n    def append(self, text):\n        raise ValueError('only str or Text')\n",
             "pkg/stack.py": "class Stack(list):\n    def push(self, item):\n        self.append(item)\n",
             "pkg/mixin.py": ("class Base:\n    def fetch(self):\n        raise ValueError('nothing to fetch')\n\n\n"
                              "class Mixin:\n    def run(self):\n        return self.fetch()\n\n\n"
                              "class Job(Mixin, Base):\n    pass\n\n\nclass Other:\n    def go(self):\n        return self.fetch()\n")}
    assert sites(files)["only str or Text"].callers == ()
    assert sites(files)["nothing to fetch"].callers == (Caller("pkg/mixin.py", 8, "Mixin.run"),)


def test_a_function_of_a_module_from_outside_the_repository_is_no_caller() -> None:
    # rich 13.9.4: `os.open(os.devnull, ...)` in Console.on_broken_pipe is no call of Progress.open.
    files = {
        "pkg/progress.py": "class Progress:\n    def open(self, mode):\n        raise ValueError(f'invalid mode {mode!r}')\n",
        "pkg/console.py": ("import os\nimport pkg.progress as progress_module\n\n\n"
                           "def broken_pipe():\n    return os.open(os.devnull, os.O_WRONLY)\n\n\n"
                           "def read(progress):\n    return progress.open('rb')\n\n\n"
                           "def read_module():\n    return progress_module.open('rb')\n"),
    }
    found = sites(files)["invalid mode {mode!r}"]
    # `progress_module.open(...)` on a module of the library calls a function of that module, not a method.
    assert found.callers == (Caller("pkg/console.py", 10, "read"),)


def test_new_callers_move_the_pin_to_the_commit_their_lines_are_at(tmp_path: Path) -> None:
    # The page links each caller at the record's pin: a caller's line read at a later commit needs that commit.
    repo = Repo(tmp_path / "repo")
    repo.write("pkg/core.py", "def check(size):\n    if size > 9:\n        raise ValueError(f'size {size} too big')\n")
    repo.write("pkg/api.py", "from .core import check\n\n\ndef run(size):\n    check(size)\n")
    first = repo.commit()
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "acme/pkg", content, [], [], False)
    path = next((content / "errors").glob("*.json"))
    prose = {"meaning": "size was above 9.", "analysis": {"by": "human"}}
    path.write_text(dumps({**json.loads(path.read_text(encoding="utf-8")), **prose}), encoding="utf-8")
    repo.write("pkg/api.py", "from .core import check\n\n\ndef start(size):\n    check(size)\n\n\ndef run(size):\n    check(size)\n")
    second = repo.commit()
    report = sync.run(repo.path, "HEAD", "acme/pkg", content, [], [], False)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["source"]["callers"] == [{"path": "pkg/api.py", "line": 5, "function": "start"},
                                         {"path": "pkg/api.py", "line": 9, "function": "run"}]
    assert data["source"]["commit"] == second != first
    assert "review" not in data and data["meaning"] == prose["meaning"]
    assert [c.note for c in report.repinned] == ["guard, callers or names updated"]
    # Nothing new at a third commit that touches neither: the pin stays.
    repo.write("README", "x\n")
    repo.commit()
    sync.run(repo.path, "HEAD", "acme/pkg", content, [], [], False)
    assert json.loads(path.read_text(encoding="utf-8"))["source"]["commit"] == second


def test_callers_and_names_that_only_moved_leave_the_record_alone(tmp_path: Path) -> None:
    # A comment added at the top of the caller's file moves its line: at the record's pin, which the page links,
    # the caller is where the record says, so the record is not rewritten (sglang: a two-line header re-pinned them).
    repo = Repo(tmp_path / "repo")
    repo.write("pkg/core.py", "def check(size):\n    if size > 9:\n        raise ValueError(f'size {size} too big')\n")
    repo.write("pkg/api.py", "from .core import check\n\n\ndef run(size):\n    check(size)\n")
    repo.commit()
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "acme/pkg", content, [], [], False)
    path = next((content / "errors").glob("*.json"))
    before = path.read_bytes()
    repo.write("pkg/api.py", "# Copyright the authors.\n# Licensed under the MIT license.\n"
                             "from .core import check\n\n\ndef run(size):\n    check(size)\n")
    repo.commit()
    report = sync.run(repo.path, "HEAD", "acme/pkg", content, [], [], False)
    assert path.read_bytes() == before and not report.repinned and not report.changed


def test_a_method_called_on_a_class_of_the_library_is_that_classs() -> None:
    # rich 13.9.4: Theme.__init__'s Style.parse(style) and ansi.py's _Style.parse(...) are no calls of Color.parse.
    files = {
        "pkg/color.py": "class Color:\n    @classmethod\n    def parse(cls, text):\n        raise ValueError(f'{text!r} is not a valid color')\n",
        "pkg/style.py": ("from .color import Color\n\n\nclass Style:\n    @classmethod\n    def parse(cls, text):\n"
                         "        return Color.parse(text)\n"),
        "pkg/theme.py": ("from .style import Style\nfrom .style import Style as _Style\n\n\n"
                         "def theme(text):\n    return Style.parse(text)\n\n\ndef decode(text):\n    return _Style.parse(text)\n\n\n"
                         "def other(parser, text):\n    return parser.parse(text)\n"),
    }
    found = sites(files)["{text!r} is not a valid color"]
    # parser.parse, on a receiver of unknown class, may be Color's or Style's: neither is taken.
    assert found.callers == (Caller("pkg/style.py", 7, "Style.parse"),)


def test_a_base_imported_under_another_name_is_that_base() -> None:
    # sglang 0.5.23: KimiK3ImageProcessor(SGLangBaseProcessor), imported as
    # `from .base_processor import BaseMultimodalProcessor as SGLangBaseProcessor`, overrides get_mm_data,
    # which BaseMultimodalProcessor.get_validated_mm_data calls as self.get_mm_data(...).
    files = {
        "pkg/base.py": ("class BaseProcessor:\n    def get_mm_data(self):\n        return None\n\n"
                        "    def validated(self):\n        return self.get_mm_data()\n"),
        "pkg/kimi.py": ("from .base import BaseProcessor as SGLangBaseProcessor\n\n\n"
                        "class KimiProcessor(SGLangBaseProcessor):\n    def get_mm_data(self):\n"
                        "        raise ValueError('expected one image size')\n"),
    }
    assert sites(files)["expected one image size"].callers == (Caller("pkg/base.py", 6, "BaseProcessor.validated"),)


def test_a_closure_reads_its_enclosing_functions_parameter_and_a_copy_reads_its_field() -> None:
    # sglang 0.5.23: scoring_func_impl, inside fused_topk_torch_native(..., scoring_func="softmax"), raises
    # f"Invalid scoring function: {scoring_func}"; ForwardBatch._compute_mrope_positions copies
    # forward_mode = self.forward_mode before it raises with {forward_mode}.
    text = ("from dataclasses import dataclass\n\n\n@dataclass\nclass TopKConfig:\n    scoring_func: str = 'softmax'\n\n\n"
            "def fused_topk(scores, scoring_func='softmax'):\n    def impl(x):\n"
            "        raise ValueError(f'Invalid scoring function: {scoring_func}')\n    return impl(scores)\n\n\n"
            "@dataclass\nclass Batch:\n    forward_mode: str\n    \"\"\"How the batch runs.\"\"\"\n\n"
            "    def positions(self):\n        forward_mode = self.forward_mode\n"
            "        raise RuntimeError(f'unsupported forward_mode: {forward_mode}')\n")
    found = sites({"pkg/topk.py": text})
    assert dict(found["Invalid scoring function: {scoring_func}"].names) == {
        "scoring_func": Definition("pkg/topk.py", 9, "parameter", None)}
    assert dict(found["unsupported forward_mode: {forward_mode}"].names) == {
        "forward_mode": Definition("pkg/topk.py", 17, "option", "How the batch runs.")}


def test_an_attribute_call_on_anything_but_a_module_calls_no_module_level_function() -> None:
    # rich 13.9.4: console.render(...), style.render(...) and `render = self.render; render(...)` are no calls of
    # markup.render; Console.render_str's render_markup(...) (`from .markup import render as render_markup`) is.
    files = {
        "pkg/markup.py": "def render(text):\n    raise ValueError(f'closing tag {text!r} has nothing to close')\n",
        "pkg/console.py": ("from . import markup\nfrom .markup import render as render_markup\nimport pkg.markup\n\n\n"
                           "class Console:\n    def render(self, item):\n        return item\n\n"
                           "    def print(self, item):\n        render = self.render\n        return render(item)\n\n"
                           "    def render_str(self, text):\n        return render_markup(text)\n\n\n"
                           "def align(console, style, text):\n    console.render(text)\n    return style.render(text)\n\n\n"
                           "def from_module(text):\n    return markup.render(text)\n\n\n"
                           "def dotted(text):\n    return pkg.markup.render(text)\n\n\n"
                           "def given(render, text):\n    return render(text)\n"),
        "pkg/style.py": "class Style:\n    def render(self, text):\n        raise ValueError('no style to render')\n",
    }
    found = sites(files)
    callers = {(c.line, c.function) for c in found["closing tag {text!r} has nothing to close"].callers}
    assert callers == {(15, "Console.render_str"), (24, "from_module"), (28, "dotted")}
    # style.render is Style's (the receiver is named for it); console.render is Console's, not Style's.
    assert found["no style to render"].callers == (Caller("pkg/console.py", 20, "align"),)


def test_a_method_on_a_receiver_of_unknown_class_is_taken_only_when_one_class_defines_it() -> None:
    # rich 13.9.4: stdout.write(...) and write_file.write(...) are no calls of FileProxy.write nor of _Reader.write;
    # `_Style = Style` then `_Style.parse(...)` calls Style.parse, not Color.parse; markdown-it's parser.parse neither.
    files = {
        "pkg/proxy.py": "class FileProxy:\n    def write(self, text):\n        raise TypeError('write requires a str')\n",
        "pkg/reader.py": "class Reader:\n    def write(self, data):\n        raise OSError('cannot write to a reader')\n",
        "pkg/color.py": "class Color:\n    def parse(self, text):\n        raise ValueError('not a color')\n",
        "pkg/style.py": "class Style:\n    def parse(self, text):\n        raise ValueError('not a style')\n",
        "pkg/pool.py": "class Pool:\n    def resize(self, n):\n        raise ValueError('cannot resize')\n",
        "pkg/use.py": ("import sys\nfrom .style import Style\n\n\n"
                       "def save(write_file, stdout, text):\n    write_file.write(text)\n    sys.stdout.write(text)\n"
                       "    return stdout.write(text)\n\n\n"
                       "def decode(text):\n    _Style = Style\n    return _Style.parse(text)\n\n\n"
                       "def markdown(parser, text):\n    return parser.parse(text)\n\n\n"
                       "def grow(thing):\n    return thing.resize(2)\n"),
    }
    found = sites(files)
    assert found["write requires a str"].callers == found["cannot write to a reader"].callers == ()
    assert found["not a color"].callers == ()
    assert found["not a style"].callers == (Caller("pkg/use.py", 13, "decode"),)
    # Only Pool defines resize: thing.resize(...) is still its caller.
    assert found["cannot resize"].callers == (Caller("pkg/use.py", 21, "grow"),)


def test_a_method_defined_by_one_class_and_its_subclasses_is_called_on_any_receiver() -> None:
    # rich 13.9.4: context.stack.top.on_child_close(...) runs MarkdownElement's or an override's.
    files = {
        "pkg/md.py": ("class Element:\n    def close(self):\n        return True\n\n\n"
                      "class Table(Element):\n    def close(self):\n        raise ValueError('table closed twice')\n\n\n"
                      "def render(stack):\n    return stack.top.close()\n"),
    }
    assert sites(files)["table closed twice"].callers == (Caller("pkg/md.py", 12, "render"),)


def test_an_overload_stub_is_not_where_a_parameter_is_defined() -> None:
    # rich 13.9.4: Progress.open's `mode` is the real definition's, with its help, not the first stub's.
    text = ("import typing\nfrom typing import overload\n\n\nclass Progress:\n"
            "    @typing.overload\n    def open(self, mode: str) -> int: ...\n\n"
            "    @overload\n    def open(self, mode: bytes) -> int: ...\n\n"
            "    def open(self, mode):\n        \"\"\"Open.\n\n        Args:\n            mode: The mode to open with.\n        \"\"\"\n"
            "        if mode not in ('r', 'rb'):\n            raise ValueError(f'invalid mode {mode!r}')\n")
    found = sites({"pkg/progress.py": text})["invalid mode {mode!r}"]
    assert dict(found.names) == {"mode": Definition("pkg/progress.py", 12, "parameter", "The mode to open with.")}


def test_a_receiver_made_by_calling_a_class_calls_that_classs_method_only() -> None:
    # httpx 0.28.1: `decoder = TextDecoder()` then `decoder.flush()` is TextDecoder's flush, not DeflateDecoder's;
    # `self._pool = httpcore.ConnectionPool(...)` (or another of httpcore's classes) then `self._pool.handle_request()`
    # is httpcore's, not MockTransport's; `decoder = self._get_decoder()` may be any decoder.
    files = {
        "pkg/decoders.py": ("class Decoder:\n    def flush(self):\n        return b''\n\n\n"
                            "class DeflateDecoder(Decoder):\n    def flush(self):\n        raise ValueError('truncated deflate')\n\n\n"
                            "class TextDecoder:\n    def flush(self):\n        return ''\n"),
        "pkg/transport.py": ("import httpcore\n\n\nclass Transport:\n    def handle(self, request):\n        return request\n\n\n"
                             "class MockTransport(Transport):\n    def handle(self, request):\n"
                             "        raise RuntimeError('no mock answer')\n\n\n"
                             "class HTTPTransport(Transport):\n    def __init__(self, proxy):\n"
                             "        if proxy:\n            self._pool = httpcore.HTTPProxy()\n"
                             "        else:\n            self._pool = httpcore.ConnectionPool()\n\n"
                             "    def handle(self, request):\n        return self._pool.handle(request)\n\n\n"
                             "def send(transport, request):\n    return transport.handle(request)\n"),
        "pkg/models.py": ("from .decoders import TextDecoder\n\n\nclass Response:\n"
                          "    def text(self):\n        decoder = TextDecoder()\n        return decoder.flush()\n\n"
                          "    def iter_bytes(self):\n        decoder = self._get_decoder()\n        return decoder.flush()\n"),
    }
    found = sites(files)
    assert found["truncated deflate"].callers == (Caller("pkg/models.py", 11, "Response.iter_bytes"),)
    assert found["no mock answer"].callers == (Caller("pkg/transport.py", 26, "send"),)


def test_a_receiver_whose_name_only_looks_like_a_classs_is_not_of_that_class() -> None:
    # httpx 0.28.1: `decoder` is no DeflateDecoder for its letters; `text_decoder` is named for TextDecoder.
    files = {
        "pkg/decoders.py": ("class DeflateDecoder:\n    def flush(self):\n        raise ValueError('truncated deflate')\n\n\n"
                            "class TextDecoder:\n    def flush(self):\n        raise ValueError('text flushed twice')\n"),
        "pkg/use.py": ("def finish(decoder):\n    return decoder.flush()\n\n\n"
                       "def close(text_decoder):\n    return text_decoder.flush()\n"),
    }
    found = sites(files)
    assert found["truncated deflate"].callers == ()
    assert found["text flushed twice"].callers == (Caller("pkg/use.py", 6, "close"),)


def test_a_method_or_function_of_another_library_is_no_caller() -> None:
    # httpx 0.28.1: `self._pool.handle_request(...)` on httpcore's pool is no call of MockTransport.handle_request,
    # whether the pool's class is told by a call, an annotation or a declared attribute; `request(...)` imported from
    # httpcore is not the library's own `request`.
    files = {
        "pkg/mock.py": ("class MockTransport:\n    def handle_request(self, request):\n"
                        "        raise RuntimeError('no mock answer')\n"),
        "pkg/api.py": "def request(method):\n    raise ValueError(f'unknown method {method}')\n",
        "pkg/transport.py": ("import httpcore\nfrom httpcore import request\n\nfrom .mock import MockTransport\n\n\n"
                             "class HTTPTransport:\n    _pool: httpcore.ConnectionPool\n\n"
                             "    def handle(self, request):\n        return self._pool.handle_request(request)\n\n\n"
                             "def send(pool: httpcore.ConnectionPool, request):\n    return pool.handle_request(request)\n\n\n"
                             "def mocked(transport: MockTransport, request):\n    return transport.handle_request(request)\n\n\n"
                             "def fetch():\n    return request('GET')\n"),
        "pkg/client.py": "from .api import request as send_request\n\n\ndef get():\n    return send_request('GET')\n",
    }
    found = sites(files)
    assert found["no mock answer"].callers == (Caller("pkg/transport.py", 19, "mocked"),)
    assert found["unknown method {method}"].callers == (Caller("pkg/client.py", 5, "get"),)


def test_a_propertys_declared_type_is_the_type_of_what_it_returns() -> None:
    # rich 13.9.4: Console.file is a property `-> IO[str]`: `self.file.write(...)` and `console.file.write(...)`
    # are no calls of FileProxy.write.
    files = {
        "pkg/proxy.py": "class FileProxy:\n    def write(self, text):\n        raise TypeError('write requires a str')\n",
        "pkg/console.py": ("from typing import IO\n\nfrom .proxy import FileProxy\n\n\nclass Console:\n"
                           "    @property\n    def file(self) -> IO[str]:\n        return self._file\n\n"
                           "    @property\n    def proxy(self) -> 'FileProxy':\n        return self._proxy\n\n"
                           "    def write_buffer(self, text):\n        self.file.write(text)\n\n"
                           "    def write_proxy(self, text):\n        self.proxy.write(text)\n"),
        "pkg/bar.py": "from .console import Console\n\n\ndef demo():\n    console = Console()\n    console.file.write('\\r')\n",
    }
    assert sites(files)["write requires a str"].callers == (Caller("pkg/console.py", 19, "Console.write_proxy"),)


def test_super_and_a_nested_function_are_called_where_python_finds_them() -> None:
    # jinja2 3.1.6: Optimizer.generic_visit's super().generic_visit(...) runs NodeTransformer's, not RootVisitor's;
    # attrs 25.3.0: define's wrap(cls) calls define's own nested wrap, not attrs's.
    files = {
        "pkg/visitor.py": ("class NodeVisitor:\n    def generic_visit(self, node):\n        return node\n\n\n"
                           "class NodeTransformer(NodeVisitor):\n    def generic_visit(self, node):\n"
                           "        raise ValueError('transformer failed')\n\n\n"
                           "class RootVisitor(NodeVisitor):\n    def generic_visit(self, node):\n"
                           "        raise NotImplementedError('root visitor')\n\n\n"
                           "class Optimizer(NodeTransformer):\n    def generic_visit(self, node):\n"
                           "        return super().generic_visit(node)\n"),
        "pkg/make.py": ("def attrs(cls):\n    def wrap(cls):\n        raise TypeError('not a class')\n    return wrap(cls)\n\n\n"
                        "def define(cls):\n    def wrap(cls):\n        return cls\n    return wrap(cls)\n"),
    }
    found = sites(files)
    assert found["root visitor"].callers == ()
    assert found["transformer failed"].callers == (Caller("pkg/visitor.py", 18, "Optimizer.generic_visit"),)
    assert found["not a class"].callers == (Caller("pkg/make.py", 4, "attrs"),)
    # sglang 0.5.23: Cosmos3SimAutoSamplingParams._validate's super()._validate() runs its base's own _validate.
    text = ("class Base:\n    def validate(self):\n        raise ValueError('base invalid')\n\n\n"
            "class Mid(Base):\n    def validate(self):\n        super().validate()\n\n\n"
            "class Leaf(Mid):\n    def validate(self):\n        super().validate()\n")
    assert sites({"pkg/params.py": text})["base invalid"].callers == (Caller("pkg/params.py", 8, "Mid.validate"),)


def test_classes_of_one_name_in_two_files_are_told_apart_by_what_each_file_imports() -> None:
    # sglang 0.5.23: srt and multimodal_gen each have a CustomOp; RMSNorm is based on srt's, so multimodal_gen's
    # CustomOp.forward_oot calling its own self.forward_native() is no caller of RMSNorm.forward_native.
    files = {
        "pkg/srt/custom_op.py": "class CustomOp:\n    def forward_native(self):\n        return 1\n\n"
                                "    def dispatch(self):\n        return self.forward_native()\n",
        "pkg/gen/custom_op.py": "class CustomOp:\n    def forward_native(self):\n        return 2\n\n"
                                "    def forward_oot(self):\n        return self.forward_native()\n",
        "pkg/srt/layernorm.py": ("from pkg.srt.custom_op import CustomOp\n\n\nclass RMSNorm(CustomOp):\n"
                                 "    def forward_native(self):\n        raise ValueError('rms norm needs cuda')\n"),
    }
    assert sites(files)["rms norm needs cuda"].callers == (Caller("pkg/srt/custom_op.py", 6, "CustomOp.dispatch"),)


def test_an_attribute_kept_from_an_annotated_parameter_is_of_its_class() -> None:
    # sglang 0.5.23: `self.embedding_store = embedding_store` of a parameter `embedding_store: EmbeddingStore`:
    # its register_buffer(...) is EmbeddingStore's, not MooncakeStore's, the one class that defines it.
    files = {
        "pkg/store.py": "class EmbeddingStore:\n    def close(self):\n        return None\n",
        "pkg/mooncake.py": "class MooncakeStore:\n    def register_buffer(self, tensor):\n        raise ValueError('not registered')\n",
        "pkg/controller.py": ("from .store import EmbeddingStore\n\n\nclass Controller:\n"
                              "    def __init__(self, backend: EmbeddingStore):\n        self._backend = backend\n\n"
                              "    def register(self, tensor):\n        self._backend.register_buffer(tensor)\n\n\n"
                              "def register(store, tensor):\n    return store.register_buffer(tensor)\n"),
    }
    assert sites(files)["not registered"].callers == (Caller("pkg/controller.py", 13, "register"),)


def test_a_parameter_or_a_copied_local_is_no_field_of_an_unrelated_class_of_its_file() -> None:
    # sglang 0.5.23: humming.py's private _validate_deepep_dispatch_input(hidden_states) is no field `hidden_states`
    # of a dataclass of its file; cosmos3_multiview.py's `vision = _view_value(view, "vision")` no field `vision`.
    text = ("from dataclasses import dataclass\n\n\n@dataclass\nclass DispatchOutput:\n    hidden_states: object\n"
            "    vision: str\n\n\n"
            "def _validate(hidden_states):\n    if hidden_states is None:\n        raise ValueError('no hidden states')\n\n\n"
            "def check(view):\n    vision = _view_value(view, 'vision')\n    if not vision:\n"
            "        raise ValueError(f'view has no vision: {vision!r}')\n")
    found = sites({"pkg/moe.py": text})
    assert dict(found["no hidden states"].names) == {"hidden_states": Definition("pkg/moe.py", 10, "parameter", None)}
    assert found["view has no vision: {vision!r}"].names == ()


SEED = {
    "pkg/arg_utils.py": "from typing import Annotated\n\nA = Annotated\n",
    "pkg/fields/spec.py": (
        "from typing import Optional\n\nimport msgspec\n\nfrom pkg.arg_utils import A\n\n\n"
        "class Spec(msgspec.Struct):\n"
        "    speculative_num_draft_tokens: A[\n        Optional[int],\n"
        "        'The number of tokens sampled from the draft model in Speculative Decoding.',\n    ] = None\n"
        "    speculative_dflash_block_size: A[Optional[int], 'DFLASH only. Block size (verify window length).'] = None\n"
    ),
    "pkg/fields/exec_.py": (
        "import msgspec\n\nfrom ..arg_utils import A\n\n\nclass ExecFeatures(msgspec.Struct):\n"
        "    enable_amd_monokernel: A[bool, 'Enable the AMD monokernels.'] = False\n"
    ),
    "pkg/cache.py": "import msgspec\n\n\nclass CacheConfig(msgspec.Struct):\n    pp_size: int\n    tp_size: int\n",
    "pkg/server_args.py": (
        "def add_cli_args(parser):\n"
        "    parser.add_argument('--monokernel-backend', dest='enable_amd_monokernel', choices=['amd'],\n"
        "                        help='Deprecated. Use --enable-amd-monokernel instead of --monokernel-backend amd.')\n"
        "    parser.add_argument('--num-workers', type=int, help='How many workers to start.')\n"
    ),
    "pkg/hook.py": (
        "import argparse\n\n\n"
        "def handle_dflash(server_args):\n"
        "    cfg = resolving_view(server_args)\n"
        "    if cfg.pp_size != 1:\n        raise ValueError('DFLASH only supports pp_size == 1.')\n"
        "    if cfg.speculative_dflash_block_size is not None:\n"
        "        if cfg.speculative_num_draft_tokens != cfg.speculative_dflash_block_size:\n"
        "            raise ValueError(\n"
        "                'Both --speculative-num-draft-tokens and --speculative-dflash-block-size are set but they '\n"
        "                f'differ: speculative_num_draft_tokens={cfg.speculative_num_draft_tokens}.'\n"
        "            )\n\n\n"
        "def require_tokens():\n    raise ValueError('DFLASH requires --speculative-num-draft-tokens')\n\n\n"
        "def handle_monokernel(args: argparse.Namespace):\n"
        "    if args.enable_amd_monokernel and args.num_workers > 1:\n"
        "        raise ValueError('--num-workers must be 1 with the monokernel')\n"
    ),
}


def test_the_flags_a_message_spells_are_found_and_a_receiver_of_unknown_class_is_no_guess() -> None:
    # sglang 0.5.23: "Both --speculative-num-draft-tokens and --speculative-dflash-block-size are set but they
    # differ", in a function whose `cfg` is made by `resolving_view(...)`: the two flags are fields of a
    # msgspec.Struct, with help through `A = Annotated`; `cfg.pp_size` is no field of CacheConfig.
    found = sites(SEED)
    spec = "pkg/fields/spec.py"
    assert dict(found["Both --speculative-num-draft-tokens and --speculative-dflash-block-size are set but they differ: "
                      "speculative_num_draft_tokens={cfg.speculative_num_draft_tokens}."].names) == {
        "cfg.speculative_num_draft_tokens": Definition(
            spec, 9, "option", "The number of tokens sampled from the draft model in Speculative Decoding.",
            "--speculative-num-draft-tokens"),
        "cfg.speculative_dflash_block_size": Definition(
            spec, 13, "option", "DFLASH only. Block size (verify window length).", "--speculative-dflash-block-size"),
    }
    assert found["DFLASH only supports pp_size == 1."].names == ()
    # A flag that nothing reads is listed by its dest.
    assert dict(found["DFLASH requires --speculative-num-draft-tokens"].names) == {
        "speculative_num_draft_tokens": Definition(
            spec, 9, "option", "The number of tokens sampled from the draft model in Speculative Decoding.",
            "--speculative-num-draft-tokens")}


def test_a_deprecated_alias_gives_way_to_the_flag_it_names() -> None:
    # sglang 0.5.23: `--monokernel-backend` (dest enable_amd_monokernel) says "Deprecated. Use --enable-amd-monokernel":
    # the field's current flag sets it; a flag the message spells is its option, with its help.
    found = sites(SEED)["--num-workers must be 1 with the monokernel"]
    assert dict(found.names) == {
        "args.enable_amd_monokernel": Definition("pkg/fields/exec_.py", 7, "option", "Enable the AMD monokernels.",
                                                 "--enable-amd-monokernel"),
        "args.num_workers": Definition("pkg/server_args.py", 4, "option", "How many workers to start.", "--num-workers"),
    }
    # A current option of that flag comes before the field.
    files = {**SEED, "pkg/server_args.py": SEED["pkg/server_args.py"] + (
        "    parser.add_argument('--enable-amd-monokernel', action='store_true', help='Use the AMD monokernels.')\n")}
    assert dict(sites(files)["--num-workers must be 1 with the monokernel"].names)["args.enable_amd_monokernel"] == (
        Definition("pkg/server_args.py", 5, "option", "Use the AMD monokernels.", "--enable-amd-monokernel"))
    # sglang's handle_amd_monokernel: `{FLAG} cannot run this setup`, FLAG = "--enable-amd-monokernel" imported, and
    # `cfg = resolving_view(server_args)`: the flag the message prints is what sets `cfg.enable_amd_monokernel`.
    files = {**SEED, "pkg/amd_spec.py": "FLAG = '--enable-amd-monokernel'\n",
             "pkg/binding.py": ("from .amd_spec import FLAG\n\n\ndef handle(server_args):\n"
                                "    cfg = resolving_view(server_args)\n    if not cfg.enable_amd_monokernel:\n        return\n"
                                "    raise ValueError(f'{FLAG} cannot run this setup')\n")}
    assert dict(sites(files)["{FLAG} cannot run this setup"].names) == {
        "FLAG": Definition("pkg/amd_spec.py", 1, "constant"),
        "cfg.enable_amd_monokernel": Definition("pkg/fields/exec_.py", 7, "option", "Enable the AMD monokernels.",
                                                "--enable-amd-monokernel"),
    }


def test_an_attribute_is_set_by_a_constructors_parameter_only_when_the_constructor_keeps_it() -> None:
    # jinja2 3.1.6: Node.__init__(self, *fields) checks the class attribute `self.fields`, which it never sets;
    # httpx 0.28.1: Client.__init__ passes max_redirects to BaseClient.__init__, which keeps it.
    text = ("class Node:\n    fields = ()\n\n    def __init__(self, *fields):\n        if len(fields) != len(self.fields):\n"
            "            raise TypeError(f'takes {len(self.fields)} arguments')\n\n\n"
            "class Base:\n    def __init__(self, max_redirects=20):\n        self.max_redirects = max_redirects\n\n\n"
            "class Client(Base):\n    def __init__(self, max_redirects=20):\n        super().__init__(max_redirects=max_redirects)\n\n"
            "    def send(self, history):\n        if len(history) > self.max_redirects:\n"
            "            raise RuntimeError(f'more than {self.max_redirects} redirects')\n")
    found = sites({"pkg/nodes.py": text})
    assert dict(found["takes {len(self.fields)} arguments"].names) == {
        "fields": Definition("pkg/nodes.py", 4, "parameter", None)}
    assert dict(found["more than {self.max_redirects} redirects"].names) == {
        "self.max_redirects": Definition("pkg/nodes.py", 15, "parameter", None),
        "history": Definition("pkg/nodes.py", 18, "parameter", None)}


def test_a_constant_is_the_one_its_file_imports() -> None:
    # sglang 0.5.23: the nvidia binding's FLAG is imported from nvidia/spec.py, not amd/spec.py's FLAG;
    # `DispatcherOutputDtype.BF16` is an attribute of a class, no module constant BF16 of another file.
    files = {
        "pkg/amd/spec.py": "FLAG = '--enable-amd-monokernel'\nBF16 = 1\n",
        "pkg/nvidia/spec.py": "FLAG = '--enable-nvidia-megakernel'\n",
        "pkg/nvidia/binding.py": ("from pkg.nvidia.spec import FLAG\nfrom . import spec\n\n\n"
                                  "def install(reasons, dtype):\n    if reasons:\n"
                                  "        raise ValueError(f'{FLAG} cannot run: {reasons}')\n"
                                  "    if dtype != DispatcherOutputDtype.BF16:\n"
                                  "        raise ValueError(f'{spec.FLAG} needs bf16')\n"),
    }
    found = sites(files)
    assert dict(found["{FLAG} cannot run: {reasons}"].names)["FLAG"] == Definition("pkg/nvidia/spec.py", 1, "constant")
    assert dict(found["{spec.FLAG} needs bf16"].names) == {
        "spec.FLAG": Definition("pkg/nvidia/spec.py", 1, "constant"),
        "reasons": Definition("pkg/nvidia/binding.py", 5, "parameter", None),
        "dtype": Definition("pkg/nvidia/binding.py", 5, "parameter", None)}
