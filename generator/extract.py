"""Find the raise sites of a repository's Python files at a commit.

A raise site is a `raise X(...)` whose message argument is a string the source
spells out (with `--asserts`, also `assert cond, "message"`, recorded as
`AssertionError`; an assert without a message is not counted). Each becomes
a `RaiseSite`; raises whose message is computed elsewhere are listed as
`Skipped`, files that do not parse as `ParseFailure`. docs/extract.md gives
the message template rules.

Lines. A file's lines end at `\\n`, `\\r\\n` or a lone `\\r`, as Python itself
counts them (a form feed is not a line break). A snippet's code is its lines
verbatim, tabs and `\\r` included, joined, without the last line's line break:
a snippet of n lines holds exactly n - 1 line breaks.

Snippet rule. A raise inside a function shows the whole function, from its
first decorator line to its last line, when that is at most 40 lines. A longer
function shows a window from 12 lines before the raise statement's first line
to 12 lines after its last line, clipped to the function. A raise outside any
function shows the same window clipped to the file.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from . import gitrepo, sync
from .files import FileFilter, with_flags
from .sync import ExtractReport

SNIPPET_MAX_LINES = 40
"""A function this long or shorter is shown whole."""

WINDOW = 12
"""Lines shown before and after a raise in a longer function or at module level."""

MESSAGE_MAX = 4000
"""The longest message a record may carry."""

GETTEXT = frozenset({
    "_", "gettext", "ngettext", "gettext_lazy", "ngettext_lazy",
    "ugettext", "ugettext_lazy", "lazy_gettext",
})
"""Names of translation calls whose first string argument is the message."""

MESSAGE_KEYWORDS = ("msg", "message", "detail")
"""Keyword arguments that carry the message, tried before any other keyword."""

_BREAK_AFTER = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


@dataclass(frozen=True, order=True)
class RaiseSite:
    """One raise statement with a message the source spells out."""

    path: str
    """Relative POSIX path of the file in the repository."""
    line: int
    """Line of the `raise` (or `assert`) keyword."""
    function: str
    """Qualified name of the enclosing function or class (`Class.method`); "" at module level."""
    exception: str
    """The exception as written (`ValueError`, `errors.ConfigError`)."""
    message: str
    """The message template, in the record format's placeholder syntax."""
    snippet_start: int
    """File line number of the snippet's first line."""
    snippet_code: str
    """The snippet's lines verbatim, without the last line's line break."""


@dataclass(frozen=True, order=True)
class Skipped:
    """A raise that is not a record: its message is not spelled out at the raise."""

    path: str
    line: int
    reason: str


@dataclass(frozen=True, order=True)
class ParseFailure:
    """A selected file that could not be read as Python."""

    path: str
    reason: str


@dataclass(frozen=True)
class Scan:
    """Everything found in a set of files."""

    sites: tuple[RaiseSite, ...]
    skipped: tuple[Skipped, ...]
    failures: tuple[ParseFailure, ...]
    files: int
    """How many files were read."""


def run(
    repo_dir: Path,
    rev: str = "HEAD",
    repo: str | None = None,
    content_dir: Path = Path("content"),
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    asserts: bool | None = None,
) -> ExtractReport:
    """Extract the raise sites of `repo_dir` at `rev` and bring the records in `content_dir` up to date.

    Which files are read comes from `[source]` in the content folder's
    `site.toml`; `include`, `exclude` and `asserts`, when given, override it.
    """
    if repo is not None:
        sync.check_repo_name(repo)
    existing = sync.read(content_dir)
    settings = with_flags(existing.config.source, include, exclude, asserts)
    snap = gitrepo.snapshot(repo_dir, rev, FileFilter.of_settings(settings))
    return sync.sync(content_dir, existing, scan_files(snap.files, settings.asserts), snap.commit, repo,
                     lambda pins: gitrepo.history(repo_dir, snap.commit, pins))


def scan_files(files: Mapping[str, bytes], asserts: bool = False) -> Scan:
    """Return the raise sites, skipped raises and parse failures of `files`, in path order."""
    sites: list[RaiseSite] = []
    skipped: list[Skipped] = []
    failures: list[ParseFailure] = []
    with warnings.catch_warnings():
        # Old code trips invalid-escape warnings at parse time; they say nothing about raises.
        warnings.simplefilter("ignore")
        for path in sorted(files):
            scan = scan_file(path, files[path], asserts)
            sites += scan.sites
            skipped += scan.skipped
            failures += scan.failures
    return Scan(tuple(sites), tuple(skipped), tuple(failures), len(files))


def scan_file(path: str, data: bytes, asserts: bool = False) -> Scan:
    """Return the raise sites of one file's bytes, or its parse failure."""
    try:
        text = decode_source(data)
    except (SyntaxError, ValueError) as error:
        reason = error.msg if isinstance(error, SyntaxError) else str(error)
        return Scan((), (), (ParseFailure(path, f"cannot decode: {reason}"),), 1)
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        where = f"line {error.lineno}: " if error.lineno else ""
        return Scan((), (), (ParseFailure(path, f"{where}{error.msg}"),), 1)
    except (ValueError, RecursionError) as error:
        return Scan((), (), (ParseFailure(path, str(error) or type(error).__name__),), 1)
    source = _Source(text)
    sites: list[RaiseSite] = []
    skipped: list[Skipped] = []
    for stmt, function, scope in _statements(tree.body, (), None, asserts):
        found = _site(source, path, stmt, function, scope)
        (sites if isinstance(found, RaiseSite) else skipped).append(found)
    return Scan(tuple(sorted(sites)), tuple(sorted(skipped)), (), 1)


def decode_source(data: bytes) -> str:
    """Return a Python file's text, decoded as its BOM or PEP 263 coding cookie says."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def split_lines(text: str) -> list[str]:
    """Return the lines of `text` with their line breaks; n line breaks give n + 1 lines."""
    if text.count("\r") != text.count("\r\n"):
        return _BREAK_AFTER.split(text)
    # Without a lone "\r", splitting at "\n" is the same and several times faster.
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + parts[-1:]


def file_lines(text: str) -> list[str]:
    """Return the lines of a file with their line breaks, as line numbers count them."""
    lines = split_lines(text)
    return lines[:-1] if lines[-1] == "" else lines


def _strip_break(line: str) -> str:
    """Return `line` without its line break."""
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith(("\n", "\r")) else line


class _Source:
    """A file's text and lines, for cutting snippets and expression text."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def lines(self) -> list[str]:
        """Return the file's lines with their line breaks."""
        return file_lines(self.text)

    def snippet(self, first: int, last: int) -> str:
        """Return lines `first` to `last` (1-based, inclusive) without the last line break."""
        return _strip_break("".join(self.lines[first - 1:last]))

    def segment(self, node: ast.expr) -> str:
        """Return the source text of an expression exactly as written."""
        text = self._cut(node)
        if text is None or not _same_expression(text, node):
            return ast.unparse(node)
        return text

    def _cut(self, node: ast.expr) -> str | None:
        """Return the text between a node's start and end positions (offsets are UTF-8 bytes)."""
        if node.end_lineno is None or node.end_col_offset is None:
            return None
        first = self.lines[node.lineno - 1].encode()
        if node.lineno == node.end_lineno:
            return first[node.col_offset:node.end_col_offset].decode(errors="replace")
        last = self.lines[node.end_lineno - 1].encode()
        middle = "".join(self.lines[node.lineno:node.end_lineno - 1])
        return (first[node.col_offset:].decode(errors="replace") + middle
                + last[:node.end_col_offset].decode(errors="replace"))


def _same_expression(text: str, node: ast.expr) -> bool:
    """Return whether `text` parses to the expression `node`; guards against stray positions."""
    try:
        parsed = ast.parse(f"(\n{text}\n)", mode="eval").body
    except SyntaxError:
        return False
    return ast.dump(parsed) == ast.dump(node)


def _statements(
    body: Iterable[ast.AST], names: tuple[str, ...], scope: tuple[int, int] | None, asserts: bool,
) -> Iterable[tuple[ast.Raise | ast.Assert, str, tuple[int, int] | None]]:
    """Yield every raise (and assert) statement with its qualified name and function span.

    Only statement lists are walked: a raise is a statement, so it never hides
    inside an expression, and skipping expressions keeps big files fast.
    """
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([stmt.lineno] + [d.lineno for d in stmt.decorator_list])
            yield from _statements(stmt.body, names + (stmt.name,), (first, stmt.end_lineno or stmt.lineno), asserts)
        elif isinstance(stmt, ast.ClassDef):
            yield from _statements(stmt.body, names + (stmt.name,), scope, asserts)
        elif isinstance(stmt, ast.Raise) or (asserts and isinstance(stmt, ast.Assert) and stmt.msg is not None):
            yield stmt, ".".join(names), scope
        else:
            for child in _child_bodies(stmt):
                yield from _statements(child, names, scope, asserts)


def _child_bodies(stmt: ast.AST) -> Iterable[list[ast.stmt]]:
    """Yield the statement lists nested in a compound statement."""
    for field in ("body", "handlers", "orelse", "finalbody", "cases"):
        for child in getattr(stmt, field, ()):
            # Handlers and match cases are not statements; their bodies are.
            yield child.body if isinstance(child, (ast.ExceptHandler, ast.match_case)) else [child]


def _site(
    source: _Source, path: str, stmt: ast.Raise | ast.Assert, function: str, scope: tuple[int, int] | None,
) -> RaiseSite | Skipped:
    """Return the raise site of one statement, or why it is not one."""
    if isinstance(stmt, ast.Assert):
        exception, message = "AssertionError", _template(stmt.msg, source)
        if message is None:
            return Skipped(path, stmt.lineno, "assert message computed elsewhere")
    else:
        found = _exception_and_message(stmt, source)
        if isinstance(found, str):
            return Skipped(path, stmt.lineno, found)
        exception, message = found
    if not message:
        return Skipped(path, stmt.lineno, "empty message")
    if len(message) > MESSAGE_MAX:
        return Skipped(path, stmt.lineno, f"message longer than {MESSAGE_MAX:,} characters")
    start, code = _snippet(source, stmt, scope)
    return RaiseSite(path, stmt.lineno, function, exception, message, start, code)


def _exception_and_message(stmt: ast.Raise, source: _Source) -> tuple[str, str] | str:
    """Return (exception, message template) of a raise, or the reason it has none."""
    exc = stmt.exc
    if exc is None:
        return "bare raise (re-raises the current exception)"
    if not isinstance(exc, ast.Call):
        return "raises an exception object or class without a message"
    exception = _dotted(exc.func)
    if exception is None:
        return "the exception class is computed"
    message = _message(exc, source)
    if message is None:
        return "no message" if not exc.args and not exc.keywords else "message computed elsewhere"
    return exception, message


def _dotted(node: ast.expr) -> str | None:
    """Return a name or attribute chain as written (`errors.ConfigError`), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def _message(call: ast.Call, source: _Source) -> str | None:
    """Return the template of the first string-ish argument, else of a message keyword."""
    for arg in call.args:
        template = None if isinstance(arg, ast.Starred) else _template(arg, source)
        if template is not None:
            return template
    keywords = [k for k in call.keywords if k.arg is not None]
    preferred = sorted(keywords, key=lambda k: k.arg not in MESSAGE_KEYWORDS)
    for keyword in preferred:
        template = _template(keyword.value, source)
        if template is not None:
            return template
    return None


def _template(node: ast.expr, source: _Source) -> str | None:
    """Return the message template an expression builds, or None when it is not a string the source spells out."""
    if isinstance(node, ast.Constant):
        return _escape(node.value) if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(_escape(v.value) if isinstance(v, ast.Constant) else _placeholder(v, source) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _template(node.left, source)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _concatenation(node, source)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _format_string(node.func.value)
    if isinstance(node, ast.Call) and _callee_name(node) in GETTEXT:
        return next((t for t in (_template(a, source) for a in node.args) if t is not None), None)
    return None


def _concatenation(node: ast.BinOp, source: _Source) -> str | None:
    """Return the template of `a + b` when either side is a string, other sides as `{expr}`."""
    left, right = _template(node.left, source), _template(node.right, source)
    if left is None and right is None:
        return None
    left = left if left is not None else "{" + source.segment(node.left) + "}"
    right = right if right is not None else "{" + source.segment(node.right) + "}"
    return left + right


def _format_string(node: ast.expr) -> str | None:
    """Return the literal a `.format` call is made on: its braces are placeholders already."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and _callee_name(node) in GETTEXT:
        return next((t for t in (_format_string(a) for a in node.args) if t is not None), None)
    return None


def _callee_name(call: ast.Call) -> str | None:
    """Return the last name of what a call calls (`gettext` for `translation.gettext(...)`)."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _placeholder(value: ast.FormattedValue, source: _Source) -> str:
    """Return one f-string replacement field as written: `{expr!r:spec}`."""
    text = "{" + source.segment(value.value)
    if value.conversion != -1:
        text += "!" + chr(value.conversion)
    if value.format_spec is not None:
        text += ":" + "".join(
            v.value if isinstance(v, ast.Constant) else _placeholder(v, source)
            for v in value.format_spec.values
        )
    return text + "}"


def _escape(literal: str) -> str:
    """Return literal text with its braces doubled, as the record format writes them."""
    return literal.replace("{", "{{").replace("}", "}}")


def _snippet(source: _Source, stmt: ast.stmt, scope: tuple[int, int] | None) -> tuple[int, str]:
    """Return (start line, code) of the snippet shown for a raise statement."""
    if scope is not None and scope[1] - scope[0] + 1 <= SNIPPET_MAX_LINES:
        first, last = scope
    else:
        low, high = scope or (1, len(source.lines))
        first = max(low, stmt.lineno - WINDOW)
        last = min(high, (stmt.end_lineno or stmt.lineno) + WINDOW)
    return first, source.snippet(first, last)
