"""Where each page lives, as a site-relative path, and links between pages.

Links between pages are relative and name `index.html` explicitly, so the
site works under any path prefix and when opened from `file://`.
"""

from __future__ import annotations

import hashlib
import unicodedata
from urllib.parse import quote, unquote

LIST_PAGES = ("errors/index.html", "exceptions/index.html", "files/index.html", "tags/index.html")
"""The list pages that share a folder with records' own pages."""


def error(record_id: str) -> str:
    """Return the page of one error."""
    return f"errors/{record_id}/index.html"


def exception(name: str) -> str:
    """Return the page of one exception type."""
    return f"exceptions/{quote(name)}/index.html"


MAX_SEGMENT_BYTES = 200
"""File systems refuse names over 255 bytes; a longer path segment is shortened."""


def source_file(path: str) -> str:
    """Return the page of one source file."""
    return f"files/{quote('/'.join(map(_short, path.split('/'))))}/index.html"


def _short(segment: str) -> str:
    data = segment.encode()
    if len(data) <= MAX_SEGMENT_BYTES:
        return segment
    # Keep a readable start; the hash keeps two long names that share it apart.
    digest = hashlib.sha256(data).hexdigest()[:12]
    return data[: MAX_SEGMENT_BYTES - 13].decode(errors="ignore") + "-" + digest


def tag(name: str) -> str:
    """Return the page of one tag."""
    return f"tags/{name}/index.html"


def record_json(record_id: str) -> str:
    """Return the JSON of one record."""
    return f"api/errors/{record_id}.json"


def root_of(page: str) -> str:
    """Return the relative prefix that leads from `page` back to the site's root."""
    return "../" * page.count("/") or "./"


def pretty(page: str) -> str:
    """Return the public URL path of a page: its folder, without `index.html`."""
    return page.removesuffix("index.html")


def output_path(page: str) -> str:
    """Return the file a page URL is written to (percent-escapes undone)."""
    return unquote(page)


def same_file_key(path: str) -> str:
    """Return `path` as file systems that ignore letter case and Unicode normalisation (macOS, Windows) see it."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", path).casefold())
