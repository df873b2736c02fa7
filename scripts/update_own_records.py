"""Bring errorsite's own error reference (content/) up to date with its code.

Runs `errorsite extract` on this repository, then gives every new record the
id of its page: each user error is raised with `page="<id>"` (or carries its
URL in the message), and the URL printed under the error is that page's.
Records that already have their page id keep it; extract keeps ids anyway.

    python scripts/update_own_records.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from errorsite import cli
from errorsite.recordjson import dumps

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
PAGE = re.compile(r'page="([a-z0-9-]+)"|/errors/([a-z0-9-]+)/')
STATEMENT_LINES = 8
"""How far below the `raise` line its `page=` argument may stand."""


def page_of(record: dict) -> str | None:
    """Return the page id named by the raise statement a record documents."""
    source = record["source"]
    lines = source["snippet"]["code"].split("\n")
    first = source["line"] - source["snippet"]["start"]
    found = PAGE.search("\n".join(lines[first : first + STATEMENT_LINES]))
    return (found.group(1) or found.group(2)) if found else None


def main() -> int:
    """Extract, then rename new records to their page ids; return the exit status."""
    status = cli.main(["extract", str(ROOT), "--repo", "errorsite/errorsite", "--content", str(CONTENT)])
    if status:
        return status
    for path in sorted((CONTENT / "errors").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        page = page_of(record)
        if page is None:
            print(f"{path.name}: the raise names no page; add page=\"...\" to it", file=sys.stderr)
            return 1
        if page != record["id"]:
            if not name_after_page(path, record, page):
                return 1
    return 0


def name_after_page(path: Path, record: dict, page: str) -> bool:
    """Give a new record its page's id; a page whose record extract marked removed takes the raise back."""
    target = path.with_name(f"{page}.json")
    if target.exists():
        # The message changed too much for extract to follow, but the raise still names the page.
        known = json.loads(target.read_text(encoding="utf-8"))
        if known.get("status") != "removed":
            print(f"{path.name}: page {page!r} already has a record; give the raise its own page", file=sys.stderr)
            return False
        known.pop("status")
        known.update(message=record["message"], source=record["source"])
        record = known
    record["id"] = page
    target.write_text(dumps(record), encoding="utf-8")
    path.unlink()
    print(f"named {path.stem} -> {page}")
    return True


if __name__ == "__main__":
    sys.exit(main())
