"""Any JSON at all in a record file gives problems or a site, never a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errorsite import load, render, validate
from errorsite.problems import ProblemsFound

from conftest import FIXTURES

GOOD = json.loads((FIXTURES / "basic" / "errors" / "batch-tokens-below-chunk.json").read_text())
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**12) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Return the path of every value inside `data`."""
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, prefix + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += paths(value, prefix + (index,))
    return found


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """Return the good record with a few values replaced by arbitrary JSON, or arbitrary JSON."""
    if draw(st.integers(0, 9)) == 0:
        return draw(JSON)
    data = json.loads(json.dumps(GOOD))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(paths(data)))
        if not where:
            continue
        parent = data
        for key in where[:-1]:
            parent = parent[key]
        parent[where[-1]] = draw(JSON)
    return data


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated())
def test_any_record_gives_problems_or_a_site(tmp_path_factory: Any, data: Any) -> None:
    content = tmp_path_factory.mktemp("c")
    (content / "errors").mkdir()
    (content / "errors" / "batch-tokens-below-chunk.json").write_text(json.dumps(data))
    try:
        site = validate.build_site(load.load(content))
    except ProblemsFound as found:
        assert found.problems and all(p.reason and p.page for p in found.problems)
        return
    files = render.render_site(site)
    assert "errors/batch-tokens-below-chunk/index.html" in files
