"""The stable JSON form of a record: fixed key order, two-space indent, final newline."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

KEY_ORDER: dict[str, tuple[str, ...]] = {
    "": (
        "$schema", "id", "exception", "message", "title", "status", "source",
        "meaning", "solutions", "example_fix", "when", "related", "tags", "analysis",
    ),
    "source": ("repo", "commit", "path", "line", "function", "snippet", "guard", "callers", "names"),
    "snippet": ("start", "code"),
    "example_fix": ("before", "after", "language", "code", "code_language", "note", "check", "verified"),
    "check": ("files", "before", "after"),
    "verified": ("commit", "date", "by"),
    "when": ("trigger", "situations"),
    "analysis": ("by", "date", "note"),
    "reviewed": ("by", "date"),
    "name": ("path", "line", "kind", "flag", "help"),
}
"""Key order of each object in a record; unknown keys follow, sorted."""


def ordered(data: Any, where: str = "") -> Any:
    """Return `data` with the keys of every record object in the canonical order."""
    if not isinstance(data, dict):
        return data
    order = KEY_ORDER.get(where, ())
    keys = [k for k in order if k in data] + sorted(k for k in data if k not in order)
    # The objects under `source.names` are keyed by the name they describe: each is a "name".
    return {k: ordered(data[k], "name" if where == "names" else k if isinstance(data[k], dict) else "") for k in keys}


def dumps(record: dict[str, Any]) -> str:
    """Return the canonical text of a record file."""
    return json.dumps(ordered(record), indent=2, ensure_ascii=False) + "\n"


def rewrite(text: str, record: dict[str, Any]) -> str:
    """Return a record file's `text` changed to hold `record`, every part that did not change kept as it was.

    A person's key order, indentation and line breaks stay: a value that did
    not change keeps its text; an object whose keys did not change keeps its
    layout; a new key takes its place in the canonical order among the keys
    the object has. A file that does not hold one JSON object without
    duplicate keys is written whole, in the canonical form.
    """
    try:
        old = json.loads(text)
        start = _skip(text, 0)
        if not isinstance(old, dict) or _duplicates(text, start):
            return dumps(record)
    except ValueError:
        return dumps(record)
    if old == record:
        return text
    indent = _indent_unit(text, start)
    return text[:start] + _object(text, start, record, "", indent) + text[_end(text, start):]


_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    """Return the index of the first character at or after `at` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _end(text: str, start: int) -> int:
    """Return the index just after the JSON value at `start`."""
    return _DECODER.raw_decode(text, start)[1]


def _members(text: str, start: int) -> list[tuple[str, int, int, int]]:
    """Return (key, key start, value start, value end) of each member of the object whose `{` is at `start`."""
    members = []
    at = _skip(text, start + 1)
    while text[at] != "}":
        key, colon = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
        value_start = _skip(text, _skip(text, colon) + 1)
        value_end = _end(text, value_start)
        members.append((key, at, value_start, value_end))
        at = _skip(text, value_end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return members


def _duplicates(text: str, start: int) -> bool:
    """Return whether the object at `start`, or one inside it, repeats a key."""
    members = _members(text, start)
    if len({key for key, *_ in members}) != len(members):
        return True
    return any(text[value] == "{" and _duplicates(text, value) for _, _, value, _ in members)


def _indent_unit(text: str, start: int) -> str:
    """Return the indentation of one level in the file: that of the first member of its top object."""
    members = _members(text, start)
    if not members:
        return "  "
    line_start = text.rfind("\n", 0, members[0][1]) + 1
    unit = text[line_start:members[0][1]]
    return unit if unit and not unit.strip() else "  "


def _object(text: str, start: int, new: dict[str, Any], where: str, unit: str) -> str:
    """Return the text of the object at `start` changed to hold `new`."""
    members = {key: (key_start, value_start, value_end) for key, key_start, value_start, value_end in _members(text, start)}
    old = json.loads(text[start:_end(text, start)])
    values = {}
    for key, value in new.items():
        if key in old and old[key] == value:
            values[key] = text[members[key][1]:members[key][2]]
            continue
        inner = _line_indent(text, members[key][0]) if key in members else ""
        if key in old and isinstance(old[key], dict) and isinstance(value, dict):
            values[key] = _object(text, members[key][1], value, key, unit)
        else:
            values[key] = _value(value, key, inner or _line_indent(text, start) + unit, unit)
    if list(new) == [key for key in old if key in new] and len(new) == len(old):
        # The same keys in the same order: each value is put in its own place, nothing else moves.
        out, at = [], start
        for key in old:
            out += [text[at:members[key][1]], values[key]]
            at = members[key][2]
        return "".join(out) + text[at:_end(text, start)]
    keys = _merged_order([key for key in old if key in new], list(new), where)
    if "\n" not in text[start:_end(text, start)] and members:
        return "{" + ", ".join(f"{json.dumps(key, ensure_ascii=False)}: {values[key]}" for key in keys) + "}"
    outer = _line_indent(text, start)
    inner = _line_indent(text, next(iter(members.values()))[0]) if members else outer + unit
    body = f",\n{inner}".join(f"{json.dumps(key, ensure_ascii=False)}: {values[key]}" for key in keys)
    return "{\n" + inner + body + "\n" + outer + "}" if keys else "{}"


def _line_indent(text: str, at: int) -> str:
    """Return the white space that starts the line of `at`."""
    line_start = text.rfind("\n", 0, at) + 1
    line = text[line_start:at]
    return line[:len(line) - len(line.lstrip(" \t"))]


def _value(value: Any, where: str, indent: str, unit: str) -> str:
    """Return a new value's text, in the canonical key order, indented to sit at `indent`."""
    return json.dumps(ordered(value, where if isinstance(value, dict) else ""), indent=unit,
                      ensure_ascii=False).replace("\n", "\n" + indent)


def _merged_order(kept: list[str], keys: list[str], where: str) -> list[str]:
    """Return `kept` (the old order) with each other key of `keys` after the nearest key before it in canonical order."""
    order = KEY_ORDER.get(where, ())
    canonical = [k for k in order if k in keys] + sorted(k for k in keys if k not in order)
    out = list(kept)
    for key in canonical:
        if key in out:
            continue
        before = canonical[:canonical.index(key)]
        anchor = max((out.index(k) for k in before if k in out), default=-1)
        out.insert(anchor + 1, key)
    return out


def write_atomically(path: Path, text: str) -> None:
    """Replace the file at `path` by `text` in one step: a reader, or a run cut short, sees the old file or the new.

    The new bytes go to a file beside it (same folder, so the rename cannot cross a file system)
    made under a name nobody can have chosen, created exclusively and without following a link
    (`mkstemp`), so nothing a pull request placed in the folder is written through; they are
    flushed to the disk, and the file is renamed over `path`, keeping its mode. The rename
    replaces the directory entry, never a link's target.
    """
    mode = stat.S_IMODE(os.lstat(path).st_mode) if os.path.lexists(path) else 0o644
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(name, mode)
        os.replace(name, path)
    except BaseException:
        os.unlink(name)
        raise
