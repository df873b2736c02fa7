"""Run a program of real_programs/ in this process and say, for each of its failing uses, where its error came from.

Run by real_eval.py: python real_truth.py PROGRAM PACKAGE, with the library on the path;
writes JSON: for each use (in USES order), the chain of exceptions that the printed one
handled or wraps, and the library's exceptions made during the use whose text is inside
the printed message (an error that aggregates messages). Each exception has its class's
name as Python prints it, its classes (`__mro__`, qualified names), its text (and whether
one of its arguments is text inside it: a message of its own; its first text argument), the
library's frames of its traceback (outermost first), and the library's frames of the
place it was made, innermost first (seen through the `__init__` a Python class runs; a
class made in C says nothing). This reads no record: it is what the program did.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from types import FrameType
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

    def stack(frame: FrameType | None) -> list[list[Any]]:
        out = []
        while frame is not None:
            rel = inside(frame.f_code.co_filename)
            if rel:
                out.append([rel, frame.f_lineno])
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


if __name__ == "__main__":
    main()
