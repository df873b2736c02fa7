"""`errorsite patterns`: the `patterns.json` a library ships beside its vendored `link.py`.

The file is version 1 of the format `api/patterns.json` has, with each entry's
place (path, line, function), its variants' patterns and whether its page is
written, which `link.py` uses to choose between pages whose templates match the
same message. It is written where the package wants it, and only when it changed.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .search.template import compile_template
from .model import Record, Site
from .problems import UserError

VERSION = 1
"""The version `link.py` reads; entries only gain fields within it."""


def entry(record: Record, base_url: str) -> dict[str, Any]:
    """Return what `link.py` needs of one record to link a message to its page."""
    data: dict[str, Any] = {
        "id": record.id, "url": base_url + record.url, "exception": record.exception,
        "pattern": compile_template(record.message),
    }
    if record.variants:
        data["variants"] = [compile_template(v.message) for v in record.variants]
    data.update(path=record.source.path, line=record.source.line, function=record.source.function or "",
                written=record.written)
    return data


def patterns_bytes(site: Site) -> bytes:
    """Return the `patterns.json` of the site's active records, one entry per line."""
    base = site.config.base_url
    if not base.startswith(("https://", "http://")):
        raise UserError(
            f"the patterns need the address where the site is published, and base_url is {base!r}",
            hint="set base_url in site.toml or pass --base-url https://owner.github.io/repo/",
            page="patterns-base-url",
        )
    lines = [json.dumps(entry(r, base), ensure_ascii=False, separators=(",", ":"))
             for r in site.records if r.status == "active"]
    head = json.dumps({"version": VERSION, "base_url": base}, ensure_ascii=False)[:-1]
    return (f'{head}, "patterns": [\n' + ",\n".join(lines) + "\n]}\n").encode()


def _ours(path: Path) -> str | None:
    """Return why `path` must not be replaced, or None when it is absent or a patterns.json."""
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_symlink() or not path.is_file():
        return "it is not a regular file"
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return "it is not a patterns.json that errorsite wrote"
    if not isinstance(data, dict) or set(data) - {"version", "base_url", "patterns"} or "patterns" not in data:
        return "it is not a patterns.json that errorsite wrote"
    return None


def write(site: Site, out: Path) -> bool:
    """Write the site's patterns to `out` if they changed; return whether the file was written."""
    data = patterns_bytes(site)
    why = _ours(out)
    if why is not None:
        raise UserError(
            f"refusing to replace {str(out)!r}: {why}",
            hint="name the patterns.json file inside your package, e.g. --out src/mylib/_errorsite/patterns.json",
            page="patterns-out-not-ours",
        )
    try:
        if out.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, out)
    except BaseException:
        os.unlink(temporary)
        raise
    return True
