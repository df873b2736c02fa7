"""Ranking: every record a template or the words found, ordered by a named key; `search` itself.

docs/matching.md, Ranking and Results. The key's fields compare in the order they are declared,
greater first, and match.js compares the same fields in the same order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .index import Row, SearchIndex, Template, load_index
from .match import Form, Tier, TemplateMatch, composed, forms_of, match_row, value_form
from .paste import Frame, Paste, group_members, held_messages, page_ids, read_paste
from .text import WHITESPACE, tokenize
from .words import WordScores, query, word_scores

GENERIC_EXCEPTIONS = frozenset({"Error", "Exception", "Warning"})
"""Names programs print in front of a message that say nothing about its class (click's `Error: ...`)."""


@dataclass(frozen=True, slots=True, order=True)
class FrameHit:
    """Where a pasted traceback names a record's raise: depth of the innermost such frame (1 = outermost, 0 = none)."""

    at_line: int
    """A frame in the record's file at the record's line."""
    in_function: int
    """A frame in the record's file and function."""
    in_file: int
    """A frame in the record's file (path suffix: 2+ trailing components, or the whole path)."""
    suffix: int
    """The most trailing path components any such frame shares with the record's path."""


NO_FRAME = FrameHit(0, 0, 0, 0)


def _shared_suffix(mine: list[str], theirs: list[str]) -> int:
    """Return how many trailing path components two paths share."""
    n = 0
    while n < min(len(mine), len(theirs)) and mine[-1 - n] == theirs[-1 - n]:
        n += 1
    return n


def frame_hit(row: Row, frames: tuple[Frame, ...]) -> FrameHit:
    """Return where the paste's traceback names the row's raise."""
    if not frames or not row.path:
        return NO_FRAME
    mine = row.path.split("/")
    function = row.function.split(".")[-1] or "<module>"
    at_line = in_function = in_file = suffix = 0
    for depth, frame in enumerate(frames, 1):
        n = _shared_suffix(mine, frame.path.split("/"))
        if n < min(2, len(mine)):
            continue
        in_file, suffix = depth, max(suffix, n)
        if frame.line == row.line:
            at_line = depth
        if frame.function.split(".")[-1] == function:
            in_function = depth
    return FrameHit(at_line, in_function, in_file, suffix)


@dataclass(frozen=True, slots=True, order=True)
class RankKey:
    """How a result ranks: fields compare in order, greater first; equal keys go by id."""

    linked: bool
    """The paste contains the URL of the record's page: the page the message itself names."""
    raised: bool
    """The pasted traceback's innermost frame that is at any record's raise is at this one's (see `raised_rows`):
    the frame names the raise, whatever the message's words."""
    tier: Tier
    """How the result accounts for the paste."""
    strength: float
    """Quality for template matches (the one explaining most of the paste with literal text wins,
    so a long message's template ranks above a short one that fits by swallowing the rest into a
    value); the word score for word results."""
    full: bool
    """A full match over a cut one."""
    cleaned: bool
    """A template that starts with a placeholder explains the most cleaned paste form, not only a form
    where the placeholder takes the exception name or log prefix (`{x}.{y} must be object` would take
    `pkg.` of `pkg.Error: foo must be object`); always true for a template that starts with a literal."""
    frames: FrameHit
    """Among records that explain the text alike, the traceback decides."""
    exception: bool
    """The pasted exception's last dotted part is the record's."""
    active: bool
    """Over removed."""
    written: bool
    """A written page over a skeleton."""
    words: float
    """For template matches, the word score: the most distinctive shared words."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A record that may be a result, with what found it."""

    row: int
    """The record's position in the index."""
    key: RankKey
    match: TemplateMatch | None
    """The template match, None for a word result."""
    confident: bool
    """The paste links to the record's page, or its template explains the paste and the paste's exception and
    traceback do not say otherwise."""


def _names_a_class(name: str) -> bool:
    """Return whether an exception name's last part is written like a class (CapWords)."""
    return "A" <= name[:1] <= "Z"


def other_class(paste: Paste, row: Row) -> str | None:
    """Return the pasted exception's class when it is a class other than the row's (a base class, a wrapper,
    a class a framework prints), else None."""
    theirs, mine = paste.exception.split(".")[-1], row.exception.split(".")[-1]
    differs = _names_a_class(theirs) and theirs not in GENERIC_EXCEPTIONS and _names_a_class(mine) and theirs != mine
    return theirs if differs else None


def _elsewhere(paste: Paste, row: Row, frames: FrameHit) -> bool:
    """Return whether the paste has a traceback and none of its frames, chained ones included, is in the row's file."""
    # A yielded error is raised by a caller elsewhere: its own file need not be in the traceback; nor need the file
    # of the message a class builds itself, when the paste names that class.
    if not paste.frames or row.yielded or frames.in_file or own_message(row) and _same_class(paste, row) \
            or _made_code(paste, row):
        return False
    return not any(frame_hit(row, cause).in_file for cause in paste.causes)


def _made_code(paste: Paste, row: Row) -> bool:
    """Return whether the paste's traceback holds, below its outermost frame (a user's `<string>` or `<stdin>`), a
    frame of no Python file (`<unknown>`, `<template>`, `page.html`, `<cattrs generated structure P>`) and passes
    through the row's package: code the library made, or a traceback it rewrote (Jinja shows the template's line and
    leaves out its own internal frames), which need not show the file that raised it."""
    package = _package(row.path)
    return bool(package) and any(not frame.path.endswith(".py") for frame in paste.frames[1:]) \
        and any(package in frame.path.split("/")[:-1] for frame in paste.frames)


def _package(path: str) -> str:
    """Return the top folder of a record's file (`jinja2` of `jinja2/compiler.py`, `attr` of `src/attr/_make.py`), or
    "" for a module at the top."""
    folders = path.split("/")[:-1]
    while folders and folders[0] in ("src", "lib"):
        folders.pop(0)
    return folders[0] if folders else ""


def own_message(row: Row) -> bool:
    """Return whether a record is the message its class builds itself (`UnexpectedCharError.__init__`): raised
    wherever the class is."""
    owner, _, method = row.function.rpartition(".")
    return method in ("__init__", "__str__", "format_message") and owner.split(".")[-1] == row.exception.split(".")[-1]


def _same_class(paste: Paste, row: Row) -> bool:
    """Return whether the pasted exception's last dotted part is the record's."""
    return bool(paste.exception) and paste.exception.split(".")[-1] == row.exception.split(".")[-1]


def _at_raise(row: Row, frame: Frame) -> bool:
    """Return whether a frame is at the row's raise: its file (2+ trailing path components) and line."""
    mine = row.path.split("/")
    return frame.line == row.line and _shared_suffix(mine, frame.path.split("/")) >= min(2, len(mine))


def relays(row: Row) -> bool:
    """Return whether a record's message is one placeholder: it passes on the text of an error it handled."""
    return row.templates[0].segments == [None]


@dataclass(frozen=True, slots=True)
class Lookups:
    """What every search of one index looks records up by, made once per index."""

    places: dict[tuple[str, str], list[str]]
    """(exception, wording) -> the ids of the records that raise it (see `same_message`)."""
    by_line: dict[int, list[int]]
    """Line -> the rows of records with a path whose raise is on that line of their file."""
    by_first: dict[str, list[int]]
    """First word -> the rows with a template (message or variant) whose first word it is."""


_LOOKUPS: dict[int, tuple[SearchIndex, Lookups]] = {}
"""The lookups of the last few indexes searched, by `id()`; each entry holds its index, so the id stays its own."""


def lookups(index: SearchIndex) -> Lookups:
    """Return the lookups of an index, made on its first search."""
    found = _LOOKUPS.get(id(index))
    if found is None or found[0] is not index:
        if len(_LOOKUPS) >= 8:
            _LOOKUPS.clear()
        by_line: dict[int, list[int]] = {}
        by_first: dict[str, list[int]] = {}
        for d, row in enumerate(index.rows):
            if row.path:
                by_line.setdefault(row.line, []).append(d)
            for first in dict.fromkeys(t.first for t in row.templates if t.first):
                by_first.setdefault(first, []).append(d)
        found = _LOOKUPS[id(index)] = (index, Lookups(same_message(index), by_line, by_first))
    return found[1]


def raised_rows(index: SearchIndex, paste: Paste) -> set[int]:
    """Return the rows whose raise the innermost frame of the pasted traceback that is at any record's raise is at.

    When all of them pass a handled error's text on (`raise X(str(e)) from e`), the chained
    traceback before it says where that error was raised, and is read the same way; when no
    frame of it is at a record's raise, the frame names no record: the text decides.
    """
    if not paste.frames:
        return set()
    by_line = lookups(index).by_line
    found: set[int] = set()
    for depth, frames in enumerate((paste.frames, *paste.causes)):
        inner = next((hit for frame in reversed(frames)
                      if (hit := {d for d in by_line.get(frame.line, ()) if _at_raise(index.rows[d], frame)})), set())
        if not inner:
            if depth:
                found = set()
            break
        found = inner
        if not all(relays(index.rows[d]) for d in inner):
            break
    return found


def _linked(index: SearchIndex, text: str) -> set[int]:
    """Return the rows whose page's URL under the index's `base_url` the text contains."""
    ids = page_ids(text, index.base_url)
    return {d for d, row in enumerate(index.rows) if row.id in ids} if ids else set()


def _candidate(index: SearchIndex, d: int, match: TemplateMatch | None, words: WordScores, paste: Paste,
               linked: bool, raised: bool) -> Candidate:
    """Return row `d` as a candidate, with its rank key."""
    row = index.rows[d]
    score = words.score.get(d, 0.0)
    exception = bool(paste.exception) and paste.exception.split(".")[-1] == row.exception.split(".")[-1]
    frames = frame_hit(row, paste.frames)
    if match is None:
        key = RankKey(linked, raised, Tier.WORDS, score, False, False, frames, exception, not row.removed,
                      row.written, 0.0)
        return Candidate(d, key, None, linked or raised)
    key = RankKey(linked, raised, match.tier, match.quality, match.end == "full", match.cleaned, frames, exception,
                  not row.removed, row.written, score)
    # A pasted class other than the record's (a base class, a wrapper) leaves a full match of the text the answer;
    # a template of one word (`Expected {expected}`) explains a message only under the record's own class, and never
    # inside the message its class builds around it, where the same word may be a value computed anywhere.
    explains = match.explains and not _elsewhere(paste, row, frames) and (
        other_class(paste, row) is None or match.whole) and not (
        _one_word(row, match) and (match.around >= 0 or not exception))
    return Candidate(d, key, match, linked or raised or explains)


def _one_word(row: Row, match: TemplateMatch) -> bool:
    """Return whether the template that matched has one word of literal text, or none: `expected int` is no
    message of `Expected {expected}` more than of any other library's `expected {type}`."""
    template = row.templates[0 if match.variant is None else match.variant + 1]
    return len(tokenize(" ".join(s for s in template.segments if s is not None))) < 2


def _matched(index: SearchIndex, forms: list[Form]) -> dict[int, TemplateMatch]:
    """Return the best template match of every row that has one."""
    # Every form's words: a form may join a word a terminal cut, and the whole paste need not be the last form.
    present = {w for form in forms for w, _, _ in tokenize(form.norm)}
    matched = {}
    for d, row in enumerate(index.rows):
        found = match_row(row, forms, present)
        if found:
            matched[d] = found
    return matched


def _word_rows(words: WordScores, limit: int) -> set[int]:
    """Return the rows that can be word results: only the best `limit` word scores (and their ties) can reach the top."""
    eligible = {d: s for d, s in words.score.items() if d in words.content}
    ranked = sorted(eligible.values(), reverse=True)
    floor = ranked[limit - 1] if 0 < limit <= len(ranked) else 0.0
    return {d for d, s in eligible.items() if s >= floor}


def _composed(index: SearchIndex, matched: dict[int, TemplateMatch], present: set[str], loose: bool
              ) -> dict[int, TemplateMatch]:
    """Return the rows whose template is a full match of a value of the full match of the message a class builds
    around another (its `__str__`, `__init__` or `format_message`), of the same class, as matches of the paste
    (docs/matching.md, Composed messages); `loose`: of any full match and any class (what a search of the
    index's fragments loads, whose rows know neither)."""
    by_first = lookups(index).by_first
    found: dict[int, TemplateMatch] = {}
    for r, around in sorted(matched.items()):
        row = index.rows[r]
        if around.end != "full" or not (loose or own_message(row)):
            continue
        for value in around.values:
            form = value_form(value)
            words = {w for w, _, _ in tokenize(form.norm)} & present
            for d in sorted({d for w in words for d in by_first.get(w, ())} - {r}):
                if not loose and index.rows[d].exception.split(".")[-1] != row.exception.split(".")[-1]:
                    continue
                inner = match_row(index.rows[d], [form], words)
                if inner is None or inner.end != "full":
                    continue
                match = composed(around, r, inner)
                if d not in found or match.fit > found[d].fit:
                    found[d] = match
    return found


def _candidates(index: SearchIndex, paste: Paste, forms: list[Form], words: WordScores, limit: int,
                linked: set[int], loose: bool = False) -> list[Candidate]:
    """Return every record the paste links to, its traceback names the raise of or a template matched (by itself
    or inside the message its class builds around it), and the word results that can reach the top `limit`."""
    matched = _matched(index, forms)
    present = {w for form in forms for w, _, _ in tokenize(form.norm)}
    for d, match in _composed(index, matched, present, loose).items():
        if d not in matched or match.fit > matched[d].fit:
            matched[d] = match
    raised = raised_rows(index, paste)
    rows = sorted(set(matched) | linked | raised | _word_rows(words, limit))
    found = [_candidate(index, d, matched.get(d), words, paste, d in linked, d in raised) for d in rows]
    # A message of one word inside the message its class builds may be a value computed anywhere as well as
    # what that raise passed: which of the two it was is a guess.
    guessed = {m.around for d, m in matched.items() if m.around >= 0 and _one_word(index.rows[d], m)}
    return [replace(c, confident=c.key.linked or c.key.raised) if c.row in guessed else c for c in found]


def _end_of(message: str, start: int, count: int) -> int:
    """Return the index in `message` after `count` normalised chars of literal text from `start`."""
    i = start
    while count > 0 and i < len(message):
        if message[i] in WHITESPACE:
            while i < len(message) and message[i] in WHITESPACE:
                i += 1
        else:
            i += 2 if message[i:i + 2] in ("{{", "}}", "%%") else 1
        count -= 1
    return i


def _template_spans(template: Template, covered: list[int]) -> list[list[int]]:
    """Return the ranges of `template.message` a match covered, the last cut where the match stopped."""
    literals = [s for s in template.segments if s is not None]
    spans = []
    for k, count in enumerate(covered):
        start, end = template.spans[2 * k], template.spans[2 * k + 1]
        if count:
            spans.append([start, end if count == len(literals[k]) else _end_of(template.message, start, count)])
    return spans


def _result(index: SearchIndex, found: Candidate, words: WordScores, paste: Paste, twins: list[Candidate],
            places: list[str]) -> dict[str, Any]:
    """Return one result as search gives it: `twins` are the records it stands for that raise its message as
    another exception, `places` every other record that raises it."""
    row = index.rows[found.row]
    match = found.match
    linked = found.key.linked
    shared = {"confident": found.confident, "linked": linked, "other_class": other_class(paste, row),
              "places": places, "twins": [index.rows[t.row].id for t in twins]}
    if match is None:
        spans = [[s, e] for w, s, e in tokenize(row.title) if w in words.shown and w not in index.stop]
        kind = ("link" if linked else "frame" if found.key.raised else "near" if found.row in words.near
                else "words")
        return {"id": row.id, "score": found.key.strength, "kind": kind, "values": [], "spans": spans,
                "variant": None, **shared}
    template = matched_template(row, match.variant)
    return {"id": row.id, "score": match.quality, "kind": "full" if match.end == "full" else "partial",
            "values": match.values, "spans": _template_spans(template, match.covered),
            "variant": match.variant, **shared}


def matched_template(row: Row, variant: int | None) -> Template:
    """Return the wording of a row that matched: its message (variant None) or that variant."""
    return row.templates[0 if variant is None else variant + 1]


def answer_places(lead: Row, variant: int | None, twins: list[Row],
                  places: Callable[[str, str], list[str]]) -> list[str]:
    """Return the ids of every other record an answer stands for, in id order: those that raise its wording (`places`
    of an exception and a wording) as its exception, and its twins and theirs (each wording of theirs that reads
    like the one that matched)."""
    segments = matched_template(lead, variant).segments
    found = set(places(lead.exception, matched_template(lead, variant).message))
    for twin in twins:
        found.add(twin.id)
        for template in twin.templates:
            if template.segments == segments:
                found.update(places(twin.exception, template.message))
    found.discard(lead.id)
    return sorted(found)


def candidate_rows(index: SearchIndex, text: str, limit: int) -> list[int]:
    """Return the rows that can be among the first `limit` results of `text`, ascending: what a search of the
    index's fragments loads whole (`sharded.load_for`)."""
    paste = read_paste(text)
    forms = forms_of(paste)
    words = word_scores(index, query(index, forms[0].norm))
    return sorted(c.row for c in _candidates(index, paste, forms, words, limit, _linked(index, text), loose=True))


def search(index: SearchIndex | dict[str, Any], text: str, limit: int = 10) -> list[dict[str, Any]]:
    """Return the records that best match `text`, best first (see docs/matching.md, Results).

    An exception group's output is read part by part: the first result of each part, then the
    second of each, and so on, the parts whose first result is confident first. So is an error
    that holds others' messages (a dict or list of them): each message, then the whole paste;
    confident only when each message is.
    """
    if not isinstance(index, SearchIndex):
        index = load_index(index)
    members = group_members(text)
    if members is not None:
        answers = [_search(index, member, limit) for member in members]
        # A group a library raises around errors no page explains (cattrs' `While structuring list[int]` around
        # `int()`'s ValueErrors) is answered by its own page first.
        answers.sort(key=lambda results: not (results and results[0]["confident"]))
        return _interleave(answers, limit)
    held = held_messages(text)
    if held is None:
        return _search(index, text, limit)
    answers = [_search(index, message, limit) for message in held]
    sure = all(results and results[0]["confident"] for results in answers)
    merged = _interleave(answers + [_search(index, text, limit)], limit)
    return merged if sure else [dict(result, confident=False) for result in merged]


def _interleave(answers: list[list[dict[str, Any]]], limit: int) -> list[dict[str, Any]]:
    """Return the first result of each answer, then the second of each, and so on, each record once."""
    merged: dict[str, dict[str, Any]] = {}
    for rank in range(limit):
        for results in answers:
            if rank < len(results):
                merged.setdefault(results[rank]["id"], results[rank])
    return list(merged.values())[:limit]


def _search(index: SearchIndex, text: str, limit: int) -> list[dict[str, Any]]:
    """Return the records that best match one paste, records that raise the same message as one answer."""
    paste = read_paste(text)
    forms = forms_of(paste)
    words = word_scores(index, query(index, forms[0].norm))
    found = _candidates(index, paste, forms, words, limit, _linked(index, text))
    found.sort(key=lambda c: index.rows[c.row].id)
    found.sort(key=lambda c: c.key, reverse=True)
    places = lookups(index).places
    shown: dict[tuple[str, str], Candidate] = {}
    twins: dict[int, list[Candidate]] = {}
    for candidate in found:
        key = _message_key(index.rows[candidate.row], candidate.match)
        if key in shown:
            continue
        lead = next((c for c in shown.values() if _twins(index, c, candidate)), None)
        if lead is not None:
            twins[lead.row].append(candidate)
        elif len(shown) < limit:
            shown[key] = candidate
            twins[candidate.row] = []

    def places_of(exception: str, message: str) -> list[str]:
        return places.get((exception, message), [])

    return [_result(index, c, words, paste, twins[c.row],
                    answer_places(index.rows[c.row], c.match.variant if c.match else None,
                                  [index.rows[t.row] for t in twins[c.row]], places_of))
            for c in shown.values()]


def _evidence(key: RankKey) -> tuple[Any, ...]:
    """Return what of a rank key the paste decides: links, the frame, the match, the traceback, the class."""
    return key.linked, key.raised, key.tier, key.strength, key.full, key.cleaned, key.frames, key.exception


def _twins(index: SearchIndex, lead: Candidate, other: Candidate) -> bool:
    """Return whether two results are one message raised at two places that nothing in the paste (its class, its
    traceback) tells apart: the same wording matched alike. Which raise it was is a guess, so they are one answer
    (voluptuous's `DatetimeInvalid` and `DateInvalid` both print `value does not match expected format %s`)."""
    if lead.match is None or other.match is None or _evidence(lead.key) != _evidence(other.key):
        return False
    return (matched_template(index.rows[lead.row], lead.match.variant).segments
            == matched_template(index.rows[other.row], other.match.variant).segments)


def _message_key(row: Row, match: TemplateMatch | None) -> tuple[str, str]:
    """Return what records that raise one message share: the exception and the wording (the one that matched)."""
    return row.exception, matched_template(row, match.variant if match else None).message


def same_message(index: SearchIndex) -> dict[tuple[str, str], list[str]]:
    """Return the ids of the records of each exception and wording (message or variant), in the index's order: one
    message raised at several places is one answer, the best ranked of them, whose page lists the others."""
    places: dict[tuple[str, str], list[str]] = {}
    for row in index.rows:
        for message in dict.fromkeys(template.message for template in row.templates):
            places.setdefault((row.exception, message), []).append(row.id)
    return places
