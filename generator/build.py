"""Build a site: load, validate, render (only what changed, on every core) and write.

The output is the same bytes as a clean build of the same input, whatever the cache holds:
every cached value is keyed by a hash of everything it was made from (see `cache`).
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import __version__, cache, load, write
from .assets import PACKAGE, templates_dir
from .problems import Invalid

QUICK_MAX = 64
"""Above this many changed record files, a whole build (which reads every record once) is as quick."""
PARALLEL_MIN = 300
"""Below this many files to render, starting worker processes costs more than it saves."""
CHUNK = 48
"""Files a worker renders per task: small enough to balance, large enough to be cheap to send."""

RACY_NS = 2_000_000_000
"""A file changed this close to a build may change again without its size or time changing."""
RACY = -1
"""The modification time saved for such a file: its hash decides whether it changed."""

Progress = Callable[[int, int], None]
"""Called with (files rendered, files to render) as a build goes."""


@dataclass(frozen=True, slots=True)
class Result:
    """What a build did."""

    records: int
    pages: int
    """HTML pages of the site."""
    rendered: int
    """Files rendered by this build; 0 when nothing had changed."""
    written: int
    """Files written or replaced in the output folder."""
    deleted: int
    full: bool
    """Whether the whole output folder was written afresh."""
    seconds: float = 0.0


def build(content: Path, out: Path, base_url: str | None = None, *,
          jobs: int | None = None, progress: Progress | None = None) -> Result:
    """Build the site of `content` into `out`, rendering only what changed since the last build."""
    started = time.perf_counter()
    write.check_output(out)
    write.clean_leftovers(out)
    write.clean_leftovers(previous_tree(out))
    if not content.is_dir():
        load.load(content)  # raises the user error that explains it
    saved = cache.SavedState(cache.cache_folder(out))
    try:
        try:
            return _build(content, out, base_url, saved, jobs, progress, started)
        except cache.Damaged:
            # A damaged state is no user error: start again without it.
            saved.discard()
            return _build(content, out, base_url, saved, jobs, progress, started)
    finally:
        saved.close()


def _build(content: Path, out: Path, base_url: str | None, saved: cache.SavedState, jobs: int | None,
           progress: Progress | None, started: float) -> Result:
    """Build with the saved state, which may turn out to be damaged (cache.Damaged)."""
    head = saved.head()
    env, env_stamp = _environment(content, base_url, head)
    settings_path = content / "site.toml"
    settings_bytes = _settings_bytes(settings_path)
    scanned_ns = time.time_ns()
    scan = _scan(content / "errors")
    marker = _marker(out)
    ours = marker != (0, 0, 0) and marker == head.marker
    if ours and head.env == env and head.settings == cache.digest(settings_bytes) and scan.keys() == head.files.keys():
        changed = [n for n, st in scan.items() if not _unchanged(head.files[n], n, st)]
        if not changed:
            records, pages = head.summary
            return Result(records, pages, 0, 0, 0, False, time.perf_counter() - started)
        if len(changed) <= QUICK_MAX:
            result = _Update(content, out, base_url, saved, head, scan, scanned_ns).run(sorted(changed))
            if result is not None:
                return replace(result, seconds=time.perf_counter() - started)
    state = saved.load()
    ours = ours and marker == state.marker
    job = _Job(content, out, base_url, saved, state, env, env_stamp, settings_path, settings_bytes, scan,
               scanned_ns, ours)
    return job.run(jobs or os.cpu_count() or 1, progress, started)


@dataclass(frozen=True)
class _Update:
    """A build after edits that change only the edited records' own pages and search terms.

    The settings, the code and the set of record files are those of the last build, and no
    edit changes what other pages show of a record (its summary) or which errors are related;
    then only the edited records are read, their pages rendered, and the search index changed
    where their terms changed. Otherwise `run` returns None and a whole build follows.
    """

    content: Path
    out: Path
    base_url: str | None
    saved: cache.SavedState
    head: cache.State
    scan: dict[str, tuple[int, int]]
    scanned_ns: int

    def run(self, changed: list[str]) -> Result | None:
        """Rebuild after the edits of the files `changed`, or return None."""
        config, broken = read_config(self.content / "site.toml", self.base_url)
        if broken or cache.digest(repr(config.repo)) != self.head.config_key:
            return None
        edits = self.read(changed, config)
        if edits is None:
            return None
        files = [self.stat(saved) for saved, record in edits if record is None]
        edited = {record.id: (saved, record) for saved, record in edits if record is not None}
        if not edited:
            self.saved.update(files, [], {})
            return Result(*self.head.summary, 0, 0, 0, False)
        bodies, keys, searched = self.render(config, edited)
        outputs = self.saved.outputs([*bodies, "search-index.js"])
        if any(searched[i][2] != saved.index_key for i, (saved, _) in edited.items()):
            index_keys = self.saved.index_keys()
            index_keys.update((record_id, key) for record_id, (_, _, key) in searched.items())
            script = self.search_index(edited, searched, outputs)
            if script is None or None in index_keys.values():
                return None
            bodies["search-index.js"] = script
            keys["search-index.js"] = search_index_key(cache.digest(self.head.env, repr(config)),
                                                       [index_keys[i] for i in sorted(index_keys)])  # type: ignore[misc]
        hashes = {path: cache.digest(body) for path, body in bodies.items()}
        written = sorted(path for path, sha in hashes.items() if outputs.get(path, ("", ""))[1] != sha)
        behind = self.head.behind
        if written:
            staging = write.staging_folder(self.out)
            for path in written:
                write.write_file(staging, path, bodies[path])
            self.saved.forget()
            behind = tuple(write.commit_changes(staging, self.out, previous_tree(self.out), written, [], behind))
        for record_id, (saved, record) in edited.items():
            entry, terms, key = searched[record_id]
            files.append(replace(self.stat(saved), record=cache.record_to_tuple(record), search=(entry, terms),
                                 index_key=key))
        self.saved.update(files, [(path, keys[path], sha) for path, sha in hashes.items()],
                          {"marker": _marker(self.out), "behind": behind})
        return Result(*self.head.summary, len(bodies), len(written), 0, False)

    def read(self, changed: list[str], config: Any) -> list[tuple[cache.SavedFile, Any]] | None:
        """Return each changed file's saved row and its new record (None when its bytes did not change)."""
        rows = self.saved.files(changed)
        edits = []
        for name in changed:
            saved = rows.get(name)
            found = _read_record(name, config, saved) if saved is not None else None
            if saved is None or found is None:
                return None
            sha, record = found
            if sha == saved.sha:
                edits.append((saved, None))
                continue
            new, old = cache.record_from_tuple(record), cache.record_from_tuple(saved.record)
            if _summary(new) != _summary(old) or new.related != old.related or saved.related is None:
                return None
            edits.append((replace(saved, sha=sha), new))
        return edits

    def stat(self, saved: cache.SavedFile) -> cache.SavedFile:
        """Return the row with the file's size and time as scanned."""
        size, mtime_ns = self.scan[saved.name]
        if mtime_ns >= self.scanned_ns - RACY_NS:
            mtime_ns = RACY
        return replace(saved, size=size, mtime_ns=mtime_ns)

    def render(self, config: Any, edited: dict[str, tuple[cache.SavedFile, Any]]
               ) -> tuple[dict[str, bytes], dict[str, str], dict[str, tuple[dict[str, Any], dict[str, int], str]]]:
        """Return the edited records' pages and JSON, their keys, and their search entries, terms and index keys."""
        from . import highlight, render, urls
        from .model import Site
        from .search.index import document_terms, search_entry
        from .search.related import Related

        linked = {other for saved, _ in edited.values() for other, _ in saved.related or ()}
        by_id = {i: cache.record_from_tuple(t) for i, t in self.saved.records(sorted(linked - set(edited))).items()}
        by_id.update((i, record) for i, (_, record) in edited.items())
        site = Site(config, tuple(sorted(by_id.values(), key=lambda r: r.id)))
        related = {i: tuple(Related(by_id[other], auto) for other, auto in saved.related or ())
                   for i, (saved, _) in edited.items()}
        store = cache.HighlightStore(cache.cache_folder(self.out).parent / "highlight.sqlite", self.head.salt)
        renderer = render.Renderer(site, related=related, highlighter=highlight.Highlighter(store, self.head.lexers),
                                   compiled=cache.cache_folder(self.out).parent / "templates")
        summary = {i: cache.digest(repr(_summary(r))) for i, r in by_id.items()}
        common = cache.digest(self.head.env, repr(config))
        bodies, keys, searched = {}, {}, {}
        try:
            for record_id, (saved, record) in sorted(edited.items()):
                keys.update(record_keys(record_id, saved.sha, saved.related or (), summary, common))
                bodies[render._disk(urls.error(record_id))] = renderer.error_page(record)
                bodies[render._disk(urls.record_json(record_id))] = renderer.record_json(record)
                entry = search_entry(record)
                terms = document_terms(entry)
                searched[record_id] = (entry, terms, index_key(entry, terms))
        finally:
            store.close()
        return bodies, keys, searched

    def search_index(self, edited: dict[str, tuple[cache.SavedFile, Any]],
                     searched: dict[str, tuple[dict[str, Any], dict[str, int], str]],
                     outputs: dict[str, tuple[str, str]]) -> bytes | None:
        """Return the search index with the edited records' terms changed, from the one in the output.

        None when the output's index is not the one the last build wrote.
        """
        from . import reindex
        from .search.index import field_positions, index_script, read_index_script

        try:
            script = (self.out / "search-index.js").read_bytes()
        except OSError:
            return None
        if "search-index.js" not in outputs or cache.digest(script) != outputs["search-index.js"][1]:
            return None
        index = read_index_script(script)
        if index is None:
            return None
        at = field_positions(index)["id"]
        position = {row[at]: number for number, row in enumerate(index["records"])}
        for record_id, (saved, _) in sorted(edited.items()):
            if saved.search is None:
                return None
            reindex.update_index(index, position[record_id], saved.search[1], searched[record_id][1])
        return index_script(index)


@dataclass
class _Job:
    content: Path
    out: Path
    base_url: str | None
    saved: cache.SavedState
    state: cache.State
    env: str
    env_stamp: tuple[Any, ...]
    settings_path: Path
    settings_bytes: bytes
    scan: dict[str, tuple[int, int]]
    scanned_ns: int
    in_place: bool
    """Whether `out` is the output the state describes, so that only changed files need writing."""
    new: cache.State = field(default_factory=cache.State)

    def run(self, jobs: int, progress: Progress | None, started: float) -> Result:
        from . import highlight, model, render

        site = self.validate(jobs)
        related = self.related(site)
        self.new.salt = cache.digest(
            cache.code_digest(), *(Path(m.__file__).read_bytes() for m in (highlight, model)))  # type: ignore[arg-type]
        store = cache.HighlightStore(cache.cache_folder(self.out).parent / "highlight.sqlite", self.new.salt)
        lexers = self.new.lexers = dict(self.state.lexers) if self.state.env == self.env else {}
        for path in sorted({r.source.path for r in site.records} - set(lexers)):
            lexers[path] = highlight.lexer_for_path(path)
        renderer = render.Renderer(site, related=related, highlighter=highlight.Highlighter(store, lexers),
                                   compiled=cache.cache_folder(self.out).parent / "templates")
        self.search_entries(site, renderer, jobs)
        self.state.files, self.state.search = {}, {}  # the new state has what is still needed
        plan = renderer.plan()
        keys = page_keys(site, self.new.related[1], plan, self.new.files, self.common(site))
        keys["search-index.js"] = search_index_key(self.common(site), [self.new.search[f.sha][2] for f in sorted(
            self.new.files.values(), key=lambda f: f.record[0])])
        old_pages = self.state.pages if self.in_place else {}
        manifest = self.state.manifest if self.in_place else {}
        todo = [p for p in plan if old_pages.get(p) != keys[p] or p not in manifest]
        staging = write.staging_folder(self.out)
        # A whole new output needs a new previous tree: the old one goes while the pages render.
        removed = (lambda: None) if self.in_place else write.remove_in_background(previous_tree(self.out))
        try:
            gc.freeze()
            hashes = _render(plan, todo, staging, manifest, store, jobs, progress)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            removed()
            raise
        finally:
            gc.unfreeze()
            store.close()
        new_manifest = {p: hashes.get(p) or manifest[p] for p in plan}
        changed = sorted(p for p, sha in hashes.items() if manifest.get(p) != sha)
        gone = sorted(set(manifest) - set(plan)) if self.in_place else []
        self.new.behind = self.state.behind
        if not self.in_place:
            self.saved.forget()
            write.commit_all(staging, self.out)
            removed()
            write.copy_tree(self.out, previous_tree(self.out))
            self.new.behind = ()
        elif changed or gone:
            self.saved.forget()
            self.new.behind = tuple(write.commit_changes(staging, self.out, previous_tree(self.out), changed, gone,
                                                         self.state.behind))
        else:
            shutil.rmtree(staging, ignore_errors=True)
        pages = sum(1 for p in plan if p.endswith(".html"))
        self.new.pages = keys
        self.new.manifest = new_manifest
        self.new.marker = _marker(self.out)
        self.new.summary = (len(site.records), pages)
        self.saved.save(self.new)
        return Result(len(site.records), pages, len(todo), len(changed), len(gone), not self.in_place,
                      time.perf_counter() - started)

    def validate(self, jobs: int) -> Any:
        """Return the valid Site, reusing every record whose file did not change; or raise ProblemsFound.

        With any problem, the whole content is validated again the way `errorsite check` does it,
        so that a build reports exactly the same problems, in the same order.
        """
        from . import validate
        from .model import Site

        config, broken = read_config(self.settings_path, self.base_url)
        config_key = cache.digest(repr(config.repo))
        reuse = config_key == self.state.config_key
        names = sorted(self.scan)
        olds = [self.state.files.get(name) if reuse else None for name in names]
        unread = [i for i, (name, old) in enumerate(zip(names, olds))
                  if old is None or old.mtime_ns == RACY or (old.size, old.mtime_ns) != self.scan[name]]
        read = dict(zip(unread, _map(lambda i: _read_record(names[i], config, olds[i]), unread, jobs)))
        records = []
        files: dict[str, cache.FileEntry] = {}
        for i, (name, old) in enumerate(zip(names, olds)):
            found = (old.sha, old.record) if i not in read and old is not None else read[i]
            if found is None:
                broken = True
                continue
            files[name] = cache.FileEntry(*self.scan[name], *found)
            records.append(cache.record_from_tuple(found[1]))
        if broken or not _links_ok(records, config) or next(validate.check_pages(records), None) is not None:
            return validate.build_site(load.load(self.content), self.base_url)
        for name, entry in files.items():
            if entry.mtime_ns >= self.scanned_ns - RACY_NS:
                # Another write in the same clock tick would keep size and time: trust the hash only.
                files[name] = cache.FileEntry(entry.size, RACY, entry.sha, entry.record)
        self.new.env = self.env
        self.new.env_stamp = self.env_stamp
        self.new.settings = cache.digest(self.settings_bytes)
        self.new.config_key = config_key
        self.new.files = files
        return Site(config, tuple(sorted(records, key=lambda r: r.id)))

    def related(self, site: Any) -> dict[str, tuple[Any, ...]]:
        """Return the related map, recomputed only when a record's place, words, tags or links changed."""
        from .search.related import Related, related_map

        key = cache.digest(repr([
            (r.id, r.message, r.tags, r.source.path, r.source.line, r.source.function, r.status, r.related)
            for r in site.records
        ]))
        old_key, old_map = self.state.related
        if key == old_key and self.state.files:
            self.new.related = (key, old_map)
            return _RelatedById(old_map, site.by_id, Related)
        found = related_map(site.records)
        self.new.related = (key, {i: tuple((x.record.id, x.automatic) for x in items) for i, items in found.items()})
        return found

    def search_entries(self, site: Any, renderer: Any, jobs: int) -> None:
        """Give the renderer every record's search entry and terms, made again only for records that changed."""
        sha_of = {f.record[0]: f.sha for f in self.new.files.values()}
        known = self.state.search if self.state.config_key == self.new.config_key else {}
        records = site.records
        unknown = [i for i, record in enumerate(records) if sha_of[record.id] not in known]
        made = dict(zip(unknown, _map(lambda i: _search_found(records[i]), unknown, jobs)))
        for i, record in enumerate(records):
            sha = sha_of[record.id]
            found = made[i] if i in made else known[sha]
            renderer.search_entries[record.id], renderer.search_terms[record.id] = found[:2]
            self.new.search[sha] = found

    def common(self, site: Any) -> str:
        """Return the hash every page depends on: code, templates, libraries and settings."""
        return cache.digest(self.env, repr(site.config))


INDEX_FIELDS = ("id", "title", "message", "exception", "path", "status", "line", "function", "written", "variants")
"""What the search index takes of a record's search entry, besides its terms (see search.index.build_index)."""


def index_key(entry: dict[str, Any], terms: dict[str, int]) -> str:
    """Return a hash of what the search index takes of one record."""
    return cache.digest(repr([entry[name] for name in INDEX_FIELDS]), repr(sorted(terms.items())))


def search_index_key(common: str, index_keys: list[str]) -> str:
    """Return the hash the search index depends on, from every record's `index_key` in id order."""
    return cache.digest(common, *index_keys)


class _RelatedById(dict):  # type: ignore[type-arg]
    """The related map of the last build, made into Related entries only for the pages rendered."""

    def __init__(self, ids: dict[str, tuple[tuple[str, bool], ...]], by_id: dict[str, Any], make: Any) -> None:
        super().__init__()
        self.ids, self.by_id, self.make = ids, by_id, make

    def __missing__(self, record_id: str) -> tuple[Any, ...]:
        found = tuple(self.make(self.by_id[other], auto) for other, auto in self.ids[record_id])
        self[record_id] = found
        return found


def page_keys(site: Any, related: dict[str, tuple[tuple[str, bool], ...]], plan: dict[str, Any],
              files: dict[str, cache.FileEntry], common: str) -> dict[str, str]:
    """Return, for every output file, a hash of everything its bytes depend on.

    A record's own pages depend on its whole file; pages that list or link to a record show only
    its summary (id, title, exception, message, place, tags, status, whether it is written).
    Files not known here depend on every record's whole file, which is always safe.
    """
    from . import urls
    from .render import _disk

    sha_of = {f.record[0]: f.sha for f in files.values()}
    summary = {r.id: cache.digest(repr(_summary(r))) for r in site.records}
    every_summary = cache.digest(common, *summary.values())
    every_file = cache.digest(common, *sorted(sha_of.values()))
    keys = dict.fromkeys(plan, every_file)
    for record in site.records:
        keys.update(record_keys(record.id, sha_of[record.id], related[record.id], summary, common))
    groups: dict[str, list[str]] = {}
    for record in site.records:
        groups.setdefault(urls.exception(record.exception), []).append(summary[record.id])
        groups.setdefault(urls.source_file(record.source.path), []).append(summary[record.id])
        for tag in record.tags:
            groups.setdefault(urls.tag(tag), []).append(summary[record.id])
    for path, members in groups.items():
        keys[_disk(path)] = cache.digest(common, path, *members)
    for old, new in site.config.redirects:
        keys[_disk(urls.error(old))] = cache.digest(common, old, new, summary[new])
    for path in ("index.html", "errors/index.html", "exceptions/index.html", "files/index.html",
                 "tags/index.html", "sitemap.xml", "api/errors.json", "api/patterns.json"):
        keys[path] = cache.digest(every_summary, path)
    for path in plan:
        if path.startswith("static/") or path in ("search/index.html", "404.html", "api/schema.json",
                                                  "robots.txt", ".nojekyll", "CNAME"):
            keys[path] = cache.digest(common, path)
    return keys


def record_keys(record_id: str, sha: str, related: tuple[tuple[str, bool], ...], summary: dict[str, str],
                common: str) -> dict[str, str]:
    """Return the keys of a record's page and JSON: its file, and the summaries of its related errors."""
    from . import urls
    from .render import _disk

    own = cache.digest(common, sha)
    return {_disk(urls.record_json(record_id)): own,
            _disk(urls.error(record_id)): cache.digest(own, *(f"{summary[other]}:{auto}" for other, auto in related))}


def previous_tree(out: Path) -> Path:
    """Return where the output as it was before the last build is kept (see `write.commit_changes`)."""
    return cache.cache_folder(out) / "previous"


def read_config(path: Path, base_url: str | None) -> tuple[Any, bool]:
    """Return the settings of site.toml with `base_url` applied, and whether they have a problem."""
    from . import config as settings

    values: dict[str, Any] = {}
    broken = False
    if path.exists():
        try:
            values = load.read_toml(path)
        except Invalid:
            broken = True
    config, problems = settings.settings_to_config(values, str(path))
    if base_url is not None:
        config = settings.with_base_url(config, base_url)
    return config, broken or bool(problems)


def _links_ok(records: list[Any], config: Any) -> bool:
    """Return whether every related id and redirect points at a record (the cheap form of check_links)."""
    ids = {r.id for r in records}
    if len(ids) != len(records):
        return False
    if any(other == r.id or other not in ids for r in records for other in r.related):
        return False
    return all(old not in ids and new in ids for old, new in config.redirects)


def _summary(record: Any) -> tuple[Any, ...]:
    s = record.source
    # The home page lists the newest prose by its analysis date and commit.
    analysis = (record.analysis.date, record.analysis.commit) if record.analysis else None
    # The search index holds every wording of the message, not only its terms.
    return (record.id, record.title, record.exception, record.message, s.path, s.line, s.function,
            record.tags, record.status, record.written, analysis, tuple(v.message for v in record.variants))


def _read_record(name: str, config: Any, old: cache.FileEntry | cache.SavedFile | None
                 ) -> tuple[str, tuple[Any, ...]] | None:
    """Return the hash of a record file and its validated record, as plain tuples; None when it has a problem.

    When the file's hash is `old`'s, its record is `old`'s.
    """
    from . import validate
    from .load import RawRecord

    try:
        data = load.read_bytes(Path(name))
        sha = cache.digest(data)
        if old is not None and old.sha == sha:
            return sha, old.record
        raw = RawRecord(name, load.parse_json(data))
    except Invalid:
        return None
    if next(validate.check_record(raw), None) is not None:
        return None
    return sha, cache.record_to_tuple(validate.to_record(raw, config))


def _search_found(record: Any) -> tuple[dict[str, Any], dict[str, int], str]:
    """Return a record's search entry, its weighted terms, and their `index_key`."""
    from .search.index import document_terms, search_entry

    entry = search_entry(record)
    terms = document_terms(entry)
    return entry, terms, index_key(entry, terms)


_TASK: Callable[[Any], Any] = id
"""What a worker process of `_map` runs, inherited when it forks."""


def _map(function: Callable[[Any], Any], items: list[Any], jobs: int) -> list[Any]:
    """Return [function(item) for item in items], on `jobs` processes when there are enough items.

    The workers fork from this process, so `function` may use anything it can see; only the
    items and the results are sent between processes.
    """
    if jobs < 2 or len(items) < PARALLEL_MIN or not hasattr(os, "fork"):
        return [function(item) for item in items]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs, initializer=_start_task,
                                                  initargs=(function, os.getpid())) as pool:
        return pool.map(_run_task, items, chunksize=CHUNK)


def _start_task(function: Callable[[Any], Any], parent: int) -> None:
    global _TASK
    _die_with(parent)
    _TASK = function


def _run_task(item: Any) -> Any:
    return _TASK(item)


_WORK: tuple[Any, ...] = ()
"""What forked workers render: (plan, staging, manifest, store), set before the pool starts."""


def _render(plan: dict[str, Callable[[], bytes]], todo: list[str], staging: Path, manifest: dict[str, str],
            store: cache.HighlightStore, jobs: int, progress: Progress | None) -> dict[str, str]:
    """Render `todo` into `staging`, skipping files whose bytes equal the manifest's; return their hashes."""
    global _WORK
    _WORK = (plan, staging, manifest, store)
    hashes: dict[str, str] = {}
    chunks = [todo[i : i + CHUNK] for i in range(0, len(todo), CHUNK)]
    done = 0
    try:
        if jobs > 1 and len(todo) >= PARALLEL_MIN and hasattr(os, "fork"):
            import multiprocessing

            store.prepare()  # the workers only read the file: no two processes set it up at once

            context = multiprocessing.get_context("fork")
            with context.Pool(min(jobs, len(chunks)), initializer=_worker_start, initargs=(os.getpid(),)) as pool:
                for found, highlighted in pool.imap_unordered(_render_chunk, chunks):
                    hashes.update(found)
                    store.add(highlighted)
                    done += len(found)
                    if progress:
                        progress(done, len(todo))
        else:
            for chunk in chunks:
                found, _ = _render_chunk(chunk)
                hashes.update(found)
                done += len(found)
                if progress:
                    progress(done, len(todo))
    finally:
        _WORK = ()
    return hashes


def _worker_start(parent: int) -> None:
    _die_with(parent)
    _WORK[3].reopen()


PR_SET_PDEATHSIG = 1
"""Linux's prctl option: the signal a process gets when its parent ends."""


def _die_with(parent: int) -> None:
    """Make this worker end with the build, even one stopped by kill -9, so it never writes after it."""
    if sys.platform == "linux":
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the build ended before this worker could ask
        os._exit(1)


def _render_chunk(paths: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    plan, staging, manifest, store = _WORK
    found = {}
    for path in paths:
        body = plan[path]()
        sha = cache.digest(body)
        if manifest.get(path) != sha:
            write.write_file(staging, path, body)
        found[path] = sha
    highlighted, store.new = store.new, {}
    return found, highlighted


def _environment(content: Path, base_url: str | None, state: cache.State) -> tuple[str, tuple[Any, ...]]:
    """Return the hash of everything besides the content that the output depends on, and its stamp."""
    stamp = (str(content), base_url, __version__, cache.tree_stamp(PACKAGE), cache.tree_stamp(templates_dir()))
    recent = time.time_ns() - RACY_NS
    if state.env and stamp == state.env_stamp and all(t < recent for part in stamp[3:] for _, _, t in part):
        return state.env, stamp
    env = cache.digest(str(content.absolute()), repr(base_url), __version__, cache.code_digest(),
                       cache.tree_digest(PACKAGE), cache.tree_digest(templates_dir()))
    return env, stamp


def _unchanged(entry: cache.FileEntry | None, name: str, stat: tuple[int, int]) -> bool:
    """Return whether a record file is as the last build saw it."""
    if entry is None or entry.size != stat[0]:
        return False
    if entry.mtime_ns != RACY:
        return entry.mtime_ns == stat[1]
    try:
        return cache.digest(load.read_bytes(Path(name))) == entry.sha
    except (OSError, Invalid):
        return False


def _settings_bytes(path: Path) -> bytes:
    """Return the bytes of site.toml, read as the one reader reads it (never a FIFO, never past its limit)."""
    if not os.path.lexists(path):
        return b"\0missing"
    try:
        return load.read_bytes(path, load.MAX_SETTINGS_BYTES)
    except (OSError, Invalid):
        # Validation names the problem; here it only has to differ from every readable file.
        return b"\0unreadable"


def _scan(errors: Path) -> dict[str, tuple[int, int]]:
    """Return every record file's name (as the user would name it), size and modification time."""
    found = {}
    try:
        entries = list(os.scandir(errors))
    except OSError:
        return {}
    for entry in entries:
        if entry.name.endswith(".json"):
            st = entry.stat()
            found[entry.path] = (st.st_size, st.st_mtime_ns)
    return found


def _marker(out: Path) -> tuple[int, int, int]:
    try:
        st = (out / write.MARKER).stat()
    except OSError:
        return (0, 0, 0)
    return (st.st_dev, st.st_ino, st.st_mtime_ns)
