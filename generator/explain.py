"""A record's page as plain text for the terminal: `errorsite explain`."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import load
from .search.index import index_of, script_json
from .search.rank import search
from .load import RawRecord
from .model import Record, Site
from .validate import site_config, to_record
from .problems import Invalid, Problem, ProblemsFound, UserError
from .schema import ID_PATTERN

WIDTH = 88
MAX_SITE_FILE_BYTES = 256 * 1024 * 1024
"""The largest file of a built site that explain reads (the search index of a very large site)."""


def explain(data: dict[str, Any], url: str) -> str:
    """Return the text of one record (normalised JSON data, as the site's API serves it)."""
    source = data["source"]
    where = f"{source['path']}:{source['line']}" + (f" in {source['function']}" if source.get("function") else "")
    pin = f"{source.get('repo') or 'source'}@{source['commit'][:10]}"
    out = [f"{data['exception']}: {data['title']}", url]
    if data.get("status") == "removed":
        out.append("(no longer raised by the current code)")
    out += _section("Message", _wrap(data["message"]))
    if data.get("meaning"):
        out += _section("What it means", _wrap(data["meaning"]))
    if data.get("solutions"):
        out += _section("Solutions", "\n".join(
            _wrap(text, f"{n}. ", " " * (len(str(n)) + 2)) for n, text in enumerate(data["solutions"], 1)))
    fix = data.get("example_fix")
    if fix:
        body = [_block("Before", fix["before"]), _block("After", fix["after"])]
        if fix.get("code"):
            body.append(_block("In code", fix["code"]))
        if fix.get("note"):
            body.append(_wrap(fix["note"]))
        out += _section("Example fix", "\n".join(body))
    when = data.get("when") or {}
    if when:
        out += _section("When it happens", "\n".join(
            _wrap(when[key], f"{label}: ") for key, label in (("trigger", "Trigger"), ("situations", "Common situations")) if when.get(key)))
    out += _section("Where it is raised", f"  {where} ({pin})")
    return _terminal_safe("\n".join(out) + "\n")


TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters besides tab and line break: an escape sequence in a record must not drive the terminal."""


def _terminal_safe(text: str) -> str:
    return TERMINAL_CONTROL.sub(lambda found: repr(found.group())[1:-1], text)


def _section(title: str, body: str) -> list[str]:
    return ["", title, body]


def _wrap(text: str, first: str = "", rest: str = "") -> str:
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    lines = []
    for n, paragraph in enumerate(paragraphs):
        lines.append(textwrap.fill(" ".join(paragraph.split()), WIDTH, initial_indent="  " + (first if n == 0 else rest),
                                   subsequent_indent="  " + rest or "  "))
    return "\n".join(lines)


def _block(label: str, code: str) -> str:
    return f"  {label}:\n" + textwrap.indent(code.rstrip("\n"), "    ")


def published_record(site: Path, query: str) -> tuple[dict[str, Any], str]:
    """Return the record that `query` (an id or a message) names in a built site's files."""
    api = site / "api" / "errors"
    if not api.is_dir() or not (site / "search-index.js").is_file():
        raise UserError(
            f"{str(site)!r} is not a site built by errorsite: it lacks api/errors/ or search-index.js",
            hint="pass the folder that errorsite build wrote (default: site)",
            page="not-a-built-site",
        )
    # Only a well-formed id names a file; anything else is a message to search for.
    is_id = re.fullmatch(ID_PATTERN, query) is not None and (api / f"{query}.json").is_file()
    record_id = query if is_id else _best_match(_site_index(site), query)
    data = _site_json(api / f"{record_id}.json", api)
    return data, data["url"]


def site_search(site: Path, text: str, limit: int,
                base_url: str | None = None) -> tuple[list[dict[str, Any]], dict[str, Record], str]:
    """Return the results of a search of a built site's index, their records by id, and the site's base URL.

    A built site answers at once: nothing is read but the fragments of the index the text needs
    and the results' records (`api/errors/<id>.json`).
    """
    from .search import sharded, shards

    def read(path: str) -> Any:
        return _site_json(site / path, site, shards.script_data)

    problem = "" if (site / shards.MANIFEST).is_file() else f"it lacks {shards.MANIFEST}"
    try:
        if not problem and not shards.readable(read(shards.MANIFEST)):
            problem = "its search index is of another version of errorsite"
        if not problem:
            loaded = sharded.load_for(read, text, limit)
            results = sharded.search_loaded(loaded, text, limit)
            config = site_config({}, "site.toml", None)[0]
            api = site / "api" / "errors"
            by_id = {r["id"]: to_record(RawRecord(str(api / f"{r['id']}.json"), _site_json(api / f"{r['id']}.json", api)),
                                        config) for r in results}
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
        problem = f"its search index is damaged ({type(error).__name__}: {error})"
    if problem:
        raise UserError(
            f"{str(site)!r} is not a site built by errorsite: {problem}",
            hint="pass the folder that errorsite build wrote (default: site), built with this errorsite",
            page="lookup-site-unreadable",
        )
    return results, by_id, loaded.index["base_url"] if base_url is None else base_url


def _site_index(site: Path) -> dict[str, Any]:
    return _site_json(site / "search-index.js", site, script_json)


def _site_json(path: Path, folder: Path, unwrap: Callable[[bytes], bytes | None] = lambda data: None) -> Any:
    """Return the JSON of a built site's file (`unwrap` takes it out of a script), proven a regular file inside `folder`."""
    try:
        data = load.read_bytes(path, MAX_SITE_FILE_BYTES, folder)
        return load.parse_json(unwrap(data) or data)
    except load.FileProblems as found:
        raise ProblemsFound(found.problems(str(path))) from None
    except Invalid as error:
        raise ProblemsFound([Problem.of(str(path), "", error)]) from None


def content_record(site: Site, query: str) -> tuple[dict[str, Any], str]:
    """Return the record that `query` (an id or a message) names in validated content."""
    record = site.by_id.get(query)
    if record is None:
        record = site.by_id[_best_match(index_of(site), query)]
    from .render import record_data  # Jinja and Markdown: lookup --site needs neither

    return record_data(record), f"{site.config.base_url}{record.url}"


def _best_match(index: dict[str, Any], query: str) -> str:
    results = search(index, query, limit=3)
    if results and results[0]["kind"] in ("full", "partial"):
        return results[0]["id"]
    # Words in common are a search result, not an explanation: name them and let the reader pick.
    raise UserError(
        f"no record has the id or a message like {query[:80]!r}",
        hint="closest: " + ", ".join(r["id"] for r in results) if results
        else "run errorsite lookup with a few words of the message to find the id",
        page="nothing-to-explain",
    )
