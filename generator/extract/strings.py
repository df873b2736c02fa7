"""The text a repository's expression holds when the source spells it out somewhere else.

Validation libraries keep their messages in data: a dict of messages looked up
by key (`self.error_messages[key]`, a subclass replacing a key), a class
attribute (`message_min = "Shorter than {min}."`) that a method formats, a
method that returns the message it formats (`self._format_error(value)`).
`Strings.evaluate` follows such an expression through the repository's classes
and functions and returns every wording it may hold, each as `Pieces`: literal
runtime text and the placeholders of what is only known at run time. A
`.format(...)` or `.format_map(...)` of such text fills the fields whose values
are spelled out and turns the others into placeholders, as the call does at run
time. docs/extract.md gives the rules.
"""

from __future__ import annotations

import ast
import string
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from .messages import GETTEXT, MAX_VARIANTS, callee_name, dotted, placeholder
from .raisers import ClassInfo, Function, ParsedFile, Repository, body_nodes

Piece = tuple[bool, str]
"""(is a placeholder, text): literal runtime text, or a placeholder as the record format writes it (`{value!r}`)."""
Pieces = tuple[Piece, ...]
"""One wording of a string: its pieces in order."""

MAX_DEPTH = 16
"""How many calls, variables and attributes deep an expression is followed."""

_FORMAT_METHODS = ("format", "format_map")


@dataclass(frozen=True)
class Scope:
    """Where an expression is read: its function, the class `self` is, and the arguments its parameters were given."""

    file: ParsedFile
    function: Function | None
    """The function the expression is in (None in a class body or at module level)."""
    cls: ClassInfo | None
    """The class of `self`: the class the raise is in, or a subclass that inherits the method."""
    bound: Mapping[str, tuple[ast.expr, Scope]] = field(default_factory=dict)
    """Parameters bound to the argument a call passed, read where the call is."""


def template_of(pieces: Pieces) -> str:
    """Return a wording as a message template: literal braces doubled, placeholders as they are."""
    return "".join(text if hole else text.replace("{", "{{").replace("}", "}}") for hole, text in pieces)


def _join(*parts: Pieces) -> Pieces:
    """Return pieces joined, adjacent literals merged."""
    out: list[Piece] = []
    for hole, text in (p for part in parts for p in part):
        if not text:
            continue
        if out and not hole and not out[-1][0]:
            out[-1] = (False, out[-1][1] + text)
        else:
            out.append((hole, text))
    return tuple(out)


def _unique(found: Iterable[Pieces]) -> list[Pieces]:
    """Return wordings without repeats, in order, at most MAX_VARIANTS + 1."""
    return list(dict.fromkeys(found))[:MAX_VARIANTS + 1]


class Strings:
    """Evaluates expressions to the text they hold, through a repository's classes and functions."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.keyed = False
        """A dict of messages was read by key since this was last set to False."""
        self._children: dict[int, list[ClassInfo]] | None = None

    def subclasses(self, info: ClassInfo) -> list[ClassInfo]:
        """Return the repository classes that derive from a class, nearest first, in the order they were found."""
        if self._children is None:
            children: dict[int, list[ClassInfo]] = defaultdict(list)
            for cls in self.repo.classes:
                for base in self.repo.bases(cls):
                    children[id(base)].append(cls)
            self._children = children
        found: list[ClassInfo] = []
        queue = list(self._children.get(id(info), ()))
        while queue:
            current = queue.pop(0)
            if all(current is not f for f in found):
                found.append(current)
                queue += self._children.get(id(current), ())
        return found

    def evaluate(self, node: ast.expr, scope: Scope, depth: int = 0) -> list[Pieces] | None:
        """Return every wording an expression may hold, or None when some of it cannot be followed."""
        if depth > MAX_DEPTH:
            return None
        try:
            return self._evaluate(node, scope, depth)
        except RecursionError:
            return None

    def _evaluate(self, node: ast.expr, scope: Scope, depth: int) -> list[Pieces] | None:
        if isinstance(node, ast.Constant):
            return [_join(((False, node.value),))] if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
            return [_join(*(((False, str(v.value)),) if isinstance(v, ast.Constant) else ((True, placeholder(v, scope.file.source)),)
                            for v in node.values if isinstance(v, (ast.Constant, ast.FormattedValue))))]
        if isinstance(node, ast.Name):
            return self._name(node, scope, depth)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, scope, depth)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, scope, depth)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            # `error or self.default_message`: the first is a caller's override, the last the default.
            for value in reversed(node.values):
                found = self.evaluate(value, scope, depth + 1)
                if found is not None:
                    return found
            return None
        if isinstance(node, ast.IfExp):
            sides = [self.evaluate(side, scope, depth + 1) for side in (node.body, node.orelse)]
            kept = [w for side in sides if side is not None for w in side]
            return _unique(kept) or None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return self.evaluate(node.left, scope, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.evaluate(node.left, scope, depth + 1), self.evaluate(node.right, scope, depth + 1)
            if left is None and right is None:
                return None
            lefts = left or [((True, "{" + scope.file.source.segment(node.left) + "}"),)]
            rights = right or [((True, "{" + scope.file.source.segment(node.right) + "}"),)]
            return _unique(_join(a, b) for a in lefts for b in rights)
        if isinstance(node, ast.Call):
            return self._call(node, scope, depth)
        return None

    def _name(self, node: ast.Name, scope: Scope, depth: int) -> list[Pieces] | None:
        """Return the wordings of a name: a bound parameter's argument, a local variable, a module constant."""
        if node.id in scope.bound:
            argument, where = scope.bound[node.id]
            return self.evaluate(argument, where, depth + 1)
        names = scope.function.names() if scope.function is not None else scope.file.constants
        values = names.values(node.id, node.lineno)
        # `msg = msg.format(**kwargs)` (in a branch too) refines what came before: the last such value alone counts.
        refined = [a.value for a in names.local.get(node.id, ()) if a.value.lineno < node.lineno
                   and any(isinstance(n, ast.Name) and n.id == node.id for n in ast.walk(a.value))]
        if refined:
            values = (refined[-1],)
        found: list[Pieces] = []
        for value in values:
            wordings = self.evaluate(value, scope, depth + 1)
            if wordings is None:
                return None
            found += wordings
        return _unique(found) or None

    def _attribute(self, node: ast.Attribute, scope: Scope, depth: int) -> list[Pieces] | None:
        """Return the wordings of `self.name`: what `__init__` assigns it, else the class attribute, else what the
        class's property of that name returns."""
        if scope.cls is None or not self._is_self(node.value, scope):
            return None
        for init, value in self.instance_values(scope.cls, node.attr):
            inner = Scope(init.file, init, scope.cls)
            found = self._without_self(node.attr, value, inner, depth)
            if found is not None:
                return found
        if self.class_attribute(scope.cls, node.attr) is not None:
            return self._class_value(scope.cls, node.attr, depth)
        prop = self._property(scope.cls, node.attr)
        return None if prop is None else self._returned(prop, Scope(prop.file, prop, scope.cls), depth)

    def _property(self, cls: ClassInfo, attr: str) -> Function | None:
        """Return the property `attr` of a class (of its lineage, nearest first), or None when it is no property."""
        for current in self.repo.lineage(cls):
            method = current.methods.get(attr)
            if method is not None:
                decorators = {dotted(d) for d in method.node.decorator_list}
                return method if decorators & {"property", "cached_property", "functools.cached_property"} else None
        return None

    def _returned(self, function: Function, scope: Scope, depth: int) -> list[Pieces] | None:
        """Return every wording a property returns, or None when a return cannot be followed. A return of what the
        `if` around it tests (`if self._hint: return self._hint`) hands back a caller's override, as `hint or ...`
        does: the wordings are the others (jinja2's `_undefined_message`)."""
        overrides = {id(stmt.body[0]) for stmt in body_nodes(function.node.body)
                     if isinstance(stmt, ast.If) and len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Return)
                     and stmt.body[0].value is not None and ast.dump(stmt.body[0].value) == ast.dump(stmt.test)}
        found: list[Pieces] = []
        for ret in body_nodes(function.node.body):
            if isinstance(ret, ast.Return) and ret.value is not None and id(ret) not in overrides:
                wordings = self.evaluate(ret.value, scope, depth + 1)
                if wordings is None:
                    return None
                found += wordings
        return _unique(found) or None

    def _without_self(self, attr: str, value: ast.expr, scope: Scope, depth: int) -> list[Pieces] | None:
        """Return the wordings of an assignment to `self.attr` where `self.attr` in its value is the class attribute."""
        if not any(isinstance(n, ast.Attribute) and n.attr == attr for n in ast.walk(value)):
            return self.evaluate(value, scope, depth + 1)
        assert scope.cls is not None
        class_value = self._class_value(scope.cls, attr, depth)
        if class_value is None:
            return None
        # `self.message_min = self.message_min.format(...)`: the class attribute, formatted.
        return self._formatted(value, class_value, attr, scope, depth)

    def _formatted(self, value: ast.expr, base: list[Pieces], attr: str, scope: Scope, depth: int) -> list[Pieces] | None:
        """Return `base` formatted as `value` (`self.attr.format(...)`) formats the class attribute."""
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _FORMAT_METHODS
                and isinstance(value.func.value, ast.Attribute) and value.func.value.attr == attr):
            return self._format(base, value, scope, depth)
        return None

    def instance_values(self, cls: ClassInfo, attr: str) -> Iterator[tuple[Function, ast.expr]]:
        """Yield each `self.attr = value` of an `__init__` in the class and its bases, nearest first."""
        for current in self.repo.lineage(cls):
            init = current.methods.get("__init__")
            if init is None or not init.params:
                continue
            for stmt in body_nodes(init.node.body):
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else (
                    stmt.target if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else None)
                if (isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name)
                        and target.value.id == init.params[0]):
                    assert isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None
                    yield init, stmt.value

    def class_attribute(self, cls: ClassInfo, attr: str) -> tuple[ClassInfo, ast.expr] | None:
        """Return the class (of the lineage, nearest first) whose body assigns `attr`, and the value."""
        for current in self.repo.lineage(cls):
            for stmt in current.node.body:
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else (
                    stmt.target if isinstance(stmt, ast.AnnAssign) else None)
                value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
                if isinstance(target, ast.Name) and target.id == attr and value is not None:
                    return current, value
        return None

    def _class_value(self, cls: ClassInfo, attr: str, depth: int) -> list[Pieces] | None:
        """Return the wordings of a class attribute, read in its class's body."""
        found = self.class_attribute(cls, attr)
        if found is None:
            return None
        owner, value = found
        return self.evaluate(value, Scope(owner.file, None, cls), depth + 1)

    def _subscript(self, node: ast.Subscript, scope: Scope, depth: int) -> list[Pieces] | None:
        """Return the wording a dict of messages holds under a key the source spells out (`self.error_messages[key]`)."""
        keys = self.evaluate(node.slice, scope, depth + 1)
        if not keys or len(keys) != 1 or any(hole for hole, _ in keys[0]):
            return None
        key = "".join(text for _, text in keys[0])
        for table in self._tables(node.value, scope):
            for k, v in zip(table.keys, table.values):
                if isinstance(k, ast.Constant) and k.value == key and v is not None:
                    self.keyed = True
                    return self.evaluate(v, scope, depth + 1)
        return None

    def _tables(self, node: ast.expr, scope: Scope) -> Iterator[ast.Dict]:
        """Yield the dict literals a subscripted expression may be: class attributes of that name (or one ending
        in it: `default_error_messages` fills `error_messages`), nearest class first; a module constant."""
        if isinstance(node, ast.Attribute) and scope.cls is not None and self._is_self(node.value, scope):
            for current in self.repo.lineage(scope.cls):
                for stmt in current.node.body:
                    target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else (
                        stmt.target if isinstance(stmt, ast.AnnAssign) else None)
                    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
                    if (isinstance(target, ast.Name) and target.id.endswith(node.attr) and isinstance(value, ast.Dict)):
                        yield value
        elif isinstance(node, ast.Name):
            for value in scope.file.constants.values(node.id):
                if isinstance(value, ast.Dict):
                    yield value

    def _call(self, node: ast.Call, scope: Scope, depth: int) -> list[Pieces] | None:
        """Return the wordings a call gives: a format of known text, a translation, a function of the repository."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _FORMAT_METHODS:
            base = self.evaluate(func.value, scope, depth + 1)
            return None if base is None else self._format(base, node, scope, depth)
        if callee_name(node) in GETTEXT and node.args:
            return self.evaluate(node.args[0], scope, depth + 1)
        target = self.repo.callee(node, scope.function, scope.file)
        if target is None or self.repo.raiser(target) is not None:
            return None
        inner = self.bind(node, target, scope)
        if inner is None:
            return None
        found: list[Pieces] = []
        for ret in body_nodes(target.node.body):
            if isinstance(ret, ast.Return) and ret.value is not None:
                wordings = self.evaluate(ret.value, inner, depth + 1)
                if wordings is None:
                    return None
                found += wordings
        return _unique(found) or None

    def bind(self, call: ast.Call, target: Function, scope: Scope) -> Scope | None:
        """Return the scope of a called function's body: its parameters bound to the call's arguments."""
        params = list(target.params[1:] if target.bound and isinstance(call.func, ast.Attribute) else target.params)
        if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(params):
            return None
        bound = {name: (arg, scope) for name, arg in zip(params, call.args)}
        bound.update({k.arg: (k.value, scope) for k in call.keywords if k.arg is not None})
        cls = scope.cls if target.bound and isinstance(call.func, ast.Attribute) and (
            self._is_self(call.func.value, scope) or _is_super(call.func.value)) else target.owner
        return Scope(target.file, target, cls, bound)

    def _format(self, base: list[Pieces], call: ast.Call, scope: Scope, depth: int) -> list[Pieces] | None:
        """Return wordings formatted as `.format(...)` / `.format_map({...})` does: known values put in, others placeholders."""
        given: dict[str, ast.expr] = {k.arg: k.value for k in call.keywords if k.arg is not None}
        if isinstance(call.func, ast.Attribute) and call.func.attr == "format_map" and call.args:
            table = call.args[0]
            if isinstance(table, ast.Dict):
                given = {k.value: v for k, v in zip(table.keys, table.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        values: dict[str, list[Pieces] | None] = {name: self.evaluate(value, scope, depth + 1) for name, value in given.items()}
        found: list[Pieces] = []
        for wording in base:
            filled = _fill(wording, values)
            if filled is None:
                return None
            found += filled
        return _unique(found) or None

    @staticmethod
    def _is_self(node: ast.expr, scope: Scope) -> bool:
        """Return whether an expression is the `self` of the scope's method."""
        function = scope.function
        return (isinstance(node, ast.Name) and function is not None and function.bound and bool(function.params)
                and node.id == function.params[0])


def _fill(wording: Pieces, values: Mapping[str, list[Pieces] | None]) -> list[Pieces] | None:
    """Return the wordings `str.format` makes of one: each field a known value, or its placeholder; None if not a format."""
    results: list[Pieces] = [()]
    for hole, text in wording:
        if hole:
            results = [_join(r, ((True, text),)) for r in results]
            continue
        try:
            parsed = list(string.Formatter().parse(text))
        except ValueError:
            return None
        for literal, name, spec, conversion in parsed:
            pieces: list[Pieces] = [((False, literal),)]
            if name is not None:
                known = values.get(name) if not spec and not conversion else None
                shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
                pieces = [_join(((False, literal),), k) for k in known] if known else [((False, literal), (True, shown))]
            results = _unique(_join(r, p) for r in results for p in pieces)
    return results


def _is_super(node: ast.expr) -> bool:
    """Return whether an expression is `super()`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
