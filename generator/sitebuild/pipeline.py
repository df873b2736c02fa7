"""Build a site: read the inputs, then the records, relate them, plan and render what changed, write, save.

Each stage returns what it makes; the new state is made once, from what the stages returned,
and saved after the output is committed. The output is the same bytes as a clean build of
the same input, whatever the cache holds: every cached value is keyed by a hash of
everything it was made from (see `keys`).
"""

from __future__ import annotations

import gc
import os
import shutil
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING

from .. import load
from ..collector import collector_off
from ..model import Config, Record, Site, Tally
from . import paths, workers, write
from .inputs import Inputs, changed_files, config_key, marker, read_config, read_inputs, read_record
from .keys import digest, page_keys, related_key, search_index_key
from .state import RACY, Damaged, Head, Made, Meta, OutputRow, RecordRow, SavedState, Search, State, decode
from .store import HighlightStore
from .outputs import Result, made_of, previous_index, tree_size
from .update import update
from .workers import Progress

if TYPE_CHECKING:
    from ..render import Renderer
    from ..search.related import Links

QUICK_MAX = 64
"""Above this many changed record files, a whole build (which reads every record once) is as quick."""


def build(content: Path, out: Path, base_url: str | None = None, *,
          jobs: int | None = None, progress: Progress | None = None,
          waiting: Callable[[], None] | None = None) -> Result:
    """Build the site of `content` into `out`, rendering only what changed since the last build.

    Builds of one output take turns (`paths.build_lock`); `waiting` is called before this one waits.
    """
    started = time.perf_counter()
    write.check_output(out)
    with paths.build_lock(out, waiting):
        return replace(_locked_build(content, out, base_url, jobs, progress), seconds=time.perf_counter() - started)


def _locked_build(content: Path, out: Path, base_url: str | None, jobs: int | None,
                  progress: Progress | None) -> Result:
    """Build while holding the output's lock."""
    write.check_output(out)
    write.clean_leftovers(out)
    write.clean_leftovers(paths.previous_tree(out))
    if not content.is_dir():
        load.load(content)  # raises the user error that explains it
    saved = SavedState(paths.state_path(out))
    try:
        try:
            result = _build(content, out, base_url, saved, jobs or os.cpu_count() or 1, progress)
        except Damaged:
            # A damaged state is no user error: start again without it.
            saved.discard()
            result = _build(content, out, base_url, saved, jobs or os.cpu_count() or 1, progress)
        result = replace(result, coverage=_coverage(saved))
    finally:
        saved.close()
    return result


def _coverage(saved: SavedState) -> Tally | None:
    """Return the saved counts of every record, written and drafted (those of each status, added up)."""
    try:
        statuses = [tally for (kind, _), tally in saved.tallies().items() if kind == "status"]
    except Damaged:
        return None  # the site is built; only its counts are not known
    return Tally(*(sum(column) for column in zip(*statuses))) if statuses else Tally(0, 0, 0)


def _build(content: Path, out: Path, base_url: str | None, saved: SavedState, jobs: int,
           progress: Progress | None) -> Result:
    """Build with the saved state, which may turn out to be damaged (state.Damaged)."""
    # Until a whole build begins, this process makes many objects and few cycles: the collector
    # would spend a quarter of an update's time looking for garbage that is not there.
    with collector_off():
        head = saved.head()
        inputs = read_inputs(content, out, base_url, head.meta)
        ours = inputs.marker != (0, 0, 0) and inputs.marker == head.meta.marker
        if ours and _same_settings(inputs, head):
            changed = changed_files(inputs.files, head)
            _settle(inputs, saved, head, changed)
            if not changed:
                return Result(head.meta.records, head.meta.pages, 0, 0, 0, False, head.meta.base_path, size=head.meta.size)
            if len(changed) <= QUICK_MAX:
                result = update(inputs, saved, head, changed, jobs)
                if result is not None:
                    return result
    old = saved.load()
    return whole(inputs, saved, old, ours and inputs.marker == old.meta.marker, jobs, progress)


def _settle(inputs: Inputs, saved: SavedState, head: Head, changed: list[str]) -> None:
    """Save the size and time of the unchanged files whose hash alone decided, now that their time can.

    A file written close to the build that read it (a checkout, a copy) keeps a row whose hash
    decides; without this, every later build would read and hash it again.
    """
    edited = set(changed)
    settled = {name: stamp for name, sha in head.racy.items() if name not in edited
               and (stamp := inputs.stamp(name, sha)).mtime_ns != RACY}
    if settled:
        saved.restamp(settled)


def _same_settings(inputs: Inputs, head: Head) -> bool:
    """Return whether the code, the settings and the set of record files are those of the last build."""
    return (head.meta.env == inputs.env and head.meta.settings == digest(inputs.settings)
            and inputs.files.keys() == head.stamps.keys())


@dataclass(frozen=True, slots=True)
class FileRecord:
    """A valid record file."""

    sha: str
    """Hash of its bytes."""
    record: Record
    """Its record."""


@dataclass(frozen=True, slots=True)
class Records:
    """The valid records of a build, and what each came from."""

    site: Site
    """The settings and the records, sorted by id."""
    files: dict[str, FileRecord]
    """Record file name -> its hash and record."""


def read_records(inputs: Inputs, config: Config, old: State, jobs: int) -> Records | None:
    """Return every valid record, reading only files that changed; None when any has a problem."""
    reuse = config_key(config, inputs.code) == old.meta.config_key
    names = sorted(inputs.files)
    olds = [old.rows.get(name) if reuse else None for name in names]
    unread = [i for i, (name, row) in enumerate(zip(names, olds))
              if row is None or not _same_stat(row, inputs, name)]
    known = [row.stamp.sha if row is not None else None for row in olds]
    found = dict(zip(unread, workers.map_items(lambda i: read_record(names[i], config, known[i]), unread, jobs)))
    files = {}
    for i, (name, row) in enumerate(zip(names, olds)):
        read = found.get(i)
        if i in found and read is None:
            return None
        if read is None or read.record is None:
            assert row is not None  # only a file with a row is known unchanged
            files[name] = FileRecord(read.sha if read else row.stamp.sha, row.record)
        else:
            files[name] = FileRecord(read.sha, decode(read.record))
    records = sorted((file.record for file in files.values()), key=lambda r: r.id)
    return Records(Site(config, tuple(records)), files)


def _same_stat(row: RecordRow, inputs: Inputs, name: str) -> bool:
    """Return whether a file's size and time are those its row saw (never for a racy row)."""
    stat = inputs.files[name]
    return row.stamp.mtime_ns != RACY and (row.stamp.size, row.stamp.mtime_ns) == (stat.size, stat.mtime_ns)


def links_ok(site: Site, settings_file: str) -> bool:
    """Return whether every related id and redirect names a record and no two pages collide."""
    from .. import validate

    seen = {r.id: r.file for r in site.records}
    return next(validate.check_references(seen, list(site.records), site.config, settings_file), None) is None


def valid_records(inputs: Inputs, old: State, jobs: int) -> Records:
    """Return every valid record; or raise ProblemsFound with exactly the problems `errorsite check` reports."""
    from .. import validate

    while True:
        config, broken = read_config(inputs)
        records = read_records(inputs, config, old, jobs)
        if records is not None and not broken and links_ok(records.site, str(inputs.settings_path)):
            return records
        # With any problem, the content is validated again the way `errorsite check` does it; when
        # that finds none, a file changed between the two reads, and reading it again settles it.
        validate.build_site(load.load(inputs.content), inputs.base_url)


@dataclass(frozen=True, slots=True)
class Relations:
    """Each record's related errors."""

    key: str
    """Hash of what they were made from (see `keys.related_key`)."""
    links: Links
    """Record id -> its related errors, best first."""


def relate(made: Mapping[str, Made], old: State, code: str) -> Relations:
    """Return the related errors of every record, found again only when a record's place, words or links changed,
    or errorsite's code (`Inputs.code`), which finds them, did."""
    from ..search.related import related_links

    key = related_key(made[i].relating_key for i in sorted(made))
    if key == old.meta.related_key and old.rows and code == old.meta.code:
        return Relations(key, {row.record.id: row.related for row in old.rows.values()})
    return Relations(key, related_links({i: made[i].summary for i in sorted(made)}))


def made_all(records: Records, code: str, old: State, jobs: int) -> dict[str, Made]:
    """Return the search terms and summary of every record, made again only for files that changed
    (or all of them when `code`, errorsite's, changed)."""
    known = {row.stamp.sha: row.made for row in old.rows.values()} if config_key(
        records.site.config, code) == old.meta.config_key else {}
    found = {}
    unknown = []
    for file in records.files.values():
        if file.sha in known:
            found[file.record.id] = known[file.sha]
        else:
            unknown.append(file.record)
    found.update((m.summary.id, m) for m in workers.map_items(made_of, unknown, jobs))
    return found


def renderer(site: Site, related: Links, made: Mapping[str, Made], store: HighlightStore, lexers: dict[str, str],
             out: Path) -> Renderer:
    """Return the renderer of `site`, highlighting through `store` and knowing every record's search terms."""
    from . import highlight
    from ..render import Renderer
    from .compiled import CompiledTemplates

    return Renderer(site, related=related, highlighter=highlight.Highlighter(store, lexers),
                    compiled=CompiledTemplates(paths.templates_path(), paths.key()),
                    search_entries={i: m.search.entry for i, m in made.items()},
                    search_terms={i: m.search.terms for i, m in made.items()},
                    summaries={i: m.summary for i, m in made.items()})


def salt() -> str:
    """Return what highlighted code and Markdown depend on besides their text: the libraries and errorsite's
    highlighter and Markdown renderer."""
    from .. import model
    from . import keys

    package = Path(str(model.__file__)).parent
    return digest(keys.code_digest(), *((package / name).read_bytes() for name in ("sitebuild/highlight.py", "model.py",
                                                                                   "markdown.py")))


def lexers_of(site: Site, inputs: Inputs, old: State) -> dict[str, str]:
    """Return the Pygments lexer of every source path, found again only for new paths or another environment."""
    from . import highlight

    lexers = dict(old.meta.lexers) if old.meta.env == inputs.env else {}
    for path in sorted({r.source.path for r in site.records} - set(lexers)):
        lexers[path] = highlight.lexer_for_path(path)
    return lexers


@dataclass(frozen=True, slots=True)
class Committed:
    """What writing a build's files changed in the output."""

    changed: list[str]
    """Output paths written or replaced."""
    gone: list[str]
    """Output paths deleted."""
    behind: tuple[str, ...] | None
    """Where the previous tree now differs from the output; None when unknown (see `write.commit_changes`)."""


def commit(inputs: Inputs, saved: SavedState, staging: Path, hashes: Mapping[str, str], plan: Iterable[str],
           old: State, in_place: bool) -> Committed:
    """Put the rendered files of `staging` into the output: all of them, or the changed ones in place."""
    out, previous = inputs.out, paths.previous_tree(inputs.out)
    if not in_place:
        saved.forget()
        write.commit_all(staging, out)
        write.copy_tree(out, previous)
        return Committed(sorted(hashes), [], ())
    changed = sorted(p for p, sha in hashes.items() if old.outputs.get(p, OutputRow("", "")).sha != sha)
    gone = sorted(set(old.outputs) - set(plan))
    if not changed and not gone:
        shutil.rmtree(staging, ignore_errors=True)
        return Committed([], [], old.meta.behind)
    saved.forget()
    behind = write.commit_changes(staging, out, previous, changed, gone, old.meta.behind)
    return Committed(changed, gone, tuple(behind))


def whole(inputs: Inputs, saved: SavedState, old: State, in_place: bool, jobs: int,
          progress: Progress | None) -> Result:
    """Build from every record, rendering the files whose inputs changed; into a fresh output unless `in_place`."""
    records = valid_records(inputs, old, jobs)
    site = records.site
    made = made_all(records, inputs.code, old, jobs)
    relations = relate(made, old, inputs.code)
    new_salt, lexers = salt(), lexers_of(site, inputs, old)
    store = HighlightStore(paths.highlight_path(inputs.out), new_salt, paths.key())
    plan = renderer(site, relations.links, made, store, lexers, inputs.out).plan()
    common = digest(inputs.env, repr(site.config))
    search = {i: m.search for i, m in made.items()}
    patched = patched_index(inputs, old, site, search, in_place)
    if patched is not None:
        plan["search-index.js"] = lambda: patched
    shas = {file.record.id: file.sha for file in records.files.values()}
    summaries = {r.id: made[r.id].summary_key for r in site.records}
    keys = page_keys((made[r.id].summary for r in site.records), site.config, relations.links, plan, shas,
                     summaries, common)
    keys["search-index.js"] = search_index_key(common, (search[r.id].key for r in site.records))
    keys.update(with_fragments(plan, len(site.records), keys["search-index.js"]))
    outputs = old.outputs if in_place else {}
    todo = [p for p in plan if p not in outputs or outputs[p].key != keys[p]]
    manifest = {path: row.sha for path, row in outputs.items()}
    staging = write.staging_folder(inputs.out)
    # A whole new output needs a new previous tree: the old one goes while the pages render.
    removed = (lambda: None) if in_place else write.remove_in_background(paths.previous_tree(inputs.out))
    try:
        gc.freeze()
        hashes = workers.render(workers.Work(plan, staging, manifest, store), todo, jobs, progress)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        removed()
        raise
    finally:
        gc.unfreeze()
        store.close()
    removed()
    committed = commit(inputs, saved, staging, hashes, plan, old, in_place)
    pages = sum(1 for p in plan if p.endswith(".html"))
    meta = Meta(env=inputs.env, code=inputs.code, env_stamp=inputs.env_stamp, settings=digest(inputs.settings),
                config_key=config_key(site.config, inputs.code), salt=new_salt, related_key=relations.key, lexers=lexers,
                marker=marker(inputs.out), records=len(site.records), pages=pages, size=tree_size(inputs.out),
                base_path=base_path(site.config), behind=committed.behind)
    settled = inputs.settled({name: file.sha for name, file in records.files.items()})
    rows = {name: _row(old.rows.get(name), RecordRow(name, settled.get(name) or inputs.stamp(name, file.sha),
                                                      file.record, made[file.record.id], relations.links[file.record.id]))
            for name, file in records.files.items()}
    new_outputs = {p: OutputRow(keys[p], hashes.get(p) or outputs[p].sha) for p in plan}
    saved.save(State(meta, rows, new_outputs), old)
    return Result(len(site.records), pages, len(todo), len(committed.changed), len(committed.gone), not in_place,
                  meta.base_path, size=meta.size)


def _row(old: RecordRow | None, new: RecordRow) -> RecordRow:
    """Return `old` when it holds what `new` does, so that saving skips it."""
    if old is None or old.stamp != new.stamp or old.made is not new.made or old.related != new.related:
        return new
    return old if old.record is new.record else new


def with_fragments(plan: dict[str, Callable[[], bytes]], records: int, key: str) -> dict[str, str]:
    """Add the search index's fragments to `plan`, each cut from its `search-index.js`, and return their keys.

    A process makes the index and its fragments once, whichever of them it renders first.
    """
    from ..search import shards

    index = cache(plan["search-index.js"])
    plan["search-index.js"] = index

    @cache
    def fragments() -> dict[str, bytes]:
        import orjson

        from ..search.index import script_json

        return shards.fragments(orjson.loads(script_json(index()) or b""))

    names = shards.names(records)
    plan.update({path: partial(_fragment, fragments, path) for path in names})
    return dict.fromkeys(names, key)


def _fragment(fragments: Callable[[], dict[str, bytes]], path: str) -> bytes:
    return fragments()[path]


PATCH_MAX = QUICK_MAX
"""Above this many changed records, building the search index afresh is as quick as patching it."""


def patched_index(inputs: Inputs, old: State, site: Site, search: Mapping[str, Search],
                  in_place: bool) -> bytes | None:
    """Return the search index made by changing the records that changed in the output's index.

    None when that index cannot be patched: another output, other records or settings, or many changes.
    """
    if not in_place or "search-index.js" not in old.outputs or old.meta.env != inputs.env \
            or old.meta.settings != digest(inputs.settings):
        return None
    before = {row.record.id: row.made.search for row in old.rows.values()}
    if before.keys() != site.by_id.keys():
        return None
    changed = sorted(i for i, found in search.items() if found.key != before[i].key)
    if len(changed) > PATCH_MAX:
        return None
    script = previous_index(inputs.out, old.outputs["search-index.js"].sha)
    if script is None:
        return None
    from . import reindex

    return reindex.patch_script(script, [(before[i], search[i]) for i in changed])


def base_path(config: Config) -> str:
    """Return the path of the site's base_url, where a server serves the site."""
    from urllib.parse import urlsplit

    path = urlsplit(config.base_url).path or "/"
    return path if path.endswith("/") else path + "/"
