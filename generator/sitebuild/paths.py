"""Where a build keeps what is not the site: its state, highlighted code, compiled templates, the previous tree.

All of it lives in `.errorsite-cache/` beside the output folder (`site/` -> `.errorsite-cache/site/`).
Deleting that folder is always safe: the next build is a full one and fills it again.
"""

from __future__ import annotations

from pathlib import Path

CACHE_DIR = ".errorsite-cache"
"""The folder, beside the output, that holds every output's cache."""
STATE_FORMAT = 14
"""Changes whenever the saved state's tables change: a state of another format is discarded."""


def cache_folder(out: Path) -> Path:
    """Return the cache folder of the output folder `out`."""
    out = out.absolute()
    return out.parent / CACHE_DIR / out.name


def state_path(out: Path) -> Path:
    """Return the SQLite file that holds the state of the last build of `out`."""
    return cache_folder(out) / f"state-{STATE_FORMAT}.sqlite"


def highlight_path(out: Path) -> Path:
    """Return the SQLite file of highlighted code, shared by every output beside `out`."""
    return cache_folder(out).parent / "highlight.sqlite"


def templates_path(out: Path) -> Path:
    """Return the folder of compiled templates, shared by every output beside `out`."""
    return cache_folder(out).parent / "templates"


def previous_tree(out: Path) -> Path:
    """Return where the output as it was before the last build is kept (see `write.commit_changes`)."""
    return cache_folder(out) / "previous"
