"""Worker processes: a build reads records and renders files on every core when there are enough of them.

Workers fork from the build, so they see everything it prepared; only items and results are
sent between processes. A worker ends with the build, even one stopped by kill -9.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from . import write
from .keys import digest
from .store import HighlightStore

PARALLEL_MIN = 300
"""Below this many items, starting worker processes costs more than it saves."""
CHUNK = 48
"""Items a worker handles per task: small enough to balance, large enough to be cheap to send."""

Progress = Callable[[int, int], None]
"""Called with (files rendered, files to render) as a build goes."""

T = TypeVar("T")
R = TypeVar("R")


def parallel(jobs: int, items: int) -> bool:
    """Return whether `items` are worth handing to `jobs` forked workers."""
    return jobs > 1 and items >= PARALLEL_MIN and hasattr(os, "fork")


def map_items(function: Callable[[T], R], items: list[T], jobs: int) -> list[R]:
    """Return [function(item) for item in items], on `jobs` processes when there are enough items."""
    if not parallel(jobs, len(items)):
        return [function(item) for item in items]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs, initializer=_start_task,
                                                  initargs=(function, os.getpid())) as pool:
        return pool.map(_run_task, items, chunksize=CHUNK)


def apart(function: Callable[[], R], jobs: int) -> R:
    """Return function(), made in a forked process when there are `jobs` cores: what it allocates on the way goes
    with that process, instead of staying with this one (Python's allocator gives back little of what it frees, and
    workers forked later count every page they touch); made here on one core, or without fork."""
    if jobs < 2 or not hasattr(os, "fork"):
        return function()
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(1, initializer=_start_task,
                                                  initargs=(lambda _: function(), os.getpid())) as pool:
        return pool.apply(_run_task, (None,))


_TASK: Callable[[Any], Any] = id
"""What a worker process of `map_items` runs, inherited when it forks."""


def _start_task(function: Callable[[Any], Any], parent: int) -> None:
    global _TASK
    _die_with(parent)
    _TASK = function


def _run_task(item: Any) -> Any:
    return _TASK(item)


@dataclass(frozen=True, slots=True)
class Work:
    """What forked workers render, set before the pool starts."""

    plan: dict[str, Callable[[], bytes]]
    """Output path -> what renders it."""
    staging: Path
    """The folder rendered files go to."""
    manifest: dict[str, str]
    """Output path -> hash of the bytes the output holds there: equal files are not written again."""
    store: HighlightStore
    """Highlighted code; workers read it and send back what they highlighted."""


_WORK: Work | None = None


def render(work: Work, todo: list[str], jobs: int, progress: Progress | None) -> dict[str, str]:
    """Render `todo` into the staging folder, skipping files whose bytes equal the manifest's; return their hashes."""
    global _WORK
    _WORK = work
    hashes: dict[str, str] = {}
    chunks = [todo[i : i + CHUNK] for i in range(0, len(todo), CHUNK)]
    try:
        if parallel(jobs, len(todo)):
            import multiprocessing

            work.store.prepare()  # the workers only read the file: no two processes set it up at once
            context = multiprocessing.get_context("fork")
            with context.Pool(min(jobs, len(chunks)), initializer=_worker_start, initargs=(os.getpid(),)) as pool:
                _collect(pool.imap_unordered(_render_chunk, chunks), work, hashes, len(todo), progress)
        else:
            _collect(map(_render_chunk, chunks), work, hashes, len(todo), progress)
    finally:
        _WORK = None
    return hashes


def _collect(rendered: Iterable[tuple[dict[str, str], dict[str, str]]], work: Work, hashes: dict[str, str],
             total: int, progress: Progress | None) -> None:
    """Add each rendered chunk's hashes to `hashes` and its highlighted code to the store, as chunks come."""
    done = 0
    for found, highlighted in rendered:
        hashes.update(found)
        work.store.add(highlighted)
        done += len(found)
        if progress:
            progress(done, total)


def _worker_start(parent: int) -> None:
    _die_with(parent)
    assert _WORK is not None
    _WORK.store.reopen()


def _render_chunk(paths: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    work = _WORK
    assert work is not None
    found = {}
    for path in paths:
        body = work.plan[path]()
        sha = digest(body)
        if work.manifest.get(path) != sha:
            write.write_file(work.staging, path, body)
        found[path] = sha
    highlighted, work.store.new = work.store.new, {}
    return found, highlighted


class Beside:
    """Files made in a forked process while the build goes on (half the time on two cores): their hashes by path.

    The process writes the files itself, and sends back only their hashes.
    """

    def __init__(self, make: Callable[[], dict[str, str]], jobs: int) -> None:
        self.make = make
        self.pid = 0
        """The forked process, or 0 when `make` runs in this one (one core, or no fork)."""
        self.pipe = -1
        if jobs > 1 and hasattr(os, "fork"):
            parent = os.getpid()
            self.pipe, out = os.pipe()
            self.pid = os.fork()
            if self.pid == 0:
                _made_beside(make, parent, self.pipe, out)
            os.close(out)

    def result(self) -> dict[str, str]:
        """Return the hashes; made here when the forked process failed, so that its error is raised here."""
        if not self.pid:
            return self.make()
        with os.fdopen(self.pipe, "rb") as pipe:
            data = pipe.read()
        status = os.waitpid(self.pid, 0)[1]
        self.pid = 0
        return marshal.loads(data) if status == 0 else self.make()

    def cancel(self) -> None:
        """End the forked process, if it still runs."""
        if self.pid:
            import signal

            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            os.close(self.pipe)
            self.pid = 0


def _made_beside(make: Callable[[], dict[str, str]], parent: int, pipe: int, out: int) -> None:
    """In the forked process: send the hashes make() returns to the parent, and end without running its exit handlers."""
    status = 1
    try:
        os.close(pipe)
        _die_with(parent)
        data = marshal.dumps(make())
        with os.fdopen(out, "wb") as sink:
            sink.write(data)
        status = 0
    finally:
        os._exit(status)


PR_SET_PDEATHSIG = 1
"""Linux's prctl option: the signal a process gets when its parent ends."""


def _die_with(parent: int) -> None:
    """Make this worker end with the build, even one stopped by kill -9, so it never writes after it."""
    if sys.platform == "linux":
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the build ended before this worker could ask
        os._exit(1)
