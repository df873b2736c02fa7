"""Site settings: `site.toml` values checked, then command-line overrides applied."""

from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Iterator
from typing import Any

from .model import Config, DraftSettings, HistorySettings, SourceSettings, VerifySettings
from .problems import Invalid, Problem, did_you_mean
from .schema import CONTROL, ID_PATTERN, REPO

TOML_TYPES = {int: "an integer", float: "a float", bool: "a boolean", list: "an array", dict: "a table"}
KEYS = ("title", "base_url", "repo", "source_url", "issue_url", "edit_url", "cname", "redirects", "source", "verify",
        "history", "draft")
TABLES: dict[str, dict[str, type]] = {
    "source": {"include": list, "exclude": list, "asserts": bool, "warnings": bool, "ids": str},
    "verify": {"setup": str, "timeout": int},
    "history": {"tags": str},
    "draft": {"endpoint": str, "model": str, "key_env": str, "concurrency": int, "timeout": int},
}
"""The keys of each settings table, with the TOML type each value must have."""
ID_RULES = ("words", "hash")
"""The values of `[source] ids`: new ids made from the message's words, or from a digest."""
URL_FIELDS = {
    "source_url": ("repo", "commit", "path", "line"),
    "issue_url": ("repo", "title", "id", "url"),
    "edit_url": ("repo", "id"),
}
"""The placeholders each URL pattern may use."""
MAX_TIMEOUT = 86_400
"""The longest `[verify] timeout`, in seconds: a day."""
SETTING_TYPES = {dict: "a table", list: "an array of strings", bool: "true or false", str: "a string",
                 int: "a whole number of {unit} from 1 to " + f"{MAX_TIMEOUT:,}"}
"""What a settings table, and a value of each type in one, must be, as the error says it."""
CONTROL_CHARACTER = re.compile(f"[{CONTROL}]")
SITE_URL = re.compile(r"(?i:https?)://(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(/.*)?", re.S)
"""An http(s) URL with a host and an optional port; group 1 is its path."""
URL_PATH = re.compile(r"[A-Za-z0-9._~!$&()*+,;=:@%/-]*")
"""The characters a URL path may hold as they are; anything else must be percent-encoded."""
HOST_NAME = re.compile(r"(?=.{1,253}\Z)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")


def settings_to_config(settings: dict[str, Any], file: str) -> tuple[Config, list[Problem]]:
    """Return the settings as a Config, and every problem found in them."""
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, value in sorted(settings.items()):
        if key == "redirects" and isinstance(value, dict):
            values[key] = tuple(_each_redirect(value, file, problems))
            continue
        if key in TABLES:
            values[key] = _table(key, value, file, problems)
            continue
        try:
            values[key] = _setting(key, value)
        except Invalid as error:
            problems.append(Problem.of(file, f"/{key}", error))
    config = replace(Config(), **values)
    return replace(config, base_url=_slashed(config.base_url)), problems


def with_base_url(config: Config, base_url: str) -> Config:
    """Return `config` served at `base_url` (checked like the setting), which always ends with a slash."""
    check_base_url(base_url)
    return replace(config, base_url=_slashed(base_url))


def _slashed(base_url: str) -> str:
    return base_url if base_url.endswith("/") else base_url + "/"


def check_base_url(value: str) -> None:
    """Raise unless `value` is an http(s) URL with a host, or a path from `/`, whose path is a normal one."""
    _one_line(value)
    found = SITE_URL.fullmatch(value)
    if not value.startswith("/") and found is None:
        raise Invalid(
            f"base URL {value!r} must be an http or https URL with a host, or a path starting with /",
            hint="for example https://owner.github.io/repo/ or /docs/errors/",
            page="base-url-not-http",
        )
    path = value if found is None else found.group(1) or "/"
    segments = path.split("/")
    if path.startswith("//") or "." in segments or ".." in segments or not URL_PATH.fullmatch(path):
        raise Invalid(
            f"the path of base URL {value!r} is not a plain path",
            hint="one / at its start, no . or .. segment, no ? or #, and other characters percent-encoded; "
            "a path that starts with // names another host",
            page="base-url-bad-path",
        )


def check_endpoint(value: str) -> None:
    """Raise unless `value` is an http(s) URL with a host: where `errorsite draft` sends its requests."""
    found = SITE_URL.fullmatch(value)
    if found is None or not URL_PATH.fullmatch(found.group(1) or "/"):
        raise Invalid(
            f"draft endpoint {value!r} must be an http or https URL with a host",
            hint="the base URL of an OpenAI-compatible API, such as http://127.0.0.1:8080/v1 "
            "(errorsite adds /chat/completions)",
            page="draft-endpoint-not-http",
        )


def _one_line(value: str) -> None:
    found = CONTROL_CHARACTER.search(value)
    if found:
        raise Invalid(
            f"holds the control character {found.group()!r} at position {found.start()}",
            hint="a setting is one line of text: no line break, tab or other control character",
            page="setting-control-character",
        )


def _setting(key: str, value: Any) -> Any:
    _known_key(key, KEYS, "")
    if key == "redirects":
        raise Invalid(
            "must be a table of old id = new id",
            hint='write a [redirects] table with lines like old-id = "new-id"',
            page="redirects-not-a-table",
        )
    if not isinstance(value, str):
        raise Invalid(
            f"must be a string, got {TOML_TYPES.get(type(value), type(value).__name__)}",
            hint=f'write {key} = "..."',
            page="setting-not-a-string",
        )
    _one_line(value)
    if key == "repo" and not re.fullmatch(REPO, value):
        raise Invalid(
            f"must be owner/name, got {value!r}",
            hint='for example repo = "octo-org/octo-lib"',
            page="setting-repo-format",
        )
    if key in URL_FIELDS:
        _url_pattern(value, URL_FIELDS[key])
    if key == "base_url":
        check_base_url(value)
    if key == "cname" and not HOST_NAME.fullmatch(value):
        raise Invalid(
            f"cname {value!r} must be a host name",
            hint='letters, digits, hyphens and dots, without scheme or path: cname = "errors.example.org"',
            page="cname-not-a-host",
        )
    return value


def _known_key(key: str, keys: tuple[str, ...], where: str) -> None:
    if key not in keys:
        raise Invalid(f"unknown setting {key!r}{where}", hint=did_you_mean(key, keys), page="unknown-setting")


TABLE_KINDS: dict[str, type[SourceSettings | VerifySettings | HistorySettings | DraftSettings]] = {
    "source": SourceSettings, "verify": VerifySettings, "history": HistorySettings, "draft": DraftSettings}
"""The settings each table makes."""


def _table(name: str, value: Any, file: str,
           problems: list[Problem]) -> SourceSettings | VerifySettings | HistorySettings | DraftSettings:
    """Return the `[source]`, `[verify]`, `[history]` or `[draft]` table's settings, adding a problem for each bad key."""
    kind = TABLE_KINDS[name]
    try:
        _check_type(value, dict, f"write a [{name}] table")
    except Invalid as error:
        problems.append(Problem.of(file, f"/{name}", error))
        return kind()
    values: dict[str, Any] = {}
    for key, item in sorted(value.items()):
        try:
            values[key] = _table_value(name, key, item)
        except Invalid as error:
            problems.append(Problem.of(file, f"/{name}/{key}", error))
    return kind(**values)


def _table_value(table: str, key: str, value: Any) -> Any:
    keys = TABLES[table]
    _known_key(key, tuple(keys), f" in [{table}]")
    expected = keys[key]
    _check_type(value, expected, f"see [{table}] in the record format",
                "requests" if key == "concurrency" else "seconds")
    for text in value if expected is list else [value] if expected is str else []:
        _one_line(text)
    if (table, key) == ("source", "ids") and value not in ID_RULES:
        raise Invalid(f"must be one of {', '.join(map(repr, ID_RULES))}, got {value!r}",
                      hint=did_you_mean(value, ID_RULES), page="unknown-id-rule")
    if (table, key) == ("draft", "endpoint"):
        check_endpoint(value)
    return tuple(value) if expected is list else value


def _check_type(value: Any, expected: type, hint: str, unit: str = "seconds") -> None:
    """Raise unless `value` is of the settings type `expected`: a table, or a value in one."""
    fits = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if expected is list:
        fits = fits and all(isinstance(item, str) for item in value)
    if expected is int and fits and not 1 <= value <= MAX_TIMEOUT:
        fits = False
    if not fits:
        wanted = SETTING_TYPES[expected].format(unit=unit)
        raise Invalid(f"must be {wanted}, got {value!r}", hint=hint, page="setting-wrong-type")


def _url_pattern(value: str, names: tuple[str, ...]) -> None:
    try:
        example = value.format_map({name: "x" for name in names})
    except KeyError as error:
        raise Invalid(
            f"{value!r} has an unknown placeholder {{{error.args[0]}}}",
            hint="placeholders available here: " + ", ".join("{" + n + "}" for n in names),
            page="url-pattern-unknown-placeholder",
        ) from None
    except (ValueError, IndexError, AttributeError) as error:
        raise Invalid(
            f"{value!r} is not a valid URL pattern: {error}",
            hint="placeholders available here: " + ", ".join("{" + n + "}" for n in names),
            page="bad-url-pattern",
        ) from None
    if not example.startswith(("https://", "http://")):
        raise Invalid(
            f"{value!r} must be an http or https URL",
            hint="write the whole URL, starting with https://",
            page="url-pattern-not-http",
        )


def _each_redirect(table: dict[str, Any], file: str, problems: list[Problem]) -> Iterator[tuple[str, str]]:
    for old, new in sorted(table.items()):
        try:
            _redirect(old, new)
        except Invalid as error:
            problems.append(Problem.of(file, f"/redirects/{old}", error))
            continue
        yield old, new


def _redirect(old: str, new: Any) -> None:
    if not isinstance(new, str) or not re.fullmatch(ID_PATTERN, old) or not re.fullmatch(ID_PATTERN, new):
        raise Invalid(
            f"{old!r} = {new!r}: both sides must be record ids",
            hint='write old-id = "new-id"; ids are lowercase letters, digits and inner hyphens',
            page="redirect-not-an-id",
        )
