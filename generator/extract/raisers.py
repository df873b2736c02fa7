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
import builtins
import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

from .messages import FORMATTED, HOLE, Names, Source, decode_source, dotted, template

EXCEPTION_NAME = re.compile(r"(?:Error|Exception|Warning|Exit|Abort|Interrupt|Failure)$")
"""Names of classes outside the repository taken to be exceptions."""

BUILTIN_EXCEPTIONS = frozenset(name for name, value in vars(builtins).items()
                                if isinstance(value, type) and issubclass(value, BaseException))
"""Python's own exception classes (`ValueError`, `KeyError`), whatever their names end with."""

KEY_EXCEPTIONS = frozenset({"KeyError", "IndexError", "LookupError", "StopIteration", "StopAsyncIteration"})
"""Exceptions whose argument is a key or value rather than a message: never a helper's."""

MESSAGE_PARAMETER = re.compile(r"msg|message|text|reason|detail|descr|err|what|why|format|fmt|template", re.IGNORECASE)
"""Parameter names of an exception class's `__init__` that take the message."""

REEXPORT_HOPS = 4
"""How many modules that only re-export a name (`from .x import f` in `__init__.py`) are followed."""

OWN_MESSAGE_METHODS = ("format_message", "__str__")
"""Methods whose returned template is the message an exception class prints."""


_reads: set[str] | None = None
"""The paths of the files whose syntax was read since `reading` began, while it lasts."""


@contextmanager
def reading() -> Iterator[set[str]]:
    """Collect the paths of the files whose syntax (a tree, a node, the text, the constants) the block reads.

    What a file's raise sites are depends on its own syntax, on every file's definitions and imports and the
    helpers found from them (`scan._Kept.found` digests these), and on the syntax of the files this names: a scan
    that finds none of those changed may keep the sites it found.
    """
    global _reads
    outer, _reads = _reads, set()
    try:
        yield _reads
    finally:
        _reads = outer if outer is None else outer | _reads


def note_read(file: ParsedFile) -> None:
    """Note that the syntax of `file` was read, or what a scan found in it (see `reading`)."""
    if _reads is not None:
        _reads.add(file.path)


Node = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
"""A definition's node."""


class Defined(NamedTuple):
    """A class or function a file defines, as the repository collects it (`definitions`)."""

    qualname: str
    name: str
    owner: int
    """For a method, the position (in its file's definitions) of its class; else -1."""
    parent: int
    """The position of the function it is defined in (for a method, the function its class is in); else -1."""
    top: bool
    """Defined at module level (in a block there too)."""
    is_class: bool
    base_names: tuple[str, ...] = ()
    """For a class, `ClassInfo.base_names`."""
    base_refs: tuple[str | None, ...] = ()
    """For a class, `ClassInfo.base_refs`."""
    params: tuple[str, ...] = ()
    """For a function, `Function.params`; and so on."""
    keyword_only: tuple[str, ...] = ()
    bound: bool = False
    vararg: str | None = None
    defaults: tuple[tuple[str, str], ...] = ()
    annotations: tuple[tuple[str, tuple[tuple[str | None, str | None], ...]], ...] = ()


class ParsedFile:
    """One Python file of the repository that parses, with what the repository collects of it; its syntax is read
    from its bytes when first asked for (a scan that kept a file's facts may never need it)."""

    __slots__ = ("path", "module", "_data", "defined", "imported", "on_load", "_tree", "_text", "_constants", "_nodes")

    def __init__(self, path: str, data: bytes | Callable[[], bytes], tree: ast.Module | None = None,
                 text: str | None = None, defined: tuple[Defined, ...] | None = None,
                 imported: dict[str, str] | None = None) -> None:
        """A file of `data` at `path` (its bytes, or what reads them: a file whose facts were kept may never be
        read), given its tree and text when parsed already, or its facts when kept."""
        self.path = path
        """Relative POSIX path."""
        self.module = module_name(path)
        """Dotted module name the path gives (`pkg/sub/__init__.py` is `pkg.sub`)."""
        self._data = data
        self.on_load: Callable[[ParsedFile], None] | None = None
        """Called each time the file is parsed from its bytes (see `forget`)."""
        self._tree: ast.Module | None = None
        self._text: Source | None = None
        self._constants: Names | None = None
        self._nodes: list[Node] = []
        found = self._read(tree, text) if tree is not None and text is not None else None
        if defined is None or imported is None:
            found = found if found is not None else definitions(self.syntax)
            defined, imported = tuple(d for d, _ in found), _imports(self.syntax, self.path, self.module)
        self.defined = defined
        """Its classes and functions, in the order the repository collects them."""
        self.imported = imported
        """Each name it imports (in any block or function) and the dotted name it stands for."""

    def _read(self, tree: ast.Module, text: str) -> list[tuple[Defined, Node]]:
        self._tree, self._text, self._constants = tree, Source(text), Names(tree.body)
        found = definitions(tree)
        self._nodes = [node for _, node in found]
        return found

    @property
    def data(self) -> bytes:
        """Return its bytes, read when first asked for."""
        if callable(self._data):
            self._data = self._data()
        return self._data

    def _load(self) -> tuple[ast.Module, Source, Names]:
        """Return the file's tree, text and constants, parsing it from its bytes when it is not in memory."""
        if self._tree is None:
            text = decode_source(self.data)
            self._read(ast.parse(text), text)
            if self.on_load is not None:
                self.on_load(self)
        assert self._tree is not None and self._text is not None and self._constants is not None
        return self._tree, self._text, self._constants

    @property
    def loaded(self) -> bool:
        """Return whether the file's syntax is in memory."""
        return self._tree is not None

    def forget(self) -> None:
        """Let the file's syntax go: it is parsed again from its bytes when next asked for. The repository's shapes of
        its functions must go with it (`Repository.forget`)."""
        self._tree, self._text, self._constants, self._nodes = None, None, None, []

    @property
    def syntax(self) -> ast.Module:
        """Return the file's tree, without noting the read (what the repository's own collecting reads)."""
        return self._load()[0]

    def node(self, position: int) -> Node:
        """Return the node of the definition at a position of `defined`."""
        self._load()
        return self._nodes[position]

    @property
    def tree(self) -> ast.Module:
        """Return the file's tree."""
        note_read(self)
        return self.syntax

    @property
    def source(self) -> Source:
        """Return the file's text."""
        note_read(self)
        return self._load()[1]

    @property
    def constants(self) -> Names:
        """Top-level names assigned only by plain assignments, for following module constants."""
        note_read(self)
        return self._load()[2]


@dataclass(eq=False, slots=True)
class Function:
    """A function or method of the repository."""

    file: ParsedFile
    qualname: str
    position: int
    """Where it is among its file's definitions (`ParsedFile.defined`)."""
    owner: ClassInfo | None
    """The class it is defined in directly, if it is a method."""
    parent: Function | None
    """The function it is defined in, if it is nested."""
    name: str
    """Its own name (the last part of `qualname`)."""
    params: tuple[str, ...]
    """Positional parameters in order, `self` or `cls` included."""
    keyword_only: tuple[str, ...]
    bound: bool
    """Called through an instance or class: the first parameter is not passed at the call."""
    vararg: str | None
    """The name of its `*args` parameter, if it has one."""
    defaults: dict[str, str]
    """Each parameter whose default is a name or an attribute chain (`exc=errors.ParseError`), with that name."""
    annotations: dict[str, tuple[tuple[str | None, str | None], ...]]
    """Each annotated parameter (`*args` and `**kwargs` aside), with the names its annotation holds
    (`annotation_names`)."""
    nested: dict[str, Function] = field(default_factory=dict)
    """Functions defined directly in its body, by name."""

    @property
    def syntax(self) -> ast.FunctionDef | ast.AsyncFunctionDef:
        """Return the function's definition, without noting the read (what the repository's own collecting reads)."""
        node = self.file.node(self.position)
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        return node

    @property
    def node(self) -> ast.FunctionDef | ast.AsyncFunctionDef:
        """Return the function's definition."""
        note_read(self.file)
        return self.syntax

    @property
    def holes(self) -> tuple[str, ...]:
        """Return the parameters a message can come from (all but `self`/`cls`)."""
        return (self.params[1:] if self.bound else self.params) + self.keyword_only

    def names(self) -> Names:
        """Return the template assignments visible in the body, for following variables: its own, then those of the
        function it is defined in (a closure's free variable, `errmsg` of a decorator factory), then the module's."""
        outer = self.parent.names() if self.parent is not None else self.file.constants
        return Names(self.node.body, self.params + self.keyword_only, outer)


@dataclass(eq=False, slots=True)
class ClassInfo:
    """A class of the repository."""

    file: ParsedFile
    qualname: str
    position: int
    """Where it is among its file's definitions (`ParsedFile.defined`)."""
    name: str
    """Its own name."""
    base_names: tuple[str, ...]
    """The last part of each base's name as written ("" for a base that is no name: `Field[str]`)."""
    base_refs: tuple[str | None, ...]
    """Each base as a class reference (`class_ref`), a generic base (`Field[str]`) by the class it subscripts."""
    methods: dict[str, Function] = field(default_factory=dict)

    @property
    def node(self) -> ast.ClassDef:
        """Return the class's definition."""
        note_read(self.file)
        node = self.file.node(self.position)
        assert isinstance(node, ast.ClassDef)
        return node


class KeptRaiser(NamedTuple):
    """A helper or factory as a scan keeps it between runs (`Repository.raiser_table`)."""

    function: tuple[str, int]
    """The function: its file's path, its position among the file's definitions."""
    exception: str
    wrap: str
    param: str
    returns: bool
    cls: tuple[str, int] | None
    """The exception's class, when it is one of the repository's, as `function` is told."""
    documented: bool
    closure: bool
    """`Raiser.closure`."""
    class_param: str | None
    """`Raiser.class_param`."""


class KeptRaisers(NamedTuple):
    """The helpers and factories a scan found (`Repository.raiser_table`), offered to a scan of files that may differ."""

    table: Sequence[KeptRaiser]
    changed: frozenset[str]
    """The files whose calls differ from those of the scan that found the table, their definitions and imports the
    same: the table holds when none of their functions was a helper and none would be (`Repository._still_holds`)."""


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
    closure: bool = False
    """A function it defines raises (a closure, a decorator's wrapper), not its own body: a call builds what
    raises, and is the site whether or not what it builds ever runs."""
    class_param: str | None = None
    """The parameter a caller names another class by (`cls` of `raise (cls or Invalid)(msg)`); `exception` is
    what the raise falls back to."""


def body_nodes(body: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Yield every node of a statement list (or of expressions), not entering nested functions, classes or lambdas."""
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

    def __init__(self, files: Sequence[ParsedFile], shapes: dict[ast.AST, Shape] | None = None,
                 calls: Mapping[str, Callable[[], Sequence[Calls] | None]] | None = None,
                 raisers: Callable[[Repository], KeptRaisers | None] | None = None) -> None:
        """Gather `files`; `shapes` keeps each function body's shape by its node, for scans that share parsed files;
        `calls` has, by path, what gives the calls of each function of a file (in `functions_in` order) as a scan
        kept them (None when it cannot: they are made again); `raisers`, asked once the definitions are collected,
        gives `raiser_table` of a scan of files whose definitions and imports were all the same as these, and whose
        calls were too but in the files it names, if one was kept."""
        self.files = list(files)
        self.functions: list[Function] = []
        self.classes: list[ClassInfo] = []
        self.top: dict[tuple[str, str], Function | ClassInfo] = {}
        """Module-level functions and classes by (module, name)."""
        self.imports: dict[str, dict[str, str]] = {}
        """By module: each imported local name and the dotted name it stands for."""
        self.modules: dict[str, ParsedFile] = {}
        self.classes_by_name: dict[str, list[ClassInfo]] = defaultdict(list)
        self._by_suffix: dict[str, list[ParsedFile]] = defaultdict(list)
        """Modules by each proper dotted suffix of their name."""
        self._raising_methods: dict[str, list[Function]] = defaultdict(list)
        """The raising methods found so far, by name."""
        self._found_order: list[tuple[Function, Raiser]] = []
        """Every helper and factory, in the order found."""
        self._bases: dict[int, list[ClassInfo]] = {}
        """By `id()` of the class: its repository bases, once asked for (`bases`)."""
        self._exceptions: dict[int, bool] = {}
        """By `id()` of the class: whether it is an exception, once asked (`is_exception`)."""
        self._asked_by_name: set[str] = set()
        """The names a callee was looked for by among the raising methods known (`_never_a_helper`)."""
        for file in self.files:
            self.modules.setdefault(file.module, file)
            parts = file.module.split(".")
            for start in range(1, len(parts)):
                self._by_suffix[".".join(parts[start:])].append(file)
            self.imports[file.module] = file.imported
            self._collect(file)
        self._in_file: dict[str, list[Function]] = defaultdict(list)
        for function in self.functions:
            self._in_file[function.file.path].append(function)
        self._shapes: dict[int, Shape] = {}
        """By `id()` of the Function: its shape, once asked for (`shape`)."""
        self._known = shapes or {}
        self._calls: dict[int, Calls] = {}
        """By `id()` of the Function: the calls of its body, as facts, once asked for (`calls_of`)."""
        self._kept_calls = calls or {}
        self.raisers: dict[int, Raiser] = {}
        """By `id()` of the Function: how it raises."""
        self.raiser_names: set[str] = set()
        """The names of every helper and factory: a call of any other name calls none."""
        kept = raisers(self) if raisers is not None else None
        self.raisers_taken = kept is not None and self._take_raisers(kept.table) and self._still_holds(kept.changed)
        """The helpers and factories were taken from a table kept, not found."""
        if not self.raisers_taken:
            self._forget_raisers()
            self.find_raisers()

    def calls_of(self, function: Function) -> Calls:
        """Return the calls of a function's body, as facts (those of its whole file, kept or made, at the first ask)."""
        found = self._calls.get(id(function))
        if found is None:
            functions = self._in_file[function.file.path]
            load = self._kept_calls.get(function.file.path)
            given = load() if load is not None else None
            if given is not None and len(given) == len(functions):
                self._calls.update(zip(map(id, functions), given))
            else:
                self._calls.update((id(f), Calls.of(self._shape(f), f)) for f in functions)
            found = self._calls[id(function)]
        return found

    def let_calls_go(self) -> None:
        """Let go of the calls read so far (finding helpers reads every function's): asked again, a file's are read
        again from what gives them. A scan's workers fork with all it holds, and count each page they touch."""
        self._calls = {}

    def raiser_table(self) -> list[KeptRaiser]:
        """Return every helper and factory, in the order they were found, for `Repository(raisers=...)`."""
        return [KeptRaiser((f.file.path, f.position), r.exception, r.wrap, r.param, r.returns,
                           None if r.cls is None else (r.cls.file.path, r.cls.position), r.documented, r.closure,
                           r.class_param)
                for f, r in self._found_order]

    def _take_raisers(self, table: Sequence[KeptRaiser]) -> bool:
        """Take the helpers and factories a scan of the same definitions, imports and calls found; return False
        (and take none) when the table names a function or class these files do not have."""
        functions = {(f.file.path, f.position): f for f in self.functions}
        classes = {(c.file.path, c.position): c for c in self.classes}
        found: list[tuple[Function, Raiser]] = []
        for kept in table:
            function = functions.get(kept.function)
            cls = classes.get(kept.cls) if kept.cls is not None else None
            if function is None or (kept.cls is not None and cls is None):
                return False
            found.append((function, Raiser(kept.exception, kept.wrap, kept.param, kept.returns, cls, kept.documented,
                                           kept.closure, kept.class_param)))
        for function, raiser in found:
            self._add_raiser(function, raiser)
        return True

    def _still_holds(self, changed: frozenset[str]) -> bool:
        """Return whether the helpers taken are those `find_raisers` finds, when only the calls of the files `changed`
        differ from those of the scan that found them: no function of those files was a helper, none calls a function
        by a helper's name, and none is one judged with no helper known.

        `find_raisers` judges each function again as helpers are found, and what a function is judged depends on what
        is known then (a call of a helper not yet known is judged as a call of none, and a method name resolves to the
        one raising method known). A function that calls no helper's name is judged at every step as with none known;
        when none of these is a helper, every other function, whose calls and definitions are the same, is judged at
        every step as before, and the same helpers are found in the same order."""
        if not changed:
            return True
        functions = [f for f in self.functions if f.file.path in changed]
        if any(id(f) in self.raisers for f in functions):
            return False
        for function in functions:
            calls = self.calls_of(function)
            if any(call.callee.last in self.raiser_names and not self._never_a_helper(call, function)
                   for call in (*calls.raised, *calls.calls, *calls.returned)):
                return False
        within: dict[int, list[Function]] = defaultdict(list)
        for function in functions:
            outer = function.parent
            while outer is not None:
                within[id(outer)].append(function)
                outer = outer.parent
        with self._none_known():
            return not any(self._raiser_of(f, self.calls_of(f)) is not None
                           or self._closure_of(f, within.get(id(f), ())) is not None for f in functions if f.holes)

    def _never_a_helper(self, call: CallFacts, function: Function) -> bool:
        """Return whether a call of `function` by a helper's name calls no helper whatever is known of them: its callee
        is found by the names and classes the code tells (never by the raising methods known so far,
        `_by_method_name`), and is no helper."""
        self._asked_by_name = set()
        with self._none_known():
            target = self.callee_of(call.callee, function, function.file)
        return not any(self._raising_methods.get(name) for name in self._asked_by_name) \
            and (target is None or id(target) not in self.raisers)

    @contextmanager
    def _none_known(self) -> Iterator[None]:
        """Judge, in the block, as if no helper were known yet; what is known comes back after it."""
        known = (self.raisers, self.raiser_names, self._raising_methods)
        self.raisers, self.raiser_names, self._raising_methods = {}, set(), defaultdict(list)
        try:
            yield
        finally:
            self.raisers, self.raiser_names, self._raising_methods = known

    def _forget_raisers(self) -> None:
        """Forget the helpers taken, to find them all."""
        self.raisers, self.raiser_names, self._raising_methods, self._found_order = {}, set(), defaultdict(list), []

    def _add_raiser(self, function: Function, raiser: Raiser) -> None:
        self.raisers[id(function)] = raiser
        self._found_order.append((function, raiser))
        self.raiser_names.add(function.name)
        if function.owner is not None:
            self._raising_methods[function.name].append(function)

    def forget(self, file: ParsedFile) -> None:
        """Let a file's syntax go, with the shapes and calls of its functions (see `ParsedFile.forget`); the calls are
        read again from what gives them, when asked."""
        for function in self._in_file.get(file.path, ()):
            self._shapes.pop(id(function), None)
            self._calls.pop(id(function), None)
        file.forget()

    def shape(self, function: Function) -> Shape:
        """Return the shape of a function's body (a read of its file's syntax, see `reading`)."""
        note_read(function.file)
        return self._shape(function)

    def _shape(self, function: Function) -> Shape:
        found = self._shapes.get(id(function))
        if found is None:
            node = function.syntax
            found = self._shapes[id(function)] = self._known[node] if node in self._known else Shape.of(function)
        return found

    def shapes(self) -> dict[ast.AST, Shape]:
        """Return the shapes found so far, by their function's node (what `scan.Memo` keeps)."""
        return {f.syntax: self._shapes[id(f)] for f in self.functions if id(f) in self._shapes}

    # -- collecting definitions

    def _collect(self, file: ParsedFile) -> None:
        """Record the functions and classes of a file."""
        made: list[Function | ClassInfo] = []
        for position, defined in enumerate(file.defined):
            owner = made[defined.owner] if defined.owner >= 0 else None
            parent = made[defined.parent] if defined.parent >= 0 else None
            assert not isinstance(owner, Function) and not isinstance(parent, ClassInfo)
            if defined.is_class:
                info = ClassInfo(file, defined.qualname, position, defined.name, defined.base_names, defined.base_refs)
                self.classes.append(info)
                self.classes_by_name[defined.name].append(info)
                if defined.top:
                    self.top[(file.module, defined.name)] = info
                made.append(info)
                continue
            function = Function(file, defined.qualname, position, owner, parent, defined.name, defined.params,
                                defined.keyword_only, defined.bound, defined.vararg, dict(defined.defaults),
                                dict(defined.annotations))
            self.functions.append(function)
            if owner is not None:
                owner.methods.setdefault(defined.name, function)
            elif parent is not None:
                parent.nested.setdefault(defined.name, function)
            elif defined.top:
                self.top[(file.module, defined.name)] = function
            made.append(function)

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
        return self.resolve_ref(class_ref(node), file)

    def resolve_ref(self, ref: str | None, file: ParsedFile) -> ClassInfo | None:
        """Return the repository class a reference of `file` names (`class_ref`), if any."""
        if ref is None:
            return None
        base, dot, attribute = ref.partition(".")
        if not dot:
            found = self._global(file, ref)
        else:
            module = self._global(file, base)
            found = self.top.get((module.module, attribute)) if isinstance(module, ParsedFile) else None
        return found if isinstance(found, ClassInfo) else None

    def bases(self, info: ClassInfo) -> list[ClassInfo]:
        """Return the repository classes among a class's bases, in order."""
        bases = self._bases.get(id(info))
        if bases is None:
            found = (self.resolve_ref(ref, info.file) for ref in info.base_refs)
            bases = self._bases[id(info)] = [b for b in found if b is not None]
        return bases

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
        found = self._exceptions.get(id(info))
        if found is None:
            found = self._exceptions[id(info)] = any(
                EXCEPTION_NAME.search(n) or n == "BaseException"
                for current in self.lineage(info) for n in (current.name, *current.base_names))
        return found

    def callee(self, call: ast.Call, where: Function | None, file: ParsedFile) -> Function | None:
        """Return the repository function a call calls, when the rules can tell."""
        return self.callee_of(Callee.of(call), where, file)

    def callee_of(self, call: Callee, where: Function | None, file: ParsedFile) -> Function | None:
        """Return the repository function a call (as `Callee` tells it) calls, when the rules can tell."""
        if call.name is not None:
            scope = where
            while scope is not None:
                if call.name in scope.nested:
                    return scope.nested[call.name]
                scope = scope.parent
            found = self._global(file, call.name)
            return found if isinstance(found, Function) else None
        attribute = call.attribute
        if attribute is None:
            return None
        for info in self._receiver_classes(call, where, file):
            method = self.method(info, attribute)
            if method is not None:
                return method
        receiver = call.receiver
        if receiver is not None and not (where is not None and receiver in where.params):
            target = self._global(file, receiver)
            if isinstance(target, ParsedFile):
                found = self.top.get((target.module, attribute))
                return found if isinstance(found, Function) else None
            if isinstance(target, ClassInfo):
                return self.method(target, attribute)
            if receiver in self.imports[file.module]:
                return None  # a module or object from outside the repository
        if call.on_super or (attribute.startswith("__") and attribute.endswith("__")):
            # A base outside the repository, or a special method: the name alone says nothing.
            return None
        return self._by_method_name(attribute, call.receiver_word)

    def _receiver_classes(self, call: Callee, where: Function | None, file: ParsedFile) -> list[ClassInfo]:
        """Return the repository classes a method's receiver is known to be: `self`, `super()`, an annotation."""
        if where is None:
            return []
        if call.on_super:
            owner = _method_owner(where)
            return [b for b in self.bases(owner)] if owner is not None else []
        receiver = call.receiver
        if receiver is None:
            return []
        owner = _method_owner(where)
        method = where if where.owner is not None else None
        if owner is not None and method is not None and method.bound and method.params[:1] == (receiver,):
            return [owner]
        annotation = where.annotations.get(receiver)
        return self._annotated(annotation, file) if annotation is not None else []

    def _annotated(self, names: Iterable[tuple[str | None, str | None]], file: ParsedFile) -> list[ClassInfo]:
        """Return the repository classes an annotation's names (`annotation_names`) name."""
        found = []
        for ref, plain in names:
            info = self.resolve_ref(ref, file)
            if info is None and plain is not None and len(self.classes_by_name[plain]) == 1:
                info = self.classes_by_name[plain][0]
            if info is not None:
                found.append(info)
        return found

    def _by_method_name(self, name: str, called: str | None) -> Function | None:
        """Return the one raising method of that name (or the first, when all raise alike).

        Where classes raise differently, a receiver named for one of them (`called`) picks it: untyped code
        calls `ctx.fail(...)` on a `Context` while a `ParamType` has its own `fail`.
        """
        self._asked_by_name.add(name)
        raising = list(self._raising_methods.get(name, ()))
        if len({self.raisers[id(f)] for f in raising}) > 1:
            raising = [f for f in raising if called and f.owner is not None and names_class(called, f.owner.name)]
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

    def find_raisers(self) -> None:
        """Find every helper and factory, repeating until no new one is found.

        After the first round only functions that call a name a new helper or
        factory has (themselves, or a function they define) are looked at again:
        nothing else can have changed.
        """
        called = {id(f): self.calls_of(f).names() for f in self.functions}
        within: dict[int, list[Function]] = defaultdict(list)
        for function in self.functions:
            outer = function.parent
            while outer is not None:
                within[id(outer)].append(function)
                called[id(outer)] |= called[id(function)]
                outer = outer.parent
        candidates = [f for f in self.functions if f.holes]
        while candidates:
            new_names: set[str] = set()
            for function in candidates:
                found = self._raiser_of(function, self.calls_of(function))
                if found is None:
                    found = self._closure_of(function, within.get(id(function), ()))
                if found is not None:
                    self._add_raiser(function, found)
                    new_names.add(function.name)
            candidates = [f for f in candidates if id(f) not in self.raisers and called[id(f)] & new_names]

    def _closure_of(self, function: Function, inner: Sequence[Function]) -> Raiser | None:
        """Return how a function raises from a parameter through a function it defines (at any depth) that raises
        from it: `message(default, cls)` whose decorator's wrapper raises `(cls or Invalid)(default)`."""
        for nested in inner:
            calls = self.calls_of(nested)
            params = tuple(p for p in calls.closed if p in function.holes and self._maker(nested, p) is function)
            if params:
                found = self._raiser_of(nested, calls, _Closure(function, params))
                if found is not None:
                    return found
        return None

    @staticmethod
    def _maker(nested: Function, param: str) -> Function | None:
        """Return the nearest function `nested` is defined in that has `param` among its parameters."""
        outer = nested.parent
        while outer is not None and param not in outer.holes:
            outer = outer.parent
        return outer

    def _raiser_of(self, function: Function, calls: Calls, closure: _Closure | None = None) -> Raiser | None:
        """Return how a function raises from a parameter (with `closure`, from a parameter of the function that
        defines it), judged by what is known so far."""
        for call in calls.raised:
            found = self._built(call, function, False, closure)
            if found is not None:
                return found
        for call in calls.calls:
            if call.callee.last not in self.raiser_names:
                continue
            inner = self.raiser(self.callee_of(call.callee, function, function.file))
            if inner is not None and not inner.returns:
                found = self._passed_on(call, inner, function, False, closure)
                if found is not None:
                    return found
        for call in calls.returned:
            found = self._built(call, function, True, closure)
            # What a closure returns is raised, if at all, by whoever calls the closure: no call of its maker's.
            if found is not None and not (closure is not None and found.returns):
                return found
        return None

    def _built(self, call: CallFacts, function: Function, returns: bool, closure: _Closure | None = None) -> Raiser | None:
        """Return the Raiser of an exception built (raised or returned) from one of `function`'s parameters (or,
        with `closure`, of the parameters of the function that defines it)."""
        callee = call.callee
        inner = self.raiser(self.callee_of(callee, function, function.file)) if callee.last in self.raiser_names else None
        if inner is not None:
            return self._passed_on(call, inner, function, returns and inner.returns, closure)
        maker, params = (function, function.holes) if closure is None else closure
        # `raise exc(msg)` where `exc=TemplateSyntaxError` is a parameter: the class is its default.
        exception = call.exception
        if callee.name is not None and (closure is None or callee.name in params):
            exception = maker.defaults.get(callee.name, call.exception)
        if exception is None or exception.rpartition(".")[2] in KEY_EXCEPTIONS:
            return None
        info = self.resolve_ref(exception if exception.count(".") <= 1 else None, function.file)
        if returns and not (self.is_exception(info) if info is not None else EXCEPTION_NAME.search(exception)):
            return None
        argument = call.at(self._message_slot(call.keywords(), call.starred(), info))
        hole = None if argument is None else _hole(argument, closure)
        if argument is None or hole is None:
            return None
        return Raiser(exception, hole[0], hole[1], returns, info, not returns and argument.spelled, closure is not None,
                      next((name for name in call.class_names if name in params), None))

    def _passed_on(self, call: CallFacts, inner: Raiser, function: Function, returns: bool,
                   closure: _Closure | None = None) -> Raiser | None:
        """Return the Raiser of `function` when it passes one of its parameters (or, with `closure`, one of the
        parameters of the function that defines it) on as `inner`'s message, with the class it names, if any."""
        target = self.callee_of(call.callee, function, function.file)
        attribute = call.callee.attribute is not None
        argument = call.at(_argument_slot(call.keywords(), call.starred(), attribute, target, inner.param))
        found = None if argument is None else _hole(argument, closure)
        if found is None:
            return None
        wrap = inner.wrap.replace(HOLE, found[0]).replace(FORMATTED, found[0].replace(HOLE, FORMATTED))
        exception, info, class_param = inner.exception, inner.cls, None
        named = call.at(_argument_slot(call.keywords(), call.starred(), attribute, target, inner.class_param)) \
            if inner.class_param is not None else None
        if named is not None and named.name is not None:
            maker, params = (function, function.holes) if closure is None else closure
            if named.name in params:
                # Passed on as a parameter of its own: what it defaults to is the class a call that names none raises.
                class_param = named.name
                if named.name in maker.defaults:
                    exception = maker.defaults[named.name]
                    info = self.resolve_ref(exception if exception.count(".") <= 1 else None, maker.file)
            elif self.names_exception(named.name, function.file):
                exception, info = named.name, self.resolve_ref(named.name, function.file)
        return Raiser(exception, wrap, found[1], returns, info, inner.documented, inner.closure or closure is not None,
                      class_param)

    def class_at(self, call: ast.Call, target: Function | None, raiser: Raiser, file: ParsedFile
                 ) -> tuple[str, ClassInfo | None] | None:
        """Return the exception a call of a helper raises, as written, and its class when it is the repository's: the
        class the call names by the helper's class parameter, else the helper's own; None when the call computes it."""
        if raiser.class_param is None:
            return raiser.exception, raiser.cls
        node = _at(call, _argument_slot([k.arg for k in call.keywords], [isinstance(a, ast.Starred) for a in call.args],
                                        isinstance(call.func, ast.Attribute), target, raiser.class_param))
        if node is None or isinstance(node, ast.Constant) and node.value is None:
            return raiser.exception, raiser.cls
        name = dotted(node)
        if name is None or not self.names_exception(name, file):
            return None
        return name, self.resolve_class(node, file)

    def names_exception(self, name: str, file: ParsedFile) -> bool:
        """Return whether a name (`Invalid`, `er.Invalid`) of a file is an exception class: the repository's, or one
        named like one."""
        info = self.resolve_ref(name if name.count(".") <= 1 else None, file)
        last = name.rpartition(".")[2]
        return self.is_exception(info) if info is not None else bool(EXCEPTION_NAME.search(last)) or last in BUILTIN_EXCEPTIONS

    def argument(self, call: ast.Call, target: Function | None, raiser: Raiser) -> ast.expr | None:
        """Return the argument of a call that the callee's message parameter receives."""
        return _at(call, _argument_slot([k.arg for k in call.keywords], [isinstance(a, ast.Starred) for a in call.args],
                                        isinstance(call.func, ast.Attribute), target, raiser.param))

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
        if node is None and param in target.defaults:
            node, file = ast.parse(target.defaults[param], mode="eval").body, target.file
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
        vararg = function.vararg
        if vararg is None or depth > 3:
            return None
        note_read(function.file)  # what it returns is a fact of its body
        for call in self.calls_of(function).returned:
            args = call.arguments
            if not args or not (args[-1].starred and args[-1].name == vararg):
                continue
            if call.callee.name is not None and call.callee.name in function.holes:
                return call.callee.name, len(args) - 1
            if len(args) == 2 and not args[0].starred and args[0].name is not None and args[0].name in function.holes:
                inner = self.callee_of(call.callee, function, function.file) or self._one_named(call.callee, function)
                made = self._class_parameter(inner, depth + 1) if inner is not None else None
                if made is not None and inner is not None and made[0] == inner.holes[0]:
                    return args[0].name, made[1]
        return None

    def _one_named(self, call: Callee, caller: Function) -> Function | None:
        """Return the one function of the repository, the caller aside, that a call's name names, if exactly one has it."""
        found = [f for f in self.functions if f.name == call.last and f is not caller]
        return found[0] if len(found) == 1 else None

    def message_argument(self, call: ast.Call, info: ClassInfo | None) -> ast.expr | None:
        """Return the argument that carries an exception's message (`_message_slot`)."""
        return _at(call, self._message_slot([k.arg for k in call.keywords], [isinstance(a, ast.Starred) for a in call.args], info))

    def _message_slot(self, keywords: Sequence[str | None], starred: Sequence[bool], info: ClassInfo | None) -> Slot:
        """Return where a call of an exception class passes its message: a message keyword, else the positional
        argument of the constructor's first parameter named for a message (the first, for a class outside)."""
        for position, keyword in enumerate(keywords):
            if keyword in ("msg", "message", "detail"):
                return "keyword", position
        init = self.method(info, "__init__") if info is not None else None
        index = 0
        if init is not None:
            # `InvalidMetadata(field, message)`: the message is the argument its own parameter takes.
            params = init.params[1:] if init.bound else init.params
            index = next((i for i, p in enumerate(params) if MESSAGE_PARAMETER.search(p)), -1)
        if not 0 <= index < len(starred) or any(starred[:index + 1]):
            return None
        return "positional", index


class _Closure(NamedTuple):
    """A function that defines the one a raise is in, and its parameters that raise sees (`Calls.closed`)."""

    maker: Function
    params: tuple[str, ...]


def _hole(argument: Argument, closure: _Closure | None) -> tuple[str, str] | None:
    """Return what `with_hole` makes of an argument for the function the call is in, or for a closure's maker."""
    if closure is None:
        return argument.hole
    return next((found for found in argument.closed if found[1] in closure.params), None)


Slot = tuple[str, int] | None
"""Where a call passes something: ("positional", index) or ("keyword", position among its keywords), or nowhere."""


def _argument_slot(keywords: Sequence[str | None], starred: Sequence[bool], attribute: bool, target: Function | None,
                   param: str) -> Slot:
    """Return where a call passes the argument a parameter of the callee receives (`attribute`: `x.f(...)`)."""
    for position, keyword in enumerate(keywords):
        if keyword == param:
            return "keyword", position
    if target is None or param not in target.params:
        return None
    index = target.params.index(param)
    if target.bound and attribute:
        index -= 1
    if index < 0 or index >= len(starred) or any(starred[:index + 1]):
        return None
    return "positional", index


def _at(call: ast.Call, slot: Slot) -> ast.expr | None:
    """Return the argument at a slot of a call."""
    if slot is None:
        return None
    kind, index = slot
    return call.args[index] if kind == "positional" else call.keywords[index].value


class Callee(NamedTuple):
    """What a call says of what it calls: `f(...)` or `x.f(...)`, and what `x` is."""

    name: str | None = None
    """The name called, for `f(...)`."""
    attribute: str | None = None
    """The attribute called, for `x.f(...)`."""
    receiver: str | None = None
    """For `x.f(...)`: `x` when it is a plain name."""
    receiver_word: str | None = None
    """For `x.f(...)`: the name `x` is known by, its last attribute for `a.x.f(...)`."""
    on_super: bool = False
    """The call is `super().f(...)`."""

    @property
    def last(self) -> str | None:
        """Return the name the call calls by (`fail` of `self.ctx.fail(...)`)."""
        return self.name if self.name is not None else self.attribute

    @classmethod
    def of(cls, call: ast.Call) -> Callee:
        """Return what a call says of what it calls."""
        func = call.func
        if isinstance(func, ast.Name):
            return cls(name=func.id)
        if not isinstance(func, ast.Attribute):
            return cls()
        receiver = func.value
        plain = receiver.id if isinstance(receiver, ast.Name) else None
        word = receiver.attr if isinstance(receiver, ast.Attribute) else plain
        return cls(attribute=func.attr, receiver=plain, receiver_word=word, on_super=_is_super(receiver))


class Argument(NamedTuple):
    """One argument of a call, as finding helpers reads it."""

    starred: bool
    """Written `*args`."""
    name: str | None
    """The name the argument is (`msg`, or `args` of `*args`), if it is a plain name."""
    hole: tuple[str, str] | None
    """What `with_hole` makes of it in the function the call is in."""
    spelled: bool
    """It spells a message out itself (`template` gives a text); told for raised calls only."""
    closed: tuple[tuple[str, str], ...] = ()
    """What `with_hole` makes of it for each parameter of an enclosing function that the body sees (`Calls.closed`),
    taken one at a time: how a closure raises from its maker's parameter."""


class CallFacts(NamedTuple):
    """A call of a function body, as finding helpers and factories reads it."""

    callee: Callee
    exception: str | None
    """What the call calls, as written (`errors.ParseError`), when it is a name or an attribute chain."""
    arguments: tuple[Argument, ...]
    """Its positional arguments."""
    named: tuple[tuple[str | None, Argument], ...]
    """Its keyword arguments (None for `**kwargs`), with their names."""
    class_names: tuple[str, ...] = ()
    """The parameters (the function's own or `Calls.closed`) the called class may be: `exc` of `exc(msg)`, `override`
    and `cls` of `(override or cls or Invalid)(msg)`, whose `exception` is the class it falls back to."""

    def keywords(self) -> list[str | None]:
        """Return the names of its keyword arguments, in order."""
        return [name for name, _ in self.named]

    def starred(self) -> list[bool]:
        """Return, for each positional argument, whether it is written `*args`."""
        return [a.starred for a in self.arguments]

    def at(self, slot: Slot) -> Argument | None:
        """Return the argument at a slot."""
        if slot is None:
            return None
        kind, index = slot
        return self.arguments[index] if kind == "positional" else self.named[index][1]

    @classmethod
    def of(cls, call: ast.Call, function: Function, raised: bool, closed: tuple[str, ...] = ()) -> CallFacts:
        """Return the facts of a call in `function` (`raised`: the exception of a raise; `closed`: `Calls.closed`)."""
        source = function.file.source
        holes = function.holes

        def argument(node: ast.expr) -> Argument:
            value = node.value if isinstance(node, ast.Starred) else node
            mentions = _reads_any(value, holes)
            spelled = False
            if raised and not isinstance(node, ast.Starred):
                try:
                    spelled = bool(template(node, source))
                except RecursionError:
                    spelled = False
            outer: tuple[tuple[str, str], ...] = ()
            if closed and not isinstance(node, ast.Starred) and _reads_any(value, closed):
                outer = tuple(found for param in closed if (found := with_hole(node, function, (param,))) is not None)
            return Argument(isinstance(node, ast.Starred), value.id if isinstance(value, ast.Name) else None,
                            with_hole(node, function) if mentions else None, spelled, outer)

        exception: str | None = dotted(call.func)
        named_by: tuple[str, ...] = ()
        if raised:
            exception, named_by = _class_choice(call.func, holes + closed)
        return cls(Callee.of(call), exception, tuple(argument(a) for a in call.args),
                   tuple((k.arg, argument(k.value)) for k in call.keywords), named_by)


class Calls(NamedTuple):
    """The calls of a function body, as finding helpers and factories reads them (`Shape`'s, as facts)."""

    raised: tuple[CallFacts, ...]
    returned: tuple[CallFacts, ...]
    calls: tuple[CallFacts, ...]
    """The other calls that pass one of the function's parameters on (in an argument): only such a call can make
    it a helper (`Repository._passed_on`)."""
    called: tuple[str, ...]
    """The names the body calls by, every call's, sorted."""
    closed: tuple[str, ...] = ()
    """The parameters of the functions it is nested in that its body sees (no parameter of its own, no name it or a
    function between assigns, hides them), nearest function first."""

    @classmethod
    def of(cls, shape: Shape, function: Function) -> Calls:
        """Return the calls of a function's shape as facts."""
        closed = closed_parameters(function)
        holes = function.holes + closed
        passing = [c for c in shape.calls if holes and any(
            _reads_any(a.value if isinstance(a, ast.Starred) else a, holes) for a in (*c.args, *(k.value for k in c.keywords)))]
        called = {name for c in (*shape.raised, *shape.returned, *shape.calls)
                  if (name := c.func.id if isinstance(c.func, ast.Name) else getattr(c.func, "attr", None)) is not None}
        return cls(tuple(CallFacts.of(c, function, True, closed) for c in shape.raised),
                   tuple(CallFacts.of(c, function, False, closed) for c in shape.returned),
                   tuple(CallFacts.of(c, function, False, closed) for c in passing), tuple(sorted(called)), closed)

    def names(self) -> set[str]:
        """Return the names the body calls by."""
        return set(self.called)


def _reads_any(node: ast.expr, names: Sequence[str]) -> bool:
    """Return whether an expression reads one of `names` (most arguments are a name or a literal: told at once)."""
    if isinstance(node, ast.Name):
        return node.id in names
    return bool(names) and not isinstance(node, ast.Constant) and any(
        isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


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
        for node in body_nodes(function.syntax.body):
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


def with_hole(argument: ast.expr, function: Function, params: Sequence[str] | None = None) -> tuple[str, str] | None:
    """Return (template with HOLE, parameter) when an argument carries one of the function's parameters (or of
    `params`) as its message.

    The parameter is the message when it is the whole argument, starts it
    (`f"{msg} (at {where})"`, `msg or "invalid value"`), or has a message's name (`"failed: " + text`);
    `f"cannot read {path}"` only mentions a value.
    """
    for param in function.holes if params is None else params:
        try:
            text = template(argument, function.file.source, frozenset({param}))
        except RecursionError:
            return None
        if text is None or text.count(HOLE) + text.count(FORMATTED) != 1:
            continue
        if text.startswith((HOLE, FORMATTED)) or MESSAGE_PARAMETER.search(param):
            return text, param
    return None


def _class_choice(func: ast.expr, params: Sequence[str]) -> tuple[str | None, tuple[str, ...]]:
    """Return the class a raise's callee falls back to, as written, and the parameters among what it calls: `exc`
    gives ("exc", ("exc",)), `(override or cls or er.Invalid)` ("er.Invalid", ("override", "cls"))."""
    if isinstance(func, ast.BoolOp) and isinstance(func.op, ast.Or):
        names = tuple(v.id for v in func.values[:-1] if isinstance(v, ast.Name) and v.id in params)
        return dotted(func.values[-1]), names
    name = dotted(func)
    return name, (name,) if name is not None and name in params else ()


def closed_parameters(function: Function) -> tuple[str, ...]:
    """Return the parameters of the functions `function` is nested in that its body sees, nearest function first:
    neither a parameter nor a name assigned by it, or by a function between, hides them."""
    if function.parent is None:
        return ()
    hidden = _bound(function.syntax)
    found: list[str] = []
    outer: Function | None = function.parent
    while outer is not None:
        found += [p for p in outer.holes if p not in hidden and p not in found]
        hidden |= _bound(outer.syntax)
        outer = outer.parent
    return tuple(found)


def _bound(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Return the names a function binds in its own scope: its parameters, and what its body assigns, defines or
    imports (less what it declares `nonlocal`)."""
    args = node.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a is not None}
    free: set[str] = set()
    for child in body_nodes(node.body):
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            names.add(child.id)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(child.name)
        elif isinstance(child, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in child.names)
        elif isinstance(child, ast.ExceptHandler) and child.name:
            names.add(child.name)
        elif isinstance(child, ast.Nonlocal):
            free.update(child.names)
    return names - free


def class_ref(node: ast.expr) -> str | None:
    """Return how an expression names a class, for `Repository.resolve_ref`: `Error` or `errors.Error`; None for
    anything else (`a.b.Error`, `make()`)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def annotation_names(annotation: ast.expr) -> tuple[tuple[str | None, str | None], ...]:
    """Return the names an annotation holds, in the order `ast.walk` meets them (a string's, parsed, where it
    is): each as a class reference (`class_ref`) and, for a plain name, that name."""
    found: list[tuple[str | None, str | None]] = []
    for node in ast.walk(annotation):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value, mode="eval").body
            except (SyntaxError, ValueError, RecursionError):
                continue  # not Python (a null byte, nesting Python cannot parse): names nothing
            found += annotation_names(parsed)
        elif isinstance(node, ast.Name):
            found.append((node.id, node.id))
        elif isinstance(node, ast.Attribute):
            found.append((class_ref(node), None))
    return tuple(found)


def _defaults(args: ast.arguments) -> dict[str, str]:
    """Return each parameter whose default is a name or an attribute chain, with that name."""
    positional = args.posonlyargs + args.args
    pairs: list[tuple[ast.arg, ast.expr | None]] = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += list(zip(args.kwonlyargs, args.kw_defaults))
    found: dict[str, str] = {}
    for arg, default in pairs:
        name = dotted(default) if default is not None else None
        if name is not None:
            found.setdefault(arg.arg, name)
    return found


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


def definitions(tree: ast.Module) -> list[tuple[Defined, Node]]:
    """Return the classes and functions a module defines, each with its node, in the order the repository collects
    them: depth first, a class or function before what it defines."""
    found: list[tuple[Defined, Node]] = []
    _collect_definitions(found, tree.body, (), -1, -1, True)
    return found


def _collect_definitions(found: list[tuple[Defined, Node]], body: Iterable[ast.stmt], names: tuple[str, ...],
                         owner: int, parent: int, top: bool) -> None:
    """Add the definitions of a statement list to `found`, recursively.

    A module-level function, not a closure: a closure that calls itself is a reference cycle, and the collector is
    off during a scan, so it would keep every tree it saw.
    """
    for stmt in _definitions(body):
        qualname = ".".join(names + (stmt.name,))
        here = len(found)
        if isinstance(stmt, ast.ClassDef):
            found.append((Defined(qualname, stmt.name, owner, parent, top, True,
                                  tuple((dotted(b) or "").rpartition(".")[2] for b in stmt.bases),
                                  tuple(class_ref(b.value if isinstance(b, ast.Subscript) else b) for b in stmt.bases)),
                          stmt))
            _collect_definitions(found, stmt.body, names + (stmt.name,), here, parent, False)
            continue
        args = stmt.args
        decorators = {dotted(d) for d in stmt.decorator_list}
        found.append((Defined(
            qualname, stmt.name, owner, parent, top, False, (), (),
            tuple(a.arg for a in args.posonlyargs + args.args), tuple(a.arg for a in args.kwonlyargs),
            owner >= 0 and "staticmethod" not in decorators, args.vararg.arg if args.vararg is not None else None,
            tuple(_defaults(args).items()),
            tuple((a.arg, annotation_names(a.annotation)) for a in args.posonlyargs + args.args + args.kwonlyargs
                  if a.annotation is not None)), stmt))
        _collect_definitions(found, stmt.body, names + (stmt.name,), -1, here, False)


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


def _imports(tree: ast.Module, path: str, module: str) -> dict[str, str]:
    """Return each name a module imports (in any block or function) and the dotted name it stands for."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    names: dict[str, str] = {}
    for node in _simple_statements(tree.body):
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
