"""The stable JSON form of a record: fixed key order, two-space indent, final newline."""

from __future__ import annotations

import json
from typing import Any

KEY_ORDER: dict[str, tuple[str, ...]] = {
    "": (
        "$schema", "id", "exception", "message", "title", "status", "source",
        "meaning", "solutions", "example_fix", "when", "related", "tags", "analysis",
    ),
    "source": ("repo", "commit", "path", "line", "function", "snippet"),
    "snippet": ("start", "code"),
    "example_fix": ("before", "after", "language", "code", "code_language", "note", "check", "verified"),
    "check": ("files", "before", "after"),
    "verified": ("commit", "date", "by"),
    "when": ("trigger", "situations"),
    "analysis": ("by", "date", "note"),
}
"""Key order of each object in a record; unknown keys follow, sorted."""


def ordered(data: Any, where: str = "") -> Any:
    """Return `data` with the keys of every record object in the canonical order."""
    if not isinstance(data, dict):
        return data
    order = KEY_ORDER.get(where, ())
    keys = [k for k in order if k in data] + sorted(k for k in data if k not in order)
    return {k: ordered(data[k], k if isinstance(data[k], dict) else "") for k in keys}


def dumps(record: dict[str, Any]) -> str:
    """Return the canonical text of a record file."""
    return json.dumps(ordered(record), indent=2, ensure_ascii=False) + "\n"
