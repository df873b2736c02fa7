"""The package's modules import each other without a cycle, counting the `__init__` that importing a submodule runs."""

from __future__ import annotations

import ast
from pathlib import Path

GENERATOR = Path(__file__).resolve().parent.parent / "generator"


def module_name(path: Path) -> str:
    parts = ("errorsite", *path.relative_to(GENERATOR).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """Return the package's modules that `path` imports anywhere in its body, the packages around them included."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            targets = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in modules] or [target]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        for target in targets:
            parts = target.split(".")
            # Importing a.b.c runs a/__init__ and a/b/__init__ first.
            found.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
    return {m for m in found & modules if m != name and not name.startswith(m + ".")}


def cycle(graph: dict[str, set[str]]) -> list[str]:
    """Return one import cycle of `graph`, or [] when it has none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        stack.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []


def test_no_module_of_generator_imports_itself_through_others() -> None:
    paths = sorted(GENERATOR.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph = {module_name(p): imports(p, modules) for p in paths}
    assert "errorsite.sitebuild.pipeline" in graph["errorsite.cli"] or "errorsite.sitebuild" in graph["errorsite.cli"]
    assert cycle(graph) == []
