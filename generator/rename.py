"""Give a record another id and keep its old URL working (`errorsite rename OLD NEW`).

An id is a page's URL, so a published one must keep leading somewhere. The
record's file and `id` take the new name; every other record's `related`
names the new id; `[redirects]` in `site.toml` gains `OLD = "NEW"`, and a
redirect that led to OLD leads to NEW (renaming back to a retired id that led
to OLD takes that redirect away: the rename is undone). The build then writes
a page at the old URL that sends readers on, so links in old releases, search
results and a vendored `patterns.json` made before the rename still reach the
record.

Everything is read and checked before anything is written. Record files are
changed only where they must be (`recordjson.rewrite`), and `site.toml` only
by the lines added or retargeted, its comments and layout kept.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import load, validate
from .problems import UserError, did_you_mean
from .recordjson import rewrite, write_atomically
from .schema import ID_PATTERN

_HEADER = re.compile(r"^[ \t]*\[[ \t]*(?P<name>[^\]]*?)[ \t]*\][ \t]*(?:#.*)?$")
"""A TOML table header line, `[name]`."""


@dataclass(frozen=True)
class Renamed:
    """What a rename changed."""

    old: str
    new: str
    file: Path
    """The record's file under its new name."""
    related: tuple[Path, ...]
    """Other record files whose `related` named the old id."""
    retargeted: tuple[str, ...]
    """Retired ids whose redirect led to the old id and now leads to the new one."""

    def lines(self) -> list[str]:
        """Return what to print: the rename, each file changed, and what the old URL does now."""
        out = [f"renamed {self.old} to {self.new}: {self.file}"]
        out += [f"related updated: {path}" for path in self.related]
        out += [f"redirect {old} now leads to {self.new}" for old in self.retargeted]
        out.append(f"redirect added: errors/{self.old}/ leads to errors/{self.new}/ (site.toml [redirects])")
        return out


def rename(content_dir: Path, old: str, new: str) -> Renamed:
    """Rename record `old` to `new` in `content_dir`, add the redirect, and return what changed."""
    content = load.load(content_dir)
    # A record that cannot be read might name the old id among its related ones: nothing is changed.
    site = validate.build_site(content)
    ids = {record.id for record in site.records}
    retired = dict(site.config.redirects)
    _check_names(old, new, ids, retired)
    errors_dir = content_dir / "errors"
    writes: dict[Path, str] = {}
    related: list[Path] = []
    for raw in content.records:
        path = Path(raw.file)
        data = raw.data
        if path.stem == old:
            data = {**data, "id": new}
        if isinstance(data.get("related"), list) and old in data["related"]:
            data = {**data, "related": [new if item == old else item for item in data["related"]]}
            if path.stem != old:
                related.append(path)
        if data is not raw.data:
            writes[errors_dir / f"{new}.json" if path.stem == old else path] = _record_text(path, data)
    settings_path = content_dir / "site.toml"
    retargeted = tuple(sorted(r for r, successor in retired.items() if successor == old and r != new))
    writes[settings_path] = with_redirect(_settings_text(settings_path), old, new, content.settings)
    for path, text in sorted(writes.items()):
        write_atomically(path, text)
    (errors_dir / f"{old}.json").unlink()
    return Renamed(old, new, errors_dir / f"{new}.json", tuple(sorted(related)), retargeted)


def _check_names(old: str, new: str, ids: set[str], retired: dict[str, str]) -> None:
    """Raise unless `old` is a record's id and `new` a well-formed id that no record or redirect holds."""
    if old not in ids:
        why = f"a retired id that redirects to {retired[old]!r}" if old in retired else "not the id of any record"
        raise UserError(f"cannot rename {old!r}: it is {why}",
                        hint=did_you_mean(old, ids) if old not in retired else f"rename {retired[old]!r} instead",
                        page="rename-unknown-id")
    if not re.fullmatch(ID_PATTERN, new):
        raise UserError(f"cannot rename {old!r} to {new!r}: an id is lowercase letters, digits and inner hyphens,"
                        " at most 64 characters",
                        hint=f"for example {_slug(new)!r}" if _slug(new) else None, page="rename-bad-id")
    if new in ids or new in retired and retired[new] != old:
        held = "a record's id" if new in ids else f"a retired id that redirects to {retired[new]!r}"
        raise UserError(f"cannot rename {old!r} to {new!r}: {new!r} is {held}",
                        hint="an id, once published, keeps its page: choose another name",
                        page="rename-id-taken")


def _slug(text: str) -> str:
    """Return `text` as the nearest id: lower case, runs of other characters as one hyphen, at most 64."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower())[:64].strip("-")


def _record_text(path: Path, data: dict[str, Any]) -> str:
    """Return the text of record file `path` changed to hold `data`."""
    return rewrite(load.decode(load.read_bytes(path, link=False)), data)


def _settings_text(path: Path) -> str:
    """Return the text of `site.toml`, or "" when there is none."""
    return load.decode(load.read_bytes(path, load.MAX_SETTINGS_BYTES)) if path.is_file() else ""


def with_redirect(text: str, old: str, new: str, settings: dict[str, Any]) -> str:
    """Return the text of `site.toml` with `old = "new"` in `[redirects]`, and redirects to `old` led to `new`.

    A redirect from `new` (to `old`: a rename being undone) is taken away.
    Only the lines of the `[redirects]` table are touched (the table is added
    at the end when there is none); the result is read back, and a file whose
    redirects this cannot edit line by line (an inline table, dotted keys) is
    left alone with an error that says what to add.
    """
    redirects = {k: new if v == old else v for k, v in settings.get("redirects", {}).items() if k != new}
    wanted = {**settings, "redirects": {**redirects, old: new}}
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    headers = [i for i, line in enumerate(lines) if _HEADER.match(line)]
    table = next((i for i in headers if _HEADER.match(lines[i])["name"] in ("redirects", '"redirects"')), None)  # type: ignore[index]
    entry = f"{old} = {json.dumps(new)}\n"
    if table is None:
        lines += (["\n"] if lines and lines[-1].strip() else []) + ["[redirects]\n", entry]
    else:
        end = next((i for i in headers if i > table), len(lines))
        value = re.compile(rf"""^(?P<key>[^=#]*=[ \t]*)(?P<q>["']){re.escape(old)}(?P=q)(?P<rest>[ \t]*(?:#.*)?\n)$""")
        undone = re.compile(rf"""^[ \t]*["']?{re.escape(new)}["']?[ \t]*=""")
        for i in range(table + 1, end):
            lines[i] = "" if undone.match(lines[i]) else value.sub(
                lambda m: f"{m['key']}{json.dumps(new)}{m['rest']}", lines[i])
        last = max((i for i in range(table, end) if lines[i].strip() and not lines[i].lstrip().startswith("#")))
        lines.insert(last + 1, entry)
    result = "".join(lines)
    try:
        same = tomllib.loads(result) == wanted
    except tomllib.TOMLDecodeError:
        same = False
    if not same:
        raise UserError(
            f"cannot add the redirect {old} -> {new} to site.toml: its redirects are not written one per line"
            " under [redirects]",
            hint=f'write them as a [redirects] table with lines like {old} = "{new}", then run the rename again',
            page="redirects-not-editable",
        )
    return result


