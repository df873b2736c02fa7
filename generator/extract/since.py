"""When a raise site took the form extract found: the commit where its message, place or code changed.

A record's `review.since` (and an `earlier` variant's `until`) names the
commit where the change happened, not the commit extract happened to run at:
a maintainer may re-pin weeks of commits at once, and the deploy job re-pins
at every merge. Git's history of the site's file, from the record's old pin
to the new commit, is read newest first; each version of the file is scanned
alone, and the oldest version in an unbroken run from the newest that still
has the site in its new form is where that form began. When the file alone
does not show the site (its message is built in another file), the new
commit stands.
"""

from __future__ import annotations

from pathlib import Path

from . import git, tokens
from .scan import scan_files
from .sites import RaiseSite

MAX_VERSIONS = 200
"""Versions of a file read back at most: a longer history gives the oldest of them."""


def changed_at(repo_dir: Path, commit: str, site: RaiseSite, pin: str, why: str,
               asserts: bool = False, warns: bool = False) -> str:
    """Return the commit after `pin`, up to `commit`, since which `site` has its new message, place or code (`why`)."""
    found = commit
    for version, content in git.file_versions(repo_dir, pin, commit, site.path, MAX_VERSIONS):
        if content is None or not any(_same(other, site, why) for other in
                                      scan_files({site.path: content}, asserts, warns).sites):
            break
        found = version
    return found


def _same(other: RaiseSite, site: RaiseSite, why: str) -> bool:
    """Return whether `other` already has what changed in `site`: its message, its place, or its code."""
    if (other.exception, other.message) != (site.exception, site.message):
        return False
    if why == "message changed":
        return True
    if other.function != site.function:
        return False
    return why == "moved" or tokens.same_code(tokens.Shown.of(other.snippet_code, other.snippet_start, other.line),
                                              tokens.Shown.of(site.snippet_code, site.snippet_start, site.line))
