"""Whether two snippets of one raise show the same code: comments, blank lines and layout aside."""

from __future__ import annotations

import pytest

from errorsite.extract.tokens import Shown, same_code

BASE = 'def f(x):\n    if x:\n        raise ValueError("bad")\n    return x'


@pytest.mark.parametrize(("other", "same"), [
    ('def f(x):\n    # why\n\n    if x:  # note\n        raise ValueError("bad")\n    return x', True),
    ("def f(x):\n    if x:\n        raise ValueError(\n            'bad'\n        )\n    return x", True),
    ('def f(x):\n  if x:\n    raise ValueError("bad")\n  return x', True),
    ('def f(x):\n\tif x:\n\t\traise ValueError("bad")\n\treturn x', True),
    ('def f(x):\n    if not x:\n        raise ValueError("bad")\n    return x', False),
    ('def f(x):\n    if x:\n        raise TypeError("bad")\n    return x', False),
    ('def f(x):\n    if x:\n        raise ValueError("worse")\n    return x', False),
    # Out of the block: the same tokens, another structure.
    ('def f(x):\n    if x:\n        pass\n    raise ValueError("bad")\n    return x', False),
    ('def f(x):\n    if x:\n        raise ValueError("bad")\n    return -x', False),
])
def test_tokens_decide_not_text(other: str, same: bool) -> None:
    line = 10 + next(i for i, text in enumerate(other.split("\n")) if "raise" in text)
    assert same_code(Shown.of(BASE, 10, 12), Shown.of(other, 10, line)) is same


def window(lines: list[str], at: int) -> tuple[str, int]:
    """Return the snippet scan cuts for a raise at index `at` of a long function, and its first line (1-based)."""
    first, last = max(0, at - 12), min(len(lines) - 1, at + 12)
    return "\n".join(lines[first:last + 1]), first + 1


@pytest.mark.parametrize(("inserted", "above", "same"), [
    (["    # a comment"], True, True),
    (["", "    # two lines"], False, True),
    (["    b = 1"], True, False),
    (["    b = 1"], False, False),
])
def test_a_window_that_lost_lines_to_comments_is_the_same_code(inserted: list[str], above: bool, same: bool) -> None:
    body = [f"    a{i} = {i}" for i in range(40)]
    lines = ["def g():", *body[:20], '    raise ValueError("m")', *body[20:]]
    at = 21
    code, start = window(lines, at)
    changed = lines[:at] + inserted + lines[at:] if above else lines[:at + 1] + inserted + lines[at + 1:]
    new_at = at + len(inserted) if above else at
    new_code, new_start = window(changed, new_at)
    assert same_code(Shown.of(code, start, at + 1), Shown.of(new_code, new_start, new_at + 1)) is same


@pytest.mark.parametrize("fragment", [
    '        x,\n        y)\n    raise E("m")  # c',
    'end of a docstring"""\n    # c\n    raise E("m")',
    '    (unclosed,\n    raise E("m")',
])
def test_a_snippet_cut_inside_a_bracket_or_string_still_compares(fragment: str) -> None:
    line = 1 + next(i for i, text in enumerate(fragment.split("\n")) if "raise" in text)
    shown = Shown.of(fragment, 1, line)
    assert same_code(shown, Shown.of(fragment.replace("# c", "# other"), 1, line))
    assert not same_code(shown, Shown.of(fragment.replace('"m"', '"n"'), 1, line))
