"""`check --source`: records against the code, and how much of the code the site explains.

Three questions, one report:

1. Is each active record's pin still good? Its commit must be in the history
   of HEAD (a pin rebased or squashed away gives one problem per commit, with
   the number of records pinned to it; in a shallow clone, commits it lacks
   give one problem that names the fix), its snippet must be the file's lines
   at that commit, and its line must be on a raise.
2. Which raise sites at HEAD does no record document?
3. How many pages are written, and how many need another look (`review`)?
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..model import Record, Site, SourceSettings
from ..problems import Invalid, Problem
from . import git, lastrun, sync
from .globs import FileFilter, without_link_helper
from .messages import decode_source, file_lines, split_lines
from .facts import FactStore, blob_id
from .scan import scan_files
from .sites import RaiseSite


@dataclass(frozen=True)
class SourceReport:
    """What `check --source` found: bad pins, undocumented raise sites, and what is written."""

    commit: str
    """The commit (HEAD of the checkout) whose raise sites were counted."""
    problems: tuple[Problem, ...]
    """Unreachable pins, a shallow clone, and records whose snippet or line do not match their file."""
    undocumented: tuple[RaiseSite, ...]
    """Raise sites at `commit` that no active record documents."""
    sites: int
    """All raise sites at `commit`."""
    records: int
    """Active records of this repository."""
    written: int
    """Active records with prose."""
    review: int
    """Active records whose prose needs another look since their code changed."""
    strict: bool
    """Whether undocumented sites are an error."""
    min_written: float | None = None
    """The least share of written pages, in percent, below which the check fails."""
    formerly: tuple[tuple[RaiseSite, Record], ...] = ()
    """Undocumented sites that a record documented before: its message was reworded, or it was marked removed."""
    extract: str = "errorsite extract ."
    """The command that documents the undocumented sites, as the user would type it."""

    @property
    def documented(self) -> int:
        """Return how many raise sites some record documents."""
        return self.sites - len(self.undocumented)

    @property
    def coverage(self) -> float:
        """Return documented sites / all sites (1.0 when there are none)."""
        return self.documented / self.sites if self.sites else 1.0

    @property
    def written_share(self) -> float:
        """Return written records / active records (1.0 when there are none)."""
        return self.written / self.records if self.records else 1.0

    @property
    def too_few_written(self) -> bool:
        """Return whether fewer pages are written than `min_written` asks."""
        return self.min_written is not None and self.written_share * 100 < self.min_written

    @property
    def failed(self) -> bool:
        """Return whether the check fails (exit status 1)."""
        return bool(self.problems) or (self.strict and bool(self.undocumented)) or self.too_few_written

    def lines(self) -> list[str]:
        """Return the lines that list undocumented sites, the record each had before, the command, and the counts."""
        former = dict(self.formerly)
        out = []
        for site in self.undocumented:
            out.append(f"undocumented: {site.path}:{site.line}: {site.exception}: {site.message}")
            record = former.get(site)
            if record is None:
                continue
            if record.status == "removed":
                out.append(f"  documented by {record.file}, marked removed: extract makes it active again")
            else:
                out.append(f"  documented by {record.file} until its message was reworded (it says {record.message!r}):"
                           " extract re-pins it and keeps its prose")
        if self.undocumented:
            reworded = f", {len(self.formerly)} of them with their record" if self.formerly else ""
            out.append(f"to document {len(self.undocumented)} undocumented raise site"
                       f"{'s' if len(self.undocumented) != 1 else ''}{reworded}, run: {self.extract}"
                       " (then write the new pages and commit the records)")
        out.append(f"raise sites: {self.sites} at {self.commit[:12]}, {self.documented} documented"
                   f" (documentation coverage {self.coverage:.1%})")
        out.append(f"records: {self.records} active")
        out.append(f"pages written (with prose): {self.written} of {self.records} ({self.written_share:.1%})"
                   + (f"; at least {self.min_written:g}% wanted" if self.min_written is not None else ""))
        out.append(f"pages needing review: {self.review}")
        return out


def check_source(
    site: Site, repo_dir: Path, settings: SourceSettings, *, strict: bool = False, min_written: float | None = None,
    extract: str = "errorsite extract .",
) -> SourceReport:
    """Return the pin problems of the site's active records and the raise sites at HEAD no record documents.

    Records whose `source.repo` names another repository than the site's
    `repo` are not checked. An undocumented site is paired, by extract's own
    rules, with the record that documented it before (one whose message was
    reworded, or one marked removed), so the report can name it; `extract` is
    the command the report says to run.
    """
    # The snapshot first: it names a missing folder or a non-repository plainly.
    snap = git.snapshot(repo_dir, "HEAD", FileFilter.of_settings(settings))
    mine = [r for r in site.records if r.status != "removed"
            and (site.config.repo is None or r.source.repo in (None, site.config.repo))]
    history = git.history(repo_dir, snap.commit, (r.source.commit for r in mine))
    problems = _history_problems(repo_dir, snap.commit, mine, history)
    store = FactStore.usable(settings.asserts, settings.warnings, "check --source", repo_dir)
    # A pin found in step with its file before is in step now: the file at a commit never changes.
    in_step = store.pins_in_step(repo_dir) if store is not None else frozenset()
    keys = {r.id: pin_key(r) for r in mine}
    pinned = [r for r in mine if r.source.commit in history.reachable and keys[r.id] not in in_step]
    names = [f"{r.source.commit}:{r.source.path}" for r in pinned]
    contents = git.read_objects(repo_dir, sorted(set(names)))
    source = without_link_helper(snap.files, lambda path: store is not None and store.scanned(path, snap.blobs[path]))
    scan = scan_files(source, settings.asserts, settings.warnings, whole=True, store=store, blobs=snap.blobs)
    # A pinned file whose bytes are a file's at HEAD: the lines the scan found sites on need no parse to be known
    # raises (a site is always on a raise, a call or a return).
    site_lines: dict[str, set[int]] = defaultdict(set)
    for found in scan.sites:
        site_lines[snap.blobs[found.path]].add(found.line)
    files = {name: _PinnedFile.of(content, store, site_lines) for name, content in contents.items()}
    found_in_step: set[bytes] = set()
    for record, name in zip(pinned, names):
        drift = _drift(record, files[name])
        problems += drift
        if not drift and (key := keys[record.id]) is not None:
            found_in_step.add(key)
    if store is not None:
        store.save(snap.blobs)
        now = frozenset(key for key in keys.values() if key is not None and key in in_step) | found_in_step
        if now != in_step:
            store.keep_pins_in_step(repo_dir, now)
    matching = sync.match([_known(r) for r in mine], scan.sites, rules=2)
    removed = [r for r in site.records if r.status == "removed"
               and (site.config.repo is None or r.source.repo in (None, site.config.repo))]
    by_id = {r.id: r for r in [*mine, *removed]}
    # Extract would pair these the same way: an edited message (its third rule) or a removed record come back.
    former = sync.match([*matching.records, *map(_known, removed)], matching.sites).pairs
    return SourceReport(
        snap.commit, tuple(problems), tuple(matching.sites), len(scan.sites), len(mine),
        sum(r.written for r in mine), sum(r.review is not None for r in mine), strict, min_written,
        tuple((found, by_id[known.id]) for known, found, _ in former), extract,
    )


def pin_key(record: Record) -> bytes | None:
    """Return a digest of what a record's pin holds (commit, path, line, snippet), by which a pin found in step with
    the file at its commit is known again; None for a pin by an abbreviated commit id, which more objects in the
    clone may make ambiguous."""
    source = record.source
    return lastrun.pin_key(source.commit, source.path, source.line, source.snippet.start, source.snippet.code)


def _known(record: Record) -> sync.Known:
    """Return the matching view of a record."""
    return sync.Known(record.id, record.exception, record.message, record.source.path, record.source.function or "",
                      record.source.line, record.status != "removed")


def _history_problems(repo_dir: Path, head: str, records: list[Record], history: git.History) -> list[Problem]:
    """Return one problem per pinned commit outside HEAD's history, or one for a shallow clone lacking commits."""
    outside: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        if record.source.commit not in history.reachable:
            outside[record.source.commit].append(record)
    if not outside:
        return []
    try:
        if history.shallow:
            _shallow(len(outside), sum(len(group) for group in outside.values()))
    except Invalid as error:
        return [Problem.of(str(repo_dir), "", error)]
    problems = []
    for commit, group in sorted(outside.items()):
        try:
            _unreachable(commit, head, len(group), group[0].file, commit in history.missing)
        except Invalid as error:
            # One problem for many records: it is placed at their folder, and names the first file.
            problems.append(Problem.of(str(Path(group[0].file).parent), "", error))
    return problems


def _shallow(commits: int, records: int) -> None:
    """Raise: a shallow clone lacks the commits records are pinned to."""
    raise Invalid(
        f"this clone is shallow: {records} record{'s are' if records != 1 else ' is'} pinned to"
        f" {commits} commit{'s' if commits != 1 else ''} outside its history, so their pins cannot be checked",
        hint="check with the full history: `git fetch --unshallow`, or in GitHub Actions"
        " give actions/checkout `fetch-depth: 0`",
        page="shallow-clone",
    )


def _unreachable(commit: str, head: str, count: int, first: str, missing: bool) -> None:
    """Raise: `count` records are pinned to a commit that is not in the history of HEAD."""
    why = "this clone does not have it" if missing else f"it is not an ancestor of HEAD ({head[:12]})"
    raise Invalid(
        f"{count} record{'s are' if count != 1 else ' is'} pinned to commit {commit[:12]}, which is not in"
        f" the history of HEAD ({why}; rebased or squashed away?), first {first}",
        hint="re-pin them with `errorsite extract REPO_DIR` and commit the records;"
        " their source links would 404 once the branch is gone",
        page="unreachable-pin",
    )


class _PinnedFile:
    """One file at one commit, read once however many records point into it; parsed only when a record's line
    is not one where the scan at HEAD found a site in the same bytes."""

    def __init__(self, lines: tuple[str, ...], error: str | None, text: str = "", blob: str = "",
                 known: frozenset[int] = frozenset(), store: FactStore | None = None) -> None:
        self.lines = lines
        """The file's lines with their line breaks."""
        self.error = error
        """Why the file could not be found, decoded or parsed, if it could not."""
        self._text, self._blob, self._store = text, blob, store
        self._known = known
        """Lines a raise site is on: the scan found them in these bytes at HEAD."""
        self._raise_lines: frozenset[int] | None = None

    @classmethod
    def of(cls, content: bytes | None, store: FactStore | None,
           known: Mapping[str, Iterable[int]] | None = None) -> _PinnedFile:
        """Return the lines of a file's content (None: no such file), with the lines `known`, by blob id, to be on a
        raise."""
        if content is None:
            return cls((), "there is no such file at that commit")
        try:
            text = decode_source(content)
        except (SyntaxError, ValueError) as error:
            return cls((), f"cannot decode the file: {error}")
        blob = blob_id(content)
        return cls(tuple(file_lines(text)), None, text, blob, frozenset((known or {}).get(blob, ())), store)

    def on_a_raise(self, line: int) -> bool:
        """Return whether a line is spanned by a raise or assert statement, or is the first line of a call or a
        return (helper calls, warnings, own messages)."""
        return line in self._known or line in self.raise_lines()

    def raise_lines(self) -> frozenset[int]:
        """Return every line `on_a_raise` holds, kept by blob id: a file pinned by many records' commits is
        parsed once, ever."""
        if self._raise_lines is None:
            kept = self._store.raise_lines(self._blob) if self._store is not None else None
            self._raise_lines = kept if kept is not None else self._parsed()
        return self._raise_lines

    def _parsed(self) -> frozenset[int]:
        try:
            tree = ast.parse(self._text)
        except (SyntaxError, ValueError, RecursionError) as error:
            self.error = f"the file does not parse: {error}"
            return frozenset()
        found: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Raise, ast.Assert)):
                found.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            elif isinstance(node, (ast.Call, ast.Return)):
                found.add(node.lineno)
        if self._store is not None:
            self._store.keep_raise_lines(self._blob, frozenset(found))
        return frozenset(found)


def _drift(record: Record, file: _PinnedFile) -> list[Problem]:
    """Return the problems of one record's pin against the file at its commit."""
    where = f"{record.source.path} at {record.source.commit}"
    try:
        _found(file, where)
    except Invalid as error:
        return [Problem.of(record.file, "/source/path", error)]
    problems = []
    for pointer, check in (("/source/snippet/code", _same_snippet), ("/source/line", _on_a_raise)):
        try:
            check(record, file, where)
        except Invalid as error:
            problems.append(Problem.of(record.file, pointer, error))
    return problems


def _found(file: _PinnedFile, where: str) -> None:
    """Raise unless the pinned file could be read."""
    if not file.lines and file.error:
        raise Invalid(
            f"{where}: {file.error}",
            hint="check the record's source.path, or re-pin the record with `errorsite extract`",
            page="source-not-found",
        )


def _same_snippet(record: Record, file: _PinnedFile, where: str) -> None:
    """Raise unless the snippet is exactly the file's lines from its start."""
    start, code = record.source.snippet.start, record.source.snippet.code
    wanted = split_lines(code)
    actual = list(file.lines[start - 1:start - 1 + len(wanted)])
    if len(actual) == len(wanted):
        actual[-1] = actual[-1].removesuffix("\n").removesuffix("\r")
    if code == "".join(actual):
        return
    for offset, line in enumerate(wanted):
        have = actual[offset] if offset < len(actual) else None
        if have != line:
            break
    file_text = "(end of file)" if have is None else repr(have)
    raise Invalid(
        f"snippet drifted from {where}: line {start + offset} of the file is {file_text}, the snippet has {line!r}",
        hint="re-pin the record with `errorsite extract`",
        page="snippet-drift",
    )


def _on_a_raise(record: Record, file: _PinnedFile, where: str) -> None:
    """Raise when `source.line` is not on a raise or assert statement."""
    if file.on_a_raise(record.source.line):
        return
    raise Invalid(
        f"{where}: " + (file.error or f"line {record.source.line} is not a raise statement"),
        hint="re-pin the record with `errorsite extract`",
        page="line-not-a-raise",
    )
