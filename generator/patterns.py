"""The patterns a library ships beside its vendored link helper (`errorsite patterns`, `errorsite vendor`).

The compact file (docs/linking.md, "The compact file") names each active
record's page by its id, with its compiled message pattern, its variants' and
its place, grouped by one whole word of the pattern, so that the helper decodes
only the groups of the words of one message. Each group lives in a block of
lines compressed with zlib; a header line maps every group's word to its block.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .model import Record, Site
from .problems import Invalid, Problem, UserError
from .search.template import compile_template

MAGIC = b"errorsite-patterns 2\n"
"""The compact file's first line; link.py reads the same."""

FIELDS = ("id", "exception", "path", "line", "function", "written", "pattern", "variants...")
"""What each row holds after its group's word, in order, named once in the header."""

VALUE = "\x00"
"""What stands for a value in a row's pattern (a literal never holds it, white space never survives)."""

BLOCK_BYTES = 32 * 1024
"""Rows are gathered into blocks of about this many bytes before compressing: small enough to
decode in a fraction of a millisecond, large enough to compress about as well as the whole."""

Pattern = list[str | None]


@dataclass(frozen=True)
class Compact:
    """What a compact patterns file says, decoded: equal when two files give the same links."""

    header: tuple[tuple[str, str], ...]
    """The header's fields without the sizes of the index and the blocks (which depend on zlib)."""
    rows: tuple[str, ...]
    """Every row, `word<TAB>fields`, in the file's order."""


def check_base_url(base: str, made: str) -> None:
    """Refuse a base URL the link helper cannot use: a page link printed in a terminal must be absolute."""
    if not base.startswith(("https://", "http://")):
        raise UserError(
            f"{made} need the address where the site is published, and base_url is {base!r}: "
            "the link helper prints absolute URLs and skips every pattern with a relative one",
            hint="set base_url in site.toml or pass --base-url https://owner.github.io/repo/",
            page="patterns-base-url",
        )


def words(pattern: Pattern) -> list[str]:
    """Return the whole words of a pattern: words every message it matches holds between spaces (or at an end)."""
    found = []
    last = len(pattern) - 1
    for index, segment in enumerate(pattern):
        if segment is None:
            continue
        parts = " ".join(segment.lower().split()).split(" ")
        # An edge space of the segment survives as an empty first or last part.
        parts = ([""] if segment[:1].isspace() else []) + parts + ([""] if segment[-1:].isspace() and segment.strip() else [])
        for at, part in enumerate(parts):
            if part and (at > 0 or index == 0) and (at < len(parts) - 1 or index == last):
                found.append(part)
    return found


def _field(text: str) -> str:
    """Return `text` fit for a row: no tab, line break or NUL (which separate rows, fields and values)."""
    return text.replace("\t", " ").replace("\n", " ").replace("\r", " ").replace(VALUE, "\ufffd")


def _pattern_field(pattern: Pattern) -> str:
    """Return a pattern as one field: its literals, VALUE for each value."""
    return "".join(VALUE if s is None else _field(s) for s in pattern)


def rows(records: list[Record]) -> list[tuple[str, str]]:
    """Return each active record's row and the word of its group, a group's rows together.

    A row's group is the rarest whole word of each of its patterns: a message holds every whole
    word of a pattern it matches, so its own words name every group that may hold its page.
    Groups follow each other in the order of their first file and line, where neighbours share
    paths, functions and wording, which is what makes a block compress well.
    """
    patterns = {r.id: [compile_template(r.message)] + [compile_template(v.message) for v in r.variants]
                for r in records}
    counts = Counter(word for r in records for p in patterns[r.id] for word in set(words(p)))
    found = []
    for record in records:
        source = record.source
        row = "\t".join([_field(record.id), _field(record.exception.rpartition(".")[2]),
                         _field("/".join(source.path.split("/")[-2:])), str(source.line),
                         _field((source.function or "").rpartition(".")[2]), str(int(record.written)),
                         *map(_pattern_field, patterns[record.id])])
        groups = {min(words(p), key=lambda w: (counts[w], w), default="") for p in patterns[record.id]}
        found += [(group, (source.path, source.line, record.id), row) for group in groups]
    first: dict[str, tuple[str, int, str]] = {}
    for group, place, _ in found:
        first[group] = min(first.get(group, place), place)
    found.sort(key=lambda item: (first[item[0]], item[0], item[1]))
    return [(group, row) for group, _, row in found]


def compact_bytes(site: Site, distribution: str | None, made: str = "the patterns") -> bytes:
    """Return the compact patterns file of the site's active records."""
    base = site.config.base_url
    check_base_url(base, made)
    blocks: list[bytes] = []
    keys: dict[str, list[int]] = {}
    pending: list[str] = []
    size = 0
    for word, row in rows([r for r in site.records if r.status == "active"]):
        found = keys.setdefault(word, [])
        if not found or found[-1] != len(blocks):
            found.append(len(blocks))
        pending.append(f"{word}\t{row}\n")
        size += len(pending[-1])
        if size >= BLOCK_BYTES:
            blocks.append(zlib.compress(("\n" + "".join(pending)).encode(), 9))
            pending, size = [], 0
    if pending:
        blocks.append(zlib.compress(("\n" + "".join(pending)).encode(), 9))
    index = zlib.compress(("\n" + "".join(f"{w}\t{','.join(map(str, b))}\n" for w, b in sorted(keys.items()))).encode(), 9)
    header = [("base_url", _field(base)), ("page", "errors/{id}/"), ("distribution", _field(distribution or "")),
              ("fields", " ".join(FIELDS)), ("index", str(len(index))), ("blocks", " ".join(str(len(b)) for b in blocks))]
    text = "".join(f"{name}\t{value}\n" for name, value in header) + "\n"
    return MAGIC + text.encode() + index + b"".join(blocks)


def decode(data: bytes) -> Compact | None:
    """Return what a compact patterns file says, or None when it is not one."""
    if not data.startswith(MAGIC):
        return None
    try:
        end = data.index(b"\n\n", len(MAGIC) - 1)
        header = dict(line.split("\t", 1) for line in data[len(MAGIC):end].decode().splitlines())
        at = end + 2 + int(header.pop("index"))
        text = []
        for length in map(int, header.pop("blocks").split()):
            text.append(zlib.decompress(data[at:at + length]).decode())
            at += length
    except (ValueError, KeyError, zlib.error):
        return None
    return Compact(tuple(sorted(header.items())), tuple("".join(text).split("\n")))


def distribution_of(folder: Path) -> str | None:
    """Return `[project] name` of the nearest pyproject.toml at or above `folder`, the library's distribution."""
    import tomllib

    for place in (folder.absolute(), *folder.absolute().parents):
        candidate = place / "pyproject.toml"
        if candidate.is_file():
            try:
                name = tomllib.loads(candidate.read_text(encoding="utf-8")).get("project", {}).get("name")
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return None
            return name if isinstance(name, str) and name else None
        if (place / ".git").exists():
            break
    return None


def _ours(path: Path) -> str | None:
    """Return why `path` must not be replaced, or None when it is absent or a patterns file errorsite wrote."""
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_symlink() or not path.is_file():
        return "it is not a regular file"
    data = path.read_bytes()
    if data.startswith(MAGIC):
        return None
    try:
        old = json.loads(data)
    except (ValueError, RecursionError):
        return "it is not a patterns file that errorsite wrote"
    if not isinstance(old, dict) or set(old) - {"version", "base_url", "patterns"} or "patterns" not in old:
        return "it is not a patterns file that errorsite wrote"
    return None


def write(data: bytes, out: Path) -> bool:
    """Write a compact patterns file to `out` unless it already says the same; return whether it was written."""
    why = _ours(out)
    if why is not None:
        raise UserError(
            f"refusing to replace {str(out)!r}: {why}",
            hint="name a patterns file inside your package, e.g. --out src/mylib/_errorsite/patterns.bin",
            page="patterns-out-not-ours",
        )
    try:
        if decode(out.read_bytes()) == decode(data):
            return False
    except FileNotFoundError:
        pass
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, out)
    except BaseException:
        os.unlink(temporary)
        raise
    return True


HELPER_FILE = "__init__.py"
"""What `vendor` names the helper in its folder: the folder is the import path (`mylib._errorsite`)."""

PATTERNS_FILE = "patterns.bin"
"""What `vendor` names the patterns beside the helper; link.py reads this name by default."""

HELPER_HEAD = b"# errorsite link helper: prints the URL of an error's reference page."
"""The first line of every copy of the link helper, exactly: `vendor` replaces a file that begins with it, no other."""


@dataclass(frozen=True)
class Vendored:
    """What `vendor` did."""

    helper: Path
    """The helper's file."""
    helper_written: bool
    """Whether the helper was written (False: it was already this version)."""
    patterns: Path
    """The patterns file."""
    patterns_written: bool
    """Whether the patterns were written (False: they already said the same)."""
    count: int
    """Active records in the patterns."""
    size: int
    """Bytes of the patterns file."""


def helper_source() -> bytes:
    """Return the link helper's text, with its license notice, as a library vendors it."""
    from . import link

    return Path(link.__file__).read_bytes()


def vendor(site: Site, folder: Path) -> Vendored:
    """Copy the link helper and the site's patterns into `folder`, a package folder of the library."""
    helper, patterns_path = folder / HELPER_FILE, folder / PATTERNS_FILE
    source = helper_source()
    existing = _head(helper, len(source) + 1)
    why = hint = None
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        why = f"{str(folder)!r} is not a folder"
    elif helper.is_symlink() or (helper.exists() and not _is_helper(existing)):
        why = f"{str(helper)!r} is not errorsite's link helper (its first line is not the helper's)"
        hint = f"; if it is a copy of the helper edited by hand, delete {str(helper)!r} and run vendor again"
    if why is not None:
        raise UserError(
            f"refusing to vendor the link helper: {why}, and vendor replaces only what it wrote",
            hint=f"vendor into a folder of its own inside the package, e.g. src/mylib/_errorsite{hint or ''}",
            page="vendor-not-ours",
        )
    _proven_inside_repository(folder)
    data = compact_bytes(site, distribution_of(folder), made="vendored patterns")
    helper_written = existing != source
    folder.mkdir(parents=True, exist_ok=True)
    # Proven again now that it exists; the files are written by the path it resolved to.
    real = _proven_inside_repository(folder)
    patterns_written = write(data, real / PATTERNS_FILE)
    if helper_written:
        fd, temporary = tempfile.mkstemp(prefix=f".{helper.name}.", suffix=".tmp", dir=real)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(source)
            os.chmod(temporary, 0o644)
            os.replace(temporary, real / HELPER_FILE)
        except BaseException:
            os.unlink(temporary)
            raise
    count = sum(r.status == "active" for r in site.records)
    return Vendored(helper, helper_written, patterns_path, patterns_written, count, patterns_path.stat().st_size)


def _head(path: Path, size: int) -> bytes | None:
    """Return the first `size` bytes of `path`; None when it is missing, a link or not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        return file.read(size) if stat.S_ISREG(os.fstat(fd).st_mode) else None


def _is_helper(data: bytes | None) -> bool:
    """Return whether `data` begins with the helper's first line, exactly (a checkout may end it with CRLF)."""
    return data is not None and data.startswith((HELPER_HEAD + b"\n", HELPER_HEAD + b"\r\n"))


def _repository_of(path: Path) -> Path | None:
    """Return the git work tree that holds `path` as it is written (its links unresolved), or None.

    It is the nearest folder above `path` that holds `.git`, unless that folder is reached through a
    link: a checkout can link `src/mylib` to another repository, whose `.git` is then above `path`
    too. Then the work tree that holds the link is the one, if there is one above it.
    """
    written = Path(os.path.abspath(path))
    found = None
    through_link = False
    for place in (written, *written.parents):
        if (found is None or through_link) and os.path.lexists(place / ".git"):
            found, through_link = place, False
        if found is not None and place.is_symlink():
            through_link = True
    return found


def _proven_inside_repository(folder: Path) -> Path:
    """Return `folder` with every link resolved, once that is proven to be inside the repository that holds it.

    A pull request can commit a link (`src/mylib` -> `~/.config`), and the Action runs `vendor` on its
    checkout. Outside any git repository, no folder on the way may be a link.
    """
    real = folder.resolve()
    repository = _repository_of(folder)
    if repository is None:
        inside = real == Path(os.path.abspath(folder))
    else:
        inside = real.is_relative_to(repository.resolve())
    if inside:
        return real
    shown = folder
    while not shown.exists() and not shown.is_symlink():
        shown = shown.parent
    where = f"outside the repository {str(repository)!r}" if repository else "and it is in no git repository"
    raise UserError(
        f"refusing to vendor the link helper into {str(folder)!r}: {str(shown)!r} leads to"
        f" {str(shown.resolve())!r}, {where}",
        hint="vendor writes only inside the library's repository: replace the link on the way by a folder,"
        " or give the folder's real path",
        page="vendor-outside-repository",
    )


def stale_vendored(site: Site, repo_dir: Path, content: Path, files: list[str]) -> list[Problem]:
    """Return a problem for each vendored patterns file in the repository that the records no longer give."""
    problems = []
    for name in files:
        if name.rpartition("/")[2] != PATTERNS_FILE:
            continue
        path = repo_dir / name
        try:
            old = decode(path.read_bytes()) if path.is_file() and not path.is_symlink() else None
        except OSError:
            old = None
        if old is None:
            continue
        folder = path.parent
        shown = os.path.relpath(folder)
        if not site.config.base_url.startswith(("https://", "http://")):
            new = None
        else:
            new = decode(compact_bytes(site, distribution_of(folder)))
        if new is not None and new.header == old.header and _linking(new) == _linking(old):
            continue
        changed = len(_linking(old) ^ _linking(new)) if new is not None else 0
        try:
            _stale(changed, shown, content)
        except Invalid as error:
            problems.append(Problem.of(str(path if path.is_absolute() else os.path.relpath(path)), "", error))
    return problems


def _linking(compact: Compact) -> set[tuple[str, ...]]:
    """Return the rows as far as they decide which page a message links to.

    A raise that moved within its file (another line) or a page that got its prose (written)
    only refine a tie between pages of the same message: a re-pin that moves lines leaves the
    vendored file good enough to ship, and the hook refreshes it anyway.
    """
    kept = set()
    for row in compact.rows:
        fields = row.split("\t")
        if len(fields) > 7:
            kept.add((*fields[:4], fields[5], *fields[7:]))
    return kept


def _stale(changed: int, folder: str, content: Path) -> None:
    """Raise the problem of a vendored patterns file that the records no longer give."""
    what = f"{changed} row{'s' if changed != 1 else ''} differ" if changed else "its settings differ"
    raise Invalid(
        f"the vendored patterns are not what the records give ({what}): the link helper prints stale links,"
        " or none, for the errors whose messages changed",
        hint=f"refresh it with `errorsite vendor {folder} --content {content}` and commit it",
        page="vendored-patterns-stale",
    )
