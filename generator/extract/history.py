"""Each error's story across the library's releases: `extract --history`.

The release tags (`[history] tags`, a glob) are walked oldest first. Their order is the order of
their commits: a tag whose commit is an ancestor of another's comes first, and tags that are not
ancestors of one another (a maintenance branch beside the main line) go by commit date, then name.

At each tag the raise sites are those that `scan.scan_files` finds in the files `[source]` reads
there, read as blobs without a checkout. Only the files a tag changed are read from git; the scan
itself reads every file of the tag, because a site in one file may depend on another (a raising
helper, an exception class that builds its own message): at click 8.1, scanning each file alone
finds 83 sites where the whole repository has 70. A tag whose files are those of the tag before
it is not scanned again, and what a scan found is kept in a cache outside the repository (see
`cache_path`), by a hash of the files' blob ids, the settings and errorsite's scanning code, with
each tag commit's key and the files renamed between two tags: a rerun after a new tag lists and
scans that tag alone (and lists the tag before it, to compare). Scans of different tags run on
every core.

Each tag is compared with the nearest tag it descends from (`Tag.base`), so that a maintenance
release placed among newer releases by its date follows its own line. Sites are followed from tag
to tag the way `extract` re-pins records (`sync.match`): the same
place and message, the same message elsewhere (a raise moved to another file is one history),
or a similar message in the same place (a rewording); between releases, also a similar message
of the same exception in the same file whose function was renamed. A site that a tag compared with
its own does not match is removed in that tag; a removed error that a later tag raises again is added again.

Each record is then matched, the same way, to the history whose last site it is, and gets:

- `history`: the release that first raised it, each release that changed its wording, the
  release that no longer raised it (and again, when one raised it again);
- for each changed wording, an `earlier` variant whose `until` is that release's commit (an
  existing `earlier` variant with that wording gets that `until`).

A record whose error no release raised yet gets no `history`. Records of other repositories, and
what the records say otherwise, are left as they are; a file is written only when its data
changes.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import json
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..problems import UserError
from ..recordjson import dumps
from ..sitebuild.paths import own_folder, read_cached, user_cache, write_cached
from . import git
from .globs import FileFilter, with_flags
from .scan import Memo, scan_files
from .sites import RaiseSite
from .sync import SIMILARITY, Existing, Known, _owner, match, read, similarity

MAX_CACHE_BYTES = 512 * 1024 * 1024
"""The largest cache file read back; a larger one is taken as damaged and made again (a file of
gigabytes in its place would otherwise exhaust memory)."""
CACHE_FORMAT = 3
"""The layout of the cache file; a file of another layout is ignored and replaced."""

PARALLEL_MIN = 4
"""Fewer scans than this run in this process: starting workers would cost more than it saves."""

Site = tuple[str, int, str, str, str]
"""A raise site as the cache keeps it: path, line, function, exception, message."""

Rule = tuple[str, str]
"""A path a tag reads besides those `[source]` selects: (a file, or a folder ending in / and "" for the
top, at that tag; where it is in the layout `[source]` names). See `renames`."""


@dataclass(frozen=True)
class Tag:
    """A release tag and its commit."""

    name: str
    """The tag's name (`v8.1.3`)."""
    commit: str
    """Full hex id of the commit it names."""
    date: int
    """The commit's date, in seconds since the epoch."""
    base: int = -1
    """The walk's index of the tag this one is compared with: the nearest tag it descends from (a
    maintenance release is compared with its own line, not with a newer release of the main line
    that the walk placed before it by date), else the one just before it; -1 for the first."""
    current: bool = False
    """Whether this is the latest tag of the walk that the checked-out commit descends from: the
    records are the errors it raises now, so what that tag raised decides what is still raised."""


@dataclass
class Track:
    """One error followed from tag to tag."""

    last: Site
    """Where and how the latest tag that raised it raised it."""
    active: bool = True
    """Whether the latest tag walked raises it."""
    events: list[tuple[Tag, str, str | None]] = field(default_factory=list)
    """(tag, `added` | `changed` | `removed`, the wording before a change)."""
    rewordings: set[tuple[str, str]] = field(default_factory=set)
    """Each (wording before, wording after) of its `changed` events."""


@dataclass(frozen=True)
class HistoryReport:
    """What `extract --history` did."""

    tags: int
    """Release tags walked."""
    scanned: int
    """Tags whose files were scanned in this run."""
    cached: int
    """Tags whose sites came from the cache or from the tag before them."""
    errors: int
    """Errors followed across the releases."""
    records: int
    """Records that have a history."""
    written: int
    """Record files written."""
    seconds: float

    def summary(self) -> str:
        """Return the one-line count of the run."""
        return (f"history: {self.tags} release tag{'s' if self.tags != 1 else ''} ({self.scanned} scanned,"
                f" {self.cached} known), {self.errors} errors followed, {self.records} records with a history,"
                f" {self.written} written, {self.seconds:.1f} s")


def run(repo_dir: Path, content_dir: Path, repo: str | None = None, include: Sequence[str] = (),
        exclude: Sequence[str] = (), asserts: bool | None = None, warns: bool | None = None) -> HistoryReport:
    """Walk the release tags of `repo_dir` and write each record's `history` and earlier wordings."""
    started = time.perf_counter()
    existing = read(content_dir)
    settings = with_flags(existing.config.source, include, exclude, asserts, warns)
    tags = release_tags(repo_dir, existing.config.history.tags)
    if not tags:
        # Writing histories from no release would strip every record of the one it has.
        raise UserError(f"{repo_dir}: no release tag matches [history] tags {existing.config.history.tags!r}",
                        hint=_tags_hint(repo_dir), page="no-release-tags")
    keys = Keys(json.dumps([__version__, _scanner_digest(), list(settings.include), list(settings.exclude),
                            settings.asserts, settings.warnings]))
    cache = Cache.open(cache_path(repo_dir))
    wanted = FileFilter.of_settings(settings)
    extra, moves, after = renames(repo_dir, tags, keys, wanted, cache)
    listed = Listings(repo_dir, wanted)
    per_tag, scanned = tag_sites(repo_dir, tags, keys, listed, cache, extra,
                                 lambda files, memo: scan_files(files, settings.asserts, settings.warnings, memo).sites)
    cache.save()
    tracks = follow(tags, per_tag, moves, after)
    owner = repo or existing.config.repo
    written, with_history = apply(content_dir, existing, owner, tracks)
    return HistoryReport(len(tags), scanned, len(tags) - scanned, len(tracks), with_history, written,
                         time.perf_counter() - started)


def release_tags(repo_dir: Path, pattern: str) -> list[Tag]:
    """Return the tags matching `pattern` that name commits, oldest first (see the module's docstring)."""
    head = git.resolve(repo_dir, "HEAD")
    listed = git.run(repo_dir, ["for-each-ref", "--format=%(refname:strip=2)", "refs/tags"])
    names = sorted(n for n in listed.decode("utf-8", "surrogateescape").splitlines() if fnmatch.fnmatchcase(n, pattern))
    if not names:
        return []
    request = "".join(f"refs/tags/{n}^{{commit}}\n" for n in names).encode("utf-8", "surrogateescape")
    checked = git.run(repo_dir, ["cat-file", "--batch-check"], stdin=request).decode("ascii", "replace").splitlines()
    commits = {n: answer.split(" ")[0] for n, answer in zip(names, checked) if answer.split(" ")[1:2] == ["commit"]}
    if not commits:
        return []
    unique = sorted(set(commits.values()))
    dated = git.run(repo_dir, ["show", "-s", "--format=%H %ct", *unique]).decode("ascii").split()
    dates = {dated[i]: int(dated[i + 1]) for i in range(0, len(dated), 2)}
    ancestry = _ancestry(repo_dir, unique, head)
    ordered = _in_commit_order([Tag(n, c, dates[c]) for n, c in commits.items()], ancestry.below)
    return _with_bases(ordered, ancestry, {c: i for i, c in enumerate(unique)}, head)


def _tags_hint(repo_dir: Path) -> str:
    """Return what to do when no tag matches `[history] tags`, naming some tags the repository has."""
    listed = git.run(repo_dir, ["tag", "--list", "--sort=-creatordate"]).decode("utf-8", "replace").split()
    if not listed:
        return ("this clone has no tags: fetch them (git fetch --tags; in GitHub Actions, actions/checkout with"
                " fetch-depth: 0), or tag the releases")
    return (f"its newest tags are {', '.join(listed[:5])}: set tags in [history] of site.toml to a glob that"
            " matches them, for example tags = \"[0-9]*\" for 1.2.3")


@dataclass(frozen=True)
class Ancestry:
    """What the commit graph says about the tags' commits and the checked-out one."""

    below: dict[str, int]
    """For each tag commit, a bit set of the other tag commits that are its ancestors (bit i: the i-th in sorted order)."""
    below_head: int
    """The bit set of the tag commits that the checked-out commit is or descends from."""
    parents: dict[str, list[str]]
    """Each commit's parents, for every commit below the tags and the checked-out one."""


def _ancestry(repo_dir: Path, commits: list[str], head: str) -> Ancestry:
    """Return the ancestry of the tag `commits` (sorted) and of `head`."""
    bit = {c: 1 << i for i, c in enumerate(commits)}
    graph = git.run(repo_dir, ["rev-list", "--parents", "--topo-order", "--reverse", *commits, head]).decode("ascii")
    below: dict[str, int] = {}
    parents: dict[str, list[str]] = {}
    for row in graph.splitlines():
        commit, *up = row.split()
        parents[commit] = up
        mask = 0
        for parent in up:
            mask |= below.get(parent, 0)
        below[commit] = mask | bit.get(commit, 0)
    return Ancestry({c: below.get(c, 0) & ~bit[c] for c in commits}, below.get(head, 0), parents)


def _reachable(parents: dict[str, list[str]], top: str, known: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """Return the commits `top` is or descends from, leaving out `known` and what is below it."""
    seen: set[str] = set()
    todo = [top]
    while todo:
        commit = todo.pop()
        if commit in seen or commit in known:
            continue
        seen.add(commit)
        todo.extend(parents.get(commit, ()))
    return seen


def _in_commit_order(tags: list[Tag], ancestors: dict[str, int]) -> list[Tag]:
    """Return `tags` with every ancestor's tags first, otherwise by commit date and name."""
    index = {c: i for i, c in enumerate(sorted({t.commit for t in tags}))}
    placed = 0
    ordered: list[Tag] = []
    waiting = sorted(tags, key=lambda t: (t.date, t.name))
    while waiting:
        ready = next((t for t in waiting if ancestors[t.commit] & ~placed == 0), waiting[0])
        waiting.remove(ready)
        ordered.append(ready)
        placed |= 1 << index[ready.commit]
    return ordered


def _with_bases(ordered: list[Tag], ancestry: Ancestry, index: dict[str, int], head: str) -> list[Tag]:
    """Return `ordered` with each tag's `base` and the `current` one set (see `Tag`).

    The nearest tag a commit descends from is, as for `git describe`, the one fewest of its commits
    are not below: a maintenance branch that merges older lines forward (click's 5.x merged 4.x,
    which merged 3.x) is compared with its own last release, and a main line that merges each
    release branch back with the newest release it merged.
    """
    at = {t.commit: i for i, t in enumerate(ordered)}
    by_bit = {i: c for c, i in index.items() if c in at}
    below_tag: dict[str, set[str]] = {}

    def nearest(commit: str, mask: int) -> int:
        tags = [by_bit[bit] for bit in _bits(mask) if bit in by_bit]
        # Of the tags below, those below none of the others: one pass over bit sets, not one per pair of tags
        # (with 2,000 tags, pairs of tags below each tag took minutes).
        under = 0
        for other in tags:
            under |= ancestry.below[other]
        tops = [c for c in tags if not under >> index[c] & 1]
        if len(tops) < 2:
            return at[tops[0]] if tops else -1

        def apart(c: str) -> tuple[int, int]:
            if c not in below_tag:
                below_tag[c] = _reachable(ancestry.parents, c)
            return len(_reachable(ancestry.parents, commit, below_tag[c])), -at[c]
        return at[min(tops, key=apart)]

    based = []
    last_at: dict[str, int] = {}
    for i, tag in enumerate(ordered):
        base = last_at[tag.commit] if tag.commit in last_at else nearest(tag.commit, ancestry.below[tag.commit])
        last_at[tag.commit] = i
        based.append(replace(tag, base=base if base >= 0 else i - 1))
    current = nearest(head, ancestry.below_head)
    current = current if current >= 0 else len(based) - 1
    based[current] = replace(based[current], current=True)
    return based


def _bits(mask: int) -> Iterator[int]:
    """Yield the positions of the bits set in `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class Listings:
    """The files a tag reads at its commit, by path -> blob id: those `[source]` selects and the tag's
    `extra` paths (see `renames`); each commit is listed by git when first asked for."""

    def __init__(self, repo_dir: Path, wanted: Callable[[str], bool]) -> None:
        self.repo_dir = repo_dir
        self.wanted = wanted
        self.found: dict[str, dict[str, str]] = {}

    def __call__(self, commit: str, extra: frozenset[Rule] = frozenset()) -> dict[str, str]:
        """Return the files read at `commit`."""
        if commit not in self.found:
            self.found[commit] = git.list_tree(self.repo_dir, commit)
        return {p: oid for p, oid in self.found[commit].items() if final(p, extra, self.wanted) is not None}


@dataclass(frozen=True)
class Keys:
    """The cache's keys, each a hash that starts from the settings and errorsite's scanning code (`salt`)."""

    salt: str

    def tree(self, listing: dict[str, str]) -> str:
        """Return the key of a tag's sites: its files' paths and blob ids."""
        return self._hash("".join(f"\0{p}\0{oid}" for p, oid in sorted(listing.items())))

    def tag(self, commit: str, extra: frozenset[Rule] = frozenset()) -> str:
        """Return the key under which a tag's commit, with the paths it reads besides `[source]`'s, names its
        `tree` key: a commit's files never change."""
        return self._hash(f"\0tag\0{commit}" + "".join(f"\0{a}\0{b}" for a, b in sorted(extra)))

    def pair(self, before: str, after: str) -> str:
        """Return the key of the files renamed between two commits."""
        return self._hash(f"\0pair\0{before}\0{after}")

    def _hash(self, text: str) -> str:
        return hashlib.sha256((self.salt + text).encode("utf-8", "surrogateescape")).hexdigest()


def tag_sites(repo_dir: Path, tags: list[Tag], keys: Keys, listed: Listings, cache: Cache,
              extra: frozenset[Rule], scan: Callable[[dict[str, bytes], Memo], Sequence[RaiseSite]]
              ) -> tuple[list[tuple[Site, ...]], int]:
    """Return the sites of each tag, from the cache or a scan of its files, and how many tags were scanned.

    `extra` are the paths the tags read besides `[source]`'s (see `renames`). A tag the cache knows
    is not even listed: a rerun after a new tag asks git about that tag alone.
    """
    tree_keys = []
    for tag in tags:
        known = cache.tags.get(keys.tag(tag.commit, extra))
        tree_keys.append(known if known in cache.trees else keys.tree(listed(tag.commit, extra)))
    todo = sorted({k for k in tree_keys if k not in cache.trees}, key=tree_keys.index)
    firsts = {k: listed(tags[tree_keys.index(k)].commit, extra) for k in todo}
    blobs = git.read_objects(repo_dir, sorted({oid for k in todo for oid in firsts[k].values()}))
    trees = [{p: data for p, oid in firsts[k].items() if (data := blobs[oid]) is not None} for k in todo]
    for k, sites in zip(todo, _scan_all(trees, scan)):
        cache.trees[k] = sites
    cache.kept_tags = {keys.tag(tag.commit, extra): k for tag, k in zip(tags, tree_keys)}
    return [cache.trees[k] for k in tree_keys], len(todo)


def renames(repo_dir: Path, tags: list[Tag], keys: Keys, wanted: Callable[[str], bool], cache: Cache
            ) -> tuple[frozenset[Rule], list[dict[str, str]], dict[str, str]]:
    """Return the paths every tag reads besides those `[source]` selects; for each tag, the files that
    git sees renamed since the tag it is compared with (old path -> new path); and the files renamed
    from the tag the checked-out commit descends from to that commit.

    `[source]` names today's layout: a library that moved its package (click 7.1: `click/` to
    `src/click/`) raised the same errors before the move from files it no longer selects. Each file
    that git sees renamed (`git diff -M`) into a file read today, or into one such a file was renamed
    from later, is read wherever a tag has it, and so is its folder's every file that the same move
    would put where `[source]` selects (a file deleted before the move was still the library's).
    Every tag reads them, not only the tags a later one is compared with: a release tagged off the
    main line (click 0.6, beside 1.0) has the layout of its own line. Tests moved along stay out, as
    `[source]` leaves them.
    """
    head = git.resolve(repo_dir, "HEAD")
    current = next((i for i, t in enumerate(tags) if t.current), -1)
    # After the last release: not cached, the checked-out commit moves on.
    after = {old: new for old, new in _renamed_files(repo_dir, tags[current].commit, head).items() if wanted(new)}
    rules = _moved_rules(after, frozenset(), wanted)
    pairs: list[dict[str, str]] = [{} for _ in tags]
    # Newest first, so that a later move is known when an earlier one into its old place is met.
    for i in reversed(range(len(tags))):
        tag = tags[i]
        if tag.base < 0:
            continue
        before = tags[tag.base]
        key = keys.pair(before.commit, tag.commit)
        if key not in cache.moves:
            cache.moves[key] = _renamed_files(repo_dir, before.commit, tag.commit)
        pairs[i] = cache.moves[key]
        known = frozenset(rules)
        rules |= _moved_rules({o: n for o, n in pairs[i].items() if final(n, known, wanted) is not None}, known, wanted)
    cache.kept_moves = {keys.pair(tags[t.base].commit, t.commit) for t in tags if t.base >= 0}
    read = frozenset(rules)
    found = [{old: new for old, new in moved.items() if final(new, read, wanted) is not None} for moved in pairs]
    return read, found, after


def final(path: str, rules: frozenset[Rule], wanted: Callable[[str], bool]) -> str | None:
    """Return where `path` of a tag with `rules` is in `[source]`'s layout, or None when the tag does not read it."""
    if wanted(path):
        return path
    for old, new in sorted(rules, key=lambda r: (-len(r[0]), r)):
        if old == path:
            return new
        if (old == "" or old.endswith("/")) and path.startswith(old) and wanted(new + path[len(old):]):
            return new + path[len(old):]
    return None


def _moved_rules(moved: dict[str, str], rules: frozenset[Rule], wanted: Callable[[str], bool]) -> set[Rule]:
    """Return the rules that files renamed into files read with `rules` give the tag before: each file, and its folder."""
    out: set[Rule] = set()
    for old, new in moved.items():
        target = final(new, rules, wanted)
        if target is None or wanted(old):
            continue
        out.add((old, target))
        a, b = old.split("/"), new.split("/")
        k = 0
        while k < min(len(a), len(b)) and a[-1 - k] == b[-1 - k]:
            k += 1
        if k == 0 or a[:-k] == b[:-k]:
            continue  # the file was renamed, not its folder moved
        folder, to = "".join(f"{x}/" for x in a[:-k]), "".join(f"{x}/" for x in b[:-k])
        # Where the new folder is in [source]'s layout: as it is, or through the rule that reads it.
        if target != new:
            via = next(((o, n) for o, n in rules if (o == "" or o.endswith("/")) and to.startswith(o)), None)
            if via is None:
                continue
            to = via[1] + to[len(via[0]):]
        out.add((folder, to))
    return out


def _renamed_files(repo_dir: Path, before: str, after: str) -> dict[str, str]:
    """Return every file that git sees renamed from one commit to the other (old path -> new path)."""
    if before == after:
        return {}
    out = git.run(repo_dir, ["diff", "--name-status", "-z", "-M", "--diff-filter=R", before, after])
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    moved: dict[str, str] = {}
    i = 0
    while i < len(fields) - 2:
        if fields[i].startswith("R"):
            moved[fields[i + 1]] = fields[i + 2]
        i += 3
    return moved


_TREES: list[dict[str, bytes]] = []
_SCAN: Callable[[dict[str, bytes], Memo], Sequence[RaiseSite]] | None = None
"""What forked scanners read, set before they fork."""


def _scan_all(trees: list[dict[str, bytes]], scan: Callable[[dict[str, bytes], Memo], Sequence[RaiseSite]]
              ) -> list[tuple[Site, ...]]:
    """Return the sites of each tree, in order; on every core, each taking a run of successive trees, when there are enough.

    Successive releases share most files: a run of them is scanned with one `scan.Memo`, which
    parses each file and finds each function's shape once.
    """
    global _TREES, _SCAN
    jobs = min(len(trees), os.cpu_count() or 1)
    if jobs < 2 or len(trees) < PARALLEL_MIN or not hasattr(os, "fork"):
        return _scan_run(trees, scan)
    _TREES, _SCAN = trees, scan
    size = -(-len(trees) // jobs)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            runs = pool.map(_scan_part, [(start, start + size) for start in range(0, len(trees), size)], chunksize=1)
    finally:
        _TREES, _SCAN = [], None
    return [sites for run in runs for sites in run]


def _scan_part(part: tuple[int, int]) -> list[tuple[Site, ...]]:
    assert _SCAN is not None
    return _scan_run(_TREES[part[0]:part[1]], _SCAN)


def _scan_run(trees: list[dict[str, bytes]], scan: Callable[[dict[str, bytes], Memo], Sequence[RaiseSite]]
              ) -> list[tuple[Site, ...]]:
    memo = Memo()
    return [_sites(scan(files, memo)) for files in trees]


def _sites(found: Sequence[RaiseSite]) -> tuple[Site, ...]:
    return tuple((s.path, s.line, s.function, s.exception, s.message) for s in found)


def _scanner_digest() -> str:
    """Return a hash of the code that finds raise sites (extraction but this walk): a changed scanner scans every tag again."""
    h = hashlib.sha256()
    for path in sorted(p for p in Path(__file__).parent.glob("*.py") if p.name != "history.py"):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def cache_path(repo_dir: Path) -> Path:
    """Return the cache file of a repository: in the user's cache folder, named for the repository's absolute path.

    It is never inside the repository, where a pull request could put a file that extract would trust,
    and the folder is proven errorsite's own as the build's is (`paths.own_folder`).
    """
    name = hashlib.sha256(str(repo_dir.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return own_folder(user_cache() / "history") / f"{name}.json"


@dataclass
class Cache:
    """What earlier runs found: each tag's sites by `Keys.tree`, each tag commit's tree key, the files renamed
    between two tags."""

    path: Path
    trees: dict[str, tuple[Site, ...]]
    """`Keys.tree` -> the sites."""
    tags: dict[str, str]
    """`Keys.tag` -> the `Keys.tree` of that tag."""
    moves: dict[str, dict[str, str]]
    """`Keys.pair` -> old path -> new path."""
    kept_tags: dict[str, str] = field(default_factory=dict)
    """The tags of this run: the cache keeps only those, and their trees."""
    kept_moves: set[str] = field(default_factory=set)
    """The pairs of tags of this run."""
    loaded: object = None
    """What the file held, to leave it alone when nothing changed."""

    @classmethod
    def open(cls, path: Path) -> Cache:
        """Return the cache at `path`; a missing, damaged or older file is an empty cache."""
        try:
            kept = read_cached(path, MAX_CACHE_BYTES)
            if kept is None:
                raise ValueError(path)
            data = json.loads(kept)
            if data.get("format") != CACHE_FORMAT:
                raise ValueError(path)
            trees = {k: tuple((s[0], int(s[1]), s[2], s[3], s[4]) for s in v) for k, v in data["trees"].items()}
            tags = {str(k): str(v) for k, v in data["tags"].items()}
            moves = {str(k): {str(a): str(b) for a, b in v.items()} for k, v in data["moves"].items()}
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            return cls(path, {}, {}, {})
        return cls(path, trees, tags, moves, loaded=(trees, tags, moves))

    def save(self) -> None:
        """Write what this run used, whole or not at all; a cache that cannot be written is skipped."""
        trees = {k: self.trees[k] for k in sorted(set(self.kept_tags.values()))}
        moves = {k: self.moves[k] for k in sorted(self.kept_moves)}
        if (trees, self.kept_tags, moves) == self.loaded:
            return
        data = {"format": CACHE_FORMAT, "trees": trees, "tags": dict(sorted(self.kept_tags.items())), "moves": moves}
        try:
            write_cached(self.path, json.dumps(data, separators=(",", ":")).encode())
        except OSError:
            pass  # the history is written all the same; the next run scans again


def follow(tags: list[Tag], per_tag: list[tuple[Site, ...]], moves: list[dict[str, str]],
           after: dict[str, str] | None = None) -> list[Track]:
    """Return every error followed across the tags, each with the releases that changed it.

    `moves` gives each tag's renamed files, `after` those renamed since the tag the checked-out
    commit descends from (see `renames`): each track's last site is where that commit has its file.
    """
    tracks: list[Track] = []
    # What the tags that a later tag is compared with, other than the next one, left: each track's last site and state.
    wanted = {t.base for i, t in enumerate(tags) if 0 <= t.base < i - 1} | {i for i, t in enumerate(tags) if t.current}
    states: dict[int, list[tuple[Site, bool]]] = {}
    for i, (tag, sites, moved) in enumerate(zip(tags, per_tag, moves)):
        if tag.base != i - 1:
            _restore(tracks, states.get(tag.base, []))
        for track in tracks:
            if track.last[0] in moved:
                track.last = (moved[track.last[0]], *track.last[1:])
        if tag.base < 0 or sites != per_tag[tag.base]:
            _compare(tag, sites, tracks)
        if i in wanted:
            states[i] = [(t.last, t.active) for t in tracks]
    current = next((i for i, t in enumerate(tags) if t.current), len(tags) - 1)
    if current != len(tags) - 1:
        _restore(tracks, states[current])
    for track in tracks:
        if track.last[0] in (after or {}):
            track.last = ((after or {})[track.last[0]], *track.last[1:])
    return tracks


def _restore(tracks: list[Track], state: list[tuple[Site, bool]]) -> None:
    """Set each track to what a walked tag left; an error first seen after that tag is not raised there."""
    for track, (last, active) in zip(tracks, state):
        track.last, track.active = last, active
    for track in tracks[len(state):]:
        track.active = False


def _compare(tag: Tag, sites: tuple[Site, ...], tracks: list[Track]) -> None:
    """Follow `tracks` into the sites of `tag`: record what it added, reworded and no longer raises."""
    left = [_raise_site(s) for s in sites]
    for active in (True, False):
        candidates = [i for i, t in enumerate(tracks) if t.active == active]
        found = match([_known(i, tracks[i].last) for i in candidates], left)
        renamed = _renamed(found.records, found.sites) if active else []
        for known, site in [*((k, s) for k, s, _ in found.pairs), *renamed]:
            track = tracks[int(known.id)]
            now = (site.path, site.line, site.function, site.exception, site.message)
            # A release beside the line it is compared with (click 0.7 and 1.0, both compared with
            # 0.5.1) may bring what the other brought already: the error's story says it once.
            if not track.active:
                if track.events[-1][1] == "removed":
                    track.events.append((tag, "added", None))
            elif site.message != track.last[4] and (track.last[4], site.message) not in track.rewordings:
                track.events.append((tag, "changed", track.last[4]))
                track.rewordings.add((track.last[4], site.message))
            track.last, track.active = now, True
        paired = {id(k) for k, _ in renamed}
        if active:
            for known in found.records:
                if id(known) not in paired:
                    tracks[int(known.id)].active = False
                    tracks[int(known.id)].events.append((tag, "removed", None))
        taken = {id(site) for _, site in renamed}
        left = [site for site in found.sites if id(site) not in taken]
    for site in left:
        tracks.append(Track((site.path, site.line, site.function, site.exception, site.message),
                            events=[(tag, "added", None)]))


def _renamed(known: Sequence[Known], sites: Sequence[RaiseSite]) -> list[tuple[Known, RaiseSite]]:
    """Return the errors of one file whose function was renamed and whose message was reworded in one release.

    Re-pinning's rules (`sync.match`) want the same function for a reworded message; between two
    releases a class is renamed as often as its messages are (click 8.2: `MultiCommand` became
    `Group`, "Multi commands in chain mode ..." became "A group in chain mode ...").
    """
    candidates = sorted(
        (-ratio, k.id, s.line, k, s) for k in known for s in sites
        if k.path == s.path and k.exception == s.exception and (ratio := _similarity(k.message, s.message)) >= SIMILARITY)
    pairs: list[tuple[Known, RaiseSite]] = []
    used: set[int] = set()
    for _, _, _, k, s in candidates:
        if id(k) not in used and id(s) not in used:
            used |= {id(k), id(s)}
            pairs.append((k, s))
    return pairs


def _similarity(a: str, b: str) -> float:
    """Return `sync.similarity`, or 0 when difflib's quick upper bounds are below SIMILARITY already."""
    matcher = difflib.SequenceMatcher(None, a, b)
    if ("{" in a or "%" in a) and ("{" in b or "%" in b):
        return similarity(a, b)
    if matcher.real_quick_ratio() < SIMILARITY or matcher.quick_ratio() < SIMILARITY:
        return 0.0
    return matcher.ratio()


def _raise_site(site: Site) -> RaiseSite:
    path, line, function, exception, message = site
    return RaiseSite(path, line, function, exception, message, 0, "")


def _known(number: int, site: Site) -> Known:
    path, line, function, exception, message = site
    return Known(str(number), exception, message, path, function, line, True)


def apply(content_dir: Path, existing: Existing, owner: str | None, tracks: list[Track]) -> tuple[int, int]:
    """Write each record's history from the error it is; return (files written, records with a history)."""
    files = {Path(raw.file): raw.data for raw in existing.records}
    mine = {path.stem: (path, data) for path, data in files.items() if _owner(data, existing.config.repo) == owner}
    left = [k for stem, (_, data) in mine.items() if (k := Known.of(data)) is not None and k.id == stem]
    paired: dict[str, Track] = {}
    # A record is first the error that the latest tag still raises, and only then one that it no longer raises.
    for active in (True, False):
        candidates = [t for t in tracks if t.active == active]
        sites = [_raise_site(t.last) for t in candidates]
        by_site = {id(site): track for site, track in zip(sites, candidates)}
        found = match(left, sites)
        paired.update((known.id, by_site[id(site)]) for known, site, _ in found.pairs)
        left = list(found.records)
    worded = _earlier_wordings(left, mine, tracks)
    written = 0
    for record_id, (path, data) in sorted(mine.items()):
        track = paired.get(record_id)
        events = track.events if track else worded.get(record_id, [])
        updated = with_history(data, events)
        if updated != data:
            path.write_bytes(dumps(updated).encode("utf-8", "surrogateescape"))
            written += 1
    return written, len(paired) + len(worded)


def _earlier_wordings(left: Sequence[Known], mine: dict[str, tuple[Path, dict[str, Any]]], tracks: list[Track]
                      ) -> dict[str, list[tuple[Tag, str, str | None]]]:
    """Return, for each removed record that no error is, the history of the error that once printed its message.

    Re-pinning keeps a record when it finds its raise again; a raise whose class was renamed and
    whose message was reworded in one step (click 8.2: `MultiCommand` to `Group`) gets a new record,
    and the old one is marked removed, while the walk follows one error. The old record's wording
    was raised until the release that changed it: its history is the error's up to that release,
    which no longer raised it.
    """
    out: dict[str, list[tuple[Tag, str, str | None]]] = {}
    for known in left:
        if mine[known.id][1].get("status") != "removed":
            continue
        for track in tracks:
            at = next((i for i, (_, change, old) in enumerate(track.events)
                       if change == "changed" and old == known.message), None)
            if at is not None and track.last[3] == known.exception:
                out[known.id] = [*track.events[:at], (track.events[at][0], "removed", None)]
                break
    return out


def with_history(data: dict[str, Any], events: Sequence[tuple[Tag, str, str | None]]) -> dict[str, Any]:
    """Return a record object with `history` from `events`, and an `earlier` variant for each changed wording."""
    record = {k: v for k, v in data.items() if k != "history"}
    if events:
        record["history"] = [{"release": tag.name, "commit": tag.commit, "change": change} for tag, change, _ in events]
    variants = record.get("variants", [])
    if not isinstance(variants, list):
        return record  # not a list: check reports it; history does not guess what was meant
    variants = list(variants)
    for tag, change, old in events:
        if change != "changed" or old is None or old == data.get("message"):
            continue
        same = [i for i, v in enumerate(variants) if isinstance(v, dict) and v.get("kind") == "earlier"
                and v.get("message") == old]
        if same:
            variants[same[0]] = {**variants[same[0]], "until": tag.commit}
        else:
            variants.append({"message": old, "kind": "earlier", "until": tag.commit})
    if variants:
        record["variants"] = variants
    return record

