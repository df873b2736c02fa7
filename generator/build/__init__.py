"""The incremental build: content folder -> output folder, rendering only what changed.

It owns the inputs a build reads (`inputs`: the one scan of the content folder), the state it
keeps for the next build (`state`: one typed row per record file and per output file), the
hashes that say what each output depends on (`keys`), where its cache lives (`paths`), the
worker processes (`workers`), highlighted code (`highlight`, `fastlex`, `store`), the search
index patch (`reindex`) and the only writer of the output (`write`). `pipeline` runs the
stages of a build; `update` is the path for a few edited records.
"""

from __future__ import annotations

from .pipeline import Result, build

__all__ = ["Result", "build"]
