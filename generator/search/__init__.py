"""Search: from a pasted error to the pages that explain it (docs/matching.md).

- `text`: lowercasing, whitespace, words; `template`: the one parser of message templates
  (pages, related errors, the index and matching all read templates through it).
- `paste`: what a user pasted, read into message forms, exception name and traceback frames.
- `index`: what each record contributes, the index the site ships (rows with named fields),
  and reading it back; `words`: BM25 over its terms.
- `walk`: one template against one text; `match`: a record's templates against the paste;
  `rank`: the ranking key and `search` itself.
- `shards`: the index cut into the fragments the site ships; `sharded`: a search that loads only the
  fragments it needs, with the whole index's answers.
- `related`: the related errors each page lists.

`templates/static/match.js` is the same algorithm for the browser and gives the same answers.
"""
