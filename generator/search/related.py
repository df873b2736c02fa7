"""Related errors: the hand-picked ones first, then the closest by place, tags and wording.

Errors are related from their summaries alone (place, tags, message words, status and the
related ids a record names), so a build can find them again after an edit without reading
every record: `relink` finds them only for the records an edit can reach.
"""

from __future__ import annotations

import re
from bisect import insort
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..model import Summary
from .template import literal_text

MAX_RELATED = 8
NEIGHBOURS = 8
"""How many errors on each side, in line order, count as near in a large file."""
RARE = 50
"""A word or tag shared by more records than this says too little to relate them."""
WORDS = re.compile(r"[a-z][a-z0-9_]{2,}")


@dataclass(frozen=True, slots=True)
class Link:
    """One related error of a record, as its page lists it."""

    id: str
    """The related record's id."""
    automatic: bool
    """Whether errorsite found it (True) or the record's `related` names it (False)."""


@dataclass(frozen=True, slots=True)
class Related:
    """One entry of an error's related list, as its page shows it."""

    record: Summary
    """The related record's summary."""
    automatic: bool
    """Found by errorsite rather than picked by a writer."""


Links = dict[str, tuple[Link, ...]]
"""Record id -> its related errors, best first, at most MAX_RELATED."""

Group = tuple[str, str]
"""What relates records: ("file", path), ("tag", tag) or ("word", word)."""


def message_words(message: str) -> tuple[str, ...]:
    """Return the distinct words of a message's literal text (placeholders and their names left out), sorted."""
    return tuple(sorted(set(WORDS.findall(literal_text(message).lower()))))


def said(card: Summary) -> set[tuple[str, str]]:
    """Return each message a record raises, with its exception: two records that share one raise the same error."""
    return {(card.exception, wording) for wording in (card.message, *card.variants)}


def relating(card: Summary) -> tuple[object, ...]:
    """Return what relates a record to others: its message (its words) and exception and other wordings (one message
    raised at several places), tags, place, status and related ids."""
    return (card.message, card.tags, card.path, card.line, card.function, card.status, card.related, card.exception,
            card.variants)


def related_links(cards: Mapping[str, Summary]) -> Links:
    """Return the related errors of every record of `cards` (id -> summary)."""
    near = Neighbourhood(cards, grouped(cards))
    return {i: near.links(cards[i]) for i in sorted(cards)}


Members = Callable[[Mapping[Group, int]], Mapping[Group, list[str]]]
"""Group -> the most records to return (-1: all) -> the ids of its active records before an edit.

A record is there once per time it belongs to the group (a tag it names twice: twice); the
records of a file come in line order (then id order), those of a tag or word in any order.
`build.state.SavedState.members` reads them from the last build's state; `scanned` finds them
in every summary.
"""


def scanned(cards: Mapping[str, Summary]) -> Members:
    """Return the group members of `cards` (see `Members`), found by going through them all."""
    # More than a group's limit may come back, which `Members` allows.
    return lambda limits: grouped(cards, set(limits), cap=max(limits.values(), default=0))


def relink(old: Mapping[str, Summary], new: Mapping[str, Summary], changed: Iterable[str],
           members: Members | None = None) -> Links:
    """Return the related errors of every record whose list may differ after the summaries `changed` did.

    `new` holds every summary after the change; `old` holds at least the `changed` ones before it,
    and every summary when `members` (the groups before the change) is not given. A record's list
    depends on its candidates (the records sharing its file window, or a tag or word with at most
    RARE records) and on their summaries: so only the records of a group that a changed record
    left or joined can change, and of those groups only files and groups of at most RARE records
    on either side.
    """
    changed = sorted(changed)
    edit = GroupEdit({i: group_list(old[i]) for i in changed}, {i: group_list(new[i]) for i in changed})
    saved = members or scanned(old)
    touched = sorted({g for i in changed for g in (*edit.left[i], *edit.joined[i])})
    lists = edit.applied(saved, touched, new)
    reached = set(changed)
    for group in touched:
        after = set(lists[group])
        before = (after - {i for i in changed if group in edit.joined[i]}) | {i for i in changed if group in edit.left[i]}
        if group[0] == "file" or min(len(before), len(after)) <= RARE:
            reached |= before | after
    # Only the groups of the records reached are needed to find their related errors.
    lists.update(edit.applied(saved, sorted({g for i in reached for g in group_list(new[i])} - lists.keys()), new))
    near = Neighbourhood(new, lists)
    return {i: near.links(new[i]) for i in sorted(reached)}


@dataclass(frozen=True, slots=True)
class GroupEdit:
    """The groups some records left and joined: what turns the groups before an edit into those after it."""

    left: dict[str, list[Group]]
    """Edited record id -> its groups before the edit (see `group_list`)."""
    joined: dict[str, list[Group]]
    """Edited record id -> its groups after the edit."""

    def applied(self, saved: Members, groups: list[Group], cards: Mapping[str, Summary]) -> dict[Group, list[str]]:
        """Return the members of `groups` after the edit (see `Members`), from `saved`, those before it, and
        `cards`, the summaries after it.

        Of a tag or word, enough are read to tell whether it has more than RARE records after the
        edit: RARE + 1 besides the edited records' places in it, which the edit may take away.
        """
        limits = {g: -1 if g[0] == "file" else RARE + 1 + sum(found.count(g) for found in self.left.values())
                  for g in groups}
        before = saved(limits)
        after = {g: [i for i in before.get(g, ()) if i not in self.left] for g in groups}
        for i, found in self.joined.items():
            for g in found:
                if g not in after:
                    continue
                if g[0] == "file":
                    # In line order: a search reads the lines of a few of the file's records, not of all.
                    insort(after[g], i, key=lambda j: (cards[j].line, j))
                else:
                    after[g].append(i)
        return after


def group_list(card: Summary) -> list[Group]:
    """Return the groups a record belongs to, once per time (a tag named twice: twice); none unless it is active."""
    if card.status != "active":
        return []
    return [("file", card.path), *(("tag", t) for t in card.tags), *(("word", w) for w in card.words)]


def grouped(cards: Mapping[str, Summary], wanted: set[Group] | None = None, cap: int = RARE + 1) -> dict[Group, list[str]]:
    """Return the members of every group of `cards`, or of the groups `wanted`.

    A tag or word group keeps its first `cap` records only: one of more than RARE relates
    nothing, and telling that needs no more of it (`cap` is above RARE).
    """
    groups: dict[Group, list[str]] = defaultdict(list)
    names = {kind: {name for k, name in wanted if k == kind} for kind in ("file", "tag", "word")} if wanted \
        is not None else None
    for card in cards.values():
        if card.status != "active":
            continue
        if names is None or card.path in names["file"]:
            groups["file", card.path].append(card.id)
        for tag in card.tags:  # a tag named twice counts twice
            if names is None or tag in names["tag"]:
                members = groups["tag", tag]
                if len(members) < cap:
                    members.append(card.id)
        # A record's words are distinct: the set finds the wanted ones in one call.
        for word in card.words if names is None else names["word"].intersection(card.words):
            members = groups["word", word]
            if len(members) < cap:
                members.append(card.id)
    for (kind, _), members in groups.items():
        if kind == "file":
            members.sort(key=lambda i: (cards[i].line, i))
    return dict(groups)


class Neighbourhood:
    """The groups of a set of records, from which each record's candidates and related list are found."""

    def __init__(self, cards: Mapping[str, Summary], groups: dict[Group, list[str]]) -> None:
        """Relate `cards` by `groups` (see `grouped`; a file's records in line order), which holds every group
        of the records to relate."""
        self.cards = cards
        self.groups = groups
        """Group -> the ids of its active records (more than RARE of a tag or word: maybe not all of them)."""
        self.place: dict[str, int] = {}
        """Record id -> its index in its file's group, in line order."""
        self.words: dict[str, frozenset[str]] = {}
        """Record id -> its words as a set, made when first scored."""
        for (kind, _), members in groups.items():
            if kind == "file":
                self.place.update((i, index) for index, i in enumerate(members))

    def candidates(self, card: Summary) -> set[str]:
        """Return the ids a record may be related to: near it in its file, or sharing a rare tag or word."""
        found: set[str] = set()
        if card.status != "active":
            return found
        members = self.groups["file", card.path]
        index = self.place[card.id]
        found.update(members[max(0, index - NEIGHBOURS): index + NEIGHBOURS + 1])
        for group in [("tag", t) for t in card.tags] + [("word", w) for w in card.words]:
            members = self.groups[group]
            if len(members) <= RARE:
                found.update(members)
        return found

    def links(self, card: Summary) -> tuple[Link, ...]:
        """Return a record's related errors, best first, at most MAX_RELATED."""
        picked = [Link(i, False) for i in dict.fromkeys(card.related) if i in self.cards and i != card.id]
        taken = {card.id, *card.related}
        scored = sorted((-self.score(card, self.cards[other]), other)
                        for other in self.candidates(card) if other not in taken)
        auto = [Link(other, True) for score, other in scored if score < 0]
        return tuple((picked + auto)[:MAX_RELATED])


    def score(self, card: Summary, other: Summary) -> float:
        """Return how closely two records are related: same file, same function, shared tags and words."""
        # The same message raised at another place comes first: the pages cover each other.
        same = bool(said(card) & said(other))
        score = 10.0 if same else 0.0
        if card.path == other.path:
            score += 2
            if card.function and card.function == other.function:
                score += 3
        score += len(set(card.tags) & set(other.tags))
        if card.words and other.words:
            mine, theirs = self.word_set(card), self.word_set(other)
            score += 3 * len(mine & theirs) / len(mine | theirs)
        return round(score, 6)

    def word_set(self, card: Summary) -> frozenset[str]:
        """Return a record's words as a set."""
        found = self.words.get(card.id)
        if found is None:
            found = self.words[card.id] = frozenset(card.words)
        return found
