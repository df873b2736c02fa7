"""Raw records -> the Site model, or every problem in every file at once."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import PurePosixPath
from typing import Any

from . import urls
from .search.template import template_parts
from .config import settings_to_config, with_base_url
from .sitebuild.highlight import lexer_exists
from .load import Content, RawRecord, pointer_part
from .model import (
    Analysis, Caller, Check, Config, Definition, ExampleFix, Record, Release, Review, Reviewed, Site, Snippet, Source, Variant,
    Verified, When,
)
from .problems import Invalid, Problem, ProblemsFound, did_you_mean
from .schema import SCHEMA

PLACEHOLDER_MARK = "…"
"""What a default title shows for each value the message interpolates."""

_MARKS = re.compile(f"(?:{PLACEHOLDER_MARK}\\s*)+{PLACEHOLDER_MARK}")
"""A run of placeholders, with the spaces between them: shown as one mark."""
_ALNUM = re.compile(r"[^\W_]")
"""A letter or a digit (`str.isalnum`: a word character that is not `_`)."""

TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "array": (list,),
    "object": (dict,),
}
JSON_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true/false",
                   list: "an array", dict: "an object", type(None): "null"}


def build_site(content: Content, base_url: str | None = None, passed: frozenset[bytes] = frozenset()) -> Site:
    """Return the valid Site for `content`, or raise ProblemsFound listing every problem.

    A record file whose `checked_key` is in `passed` passed `check_record` before, in the same bytes: it is not
    checked again (the check is a function of the file's name and bytes, and of errorsite's code).
    """
    from .sitebuild import workers  # here, not at the top: lookup imports this module and seldom builds a site

    config, problems = site_config(content.settings, content.settings_file, base_url)
    problems.extend(content.problems)
    records = []
    raws = content.records
    todo = [number for number, raw in enumerate(raws) if not raw.digest or checked_key(raw.file, raw.digest) not in passed]
    # Each record file is checked on its own: many are checked on every core.
    checked = dict(zip(todo, workers.map_items(partial(_record_problems, raws), todo, os.cpu_count() or 1)))
    for number, raw in enumerate(raws):
        found = checked.get(number, [])
        problems.extend(found)
        if not found:
            records.append(to_record(raw, config))
    problems.extend(check_links(content.records, records, config, content.settings_file))
    if problems:
        raise ProblemsFound(problems)
    return Site(config, tuple(sorted(records, key=lambda r: r.id)))


def checked_key(file: str, digest: bytes) -> bytes:
    """Return what a record file that passed `check_record` is known by: its name and the digest of its bytes
    (`RawRecord.digest`), and the version of Pygments, whose lexers say which languages are known."""
    import pygments

    # The last part of the path, as `PurePosixPath.name` gives it for a file's path, in a fourth of its time: check
    # asks it of every record file twice.
    name = file.replace("\\", "/").rpartition("/")[2]
    return hashlib.blake2b(f"{name}\0{pygments.__version__}\0".encode("utf-8", "surrogateescape") + digest,
                           digest_size=16).digest()


def site_config(settings: dict[str, Any], file: str, base_url: str | None) -> tuple[Config, list[Problem]]:
    """Return the settings as a Config served at `base_url` when given, and every problem in them."""
    config, problems = settings_to_config(settings, file)
    if base_url is not None:
        config = with_base_url(config, base_url)
    return config, problems


def _record_problems(raws: Sequence[RawRecord], number: int) -> list[Problem]:
    """Return every problem of the record file `raws[number]`."""
    return list(check_record(raws[number]))


def check_record(raw: RawRecord) -> Iterator[Problem]:
    """Yield every problem of one record file."""
    found = list(check_schema(raw.data, SCHEMA, ""))
    for pointer, error in found:
        yield Problem.of(raw.file, pointer, error)
    if found:
        return
    for pointer, check in (("/id", _id_matches_file), ("/source/line", _line_in_snippet), ("/source/path", _path_fits)):
        try:
            check(raw)
        except Invalid as error:
            yield Problem.of(raw.file, pointer, error)
    for key in ("language", "code_language"):
        try:
            _known_language(raw.data.get("example_fix", {}).get(key))
        except Invalid as error:
            yield Problem.of(raw.file, f"/example_fix/{key}", error)


def check_schema(value: Any, schema: dict[str, Any], pointer: str) -> Iterator[tuple[str, Invalid]]:
    """Yield (pointer, error) for every way `value` breaks `schema` (the subset SCHEMA uses)."""
    try:
        _check_value(value, schema)
    except Invalid as error:
        yield pointer, error
        return
    if isinstance(value, dict):
        yield from _check_object(value, schema, pointer)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from check_schema(item, schema["items"], f"{pointer}/{index}")


def _check_object(value: dict[str, Any], schema: dict[str, Any], pointer: str) -> Iterator[tuple[str, Invalid]]:
    if "properties" not in schema:
        yield from _check_map(value, schema, pointer)
        return
    properties = schema["properties"]
    for name in schema["required"]:
        try:
            _present(name, value, properties)
        except Invalid as error:
            yield f"{pointer}/{pointer_part(name)}", error
    for name, item in value.items():
        where = f"{pointer}/{pointer_part(name)}"
        try:
            _known_field(name, properties)
        except Invalid as error:
            yield where, error
            continue
        yield from check_schema(item, properties[name], where)


def _check_map(value: dict[str, Any], schema: dict[str, Any], pointer: str) -> Iterator[tuple[str, Invalid]]:
    """Check an object whose keys are data (a name pattern) and whose values share one schema."""
    for name, item in value.items():
        where = f"{pointer}/{pointer_part(name)}"
        try:
            _check_value(name, schema["propertyNames"])
        except Invalid as error:
            yield where, error
            continue
        yield from check_schema(item, schema["additionalProperties"], where)


def _present(name: str, value: dict[str, Any], properties: dict[str, Any]) -> None:
    if name not in value:
        raise Invalid(
            f"missing required field {name!r}",
            hint=properties[name]["description"],
            page="missing-field",
        )


def _known_field(name: str, properties: dict[str, Any]) -> None:
    if name not in properties:
        raise Invalid(f"unknown field {name!r}", hint=did_you_mean(name, properties), page="unknown-field")


def _check_value(value: Any, schema: dict[str, Any]) -> None:
    expected = TYPES[schema["type"]]
    # JSON Schema counts 12.0 as an integer, so errorsite does too.
    integral = expected == (int,) and isinstance(value, float) and value.is_integer()
    if not (isinstance(value, expected) or integral) or isinstance(value, bool):
        got = JSON_TYPE_NAMES.get(type(value), type(value).__name__)
        raise Invalid(
            f"must be {JSON_TYPE_NAMES[expected[0]]}, got {got}",
            hint=schema.get("description"),
            page="wrong-type",
        )
    if "enum" in schema and value not in schema["enum"]:
        raise Invalid(
            f"must be one of {', '.join(map(repr, schema['enum']))}, got {value!r}",
            hint=_closest(value, schema["enum"]),
            page="not-allowed-value",
        )
    if isinstance(value, list) and len(value) > schema.get("maxItems", len(value)):
        raise Invalid(f"has {len(value)} items; at most {schema['maxItems']} are allowed",
                      hint=schema.get("description"), page="too-many-items")
    if isinstance(value, str):
        _check_string(value, schema)
    if isinstance(value, (int, float)) and value < schema.get("minimum", value):
        raise Invalid(f"must be at least {schema['minimum']}, got {value}", page="number-too-small")
    if isinstance(value, (int, float)) and value > schema.get("maximum", value):
        raise Invalid(f"must be at most {schema['maximum']:,}, got {_shorten(str(value))}",
                      hint=schema.get("description"), page="number-too-large")


def _check_string(value: str, schema: dict[str, Any]) -> None:
    if len(value) < schema.get("minLength", 0):
        raise Invalid("must not be empty", hint=schema.get("description"), page="empty-string")
    if len(value) > schema.get("maxLength", len(value)):
        raise Invalid(
            f"is {len(value):,} characters long; at most {schema['maxLength']:,} are allowed",
            hint=schema.get("description"),
            page="string-too-long",
        )
    if "pattern" in schema and not re.fullmatch(schema["pattern"], value):
        raise Invalid(
            f"{_shorten(value)!r} is not allowed here",
            hint=f"must be {schema['description']}",
            page="bad-format",
        )


def _id_matches_file(raw: RawRecord) -> None:
    stem = PurePosixPath(raw.file.replace("\\", "/")).name.removesuffix(".json")
    if raw.data["id"] != stem:
        raise Invalid(
            f"id {raw.data['id']!r} does not match the file name {stem + '.json'!r}",
            hint=f"rename the file to {raw.data['id']}.json, or set the id to {stem!r}",
            page="id-file-mismatch",
        )


def _line_in_snippet(raw: RawRecord) -> None:
    source = raw.data["source"]
    snippet = Snippet(source["snippet"]["start"], source["snippet"]["code"])
    if not snippet.start <= source["line"] <= snippet.end:
        raise Invalid(
            f"line {source['line']} is outside the snippet, which covers lines {snippet.start}-{snippet.end}",
            hint="the snippet must include the line of the raise; re-run errorsite extract",
            page="line-outside-snippet",
        )


MAX_NAME_BYTES = 255
"""The longest file or folder name that ext4, APFS and NTFS allow, in UTF-8 bytes (NTFS: 255 UTF-16 units)."""
MAX_SOURCE_PATH_BYTES = 512
"""The longest `source.path`: the build writes a page at `<out>/files/<path>/index.html`, and macOS allows
paths of 1,024 bytes in all (Linux 4,096), so the output folder's own path keeps at least 512."""


def _path_fits(raw: RawRecord) -> None:
    path = raw.data["source"]["path"]
    size = len(path.encode("utf-8", "surrogatepass"))
    name = max((len(part.encode("utf-8", "surrogatepass")) for part in path.split("/")), default=0)
    if size > MAX_SOURCE_PATH_BYTES or name > MAX_NAME_BYTES:
        raise Invalid(
            f"the path is {size:,} bytes, its longest name {name:,}: file systems allow names of at most "
            f"{MAX_NAME_BYTES} bytes, and a source file's page needs a path of at most {MAX_SOURCE_PATH_BYTES} bytes",
            hint="give the path of the raising file in the repository, relative to its root",
            page="source-path-too-long",
        )


def _known_language(name: str | None) -> None:
    if name is not None and not lexer_exists(name):
        raise Invalid(
            f"Pygments has no lexer called {name!r}",
            hint="common names: shell, python, console, yaml, toml, json, text",
            page="unknown-language",
        )


def check_links(raws: tuple[RawRecord, ...], records: list[Record], config: Config,
                settings_file: str) -> Iterator[Problem]:
    """Yield problems that span records: duplicate ids, unknown related ids, bad redirects, colliding pages."""
    # Ids of records with other problems still count, so one mistake is reported once.
    seen: dict[str, str] = {}
    for raw in raws:
        record_id = raw.data.get("id") if isinstance(raw.data, dict) else None
        if not isinstance(record_id, str):
            continue
        try:
            _unique(record_id, raw.file, seen)
        except Invalid as error:
            yield Problem.of(raw.file, "/id", error)
    yield from check_references(seen, records, config, settings_file)


def check_references(seen: dict[str, str], records: list[Record], config: Config,
                     settings_file: str) -> Iterator[Problem]:
    """Yield problems of related ids and redirects that name no record of `seen` (id -> file), and of colliding pages."""
    for record in records:
        for index, other in enumerate(record.related):
            try:
                _known(other, seen, record.id)
            except Invalid as error:
                yield Problem.of(record.file, f"/related/{index}", error)
    for old, new in config.redirects:
        try:
            _redirect(old, new, seen)
        except Invalid as error:
            yield Problem.of(settings_file, f"/redirects/{old}", error)
    yield from check_pages(records)


def check_pages(records: list[Record]) -> Iterator[Problem]:
    """Yield a problem for each page that would be written where another page, or its folder, is."""
    files = {urls.same_file_key(page): f"the list page {page}" for page in urls.LIST_PAGES}
    folders: dict[str, str] = {}
    done = set()
    for record in sorted(records, key=lambda r: r.file):
        for kind, name, pointer in _lists_of(record):
            if (kind, name) in done:
                continue
            done.add((kind, name))
            try:
                _apart(urls.output_path(_LIST_PAGE[kind](name)), f"the page of {kind} {name!r} in {record.file}", files,
                       folders)
            except Invalid as error:
                yield Problem.of(record.file, pointer, error)


def pages_apart(pages: Iterable[str]) -> bool:
    """Return whether the list pages at the URLs `pages` (one per exception, file and tag) collide with none
    another, as `check_pages` sees them."""
    files = {urls.same_file_key(page): page for page in urls.LIST_PAGES}
    folders: dict[str, str] = {}
    try:
        for page in pages:
            _apart(urls.output_path(page), page, files, folders)
    except Invalid:
        return False
    return True


def _lists_of(record: Record) -> Iterator[tuple[str, str, str]]:
    """Yield (kind, name, pointer) for each list a record is on (its page: `_LIST_PAGE`)."""
    yield "exception", record.exception, "/exception"
    yield "source file", record.source.path, "/source/path"
    for index, tag in enumerate(record.tags):
        yield "tag", tag, f"/tags/{index}"


_LIST_PAGE = {"exception": urls.exception, "source file": urls.source_file, "tag": urls.tag}
"""The page of each kind of list, by its name: made once per list, though thousands of records are on one."""


def _apart(path: str, owner: str, files: dict[str, str], folders: dict[str, str]) -> None:
    """Claim the file `path` for `owner`, unless a page or a page's folder has that name, letter case aside."""
    key = urls.same_file_key(path)
    parts = key.split("/")
    above = ["/".join(parts[:end]) for end in range(1, len(parts))]
    other = files.get(key) or folders.get(key) or next((files[a] for a in above if a in files), None)
    if other is not None:
        raise Invalid(
            f"its page {path!r} would be written where {other} is",
            hint="two pages may not share a name, nor a page be named like another's folder, even in letter "
            "case only (macOS and Windows see one file); rename one of the two",
            page="page-collision",
        )
    files[key] = owner
    for folder in above:
        folders.setdefault(folder, owner)


def _unique(record_id: str, file: str, seen: dict[str, str]) -> None:
    if record_id in seen:
        raise Invalid(
            f"id {record_id!r} is already used by {seen[record_id]}",
            hint="every record needs its own id",
            page="duplicate-id",
        )
    seen[record_id] = file


def _known(other: str, seen: dict[str, str], own: str) -> None:
    if other == own:
        raise Invalid("a record cannot be related to itself", hint="remove its own id from related", page="related-to-itself")
    if other not in seen:
        raise Invalid(
            f"no record has the id {other!r}",
            hint=did_you_mean(other, set(seen) - {own}),
            page="unknown-related",
        )


def _redirect(old: str, new: str, seen: dict[str, str]) -> None:
    if old in seen:
        raise Invalid(
            f"{old!r} is still a record's id; only retired ids can redirect",
            hint=f"remove the redirect, or delete the record file of {old!r} (a removed record keeps its own page)",
            page="redirect-from-live-id",
        )
    if new not in seen:
        raise Invalid(
            f"redirect target {new!r} is not a record's id",
            hint=did_you_mean(new, seen),
            page="redirect-target-missing",
        )


def to_record(raw: RawRecord, config: Config) -> Record:
    """Return the model of a record that passed the schema."""
    data = raw.data
    source = data["source"]
    fix = data.get("example_fix")
    when = data.get("when")
    analysis = data.get("analysis")
    return Record(
        id=data["id"],
        exception=data["exception"],
        message=data["message"],
        title=" ".join(data.get("title", "").split()) or default_title(data["message"]) or place_title(data),
        source=Source(
            repo=source.get("repo") or config.repo,
            commit=source["commit"],
            path=source["path"],
            line=int(source["line"]),
            function=source.get("function") or None,
            snippet=Snippet(int(source["snippet"]["start"]), source["snippet"]["code"]),
            guard=tuple(source.get("guard", ())),
            callers=tuple(Caller(c["path"], int(c["line"]), c["function"]) for c in source.get("callers", ())),
            names=tuple((name, Definition(d["path"], int(d["line"]), d["kind"], d.get("help") or None,
                                          d.get("flag") or None))
                        for name, d in source.get("names", {}).items()),
        ),
        meaning=data.get("meaning") or None,
        solutions=tuple(s for s in data.get("solutions", ()) if s.strip()),
        example_fix=ExampleFix(
            before=fix["before"],
            after=fix["after"],
            language=fix.get("language") or "shell",
            code=fix.get("code") or None,
            code_language=fix.get("code_language") or "python",
            note=fix.get("note") or None,
            check=_check(fix.get("check")),
            verified=Verified(fix["verified"]["commit"], fix["verified"]["date"]) if "verified" in fix else None,
        ) if fix else None,
        when=When(when.get("trigger") or None, when.get("situations") or None)
        if when and (when.get("trigger") or when.get("situations")) else None,
        related=tuple(dict.fromkeys(data.get("related", ()))),
        tags=tuple(sorted(set(data.get("tags", ())))),
        analysis=Analysis(analysis["by"], analysis.get("date"), analysis.get("note") or None,
                          analysis.get("commit"), analysis.get("model"),
                          Reviewed(analysis["reviewed"]["by"], analysis["reviewed"]["date"])
                          if "reviewed" in analysis else None)
        if analysis else None,
        status=data.get("status", "active"),
        variants=tuple(Variant(v["message"], v["kind"], v.get("until")) for v in data.get("variants", ())),
        review=Review(data["review"]["since"], data["review"]["why"]) if "review" in data else None,
        history=tuple(Release(h["release"], h["commit"], h["change"]) for h in data.get("history", ())),
        file=raw.file,
    )


def _check(check: dict[str, Any] | None) -> Check | None:
    if check is None:
        return None
    return Check(tuple(sorted(check.get("files", {}).items())), check["before"], check["after"])


def default_title(message: str, limit: int = 80) -> str:
    """Return the message as a plain one-line title: placeholders as `…`, no backticks, cut at a word boundary.

    The title is shown as text (lists, `<title>`, link previews, search results), never as
    Markdown, so the backticks that quote names in messages would show as they are.
    """
    text = "".join(PLACEHOLDER_MARK if hole else part for part, hole in template_parts(message))
    text = text.replace("`", "")
    if text.count(PLACEHOLDER_MARK) > 1:
        text = _MARKS.sub(PLACEHOLDER_MARK, text)
    first = " ".join(text.split())
    if _ALNUM.search(first) is None:
        return ""
    if len(first) <= limit:
        return first
    cut = first[:limit].rsplit(" ", 1)[0]
    return (cut if len(cut) > limit // 2 else first[:limit]).rstrip(" ,.;:") + "…"


def place_title(data: dict[str, Any]) -> str:
    """Return the title of a record whose message has no word to show: where it is raised, as a reader says it
    (`RuntimeError in ModelRunner.load_weights`), not its id."""
    source = data["source"]
    return f"{data['exception']} in {source.get('function') or source['path']}"


def _closest(value: str, choices: list[str]) -> str | None:
    hint = did_you_mean(value, choices)
    return hint if hint and hint.startswith("did you mean") else None


def _shorten(value: str, limit: int = 60) -> str:
    return value if len(value) <= limit else value[:limit] + "…"
