"""Measure `errorsite lookup` on what real libraries print when their users make real mistakes.

Run: python benchmarks/real_eval.py [--only NAME ...] [--failures K] [--cache DIR]
     (python benchmarks/match_eval.py --real runs it too)

Each program of benchmarks/real_programs/ uses one library, installed from the registry at
the release its DISTRIBUTION pins (`pip install --target`, into the cache folder), and makes
mistakes users make: bad input strings, wrong types, misuse of the API. The library's
package is committed to a git repository and extracted (`errorsite init` does the same), and
every use is run for real (`python <program> <use>`): what it prints is pasted three ways,
the whole output, its last line (a traceback's exception line and what follows it, a CLI's
`Error: ...` line) and the message alone. A use whose message is empty has no message form.

Which records document a use's error is found apart from matching (real_truth.py runs the
program in-process and says where each exception was raised and made): the records pinned
to the innermost of the library's traceback lines that has any (a line in a wrapper that a
decorator made has that decorator's line just outside it), through a record that passes
a handled error's text on to the error it handled; through a re-raise of an error made
elsewhere (`raise error`) to where it was made; for an error whose text is made of other
errors' messages (a dict of messages, the first of several errors), to the first of them;
for an error made as a copy of another (the same message), to where that one was made; with
none of these, the records of the message its class builds itself.

Per library and overall:
- top-1 all: pastes whose first answer is right, of all pastes; a paste of an error no record
  documents is right when no answer is confident (lookup says no page explains it);
- top-1 covered: pastes whose first answer documents the error, of those with a record;
- confident-right: of those, the pastes whose first answer is also confident;
- confident-wrong: pastes whose first answer is confident and does not document the error
  (another raise of an identical message included), of all pastes;
- honest no-page: pastes of errors no record documents with no confident answer, of those;
- node: pastes whose answers match.js gives alike (the whole list of results).
An answer documents the error when it is one of its records, or a page that lists one of them
as another place of its message (`places`).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "benchmarks" / "real_programs"
TRUTH = ROOT / "benchmarks" / "real_truth.py"
FORMS = ("whole", "last line", "message")
LIMIT = 10
_RELAY = re.compile(r"\{[^{}]*\}")
"""A message that is one placeholder passes on the text of the error it handled."""


@dataclass(frozen=True)
class Program:
    """A program of real_programs/: the library it uses and its failing uses."""

    path: Path
    distribution: str
    package: str
    repo: str
    uses: list[str]
    cli: bool

    @property
    def name(self) -> str:
        return self.package


def programs() -> list[Program]:
    """Return every program, read without importing it (its library is not installed here)."""
    out = []
    for path in sorted(PROGRAMS.glob("*_app.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        values: dict[str, Any] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                if name in ("DISTRIBUTION", "PACKAGE", "REPO"):
                    values[name] = ast.literal_eval(node.value)
                elif name == "USES" and isinstance(node.value, ast.Dict):
                    values[name] = [ast.literal_eval(k) for k in node.value.keys if k is not None]
                elif name == "CLI":
                    values[name] = True
        out.append(Program(path, values["DISTRIBUTION"], values["PACKAGE"], values["REPO"], values["USES"],
                           values.get("CLI", False)))
    return out


def install(program: Program, cache: Path) -> Path:
    """Return the folder the program's library is installed in, installing it first when needed."""
    target = cache / program.distribution.replace("==", "-")
    done = target / ".installed"
    if not done.exists():
        shutil.rmtree(target, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--disable-pip-version-check",
                        "--target", str(target), program.distribution], check=True, capture_output=True)
        done.write_text(program.distribution, encoding="utf-8")
    return target


@dataclass
class Site:
    """A library's package as a repository, its records and their search index."""

    repo: Path
    records: dict[str, dict[str, Any]]
    index: dict[str, Any]
    loaded: Any = None


def make_site(program: Program, installed: Path, folder: Path) -> Site:
    """Return the site of the installed package: committed to a repository, extracted, indexed."""
    from errorsite import load, validate
    from errorsite.extract import sync
    from errorsite.search.index import build_index, load_index, search_entry

    repo = folder / "repo"
    shutil.copytree(installed / program.package, repo / program.package, ignore=shutil.ignore_patterns("__pycache__"))
    git = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org",
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", program.distribution]):
        subprocess.run(["git", *args], cwd=repo, env=git, check=True)
    content = folder / "content"
    sync.run(repo, "HEAD", program.repo, content)
    site = validate.build_site(load.load(content))
    records = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (content / "errors").glob("*.json")}
    index = json.loads(json.dumps(build_index([search_entry(r) for r in site.records])))
    return Site(repo, records, index, load_index(index))


def outputs(program: Program, installed: Path, work: Path) -> list[str]:
    """Return what each use prints when run for real (standard error, where Python and click write errors)."""
    env = {**os.environ, "PYTHONPATH": str(installed), "COLUMNS": "80", "PYTHONWARNINGS": "ignore"}
    out = []
    for use in program.uses:
        done = subprocess.run([sys.executable, str(program.path), use], capture_output=True, text=True, cwd=work,
                              env=env, timeout=120)
        assert done.returncode != 0, f"{program.name}: {use!r} did not fail"
        out.append(done.stderr)
    return out


def truths(program: Program, installed: Path, work: Path) -> list[dict[str, Any]]:
    """Return real_truth.py's account of each use's error."""
    env = {**os.environ, "PYTHONPATH": str(installed), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, str(TRUTH), str(program.path), program.package], capture_output=True,
                          text=True, cwd=work, env=env, timeout=300, check=True)
    return json.loads(done.stdout)


class Spans:
    """The line span of every raise, call and return in the repository's files, and which raises re-raise a name."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.ends: dict[str, dict[int, int]] = {}
        self.reraises: dict[str, set[int]] = {}

    def _read(self, path: str) -> None:
        if path in self.ends:
            return
        ends: dict[int, int] = {}
        names: set[int] = set()
        for node in ast.walk(ast.parse((self.repo / path).read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Raise, ast.Call, ast.Return)):
                ends[node.lineno] = max(ends.get(node.lineno, 0), node.end_lineno or node.lineno)
            if isinstance(node, ast.Raise) and isinstance(node.exc, (ast.Name, ast.Attribute)):
                names.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        self.ends[path], self.reraises[path] = ends, names

    def covers(self, record: dict[str, Any], path: str, line: int) -> bool:
        """Return whether a line of `path` falls inside the statement or call the record is pinned to."""
        source = record["source"]
        if source["path"] != path:
            return False
        self._read(path)
        start = source["line"]
        return start in self.ends[path] and start <= line <= self.ends[path][start]

    def reraise(self, path: str, line: int) -> bool:
        """Return whether the line raises an error held in a name (`raise error`): one made elsewhere."""
        self._read(path)
        return line in self.reraises[path]


def _at(frames: list[list[Any]], site: Site, spans: Spans) -> tuple[list[str], list[Any] | None]:
    """Return the records pinned to the first frame (in the order given) that has any, and that frame."""
    for path, line in frames:
        hit = sorted(i for i, r in site.records.items() if spans.covers(r, path, line))
        if hit:
            return hit, [path, line]
    return [], None


def _relays(ids: list[str], site: Site) -> bool:
    return all(_RELAY.fullmatch(site.records[i]["message"]) for i in ids)


def documenting(truth: dict[str, Any], site: Site, spans: Spans) -> frozenset[str]:
    """Return the ids of the records that document a use's error (see the module's docstring)."""
    chain = truth["chain"]
    if truth["inner"] and aggregates(chain[0]):
        return documenting({"chain": [truth["inner"][0]], "inner": []}, site, spans)
    current = chain[0]
    for current in chain:
        ids, frame = _at(list(reversed(current["frames"])), site, spans)
        if ids and frame is not None and spans.reraise(*frame) and current["made"]:
            made, _ = _at(current["made"], site, spans)
            if made and not _relays(made, site):
                return frozenset(made)
        if ids and not _relays(ids, site):
            return frozenset(ids)
        if not ids:
            made, _ = _at(current["made"], site, spans)
            if made and not _relays(made, site):
                return frozenset(made)
            break
    # An error made as a copy of another one (jsonschema's SchemaError.create_from(error)): where that one was made.
    copied = next((inner for inner in truth["inner"] if inner["message"] and inner["message"] == chain[0]["message"]),
                  None)
    if copied is not None:
        found = documenting({"chain": [copied], "inner": []}, site, spans)
        if found:
            return found
    for mro in (current["mro"], chain[0]["mro"]):
        for cls in mro:
            own = sorted(i for i, r in site.records.items() if r["exception"] == cls
                         and (r["source"].get("function") or "").startswith(cls + "."))
            if own:
                return frozenset(own)
    return frozenset()


def aggregates(error: dict[str, Any]) -> bool:
    """Return whether an error's text is made of other errors' messages: a dict or list of them, or one of them
    with where it was found (its own arguments hold no text of what it prints)."""
    return bool(error["text"]) and not error["own"] or error["text"][:1] in "{["


def pasted(program: Program, output: str, truth: dict[str, Any]) -> list[tuple[str, str]]:
    """Return the output as pasted: whole, its last line, the message alone (none when it is empty)."""
    if program.cli:
        last = output.strip().splitlines()[-1]
        return [("whole", output), ("last line", last), ("message", last.split(": ", 1)[1])]
    name = truth["chain"][0]["name"]
    start = output.rfind("\n" + name) + 1
    line = output[start:].rstrip("\n")
    message = line[len(name) + 2:] if line.startswith(name + ":") else ""
    forms = [("whole", output), ("last line", line)]
    return forms + [("message", message)] if message.strip() else forms


@dataclass
class Tally:
    """Counts of one library (or all)."""

    pastes: int = 0
    covered: int = 0
    right: int = 0
    right_covered: int = 0
    confident_right: int = 0
    confident_wrong: int = 0
    honest: int = 0
    agree: int = 0
    missed: list[tuple[str, str, str, str]] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("pastes", "covered", "right", "right_covered", "confident_right", "confident_wrong", "honest",
                     "agree"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def row(self, name: str) -> str:
        def pct(a: int, b: int) -> str:
            return f"{100 * a / b:6.1f}%" if b else "     - "
        uncovered = self.pastes - self.covered
        return (f"{name:12} {self.pastes:6d} {self.covered:7d} {pct(self.right, self.pastes):>9} "
                f"{pct(self.right_covered, self.covered):>9} {pct(self.confident_right, self.covered):>9} "
                f"{pct(self.confident_wrong, self.pastes):>9} "
                f"{self.confident_wrong:4d} {pct(self.honest, uncovered):>9} {uncovered:4d} {pct(self.agree, self.pastes):>8}")


HEADER = (f"{'library':12} {'pastes':>6} {'covered':>7} {'top1-all':>9} {'top1-cov':>9} {'conf-right':>9} "
          f"{'conf-wrong':>9} {'n':>4} "
          f"{'no-page':>9} {'n':>4} {'node':>8}")


def measure(program: Program, cache: Path, work: Path) -> tuple[Tally, Site]:
    """Return the counts of one program's pastes."""
    from errorsite.search.rank import search

    installed = install(program, cache)
    folder = work / program.name
    folder.mkdir()
    site = make_site(program, installed, folder)
    spans = Spans(site.repo)
    cases = []
    for use, output, truth in zip(program.uses, outputs(program, installed, folder), truths(program, installed, folder)):
        expected = documenting(truth, site, spans)
        for form, text in pasted(program, output, truth):
            cases.append((use, form, text, expected))
    from benchmarks.match_eval import run_node  # the browser script as match_eval runs it

    js = run_node(site.index, [text for _, _, text, _ in cases], LIMIT)
    tally = Tally()
    for (use, form, text, expected), theirs in zip(cases, js):
        results = search(site.loaded, text, LIMIT)
        top = results[0] if results else None
        confident = bool(top and top["confident"])
        tally.pastes += 1
        tally.agree += results == theirs
        if expected:
            tally.covered += 1
            ok = top is not None and bool({top["id"], *top["places"]} & expected)
            tally.right += ok
            tally.right_covered += ok
            tally.confident_right += confident and ok
            tally.confident_wrong += confident and not ok
        else:
            ok = not any(r["confident"] for r in results)
            tally.right += ok
            tally.honest += ok
            tally.confident_wrong += not ok
        if not ok:
            got = f"{top['id']} {site.records[top['id']]['message']!r}{' (confident)' if confident else ''}" if top else "nothing"
            documented = "; ".join(f"{i} {site.records[i]['message']!r}" for i in sorted(expected)) or "no record"
            tally.missed.append((use, form, got, documented))
    return tally, site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", nargs="+", help="the libraries (package names) to measure; all by default")
    parser.add_argument("--failures", type=int, default=0, help="misses to show per library")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "errorsite-real-bench",
                        help="where the libraries are installed, kept between runs")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    chosen = [p for p in programs() if not args.only or p.name in args.only]
    args.cache.mkdir(parents=True, exist_ok=True)
    total = Tally()
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        for program in chosen:
            tally, site = measure(program, args.cache, Path(tmp))
            total.add(tally)
            print(tally.row(program.name) + f"  {program.distribution}, {len(site.records)} records, "
                  f"{len(program.uses)} uses", flush=True)
            for use, form, got, expected in tally.missed[:args.failures]:
                print(f"    missed [{form}] {use}: first {got}; documented by {expected}")
    print(total.row("overall"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
