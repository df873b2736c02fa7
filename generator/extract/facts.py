"""What a scan keeps of each file between runs, by the file's path and blob id: nothing of an unchanged file is made twice.

A file's facts are a function of its bytes, its path, errorsite's code and the settings. Each
is an entry of its own, read only when a scan needs it: the file's definitions and imports with
its raise sites and what they depended on (`Kept`, `Found`: the digest of every file's
definitions and imports and of the helpers, and the blob id of each file whose syntax finding
them read, `raisers.reading`); the calls of each function as finding helpers reads them
(`raisers.Calls`); the index of its definitions and calls (`context.FileIndex`); the callers
and names of its sites with the rows they read (`context.Annotation`). The helpers found in a
repository are kept by a digest of every file's definitions, imports and calls, and the lines
`check --source` asks of a pinned file by its blob id alone. A later scan takes what it finds
kept when nothing it depended on changed, and makes it again otherwise.

The facts live in the user's cache folder, where no repository can put a file (the rules of
`sitebuild.paths`: a folder of the user's own, never a link). Each entry is authenticated with
the user's cache key before a byte of it is unpickled: one that is damaged, cut short, of
another errorsite or not made by this user fails its check and is made again, never trusted.
The name of an entry is a hash of errorsite's code, the Python version, the settings, the path
and the blob, so two repositories (or two checkouts of one) that hold the same file at the same
path share its facts, and never anything else: the sites of a file are kept only with the blob
ids of every file they read.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple
from functools import lru_cache
from pathlib import Path

from ..model import pickled_by_fields
from ..sitebuild.paths import UnsafeCache, key, own_folder, read_cached, user_cache, write_cached
from .context import Annotation, FileIndex
from .joined import JoinedIndex
from .lastrun import LastRun
from .raisers import Calls, Defined, KeptRaiser
from .sites import Mapped, RaiseSite, Skipped

FORMAT = b"facts 8"
"""Changes whenever what an entry holds changes shape."""

MAX_ENTRY_BYTES = 64 * 1024 * 1024
"""The largest entry read back (sglang's largest file keeps well under a megabyte)."""

MAX_PACK_BYTES = 2 * 1024**3
"""The largest pack read back (sglang's is about 50 MB)."""

ADDED_SHARE = 0.25
"""How much of a pack written whole may be added to it, or held though no run needs it, before it is written whole
again (see `FactStore.save`)."""

_CODE_BYTES = 32


class Packed(NamedTuple):
    """An entry as a pack holds it."""

    path: str
    """The path of the file it is of ("" for what is not of one path)."""
    blob: str
    """The blob id of the file's bytes (or the digest the entry is named by)."""
    part: str
    """Which of the file's facts it is (`FactStore._name`)."""
    body: bytes | memoryview
    """The entry's pickle, authenticated with the pack (a view of the pack read, never a copy)."""


APART = ("calls", "index")
"""The parts of a file's facts a pack does not hold (see CARRIED), read from their own entries."""
CARRIED = frozenset({"", "annotations"})
"""The parts of a file's facts every extract reads, which a pack keeps for the files as they are, read by this run or
not (`check --source` reads no annotations). The calls are read only when the helpers change, and the indexes when
the kept join is made again (`joined`): those are read from their own entries."""


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Found:
    """A file's raise sites, with what they depended on besides the file itself."""

    digest: bytes
    """The digest of every file's definitions and imports (`definitions_digest`) and of the helpers and factories, in
    the scan that found them: all a finder reads of other files without their syntax."""
    reads: tuple[tuple[str, str], ...]
    """The path and blob id of each file whose syntax finding them read (the file itself among them)."""
    results: tuple[RaiseSite | Skipped | Mapped, ...]
    """What the file's finder yielded, in order."""
    keys: tuple[bytes, ...] = ()
    """The `context.site_key` of each raise site among `results`, in order: what its kept callers and names are
    found by, made once, when the sites are found."""


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Kept:
    """What a scan keeps of one file."""

    defined: tuple[Defined, ...]
    """Its classes and functions (`ParsedFile.defined`)."""
    imported: dict[str, str]
    """The names it imports (`ParsedFile.imported`)."""
    inputs: str
    """A digest of what finding helpers reads of the file (`inputs_digest`)."""
    definitions: str
    """A digest of its definitions and imports alone (`definitions_digest`)."""
    found: Found | None
    """Its sites, once a scan found them."""


@dataclass(frozen=True, slots=True)
class OwnMessages:
    """The messages a repository's exception classes build themselves, and the texts they print a given message in
    (`scan._own_messages`, `scan._decorations`), with what finding them read."""

    own: tuple[tuple[tuple[str, int], tuple[RaiseSite, ...]], ...]
    """Each class's own-message sites, by its place: its file's path and its position among the file's definitions."""
    decorations: tuple[tuple[tuple[str, int], tuple[str, ...]], ...]
    """Each class's texts around a given message, by its place."""
    reads: tuple[tuple[str, str], ...]
    """The path and blob id of each file whose syntax finding them read."""


@dataclass(frozen=True, slots=True)
class RaisersFrom:
    """What the helpers a repository folder's last scan found or took were found from (`scan._Kept.raisers`)."""

    combined: str
    """The digest of every file's inputs, which the table of helpers is kept by (`FactStore.raisers`)."""
    inputs: dict[str, str]
    """Each file's `inputs_digest`, by path."""
    definitions: dict[str, str]
    """Each file's `definitions_digest`, by path."""


def inputs_digest(defined: tuple[Defined, ...], imported: dict[str, str], calls: tuple[Calls, ...]) -> str:
    """Return a digest of what finding helpers and factories reads of a file: its definitions, imports and calls.

    The helpers of a repository are a function of these of every file (`Repository.raiser_table`).
    """
    return hashlib.sha256(repr((defined, sorted(imported.items()), calls)).encode("utf-8", "surrogatepass")).hexdigest()


def definitions_digest(defined: tuple[Defined, ...], imported: dict[str, str]) -> str:
    """Return a digest of a file's definitions (names, parameters and what they default to or are annotated with,
    bases, where each is defined) and imports: what finding another file's sites may read of it without its syntax.

    Its calls are left out: a call changed that makes no new helper changes no other file's sites.
    """
    return hashlib.sha256(repr((defined, sorted(imported.items()))).encode("utf-8", "surrogatepass")).hexdigest()


def blob_id(data: bytes) -> str:
    """Return the id git gives a file of these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class FactStore:
    """The kept facts of files, in the user's cache folder, for one errorsite and one choice of settings.

    A store opened for a repository folder (`open`'s `where`) also reads and keeps its pack: one entry holding a
    copy of every entry the folder's last run used, read at once, and one of what later runs added to it (`save`).
    A re-extract of a large library reads thousands of entries, and one read and one check of their
    authentication cost less than thousands. The entries stay where they are (the pack is only a copy), so
    another checkout, another branch or a lost pack finds them.
    """

    def __init__(self, folder: Path, secret: bytes, salt: bytes, pack: str | None = None) -> None:
        self.folder = folder
        """The folder of entries, proven the user's own."""
        self.secret = secret
        """The user's cache key."""
        self.salt = salt
        """What besides path and blob an entry's name depends on: errorsite's code and the settings."""
        self.pack = pack
        """The name of the pack entry of the repository folder the store was opened for (None: no pack)."""
        self.whole: dict[str, Packed] = self._read_pack(pack) if pack is not None else {}
        """The pack as last written whole, by entry name."""
        self.added: dict[str, Packed] = self._read_pack(self.added_name()) if pack is not None else {}
        """What later runs added to it (entries new or made again), by entry name."""
        self.packed: dict[str, Packed] = {**self.whole, **self.added}
        """The pack as read, by entry name."""
        self.used: dict[str, Packed] = {}
        """What this run read or wrote, as `packed` holds it."""

    @classmethod
    def open(cls, asserts: bool, warns: bool, where: Path | None = None) -> FactStore:
        """Return the store of the user's cache folder for a scan with these settings; with the pack of the
        repository folder `where`, when given."""
        # Another Python may parse the same bytes otherwise (f-strings, new syntax).
        python = sys.version.encode()
        salt = hashlib.sha256(FORMAT + b"\0" + _code_digest() + b"\0" + python + bytes([asserts, warns])).digest()
        folder = own_folder(user_cache() / "facts")
        pack = None if where is None else _entry_name(salt, "pack", str(where.resolve()), "")
        return cls(folder, key(), salt, pack)

    @classmethod
    def usable(cls, asserts: bool, warns: bool, command: str, where: Path | None = None) -> FactStore | None:
        """Return the store `open` gives, or None when the user's cache folder is refused: `command` then reads every
        file, as it would with nothing kept, and says so in one line (as `lookup` does)."""
        try:
            return cls.open(asserts, warns, where)
        except UnsafeCache as refused:
            print(f"errorsite: {command} reads every file: {refused.message}", file=sys.stderr)
            return None

    def get(self, path: str, blob: str) -> Kept | None:
        """Return what was kept of a file, or None when nothing was or the entry fails its check."""
        kept = self._read(path, blob)
        return kept if isinstance(kept, Kept) else None

    def scanned(self, path: str, blob: str) -> bool:
        """Return whether the pack holds what a scan kept of the file at these bytes (a scan of extract or check,
        which read only files that are no copy of errorsite's link helper: `globs.without_link_helper`)."""
        return self._name(path, blob) in self.packed

    def put(self, path: str, blob: str, kept: Kept) -> None:
        """Keep what a scan found of a file, whole or not at all."""
        self._write(path, blob, "", kept)

    def calls(self, path: str, blob: str) -> tuple[Calls, ...] | None:
        """Return the kept calls of each function of a file (`raisers.Calls`), read apart: most scans need none."""
        calls = self._read(path, blob, "calls")
        return calls if isinstance(calls, tuple) else None

    def index(self, path: str, blob: str) -> FileIndex | None:
        """Return the kept index of a file's definitions and calls (`context.FileIndex`), read apart: `check
        --source` needs none."""
        index = self._read(path, blob, "index")
        return index if isinstance(index, FileIndex) else None

    def keep_index(self, path: str, blob: str, index: FileIndex) -> None:
        """Keep the index of a file."""
        self._write(path, blob, "index", index)

    def annotations(self, path: str, blob: str) -> dict[bytes, Annotation] | None:
        """Return the callers and names of a file's sites as a scan found them (`Context.annotate`)."""
        found = self._read(path, blob, "annotations")
        return found if isinstance(found, dict) else None

    def keep_annotations(self, path: str, blob: str, annotations: dict[bytes, Annotation]) -> None:
        """Keep the callers and names of a file's sites."""
        self._write(path, blob, "annotations", annotations)

    def raisers(self, inputs: str) -> list[KeptRaiser] | None:
        """Return the helpers and factories found in files of these inputs (a digest of every file's
        `inputs_digest`), or None when no scan kept them."""
        table = self._read("", inputs, "raisers")
        return table if isinstance(table, list) and all(isinstance(r, KeptRaiser) for r in table) else None

    def keep_raisers(self, inputs: str, table: list[KeptRaiser]) -> None:
        """Keep the helpers and factories found in files of these inputs."""
        self._write("", inputs, "raisers", table)

    def own_messages(self, digest: str) -> OwnMessages | None:
        """Return the classes' own messages a scan of files of these definitions and helpers (`scan._Kept.digest`)
        found, or None when none kept them."""
        found = self._read("", digest, "own")
        return found if isinstance(found, OwnMessages) else None

    def keep_own_messages(self, digest: str, found: OwnMessages) -> None:
        """Keep the classes' own messages a scan found."""
        self._write("", digest, "own", found)

    def last_raisers(self) -> RaisersFrom | None:
        """Return what the helpers the last scan of the repository folder the store was opened for were found from,
        or None when none kept it (or the store was opened for no folder)."""
        if self.pack is None:
            return None
        found = self._named_entry(_entry_name(self.salt, "raisers from", self.pack, ""))
        return found if isinstance(found, RaisersFrom) else None

    def keep_last_raisers(self, found: RaisersFrom) -> None:
        """Keep what the helpers of a scan of the repository folder the store was opened for were found from."""
        if self.pack is not None:
            self._keep_named_entry(_entry_name(self.salt, "raisers from", self.pack, ""), found)

    def raise_lines(self, blob: str) -> frozenset[int] | None:
        """Return the lines of a file's raises, calls and returns (what `check --source` asks of a pinned file),
        or None when they were not kept."""
        lines = self._read("", blob, "lines")
        return lines if isinstance(lines, frozenset) else None

    def keep_raise_lines(self, blob: str, lines: frozenset[int]) -> None:
        """Keep the raise lines of a file."""
        self._write("", blob, "lines", lines)

    def last_run(self, content: Path, repo: Path) -> LastRun | None:
        """Return what the last extract of `repo` into `content` left there (`lastrun`), or None when no run kept it
        or its entry fails its check."""
        value = self._folder_entry("last run", content, repo)
        return value if isinstance(value, LastRun) else None

    def keep_last_run(self, content: Path, repo: Path, last: LastRun) -> None:
        """Keep what an extract of `repo` into `content` left there."""
        self._keep_folder_entry(last, "last run", content, repo)

    def pins_in_step(self, repo: Path) -> frozenset[bytes]:
        """Return the pins `check --source` of the repository folder `repo` found in step with their files (see
        `check.pin_key`); none when no run kept them."""
        value = self._folder_entry("pins", repo)
        return value if isinstance(value, frozenset) else frozenset()

    def keep_pins_in_step(self, repo: Path, pins: frozenset[bytes]) -> None:
        """Keep the pins a check of the repository folder `repo` found in step with their files."""
        self._keep_folder_entry(pins, "pins", repo)

    def records_checked(self, content: Path) -> frozenset[bytes]:
        """Return the record files of the content folder `content` that passed `validate.check_record`, by
        `validate.checked_key`; none when no check kept them."""
        value = self._folder_entry("records checked", content)
        return value if isinstance(value, frozenset) else frozenset()

    def keep_records_checked(self, content: Path, keys: frozenset[bytes]) -> None:
        """Keep the record files of `content` that passed `validate.check_record`."""
        self._keep_folder_entry(keys, "records checked", content)

    def _folder_entry(self, part: str, *folders: Path) -> object:
        """Return the entry of `part` kept for these folders (by their real paths), or None when there is none or it
        fails its check. Never from the pack: a pack holds what an earlier run used, and these change every run."""
        return self._named_entry(self.folder_entry_name(part, folders))

    def _named_entry(self, name: str) -> object:
        """Return the entry of this name, or None (see `_folder_entry`)."""
        body = self._authentic(name, MAX_ENTRY_BYTES)
        if body is None:
            return None
        try:
            value = pickle.loads(body)
        except Exception:  # authenticated, so ours: see `_read`
            return None
        _touch(self.folder / name)  # used by this run (see `_read`)
        return value

    def _keep_folder_entry(self, value: object, part: str, *folders: Path) -> None:
        self._keep_named_entry(self.folder_entry_name(part, folders), value)

    def _keep_named_entry(self, name: str, value: object) -> None:
        body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        write_cached(self.folder / name, self._code(name, body), body)

    def folder_entry_name(self, part: str, folders: tuple[Path, ...]) -> str:
        """Return the name of the entry of `part` kept for these folders (`last_run`, `pins_in_step`, ...)."""
        return _entry_name(self.salt, part, "\0".join(str(folder.resolve()) for folder in folders), "")

    def save(self, blobs: Mapping[str, str]) -> None:
        """Keep the pack: what this run used, and what the last pack held of the files at their bytes in `blobs`
        (the files of the repository now) that every extract reads, so that `extract` and `check --source` of one
        folder share one pack although each reads only part of it.

        What the pack written whole lacks goes to a second entry of what was added (a run after a small change writes
        a few entries, not tens of megabytes), until that and what the whole one holds that no run needs pass
        ADDED_SHARE of it: then the pack is written whole again. Nothing is written when the pack would hold what it
        holds."""
        if self.pack is None:
            return
        self._keep_apart(blobs)
        kept = {**{name: entry for name, entry in self.packed.items()
                   if entry.part in CARRIED and entry.path and blobs.get(entry.path) == entry.blob},
                **{name: entry for name, entry in self.used.items() if entry.part in CARRIED or not entry.path}}
        # An entry taken from the pack is the very view the pack read: one made or read again is not.
        added = {name: entry for name, entry in kept.items()
                 if name not in self.whole or entry.body is not self.whole[name].body}
        if added.keys() == self.added.keys() and all(entry.body is self.added[name].body for name, entry in added.items()):
            _touch(self.folder / self.pack)
            _touch(self.folder / self.added_name())
            return
        spare = sum(len(entry.body) for name, entry in self.whole.items() if name not in kept)
        whole = sum(len(entry.body) for entry in self.whole.values())
        if self.whole and sum(len(entry.body) for entry in added.values()) + spare <= ADDED_SHARE * whole:
            self._write_pack(self.added_name(), added)
            _touch(self.folder / self.pack)  # used as well (see `_read`)
        else:
            self._write_pack(self.pack, kept)
            self._write_pack(self.added_name(), {})

    def _keep_apart(self, blobs: Mapping[str, str]) -> None:
        """Mark as used the kept parts of the files at their bytes in `blobs` that no pack holds (their calls and
        index), read by this run or not.

        A run reads them only when the helpers or the layout change, and then reads every file's: were their times
        those of the last run that read them, the Action, which lets go of what its run did not use, would leave
        the next such change to make them all again from the files' syntax (on Django, a new import took 6-10 s
        instead of 3 s). Setting the times of thousands of entries costs a few hundredths of a second."""
        names = [name for path, blob in blobs.items() for part in APART
                 if (name := self._name(path, blob, part)) not in self.used]
        _touch_all(self.folder, names)  # nothing for a name none is kept by

    def _write_pack(self, name: str, entries: Mapping[str, Packed]) -> None:
        # The entries' bodies follow their table, one after the other: a pack read is one buffer that each entry
        # is a view of, never a copy (a pickle of the bodies would double the memory of reading the pack).
        table: dict[str, tuple[str, str, str, int, int]] = {}
        at = 0
        for entry_name, entry in entries.items():
            table[entry_name] = (entry.path, entry.blob, entry.part, at, at + len(entry.body))
            at += len(entry.body)
        head = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
        chunks = [len(head).to_bytes(8, "big"), head, *(entry.body for entry in entries.values())]
        write_cached(self.folder / name, self._code(name, *chunks), *chunks)

    def _read_pack(self, name: str) -> dict[str, Packed]:
        view = self._authentic(name, MAX_PACK_BYTES)
        if view is None:
            return {}
        try:
            size = int.from_bytes(view[:8], "big")
            table = pickle.loads(view[8:8 + size])
            bodies = view[8 + size:]
            return {entry: Packed(path, blob, part, bodies[start:end])
                    for entry, (path, blob, part, start, end) in table.items()}
        except Exception:  # authenticated, so ours: see `_read`
            return {}

    def joined(self) -> JoinedIndex | None:
        """Return the kept join of the indexes of the repository folder the store was opened for (`joined`), or None
        when it was opened for none."""
        if self.pack is None:
            return None
        return JoinedIndex(self.folder / f"{_entry_name(self.salt, 'joined', self.pack, '')}.sqlite", self.secret)

    def added_name(self) -> str:
        """Return the name of the entry of what was added to the pack since it was written whole."""
        assert self.pack is not None
        return _entry_name(self.salt, "added", self.pack, "")

    def _read(self, path: str, blob: str, part: str = "") -> object:
        name = self._name(path, blob, part)
        entry = self.packed.get(name)
        body = entry.body if entry is not None else self._authentic(name, MAX_ENTRY_BYTES)
        if body is None:
            return None
        try:
            value = pickle.loads(body)
        except Exception:  # authenticated, so ours: an unpickling error means another Python wrote it
            return None
        self._use(name, Packed(path, blob, part, body))
        if entry is None:
            # An entry's time is when a run last used it: what no run has used since a given time can go (the Action
            # lets go of what a run did not read before it saves the folder). One taken from the pack is used through
            # the pack, whose time `save` sets: touching each of thousands of entries cost a twentieth of a re-extract.
            _touch(self.folder / name)
        return value

    def _authentic(self, name: str, limit: int) -> memoryview | None:
        """Return the body of the entry `name` once its authentication holds, or None.

        A view, not a copy: a pack of a large library is tens of megabytes, and each copy of it counts in the peak
        memory of the run."""
        data = read_cached(self.folder / name, limit)
        if data is None or len(data) < _CODE_BYTES:
            return None
        view = memoryview(data)
        body = view[_CODE_BYTES:]
        return body if hmac.compare_digest(view[:_CODE_BYTES], self._code(name, body)) else None

    def keep_pickled(self, path: str, blob: str, part: str, body: bytes, written: bool = False) -> None:
        """Keep one part of a file's facts pickled already (`written`: by another process, so that this one only notes
        it used)."""
        name = self._name(path, blob, part)
        if written and name in self.used:
            return  # written in this process
        if not written:
            write_cached(self.folder / name, self._code(name, body), body)
        self._use(name, Packed(path, blob, part, body))

    def _use(self, name: str, entry: Packed) -> None:
        """Note an entry this run read or wrote; with its bytes only when a pack may hold it (`save`): the calls and
        indexes of a large library are tens of megabytes, read or made once."""
        self.used[name] = entry if entry.part in CARRIED or not entry.path else entry._replace(body=b"")

    def _write(self, path: str, blob: str, part: str, value: object) -> None:
        self.keep_pickled(path, blob, part, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def _name(self, path: str, blob: str, part: str = "") -> str:
        """Return the name of an entry: of a file's facts, or of one `part` of them ("" for the path of what does
        not depend on where the file is)."""
        return _entry_name(self.salt, part, path, blob)

    def _code(self, name: str, *body: bytes | memoryview) -> bytes:
        """Return the authentication of an entry whose body is `body`'s chunks, one after the other."""
        code = hmac.new(self.secret, name.encode() + b"\0", hashlib.sha256)
        for chunk in body:
            code.update(chunk)
        return code.digest()


def _entry_name(salt: bytes, part: str, path: str, blob: str) -> str:
    key = salt + part.encode() + b"\0" + path.encode("utf-8", "surrogateescape") + b"\0" + blob.encode()
    return hashlib.sha256(key).hexdigest()[:40]


def _touch(path: Path) -> None:
    try:
        os.utime(path, follow_symlinks=False)
    except OSError:
        pass


def _touch_all(folder: Path, names: list[str]) -> None:
    """Set the time of each entry of `folder` by these names that is there.

    By names relative to the folder opened once, where the system allows it: looking up a path of the cache folder
    (tens of thousands of entries) for each of sglang's 8,000 took three times as long as the touches."""
    if os.utime not in os.supports_dir_fd or os.utime not in os.supports_follow_symlinks:
        for name in names:
            _touch(folder / name)
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return
    try:
        for name in names:
            try:
                os.utime(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                pass
    finally:
        os.close(fd)


@lru_cache(maxsize=1)
def _code_digest() -> bytes:
    """Return a digest of errorsite's own code: facts another version made are never read."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()
