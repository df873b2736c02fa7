"""Shared fixtures: a valid content folder to copy and break."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

# Built sites, the local server and Chromium for the checks in real tools, once per session;
# skips that fail under ERRORSITE_NO_SKIP; pytester, to run pytest on a sample.
pytest_plugins = ["browser_support", "no_skip", "pytester"]


@pytest.fixture(autouse=True, scope="session")
def user_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Keep every build's cache in a folder of the test session, not in the user's cache folder."""
    folder = tmp_path_factory.mktemp("user-cache")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    return folder / "errorsite"


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """Return a writable copy of the basic content folder."""
    target = tmp_path / "content"
    shutil.copytree(FIXTURES / "basic", target)
    return target


def edit_record(content: Path, record_id: str, change: Callable[[dict[str, Any]], Any]) -> Path:
    """Apply `change` to one record of `content` and save it; return its path."""
    path = content / "errors" / f"{record_id}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path
