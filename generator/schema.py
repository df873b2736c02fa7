"""The record format as a JSON Schema: published on the site, and read by the validator.

The validator interprets this schema (the subset of keywords used here), so
the two can never disagree; rules that span records or files (id equals file
name, `line` inside the snippet, related ids exist) are checked in
`validate.py` on top.
"""

from __future__ import annotations

from typing import Any

SCHEMA_ID = "api/schema.json"


def whole(body: str) -> str:
    """Return a pattern that matches only a whole string, under Python's and ECMA-262's rules alike.

    JSON Schema's `pattern` is a search, so it needs `^` and `$`; but Python's `$` also matches
    before a final line break, which `(?!\\n)` rules out. The validator applies every pattern
    with `re.fullmatch` as well.
    """
    return f"^(?:{body})$(?!\\n)"


CONTROL = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029"
"""Control characters (C0, DEL, C1) and the Unicode line and paragraph separators, for a character class."""
ID = r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?"
"""A record id, unanchored: lowercase letters and digits, inner hyphens, at most 64 characters."""
ID_PATTERN = whole(ID)
DOTTED_NAME = whole(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_SEGMENT = rf"(?!\.\.?(?:/|$))[^/\\{CONTROL}]+"
SAFE_PATH = whole(rf"{_SEGMENT}(?:/{_SEGMENT})*")
"""Relative POSIX path: segments that are neither empty, `.` nor `..`, without backslash or control characters."""
_REPO_PART = r"(?!\.\.?/|\.\.?$)[A-Za-z0-9_.-]+"
REPO = whole(rf"{_REPO_PART}/{_REPO_PART}")
COMMIT = whole(r"[0-9a-f]{7,40}")
DATE = whole(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
TAG = whole(r"[a-z0-9-]{1,40}")
ONE_LINE = whole(f"[^{CONTROL}]*")
"""Any text without control characters or line breaks: a name."""
MAX_LINE = 999_999_999
"""The largest line number a record may give."""


def _string(description: str, **rules: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **rules}


def _object(properties: dict[str, Any], required: list[str], description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


MARKDOWN = {"type": "string", "description": "Markdown (CommonMark with tables)."}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "errorsite error record, version 1.1",
    **_object(
        {
            "$schema": _string("Ignored by errorsite; lets editors validate the record."),
            "id": _string(
                "lowercase letters, digits and inner hyphens, at most 64 characters",
                pattern=ID_PATTERN,
            ),
            "exception": _string(
                "a dotted Python name such as ValueError or pkg.errors.ConfigError",
                pattern=DOTTED_NAME,
            ),
            "message": _string(
                "the message template, 1 to 4,000 characters", minLength=1, maxLength=4000
            ),
            "title": _string("a short title, at most 120 characters", maxLength=120),
            "source": _object(
                {
                    "repo": _string(
                        "owner/name", pattern=REPO
                    ),
                    "commit": _string("7 to 40 lowercase hex digits", pattern=COMMIT),
                    "path": _string(
                        "a relative POSIX path: no leading /, no empty, . or .. segment, no backslash, "
                        "no control character",
                        pattern=SAFE_PATH,
                        minLength=1,
                    ),
                    "line": {"type": "integer", "minimum": 1, "maximum": MAX_LINE, "description": "line of the raise"},
                    "function": _string("qualified name of the enclosing function, in one line", pattern=ONE_LINE),
                    "snippet": _object(
                        {
                            "start": {
                                "type": "integer",
                                "minimum": 1,
                                "maximum": MAX_LINE,
                                "description": "file line number of the first line",
                            },
                            "code": _string("the file's lines at the commit, verbatim"),
                        },
                        ["start", "code"],
                        "the lines around the raise",
                    ),
                    "guard": {
                        "type": "array",
                        "description": "written by extract: the conditions that hold when the raise runs, outermost "
                        "first, as ast.unparse writes them",
                        "items": _string("a condition (`x is None`, `not (test)`, `except E`, `case <pattern>`)",
                                         minLength=1),
                    },
                    "callers": {
                        "type": "array",
                        "description": "written by extract: where the library calls the raising function, nearest "
                        "to a public name first",
                        "maxItems": 5,
                        "items": _object(
                            {
                                "path": _string("a relative POSIX path: no leading /, no empty, . or .. segment, no "
                                                "backslash, no control character", pattern=SAFE_PATH, minLength=1),
                                "line": {"type": "integer", "minimum": 1, "maximum": MAX_LINE,
                                         "description": "line of the call"},
                                "function": _string("qualified name of the calling function, in one line; empty at "
                                                    "module level", pattern=ONE_LINE),
                            },
                            ["path", "line", "function"],
                            "a call of the raising function",
                        ),
                    },
                    "names": {
                        "type": "object",
                        "description": "written by extract: for each name the message or guard reads, where a user "
                        "sets it",
                        "propertyNames": _string("a dotted Python name such as cfg.page_size", pattern=DOTTED_NAME),
                        "additionalProperties": _object(
                            {
                                "path": _string("a relative POSIX path: no leading /, no empty, . or .. segment, no "
                                                "backslash, no control character", pattern=SAFE_PATH, minLength=1),
                                "line": {"type": "integer", "minimum": 1, "maximum": MAX_LINE,
                                         "description": "line of the definition"},
                                "kind": {"type": "string", "enum": ["parameter", "option", "constant"],
                                         "description": "parameter, option (a command-line option, a field or "
                                         "settings key) or constant"},
                                "help": _string("the definition's own help text or docstring"),
                                "flag": _string("for a command-line option, the flag as a user types it "
                                                "(--num-workers)", pattern=ONE_LINE, minLength=1),
                            },
                            ["path", "line", "kind"],
                            "where a user sets the name",
                        ),
                    },
                },
                ["commit", "path", "line", "snippet"],
                "where the error is raised, pinned to one commit",
            ),
            "meaning": MARKDOWN,
            "solutions": {
                "type": "array",
                "description": "numbered steps, most likely fix first",
                "items": MARKDOWN,
            },
            "example_fix": _object(
                {
                    "before": _string("plain text"),
                    "after": _string("plain text"),
                    "language": _string("a Pygments lexer name (default shell)", pattern=ONE_LINE),
                    "code": _string("code that shows the check or the fix"),
                    "code_language": _string("a Pygments lexer name (default python)", pattern=ONE_LINE),
                    "note": MARKDOWN,
                    "check": _object(
                        {
                            "files": {
                                "type": "object",
                                "description": "files to create in the check's folder: relative path -> text",
                                "propertyNames": _string(
                                    "a relative POSIX path: no leading /, no empty, . or .. segment, no backslash, "
                                    "no control character",
                                    pattern=SAFE_PATH,
                                ),
                                "additionalProperties": _string("the file's text"),
                            },
                            "before": _string("a shell command line that fails with this error", minLength=1),
                            "after": _string("a shell command line that does not show this error", minLength=1),
                        },
                        ["before", "after"],
                        "a runnable proof of the example, run by errorsite verify",
                    ),
                    "verified": _object(
                        {
                            "commit": _string("the record's pin when the check held", pattern=COMMIT),
                            "date": _string("a date as YYYY-MM-DD", pattern=DATE),
                            "by": {
                                "type": "string",
                                "enum": ["errorsite verify"],
                                "description": "written by errorsite verify",
                            },
                        },
                        ["commit", "date", "by"],
                        "written by errorsite verify when the check held",
                    ),
                },
                ["before", "after"],
                "an example fix",
            ),
            "when": _object(
                {"trigger": MARKDOWN, "situations": MARKDOWN}, [], "when it happens"
            ),
            "related": {
                "type": "array",
                "description": "ids of hand-picked related errors",
                "items": _string("an id of another record", pattern=ID_PATTERN),
            },
            "tags": {
                "type": "array",
                "description": "subsystems and features",
                "items": _string(
                    "lowercase letters, digits and hyphens, at most 40 characters",
                    pattern=TAG,
                ),
            },
            "analysis": _object(
                {
                    "by": _string("human, ai-assisted, or a name, in one line", minLength=1, pattern=ONE_LINE),
                    "date": _string("a date as YYYY-MM-DD", pattern=DATE),
                    "commit": _string("the commit the prose was written against", pattern=COMMIT),
                    "model": _string("the model that drafted the prose, in one line", minLength=1, pattern=ONE_LINE),
                    "reviewed": _object(
                        {
                            "by": _string("the reviewer's name, in one line", minLength=1, pattern=ONE_LINE),
                            "date": _string("a date as YYYY-MM-DD", pattern=DATE),
                        },
                        ["by", "date"],
                        "a person read the drafted prose against the code and stands by it",
                    ),
                    "note": _string("a note on how the prose was written"),
                },
                ["by"],
                "provenance of the prose",
            ),
            "variants": {
                "type": "array",
                "description": "other wordings of the same error from the same place",
                "items": _object(
                    {
                        "message": _string(
                            "the other wording's template, 1 to 4,000 characters", minLength=1, maxLength=4000
                        ),
                        "kind": {
                            "type": "string",
                            "enum": ["plural", "alternative", "earlier"],
                            "description": "plural (ngettext), alternative (another branch) or earlier (an older wording)",
                        },
                        "until": _string("the first commit that no longer raises this wording", pattern=COMMIT),
                    },
                    ["message", "kind"],
                    "another wording of the message",
                ),
            },
            "review": _object(
                {
                    "since": _string("the commit at which the code changed", pattern=COMMIT),
                    "why": {
                        "type": "string",
                        "enum": ["message changed", "code changed", "moved"],
                        "description": "what extract saw change",
                    },
                },
                ["since", "why"],
                "written by extract: the prose may no longer be right; remove after reading it again",
            ),
            "history": {
                "type": "array",
                "description": "the releases that added, reworded or no longer raised it, oldest first; written by extract --history",
                "items": _object(
                    {
                        "release": _string("the release's git tag, in one line", minLength=1, pattern=ONE_LINE),
                        "commit": _string("the commit the tag names", pattern=COMMIT),
                        "change": {
                            "type": "string",
                            "enum": ["added", "changed", "removed"],
                            "description": "added (first raised, or raised again), changed (its wording) or removed",
                        },
                    },
                    ["release", "commit", "change"],
                    "one release in the error's history",
                ),
            },
            "status": {
                "type": "string",
                "enum": ["active", "removed"],
                "description": "removed: no longer raised as of a later commit",
            },
        },
        ["id", "exception", "message", "source"],
        "One error a library raises, and the prose that explains it.",
    ),
}
