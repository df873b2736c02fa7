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
(`__init__`) by calls of its class's name. A call by name calls the function
only where Python finds that function by the name: in its own file, imported
from its module (or from a module that imports it from there, or all of it),
and, for a function defined inside another, in that function. `x.f(...)` on
any other receiver calls a method: of a class the receiver is named for (its
name is the class's), else of the one class (and its subclasses) that
defines `f`, else of none; a receiver whose class the code tells (a
parameter's annotation, an attribute's declared type or a property's return
type, every value assigned made by a call of one class: `d = TextDecoder()`,
`self.pool = httpcore.Pool()`) is of that class, and calls no method of the
library when that class is not the library's. An attribute call on
anything but `self`/`cls` whose name is also a method of `dict`, `list`,
`str` or `set` (`x.get(...)`) is as likely theirs, and is not counted;
`self.f(...)` in a class that defines `f` calls that `f` (or an override
in a class based on it), and in one that does not, the `f` of a class it or
a class based on it is based on; `super().f(...)` the `f` of a class above
it; `C.f(...)` on a class `C` of the library (or a name `from ... import C
as D` binds) calls C's `f`.

A name (`cfg.page_size`, `value`) is set by, first to last: a parameter of
the raising function when that function is public, else of a public caller
that has one of that name; a constant (module-level `UPPER_CASE`: the raising
file's own, or the one it imports); a command-line option (`argparse`'s
`add_argument`, `click.option`, a `typer.Option` default) or a field of a
dataclass, attrs, pydantic or msgspec class (or a settings class, a
`TypedDict`; for a local variable only when the function assigns it from an
attribute or key of its name, `x = self.x`) named like its last part: in the
raising file first, then, for an attribute of an `argparse.Namespace`, a
command-line option anywhere, then the one field of that name anywhere; else
a parameter of the raising function. A name a closure reads from its
enclosing function is that function's parameter. A field is one of a class the
receiver can be: the class (or a base) the code tells (`self` in a method, an
annotation, ...), else a class the receiver is named for (`server_args` for
ServerArgs); of a receiver of unknown class (`cfg = view(args)`), no field is
taken. A flag the message spells (`--num-workers`, or a constant of that value
it prints) sets what is read by its `dest`; an option whose help sends to
another flag gives way to that flag.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol, TypeGuard

from ..model import Caller, Definition
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

_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*")
"""A long flag as a message or help text spells it (`--num-workers`)."""

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
"""A placeholder of a message template: what it prints is no flag the message spells."""

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
    copies: tuple[tuple[str, str], ...] = ()
    """Local names it assigns from an attribute or key of the same name, each with what it reads it of
    (`mode = self.mode`: `self`, `size = int(cfg.get("size", 0))`: `cfg`): a field of that name of a class that
    object can be is where such a value comes from."""
    typed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Its parameters and locals whose class the file tells, each with the classes it may be: a parameter's
    annotation (`args: argparse.Namespace`), or the calls of classes that make every value it is given."""
    keeps: tuple[str, ...] = ()
    """For a constructor, its parameters `x` that it keeps as `self.x` (`self.x = x`, `self.x = int(x)`), or passes
    on to a base's `__init__` by keyword (`super().__init__(x=x)`)."""


class CallRow(NamedTuple):
    """A call of a function by a name (`f(...)`, `x.f(...)`)."""

    name: str
    """The name called by: `f`."""
    line: int
    """Line of the call."""
    function: str
    """Qualified name of the calling function; "" at module level."""
    how: str
    """`name` (`f(...)`, or `g(...)` where `from m import f as g`), `inner` (`f(...)` of a function
    or class defined inside the calling function, or one it is in), `self` (`self.f(...)`,
    `cls.f(...)`, or `f(...)` where the function assigned `f = self.f`), `super` (`super().f(...)`),
    `attribute` (any other `x.f(...)`), `member:C.p` (`x.p.f(...)` where `x` is `self` in a method
    of class `C`, or is of class `C` as for `made:`; `Context` makes it `made:` when `C` or a class
    it is based on declares the type of `p`, else `attribute`),
    `module:m` (`x.f(...)` or `x.y.f(...)` where the file binds `x` by `import m` or
    `import m as x`), or `on:X` (`x.f(...)` on a plain name `x`, `X` the name it was imported
    as or a local alias stands for: `Style` for `_Style` of `from .style import Style as _Style`
    or of `_Style = Style`), or `made:X|Y` (`x.f(...)` where every value the function gives `x`,
    or every method of the class gives `self.x`, is made by calling `X` or `Y`, names like a
    class's: `TextDecoder` or `httpcore.Pool`, or is of the class an annotation or declaration
    names). `Context` makes `on:X` `class:X` when the library has a class `X`, `module` when it
    has the module the file imports `X` as (`from . import markup`), else `attribute`; `module:m`
    `module` (whether `m` is the raising function's module is asked per site); `made:X|Y`
    `class:X` when `X` alone is a class of the library, `attribute` when several are, and drops
    the call when none is."""
    receiver: str = ""
    """For `attribute`: the receiver's name, or the last part of a dotted one (`console` of
    `self.console.f(...)`); "" for any other receiver (`f().g(...)`)."""
    module: str = ""
    """For `name`: the module the file imports the name from (`pkg.core` of `from .core import f`
    in `pkg/api.py`), "" for a name it does not import; for `inner`, the function whose own the
    called function or class is; for `module`, the module (`pkg.markup`)."""


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
    aliased: tuple[str, str] | None = None
    """For a field annotated `A[int, "help"]` with a name other than `Annotated`: that name and the help,
    which is the field's when the name stands for `Annotated` (`A = Annotated` here, or imported from where
    it is)."""


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
    imports: tuple[tuple[str, str], ...] = ()
    """Each name a `from m import x` binds, with where it comes from (`pkg.core.x`, a relative import resolved)."""
    stars: tuple[str, ...] = ()
    """The modules it imports everything of (`from m import *`)."""
    members: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    """Attributes whose type a class declares (`p: T` in its body, `self.p: T = ...`, a property's return type):
    class, attribute, the classes the type names (`IO` of `IO[str]`, both of `A | B`)."""
    annotated: tuple[str, ...] = ()
    """Module-level names that stand for `typing.Annotated` (`A = Annotated`)."""
    modules: tuple[tuple[str, str], ...] = ()
    """Each name an `import m` (`import m as x`) binds, with the module it binds."""
    flags: tuple[tuple[str, str], ...] = ()
    """Module-level constants whose value is a flag (`FLAG = "--enable-amd-monokernel"`), with the flag."""


def index_file(path: str, tree: ast.Module, calls: Iterable[tuple[str, ast.Call]]) -> FileIndex:
    """Return the index of one parsed file: its functions, options, classes and constants, and `calls`.

    `calls` are the file's calls, each with the qualified name of the
    function it is in ("" at module level): the scan has walked every
    function body once already, and a second walk would cost as much again.
    Only statements are walked here.
    """
    calls = list(calls)
    functions: list[FunctionRow] = []
    options: list[OptionRow] = []
    classes: list[ClassRow] = []
    modules: dict[str, str] = {}
    aliases: dict[str, str] = {}
    sources: dict[str, str] = {}
    stars: list[str] = []
    inner: dict[str, set[str]] = defaultdict(set)
    annotations: dict[str, dict[str, frozenset[str] | None]] = defaultdict(dict)
    declared: list[tuple[str, str, ast.expr | None]] = []
    declared_in: list[tuple[str, str, ast.expr | None]] = []
    assigned: list[tuple[str, str, ast.expr | None]] = []
    attributes: list[tuple[str, str, ast.expr | None]] = []
    annotated = {"Annotated"}
    stack: list[tuple[ast.stmt, tuple[str, ...], bool]] = [(stmt, (), False) for stmt in reversed(tree.body)]
    while stack:
        node, names, in_class = stack.pop()
        inner_names, in_class_body = names, False
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            if names and not in_class:
                inner[".".join(names)].add(node.name)  # bound in the function it is defined in, called there by name
            inner_names = names + (node.name,)
            qualname = ".".join(inner_names)
            # An `@overload` stub says nothing a user reads: the definition is the `def` after the stubs.
            if not any(_last(d) == "overload" for d in node.decorator_list):
                functions.append(FunctionRow(qualname, node.lineno, _params(node, in_class), in_class))
                args = node.args
                annotations[qualname] = {a.arg: _annotation_classes(a.annotation) for a in
                                         (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation is not None}
            if in_class and any(_last(d) in _PROPERTIES for d in node.decorator_list):
                declared.append((".".join(names), node.name, node.returns))
            options += _typer_options(node, qualname) + _click_options(node, qualname)
        elif kind is ast.ClassDef:
            assert isinstance(node, ast.ClassDef)
            if names and not in_class:
                inner[".".join(names)].add(node.name)
            inner_names, in_class_body = names + (node.name,), True
            classes.append(_class_row(node))
            options += _fields(node)
        elif kind is ast.Import:
            assert isinstance(node, ast.Import)
            modules.update((a.asname, a.name) if a.asname else (a.name.split(".")[0],) * 2 for a in node.names)
        elif kind is ast.ImportFrom:
            assert isinstance(node, ast.ImportFrom)
            base = _import_base(path, node)
            aliases.update((a.asname, a.name) for a in node.names if a.asname)
            sources.update((a.asname or a.name, f"{base}.{a.name}") for a in node.names if a.name != "*")
            stars += [base for a in node.names if a.name == "*"]
        elif kind is ast.Assign or kind is ast.AnnAssign:
            assert isinstance(node, (ast.Assign, ast.AnnAssign))
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not names:
                if isinstance(node.value, (ast.Name, ast.Attribute)) and _last(node.value) == "Annotated":
                    annotated.update(t.id for t in targets if isinstance(t, ast.Name))
            elif in_class:
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    declared.append((".".join(names), node.target.id, node.annotation))
            else:
                for target in targets:
                    if isinstance(node, ast.AnnAssign) and _is_self_attribute(target):
                        declared_in.append((".".join(names), target.attr, node.annotation))
                    if isinstance(target, ast.Name) and node.value is not None:
                        assigned.append((".".join(names), target.id, node.value if len(targets) == 1 else None))
                    elif _is_self_attribute(target):
                        attributes.append((".".join(names), target.attr, node.value))
                    elif isinstance(target, (ast.Tuple, ast.List)):
                        # `a, self.b = ...`: what each part is made by is not told.
                        assigned += [(".".join(names), t.id, None) for t in target.elts if isinstance(t, ast.Name)]
                        attributes += [(".".join(names), t.attr, None) for t in target.elts if _is_self_attribute(t)]
        if kind in _COMPOUND:
            for block in _blocks(node):
                stack += [(child, inner_names, in_class_body) for child in reversed(block)]
    annotated.update(name for name, original in aliases.items() if original == "Annotated")
    # A function's parameters and the names it assigns are its locals: `render(...)` there is no module's render.
    local: dict[str, dict[str, ast.expr | None]] = defaultdict(dict)
    made: dict[str, dict[str, frozenset[str] | None]] = defaultdict(dict)
    for defined in functions:
        local[defined.qualname].update((p[0], None) for p in defined.params)
        told = annotations[defined.qualname]
        made[defined.qualname].update((p[0], _renamed(told[p[0]], aliases) if p[0] in told else None)
                                      for p in defined.params)
    for qualname, name, value in assigned:
        local[qualname].setdefault(name, value)
        made[qualname][name] = _same_maker(made[qualname].get(name, frozenset()), value, aliases, made[qualname])
    # `self.pool = Pool(...)` in any method of a class: what `self.pool.m(...)` there runs is Pool's m;
    # an attribute whose type the class declares (`pool: Pool`, a property's `-> IO[str]`) is of that type.
    methods = {f.qualname for f in functions if f.method}
    made_attributes: dict[str, dict[str, frozenset[str] | None]] = defaultdict(dict)
    for qualname, name, value in attributes:
        owner = _method_class(qualname, methods)
        if owner is not None:
            made_attributes[owner][name] = _same_maker(made_attributes[owner].get(name, frozenset()), value, aliases,
                                                       made.get(qualname))
    members = []
    declared += [(owner, name, annotation) for where, name, annotation in declared_in
                 if (owner := _method_class(where, methods)) is not None]
    for owner, name, annotation in declared:
        types = _annotation_classes(annotation)
        if types:
            made_attributes[owner][name] = frozenset(aliases.get(t, t) for t in types)
            members.append((owner.split(".")[-1], name, tuple(sorted(_qualified(t, aliases, modules) for t in types))))
    scope = _Scope(modules, aliases, sources, local, made, made_attributes, inner, methods)
    rows = []
    for function, call in calls:
        row = _call_row(call, function, scope)
        if row is None:
            continue
        rows.append(row)
        if row.name in OPTION_CALLS and row.how not in ("name", "inner"):
            option = _argparse_option(call)
            if option is not None:
                options.append(option)
    # Only a field of this file may be what a local copies (`Context.definition`): most assignments need no look.
    fields = {row.name for row in options if row.owner}
    copies: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for qualname, name, value in assigned:
        source = _copied_from(value, name) if name in fields and value is not None else None
        if source is not None:
            copies[qualname].add((name, source))
    keeps = _kept(functions, attributes, calls)
    typed = {qualname: found for qualname, names in made.items() if (found := _typed(names, modules))}
    if copies or keeps or typed:
        functions = [f._replace(copies=tuple(sorted(copies.get(f.qualname, ()))), keeps=keeps.get(f.qualname, ()),
                                typed=typed.get(f.qualname, ()))
                     if f.qualname in copies or f.qualname in keeps or f.qualname in typed else f for f in functions]
    # A base imported under another name (`from .base import Base as Alias`) is that base.
    classes = [row._replace(bases=tuple(aliases.get(b, b) for b in row.bases)) for row in classes] if aliases else classes
    return FileIndex(path, tuple(functions), tuple(rows), tuple(options), tuple(classes), _constants(tree.body),
                     tuple(sorted(sources.items())), tuple(stars), tuple(members),
                     tuple(sorted(annotated - {"Annotated"})), tuple(sorted(modules.items())), _flag_constants(tree.body))


_PROPERTIES = frozenset({"property", "cached_property"})
"""Decorators that make a method an attribute whose type is the method's return type."""

_UNTOLD = frozenset({"Any", "object", "Self", "Incomplete", "None", "TypeVar"})
"""Names in an annotation that say nothing of a value's class."""

_WRAPPERS = frozenset({"Optional", "Union", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"})
"""Annotations whose value is of the class (or classes) inside them."""


def _annotation_classes(annotation: ast.expr | None) -> frozenset[str] | None:
    """Return the classes an annotation says a value is of (`Pool` of `Optional[Pool]`, `IO` of `IO[str]`,
    `a.B` and `C` of `a.B | C | None`), or None when it does not tell (`Any`, a bare `TypeVar` is taken as a class)."""
    if isinstance(annotation, ast.Name):  # most annotations: `int`, `Tensor`
        return None if annotation.id in _UNTOLD else frozenset({annotation.id})
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            return None
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return frozenset()
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        left, right = _annotation_classes(annotation.left), _annotation_classes(annotation.right)
        return left | right if left is not None and right is not None else None
    if isinstance(annotation, ast.Subscript) and _last(annotation.value) in _WRAPPERS:
        inner = annotation.slice
        parts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        if _last(annotation.value) != "Union":
            parts = parts[:1]  # Annotated[T, "help"] is a T
        found: frozenset[str] = frozenset()
        for part in parts:
            classes = _annotation_classes(part)
            if classes is None:
                return None
            found |= classes
        return found
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value  # `IO[str]` is an IO, `list[Pool]` a list
    dotted = _dotted(annotation) if isinstance(annotation, (ast.Name, ast.Attribute)) else None
    if dotted is None or dotted.split(".")[-1] in _UNTOLD:
        return None
    return frozenset({dotted})


def _qualified(name: str, aliases: Mapping[str, str], modules: Mapping[str, str]) -> str:
    """Return a class's dotted name as the file refers to it, its module's import and its own renaming undone."""
    first, _, rest = name.partition(".")
    if rest:
        return f"{modules.get(first, first)}.{rest}"
    return aliases.get(first, first)


def _typed(made: Mapping[str, frozenset[str] | None], modules: Mapping[str, str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Return a function's names whose classes the file tells, each with those classes (see `FunctionRow.typed`)."""
    found = [(name, classes) for name, classes in made.items() if classes]
    return tuple((name, tuple(sorted(_qualified(c, {}, modules) for c in classes))) for name, classes in sorted(found))


def _renamed(classes: frozenset[str] | None, aliases: Mapping[str, str]) -> frozenset[str] | None:
    """Return classes by the names they were imported as (`Style` for `_Style` of `import Style as _Style`)."""
    return frozenset(aliases.get(c, c) for c in classes) if classes is not None else None


def _kept(functions: Sequence[FunctionRow], attributes: Sequence[tuple[str, str, ast.expr | None]],
          calls: Iterable[tuple[str, ast.Call]]) -> dict[str, tuple[str, ...]]:
    """Return, by constructor, its parameters that it keeps as attributes of the same name (see `FunctionRow.keeps`)."""
    params = {f.qualname: {p[0] for p in f.params} for f in functions if f.method and f.qualname.endswith(".__init__")}
    if not params:
        return {}
    kept: dict[str, set[str]] = defaultdict(set)
    for qualname, name, value in attributes:
        if name in params.get(qualname, ()) and value is not None and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(value)):
            kept[qualname].add(name)
    for qualname, call in calls:
        if qualname in params and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__":
            kept[qualname].update(k.arg for k in call.keywords if k.arg in params[qualname]
                                  and isinstance(k.value, ast.Name) and k.value.id == k.arg)
    return {qualname: tuple(sorted(names)) for qualname, names in kept.items()}


def _import_base(path: str, node: ast.ImportFrom) -> str:
    """Return the module a `from ... import` reads from, a relative one resolved against the file's folder."""
    if not node.level:
        return node.module or ""
    package = path.split("/")[:-1]
    package = package[:max(len(package) - (node.level - 1), 0)]
    return ".".join([*package, *([node.module] if node.module else [])])


def _module_names(path: str, packages: frozenset[str]) -> tuple[str, ...]:
    """Return the dotted names a file is imported by: `pkg.core` of `pkg/core.py`, `pkg` of `pkg/__init__.py`, and,
    under folders that are no packages (`src/pkg/core.py`), without them."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    names = [".".join(parts)]
    for index in range(1, len(parts)):
        if "/".join(parts[:index]) in packages:
            break
        if "/".join(parts[:index + 1]) in packages:
            names.append(".".join(parts[index:]))
            break
    return tuple(n for n in names if n)


_COMPOUND: frozenset[type[ast.stmt]] = frozenset({
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
    ast.AsyncWith, ast.Try, ast.TryStar, ast.Match})
"""Statements that hold statements."""


def _copied_from(value: ast.expr, name: str) -> str | None:
    """Return what an expression reads the attribute or key `name` of (`x.name`, `x.get("name")`, `x["name"]`: `x`)."""
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute) and node.attr == name:
            return _dotted(node.value)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == name:
            return _dotted(node.value)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == name):
            return _dotted(node.func.value)
    return None


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
    sources: dict[str, str]
    """Every name a `from m import ...` binds, with where it comes from (`pkg.core.f`)."""
    local: dict[str, dict[str, ast.expr | None]]
    """By function: its parameters (None) and the names it assigns, each with the value first assigned."""
    made: dict[str, dict[str, frozenset[str] | None]]
    """By function: for each of its locals, the classes its annotation names, or what every value it is assigned
    is made by (see `_same_maker`)."""
    made_attributes: dict[str, dict[str, frozenset[str] | None]]
    """By class: for each `self.x`, the type the class declares, or what every value its methods assign is made by."""
    inner: dict[str, set[str]]
    """By function: the functions and classes defined in it."""
    methods: set[str]
    """The qualified names of methods."""

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

    def inner_of(self, function: str, name: str) -> str | None:
        """Return the function that `name`, called by name in `function`, is defined in, when it is a function's own."""
        parts = function.split(".")
        for end in range(len(parts), 0, -1):
            qualname = ".".join(parts[:end])
            if name in self.inner.get(qualname, ()):
                return qualname
            if name in self.local.get(qualname, ()):
                return None
        return None

    def owner_of(self, function: str, receiver: ast.expr) -> str | None:
        """Return the class of the object whose attribute is a call's receiver (`C` of `self.p.f(...)` in a method of
        C, `Pool` of `pool.p.f(...)` after `pool = Pool()`), when the file tells."""
        if not isinstance(receiver, ast.Attribute) or not isinstance(receiver.value, ast.Name):
            return None
        if receiver.value.id in ("self", "cls"):
            return _method_class(function, self.methods)
        makers = self.makers(function, receiver.value)
        if makers and len(makers) == 1:
            (maker,) = makers
            if "." not in maker or maker.split(".")[0] in self.modules:
                return maker.split(".")[-1]
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


def _same_maker(before: frozenset[str] | None, value: ast.expr | None, aliases: Mapping[str, str],
                known: Mapping[str, frozenset[str] | None] | None = None) -> frozenset[str] | None:
    """Return what made every value a name is assigned, given what made the ones before (`before`, empty for none yet).

    A value is made by a class when it is a call of a name like a class's (`Pool(...)`, `httpcore.Pool(...)`), or is
    a local whose classes `known` tells (`self.store = store` of a parameter `store: Store`): the result holds each
    such dotted name; a value of any other kind makes it None, not known.
    """
    told = known.get(value.id) if known and isinstance(value, ast.Name) else None
    if before is not None and told:
        return before | told
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
        owner = scope.inner_of(function, name) if function and scope.inner else None
        if owner is not None:
            return CallRow(name, node.lineno, function, "inner", module=owner)
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
        module, _, original = scope.sources.get(name, "").rpartition(".")
        return CallRow(original or name, node.lineno, function, "name", module=module)
    if not isinstance(func, ast.Attribute):
        return None
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
        return CallRow(func.attr, node.lineno, function, "self")
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        return CallRow(func.attr, node.lineno, function, "super")
    dotted = _dotted(receiver)
    first = dotted.split(".")[0] if dotted is not None else ""
    is_local, value = scope.bound(function, first) if dotted is not None and function else (False, None)
    if not is_local and first in scope.modules:
        module = scope.modules[first] + (dotted or "")[len(first):]
        return CallRow(func.attr, node.lineno, function, f"module:{module}", module=module)
    if func.attr in _CONTAINER_METHODS:
        return None
    makers = scope.makers(function, receiver) if function else None
    if makers and all(len(m.split(".")) == 1 or m.split(".")[0] in scope.modules for m in makers):
        # `decoder = TextDecoder()` then `decoder.flush()`: TextDecoder's flush, not that of any other class;
        # `self.pool = httpcore.Pool()` then `self.pool.close()`: another library's.
        made_by = sorted(_qualified(m, {}, scope.modules) for m in makers)
        return CallRow(func.attr, node.lineno, function, f"made:{'|'.join(made_by)}")
    owner = scope.owner_of(function, receiver) if function else None
    if owner is not None and isinstance(receiver, ast.Attribute):
        # `console.file.write(...)`: what Console (or a base of it) declares `file` to be, if it does.
        return CallRow(func.attr, node.lineno, function, f"member:{owner}.{receiver.attr}", receiver.attr)
    if isinstance(receiver, ast.Name):
        name = receiver.id
        if is_local and isinstance(value, ast.Name) and not scope.bound(function, value.id)[0]:
            name = value.id  # a local alias, `_Style = Style`, is what it stands for
        elif is_local:
            return CallRow(func.attr, node.lineno, function, "attribute", name)
        if name[:1].isupper() or name in scope.sources:
            # Named like a class, or imported: maybe a class or a module of the library's.
            module = scope.sources.get(name, "")
            return CallRow(func.attr, node.lineno, function, f"on:{scope.aliases.get(name, name)}", name, module)
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
        help_text = help_text or _annotated_help(annotation)
        # `A[int, "help"]`: the help, if `A` stands for Annotated (`A = Annotated`), which the file may not tell.
        aliased = None
        if (not help_text and isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name)
                and (through := _annotated_help(annotation, annotation.value.id))):
            aliased = (annotation.value.id, through)
        help_text = help_text or _docstring_after(body, index)
        found.append(OptionRow(name, stmt.lineno, help_text, None, node.name, aliased=aliased))
    return found


def _annotated_help(annotation: ast.expr | None, annotated: str = "Annotated") -> str | None:
    """Return the help inside `Annotated[T, "help"]` (or a `Doc("help")`, a `Field(description=...)` there), or inside
    `annotated[T, "help"]`, for another name of Annotated."""
    if not (isinstance(annotation, ast.Subscript) and _last(annotation.value) == annotated):
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


def _flag_constants(body: Sequence[ast.stmt]) -> tuple[tuple[str, str], ...]:
    """Return the module-level constants whose value is a flag, each with the flag (`FLAG = "--verbose"`)."""
    return tuple((target.id, stmt.value.value) for stmt in body if isinstance(stmt, ast.Assign)
                 and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
                 and _FLAG.fullmatch(stmt.value.value) for target in stmt.targets
                 if isinstance(target, ast.Name) and _CONSTANT.fullmatch(target.id))


def _public(path: str, qualname: str) -> bool:
    """Return whether a function is public: no part of its module path or its name starts with `_` (dunders aside)."""
    parts = path.removesuffix(".py").split("/") + qualname.split(".")
    return not any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts if p)


class Annotation(NamedTuple):
    """The callers and names of a site, with what finding them read (see `Context.annotate`)."""

    structure: bytes
    """The library's layout they were found in (`Context.structure`)."""
    reads: tuple[tuple[str, object, bytes], ...]
    """Each kind and key of rows read, with a digest of those rows."""
    callers: tuple[Caller, ...]
    names: tuple[tuple[str, Definition], ...]
    shown: bytes
    """A digest of the callers and names (see `annotated_digest`)."""


def annotated_digest(key: bytes, annotation: Annotation) -> bytes:
    """Return a digest of every field of a site annotated: its `site_key` and the callers and names it was given."""
    return hashlib.blake2b(key + annotation.shown, digest_size=16).digest()


def _with_context(site: RaiseSite, callers: tuple[Caller, ...], names: tuple[tuple[str, Definition], ...]) -> RaiseSite:
    """Return a copy of a site with these callers and names: what `dataclasses.replace` returns, in a fifth of its time
    (it checks every field by name, for each of a library's twelve thousand sites at every run)."""
    made: RaiseSite = object.__new__(RaiseSite)
    fields = made.__dict__
    fields.update(site.__dict__)
    fields["callers"], fields["names"] = callers, names
    return made


def site_key(site: RaiseSite) -> bytes:
    """Return a digest of a site as a scan finds it, callers and names aside."""
    # A site as found has none yet: a copy without them would cost more than the digest.
    found = replace(site, callers=(), names=()) if site.callers or site.names else site
    return hashlib.blake2b(repr(found).encode("utf-8", "surrogatepass"), digest_size=16).digest()


ROW_KINDS = ("function", "calls", "options", "constants")
"""The kinds of rows a site's callers and names read by key (see `Context.annotate`)."""


def layout_part(index: FileIndex) -> tuple[object, ...]:
    """Return what one file says of the library's layout (see `Layout`): everything of its index but rows with lines."""
    return (index.path, tuple((f.qualname, f.method) for f in index.functions), index.classes, index.members,
            index.imports, index.stars, index.annotated, index.modules, index.flags)


@dataclass(frozen=True, slots=True)
class Layout:
    """What every site's callers and names read of the library whole, besides rows with lines: which files and modules
    it has, what each file imports, its classes with their bases, the types their members are declared with, and
    which functions each file defines and whether each is a method. A function of every file's `layout_part`."""

    structure: bytes
    """A digest of every file's `layout_part` (see `Context.structure`)."""
    module_paths: dict[str, str]
    """Each dotted name a file of the library is imported by, with its path (`pkg.core`: `pkg/core.py`)."""
    imports: dict[str, dict[str, str]]
    """By path: each name a `from m import x` binds, with where it comes from."""
    modules: dict[str, dict[str, str]]
    """By path: each name an `import m` binds, with the module."""
    stars: dict[str, tuple[str, ...]]
    """By path: the modules a file imports everything of."""
    annotated: dict[str, frozenset[str]]
    """By path: the names a file makes stand for `typing.Annotated`."""
    flag_constants: dict[tuple[str, str], str]
    """The flag each module constant whose value is one spells, by (path, name)."""
    class_bases: dict[tuple[str, str], set[str]]
    """The last part of each base's name, by class: (its file, its name)."""
    class_paths: dict[str, set[str]]
    """The files that define a class of each name."""
    bases: dict[str, set[str]]
    """The last part of each base's name, by class name."""
    models: frozenset[str]
    """Names of classes whose annotated attributes are fields: models, and classes based on one by name."""
    members: dict[tuple[str, str], tuple[str, ...]]
    """The declared type of each class's attribute (see `FileIndex.members`), by (class, attribute)."""
    methods: dict[tuple[str, str], bool]
    """Each function by (path, qualified name), and whether it is a method (the first of a name in its file)."""


def make_layout(indexes: Sequence[FileIndex]) -> Layout:
    """Return the layout of a library whose files' indexes are `indexes`, in path order."""
    packages = frozenset(i.path.removesuffix("/__init__.py") for i in indexes if i.path.endswith("__init__.py"))
    module_paths: dict[str, str] = {}
    for index in indexes:
        for module in _module_names(index.path, packages):
            module_paths.setdefault(module, index.path)
    bases: dict[str, set[str]] = defaultdict(set)
    class_bases: dict[tuple[str, str], set[str]] = defaultdict(set)
    class_paths: dict[str, set[str]] = defaultdict(set)
    models: set[str] = set()
    members: dict[tuple[str, str], tuple[str, ...]] = {}
    methods: dict[tuple[str, str], bool] = {}
    flag_constants: dict[tuple[str, str], str] = {}
    for index in indexes:
        for row in index.classes:
            bases[row.name].update(row.bases)
            class_bases[(index.path, row.name)].update(row.bases)
            class_paths[row.name].add(index.path)
            if row.model:
                models.add(row.name)
        for owner, attribute, types in index.members:
            members.setdefault((owner, attribute), types)
        for function in index.functions:
            methods.setdefault((index.path, function.qualname), function.method)
        for name, flag in index.flags:
            flag_constants[(index.path, name)] = flag
    structure = hashlib.sha256(repr([layout_part(index) for index in indexes]).encode("utf-8", "surrogatepass")).digest()
    return Layout(structure, module_paths, {index.path: dict(index.imports) for index in indexes},
                  {index.path: dict(index.modules) for index in indexes if index.modules},
                  {index.path: index.stars for index in indexes if index.stars},
                  {index.path: frozenset(index.annotated) for index in indexes if index.annotated},
                  flag_constants, dict(class_bases), dict(class_paths), dict(bases), _closure(models, bases), members,
                  methods)


class Rows(Protocol):
    """The rows of one kind, by key (see `ROW_KINDS`): a dict, or what a kept joined index reads when asked."""

    def get(self, key: Any, default: Any = None, /) -> Any: ...


def row_keys(index: FileIndex, called: frozenset[str] | None = None) -> tuple[tuple[str, Any], ...]:
    """Return each key, as kind and key, a file may add rows to (`Context.rows_of`), whatever the layout: every key it
    adds rows to, and the names of its calls that the layout may read as calling none of the library's functions."""
    return tuple(dict.fromkeys([
        *(("function", (index.path, function.qualname)) for function in index.functions),
        *(("calls", call.name) for call in index.calls if called is None or call.name in called),
        *(("options", option.name) for option in index.options),
        *(("constants", name) for name, _, _ in index.constants)]))


def rows_digest(rows: object) -> bytes:
    """Return a digest of the rows of one kind under one key (a function's row, a list of calls, ...; None for none)."""
    return hashlib.blake2b(repr(rows).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def join(indexes: Iterable[FileIndex], called: frozenset[str] | None = None) -> Context:
    """Return the context of every file's index, joined; only the calls by a name in `called` (when given) are kept:
    callers are asked by name."""
    ordered = sorted(indexes, key=lambda i: i.path)
    context = Context(make_layout(ordered))
    tables: dict[str, dict[Any, Any]] = {"function": {}, "calls": {}, "options": {}, "constants": {}}
    for index in ordered:
        for kind, key, rows in context.rows_of(index, called):
            table = tables[kind]
            if kind == "function":
                table.setdefault(key, rows)
            else:
                table.setdefault(key, []).extend(rows)
    context.functions, context.calls, context.options, context.constants = (
        tables["function"], tables["calls"], tables["options"], tables["constants"])
    return context


class Context:
    """Every file's index, joined: finds the callers and names of any site in the indexed files."""

    def __init__(self, layout: Layout, rows: Mapping[str, Rows] | None = None) -> None:
        """Return the context of a library of this layout whose rows of each kind are `rows` (`join` gives them)."""
        self.layout = layout
        """What every site's callers and names read of the library whole."""
        given = rows or {}
        self.functions: Rows = given.get("function", {})
        """Each function's row, by (path, qualified name)."""
        self.calls: Rows = given.get("calls", {})
        """By name called: each call of it, with its file, in path order."""
        self.options: Rows = given.get("options", {})
        """By name: each option and field, with its file, in path order."""
        self.constants: Rows = given.get("constants", {})
        """By name: each module constant's definition, in path order."""
        self._ancestors_memo: dict[str, set[str]] = {}
        """`_ancestors`' answers, by class."""
        self._member_memo: dict[tuple[str, str], tuple[str, ...]] = {}
        """`_member_types`' answers, by class and attribute."""
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
        self._provides_memo: dict[tuple[str, str, str], bool] = {}
        """`_provides`' answers, by module, name and path."""
        self._ancestor_keys_memo: dict[tuple[str | None, str], set[tuple[str | None, str]]] = {}
        """`_ancestor_keys`' answers, by class."""
        self._above_memo: dict[tuple[str, str], set[str]] = {}
        """`_above`'s answers, by class and method."""
        self._notes: set[tuple[str, object]] | None = None
        """The rows annotating the current site read, while `annotate` records them."""
        self._digests: dict[tuple[str, object], bytes] = {}
        """`_digest`'s answers."""
        self._known: Mapping[str, Mapping[Any, bytes]] = {}
        """By kind, the digest of each key's rows, when a kept join knows them (see `known_digests`)."""

    def rows_of(self, index: FileIndex, called: frozenset[str] | None = None
                ) -> Iterator[tuple[str, object, Any]]:
        """Yield the rows one file adds to the joined index, as (kind, key, rows): a function's row, or the list of
        its calls, options or constants of a key, as this layout reads them (see `CallRow.how`); only the calls by a
        name in `called`, when given."""
        for function in index.functions:
            yield "function", (index.path, function.qualname), function
        calls: dict[str, list[tuple[str, CallRow]]] = {}
        for call in index.calls:
            if called is not None and call.name not in called:
                continue
            joined = self._joined_call(call)
            if joined is not None:
                calls.setdefault(call.name, []).append((index.path, joined))
        for name, called_rows in calls.items():
            yield "calls", name, called_rows
        options: dict[str, list[tuple[str, OptionRow]]] = {}
        for option in index.options:
            if option.aliased is not None:
                if self._is_annotated(index.path, option.aliased[0]):
                    option = option._replace(help=option.aliased[1])
            options.setdefault(option.name, []).append((index.path, option))
        for name, option_rows in options.items():
            yield "options", name, option_rows
        constants: dict[str, list[Definition]] = {}
        for name, line, help_text in index.constants:
            constants.setdefault(name, []).append(Definition(index.path, line, "constant", help_text))
        for name, definitions in constants.items():
            yield "constants", name, definitions

    def _joined_call(self, call: CallRow) -> CallRow | None:
        """Return a call as the joined index reads it (see `CallRow.how`), or None when it calls none of the library's
        functions."""
        if call.how.startswith("member:"):
            owner, _, attribute = call.how.removeprefix("member:").rpartition(".")
            types = self._member_types(owner, attribute)
            call = call._replace(how=f"made:{'|'.join(types)}" if types else "attribute")
        if call.how.startswith("module:"):
            return call._replace(how="module")
        if call.how.startswith("made:"):
            # The receiver was made by calling a class: a class of the library's (`class:`), or a class of
            # another library, or of a module the library does not have, whose methods are none of ours.
            ours = {m.split(".")[-1] for m in call.how.removeprefix("made:").split("|")
                    if m.split(".")[-1] in self.layout.class_paths and ("." not in m or self._ours(m.rpartition(".")[0]))}
            if not ours:
                return None
            return call._replace(how=f"class:{ours.pop()}" if len(ours) == 1 else "attribute")
        if call.how.startswith("on:"):
            # `Style.parse(...)` on a class of the library calls that class's parse (or its bases');
            # `markup.render(...)` after `from . import markup` a function of that module.
            receiver = call.how.removeprefix("on:")
            if receiver in self.layout.class_paths:
                return call._replace(how=f"class:{receiver}")
            if call.module in self.layout.module_paths:
                return call._replace(how="module")
            return call._replace(how="attribute")
        return call

    def _ours(self, module: str) -> bool:
        """Return whether a module is one of the library's (`pkg.core`), not another library's (`httpcore`)."""
        return module in self.layout.module_paths

    def _member_types(self, owner: str, attribute: str) -> tuple[str, ...]:
        """Return the classes the type that class `owner`, or a class it is based on, declares for `attribute` names."""
        key = (owner, attribute)
        found = self._member_memo.get(key)
        if found is None:
            found = self._member_memo[key] = next(
                (self.layout.members[(name, attribute)] for name in sorted(self._ancestors(owner)) if (name, attribute) in self.layout.members),
                ())
        return found

    def _is_annotated(self, path: str, name: str) -> bool:
        """Return whether `name` in the file `path` stands for `typing.Annotated`: an alias made there, or imported
        from a module of the library that makes it."""
        for _ in range(4):
            if name in self.layout.annotated.get(path, ()):
                return True
            module, _, original = self.layout.imports.get(path, {}).get(name, "").rpartition(".")
            if module not in self.layout.module_paths:
                return False
            path, name = self.layout.module_paths[module], original
        return False

    def _provides(self, module: str, name: str, path: str, depth: int = 4) -> bool:
        """Return whether `name` imported from `module` is what the file `path` defines: `module` is that file,
        or imports the name from it (`from .core import f` in a package's `__init__.py`), or imports everything
        of a module that does."""
        key = (module, name, path)
        found = self._provides_memo.get(key)
        if found is not None:
            return found
        file = self.layout.module_paths.get(module)
        if file is None or depth == 0:
            found = False
        elif file == path:
            found = True
        else:
            origin, _, original = self.layout.imports.get(file, {}).get(name, "").rpartition(".")
            found = (bool(origin) and self._provides(origin, original, path, depth - 1)) or any(
                self._provides(star, name, path, depth - 1) for star in self.layout.stars.get(file, ()))
        self._provides_memo[key] = found
        return found

    def annotate(self, sites: Sequence[RaiseSite], kept: Mapping[bytes, Annotation] | None = None,
                 keys: Sequence[bytes | None] | None = None) -> list[tuple[RaiseSite, bytes, Annotation]]:
        """Return each site with its callers and names, its `site_key` (`keys[n]`, when given and not None, is the
        n-th site's), and how it was annotated: as `kept` says when what it read is the same here, else found again.

        What a site's callers and names read is the layout of the library (`structure`: which functions and classes
        each file defines, bases, imports, fields' owners) and, by key, rows that carry lines: a function's row, the
        calls by a name, the options and the constants of a name. A kept annotation holds when the layout and each
        row it read are the same.
        """
        structure = self.structure()
        out = []
        for number, site in enumerate(sites):
            given = keys[number] if keys is not None else None
            key = given if given is not None else site_key(site)
            before = kept.get(key) if kept is not None else None
            if before is not None and before.structure == structure and all(
                    self._digest(kind, name) == digest for kind, name, digest in before.reads):
                annotation = before
            else:
                self._notes = set()
                callers = self.callers(site)
                names = self.names(site, callers)
                reads = tuple(sorted((kind, name, self._digest(kind, name)) for kind, name in self._notes))
                self._notes = None
                shown = hashlib.blake2b(repr((callers, names)).encode("utf-8", "surrogatepass"), digest_size=16).digest()
                annotation = Annotation(structure, reads, callers, names, shown)
            out.append((_with_context(site, annotation.callers, annotation.names), key, annotation))
        return out

    def structure(self) -> bytes:
        """Return a digest of the library's layout: what callers and names read besides rows with lines."""
        return self.layout.structure

    def _digest(self, kind: str, name: object) -> bytes:
        """Return a digest of the rows of one kind under one key (see `annotate`)."""
        known = self._known.get(kind)
        memo = known.get(name) if known is not None else None
        if memo is None:
            memo = self._digests.get((kind, name))
        if memo is None:
            memo = self._digests[(kind, name)] = rows_digest(self.table(kind).get(name))
        return memo

    def known_digests(self, digests: Mapping[str, Mapping[Any, bytes]]) -> None:
        """Take, by kind, the digest of each key's rows as given (a kept join knows them without reading the rows)."""
        self._known = digests

    def table(self, kind: str) -> Rows:
        """Return the rows of one kind (see `ROW_KINDS`)."""
        return {"function": self.functions, "calls": self.calls, "options": self.options,
                "constants": self.constants}[kind]

    def _note(self, kind: str, name: object) -> None:
        """Note that annotating the current site read the rows of one kind under one key."""
        if self._notes is not None:
            self._notes.add((kind, name))

    def _function(self, path: str, qualname: str) -> FunctionRow | None:
        """Return the row of a function, noted (see `annotate`)."""
        self._note("function", (path, qualname))
        return self.functions.get((path, qualname))

    def _options_named(self, name: str) -> list[tuple[str, OptionRow]]:
        """Return the options and fields of a name, noted."""
        self._note("options", name)
        return self.options.get(name, [])

    def _constants_named(self, name: str) -> list[Definition]:
        """Return the module constants of a name, noted."""
        self._note("constants", name)
        return self.constants.get(name, [])

    def callers(self, site: RaiseSite) -> tuple[Caller, ...]:
        """Return where the library calls the function of `site`, nearest to a public name first, at most MAX_CALLERS."""
        if not site.function:
            return ()
        parts = site.function.split(".")
        function = self._function(site.path, site.function)
        name, method = parts[-1], function is not None and function.method
        constructor = method and name in _CONSTRUCTORS and len(parts) > 1
        if constructor:
            name, method = parts[-2], False
        elif name.startswith("__") and name.endswith("__"):
            return ()  # special methods run by syntax, not by name
        self._note("calls", name)  # the ranked callers are those calls' rows, read through the layout
        if (name, method) not in self._ranked:
            self._ranked[(name, method)] = self._rank(name, method)
        found: dict[tuple[str, str], Caller] = {}
        for caller, via in self._ranked[(name, method)]:
            key = (caller.path, caller.function)
            if key != (site.path, site.function) and key not in found and self._may_call(caller.path, via, site):
                found[key] = caller
                if len(found) == MAX_CALLERS:
                    break
        return tuple(found.values())

    def _rank(self, name: str, method: bool) -> list[tuple[Caller, tuple[str, str] | None]]:
        """Return every function that calls `name` once (at its first call), public callers first, then by place.

        A method is called by attribute calls only, a function (or a class, for its constructor) by
        its name or on a module. A call `self.name(...)` comes with what it can reach: `("own",
        qualname)` when the class it is in defines `name` itself, else `("class", that class)`;
        `super().name(...)` in class C `("super", C)`; `C.name(...)` on a class C of the library
        `("class", C)`; `x.name(...)` on any other receiver `("receiver", its name)`. A call by name
        comes with `("name", the module it is imported from, or "")`, `("inner", the function that
        defines it)` or `("module", the module)`. A function is listed once for each of these that it has.
        """
        hows = {"self", "super", "attribute"} if method else {"name", "inner", "module"}
        firsts: dict[tuple[str, str, tuple[str, str] | None], Caller] = {}
        for path, call in self.calls.get(name, ()):
            if call.how not in hows and not call.how.startswith("class:"):
                continue
            if call.how.startswith("class:"):
                via: tuple[str, str] | None = ("class", call.how.removeprefix("class:"))
            elif call.how == "attribute":
                via = ("receiver", call.receiver)
            elif call.how in ("self", "super"):
                via = self._via(path, call.function, name, call.how == "super")
            else:
                via = (call.how, call.module)
            if (path, call.function, via) not in firsts:
                firsts[(path, call.function, via)] = Caller(path, call.line, call.function)
        ranked = sorted(firsts.items(), key=lambda item: (_distance(item[1]), item[1].path, item[1].line))
        return [(caller, via) for (_, _, via), caller in ranked]

    def _via(self, path: str, function: str, name: str, up: bool = False) -> tuple[str, str] | None:
        """Return what `self.name(...)` (`super().name(...)` when `up`) in `function` of `path` reaches (see `_rank`),
        None when it is in no class."""
        parts = function.split(".")
        for end in range(len(parts) - 1, 0, -1):
            if up:
                if parts[end - 1] in self.layout.bases:
                    return ("super", parts[end - 1])
                continue
            qualname = ".".join([*parts[:end], name])
            if self.layout.methods.get((path, qualname)):
                return ("own", qualname)
            if parts[end - 1] in self.layout.bases:
                return ("class", parts[end - 1])
        return None

    def _may_call(self, path: str, via: tuple[str, str] | None, site: RaiseSite) -> bool:
        """Return whether a call of `path` that reaches `via` (see `_rank`) may run the function of `site`.

        `self.m(...)` in class C runs the `m` of C or of a class based on C that overrides it, or,
        when C defines no `m`, the `m` of any class that C or a class based on C is based on (a
        base, or a mixin's sibling): never the `m` of an unrelated class (rich's Stack, a list,
        calls its own `self.append`, not Text.append).

        `x.m(...)` on a receiver of unknown class runs the `m` of a class it is named for (`console`
        for Console, `style` for Style, see `_named_for`) when a class that defines `m` is
        one, else the `m` of the one class of the repository that defines it, or of the one class
        and the classes based on it that override it (rich's MarkdownElement.on_child_close): when
        unrelated classes define `m` (rich's `parser.parse`, `write_file.write`), none is taken.

        `f(...)` calls the function `f` of `site` only where the name is its: in its own file, imported
        from its module (or from one that imports it from there), or, for a function defined inside
        another, in that function. `super().m(...)` in class C runs the `m` of a class C (or a class
        based on C) is based on, never C's own nor an override below it.
        """
        if via is None:
            return False
        kind, value = via
        if kind in ("name", "inner", "module"):
            return self._named_call(path, kind, value, site)
        if kind == "own" and (path, value) == (site.path, site.function):
            return True
        site_class = site.function.split(".")[-2:-1]
        if not site_class:
            return False
        if kind == "super":
            return (site_class[0] in self._above(value, site.function.split(".")[-1])
                    and self._one_class_line(path, value, site))
        if kind == "own":
            return (value.split(".")[-2] in self._ancestors(site_class[0])
                    and self._one_class_line(path, value.split(".")[-2], site))
        if kind == "receiver":
            method = site.function.split(".")[-1]
            named = self._named(value, method)
            if named:
                return any(site_class[0] in self._related_to(c) for c in named)
            return self._one_line(method)
        return site_class[0] in self._related_to(value) and self._one_class_line(path, value, site)

    def _above(self, name: str, method: str) -> set[str]:
        """Return the classes whose `method` a `super().method(...)` in class `name` may run: the nearest above it that
        define it."""
        key = (name, method)
        memo = self._above_memo.get(key)
        if memo is not None:
            return memo
        definers = {c.split(".")[-1] for _, c in self._definers_of(method)}
        found: set[str] = set()
        self._above_memo[key] = found
        seen, todo = {name}, sorted(self.layout.bases.get(name, ()))
        while todo:
            current = todo.pop(0)
            if current in seen:
                continue
            seen.add(current)
            if current in definers:
                found.add(current)
            else:
                todo += sorted(self.layout.bases.get(current, ()))
        return found

    def _one_class_line(self, path: str, name: str, site: RaiseSite) -> bool:
        """Return whether the class `name`, as the file `path` reads it, may be the class of `site`, one it is based on
        or one based on it, told apart by the files the names come from when two files define classes of one name
        (sglang's srt and multimodal_gen each have a CustomOp and an NCCLLibrary)."""
        site_class = site.function.split(".")[-2]
        if len(self.layout.class_paths.get(name, ())) < 2 and len(self.layout.class_paths.get(site_class, ())) < 2:
            return True
        key, site_key = self._class_key(path, name), (site.path, site_class)
        return key[0] is None or key in self._ancestor_keys(site_key) or site_key in self._ancestor_keys(key)

    def _class_key(self, path: str, name: str) -> tuple[str | None, str]:
        """Return which class `name` in the file `path` is: (its file, its name), the file None when the code does not
        tell (an import of another library, several classes of that name and no import)."""
        if (path, name) in self.layout.class_bases:
            return (path, name)
        paths = self.layout.class_paths.get(name, set())
        if len(paths) == 1:
            return (next(iter(paths)), name)
        module, _, original = self.layout.imports.get(path, {}).get(name, "").rpartition(".")
        for found in sorted(self.layout.class_paths.get(original, ())) if module else ():
            if self._provides(module, original, found):
                return (found, original)
        return (None, name)

    def _ancestor_keys(self, key: tuple[str | None, str]) -> set[tuple[str | None, str]]:
        """Return a class and every class it is based on, as (file, name) where the code tells the file."""
        found = self._ancestor_keys_memo.get(key)
        if found is None:
            found, todo = set(), [key]
            while todo:
                current = todo.pop()
                if current not in found:
                    found.add(current)
                    path, name = current
                    if path is not None:
                        todo += [self._class_key(path, base) for base in sorted(self.layout.class_bases.get((path, name), ()))]
            self._ancestor_keys_memo[key] = found
        return found

    def _named_call(self, path: str, kind: str, module: str, site: RaiseSite) -> bool:
        """Return whether a call by name (`f(...)`, `m.f(...)`, see `_may_call`) in the file `path` calls the function
        (or, for a constructor, the class) of `site`."""
        parts = site.function.split(".")
        constructor = len(parts) > 1 and parts[-1] in _CONSTRUCTORS and (site.path, ".".join(parts[:-1])) not in self.layout.methods
        called = parts[:-1] if constructor else parts
        container = ".".join(called[:-1])
        if container and (site.path, container) in self.layout.methods:
            return kind == "inner" and (path, module) == (site.path, container)
        if kind == "inner":
            return False
        if kind == "name" and not module:
            return path == site.path or any(self._provides(m, called[-1], site.path) for m in self.layout.stars.get(path, ()))
        return self._provides(module, called[-1], site.path)

    def _named(self, receiver: str, method: str) -> frozenset[str]:
        """Return the classes defining `method` that a receiver's name is named for (see `_may_call`)."""
        # Asked once per caller of every site of a method: sglang's hundreds of `forward`s made it most of extract's time.
        key = (receiver, method)
        named = self._named_memo.get(key)
        if named is None:
            named = self._named_memo[key] = frozenset(
                c.split(".")[-1] for _, c in self._definers_of(method) if _named_for(receiver, c.split(".")[-1]))
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
            for (path, qualname), is_method in self.layout.methods.items():
                if is_method:
                    owner, _, last = qualname.rpartition(".")
                    self._definers[last].add((path, owner))
        return self._definers.get(method, set())


    def _ancestors(self, name: str) -> set[str]:
        """Return a class and every class it is based on, by name."""
        ancestors = self._ancestors_memo.get(name)
        if ancestors is None:
            ancestors = self._ancestors_memo[name] = _reachable(name, self.layout.bases)
        return ancestors

    def _descendants(self, name: str) -> set[str]:
        """Return a class and every class based on it, by name."""
        if self._children is None:
            self._children = defaultdict(set)
            for child, parents in self.layout.bases.items():
                for parent in parents:
                    self._children[parent].add(child)
        return _reachable(name, self._children)

    def names(self, site: RaiseSite, callers: Sequence[Caller]) -> tuple[tuple[str, Definition], ...]:
        """Return the names the message and guard of `site` read, each with where a user sets it.

        A flag the message spells (`--num-workers`) sets the value read by its `dest`: a name read
        whose last part is that `dest` is set by it, and the flag is listed under its `dest` when
        nothing reads it.
        """
        spelled = self._spelled(site)
        found: dict[str, Definition] = {}
        for name in self.read_names(site):
            last = name.rpartition(".")[2]
            definition = spelled.pop(last, None) if last in spelled else None
            definition = definition or self.definition(name, site, callers)
            if definition is not None:
                found[name] = definition
        for dest, definition in spelled.items():
            if definition is not None and dest not in found:
                found[dest] = definition
        return tuple(found.items())

    def _spelled(self, site: RaiseSite) -> dict[str, Definition | None]:
        """Return, by `dest`, the definition of each flag the message spells: in its literal text (`--num-workers`),
        or as a constant whose value is a flag (`{FLAG}`, `FLAG = "--enable-amd-monokernel"`)."""
        flags = _FLAG.findall(_PLACEHOLDER.sub(" ", site.message)) if "--" in site.message else []
        if self.layout.flag_constants and "{" in site.message:
            for text in _placeholders(site.message):
                parts = text.strip().split(".")
                if _CONSTANT.fullmatch(parts[-1]) and all(p.isidentifier() for p in parts):
                    constant = self._constant(parts, site.path)
                    flag = self.layout.flag_constants.get((constant.path, parts[-1])) if constant is not None else None
                    flags += [flag] if flag is not None else []
        return {flag[2:].replace("-", "_"): self._flag(flag, site.path) for flag in dict.fromkeys(flags)}

    def _flag(self, flag: str, path: str) -> Definition | None:
        """Return where the flag `flag` is defined: a command-line option of that flag (the raising file's, else the
        one of the library that is not deprecated), else the field of its `dest` (the raising file's, else the one
        model class's), with that flag."""
        dest = flag[2:].replace("-", "_")
        rows = self._options_named(dest)
        options = [(p, r) for p, r in rows if not r.owner and r.flag == flag and _deprecated_for(r) is None]
        options = [c for c in options if c[0] == path] or options
        if len(options) == 1 or (options and options[0][0] == path):
            found_path, row = options[0]
            return Definition(found_path, row.line, "option", row.help, row.flag)
        fields = [(p, r) for p, r in rows if r.owner in self.layout.models]
        # Of fields in several classes, the one a user reads help for (sglang's Spec, not a runtime record).
        fields = [c for c in fields if c[0] == path] or [c for c in fields if c[1].help] or fields
        if len(fields) == 1:
            found_path, row = fields[0]
            return Definition(found_path, row.line, "option", row.help, flag)
        return None

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
        function = self._function(site.path, site.function)
        if len(parts) == 1 and function is not None and _param(function, last) is not None:
            if _public(site.path, function.qualname):
                return self._parameter(site.path, function, last)
            for caller in callers:
                other = self._function(caller.path, caller.function)
                if other is not None and _public(caller.path, other.qualname) and _param(other, last) is not None:
                    return self._parameter(caller.path, other, last)
            return self._option(last, site, None, with_fields=False) or self._parameter(site.path, function, last)
        receiver = parts[-2] if len(parts) > 1 else None
        enclosing = [self._function(site.path, ".".join(site.function.split(".")[:end]))
                     for end in range(len(site.function.split(".")), 0, -1)]
        enclosing_functions = [f for f in enclosing if f is not None]
        if receiver is None:
            # A name of an enclosing function's (a closure reads it): that function's parameter.
            outer = next((f for f in enclosing_functions if f.qualname != site.function and _param(f, last) is not None), None)
            if outer is not None:
                return self._option(last, site, None, with_fields=False) or self._parameter(site.path, outer, last)
        if _CONSTANT.fullmatch(last):
            constant = self._constant(parts, site.path)
            if constant is not None:
                return constant
        if parts[0] in ("self", "cls") and len(parts) == 2:
            owner = self._owner_init(site, last)
            if owner is not None:
                return self._option(last, site, parts, with_fields=True, enclosing=enclosing_functions) or owner
        # A local variable is read by its own name, a field through its owner (`self.x`, `cfg.x`): only an option sets
        # a local, or a field of the name it copies (`mode = self.mode`, `size = cfg.get("size")`) as if read there.
        source = next((of for f in enclosing_functions for copied, of in f.copies if copied == last), None)
        if receiver is None and source is not None:
            return self._option(last, site, [*source.split("."), last], enclosing=enclosing_functions)
        return self._option(last, site, parts if receiver is not None else None,
                            with_fields=receiver is not None, enclosing=enclosing_functions)

    def _parameter(self, path: str, function: FunctionRow, name: str) -> Definition:
        """Return the definition of a function's parameter: the option that sets it when the function is a command."""
        for other_path, row in self._options_named(name):
            if other_path == path and row.function == function.qualname:
                return Definition(path, row.line, "option", row.help, row.flag)
        param = _param(function, name)
        assert param is not None
        return Definition(path, param[1], "parameter", param[2])

    def _receiver_classes(self, parts: Sequence[str], site: RaiseSite, enclosing: Sequence[FunctionRow]) -> set[str] | None:
        """Return the classes the object whose attribute `parts` reads may be (`cfg` of `cfg.size`), None when the
        code does not tell: `self` in a method, a parameter or local whose class the file tells (see
        `FunctionRow.typed`), `self.x` whose type the class declares."""
        owners = [c for c in site.function.split(".")[:-1] if c in self.layout.bases]
        if parts[0] in ("self", "cls") and len(parts) == 2:
            return {a for c in owners for a in self._ancestors(c)} if owners else None
        if parts[0] in ("self", "cls") and len(parts) == 3 and owners:
            declared = self._member_types(owners[-1], parts[1])
            return {a for c in declared for a in self._ancestors(c.split(".")[-1])} if declared else None
        if len(parts) != 2:
            return None
        for function in enclosing:
            typed = dict(function.typed).get(parts[0])
            if typed:
                return {a for c in typed for a in self._ancestors(c.split(".")[-1])}
        return None

    def _option(self, name: str, site: RaiseSite, parts: Sequence[str] | None, with_fields: bool = True,
                enclosing: Sequence[FunctionRow] = ()) -> Definition | None:
        """Return the option or field `name` that a read at `site` (`parts`, the dotted name read, or None for a plain
        name) most likely means.

        A field is one of the receiver's class, when the code tells it (see `_receiver_classes`), else of a class the
        receiver is named for (`server_args` for ServerArgs): `leaf.type` is no field `type` of an unrelated class,
        nor `cfg.pp_size` one of CacheConfig. A command-line option of another file only sets an attribute of an
        `argparse.Namespace`. Without `with_fields`, only a command-line option. An option whose help sends the user
        to another flag (`Deprecated. Use --new-flag instead`) gives way to that flag.
        """
        dotted = parts is not None
        receiver = parts[-2] if parts is not None else None
        classes = self._receiver_classes(parts, site, enclosing) if parts is not None else None

        def fits(owner: str) -> bool:
            if not owner or receiver is None:
                return True
            return owner in classes if classes is not None else _named_for(receiver, owner)

        candidates = [(path, row) for path, row in self._options_named(name)
                      if (not row.owner or (with_fields and row.owner in self.layout.models)) and fits(row.owner)]
        if not candidates:
            return None
        namespace = classes is not None and any(c == "Namespace" for c in classes)
        # A plain name that is no parameter is a local variable: only an option of its own file is likely its.
        tiers = (
            [c for c in candidates if c[0] == site.path],
            [c for c in candidates if not c[1].owner] if namespace else [],
            # A field of another file only when no other field has its name: `path.name` is not any class's `name`.
            fields if dotted and len(fields := [c for c in candidates if c[1].owner]) == 1 else [],
        )
        for tier in tiers:
            if tier:
                # A command-line option before a field (a user types the flag), a current one before one that sends
                # to another flag, one with help before one without.
                path, row = min(tier, key=lambda c: (bool(c[1].owner), _deprecated_for(c[1]) is not None,
                                                     c[1].help is None, c[0], c[1].line))
                current = _deprecated_for(row)
                found = self._flag(current, site.path) if current is not None else None
                return found or Definition(path, row.line, "option", row.help, row.flag)
        return None

    def _constant(self, parts: Sequence[str], path: str) -> Definition | None:
        """Return the module constant `parts` reads: the raising file's own, else the one the file imports by that
        name (or imports the module of: `from . import limits`, `limits.MAX`), from the module that defines it."""
        found = self._constants_named(parts[-1])
        if not found or len(parts) > 2:
            return None
        if len(parts) == 1 or parts[0] in ("self", "cls"):
            own = next((d for d in found if d.path == path), None)
            if own is not None or len(parts) == 2:
                return own  # `self.LPAR` is a class's own attribute: only the raising file's constant may be it
            origin, _, original = self.layout.imports.get(path, {}).get(parts[0], "").rpartition(".")
            modules = [origin] if origin else list(self.layout.stars.get(path, ()))
            name = original or parts[0]
        else:
            module = self.layout.imports.get(path, {}).get(parts[0]) or self.layout.modules.get(path, {}).get(parts[0], "")
            if module not in self.layout.module_paths:
                return None  # `Color.RED` is a class's attribute, `envs.X` an object's
            modules, name = [module], parts[1]
        return next((d for d in self._constants_named(name) for m in modules if self._provides(m, name, d.path)), None)

    def _owner_init(self, site: RaiseSite, name: str) -> Definition | None:
        """Return the parameter `name` of the constructor of the class a method of `site` belongs to, when the
        constructor keeps it as `self.name` (see `FunctionRow.keeps`)."""
        parts = site.function.split(".")
        for end in range(len(parts) - 1, 0, -1):
            init = self._function(site.path, ".".join(parts[:end]) + ".__init__")
            if init is not None and name in init.keeps and _param(init, name) is not None:
                return self._parameter(site.path, init, name)
        return None


def _deprecated_for(row: OptionRow) -> str | None:
    """Return the flag a deprecated option's help sends the user to (`Deprecated. Use --new-flag instead.`), if any."""
    text = row.help
    if not text or "deprecat" not in text.lower():
        return None
    return next((f for f in _FLAG.findall(text) if f != row.flag), None)


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


def _named_for(variable: str, class_name: str) -> bool:
    """Return whether a variable is named for a class: its name is the class's, case and underscores aside
    (`console` for Console, `server_args` for ServerArgs; not `decoder` for DeflateDecoder, nor `cfg` for Config)."""
    return bool(variable) and variable.replace("_", "").lower() == class_name.lower()


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
