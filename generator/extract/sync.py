"""Keep the records in a content folder current with the raise sites at a new commit.

`run` is the `extract` command: it reads the content folder, scans the
repository's files at the commit, and syncs the records with what it found.

Matching, in this order, one record to one site:

1. same path, function, exception and message (the code only moved within
   its file, or nothing changed); identical raises pair in line order;
2. same exception and message, now in another file or function;
3. same path, function and exception with an edited message, when the two
   templates are similar (difflib ratio >= 0.6, of the templates as written or
   with each placeholder as `{}`), most similar pair first.

A matched record keeps its id and every other field it has. Its pin (commit,
line, snippet) moves only when the message, path, function, line or snippet at
the new commit differ from what the record holds, or when its commit is not in
the history of the new commit (rebased or squashed away): commits that did not
touch a record's code leave its file alone, so committing the records does
not make the next run re-pin them again. A `removed` record becomes active
again (its `status` field is dropped: active is the default). An active record
that matches no site becomes `removed`. A site that matches no record gets a
new skeleton record.

Review. When the message, the place (file or function) or the snippet's code
of a record that has prose changes, the record gets `review` (`why`: "message
changed", "moved" or "code changed"): the prose may no longer be right. Its
`since` is the commit where the change happened, found in the file's git
history between the old pin and the new commit (module `since`), or the new
commit when the history does not show it. An existing `review` keeps its
`since`, and the weightier `why` of the two. An edited message's old wording
goes into `variants` as `earlier` (`until`: that same commit), so a user of an
older release who pastes it still finds the page; variants of other kinds are
kept as they are.

The code is compared by its tokens (module `tokens`): a line that only
shifted, a comment or blank line added, a call wrapped anew is no reason, and
moves only the pin. So is a checked example: when the pin moves and the
message, place and code are the same, `example_fix.verified` checked at the
old pin moves with it; otherwise it stays, and the page says the code has
changed since the example was checked.

Ids. With `[source] ids = "words"`, a new record's id is the message's first
literal words (placeholders left out), lower case, joined by hyphens, at most
48 characters; a message without a literal word takes its exception's and
function's names instead (`runtime-error-in-load-weights`); where those words
are taken, the first 6 hex digits of the hash below are added. Otherwise
(`"hash"`, the default), the id is the first 16 hex digits of SHA-256 over repo, path,
function, exception and message joined by "\\n" (repo "" when there is none).
When a message links to a record page (`.../errors/<id>/`), the site takes
that id if no record holds it yet. When an id is taken (by any record file, a
retired id in `[redirects]`, or a site earlier in path and line order), the
n-th try (n = 2, 3, ...) hashes the same text plus "\\n" and n, until the id
is free: two identical raises in one function get distinct ids, and a retired
id is never handed to another site.

A record belongs to the repository in its `source.repo`, else to the `repo`
of `site.toml`; records of another repository are left alone. New records
carry `source.repo` only when a repo was given on the command line. A file
is written only when its record's data changes, and then only where it
changed (`recordjson.rewrite`: a person's key order and layout stay); it is
never deleted.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import load, schema
from ..config import settings_to_config
from ..model import Config
from ..problems import Invalid, ProblemsFound, UserError
from ..recordjson import dumps, rewrite
from ..search.template import pieces
from . import git, since, tokens
from .globs import FileFilter, without_link_helper, with_flags
from .facts import FactStore
from .lastrun import LastRun, RecordFiles, Written, pin_key
from .scan import scan_files
from .sites import ParseFailure, RaiseSite, Scan, Skipped

SIMILARITY = 0.6
"""Least difflib ratio between an old and a new message for rule 3."""

REVIEW_WEIGHT = {"message changed": 0, "moved": 1, "code changed": 2}
"""Review reasons, weightiest first: a record keeps the weightiest it was given."""

PROSE_FIELDS = ("meaning", "solutions", "example_fix", "when")
"""A record with any of these has prose that a change of its code may outdate."""

REPO_NAME = re.compile(schema.REPO)
"""An `owner/name` repository, by the record format's own pattern, so extract accepts what check does."""

WORDS_CHARS = 48
"""The longest id `[source] ids = "words"` makes from a message, before a collision's short hash."""

SHORT_HASH = 6
"""Hex digits of the hash added to a words id that another record already holds."""

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{[^{}]*\}|%(?:\([^)]*\))?[-#0+]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z%]")
"""A placeholder of a message template (`{value!r}`, `%s`, `%(name)d`), or a literal brace: no words of the message."""

_LINK = re.compile(rf"errors/({schema.ID})(?=/|[\s)\"'>#?,;]|\.(?:\s|$)|$)")
"""A link to a record page inside a message; the lookahead keeps `errors/app.log` out."""


@dataclass(frozen=True)
class Known:
    """What matching needs of an existing record."""

    id: str
    exception: str
    message: str
    path: str
    function: str
    line: int
    active: bool

    @classmethod
    def of(cls, data: object) -> Known | None:
        """Return the matching view of a record object, or None when it lacks a usable pin."""
        if not isinstance(data, dict) or not isinstance(data.get("source"), dict):
            return None
        source = data["source"]
        record_id, exception, message, path = data.get("id"), data.get("exception"), data.get("message"), source.get("path")
        function, line = source.get("function", ""), source.get("line", 0)
        if not (isinstance(record_id, str) and isinstance(exception, str) and isinstance(message, str)
                and isinstance(path, str) and isinstance(function, str) and isinstance(line, int)):
            return None
        return cls(record_id, exception, message, path, function, line, data.get("status") != "removed")


@dataclass(frozen=True)
class Matching:
    """The result of matching records to sites."""

    pairs: tuple[tuple[Known, RaiseSite, int], ...]
    """(record, site, number of the rule that matched them)."""
    records: tuple[Known, ...]
    """Records that match no site."""
    sites: tuple[RaiseSite, ...]
    """Sites that match no record, in path and line order."""


@dataclass(frozen=True, order=True)
class Change:
    """One record the run added, re-pinned, changed, removed or left unchanged."""

    path: str
    """The file of its raise (where the record points now)."""
    line: int
    """The line of its raise."""
    id: str
    """The record's id."""
    note: str = ""
    """What changed, when more than the pin did ("moved from ...", "review: ...")."""
    """Why it changed, for changed records ("message edited", "moved from a.py:f")."""


@dataclass(frozen=True)
class ExtractReport:
    """What an extract run did to the records, and what it could not read."""

    commit: str
    files: int
    """Python files read."""
    added: tuple[Change, ...]
    repinned: tuple[Change, ...]
    """Same site; only the pin (commit, line, snippet) moved."""
    changed: tuple[Change, ...]
    """Message edited, site moved to another file or function, or a removed record restored."""
    removed: tuple[Change, ...]
    """Newly marked removed."""
    unchanged: tuple[Change, ...]
    skipped: tuple[Skipped, ...] = field(default=())
    """Raises whose message is computed elsewhere."""
    failures: tuple[ParseFailure, ...] = field(default=())
    """Files that could not be read as Python."""
    unchecked: int = 0
    """Pins kept though this shallow clone lacks their commit, so it cannot tell whether they are in the history."""

    @property
    def total(self) -> int:
        """Return the number of this repository's records after the run."""
        return len(self.added) + len(self.repinned) + len(self.changed) + len(self.removed) + len(self.unchanged)

    def summary(self) -> str:
        """Return the one-line count of what the run did."""
        return (
            f"added {len(self.added)}, re-pinned {len(self.repinned)}, changed {len(self.changed)},"
            f" marked removed {len(self.removed)}, unchanged {len(self.unchanged)};"
            f" total {self.total} records ({self.files} file{'s' if self.files != 1 else ''} at {self.commit[:12]})"
        )

    def lines(self, verbose: bool = False) -> list[str]:
        """Return the lines to print: each change, parse failures, skipped raises (verbose), the summary."""
        out: list[str] = []
        kinds = [("added", self.added), ("re-pinned", self.repinned), ("changed", self.changed),
                 ("marked removed", self.removed)]
        if verbose:
            kinds.append(("unchanged", self.unchanged))
        for kind, changes in kinds:
            out += [f"{kind} {c.id} {c.path}:{c.line}" + (f" ({c.note})" if c.note else "") for c in changes]
        out += [f"cannot parse {f.path}: {f.reason} (skipped)" for f in self.failures]
        if verbose:
            out += [f"skipped {s.path}:{s.line}: {s.reason}" for s in self.skipped]
        if self.unchecked:
            out.append(f"{self.unchecked} pins kept unchecked: this clone is shallow and lacks their commits"
                       " (git fetch --unshallow gives the full history)")
        out.append(
            f"{len(self.skipped)} raises without a literal message skipped"
            + ("" if verbose else " (--verbose lists them)")
            + f"; {len(self.failures)} files could not be parsed"
        )
        out.append(self.summary())
        return out


@dataclass(frozen=True)
class Existing:
    """What a content folder holds for extract: its settings and its record files."""

    config: Config
    """`site.toml`, checked."""
    records: tuple[load.RawRecord, ...]
    """Every record file, parsed."""


def run(
    repo_dir: Path,
    rev: str = "HEAD",
    repo: str | None = None,
    content_dir: Path = Path("content"),
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    asserts: bool | None = None,
    warns: bool | None = None,
) -> ExtractReport:
    """Extract the raise sites of `repo_dir` at `rev` and bring the records in `content_dir` up to date.

    Which files are read comes from `[source]` in the content folder's
    `site.toml`; `include`, `exclude` and `asserts`, when given, override it.
    What the last run left (`lastrun`) spares parsing and matching again the records no change reached.
    """
    if repo is not None:
        check_repo_name(repo)
    raw_settings, unread = load.read_settings(content_dir)
    config, setting_problems = settings_to_config(raw_settings, str(content_dir / "site.toml"))
    settings = with_flags(config.source, include, exclude, asserts, warns)
    store = FactStore.usable(settings.asserts, settings.warnings, "extract", repo_dir)
    owner = (repo or config.repo, config.repo)
    last = store.last_run(content_dir, repo_dir) if store is not None else None
    if last is not None and last.owner != owner:
        last = None  # which records are the run's own changed: none is as the last run read it
    # A broken file stops the run: extract cannot tell which raise site it documents.
    try:
        records = RecordFiles.read(content_dir, last)
    except ProblemsFound as found:
        raise ProblemsFound([*unread, *found.problems, *setting_problems]) from None
    if unread or setting_problems:
        raise ProblemsFound([*unread, *setting_problems])
    snap = git.snapshot(repo_dir, rev, FileFilter.of_settings(settings))
    if last is None or not git.is_ancestor(repo_dir, last.commit, snap.commit):
        records.unsettle()
    files = without_link_helper(snap.files, lambda path: store is not None and store.scanned(path, snap.blobs[path]))
    scan = scan_files(files, settings.asserts, settings.warnings, context=True, whole=True, store=store,
                      blobs=snap.blobs)
    if store is not None:
        store.save(snap.blobs)
    synced = sync(content_dir, config, records, scan, snap.commit, repo,
                  lambda pins: git.history(repo_dir, snap.commit, pins),
                  lambda site, pin, why: since.changed_at(repo_dir, snap.commit, site, pin, why,
                                                          settings.asserts, settings.warnings),
                  checks=store is not None)
    if store is not None:
        if synced.left != last:
            store.keep_last_run(content_dir, repo_dir, synced.left)
        _leave_checked(store, content_dir, repo_dir, synced)
    return synced.report


def _leave_checked(store: FactStore, content_dir: Path, repo_dir: Path, synced: Synced) -> None:
    """Keep what `check` would find of the record files this run wrote (`Written`), so that a check after this run
    reads neither again. What is kept of the other files stays as check left it."""
    from .. import validate  # here: only a run that wrote a record needs it

    passed = {written.checked for written in synced.written.values() if written.checked is not None}
    pins = {written.pin for written in synced.written.values() if written.pin is not None}
    if pins:
        store.keep_pins_in_step(repo_dir, store.pins_in_step(repo_dir) | pins)
    if passed:
        # Of the files that are still there (by what the last run left of them, `lastrun`), and those written now.
        there = {validate.checked_key(name, left.digest) for name, left in synced.left.records.items()}
        checks = FactStore.open(False, False)  # check reads them whatever the settings
        checks.keep_records_checked(content_dir, frozenset((checks.records_checked(content_dir) & there) | passed))


def read(content_dir: Path) -> Existing:
    """Return the settings and records of `content_dir` (none yet is fine); unreadable files are a ProblemsFound."""
    if (content_dir / "errors").is_dir():
        content = load.load(content_dir)
    else:
        settings, problems = load.read_settings(content_dir)
        content = load.Content(settings, str(content_dir / "site.toml"), (), problems)
    config, setting_problems = settings_to_config(content.settings, content.settings_file)
    # A broken file stops the run: extract cannot tell which raise site it documents.
    if content.problems or setting_problems:
        raise ProblemsFound([*content.problems, *setting_problems])
    return Existing(config, content.records)


@dataclass(frozen=True)
class Synced:
    """What `sync` did."""

    report: ExtractReport
    """What it did to the records."""
    left: LastRun
    """What the next run may take as it is (`lastrun`)."""
    written: dict[str, Written]
    """Each record file it wrote, by name."""


def sync(
    content_dir: Path, config: Config, records: RecordFiles, scan: Scan, commit: str, repo: str | None,
    history: Callable[[Iterable[object]], git.History],
    changed_at: Callable[[RaiseSite, str, str], str] | None = None, checks: bool = False,
) -> Synced:
    """Match the records in `content_dir` to `scan`'s sites, write what changed, and return what was done and what
    the next run may take as it is (`lastrun`).

    `history(pins)` tells which pinned commits are in the history of `commit`;
    `changed_at(site, pin, why)` the commit after `pin` where the site took
    its new form (without it, `commit`). With `checks`, each file written is checked as `check` would check it
    (`Written`).
    """
    errors_dir = content_dir / "errors"
    site_repo = config.repo
    owner = repo or site_repo
    # Every name ends in .json (`RecordFiles.read`): its stem without a Path, whose making took a fifth of this step.
    names = {name.removesuffix(".json"): name for name in records.stats}
    known: dict[str, Known | None] = {}
    for name in records.stats:
        left = records.left.get(name)
        known[name] = left.known if left is not None else _known(records.data[name], site_repo, owner, name)
    digests = dict(zip(map(id, scan.sites), scan.digests))  # each site's, by its id()
    alone = _left_alone([k for k in known.values() if k is not None], scan, {
        k.id: left.site for left in records.left.values() if (k := left.known) is not None})
    paired_records = {id(record) for record, _ in alone}
    paired_sites = {id(site) for _, site in alone}
    matching = match([k for k in known.values() if k is not None and id(k) not in paired_records],
                     [site for site in scan.sites if id(site) not in paired_sites])
    pins = history(records.parse(names[record.id])["source"].get("commit", "") for record, _, _ in matching.pairs)
    in_history = pins.reachable | (pins.missing if pins.shallow else frozenset())
    writes: dict[Path, str] = {}
    buckets: dict[str, list[Change]] = defaultdict(list)
    # The site each record is in step with after the run, by file name: those left alone stay so.
    settled: dict[str, bytes | None] = {names[record.id]: records.left[names[record.id]].site for record, _ in alone}
    # What matching reads of each file written, and the digest of the site it is in step with (None: with none).
    updated: dict[str, tuple[Known | None, bytes | None]] = {}

    def wrote(name: str, data: dict[str, Any], now: RaiseSite | None) -> None:
        in_step = now is not None and _in_step(data, now, commit, pins.reachable)
        updated[name] = (_known(data, site_repo, owner, name), digests.get(id(now)) if in_step else None)
    for record, site in alone:
        buckets["unchanged"].append(Change(site.path, site.line, record.id))
    for record, site, rule in matching.pairs:
        name = names[record.id]
        data = records.parse(name)
        pin = data["source"].get("commit")
        update = _update(data, site, commit, pin in in_history)
        why = _new_change(data, update.data, commit)
        if why is not None and changed_at is not None and pin in in_history:
            update = replace(update, data=_moved_off(update.data, commit, changed_at(site, pin, why)))
        if update.data != data:
            # A record whose data did not change keeps its file as it is, even formatted by hand.
            writes[errors_dir / name] = _rewritten(errors_dir / name, update.data)
            wrote(name, update.data, site)
        elif pin in pins.reachable:
            settled[name] = digests.get(id(site))
        buckets[update.kind].append(Change(site.path, site.line, record.id, update.note))
    for record in matching.records:
        if record.active:
            name = names[record.id]
            removed = {**records.parse(name), "status": "removed"}
            writes[errors_dir / name] = _rewritten(errors_dir / name, removed)
            wrote(name, removed, None)
        buckets["removed" if record.active else "unchanged"].append(Change(record.path, record.line, record.id))
    # A retired id keeps leading to its successor: it is never handed to another site.
    taken = set(names) | {old for old, _ in config.redirects}
    for site in matching.sites:
        record_id = new_id(owner, site, taken, config.source.ids)
        taken.add(record_id)
        data = skeleton(record_id, site, commit, repo)
        writes[errors_dir / f"{record_id}.json"] = dumps(data)
        wrote(f"{record_id}.json", data, site)
        buckets["added"].append(Change(site.path, site.line, record_id))
    written = _write(writes, commit if checks else None)
    for name, (now_known, in_step_with) in updated.items():
        known[name] = now_known
        if in_step_with is not None:
            settled[name] = in_step_with
    report = ExtractReport(
        commit, scan.files,
        added=tuple(sorted(buckets["added"])), repinned=tuple(sorted(buckets["repinned"])),
        changed=tuple(sorted(buckets["changed"])), removed=tuple(sorted(buckets["removed"])),
        unchanged=tuple(sorted(buckets["unchanged"])),
        skipped=scan.skipped, failures=scan.failures,
        unchecked=len(pins.missing) if pins.shallow else 0,
    )
    return Synced(report, records.kept(commit, (owner, site_repo), known, settled, written), written)


def _known(data: object, site_repo: str | None, owner: str | None, name: str) -> Known | None:
    """Return what matching reads of a record file's data, or None when it is not one of the run's own records with
    a usable pin and the id its file name says."""
    if _owner(data, site_repo) != owner:
        return None
    found = Known.of(data)
    return found if found is not None and found.id == name.removesuffix(".json") else None


def _left_alone(records: Sequence[Known], scan: Scan, left: dict[str, bytes | None]) -> list[tuple[Known, RaiseSite]]:
    """Return the pairs of the groups of records (one place and message each) that matching would pair as the last
    run did, each record in step with its site: `left` gives the digest of the site each record was left in step
    with (`lastrun`), by id. Rule 1 pairs a group in line order when it has as many records as sites."""
    by_key: dict[tuple[str, ...], list[tuple[RaiseSite, bytes]]] = defaultdict(list)
    for site, digest in zip(scan.sites, scan.digests):  # in path and line order, as `match` takes them
        by_key[(site.path, site.function, site.exception, site.message)].append((site, digest))
    groups: dict[tuple[str, ...], list[Known]] = defaultdict(list)
    for record in records:
        groups[(record.path, record.function, record.exception, record.message)].append(record)
    pairs: list[tuple[Known, RaiseSite]] = []
    for key, group in groups.items():
        candidates = by_key.get(key, [])
        if len(candidates) != len(group) or any(left.get(r.id) is None for r in group):
            continue
        group.sort(key=lambda r: (r.line, r.id))
        if all(left[r.id] == digest for r, (_, digest) in zip(group, candidates)):
            pairs += ((r, site) for r, (site, _) in zip(group, candidates))
    return pairs


def _in_step(data: dict[str, Any], site: RaiseSite, commit: str, reachable: frozenset[str]) -> bool:
    """Return whether a record just written leaves the next run nothing to change on the same site: its pin is in the
    history and bringing it to the site again changes nothing."""
    pin = data["source"].get("commit")
    if pin != commit and pin not in reachable:
        return False
    again = _update(data, site, commit, True)
    return again.kind == "unchanged" and again.data == data


@dataclass(frozen=True)
class Update:
    """One matched record after the run."""

    data: dict[str, Any]
    """The record object to write."""
    kind: str
    """The report bucket: `unchanged`, `repinned` or `changed`."""
    note: str
    """Why it changed, for the report."""


def _update(data: dict[str, Any], site: RaiseSite, commit: str, in_history: bool) -> Update:
    """Return a matched record brought to `site`, its pin moved only when something it holds differs."""
    source = data["source"]
    old_message = data["message"]
    moved = (source.get("path"), source.get("function", "")) != (site.path, site.function)
    edited = old_message != site.message
    snippet = source.get("snippet") or {}
    same_text = snippet.get("code") == site.snippet_code
    code_changed = not same_text and not _same_code(snippet, source.get("line"), site)
    same_pin = not (moved or edited) and same_text and source.get("line") == site.line and (
        snippet.get("start") == site.snippet_start)
    restored = data.get("status") == "removed"
    record = with_variants({k: v for k, v in data.items() if k != "status"} if restored else dict(data), site)
    new_variants = record.get("variants") != data.get("variants")
    context = with_code_context(source, site) if same_pin and in_history else source
    if context != source and _moved_only(source, context):
        # A caller or a name whose line alone changed (a comment added above it) is the same code: at the pin,
        # which the page links, it is where the record says.
        context = source
    # Callers and names are lines at the scanned commit, and the page links them at the pin: new ones move the pin.
    if same_pin and in_history and (context == source or source.get("commit") == commit):
        if context != source:
            record["source"] = context
        notes = (["restored, was removed"] * restored + ["variants updated"] * new_variants
                 + ["guard, callers or names updated"] * (context != source))
        return Update(record, "changed" if notes else "unchanged", "; ".join(notes))
    record = {**record, "message": site.message, "source": _source(source, site, commit)}
    if not (moved or edited or code_changed):
        record = _verified_follows(record, source.get("commit"), commit)
    if not in_history:
        record = _moved_off(record, source.get("commit"), commit)
    if edited:
        record["variants"] = _earlier(record.get("variants"), old_message, site.message, commit)
    why = "message changed" if edited else "moved" if moved else "code changed" if code_changed else None
    if why is not None and any(data.get(k) for k in PROSE_FIELDS):
        record["review"] = _review(data.get("review"), why, commit)
    notes = []
    if restored:
        notes.append("restored, was removed")
    if edited:
        notes.append("message edited")
    if moved:
        notes.append(f"moved from {source.get('path')}:{source.get('function') or '<module>'}")
    if why is not None and "review" in record and record["review"] != data.get("review"):
        notes.append(f"review: {record['review']['why']}")
    if not in_history and same_pin:
        notes.append(f"pinned commit {str(source.get('commit'))[:12]} is not in the history")
    if same_pin and in_history:
        notes.append("guard, callers or names updated")
    kind = "changed" if restored or edited or moved else "repinned"
    return Update(record, kind, "; ".join(notes))


def _moved_only(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Return whether a `source` and the same with new code context (`with_code_context`) differ at most in the
    lines of their callers and names."""
    def unlined(source: dict[str, Any]) -> tuple[object, object, object]:
        callers = source.get("callers")
        names = source.get("names")
        return (source.get("guard"),
                [{k: v for k, v in c.items() if k != "line"} if isinstance(c, dict) else c for c in callers]
                if isinstance(callers, list) else callers,
                {n: {k: v for k, v in d.items() if k != "line"} if isinstance(d, dict) else d for n, d in names.items()}
                if isinstance(names, dict) else names)
    return unlined(old) == unlined(new)


def _same_code(snippet: dict[str, Any], line: object, site: RaiseSite) -> bool:
    """Return whether a record's snippet shows the same code as the site's, comments, blank lines and layout aside."""
    code, start = snippet.get("code"), snippet.get("start")
    if not (isinstance(code, str) and isinstance(start, int) and isinstance(line, int)):
        return False
    return tokens.same_code(tokens.Shown.of(code, start, line),
                            tokens.Shown.of(site.snippet_code, site.snippet_start, site.line))


def _verified_follows(record: dict[str, Any], pin: object, commit: str) -> dict[str, Any]:
    """Return `record` with an example checked at its old `pin` checked at `commit`: the code it shows is the same."""
    fix = record.get("example_fix")
    if not isinstance(fix, dict) or not isinstance(verified := fix.get("verified"), dict) or verified.get("commit") != pin:
        return record
    return {**record, "example_fix": {**fix, "verified": {**verified, "commit": commit}}}


def _new_change(old: dict[str, Any], new: dict[str, Any], commit: str) -> str | None:
    """Return why a record was just given a `review` or an `earlier` wording at `commit`, or None when it was not."""
    review = new.get("review")
    if isinstance(review, dict) and review != old.get("review") and review.get("since") == commit:
        return str(review.get("why"))
    variants = new.get("variants")
    if new.get("variants") != old.get("variants") and isinstance(variants, list) and any(
            isinstance(v, dict) and v.get("kind") == "earlier" and v.get("until") == commit for v in variants):
        return "message changed"
    return None


def _moved_off(record: dict[str, Any], gone: object, commit: str) -> dict[str, Any]:
    """Return `record` with `review.since` and earlier variants' `until` at commit `gone` moved to `commit`.

    Extract writes the pin, `review.since` and an earlier variant's `until`
    at the same commit. After a squash merge all three name a commit that no
    longer exists, and the squashed commit takes its place; when the history
    shows where the change happened, that commit does.
    """
    review = record.get("review")
    if isinstance(review, dict) and review.get("since") == gone:
        record = {**record, "review": {**review, "since": commit}}
    variants = record.get("variants")
    if isinstance(variants, list):
        record = {**record, "variants": [
            {**v, "until": commit} if isinstance(v, dict) and v.get("kind") == "earlier" and v.get("until") == gone else v
            for v in variants]}
    return record


def _earlier(variants: object, old: str, new: str, commit: str) -> list[object]:
    """Return the variants with `old` as an `earlier` wording that `commit` stopped raising."""
    kept = [v for v in (variants if isinstance(variants, list) else [])
            if not (isinstance(v, dict) and v.get("kind") == "earlier" and v.get("message") in (old, new))]
    return kept + [{"message": old, "kind": "earlier", "until": commit}]


def _review(old: object, why: str, commit: str) -> dict[str, str]:
    """Return the review of a record whose prose `why` may have outdated at `commit`, merged with one it had."""
    if not isinstance(old, dict) or old.get("why") not in REVIEW_WEIGHT or not isinstance(old.get("since"), str):
        return {"since": commit, "why": why}
    weightier = min(old["why"], why, key=REVIEW_WEIGHT.__getitem__)
    return {"since": old["since"], "why": weightier}


def match(records: Sequence[Known], sites: Sequence[RaiseSite], rules: int = 3) -> Matching:
    """Return records and sites paired by the first `rules` matching rules, one to one."""
    pairs: list[tuple[Known, RaiseSite, int]] = []
    left_records, left_sites = list(records), sorted(sites)
    steps = (_same_site, _moved, _edited)[:rules]
    for number, step in enumerate(steps, 1):
        found = step(left_records, left_sites)
        pairs += [(r, s, number) for r, s in found]
        used_records = {id(r) for r, _ in found}
        used_sites = {id(s) for _, s in found}
        left_records = [r for r in left_records if id(r) not in used_records]
        left_sites = [s for s in left_sites if id(s) not in used_sites]
    return Matching(tuple(pairs), tuple(sorted(left_records, key=lambda r: r.id)), tuple(left_sites))


def _same_site(records: list[Known], sites: list[RaiseSite]) -> list[tuple[Known, RaiseSite]]:
    """Pair records and sites with the same path, function, exception and message, in line order."""
    by_key: dict[tuple[str, ...], list[RaiseSite]] = defaultdict(list)
    for site in sites:
        by_key[(site.path, site.function, site.exception, site.message)].append(site)
    groups: dict[tuple[str, ...], list[Known]] = defaultdict(list)
    for record in records:
        groups[(record.path, record.function, record.exception, record.message)].append(record)
    pairs = []
    for key, group in groups.items():
        candidates = by_key.get(key, [])
        group.sort(key=lambda r: (r.line, r.id))
        if len(group) <= len(candidates):
            pairs += [(group[i], candidates[j]) for i, j in _align([r.line for r in group], [s.line for s in candidates])]
        else:
            pairs += [(group[j], candidates[i]) for i, j in _align([s.line for s in candidates], [r.line for r in group])]
    return pairs


def _align(few: list[int], many: list[int]) -> list[tuple[int, int]]:
    """Return (i, j) pairs matching every line of `few` to one of `many`, in order, least squared distance.

    Keeping the order keeps identical raises on their records when code shifts;
    the squared distance decides which of several is gone, the same way in
    both directions, so that moving to a commit and back restores every pin.
    """
    if len(few) == len(many):
        return [(i, i) for i in range(len(few))]  # in order, the one way (most groups are one record and one site)
    inf = float("inf")
    cost = [[0.0] * (len(many) + 1)] + [[inf] * (len(many) + 1) for _ in few]
    for i in range(1, len(few) + 1):
        for j in range(i, len(many) + 1):
            cost[i][j] = min(cost[i][j - 1], cost[i - 1][j - 1] + (few[i - 1] - many[j - 1]) ** 2)
    pairs, i, j = [], len(few), len(many)
    while i > 0:
        if j > i and cost[i][j] == cost[i][j - 1]:
            j -= 1
        else:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
    return pairs[::-1]


def _moved(records: list[Known], sites: list[RaiseSite]) -> list[tuple[Known, RaiseSite]]:
    """Pair records and sites with the same exception and message, nearest place first."""
    by_text: dict[tuple[str, str], list[RaiseSite]] = defaultdict(list)
    for site in sites:
        by_text[(site.exception, site.message)].append(site)
    candidates = [
        ((r.path != s.path, r.function != s.function, abs(r.line - s.line), r.id, s.path, s.line), r, s)
        for r in records for s in by_text.get((r.exception, r.message), ())
    ]
    return _greedy(candidates)


def _edited(records: list[Known], sites: list[RaiseSite]) -> list[tuple[Known, RaiseSite]]:
    """Pair records and sites in the same path, function and exception whose messages are similar."""
    by_place: dict[tuple[str, str, str], list[RaiseSite]] = defaultdict(list)
    for site in sites:
        by_place[(site.path, site.function, site.exception)].append(site)
    candidates = []
    for r in records:
        for s in by_place.get((r.path, r.function, r.exception), ()):
            ratio = similarity(r.message, s.message)
            if ratio >= SIMILARITY:
                candidates.append(((-ratio, abs(r.line - s.line), r.id, s.line), r, s))
    return _greedy(candidates)


def similarity(old: str, new: str) -> float:
    """Return how alike two templates are: difflib's ratio of them as written, or with each placeholder as `{}`.

    The code inside placeholders is not words: `argument{} ({})` rewritten as
    `argument{'s' if len(args) != 1 else ''} ({' '.join(args)})` says the same thing.
    """
    written = difflib.SequenceMatcher(None, old, new).ratio()
    if written >= SIMILARITY or ("{" not in old and "{" not in new and "%" not in old and "%" not in new):
        return written
    return max(written, difflib.SequenceMatcher(None, _shape(old), _shape(new)).ratio())


def _shape(message: str) -> str:
    """Return a template with each run of placeholders as `{}`."""
    return "".join("{}" if piece is None else message[piece[0]:piece[1]] for piece in pieces(message))


def _greedy(candidates: Sequence[tuple[tuple[object, ...], Known, RaiseSite]]) -> list[tuple[Known, RaiseSite]]:
    """Return pairs taken best first, each record and site at most once."""
    pairs, used_records, used_sites = [], set(), set()
    for _, record, site in sorted(candidates, key=lambda c: c[0]):
        if id(record) in used_records or id(site) in used_sites:
            continue
        used_records.add(id(record))
        used_sites.add(id(site))
        pairs.append((record, site))
    return pairs


def base_text(repo: str | None, site: RaiseSite) -> str:
    """Return the text a site's id hashes: repo, path, function, exception, message."""
    return "\n".join((repo or "", site.path, site.function, site.exception, site.message))


def new_id(repo: str | None, site: RaiseSite, taken: set[str], rule: str = "hash") -> str:
    """Return the id for a new record of `site` that no record in `taken` holds, by `[source] ids` `rule`."""
    linked = linked_id(site.message)
    if linked is not None and linked not in taken:
        return linked
    text = base_text(repo, site)
    words = (words_of(site.message) or words_of_place(site)) if rule == "words" else ""
    if words and words not in taken:
        return words
    candidate, n = _hash(text), 1
    while (f"{words}-{candidate[:SHORT_HASH]}" if words else candidate) in taken:
        n += 1
        candidate = _hash(f"{text}\n{n}")
    return f"{words}-{candidate[:SHORT_HASH]}" if words else candidate


def words_of(message: str) -> str:
    """Return the id a message's first literal words make: lower case, hyphens, at most WORDS_CHARS ("" for none)."""
    literal = unicodedata.normalize("NFKD", _PLACEHOLDER.sub(" ", message)).encode("ascii", "ignore").decode()
    # "can't" is one word, cant, not two.
    words = re.findall(r"[a-z0-9]+", re.sub(r"(?<=[a-z])'(?=[a-z])", "", literal.lower()))
    out = ""
    for word in words:
        joined = f"{out}-{word}" if out else word[:WORDS_CHARS]
        if len(joined) > WORDS_CHARS:
            break
        out = joined
    return out


def words_of_place(site: RaiseSite) -> str:
    """Return the id of a message without a literal word: its exception's and function's names (`raise
    RuntimeError(str(e))` in `load_weights` gives `runtime-error-in-load-weights`), as a reader names it."""
    exception = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", site.exception.rpartition(".")[2])
    where = site.function.rpartition(".")[2] if site.function else site.path.rpartition("/")[2].removesuffix(".py")
    return words_of(f"{exception} in {where}")


def linked_id(message: str) -> str | None:
    """Return the record id that a message links to (`.../errors/<id>/`), if any."""
    found = _LINK.search(message)
    return found[1] if found else None


def _hash(text: str) -> str:
    """Return the first 16 hex digits of the SHA-256 of `text`."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def skeleton(record_id: str, site: RaiseSite, commit: str, repo: str | None) -> dict[str, Any]:
    """Return a new record for `site` with no prose."""
    return with_variants({"id": record_id, "exception": site.exception, "message": site.message,
                          "source": _source({"repo": repo} if repo else {}, site, commit)}, site)


SITE_VARIANT_KINDS = ("plural", "alternative")
"""Variant kinds the code gives (extract keeps them current); others (`earlier`) are kept as they are."""


def with_variants(record: dict[str, Any], site: RaiseSite) -> dict[str, Any]:
    """Return `record` with the site's plural and alternative wordings as its variants, other variants kept after them.

    A site whose code gives no other wording leaves the variants as they are:
    people write plural and alternative wordings by hand too.
    """
    old = record.get("variants", [])
    if not site.variants or not isinstance(old, list):
        return record  # not a list: check reports it; extract does not guess what was meant
    kept = [v for v in old if not (isinstance(v, dict) and v.get("kind") in SITE_VARIANT_KINDS)]
    variants = [{"message": v.message, "kind": v.kind} for v in site.variants] + kept
    updated = {k: v for k, v in record.items() if k != "variants"}
    if variants:
        updated["variants"] = variants
    return updated


def _source(old: dict[str, Any], site: RaiseSite, commit: str) -> dict[str, Any]:
    """Return `old` source fields with the pin of `site` at `commit`, and what the code says there."""
    source = {k: v for k, v in old.items() if k != "function"}
    source.update(commit=commit, path=site.path, line=site.line,
                  snippet={"start": site.snippet_start, "code": site.snippet_code})
    if site.function:
        source["function"] = site.function
    return with_code_context(source, site)


CODE_CONTEXT_FIELDS = ("guard", "callers", "names")
"""Fields of `source` that extract writes from the code on every run (record format 1.2); never prose."""


def with_code_context(source: dict[str, Any], site: RaiseSite) -> dict[str, Any]:
    """Return a record's `source` with the guard, callers and names of `site`, each left out when empty."""
    updated = {k: v for k, v in source.items() if k not in CODE_CONTEXT_FIELDS}
    if site.guard:
        updated["guard"] = list(site.guard)
    if site.callers:
        updated["callers"] = [{"path": c.path, "line": c.line, "function": c.function} for c in site.callers]
    if site.names:
        updated["names"] = {name: {k: v for k, v in (("path", d.path), ("line", d.line), ("kind", d.kind),
                                                    ("help", d.help), ("flag", d.flag)) if v is not None}
                            for name, d in site.names}
    return updated


def check_repo_name(repo: str) -> None:
    """Raise a UserError unless `repo` is `owner/name`."""
    if not REPO_NAME.fullmatch(repo):
        raise UserError(f"--repo {repo!r} is not owner/name", hint="for example --repo pallets/flask", page="invalid-repo-name")


def _owner(data: object, site_repo: str | None) -> str | None:
    """Return the repository a record belongs to: its `source.repo`, else the site's."""
    source = data.get("source") if isinstance(data, dict) else None
    repo = source.get("repo") if isinstance(source, dict) else None
    return repo if isinstance(repo, str) else site_repo


def _rewritten(path: Path, data: dict[str, Any]) -> str:
    """Return the text of record file `path` changed to hold `data`, keeping what did not change as it was."""
    return rewrite(load.decode(load.read_bytes(path)), data)


def _write(writes: dict[Path, str], commit: str | None) -> dict[str, Written]:
    """Write each file whose bytes differ from what it holds (untouched files keep their mtime), letting go of each
    text once written; return each file, by name, checked as `check` would check it when `commit` (the commit read)
    is given."""
    written = {}
    for path in sorted(writes):
        data = writes.pop(path).encode("utf-8", "surrogateescape")
        if not (path.is_file() and path.read_bytes() == data):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        digest = load.file_digest(data)
        written[path.name] = Written(len(data), digest, *(_checks(path, data, digest, commit) if commit is not None
                                                          else (None, None)))
    return written


def _checks(path: Path, data: bytes, digest: bytes, commit: str) -> tuple[bytes | None, bytes | None]:
    """Return what `check` would find of a record file written with these bytes: its `checked_key` when it passes the
    record format's checks, and its `pin_key` when its pin is at `commit` (in step: the run read its site there)."""
    from .. import validate  # here: only a run that writes a record needs it

    try:
        record = load.RawRecord(str(path), load.parse_json(data), digest)
    except Invalid:
        return None, None  # check will say what is wrong with it
    if any(True for _ in validate.check_record(record)):
        return None, None
    source = record.data["source"]
    pin = pin_key(commit, source["path"], source["line"], source["snippet"]["start"], source["snippet"]["code"]) \
        if source["commit"] == commit else None
    return validate.checked_key(record.file, digest), pin
