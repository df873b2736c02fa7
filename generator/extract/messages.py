"""Message templates from Python expressions: what a raise, a helper call or a warning says.

A template is the message with each interpolated value as a placeholder in
the record format's syntax (`{expr}`, `%s`, literal braces doubled).
docs/extract.md gives the rules. `template` is the rule a plain
`raise X("...")` has always used; `message` adds what may only find a
message where `template` finds none (a conditional between two messages,
a variable or module constant holding one) and the plural of `ngettext`.
"""

from __future__ import annotations

import ast
import copy
import io
import itertools
import re
import tokenize
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..model import Variant

GETTEXT = frozenset({
    "_", "gettext", "ngettext", "gettext_lazy", "ngettext_lazy",
    "ugettext", "ugettext_lazy", "lazy_gettext",
})
"""Names of translation calls whose first string argument is the message."""

PLURAL_GETTEXT = frozenset({"ngettext", "ngettext_lazy", "ungettext", "npgettext"})
"""Translation calls whose second string argument is the plural."""

MESSAGE_KEYWORDS = ("msg", "message", "detail")
"""Keyword arguments that carry the message, tried before any other keyword."""

HOLE = "\ue000"
"""Stands for a helper's message parameter inside the template the helper builds around it."""

FORMATTED = "\ue001"
"""Stands for a factory's message parameter that the factory formats (`msg.format_map({"field": ...})`):
the fields the caller's text spells with doubled braces are placeholders of the message."""

MAX_VARIANTS = 8
"""Most other wordings kept for one message (a variable assigned in many branches)."""

_BREAK_AFTER = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")

_NAME_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z_0-9]*)\}(?!\})")
"""A replacement field that is a bare name (`{missing}`), not part of a doubled brace."""

_WORDS = re.compile(r"[^\W\d_]")
"""A letter: a template without one outside its placeholders says nothing by itself."""


@dataclass(frozen=True, slots=True)
class Message:
    """A message template and the other wordings the same expression gives."""

    text: str
    """The template (`message` of the record)."""
    variants: tuple[Variant, ...] = ()
    """Plural (`ngettext`) and alternative (conditional, variable assigned in branches) wordings."""


@dataclass(frozen=True, slots=True)
class Assigned:
    """One plain assignment of a name."""

    value: ast.expr
    block: tuple[ast.stmt, ...]
    """The statement list the assignment is in: a later one in the same list replaces it."""


class Names:
    """Template assignments visible where a message is built, for following variables.

    A function's assignments are read only when a message first needs them:
    most raises spell their message out.
    """

    def __init__(self, body: Sequence[ast.stmt] = (), params: Iterable[str] = (), module: Names | None = None) -> None:
        self._body = body
        self._params = tuple(params)
        self.module = module
        """The names of the scope around: for a function's, the module's (its constants), or for a function defined
        in another, that function's. Read whole: a function runs after the scope around it bound them."""

    @cached_property
    def local(self) -> Mapping[str, tuple[Assigned, ...]]:
        """Return each name the body binds, with every value plain assignments give it; () for a name bound another way or a parameter."""
        return {**{param: () for param in self._params}, **assignments(self._body)}

    def values(self, name: str, line: int | None = None) -> tuple[ast.expr, ...]:
        """Return the values `name` may hold at `line` (local first), or () when it cannot be followed.

        Only local assignments before the line count; when one is in a
        statement list that holds the line, the last such one alone does
        (straight-line code replaces what came before), else all of them
        (branches that each assign it). A module's names are read whole: a
        function runs after the module has run.
        """
        if name not in self.local:
            return self.module.values(name) if self.module is not None else ()
        # A local name hides the module's, even when it cannot be followed itself.
        found = [a for a in self.local[name] if line is None or a.value.lineno < line]
        if line is not None:
            enclosing = [a for a in found if any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in a.block)]
            if enclosing:
                return (enclosing[-1].value,)
        return tuple(a.value for a in found)


NO_NAMES = Names()
"""Nothing to follow."""


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


def strip_break(line: str) -> str:
    """Return `line` without its line break."""
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith(("\n", "\r")) else line


class Source:
    """A file's text and lines, for cutting snippets and expression text."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def lines(self) -> list[str]:
        """Return the file's lines with their line breaks."""
        return file_lines(self.text)

    def snippet(self, first: int, last: int) -> str:
        """Return lines `first` to `last` (1-based, inclusive) without the last line break."""
        return strip_break("".join(self.lines[first - 1:last]))

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


def dotted(node: ast.expr) -> str | None:
    """Return a name or attribute chain as written (`errors.ConfigError`), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def callee_name(call: ast.Call) -> str | None:
    """Return the last name of what a call calls (`gettext` for `translation.gettext(...)`)."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def first_message(call: ast.Call, source: Source, names: Names, extended: bool) -> Message | None:
    """Return the message of the first string-ish argument of a call, else of a message keyword.

    Not `extended`, each argument is read by `template` alone, as a plain raise
    always was, so that a message found that way never changes; `extended`,
    variables and conditionals are followed too, in the first positional
    argument and the message keywords only (a constant in another argument
    is an error code or a name, not the message).
    """
    keywords = sorted((k for k in call.keywords if k.arg is not None), key=lambda k: k.arg not in MESSAGE_KEYWORDS)
    nodes = [a for a in call.args if not isinstance(a, ast.Starred)] + [k.value for k in keywords]
    if _named_first(nodes, source):
        nodes = [nodes[1], nodes[0], *nodes[2:]]
    if extended:
        first = call.args[:1] if call.args and not isinstance(call.args[0], ast.Starred) else []
        nodes = first + [k.value for k in keywords if k.arg in MESSAGE_KEYWORDS]
    for node in nodes:
        found = message(node, source, names) if extended else plain(node, source)
        if found is not None:
            return found
    return None


NAME_ARGUMENT = re.compile(r"[A-Za-z_][\w.-]*")
"""A first argument that is a name, a key or a code (`"target-version"`, `"E101"`), not a sentence."""


def _named_first(args: Sequence[ast.expr], source: Source) -> bool:
    """Return whether a call names something first and says the message second.

    `click.BadOptionUsage("exclude", "Config key exclude must be a string")` prints the second:
    an option's name, a key or an error code comes first, and the words come after it.
    """
    if len(args) < 2 or not (isinstance(args[0], ast.Constant) and isinstance(args[0].value, str)):
        return False
    if not NAME_ARGUMENT.fullmatch(args[0].value):
        return False
    second = template(args[1], source)
    return second is not None and any(c.isspace() for c in second)


def plain(node: ast.expr, source: Source) -> Message | None:
    """Return the `template` of an expression with its plural variants, else None."""
    text = template(node, source)
    return None if text is None else Message(text, _plurals(node, source, text))


def message(node: ast.expr, source: Source, names: Names = NO_NAMES, depth: int = 0) -> Message | None:
    """Return the message an expression gives, following variables and conditionals where `template` finds none."""
    found = plain(node, source)
    if found is not None or depth > 2:
        return found
    if isinstance(node, ast.IfExp):
        return _either(message(node.body, source, names, depth + 1), message(node.orelse, source, names, depth + 1))
    if isinstance(node, ast.Name):
        return _followed(names.values(node.id, node.lineno), lambda value: message(value, source, NO_NAMES, depth + 1))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Name):
        return _followed(names.values(node.left.id, node.lineno), lambda value: plain(value, source))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        if isinstance(node.func.value, ast.Name):
            return _followed(names.values(node.func.value.id, node.lineno), _format_message)
    if isinstance(node, ast.Call) and callee_name(node) in GETTEXT and node.args and isinstance(node.args[0], ast.Name):
        return _followed(names.values(node.args[0].id, node.lineno), lambda value: message(value, source, NO_NAMES, depth + 1))
    return None


def _either(first: Message | None, second: Message | None) -> Message | None:
    """Return the first message with the second as its alternative (either alone when the other is computed)."""
    if first is None or second is None:
        return first or second
    return _merge(first, [second], "alternative")


def _followed(values: Iterable[ast.expr], read: Callable[[ast.expr], Message | None]) -> Message | None:
    """Return the message of a variable: its first assigned value, the others as alternatives.

    A variable any of whose values is not a message is computed, and not followed.
    """
    found = [read(value) for value in values]
    if not found or any(m is None for m in found):
        return None
    # A wording with words comes first: `"%(message)s"` alone says nothing a reader could search for.
    first, *others = sorted((m for m in found if m is not None), key=lambda m: not says_something(m.text))
    return _merge(first, others, "alternative")


def _merge(first: Message, others: Iterable[Message], kind: str) -> Message:
    """Return `first` with the other messages (and their variants) as variants of `kind`."""
    variants = list(first.variants)
    for other in others:
        variants.append(Variant(other.text, kind))
        variants += other.variants
    return Message(first.text, unique_variants(first.text, variants))


def unique_variants(text: str, variants: Iterable[Variant]) -> tuple[Variant, ...]:
    """Return variants without empty ones, repeats or copies of the message, at most MAX_VARIANTS."""
    seen, kept = {text}, []
    for variant in variants:
        if variant.message and variant.message not in seen:
            seen.add(variant.message)
            kept.append(variant)
    return tuple(kept[:MAX_VARIANTS])


def _format_message(node: ast.expr) -> Message | None:
    """Return the message of a value `.format` is called on: its braces are placeholders already."""
    text = _format_string(node)
    if text is None:
        return None
    plural = None
    if isinstance(node, ast.Call) and callee_name(node) in PLURAL_GETTEXT and len(node.args) > 1:
        plural = _format_string(node.args[1])
    return Message(text, unique_variants(text, [Variant(plural, "plural")] if plural else []))


def _plurals(node: ast.expr, source: Source, text: str) -> tuple[Variant, ...]:
    """Return the plural wordings of each `ngettext(singular, plural, n)` a template reads its text from.

    The plural is the same expression with that call's plural argument put
    first, read by the same rule, so `.format`, `%` and concatenation apply.
    """
    calls = [c for c in _message_calls(node) if callee_name(c) in PLURAL_GETTEXT and len(c.args) > 1]
    variants = []
    for index in range(len(calls)):
        swapped = copy.deepcopy(node)
        call = [c for c in _message_calls(swapped) if callee_name(c) in PLURAL_GETTEXT and len(c.args) > 1][index]
        call.args = [call.args[1], call.args[0], *call.args[2:]]
        plural = template(swapped, source)
        if plural is not None:
            variants.append(Variant(plural, "plural"))
    return unique_variants(text, variants)


def _message_calls(node: ast.expr) -> Iterable[ast.Call]:
    """Yield the calls whose text a template uses: outside f-string fields, whose text is copied verbatim."""
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.FormattedValue):
            continue
        if isinstance(current, ast.Call):
            yield current
        stack.extend(reversed(list(ast.iter_child_nodes(current))))


def template(node: ast.expr, source: Source, holes: frozenset[str] = frozenset()) -> str | None:
    """Return the message template an expression builds, or None when it is not a string the source spells out.

    A name in `holes` (a helper's parameter) becomes HOLE, alone, as an
    f-string field without conversion or format spec, or as one side of an
    `or` (`msg or default or "invalid value"` falls back to `default`).
    """
    if isinstance(node, ast.Name) and node.id in holes:
        return HOLE
    if (holes and isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)
            and any(isinstance(v, ast.Name) and v.id in holes for v in node.values)):
        return HOLE
    if (holes and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("format", "format_map") and isinstance(node.func.value, ast.Name)
            and node.func.value.id in holes):
        return FORMATTED
    if isinstance(node, ast.Constant):
        return _escape(node.value) if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(_escape(str(v.value)) if isinstance(v, ast.Constant) else placeholder(v, source, holes)
                       for v in node.values if isinstance(v, (ast.Constant, ast.FormattedValue)))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return template(node.left, source, holes)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _concatenation(node, source, holes)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _format_string(node.func.value)
    if isinstance(node, ast.Call) and callee_name(node) in GETTEXT:
        return next((t for t in (template(a, source, holes) for a in node.args) if t is not None), None)
    return None


def _concatenation(node: ast.BinOp, source: Source, holes: frozenset[str]) -> str | None:
    """Return the template of `a + b` when either side is a string, other sides as `{expr}`."""
    left, right = template(node.left, source, holes), template(node.right, source, holes)
    if left is None and right is None:
        return None
    left = left if left is not None else "{" + source.segment(node.left) + "}"
    right = right if right is not None else "{" + source.segment(node.right) + "}"
    return left + right


def _format_string(node: ast.expr) -> str | None:
    """Return the literal a `.format` call is made on: its braces are placeholders already."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and callee_name(node) in GETTEXT:
        return next((t for t in (_format_string(a) for a in node.args) if t is not None), None)
    return None


def placeholder(value: ast.FormattedValue, source: Source, holes: frozenset[str] = frozenset()) -> str:
    """Return one f-string replacement field as written: `{expr!r:spec}`."""
    if isinstance(value.value, ast.Name) and value.value.id in holes and value.conversion == -1 and value.format_spec is None:
        return HOLE
    text = "{" + source.segment(value.value)
    if value.conversion != -1:
        text += "!" + chr(value.conversion)
    if isinstance(value.format_spec, ast.JoinedStr):
        text += ":" + "".join(
            str(v.value) if isinstance(v, ast.Constant) else placeholder(v, source)
            for v in value.format_spec.values if isinstance(v, (ast.Constant, ast.FormattedValue))
        )
    return text + "}"


def _escape(literal: str) -> str:
    """Return literal text with its braces doubled, as the record format writes them."""
    return literal.replace("{", "{{").replace("}", "}}")


def inline(found: Message, source: Source, names: Names) -> Message:
    """Return a message with each `{name}` field of a followable local variable replaced by its wording.

    Used where a class builds its own message from pieces (`missing =
    _("Missing option")` ... `f"{missing} {hint}."`): each other wording the
    variables are given together (see `_fillings`) is an alternative. A variable is read only where each
    of its values is a template by itself (not a conditional), as it always was: the message, and so a new
    record's id, stays what it was.
    """
    fillings = _fillings(found.text, source, names, None, conditional=False)
    if not fillings:
        return found
    text = _fill(found.text, fillings[0])
    variants = [Variant(_fill(v.message, fillings[0]), v.kind) for v in found.variants]
    variants += [Variant(_fill(found.text, filling), "alternative") for filling in fillings[1:]]
    return Message(text, unique_variants(text, variants))


def spelled(found: Message, source: Source, names: Names, line: int) -> Message:
    """Return a message with the wordings it prints as alternatives, where a `{name}` field is a local variable
    the function assigns only messages above `line` (`message = "should be non-empty" if n == 1 else "is too
    short"` ... `f"{instance!r} {message}"`): the message itself stays as the code writes it."""
    fillings = _fillings(found.text, source, names, line, conditional=True)
    wordings = [Variant(_fill(found.text, filling), "alternative") for filling in fillings]
    return Message(found.text, unique_variants(found.text, [*found.variants, *wordings]))


def _fillings(text: str, source: Source, names: Names, line: int | None, conditional: bool) -> list[dict[str, str]]:
    """Return the wordings the `{name}` fields of a template hold together, each as name -> template; [] when
    none of its fields is a local variable assigned only messages (or conditionals between them, when
    `conditional`).

    Variables assigned in the same statement lists are read branch by branch (`if dims: a = ...; b = ...
    else: a = ""; b = ""` gives two wordings, not four); others give every combination. Only assignments
    above `line` count, when it is given (see `_visible`).
    """
    found: dict[str, list[tuple[Assigned, list[str]]]] = {}
    for name in dict.fromkeys(_NAME_FIELD.findall(text)):
        assigned = _visible(names.local.get(name, ()), line)
        read = [(a, _wordings_of(a.value, source, conditional)) for a in assigned]
        if read and all(wordings for _, wordings in read):
            found[name] = read
    if not found:
        return []
    blocks = [[id(a.block[0]) for a, _ in read] for read in found.values()]
    if all(b == blocks[0] and len(set(b)) == len(b) for b in blocks):
        branches = [[read[k][1] for read in found.values()] for k in range(len(blocks[0]))]
    else:
        branches = [[[w for _, wordings in read for w in wordings] for read in found.values()]]
    fillings = [dict(zip(found, combination)) for branch in branches for combination in itertools.product(*branch)]
    return fillings[:MAX_VARIANTS + 1]


def _visible(assigned: tuple[Assigned, ...], line: int | None) -> list[Assigned]:
    """Return the assignments of a name that may give its value at `line` (all of them when None): those above it
    from the last one in a statement list that holds the line on (straight-line code replaces what came before;
    a branch after it may replace it in turn)."""
    if line is None:
        return list(assigned)
    above = [a for a in assigned if a.value.lineno < line]
    enclosing = [a for a in above if any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in a.block)]
    return [a for a in above if a.value.lineno >= enclosing[-1].value.lineno] if enclosing else above


def _wordings_of(value: ast.expr, source: Source, conditional: bool) -> list[str]:
    """Return every wording a variable's value gives (a conditional gives both, when `conditional`), or [] when it
    is computed."""
    found = (message(value, source) if conditional else plain(value, source)) or _format_message(value)
    return [] if found is None else [found.text, *(v.message for v in found.variants if v.kind == "alternative")]


def _fill(text: str, filling: Mapping[str, str]) -> str:
    """Return a template with each `{name}` field of `filling` replaced by its wording, taken literally."""
    for name, wording in filling.items():
        text = _put(re.compile(r"(?<!\{)\{" + name + r"\}(?!\})"), text, wording)
    return text


def _put(field_re: re.Pattern[str], text: str, value: str) -> str:
    """Return `text` with every match of `field_re` replaced by `value` taken literally."""
    return field_re.sub(lambda _match: value, text)


def says_something(text: str) -> bool:
    """Return whether a template has a letter outside its placeholders (`{...}` and `%...`)."""
    outside = re.sub(r"\{\{|\}\}", "", text)
    outside = re.sub(r"\{[^{}]*(\{[^{}]*\}[^{}]*)*\}", "", outside)
    outside = re.sub(r"%(\([^)]*\))?[-#0 +]*\d*(\.\d+)?[a-zA-Z%]", "", outside)
    return bool(_WORDS.search(outside.replace(HOLE, "").replace(FORMATTED, "")))


def assignments(body: Sequence[ast.stmt]) -> dict[str, tuple[Assigned, ...]]:
    """Return each name a statement list binds, with the values plain `name = value` statements give it, in order.

    Nested functions and classes are their own scopes and are not entered; a
    name also bound another way (augmented assignment, loop, `with`, unpacking,
    walrus, import, `global`) gets (): its value is computed.
    """
    values: dict[str, list[Assigned]] = {}
    other: set[str] = set()
    _bindings(body, values, other)
    return {name: () if name in other else tuple(values.get(name, ())) for name in values.keys() | other}


def _bindings(block: Sequence[ast.stmt], values: dict[str, list[Assigned]], other: set[str]) -> None:
    """Collect the plain assignments of a statement list and the names bound otherwise, recursively."""
    for stmt in block:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            other.add(stmt.name)
            continue
        target: ast.Name | None = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0]
            values.setdefault(target.id, []).append(Assigned(stmt.value, tuple(block)))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            target = stmt.target
            values.setdefault(target.id, []).append(Assigned(stmt.value, tuple(block)))
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            other.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        elif isinstance(stmt, (ast.Global, ast.Nonlocal)):
            other.update(stmt.names)
        children: list[Sequence[ast.stmt]] = []
        for name, child in ast.iter_fields(stmt):
            if name in ("body", "orelse", "finalbody") and isinstance(child, list):
                children.append(child)
            elif name in ("handlers", "cases"):
                children += [c.body for c in child]
            elif name != "targets" or target is None:
                for node in ast.walk(child) if isinstance(child, ast.AST) else _walk_all(child):
                    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and node is not target:
                        other.add(node.id)
                    elif isinstance(node, ast.ExceptHandler) and node.name:
                        other.add(node.name)
        for child_block in children:
            _bindings(child_block, values, other)


def _walk_all(items: object) -> Iterator[ast.AST]:
    """Yield every node under a list of fields (expressions, aliases, handlers)."""
    if isinstance(items, list):
        for item in items:
            if isinstance(item, ast.AST) and not isinstance(item, ast.stmt):
                yield from ast.walk(item)
