"""What a scan finds: raise sites, raises that are not sites, files that do not parse.

The data every other module of extraction passes around; it imports nothing
of extraction, so scanning, syncing and checking can all depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Caller, Definition, Variant

SITE_KINDS = ("raise", "variable", "helper", "class", "yield", "key", "attribute", "wrap", "assert", "warning")
"""How a site was found, for counting (`Scan.by_kind`); docs/extract.md describes each."""


@dataclass(frozen=True, order=True)
class RaiseSite:
    """One raise statement with a message the source spells out."""

    path: str
    """Relative POSIX path of the file in the repository."""
    line: int
    """Line of the `raise` (or `assert`) keyword."""
    function: str
    """Qualified name of the enclosing function or class (`Class.method`); "" at module level."""
    exception: str
    """The exception as written (`ValueError`, `errors.ConfigError`)."""
    message: str
    """The message template, in the record format's placeholder syntax."""
    snippet_start: int
    """File line number of the snippet's first line."""
    snippet_code: str
    """The snippet's lines verbatim, without the last line's line break."""
    variants: tuple[Variant, ...] = field(default=(), compare=False)
    """Plural and alternative wordings of the message (record format `variants`)."""
    kind: str = field(default="raise", compare=False)
    """How the site was found: one of SITE_KINDS."""
    guard: tuple[str, ...] = field(default=(), compare=False)
    """The conditions that hold when it raises (record format `source.guard`; `context.guard`)."""
    callers: tuple[Caller, ...] = field(default=(), compare=False)
    """Where the library calls its function, nearest to a public name first (`source.callers`)."""
    names: tuple[tuple[str, Definition], ...] = field(default=(), compare=False)
    """Where a user sets the names its message and guard read (`source.names`)."""


@dataclass(frozen=True, order=True)
class Skipped:
    """A raise that is not a record: its message is not spelled out at the raise."""

    path: str
    """Relative POSIX path of the file (control characters shown as `?`)."""
    line: int
    """Line of the raise; 0 for a file skipped whole."""
    reason: str
    """Why it is not a site, for `extract --verbose`."""


@dataclass(frozen=True, order=True)
class Mapped:
    """A raise without a message of a class whose own message has a record: that record documents it."""

    path: str
    """Relative POSIX path of the file."""
    line: int
    """Line of the raise."""
    exception: str
    """The class as the raise writes it."""
    to: str
    """`path:line` of the class's own-message site."""


@dataclass(frozen=True, order=True)
class ParseFailure:
    """A selected file that could not be read as Python."""

    path: str
    """Relative POSIX path of the file."""
    reason: str
    """Why it could not be decoded or parsed."""


@dataclass(frozen=True)
class Scan:
    """Everything found in a set of files."""

    sites: tuple[RaiseSite, ...]
    """Every raise site, in path and line order."""
    skipped: tuple[Skipped, ...]
    """Raises whose message is not spelled out, and files skipped unread."""
    failures: tuple[ParseFailure, ...]
    """Files that could not be read as Python."""
    files: int
    """How many files were read."""
    mapped: tuple[Mapped, ...] = ()
    """Raises without a message that a class's own-message record documents."""
    digests: tuple[bytes, ...] = ()
    """For a scan with callers and names, a digest of every field of each site, in `sites`' order
    (`context.annotated_digest`): `extract.lastrun` tells by it a site the last run left a record in step with."""

    def by_kind(self) -> dict[str, int]:
        """Return the number of sites of each kind, in SITE_KINDS order."""
        return {kind: sum(1 for s in self.sites if s.kind == kind) for kind in SITE_KINDS}
