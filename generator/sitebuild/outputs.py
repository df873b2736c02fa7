"""What one build leaves for the next and for its caller: its result, the search index it
wrote (read back for patching), and what it makes of each record besides its pages.

`pipeline` (a whole build) and `update` (a few edited records) both use these, so they live
apart from either.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..model import Record, Tally
from .highlight import Store
from .keys import digest, index_key, relating_key, summary_key
from .state import Made, Search


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
    coverage: Tally | None = None
    """How many records the site has, how many of them are written, and how many of those are drafts."""
    size: int = 0
    """Bytes of every file of the output."""


def tree_size(folder: Path) -> int:
    """Return the bytes of every file under `folder`."""
    size = 0
    folders = [folder]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(Path(entry.path))
                else:
                    size += entry.stat(follow_symlinks=False).st_size
    return size


def file_size(path: Path) -> int:
    """Return the bytes of a file; 0 when there is none."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def made_of(record: Record, store: Store | None = None) -> Made:
    """Return what the search index takes of one record, and its summary (Markdown's plain text from `store`)."""
    from ..search.index import document_terms, search_entry
    from ..summary import summarize

    entry = search_entry(record, store)
    terms = document_terms(entry)
    summary = summarize(record)
    return Made(Search(entry, terms, index_key(entry, terms)), summary, summary_key(summary), relating_key(summary))


def previous_index(out: Path, sha: str) -> bytes | None:
    """Return the search index script the last build wrote into `out`, if it still hashes to `sha`; else None."""
    try:
        script = (out / "search-index.js").read_bytes()
    except OSError:
        return None
    return script if digest(script) == sha else None
