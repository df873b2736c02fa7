"""Write the lowercasing table that search matching uses into templates/static/match.js.

Run: python scripts/lower_table.py [--check]

Matching lowercases per code point (docs/matching.md, Characters). Python and
each browser have the Unicode tables of their own release, so one table, made
here from this Python's `str.lower`, is what both runtimes use: match.js in the
browser and node, and generator/search/text.py, which reads it from the same
line of match.js. `--check` writes nothing and fails when the line differs from
what this Python makes (tests/test_match.py checks the same).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "templates" / "static" / "match.js"
LINE = re.compile(r"^(  var LOWER_RUNS = )\[[-0-9,]*\];$", re.M)
"""The line of match.js that holds the table (generator/search/text.py reads it with the same pattern)."""


def python_lowercase() -> dict[int, int]:
    """Return each code point that this Python lowercases to one code point of the same plane, and that code point."""
    table = {}
    for point in range(0x110000):
        if 0xD800 <= point <= 0xDFFF:
            continue
        low = chr(point).lower()
        # Longer forms (`İ` is two code points) and forms in another plane would change the text's length
        # in code points or in UTF-16 units, which the positions of matching count in.
        if len(low) == 1 and low != chr(point) and (ord(low) > 0xFFFF) == (point > 0xFFFF):
            table[point] = ord(low)
    return table


def runs(table: dict[int, int]) -> list[int]:
    """Return `table` as runs, three numbers each: the gap from the last run's end, the count of code points
    (negative: every other code point) and what each adds to become lowercase."""
    points = sorted(table)
    out: list[int] = []
    end = i = 0
    while i < len(points):
        start, offset = points[i], table[points[i]] - points[i]
        count, step = 1, 1
        for stride in (1, 2):
            n = 1
            while (i + n < len(points) and points[i + n] == start + n * stride
                   and table[points[i + n]] - points[i + n] == offset):
                n += 1
            if n > count:
                count, step = n, stride
        out += [start - end, count if step == 1 else -count, offset]
        end = start + (count - 1) * step + 1
        i += count
    return out


def table_line() -> str:
    """Return the table as match.js writes it, from this Python."""
    return json.dumps(runs(python_lowercase()), separators=(",", ":"))


def main(argv: list[str] | None = None) -> int:
    """Write the table into match.js, or with --check say whether it is the one this Python makes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when match.js differs")
    args = parser.parse_args(argv)
    script = SCRIPT.read_text(encoding="utf-8")
    if len(LINE.findall(script)) != 1:
        print(f"{SCRIPT}: no line `  var LOWER_RUNS = [...];` to write the table into", file=sys.stderr)
        return 1
    written = LINE.sub(lambda found: found.group(1) + table_line() + ";", script)
    if args.check:
        if written != script:
            print(f"{SCRIPT}: the table differs from this Python's (Unicode {_unicode()}): run {sys.argv[0]}",
                  file=sys.stderr)
        return int(written != script)
    SCRIPT.write_text(written, encoding="utf-8")
    print(f"{SCRIPT}: table of Unicode {_unicode()} written")
    return 0


def _unicode() -> str:
    """Return the Unicode version of this Python's tables."""
    import unicodedata

    return unicodedata.unidata_version


if __name__ == "__main__":
    raise SystemExit(main())
