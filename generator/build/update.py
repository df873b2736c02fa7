"""A build after a few edits: only the edited records are read, and only the files they show on rendered."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import render, urls
from ..model import Config, Record, Site
from ..search.related import Related
from . import highlight, paths, reindex, write
from .inputs import Inputs, config_key, marker, read_config, read_record
from .keys import digest, record_keys, search_index_key, summary_key
from .outputs import Result, previous_index, search_of
from .state import Head, OutputRow, RecordRow, SavedState, decode
from .store import HighlightStore


@dataclass(frozen=True, slots=True)
class Edit:
    """A record file whose bytes changed."""

    row: RecordRow
    """Its row as the last build saved it."""
    record: Record
    """Its new record."""
    sha: str
    """Hash of its new bytes."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """Files rendered for some edits."""

    bodies: dict[str, bytes]
    """Output path -> its bytes."""
    keys: dict[str, str]
    """Output path -> hash of everything its bytes depend on (see `keys`)."""


def update(inputs: Inputs, saved: SavedState, head: Head, changed: list[str]) -> Result | None:
    """Rebuild after edits of the files `changed`; None when they change more than their own pages.

    The settings, the code and the set of record files are those of the last build. When no
    edit changes what other pages show of a record (its summary) or which errors are related,
    only the edited records' pages are rendered, and the search index changed where their
    terms changed. Otherwise a whole build follows.
    """
    config, broken = read_config(inputs)
    if broken or config_key(config) != head.meta.config_key:
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
        if summary_key(record) != summary_key(row.record) or record.related != row.record.related:
            return None
        edits[record.id] = Edit(row, record, found.sha)
    if not edits:
        saved.update(touched, {}, {})
        return Result(head.meta.records, head.meta.pages, 0, 0, 0, False, head.meta.base_path)
    common = digest(head.meta.env, repr(config))
    rendered = render_edits(inputs, saved, head, config, edits, common)
    bodies, keys = rendered.bodies, rendered.keys
    search = {record_id: search_of(edit.record) for record_id, edit in edits.items()}
    outputs = saved.outputs([*bodies, "search-index.js"])
    if any(search[i].key != edit.row.search.key for i, edit in edits.items()):
        known = outputs.get("search-index.js")
        index = previous_index(inputs.out, known.sha) if known else None
        if index is None:
            return None
        index_keys = saved.index_keys()
        index_keys.update((record_id, found.key) for record_id, found in search.items())
        bodies["search-index.js"] = reindex.patch_script(index, [(edit.row.search, search[i])
                                                                   for i, edit in sorted(edits.items())])
        keys["search-index.js"] = search_index_key(common, (index_keys[i] for i in sorted(index_keys)))
    hashes = {path: digest(body) for path, body in bodies.items()}
    written = sorted(path for path, sha in hashes.items() if path not in outputs or outputs[path].sha != sha)
    meta: dict[str, object] = {}
    if written:
        staging = write.staging_folder(inputs.out)
        for path in written:
            write.write_file(staging, path, bodies[path])
        saved.forget()
        behind = write.commit_changes(staging, inputs.out, paths.previous_tree(inputs.out), written, [],
                                      head.meta.behind)
        meta = {"marker": marker(inputs.out), "behind": tuple(behind)}
    for record_id, edit in edits.items():
        touched.append(replace(edit.row, stamp=inputs.stamp(edit.row.name, edit.sha), record=edit.record,
                               search=search[record_id]))
    saved.update(touched, {path: OutputRow(keys[path], sha) for path, sha in hashes.items()}, meta)
    return Result(head.meta.records, head.meta.pages, len(bodies), len(written), 0, False, head.meta.base_path)


def render_edits(inputs: Inputs, saved: SavedState, head: Head, config: Config, edits: dict[str, Edit],
                 common: str) -> Rendered:
    """Return the edited records' pages and JSON, and their keys."""
    linked = {link.id for edit in edits.values() for link in edit.row.related}
    by_id = saved.records(sorted(linked - set(edits)))
    by_id.update((i, edit.record) for i, edit in edits.items())
    site = Site(config, tuple(sorted(by_id.values(), key=lambda r: r.id)))
    related = {i: tuple(Related(by_id[link.id], link.automatic) for link in edit.row.related)
               for i, edit in edits.items()}
    store = HighlightStore(paths.highlight_path(inputs.out), head.meta.salt)
    renderer = render.Renderer(site, related=related, highlighter=highlight.Highlighter(store, head.meta.lexers),
                               compiled=paths.templates_path(inputs.out))
    summaries = {i: summary_key(r) for i, r in by_id.items()}
    bodies: dict[str, bytes] = {}
    keys: dict[str, str] = {}
    try:
        for record_id, edit in sorted(edits.items()):
            keys.update(record_keys(record_id, edit.sha, edit.row.related, summaries, common))
            bodies[urls.output_path(urls.error(record_id))] = renderer.error_page(edit.record)
            bodies[urls.output_path(urls.record_json(record_id))] = renderer.record_json(edit.record)
    finally:
        store.close()
    return Rendered(bodies, keys)
