"""Read a content folder: `site.toml` and `errors/*.json`, as raw data (the only reader of content)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .problems import Invalid, Problem, UserError

MAX_RECORD_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class RawRecord:
    """A record file's parsed JSON, before validation."""

    file: str
    """The file as the user would name it."""
    data: Any


@dataclass(frozen=True, slots=True)
class Content:
    """Everything read from a content folder."""

    settings: dict[str, Any]
    settings_file: str
    records: tuple[RawRecord, ...]
    problems: tuple[Problem, ...]


def load(folder: Path) -> Content:
    """Return every settings value and record file of `folder`, and what could not be read."""
    if not folder.is_dir():
        raise UserError(
            f"content folder {str(folder)!r} does not exist or is not a folder",
            hint="pass --content DIR, the folder that holds site.toml and errors/",
            page="content-not-found",
        )
    problems: list[Problem] = []
    settings_path = folder / "site.toml"
    settings: dict[str, Any] = {}
    if settings_path.exists():
        try:
            settings = read_toml(settings_path)
        except Invalid as error:
            problems.append(Problem.of(str(settings_path), "", error))
    errors_dir = folder / "errors"
    if not errors_dir.is_dir():
        raise UserError(
            f"content folder {str(folder)!r} has no errors/ folder",
            hint="--content names the folder that holds site.toml and errors/, not errors/ itself; "
            "errorsite extract creates errors/",
            page="no-errors-folder",
        )
    records = []
    for path in sorted(errors_dir.glob("*.json")):
        try:
            records.append(RawRecord(str(path), read_json(path)))
        except Invalid as error:
            problems.append(Problem.of(str(path), "", error))
    return Content(settings, str(settings_path), tuple(records), tuple(problems))


def read_text(path: Path, limit: int | None = None) -> str:
    """Return a UTF-8 file's text without a byte order mark."""
    return decode(read_bytes(path), limit)


def read_bytes(path: Path) -> bytes:
    """Return a file's bytes."""
    try:
        return path.read_bytes()
    except OSError as error:
        raise Invalid(f"cannot read the file: {error.strerror}", page="unreadable-file") from None


def decode(data: bytes, limit: int | None = None) -> str:
    """Return UTF-8 bytes as text without a byte order mark."""
    if limit is not None and len(data) > limit:
        raise Invalid(
            f"the file is {len(data):,} bytes; a record may be at most {limit:,}",
            hint="a record this large is almost certainly not a record; split or trim it",
            page="file-too-large",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise Invalid(
            f"not valid UTF-8: byte 0x{data[error.start]:02x} at line {line}",
            hint="save the file as UTF-8",
            page="invalid-utf8",
        ) from None


def read_json(path: Path) -> Any:
    """Return the parsed JSON of a record file."""
    return parse_json(read_bytes(path))


def parse_json(data: bytes) -> Any:
    """Return the parsed JSON of a record file's bytes."""
    text = decode(data, MAX_RECORD_BYTES)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise Invalid(
            f"invalid JSON: {error.msg}",
            hint="a trailing comma or a missing quote is the usual cause",
            page="invalid-json",
            position=f"{error.lineno}:{error.colno}",
        ) from None


def read_toml(path: Path) -> dict[str, Any]:
    """Return the parsed settings file."""
    text = read_text(path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise Invalid(
            f"invalid TOML: {error}",
            hint='look at the line named: strings need quotes (title = "My errors"), and each key is set once',
            page="invalid-toml",
        ) from None
