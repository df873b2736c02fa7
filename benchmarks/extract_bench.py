"""Time `extract` (`errorsite.extract.sync.run`) on a generated git repository of 2,000 Python files.

Run: python benchmarks/extract_bench.py [FILES]
Prints the time of a first run (every record new) and of a rerun (nothing changes).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from errorsite.extract import sync  # noqa: E402

RAISES = [
    'raise ValueError(f"bad value {{value!r}} for {name}")',
    'raise KeyError("no key %s in table {name}" % value)',
    'raise errors.ConfigError("option {{}} in {name} is unknown".format(value))',
    'raise TypeError(_("expected a string, got %(t)s") % {{"t": value}})',
    'raise RuntimeError("plain message in {name}")',
    'raise ValueError(value)',
    'raise',
]


def module(index: int) -> str:
    """Return the text of one generated module: a class with methods that raise, ~120 lines."""
    name = f"mod{index}"
    lines = ['"""Generated module."""', "", "import errors", "", "", f"class Thing{index}:"]
    for method in range(8):
        raise_line = RAISES[(index + method) % len(RAISES)].format(name=f"{name}.m{method}")
        lines += [
            f"    def m{method}(self, value):",
            f'        """Method {method}."""',
            "        total = 0",
            "        for item in range(10):",
            "            total += item",
            "        try:",
            "            if value is None:",
            f"                {raise_line}",
            "        except KeyError:",
            "            raise",
            "        return total",
            "",
        ]
    return "\n".join(lines) + "\n"


def make_repo(root: Path, files: int) -> None:
    """Create a git repository with `files` generated modules in one commit."""
    for index in range(files):
        path = root / f"pkg{index % 40}" / f"mod{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(module(index), encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+00:00",
           "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+00:00"}
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "gen"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)


def main() -> None:
    """Build the repository, run extract twice, and print the timings."""
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        repo, content = Path(tmp) / "repo", Path(tmp) / "content"
        repo.mkdir()
        make_repo(repo, files)
        for label in ("first run", "rerun"):
            start = time.perf_counter()
            report = sync.run(repo, "HEAD", "bench/repo", content, [], [], False)
            seconds = time.perf_counter() - start
            print(f"{label}: {files} files, {report.total} records, {len(report.skipped)} skipped"
                  f" in {seconds:.2f} s")


if __name__ == "__main__":
    main()
