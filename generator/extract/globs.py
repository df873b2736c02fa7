"""Which files of a repository to read: include and exclude globs."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache

from ..model import SourceSettings
from .git import Blobs

DEFAULT_INCLUDE: tuple[str, ...] = ("*.py",)
"""Files read when no --include is given."""

DEFAULT_EXCLUDE: tuple[str, ...] = (
    "**/tests/**", "**/test/**", "docs/**", "doc/**", "**/examples/**", "**/benchmarks/**",
    "test_*.py", "*_test.py", "conftest.py",
)
"""Files never read: tests, documentation, examples and benchmarks. Other excludes add to these."""

LINK_HELPER_HEAD = b"# errorsite link helper:"
"""How every copy of errorsite's link helper begins (`generator/link.py`, which `errorsite vendor` copies)."""


def without_link_helper(files: Mapping[str, bytes], scanned: Callable[[str], bool] = lambda path: False
                        ) -> Mapping[str, bytes]:
    """Return `files` without the copies of errorsite's link helper a library vendors.

    A vendored helper is errorsite's code, not the library's: its raises are none of the library's
    errors, and its calls (`Entry.parse(item)`) are no callers of the library's functions. `init`
    excludes one it finds; one vendored later is left out here, so that vendoring re-pins no record.
    `scanned(path)` says that a scan read the file at its bytes before (`facts.FactStore.scanned`): it
    is no helper, which was left out before that scan, and its bytes need not be read.
    """
    if not isinstance(files, Blobs):
        return {path: data for path, data in files.items() if not data.startswith(LINK_HELPER_HEAD)}
    unknown = [path for path in files if not scanned(path)]
    files.load(unknown)
    helpers = {path for path in unknown if files[path].startswith(LINK_HELPER_HEAD)}
    return files.only(path for path in files if path not in helpers)


def with_flags(
    settings: SourceSettings, include: Sequence[str], exclude: Sequence[str], asserts: bool | None,
    warns: bool | None = None,
) -> SourceSettings:
    """Return the `[source]` settings with the command line's flags put over them.

    A flag given replaces the setting: `--include` replaces `include`,
    `--exclude` replaces `exclude` (the default excludes still apply), and
    `--asserts`/`--no-asserts` replace `asserts`, and `--warnings`/`--no-warnings` `warnings`.
    """
    return replace(
        settings,
        include=tuple(include) or settings.include,
        exclude=tuple(exclude) or settings.exclude,
        asserts=settings.asserts if asserts is None else asserts,
        warnings=settings.warnings if warns is None else warns,
    )


class FileFilter:
    """Which repository paths to read: matched by an include glob and by no exclude glob.

    A glob without "/" matches the file name at any depth; a glob with "/"
    (a leading one too: `/setup.py`) matches the whole path from the
    repository root. `*` and `?` never match
    "/", `[...]` is a character class, and a `**` segment matches zero or more
    folders (`**/tests/**` is any `tests` folder, `docs/**` the top-level one).
    """

    def __init__(self, include: Sequence[str], exclude: Sequence[str]) -> None:
        self.include = tuple(glob_regex(g) for g in include)
        self.exclude = tuple(glob_regex(g) for g in exclude)

    @classmethod
    def of(cls, include: Sequence[str], exclude: Sequence[str]) -> FileFilter:
        """Return the filter for user globs: includes replace the default, excludes add to it."""
        return cls(tuple(include) or DEFAULT_INCLUDE, DEFAULT_EXCLUDE + tuple(exclude))

    @classmethod
    def of_settings(cls, settings: SourceSettings) -> FileFilter:
        """Return the filter of a `[source]` table (flags already applied)."""
        return cls.of(settings.include, settings.exclude)

    def __call__(self, path: str) -> bool:
        """Return whether `path` is read."""
        name = path.rpartition("/")[2]
        return any(_hit(p, path, name) for p in self.include) and not any(_hit(p, path, name) for p in self.exclude)


def _hit(pattern: tuple[bool, re.Pattern[str]], path: str, name: str) -> bool:
    """Return whether a compiled glob matches `path` (or its file `name`)."""
    whole, regex = pattern
    return regex.fullmatch(path if whole else name) is not None


@lru_cache(maxsize=None)
def glob_regex(glob: str) -> tuple[bool, re.Pattern[str]]:
    """Return (matches the whole path, regex) for one glob."""
    parts = glob.strip("/").split("/")
    out = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
        else:
            out.append(_segment_regex(part) + ("" if last else "/"))
    return "/" in glob.rstrip("/"), re.compile("".join(out), re.DOTALL)


def _segment_regex(segment: str) -> str:
    """Return the regex of one glob segment: `*`, `?` and `[...]` stay inside it."""
    out, i = [], 0
    while i < len(segment):
        char = segment[i]
        i += 1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := _class_end(segment, i)) is not None:
            body = segment[i:end].replace("\\", "\\\\").replace("[", "\\[")
            if body.startswith("!"):
                body = "^" + body[1:]
            elif body.startswith("^"):
                body = "\\" + body
            out.append("[" + body + "]")
            i = end + 1
        else:
            out.append(re.escape(char))
    return "".join(out)


def _class_end(segment: str, start: int) -> int | None:
    """Return the index of the `]` closing a character class opened before `start`, if any."""
    j = start + 1 if segment[start:start + 1] == "!" else start
    j = j + 1 if segment[j:j + 1] == "]" else j
    end = segment.find("]", j)
    return end if end != -1 else None
