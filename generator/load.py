"""Read a content folder: `site.toml` and `errors/*.json`, as raw data.

Whatever reads content (build, serve through build, check, extract, verify)
reads it through here, with the same limits and the same problems. Commands
that rewrite a record read its bytes again only to keep what they leave as it was.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from .problems import Invalid, Problem, ProblemsFound, UserError

MAX_RECORD_BYTES = 1024 * 1024
MAX_SETTINGS_BYTES = 256 * 1024
READ_STEP = 64 * 1024
"""What a read asks for past the size a file had when opened (it may have grown)."""
RACY_NS = 2_000_000_000
"""A file changed this close to when it was looked at may change again without its size or time changing: only its
bytes tell (the build's stamps and extract's `lastrun` follow this one rule)."""
MAX_DEPTH = 32
"""Containers a record may nest; the record format itself needs four."""
MAX_NUMBER_CHARS = 100
"""The longest number a record may spell; the only numbers of a record are line numbers."""
OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NOFOLLOW", 0)
"""A FIFO opens without waiting for a writer, a terminal is never taken over, and the checked name is not
swapped for a link between the check and the read."""


@dataclass(frozen=True, slots=True)
class RawRecord:
    """A record file's parsed JSON, before validation."""

    file: str
    """The file as the user would name it."""
    data: Any
    digest: bytes = b""
    """A digest of the file's bytes, when `load` read them: what checking the record found is known by it
    (`validate.build_site`)."""


@dataclass(frozen=True, slots=True)
class Content:
    """Everything read from a content folder."""

    settings: dict[str, Any]
    settings_file: str
    records: tuple[RawRecord, ...]
    problems: tuple[Problem, ...]


class FileProblems(Invalid):
    """A file that parsed but holds values nobody can use, each at its JSON pointer."""

    def __init__(self, found: list[tuple[str, Invalid]]) -> None:
        first = found[0][1]
        super().__init__(first.message, hint=first.hint, page=first.page)
        self.found = found
        """(JSON pointer, problem) for every unusable value, in pointer order."""

    def problems(self, file: str) -> list[Problem]:
        """Return every problem, placed in `file`."""
        return [Problem.of(file, pointer, error) for pointer, error in self.found]


def load(folder: Path, passed: Callable[[str, bytes], bool] | None = None) -> Content:
    """Return every settings value and record file of `folder`, and what could not be read.

    `passed(file, digest)` says whether a record file passed every check before in the bytes of this digest (see
    `validate.build_site`): its JSON is parsed without looking for what no record can hold (`parse_json`'s `known`).
    """
    if not folder.is_dir():
        raise UserError(
            f"content folder {str(folder)!r} does not exist or is not a folder",
            hint="pass --content DIR, the folder that holds site.toml and errors/",
            page="content-not-found",
        )
    settings, unread = read_settings(folder)
    problems = list(unread)
    errors_dir = folder / "errors"
    if not errors_dir.is_dir():
        raise UserError(
            f"content folder {str(folder)!r} has no errors/ folder",
            hint="--content names the folder that holds site.toml and errors/, not errors/ itself; "
            "errorsite extract creates errors/",
            page="no-errors-folder",
        )
    try:
        inside(errors_dir, folder)
    except Invalid as error:
        raise ProblemsFound([Problem.of(str(errors_dir), "", error)]) from None
    records = []
    # The names `*.json` matches, hidden ones and folders too (a folder is a problem). By name: one folder's paths
    # order as their names do, and comparing paths part by part cost a fifth of reading 12,000 records.
    try:
        with os.scandir(errors_dir) as entries:
            listed = sorted(((entry.name, entry.is_symlink()) for entry in entries if entry.name.endswith(".json")))
    except OSError as error:
        unlisted(errors_dir, error)
    for name, link in listed:
        path = errors_dir / name
        try:
            raw = read_bytes(path, link=False, plain=not link)
            digest = file_digest(raw)
            records.append(RawRecord(str(path), parse_json(raw, passed is not None and passed(str(path), digest)),
                                     digest))
        except FileProblems as found:
            problems.extend(found.problems(str(path)))
        except Invalid as error:
            problems.append(Problem.of(str(path), "", error))
    return Content(settings, str(folder / "site.toml"), tuple(records), tuple(problems))


def file_digest(data: bytes) -> bytes:
    """Return the digest of a record file's bytes (`RawRecord.digest`), as every reader and writer of them makes it."""
    return hashlib.blake2b(data, digest_size=16).digest()


def unlisted(errors_dir: Path, error: OSError) -> NoReturn:
    """Raise the problem of a folder of record files the system would not list: never read as one of no records."""
    try:
        raise Invalid(
            f"cannot read the folder: {error.strerror}",
            hint="let the user who runs errorsite list the folder (`chmod a+rx content/errors`), or fix its owner",
            page="unreadable-folder",
        )
    except Invalid as refused:
        raise ProblemsFound([Problem.of(str(errors_dir), "", refused)]) from None


def read_settings(folder: Path) -> tuple[dict[str, Any], tuple[Problem, ...]]:
    """Return the values of `folder`'s site.toml ({} when there is none), and the problem that kept it unread."""
    path = folder / "site.toml"
    if not (path.exists() or path.is_symlink()):
        return {}, ()
    try:
        return read_toml(path), ()
    except Invalid as error:
        return {}, (Problem.of(str(path), "", error),)


def inside(path: Path, folder: Path) -> Path:
    """Return `path`, or where its links lead, once that is proven to lie inside `folder`."""
    if path.parent == folder and path.name != ".." and not path.is_symlink():
        # Directly in the folder and no link: inside by construction, and opening it with
        # O_NOFOLLOW keeps it so. Resolving every record's path would cost more than reading it.
        return path
    # Strictly: a link that leads nowhere, or round in a loop, raises the OSError that makes it unreadable.
    real, home = Path(os.path.realpath(path, strict=True)), folder.resolve()
    if not real.is_relative_to(home):
        raise Invalid(
            f"a link to {str(real)!r}, outside {str(home)!r}",
            hint="errorsite reads only what lies inside the folder it reads; replace the link by the file itself",
            page="file-outside-folder",
        )
    return real


def read_bytes(path: Path, limit: int = MAX_RECORD_BYTES, folder: Path | None = None, link: bool = True,
               plain: bool = False) -> bytes:
    """Return the bytes of a regular file inside `folder` (default: its own folder), of at most `limit` bytes.

    With `link` False, the file must not be a link: `errorsite verify` writes a record file back,
    and through a link it would replace the link by a file, or write elsewhere. `plain` says the caller listed the
    file in its own folder as no link (`os.DirEntry.is_symlink`, which asks the system nothing more): it is not
    looked at again, and a link put in its place since is never followed (`OPEN_FLAGS`).
    """
    try:
        real = path if plain else inside(path, path.parent if folder is None else folder)
        if real != path and not link:
            raise Invalid(
                f"the record file is a link to {str(real)!r}",
                hint="replace the link by the file it points to (errorsite verify writes record files back, "
                "and never through a link)",
                page="record-is-a-link",
            )
        data, size = _read_regular(real, limit)
    except OSError as error:
        raise Invalid(f"cannot read the file: {error.strerror}", page="unreadable-file") from None
    if len(data) > limit:
        raise Invalid(
            f"the file is {max(size, len(data)):,} bytes; errorsite reads at most {limit:,} from it",
            hint="a record is a few kilobytes and site.toml less: a file this large is something else; "
            "move it out of the content folder, or trim the field that grew",
            page="file-too-large",
        )
    return data


def _read_regular(path: Path, limit: int) -> tuple[bytes, int]:
    """Return at most `limit` + 1 bytes of a regular file, and the size it had when opened."""
    fd = os.open(path, OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        regular_file(info.st_mode)
        # One byte past the limit and no more: a file that grows while it is read cannot exhaust memory.
        chunks, size = [], 0
        # The whole file and a byte more first: a read of `limit` bytes allocates them all, and took two thirds of
        # the time of reading 12,000 records.
        step = info.st_size + 1
        while size <= limit:
            chunk = os.read(fd, min(step, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            step = READ_STEP
        return b"".join(chunks), info.st_size
    finally:
        os.close(fd)


def regular_file(mode: int) -> None:
    """Raise unless `mode` (from stat) is a regular file's: never a folder, FIFO, socket or device."""
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in FILE_KINDS if test(mode)), "not a regular file")
        raise Invalid(
            f"the file is a {kind}, not a regular file",
            hint="errorsite reads only plain files; replace it by the file it stands for, or move it away",
            page="not-a-regular-file",
        )


FILE_KINDS = ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "named pipe (FIFO)"), (stat.S_ISSOCK, "socket"),
              (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"))
"""How each kind of file that is not a regular one is named in a problem."""


def decode(data: bytes) -> str:
    """Return UTF-8 bytes as text without a byte order mark."""
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
    return parse_json(read_bytes(path, link=False))


def parse_json(data: bytes, known: bool = False) -> Any:
    """Return the parsed JSON of a record file's bytes; raise FileProblems for values nobody can use.

    `known` says these very bytes passed every check before, so they hold none: they are parsed as they are, into
    the same values, without looking for them (a third of the time of parsing 12,000 records)."""
    # Imported here, as tomllib below: a build where nothing changed parses neither JSON nor TOML.
    import json

    text = decode(data)
    if known:
        return json.loads(text)
    try:
        value = json.loads(text, object_pairs_hook=_Object.of, parse_int=_integer, parse_float=_float)
    except json.JSONDecodeError as error:
        raise Invalid(
            f"invalid JSON: {error.msg}",
            hint="a trailing comma or a missing quote is the usual cause",
            page="invalid-json",
            position=f"{error.lineno}:{error.colno}",
        ) from None
    except RecursionError:
        value = None
        found = _too_deep(text)
    else:
        found = [] if _usable_at_a_glance(value) else _unusable(value)
    if found:
        raise FileProblems(found)
    return value


class _Object(dict[str, Any]):
    """A JSON object that names the keys it was given more than once (the last value is kept)."""

    repeated: frozenset[str] = frozenset()

    @classmethod
    def of(cls, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        """Return the object of `pairs`: a plain dict unless a key repeats."""
        found = dict(pairs)
        if len(found) == len(pairs):
            return found
        seen: set[str] = set()
        again: set[str] = set()
        for key, _ in pairs:
            (again if key in seen else seen).add(key)
        repeated = cls(found)
        repeated.repeated = frozenset(again)
        return repeated


@dataclass(frozen=True, slots=True)
class _Number:
    """A number too long or too large to be read as a line number."""

    text: str
    """The number as the file spells it."""


def _integer(text: str) -> int | _Number:
    return int(text) if len(text) <= MAX_NUMBER_CHARS else _Number(text)


def _float(text: str) -> float | _Number:
    value = float(text)
    return value if len(text) <= MAX_NUMBER_CHARS and math.isfinite(value) else _Number(text)


def _usable_at_a_glance(data: Any) -> bool:
    """Return whether `data` is shallow enough and has no repeated key or unreadable number.

    The quick test, without the JSON pointers that `_unusable` builds for every value.
    """
    level = [data]
    for _ in range(MAX_DEPTH):
        below = []
        for value in level:
            if isinstance(value, (_Object, _Number)):
                return False
            for item in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
                if isinstance(item, (dict, list, _Number)):
                    below.append(item)
        if not below:
            return True
        level = below
    return False


def _unusable(data: Any) -> list[tuple[str, Invalid]]:
    """Return (pointer, problem) for every repeated key, unreadable number and too deep container."""
    found = []
    todo: list[tuple[Any, str, int, bool]] = [(data, "", 0, False)]
    while todo:
        value, pointer, depth, repeated = todo.pop()
        try:
            _usable(value, depth, repeated)
        except Invalid as error:
            found.append((pointer, error))
        if isinstance(value, dict) and depth < MAX_DEPTH:
            again: frozenset[str] = getattr(value, "repeated", frozenset())
            todo += [(item, f"{pointer}/{pointer_part(key)}", depth + 1, key in again) for key, item in value.items()]
        elif isinstance(value, list) and depth < MAX_DEPTH:
            todo += [(item, f"{pointer}/{index}", depth + 1, False) for index, item in enumerate(value)]
    return sorted(found, key=lambda item: item[0])


def _usable(value: Any, depth: int, repeated: bool) -> None:
    if repeated:
        raise Invalid(
            "this key appears more than once in its object",
            hint="JSON keeps only the last value, so the others would be lost silently: keep one",
            page="duplicate-key",
        )
    if isinstance(value, (dict, list)):
        _shallow(depth)
    if isinstance(value, _Number):
        raise Invalid(
            f"the number {_shorten(value.text)} is too large to read",
            hint=f"the only numbers in a record are line numbers; at most {MAX_NUMBER_CHARS} characters are read",
            page="json-number-too-large",
        )


def _shorten(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _shallow(depth: int) -> None:
    if depth >= MAX_DEPTH:
        raise Invalid(
            f"nested more than {MAX_DEPTH} arrays or objects deep",
            hint="a record nests four levels at most; this is not a record",
            page="too-deeply-nested",
        )


_TOKEN = r'"(?:[^"\\]|\\.)*"|[\[\]{},:]'


def _too_deep(text: str) -> list[tuple[str, Invalid]]:
    """Return the depth problem of JSON text too deep to parse, at the pointer of the first container too deep."""
    path: list[list[Any]] = []
    """Each open container: whether it is an object, and the key or index of the value being read."""
    last = ""
    for match in re.finditer(_TOKEN, text, re.S):  # compiled by `re` here, when first needed
        token = match.group()
        if token in "[{":
            try:
                _shallow(len(path))
            except Invalid as error:
                return [("".join(f"/{pointer_part(str(key))}" for _, key in path), error)]
            path.append([token == "{", "" if token == "{" else 0])
        elif token in "]}":
            if path:
                path.pop()
        elif token == "," and path and not path[-1][0]:
            path[-1][1] += 1
        elif token.startswith('"') and path and path[-1][0] and last in ("{", ","):
            path[-1][1] = _key(token)
        last = token
    return []


def _key(token: str) -> str:
    import json

    try:
        return str(json.loads(token))
    except ValueError:
        return token[1:-1]


def pointer_part(name: str) -> str:
    """Return a key escaped for a JSON pointer."""
    return name.replace("~", "~0").replace("/", "~1")


def read_toml(path: Path) -> dict[str, Any]:
    """Return the parsed settings file."""
    import tomllib

    text = decode(read_bytes(path, MAX_SETTINGS_BYTES))
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise Invalid(
            f"invalid TOML: {error}",
            hint='look at the line named: strings need quotes (title = "My errors"), and each key is set once',
            page="invalid-toml",
        ) from None
    except RecursionError:
        raise Invalid(
            "arrays or tables nested too deeply to read",
            hint="settings nest two levels at most ([source] include = [...]); this is not a settings file",
            page="toml-too-deep",
        ) from None
    except ValueError as error:
        # tomllib converts integers with int(), which refuses more than 4,300 digits.
        raise Invalid(
            f"a number too large to read: {error}",
            hint="no setting takes a number this large; [verify] timeout is a number of seconds",
            page="toml-number-too-large",
        ) from None
