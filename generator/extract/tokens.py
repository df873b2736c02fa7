"""Whether two snippets show the same code: Python's tokens, comments, blank lines and layout aside.

A comment or a blank line added above a raise, a call re-wrapped over more
lines, quotes swapped or a block re-indented change a snippet's text but not
what the code does, so they must not send a record's prose to review nor make
its checked example stale. Tokens are compared by their text alone, without
positions: comments and the breaks of non-logical lines are left out, a
string literal counts by its value, and indentation counts only as the
structure it gives (a block opened, blocks closed), not as its width.

A snippet is a window of lines around the raise when its function is long
(`scan`'s snippet rule), and a comment added inside that window pushes a line
of code out of it. So a snippet whose window was cut short on one side
counts as the same code when its tokens on that side of the raise are the
start of the other's, read away from the raise.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass

from .scan import WINDOW

_LEFT_OUT = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER})


@dataclass(frozen=True)
class Shown:
    """The code a record's snippet shows, as tokens on either side of the raise."""

    before: tuple[str, ...]
    """Tokens on the lines above the raise, nearest first."""
    after: tuple[str, ...]
    """Tokens from the raise's line on."""
    cut_above: bool
    """Whether the snippet starts where its window was cut (WINDOW lines above the raise)."""
    cut_below: bool
    """Whether the snippet ends where its window was cut (WINDOW lines below the raise statement)."""

    @classmethod
    def of(cls, code: str, start: int, line: int) -> Shown:
        """Return the tokens of snippet `code`, whose first line is `start`, around the raise at `line`."""
        tokens = _tokens(code)
        row = line - start + 1
        before = tuple(text for at, text in reversed(tokens) if at < row)
        after = tuple(text for at, text in tokens if at >= row)
        last_row = code.count("\n") + 1
        statement_end = next((at for at, text in tokens if at >= row and text == "NEWLINE"), last_row)
        return cls(before, after, row == WINDOW + 1, last_row == statement_end + WINDOW)


def same_code(old: Shown, new: Shown) -> bool:
    """Return whether two snippets of one raise show the same code, as far as both show it."""
    return (_same_side(old.before, new.before, old.cut_above, new.cut_above)
            and _same_side(old.after, new.after, old.cut_below, new.cut_below))


def _same_side(old: tuple[str, ...], new: tuple[str, ...], old_cut: bool, new_cut: bool) -> bool:
    """Return whether one side's tokens agree: equal, or the shorter one cut by its window and the other's start."""
    if old == new:
        return True
    if len(old) < len(new):
        return old_cut and new[:len(old)] == old
    return new_cut and old[:len(new)] == new


def _tokens(code: str) -> list[tuple[int, str]]:
    """Return (row, text) of the tokens that make the code, in order.

    Indentation is read here rather than by `tokenize`, leniently: a window may
    start deep inside a block and end outside it, which `tokenize` refuses. A
    snippet may also start or end inside a bracket or a string; the tokens read
    up to that point stand, and the rest is taken line by line, its blank and
    comment lines left out.
    """
    rows = code.split("\n")
    widths = [len(row.expandtabs(8)) - len(row.expandtabs(8).lstrip()) for row in rows]
    reader = io.StringIO("\n".join(row.lstrip(" \t\f") for row in rows)).readline
    out: list[tuple[int, str]] = []
    levels: list[int] = []
    line_start = True
    try:
        for token in tokenize.generate_tokens(reader):
            if token.type in _LEFT_OUT or token.type in (tokenize.INDENT, tokenize.DEDENT):
                continue
            row = token.start[0]
            if line_start:
                out += [(row, marker) for marker in _indentation(levels, widths[row - 1])]
            line_start = token.type == tokenize.NEWLINE
            out.append((row, _text(token)))
    except (tokenize.TokenError, SyntaxError) as error:
        done = out[-1][0] if out else 0
        stuck = getattr(error, "lineno", None) or (error.args[1][0] if len(error.args) > 1 else done + 1)
        first = min(done + 1, stuck)
        out = [(at, text) for at, text in out if at < first]
        out += [(at, row.strip()) for at, row in enumerate(rows[first - 1:], first)
                if row.strip() and not row.strip().startswith("#")]
    return out


def _indentation(levels: list[int], width: int) -> list[str]:
    """Return the markers a logical line at `width` gives after the `levels` open before it, and update them.

    The first line sets the level the snippet starts at; a line deeper than a
    level gives INDENT, one shallower gives a DEDENT for each level it closes.
    """
    if not levels:
        levels.append(width)
        return []
    if width > levels[-1]:
        levels.append(width)
        return ["INDENT"]
    closed = 0
    while len(levels) > 1 and width < levels[-1]:
        levels.pop()
        closed += 1
    if width < levels[-1]:
        # Shallower than where the window started: a new outermost level.
        levels[-1] = width
    return ["DEDENT"] * closed


def _text(token: tokenize.TokenInfo) -> str:
    """Return what a token counts as: its kind for layout tokens, its value for a string, else its text."""
    if token.type == tokenize.NEWLINE:
        return "NEWLINE"
    if token.type == tokenize.STRING:
        try:
            return repr(ast.literal_eval(token.string))
        except (ValueError, SyntaxError):
            return token.string
    return token.string
