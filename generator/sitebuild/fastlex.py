"""Pygments' RegexLexer loop with each state's rules joined into one regular expression.

Pygments tries a state's rules one by one, so a token matched by the 30th rule costs 30
match attempts. An alternation of the same patterns, in the same order, matches the same
text at the same position (Python's `|` takes the first alternative that matches), so one
attempt per token gives the same tokens. States whose rules cannot be joined safely (named
groups, backreferences, differing flags) keep Pygments' own loop, and so does any lexer whose
rules are not where a plain RegexLexer keeps them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache, partial
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?P<")
LEADING_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))
SCOPED = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE

State = tuple[Any, dict[int, tuple[Any, Any, Any]]] | None
"""A state's joined `match` and, by the group of each alternative, (rule's own match, action, new state)."""


def accelerate(lexer: Lexer) -> Lexer:
    """Return `lexer`, tokenizing with joined rules when it is a plain RegexLexer; else as it is."""
    if not isinstance(lexer, RegexLexer) or type(lexer).get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed:
        return lexer
    # Most lexers compile their rules once per class; some (csharp, nemerle: one set per Unicode
    # level) per instance. Only rules compiled once per class are joined, and cached with it.
    if "_tokens" in vars(lexer) or not isinstance(vars(type(lexer)).get("_tokens"), dict):
        return lexer
    lexer.get_tokens_unprocessed = partial(_tokens, lexer, _states(type(lexer)))  # type: ignore[method-assign]
    return lexer


@lru_cache(maxsize=None)
def _states(cls: type) -> dict[str, State]:
    return {name: _join(rules) for name, rules in vars(cls)["_tokens"].items()}


def _join(rules: list[tuple[Any, Any, Any]]) -> State:
    patterns = []
    groups: dict[int, tuple[Any, Any, Any]] = {}
    base = None
    number = 1
    for rule in rules:
        compiled = getattr(rule[0], "__self__", None)
        if not isinstance(compiled, re.Pattern) or BACKREFERENCE.search(compiled.pattern):
            return None
        base = compiled.flags if base is None else base
        scoped = _scoped(compiled, base)
        if scoped is None:
            return None
        patterns.append(scoped)
        groups[number] = rule
        number += compiled.groups + 1
    try:
        joined = re.compile("|".join(patterns), base or 0)
    except re.error:
        return None
    return joined.match, groups


def _scoped(compiled: re.Pattern[str], base: int) -> str | None:
    """Return the pattern as one group that keeps its own flags inside a regex compiled with `base`."""
    pattern = compiled.pattern
    leading = LEADING_FLAGS.match(pattern)
    if leading:
        pattern = pattern[leading.end():]
    if (compiled.flags ^ base) & ~SCOPED:
        return None
    if compiled.flags & re.VERBOSE:
        pattern += "\n"  # a trailing comment must not swallow the closing parenthesis
    on = "".join(letter for flag, letter in FLAG_LETTERS if compiled.flags & flag and not base & flag)
    off = "".join(letter for flag, letter in FLAG_LETTERS if base & flag and not compiled.flags & flag)
    if on or off:
        return f"((?{on}{'-' + off if off else ''}:{pattern}))"
    return f"({pattern})"


def _tokens(lexer: RegexLexer, states: dict[str, State], text: str,
            stack: tuple[str, ...] = ("root",)) -> Iterator[tuple[int, Any, str]]:
    """Yield what RegexLexer.get_tokens_unprocessed yields, trying each state's rules at once."""
    pos = 0
    tokendefs = vars(type(lexer))["_tokens"]  # `accelerate` checked that the class holds them
    statestack = list(stack)
    while True:
        state = states[statestack[-1]]
        if state is None:
            rule, m = _first(tokendefs[statestack[-1]], text, pos)
        else:
            found = state[0](text, pos)
            rule, m = (state[1][found.lastindex], found) if found else (None, None)
        if rule is not None:
            rexmatch, action, new_state = rule
            if action is not None:
                if type(action) is _TokenType:
                    yield pos, action, m.group(m.lastindex) if state is not None else m.group()
                else:
                    yield from action(lexer, rexmatch(text, pos) if state is not None else m)
            pos = m.end()
            if new_state is not None:
                _transition(statestack, new_state)
            continue
        try:
            if text[pos] == "\n":
                statestack = ["root"]
                yield pos, Whitespace, "\n"
                pos += 1
                continue
            yield pos, Error, text[pos]
            pos += 1
        except IndexError:
            break


def _first(rules: list[tuple[Any, Any, Any]], text: str, pos: int) -> tuple[Any, Any]:
    for rule in rules:
        m = rule[0](text, pos)
        if m:
            return rule, m
    return None, None


def _transition(statestack: list[str], new_state: Any) -> None:
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(statestack) > 1:
                    statestack.pop()
            elif state == "#push":
                statestack.append(statestack[-1])
            else:
                statestack.append(state)
    elif isinstance(new_state, int):
        if abs(new_state) >= len(statestack):
            del statestack[1:]
        else:
            del statestack[new_state:]
    elif new_state == "#push":
        statestack.append(statestack[-1])
    else:
        # As in Pygments: a lexer's own definition is wrong, which is a bug, not a user error.
        assert False, f"wrong state def: {new_state!r}"
