"""When Python's cyclic garbage collector stays off: blocks that make many objects and few cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_off() -> Iterator[None]:
    """Turn the cyclic garbage collector off for the block, and back on after it if it was on.

    For blocks that make many objects and few cycles (a scan, where every tree stays alive to the end; a build's
    reading and planning): the collector would walk them all again and again for nothing. A command that ends
    without tidying turns it off for good instead (`cli._leave_to_exit`).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
