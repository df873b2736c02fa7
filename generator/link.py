# errorsite link helper: prints the URL of an error's reference page.
#
# MIT License
#
# Copyright (c) 2026 The errorsite authors
#
# Permission is hereby granted, free of charge, to any person obtaining a copy
# of this software and associated documentation files (the "Software"), to deal
# in the Software without restriction, including without limitation the rights
# to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
# copies of the Software, and to permit persons to whom the Software is
# furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in all
# copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
# AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
# OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
# SOFTWARE.
"""Find the reference page of an error message: a file a library vendors, standard library only.

`errorsite vendor src/mylib/_errorsite` writes this file there as `__init__.py`,
with `patterns.bin` beside it (the patterns of the library's error pages). Then:

    from mylib._errorsite import url_for, install
    url_for("chunk_size (8192) must not exceed ...")   # -> the page's URL, or None
    install()   # opt in: print "See <url>" under uncaught errors the library raised

Importing costs almost nothing (no module beyond `os`, `sys` and `_thread`,
nothing read); the patterns are read at the first question, and only the few
groups of patterns that can match the message are decoded. Nothing here ever
raises into the host or changes how it ends: a missing, broken or oversized
patterns file links nothing (`Linker.problem` says why). URLs carry the
installed version of the library (`?v=8.1.3`), read once from its metadata
when the first URL is made. Python 3.8 and later.
Setting ERRORSITE_NO_LINKS to anything but "" or "0" turns the hook and
`annotate` off. docs/linking.md in errorsite's repository gives every rule.
"""

import _thread
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

    Frame = Tuple[str, int, str]
    Pattern = Tuple[Optional[str], ...]
    PathArg = Union[str, "os.PathLike[str]"]

OPT_OUT = "ERRORSITE_NO_LINKS"
PATTERNS_FILE = "patterns.bin"
"""The patterns file `errorsite vendor` writes beside this file."""
MAGIC = b"errorsite-patterns 2\n"
"""The first line of a compact patterns file (version 2)."""
VALUE = "\x00"
"""What stands for a value in a compact row's pattern."""
SUPPORTED_VERSION = 1
"""The version of the JSON patterns file (`api/patterns.json`) this file also reads."""
# Every limit below is a total for one patterns file: what a file costs the host is bounded by them,
# however it was made, not by what it claims (docs/linking.md, "Never raising"). A file past one links nothing.
MAX_FILE_BYTES = 8 * 1024 * 1024
"""A larger patterns file is not read (sglang's 12,424 records: 634 KB compact, 4.3 MB as JSON)."""
MAX_HEADER_BYTES = 256 * 1024
"""A compact file's header (its names, and each block's length) is at most this long."""
MAX_BLOCKS = 16384
"""A compact file has at most this many blocks (errorsite writes a block per 32 KB of rows)."""
MAX_UNPACKED_BYTES = 16 * 1024 * 1024
"""The index and the blocks of a compact file unpack to at most this much in all (sglang's: under 4.3 MB)."""
MAX_ROWS = 50000
"""Rows of a compact file parsed in all, kept or skipped (a row per record and group: sglang has 12,424 records)."""
MAX_ROW_BYTES = 1024 * 1024
"""A row is at most this long (a message longer than MAX_MESSAGE_CHARS is not matched anyway)."""
MAX_JSON_VALUES = 500000
"""A JSON patterns file holds at most this many values, counted as its commas, colons and brackets."""
MAX_URL = 2048
MAX_SEGMENTS = 400
MAX_SEGMENT_CHARS = 10000
MAX_MESSAGE_CHARS = 100000
"""Longer messages are not matched: no page's template explains a message that long."""
MAX_FRAMES = 200
"""Frames of a traceback looked at, innermost first (a RecursionError has a thousand)."""
NOTES_SHOWN = hasattr(BaseException, "add_note")
"""Whether Python's own traceback printing shows exception notes (3.11 and later)."""


def _fold(text: "str") -> "str":
    """Return `text` lowercased with every run of white space as one space, trimmed."""
    return " ".join(text.lower().split())


def _fold_literal(text: "str") -> "str":
    """Return a literal segment lowercased with each white space run as one space, its edges kept as one space."""
    folded = _fold(text)
    if not folded:
        return ""
    return (" " if text[:1].isspace() else "") + folded + (" " if text[-1:].isspace() else "")


def _matches(pattern: "Sequence[Optional[str]]", text: "str") -> "Optional[int]":
    """Return how many literal characters of `pattern` match the whole of folded `text`, or None."""
    pos = 0
    matched = 0
    last = len(pattern) - 1
    for index, segment in enumerate(pattern):
        if segment is None:
            continue
        folded = _fold_literal(segment)
        if index == 0:
            folded = folded.lstrip(" ")
            if not text.startswith(folded):
                return None
            pos = len(folded)
        elif index == last:
            folded = folded.rstrip(" ")
            if not text.endswith(folded) or len(text) - len(folded) < pos:
                return None
            pos = len(text)
        else:
            found = text.find(folded, pos)
            if found < 0:
                return None
            pos = found + len(folded)
        matched += len(folded.strip(" "))
    return matched or None


def _clean_url(value: "object") -> "Optional[str]":
    """Return `value` if it is an http(s) URL of printable ASCII without spaces, else None."""
    if not isinstance(value, str) or len(value) > MAX_URL or not value.startswith(("https://", "http://")):
        return None
    return value if value.isascii() and value.isprintable() and " " not in value else None


def _clean_text(value: "object", limit: int = 1000) -> "Optional[str]":
    """Return `value` if it is a short string without control characters, else None."""
    if not isinstance(value, str) or len(value) > limit:
        return None
    if value.isprintable() or not any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value):
        return value
    return None


def _clean_pattern(value: "object") -> "Optional[Pattern]":
    """Return `value` as a pattern (strings and None, at least one literal), or None."""
    if not isinstance(value, list) or not value or len(value) > MAX_SEGMENTS:
        return None
    if not all(s is None or (isinstance(s, str) and len(s) <= MAX_SEGMENT_CHARS) for s in value):
        return None
    if not any(s and s.strip() for s in value):
        return None
    return tuple(value)


def _clean_line(value: "object") -> int:
    """Return `value` if it is a plausible line number, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10 ** 9 else 0


def _components(path: "str") -> "Tuple[str, ...]":
    """Return the parts of a file path, whichever separator it uses."""
    return tuple(p for p in path.replace("\\", "/").split("/") if p)


def _path_hit(mine: "Tuple[str, ...]", theirs: "Tuple[str, ...]") -> bool:
    """Return whether two paths share their last two components (or all of the shorter one)."""
    n = 0
    while n < min(len(mine), len(theirs)) and mine[-1 - n] == theirs[-1 - n]:
        n += 1
    return n > 0 and n >= min(2, len(mine))


class Entry:
    """One page a message can link to: an entry of the patterns file that passed every check."""

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

    def __init__(self, id: "str", url: "str", exception: "str", patterns: "Tuple[Pattern, ...]",
                 path: "Tuple[str, ...]", line: int, function: "str", written: bool) -> None:
        self.id = id
        self.url = url
        self.exception = exception
        self.patterns = patterns
        self.path = path
        self.line = line
        self.function = function
        self.written = written

    @classmethod
    def parse(cls, item: "object") -> "Optional[Entry]":
        """Return the entry a version 1 item describes, or None when any part of it is not what it should be."""
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
        return cls(
            id=_clean_text(item.get("id")) or "",
            url=url,
            exception=(_clean_text(item.get("exception")) or "").rpartition(".")[2],
            patterns=tuple(patterns),
            path=_components(_clean_text(item.get("path"), 4096) or ""),
            line=_clean_line(item.get("line")),
            function=_clean_text(item.get("function")) or "",
            written=item.get("written") is True,
        )

    @classmethod
    def parse_row(cls, row: "List[str]", url: "str") -> "Optional[Entry]":
        """Return the entry of a compact row's fields (FIELDS in the file's header), or None when it is not well-formed."""
        if len(row) < 7:
            return None
        record_id = _clean_text(row[0], 200)
        page = _clean_url(url.replace("{id}", record_id)) if record_id and "/" not in record_id else None
        if page is None or record_id in (".", ".."):
            return None
        patterns = []
        for field in row[6:]:
            pieces = field.split(VALUE)
            pattern: "List[Optional[str]]" = []
            for at, piece in enumerate(pieces):
                if at:
                    pattern.append(None)
                if piece:
                    pattern.append(piece)
            cleaned = _clean_pattern(pattern)
            if cleaned is None:
                return None
            patterns.append(cleaned)
        return cls(
            id=record_id or "",
            url=page,
            exception=_clean_text(row[1]) or "",
            patterns=tuple(patterns),
            path=_components(_clean_text(row[2], 4096) or ""),
            line=int(row[3]) if row[3].isdigit() and len(row[3]) < 10 else 0,
            function=_clean_text(row[4]) or "",
            written=row[5] == "1",
        )


class _OutOfBounds(Exception):
    """A patterns file past one of the limits above: nothing in it links."""


OUT_OF_BOUNDS = "the patterns file is past a limit of the link helper"
"""What `Linker.problem` says of a file past a limit."""


def _length(text: "str", data: "bytes") -> int:
    """Return a length of the header as an integer no larger than the file; ValueError if it is none."""
    if not (text.isascii() and text.isdigit() and len(text) <= 10 and int(text) <= len(data)):
        raise ValueError
    return int(text)


class _Compact:
    """The groups of a compact patterns file, decoded only when a message may need them."""

    def __init__(self, data: "bytes") -> None:
        """Read the header of a compact file (docs/linking.md, "The compact file"); ValueError if it has none."""
        # Bare raises: a library that extracts its own errors finds none in its vendored helper.
        end = data.find(b"\n\n", len(MAGIC) - 1, len(MAGIC) + MAX_HEADER_BYTES)
        if end < 0:
            raise _OutOfBounds if len(data) > len(MAGIC) + MAX_HEADER_BYTES else ValueError
        header = dict(line.split("\t", 1) for line in data[len(MAGIC):end].decode("utf-8").splitlines())
        base = _clean_url(header.get("base_url"))
        page = header.get("page", "errors/{id}/")
        if base is None or len(base) + len(page) > MAX_URL:
            raise ValueError
        self.url = base + page
        """The URL of a page, with `{id}` for the record's id."""
        self.distribution = _clean_text(header.get("distribution"), 200) or None
        """The library's distribution, whose installed version URLs carry."""
        at = end + 2
        self.index = (at, at + _length(header.get("index", ""), data))
        """Where the compressed index of the groups is: `\\nword<TAB>block,block...` lines."""
        self.blocks: "List[Tuple[int, int]]" = []
        """Where each compressed block is: `\\nword<TAB>row` lines, a group's rows together."""
        blocks = header.get("blocks", "")
        # Split no further than the limit: a header of millions of blocks is refused, not read.
        lengths = blocks.split(" ", MAX_BLOCKS) if blocks else []
        if len(lengths) > MAX_BLOCKS:
            raise _OutOfBounds
        at = self.index[1]
        for length in lengths:
            self.blocks.append((at, at + _length(length, data)))
            at = self.blocks[-1][1]
        self.data = data
        self.keys: "Optional[bytes]" = None
        """The index, once decompressed."""
        self.decoded: "Dict[int, bytes]" = {}
        """The blocks decompressed so far."""
        self.parsed: "Dict[str, List[Entry]]" = {}
        """The groups parsed so far."""
        self.skipped = 0
        """Rows skipped as not well-formed so far."""
        self.unpacked = 0
        """Bytes the index and the blocks unpacked to so far (at most MAX_UNPACKED_BYTES)."""
        self.rows = 0
        """Rows parsed so far (at most MAX_ROWS)."""

    def _unpack(self, span: "Tuple[int, int]") -> "bytes":
        """Return a compressed piece of the file unpacked, counting it against MAX_UNPACKED_BYTES."""
        import zlib

        left = MAX_UNPACKED_BYTES - self.unpacked
        unpacker = zlib.decompressobj()
        data = unpacker.decompress(memoryview(self.data)[span[0]:span[1]], left + 1)
        if len(data) > left:
            raise _OutOfBounds
        if not unpacker.eof:
            raise EOFError
        self.unpacked += len(data)
        return data

    def candidates(self, text: "str") -> "List[Entry]":
        """Return the entries of the groups that `text` (folded) may match: one per word of it, and ''."""
        if self.keys is None:
            self.keys = self._unpack(self.index)
        found: "List[Entry]" = []
        for word in sorted(set(text.split(" ")) | {""}):
            if word not in self.parsed:
                self.parsed[word] = self._group(word)
            found += self.parsed[word]
        return found

    def _group(self, word: "str") -> "List[Entry]":
        """Return the entries of one group."""
        # Searched as bytes: finding a word in text that holds any non-ASCII character is several
        # times slower, and only the rows of the group are decoded.
        key = f"\n{word}\t".encode("utf-8")
        numbers = _sorted_lookup(self.keys or b"", key[1:-1])
        if numbers is None:
            return []
        if numbers.count(b",") >= len(self.blocks):
            raise _OutOfBounds  # a group names each block once at most
        entries = []
        for number in numbers.split(b","):
            block = int(number)
            if block not in self.decoded:
                self.decoded[block] = self._unpack(self.blocks[block])
            rows = self.decoded[block]
            start = rows.find(key)
            while start >= 0:
                self.rows += 1
                if self.rows > MAX_ROWS:
                    raise _OutOfBounds
                stop = rows.find(b"\n", start + 1)
                end = stop if stop > 0 else len(rows)
                if end - start > MAX_ROW_BYTES:
                    raise _OutOfBounds
                entry = Entry.parse_row(rows[start + len(key):end].decode("utf-8").split("\t"), self.url)
                if entry is None:
                    self.skipped += 1
                else:
                    entries.append(entry)
                start = stop if stop > 0 and rows.startswith(key, stop) else -1
        return entries


def _sorted_lookup(lines: "bytes", word: "bytes") -> "Optional[bytes]":
    """Return the value of `word` in `\\nword<TAB>value` lines sorted by word, by halving; None if absent."""
    lo, hi = 0, len(lines)
    while lo < hi:
        mid = (lo + hi) // 2
        start = lines.rfind(b"\n", 0, mid + 1)
        tab = lines.find(b"\t", start)
        end = lines.find(b"\n", start + 1)
        end = len(lines) if end < 0 else end
        if start < 0 or tab < 0 or tab > end:
            return None
        here = lines[start + 1:tab]
        if here == word:
            return lines[tab + 1:end]
        if here < word:
            lo = end
        else:
            hi = start
    return None


def _frames(tb: "Optional[TracebackType]") -> "List[Frame]":
    """Return the frames of a traceback, innermost first."""
    frames: "List[Frame]" = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, tb.tb_lineno, getattr(code, "co_qualname", code.co_name)))
        tb = tb.tb_next
    frames.reverse()
    return frames[:MAX_FRAMES]


def _same_function(entry: "Entry", function: "str") -> bool:
    """Return whether a frame's function is the entry's (qualified, or by its last name)."""
    if not entry.function:
        return False
    return entry.function == function or entry.function.rpartition(".")[2] == function.rpartition(".")[2]


def _package_root() -> "Optional[str]":
    """Return the folder of the top-level package this file is vendored in, or None outside a package."""
    levels = __name__.count(".") + (1 if os.path.basename(__file__ or "").startswith("__init__.") else 0)
    if levels == 0 or not __file__:
        return None
    folder = os.path.dirname(os.path.abspath(__file__))
    for _ in range(levels - 1):
        folder = os.path.dirname(folder)
    return folder


def _real(path: "str") -> "str":
    """Return a path with links resolved and case folded where the system folds it."""
    return os.path.normcase(os.path.realpath(path))


def _normalized(name: "str") -> "str":
    """Return a distribution name as PEP 503 compares them (case and runs of -_. aside)."""
    out: "List[str]" = []
    for char in name.lower():
        separator = char in "-_."
        if not (separator and out and out[-1] == "-"):
            out.append("-" if separator else char)
    return "".join(out)


def installed_version(distribution: "str", near: "Optional[str]" = None) -> "Optional[str]":
    """Return the installed version of `distribution`, or None; never raises.

    The `*.dist-info` folders beside the folder `near` (the package) are read first: it is the
    common case, and `importlib.metadata` imports tens of modules a library's process may not have.
    """
    try:
        wanted = _normalized(distribution)
        folder = os.path.dirname(near) if near else ""
        for name in sorted(os.listdir(folder)) if folder and os.path.isdir(folder) else []:
            if name.endswith(".dist-info") and _normalized(name[:-10].partition("-")[0]) == wanted:
                with open(os.path.join(folder, name, "METADATA"), "rb") as file:
                    for line in file.read(65536).decode("utf-8", "replace").splitlines():
                        if line.startswith("Version:"):
                            return _clean_text(line[8:].strip(), 100)
                        if not line:
                            break
        from importlib import metadata

        return _clean_text(metadata.version(distribution), 100)
    except Exception:  # noqa: BLE001 - not installed, no metadata, an unreadable folder: no version
        return None


def _with_version(url: "str", version: "Optional[str]") -> "str":
    """Return `url` with `?v=VERSION`, the version's characters outside A-Z a-z 0-9 . - _ ~ ! escaped."""
    if not version:
        return url
    safe = "".join(c if c.isascii() and (c.isalnum() or c in ".-_~!") else
                   "".join(f"%{b:02X}" for b in c.encode("utf-8")) for c in version)
    return f"{url}{'&' if '?' in url else '?'}v={safe}"


class Linker:
    """Matches messages against one reference's patterns; never raises."""

    def __init__(self, patterns: "object", root: "Any" = None, version: "Optional[str]" = None) -> None:
        """Load version 1 patterns (`api/patterns.json` as data); `version` goes into URLs as `?v=`."""
        self.entries: "List[Entry]" = []
        """The entries of version 1 data that passed every check, in the file's order."""
        self.problem: "Optional[str]" = None
        """Why nothing (or not everything) links, for a library's own tests; None when all is well."""
        self.shown: "Set[str]" = set()
        """Pages already linked in this process: each is shown once."""
        self.roots: "Optional[Tuple[str, ...]]" = None
        """The library's folders; None: the files that the entries name are the library's."""
        self.distribution: "Optional[str]" = None
        """The library's distribution, whose installed version URLs carry; None: no version."""
        self.version = version
        """The version URLs carry; None until it is read (then '' when there is none)."""
        self.compact: "Optional[_Compact]" = None
        """The groups of a compact file; None for version 1 data."""
        try:
            self._load(patterns)
            self.roots = self._roots(root)
        except Exception as error:  # noqa: BLE001 - the host must never pay for a broken file
            self.entries, self.compact = [], None
            self.problem = f"patterns could not be read ({type(error).__name__})"

    def _load(self, data: "object") -> None:
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
    def _roots(root: "object") -> "Optional[Tuple[str, ...]]":
        if root is None:
            found = _package_root()
            return None if found is None else (_real(found),)
        folders = [root] if isinstance(root, (str, os.PathLike)) else list(root)  # type: ignore[call-overload]
        return tuple(_real(os.fspath(f)) for f in folders)

    @classmethod
    def from_file(cls, path: "PathArg", root: "Any" = None, version: "Optional[str]" = None) -> "Linker":
        """Return a linker over a patterns file (compact, or version 1 JSON); one that links nothing if it is unusable."""
        try:
            data, why = _read(path)
            if data is not None and data.startswith(MAGIC):
                return cls._compact(data, root, version)
            if data is not None and sum(map(data.count, (b",", b":", b"[", b"{"))) > MAX_JSON_VALUES:
                data, why = None, OUT_OF_BOUNDS
            import json

            parsed = None if data is None else json.loads(data)
        except Exception as error:  # noqa: BLE001 - missing, unreadable, truncated, not JSON, too deep
            data, why = None, type(error).__name__
        if data is None:
            linker = cls({"version": SUPPORTED_VERSION, "patterns": []}, root, version)
            linker.problem = f"cannot read {str(path)[:300]!r}: {why}"
            return linker
        return cls(parsed, root, version)

    @classmethod
    def _compact(cls, data: "bytes", root: "Any", version: "Optional[str]") -> "Linker":
        linker = cls({"version": SUPPORTED_VERSION, "patterns": []}, root, version)
        try:
            linker.compact = _Compact(data)
        except _OutOfBounds:
            linker.problem = f"not read: {OUT_OF_BOUNDS}"
            return linker
        except ValueError:  # also UnicodeDecodeError
            linker.problem = "not a compact errorsite patterns file: no header with an absolute base_url"
            return linker
        linker.distribution = linker.compact.distribution
        return linker

    def candidates(self, text: "str") -> "List[Entry]":
        """Return the entries that may match folded `text`, in the file's order."""
        if self.compact is None:
            return self.entries
        try:
            found = self.compact.candidates(text)
        except _OutOfBounds:
            self.compact = None  # and what it unpacked is freed: nothing links any more
            self.problem = f"no longer read: {OUT_OF_BOUNDS}"
            return []
        except Exception as error:  # noqa: BLE001 - a damaged index or block links nothing
            self.problem = f"the patterns file is damaged ({type(error).__name__})"
            return []
        if self.compact.skipped:
            self.problem = f"{self.compact.skipped} patterns skipped: not well-formed"
        return found

    def _url(self, entry: "Entry") -> "str":
        if self.version is None:
            self.version = ""
            if self.distribution:
                roots = self.roots or ()
                self.version = installed_version(self.distribution, roots[0] if roots else None) or ""
        return _with_version(entry.url, self.version)

    def url_for(self, message: "str", exception: "Optional[str]" = None,
                tb: "Optional[TracebackType]" = None) -> "Optional[str]":
        """Return the URL of the page that explains `message`, or None; `tb` breaks ties by the raising frame."""
        try:
            entry = self._entry_for(message, exception, _frames(tb))
            return None if entry is None else self._url(entry)
        except Exception:  # noqa: BLE001 - a link is a courtesy; it must never fail its caller
            return None

    def _entry_for(self, message: "str", exception: "Optional[str]", frames: "List[Frame]") -> "Optional[Entry]":
        if not isinstance(message, str) or len(message) > MAX_MESSAGE_CHARS:
            return None
        text = _fold(message)
        name = exception.rpartition(".")[2] if isinstance(exception, str) else None
        scored: "List[Tuple[Tuple[int, int], Entry]]" = []
        for entry in self.candidates(text):
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
                        return entry
        best = max(key for key, _ in scored)
        tied = [entry for key, entry in scored if key == best]
        return next((e for e in tied if e.written), tied[0])

    def own(self, tb: "Optional[TracebackType]") -> bool:
        """Return whether the innermost frame of `tb` is in the library's own files."""
        frames = _frames(tb)
        if not frames:
            return False
        filename = frames[0][0]
        if self.roots is not None:
            real = _real(filename)
            return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)
        theirs = _components(filename)
        entries = self.entries if self.compact is None else [
            e for group in self.compact.parsed.values() for e in group]
        return any(entry.path and _path_hit(entry.path, theirs) for entry in entries)

    def link(self, error: "BaseException") -> "Optional[str]":
        """Return the URL of the page of `error`, raised in the library's files, or None."""
        try:
            if not isinstance(error, Exception) or (self.compact is None and not self.entries):
                return None
            message = _message(error)
            if message is None:
                return None
            tb = error.__traceback__
            entry = self._entry_for(message, type(error).__name__, _frames(tb))
            if entry is None or (tb is not None and not self.own(tb)):
                return None
            return self._url(entry)
        except Exception:  # noqa: BLE001 - a link is a courtesy; it must never fail its caller
            return None

    def link_once(self, error: "BaseException") -> "Optional[str]":
        """Return the URL for `error` the first time its page comes up in this process."""
        if _opted_out():
            return None
        url = self.link(error)
        return url if url is not None and self._first(url) else None

    def _first(self, url: "str") -> bool:
        """Mark the page `url` shown; return whether it was not yet (of threads at once, one is first)."""
        with _lock:
            if url in self.shown:
                return False
            self.shown.add(url)
            return True

    def annotate(self, error: "BaseException") -> "BaseException":
        """Add "See <url>" as a note to `error` (shown under its traceback), once per page."""
        try:
            url = self.link_once(error)
            if url is not None:
                _add_note(error, f"See {url}")
        except Exception:  # noqa: BLE001 - an exception that refuses notes keeps going without one
            pass
        return error

    def _show(self, error: "BaseException", printed_notes: bool) -> None:
        """Print the link of an uncaught `error` after its traceback, unless the traceback showed it; never raises."""
        try:
            linker = self._linker()
            url = linker.link(error)
            if url is None or _opted_out():
                return
            note = f"See {url}"
            noted = note in _notes(error)
            if noted and printed_notes:
                return
            first = linker._first(url)
            if noted or first:
                print(note, file=sys.stderr)
        except BaseException:  # noqa: BLE001 - SystemExit from an error's __str__ too: the host ends as without it
            pass

    def _linker(self) -> "Linker":
        """Return the linker that answers for this one's hooks."""
        return self

    def install(self) -> "Callable[..., None]":
        """Print "See <url>" under uncaught errors that have a page; return the previous hook.

        Besides `sys.excepthook`, this covers uncaught errors of threads, and IPython (Jupyter)
        when it is running and has no custom exception handler yet.
        """
        previous = sys.excepthook

        def hook(kind: "type[BaseException]", error: "BaseException", tb: "Optional[TracebackType]") -> None:
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

        def hook(args: "Any") -> None:
            previous(args)
            if args.exc_value is not None:
                self._show(args.exc_value, NOTES_SHOWN and previous is threading.__excepthook__)

        threading.excepthook = hook

    def _install_ipython(self) -> None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
        if shell is None or getattr(shell, "custom_exceptions", None):
            return

        def handler(shell: "Any", kind: "type[BaseException]", error: "BaseException",
                    tb: "Optional[TracebackType]", tb_offset: "Optional[int]" = None) -> None:
            shell.showtraceback((kind, error, tb), tb_offset=tb_offset)
            self._show(error, printed_notes=False)

        shell.set_custom_exc((Exception,), handler)


def _message(error: "BaseException") -> "Optional[str]":
    """Return `str(error)`, or None when its `__str__` raises anything, SystemExit too (the host never asked for it)."""
    try:
        return str(error)
    except BaseException:  # noqa: BLE001 - nothing of the error's own may change what the host does
        return None


def _opted_out() -> bool:
    return os.environ.get(OPT_OUT, "") not in ("", "0")


def _notes(error: "BaseException") -> "List[str]":
    notes = getattr(error, "__notes__", None)
    return [n for n in notes if isinstance(n, str)] if isinstance(notes, list) else []


def _add_note(error: "BaseException", note: "str") -> None:
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


def _read(path: "PathArg") -> "Tuple[Optional[bytes], str]":
    """Return the bytes of a regular file of at most MAX_FILE_BYTES (a FIFO never blocks), or why not."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return None, "not a regular file"
        if status.st_size > MAX_FILE_BYTES:
            return None, f"larger than {MAX_FILE_BYTES} bytes"
        with os.fdopen(fd, "rb", closefd=False) as file:
            # By the size it has: a read of MAX_FILE_BYTES would take that much memory for any file.
            data = file.read(status.st_size + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        return None, f"larger than {MAX_FILE_BYTES} bytes"
    return data, ""


_default: "Optional[Linker]" = None
_lock = _thread.RLock()
"""Held while the default linker is made and while a page is marked shown: threads' hooks run at once."""


def _new_lock() -> None:
    global _lock
    _lock = _thread.RLock()


if hasattr(os, "register_at_fork"):
    # A child forked while another thread held the lock would wait for it forever.
    os.register_at_fork(after_in_child=_new_lock)


def use(patterns: "PathArg", root: "Any" = None, version: "Optional[str]" = None) -> "Linker":
    """Load the patterns file that `url_for` and `install` answer from, and return its linker; never raises.

    `root` is the library's folder, or a list of them (default: the folder of the top-level
    package this file is vendored in); only errors raised by code there get a link. `version`
    overrides the installed version URLs carry ('' for none).
    """
    global _default
    try:
        linker = Linker.from_file(patterns, root, version)
    except Exception:  # noqa: BLE001 - e.g. a `patterns` that is not a path
        linker = Linker({"version": SUPPORTED_VERSION, "patterns": []})
        linker.problem = "not a path to a patterns file"
    _default = linker
    return linker


def default() -> "Linker":
    """Return the linker `url_for` and `install` use: the one `use` made, else over the file beside this one."""
    found = _default
    if found is None:
        # One thread reads the file, the others wait for its linker (and the pages it has shown).
        with _lock:
            found = _default or use(os.path.join(os.path.dirname(os.path.abspath(__file__)), PATTERNS_FILE))
    return found


def url_for(message: "str", exception: "Optional[str]" = None) -> "Optional[str]":
    """Return the URL of the page for `message`, or None; the patterns are read at the first call."""
    try:
        return default().url_for(message, exception)
    except Exception:  # noqa: BLE001 - a link is a courtesy
        return None


def install() -> "Callable[..., None]":
    """Print "See <url>" under uncaught errors the library raised (an explicit choice); return the previous hook.

    The patterns are read when the first uncaught error needs them, not now.
    """
    return _Lazy().install()


class _Lazy(Linker):
    """The default linker, made when an uncaught error first asks for a link."""

    def __init__(self) -> None:
        super().__init__({"version": SUPPORTED_VERSION, "patterns": []})

    def _linker(self) -> "Linker":
        return default()
