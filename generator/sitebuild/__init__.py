"""The incremental build: content folder -> output folder, rendering only what changed.

It owns the inputs a build reads (`inputs`: the one scan of the content folder), the state it
keeps for the next build (`state`: one typed row per record file and per output file), the
hashes that say what each output depends on (`keys`), where its cache lives (`paths`), the
worker processes (`workers`), highlighted code (`highlight`, `fastlex`, `store`), the search
index patch (`reindex`), what one build leaves for the next (`outputs`) and the only writer of the output (`write`). `pipeline` runs the
stages of a build (`pipeline.build` is the entry point); `update` is the path for a few edited
records. Nothing is imported here, so the flat stages that use `highlight` or `write` do not
load the pipeline that imports them.
"""

from __future__ import annotations
