"""Run a program of real_programs/ in this process and say, for each of its failing uses, where its error came from.

Run by real_eval.py: python real_truth.py PROGRAM PACKAGE, with the library on the path;
writes JSON: for each use (in USES order), the chain of exceptions that the printed one
handled or wraps, and the library's exceptions made during the use whose text is inside
the printed message (an error that aggregates messages). Each exception has its class's
name as Python prints it, its classes (`__mro__`, qualified names), its text (and whether
one of its arguments is text inside it: a message of its own; its first text argument), the
library's frames of its traceback (outermost first), and the library's frames of the
place it was made, innermost first (seen through the `__init__` a Python class runs; a
class made in C says nothing). A frame of a wrapper that a decorator made (`functools.wraps`
sets its `__wrapped__`) runs in place of the function it decorates: the line of that
function's decorator whose code defines the wrapper comes with it, just outside it, so an
error the wrapper raises is documented by what is written at that decorator line
(`@message("Not a file", cls=FileInvalid)`). This reads no record: it is what the program
did.
"""

from __future__ import annotations

import ast
import builtins
import gc
import importlib
import importlib.util
import inspect
import json
import sys
from pathlib import Path
from types import CodeType, FrameType, FunctionType
from typing import Any


def main() -> None:
    program, package = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("program", program)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    root = Path(importlib.import_module(package).__file__ or "").parent

    def inside(path: str) -> str | None:
        p = Path(path)
        return package + "/" + p.relative_to(root).as_posix() if p.is_relative_to(root) else None

    made: dict[int, tuple[BaseException, list[list[Any]]]] = {}

    def decorated(frame: FrameType) -> list[Any] | None:
        """Return the decorator line a wrapper's frame stands for, in the library: see the module's docstring."""
        line = decorator_line(frame)
        if line is None:
            return None
        rel = inside(line[0])
        return [rel, line[1]] if rel else None

    def stack(frame: FrameType | None) -> list[list[Any]]:
        out = []
        while frame is not None:
            rel = inside(frame.f_code.co_filename)
            if rel:
                out.append([rel, frame.f_lineno])
            outer = decorated(frame)
            if outer is not None:
                out.append(outer)
            frame = frame.f_back
        return out

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_code.co_name != "__init__" or not frame.f_code.co_argcount:
            return
        self = frame.f_locals.get(frame.f_code.co_varnames[0])
        if isinstance(self, BaseException) and id(self) not in made:
            made[id(self)] = (self, stack(frame.f_back))

    def described(error: BaseException) -> dict[str, Any]:
        frames = []
        tb = error.__traceback__
        while tb is not None:
            outer = decorated(tb.tb_frame)
            if outer is not None:
                frames.append(outer)
            rel = inside(tb.tb_frame.f_code.co_filename)
            if rel:
                frames.append([rel, tb.tb_lineno])
            tb = tb.tb_next
        cls = type(error)
        name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
        text = str(error)
        return {"name": name, "mro": [c.__qualname__ for c in cls.__mro__], "text": text, "frames": frames,
                "made": made[id(error)][1] if id(error) in made else [],
                "own": any(isinstance(a, str) and a and a in text for a in error.args),
                "message": next((a for a in error.args if isinstance(a, str)), "")}

    def texts(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [t for v in value.values() for t in texts(v)]
        if isinstance(value, (list, tuple)):
            return [t for v in value for t in texts(v)]
        return []

    out = []
    for use in module.USES.values():
        made.clear()
        error: BaseException | None = None
        sys.setprofile(hook)
        try:
            if getattr(module, "CLI", None) is not None:
                module.CLI.main(use, prog_name="shop", standalone_mode=False)
            else:
                use()
        except BaseException as caught:  # noqa: BLE001 - every use fails; which exception is what is measured
            error = caught
        finally:
            sys.setprofile(None)
        assert error is not None, f"{program}: a use did not fail"
        chain = []
        current: BaseException | None = error
        while current is not None and len(chain) < 8:
            chain.append(described(current))
            current = current.__cause__ or current.__context__
        printed = str(error)
        inner = []
        for other, _ in made.values():
            at = [printed.find(t) for t in texts(other.args) if t and t in printed]
            if other is not error and at:
                inner.append((min(at), described(other)))
        out.append({"chain": chain, "inner": [d for _, d in sorted(inner, key=lambda pair: pair[0])]})
    json.dump(out, sys.stdout)


def decorator_line(frame: FrameType) -> tuple[str, int] | None:
    """Return the file and line of the decorator that made the function a frame runs, when it is a wrapper of
    another function (`__wrapped__`): the decorator of the function it wraps whose own code defines the frame's."""
    if not frame.f_code.co_freevars:
        return None  # a wrapper reads the function it wraps from the decorator that made it
    wrapper = _function_of(frame)
    if wrapper is None or not hasattr(wrapper, "__wrapped__"):
        return None
    target = inspect.unwrap(wrapper)
    code = getattr(target, "__code__", None)
    if code is None:
        return None
    try:
        tree = ast.parse(Path(code.co_filename).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name
                and min([node.lineno] + [d.lineno for d in node.decorator_list]) == code.co_firstlineno):
            for decorator in node.decorator_list:
                maker = _named(decorator.func if isinstance(decorator, ast.Call) else decorator, target.__globals__)
                if isinstance(maker, FunctionType) and frame.f_code in _codes(maker.__code__):
                    return code.co_filename, decorator.lineno
    return None


def _function_of(frame: FrameType) -> FunctionType | None:
    """Return the function object a frame runs: the one of the frame's code whose closure holds the frame's cells."""
    code = frame.f_code
    for candidate in gc.get_referrers(code):
        if not isinstance(candidate, FunctionType) or candidate.__code__ is not code:
            continue
        cells = candidate.__closure__ or ()
        values = [frame.f_locals.get(name, _MISSING) for name in code.co_freevars]
        try:
            if all(cell.cell_contents is value for cell, value in zip(cells, values)):
                return candidate
        except ValueError:  # an empty cell
            continue
    return None


_MISSING = object()


def _named(node: ast.expr, names: dict[str, Any]) -> Any:
    """Return what a name or attribute chain stands for in a module's globals, else None."""
    if isinstance(node, ast.Name):
        return names.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, ast.Attribute):
        return getattr(_named(node.value, names), node.attr, None)
    return None


def _codes(code: CodeType) -> list[CodeType]:
    """Return a code object and every code object defined in it, at any depth."""
    found = [code]
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found += _codes(const)
    return found


if __name__ == "__main__":
    main()
