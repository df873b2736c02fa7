"""A build after a few edits: only the edited records are read, and only the files they show on rendered.

An edit of a record's prose renders its own pages. An edit of what other pages show of it (its
summary: title, message, place, tags, status, related ids, whether written) also renders the
list pages and the pages that link it, from the summaries the last build saved (`state.Cards`,
read as they are used) without reading any other record, and the pages about every record from
the saved tallies (`model.Overview`); when it changes what relates records, the related errors
are found again for the records it can reach (`search.related.relink`). The long files (the
search index, the API lists, the page of all errors) are the last build's with the edited
records' parts changed, made in other processes meanwhile.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paging, urls
from ..model import Config, Overview, Record, Site, Summary, Tally
from ..search.related import Links, relating, relink
from ..summary import ROOT, ROOT_BYTES, error_line, html, list_item, pattern_line
from . import highlight, paths, previous, reindex, workers, write
from .inputs import Inputs, config_key, marker, read_config, read_record
from .keys import (NO_TALLY, SHARED_BY_SUMMARY, STALE, digest, group_key, group_names, group_url, later_key, record_keys,
                   redirect_key, related_key_after, retallied, shared_keys)
from .outputs import Result, file_size, made_of, previous_index
from .state import Cards, Head, Made, OutputRow, RecordRow, SavedState, Search, Summaries, decode
from .store import HighlightStore

if TYPE_CHECKING:
    from ..render import Renderer


@dataclass(frozen=True, slots=True)
class Edit:
    """A record file whose bytes changed."""

    row: RecordRow
    """Its row as the last build saved it."""
    record: Record
    """Its new record."""
    sha: str
    """Hash of its new bytes."""
    made: Made
    """Its new search terms and summary."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What an update renders, and from what."""

    records: dict[str, Record]
    """Records whose own page is rendered, by id."""
    summaries: dict[str, Summary]
    """Summaries the rendered files show, by id: every record's when lists are rendered."""
    links: Links
    """Related errors of (at least) every record whose page is rendered, by id."""
    keys: dict[str, str]
    """Output path to render -> the hash of everything its bytes depend on (see `keys`)."""
    gone: list[str]
    """Output paths to delete: list pages nobody is on any more."""
    relinked: Links
    """Records other than the edited ones whose related errors changed."""
    related_key: str
    """Hash of what the related errors are now made from (see `keys.related_key`)."""
    known: dict[str, dict[str, bytes]]
    """What the last build's list pages show of the unedited records, by output path (see `render.Known`)."""
    beside: set[str]
    """Output paths of `keys` made with the long files (`make_index`, `make_lists`) rather than rendered."""
    series: set[str]
    """Output paths of `keys` that are the first file of a list (`render.Renderer.heads`): every file of
    the list is made again (see `paging.following`)."""
    overview: Overview | None
    """What the pages about every record show of them, when those are rendered without every summary."""


def update(inputs: Inputs, saved: SavedState, head: Head, changed: list[str], jobs: int) -> Result | None:
    """Rebuild after edits of the files `changed`; None when a whole build must do it.

    The settings, the code and the set of record files are those of the last build. A whole build
    follows when an edit changes a record's id, breaks a record, names an unknown related id or
    makes a list page that collides with another: it reports problems as `check` does.
    """
    store = HighlightStore(paths.highlight_path(inputs.out), head.meta.salt, paths.key())
    try:
        return _update(inputs, saved, head, changed, jobs, store)
    finally:
        store.close()


def _update(inputs: Inputs, saved: SavedState, head: Head, changed: list[str], jobs: int,
            store: HighlightStore) -> Result | None:
    """Rebuild after edits, with highlighted code and Markdown from `store` (see `update`)."""
    config, broken = read_config(inputs)
    if broken or config_key(config, inputs.code) != head.meta.config_key:
        return None
    rows = saved.rows(changed)
    if rows.keys() != set(changed):
        return None
    touched: list[RecordRow] = []
    edits: dict[str, Edit] = {}
    for name in changed:
        row = rows[name]
        found = read_record(name, config, row.stamp.sha)
        if found is None:
            return None
        if found.record is None:
            touched.append(replace(row, stamp=inputs.stamp(name, found.sha)))
            continue
        record = decode(found.record)
        if record.id != row.record.id:
            return None
        edits[record.id] = Edit(row, record, found.sha, made_of(record, store))
    if any(_in_release_notes(edit) for edit in edits.values()):
        return None
    if not edits:
        saved.update(touched, {}, {})
        return Result(head.meta.records, head.meta.pages, 0, 0, 0, False, head.meta.base_path, size=head.meta.size)
    common = digest(head.meta.env, repr(config))
    spread = {i for i, edit in edits.items() if edit.made.summary_key != edit.row.made.summary_key}
    cards = saved.cards() if spread else None
    try:
        long = _long_files(inputs.out, saved, config, edits, cards)
    except OutputGone:
        return None
    staging = None
    asides: list[workers.Beside] = []
    if long is not None:
        staging = write.staging_folder(inputs.out)
        # The long files are made in other processes while this one plans and renders the pages,
        # when there are two cores: reading, hashing and writing 12 MB is a fair part of an edit at
        # 10,000 records. An edit of prose renders too little to pay for a process.
        asides = [workers.Beside(partial(make, long, staging), jobs if spread else 1)
                  for make, needed in ((make_index, long.index), (make_lists, long.paths())) if needed]
    made: dict[str, str] = {}
    try:
        plan = spread_plan(inputs.out, saved, config, edits, spread, head, common, cards,
                           long.paths() if long else set()) if cards else own_plan(saved, edits, head, common)
        bodies = render_plan(inputs, head, config, plan, store) if plan is not None else {}
        for aside in asides if plan is not None else []:
            made.update(aside.result())
    except OutputGone:
        plan = None
    finally:
        for aside in asides:
            aside.cancel()
    if plan is None:
        if staging is not None:
            write.remove_staging(staging)
        return None
    keys = dict(plan.keys)
    later, gone = _series_files(saved, plan, [*bodies, *made])
    keys.update(later)
    from ..search.shards import is_fragment

    for path in made:
        if path == "search-index.js" or is_fragment(path):
            # Its key would hash every record's index key; a whole build, which has them, patches the
            # index it finds stale with no change, and so writes nothing.
            keys[path] = STALE
    outputs = saved.outputs([*bodies, *made])
    hashes = {path: digest(body) for path, body in bodies.items()}
    hashes.update(made)
    written = sorted(path for path, sha in hashes.items() if path not in outputs or outputs[path].sha != sha)
    pages = head.meta.pages + sum(p.endswith(".html") for p in hashes if p not in outputs) \
        - sum(p.endswith(".html") for p in gone)
    size = head.meta.size
    meta: dict[str, object] = {"pages": pages, "related_key": plan.related_key}
    if written or gone:
        staging = staging or write.staging_folder(inputs.out)
        for path in written:
            if path in bodies:
                write.write_file(staging, path, bodies[path])
        # The output still holds what the last build wrote: the files that change or go weigh that much less.
        size += sum(file_size(staging / path) - file_size(inputs.out / path) for path in written) \
            - sum(file_size(inputs.out / path) for path in gone)
        meta["size"] = size
        saved.forget()
        behind = write.commit_changes(staging, inputs.out, paths.previous_tree(inputs.out), written, gone,
                                      head.meta.behind)
        meta.update(marker=marker(inputs.out), behind=tuple(behind))
    elif staging is not None:
        write.remove_staging(staging)
    for record_id, edit in edits.items():
        touched.append(RecordRow(edit.row.name, inputs.stamp(edit.row.name, edit.sha), edit.record, edit.made,
                                 plan.links[record_id]))
    saved.update(touched, {path: OutputRow(keys[path], sha) for path, sha in hashes.items()}, meta,
                 links=plan.relinked, gone=gone)
    return Result(head.meta.records, pages, len(hashes), len(written), len(gone), False, head.meta.base_path,
                  size=size)


def _series_files(saved: SavedState, plan: Plan, made: list[str]) -> tuple[dict[str, str], list[str]]:
    """Return the keys of the files after the first of each list the plan makes again (`Plan.series`), of
    those `made`, and every output path to delete: the plan's, and the files of those lists no longer made."""
    keys = {path: later_key(plan.keys[head], path) for path in made
            if (head := paging.head_of(path)) in plan.series and path not in plan.series}
    gone = [*plan.gone, *(path for head in sorted(plan.series | set(plan.gone)) for path in following(saved, head)
                          if path not in keys)]
    return keys, sorted(gone)


def following(saved: SavedState, head: str) -> list[str]:
    """Return the output paths of the files after the first of the list at `head` that the last build wrote."""
    found: list[str] = []
    paths = paging.following(head)
    while True:
        # The files of a list are numbered without a gap: ask for a few at a time until one is missing.
        batch = [next(paths) for _ in range(FOLLOWING_BATCH)]
        written = saved.outputs(batch)
        found += [path for path in batch if path in written]
        if len(written) < len(batch):
            return found


FOLLOWING_BATCH = 16
"""How many files of a list `following` asks the state for at a time."""


def _in_release_notes(edit: Edit) -> bool:
    """Return whether an edit of a record with a history changes what the release pages show (see `releases`),
    or is of a removed error's page, which names the errors that raise its message now
    (`render.Renderer.successors`): a whole build renders them."""
    before, after = edit.row.record, edit.record
    return bool(before.history or after.history) and (
        before.history != after.history or edit.made.summary_key != edit.row.made.summary_key
        or "removed" in (before.status, after.status))


class OutputGone(Exception):
    """A file of the output is not the one the last build wrote: a whole build writes it again."""


@dataclass(frozen=True, slots=True)
class LongFiles:
    """The long files an update makes from the last build's bytes, touching only the edited records' parts."""

    out: Path
    """The output folder, whose files are read."""
    shas: dict[str, str]
    """Output path -> the hash of the file the last build wrote there: a file that no longer has it is
    not read (`OutputGone`), and a file made the same is not written."""
    index: list[tuple[Search, Search]]
    """Records changed in the search index, from the first to the second; empty when none is."""
    lists: dict[str, list[previous.LineChange]]
    """API list path -> the lines that change, in descending order of id (see `previous.spliced_lines`)."""
    items: list[previous.ItemChange]
    """The items that change on the list of every error, in descending order of new place (see
    `previous.spliced_items`); empty when its pages are rendered, or not made."""
    all_errors: list[str]
    """The pages of the list of every error the last build wrote, in order; empty when `items` is."""
    renderer: Renderer | None
    """What renders those pages; made before the long files are, so that its modules load once, in this
    process, rather than again in the one that makes them."""
    drafted: int
    """How many records are AI-assisted drafts not yet reviewed, which those pages count."""

    def paths(self) -> set[str]:
        """Return the output paths these are, but the search index."""
        return set(self.lists) | ({ALL_ERRORS} if self.items else set())


def make_index(long: LongFiles, staging: Path) -> dict[str, str]:
    """Make the search index with the edited records, write it into `staging` when it changed, and return
    its hash by path (nothing when no record changes in it). Raise OutputGone when the last build's is gone."""
    if not long.index:
        return {}
    script = previous_index(long.out, long.shas["search-index.js"])
    patched = reindex.patch_script(script, long.index) if script is not None else None
    if patched is None:
        raise OutputGone(long.out / "search-index.js")
    return _written(long, staging, {"search-index.js": patched, **index_fragments(patched, long.index)})


def index_fragments(script: bytes, changes: list[tuple[Search, Search]]) -> dict[str, bytes]:
    """Return the fragments of the index `script` that the records of `changes` can have changed (`search.shards`)."""
    from ..search import shards
    from ..search.index import read_index_script

    index = read_index_script(script)
    if index is None:
        raise OutputGone(Path("search-index.js"))
    terms = {t for before, after in changes for t in before.terms.keys() | after.terms.keys()
             if before.terms.get(t) != after.terms.get(t)}
    return shards.fragments(index, shards.touched(index, [(b.entry, a.entry) for b, a in changes], terms))


def make_lists(long: LongFiles, staging: Path) -> dict[str, str]:
    """Make the API lists and the page of all errors with the edited records' parts changed, write into
    `staging` those that changed, and return the hash of each by path.

    Raise OutputGone when one of them is not the file the last build wrote.
    """
    made = {}
    for path, changes in long.lists.items():
        body = previous.read(long.out, path, long.shas[path])
        spliced = previous.spliced_lines(body, changes) if body is not None else None
        if spliced is None:
            raise OutputGone(long.out / path)
        made[path] = spliced
    if long.items:
        made.update(_all_errors(long))
    return _written(long, staging, made)


def _all_errors(long: LongFiles) -> dict[str, bytes]:
    """Return the pages of the list of every error with the edited records' items changed and moved, made
    from the items of the pages the last build wrote. Raise OutputGone when one is not the one it wrote."""
    assert long.renderer is not None, "a renderer is made with the items that change"
    first = html(urls.root_of(ALL_ERRORS)).encode()
    written, unwritten = [], []
    for path in long.all_errors:
        body = previous.read(long.out, path, long.shas[path])
        found = previous.sections(body) if body is not None else None
        if found is None:
            raise OutputGone(long.out / path)
        root = html(urls.root_of(path)).encode()
        written.append(_rooted(found.get(True, b""), root, first))
        unwritten.append(_rooted(found.get(False, b""), root, first))
    # The lists of all pages as one, laid out as one page lays them out, where the items go as on a page.
    whole = b"".join(previous.LIST_START + kind + b'">\n' + b"".join(items) + b"</ul>\n"
                     for kind, items in ((b" written", written), (b" unwritten", unwritten)) if any(items))
    spliced = previous.spliced_items(b"\n" + whole, urls.root_of(ALL_ERRORS), long.items)
    found = previous.sections(spliced) if spliced is not None else None
    if found is None:
        raise OutputGone(long.out / ALL_ERRORS)
    done, todo = (_rooted(found.get(kind, b""), first, ROOT_BYTES).split(previous.ITEM_END)[:-1] for kind in (True, False))
    return long.renderer.all_errors([item + previous.ITEM_END for item in done + todo], len(done), long.drafted)


def _rooted(items: bytes, root: bytes, other: bytes) -> bytes:
    """Return list items (`summary.list_item`) whose links start at the page root `root` with links from `other`."""
    return items.replace(b'<li><a href="' + root, b'<li><a href="' + other)


def _written(long: LongFiles, staging: Path, made: dict[str, bytes]) -> dict[str, str]:
    """Write into `staging` the files of `made` whose bytes changed; return the hash of each by path."""
    hashes = {}
    for path, body in made.items():
        hashes[path] = digest(body)
        # The index's fragments are written whenever made: only the state knows what the last build wrote.
        if hashes[path] != long.shas.get(path):
            write.write_file(staging, path, body)
    return hashes


def _long_files(out: Path, saved: SavedState, config: Config, edits: dict[str, Edit],
                cards: Cards | None) -> LongFiles | None:
    """Return what of the long files the edits change; None when nothing.

    Raise OutputGone when the last build saved none of one of them.
    """
    searches = [(edit.row.made.search, edit.made.search) for _, edit in sorted(edits.items())]
    index = searches if any(before.key != after.key for before, after in searches) else []
    lists = _line_changes(config, edits, cards) if cards is not None else {}
    items = _item_changes(saved, edits, cards) if cards is not None else []
    if not index and not lists and not items:
        return None
    all_errors = [ALL_ERRORS, *following(saved, ALL_ERRORS)] if items else []
    wanted = (["search-index.js"] if index else []) + list(lists) + all_errors
    shas = {path: row.sha for path, row in saved.outputs(wanted).items()}
    if shas.keys() != set(wanted):
        raise OutputGone(*sorted(set(wanted) - shas.keys()))
    drafted = sum(tally.drafted for (kind, _), tally in saved.tallies().items() if kind == "status") if items else 0
    return LongFiles(out, shas, index, lists, items, all_errors, _renderer(config) if items else None, drafted)


def _renderer(config: Config) -> Renderer:
    """Return a renderer of the pages that show no record but through ready-made items."""
    from ..render import Renderer
    from .compiled import CompiledTemplates

    return Renderer(Site(config, ()), related={}, summaries={},
                    compiled=CompiledTemplates(paths.templates_path(), paths.key()))


ALL_ERRORS = "errors/index.html"
"""The first page of the list of every error."""
LIST_HEADS = (ALL_ERRORS, "exceptions/index.html", "files/index.html", "tags/index.html", paging.SITEMAP)
"""The files of `keys.SHARED_BY_SUMMARY` that are the first of a list (see `render.Renderer.heads`)."""


def _item_changes(saved: SavedState, edits: dict[str, Edit], cards: Cards) -> list[previous.ItemChange]:
    """Return the changes of the edited records' items on the page of all errors, in descending order of new place.

    Empty when none changes, and when a record's page becomes written or unwritten, or a draft or not,
    which changes the page's other text: the page is rendered then.
    """
    old = cards.summaries
    root = html(urls.root_of(ALL_ERRORS)).encode()
    moved: dict[str, tuple[bytes, bytes, Summary]] = {}
    for i, edit in edits.items():
        before, after = old[i], edit.made.summary
        if before.written != after.written or before.drafted != after.drafted:
            return []
        was, now = _item(before, root), _item(after, root)
        if was != now or before.order != after.order:
            moved[i] = (was, now, after)
    changes = []
    for was, now, after in sorted(moved.values(), key=lambda change: change[2].order, reverse=True):
        places = [(s.id, s.order) for _, _, s in moved.values() if s.order > after.order]
        found = saved.following(after.order, moved)
        following = min(places + ([found] if found else []), key=itemgetter(1), default=None)
        # Written pages come first (`summary.reading_order`): a next record of the other kind is in the other list.
        next_id = following[0] if following is not None and following[1][0] == after.order[0] else None
        changes.append(previous.ItemChange(was, now, next_id, after.written))
    return changes


def _item(summary: Summary, root: bytes) -> bytes:
    """Return a record's item on a list page whose root is `root` (as HTML)."""
    return list_item(summary, ROOT).encode().replace(ROOT_BYTES, root)


API_LINES = {"api/errors.json": error_line, "api/patterns.json": pattern_line}
"""The API lists, a line per record, and what makes a record's line (with `summary.ROOT` for the base URL)."""


def _line_changes(config: Config, edits: dict[str, Edit], cards: Cards) -> dict[str, list[previous.LineChange]]:
    """Return, by API list, the changes of the lines of the edited records whose line changes."""
    from ..render import json_base_url, ships_patterns

    base = json_base_url(config.base_url)
    old = cards.summaries
    found: dict[str, list[previous.LineChange]] = {}
    for path, line in API_LINES.items():
        if path == "api/patterns.json" and not ships_patterns(config):
            continue
        changes = []
        ordered: list[str] = []
        for i in sorted(edits, reverse=True):
            before = line(old[i]).replace(ROOT_BYTES, base)
            after = line(edits[i].made.summary).replace(ROOT_BYTES, base)
            if before == after:
                continue
            following = b""
            if after and not before:
                ordered = ordered or sorted(old)
                following = next((made for j in ordered[bisect_right(ordered, i):]
                                  if (made := line(edits[j].made.summary if j in edits else old[j])
                                      .replace(ROOT_BYTES, base))), b"")
            changes.append(previous.LineChange(before, after, following))
        if changes:
            found[path] = changes
    return found


def own_plan(saved: SavedState, edits: dict[str, Edit], head: Head, common: str) -> Plan:
    """Return the plan of edits that change nothing other pages show: the edited records' pages and JSON."""
    linked = sorted({link.id for edit in edits.values() for link in edit.row.related} - set(edits))
    cards = saved.cards(linked)
    summaries, summary_keys = dict(cards.summaries), dict(cards.keys)
    summaries.update((i, edit.made.summary) for i, edit in edits.items())
    summary_keys.update((i, edit.made.summary_key) for i, edit in edits.items())
    keys: dict[str, str] = {}
    for record_id, edit in sorted(edits.items()):
        keys.update(record_keys(record_id, edit.sha, edit.row.related, summary_keys, common))
    return Plan(records={i: edit.record for i, edit in edits.items()}, summaries=summaries,
                links={i: edit.row.related for i, edit in edits.items()}, keys=keys, gone=[], relinked={},
                related_key=head.meta.related_key, known={}, beside=set(), series=set(),
                overview=None)


def spread_plan(out: Path, saved: SavedState, config: Config, edits: dict[str, Edit], spread: set[str], head: Head,
                common: str, cards: Cards, beside: set[str]) -> Plan | None:
    """Return the plan of edits that change what other pages show of the records `spread`.

    Of the files that list records, it renders those that show what changed; the others keep
    their bytes and their row (whose key a whole build finds stale, and renders again to the same
    bytes). The files `beside` are made with the long files. None when a whole build must report a
    problem the edits make: an unknown related id, or a new list page that collides with another.
    """
    old = cards.summaries
    new = old.edited({i: edit.made.summary for i, edit in edits.items()})
    for i, edit in edits.items():
        if any(other not in new or other == i for other in edit.record.related):
            return None
    reached = sorted({group for i in spread for group in group_names(old[i]) + group_names(new[i])})
    members = _members(saved, edits, reached)
    made = [group for group in reached if members[group]
            and all(i in spread and group not in group_names(old[i]) for i in members[group])]
    if made:
        from .. import validate

        if not validate.pages_apart(_every_group_page(new.all().values())):
            return None
    moved = [i for i in sorted(spread) if relating(old[i]) != relating(new[i])]
    found = relink(old, new, moved, saved.members) if moved else {}
    was = saved.links(found)
    relinked = {i: links for i, links in found.items() if links != was[i]}
    pages = set(edits) | set(relinked) | saved.linking(sorted(spread))
    links = saved.links(sorted(pages - set(relinked)))
    links.update(relinked)
    summary_keys = dict(cards.keys)
    summary_keys.update((i, edit.made.summary_key) for i, edit in edits.items())
    records = saved.records(sorted(pages - set(edits)))
    records.update((i, edit.record) for i, edit in edits.items())
    shas = saved.shas(sorted(pages - set(edits)))
    shas.update((i, edit.sha) for i, edit in edits.items())
    keys: dict[str, str] = {}
    for i in sorted(pages):
        own = record_keys(i, shas[i], links[i], summary_keys, common)
        keys.update(own if i in edits else {urls.output_path(urls.error(i)): own[urls.output_path(urls.error(i))]})
    listed = []
    for group in reached:
        if members[group] and any(_shown_on(group, old[i]) != _shown_on(group, new[i]) for i in spread):
            path = group_url(group)
            keys[urls.output_path(path)] = group_key(common, path, members[group], summary_keys)
            listed.append(urls.output_path(path))
    for retired, successor in config.redirects:
        if successor in spread:
            keys[urls.output_path(urls.error(retired))] = redirect_key(common, retired, successor, summary_keys)
    from .. import render

    large = len(new) > render.HOME_LIST_LIMIT
    # Which records are recent matters only when what the home page shows of one that may be changed.
    recent = {r.id for r in render.recently_changed(old.all().values())} | {
        r.id for r in render.recently_changed(new.all().values())} \
        if large and any(_recent_part(old[i]) != _recent_part(new[i])
                         and (_may_be_recent(saved, old[i], spread) or _may_be_recent(saved, new[i], spread))
                         for i in spread) else set()
    shown = [path for path in SHARED_BY_SUMMARY if path != "api/patterns.json" or render.ships_patterns(config)
             if any(_shown_by(path, old[i], large, i in recent) != _shown_by(path, new[i], large, i in recent)
                    for i in spread)]
    if shown:
        shared = shared_keys(common, dict(sorted(summary_keys.items())))
        keys.update((path, shared[path]) for path in shown)
    # Files that list every record need every summary, but those that show only what the records
    # have in all (`model.Overview`); the others, the summaries of the records they show.
    overviewed = {*OVERVIEWED, *(["index.html"] if large else [])}
    overview = None
    if any(path in keys and path not in beside and path not in overviewed for path in SHARED_BY_SUMMARY):
        summaries = new.all()
    else:
        if any(path in keys for path in overviewed):
            overview = _overview(saved, old, new, spread)
        shown_ids = {*pages, *(link.id for i in pages for link in links[i]),
                     *(i for group in reached if urls.output_path(group_url(group)) in keys for i in members[group]),
                     *(successor for _, successor in config.redirects if successor in spread)}
        summaries = {i: new[i] for i in sorted(shown_ids)}
    return Plan(records=records, summaries=summaries, links=links, keys=keys,
                gone=[urls.output_path(group_url(group)) for group in reached if not members[group]],
                relinked={i: found for i, found in relinked.items() if i not in edits},
                related_key=related_key_after(head.meta.related_key, [
                    (edit.row.made.relating_key, edit.made.relating_key) for _, edit in sorted(edits.items())]),
                known=_known(out, saved, [p for p in [*listed, ALL_ERRORS] if p in keys and p not in beside],
                             set(edits)),
                beside={path for path in beside if path in keys},
                series={*listed, *(path for path in shown if path in LIST_HEADS)}, overview=overview)


OVERVIEWED = ("exceptions/index.html", "files/index.html", "tags/index.html", "sitemap.xml")
"""Files that show every record, and of them only what `model.Overview` holds (so does a large site's home page)."""


def _overview(saved: SavedState, old: Summaries, new: Summaries, edited: set[str]) -> Overview:
    """Return what the pages about every record show after the edits of the records `edited`, from
    the saved tallies and recent pages, without reading every summary."""
    from ..render import RECENT_LIMIT, recently_changed

    tallies = saved.tallies()
    retallied(tallies, (old[i] for i in sorted(edited)), (new[i] for i in sorted(edited)))
    groups: dict[str, dict[str, Tally]] = {"exception": {}, "file": {}, "tag": {}}
    for (kind, name), tally in sorted(tallies.items()):
        if tally.records and kind in groups:
            groups[kind][name] = tally
    statuses = [tally for (kind, _), tally in tallies.items() if kind == "status"]
    # The saved recent pages, but the edited records', with the edited records as they are now.
    recent = [new[i] for i in saved.recent(RECENT_LIMIT + len(edited)) if i not in edited]
    return Overview(tuple(new), groups, tallies.get(("status", "active"), NO_TALLY).records,
                    sum(tally.written for tally in statuses), sum(tally.drafted for tally in statuses),
                    tuple(recently_changed([*recent, *(new[i] for i in sorted(edited))])))


def _shown_on(group: tuple[str, str], summary: Summary) -> tuple[object, ...]:
    """Return what the list page of `group` shows of a record: how often it lists it, and its item and place."""
    times = group_names(summary).count(group)
    return (times, list_item(summary, ROOT, show_line=group[0] == "file"), summary.order) if times else (0,)


def _recent_part(summary: Summary) -> tuple[object, ...]:
    """Return what the home page's recent pages show of a record, and what decides whether it is one."""
    return (summary.written, summary.title, summary.order, summary.analysis_date, summary.analysis_commit, summary.commit)


def _may_be_recent(saved: SavedState, summary: Summary, edited: set[str]) -> bool:
    """Return whether a record may be among the home page's recent pages (`render.recently_changed`):
    written, dated, and with fewer newer records than the page names, but the `edited` ones."""
    from ..render import RECENT_LIMIT

    date = summary.analysis_date
    return bool(summary.written and date) and saved.newer(date or "", edited, RECENT_LIMIT) < RECENT_LIMIT


def _shown_by(path: str, summary: Summary, large: bool, recent: bool) -> object:
    """Return what the shared file `path` (`keys.SHARED_BY_SUMMARY`) shows of a record.

    The file's bytes change only when this does for some record. `large` says whether the home page
    counts the errors of each group (see `render.HOME_LIST_LIMIT`); when it lists them, it shows all.
    `recent` says whether the record is among the home page's recent pages before or after the edit.
    """
    tags = tuple(sorted(summary.tags))
    if path == "api/errors.json":
        return error_line(summary)
    if path == "api/patterns.json":
        return pattern_line(summary)
    if path == "errors/index.html":
        return list_item(summary, ROOT), summary.order
    if path == "sitemap.xml":
        return summary.exception, summary.path, tags
    if path == "exceptions/index.html":
        return summary.exception, summary.written
    if path == "files/index.html":
        return summary.path, summary.written
    if path == "tags/index.html":
        return tags, summary.written
    if path == "index.html" and large:
        # Counts of every group and status, and the recently written pages (`render.recently_changed`),
        # which a record in neither list before nor after the edit does not change.
        counted = (summary.exception, summary.path, tags, summary.written, summary.drafted, summary.status)
        return counted + (summary.title, summary.order, summary.analysis_date, summary.analysis_commit,
                          summary.commit) if recent else counted
    return summary


def _known(out: Path, saved: SavedState, heads: list[str], edited: set[str]) -> dict[str, dict[str, bytes]]:
    """Return what the pages the last build wrote of the lists of errors at `heads` show of the records not
    `edited`, by list (see `render.Known`)."""
    known = {}
    for head in heads:
        items: dict[str, bytes] = {}
        for path, row in saved.outputs([head, *following(saved, head)]).items():
            body = previous.read(out, path, row.sha)
            if body is not None:
                root = urls.root_of(path)
                items.update((i, _rooted(item, html(root).encode(), ROOT_BYTES))
                             for i, item in previous.list_items(body, root, edited).items())
        known[head] = items
    return known


def render_plan(inputs: Inputs, head: Head, config: Config, plan: Plan, store: HighlightStore) -> dict[str, bytes]:
    """Return the bytes of every file the plan renders."""
    from .. import render
    from .compiled import CompiledTemplates

    site = Site(config, tuple(plan.records[i] for i in sorted(plan.records)))
    renderer = render.Renderer(site, related=plan.links, highlighter=highlight.Highlighter(store, head.meta.lexers),
                               compiled=CompiledTemplates(paths.templates_path(), paths.key()), summaries=plan.summaries, known=plan.known,
                               overview=plan.overview)
    makers = renderer.plan(paged=False)
    heads = {urls.output_path(head): head for head in renderer.heads()}
    bodies: dict[str, bytes] = {}
    for path in plan.keys:
        if path in plan.beside:
            continue
        if path in plan.series:
            bodies.update((urls.output_path(url), make()) for url, make in renderer.series(heads[path]).items())
        else:
            bodies[path] = makers[path]()
    return bodies


def _members(saved: SavedState, edits: dict[str, Edit], wanted: list[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
    """Return the ids, in id order, of the records on each list page of `wanted` after the edits (see
    `keys.group_names`): once per time a record is on it, as `keys.groups` counts them."""
    before = saved.listed(wanted)
    return {group: sorted([i for i in before[group] if i not in edits]
                          + [i for i, edit in edits.items() for _ in range(group_names(edit.made.summary).count(group))])
            for group in wanted}


def _every_group_page(summaries: Iterable[Summary]) -> list[str]:
    """Return the list page of every exception, file and tag of `summaries`, once per name."""
    return [group_url(group) for group in dict.fromkeys(g for summary in summaries for g in group_names(summary))]
