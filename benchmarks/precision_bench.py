"""Measure how many of extract's callers and "Set by" names an independent analyser confirms (precision).

Run: python benchmarks/precision_bench.py [--verbose] [--only httpx,rich] [--repo NAME=PATH] [--sample N]

Each library of LIBRARIES is downloaded from the registry (`pip download`, once,
into `--work`), its wheel's packages made into a git repository, and extracted as
`extract` does. Every entry is then checked with jedi, a static analyser that
knows nothing of extract's rules:

- a caller: jedi's `goto` and `infer` on each call of the caller's line that
  is named like the raising function (its class, for a constructor) must reach
  that function, or a method it overrides (a call of the base's method may run
  the override);
- a name: jedi's `goto` on the name where the raising function reads it, the
  nearest reading before the raise, must reach the definition named, or an
  assignment whose value reads what reaches it (`url = URL(url)`, `self.x =
  x`), or the same attribute of a class on one line with the field's; a
  parameter of another function (a public caller's) must be of a function
  that calls the one whose parameter of that name jedi reaches. A
  command-line option is checked by
  argparse itself: its `dest` must be the name's last part, jedi must take the
  receiver for an `argparse.Namespace` or an object with that attribute, and
  its help must not send the user to another flag. A name the message spells
  as a flag (`--num-workers`) must be defined under that flag's `dest`.

An entry jedi cannot decide (it infers nothing there) is counted apart: precision
is right / (right + wrong). `--repo NAME=PATH` adds a git repository already
on disk (an unpacked wheel, say); `--sample N` checks N callers and N names of
each library, picked at random with a fixed seed. `--verbose` lists every wrong
entry, and `--unknown` the undecided ones too.
"""

from __future__ import annotations

import argparse
import ast
import random
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jedi

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from errorsite.extract import git, scan  # noqa: E402
from errorsite.extract.globs import FileFilter  # noqa: E402
from errorsite.extract.sites import RaiseSite  # noqa: E402
from errorsite.model import Caller, Definition, SourceSettings  # noqa: E402

LIBRARIES = {"httpx": "0.28.1", "rich": "13.9.4", "jinja2": "3.1.6", "attrs": "25.3.0"}
"""Pure-Python libraries of the registry, each at a fixed version: none is one tests/real_libraries.py uses."""

CONSTRUCTORS = ("__init__", "__post_init__", "__new__")
"""Methods a call of their class runs."""

DESCRIPTORS = frozenset({"builtins.classmethod", "builtins.staticmethod", "builtins.property"})
"""What jedi sometimes answers for a decorated method instead of its definition."""

RIGHT, WRONG, UNKNOWN = "right", "wrong", "unknown"


@dataclass
class Tally:
    """The verdicts of one library's entries of one kind."""

    counts: Counter[str] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    def add(self, verdict: str, what: str) -> None:
        """Count one entry's verdict; keep what it was when it is not right."""
        self.counts[verdict] += 1
        if verdict == WRONG:
            self.wrong.append(what)
        elif verdict == UNKNOWN:
            self.unknown.append(what)

    def precision(self) -> float | None:
        """Return right / (right + wrong), None when nothing was decided."""
        decided = self.counts[RIGHT] + self.counts[WRONG]
        return self.counts[RIGHT] / decided if decided else None


def fetch(name: str, version: str, work: Path) -> Path:
    """Return a git repository of the packages of `name==version`'s wheel, downloading and making it once."""
    repo = work / f"{name}-{version}"
    if (repo / ".git").is_dir():
        return repo
    downloads = work / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    wheel = next(downloads.glob(f"{name}-{version}-*.whl"), None)
    if wheel is None:
        subprocess.run([sys.executable, "-m", "pip", "download", f"{name}=={version}", "--no-deps", "--only-binary",
                        ":all:", "-d", str(downloads), "-q"], check=True)
        wheel = next(downloads.glob(f"{name}-{version}-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(repo, [m for m in archive.namelist() if ".dist-info/" not in m])
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@example.org", "PATH": "/usr/bin:/bin"}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", f"{name} {version}"]):
        subprocess.run(["git", *command], cwd=repo, check=True, env=env)
    return repo


def extract(repo: Path) -> list[RaiseSite]:
    """Return the sites of `repo` at HEAD with their callers and names, as `extract` finds them."""
    files = git.snapshot(repo, "HEAD", FileFilter.of_settings(SourceSettings())).files
    return scan.scan_files(files, context=True).sites


class Oracle:
    """jedi's reading of one repository."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # Only the repository and the standard library: what the oracle says does not depend on what is installed here.
        stdlib = [sysconfig.get_path(k) for k in ("stdlib", "platstdlib")]
        self.project = jedi.Project(root, sys_path=[str(root), *dict.fromkeys(stdlib)], smart_sys_path=False)
        self._texts: dict[str, str] = {}
        self._trees: dict[str, ast.Module] = {}

    def script(self, path: str) -> jedi.Script:
        """Return a new jedi script of a file of the repository.

        New for each question: jedi stops inferring once one script has run a few hundred functions.
        """
        if path not in self._texts:
            self._texts[path] = (self.root / path).read_text(encoding="utf-8", errors="replace")
        return jedi.Script(self._texts[path], path=self.root / path, project=self.project)

    def tree(self, path: str) -> ast.Module:
        """Return the parsed file."""
        if path not in self._trees:
            self._trees[path] = ast.parse((self.root / path).read_bytes())
        return self._trees[path]

    def where(self, name: Any) -> tuple[str | None, int]:
        """Return the repository-relative path (None outside it) and line of a jedi name."""
        module = name.module_path
        if module is None:
            return None, name.line or 0
        try:
            return Path(module).relative_to(self.root).as_posix(), name.line or 0
        except ValueError:
            return None, name.line or 0

    def reach(self, path: str, line: int, column: int) -> list[Any]:
        """Return what jedi's `goto` (following imports) and its `infer` find for the name at a position.

        `render = self.render` then `render(...)`: `goto` stops at the assignment, `infer` reaches the method.
        """
        script = self.script(path)
        try:
            found = [*script.goto(line, column, follow_imports=True), *script.infer(line, column)]
        except Exception:  # noqa: BLE001 - jedi fails on some code; such an entry is undecided
            return []
        # On an Enum's class jedi stops at the decorator's object (`classmethod`), which says nothing of the method.
        return [n for n in found if n.full_name not in DESCRIPTORS]

    def sources(self, name: Any, depth: int = 3) -> list[Any]:
        """Return a jedi name and, when it is assigned (`url = URL(url)`, `self.x = x`), what the value reads, as jedi
        finds them, `depth` assignments deep."""
        found = [name]
        path, line = self.where(name)
        if depth == 0 or path is None or name.type != "statement":
            return found
        for node in ast.walk(self.tree(path)):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.lineno == line and node.value:
                for read in ast.walk(node.value):
                    if isinstance(read, ast.Name) and isinstance(read.ctx, ast.Load):
                        for source in self.reach(path, read.lineno, read.col_offset):
                            found += self.sources(source, depth - 1)
        return found

    def definition(self, path: str, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None:
        """Return the last `def` (or class) of a qualified name in a file (the real one after `@overload` stubs)."""
        found = None
        stack: list[tuple[ast.AST, tuple[str, ...]]] = [(self.tree(path), ())]
        while stack:
            node, names = stack.pop()
            for child in ast.iter_child_nodes(node):
                inner = names
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = names + (child.name,)
                    if ".".join(inner) == qualname and (found is None or child.lineno > found.lineno):
                        found = child
                stack.append((child, inner))
        return found

    @cache  # noqa: B019 - one oracle per run
    def ancestors(self, path: str, line: int) -> frozenset[tuple[str | None, int]]:
        """Return the class defined at (path, line) and every class it is based on, as jedi resolves its bases."""
        found: set[tuple[str | None, int]] = set()
        todo: list[tuple[str | None, int]] = [(path, line)]
        while todo:
            current = todo.pop()
            if current in found:
                continue
            found.add(current)
            at_path, at_line = current
            if at_path is None:
                continue
            node = next((n for n in ast.walk(self.tree(at_path)) if isinstance(n, ast.ClassDef) and n.lineno == at_line),
                        None)
            for base in node.bases if node is not None else []:
                end = base.func if isinstance(base, ast.Call) else base.value if isinstance(base, ast.Subscript) else base
                todo += [self.where(n) for n in self.reach(at_path, end.end_lineno or end.lineno,
                                                           max((end.end_col_offset or 1) - 1, 0)) if n.type == "class"]
        return frozenset(found)

    def enclosing_class(self, name: Any) -> tuple[str | None, int] | None:
        """Return where the class that defines a jedi name (a method, an attribute set in a method) is."""
        parent = name.parent()
        while parent is not None and parent.type != "module":
            if parent.type == "class":
                return self.where(parent)
            parent = parent.parent()
        return None


def called_names(tree: ast.Module, line: int, name: str) -> list[tuple[int, int]]:
    """Return the position of `name` in each call on `line` that calls something by that name (`f(...)`, `x.f(...)`)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno != line:
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == name:
            found.append((func.lineno, func.col_offset))
        elif isinstance(func, ast.Attribute) and func.attr == name and func.end_lineno is not None:
            found.append((func.end_lineno, (func.end_col_offset or 0) - len(name)))
    return found


def check_caller(oracle: Oracle, site: RaiseSite, caller: Caller) -> str:
    """Return whether jedi finds that `caller`'s line calls the function of `site`."""
    target = oracle.definition(site.path, site.function)
    if target is None:
        return UNKNOWN
    parts = site.function.split(".")
    owner = oracle.definition(site.path, ".".join(parts[:-1])) if len(parts) > 1 else None
    if parts[-1] in CONSTRUCTORS and isinstance(owner, ast.ClassDef):
        wanted, lines = owner.name, {owner.lineno, target.lineno}
    else:
        wanted, lines = parts[-1], {target.lineno}
    method_of = owner.lineno if isinstance(owner, ast.ClassDef) and parts[-1] not in CONSTRUCTORS else None
    reached = False
    for line, column in called_names(oracle.tree(caller.path), caller.line, wanted):
        for name in oracle.reach(caller.path, line, column):
            reached = True
            path, at = oracle.where(name)
            if path == site.path and at in lines:
                return RIGHT
            # A call of a method the raising one overrides may run the override.
            if method_of is not None and name.type == "function" and name.name == wanted:
                defining = oracle.enclosing_class(name)
                if defining is not None and defining in oracle.ancestors(site.path, method_of):
                    return RIGHT
    return WRONG if reached else UNKNOWN


def readings(oracle: Oracle, site: RaiseSite, dotted: str) -> list[tuple[int, int]]:
    """Return the positions of the last part of `dotted` where the raising function reads it, nearest the raise first."""
    function = oracle.definition(site.path, site.function) if site.function else None
    scope: ast.AST = function if function is not None else oracle.tree(site.path)
    found = []
    for node in ast.walk(scope):
        if not isinstance(getattr(node, "ctx", None), ast.Load):
            continue  # `x = ...` is where x is set, not read
        if isinstance(node, ast.Attribute) and _dotted(node) == dotted and node.end_lineno is not None:
            found.append((node.end_lineno, (node.end_col_offset or 0) - len(node.attr)))
        elif isinstance(node, ast.Name) and node.id == dotted:
            found.append((node.lineno, node.col_offset))
    before = sorted((p for p in found if p[0] <= site.line), reverse=True)
    return before + sorted(p for p in found if p[0] > site.line)


def _dotted(node: ast.expr) -> str | None:
    """Return `a.b.c` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def option_dest(oracle: Oracle, definition: Definition) -> tuple[str, str | None] | None:
    """Return the `dest` and help argparse gives an `add_argument(...)` of literal flags on the definition's line."""
    for node in ast.walk(oracle.tree(definition.path)):
        if not (isinstance(node, ast.Call) and node.lineno == definition.line and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("add_argument", "add_option")):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value.value for k in node.keywords
                    if k.arg in ("dest", "help") and isinstance(k.value, ast.Constant)}
        try:
            action = argparse.ArgumentParser(add_help=False).add_argument(
                *flags, **({"dest": keywords["dest"]} if "dest" in keywords and flags[0].startswith("-") else {}))
        except (ValueError, TypeError, IndexError):
            return None
        help_text = keywords.get("help")
        return action.dest, help_text if isinstance(help_text, str) else None
    return None


def sends_elsewhere(help_text: str | None) -> bool:
    """Return whether an option's help says it is deprecated in favour of another flag."""
    lowered = (help_text or "").lower()
    return "deprecated" in lowered and "--" in lowered


def field_at(oracle: Oracle, definition: Definition) -> tuple[str, int] | None:
    """Return the name and class line of a class-level field defined on the definition's line."""
    for node in ast.walk(oracle.tree(definition.path)):
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
                    stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None)
                if isinstance(target, ast.Name) and stmt.lineno == definition.line:
                    return target.id, node.lineno
    return None


def check_name(oracle: Oracle, site: RaiseSite, name: str, definition: Definition) -> str:
    """Return whether jedi (or argparse, for a command-line option) finds that `definition` sets `name` at `site`."""
    last = name.rpartition(".")[2]
    positions = readings(oracle, site, name)
    if not positions or (definition.flag and definition.flag in site.message):
        return check_spelled(oracle, site, name, definition)
    option = option_dest(oracle, definition) if definition.kind == "option" else None
    if option is not None:
        dest, help_text = option
        if dest != last or sends_elsewhere(help_text):
            return WRONG
        return check_namespace(oracle, site, name, positions[0])
    reached = []
    for line, column in positions[:3]:
        reached = [s for r in oracle.reach(site.path, line, column) for s in oracle.sources(r)]
        if reached:
            break
    if not reached:
        return UNKNOWN
    for found in reached:
        path, at = oracle.where(found)
        if (path, at) == (definition.path, definition.line):
            return RIGHT
    if definition.kind == "parameter":
        return check_passed(oracle, name, definition, reached)
    if definition.kind == "option":
        # The same attribute of a class on one line with the field's (set in a method, `self.x = ...`, or a base's
        # field that a class based on it declares again).
        field_found = field_at(oracle, definition)
        for found in reached:
            defining = oracle.enclosing_class(found)
            if field_found is None or field_found[0] != last or defining is None or found.name != last:
                continue
            field_class = (definition.path, field_found[1])
            if field_class in oracle.ancestors(*defining) or defining in oracle.ancestors(*field_class):
                return RIGHT
        # A click option is its command's parameter.
        for found in reached:
            if found.type == "param" and oracle.where(found)[0] == definition.path:
                function = found.parent()
                if function is not None and (function.line or 0) > definition.line and _decorates(
                        oracle, definition, function.line):
                    return RIGHT
    return WRONG


def _decorates(oracle: Oracle, definition: Definition, def_line: int) -> bool:
    """Return whether the definition's line is a decorator of the function defined at `def_line`."""
    for node in ast.walk(oracle.tree(definition.path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == def_line:
            return any(d.lineno == definition.line for d in node.decorator_list)
    return False


def check_namespace(oracle: Oracle, site: RaiseSite, name: str, position: tuple[int, int]) -> str:
    """Return whether jedi takes the receiver of `name` for an argparse namespace or an object with its attribute."""
    receiver = name.rpartition(".")[0]
    if not receiver:
        return RIGHT  # argparse gives a plain name only by the option's dest read as a local of its own file
    line, column = position
    script = oracle.script(site.path)
    try:
        kinds = script.infer(line, max(column - 2, 0))
        attribute = script.goto(line, column, follow_imports=True)
    except Exception:  # noqa: BLE001
        return UNKNOWN
    if any(k.full_name == "argparse.Namespace" for k in kinds) or attribute:
        return RIGHT
    return WRONG if kinds else UNKNOWN


def check_passed(oracle: Oracle, name: str, definition: Definition, reached: list[Any]) -> str:
    """Return whether the parameter `definition` sets what jedi reached: a parameter of a function that the
    definition's function calls (a private function's parameter set at its public caller, `super().__init__(x=x)`)."""
    tree = oracle.tree(definition.path)
    caller = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and any(a.arg == name.rpartition(".")[2] and a.lineno == definition.line
                           for a in [*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs])), None)
    if caller is None:
        return WRONG
    functions = {oracle.where(f) for r in reached if r.type == "param" and (f := r.parent()) is not None}
    for path, line in functions:
        called = next((n for n in ast.walk(oracle.tree(path)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                       and n.lineno == line), None) if path is not None else None
        if called is None:
            continue
        wanted = "__init__" if called.name in CONSTRUCTORS else called.name
        for node in ast.walk(caller):
            if not isinstance(node, ast.Call):
                continue
            for at_line, column in called_names(tree, node.lineno, wanted):
                if any(oracle.where(f) == (path, line) for f in oracle.reach(definition.path, at_line, column)):
                    return RIGHT
    return WRONG


def check_spelled(oracle: Oracle, site: RaiseSite, name: str, definition: Definition) -> str:
    """Return whether a name is set by a flag the message spells: the definition defines that flag's dest (argparse's
    own reading of the flag), and the name's last part is that dest."""
    flag, last = definition.flag, name.rpartition(".")[2]
    if flag is None or flag not in site.message:
        return WRONG
    dest = argparse.ArgumentParser(add_help=False).add_argument(flag).dest
    if dest != last:
        return WRONG
    option = option_dest(oracle, definition)
    if option is not None:
        return RIGHT if option[0] == last and not sends_elsewhere(option[1]) else WRONG
    found = field_at(oracle, definition)
    return RIGHT if found is not None and found[0] == last else WRONG


def sample(entries: list[Any], size: int | None) -> list[Any]:
    """Return `size` entries picked with a fixed seed, or all of them."""
    if size is None or len(entries) <= size:
        return entries
    return random.Random(42).sample(entries, size)


def measure(label: str, repo: Path, size: int | None) -> tuple[Tally, Tally, int]:
    """Return the verdicts of the callers and of the names of one repository, and its site count."""
    sites = extract(repo)
    oracle = Oracle(repo)
    callers, names = Tally(), Tally()
    for site, caller in sample([(s, c) for s in sites for c in s.callers], size):
        verdict = check_caller(oracle, site, caller)
        callers.add(verdict, f"{label} {site.path}:{site.line} {site.function}: {caller.path}:{caller.line} "
                             f"{caller.function or '<module>'}")
    for site, name, definition in sample([(s, n, d) for s in sites for n, d in s.names], size):
        verdict = check_name(oracle, site, name, definition)
        flag = f" {definition.flag}" if definition.flag else ""
        names.add(verdict, f"{label} {site.path}:{site.line} {site.function}: {name} -> {definition.kind}{flag} "
                           f"{definition.path}:{definition.line}")
    return callers, names, len(sites)


def line_of(label: str, kind: str, tally: Tally) -> str:
    """Return one line of the table: counts and precision."""
    precision = tally.precision()
    shown = f"{precision:.1%}" if precision is not None else "-"
    counts = tally.counts
    return (f"{label:<16} {kind:<8} {counts[RIGHT]:>6} {counts[WRONG]:>6} {counts[UNKNOWN]:>8}  {shown:>9}")


def main() -> None:
    """Parse the arguments, check every library and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "errorsite-precision",
                        help="where downloads and repositories are kept between runs")
    parser.add_argument("--only", help="comma-separated names of LIBRARIES to check (default: all)")
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=PATH",
                        help="also check this git repository")
    parser.add_argument("--sample", type=int, help="check at most this many callers and names of each library")
    parser.add_argument("--verbose", action="store_true", help="list the wrong entries")
    parser.add_argument("--unknown", action="store_true", help="list the entries jedi could not decide")
    args = parser.parse_args()
    chosen = args.only.split(",") if args.only else list(LIBRARIES)
    repos = [(f"{n} {LIBRARIES[n]}", fetch(n, LIBRARIES[n], args.work)) for n in chosen]
    repos += [(spec.partition("=")[0], Path(spec.partition("=")[2])) for spec in args.repo]
    start = time.perf_counter()
    total_callers, total_names = Tally(), Tally()
    print(f"{'library':<16} {'entries':<8} {'right':>6} {'wrong':>6} {'unknown':>8}  {'precision':>9}")
    for label, repo in repos:
        callers, names, count = measure(label.split()[0], repo, args.sample)
        print(line_of(label, "callers", callers))
        print(line_of(f"  ({count} sites)", "names", names))
        for total, tally in ((total_callers, callers), (total_names, names)):
            total.counts.update(tally.counts)
            total.wrong += tally.wrong
            total.unknown += tally.unknown
    print(line_of("overall", "callers", total_callers))
    print(line_of("overall", "names", total_names))
    print(f"{time.perf_counter() - start:.0f} s")
    for title, listed, shown in (("wrong", "wrong", args.verbose), ("undecided", "unknown", args.unknown)):
        if not shown:
            continue
        for kind, tally in (("callers", total_callers), ("names", total_names)):
            entries = getattr(tally, listed)
            print(f"\n{title} {kind} ({len(entries)}):")
            for entry in entries:
                print(f"  {entry}")


if __name__ == "__main__":
    main()
