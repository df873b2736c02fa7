"""What a repository's own functions and classes raise: helpers, factories, classes with their own message.

A raising helper is a function whose body raises an exception built from one
of its parameters, directly or by passing it on to another helper; an
exception factory returns such an exception instead. Both are found to a
fixed point over every function of the repository, and each is described by
a `Raiser`: the exception and the template built around the parameter.
Calls are resolved inside the repository only: names by import or local
definition, methods through the class and its bases, else by the method name
when only one raising method of that name exists (or all of them raise the
same way). docs/extract.md gives the rules and their limits.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from .messages import FORMATTED, HOLE, Names, Source, dotted, template

EXCEPTION_NAME = re.compile(r"(?:Error|Exception|Warning|Exit|Abort|Interrupt|Failure)$")
"""Names of classes outside the repository taken to be exceptions."""

KEY_EXCEPTIONS = frozenset({"KeyError", "IndexError", "LookupError", "StopIteration", "StopAsyncIteration"})
"""Exceptions whose argument is a key or value rather than a message: never a helper's."""

MESSAGE_PARAMETER = re.compile(r"msg|message|text|reason|detail|descr|err|what|why|format|fmt|template", re.IGNORECASE)
"""Parameter names of an exception class's `__init__` that take the message."""

REEXPORT_HOPS = 4
"""How many modules that only re-export a name (`from .x import f` in `__init__.py`) are followed."""

OWN_MESSAGE_METHODS = ("format_message", "__str__")
"""Methods whose returned template is the message an exception class prints."""


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """One parsed Python file of the repository."""

    path: str
    """Relative POSIX path."""
    module: str
    """Dotted module name the path gives (`pkg/sub/__init__.py` is `pkg.sub`)."""
    tree: ast.Module
    source: Source
    constants: Names
    """Top-level names assigned only by plain assignments, for following module constants."""


@dataclass(eq=False, slots=True)
class Function:
    """A function or method of the repository."""

    file: ParsedFile
    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    owner: ClassInfo | None
    """The class it is defined in directly, if it is a method."""
    parent: Function | None
    """The function it is defined in, if it is nested."""
    params: tuple[str, ...]
    """Positional parameters in order, `self` or `cls` included."""
    keyword_only: tuple[str, ...]
    bound: bool
    """Called through an instance or class: the first parameter is not passed at the call."""
    nested: dict[str, Function] = field(default_factory=dict)
    """Functions defined directly in its body, by name."""

    @property
    def holes(self) -> tuple[str, ...]:
        """Return the parameters a message can come from (all but `self`/`cls`)."""
        return (self.params[1:] if self.bound else self.params) + self.keyword_only

    def names(self) -> Names:
        """Return the template assignments visible in the body, for following variables."""
        return Names(self.node.body, self.params + self.keyword_only, self.file.constants)


@dataclass(eq=False, slots=True)
class ClassInfo:
    """A class of the repository."""

    file: ParsedFile
    qualname: str
    node: ast.ClassDef
    methods: dict[str, Function] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Raiser:
    """How a helper or factory turns one of its parameters into an exception."""

    exception: str
    """The exception as written where it is built (`BadParameter`)."""
    wrap: str
    """The template of the exception's message, with HOLE where the parameter's message goes (FORMATTED
    where the function formats it first)."""
    param: str
    """The parameter that carries the message."""
    returns: bool
    """A factory: the function returns the exception, the caller raises it."""
    cls: ClassInfo | None = None
    """The exception's class, when it is one of the repository's."""
    documented: bool = False
    """The innermost raise spells a message out itself (`f"failed: {text}"`): it is the site, its callers are not."""


def body_nodes(body: Iterable[ast.stmt]) -> Iterator[ast.AST]:
    """Yield every node of a statement list, not entering nested functions, classes or lambdas."""
    stack: list[ast.AST] = []
    stack.extend(reversed(list(body)))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        # ast.iter_child_nodes, inlined: this loop visits every node of the repository once.
        children: list[ast.AST] = []
        for name in node._fields:
            if name == "ctx":
                continue  # Load/Store/Del marks: never a call, raise or return
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                children.append(value)
            elif isinstance(value, list):
                children.extend(item for item in value if isinstance(item, ast.AST))
        stack.extend(reversed(children))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
"""Nodes whose bodies are scopes of their own."""


def module_name(path: str) -> str:
    """Return the dotted module name of a repository path."""
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class Repository:
    """Every function and class of the parsed files, with what each raises."""

    def __init__(self, files: Sequence[ParsedFile], shapes: dict[ast.AST, Shape] | None = None) -> None:
        """Gather `files`; `shapes` keeps each function body's shape by its node, for scans that share parsed files."""
        self.files = list(files)
        self.functions: list[Function] = []
        self.classes: list[ClassInfo] = []
        self.top: dict[tuple[str, str], Function | ClassInfo] = {}
        """Module-level functions and classes by (module, name)."""
        self.imports: dict[str, dict[str, str]] = {}
        """By module: each imported local name and the dotted name it stands for."""
        self.modules: dict[str, ParsedFile] = {}
        self.by_node: dict[int, Function] = {}
        self.class_by_node: dict[int, ClassInfo] = {}
        self.classes_by_name: dict[str, list[ClassInfo]] = defaultdict(list)
        self._by_suffix: dict[str, list[ParsedFile]] = defaultdict(list)
        """Modules by each proper dotted suffix of their name."""
        self._raising_methods: dict[str, list[Function]] = defaultdict(list)
        """The raising methods found so far, by name."""
        for file in self.files:
            self.modules.setdefault(file.module, file)
            parts = file.module.split(".")
            for start in range(1, len(parts)):
                self._by_suffix[".".join(parts[start:])].append(file)
            self.imports[file.module] = _imports(file)
            self._collect(file, file.tree.body, (), None, None, top=True)
        self._in_file: dict[str, list[Function]] = defaultdict(list)
        for function in self.functions:
            self._in_file[function.file.path].append(function)
        self.shapes: dict[int, Shape] = {
            id(f): shapes[f.node] if shapes and f.node in shapes else Shape.of(f) for f in self.functions}
        """By `id()` of the Function: the raises, returns and calls of its body."""
        self.raisers: dict[int, Raiser] = {}
        """By `id()` of the Function: how it raises."""
        self.raiser_names: set[str] = set()
        """The names of every helper and factory: a call of any other name calls none."""
        self._find_raisers()

    # -- collecting definitions

    def _collect(self, file: ParsedFile, body: Iterable[ast.stmt], names: tuple[str, ...],
                 owner: ClassInfo | None, parent: Function | None, top: bool) -> None:
        """Record the functions and classes of a statement list, recursively."""
        for stmt in _definitions(body):
            qualname = ".".join(names + (stmt.name,))
            if isinstance(stmt, ast.ClassDef):
                info = ClassInfo(file, qualname, stmt)
                self.classes.append(info)
                self.class_by_node[id(stmt)] = info
                self.classes_by_name[stmt.name].append(info)
                if top:
                    self.top[(file.module, stmt.name)] = info
                self._collect(file, stmt.body, names + (stmt.name,), info, parent, top=False)
                continue
            args = stmt.args
            decorators = {dotted(d) for d in stmt.decorator_list}
            bound = owner is not None and "staticmethod" not in decorators
            function = Function(file, qualname, stmt, owner, parent,
                                tuple(a.arg for a in args.posonlyargs + args.args),
                                tuple(a.arg for a in args.kwonlyargs), bound)
            self.functions.append(function)
            self.by_node[id(stmt)] = function
            if owner is not None:
                owner.methods.setdefault(stmt.name, function)
            elif parent is not None:
                parent.nested.setdefault(stmt.name, function)
            elif top:
                self.top[(file.module, stmt.name)] = function
            self._collect(file, stmt.body, names + (stmt.name,), None, function, top=False)

    # -- resolving names

    def find_module(self, name: str) -> ParsedFile | None:
        """Return the repository's module of a dotted name (exactly, else by unique suffix: `src/pkg/x.py` is `pkg.x`)."""
        if name in self.modules:
            return self.modules[name]
        found = self._by_suffix.get(name, ())
        return found[0] if len(found) == 1 else None

    def _global(self, file: ParsedFile, name: str, hops: int = 0) -> Function | ClassInfo | ParsedFile | None:
        """Return what a module-level name of `file` stands for: its own definition or an import (followed a few re-exports deep)."""
        own = self.top.get((file.module, name))
        if own is not None:
            return own
        target = self.imports[file.module].get(name)
        if target is None:
            return None
        module = self.find_module(target)
        if module is not None:
            return module
        base, _, last = target.rpartition(".")
        module = self.find_module(base) if base else None
        if module is None:
            return None
        found = self.top.get((module.module, last))
        if found is None and module.module != file.module:
            # `from .x import f` where x itself imported f.
            inner = self.imports[module.module].get(last)
            # Modules that import a name from each other would otherwise send this round in circles.
            follow = inner is not None and inner != target and hops < REEXPORT_HOPS
            return self._global(module, last, hops + 1) if follow else None
        return found

    def resolve_class(self, node: ast.expr, file: ParsedFile) -> ClassInfo | None:
        """Return the repository class an expression names (`Error`, `errors.Error`), if any."""
        if isinstance(node, ast.Name):
            found = self._global(file, node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = self._global(file, node.value.id)
            found = self.top.get((module.module, node.attr)) if isinstance(module, ParsedFile) else None
        else:
            return None
        return found if isinstance(found, ClassInfo) else None

    def bases(self, info: ClassInfo) -> list[ClassInfo]:
        """Return the repository classes among a class's bases, in order."""
        # A generic base (`Field[str]`) is the class it subscripts.
        found = (self.resolve_class(base.value if isinstance(base, ast.Subscript) else base, info.file)
                 for base in info.node.bases)
        return [b for b in found if b is not None]

    def lineage(self, info: ClassInfo) -> Iterator[ClassInfo]:
        """Yield a class and its repository bases, depth first, each once."""
        seen: set[int] = set()
        stack = [info]
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            yield current
            stack.extend(reversed(self.bases(current)))

    def method(self, info: ClassInfo, name: str) -> Function | None:
        """Return the method `name` of a class, looked up through its repository bases."""
        for current in self.lineage(info):
            if name in current.methods:
                return current.methods[name]
        return None

    def is_exception(self, info: ClassInfo) -> bool:
        """Return whether a repository class is an exception (its name or a base's says so)."""
        for current in self.lineage(info):
            names = [current.node.name] + [(dotted(b) or "").rpartition(".")[2] for b in current.node.bases]
            if any(EXCEPTION_NAME.search(n) or n == "BaseException" for n in names):
                return True
        return False

    def callee(self, call: ast.Call, where: Function | None, file: ParsedFile) -> Function | None:
        """Return the repository function a call calls, when the rules can tell."""
        func = call.func
        if isinstance(func, ast.Name):
            scope = where
            while scope is not None:
                if func.id in scope.nested:
                    return scope.nested[func.id]
                scope = scope.parent
            found = self._global(file, func.id)
            return found if isinstance(found, Function) else None
        if not isinstance(func, ast.Attribute):
            return None
        receiver = func.value
        for info in self._receiver_classes(receiver, where, file):
            method = self.method(info, func.attr)
            if method is not None:
                return method
        if isinstance(receiver, ast.Name) and not (where is not None and receiver.id in where.params):
            target = self._global(file, receiver.id)
            if isinstance(target, ParsedFile):
                found = self.top.get((target.module, func.attr))
                return found if isinstance(found, Function) else None
            if isinstance(target, ClassInfo):
                return self.method(target, func.attr)
            if receiver.id in self.imports[file.module]:
                return None  # a module or object from outside the repository
        if _is_super(receiver) or (func.attr.startswith("__") and func.attr.endswith("__")):
            # A base outside the repository, or a special method: the name alone says nothing.
            return None
        return self._by_method_name(func.attr, receiver)

    def _receiver_classes(self, receiver: ast.expr, where: Function | None, file: ParsedFile) -> list[ClassInfo]:
        """Return the repository classes a method's receiver is known to be: `self`, `super()`, an annotation."""
        if where is None:
            return []
        if _is_super(receiver):
            owner = _method_owner(where)
            return [b for b in self.bases(owner)] if owner is not None else []
        if not isinstance(receiver, ast.Name):
            return []
        owner = _method_owner(where)
        method = where if where.owner is not None else None
        if owner is not None and method is not None and method.bound and method.params[:1] == (receiver.id,):
            return [owner]
        args = where.node.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            if arg.arg == receiver.id and arg.annotation is not None:
                return self._annotated(arg.annotation, file)
        return []

    def _annotated(self, annotation: ast.expr, file: ParsedFile) -> list[ClassInfo]:
        """Return the repository classes an annotation names (`Context`, `"Context"`, `Optional[Context]`)."""
        found = []
        for node in ast.walk(annotation):
            name = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
            if name is not None:
                try:
                    parsed = ast.parse(name, mode="eval").body
                except SyntaxError:
                    continue
                found += self._annotated(parsed, file)
            elif isinstance(node, (ast.Name, ast.Attribute)):
                info = self.resolve_class(node, file)
                if info is None and isinstance(node, ast.Name) and len(self.classes_by_name[node.id]) == 1:
                    info = self.classes_by_name[node.id][0]
                if info is not None:
                    found.append(info)
        return found

    def _by_method_name(self, name: str, receiver: ast.expr) -> Function | None:
        """Return the one raising method of that name (or the first, when all raise alike).

        Where classes raise differently, a receiver named for one of them picks it: untyped code
        calls `ctx.fail(...)` on a `Context` while a `ParamType` has its own `fail`.
        """
        raising = list(self._raising_methods.get(name, ()))
        if len({self.raisers[id(f)] for f in raising}) > 1:
            called = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", None)
            raising = [f for f in raising if called and f.owner is not None and names_class(called, f.owner.node.name)]
        if raising and all(self.raisers[id(f)] == self.raisers[id(raising[0])] for f in raising):
            return raising[0]
        return None

    def functions_in(self, file: ParsedFile) -> list[Function]:
        """Return the functions and methods defined in a file, in the order they were found."""
        return self._in_file[file.path]

    def raiser(self, function: Function | None) -> Raiser | None:
        """Return how a function raises, if it is a helper or factory."""
        return None if function is None else self.raisers.get(id(function))

    # -- finding helpers and factories

    def _find_raisers(self) -> None:
        """Find every helper and factory, repeating until no new one is found.

        After the first round only functions that call a name a new helper or
        factory has are looked at again: nothing else can have changed.
        """
        called = {id(f): _called_names(self.shapes[id(f)]) for f in self.functions}
        candidates = [f for f in self.functions if f.holes]
        while candidates:
            new_names: set[str] = set()
            for function in candidates:
                found = self._raiser_of(function, self.shapes[id(function)])
                if found is not None:
                    self.raisers[id(function)] = found
                    self.raiser_names.add(function.node.name)
                    new_names.add(function.node.name)
                    if function.owner is not None:
                        self._raising_methods[function.node.name].append(function)
            candidates = [f for f in candidates if id(f) not in self.raisers and called[id(f)] & new_names]

    def _raiser_of(self, function: Function, shape: Shape) -> Raiser | None:
        """Return how a function raises from a parameter, judged by what is known so far."""
        for node in shape.raised:
            found = self.built(node, function, returns=False)
            if found is not None:
                return found
        for call in shape.calls:
            if _last_name(call) not in self.raiser_names:
                continue
            inner = self.raiser(self.callee(call, function, function.file))
            if inner is not None and not inner.returns:
                found = self._passed_on(call, inner, function, returns=False)
                if found is not None:
                    return found
        for node in shape.returned:
            found = self.built(node, function, returns=True)
            if found is not None:
                return found
        return None

    def built(self, call: ast.Call, function: Function, returns: bool) -> Raiser | None:
        """Return the Raiser of an exception built (raised or returned) from one of `function`'s parameters."""
        inner = self.raiser(self.callee(call, function, function.file)) if _last_name(call) in self.raiser_names else None
        if inner is not None:
            return self._passed_on(call, inner, function, returns and inner.returns)
        built = _parameter_default(call.func, function) or call.func
        exception = dotted(built)
        if exception is None or exception.rpartition(".")[2] in KEY_EXCEPTIONS:
            return None
        info = self.resolve_class(built, function.file)
        if returns and not (self.is_exception(info) if info is not None else EXCEPTION_NAME.search(exception)):
            return None
        argument = self.message_argument(call, info)
        if argument is None:
            return None
        found = with_hole(argument, function)
        if found is None:
            return None
        own = None if returns else template(argument, function.file.source)
        return Raiser(exception, found[0], found[1], returns, info, bool(own))

    def _passed_on(self, call: ast.Call, inner: Raiser, function: Function, returns: bool) -> Raiser | None:
        """Return the Raiser of `function` when it passes one of its parameters on as `inner`'s message."""
        argument = self.argument(call, self.callee(call, function, function.file), inner)
        found = None if argument is None else with_hole(argument, function)
        if found is None:
            return None
        wrap = inner.wrap.replace(HOLE, found[0]).replace(FORMATTED, found[0].replace(HOLE, FORMATTED))
        return Raiser(inner.exception, wrap, found[1], returns, inner.cls, inner.documented)

    def argument(self, call: ast.Call, target: Function | None, raiser: Raiser) -> ast.expr | None:
        """Return the argument of a call that the callee's message parameter receives."""
        for keyword in call.keywords:
            if keyword.arg == raiser.param:
                return keyword.value
        if target is None or raiser.param not in target.params:
            return None
        index = target.params.index(raiser.param)
        if target.bound and isinstance(call.func, ast.Attribute):
            index -= 1
        before = call.args[:index + 1]
        if index < 0 or index >= len(call.args) or any(isinstance(a, ast.Starred) for a in before):
            return None
        return call.args[index]

    def class_built(self, call: ast.Call, target: Function, file: ParsedFile) -> ClassBuilt | None:
        """Return the class a factory call builds when the caller names it, with the arguments the class receives.

        tomlkit's `raise self.parse_error(UnexpectedCharError, c)`, where `parse_error(self, exception=ParseError,
        *args)` returns `exception(line, col, *args)`, or passes `exception` and `*args` on to a function that does.
        """
        made = self._class_parameter(target, 0)
        if made is None:
            return None
        param, fixed = made
        index = target.params.index(param) - (1 if target.bound and isinstance(call.func, ast.Attribute) else 0)
        if index < 0 or any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            return None
        given = next((k.value for k in call.keywords if k.arg == param), None)
        node = call.args[index] if index < len(call.args) else given
        if node is None:
            node, file = _parameter_default(ast.Name(param), target), target.file
        info = self.resolve_class(node, file) if node is not None else None
        if node is None or info is None or not self.is_exception(info):
            return None
        rest = call.args[index + 1:] if index < len(call.args) else []
        placeholders: list[ast.expr] = [ast.Constant(None) for _ in range(fixed)]
        keywords = [k for k in call.keywords if k.arg != param]
        return ClassBuilt(info, node, ast.Call(func=node, args=[*placeholders, *rest], keywords=keywords), fixed)

    def _class_parameter(self, function: Function, depth: int) -> tuple[str, int] | None:
        """Return (parameter, fixed arguments) when `function` returns `parameter(<fixed>..., *args)`, its own
        `*args` passed on after the arguments it fills in itself, directly or through functions it passes both to."""
        vararg = function.node.args.vararg
        if vararg is None or depth > 3:
            return None
        for node in self.shapes[id(function)].returned:
            args = node.args
            if not args or not (isinstance(args[-1], ast.Starred) and isinstance(args[-1].value, ast.Name)
                                and args[-1].value.id == vararg.arg):
                continue
            if isinstance(node.func, ast.Name) and node.func.id in function.holes:
                return node.func.id, len(args) - 1
            if len(args) == 2 and isinstance(args[0], ast.Name) and args[0].id in function.holes:
                inner = self.callee(node, function, function.file) or self._one_named(node, function)
                made = self._class_parameter(inner, depth + 1) if inner is not None else None
                if made is not None and inner is not None and made[0] == inner.holes[0]:
                    return args[0].id, made[1]
        return None

    def _one_named(self, call: ast.Call, caller: Function) -> Function | None:
        """Return the one function of the repository, the caller aside, that a call's name names, if exactly one has it."""
        name = _last_name(call)
        found = [f for f in self.functions if f.node.name == name and f is not caller]
        return found[0] if len(found) == 1 else None

    def message_argument(self, call: ast.Call, info: ClassInfo | None) -> ast.expr | None:
        """Return the argument that carries an exception's message: a message keyword, else the positional
        argument of the constructor's first parameter named for a message (the first, for a class outside)."""
        for keyword in call.keywords:
            if keyword.arg in ("msg", "message", "detail"):
                return keyword.value
        init = self.method(info, "__init__") if info is not None else None
        index = 0
        if init is not None:
            # `InvalidMetadata(field, message)`: the message is the argument its own parameter takes.
            params = init.params[1:] if init.bound else init.params
            index = next((i for i, p in enumerate(params) if MESSAGE_PARAMETER.search(p)), -1)
        if not 0 <= index < len(call.args) or any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            return None
        return call.args[index]


@dataclass(frozen=True, slots=True)
class ClassBuilt:
    """What a factory that its caller passes an exception class to builds (`Repository.class_built`)."""

    cls: ClassInfo
    node: ast.expr
    """The class as the caller names it."""
    call: ast.Call
    """The class's call as the factory makes it: a placeholder for each argument the factory fills in, then the caller's."""
    fixed: int
    """How many arguments the factory fills in itself (never the message)."""


@dataclass(frozen=True, slots=True)
class Shape:
    """The raises, returns and calls of a function body, gathered in one walk."""

    raised: tuple[ast.Call, ...]
    """Exceptions built in `raise` statements."""
    returned: tuple[ast.Call, ...]
    """Calls whose result is returned."""
    calls: tuple[ast.Call, ...]
    """Every other call, in source order."""

    @classmethod
    def of(cls, function: Function) -> Shape:
        """Return the shape of a function's own body (nested functions are their own)."""
        raised, returned, calls = [], [], []
        inside: set[int] = set()
        # `exc = InvalidMetadata(...); exc.__cause__ = cause; return exc`: a name bound once to a call
        # and then returned (or raised) is that call returned (or raised).
        bound: dict[str, list[ast.expr]] = defaultdict(list)
        named: dict[str, list[ast.stmt]] = defaultdict(list)
        for node in body_nodes(function.node.body):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                raised.append(node.exc)
                inside.add(id(node.exc))
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
                returned.append(node.value)
                inside.add(id(node.value))
            elif isinstance(node, ast.Call) and id(node) not in inside:
                calls.append(node)
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
                named[node.value.id].append(node)
            elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Name):
                named[node.exc.id].append(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) and len(targets) == 1 else None
                        bound[target.id].append(value if value is not None else target)
        for name, uses in named.items():
            values = bound.get(name, [])
            if len(values) != 1 or not isinstance(call := values[0], ast.Call) or call not in calls:
                continue
            calls.remove(call)
            (returned if all(isinstance(u, ast.Return) for u in uses) else raised).append(call)
        return cls(tuple(raised), tuple(returned), tuple(calls))


def with_hole(argument: ast.expr, function: Function) -> tuple[str, str] | None:
    """Return (template with HOLE, parameter) when an argument carries one of the function's parameters as its message.

    The parameter is the message when it is the whole argument, starts it
    (`f"{msg} (at {where})"`), or has a message's name (`"failed: " + text`);
    `f"cannot read {path}"` only mentions a value.
    """
    for param in function.holes:
        try:
            text = template(argument, function.file.source, frozenset({param}))
        except RecursionError:
            return None
        if text is None or text.count(HOLE) + text.count(FORMATTED) != 1:
            continue
        if text.startswith((HOLE, FORMATTED)) or MESSAGE_PARAMETER.search(param):
            return text, param
    return None


def _last_name(call: ast.Call) -> str | None:
    """Return the name a call calls by (`fail` in `self.ctx.fail(...)`)."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _called_names(shape: Shape) -> set[str]:
    """Return the names a function body calls by."""
    return {name for call in (*shape.raised, *shape.calls, *shape.returned) if (name := _last_name(call)) is not None}


def _parameter_default(node: ast.expr, function: Function) -> ast.expr | None:
    """Return the default of the parameter a name is (`exc=TemplateSyntaxError` for `raise exc(msg)`), if it is one."""
    if not isinstance(node, ast.Name):
        return None
    args = function.node.args
    positional = args.posonlyargs + args.args
    defaults: list[tuple[ast.arg, ast.expr | None]] = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults += list(zip(args.kwonlyargs, args.kw_defaults))
    for arg, default in defaults:
        if arg.arg == node.id and default is not None and dotted(default) is not None:
            return default
    return None


def _is_super(node: ast.expr) -> bool:
    """Return whether an expression is `super()`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def names_class(variable: str, class_name: str) -> bool:
    """Return whether a variable's name is its class's name or a short form of it (`ctx`, `context`, `ctx_` for Context).

    A short form keeps the first letter and then some of the others in order, and is at least two letters long.
    """
    short, full = variable.replace("_", "").lower(), class_name.lower()
    if len(short) < 2 or short[0] != full[0]:
        return False
    rest = iter(full[1:])
    return all(letter in rest for letter in short[1:])


def _method_owner(function: Function) -> ClassInfo | None:
    """Return the class of a method, or of the method a nested function is in."""
    current: Function | None = function
    while current is not None:
        if current.owner is not None:
            return current.owner
        current = current.parent
    return None


def _definitions(body: Iterable[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """Yield the functions and classes a statement list defines, also inside if/try/with blocks."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield stmt
            continue
        for name in ("body", "orelse", "finalbody", "handlers"):
            for child in getattr(stmt, name, ()):
                if isinstance(child, ast.ExceptHandler):
                    yield from _definitions(child.body)
                elif isinstance(child, ast.stmt):
                    yield from _definitions([child])


def _imports(file: ParsedFile) -> dict[str, str]:
    """Return each name a module imports (in any block or function) and the dotted name it stands for."""
    package = file.module if file.path.endswith("__init__.py") else file.module.rpartition(".")[0]
    names: dict[str, str] = {}
    for node in _simple_statements(file.tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    names.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(p for p in parts + ([node.module] if node.module else []) if p)
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return names


def _simple_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Yield every statement of a list and of the blocks, functions and classes in it; expressions are not entered."""
    stack = list(body)[::-1]
    while stack:
        stmt = stack.pop()
        yield stmt
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in reversed(getattr(stmt, name, ())):
                stack.extend(reversed(child.body) if isinstance(child, (ast.ExceptHandler, ast.match_case)) else [child])
