"""Extraction: the raise sites of a git repository, and the records that document them.

Entry points: `sync.run` (the `extract` command: records brought up to date
with the code at a commit), `check.check_source` (`check --source`: records
against the code), `scan.scan_files` (files' bytes -> raise sites).

- `sites`: what a scan finds (`RaiseSite`, `Skipped`, `Scan` ...); imports nothing of the rest.
- `messages`, `raisers`, `scan`: Python source -> message templates -> raise sites; `context`: callers and names.
- `facts`: what a scan keeps of each file between runs, by path and blob id, in the user's cache folder.
- `joined`: the join of a repository folder's indexes (`context.join`), kept between runs and made again only
  where a change reaches; `lastrun`: what the last extract left in a content folder.
- `git`: a repository's files and history at a commit; `globs`: which files are read.
- `sync`: records matched to sites, ids, pins, writes; `tokens`: whether two snippets show the same code;
  `since`: the commit where a site took its form;
  `check`: pins and coverage.

Content is read only through `errorsite.load`; ids and repository names follow `errorsite.schema`'s patterns.
"""
