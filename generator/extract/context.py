"""What the code says about a raise: when it runs, where it is reached from, where its values are set.

Three fields of the record format (1.2), written by `extract` on every run:

- `Guards(tree).of(node)`: the conditions that hold when a raise runs, read
  from the enclosing statements of its own function (the record format's rule).
- `source.callers` and `source.names` come from a `FileIndex` per file, made
  once by `index_file` (a pure function of a path, its tree and its calls,
  returning small picklable rows, so that files can be indexed in worker
  processes), and joined for every site in one pass by `Context.annotate`.

Callers are found by name, as the record format says: a call `f(...)` (or
`g(...)` of `from m import f as g`) or `m.f(...)` on a module of the library
of a function's name; a method by attribute calls only, a constructor
(`__init__`) by calls of its class's name. `x.f(...)` on any other receiver
calls a method: of a class the receiver is named for, else of the one class
(and its subclasses) that defines `f`, else of none; a receiver only ever
assigned from a call of a class (`d = TextDecoder()`, `self.pool =
httpcore.Pool()`) is of that class, and calls no method of the library when
that class is not the library's. An attribute call on
anything but `self`/`cls` whose name is also a method of `dict`, `list`,
`str` or `set` (`x.get(...)`) is as likely theirs, and is not counted;
`self.f(...)` in a class that defines `f` calls that `f` (or an override
in a class based on it), and in one that does not, the `f` of a class it or
a class based on it is based on; `C.f(...)` on a class `C` of the
library (or a name `from ... import C as D` binds) calls C's `f`; `m.f(...)`
on a name bound by `import m` calls the library only when the library has a
module or folder named like `m`'s first part.

A name (`cfg.page_size`, `value`) is set by, first to last: a parameter of
the raising function when that function is public, else of a public caller
that has one of that name; a constant (module-level `UPPER_CASE`); a
command-line option (`argparse`'s `add_argument`, `click.option`, a
`typer.Option` default) or a field of a dataclass, attrs or pydantic class
(or a settings class, a `TypedDict`; for a local variable only when the
function assigns it from an attribute or key of its name, `x = self.x`)
named like its last part:
in the raising file first, then, for a dotted name (`args.x`, `self.cfg.x`),
a command-line option anywhere, then the one field of that name anywhere;
else a parameter of the raising function. A name a closure reads from its
enclosing function is that function's parameter. A field is one of a class the
receiver can be: a class the raising function is a method of for `self.x`,
else a class the receiver is named for (`cfg` for Config, see
`raisers.names_class`).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, TypeGuard

from ..model import Caller, Definition
from .raisers import names_class
from .sites import RaiseSite

MAX_CALLERS = 5
"""The most callers a record lists (record format `source.callers`)."""

MAX_HELP = 500
"""Help text longer than this is cut at a word boundary."""

OPTION_CALLS = frozenset({"add_argument", "add_option"})
"""Methods whose calls define command-line options (`argparse`, `optparse`)."""

_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]*")
"""A module-level name written as a constant."""

_CONSTRUCTORS = ("__init__", "__post_init__", "__new__")
"""Methods reached by calling their class."""

_CONTAINER_METHODS = frozenset(n for t in (dict, list, str, set, bytes) for n in dir(t) if not n.startswith("_"))
"""Method names of built-in types: `x.get(...)` on an unknown `x` says nothing about the library's own `get`."""

_BUILTINS = frozenset(dir(builtins))
"""Names a user never sets."""

_UNSET = frozenset({"self", "cls"})
"""Names read whole that a user does not set (their attributes they may)."""

_MODEL_DECORATORS = frozenset({"dataclass", "define", "frozen", "mutable", "s", "attrs", "dataclass_json"})
"""Last parts of class decorators that make annotated class attributes fields (dataclasses, attrs, pydantic)."""

_MODEL_BASES = frozenset({"BaseModel", "BaseSettings", "RootModel", "TypedDict", "Struct"})
"""Last parts of base classes whose annotated attributes are fields or settings keys."""

_FIELD_CALLS = frozenset({"field", "Field", "ib", "attrib", "PrivateAttr"})
"""Calls that define a field with options (`field(metadata={"help": ...})`, `Field(description=...)`)."""

_HELP_KEYWORDS = ("help", "description", "doc")
"""Keywords and metadata keys that give a definition's help text."""

_PARAM_SECTIONS = re.compile(r"(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters):?")
"""Docstring section headings that list parameters (Google and NumPy styles)."""


class Guards:
    """The guards of one file's raises; each condition is written once, however many raises it guards.

    A function that checks twenty things in a row has twenty raises, each
    after the early exits of those before it.
    """

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._texts: dict[tuple[int, bool], str] = {}
        """`ast.unparse` of each test met, and of its negation, by `id()` of the test (the tree keeps them alive)."""

    def of(self, node: ast.stmt | ast.expr) -> tuple[str, ...]:
        """Return the conditions that hold when `node` (a raise, or a call that raises) runs, outermost first.

        The record format's rule: the tests of enclosing `if`/`elif`/`while`
        (`not (test)` on the `else` side), `except E`, `case <pattern>`, and
        earlier `if test:` exits (`not (test)`) of each enclosing block,
        inside the innermost function. An `assert` raises when its test
        fails: its own `not (test)` comes last.
        """
        target = (node.lineno, node.col_offset)
        conditions: list[str] = []
        body: Sequence[ast.stmt] = self.tree.body
        while True:
            index = _containing(body, target)
            if index is None:
                break
            stmt = body[index]
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                conditions = []  # only the raising function's own conditions count
                body = stmt.body
                continue
            conditions += [self.text(s.test, True) for s in body[:index] if _early_exit(s)]
            if stmt is node:
                break
            inner = self._branch(stmt, target)
            if inner is None:
                break  # in a statement's header (an `if` test, a `with` item): nothing more encloses it
            condition, body = inner
            if condition is not None:
                conditions.append(condition)
        if isinstance(node, ast.Assert):
            conditions.append(self.text(node.test, True))
        return tuple(conditions)

    def text(self, test: ast.expr, negated: bool) -> str:
        """Return a test as `ast.unparse` writes it, or its negation (see `_negation`) when `negated`."""
        key = (id(test), negated)
        found = self._texts.get(key)
        if found is None:
            found = self._texts[key] = ast.unparse(_negation(test) if negated else test)
        return found

    def _branch(self, stmt: ast.stmt, target: tuple[int, int]) -> tuple[str | None, Sequence[ast.stmt]] | None:
        """Return (the condition it adds, the block) of the part of a compound statement that holds `target`."""
        if isinstance(stmt, (ast.If, ast.While)):
            if _containing(stmt.body, target) is not None:
                return self.text(stmt.test, False), stmt.body
            if _containing(stmt.orelse, target) is not None:
                return self.text(stmt.test, True), stmt.orelse
            return None
        if isinstance(stmt, (ast.Try, ast.TryStar)):
            for handler in stmt.handlers:
                if _containing(handler.body, target) is not None:
                    star = "*" if isinstance(stmt, ast.TryStar) else ""
                    caught = f" {ast.unparse(handler.type)}" if handler.type is not None else ""
                    return f"except{star}{caught}", handler.body
        if isinstance(stmt, ast.Match):
            for case in stmt.cases:
                if _containing(case.body, target) is not None:
                    when = f" if {ast.unparse(case.guard)}" if case.guard is not None else ""
                    return f"case {ast.unparse(case.pattern)}{when}", case.body
            return None
        for name in ("body", "orelse", "finalbody"):  # for, with, try: their bodies add nothing
            block = getattr(stmt, name, None)
            if block and _containing(block, target) is not None:
                return None, block
        return None


_INVERSE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
"""Comparisons whose negation is another comparison. Not `<` and `>=`: `not x < y` holds for a NaN, `x >= y` does not."""


def _negation(test: ast.expr) -> ast.expr:
    """Return `not (test)` as it reads: `not not x` is `x`, `not a != b` is `a == b`, `not a is None` is `a is not None`.

    Only where the two say exactly the same; anything else is `not (test)`.
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _INVERSE:
        return ast.Compare(left=test.left, ops=[_INVERSE[type(test.ops[0])]()], comparators=test.comparators)
    return ast.UnaryOp(op=ast.Not(), operand=test)


def _containing(body: Sequence[ast.stmt], target: tuple[int, int]) -> int | None:
    """Return the index of the statement of `body` whose span holds the position `target`."""
    for index, stmt in enumerate(body):
        if (stmt.lineno, stmt.col_offset) <= target <= (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0):
            return index
    return None


def _early_exit(stmt: ast.stmt) -> TypeGuard[ast.If]:
    """Return whether a statement is `if test:` without `else` whose body ends by leaving the block."""
    return (isinstance(stmt, ast.If) and not stmt.orelse
            and isinstance(stmt.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break)))


class FunctionRow(NamedTuple):
    """A function or method of a file."""

    qualname: str
    """Qualified name (`Class.method`), as a site's `function` gives it."""
    line: int
    """Line of its `def`."""
    params: tuple[tuple[str, int, str | None], ...]
    """Each parameter but `self`/`cls`: name, line, help from the function's docstring."""
    method: bool
    """Defined directly in a class."""
    copies: tuple[str, ...] = ()
    """Local names it assigns from an attribute or key of the same name (`mode = self.mode`,
    `size = int(cfg.get("size", 0))`): a field of that name is where such a value comes from."""


class CallRow(NamedTuple):
    """A call of a function by a name (`f(...)`, `x.f(...)`)."""

    name: str
    """The name called by: `f`."""
    line: int
    """Line of the call."""
    function: str
    """Qualified name of the calling function; "" at module level."""
    how: str
    """`name` (`f(...)`, or `g(...)` where `from m import f as g`), `self` (`self.f(...)`,
    `cls.f(...)`, or `f(...)` where the function assigned `f = self.f`), `attribute` (any other
    `x.f(...)`), `module:m` (`x.f(...)` or `x.y.f(...)` where the file binds `x` by `import m` or
    `import m as x`), or `on:X` (`x.f(...)` on a plain name `x`, `X` the name it was imported
    as or a local alias stands for: `Style` for `_Style` of `from .style import Style as _Style`
    or of `_Style = Style`), or `made:X|Y` (`x.f(...)` where every value the function gives `x`,
    or every method of the class gives `self.x`, is made by calling `X` or `Y`, names like a
    class's: `TextDecoder` or `httpcore.Pool`). `Context` makes `on:X` `class:X` when the library has a
    class `X`, `module` when it has a module `X` (`from . import markup`), else `attribute`;
    `module:m` `module` when the library has `m`'s first part (else drops the call); `made:X|Y`
    `class:X` when `X` alone is a class of the library, `attribute` when several are, and drops
    the call when none is."""
    receiver: str = ""
    """For `attribute`: the receiver's name, or the last part of a dotted one (`console` of
    `self.console.f(...)`); "" for any other receiver (`f().g(...)`)."""


class OptionRow(NamedTuple):
    """Something a user sets by name: a command-line option, or a field of a data class."""

    name: str
    """The Python name it is read by (an option's `dest`, a field's name)."""
    line: int
    """Line of its definition."""
    help: str | None
    """Its help text."""
    flag: str | None
    """The flag a user types, for a command-line option."""
    owner: str
    """The class a field belongs to; "" for a command-line option."""
    function: str = ""
    """The command whose parameter a `click`/`typer` option is (its qualified name); "" otherwise."""


class ClassRow(NamedTuple):
    """A class of a file, for telling which classes hold fields."""

    name: str
    """Its name."""
    bases: tuple[str, ...]
    """The last part of each base's name."""
    model: bool
    """Decorated as a dataclass, attrs or pydantic class, or based on a model base by name."""


@dataclass(frozen=True, slots=True)
class FileIndex:
    """What one file defines and calls, for finding callers and names."""

    path: str
    """Relative POSIX path of the file."""
    functions: tuple[FunctionRow, ...]
    calls: tuple[CallRow, ...]
    options: tuple[OptionRow, ...]
    """Command-line options (`owner` "") and the annotated attributes of every class (`owner` set)."""
    classes: tuple[ClassRow, ...]
    constants: tuple[tuple[str, int, str | None], ...]
    """Module-level UPPER_CASE names: name, line, docstring under the assignment."""


def index_file(path: str, tree: ast.Module, calls: Iterable[tuple[str, ast.Call]]) -> FileIndex:
    """Return the index of one parsed file: its functions, options, classes and constants, and `calls`.

    `calls` are the file's calls, each with the qualified name of the
    function it is in ("" at module level): the scan has walked every
    function body once already, and a second walk would cost as much again.
    Only statements are walked here.
    """
    functions: list[FunctionRow] = []
    options: list[OptionRow] = []
    classes: list[ClassRow] = []
    modules: dict[str, str] = {}
    aliases: dict[str, str] = {}
    imported: set[str] = set()
    assigned: list[tuple[str, str, ast.expr | None]] = []
    attributes: list[tuple[str, str, ast.expr | None]] = []
    stack: list[tuple[ast.stmt, tuple[str, ...], bool]] = [(stmt, (), False) for stmt in reversed(tree.body)]
    while stack:
        node, names, in_class = stack.pop()
        inner, in_class_body = names, False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = names + (node.name,)
            # An `@overload` stub says nothing a user reads: the definition is the `def` after the stubs.
            if not any(_last(d) == "overload" for d in node.decorator_list):
                functions.append(FunctionRow(".".join(inner), node.lineno, _params(node, in_class), in_class))
            options += _typer_options(node, ".".join(inner)) + _click_options(node, ".".join(inner))
        elif isinstance(node, ast.ClassDef):
            inner, in_class_body = names + (node.name,), True
            classes.append(_class_row(node))
            options += _fields(node)
        elif isinstance(node, ast.Import):
            modules.update((a.asname, a.name) if a.asname else (a.name.split(".")[0],) * 2 for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            aliases.update((a.asname, a.name) for a in node.names if a.asname)
            imported.update(a.asname or a.name for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and names and not in_class:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and node.value is not None:
                    assigned.append((".".join(names), target.id, node.value if len(targets) == 1 else None))
                elif _is_self_attribute(target):
                    attributes.append((".".join(names), target.attr, node.value))
                elif isinstance(target, (ast.Tuple, ast.List)):
                    # `a, self.b = ...`: what each part is made by is not told.
                    assigned += [(".".join(names), t.id, None) for t in target.elts if isinstance(t, ast.Name)]
                    attributes += [(".".join(names), t.attr, None) for t in target.elts if _is_self_attribute(t)]
        if isinstance(node, _COMPOUND):
            for block in _blocks(node):
                stack += [(child, inner, in_class_body) for child in reversed(block)]
    # A function's parameters and the names it assigns are its locals: `render(...)` there is no module's render.
    local: dict[str, dict[str, ast.expr | None]] = defaultdict(dict)
    for defined in functions:
        local[defined.qualname].update((p[0], None) for p in defined.params)
    made: dict[str, dict[str, frozenset[str] | None]] = defaultdict(dict)
    for qualname, name, value in assigned:
        local[qualname].setdefault(name, value)
        made[qualname][name] = _same_maker(made[qualname].get(name, frozenset()), value, aliases)
    for defined in functions:
        made[defined.qualname].update((p[0], None) for p in defined.params)
    # `self.pool = Pool(...)` in any method of a class: what `self.pool.m(...)` there runs is Pool's m.
    methods = {f.qualname for f in functions if f.method}
    made_attributes: dict[str, dict[str, frozenset[str] | None]] = defaultdict(dict)
    for qualname, name, value in attributes:
        owner = _method_class(qualname, methods)
        if owner is not None:
            made_attributes[owner][name] = _same_maker(made_attributes[owner].get(name, frozenset()), value, aliases)
    scope = _Scope(modules, aliases, imported, local, made, made_attributes)
    rows = []
    for function, call in calls:
        row = _call_row(call, function, scope)
        if row is None:
            continue
        rows.append(row)
        if row.name in OPTION_CALLS and row.how != "name":
            option = _argparse_option(call)
            if option is not None:
                options.append(option)
    # Only a field of this file may be what a local copies (`Context.definition`): most assignments need no look.
    fields = {row.name for row in options if row.owner}
    copies: dict[str, set[str]] = defaultdict(set)
    for qualname, name, value in assigned:
        if name in fields and value is not None and _reads_key(value, name):
            copies[qualname].add(name)
    if copies:
        functions = [f._replace(copies=tuple(sorted(copies[f.qualname]))) if f.qualname in copies else f for f in functions]
    # A base imported under another name (`from .base import Base as Alias`) is that base.
    classes = [row._replace(bases=tuple(aliases.get(b, b) for b in row.bases)) for row in classes] if aliases else classes
    return FileIndex(path, tuple(functions), tuple(rows), tuple(options), tuple(classes), _constants(tree.body))


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
             ast.AsyncWith, ast.Try, ast.TryStar, ast.Match)
"""Statements that hold statements."""


def _reads_key(value: ast.expr, name: str) -> bool:
    """Return whether an expression reads the attribute or key `name` (`x.name`, `x.get("name")`, `x["name"]`)."""
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute) and node.attr == name:
            return True
        if isinstance(node, ast.Constant) and node.value == name:
            return True
    return False


def _blocks(stmt: ast.stmt) -> Iterator[Sequence[ast.stmt]]:
    """Yield the statement lists of a compound statement."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list):
            yield block
    for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
        yield part.body


class _Scope(NamedTuple):
    """What the names of one file are bound to, for telling what a call calls."""

    modules: dict[str, str]
    """The names the file binds by `import`, each with the module it binds."""
    aliases: dict[str, str]
    """The names `from m import X as Y` binds, each with the name it was imported as."""
    imported: set[str]
    """Every name a `from m import ...` binds."""
    local: dict[str, dict[str, ast.expr | None]]
    """By function: its parameters (None) and the names it assigns, each with the value first assigned."""
    made: dict[str, dict[str, frozenset[str] | None]]
    """By function: for each of its locals, what every value it is assigned is made by (see `_same_maker`)."""
    made_attributes: dict[str, dict[str, frozenset[str] | None]]
    """By class: for each `self.x` its methods assign, what every value it is assigned is made by."""

    def makers(self, function: str, receiver: ast.expr) -> frozenset[str] | None:
        """Return the classes that may have made the object a call's receiver is (`Pool`, `httpcore.Pool`), when the file tells.

        The receiver is a local of `function` (or of a function it is in), or `self.x` in a method.
        """
        parts = function.split(".")
        if isinstance(receiver, ast.Name):
            for end in range(len(parts), 0, -1):
                names = self.made.get(".".join(parts[:end]))
                if names is not None and receiver.id in names:
                    return names[receiver.id]
            return None
        if _is_self_attribute(receiver):
            for end in range(len(parts) - 1, 0, -1):
                attributes = self.made_attributes.get(".".join(parts[:end]))
                if attributes is not None:
                    return attributes.get(receiver.attr)
        return None

    def bound(self, function: str, name: str) -> tuple[bool, ast.expr | None]:
        """Return whether `name` is a local of `function` or of a function it is in, and the value it is assigned."""
        parts = function.split(".")
        for end in range(len(parts), 0, -1):
            names = self.local.get(".".join(parts[:end]))
            if names is not None and name in names:
                return True, names[name]
        return False, None


def _is_self_attribute(node: ast.expr) -> TypeGuard[ast.Attribute]:
    """Return whether an expression is `self.x`."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _method_class(function: str, methods: set[str]) -> str | None:
    """Return the class whose method `function` is, or the method a nested function is in; None outside a class."""
    parts = function.split(".")
    for end in range(len(parts), 1, -1):
        if ".".join(parts[:end]) in methods:
            return ".".join(parts[:end - 1])
    return None


def _same_maker(before: frozenset[str] | None, value: ast.expr | None, aliases: Mapping[str, str]) -> frozenset[str] | None:
    """Return what made every value a name is assigned, given what made the ones before (`before`, empty for none yet).

    A value is made by a class when it is a call of a name like a class's (`Pool(...)`, `httpcore.Pool(...)`):
    the result holds each such dotted name; a value of any other kind makes it None, not known.
    """
    if before is None or not isinstance(value, ast.Call):
        return None
    dotted = _dotted(value.func)
    if dotted is None or not dotted.split(".")[-1][:1].isupper():
        return None
    first, _, rest = dotted.partition(".")
    return before | {".".join(filter(None, (aliases.get(first, first), rest)))}


def _call_row(node: ast.Call, function: str, scope: _Scope) -> CallRow | None:
    """Return the row of a call by a name, or None for a call of something computed or of a local variable."""
    func = node.func
    if isinstance(func, ast.Name):
        name = func.id
        is_local, value = scope.bound(function, name) if function else (False, None)
        if is_local:
            # `render = self.render` then `render(...)` calls the method; `fail = _fail` the function `_fail`;
            # any other local (a parameter, `render = make()`) may be anything.
            if (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                    and value.value.id in ("self", "cls")):
                return CallRow(value.attr, node.lineno, function, "self")
            if not isinstance(value, ast.Name) or scope.bound(function, value.id)[0]:
                return None
            name = value.id
        return CallRow(scope.aliases.get(name, name), node.lineno, function, "name")
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
        return CallRow(func.attr, node.lineno, function, "self")
    dotted = _dotted(receiver)
    first = dotted.split(".")[0] if dotted is not None else ""
    is_local, value = scope.bound(function, first) if dotted is not None and function else (False, None)
    if not is_local and first in scope.modules:
        module = scope.modules[first] + (dotted or "")[len(first):]
        return CallRow(func.attr, node.lineno, function, f"module:{module}")
    if func.attr in _CONTAINER_METHODS:
        return None
    makers = scope.makers(function, receiver) if function else None
    if makers and all(len(m.split(".")) == 1 or m.split(".")[0] in scope.modules for m in makers):
        # `decoder = TextDecoder()` then `decoder.flush()`: TextDecoder's flush, not that of any other class;
        # `self.pool = httpcore.Pool()` then `self.pool.close()`: another library's.
        made_by = sorted(".".join((scope.modules.get(m.split(".")[0], ""), *m.split(".")[1:])) if "." in m else m
                         for m in makers)
        return CallRow(func.attr, node.lineno, function, f"made:{'|'.join(made_by)}")
    if isinstance(receiver, ast.Name):
        name = receiver.id
        if is_local and isinstance(value, ast.Name) and not scope.bound(function, value.id)[0]:
            name = value.id  # a local alias, `_Style = Style`, is what it stands for
        elif is_local:
            return CallRow(func.attr, node.lineno, function, "attribute", name)
        if name[:1].isupper() or name in scope.imported:
            # Named like a class, or imported: maybe a class or a module of the library's.
            return CallRow(func.attr, node.lineno, function, f"on:{scope.aliases.get(name, name)}", name)
        return CallRow(func.attr, node.lineno, function, "attribute", name)
    return CallRow(func.attr, node.lineno, function, "attribute", dotted.split(".")[-1] if dotted is not None else "")


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> tuple[tuple[str, int, str | None], ...]:
    """Return a function's parameters (not `self`/`cls`) with their lines and docstring help."""
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    if method and every and every[0].arg in ("self", "cls"):
        every = every[1:]
    first = node.body[0] if node.body else None
    doc = first.value.value if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                                and isinstance(first.value.value, str)) else ""
    names = {a.arg for a in every}
    # Most docstrings name no parameter: reading them line by line is for those that do.
    helps = _param_help(inspect.cleandoc(doc), names) if any(n in doc for n in names) else {}
    return tuple((a.arg, a.lineno, helps.get(a.arg)) for a in every)


def _param_help(doc: str, params: set[str]) -> dict[str, str]:
    """Return the help a docstring gives each of `params` (Sphinx `:param x:`, Google `Args:`, NumPy `Parameters`)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    indent = 0
    in_section = False
    for line in doc.splitlines():
        stripped = line.strip()
        depth = len(line) - len(line.lstrip())
        sphinx = re.match(r":param\s+(?:[^:]*\s)?(\w+):\s*(.*)", stripped)
        if sphinx and sphinx[1] in params:
            current = found.setdefault(sphinx[1], [sphinx[2]])
            indent = depth
            continue
        if _PARAM_SECTIONS.fullmatch(stripped):
            in_section, current = True, None
            continue
        if not stripped or set(stripped) == {"-"}:
            continue
        if current is not None and depth > indent:
            current.append(stripped)
            continue
        current = None
        entry = re.match(r"\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)", stripped) if in_section else None
        if entry and entry[1] in params:
            text = entry[2]
            # NumPy puts the type after the colon and the help on the lines below.
            current = found.setdefault(entry[1], [] if re.match(r"[\w\[\], .|]*$", text) and "." not in text[-1:] else [text])
            indent = depth
        elif in_section and depth == 0 and stripped.endswith(":"):
            in_section = False
    return {name: text for name, lines in found.items() if (text := _folded(" ".join(lines)))}


def _folded(text: str) -> str:
    """Return help text on one line, cut at MAX_HELP characters."""
    text = " ".join(text.split())
    if len(text) <= MAX_HELP:
        return text
    return text[:MAX_HELP].rsplit(" ", 1)[0] + "…"


def _text(node: ast.expr | None) -> str | None:
    """Return the help a string expression spells out: a literal, an f-string's text, `_("...")`, `"..." % x`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _folded(node.value) or None
    if isinstance(node, ast.JoinedStr):
        parts = [v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                 for v in node.values if isinstance(v, (ast.Constant, ast.FormattedValue))]
        return _folded("".join(str(p) for p in parts)) or None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _text(node.left)
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("_", "gettext", "gettext_lazy", "dedent"):
            return _text(node.args[0])
        if isinstance(func, ast.Attribute) and func.attr in ("format", "strip", "dedent"):
            return _text(func.value if func.attr != "dedent" else node.args[0])
    return None


def _keyword_help(call: ast.Call) -> str | None:
    """Return the help a call gives by keyword (`help=`, `description=`) or in `metadata={"help": ...}`."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    for key in _HELP_KEYWORDS:
        found = _text(keywords.get(key))
        if found:
            return found
    metadata = keywords.get("metadata")
    if isinstance(metadata, ast.Dict):
        for key_node, value in zip(metadata.keys, metadata.values):
            if isinstance(key_node, ast.Constant) and key_node.value in _HELP_KEYWORDS:
                found = _text(value)
                if found:
                    return found
    return None


def _strings(call: ast.Call) -> list[str]:
    """Return a call's positional string literals."""
    return [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def _argparse_option(call: ast.Call) -> OptionRow | None:
    """Return the option an `add_argument('--num-workers', ...)` call defines, by the name argparse reads it by."""
    strings = _strings(call)
    if not strings:
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    flags = [s for s in strings if s.startswith("-")]
    dest_node = keywords.get("dest")
    dest = dest_node.value if isinstance(dest_node, ast.Constant) and isinstance(dest_node.value, str) else None
    if not flags:
        return OptionRow(dest or strings[0], call.lineno, _keyword_help(call), None, "")
    flag = next((f for f in flags if f.startswith("--")), flags[0])
    name = dest or flag.lstrip("-").replace("-", "_")
    return OptionRow(name, call.lineno, _keyword_help(call), flag, "") if name.isidentifier() else None


def _click_options(node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str) -> list[OptionRow]:
    """Return the options and arguments a function's `@click.option(...)`/`@click.argument(...)` decorators define."""
    found = []
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        func = decorator.func
        last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if last not in ("option", "argument"):
            continue
        strings = _strings(decorator)
        flags = [part for s in strings if s.startswith("-") for part in s.split("/")[:1]]
        named = [s for s in strings if s.isidentifier()]
        if named:
            name = named[0]
        elif flags:
            # click names an option by its first long flag, else its first short one.
            name = next((f for f in flags if f.startswith("--")), flags[0]).lstrip("-").replace("-", "_").lower()
        else:
            continue
        flag = next((f for f in flags if f.startswith("--")), flags[0]) if flags else None
        found.append(OptionRow(name, decorator.lineno, _keyword_help(decorator), flag, "", qualname))
    return found


def _typer_options(node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str) -> list[OptionRow]:
    """Return the options of parameters whose default is `typer.Option(...)`."""
    args = node.args
    if not any(isinstance(d, ast.Call) for d in (*args.defaults, *args.kw_defaults)):
        return []
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    found = []
    for arg, default in pairs:
        if not isinstance(default, ast.Call):
            continue
        func = default.func
        last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if last != "Option":
            continue
        flags = [part for s in _strings(default) if s.startswith("-") for part in s.split("/")[:1]]
        flag = next((f for f in flags if f.startswith("--")), f"--{arg.arg.replace('_', '-')}")
        found.append(OptionRow(arg.arg, default.lineno, _keyword_help(default), flag, "", qualname))
    return found


def _last(node: ast.expr) -> str:
    """Return the last part of a dotted name, a call's callee or a subscript's value (`dataclass` of `dataclasses.dataclass(...)`)."""
    while isinstance(node, (ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _class_row(node: ast.ClassDef) -> ClassRow:
    """Return the row of a class: its bases' names and whether it is a model by its own decorators or bases."""
    bases = tuple(_last(b) for b in node.bases)
    model = any(_last(d) in _MODEL_DECORATORS for d in node.decorator_list) or any(b in _MODEL_BASES for b in bases)
    return ClassRow(node.name, bases, model)


def _fields(node: ast.ClassDef) -> list[OptionRow]:
    """Return a class's annotated attributes (and `x = attr.ib(...)`), with their help, as fields of `node`."""
    found = []
    body = node.body
    for index, stmt in enumerate(body):
        value: ast.expr | None
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if _last(stmt.annotation) == "ClassVar":
                continue
            name, value, annotation = stmt.target.id, stmt.value, stmt.annotation
        elif (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
              and isinstance(stmt.value, ast.Call) and _last(stmt.value) in _FIELD_CALLS):
            name, value, annotation = stmt.targets[0].id, stmt.value, None
        else:
            continue
        help_text = _keyword_help(value) if isinstance(value, ast.Call) and _last(value) in _FIELD_CALLS else None
        help_text = help_text or _annotated_help(annotation) or _docstring_after(body, index)
        found.append(OptionRow(name, stmt.lineno, help_text, None, node.name))
    return found


def _annotated_help(annotation: ast.expr | None) -> str | None:
    """Return the help inside `Annotated[T, "help"]` (or a `Doc("help")`, a `Field(description=...)` there)."""
    if not (isinstance(annotation, ast.Subscript) and _last(annotation.value) == "Annotated"):
        return None
    inner = annotation.slice
    if not isinstance(inner, ast.Tuple):
        return None
    for extra in inner.elts[1:]:
        if isinstance(extra, ast.Call):
            found = _keyword_help(extra) or (_text(extra.args[0]) if _last(extra) == "Doc" and extra.args else None)
        else:
            found = _text(extra)
        if found:
            return found
    return None


def _docstring_after(body: Sequence[ast.stmt], index: int) -> str | None:
    """Return the string literal standing right after statement `index` of `body`: the attribute's docstring."""
    if index + 1 >= len(body):
        return None
    following = body[index + 1]
    if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str):
        return _folded(following.value.value) or None
    return None


def _constants(body: Sequence[ast.stmt]) -> tuple[tuple[str, int, str | None], ...]:
    """Return the module-level UPPER_CASE names, with the docstring under each."""
    found = []
    for index, stmt in enumerate(body):
        targets: list[ast.expr] = (stmt.targets if isinstance(stmt, ast.Assign)
                                   else [stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name) and _CONSTANT.fullmatch(target.id):
                found.append((target.id, stmt.lineno, _docstring_after(body, index)))
    return tuple(found)


def _public(path: str, qualname: str) -> bool:
    """Return whether a function is public: no part of its module path or its name starts with `_` (dunders aside)."""
    parts = path.removesuffix(".py").split("/") + qualname.split(".")
    return not any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts if p)


class Context:
    """Every file's index, joined: finds the callers and names of any site in the indexed files."""

    def __init__(self, indexes: Iterable[FileIndex]) -> None:
        self.functions: dict[tuple[str, str], FunctionRow] = {}
        self.calls: dict[str, list[tuple[str, CallRow]]] = defaultdict(list)
        self.options: dict[str, list[tuple[str, OptionRow]]] = defaultdict(list)
        self.constants: dict[str, list[Definition]] = defaultdict(list)
        bases: dict[str, set[str]] = defaultdict(set)
        models: set[str] = set()
        indexes = sorted(indexes, key=lambda i: i.path)
        # `os.open(...)` calls a function of os: a module's call is the library's only when the library has that module.
        own_modules = {part for index in indexes for part in index.path.removesuffix(".py").split("/")}
        classes = {row.name for index in indexes for row in index.classes}
        for index in indexes:
            for function in index.functions:
                self.functions.setdefault((index.path, function.qualname), function)
            for call in index.calls:
                if call.how.startswith("module:"):
                    if call.how.removeprefix("module:").split(".")[0] not in own_modules:
                        continue
                    call = call._replace(how="module")
                elif call.how.startswith("made:"):
                    # The receiver was made by calling a class: a class of the library's (`class:`), or a class of
                    # another library, or of a module the library does not have, whose methods are none of ours.
                    ours = {m.split(".")[-1] for m in call.how.removeprefix("made:").split("|")
                            if m.split(".")[-1] in classes and ("." not in m or m.split(".")[0] in own_modules)}
                    if not ours:
                        continue
                    call = call._replace(how=f"class:{ours.pop()}" if len(ours) == 1 else "attribute")
                elif call.how.startswith("on:"):
                    # `Style.parse(...)` on a class of the library calls that class's parse (or its bases');
                    # `markup.render(...)` after `from . import markup` a function of that module.
                    receiver = call.how.removeprefix("on:")
                    how = f"class:{receiver}" if receiver in classes else "module" if receiver in own_modules else "attribute"
                    call = call._replace(how=how)
                self.calls[call.name].append((index.path, call))
            for option in index.options:
                self.options[option.name].append((index.path, option))
            for name, line, help_text in index.constants:
                self.constants[name].append(Definition(index.path, line, "constant", help_text))
            for row in index.classes:
                bases[row.name].update(row.bases)
                if row.model:
                    models.add(row.name)
        self.bases = bases
        """The last part of each base's name, by class name."""
        self.models = _closure(models, bases)
        """Names of classes whose annotated attributes are fields: models, and classes based on one by name."""
        self._ranked: dict[tuple[str, bool], list[tuple[Caller, tuple[str, str] | None]]] = {}
        """Every caller of a name, ranked, by (name, called as a method); each with what it reaches (see `_rank`)."""
        self._related: dict[str, set[str]] = {}
        """For a class, every class whose methods a `self.m(...)` in it may run (see `_may_call`)."""
        self._children: dict[str, set[str]] | None = None
        """The classes based on each class, by name, made when first needed."""
        self._definers: dict[str, set[tuple[str, str]]] | None = None
        """By method name, each class that defines it (path, qualified name), made when first needed."""
        self._reads: dict[str, tuple[str, ...]] = {}
        """The names each expression reads, by its text: an early exit is in the guard of every raise after it."""
        self._named_memo: dict[tuple[str, str], frozenset[str]] = {}
        """`_named`'s answers, by receiver and method."""
        self._one_line_memo: dict[str, bool] = {}
        """`_one_line`'s answers, by method."""
        self._ancestors_memo: dict[str, set[str]] = {}
        """`_ancestors`' answers, by class."""

    def annotate(self, sites: Iterable[RaiseSite]) -> list[RaiseSite]:
        """Return the sites with their callers and names."""
        out = []
        for site in sites:
            callers = self.callers(site)
            out.append(replace(site, callers=callers, names=self.names(site, callers)))
        return out

    def callers(self, site: RaiseSite) -> tuple[Caller, ...]:
        """Return where the library calls the function of `site`, nearest to a public name first, at most MAX_CALLERS."""
        if not site.function:
            return ()
        parts = site.function.split(".")
        function = self.functions.get((site.path, site.function))
        name, method = parts[-1], function is not None and function.method
        constructor = method and name in _CONSTRUCTORS and len(parts) > 1
        if constructor:
            name, method = parts[-2], False
        elif name.startswith("__") and name.endswith("__"):
            return ()  # special methods run by syntax, not by name
        if (name, method) not in self._ranked:
            self._ranked[(name, method)] = self._rank(name, method)
        found: dict[tuple[str, str], Caller] = {}
        for caller, via in self._ranked[(name, method)]:
            key = (caller.path, caller.function)
            if key != (site.path, site.function) and key not in found and (
                    constructor or self._may_call(caller.path, via, site)):
                found[key] = caller
                if len(found) == MAX_CALLERS:
                    break
        return tuple(found.values())

    def _rank(self, name: str, method: bool) -> list[tuple[Caller, tuple[str, str] | None]]:
        """Return every function that calls `name` once (at its first call), public callers first, then by place.

        A method is called by attribute calls only, a function (or a class, for its constructor) by
        its name or on a module. A call `self.name(...)` comes with what it can reach: `("own",
        qualname)` when the class it is in defines `name` itself, else `("class", that class)`;
        `C.name(...)` on a class C of the library `("class", C)`; `x.name(...)` on any other
        receiver `("receiver", its name)`; a call of a function with None. A function is listed
        once for each of these that it has.
        """
        hows = {"self", "attribute"} if method else {"name", "module"}
        firsts: dict[tuple[str, str, tuple[str, str] | None], Caller] = {}
        for path, call in self.calls.get(name, ()):
            if call.how not in hows and not call.how.startswith("class:"):
                continue
            if call.how.startswith("class:"):
                via: tuple[str, str] | None = ("class", call.how.removeprefix("class:"))
            elif call.how == "attribute":
                via = ("receiver", call.receiver)
            else:
                via = self._via(path, call.function, name) if call.how == "self" else None
            if (path, call.function, via) not in firsts:
                firsts[(path, call.function, via)] = Caller(path, call.line, call.function)
        ranked = sorted(firsts.items(), key=lambda item: (_distance(item[1]), item[1].path, item[1].line))
        return [(caller, via) for (_, _, via), caller in ranked]

    def _via(self, path: str, function: str, name: str) -> tuple[str, str] | None:
        """Return what `self.name(...)` in `function` of `path` reaches (see `_rank`), None when it is in no class."""
        parts = function.split(".")
        for end in range(len(parts) - 1, 0, -1):
            qualname = ".".join([*parts[:end], name])
            found = self.functions.get((path, qualname))
            if found is not None and found.method:
                return ("own", qualname)
            if parts[end - 1] in self.bases:
                return ("class", parts[end - 1])
        return None

    def _may_call(self, path: str, via: tuple[str, str] | None, site: RaiseSite) -> bool:
        """Return whether a call of `path` that reaches `via` (see `_rank`) may run the function of `site`.

        `self.m(...)` in class C runs the `m` of C or of a class based on C that overrides it, or,
        when C defines no `m`, the `m` of any class that C or a class based on C is based on (a
        base, or a mixin's sibling): never the `m` of an unrelated class (rich's Stack, a list,
        calls its own `self.append`, not Text.append).

        `x.m(...)` on a receiver of unknown class runs the `m` of a class it is named for (`console`
        for Console, `style` for Style, see `raisers.names_class`) when a class that defines `m` is
        one, else the `m` of the one class of the repository that defines it, or of the one class
        and the classes based on it that override it (rich's MarkdownElement.on_child_close): when
        unrelated classes define `m` (rich's `parser.parse`, `write_file.write`), none is taken.
        """
        if via is None:
            return True
        kind, value = via
        if kind == "own" and (path, value) == (site.path, site.function):
            return True
        site_class = site.function.split(".")[-2:-1]
        if not site_class:
            return False
        if kind == "own":
            return value.split(".")[-2] in self._ancestors(site_class[0])
        if kind == "receiver":
            method = site.function.split(".")[-1]
            named = self._named(value, method)
            if named:
                return any(site_class[0] in self._related_to(c) for c in named)
            return self._one_line(method)
        return site_class[0] in self._related_to(value)

    def _named(self, receiver: str, method: str) -> frozenset[str]:
        """Return the classes defining `method` that a receiver's name is named for (see `_may_call`)."""
        # Asked once per caller of every site of a method: sglang's hundreds of `forward`s made it most of extract's time.
        key = (receiver, method)
        named = self._named_memo.get(key)
        if named is None:
            named = self._named_memo[key] = frozenset(
                c.split(".")[-1] for _, c in self._definers_of(method) if receiver and names_class(receiver, c.split(".")[-1]))
        return named

    def _one_line(self, method: str) -> bool:
        """Return whether the classes that define `method` are one class and classes based on it: a call runs one of theirs."""
        one = self._one_line_memo.get(method)
        if one is None:
            owners = [c.split(".")[-1] for _, c in self._definers_of(method)]
            one = self._one_line_memo[method] = (
                len(set(owners)) == len(owners) and any(set(owners) <= self._descendants(o) for o in owners))
        return one

    def _related_to(self, name: str) -> set[str]:
        """Return every class whose methods a call on class `name` may run: its bases, those of a class based on it."""
        related = self._related.get(name)
        if related is None:
            related = self._related[name] = {a for d in self._descendants(name) for a in self._ancestors(d)}
        return related

    def _definers_of(self, method: str) -> set[tuple[str, str]]:
        """Return each class (path, qualified name) that defines a method `method`."""
        if self._definers is None:
            self._definers = defaultdict(set)
            for (path, qualname), row in self.functions.items():
                if row.method:
                    owner, _, last = qualname.rpartition(".")
                    self._definers[last].add((path, owner))
        return self._definers.get(method, set())


    def _ancestors(self, name: str) -> set[str]:
        """Return a class and every class it is based on, by name."""
        ancestors = self._ancestors_memo.get(name)
        if ancestors is None:
            ancestors = self._ancestors_memo[name] = _reachable(name, self.bases)
        return ancestors

    def _descendants(self, name: str) -> set[str]:
        """Return a class and every class based on it, by name."""
        if self._children is None:
            self._children = defaultdict(set)
            for child, parents in self.bases.items():
                for parent in parents:
                    self._children[parent].add(child)
        return _reachable(name, self._children)

    def names(self, site: RaiseSite, callers: Sequence[Caller]) -> tuple[tuple[str, Definition], ...]:
        """Return the names the message and guard of `site` read, each with where a user sets it."""
        found = []
        for name in self.read_names(site):
            definition = self.definition(name, site, callers)
            if definition is not None:
                found.append((name, definition))
        return tuple(found)

    def read_names(self, site: RaiseSite) -> list[str]:
        """Return the dotted names the message's placeholders and the guard read, each once, in the order read."""
        texts = [*_placeholders(site.message), *(g for g in site.guard if not g.startswith(("except", "case ")))]
        seen: dict[str, None] = {}
        for text in texts:
            reads = self._reads.get(text)
            if reads is None:
                tree = _expression(text)
                reads = self._reads[text] = tuple(dict.fromkeys(_dotted_reads(tree))) if tree is not None else ()
            seen.update(dict.fromkeys(reads))
        return list(seen)

    def definition(self, name: str, site: RaiseSite, callers: Sequence[Caller]) -> Definition | None:
        """Return where a user sets `name` as read at `site`, by the rules in the module's docstring."""
        parts = name.split(".")
        last = parts[-1]
        function = self.functions.get((site.path, site.function))
        if len(parts) == 1 and function is not None and _param(function, last) is not None:
            if _public(site.path, function.qualname):
                return self._parameter(site.path, function, last)
            for caller in callers:
                other = self.functions.get((caller.path, caller.function))
                if other is not None and _public(caller.path, other.qualname) and _param(other, last) is not None:
                    return self._parameter(caller.path, other, last)
            return self._option(last, site, None) or self._parameter(site.path, function, last)
        receiver = parts[-2] if len(parts) > 1 else None
        enclosing = [self.functions.get((site.path, ".".join(site.function.split(".")[:end])))
                     for end in range(len(site.function.split(".")), 0, -1)]
        enclosing_functions = [f for f in enclosing if f is not None]
        if receiver is None:
            # A name of an enclosing function's (a closure reads it): that function's parameter.
            outer = next((f for f in enclosing_functions if f.qualname != site.function and _param(f, last) is not None), None)
            if outer is not None:
                return self._option(last, site, None, with_fields=False) or self._parameter(site.path, outer, last)
        if _CONSTANT.fullmatch(last):
            # `self.LPAR` is a class's own attribute: only the raising file's constant may be it.
            constant = self._constant(last, site.path, elsewhere=parts[0] not in ("self", "cls"))
            if constant is not None:
                return constant
        if parts[0] in ("self", "cls") and len(parts) == 2:
            owner = self._owner_init(site, last)
            if owner is not None:
                return self._option(last, site, receiver) or owner
        # A local variable is read by its own name, a field through its owner (`self.x`, `cfg.x`): only an option sets
        # a local, or a field of the name it copies (`mode = self.mode`, `size = cfg.get("size")`).
        copied = receiver is None and any(last in f.copies for f in enclosing_functions)
        return self._option(last, site, receiver, with_fields=receiver is not None or copied)

    def _parameter(self, path: str, function: FunctionRow, name: str) -> Definition:
        """Return the definition of a function's parameter: the option that sets it when the function is a command."""
        for other_path, row in self.options.get(name, ()):
            if other_path == path and row.function == function.qualname:
                return Definition(path, row.line, "option", row.help, row.flag)
        param = _param(function, name)
        assert param is not None
        return Definition(path, param[1], "parameter", param[2])

    def _option(self, name: str, site: RaiseSite, receiver: str | None, with_fields: bool = True) -> Definition | None:
        """Return the option or field `name` that a read at `site` (`receiver.name`, or a plain name) most likely means.

        A field is one of the receiver's class: for `self`/`cls`, a class the raising function is
        a method of; for another receiver, a class it is named for (`server_args` for ServerArgs,
        `cfg` for Config): `leaf.type` is no field `type` of an unrelated class. Without
        `with_fields`, only a command-line option.
        """
        dotted = receiver is not None
        methods_of = set(site.function.split(".")[:-1])

        def fits(owner: str) -> bool:
            if not owner or receiver is None:
                return True
            return owner in methods_of if receiver in ("self", "cls") else names_class(receiver, owner)

        candidates = [(path, row) for path, row in self.options.get(name, ())
                      if (not row.owner or (with_fields and row.owner in self.models)) and fits(row.owner)]
        if not candidates:
            return None
        # A plain name that is no parameter is a local variable: only an option of its own file is likely its.
        tiers = (
            [c for c in candidates if c[0] == site.path],
            [c for c in candidates if not c[1].owner] if dotted else [],
            # A field of another file only when no other field has its name: `path.name` is not any class's `name`.
            fields if dotted and len(fields := [c for c in candidates if c[1].owner]) == 1 else [],
        )
        for tier in tiers:
            if tier:
                # A command-line option before a field (a user types the flag), one with help before one without.
                path, row = min(tier, key=lambda c: (bool(c[1].owner), c[1].help is None, c[0], c[1].line))
                return Definition(path, row.line, "option", row.help, row.flag)
        return None

    def _constant(self, name: str, path: str, elsewhere: bool = True) -> Definition | None:
        """Return the module constant `name`: the raising file's own, else (when `elsewhere`) the first by path."""
        found = self.constants.get(name, [])
        return next((d for d in found if d.path == path), found[0] if found and elsewhere else None)

    def _owner_init(self, site: RaiseSite, name: str) -> Definition | None:
        """Return the parameter `name` of the constructor of the class a method of `site` belongs to."""
        parts = site.function.split(".")
        for end in range(len(parts) - 1, 0, -1):
            init = self.functions.get((site.path, ".".join(parts[:end]) + ".__init__"))
            if init is not None and _param(init, name) is not None:
                return self._parameter(site.path, init, name)
        return None


def _closure(models: set[str], bases: dict[str, set[str]]) -> frozenset[str]:
    """Return the model classes and every class based on one, by name, to a fixed point."""
    found = set(models)
    changed = True
    while changed:
        changed = False
        for name, parents in bases.items():
            if name not in found and parents & found:
                found.add(name)
                changed = True
    return frozenset(found)


def _distance(caller: Caller) -> int:
    """Return how far a caller is from a public name: 0 a public function of a public module, then 1, 2."""
    if not caller.function:
        return 2
    if _public(caller.path, caller.function):
        return 0
    return 1 if _public("", caller.function) else 2


def _param(function: FunctionRow, name: str) -> tuple[str, int, str | None] | None:
    """Return a function's parameter `name`, if it has one."""
    return next((p for p in function.params if p[0] == name), None)




def _placeholders(message: str) -> Iterator[str]:
    """Yield the text inside each `{...}` placeholder of a template (literal `{{` skipped)."""
    index, end = 0, len(message)
    while index < end:
        char = message[index]
        if char == "{" and message.startswith("{{", index):
            index += 2
            continue
        if char != "{":
            index += 1
            continue
        depth, close = 0, index
        while close < end:
            if message[close] == "{":
                depth += 1
            elif message[close] == "}":
                depth -= 1
                if depth == 0:
                    break
            close += 1
        inner = message[index + 1:close]
        if inner.strip():
            yield inner
        index = close + 1


def _expression(text: str) -> ast.expr | None:
    """Return a placeholder's expression, its `!r` conversion and `:spec` format left off; None if it is not one."""
    candidates = [text]
    for mark in ("!", ":"):
        cut = text.rfind(mark)
        while cut > 0:
            candidates.append(text[:cut])
            cut = text.rfind(mark, 0, cut)
    for candidate in candidates:
        if not candidate.strip():
            continue
        try:
            return ast.parse(candidate.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            continue
    return None


def _dotted_reads(tree: ast.expr) -> Iterator[str]:
    """Yield the dotted names an expression reads (`cfg.page_size`, `value`): not what it calls by name, nor
    what it binds (a walrus, a comprehension's variable), nor a builtin."""
    reads: list[str] = []
    bound: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            # `cfg.check()` reads `cfg`; `check()` reads nothing a user sets.
            func = node.func
            stack += reversed([*node.args, *node.keywords])
            if isinstance(func, ast.Attribute):
                stack.append(func.value)
            elif not isinstance(func, ast.Name):
                stack.append(func)
            continue
        name = _dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if name is None:
            stack += reversed(list(ast.iter_child_nodes(node)))
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(name)
        else:
            reads.append(name)
    for name in reads:
        if name not in _UNSET and name.split(".")[0] not in bound and name.split(".")[0] not in _BUILTINS:
            yield name


def _dotted(node: ast.expr) -> str | None:
    """Return `a.b.c` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _reachable(start: str, edges: Mapping[str, Iterable[str]]) -> set[str]:
    """Return `start` and every name its `edges` lead to, however many steps away."""
    found, todo = set(), [start]
    while todo:
        current = todo.pop()
        if current not in found:
            found.add(current)
            todo += edges.get(current, ())
    return found
