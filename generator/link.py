"""Find the reference page of an error message: stdlib only, so a library can vendor this file.

A built errorsite publishes `api/patterns.json`: every active record's id,
URL, exception and compiled message pattern. A library ships that file and
calls `url_for(message)`, or installs a hook that prints "See <url>" under
an uncaught error:

    import errorsite_link                      # this file, vendored
    errorsite_link.use(Path(__file__).parent / "patterns.json").install()
    errorsite_link.url_for("chunk_size (8192) must not exceed ...")  # -> URL or None

Setting the environment variable ERRORSITE_NO_LINKS to anything but "" or
"0" turns the hook and `annotate` off, for host applications that print
errors their own way.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import TracebackType
from typing import Any, Callable

OPT_OUT = "ERRORSITE_NO_LINKS"
SUPPORTED_VERSION = 1


def _fold(text: str) -> str:
    """Return `text` lowercased with every run of white space as one space, trimmed."""
    return " ".join(text.lower().split())


def _matches(pattern: list[str | None], text: str) -> int | None:
    """Return how many literal characters of `pattern` match the whole of `text`, or None."""
    literals = [_fold(s) for s in pattern if s is not None]
    if not literals:
        return None
    pos = 0
    for index, segment in enumerate(pattern):
        if segment is None:
            continue
        folded = _fold(segment)
        if not folded:
            continue
        first = index == 0
        last = index == len(pattern) - 1
        if first:
            if not text.startswith(folded):
                return None
            pos = len(folded)
        elif last:
            if not text.endswith(folded) or len(text) - len(folded) < pos:
                return None
            pos = len(text)
        else:
            found = text.find(folded, pos)
            if found < 0:
                return None
            pos = found + len(folded)
    return sum(map(len, literals))


class Linker:
    """Matches messages against one reference's patterns."""

    def __init__(self, patterns: dict[str, Any]) -> None:
        if patterns.get("version") != SUPPORTED_VERSION or "patterns" not in patterns:
            raise ValueError(
                f"not an errorsite patterns.json of version 1 (version {patterns.get('version')!r}, "
                f"{'with' if 'patterns' in patterns else 'without'} a patterns list). "
                "See https://errorsite.github.io/errorsite/errors/patterns-version/"
            )
        self.patterns = patterns["patterns"]
        self.shown: set[str] = set()

    @classmethod
    def from_file(cls, path: str | Path) -> Linker:
        """Return a linker over a `patterns.json` file."""
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def url_for(self, message: str, exception: str | None = None) -> str | None:
        """Return the URL of the page whose template matches `message` best, or None."""
        text = _fold(message)
        name = exception.rpartition(".")[2] if exception else None
        best: tuple[int, int, str] | None = None
        for entry in self.patterns:
            score = _matches(entry["pattern"], text)
            if score is None:
                continue
            same_class = int(name is not None and entry["exception"].rpartition(".")[2] == name)
            key = (same_class, score, entry["url"])
            if best is None or key[:2] > best[:2]:
                best = key
        return best[2] if best else None

    def link_once(self, error: BaseException) -> str | None:
        """Return the URL for `error` the first time its page comes up in this process."""
        if os.environ.get(OPT_OUT, "") not in ("", "0"):
            return None
        url = self.url_for(str(error), type(error).__name__)
        if url is None or url in self.shown:
            return None
        self.shown.add(url)
        return url

    def annotate(self, error: BaseException) -> BaseException:
        """Add "See <url>" as a note to `error` (shown under its traceback), once per page."""
        url = self.link_once(error)
        if url is not None:
            error.add_note(f"See {url}")
        return error

    def install(self) -> Callable[..., None]:
        """Print "See <url>" under uncaught errors that have a page; return the previous hook."""
        previous = sys.excepthook

        def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
            previous(kind, error, tb)
            url = self.link_once(error)
            if url is not None:
                print(f"See {url}", file=sys.stderr)

        sys.excepthook = hook
        return previous


_default: Linker | None = None


def use(patterns: str | Path) -> Linker:
    """Load the `patterns.json` that `url_for` answers from, and return its linker."""
    global _default
    _default = Linker.from_file(patterns)
    return _default


def url_for(message: str, exception: str | None = None) -> str | None:
    """Return the URL of the page for `message`, from the patterns loaded by `use`.

    Without `use`, the file named by the environment variable ERRORSITE_PATTERNS
    is loaded; with neither, there is nothing to link to and the answer is None.
    """
    if _default is None:
        path = os.environ.get("ERRORSITE_PATTERNS")
        if not path:
            return None
        use(path)
    assert _default is not None
    return _default.url_for(message, exception)
