"""Words: BM25 over the index's terms, with completions of a word being typed and near spellings.

docs/matching.md, Words. The scores are computed in the same order as match.js does, so both
runtimes give the same floating-point results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .index import SearchIndex
from .text import tokenize

K1 = 1.2
"""BM25's term frequency saturation."""
B = 0.75
"""BM25's document length normalisation."""
MAX_QUERY_TERMS = 64
"""Distinct words of a paste that count."""
MAX_FUZZY_TOKENS = 8
"""Words of a paste that may expand to near spellings."""
MAX_PREFIX_TERMS = 50
"""Completions of the word being typed."""
PREFIX_WEIGHT = 0.9
FUZZY_WEIGHTS = (1.0, 0.7, 0.5)
"""A near spelling's weight by edit distance."""


@dataclass(frozen=True, slots=True)
class Expansion:
    """A term a query token stands for."""

    term: int
    weight: float
    near: bool
    """Found as a near spelling (edit distance), not the token or a completion of it."""


@dataclass(frozen=True, slots=True)
class QueryToken:
    """One distinct word of the paste and the terms it expands to."""

    word: str
    stop: bool
    """A stop word: it scores, but a record that shares only stop words is no result."""
    expansions: tuple[Expansion, ...]


@dataclass(slots=True)
class WordScores:
    """What the words of a paste found."""

    score: dict[int, float] = field(default_factory=dict)
    """BM25 score per row."""
    near: set[int] = field(default_factory=set)
    """Rows where some token's best contribution was a near spelling."""
    content: set[int] = field(default_factory=set)
    """Rows reached by a token that is not a stop word: only these can be word results."""
    shown: set[str] = field(default_factory=set)
    """Terms searched for tokens that are not stop words: the ones to highlight in titles."""


def edits(a: str, b: str, limit: int) -> int:
    """Return the Levenshtein distance of `a` and `b`, or limit + 1 when it exceeds `limit`."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return min(prev[-1], limit + 1)


def _completions(index: SearchIndex, token: str) -> list[Expansion]:
    """Return the first terms the token is a proper prefix of (the user may still be typing it)."""
    found = [i for i, t in enumerate(index.terms) if t.startswith(token) and t != token]
    return [Expansion(i, PREFIX_WEIGHT, False) for i in found[:MAX_PREFIX_TERMS]]


def fuzzy_limit(token: str) -> int:
    """Return the edit distance of the near spellings of `token`: 1, or 2 for tokens longer than 6."""
    return 1 if len(token) <= 6 else 2


def _near_spellings(index: SearchIndex, token: str) -> list[Expansion]:
    """Return the ASCII terms within edit distance `fuzzy_limit` of `token`."""
    limit = fuzzy_limit(token)
    out = []
    for i, term in enumerate(index.terms):
        if abs(len(term) - len(token)) <= limit and term.isascii():
            d = edits(token, term, limit)
            if d <= limit:
                out.append(Expansion(i, FUZZY_WEIGHTS[d], True))
    return out


def query(index: SearchIndex, message: str) -> list[QueryToken]:
    """Return the distinct tokens of `message` (sorted) with the terms each expands to."""
    words = tokenize(message)
    tokens = list(dict.fromkeys(word for word, _, _ in words))[:MAX_QUERY_TERMS]
    typing = bool(words) and words[-1][2] == len(message) and words[-1][0] == tokens[-1]
    fuzzy = [t for t in tokens if t not in index.number and len(t) >= 4 and t.isascii() and not t.isdigit()]
    fuzzy = fuzzy[:MAX_FUZZY_TOKENS]
    out = []
    for token in sorted(tokens):
        exp = [Expansion(index.number[token], 1.0, False)] if token in index.number else []
        if typing and token == tokens[-1] and len(token) >= 3:
            exp += _completions(index, token)
        if token in fuzzy:
            exp += _near_spellings(index, token)
        if exp:
            out.append(QueryToken(token, token in index.stop, tuple(exp)))
    return out


def word_scores(index: SearchIndex, tokens: list[QueryToken]) -> WordScores:
    """Return the BM25 score of every row the query's terms reach."""
    rows = index.rows
    found = WordScores()
    for token in tokens:
        best: dict[int, tuple[float, bool]] = {}
        for e in token.expansions:
            idf = index.idf[e.term]
            if not token.stop:
                found.shown.add(index.terms[e.term])
            d = 0
            for v in index.postings[e.term]:
                d += v >> 3
                tf = v & 7
                norm = K1 * (1 - B + B * rows[d].length / index.avgdl)
                s = e.weight * (idf * (tf * (K1 + 1)) / (tf + norm))
                if d not in best or s > best[d][0]:
                    best[d] = (s, e.near)
        for d in sorted(best):
            found.score[d] = found.score.get(d, 0.0) + best[d][0]
            if best[d][1]:
                found.near.add(d)
            if not token.stop:
                found.content.add(d)
    return found

