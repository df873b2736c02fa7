"""What the records' `history` says, as pages show it: each error's story in releases, and each release's changes.

`extract --history` writes, for each record, the releases that added it, changed its wording and
no longer raised it (record format 1.2). From those alone, with no repository at hand:

- `story(record)`: what an error page says under its title, which release each earlier wording
  belongs to, the release of its review, and the release a removed error is gone from;
- `release_notes(records)`: each release's errors added, reworded and removed, newest release
  first, for the release pages, the "What changed" index and `api/releases.json`.

The order of the releases is the order `extract --history` walked them in, which every record's
history follows: it is found again by merging the histories (see `release_order`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .model import Record, Release
from .scriptdata import script_safe

CHANGES = ("added", "changed", "removed")
"""The kinds of change a release makes to an error, in the order release notes list them."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")
"""Characters a release page's folder does not take from its tag's name."""


def release_url(tag: str) -> str:
    """Return the page of one release: its tag, with any character a folder name should not hold replaced."""
    slug = _UNSAFE.sub("-", tag)
    if slug != tag or slug.startswith("."):
        # Two tags that differ only in replaced characters keep apart.
        slug = f"{slug.lstrip('.')}-{hashlib.sha256(tag.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    return f"releases/{slug}/index.html"


RELEASES_URL = "releases/index.html"
"""The "What changed" index."""


@dataclass(frozen=True, slots=True)
class Phrase:
    """One part of the line under an error page's title: "wording changed in 8.0.0, 8.1.4"."""

    words: str
    """What happened ("Raised since", "wording changed in", "no longer raised as of", "raised again in")."""
    releases: tuple[Release, ...]
    """The releases it happened in."""


@dataclass(frozen=True, slots=True)
class Wording:
    """The releases that printed one earlier wording."""

    since: Release | None
    """The release that first printed it; None when the history does not say."""
    until: Release
    """The release that changed it: the first that no longer printed it."""


@dataclass(frozen=True, slots=True)
class Story:
    """What an error page says of the error's releases."""

    phrases: tuple[Phrase, ...]
    """The line under the title, in the order things happened."""
    wordings: dict[int, Wording]
    """Index in `record.variants` of each earlier wording a release changed -> its releases."""
    review: Release | None
    """The release in which the message changed that the review notice is about; None when no release has it yet."""
    gone: Release | None
    """For a removed error, the release it is gone from; None when it is active or no release says so."""
    versions: str
    """The history for the page's script: JSON of each release, its change and the wording it printed after it."""


def story(record: Record) -> Story | None:
    """Return what the error's page says of its releases; None when it has no history."""
    history = record.history
    if not history:
        return None
    by_commit = {h.commit: h for h in history}
    wordings: dict[int, Wording] = {}
    for index, variant in enumerate(record.variants):
        until = by_commit.get(variant.until or "")
        if variant.kind == "earlier" and until is not None and until.change == "changed":
            place = history.index(until)
            since = next((h for h in reversed(history[:place]) if h.change != "removed"), None)
            wordings[index] = Wording(since, until)
    last = history[-1]
    gone = last if record.status == "removed" and last.change == "removed" else None
    phrases = _phrases(history)
    # What the code did after the last release: the status says it, no release does yet.
    if record.status == "active" and last.change == "removed":
        phrases += (Phrase("raised again, not yet in a release", ()),)
    elif record.status == "removed" and last.change != "removed":
        phrases += (Phrase("no longer raised, not yet in a release", ()),)
    return Story(phrases, wordings, _review_release(record), gone, _versions(record))


def _phrases(history: Sequence[Release]) -> tuple[Phrase, ...]:
    """Return the line under the title: the first release, then each run of changes of one kind."""
    phrases: list[Phrase] = []
    for entry in history:
        if not phrases:
            words = "Raised since" if entry.change != "removed" else "No longer raised as of"
        elif entry.change == "changed":
            words = "wording changed in"
        elif entry.change == "removed":
            words = "no longer raised as of"
        else:
            words = "raised again in"
        if phrases and phrases[-1].words == words:
            phrases[-1] = Phrase(words, (*phrases[-1].releases, entry))
        else:
            phrases.append(Phrase(words, (entry,)))
    return tuple(phrases)


def _review_release(record: Record) -> Release | None:
    """Return the release in which the message that the review is about changed; None when no release has it yet.

    `review.since` names a commit, not a release. The change is not yet in a release while an
    earlier wording's `until` still names that commit (extract wrote both there); once a release
    has it, `extract --history` names the release in `until`, and the latest release that changed
    the wording is the one the notice names.
    """
    review = record.review
    if review is None or review.why != "message changed":
        return None
    same = [h for h in record.history if h.commit.startswith(review.since) or review.since.startswith(h.commit)]
    if same:
        return same[0]
    if any(v.kind == "earlier" and v.until == review.since for v in record.variants):
        return None
    changed = [h for h in record.history if h.change == "changed"]
    return changed[-1] if changed else None


def wording_after(record: Record, index: int) -> str:
    """Return the wording the error had from its history's entry `index` on: the earlier wording the next change
    ended, or the message; the message too when no earlier wording names that change."""
    after = next((h for h in record.history[index + 1:] if h.change == "changed"), None)
    if after is None:
        return record.message
    return next((v.message for v in record.variants if v.kind == "earlier" and v.until == after.commit), record.message)


def _versions(record: Record) -> str:
    """Return the page script's data: each release, its change, and the wording it printed from then on."""
    rows = [{"release": entry.release, "change": entry.change,
             "message": wording_after(record, index) if entry.change != "removed" else None}
            for index, entry in enumerate(record.history)]
    return script_safe(json.dumps(rows, ensure_ascii=False, separators=(",", ":")))


_VERSION = re.compile(r"\s*[vV]?(\d+(?:\.\d+)*)(?:[-._]?(dev|alpha|beta|preview|pre|rc|a|b|c)[-._]?(\d*))?")
"""A release's number, as tags and installed versions write it (`v8.1.3`, `8.0.0rc1`); static/version.js reads them alike."""

_PRE = {"dev": -4, "a": -3, "alpha": -3, "b": -2, "beta": -2, "c": -1, "rc": -1, "pre": -1, "preview": -1}
"""How a pre-release sorts before its release."""


def version_key(text: str) -> tuple[int, ...] | None:
    """Return a key that orders versions as numbers (`8.0.0rc1` before `8.0.0`); None when `text` has no number."""
    found = _VERSION.match(text)
    if found is None:
        return None
    numbers = [int(n) for n in found[1].split(".")]
    numbers += [0] * (4 - len(numbers))
    return (*numbers, _PRE[found[2]] if found[2] else 0, int(found[3]) if found[3] else 0)


def _padded(key: tuple[int, ...], size: int) -> tuple[int, ...]:
    """Return a version key with the release numbers padded, so that `8.1` and `8.1.0.0` compare equal."""
    numbers, pre = key[:-2], key[-2:]
    return (*numbers, *(0,) * (size - len(numbers)), *pre)


def at_version(record: Record, version: str) -> str | None:
    """Return what the record's history says of `version`: whether it raises the error, and with which wording.

    None when the record has no history. The same sentences as an error page's script (static/version.js).
    """
    history = record.history
    if not history:
        return None
    asked = version_key(version)
    at = -1
    for index, entry in enumerate(history):
        key = version_key(entry.release)
        if entry.release == version or (asked is not None and key is not None and _compare(key, asked) <= 0):
            at = index
    if at < 0 and asked is None:
        return f"This page cannot place version {version} among its releases."
    if at < 0:
        return f"Version {version} does not raise this error: release {history[0].release} first raised it."
    if history[at].change == "removed":
        return f"Version {version} does not raise this error: release {history[at].release} no longer raised it."
    later = next((h for h in history[at + 1:] if h.change == "changed"), None)
    if later is None:
        return f"Version {version} raises this error with the wording shown here."
    wording = wording_after(record, at)
    if wording == record.message:
        return f"Version {version} raises this error; release {later.release} changed its wording since."
    return f"Version {version} raises this error, worded as it was before release {later.release}: {wording}"


def _compare(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    size = max(len(a), len(b)) - 2
    left, right = _padded(a, size), _padded(b, size)
    return (left > right) - (left < right)


def raised_at(record: Record, version: str) -> bool:
    """Return whether the record's history says that `version` raises the error (True without a history)."""
    said = at_version(record, version)
    return said is None or said.startswith(f"Version {version} raises")


def printed_by(record: Record, index: int) -> str | None:
    """Return which releases printed the variant at `index`, when the history says: "printed from 8.0 until 8.1.4 changed it"."""
    found = story(record)
    wording = found.wordings.get(index) if found else None
    if wording is None:
        return None
    since = f"from {wording.since.release} " if wording.since else ""
    return f"printed {since}until {wording.until.release} changed it"


@dataclass(frozen=True, slots=True)
class Entry:
    """One error in a release's notes."""

    record: Record
    """The record, as it is now."""
    earlier: str | None
    """For a changed wording, the wording before the release."""
    wording: str
    """The wording the release printed."""


@dataclass(frozen=True, slots=True)
class Notes:
    """What one release changed among the errors."""

    release: str
    """The release's tag."""
    commit: str
    """The commit its tag names."""
    url: str
    """Its page (see `release_url`)."""
    changes: dict[str, tuple[Entry, ...]]
    """`added`, `changed`, `removed` -> the errors, in message order."""

    @property
    def count(self) -> int:
        """Return how many errors the release changed."""
        return sum(len(entries) for entries in self.changes.values())


def release_order(histories: Iterable[Sequence[Release]]) -> list[str]:
    """Return every release named in `histories`, oldest first, keeping the order each history gives.

    Releases that no history puts in an order between them go by their names, numbers as numbers.
    """
    after: dict[str, set[str]] = defaultdict(set)
    before_count: dict[str, int] = {}
    for history in histories:
        for entry in history:
            before_count.setdefault(entry.release, 0)
        for older, newer in zip(history, history[1:]):
            if older.release != newer.release and newer.release not in after[older.release]:
                after[older.release].add(newer.release)
                before_count[newer.release] += 1
    ready = sorted((r for r, n in before_count.items() if n == 0), key=natural)
    order: list[str] = []
    while ready:
        release = ready.pop(0)
        order.append(release)
        for name in after[release]:
            before_count[name] -= 1
            if before_count[name] == 0:
                ready.append(name)
        ready.sort(key=natural)
    # Histories that contradict each other (edited by hand) leave a cycle: its releases go last, by name.
    return order + sorted((r for r in before_count if r not in order), key=natural)


def natural(name: str) -> tuple[object, ...]:
    """Return a key that sorts tag names as versions (`8.0.0rc1` before `8.0.0`, `v8.10` after `v8.9`), and other
    names after them with their numbers as numbers."""
    key = version_key(name)
    parts = tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.findall(r"\d+|\D+", name))
    return (0, _padded(key, 6), parts) if key is not None and len(key) <= 8 else (1, (), parts)


def release_notes(records: Iterable[Record]) -> list[Notes]:
    """Return each release's changes among the errors, newest release first.

    A removed record whose message an active error of the same exception printed earlier is that
    error's old wording, left behind by re-pinning (a raise whose class was renamed and whose
    message was reworded in one step gets a new record): the active one tells the story, once.
    """
    records = [r for r in records if r.history]
    worded = {(r.exception, v.message) for r in records if r.status == "active" for v in r.variants if v.kind == "earlier"}
    records = [r for r in records if r.status == "active" or (r.exception, r.message) not in worded]
    found: dict[str, dict[str, list[Entry]]] = defaultdict(lambda: {change: [] for change in CHANGES})
    commits: dict[str, str] = {}
    for record in records:
        earlier = {v.until: v.message for v in record.variants if v.kind == "earlier" and v.until}
        for index, entry in enumerate(record.history):
            commits.setdefault(entry.release, entry.commit)
            found[entry.release][entry.change].append(
                Entry(record, earlier.get(entry.commit) if entry.change == "changed" else None, wording_after(record, index)))
    order = release_order(r.history for r in records)
    return [Notes(release, commits[release], release_url(release),
                  {change: tuple(sorted(entries, key=lambda e: (e.record.message, e.record.id)))
                   for change, entries in found[release].items()})
            for release in reversed(order)]


def notes_data(notes: Sequence[Notes], base_url: str) -> dict[str, object]:
    """Return `api/releases.json`: every release, newest first, with its errors added, reworded and removed."""
    def entry(e: Entry) -> dict[str, object]:
        data: dict[str, object] = {"id": e.record.id, "exception": e.record.exception, "message": e.record.message,
                                   "title": e.record.title, "url": f"{base_url}errors/{e.record.id}/"}
        if e.earlier is not None:
            data["earlier"] = e.earlier
            data["wording"] = e.wording
        return data

    return {"version": 1, "releases": [
        {"release": n.release, "commit": n.commit, "url": base_url + n.url.removesuffix("index.html"),
         **{change: [entry(e) for e in entries] for change, entries in n.changes.items()}}
        for n in notes]}


def markdown_notes(notes: Notes, base_url: str) -> str:
    """Return the release's changes as Markdown a maintainer can paste into release notes."""
    titles = {"added": "New errors", "changed": "Reworded errors", "removed": "Errors no longer raised"}
    lines: list[str] = []
    for change in CHANGES:
        entries = notes.changes[change]
        if not entries:
            continue
        lines += [f"### {titles[change]}", ""]
        for e in entries:
            line = f"- [`{e.record.exception_name}`: {_inline(e.record.title)}]({base_url}errors/{e.record.id}/)"
            if e.earlier is not None:
                line += f": {_inline(e.earlier)} → {_inline(e.wording)}"
            lines.append(line)
        lines.append("")
    return "\n".join(lines)


def _inline(text: str) -> str:
    """Return text as Markdown shows it literally on one line: brackets, backticks and emphasis escaped."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", " ".join(text.split()))
