"""Count the raise sites of installed packages (or any source folders) by kind.

Run: python benchmarks/extract_kinds.py click jinja2 path/to/src/pkg ...
Each argument is an importable package name or a folder. Prints, per
package, the sites of each kind (docs/extract.md), raises skipped by reason,
and raises mapped to a class's own-message site; warnings are counted too.
"""

from __future__ import annotations

import collections
import importlib.util
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from errorsite.extract.scan import scan_files  # noqa: E402


def folder(name: str) -> Path:
    """Return the folder of a package name, or the argument itself when it is a folder."""
    if Path(name).is_dir():
        return Path(name).resolve()
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{name}: neither a folder nor an installed package")
    return Path(next(iter(spec.submodule_search_locations)))


def main(names: list[str]) -> None:
    """Print the counts of each package."""
    for name in names:
        root = folder(name)
        files = {p.relative_to(root.parent).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}
        scan = scan_files(files, warns=True)
        kinds = ", ".join(f"{kind} {count}" for kind, count in scan.by_kind().items() if count)
        reasons = collections.Counter(s.reason for s in scan.skipped)
        print(f"{name}: {len(files)} files, {len(scan.sites)} sites ({kinds}); {len(scan.mapped)} mapped;"
              f" skipped {len(scan.skipped)}: " + ", ".join(f"{r} {n}" for r, n in reasons.most_common()))


if __name__ == "__main__":
    main(sys.argv[1:])
