"""Related errors: the hand-picked ones first, then the closest by place, tags and wording."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..model import Record
from .template import literal_text

MAX_RELATED = 8
NEIGHBOURS = 8
"""How many errors on each side, in line order, count as near in a large file."""
RARE = 50
"""A word or tag shared by more records than this says too little to relate them."""
WORDS = re.compile(r"[a-z][a-z0-9_]{2,}")


@dataclass(frozen=True, slots=True)
class Related:
    """One entry of an error's related list."""

    record: Record
    automatic: bool
    """Found by errorsite rather than picked by a writer."""


def related_map(records: Iterable[Record]) -> dict[str, tuple[Related, ...]]:
    """Return, for every record id, its related errors, best first, at most MAX_RELATED."""
    records = sorted(records, key=lambda r: r.id)
    by_id = {r.id: r for r in records}
    words = {r.id: message_words(r.message) for r in records}
    candidates = _candidates(records, words)
    result = {}
    for record in records:
        picked = [Related(by_id[i], False) for i in dict.fromkeys(record.related) if i in by_id and i != record.id]
        taken = {record.id, *record.related}
        scored = sorted(
            (-_score(record, by_id[other], words), other)
            for other in candidates[record.id]
            if other not in taken
        )
        auto = [Related(by_id[other], True) for score, other in scored if score < 0]
        result[record.id] = tuple((picked + auto)[:MAX_RELATED])
    return result


def message_words(message: str) -> frozenset[str]:
    """Return the distinct words of a message's literal text (placeholders and their names left out)."""
    return frozenset(WORDS.findall(literal_text(message).lower()))


def _candidates(records: list[Record], words: dict[str, frozenset[str]]) -> dict[str, set[str]]:
    groups: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for record in records:
        if record.status != "active":
            continue
        groups["file", record.source.path].append(record)
        for tag in record.tags:
            groups["tag", tag].append(record)
        for word in words[record.id]:
            groups["word", word].append(record)
    candidates: dict[str, set[str]] = {r.id: set() for r in records}
    for (kind, _), members in groups.items():
        if kind == "file":
            _near_in_file(members, candidates)
        elif len(members) <= RARE:
            for record in members:
                candidates[record.id].update(m.id for m in members)
    return candidates


def _near_in_file(members: list[Record], candidates: dict[str, set[str]]) -> None:
    members.sort(key=lambda r: (r.source.line, r.id))
    for index, record in enumerate(members):
        window = members[max(0, index - NEIGHBOURS) : index + NEIGHBOURS + 1]
        candidates[record.id].update(m.id for m in window)


def _score(record: Record, other: Record, words: dict[str, frozenset[str]]) -> float:
    score = 0.0
    if record.source.path == other.source.path:
        score += 2
        if record.source.function and record.source.function == other.source.function:
            score += 3
    score += len(set(record.tags) & set(other.tags))
    mine, theirs = words[record.id], words[other.id]
    if mine and theirs:
        score += 3 * len(mine & theirs) / len(mine | theirs)
    return round(score, 6)
