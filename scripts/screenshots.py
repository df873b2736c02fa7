"""Write screenshots of every checked page, at 360, 390 and 1280 px wide, in light and dark, for a person to look at.

Run: python scripts/screenshots.py OUTDIR [--only VIEW,...] [--widths 390,1280] [--viewport-only]

Builds the same sites as the browser tests, serves them locally and saves
`OUTDIR/<view>-<width>-<scheme>.png` for each view that the tests check.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import browser_support as support  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, build and serve the sites, and write the screenshots."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the PNG files into")
    parser.add_argument("--only", default="", help="comma-separated view names (default: every view)")
    parser.add_argument("--widths", default="360,390,1280", help="comma-separated window widths in px")
    parser.add_argument("--viewport-only", action="store_true", help="capture the first screen, not the whole page")
    args = parser.parse_args(argv)
    wanted = {name for name in args.only.split(",") if name}
    views = [view for view in support.VIEWS if not wanted or view.name in wanted]
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, support.serve(Path(tmp)) as (sites, server_url), \
            support.launch() as browser:
        for view in views:
            for width in [int(w) for w in args.widths.split(",") if w]:
                for scheme in support.SCHEMES:
                    with support.open_tab(browser, server_url, width, scheme) as tab:
                        view.show(tab, sites)
                        target = args.out / f"{view.name}-{width}-{scheme}.png"
                        tab.page.screenshot(path=str(target), full_page=not args.viewport_only)
                        print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
