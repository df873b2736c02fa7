"""What a user pasted, read: the message in each form it may take, its exception name and traceback.

Tracebacks, chained tracebacks, exception lines, log lines and a CLI's usage-then-error
paragraphs (docs/matching.md, Paste forms).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .template import MAX_EXPR

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_FRAME = re.compile(r'^[ \t]*File "([^"]+)", line ([0-9]+)(?:, in ([^ \t]+))?')
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):")
_EXCEPTION = re.compile(r"^((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*):(?:[ \t]+|$)")
_SEP = re.compile(r"[ \t]*(?:[:|]|-(?![^ \t]))?[ \t]*")
_BRACKET = re.compile(r"\[[^\]\r\n]{1,80}\]")
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}:[0-9]{2}:[0-9]{2}|DEBUG|INFO|WARN|ERROR|CRITICAL|FATAL")
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?)?"
    r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
)
_LEVEL = re.compile(r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?=[ \t:|-]|$)")
_LOGGER = re.compile(r"in [A-Za-z_][A-Za-z0-9_.]*:|[A-Za-z_][A-Za-z0-9_.]*(?::(?=[^ \t])|(?=[ \t]+-[ \t]))")
_URLISH = re.compile(r"[^ \t\n\r\f\v\xa0'\"<>()\[\]{}`]+")
"""A run of text that may be a URL: no whitespace, quotes or brackets."""
_WEB = re.compile(r"https?://")
_SUGGESTION = re.compile(r"[ \t]+(?:Did you mean[^\n]*\?|\(Possible options: [^\n]*\))[ \t]*\Z")
"""A suggestion appended to a message: `Did you mean ...?` (Python, click, ...), click's `(Possible options: ...)`."""
_GROUP = re.compile(r"^[ \t]*\+ Exception Group Traceback \(most recent call last\):", re.M)
_GROUP_SEPARATOR = re.compile(r"^[ \t]*\+(?:-\+)*-+(?: [0-9]+ -+| \.\.\. -+| and [0-9]+ more exceptions -+)?[ \t]*$")
"""A line between the sub-exceptions of a group (`+-+---- 1 ----`, `+---- 2 ----`, the closing `+------`)."""
_GROUP_OWN = re.compile(r"\([0-9]+ sub-exceptions?\)[ \t]*\Z")
"""The end of a group's own message: its part comes after the sub-exceptions'."""
_MARGIN = re.compile(r"^[ \t]*(?:[|+](?:[ \t]|$))+")
"""The `|` margins (and the `+` of a group's header) in front of a line of a group's output."""
_STRING = re.compile(r"'(?:[^'\\\n]|\\[^\n])*'|\"(?:[^\"\\\n]|\\[^\n])*\"")
"""A Python string literal as a repr writes it, on one line."""
_KEY = re.compile(r"[ \t]*:")
"""What follows a dict's key."""
_ESCAPE = re.compile(r"\\([^\n])")
MAX_HELD = 16
"""At most this many messages of an error that holds others are searched."""
MIN_WRAP = 40
"""A paste whose longest lines are this long or longer may have been cut at a terminal's width."""


def strip_log(line: str) -> tuple[str, str]:
    """Return `line` without a log prefix (timestamp, level, logger), and without it up to a logger name only.

    What looks like a logger name may be the message's start (`ERROR: file:// scheme ...`).
    """
    pos = 0
    seen = False
    logger = -1
    while True:
        sep = _SEP.match(line, pos)
        pos = sep.end() if sep else pos
        m = _BRACKET.match(line, pos)
        if m:
            seen = seen or bool(_STAMP.search(m.group()))
            pos = m.end()
            continue
        m = _TIMESTAMP.match(line, pos) or _LEVEL.match(line, pos)
        named = not m and seen
        if named:
            m = _LOGGER.match(line, pos)
        if not m or m.end() == pos:
            break
        if named and logger < 0:
            logger = pos
        seen = True
        pos = m.end()
    if not seen:
        return line, line
    return line[pos:], line[logger if logger >= 0 else pos:]


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a pasted traceback."""

    path: str
    """The file as the traceback names it, `\\` read as `/`."""
    line: int
    function: str
    """The function's name as the traceback shows it ("" when the line has none)."""


@dataclass(frozen=True, slots=True)
class Paste:
    """What a user pasted, read: the message in each form it may take, and its context."""

    forms: tuple[str, ...]
    """Candidate messages, most cleaned first, duplicates removed; the last is the text as pasted."""
    exception: str
    """The exception name in front of the message ("" when none)."""
    frames: tuple[Frame, ...]
    """The frames of the last traceback, outermost first (of the whole text when it has no header)."""
    firsts: tuple[int, ...] = (0,)
    """Where in `forms` each reading of the paste (its cut lines joined, as pasted) starts: its most cleaned form."""
    causes: tuple[tuple[Frame, ...], ...] = ()
    """The frames of each earlier, chained traceback, the one just before the last first: where the error
    that the last one handled or wraps was raised."""


def _named(head: str, rest: list[str]) -> tuple[str, list[str]]:
    """Return the exception name in front of `head` ("" when none) and the messages after it."""
    m = _EXCEPTION.match(head)
    if not m:
        return "", []
    exception = m.group(1)
    lines = [head[m.end():]] + rest
    message = "\n".join(lines)
    # KeyError shows its message as a repr, in quotes.
    if exception.split(".")[-1] == "KeyError" and len(message) >= 2 and message[0] in "'\"" and message[-1] == message[0]:
        return exception, [message[1:-1], message]
    before = _before_details(lines)
    return exception, [message] if before is None else [message, before]


def _before_details(lines: list[str]) -> str | None:
    """Return the lines of a message before its details, or None when it has none.

    An exception that prints details after its message, past a blank line (jsonschema's
    ValidationError: the schema and the instance) or indented under it (PyYAML's marks, a parser's
    source line and caret), is read by the lines before them too: after the whole message, which a
    value with a line break in it may make look the same.
    """
    gap = next((i for i in range(1, len(lines)) if _blank(lines[i]) or lines[i][0] in " \t"), 0)
    if gap and not all(map(_blank, lines[:gap])):
        return "\n".join(lines[:gap])
    return None


def _frames(lines: list[str]) -> tuple[Frame, ...]:
    """Return the traceback frames among `lines`, outermost first."""
    return tuple(Frame(m.group(1).replace("\\", "/"), int(m.group(2)), m.group(3) or "")
                 for m in map(_FRAME.match, lines) if m)


def _blank(line: str) -> bool:
    return not line.strip(" \t")


def _body(lines: list[str], traceback: bool) -> list[str]:
    """Return the lines that carry the message: after a traceback's frames and code, without blank edges."""
    body = lines
    if traceback:
        at = next((i for i, line in enumerate(lines) if not _blank(line) and line[0] not in " \t"), len(lines))
        body = lines[at:]
        while body and _blank(body[-1]):
            body = body[:-1]
    while body and _blank(body[0]):
        body = body[1:]
    return body


def _last_paragraph(body: list[str]) -> tuple[str, list[str]]:
    """Return the exception name and messages of the body's last paragraph, when it follows a blank line.

    A CLI prints its usage, a blank line, then `Error: message`: the last paragraph is the error.
    """
    filled = [i for i, line in enumerate(body) if not _blank(line)]
    ends = filled[-1] + 1
    gap = max((i for i in range(ends) if _blank(body[i])), default=-1)
    if gap <= 0:
        return "", []
    exception, forms = _named(body[gap + 1], body[gap + 2:ends])
    if not exception:
        return "", []
    return exception, forms + ["\n".join(body[gap + 1:ends])]


def _unwrap(text: str) -> str | None:
    """Return `text` with a terminal's hard wrap undone, or None when it has none.

    A terminal that cuts long lines cuts them at its width: a line of the paste's greatest
    length (at least MIN_WRAP code points) continues on the next line, unless that one starts
    with whitespace or is blank (then the break reads as the space it may have been anyway), or
    it is a traceback's header or frame line (`python -c` prints a frame with no code under it).
    """
    lines = _LINE_BREAK.split(text)
    width = max(len(line) for line in lines)
    out = lines[0]
    joined = False
    for before, line in zip(lines, lines[1:]):
        cut = (width >= MIN_WRAP and len(before) == width and line[:1] not in ("", " ", "\t")
               and not _FRAME.match(before) and not _TRACEBACK.search(before))
        joined = joined or cut
        out += ("" if cut else "\n") + line
    return out if joined else None


def read_paste(text: str) -> Paste:
    """Return the candidate messages in `text`, its exception name and its traceback frames.

    A paste that a terminal hard-wrapped is read with its cut lines joined first, then as pasted.
    """
    joined = _unwrap(text)
    paste = _read(text)
    if joined is None:
        return paste
    first = _read(joined)
    forms = tuple(dict.fromkeys(first.forms + paste.forms))
    return Paste(forms, first.exception, first.frames, (0, forms.index(paste.forms[0])), first.causes)


def _without_suggestion(message: str) -> str | None:
    """Return the message without a suggestion a library appended to its last line, or None when it has none."""
    start = message.rfind("\n") + 1
    suggestion = _SUGGESTION.search(message, start) if len(message) - start <= MAX_EXPR else None
    return message[:suggestion.start()] if suggestion else None


def _read(text: str) -> Paste:
    """Return the candidate messages in `text`, its exception name and its traceback frames, lines as they are."""
    lines = _LINE_BREAK.split(text)
    starts = [i for i, line in enumerate(lines) if _TRACEBACK.search(line)]
    # Lines of an earlier, chained traceback belong to another exception; its frames are where
    # the error the last one handled or wraps was raised.
    last = lines[starts[-1] + 1:] if starts else lines
    frames = _frames(last)
    causes = tuple(_frames(lines[a + 1:b]) for a, b in zip(starts[-2::-1], starts[:0:-1]))
    body = _body(last, bool(starts))
    if not body:
        return Paste((text,), "", frames, causes=causes)
    head, named = strip_log(body[0])
    exception, forms = _named(head, body[1:])
    if not starts:
        tail_exception, tail_forms = _last_paragraph(body)
        if tail_exception:
            exception, forms = tail_exception, tail_forms + forms
    forms.append("\n".join([head] + body[1:]))
    if not exception:
        # A message pasted without its class, with a parser's source line and caret indented under it.
        before = _before_details([head] + body[1:])
        if before is not None:
            forms.append(before)
    forms.append("\n".join([named] + body[1:]))
    forms.append(text)
    # A suggestion a library appends to the message (`Did you mean --mode?`) is no part of its template.
    bare = _without_suggestion(forms[0])
    if bare is not None:
        forms.insert(0, bare)
    return Paste(tuple(dict.fromkeys(forms)), exception, frames, causes=causes)


def group_members(text: str) -> list[str] | None:
    """Return the parts of an exception group's output, each read as a paste of its own: each
    sub-exception's, then the groups' own (`ExceptionGroup: ... (2 sub-exceptions)`); None when the
    text is no exception group's output.

    Python prints a group as `+ Exception Group Traceback (most recent call last):`, with the
    sub-exceptions under separator lines (`+---------------- 1 ----------------`), each line of
    them behind a `|` margin (one more for each nested group).
    """
    if not _GROUP.search(text):
        return None
    parts: list[list[str]] = [[]]
    for line in _LINE_BREAK.split(text):
        if _GROUP_SEPARATOR.match(line):
            parts.append([])
        else:
            parts[-1].append(_MARGIN.sub("", line))
    members = [joined for joined in ("\n".join(p).strip("\n") for p in parts) if joined.strip()]
    return sorted(members, key=lambda member: bool(_GROUP_OWN.search(member)))


def page_ids(text: str, base_url: str) -> set[str]:
    """Return the ids of the pages under `base_url` whose URL the text contains (docs/matching.md, Links)."""
    site = base_url.split("://", 1)[1] if "://" in base_url else ""
    path = site[site.find("/"):] if site else base_url
    found = set()
    for url in _URLISH.findall(text) if "errors/" in text else ():
        url = url.rstrip(".,;:!?").split("#")[0].removesuffix("/index.html").removesuffix("/")
        web = _WEB.match(url)
        prefix = site if web else path
        rest = url[web.end():] if web else url
        if prefix and rest.startswith(prefix + "errors/"):
            found.add(rest[len(prefix) + 7:])
    return found


def held_messages(text: str) -> list[str] | None:
    """Return the messages an error that aggregates others prints as a dict or list of them (marshmallow's
    `{'age': ['Not a valid integer.']}`), each as a paste of its own behind the pasted exception name, in order,
    each once; None when the pasted message is no such structure (docs/matching.md, Messages an error holds).

    A string that a colon follows is a key (a field's name), not a message.
    """
    paste = read_paste(text)
    message = paste.forms[0].strip(" \t\r\n")
    if message[:1] not in ("{", "[") or not _one_structure(message):
        return None
    found = []
    for literal in _STRING.finditer(message):
        if not _KEY.match(message, literal.end()):
            value = _ESCAPE.sub(lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), literal.group()[1:-1])
            if value.strip(" \t"):
                found.append(value)
    if not found:
        return None
    name = f"{paste.exception}: " if paste.exception else ""
    return [name + value for value in list(dict.fromkeys(found))[:MAX_HELD]]


def _one_structure(message: str) -> bool:
    """Return whether the message is one bracketed structure: the bracket it starts with closes at its end,
    string literals read whole (`['tea', 1] is not of type 'object'` is none)."""
    depth = 0
    i = 0
    while i < len(message):
        ch = message[i]
        if ch in "'\"":
            literal = _STRING.match(message, i)
            if literal is None:
                return False
            i = literal.end()
            continue
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
            if depth <= 0 and i < len(message) - 1:
                return False
        i += 1
    return depth == 0
