"""A record's templates against the paste forms: the best match of each record, and how sure it is.

docs/matching.md, Matching one template (the choice between forms and wordings) and Confidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

from .index import Row, Template
from .paste import Paste
from .text import is_word, normalize
from .template import Segments
from .walk import End, quality, walk
from .walk import values as cut_values

MIN_LITERAL = 6
"""A match counts with fewer literal characters only when they are half of the paste or more."""
CONFIDENT_LITERAL = 20
"""A full match whose literal text is under two thirds of the message needs this many literal characters to be confident."""
CONFIDENT_CUT = 30
"""A cut partial needs this many literal characters, and to stop inside a literal, to be confident."""
REPR = re.compile(
    r"""[bBrRuUfF]{0,2}(['"])[\s\S]*\1|\[[\s\S]*\]|\([\s\S]*\)|\{[\s\S]*\}|<[\s\S]*>"""
    r"|[A-Za-z_][A-Za-z0-9_.]*\([\s\S]*\)|[-+]?[0-9][A-Za-z0-9_.+-]*|None|True|False|Ellipsis|NotImplemented|[-+]?inf|nan"
)
"""What Python's repr of a value looks like: quoted, bracketed, a call, a number or a constant."""


@dataclass(frozen=True, slots=True)
class Form:
    """One paste form, normalised."""

    raw: str
    """The form as cut from the paste."""
    norm: str
    """Lowercased, whitespace runs as one space, trimmed."""
    where: list[int]
    """Each normalised character's index in `raw`."""
    first: bool
    """The most cleaned form of a reading of the paste."""
    removed: int
    """Code points at the start that cleaning removed: how much longer the form is than the most
    cleaned form of its reading, when it ends with that form; else 0."""


def forms_of(paste: Paste) -> list[Form]:
    """Return the paste's forms, normalised, most cleaned first."""
    normal = [normalize(raw) for raw in paste.forms]
    forms = []
    for i, (raw, (norm, where)) in enumerate(zip(paste.forms, normal)):
        clean = normal[max(f for f in paste.firsts if f <= i)][0]
        forms.append(Form(raw, norm, where, i in paste.firsts, len(norm) - len(clean) if norm.endswith(clean) else 0))
    return forms


class Tier(IntEnum):
    """How a result accounts for the paste; a higher tier always ranks first."""

    WORDS = 1
    """It shares words (or near spellings) only."""
    NOISY = 2
    """A template matched, but with text it cannot produce around it."""
    EXPLAINS = 3
    """A template matched the whole paste (full), or all of it up to where the paste stops (cut)."""


@dataclass(frozen=True, slots=True, order=True)
class Fit:
    """What decides between two matches of one record: fields compare in order, greater first."""

    tier: Tier
    quality: int
    """Literal characters of the paste the template explains."""
    full: bool
    """A full match over a cut one."""
    reprs_hold: bool
    """A full match whose placeholders that show a repr hold one, over one whose do not (a message's last value
    that took the details printed under it)."""
    cleaned: bool
    """A match of the most cleaned form (or of a template that starts with a literal) decides ties."""


@dataclass(frozen=True, slots=True)
class TemplateMatch:
    """The best match of one of a record's templates against the paste."""

    end: End
    """"full", "cut" (the paste stops inside the template, nothing before it) or "noise"."""
    quality: int
    """Literal characters of the paste the template explains."""
    covered: list[int]
    """Characters matched of each literal, up to where the match stopped."""
    values: list[str]
    """For a full match, each placeholder's text as pasted; else empty."""
    variant: int | None
    """Which template: None for the message, else the position in the record's variants."""
    length: int
    """Code points of the paste form it matched, normalised."""
    reprs_hold: bool
    """Every placeholder that shows a repr holds text that looks like one (always true unless full)."""
    cleaned: bool
    """It matched the most cleaned paste form, or the template starts with a literal: a leading
    placeholder did not take the exception name or log prefix that cleaning removed as its value."""
    held: int
    """For a full match, the normalised code points of the values that a literal follows and that
    are one word looking like a repr (`'--token'`, `[1, 2]` is two): the template bounds them."""
    around: int = -1
    """For a message found inside a value of the message its class builds around it (`composed`), the row of
    the record of that message; -1 otherwise."""

    @property
    def tier(self) -> Tier:
        """Return how well the match accounts for the paste."""
        return Tier.NOISY if self.end == "noise" else Tier.EXPLAINS

    @property
    def explains(self) -> bool:
        """Return whether the template explains the paste on its own text (see docs/matching.md, Confidence)."""
        if self.end == "full":
            enough = 3 * self.quality >= 2 * (self.length - self.held) or self.quality >= CONFIDENT_LITERAL
            return enough and self.reprs_hold
        return self.end == "cut" and self.quality >= CONFIDENT_CUT and self.covered[-1] > 0

    @property
    def whole(self) -> bool:
        """Return whether the template's text is a full match of the paste in its own right: at least two thirds
        of it (less held values) and CONFIDENT_LITERAL characters, the text a class name printed in front of it
        cannot take away (docs/matching.md, Confidence)."""
        return (self.end == "full" and self.reprs_hold and self.quality >= CONFIDENT_LITERAL
                and 3 * self.quality >= 2 * (self.length - self.held))

    @property
    def fit(self) -> Fit:
        """Return what decides between two matches of one record."""
        return Fit(self.tier, self.quality, self.end == "full", self.reprs_hold, self.cleaned)


def value_form(raw: str) -> Form:
    """Return a value of a full match as a paste form of its own: the message a class built its own around."""
    norm, where = normalize(raw)
    return Form(raw, norm, where, True, 0)


def composed(around: TemplateMatch, row: int, inner: TemplateMatch) -> TemplateMatch:
    """Return the full match `inner` of a value of the full match `around` (of the record at `row`) as a match of
    the whole paste: its literal text and the text around it explain the paste together (docs/matching.md,
    Composed messages)."""
    return TemplateMatch("full", around.quality + inner.quality, inner.covered, inner.values, inner.variant,
                         around.length, around.reprs_hold and inner.reprs_hold, around.cleaned, around.held, row)


def _held(segs: Segments, norm: str, spans: list[int], reprs: tuple[int, ...]) -> int:
    """Return the code points of the values of a full match that are one word like a repr and that a literal
    follows, or that end the message in a placeholder that shows a repr (`Invalid tag: {tag!r}`): the
    template's structure bounds them."""
    held = 0
    for n, k in enumerate(k for k, seg in enumerate(segs) if seg is None):
        value = norm[spans[2 * n]:spans[2 * n + 1]]
        word = value.strip(" ")
        if (k < len(segs) - 1 or n in reprs) and word and " " not in word and REPR.fullmatch(word):
            held += len(value)
    return held


def _overlaps(segs: Segments, norm: str, spans: list[int]) -> int:
    """Return how many literals of a full match start one character early, on the space the literal before
    them ends with (an empty value between them): that space is counted once, not twice."""
    count = 0
    for n, k in enumerate(k for k, seg in enumerate(segs) if seg is None):
        after = segs[k + 1] if k + 1 < len(segs) else None
        start = spans[2 * n]
        if k and after and after[0] == " " and start == spans[2 * n + 1] and not norm.startswith(after, start):
            count += 1
    return count


def _wordless(segs: Segments, covered: list[int]) -> int:
    """Return the code points of the literals after the opening one that a partial stopped inside a value found
    and that hold no word character: punctuation found inside what may be one value (the `': '` of `'x': 'y'`)
    is no sign that the paste was cut from this template."""
    literals = [seg for seg in segs if seg is not None]
    return sum(count for k, (lit, count) in enumerate(zip(literals, covered))
               if (k or segs[0] is None) and not any(is_word(ch) for ch in lit))


def _in_removed(segs: Segments, norm: str, spans: list[int], removed: int) -> int:
    """Return the literal code points of a full match of a template that starts with a placeholder
    that lie in the first `removed` code points (the exception name or log prefix cleaning removed)."""
    inside = 0
    for j, lit in enumerate(seg for seg in segs if seg is not None):
        start = spans[2 * j + 1]
        inside += len(norm[start:min(start + len(lit), removed)])
    return inside


def match_template(template: Template, forms: list[Form], variant: int | None) -> TemplateMatch | None:
    """Return the best match of `template` over the paste forms, or None."""
    segs = template.segments
    best: TemplateMatch | None = None
    for form in forms:
        walked = walk(segs, form.norm)
        end, covered, spans = walked.end, walked.covered, walked.values
        total = quality(segs, form.norm, covered)
        if end == "full" and segs[0] is None and form.removed:
            # A leading placeholder took what cleaning removed: literal text found there is no message text.
            total -= _in_removed(segs, form.norm, spans, form.removed)
        if end == "full":
            total -= _overlaps(segs, form.norm, spans)
        elif end == "cut" and covered[-1] == 0:
            total -= _wordless(segs, covered)
        if total < MIN_LITERAL and 2 * total < len(form.norm) or total == 0:
            continue
        # A full or cut match fits the whole paste; text after the closing literal does not.
        # In a less cleaned form a leading placeholder would take the exception name or
        # log prefix as its value: such a partial is cut only in the most cleaned form.
        if end == "cut" and not form.first and segs[0] is None:
            end = "noise"
        values = cut_values(form.raw, form.where, spans) if end == "full" else []
        reprs_hold = all(n >= len(values) or REPR.fullmatch(values[n]) for n in template.reprs)
        held = _held(segs, form.norm, spans, template.reprs) if end == "full" else 0
        found = TemplateMatch(end, total, covered, values, variant, len(form.norm), reprs_hold,
                              form.first or segs[0] is not None, held)
        if best is None or found.fit > best.fit:
            best = found
        # A full match stops the search, unless a value that shows a repr took what a later form leaves out (the
        # details an exception prints under its message).
        if end == "full" and reprs_hold:
            break
    return best


def match_row(row: Row, forms: list[Form], present: set[str]) -> TemplateMatch | None:
    """Return the best match of any of the row's templates whose first word the paste has, or None."""
    best: TemplateMatch | None = None
    for k, template in enumerate(row.templates):
        if not template.first or template.first not in present:
            continue
        found = match_template(template, forms, k - 1 if k else None)
        if found and (best is None or found.fit > best.fit):
            best = found
    return best


ANCHOR = 24
"""Code points of a template's literal text, from its start, that `anchor` keeps."""


def anchor(segs: Segments) -> tuple[list[str], bool]:
    """Return what of a template a paste must hold for it to match: its literals from the first, until they reach
    ANCHOR code points (the last cut there), and whether they are all of them, uncut."""
    literals = [seg for seg in segs if seg is not None]
    out: list[str] = []
    room = ANCHOR
    for literal in literals:
        out.append(literal[:room])
        room -= len(literal)
        if room <= 0:
            break
    return out, room >= 0 and len(out) == len(literals)


def anchored(literals: list[str], whole: bool, norms: list[str]) -> bool:
    """Return whether a template of this `anchor` may match any of the normalised paste forms `norms`.

    A match (`match_template`, every end) finds each literal of the template in the form (but a
    space that starts it, or that ends the last before a placeholder that ends the template), or
    stops at one that is not where it must be, the form ending with a prefix of it (maybe none).
    Then the literal text found, those before it and that prefix, must be MIN_LITERAL code points or
    half the form. So a form that a template matches holds every literal of its anchor, or holds
    those before one and ends with a prefix of it, long enough together; the converse need not hold.
    The value of a full match is a part of a form: a message found inside it (`composed`) holds every
    literal too.
    """
    for norm in norms:
        before = 0
        for k, literal in enumerate(literals):
            core = literal[1:] if literal[:1] == " " else literal
            # A cut may cover one code point more than the form has: the space a placeholder before it left out.
            got = before + max((len(norm) - q + 1 for q in range(max(0, len(norm) - len(core) - 1), len(norm))
                                if norm[q:].lstrip(" ") and core.startswith(norm[q:].lstrip(" "))), default=0)
            if got >= MIN_LITERAL or 0 < got and 2 * got >= len(norm):
                return True
            last = whole and k == len(literals) - 1
            if core not in norm and not (last and core[-1:] == " " and norm.endswith(core[:-1])):
                break
            before += len(literal)
        else:
            return True
    return False
