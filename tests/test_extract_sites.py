"""Sites beyond a plain raise: helpers, factories, classes with their own message, variables, plurals, warnings, hostile files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_gitrepo import Repo

from errorsite import cli, load, validate
from errorsite.extract import sync
from errorsite.extract.check import check_source
from errorsite.extract.scan import MAX_FILE_BYTES, scan_files
from errorsite.model import SourceSettings
from errorsite.recordjson import dumps

CORPUS = Path(__file__).parent / "data" / "extract_corpus"
"""Standard-library modules copied as they are: argparse, json, tomllib, gettext, configparser."""

CORPUS_SITES = Path(__file__).parent / "data" / "extract_corpus_sites.json"
"""The records extract wrote for the corpus before helpers, classes and variables were read."""


def extract_repo(tmp_path: Path, files: dict[str, str | bytes], **options: bool) -> tuple[Repo, Path, dict]:
    """Commit `files` to a new git repository, extract it, and return the repo, content folder and records by place."""
    repo = Repo(tmp_path / "repo")
    for name, text in files.items():
        repo.write(name, text)
    repo.commit()
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "owner/name", content, **options)
    return repo, content, records_by_place(content)


def records_by_place(content: Path) -> dict[tuple[str, int], dict]:
    """Return the records of a content folder keyed by (path, line)."""
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((content / "errors").glob("*.json"))]
    return {(r["source"]["path"], r["source"]["line"]): r for r in records}


def brief(records: dict[tuple[str, int], dict], path: str) -> dict[int, tuple[str, str]]:
    """Return (exception, message) of the records of one file, by line."""
    return {line: (r["exception"], r["message"]) for (p, line), r in records.items() if p == path}


def test_helpers_across_modules_by_import(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/errors.py": (
            "class ConfigError(Exception):\n    pass\n\n\n"
            "def fail(message, hint=None):\n    raise ConfigError(message)\n"
        ),
        "pkg/a.py": (
            "from .errors import fail\n"
            "import pkg.errors as errs\n"
            "from pkg import errors\n\n\n"
            "def load(path):\n"
            '    fail(f"cannot read {path}")\n'
            '    errs.fail("second form", hint="x")\n'
            '    errors.fail(message="by keyword")\n'
            "    fail(path)\n"
        ),
    })
    assert brief(records, "pkg/a.py") == {
        7: ("ConfigError", "cannot read {path}"),
        8: ("ConfigError", "second form"),
        9: ("ConfigError", "by keyword"),
    }
    assert records[("pkg/a.py", 7)]["source"]["function"] == "load"
    # The raise inside the helper builds its message from a parameter: it is not a site of its own.
    assert brief(records, "pkg/errors.py") == {}


def test_names_imported_in_a_circle_do_not_stop_the_run() -> None:
    scan = scan_files({
        "pkg/__init__.py": b"",
        "pkg/a.py": b'from .b import fail\n\n\ndef f(x):\n    fail("from a")\n',
        "pkg/b.py": b'from .a import fail\n\n\ndef g(x):\n    fail("from b")\n    raise ValueError("still found")\n',
        # A raising method of the same name makes the calls worth resolving.
        "pkg/c.py": b"class P:\n    def fail(self, msg):\n        raise RuntimeError(msg)\n",
    })
    assert [(s.path, s.message) for s in scan.sites] == [("pkg/b.py", "still found")]
    assert [(s.path, s.reason) for s in scan.skipped] == [("pkg/c.py", "message computed elsewhere")]


def test_methods_through_base_classes_and_annotations(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "lib/base.py": (
            "class BadValue(Exception):\n    pass\n\n\n"
            "class Usage(Exception):\n    pass\n\n\n"
            "class ParamType:\n"
            "    def fail(self, message, param=None):\n"
            "        raise BadValue(message)\n\n\n"
            "class Context:\n"
            "    def fail(self, message):\n"
            "        raise Usage(message)\n"
        ),
        "lib/types.py": (
            "from .base import ParamType, Context\n\n\n"
            "class Integer(ParamType):\n"
            "    def convert(self, value, param):\n"
            '        self.fail(f"{value!r} is not a valid integer.", param)\n\n\n'
            "def parse(ctx: 'Context', args):\n"
            '    ctx.fail("Got unexpected extra arguments.")\n\n\n'
            "def unknown(thing):\n"
            '    thing.fail("Two methods named fail raise differently.")\n\n\n'
            "def untyped(ctx, self_ctx):\n"
            '    ctx.fail("Missing command.")\n'
            '    self_ctx.context.fail("Named in full.")\n'
            '    self_ctx.fail("A name that is no short form of one class.")\n'
        ),
    })
    # With no annotation, a receiver named for one of the classes (`ctx` for Context) picks its method.
    assert brief(records, "lib/types.py") == {
        6: ("BadValue", "{value!r} is not a valid integer."),
        10: ("Usage", "Got unexpected extra arguments."),
        18: ("Usage", "Missing command."),
        19: ("Usage", "Named in full."),
    }


def test_a_helper_raising_the_class_its_parameter_defaults_to(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "class TemplateSyntaxError(Exception):\n    pass\n\n\n"
            "class Parser:\n"
            "    def fail(self, msg, lineno=None, exc=TemplateSyntaxError):\n"
            "        raise exc(msg, lineno)\n\n"
            "    def parse(self):\n"
            '        self.fail("tag name expected", 3)\n'
        ),
    })
    assert brief(records, "m.py") == {10: ("TemplateSyntaxError", "tag name expected")}


def test_one_raising_method_of_a_name_resolves_by_name(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "class Parser:\n"
            "    def error(self, msg):\n"
            "        raise SyntaxError(msg)\n\n\n"
            "def use(parser, key):\n"
            '    parser.error("unexpected end of input")\n'
            '    parser.error(key)\n'
            '    parser.error("word")\n'
        ),
    })
    # A one-word literal reads as a key handed to the method, not as a message.
    assert brief(records, "m.py") == {7: ("SyntaxError", "unexpected end of input")}


def test_nested_helpers_to_a_fixed_point_keep_the_text_each_adds(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "def inner(text):\n"
            "    raise RuntimeError(text)\n\n\n"
            "def middle(what, code):\n"
            '    inner("failed: " + what + " (code " + str(code) + ")")\n\n\n'
            "def outer(msg):\n"
            "    def local(m):\n"
            "        middle(m, 2)\n"
            "    local(msg)\n\n\n"
            "def use():\n"
            '    outer("disk full")\n'
            '    middle(f"no {thing}", 5)\n'
        ),
    })
    assert brief(records, "m.py") == {
        16: ("RuntimeError", "failed: disk full (code {str(code)})"),
        17: ("RuntimeError", "failed: no {thing} (code {str(code)})"),
    }


def test_a_helper_whose_raise_spells_its_message_out_is_the_one_site(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "def check(where, ok):\n"
            "    if not ok:\n"
            '        raise OSError(f"{where}: cannot be read")\n\n\n'
            "def use(path):\n"
            '    check(f"{path} at HEAD", False)\n'
        ),
    })
    # The raise is a site as it always was; a call documenting the same error again would be a second page.
    assert brief(records, "m.py") == {3: ("OSError", "{where}: cannot be read")}


def test_factories_give_the_class_they_build_and_the_text_they_add(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "parser/errors.py": (
            "class DecodeError(ValueError):\n    pass\n\n\n"
            "def coord(src, pos):\n    return f\"line {src.count(chr(10), 0, pos) + 1}\"\n\n\n"
            "def make_err(src, pos, msg):\n"
            '    return DecodeError(f"{msg} (at {coord(src, pos)})")\n\n\n'
            "def err_here(src, pos, msg):\n"
            "    return make_err(src, pos, 'near here: ' + msg)\n"
        ),
        "parser/core.py": (
            "from .errors import make_err, err_here\n\n\n"
            "def parse(src, pos):\n"
            '    raise make_err(src, pos, "Invalid value")\n'
            '    raise err_here(src, pos, f"Unclosed {kind}")\n'
        ),
    })
    assert brief(records, "parser/core.py") == {
        5: ("DecodeError", "Invalid value (at {coord(src, pos)})"),
        6: ("DecodeError", "near here: Unclosed {kind} (at {coord(src, pos)})"),
    }


def test_messages_looked_up_by_key_with_subclass_overrides(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "forms/fields.py": (
            "class ValidationError(Exception):\n    pass\n\n\n"
            "class Field:\n"
            '    default_error_messages = {"required": "Missing data.", "too_long": "Longer than {limit} characters."}\n\n'
            "    def __init__(self):\n"
            "        self.error_messages = {}\n"
            "        for cls in reversed(type(self).__mro__):\n"
            '            self.error_messages.update(getattr(cls, "default_error_messages", {}))\n\n'
            "    def error(self, key, **kwargs):\n"
            "        msg = self.error_messages[key]\n"
            "        if isinstance(msg, str):\n"
            "            msg = msg.format(**kwargs)\n"
            "        return ValidationError(msg)\n\n"
            "    def check(self, value, limit):\n"
            "        if value is None:\n"
            '            raise self.error("required")\n'
            "        if len(value) > limit:\n"
            '            raise self.error("too_long", limit=limit)\n\n\n'
            "class Name(Field):\n"
            '    default_error_messages = {"too_long": "Names are at most {limit} long."}\n\n\n'
            "class Code(Field):\n"
            '    default_error_messages = {"invalid": "Not a code."}\n\n'
            "    def check(self, value, limit):\n"
            '        raise self.error("invalid")\n'
        ),
    })
    found = {line: (r["exception"], r["message"], [v["message"] for v in r.get("variants", [])])
             for (path, line), r in records.items() if path == "forms/fields.py"}
    # The dict's value is the message, the class the method builds the exception; a subclass that
    # inherits the raising method and replaces the key gives its wording as an alternative.
    assert found[21] == ("ValidationError", "Missing data.", [])
    assert found[23] == ("ValidationError", "Longer than {limit} characters.", ["Names are at most {limit} long."])
    assert found[34] == ("ValidationError", "Not a code.", [])


def test_class_attribute_templates_formatted_by_a_method(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "v.py": (
            "class ValidationError(Exception):\n    pass\n\n\n"
            "class Range:\n"
            '    below_min = "Must be {op} {{min}}."\n'
            '    message_gte = "at least"\n'
            '    message_gt = "more than"\n'
            '    default_message = "Not in range: {input}."\n\n'
            "    def __init__(self, low, inclusive=True, error=None):\n"
            "        self.low = low\n"
            "        self.error = error or self.default_message\n"
            "        self.below_min = self.below_min.format(op=self.message_gte if inclusive else self.message_gt)\n\n"
            "    def _format_error(self, value, message):\n"
            "        return message.format(input=value, min=self.low)\n\n"
            "    def __call__(self, value):\n"
            "        if value < self.low:\n"
            "            raise ValidationError(self._format_error(value, self.below_min))\n"
            "        message = self.error.format(input=value)\n"
            "        raise ValidationError(message)\n"
        ),
    })
    found = {line: (r["message"], [v["message"] for v in r.get("variants", [])]) for (_, line), r in records.items()}
    assert found[21] == ("Must be at least {min}.", ["Must be more than {min}."])
    assert found[23] == ("Not in range: {input}.", [])
    assert {r["exception"] for r in records.values()} == {"ValidationError"}


def test_factory_methods_that_fill_fields_with_format_map(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "cfg.py": (
            "class ConfigError(Exception):\n    pass\n\n\n"
            "class Section:\n"
            "    def _bad_field(self, msg):\n"
            '        return ConfigError(msg.format_map({"field": self.name}))\n\n'
            "    def load(self, value):\n"
            '        raise self._bad_field(f"{value!r} is not allowed in {{field}}")\n'
        ),
    })
    assert brief(records, "cfg.py") == {10: ("ConfigError", "{value!r} is not allowed in {field}")}


@pytest.mark.parametrize("raise_line, message", [
    ("raise InvalidSpec(str(e)) from e", "{str(e)}"),
    ("raise InvalidSpec(e.args[0]) from e", "{e.args[0]}"),
    ("raise InvalidSpec(e)", "{e}"),
    ("raise InvalidSpec(str(e), source=text) from None", "{str(e)}"),
    ('raise InvalidSpec(f"Invalid spec: {e}") from e', "Invalid spec: {e}"),
])
def test_wrapped_errors_document_the_outer_class(tmp_path: Path, raise_line: str, message: str) -> None:
    _, _, records = extract_repo(tmp_path, {
        "spec.py": (
            "class TokenError(Exception):\n    pass\n\n\n"
            "class InvalidSpec(ValueError):\n    pass\n\n\n"
            "def parse(text):\n"
            "    try:\n"
            "        return tokens(text)\n"
            "    except TokenError as e:\n"
            f"        {raise_line}\n\n\n"
            "def tokens(text):\n"
            '    raise TokenError(f"Expected a name at {text!r}")\n'
        ),
    })
    assert brief(records, "spec.py") == {13: ("InvalidSpec", message), 17: ("TokenError", "Expected a name at {text!r}")}


def test_a_raise_of_a_handled_error_of_another_name_is_no_wrap(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": "def f(detail):\n    raise ValueError(str(detail))\n",
    })
    assert records == {}


def test_classes_that_build_their_own_message(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "errs.py": (
            "class Base(Exception):\n"
            "    def __init__(self, message, ctx=None):\n"
            "        super().__init__(message)\n\n\n"
            "class NoSuchOption(Base):\n"
            "    def __init__(self, option_name, message=None):\n"
            "        if message is None:\n"
            '            message = "No such option: {name}".format(name=option_name)\n'
            "        super().__init__(message)\n\n\n"
            "class Missing(Base):\n"
            "    def format_message(self):\n"
            "        if self.kind == 'argument':\n"
            '            missing = "Missing argument"\n'
            "        else:\n"
            '            missing = "Missing option"\n'
            '        return f"{missing} {self.hint}."\n\n\n'
            "class Old(Exception):\n"
            "    def __init__(self, section):\n"
            '        Exception.__init__(self, "No section: %r" % (section,))\n\n\n'
            "class Plain(Exception):\n"
            "    def __str__(self):\n"
            "        return self.args[0]\n"
        ),
        "use.py": (
            "from errs import NoSuchOption, Missing, Old, Plain\n\n\n"
            "def run(opt):\n"
            "    raise NoSuchOption(opt)\n"
            "    raise Missing(ctx=None)\n"
            "    raise Old\n"
            "    raise Plain(opt)\n"
        ),
    })
    assert brief(records, "errs.py") == {
        10: ("NoSuchOption", "No such option: {name}"),
        19: ("Missing", "Missing argument {self.hint}."),
        24: ("Old", "No section: %r"),
    }
    assert records[("errs.py", 19)]["variants"] == [{"message": "Missing option {self.hint}.", "kind": "alternative"}]
    assert records[("errs.py", 19)]["source"]["function"] == "Missing.format_message"
    # Raises without a message of those classes map to the class's record; Plain has none.
    scan = scan_files({p: (tmp_path / "repo" / p).read_bytes() for p in ("errs.py", "use.py")})
    assert [(m.line, m.to) for m in scan.mapped] == [(5, "errs.py:10"), (6, "errs.py:19"), (7, "errs.py:24")]
    assert [(s.path, s.line, s.reason) for s in scan.skipped] == [("use.py", 8, "message computed elsewhere")]
    assert brief(records, "use.py") == {}


def test_message_variables_and_module_constants(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            'UNKNOWN = "unknown flag {flag}"\n'
            'TOO_MANY = "too many values: %d"\n\n\n'
            "def check(flag, n, kind):\n"
            '    err = "x {flag} is not supported"\n'
            "    if flag:\n"
            "        raise ValueError(err.format(flag=flag))\n"
            "    raise ValueError(UNKNOWN.format(flag=flag))\n"
            "    raise ValueError(TOO_MANY % n)\n"
            "    msg = f'bad {kind}'\n"
            "    raise TypeError(msg)\n"
            "    msg = 'replaced'\n"
            "    raise TypeError(msg)\n"
            "    computed = str(n)\n"
            "    raise TypeError(computed)\n\n\n"
            "def shadow(UNKNOWN):\n"
            "    raise ValueError(UNKNOWN)\n\n\n"
            'CODE = "E102"\n\n\n'
            "def coded(message):\n"
            "    raise ValueError(message, CODE)\n"
        ),
    })
    assert brief(records, "m.py") == {
        8: ("ValueError", "x {flag} is not supported"),
        9: ("ValueError", "unknown flag {flag}"),
        10: ("ValueError", "too many values: %d"),
        12: ("TypeError", "bad {kind}"),
        14: ("TypeError", "replaced"),
    }


def test_a_message_a_property_returns_raised_as_the_class_an_attribute_holds(tmp_path: Path) -> None:
    # jinja2's Undefined: `raise self._undefined_exception(self._undefined_message)`.
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "missing = object()\n\n\n"
            "class UndefinedError(Exception):\n    pass\n\n\n"
            "class Undefined:\n"
            "    failure = UndefinedError\n\n"
            "    def __init__(self, hint=None, obj=missing, name=None, exc=UndefinedError):\n"
            "        self._hint = hint\n"
            "        self._obj = obj\n"
            "        self._name = name\n"
            "        self._exception = exc\n\n"
            "    @property\n"
            "    def _message(self):\n"
            "        if self._hint:\n"
            "            return self._hint\n"
            "        if self._obj is missing:\n"
            '            return f"{self._name!r} is undefined"\n'
            '        return f"{type(self._obj).__name__!r} has no attribute {self._name!r}"\n\n'
            "    def fail(self):\n"
            "        raise self._exception(self._message)\n\n"
            "    def fail_again(self):\n"
            '        raise self.failure("the value was used before it was defined")\n'
        ),
    })
    # The hint a caller gives (`if self._hint: return self._hint`) is the caller's override, as `hint or ...` is.
    assert brief(records, "m.py") == {
        26: ("UndefinedError", "{self._name!r} is undefined"),
        29: ("UndefinedError", "the value was used before it was defined"),
    }
    assert records[("m.py", 26)]["variants"] == [
        {"message": "{type(self._obj).__name__!r} has no attribute {self._name!r}", "kind": "alternative"}]


def test_a_helper_call_gives_the_wordings_of_a_local_variable_its_message_reads(tmp_path: Path) -> None:
    # Jinja's compiler: `self.fail(f"No {type_name} named {node.name!r}.", lineno)` prints `No filter named 'shout'.`
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "class TemplateAssertionError(Exception):\n    pass\n\n\n"
            "class CodeGenerator:\n"
            "    def fail(self, msg, lineno):\n"
            "        raise TemplateAssertionError(msg, lineno)\n\n"
            "    def visit_filter(self, node, is_filter):\n"
            '        type_name = "filter" if is_filter else "test"\n'
            '        self.fail(f"No {type_name} named {node.name!r}.", node.lineno)\n\n'
            "    def visit_test(self, node, is_filter):\n"
            '        kind = "filter" if is_filter else "test"\n'
            '        raise self.fail(f"No {kind} called {node.name!r}.", node.lineno)\n'
        ),
    })
    assert records[("m.py", 11)]["message"] == "No {type_name} named {node.name!r}."
    assert records[("m.py", 11)]["variants"] == [
        {"message": "No filter named {node.name!r}.", "kind": "alternative"},
        {"message": "No test named {node.name!r}.", "kind": "alternative"}]
    assert [v["message"] for v in records[("m.py", 15)]["variants"]] == [
        "No filter called {node.name!r}.", "No test called {node.name!r}."]


def test_a_raise_of_a_class_whose_base_builds_its_message_is_a_site_of_the_class_raised(tmp_path: Path) -> None:
    # attrs: `raise FrozenInstanceError` prints `FrozenInstanceError: can't set attribute`, which FrozenError builds.
    files = {
        "errs.py": (
            "class FrozenError(AttributeError):\n"
            "    def __init__(self):\n"
            '        msg = "can\'t set attribute"\n'
            "        super().__init__(msg)\n\n\n"
            "class FrozenInstanceError(FrozenError):\n"
            "    pass\n"
        ),
        "use.py": (
            "from errs import FrozenError, FrozenInstanceError\n\n\n"
            "def frozen_setattr(self, name):\n"
            "    if name.startswith('_'):\n"
            "        raise FrozenError\n"
            "    raise FrozenInstanceError()\n"
        ),
    }
    _, _, records = extract_repo(tmp_path, files)
    assert brief(records, "errs.py") == {4: ("FrozenError", "can't set attribute")}
    # The class's own raise is its record's; the subclass's is a site of its own, where it is raised.
    assert brief(records, "use.py") == {7: ("FrozenInstanceError", "can't set attribute")}
    assert records[("use.py", 7)]["source"]["function"] == "frozen_setattr"
    assert records[("use.py", 7)]["source"]["guard"] == ["not name.startswith('_')"]
    scan = scan_files({p: (tmp_path / "repo" / p).read_bytes() for p in files})
    assert [(m.line, m.to) for m in scan.mapped] == [(6, "errs.py:4")]


def test_a_closure_follows_the_message_the_function_around_it_assigns(tmp_path: Path) -> None:
    # networkx's `not_implemented_for` decorator builds `errmsg` once and raises it from the function it returns.
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "def not_implemented_for(*graph_types):\n"
            "    errmsg = f\"not implemented for {' '.join(graph_types)} type\"\n\n"
            "    def check(g):\n"
            "        if g.is_directed():\n"
            "            raise NotImplementedError(errmsg)\n"
            "        return g\n\n"
            "    class Checker:\n"
            "        def __call__(self, g):\n"
            "            raise TypeError(errmsg)\n\n"
            "    return check\n\n\n"
            "def own(errmsg):\n"
            "    def check(g):\n"
            "        raise ValueError(errmsg)\n"
            "    return check\n\n\n"
            "def hidden():\n"
            "    errmsg = 'outer words'\n\n"
            "    def check(errmsg):\n"
            "        raise ValueError(errmsg)\n"
            "    return check\n"
        ),
    })
    # A parameter of the function around (line 17), or of the closure itself (line 24), is its caller's: no message.
    assert brief(records, "m.py") == {
        6: ("NotImplementedError", "not implemented for {' '.join(graph_types)} type"),
        11: ("TypeError", "not implemented for {' '.join(graph_types)} type"),
    }


def test_ngettext_and_conditional_messages_give_variants(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "from gettext import ngettext\n\n\n"
            "def f(args, strict):\n"
            '    raise ValueError(ngettext("Got unexpected extra argument ({args})",\n'
            '                              "Got unexpected extra arguments ({args})", len(args)).format(args=args))\n'
            '    raise ValueError("strict mode forbids it" if strict else f"lenient mode warns about {args}")\n'
            '    raise ValueError(ngettext("one file", "%d files", len(args)) % len(args))\n'
        ),
    })
    assert records[("m.py", 5)]["message"] == "Got unexpected extra argument ({args})"
    assert records[("m.py", 5)]["variants"] == [{"message": "Got unexpected extra arguments ({args})", "kind": "plural"}]
    assert records[("m.py", 7)]["message"] == "strict mode forbids it"
    assert records[("m.py", 7)]["variants"] == [{"message": "lenient mode warns about {args}", "kind": "alternative"}]
    assert records[("m.py", 8)]["variants"] == [{"message": "%d files", "kind": "plural"}]


def test_a_field_that_holds_a_local_message_gives_its_wordings_as_alternatives(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "def check(instance, n):\n"
            '    message = "should be non-empty" if n == 1 else "is too short"\n'
            '    yield ValueError(f"{instance!r} {message}")\n\n\n'
            "def size(value, n):\n"
            "    if n:\n"
            '        unit = "items"\n'
            "    else:\n"
            '        unit = "bytes"\n'
            '    raise ValueError(f"{value} has too many {unit}")\n'
            "    unit = str(n)\n"
            '    raise ValueError(f"{value} is {unit}")\n\n\n'
            "def load(path, empty):\n"
            '    problem = "it is empty" if empty else "it is missing"\n'
            '    if path.endswith("/"):\n'
            '        problem = "it is a folder"\n'
            '    raise OSError(f"cannot read {path}: {problem}")\n'
        ),
    })
    # The message stays as the code writes it (its id is kept); what it prints is each wording.
    assert records[("m.py", 3)]["message"] == "{instance!r} {message}"
    assert records[("m.py", 3)]["variants"] == [{"message": "{instance!r} should be non-empty", "kind": "alternative"},
                                                {"message": "{instance!r} is too short", "kind": "alternative"}]
    assert records[("m.py", 11)]["variants"] == [{"message": "{value} has too many items", "kind": "alternative"},
                                                 {"message": "{value} has too many bytes", "kind": "alternative"}]
    # A variable the function also computes is no message.
    assert "variants" not in records[("m.py", 13)]
    # A branch after the straight-line assignment may replace it.
    assert [v["message"] for v in records[("m.py", 20)]["variants"]] == [
        "cannot read {path}: it is empty", "cannot read {path}: it is missing", "cannot read {path}: it is a folder"]


def test_variables_a_class_assigns_together_give_the_wordings_of_each_branch(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "errs.py": (
            "class ConversionError(TypeError):\n"
            "    def __init__(self, a, b, dim_a='', dim_b=''):\n"
            "        self.a, self.b, self.dim_a, self.dim_b = a, b, dim_a, dim_b\n\n"
            "    def __str__(self):\n"
            "        if self.dim_a or self.dim_b:\n"
            '            dim_a = f" ({self.dim_a})"\n'
            '            dim_b = f" ({self.dim_b})"\n'
            "        else:\n"
            '            dim_a = ""\n'
            '            dim_b = ""\n'
            '        return f"Cannot convert from {self.a!r}{dim_a} to {self.b!r}{dim_b}"\n\n\n'
            "class Missing(OSError):\n"
            "    def __str__(self):\n"
            '        kind = "file" if self.file else "folder"\n'
            '        return f"no such {kind}: {self.path}"\n'
        ),
    })
    record = records[("errs.py", 12)]
    assert record["message"] == "Cannot convert from {self.a!r} ({self.dim_a}) to {self.b!r} ({self.dim_b})"
    assert record["variants"] == [{"message": "Cannot convert from {self.a!r} to {self.b!r}", "kind": "alternative"}]
    # A class's own message keeps a field whose variable holds a conditional, as it always did (its id stays);
    # each wording is an alternative.
    assert records[("errs.py", 18)]["message"] == "no such {kind}: {self.path}"
    assert [v["message"] for v in records[("errs.py", 18)]["variants"]] == ["no such file: {self.path}",
                                                                           "no such folder: {self.path}"]


def test_variants_are_kept_current_and_earlier_wordings_kept(tmp_path: Path) -> None:
    repo, content, records = extract_repo(tmp_path, {
        "m.py": 'from gettext import ngettext\n\n\ndef f(n):\n    raise ValueError(ngettext("a file", "some files", n))\n',
    })
    [(place, record)] = records.items()
    path = content / "errors" / f"{record['id']}.json"
    record["variants"].append({"message": "one file", "kind": "earlier", "until": "abc1234"})
    path.write_text(dumps(record), encoding="utf-8")
    repo.write("m.py", 'from gettext import ngettext\n\n\ndef f(n):\n    raise ValueError(ngettext("a file", "many files", n))\n')
    repo.commit()
    sync.run(repo.path, "HEAD", "owner/name", content)
    assert json.loads(path.read_text(encoding="utf-8"))["variants"] == [
        {"message": "many files", "kind": "plural"},
        {"message": "one file", "kind": "earlier", "until": "abc1234"},
    ]
    repo.write("m.py", 'from gettext import ngettext\n\n\ndef f(n):\n    raise ValueError("a file" if n else "no file")\n')
    repo.commit()
    sync.run(repo.path, "HEAD", "owner/name", content)
    assert json.loads(path.read_text(encoding="utf-8"))["variants"] == [
        {"message": "no file", "kind": "alternative"},
        {"message": "one file", "kind": "earlier", "until": "abc1234"},
    ]
    # Code that gives no other wording leaves the variants alone: they may have been written by hand.
    repo.write("m.py", 'def f(n):\n    raise ValueError("a file")\n')
    repo.commit()
    sync.run(repo.path, "HEAD", "owner/name", content)
    assert len(json.loads(path.read_text(encoding="utf-8"))["variants"]) == 2


def test_warnings_only_when_asked(tmp_path: Path) -> None:
    files = {
        "m.py": (
            "import warnings\n"
            "from warnings import warn\n\n\n"
            "def f(name):\n"
            '    warnings.warn(f"{name} is deprecated", DeprecationWarning, stacklevel=2)\n'
            '    warn("plain warning")\n'
            '    warnings.warn(message="by keyword", category=FutureWarning)\n'
            "    warnings.warn(name)\n"
        ),
    }
    _, _, without = extract_repo(tmp_path / "off", files)
    assert without == {}
    _, _, records = extract_repo(tmp_path / "on", files, warns=True)
    assert brief(records, "m.py") == {
        6: ("DeprecationWarning", "{name} is deprecated"),
        7: ("UserWarning", "plain warning"),
        8: ("FutureWarning", "by keyword"),
    }


def test_warnings_flag_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'import warnings\nwarnings.warn("old API")\n')
    repo.commit()
    content = tmp_path / "content"
    assert cli.main(["extract", str(repo.path), "--content", str(content), "--warnings"]) == 0
    assert [r["message"] for r in records_by_place(content).values()] == ["old API"]


def test_warnings_setting_in_site_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("m.py", 'import warnings\nwarnings.warn("old API")\n')
    repo.commit()
    content = tmp_path / "content"
    content.mkdir()
    (content / "site.toml").write_text('title = "t"\n\n[source]\nwarnings = true\n', encoding="utf-8")
    assert cli.main(["extract", str(repo.path), "--content", str(content)]) == 0
    [record] = records_by_place(content).values()
    assert (record["exception"], record["message"]) == ("UserWarning", "old API")
    capsys.readouterr()
    assert cli.main(["check", "--content", str(content), "--source", str(repo.path), "--strict"]) == 0
    assert "raise sites: 1 at" in (out := capsys.readouterr().out) and "1 documented (documentation coverage 100.0%)" in out


def test_hostile_files_are_skipped_with_a_reason_and_the_run_goes_on(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("good.py", 'raise ValueError("still found")\n')
    repo.write("big.py", b"x = 1\n" * (MAX_FILE_BYTES // 6 + 1))
    repo.write("deep.py", 'def f(a):\n    raise ValueError("x" ' + "+ a " * 2000 + ")\n")
    (repo.path / "bad-\xe9.py".encode("latin-1").decode("utf-8", "surrogateescape")).write_bytes(
        b'raise ValueError("latin-1 name")\n')
    repo.commit()
    content = tmp_path / "content"
    report = sync.run(repo.path, "HEAD", None, content)
    assert [r["message"] for r in records_by_place(content).values()] == ["still found"]
    reasons = {s.path: (s.line, s.reason) for s in report.skipped}
    assert reasons["bad-\ufffd.py"] == (0, "file name is not UTF-8")
    assert reasons["big.py"][0] == 0 and "larger than 5,000,000 bytes" in reasons["big.py"][1]
    assert reasons["deep.py"] == (2, "expression nested too deeply to read")
    printed = "\n".join(report.lines(verbose=True))
    assert "skipped bad-\ufffd.py:0: file name is not UTF-8" in printed


def test_a_control_character_in_a_file_name_is_skipped() -> None:
    scan = scan_files({"a\n.py": b'raise ValueError("x")\n', "b.py": b'raise ValueError("y")\n'})
    assert [s.path for s in scan.sites] == ["b.py"]
    assert [(s.path, s.reason) for s in scan.skipped] == [("a?.py", "file name holds a control character (a line break, a tab)")]


def test_sites_found_before_keep_their_ids(tmp_path: Path) -> None:
    """Every record the plain-raise rules wrote for a fixed corpus is written again, same id, place and message.

    The corpus's exception factory (tomllib's `suffixed_err`) is the one
    intended change: those raises now name the class the factory builds.
    """
    repo = Repo(tmp_path / "repo")
    shutil.copytree(CORPUS, repo.path, dirs_exist_ok=True)
    repo.commit()
    content = tmp_path / "content"
    sync.run(repo.path, "HEAD", "example/corpus", content)
    now = {r["id"]: r for r in records_by_place(content).values()}
    before = json.loads(CORPUS_SITES.read_text(encoding="utf-8"))
    factory = [b for b in before if b["exception"] == "suffixed_err"]
    kept = [b for b in before if b["exception"] != "suffixed_err"]
    assert len(kept) == 67 and len(factory) == 29
    for old in kept:
        record = now[old["id"]]
        assert (record["source"]["path"], record["source"]["line"], record["exception"], record["message"]) == (
            old["path"], old["line"], old["exception"], old["message"])
    for old in factory:
        record = records_by_place(content)[(old["path"], old["line"])]
        assert record["exception"] == "TOMLDecodeError"
        assert record["message"] == old["message"] + " (at {coord_repr(src, pos)})"
    assert len(now) > len(before)


def test_check_source_counts_the_new_sites_and_accepts_their_lines(tmp_path: Path) -> None:
    repo, content, records = extract_repo(tmp_path, {
        "m.py": (
            "def fail(msg):\n    raise RuntimeError(msg)\n\n\n"
            'def f():\n    fail("helper message")\n    raise ValueError("plain")\n'
        ),
    })
    assert sorted(records) == [("m.py", 6), ("m.py", 7)]
    site = validate.build_site(load.load(content))
    report = check_source(site, repo.path, SourceSettings())
    assert (report.sites, report.documented, report.problems) == (2, 2, ())
    (content / "errors" / f"{records[('m.py', 6)]['id']}.json").unlink()
    report = check_source(validate.build_site(load.load(content)), repo.path, SourceSettings())
    assert [(s.line, s.kind) for s in report.undocumented] == [(6, "helper")]


def test_a_name_or_code_first_and_the_words_second_is_the_second(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "cfg.py": (
            "import click\n\n\n"
            "def read(config, x):\n"
            '    if "exclude" in config:\n'
            '        raise click.BadOptionUsage("exclude", "Config key exclude must be a string")\n'
            '    if "target-version" in config:\n'
            '        raise click.BadOptionUsage("target-version", f"Config key target-version must be a list, not {x!r}")\n'
            "    if x:\n"
            '        raise ValueError("a sentence comes first", "extra")\n'
            '    raise LookupError("E101", "code")\n'
        ),
    })
    assert brief(records, "cfg.py") == {
        6: ("click.BadOptionUsage", "Config key exclude must be a string"),
        8: ("click.BadOptionUsage", "Config key target-version must be a list, not {x!r}"),
        10: ("ValueError", "a sentence comes first"),
        11: ("LookupError", "E101"),  # no words after it: the first is all there is
    }


def test_a_factory_that_binds_its_exception_to_a_name_before_returning_it(tmp_path: Path) -> None:
    """packaging's `_invalid_metadata`: `exc = InvalidMetadata(self.raw_name, msg); exc.__cause__ = cause; return exc`."""
    _, _, records = extract_repo(tmp_path, {
        "meta.py": (
            "class InvalidMetadata(ValueError):\n"
            "    def __init__(self, field, message):\n"
            "        self.field = field\n"
            "        super().__init__(message)\n\n\n"
            "class Field:\n"
            "    def _invalid(self, msg, cause=None):\n"
            "        exc = InvalidMetadata(self.raw_name, msg)\n"
            "        exc.__cause__ = cause\n"
            "        return exc\n\n"
            "    def check(self, value):\n"
            "        if not value:\n"
            '            raise self._invalid(f"{self.raw_name!r} is a required field")\n'
            '        raise InvalidMetadata("name", f"{value!r} is invalid for this field")\n'
        ),
    })
    assert brief(records, "meta.py") == {
        15: ("InvalidMetadata", "{self.raw_name!r} is a required field"),
        16: ("InvalidMetadata", "{value!r} is invalid for this field"),
    }


PARSER_ERRORS = {
    "toml/__init__.py": "",
    "toml/errors.py": (
        "class ParseError(ValueError):\n"
        "    def __init__(self, line, col, message=None):\n"
        "        self.line, self.col = line, col\n"
        "        if message is None:\n"
        '            message = "Parse error"\n'
        '        super().__init__(f"{message} at line {line} col {col}")\n\n\n'
        "class UnexpectedChar(ParseError):\n"
        "    def __init__(self, line, col, char):\n"
        '        message = f"Unexpected character: {char!r}"\n'
        "        super().__init__(line, col, message=message)\n\n\n"
        "class KeyExists(KeyError):\n"
        "    def __init__(self, key):\n"
        '        super().__init__(f"Key {key!r} already exists.")\n'
    ),
    "toml/parser.py": (
        "from .errors import KeyExists, ParseError, UnexpectedChar\n\n\n"
        "class Source:\n"
        "    def __init__(self, text):\n"
        "        self.text, self.pos = text, 0\n\n"
        "    def parse_error(self, exception=ParseError, *args, **kwargs):\n"
        "        return exception(1, self.pos, *args, **kwargs)\n\n\n"
        "class Parser:\n"
        "    def __init__(self, text):\n"
        "        self._src = Source(text)\n"
        "        self.seen = set()\n\n"
        "    def parse_error(self, exception=ParseError, *args, **kwargs):\n"
        "        return self._src.parse_error(exception, *args, **kwargs)\n\n"
        "    def add(self, key):\n"
        "        if key in self.seen:\n"
        "            raise KeyExists(key)\n"
        "        self.seen.add(key)\n\n"
        "    def parse(self):\n"
        "        for n, c in enumerate(self._src.text):\n"
        "            self._src.pos = n\n"
        '            if c == "@":\n'
        "                raise self.parse_error(UnexpectedChar, c)\n"
        '            if c == " ":\n'
        '                raise self.parse_error(ParseError, f"Invalid key {c!r}")\n'
        "            try:\n"
        "                self.add(c)\n"
        "            except KeyExists as e:\n"
        "                raise self.parse_error(ParseError, str(e)) from e\n"
    ),
}
"""tomlkit's shape: a factory its callers pass the exception class to, classes that build their message and pass it
to a base that prints it with the position, and a handled error's text passed on through the factory."""


def test_a_factory_given_the_exception_class_builds_that_class(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, PARSER_ERRORS)
    found = {(p, line): (r["exception"], r["message"], [v["message"] for v in r.get("variants", [])])
             for (p, line), r in records.items()}
    printed = " at line {line} col {col}"
    # The subclass passes its message by keyword: it is the class's own, printed inside the base's text.
    assert found[("toml/errors.py", 12)] == ("UnexpectedChar", "Unexpected character: {char!r}",
                                             ["Unexpected character: {char!r}" + printed])
    assert found[("toml/errors.py", 6)][:2] == ("ParseError", "Parse error at line {line} col {col}")
    # The raise that names the class gives its own message, printed as the class prints it; the one that
    # names a class with a message of its own is that class's (mapped); no record names the factory.
    assert found[("toml/parser.py", 31)] == ("ParseError", "Invalid key {c!r}", ["Invalid key {c!r}" + printed])
    assert ("toml/parser.py", 29) not in found
    assert found[("toml/parser.py", 35)] == ("ParseError", "{str(e)}", [])
    assert not [r for r in records.values() if "parse_error" in r["exception"]]


MESSAGE_DECORATORS = {
    "lib/__init__.py": "",
    "lib/error.py": (
        "class Invalid(Exception):\n    pass\n\n\n"
        "class ValueInvalid(Invalid):\n    pass\n\n\n"
        "class FileInvalid(Invalid):\n    pass\n"
    ),
    "lib/schema.py": (
        "from functools import wraps\n"
        "from lib import error as er\n\n\n"
        "def message(default=None, cls=None):\n"
        "    def decorator(f):\n"
        "        @wraps(f)\n"
        "        def check(msg=None, clsoverride=None):\n"
        "            @wraps(f)\n"
        "            def wrapper(*args, **kwargs):\n"
        "                try:\n"
        "                    return f(*args, **kwargs)\n"
        "                except ValueError:\n"
        "                    raise (clsoverride or cls or er.ValueInvalid)(msg or default or 'invalid value')\n"
        "            return wrapper\n"
        "        return check\n"
        "    return decorator\n"
    ),
    "lib/validators.py": (
        "import os\n"
        "from lib.schema import message\n"
        "from lib.error import FileInvalid\n\n\n"
        "@message('Not a file', cls=FileInvalid)\n"
        "def IsFile(v):\n"
        "    return os.path.isfile(v)\n\n\n"
        "class Checks:\n"
        '    @message("expected a number")\n'
        "    def number(self, v):\n"
        "        return float(v)\n\n\n"
        'is_int = message("expected an integer", cls=er_class)\n'
        "\n\n"
        "def positive():\n"
        '    return message("expected a positive number", FileInvalid)(lambda v: v > 0)\n'
    ),
}
"""voluptuous's shape: a decorator factory whose wrapper, two functions deep, raises the class and the message the
decorator was given, falling back to its own."""


def test_a_decorator_factory_whose_wrapper_raises_its_arguments_makes_each_use_a_site(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, MESSAGE_DECORATORS)
    assert brief(records, "lib/validators.py") == {
        6: ("FileInvalid", "Not a file"),
        12: ("er.ValueInvalid", "expected a number"),
        21: ("FileInvalid", "expected a positive number"),
    }
    # The site is the decorator line, in the function it decorates; the snippet shows that function whole.
    assert records[("lib/validators.py", 6)]["source"]["function"] == "IsFile"
    assert records[("lib/validators.py", 6)]["source"]["snippet"]["start"] == 6
    assert records[("lib/validators.py", 12)]["source"]["function"] == "Checks.number"
    assert records[("lib/validators.py", 21)]["source"]["function"] == "positive"
    # A call whose class is a name that is no exception (`er_class`) says nothing sure of the class: no site.
    assert ("lib/validators.py", 17) not in records
    # The wrapper's raise computes its class: no page of its own, and no record names the factory.
    assert brief(records, "lib/schema.py") == {}
    assert not [r for r in records.values() if r["exception"] in ("message", "check", "wrapper")]


def test_a_closure_that_raises_a_value_that_is_no_message_makes_no_site(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "m.py": (
            "def retry(times, name):\n"
            "    def decorator(f):\n"
            "        def wrapper(*args):\n"
            "            for _ in range(times):\n"
            "                if f(*args):\n"
            "                    return True\n"
            '            raise RuntimeError(f"gave up after {times} tries")\n'
            "        return wrapper\n"
            "    return decorator\n\n\n"
            "def register(key):\n"
            "    def decorator(f):\n"
            "        def wrapper():\n"
            "            raise KeyError(key)\n"
            "        return wrapper\n"
            "    return decorator\n\n\n"
            "def shadowed(msg):\n"
            "    def decorator(f):\n"
            "        def wrapper(msg):\n"
            "            raise ValueError(msg)\n"
            "        return wrapper\n"
            "    return decorator\n\n\n"
            "def assigned(text):\n"
            "    def wrapper():\n"
            "        text = compute()\n"
            "        raise ValueError(text)\n"
            "    return wrapper\n\n\n"
            '@retry(3, "fetch the page again")\n'
            "def fetch():\n"
            "    return None\n\n\n"
            '@register("a key with spaces")\n'
            '@shadowed("the outer message")\n'
            "def keyed():\n"
            "    return None\n\n\n"
            'check = assigned("a wording the closure replaces")\n'
        ),
    })
    # The only site is the retry wrapper's own message: the parameter it mentions is a count, not the message.
    assert brief(records, "m.py") == {7: ("RuntimeError", "gave up after {times} tries")}


def test_a_closure_that_passes_its_makers_message_and_class_to_a_helper(tmp_path: Path) -> None:
    _, _, records = extract_repo(tmp_path, {
        "timer.py": (
            "class TimeoutError(AssertionError):\n    pass\n\n\n"
            "def _raise_exception(exception, exception_message):\n"
            "    raise exception(exception_message)\n\n\n"
            "def timeout(seconds, timeout_exception=TimeoutError, exception_message=None):\n"
            "    def decorate(function):\n"
            "        def handler(signum, frame):\n"
            "            _raise_exception(timeout_exception, exception_message)\n"
            "        return function\n"
            "    return decorate\n\n\n"
            '@timeout(5, exception_message="the job took longer than five seconds")\n'
            "def job():\n"
            "    pass\n\n\n"
            '@timeout(1, timeout_exception=RuntimeError, exception_message="fetching took too long")\n'
            "def fetch():\n"
            "    pass\n"
        ),
    })
    # timeout-decorator's shape: the class a use names, else the one the decorator's parameter defaults to.
    assert brief(records, "timer.py") == {
        17: ("TimeoutError", "the job took longer than five seconds"),
        22: ("RuntimeError", "fetching took too long"),
    }


def test_a_str_that_adds_text_after_the_given_message_prints_each_site_inside_it(tmp_path: Path) -> None:
    files = dict(MESSAGE_DECORATORS)
    files["lib/error.py"] = (
        "class Invalid(Exception):\n"
        "    def __str__(self):\n"
        "        path = ' @ data[%s]' % ']['.join(map(repr, self.path)) if self.path else ''\n"
        "        output = Exception.__str__(self)\n"
        "        if self.error_type:\n"
        "            output += ' for ' + self.error_type\n"
        "        return output + path\n\n\n"
        "class ValueInvalid(Invalid):\n    pass\n\n\n"
        "class FileInvalid(Invalid):\n"
        "    def __str__(self):\n"
        "        return super().__str__() + f' (checked {self.when})'\n\n\n"
        "class Quiet(Exception):\n"
        "    def __str__(self):\n"
        "        text = self.args[0]\n"
        "        text += self.suffix\n"
        "        return text\n\n\n"
        "def fail(v):\n"
        "    raise Quiet('not quiet enough')\n"
    )
    _, _, records = extract_repo(tmp_path, files)
    variants = {line: [v["message"] for v in r.get("variants", [])] for (path, line), r in records.items()
                if path in ("lib/validators.py", "lib/error.py")}
    # voluptuous's Invalid: what a user pastes is the message with the kind of value and the path after it.
    assert variants[12] == ["expected a number for {self.error_type}{path}"]
    # The nearest class that prints the message decides; text that adds no word (`{self.suffix}`) is no wording.
    assert variants[6] == ["Not a file (checked {self.when})"]
    assert variants[27] == []
