"""fastlex gives Pygments' own tokens, for every lexer Pygments ships."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
from pygments.lexers import LEXERS, find_lexer_class_by_name, get_lexer_by_name

from errorsite.sitebuild import pipeline
from errorsite.sitebuild import fastlex, highlight

GENERIC = """\
#!/usr/bin/env tool
# comment ; -- comment // comment /* block */ (* block *) {- block -} <!-- markup -->
def f(x, *args, **kw):
    \"\"\"Doc string.\"\"\"
    if x >= 0x1F and y != 1.5e-3 or z <= 'c' then return "s\\n\\t" + `cmd` end;
\tlet v = [1, 2, {a: b}] |> map (fun n -> n * 2) in @decorator $var %macro &ref ^up ~x
<tag attr="value" other='v'>text &amp; more</tag> {{ template }} {% block %} ${interp}
SELECT * FROM t WHERE a = 1; -- sql
  key: value
  - item
[section]
name = "value"
\\begin{document} \\end{document}
end
"""
"""Text with the pieces most languages have: comments, strings, numbers, operators, markup, blocks."""


def lexer_names() -> list[str]:
    """Return one alias of every lexer Pygments ships."""
    return sorted(aliases[0] for _, _, aliases, _, _ in LEXERS.values() if aliases)


def samples(name: str) -> list[str]:
    """Return texts to lex with `name`: the generic text, and the lexer's own definition."""
    # A lexer's source names its language's keywords, operators and delimiters in its rules.
    source = inspect.getsource(inspect.getmodule(find_lexer_class_by_name(name)))  # type: ignore[arg-type]
    return [GENERIC, source[:8_000]]


def tokens(name: str, text: str, fast: bool) -> list[tuple[int, object, str]]:
    """Return what the lexer `name` makes of `text`, with fastlex's loop or Pygments' own."""
    lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False, tabsize=0)
    if fast:
        lexer = fastlex.accelerate(lexer)
    return list(lexer.get_tokens_unprocessed(text))


def test_every_lexer_is_covered() -> None:
    assert len(lexer_names()) > 500


@pytest.mark.parametrize("name", lexer_names())
def test_fastlex_tokens_equal_pygments_tokens(name: str) -> None:
    for text in samples(name):
        # Some lexers remember names across texts (csound's user-defined opcodes): once more makes
        # that memory the same for both loops.
        tokens(name, text, fast=False)
        assert tokens(name, text, fast=True) == tokens(name, text, fast=False)


@pytest.mark.parametrize("name", ["csharp", "inform7", "nemerle"])
def test_lexers_with_rules_per_instance_fall_back_to_pygments(name: str) -> None:
    assert "get_tokens_unprocessed" not in vars(fastlex.accelerate(get_lexer_by_name(name)))
    assert "get_tokens_unprocessed" in vars(fastlex.accelerate(get_lexer_by_name("python")))
    assert highlight.Highlighter().lines("class A { }\n", name)


def test_a_record_in_csharp_builds(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    record = {
        "id": "cs-error", "exception": "InvalidOperationException", "message": "cannot {x}",
        "source": {"commit": "4f2a9c1d0b7e", "path": "src/Thing.cs", "line": 2, "function": "Thing.Run",
                   "snippet": {"start": 1, "code": "class Thing {\n  void Run() { throw new X(); }\n}\n"}},
        "meaning": "Code:\n\n```csharp\nvar x = new Thing();\n```\n",
        "example_fix": {"before": "x.Run();", "after": "x.Start();", "language": "csharp"},
    }
    (content / "errors" / "cs-error.json").write_text(json.dumps(record))
    pipeline.build(content, tmp_path / "site", jobs=1)
    page = (tmp_path / "site" / "errors" / "cs-error" / "index.html").read_text()
    assert '<span class="k">class</span>' in page and "Thing" in page
