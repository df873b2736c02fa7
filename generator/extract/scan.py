"""Find the raise sites of a repository's Python files at a commit.

A raise site is a place that raises an exception with a message the source
spells out: a `raise X(...)`, a call of one of the repository's raising
helpers (`self.fail(_("..."))`), a `raise` of what an exception factory
builds, and the message an exception class of the repository builds itself
(with `--asserts`, also `assert cond, "message"`, recorded as
`AssertionError`; with `--warnings`, `warnings.warn("message", Category)`).
Each becomes a `RaiseSite`; raises whose message is computed elsewhere are
listed as `Skipped`, raises of a class that builds its own message as
`Mapped`, files that do not parse as `ParseFailure`. docs/extract.md gives
the rules.

Lines. A file's lines end at `\\n`, `\\r\\n` or a lone `\\r`, as Python itself
counts them (a form feed is not a line break). A snippet's code is its lines
verbatim, tabs and `\\r` included, joined, without the last line's line break:
a snippet of n lines holds exactly n - 1 line breaks.

Snippet rule. A raise inside a function shows the whole function, from its
first decorator line to its last line, when that is at most 40 lines. A longer
function shows a window from 12 lines before the raise statement's first line
to 12 lines after its last line, clipped to the function. A raise outside any
function shows the same window clipped to the file.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import os
import pickle
import re
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Literal, NamedTuple

from ..collector import collector_off
from ..model import Variant
from ..sitebuild import workers
from .context import Annotation, FileIndex, Guards, annotated_digest, index_file, join, site_key
from .git import Blobs
from .joined import DamagedJoin
from .facts import FactStore, Found, Kept, OwnMessages, RaisersFrom, blob_id, definitions_digest, inputs_digest
from .messages import (
    FORMATTED, HOLE, Message, Names, Source, decode_source, dotted, first_message, inline, message, plain, says_something,
    spelled,
    template,
    unique_variants,
)
from .raisers import EXCEPTION_NAME, KEY_EXCEPTIONS, OWN_MESSAGE_METHODS, Calls, ClassBuilt, Defined, ClassInfo, Function, ParsedFile, Raiser, Repository, Shape, body_nodes, KeptRaiser, KeptRaisers, note_read, reading, with_hole
from .sites import Mapped, ParseFailure, RaiseSite, Scan, Skipped
from .strings import Pieces, Scope, Strings, template_of

SNIPPET_MAX_LINES = 40
"""A function this long or shorter is shown whole."""

WINDOW = 12
"""Lines shown before and after a raise in a longer function or at module level."""

MESSAGE_MAX = 4000
"""The longest message a record may carry."""

KEEP_PARSED = 32
"""How many files a scan keeps parsed besides those it is finding sites in (the bases, factories and tables many
files read): the rest are parsed again when read again."""

MAX_FILE_BYTES = 5_000_000
"""Larger files are skipped unread: generated code that would take gigabytes to parse."""

_MESSAGE_FIELD = re.compile(r"(?<!\{)\{(?:self\.)?(?:message|msg)\}(?!\})")
"""The field an exception class's own message puts the message it was given in."""

_GIVEN_MESSAGE = frozenset({"message", "msg", "args"})
"""Attributes (`self.message`) that hold the message an exception was given."""

_DECORATION = re.compile(r"\{(?:self\.)?(?:message|msg|text|args\[0\])\}|\{super\(\)\.__str__\(\)\}")
"""A template starting with the message the exception was given only decorates it (`{text}\n  see {url}`)."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
"""Characters a file name shown in the report may not hold."""


LEFT_FOR_EXIT: list[object] = []
"""What whole-repository scans made, when the process ends without freeing its objects (`leave_for_exit`)."""
_leaving = False


def leave_for_exit() -> None:
    """Say that this process ends without freeing its objects one by one (`cli.run`): a whole-repository scan then
    leaves its syntax trees to the end of the process instead of freeing them (a tenth of an extract of sglang)."""
    global _leaving
    _leaving = True


@dataclass
class Memo:
    """What scans of one library's successive releases share: each file parsed once, each function's shape found once.

    A scan keeps only what it read, so that a walk over many releases holds two at most.
    """

    parsed: dict[tuple[str, bytes], ParsedFile | Skipped | ParseFailure] = field(default_factory=dict)
    """(path, contents) -> the file parsed."""
    shapes: dict[ast.AST, Shape] = field(default_factory=dict)
    """A function's node -> its body's shape (see `raisers.Shape`)."""
    calls: dict[tuple[str, bytes], tuple[Calls, ...]] = field(default_factory=dict)
    """(path, contents) -> the calls of each function of the file (see `raisers.Calls`)."""


def scan_files(files: Mapping[str, bytes], asserts: bool = False, warns: bool = False, memo: Memo | None = None,
               context: bool = False, whole: bool = False, store: FactStore | None = None,
               blobs: Mapping[str, str] | None = None) -> Scan:
    """Return the raise sites, skipped raises and parse failures of `files`, in path order; `memo` shares work between
    scans, `store` between runs (`facts`).

    With `context`, each site has its callers and names (`context.Context`): extract writes them; a walk
    over releases and a check of pins have no use for them. `whole` says this is the one scan of a
    whole repository the command makes (see `leave_for_exit`). `blobs` gives the blob id of each file
    when git told it (`git.Snapshot.blobs`); the store's keys are made of the bytes otherwise.
    """
    with collector_off():
        try:
            return _scan(files, asserts, warns, memo, context, whole and _leaving, store, blobs)
        finally:
            if whole and _leaving:
                gc.freeze()  # the trees left for the end of the process: never walked by the collector again


def _scan(files: Mapping[str, bytes], asserts: bool, warns: bool, memo: Memo | None = None, context: bool = False,
          leave: bool = False, store: FactStore | None = None, blobs: Mapping[str, str] | None = None) -> Scan:
    """Return what `scan_files` returns; with `leave`, leave the trees in `LEFT_FOR_EXIT`."""
    kept = _Kept(files, store, context, blobs)
    read, parsed, skipped, failures = _read(files, memo, kept)
    repo = Repository(parsed, memo.shapes if memo is not None else None, kept.loaders(parsed, files, memo),
                      kept.raisers if store is not None else None)
    if leave:
        LEFT_FOR_EXIT.append(repo)
    kept.keep_raisers(repo)
    if store is not None:
        repo.let_calls_go()
    kept.watch(parsed)
    own, decorations = kept.own_messages(repo)
    _printed_by_bases(repo, own, decorations)
    sites = [site for found in own.values() for site in found]
    keys: list[bytes | None] = [None] * len(sites)  # each site's `site_key`, when its file's finder made it
    mapped: list[Mapped] = []
    strings = Strings(repo)
    for file, found in zip(parsed, kept.found(repo, parsed, lambda file: _Finder(
            repo, file, own, asserts, warns, strings, decorations).sites())):
        found_keys = iter(found.keys)
        for found_site in found.results:
            if isinstance(found_site, RaiseSite):
                sites.append(found_site)
                keys.append(next(found_keys, None))
            elif isinstance(found_site, Mapped):
                mapped.append(found_site)
            else:
                skipped.append(found_site)
    if memo is not None:
        memo.parsed = read
        memo.shapes = repo.shapes()
        memo.calls = {(f.path, files[f.path]): tuple(repo.calls_of(fn) for fn in repo.functions_in(f)) for f in parsed}
    digests: tuple[bytes, ...] = ()
    if context:
        # A call by a name the repository defines nowhere calls none of its functions: callers are asked by name.
        called = frozenset({f.name for f in repo.functions} | {c.name for c in repo.classes})
        # The sites are found: joining the indexes reads no file's bytes (an index kept nowhere is made again from
        # the file, read again). A first extract of a large library held them all, tens of megabytes, at its peak.
        if isinstance(files, Blobs):
            files.forget()
        # Read only now: the workers that find the sites fork with all the scan holds.
        made = kept.annotated(repo, called, sites, keys, parsed) if store is not None \
            else join((kept.index(repo, file) for file in parsed), called).annotate(sites, None, keys)
        made.sort(key=lambda found: found[0])
        sites = [site for site, _, _ in made]
        digests = tuple(annotated_digest(key, annotation) for _, key, annotation in made)
    return Scan(tuple(sorted(sites)), tuple(sorted(skipped)), tuple(sorted(failures)), len(files), tuple(sorted(mapped)),
                digests)


def _read(files: Mapping[str, bytes], memo: Memo | None, kept: _Kept
          ) -> tuple[dict[tuple[str, bytes], ParsedFile | Skipped | ParseFailure], list[ParsedFile], list[Skipped],
                     list[ParseFailure]]:
    """Return every file read (by path and contents), those that parse, those skipped, and those that do not parse."""
    known = memo.parsed if memo is not None else {}
    read: dict[tuple[str, bytes], ParsedFile | Skipped | ParseFailure] = {}
    parsed: list[ParsedFile] = []
    skipped: list[Skipped] = []
    failures: list[ParseFailure] = []
    with warnings.catch_warnings():
        # Old code trips invalid-escape warnings at parse time; they say nothing about raises.
        warnings.simplefilter("ignore")
        for path in sorted(files):
            # A file whose facts were kept is read only if a finder reads its syntax (`ParsedFile.data`).
            found = kept.file(path, partial(files.__getitem__, path))
            if found is None or memo is not None:
                key = (path, files[path])
                if found is None:
                    found = known[key] if key in known else _parse(path, files[path])
                read[key] = found
            if isinstance(found, ParsedFile):
                parsed.append(found)
            elif isinstance(found, Skipped):
                skipped.append(found)
            else:
                failures.append(found)
    return read, parsed, skipped, failures


class _Kept:
    """What a scan with a store (`facts`) reads back of each file and keeps of it: facts made on every core for the
    files nothing was kept of, sites taken as they were when nothing they read changed."""

    def __init__(self, files: Mapping[str, bytes], store: FactStore | None, context: bool,
                 blobs: Mapping[str, str] | None) -> None:
        """Read back what `store` kept of `files` (nothing without a store); make the facts of the rest, with their
        index when `context`. `blobs` are the files' blob ids when git told them."""
        self.store = store
        self.files = files
        """The files scanned."""
        self.blobs = {path: blobs[path] if blobs is not None and path in blobs else blob_id(files[path])
                      for path in files} if store is not None else {}
        """The blob id of each file, by path."""
        self.kept = {path: store.get(path, blob) for path, blob in self.blobs.items()} if store is not None else {}
        """What was kept of each file (None: nothing)."""
        self.made: dict[str, Alone | Skipped | ParseFailure] = {}
        """What each file nothing was kept of says alone, or why it cannot be read."""
        if store is not None:
            unknown = [path for path in sorted(files) if self.kept.get(path) is None]
            _prefetch(files, unknown)
            # The files nothing was kept of say what they say alone on every core; only facts come back, never trees,
            # and their calls and indexes are kept by the workers that made them: read from the store when asked.
            self.made = dict(zip(unknown, workers.map_items(partial(_alone, files, context, store), unknown,
                                                            os.cpu_count() or 1)))
            for path, alone in self.made.items():
                if isinstance(alone, Alone):
                    store.keep_pickled(path, self.blobs[path], "calls", b"", written=True)
                    if context:
                        store.keep_pickled(path, self.blobs[path], "index", b"", written=True)
        self.inputs: dict[str, str] = {}
        """Each file's `facts.inputs_digest`, once `raisers` asked."""
        self.definitions: dict[str, str] = {}
        """Each file's `facts.definitions_digest`, once `raisers` asked."""
        self.combined = ""
        """The digest of every file's inputs, once `raisers` asked."""
        self.loaded: dict[str, ParsedFile] = {}
        """The files parsed again, oldest first (see `watch`)."""
        self._digest: bytes | None = None
        """`digest`'s answer."""
        self.exact = False
        """The helpers were kept by a scan of files of these very definitions, imports and calls."""
        self._last_raisers: RaisersFrom | None | Literal[False] = False
        """`last_raisers`' answer (False: not read yet)."""

    def file(self, path: str, data: Callable[[], bytes]) -> ParsedFile | Skipped | ParseFailure | None:
        """Return the file at `path` as what was kept or made of it says, not parsed; None when nothing was."""
        before = self.kept.get(path)
        if before is not None:
            return ParsedFile(path, data, defined=before.defined, imported=before.imported)
        alone = self.made.get(path)
        if isinstance(alone, Alone):
            return ParsedFile(path, data, defined=alone.defined, imported=alone.imported)
        return alone

    def loaders(self, parsed: list[ParsedFile], files: Mapping[str, bytes], memo: Memo | None
                ) -> dict[str, Callable[[], Sequence[Calls] | None]]:
        """Return what gives each file's calls: those kept or made by a worker are read from the store when first
        asked for (when helpers must be found again), a walk over releases has its memo's."""
        loaders: dict[str, Callable[[], Sequence[Calls] | None]] = {}
        if self.store is not None:
            loaders.update((path, partial(self.store.calls, path, self.blobs[path])) for path in self.files
                           if self.kept.get(path) is not None or isinstance(self.made.get(path), Alone))
        if memo is not None:
            loaders.update((f.path, partial(memo.calls.__getitem__, (f.path, files[f.path]))) for f in parsed
                           if (f.path, files[f.path]) in memo.calls)
        return loaders

    def raisers(self, repo: Repository) -> KeptRaisers | None:
        """Return the helpers a scan of files of the same definitions, imports and calls found, if one kept them; else
        those the folder's last scan found, when only the calls of some files changed since (the repository checks
        that they still hold, `Repository._still_holds`)."""
        assert self.store is not None
        for file in repo.files:
            # Every file parsed was kept, or made alone by a worker (with a store, nothing else is read).
            facts = self.kept.get(file.path) or self.made[file.path]
            assert isinstance(facts, (Kept, Alone))
            self.inputs[file.path], self.definitions[file.path] = facts.inputs, facts.definitions
        self.combined = hashlib.sha256(repr(sorted(self.inputs.items())).encode("utf-8", "surrogatepass")).hexdigest()
        table = self.store.raisers(self.combined)
        if table is not None:
            self.exact = True
            return KeptRaisers(table, frozenset())
        last = self.last_raisers()
        if last is not None and last.inputs.keys() == self.inputs.keys():
            changed = frozenset(path for path, digest in last.inputs.items() if digest != self.inputs[path])
            table = self.store.raisers(last.combined)
            if table is not None and all(last.definitions[path] == self.definitions[path] for path in changed):
                return KeptRaisers(table, changed)
        if not workers.parallel(os.cpu_count() or 1, len(repo.files)):
            return None  # found by the repository itself
        # Found in a forked process: finding them reads every function's calls, over a hundred megabytes on a large
        # library that this process would keep (and the workers that find the sites, forked from it, count again).
        return KeptRaisers(workers.apart(partial(_raiser_table, repo), os.cpu_count() or 1), frozenset())

    def keep_raisers(self, repo: Repository) -> None:
        """Keep the helpers the repository found or took, by what they were found from, and what the folder's scan
        found them from."""
        if self.store is None:
            return
        if not self.exact:
            self.store.keep_raisers(self.combined, repo.raiser_table())
        last = self.last_raisers()
        if last is None or last.combined != self.combined:
            self.store.keep_last_raisers(RaisersFrom(self.combined, self.inputs, self.definitions))

    def last_raisers(self) -> RaisersFrom | None:
        """Return what the helpers of the folder's last scan were found from (`FactStore.last_raisers`), read once."""
        assert self.store is not None
        if self._last_raisers is False:
            self._last_raisers = self.store.last_raisers()
        return self._last_raisers

    def watch(self, parsed: list[ParsedFile]) -> None:
        """Note each file parsed from now on, so that `found` lets the oldest go (see KEEP_PARSED)."""
        if self.store is not None:
            for file in parsed:
                file.on_load = self._remember

    def _remember(self, file: ParsedFile) -> None:
        self.loaded[file.path] = file

    def index(self, repo: Repository, file: ParsedFile) -> FileIndex:
        """Return a file's index: kept (by a scan, or by the worker that made its facts), or made now (and kept)."""
        index = self.store.index(file.path, self.blobs[file.path]) if self.store is not None else None
        if index is None:
            index = index_file(file.path, file.tree, _calls(repo, file))
            if self.store is not None:
                self.store.keep_index(file.path, self.blobs[file.path], index)
        return index

    def digest(self, repo: Repository) -> bytes:
        """Return the digest of what a finder reads of other files without their syntax: their definitions and imports,
        and the helpers (b"" without a store)."""
        if self.store is not None and self._digest is None:
            self._digest = hashlib.sha256(repr((sorted(self.definitions.items()), repo.raiser_table())).encode(
                "utf-8", "surrogatepass")).digest()
        return self._digest or b""

    def own_messages(self, repo: Repository) -> tuple[dict[int, list[RaiseSite]], dict[int, list[str]]]:
        """Return the sites of the messages exception classes build themselves, and the texts they print a given
        message in (`_own_messages`, `_decorations`), by `id()` of the class: as kept when the definitions, the
        helpers and the files whose syntax finding them read are the same, else found now, and kept."""
        if self.store is None:
            return _own_messages(repo), _decorations(repo)
        digest = self.digest(repo)
        before = self.store.own_messages(digest.hex())
        places = {(info.file.path, info.position): info for info in repo.classes}
        if before is not None and all(self.blobs.get(path) == blob for path, blob in before.reads) \
                and all(place in places for place, _ in (*before.own, *before.decorations)):
            return ({id(places[place]): list(sites) for place, sites in before.own},
                    {id(places[place]): list(texts) for place, texts in before.decorations})
        with reading() as reads:
            own, decorations = _own_messages(repo), _decorations(repo)
        by_id = {id(info): (info.file.path, info.position) for info in repo.classes}
        self.store.keep_own_messages(digest.hex(), OwnMessages(
            tuple((by_id[key], tuple(sites)) for key, sites in own.items()),
            tuple((by_id[key], tuple(texts)) for key, texts in decorations.items()),
            tuple((path, self.blobs.get(path, "")) for path in sorted(reads))))
        return own, decorations

    def found(self, repo: Repository, parsed: list[ParsedFile],
              finder: Callable[[ParsedFile], Iterable[RaiseSite | Skipped | Mapped]]
              ) -> list[Found]:
        """Return what `finder` finds in each file: as kept when nothing it read changed, else found now (on every
        core when the files are many: each worker forks with the repository and sends back sites), and kept."""
        digest = self.digest(repo)

        def still(found: Found | None) -> bool:
            return found is not None and found.digest == digest and all(self.blobs.get(p) == b for p, b in found.reads)

        def find(number: int) -> tuple[tuple[RaiseSite | Skipped | Mapped, ...], tuple[str, ...]]:
            """Return the sites of the file `parsed[number]` and the files whose syntax finding them read."""
            with reading() as reads:
                found_here = tuple(finder(parsed[number]))
            while len(self.loaded) > KEEP_PARSED:
                repo.forget(self.loaded.pop(next(iter(self.loaded))))
            return found_here, tuple(sorted(reads))

        befores = [self.kept.get(file.path) for file in parsed]
        refind = [n for n, before in enumerate(befores) if not still(before.found if before is not None else None)]
        # The files found again and those they read when last found, at once; every file when many are found again.
        wanted = {parsed[n].path for n in refind}
        for n in refind:
            before = befores[n]
            if before is not None and before.found is not None:
                wanted.update(path for path, _ in before.found.reads)
        _prefetch(self.files, self.files if workers.parallel(os.cpu_count() or 1, len(refind)) else wanted)
        jobs = (os.cpu_count() or 1) if self.store is not None else 1
        found_now = dict(zip(refind, workers.map_items(find, refind, jobs)))
        out = []
        for number, (file, before) in enumerate(zip(parsed, befores)):
            if number in found_now:
                found_here, reads = found_now[number]
                results = Found(digest, tuple((p, self.blobs.get(p, "")) for p in reads), found_here,
                                tuple(site_key(r) for r in found_here if isinstance(r, RaiseSite)))
            else:
                assert before is not None and before.found is not None
                results = before.found
            if self.store is not None and (before is None or before.found is not results):
                # Its calls and index were kept where they were made (`_alone`).
                self.store.put(file.path, self.blobs[file.path],
                               Kept(file.defined, file.imported, self.inputs[file.path], self.definitions[file.path], results))
            out.append(results)
        return out


    def annotated(self, repo: Repository, called: frozenset[str], sites: list[RaiseSite], keys: list[bytes | None],
                  parsed: list[ParsedFile]) -> list[tuple[RaiseSite, bytes, Annotation]]:
        """Return the sites with their callers and names, each with its key and annotation (`Context.annotate`): as
        kept where what they read is the same, and kept. The indexes are joined as the folder's kept join allows
        (`joined`)."""
        assert self.store is not None
        before: dict[str, dict[bytes, Annotation]] = {}
        for file in parsed:
            if self.kept.get(file.path) is not None:
                before[file.path] = self.store.annotations(file.path, self.blobs[file.path]) or {}
        kept = {k: a for found in before.values() for k, a in found.items()}
        files = {file.path: file for file in parsed}

        def index(path: str) -> FileIndex:
            return self.index(repo, files[path])

        joined = self.store.joined()
        if joined is None:
            made = join((index(file.path) for file in parsed), called).annotate(sites, kept, keys)
        else:
            blobs = {file.path: self.blobs[file.path] for file in parsed}
            try:
                made = joined.context(blobs, index, called).annotate(sites, kept, keys)
            except DamagedJoin:
                joined.discard()
                made = joined.context(blobs, index, called).annotate(sites, kept, keys)
            joined.save()
        now: dict[str, dict[bytes, Annotation]] = defaultdict(dict)
        for site, key, annotation in made:
            now[site.path][key] = annotation
        for path, annotations in now.items():
            if annotations != before.get(path):
                self.store.keep_annotations(path, self.blobs[path], annotations)
        return made


def _raiser_table(repo: Repository) -> list[KeptRaiser]:
    """Return the helpers and factories of a repository that has taken none, found."""
    repo.find_raisers()
    return repo.raiser_table()


def _prefetch(files: Mapping[str, bytes], paths: Iterable[str]) -> None:
    """Read the bytes of `paths` at once when `files` reads them from git when asked (`git.Blobs`): rather than one
    git process per file, and before workers fork, each of which would read them one by one."""
    if isinstance(files, Blobs):
        files.load(paths)


class Alone(NamedTuple):
    """What a file says alone (see `_alone`)."""

    defined: tuple[Defined, ...]
    """Its classes and functions."""
    imported: dict[str, str]
    """The names it imports."""
    inputs: str
    """What finding helpers reads of it (`facts.inputs_digest`)."""
    definitions: str
    """Its definitions and imports alone (`facts.definitions_digest`)."""


def _alone(files: Mapping[str, bytes], context: bool, store: FactStore, path: str) -> Alone | Skipped | ParseFailure:
    """Return what the file at `path` says alone, or why it cannot be read; keep the calls of its functions and (with
    `context`) its index in `store`, where it runs (in a worker, the writes share the cores too).

    Neither comes back: the scan reads them from the store when asked, and holds neither their objects nor their
    bytes (tens of megabytes for a large library) while its workers find the sites, each forked with all it holds."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # see `_scan`
        file = _parse(path, files[path])
    if not isinstance(file, ParsedFile):
        return file
    alone = Repository([file], raisers=lambda repo: KeptRaisers((), frozenset()))
    calls = tuple(alone.calls_of(f) for f in alone.functions_in(file))
    index = index_file(file.path, file.tree, _calls(alone, file)) if context else None
    alone.forget(file)  # the collector is off during a scan: what holds syntax must let it go now
    blob = blob_id(files[path])
    store.keep_pickled(path, blob, "calls", pickle.dumps(calls, protocol=pickle.HIGHEST_PROTOCOL))
    if index is not None:
        store.keep_pickled(path, blob, "index", pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
    return Alone(file.defined, file.imported, inputs_digest(file.defined, file.imported, calls),
                 definitions_digest(file.defined, file.imported))


def _calls(repo: Repository, file: ParsedFile) -> Iterator[tuple[str, ast.Call]]:
    """Yield each call of a file, with the qualified name of its function: from the bodies the repository walked, and
    at module level."""
    for function in repo.functions_in(file):
        shape = repo.shape(function)
        for call in (*shape.raised, *shape.returned, *shape.calls):
            yield function.qualname, call
    for node in body_nodes(file.tree.body):
        if isinstance(node, ast.Call):
            yield "", node


def _parse(path: str, data: bytes) -> ParsedFile | Skipped | ParseFailure:
    """Return a file parsed, or why it is skipped: a name that is not text, too big, undecodable, unparsable."""
    shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if shown != path:
        return Skipped(_CONTROL.sub("?", shown), 0, "file name is not UTF-8")
    if _CONTROL.search(path):
        return Skipped(_CONTROL.sub("?", path), 0, "file name holds a control character (a line break, a tab)")
    if len(data) > MAX_FILE_BYTES:
        return Skipped(path, 0, f"file larger than {MAX_FILE_BYTES:,} bytes ({len(data):,})")
    try:
        text = decode_source(data)
    except (SyntaxError, ValueError) as error:
        reason = error.msg if isinstance(error, SyntaxError) else str(error)
        return ParseFailure(path, f"cannot decode: {reason}")
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        where = f"line {error.lineno}: " if error.lineno else ""
        return ParseFailure(path, f"{where}{error.msg}")
    except RecursionError:
        return ParseFailure(path, "expressions nested too deeply to parse")
    except (ValueError, MemoryError) as error:
        return ParseFailure(path, str(error) or type(error).__name__)
    return ParsedFile(path, data, tree, text)


def _own_messages(repo: Repository) -> dict[int, list[RaiseSite]]:
    """Return the sites of the templates each exception class builds itself, by `id()` of the class.

    The places are an `__init__` passing a template to the base class, and
    each `return` of a template in `format_message` or `__str__`.
    """
    found: dict[int, list[RaiseSite]] = {}
    for info in repo.classes:
        if not repo.is_exception(info):
            continue
        places: list[tuple[Function, ast.stmt | ast.expr, list[ast.expr]]] = []
        init = info.methods.get("__init__")
        if init is not None and not _prints_otherwise(info):
            places += [(init, call, args) for call, args in _base_init_calls(init, repo)]
        for name in OWN_MESSAGE_METHODS:
            method = info.methods.get(name)
            if method is not None:
                places += [(method, node, [node.value]) for node in body_nodes(method.node.body)
                           if isinstance(node, ast.Return) and node.value is not None]
        for method, node, arguments in places:
            for argument in arguments:
                try:
                    site = _own_site(method, node, argument, info)
                except RecursionError:
                    continue
                if site is not None:
                    found.setdefault(id(info), []).append(site)
                    break
    return found


def _decorations(repo: Repository) -> dict[int, list[str]]:
    """Return, by `id()` of the class, the text an exception class prints the message it is given in: what its
    `__init__` passes to its base (tomlkit's `ParseError` passes `f"{message} at line {self._line} col {self._col}"`),
    and what its `__str__` or `format_message` adds after the message (`_added_after`)."""
    found: dict[int, list[str]] = {}
    for info in repo.classes:
        if not repo.is_exception(info):
            continue
        for name in OWN_MESSAGE_METHODS:
            method = info.methods.get(name)
            if method is not None:
                found.setdefault(id(info), []).extend(_added_after(method))
        init = info.methods.get("__init__")
        if init is None or _prints_otherwise(info):
            continue
        for _, arguments in _base_init_calls(init, repo):
            text = template(arguments[0], init.file.source)
            field_match = _MESSAGE_FIELD.match(text or "")
            if text and field_match and field_match.group(0).strip("{}") in init.holes and says_something(
                    _MESSAGE_FIELD.sub("", text)):
                found.setdefault(id(info), []).append(text)
    return {key: texts for key, texts in found.items() if texts}


def _added_after(method: Function) -> list[str]:
    """Return the texts a `__str__` or `format_message` prints the given message in, when it adds text after it.

    voluptuous's `Invalid.__str__`: `output = Exception.__str__(self)`, then `if self.error_type: output += ' for '
    + self.error_type`, then `return output + path`, gives `{message} for {self.error_type}{path}` (and
    `{message}{path}`, which adds no word and is left out). The message is `Base.__str__(self)`,
    `super().__str__()`, `self.message`, `self.msg` or `self.args[0]`, held in one variable that only `+=` (at the
    method's top level, or alone under an `if`) adds to.
    """
    if not method.params:
        return []
    source, this = method.file.source, method.params[0]
    held: str | None = None
    added = [""]
    for stmt in method.node.body:
        if isinstance(stmt, ast.Return):
            if stmt.value is None:
                return []
            ends = _after_given(stmt.value, held, this, source)
            texts = [] if ends is None else ["{message}" + text + ends for text in added]
            return [text for text in texts if says_something(_MESSAGE_FIELD.sub("", text))]
        if held is None:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and _is_given(stmt.value, this)):
                held = stmt.targets[0].id
            continue
        conditional = isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1
        step = stmt.body[0] if isinstance(stmt, ast.If) and conditional else stmt
        if isinstance(step, ast.AugAssign) and isinstance(step.op, ast.Add) and isinstance(step.target, ast.Name) \
                and step.target.id == held:
            piece = _piece(step.value, source)
            added = [text + piece for text in added] + (added if conditional else [])
        elif any(isinstance(n, ast.Name) and n.id == held and isinstance(n.ctx, ast.Store) for n in ast.walk(stmt)):
            return []
    return []


def _after_given(node: ast.expr, held: str | None, this: str, source: Source) -> str | None:
    """Return the text a returned expression adds after the given message (held in `held`), or None when it does not
    start with it: `output + path` gives `{path}`."""
    parts: list[ast.expr] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts.insert(0, node.right)
        node = node.left
    starts = (isinstance(node, ast.Name) and node.id == held) if held is not None else _is_given(node, this)
    return "".join(_piece(part, source) for part in parts) if starts else None


def _is_given(node: ast.expr, this: str) -> bool:
    """Return whether an expression is the message an exception was given: `Base.__str__(self)`,
    `super().__str__()`, `self.message`, `self.msg`, `self.args[0]`, or `str()` of one of them."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__str__":
        receiver = node.func.value
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
            return not node.args
        return isinstance(receiver, (ast.Name, ast.Attribute)) and len(node.args) == 1 \
            and isinstance(node.args[0], ast.Name) and node.args[0].id == this
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        node = node.value
        return isinstance(node, ast.Attribute) and node.attr == "args" and isinstance(node.value, ast.Name) \
            and node.value.id == this
    return isinstance(node, ast.Attribute) and node.attr in ("message", "msg") and isinstance(node.value, ast.Name) \
        and node.value.id == this


def _piece(node: ast.expr, source: Source) -> str:
    """Return the template of a piece added to a message: its text where the source spells it, else `{expr}`."""
    text = template(node, source)
    return text if text is not None else "{" + source.segment(node) + "}"


def _printed_by_bases(repo: Repository, own: dict[int, list[RaiseSite]], decorations: Mapping[int, list[str]]) -> None:
    """Give each class's own message the wording its base prints it in (`Unexpected character: {char!r} at line
    {self._line} col {self._col}`), as an alternative: what a user pastes."""
    for info in repo.classes:
        sites = own.get(id(info))
        if not sites:
            continue
        wraps = next((decorations[id(base)] for base in list(repo.lineage(info))[1:] if id(base) in decorations), [])
        if wraps:
            own[id(info)] = [replace(site, variants=unique_variants(site.message, [
                *site.variants, *(Variant(_put_message(w, t), "alternative")
                                  for t in [site.message, *(v.message for v in site.variants)] for w in wraps)]))
                for site in sites]


def _put_message(text: str, given: str) -> str:
    """Return `text` with the given message in its message field."""
    return _MESSAGE_FIELD.sub(lambda _: given, text)


def _prints_otherwise(info: ClassInfo) -> bool:
    """Return whether a class's own `__str__`/`format_message` prints without the message its `__init__` passes on."""
    methods = [info.methods[name] for name in OWN_MESSAGE_METHODS if name in info.methods]
    return bool(methods) and not any(
        isinstance(node, ast.Attribute) and node.attr in _GIVEN_MESSAGE and isinstance(node.value, ast.Name)
        or isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
        for method in methods for node in body_nodes(method.node.body)
    )


def _base_init_calls(init: Function, repo: Repository) -> Iterator[tuple[ast.Call, list[ast.expr]]]:
    """Yield each `super().__init__(message, ...)` / `Base.__init__(self, message, ...)` of an `__init__`, with the
    arguments that may carry the message: the first, then the one the base's `__init__` takes it by
    (`super().__init__(line, col, message=message)`)."""
    owner = init.owner
    bases = {dotted(b) for b in owner.node.bases} if owner is not None else set()
    for node in body_nodes(init.node.body):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"):
            continue
        receiver = node.func.value
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
            args = node.args
        elif dotted(receiver) in bases:
            args = node.args[1:]
        else:
            continue
        if not args or isinstance(args[0], ast.Starred):
            continue
        candidates = [args[0]]
        base = next((repo.resolve_class(b, init.file) for b in (owner.node.bases if owner is not None else [])
                     if repo.resolve_class(b, init.file) is not None), None)
        given = repo.message_argument(ast.Call(func=node.func, args=args, keywords=node.keywords), base) \
            if base is not None else next((k.value for k in node.keywords if k.arg in ("msg", "message")), None)
        if given is not None and given is not args[0]:
            candidates.append(given)
        yield node, candidates


def _own_site(method: Function, node: ast.stmt | ast.expr, argument: ast.expr, info: ClassInfo) -> RaiseSite | None:
    """Return the site of a template an exception class builds itself, else None."""
    source = method.file.source
    names = method.names()
    found = message(argument, source, names)
    if found is None:
        return None
    found = spelled(inline(found, source, names), source, names, node.lineno)
    if not says_something(found.text) or _DECORATION.match(found.text):
        return None
    return _make_site(method.file, node, method.qualname, _scope(method), info.qualname, found, "class",
                      Guards(method.file.tree))


class _Finder:
    """Finds the sites of one file: raises, helper calls, raises through helpers and factories, warnings."""

    def __init__(self, repo: Repository, file: ParsedFile, own: Mapping[int, list[RaiseSite]],
                 asserts: bool, warns: bool, strings: Strings, decorations: Mapping[int, list[str]] | None = None) -> None:
        self.repo, self.file, self.own, self.asserts, self.warns = repo, file, own, asserts, warns
        self.decorations = decorations or {}
        """The text each class prints a given message in (`_decorations`), by `id()` of the class."""
        self._names: dict[int, Names] = {}
        """Template assignments of each function met, by `id()` (reading them once per function)."""
        self._handlers: dict[int, set[str]] = {}
        """The names `except ... as name` binds in each function met, by `id()`."""
        self.strings = strings
        self.guards = Guards(file.tree)
        self._defined = {id(f.syntax): f for f in repo.functions_in(file)}
        """The file's functions, by `id()` of their node."""

    def names(self, where: Function | None) -> Names:
        """Return the names a message can follow inside `where` (the module's at module level)."""
        if where is None:
            return self.file.constants
        if id(where) not in self._names:
            self._names[id(where)] = where.names()
        return self._names[id(where)]

    def sites(self) -> Iterator[RaiseSite | Skipped | Mapped]:
        """Yield every site, skipped raise and mapped raise of the file.

        Raises and asserts come from the statements; calls from each
        function's shape (walked once for finding helpers) and, outside
        functions, from the statements themselves.
        """
        for stmt, qualname, scope, function in _statements(self.file.tree.body, (), None, None):
            where = self._defined.get(id(function)) if function is not None else None
            if where is not None and not isinstance(stmt, (ast.Raise, ast.Assert)) and _yielded_call(stmt) is None:
                continue
            try:
                yield from self._statement(stmt, qualname, scope, where)
            except RecursionError:
                yield Skipped(self.file.path, stmt.lineno, "expression nested too deeply to read")
        for defined in self.repo.functions_in(self.file):
            yield from self._decorators(defined)
            facts = self.repo.calls_of(defined)
            # Only a warning or a helper's call is a site (`_call`): a body that makes neither needs no walk.
            if not any(name in self.repo.raiser_names or (self.warns and name == "warn") for name in facts.called):
                continue
            shape = self.repo.shape(defined)
            for call in (*shape.calls, *shape.returned):
                try:
                    yield from self._call(call, defined.qualname, _scope(defined), defined)
                except RecursionError:
                    yield Skipped(self.file.path, call.lineno, "expression nested too deeply to read")

    def _decorators(self, defined: Function) -> Iterator[RaiseSite | Skipped]:
        """Yield the sites of the calls in a function's decorators (`@message("Not a file", cls=FileInvalid)`): they
        run where the function is defined, and are the function's own."""
        for decorator in defined.node.decorator_list:
            for call in body_nodes([decorator]):
                if isinstance(call, ast.Call):
                    try:
                        yield from self._call(call, defined.qualname, _scope(defined), defined.parent)
                    except RecursionError:
                        yield Skipped(self.file.path, call.lineno, "expression nested too deeply to read")

    def _statement(self, stmt: ast.stmt, qualname: str, scope: tuple[int, int] | None,
                   where: Function | None) -> Iterator[RaiseSite | Skipped | Mapped]:
        """Yield the sites of one simple statement."""
        if isinstance(stmt, ast.Raise):
            yield self._raise(stmt, qualname, scope, where, self.names(where))
            return
        if isinstance(stmt, ast.Assert):
            if self.asserts and stmt.msg is not None:
                yield self._assert(stmt, qualname, scope)
            return
        yielded = _yielded_call(stmt)
        if yielded is not None:
            found = self._yielded(stmt, yielded, qualname, scope, self.names(where))
            if found is not None:
                yield found
            if where is not None:
                return  # the calls of a function come from its shape
        for call in body_nodes([stmt]):
            if isinstance(call, ast.Call):
                yield from self._call(call, qualname, scope, where)

    def _call(self, call: ast.Call, qualname: str, scope: tuple[int, int] | None,
              where: Function | None) -> Iterator[RaiseSite | Skipped]:
        """Yield the site of a call: a warning, or a raising helper's call with its message spelled out."""
        if self.warns and self._is_warn(call):
            yield self._warning(call, qualname, scope, self.names(where))
            return
        func = call.func
        if (func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)) not in self.repo.raiser_names:
            return
        target = self.repo.callee(call, where, self.file)
        raiser = self.repo.raiser(target)
        if raiser is not None and not raiser.returns and not raiser.documented:
            found = self._helper_call(call, target, raiser, qualname, scope, where, self.names(where))
            if found is not None:
                yield found

    def _raise(self, stmt: ast.Raise, qualname: str, scope: tuple[int, int] | None,
               where: Function | None, names: Names) -> RaiseSite | Skipped | Mapped:
        """Return the site of a raise statement, or why it is not one."""
        exc = stmt.exc
        if isinstance(exc, ast.Call):
            target = self.repo.callee(exc, where, self.file)
            raiser = self.repo.raiser(target)
            argument = self.repo.argument(exc, target, raiser) \
                if raiser is not None and not raiser.documented and not raiser.closure else None
            if raiser is not None and argument is not None:
                found = message(argument, self.file.source, names)
                if found is not None:
                    found = spelled(found, self.file.source, names, stmt.lineno)
                    return self._site(stmt, qualname, scope, raiser.exception, _wrapped(found, raiser), "helper", raiser.cls)
            if target is not None and raiser is None:
                built = self._built(stmt, exc, target, qualname, scope, where)
                if built is not None:
                    return built
                made = self.repo.class_built(exc, target, self.file)
                if made is not None:
                    return self._class_built(stmt, made, qualname, scope, where, names)
        if exc is None:
            return Skipped(self.file.path, stmt.lineno, "bare raise (re-raises the current exception)")
        if not isinstance(exc, ast.Call):
            return self._mapped(stmt, exc, qualname, scope) \
                or Skipped(self.file.path, stmt.lineno, "raises an exception object or class without a message")
        exception = dotted(exc.func)
        if exception is None:
            return Skipped(self.file.path, stmt.lineno, "the exception class is computed")
        named = self._held_class(exc.func, where)
        if named is not None:
            exception = named
        kind = "raise"
        found = first_message(exc, self.file.source, names, extended=False)
        if found is None:
            kind = "variable"
            found = first_message(exc, self.file.source, names, extended=True)
        if found is None:
            evaluated = self._evaluated(stmt, exc, exception, qualname, scope, where, named is not None)
            if evaluated is not None:
                return evaluated
            reason = "no message" if not exc.args and not exc.keywords else "message computed elsewhere"
            return self._mapped(stmt, exc.func, qualname, scope) or Skipped(self.file.path, stmt.lineno, reason)
        found = spelled(found, self.file.source, names, stmt.lineno)
        return self._site(stmt, qualname, scope, exception, found, kind, self.repo.resolve_class(exc.func, self.file))

    def _built(self, stmt: ast.Raise, call: ast.Call, target: Function, qualname: str,
               scope: tuple[int, int] | None, where: Function | None) -> RaiseSite | Skipped | None:
        """Return the site of `raise self.make_error("too_long", limit=n)`: a function of the repository that
        returns an exception whose message it looks up (by key) or formats; None when it does not."""
        for node in self.repo.shape(target).returned:
            info = self.repo.resolve_class(node.func, target.file)
            exception = dotted(node.func)
            if exception is None or not self._is_exception(node.func, target.file):
                continue
            argument = self.repo.message_argument(node, info)
            if argument is None:
                continue

            def read(outer: Scope, argument: ast.expr = argument) -> list[Pieces] | None:
                inner = self.strings.bind(call, target, outer)
                return None if inner is None else self.strings.evaluate(argument, inner)

            found = self._read(read, where)
            if found is not None:
                return self._site(stmt, qualname, scope, exception, found[0], found[1], info)
        return None

    def _class_built(self, stmt: ast.Raise, made: ClassBuilt, qualname: str, scope: tuple[int, int] | None,
                     where: Function | None, names: Names) -> RaiseSite | Skipped | Mapped:
        """Return the site of `raise self.parse_error(UnexpectedCharError, c)`: the class the caller names, with the
        message the caller gives it, else mapped to the message the class builds itself."""
        exception = dotted(made.node) or made.cls.qualname
        argument = self.repo.message_argument(made.call, made.cls)
        if argument is not None and not any(argument is filled for filled in made.call.args[:made.fixed]):
            if self._relays(argument, stmt, where):
                # The handled error's own text, and no wording of the class around it: a template of no words.
                relayed = Message("{" + self.file.source.segment(argument) + "}")
                return self._site(stmt, qualname, scope, exception, relayed, "wrap")
            found = message(argument, self.file.source, names)
            if found is not None:
                return self._site(stmt, qualname, scope, exception, found, "helper", made.cls)
        return self._mapped(stmt, made.node, qualname, scope) \
            or Skipped(self.file.path, stmt.lineno, "message computed elsewhere")

    def _evaluated(self, stmt: ast.Raise, exc: ast.Call, exception: str, qualname: str,
                   scope: tuple[int, int] | None, where: Function | None, held: bool = False
                   ) -> RaiseSite | Skipped | None:
        """Return the site of a raise whose message a class attribute, a dict of messages or a method of the
        repository holds, or that passes on the message of the error it handles (`raise X(str(e)) from e`); `held`
        says the class is one an attribute of the instance holds (`_held_class`)."""
        if not (held or self._is_exception(exc.func, self.file)) or exception.rpartition(".")[2] in KEY_EXCEPTIONS:
            return None
        keywords = [k.value for k in exc.keywords if k.arg in ("msg", "message", "detail")]
        first = exc.args[0] if exc.args and not isinstance(exc.args[0], ast.Starred) else None
        argument = first if first is not None else keywords[0] if keywords else None
        if argument is None:
            return None
        info = self.repo.resolve_class(exc.func, self.file)
        if self._relays(argument, stmt, where):
            relayed = Message("{" + self.file.source.segment(argument) + "}")
            return self._site(stmt, qualname, scope, exception, relayed, "wrap", info)
        found = self._read(lambda outer: self.strings.evaluate(argument, outer), where)
        return None if found is None else self._site(stmt, qualname, scope, exception, found[0], found[1], info)

    def _read(self, read: Callable[[Scope], list[Pieces] | None], where: Function | None) -> tuple[Message, str] | None:
        """Return the message an evaluation gives where the raise is, with what each subclass that inherits the
        raising method makes of it as alternatives, and the kind of site (`key` when a dict of messages was read)."""
        owner = where.owner if where is not None else None
        classes: list[ClassInfo | None] = [owner]
        if owner is not None and where is not None:
            classes += [c for c in self.strings.subclasses(owner) if self._reaches(c, where)]
        self.strings.keyed = False
        wordings: list[str] = []
        for cls in classes:
            found = read(Scope(self.file, where, cls))
            if found is None:
                if cls is owner:
                    return None
                continue
            wordings += [template_of(w) for w in found]
        texts = [w for w in dict.fromkeys(wordings) if w]
        if not texts or not says_something(texts[0]):
            return None
        kind = "key" if self.strings.keyed else "attribute"
        return Message(texts[0], unique_variants(texts[0], [Variant(t, "alternative") for t in texts[1:]])), kind

    def _reaches(self, cls: ClassInfo, method: Function) -> bool:
        """Return whether a subclass runs a method of its base: it inherits it, or its override calls `super().name(...)`."""
        own = self.repo.method(cls, method.name)
        if own is method:
            return True
        return own is not None and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method.name
            and isinstance(n.func.value, ast.Call) and isinstance(n.func.value.func, ast.Name)
            and n.func.value.func.id == "super" for n in body_nodes(own.node.body))

    def _relays(self, argument: ast.expr, stmt: ast.Raise, where: Function | None) -> bool:
        """Return whether a message argument is the text of the error being handled: `e`, `str(e)`, `e.args[0]`."""
        node = argument
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1:
            node = node.args[0]
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "args"
              and isinstance(node.slice, ast.Constant) and node.slice.value == 0):
            node = node.value.value
        if not isinstance(node, ast.Name):
            return False
        if isinstance(stmt.cause, ast.Name) and stmt.cause.id == node.id:
            return True
        return where is not None and node.id in self._handled(where)

    def _handled(self, where: Function) -> set[str]:
        """Return the names `except ... as name` binds in a function."""
        if id(where) not in self._handlers:
            self._handlers[id(where)] = {n.name for n in body_nodes(where.node.body)
                                         if isinstance(n, ast.ExceptHandler) and n.name}
        return self._handlers[id(where)]

    def _is_exception(self, node: ast.expr, file: ParsedFile) -> bool:
        """Return whether an expression names an exception: a repository class that is one, or a name like one's."""
        return self.repo.names_exception(dotted(node) or "", file)

    def _yielded(self, stmt: ast.stmt, exc: ast.Call, qualname: str, scope: tuple[int, int] | None,
                 names: Names) -> RaiseSite | Skipped | None:
        """Return the site of `yield SomeError("...")`, as validators that yield their errors have it; None
        when what is yielded is not an exception, or has no message the source spells out."""
        exception = dotted(exc.func)
        info = self.repo.resolve_class(exc.func, self.file)
        if exception is None or not (self.repo.is_exception(info) if info is not None
                                     else EXCEPTION_NAME.search(exception.rpartition(".")[2])):
            return None
        found = first_message(exc, self.file.source, names, extended=True)
        if found is None:
            return None
        return self._site(stmt, qualname, scope, exception, spelled(found, self.file.source, names, stmt.lineno), "yield", info)

    def _mapped(self, stmt: ast.Raise, node: ast.expr, qualname: str, scope: tuple[int, int] | None
                ) -> Mapped | RaiseSite | Skipped | None:
        """Return the mapping of a raise without a message to its class's own-message site, if it has one; or, for a
        class whose message a base builds, the raise as a site of its own.

        Python prints the class raised: a page of the base's name would not say that `FrozenInstanceError: can't set
        attribute` is attrs' `FrozenError`'s message, nor where the subclass is raised."""
        info = self.repo.resolve_class(node, self.file)
        if info is None:
            return None
        self._own_read(info)
        exception = dotted(node) or info.qualname
        for current in self.repo.lineage(info):
            if id(current) in self.own:
                site = self.own[id(current)][0]
                if current is not info:
                    return self._site(stmt, qualname, scope, exception, Message(site.message, site.variants), "class")
                return Mapped(self.file.path, stmt.lineno, exception, f"{site.path}:{site.line}")
        return None

    def _held_class(self, node: ast.expr, where: Function | None) -> str | None:
        """Return the exception class a method raises through an attribute of its instance, as the class body or
        `__init__` names it: `failure = ConfigError`, or `self._undefined_exception = exc` where `exc` defaults to
        `UndefinedError` (jinja2's `raise self._undefined_exception(...)`); None for any other node, or when the
        class cannot be told. Such a raise names the class it raises, never `self._undefined_exception`."""
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and where is not None
                and where.owner is not None and where.bound and where.params and node.value.id == where.params[0]):
            return None
        held = self.strings.class_attribute(where.owner, node.attr)
        if held is not None:
            name, file = dotted(held[1]), held[0].file
        else:
            assigned = next(self.strings.instance_values(where.owner, node.attr), None)
            if assigned is None:
                return None
            init, value = assigned
            name = init.defaults.get(value.id) if isinstance(value, ast.Name) else dotted(value)
            file = init.file
        return name if name is not None and self.repo.names_exception(name, file) else None

    def _own_read(self, cls: ClassInfo) -> None:
        """Note that what a class and its bases print was read: their files' own messages (see `raisers.reading`)."""
        for current in self.repo.lineage(cls):
            note_read(current.file)

    def _assert(self, stmt: ast.Assert, qualname: str, scope: tuple[int, int] | None) -> RaiseSite | Skipped:
        """Return the site of `assert cond, "message"`, or why it is not one."""
        assert stmt.msg is not None
        found = plain(stmt.msg, self.file.source)
        if found is None:
            return Skipped(self.file.path, stmt.lineno, "assert message computed elsewhere")
        return self._site(stmt, qualname, scope, "AssertionError", found, "assert")

    def _helper_call(self, call: ast.Call, target: Function | None, raiser: Raiser, qualname: str,
                     scope: tuple[int, int] | None, where: Function | None, names: Names) -> RaiseSite | Skipped | None:
        """Return the site of a raising helper's call, or None when its message is not spelled out there.

        A call with a computed message is not listed as skipped: unlike a
        raise statement it may well not raise at all (a helper that raises
        only on bad input), and one helper passing its message on to another
        is not a place of its own.
        """
        argument = self.repo.argument(call, target, raiser)
        if argument is None or (where is not None and with_hole(argument, where) is not None):
            return None
        found = message(argument, self.file.source, names)
        if found is None:
            return None
        if isinstance(argument, ast.Constant) and not _reads_as_message(found.text):
            return None  # a key or a name handed to a method that happens to raise with it
        raised = self.repo.class_at(call, target, raiser, self.file)
        if raised is None:
            return None  # the call computes the class
        found = spelled(found, self.file.source, names, call.lineno)
        return self._site(call, qualname, scope, raised[0], _wrapped(found, raiser), "helper", raised[1])

    def _is_warn(self, call: ast.Call) -> bool:
        """Return whether a call is `warnings.warn(...)` (or `warn` imported from warnings)."""
        imports = self.repo.imports[self.file.module]
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "warn" and isinstance(func.value, ast.Name):
            return imports.get(func.value.id) == "warnings"
        return isinstance(func, ast.Name) and imports.get(func.id) == "warnings.warn"

    def _warning(self, call: ast.Call, qualname: str, scope: tuple[int, int] | None, names: Names) -> RaiseSite | Skipped:
        """Return the site of a `warnings.warn` call: its category is the exception (UserWarning by default)."""
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        text = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else keywords.get("message")
        category = call.args[1] if len(call.args) > 1 else keywords.get("category")
        exception = "UserWarning" if category is None else dotted(category)
        found = message(text, self.file.source, names) if text is not None else None
        if found is None or exception is None:
            return Skipped(self.file.path, call.lineno, "warning message or category computed elsewhere")
        return self._site(call, qualname, scope, exception, found, "warning")

    def _site(self, node: ast.stmt | ast.expr, qualname: str, scope: tuple[int, int] | None, exception: str,
              found: Message, kind: str, cls: ClassInfo | None = None) -> RaiseSite | Skipped:
        """Return the site at `node`, or why its message cannot be a record's."""
        if not found.text:
            return Skipped(self.file.path, node.lineno, "empty message")
        if len(found.text) > MESSAGE_MAX:
            return Skipped(self.file.path, node.lineno, f"message longer than {MESSAGE_MAX:,} characters")
        if cls is not None:
            found = self._as_printed(found, cls)
        return _make_site(self.file, node, qualname, scope, exception, found, kind, self.guards)

    def _as_printed(self, found: Message, cls: ClassInfo) -> Message:
        """Return a message with the wordings its class prints it in as alternatives.

        A class whose own message puts the given one in a field of its own
        (`"Invalid value for {param_hint}: {message}"`, `f"{msg} (at {where})"`)
        prints the site's message inside that text: what a user pastes.
        """
        self._own_read(cls)
        for current in self.repo.lineage(cls):
            own = self.own.get(id(current))
            wraps = self.decorations.get(id(current), [])
            if own is None and not wraps:
                continue
            texts = [text for site in own or [] for text in [site.message, *(v.message for v in site.variants)]]
            printed = [Variant(_MESSAGE_FIELD.sub(lambda _: found.text, text), "alternative")
                       for text in [*texts, *wraps] if _MESSAGE_FIELD.search(text)]
            return Message(found.text, unique_variants(found.text, [*found.variants, *printed]))
        return found


def _make_site(file: ParsedFile, node: ast.stmt | ast.expr, qualname: str, scope: tuple[int, int] | None,
               exception: str, found: Message, kind: str, guards: Guards) -> RaiseSite:
    """Return the site of a message at a node, with its snippet and guard."""
    start, code = _snippet(file.source, node, scope)
    return RaiseSite(file.path, node.lineno, qualname, exception, found.text, start, code, found.variants, kind,
                     guards.of(node))


def _yielded_call(stmt: ast.stmt) -> ast.Call | None:
    """Return the call a statement `yield Call(...)` yields, or None for any other statement."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield) and isinstance(stmt.value.value, ast.Call):
        return stmt.value.value
    return None


def _wrapped(found: Message, raiser: Raiser) -> Message:
    """Return a call's message inside the template its helper or factory builds around it.

    A factory that formats the message (`msg.format_map({"field": name})`) fills the fields the
    caller spelled with doubled braces: they are placeholders of what a user reads.
    """
    def put(text: str) -> str:
        return raiser.wrap.replace(HOLE, text).replace(FORMATTED, text.replace("{{", "{").replace("}}", "}"))

    return Message(put(found.text), tuple(Variant(put(v.message), v.kind) for v in found.variants))


def _reads_as_message(text: str) -> bool:
    """Return whether a plain literal reads as a message: words with a space, or a closing punctuation mark."""
    return says_something(text) and (" " in text.strip() or text.rstrip().endswith((".", "!", "?", ":")))


def _scope(function: Function) -> tuple[int, int]:
    """Return the first (decorator) and last line of a function."""
    node = function.node
    return min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno or node.lineno


def _statements(
    body: Iterable[ast.stmt], names: tuple[str, ...], scope: tuple[int, int] | None,
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
) -> Iterator[tuple[ast.stmt, str, tuple[int, int] | None, ast.FunctionDef | ast.AsyncFunctionDef | None]]:
    """Yield every simple statement with its qualified name, function span and function.

    Only statement lists are walked: a raise is a statement, so it never hides
    inside an expression, and skipping expressions keeps big files fast.
    """
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([stmt.lineno] + [d.lineno for d in stmt.decorator_list])
            yield from _statements(stmt.body, names + (stmt.name,), (first, stmt.end_lineno or stmt.lineno), stmt)
        elif isinstance(stmt, ast.ClassDef):
            yield from _statements(stmt.body, names + (stmt.name,), scope, function)
        elif any(getattr(stmt, f, None) for f in ("body", "handlers", "orelse", "finalbody", "cases")):
            for child in _child_bodies(stmt):
                yield from _statements(child, names, scope, function)
        else:
            yield stmt, ".".join(names), scope, function


def _child_bodies(stmt: ast.AST) -> Iterable[list[ast.stmt]]:
    """Yield the statement lists nested in a compound statement."""
    for field_name in ("body", "handlers", "orelse", "finalbody", "cases"):
        for child in getattr(stmt, field_name, ()):
            # Handlers and match cases are not statements; their bodies are.
            yield child.body if isinstance(child, (ast.ExceptHandler, ast.match_case)) else [child]


def _snippet(source: Source, stmt: ast.stmt | ast.expr, scope: tuple[int, int] | None) -> tuple[int, str]:
    """Return (start line, code) of the snippet shown for a raise statement (or call)."""
    if scope is not None and scope[1] - scope[0] + 1 <= SNIPPET_MAX_LINES:
        first, last = scope
    else:
        low, high = scope or (1, len(source.lines))
        first = max(low, stmt.lineno - WINDOW)
        last = min(high, (stmt.end_lineno or stmt.lineno) + WINDOW)
    return first, source.snippet(first, last)
