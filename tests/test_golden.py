"""Golden output: two records' pages, byte for byte. Refresh deliberately with UPDATE_GOLDEN=1."""

from __future__ import annotations

import os
from pathlib import Path

from errorsite import load, render, validate

from conftest import FIXTURES

GOLDEN = Path(__file__).parent / "golden"
PAGES = ("errors/batch-tokens-below-chunk/index.html", "api/errors/batch-tokens-below-chunk.json",
         "errors/batch-tokens-multiple/index.html")
"""A written page, its JSON, and a page not yet written (what the code says is all it has)."""


def test_pages_match_their_golden_copies() -> None:
    files = render.render_site(validate.build_site(load.load(FIXTURES / "basic")))
    for page in PAGES:
        golden = GOLDEN / page.replace("/", "__")
        if os.environ.get("UPDATE_GOLDEN") == "1":
            golden.write_bytes(files[page])
        assert files[page] == golden.read_bytes(), f"{page} differs from {golden}; if intended, rerun with UPDATE_GOLDEN=1"
