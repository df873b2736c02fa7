"""What one build leaves for the next and for its caller: its result, its output files read
back, and what the search index takes of a record.

`pipeline` (a whole build) and `update` (a few edited records) both use these, so they live
apart from either.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import Record
from .keys import digest, index_key
from .state import Search


@dataclass(frozen=True, slots=True)
class Result:
    """What a build did."""

    records: int
    """Records of the site."""
    pages: int
    """HTML pages of the site."""
    rendered: int
    """Files rendered by this build; 0 when nothing had changed."""
    written: int
    """Files written or replaced in the output folder."""
    deleted: int
    """Files deleted from the output folder."""
    full: bool
    """Whether the whole output folder was written afresh."""
    base_path: str
    """The path of the site's base_url: where a server serves it."""
    seconds: float = 0.0
    """How long the build took."""


def search_of(record: Record) -> Search:
    """Return what the search index takes of one record."""
    from ..search.index import document_terms, search_entry
    from ..search.template import compile_template

    entry = search_entry(record)
    terms = document_terms(entry)
    return Search(entry, terms, index_key(entry, terms), compile_template(record.message))


def read_search_script(script: bytes) -> dict[str, Any] | None:
    """Return the search index of a script the last build wrote; None when it is not one errorsite writes."""
    from ..search.index import read_index_script

    return read_index_script(script)


def read_output(out: Path, path: str, sha: str) -> bytes | None:
    """Return the bytes of an output file when they hash to `sha`, as the last build wrote them; else None."""
    try:
        body = (out / path).read_bytes()
    except OSError:
        return None
    return body if digest(body) == sha else None
