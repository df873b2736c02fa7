"""Find the reference page of an error message: stdlib only, so a library can vendor this file.

A built errorsite publishes `api/patterns.json` (and `errorsite patterns --out
PATH` writes one where a package wants it): every active record's id, URL,
exception, compiled message pattern and place. A library ships that file as
package data beside this file, vendored, and installs a hook that prints
"See <url>" under an uncaught error the library raised:

    from mylib import _errorlinks              # this file, vendored
    _errorlinks.use(Path(__file__).with_name("patterns.json")).install()
    _errorlinks.url_for("chunk_size (8192) must not exceed ...")  # -> URL or None

Nothing here ever raises into the host: a missing, unreadable or malformed
`patterns.json` gives a linker that links nothing (`Linker.problem` says
why), a malformed entry is skipped, and the hook swallows its own failures.
Only errors raised in the library's own files get a link (the innermost
frame of the traceback is under the library's folder), so a user's own
`ValueError` with a similar message gets none. When several pages match a
message, the traceback decides: the innermost frame of the library whose file
(path suffix) and line name a page, then its file and function; otherwise a
written page comes before a skeleton, then the file's order.

Works on Python 3.9 and later. Before 3.11 there is no `add_note`: `annotate`
then sets `__notes__` (which IPython and rich show) and the installed hook
prints the link itself. Setting the environment variable ERRORSITE_NO_LINKS
to anything but "" or "0" turns the hook and `annotate` off, for host
applications that print errors their own way.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple

OPT_OUT = "ERRORSITE_NO_LINKS"
SUPPORTED_VERSION = 1
MAX_FILE_BYTES = 32 * 1024 * 1024
"""A larger `patterns.json` is not read (a file is far smaller; a device or a mistake is not)."""
MAX_URL = 2048
MAX_SEGMENTS = 400
MAX_SEGMENT_CHARS = 10_000
MAX_MESSAGE_CHARS = 100_000
"""Longer messages are not matched: no page's template explains a message that long."""
MAX_FRAMES = 200
"""Frames of a traceback looked at, innermost first (a RecursionError has a thousand)."""
NOTES_SHOWN = hasattr(BaseException, "add_note")
"""Whether Python's own traceback printing shows exception notes (3.11 and later)."""

Frame = Tuple[str, int, str]
"""A traceback frame: file name, line, function (qualified where Python knows it)."""


def _fold(text: str) -> str:
    """Return `text` lowercased with every run of white space as one space, trimmed."""
    return " ".join(text.lower().split())


def _matches(pattern: Sequence[Optional[str]], text: str) -> Optional[int]:
    """Return how many literal characters of `pattern` match the whole of `text`, or None."""
    literals = [_fold(s) for s in pattern if s is not None]
    if not any(literals):
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


def _clean_url(value: object) -> Optional[str]:
    """Return `value` if it is an http(s) URL of printable ASCII without spaces, else None."""
    if not isinstance(value, str) or len(value) > MAX_URL:
        return None
    if not value.startswith(("https://", "http://")) or not all(33 <= ord(c) <= 126 for c in value):
        return None
    return value


def _clean_text(value: object, limit: int = 1000) -> Optional[str]:
    """Return `value` if it is a short string without control characters, else None."""
    if not isinstance(value, str) or len(value) > limit or any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value):
        return None
    return value


def _clean_pattern(value: object) -> Optional[Tuple[Optional[str], ...]]:
    """Return `value` as a pattern (strings and None, at least one literal), or None."""
    if not isinstance(value, list) or not value or len(value) > MAX_SEGMENTS:
        return None
    if not all(s is None or (isinstance(s, str) and len(s) <= MAX_SEGMENT_CHARS) for s in value):
        return None
    if not any(s and s.strip() for s in value):
        return None
    return tuple(value)


def _components(path: str) -> Tuple[str, ...]:
    """Return the parts of a file path, whichever separator it uses."""
    return tuple(p for p in path.replace("\\", "/").split("/") if p)


def _path_hit(mine: Tuple[str, ...], theirs: Tuple[str, ...]) -> bool:
    """Return whether two paths share their last two components (or all of the shorter one)."""
    n = 0
    while n < min(len(mine), len(theirs)) and mine[-1 - n] == theirs[-1 - n]:
        n += 1
    return n > 0 and n >= min(2, len(mine))


class Entry:
    """One page a message can link to: an entry of `patterns.json` that passed every check."""

    __slots__ = {
        "id": "The record's id.",
        "url": "The page's absolute http(s) URL, printable ASCII only.",
        "exception": "The exception's class name without its module, or '' when unknown.",
        "patterns": "The message's pattern, then its variants': literal segments, None for a value.",
        "path": "Components of the raise's file path in the repository; empty when unknown.",
        "line": "The raise's line; 0 when unknown.",
        "function": "The function around the raise (`Class.method`); '' when unknown.",
        "written": "Whether the page has prose (a written page comes before a skeleton).",
    }

    def __init__(self, id: str, url: str, exception: str, patterns: Tuple[Tuple[Optional[str], ...], ...],
                 path: Tuple[str, ...], line: int, function: str, written: bool) -> None:
        self.id = id
        self.url = url
        self.exception = exception
        self.patterns = patterns
        self.path = path
        self.line = line
        self.function = function
        self.written = written

    @classmethod
    def parse(cls, item: object) -> Optional[Entry]:
        """Return the entry `item` describes, or None when any part of it is not what it should be."""
        if not isinstance(item, dict):
            return None
        url = _clean_url(item.get("url"))
        first = _clean_pattern(item.get("pattern"))
        if url is None or first is None:
            return None
        patterns = [first]
        variants = item.get("variants", [])
        for variant in variants if isinstance(variants, list) else []:
            pattern = _clean_pattern(variant)
            if pattern is not None:
                patterns.append(pattern)
        line = item.get("line")
        line = line if isinstance(line, int) and not isinstance(line, bool) and 0 < line < 10**9 else 0
        return cls(
            id=_clean_text(item.get("id")) or "",
            url=url,
            exception=(_clean_text(item.get("exception")) or "").rpartition(".")[2],
            patterns=tuple(patterns),
            path=_components(_clean_text(item.get("path"), 4096) or ""),
            line=line,
            function=_clean_text(item.get("function")) or "",
            written=item.get("written") is True,
        )


def _frames(tb: Optional[TracebackType]) -> List[Frame]:
    """Return the frames of a traceback, innermost first."""
    frames: List[Frame] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, tb.tb_lineno, getattr(code, "co_qualname", code.co_name)))
        tb = tb.tb_next
    frames.reverse()
    return frames[:MAX_FRAMES]


def _same_function(entry: Entry, function: str) -> bool:
    """Return whether a frame's function is the entry's (qualified, or by its last name)."""
    if not entry.function:
        return False
    return entry.function == function or entry.function.rpartition(".")[2] == function.rpartition(".")[2]


def _package_root() -> Optional[str]:
    """Return the folder of the top-level package this file is vendored in, or None outside a package."""
    depth = __name__.count(".")
    if depth == 0 or not __file__:
        return None
    folder = os.path.dirname(os.path.abspath(__file__))
    for _ in range(depth - 1):
        folder = os.path.dirname(folder)
    return folder


def _real(path: str) -> str:
    """Return a path with links resolved and case folded where the system folds it."""
    return os.path.normcase(os.path.realpath(path))


class Linker:
    """Matches messages against one reference's patterns; never raises."""

    def __init__(self, patterns: object, root: Optional[Iterable[str | os.PathLike[str]] | str | os.PathLike[str]] = None) -> None:
        self.entries: List[Entry] = []
        """The entries that passed every check, in the file's order."""
        self.problem: Optional[str] = None
        """Why nothing (or not everything) links, for a library's own tests; None when all is well."""
        self.shown: set[str] = set()
        """Pages already linked in this process: each is shown once."""
        self.roots: Optional[Tuple[str, ...]] = None
        """The library's folders; None: the files that the entries name are the library's."""
        try:
            self._load(patterns)
            self.roots = self._roots(root)
        except Exception as error:  # noqa: BLE001 - the host must never pay for a broken file
            self.entries = []
            self.problem = f"patterns could not be read ({type(error).__name__})"

    def _load(self, data: object) -> None:
        if not isinstance(data, dict):
            self.problem = f"not an errorsite patterns.json (a JSON {type(data).__name__}, not an object)"
            return
        version = data.get("version")
        items = data.get("patterns")
        if type(version) is not int or version != SUPPORTED_VERSION or not isinstance(items, list):
            self.problem = (f"not an errorsite patterns.json of version {SUPPORTED_VERSION} (version "
                            f"{str(version)[:20]!r}, {'with' if isinstance(items, list) else 'without'} a patterns list)")
            return
        for item in items:
            entry = Entry.parse(item)
            if entry is not None:
                self.entries.append(entry)
        skipped = len(items) - len(self.entries)
        if skipped:
            self.problem = f"{skipped} of {len(items)} patterns skipped: not well-formed"

    @staticmethod
    def _roots(root: object) -> Optional[Tuple[str, ...]]:
        if root is None:
            found = _package_root()
            return None if found is None else (_real(found),)
        folders = [root] if isinstance(root, (str, os.PathLike)) else list(root)  # type: ignore[call-overload]
        return tuple(_real(os.fspath(f)) for f in folders)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], root: Any = None) -> Linker:
        """Return a linker over a `patterns.json` file; one that links nothing if the file is unusable."""
        try:
            text, why = _read(path)
            data = None if text is None else json.loads(text)
        except Exception as error:  # noqa: BLE001 - missing, unreadable, truncated, not JSON, too deep
            text, why = None, type(error).__name__
        if text is None:
            linker = cls({"version": SUPPORTED_VERSION, "patterns": []}, root)
            linker.problem = f"cannot read {str(path)[:300]!r}: {why}"
            return linker
        return cls(data, root)

    def url_for(self, message: str, exception: Optional[str] = None,
                tb: Optional[TracebackType] = None) -> Optional[str]:
        """Return the URL of the page that explains `message`, or None; `tb` breaks ties by the raising frame."""
        try:
            return self._url_for(message, exception, _frames(tb))
        except Exception:  # noqa: BLE001 - a link is a courtesy; it must never fail its caller
            return None

    def _url_for(self, message: str, exception: Optional[str], frames: List[Frame]) -> Optional[str]:
        if not isinstance(message, str) or len(message) > MAX_MESSAGE_CHARS:
            return None
        text = _fold(message)
        name = exception.rpartition(".")[2] if isinstance(exception, str) else None
        scored: List[Tuple[Tuple[int, int], Entry]] = []
        for entry in self.entries:
            scores = [s for s in (_matches(p, text) for p in entry.patterns) if s is not None]
            if scores:
                scored.append(((int(name is not None and entry.exception == name), max(scores)), entry))
        if not scored:
            return None
        for place in (True, False):
            for filename, line, function in frames:
                theirs = _components(filename)
                for _, entry in sorted(scored, key=lambda pair: pair[0], reverse=True):
                    if entry.path and _path_hit(entry.path, theirs) and (
                            entry.line == line if place else _same_function(entry, function)):
                        return entry.url
        best = max(key for key, _ in scored)
        tied = [entry for key, entry in scored if key == best]
        return next((e.url for e in tied if e.written), tied[0].url)

    def own(self, tb: Optional[TracebackType]) -> bool:
        """Return whether the innermost frame of `tb` is in the library's own files."""
        frames = _frames(tb)
        if not frames:
            return False
        filename = frames[0][0]
        if self.roots is not None:
            real = _real(filename)
            return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)
        theirs = _components(filename)
        return any(entry.path and _path_hit(entry.path, theirs) for entry in self.entries)

    def link(self, error: BaseException) -> Optional[str]:
        """Return the URL of the page of `error`, raised in the library's files, or None."""
        try:
            if not isinstance(error, Exception) or not self.entries:
                return None
            tb = error.__traceback__
            if tb is not None and not self.own(tb):
                return None
            return self._url_for(str(error), type(error).__name__, _frames(tb))
        except Exception:  # noqa: BLE001 - also an exception whose __str__ raises
            return None

    def link_once(self, error: BaseException) -> Optional[str]:
        """Return the URL for `error` the first time its page comes up in this process."""
        if _opted_out():
            return None
        url = self.link(error)
        if url is None or url in self.shown:
            return None
        self.shown.add(url)
        return url

    def annotate(self, error: BaseException) -> BaseException:
        """Add "See <url>" as a note to `error` (shown under its traceback), once per page."""
        try:
            url = self.link_once(error)
            if url is not None:
                _add_note(error, f"See {url}")
        except Exception:  # noqa: BLE001 - an exception that refuses notes keeps going without one
            pass
        return error

    def _show(self, error: BaseException, printed_notes: bool) -> None:
        """Print the link of an uncaught `error` after its traceback, unless the traceback showed it."""
        try:
            url = self.link(error)
            if url is None or _opted_out():
                return
            note = f"See {url}"
            noted = note in _notes(error)
            if noted and printed_notes:
                return
            if noted or url not in self.shown:
                self.shown.add(url)
                print(note, file=sys.stderr)
        except Exception:  # noqa: BLE001 - a broken stderr or error must not fail the hook
            pass

    def install(self) -> Callable[..., None]:
        """Print "See <url>" under uncaught errors that have a page; return the previous hook.

        Besides `sys.excepthook`, this covers uncaught errors of threads, and IPython (Jupyter)
        when it is running and has no custom exception handler yet.
        """
        previous = sys.excepthook

        def hook(kind: type[BaseException], error: BaseException, tb: Optional[TracebackType]) -> None:
            previous(kind, error, tb)
            self._show(error, NOTES_SHOWN and previous is sys.__excepthook__)

        try:
            sys.excepthook = hook
            self._install_threads()
            self._install_ipython()
        except Exception:  # noqa: BLE001 - installing is best effort
            pass
        return previous

    def _install_threads(self) -> None:
        import threading

        previous = threading.excepthook

        def hook(args: Any) -> None:
            previous(args)
            if args.exc_value is not None:
                self._show(args.exc_value, NOTES_SHOWN and previous is threading.__excepthook__)

        threading.excepthook = hook

    def _install_ipython(self) -> None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
        if shell is None or getattr(shell, "custom_exceptions", None):
            return

        def handler(shell: Any, kind: type[BaseException], error: BaseException, tb: Optional[TracebackType],
                    tb_offset: Optional[int] = None) -> None:
            shell.showtraceback((kind, error, tb), tb_offset=tb_offset)
            self._show(error, printed_notes=False)

        shell.set_custom_exc((Exception,), handler)


def _opted_out() -> bool:
    return os.environ.get(OPT_OUT, "") not in ("", "0")


def _notes(error: BaseException) -> List[str]:
    notes = getattr(error, "__notes__", None)
    return [n for n in notes if isinstance(n, str)] if isinstance(notes, list) else []


def _add_note(error: BaseException, note: str) -> None:
    """Add a note as `add_note` does, also on Python versions that lack it."""
    if NOTES_SHOWN:
        error.add_note(note)
        return
    notes = getattr(error, "__notes__", None)
    if not isinstance(notes, list):
        notes = []
        # setattr: before 3.11 the attribute is unknown to a type checker.
        setattr(error, "__notes__", notes)
    notes.append(note)


def _read(path: str | os.PathLike[str]) -> Tuple[Optional[bytes], str]:
    """Return the bytes of a regular file of at most MAX_FILE_BYTES (a FIFO never blocks), or why not."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, "not a regular file"
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        return None, f"larger than {MAX_FILE_BYTES} bytes"
    return data, ""


_default: Optional[Linker] = None


def use(patterns: str | os.PathLike[str], root: Any = None) -> Linker:
    """Load the `patterns.json` that `url_for` answers from, and return its linker; never raises.

    `root` is the library's folder, or a list of them (default: the folder of the top-level
    package this file is vendored in); only errors raised by code there get a link.
    """
    global _default
    try:
        _default = Linker.from_file(patterns, root)
    except Exception:  # noqa: BLE001 - e.g. a `patterns` that is not a path
        _default = Linker({"version": SUPPORTED_VERSION, "patterns": []})
        _default.problem = "not a path to a patterns.json"
    return _default


def url_for(message: str, exception: Optional[str] = None) -> Optional[str]:
    """Return the URL of the page for `message`, from the patterns loaded by `use`.

    Without `use`, the file named by the environment variable ERRORSITE_PATTERNS
    is loaded; with neither, there is nothing to link to and the answer is None.
    """
    if _default is None:
        path = os.environ.get("ERRORSITE_PATTERNS")
        if not path:
            return None
        use(path)
    return _default.url_for(message, exception) if _default is not None else None

