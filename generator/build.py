"""Build a site: load, validate, render (only what changed, on every core) and write.

The output is the same bytes as a clean build of the same input, whatever the cache holds:
every cached value is keyed by a hash of everything it was made from (see `cache`).
"""

from __future__ import annotations

import gc
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__, cache, load, write
from .assets import PACKAGE, templates_dir
from .problems import Invalid

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
    if not content.is_dir():
        load.load(content)  # raises the user error that explains it
    folder = cache.cache_folder(out)
    head = cache.load_head(folder)
    env, env_stamp = _environment(content, base_url, head)
    settings_path = content / "site.toml"
    settings_bytes = _settings_bytes(settings_path)
    scanned_ns = time.time_ns()
    scan = _scan(content / "errors")
    marker = _marker(out)
    ours = marker != (0, 0, 0) and marker == head.marker
    if (ours and head.env == env and head.settings == cache.digest(settings_bytes)
            and len(scan) == len(head.files) and all(_unchanged(head.files.get(n), n, st) for n, st in scan.items())):
        records, pages = head.summary
        return Result(records, pages, 0, 0, 0, False, time.perf_counter() - started)
    state = cache.load_state(folder)
    ours = ours and marker == state.marker
    job = _Job(content, out, base_url, state, env, env_stamp, settings_path, settings_bytes, scan, scanned_ns, ours)
    return job.run(jobs or os.cpu_count() or 1, progress, started)


@dataclass
class _Job:
    content: Path
    out: Path
    base_url: str | None
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

        site = self.validate()
        related = self.related(site)
        folder = cache.cache_folder(self.out)
        store = cache.HighlightStore(folder.parent / "highlight.sqlite", cache.digest(
            cache.code_digest(), *(Path(m.__file__).read_bytes() for m in (highlight, model))))  # type: ignore[arg-type]
        lexers = self.new.lexers = dict(self.state.lexers) if self.state.env == self.env else {}
        for path in sorted({r.source.path for r in site.records} - set(lexers)):
            lexers[path] = highlight.lexer_for_path(path)
        renderer = render.Renderer(site, related=related, highlighter=highlight.Highlighter(store, lexers))
        self.search_entries(site, renderer)
        self.state.files, self.state.search = {}, {}  # the new state has what is still needed
        plan = renderer.plan()
        keys = page_keys(site, self.new.related[1], plan, self.new.files, self.common(site))
        keys["search-index.js"] = cache.digest(self.common(site), *(
            repr(renderer.search_entries[r.id]) for r in site.records))
        old_pages = self.state.pages if self.in_place else {}
        manifest = self.state.manifest if self.in_place else {}
        todo = [p for p in plan if old_pages.get(p) != keys[p] or p not in manifest]
        staging = write.staging_folder(self.out)
        try:
            gc.freeze()
            hashes = _render(plan, todo, staging, manifest, store, jobs, progress)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        finally:
            gc.unfreeze()
            store.close()
        new_manifest = {p: hashes.get(p) or manifest[p] for p in plan}
        changed = sorted(p for p, sha in hashes.items() if manifest.get(p) != sha)
        gone = sorted(set(manifest) - set(plan)) if self.in_place else []
        cache.forget_state(folder)
        if self.in_place:
            write.commit_changes(staging, self.out, changed, gone)
        else:
            write.commit_all(staging, self.out)
        pages = sum(1 for p in plan if p.endswith(".html"))
        self.new.pages = keys
        self.new.manifest = new_manifest
        self.new.marker = _marker(self.out)
        self.new.summary = (len(site.records), pages)
        cache.save_state(folder, self.new)
        return Result(len(site.records), pages, len(todo), len(changed), len(gone), not self.in_place,
                      time.perf_counter() - started)

    def validate(self) -> Any:
        """Return the valid Site, reusing every record whose file did not change; or raise ProblemsFound.

        With any problem, the whole content is validated again the way `errorsite check` does it,
        so that a build reports exactly the same problems, in the same order.
        """
        from . import config as settings
        from . import validate
        from .load import RawRecord
        from .model import Site

        values: dict[str, Any] = {}
        broken = False
        if self.settings_path.exists():
            try:
                values = load.read_toml(self.settings_path)
            except Invalid:
                broken = True
        config, problems = settings.settings_to_config(values, str(self.settings_path))
        if self.base_url is not None:
            config = settings.with_base_url(config, self.base_url)
        config_key = cache.digest(repr(config.repo))
        reuse = config_key == self.state.config_key
        records = []
        files: dict[str, cache.FileEntry] = {}
        for name, (size, mtime_ns) in sorted(self.scan.items()):
            old = self.state.files.get(name) if reuse else None
            if old is not None and old.mtime_ns != RACY and (old.size, old.mtime_ns) == (size, mtime_ns):
                files[name] = old
                records.append(cache.record_from_tuple(old.record))
                continue
            try:
                data = load.read_bytes(Path(name))
                sha = cache.digest(data)
                if old is not None and old.sha == sha:
                    files[name] = cache.FileEntry(size, mtime_ns, sha, old.record)
                    records.append(cache.record_from_tuple(old.record))
                    continue
                raw = RawRecord(name, load.parse_json(data))
            except Invalid:
                broken = True
                continue
            if next(validate.check_record(raw), None) is not None:
                broken = True
                continue
            record = validate.to_record(raw, config)
            records.append(record)
            files[name] = cache.FileEntry(size, mtime_ns, sha, cache.record_to_tuple(record))
        if broken or problems or not _links_ok(records, config):
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
        from .related import Related, related_map

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

    def search_entries(self, site: Any, renderer: Any) -> None:
        """Give the renderer every record's search entry and terms, made again only for records that changed."""
        from . import match, render

        sha_of = {f.record[0]: f.sha for f in self.new.files.values()}
        known = self.state.search if self.state.config_key == self.new.config_key else {}
        for record in site.records:
            sha = sha_of[record.id]
            found = known.get(sha)
            if found is None:
                entry = render.search_entry(record)
                found = (entry, match.document_terms(entry))
            renderer.search_entries[record.id], renderer.search_terms[record.id] = found
            self.new.search[sha] = found

    def common(self, site: Any) -> str:
        """Return the hash every page depends on: code, templates, libraries and settings."""
        return cache.digest(self.env, repr(site.config))


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
        own = cache.digest(common, sha_of[record.id])
        keys[_disk(urls.record_json(record.id))] = own
        keys[_disk(urls.error(record.id))] = cache.digest(
            own, *(f"{summary[other]}:{auto}" for other, auto in related[record.id])
        )
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
    return (record.id, record.title, record.exception, record.message, s.path, s.line, s.function,
            record.tags, record.status, record.written)


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

            context = multiprocessing.get_context("fork")
            with context.Pool(min(jobs, len(chunks)), initializer=_worker_start) as pool:
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


def _worker_start() -> None:
    _WORK[3].reopen()


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
        return cache.digest(Path(name).read_bytes()) == entry.sha
    except OSError:
        return False


def _settings_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"\0missing"


def _scan(errors: Path) -> dict[str, tuple[int, int]]:
    """Return every record file's name (as the user would name it), size and modification time."""
    found = {}
    try:
        entries = list(os.scandir(errors))
    except OSError:
        return {}
    prefix = str(errors)
    for entry in entries:
        if entry.name.endswith(".json"):
            st = entry.stat()
            found[os.path.join(prefix, entry.name)] = (st.st_size, st.st_mtime_ns)
    return found


def _marker(out: Path) -> tuple[int, int, int]:
    try:
        st = (out / write.MARKER).stat()
    except OSError:
        return (0, 0, 0)
    return (st.st_dev, st.st_ino, st.st_mtime_ns)
