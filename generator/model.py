"""The one data model every stage passes along: records, settings, the site."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import NamedTuple, TypeVar

_Class = TypeVar("_Class", bound=type)


def pickled_by_fields(cls: _Class) -> _Class:
    """Return a frozen dataclass of two fields or more that pickles as a call of itself with its fields' values.

    A run reads back tens of thousands of kept callers, names and facts (`extract.facts`), and the generic
    `__setstate__` of a dataclass with slots took three times as long as the call."""
    values = attrgetter(*(f.name for f in fields(cls)))

    def reduce(self: object) -> tuple[type, tuple[object, ...]]:
        return cls, values(self)

    setattr(cls, "__reduce__", reduce)
    return cls


def snippet_lines(code: str) -> list[str]:
    """Return the snippet's lines; a final line break ends the last line, it adds none."""
    lines = code.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


@dataclass(frozen=True, slots=True)
class Snippet:
    """Verbatim lines of the source file around the raise."""

    start: int
    """File line number of the first line."""
    code: str
    """The lines, exactly as in the file at the pinned commit."""

    @property
    def lines(self) -> list[str]:
        """Return the lines of the snippet."""
        return snippet_lines(self.code)

    @property
    def end(self) -> int:
        """Return the file line number of the last line."""
        return self.start + len(self.lines) - 1


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Caller:
    """A place where the library calls the raising function (record format `source.callers`)."""

    path: str
    """Relative POSIX path of the calling file."""
    line: int
    """Line of the call."""
    function: str
    """Qualified name of the calling function; "" at module level."""


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Definition:
    """Where a user sets a name the message or the guard reads (record format `source.names`)."""

    path: str
    """Relative POSIX path of the file that defines it."""
    line: int
    """Line of the definition: the parameter, the option's call, the field, the constant."""
    kind: str
    """`parameter`, `option` or `constant`."""
    help: str | None = None
    """The definition's own help text or docstring, whitespace folded, when it has one."""
    flag: str | None = None
    """For a command-line option, the flag as a user types it (`--num-workers`)."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where the error is raised, pinned to one commit."""

    repo: str | None
    """`owner/name`, after the site's default was applied."""
    commit: str
    """The commit the snippet and line belong to."""
    path: str
    """Relative POSIX path inside the repository."""
    line: int
    """Line of the raise."""
    function: str | None
    """Qualified name of the enclosing function."""
    snippet: Snippet
    guard: tuple[str, ...] = ()
    """The conditions that hold when the raise runs, outermost first, as `ast.unparse` writes them (written by extract)."""
    callers: tuple[Caller, ...] = ()
    """Where the library calls the raising function, nearest to a public name first (written by extract)."""
    names: tuple[tuple[str, Definition], ...] = ()
    """Names the message and the guard read, each with where a user sets it, in the order they are read (written by extract)."""


@dataclass(frozen=True, slots=True)
class Check:
    """A runnable proof of an example fix, run by `errorsite verify`."""

    files: tuple[tuple[str, str], ...]
    """Files to create in the check's fresh folder: (relative path, text), sorted by path."""
    before: str
    """Shell command line that must fail with this record's error."""
    after: str
    """Shell command line that must not show this record's error."""


@dataclass(frozen=True, slots=True)
class Verified:
    """The last time `errorsite verify` saw the check hold."""

    commit: str
    """The record's pin at the time."""
    date: str
    """`YYYY-MM-DD`."""


@dataclass(frozen=True, slots=True)
class ExampleFix:
    """A before/after pair, with an optional code sample."""

    before: str
    after: str
    language: str
    """Pygments lexer name for before and after."""
    code: str | None
    code_language: str
    note: str | None
    """Markdown."""
    check: Check | None = None
    """How to prove the example, if the record says."""
    verified: Verified | None = None
    """Set by `errorsite verify` when the check held."""


@dataclass(frozen=True, slots=True)
class Variant:
    """Another wording of the same error from the same place."""

    message: str
    """The wording's template, written like `Record.message`."""
    kind: str
    """`plural`, `alternative` or `earlier`."""
    until: str | None = None
    """For `earlier`: the first commit that no longer raises this wording."""


@dataclass(frozen=True, slots=True)
class Review:
    """Set by `extract` when the code under a written record changed: the prose may be out of date."""

    since: str
    """The commit at which extract saw the change."""
    why: str
    """`message changed`, `code changed` or `moved`."""


@dataclass(frozen=True, slots=True)
class Release:
    """One release in an error's history: where it first appeared, changed its wording, or was gone."""

    release: str
    """The release's git tag."""
    commit: str
    """The commit the tag names."""
    change: str
    """`added`, `changed` or `removed`."""


@dataclass(frozen=True, slots=True)
class When:
    """When the error happens (both Markdown)."""

    trigger: str | None
    situations: str | None


@dataclass(frozen=True, slots=True)
class Reviewed:
    """A person who read drafted prose against the code and stands by it."""

    by: str
    """Their name."""
    date: str
    """`YYYY-MM-DD`."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """Who wrote the prose, and when."""

    by: str
    """`human`, `ai-assisted`, or a name."""
    date: str | None
    note: str | None
    commit: str | None = None
    """The commit the prose was written against (not the snippet's pin, which moves)."""
    model: str | None = None
    """The model that drafted the prose, when `by` is `ai-assisted`."""
    reviewed: Reviewed | None = None
    """Set when a person has read a draft and stands by it."""


@dataclass(frozen=True, slots=True)
class Record:
    """One error: what the code raises, where, and the prose that explains it."""

    id: str
    exception: str
    message: str
    title: str
    """The given title, or the message cut at a word boundary."""
    source: Source
    meaning: str | None = None
    solutions: tuple[str, ...] = ()
    example_fix: ExampleFix | None = None
    when: When | None = None
    related: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    analysis: Analysis | None = None
    status: str = "active"
    variants: tuple[Variant, ...] = ()
    """Other wordings (plural, alternative, earlier) that lookup and search match too."""
    review: Review | None = None
    """Present when the prose needs another look after the code changed."""
    history: tuple[Release, ...] = ()
    """The releases that added, reworded or no longer raised it, oldest first (written by `extract --history`)."""
    file: str = ""
    """The record's file, as the user would name it."""

    @property
    def url(self) -> str:
        """Return the site-relative URL of the record's page."""
        return f"errors/{self.id}/"

    @property
    def written(self) -> bool:
        """Return whether anyone has written prose for this record yet."""
        return bool(self.meaning or self.solutions or self.example_fix or self.when)

    @property
    def drafted(self) -> bool:
        """Return whether the prose is an AI-assisted draft that no person has reviewed yet."""
        return self.written and self.analysis is not None and self.analysis.by == AI_ASSISTED \
            and self.analysis.reviewed is None

    @property
    def exception_name(self) -> str:
        """Return the class name without its module."""
        return self.exception.rpartition(".")[2]


AI_ASSISTED = "ai-assisted"
"""`analysis.by` of prose that `errorsite draft` wrote."""


# A named tuple, not a dataclass: an edit of one record makes every record's summary from the
# build's state, and a tuple is made in a fraction of the time a dataclass's constructor takes.
class Summary(NamedTuple):
    """What pages other than a record's own show of it, and what its related errors are found from.

    A build keeps one per record, so that an edit of one record renders the list pages, the API
    and the pages linking it without reading every record (see `build.update`).
    """

    id: str
    """The record's id."""
    title: str
    """Its title."""
    exception: str
    """Its exception's qualified name."""
    message: str
    """Its message template."""
    path: str
    """The file of its raise."""
    line: int
    """The line of its raise."""
    function: str | None
    """The function around its raise."""
    commit: str
    """The commit its source is pinned to."""
    tags: tuple[str, ...]
    """Its tags."""
    status: str
    """`active` or `removed`."""
    written: bool
    """Whether its prose is written (`Record.written`)."""
    drafted: bool
    """Whether that prose is an AI-assisted draft no person has reviewed yet (`Record.drafted`)."""
    analysis_date: str | None
    """When its prose was written."""
    analysis_commit: str | None
    """The commit its prose was written against."""
    variants: tuple[str, ...]
    """Its other wordings."""
    related: tuple[str, ...]
    """The related ids its record names."""
    words: tuple[str, ...]
    """The distinct words of its message's literal text, sorted (see `search.related.message_words`)."""
    order: str
    """Its place in every list of errors, as a key that sorts as text (see `summary.reading_order`)."""
    item: bytes | None
    """Its item in lists of errors, in UTF-8, with `summary.ROOT` for the page's root (see `summary.list_item`).

    The lists of every error join these as bytes, which go into their page unchanged (`render.Lists`).
    This and the two lines below are None in a summary read without them (`build.state.SavedState.cards`):
    whatever shows one makes it then."""
    error_line: bytes | None
    """Its line of api/errors.json, in UTF-8, with `summary.ROOT` for the base URL."""
    pattern_line: bytes | None
    """Its line of api/patterns.json, in UTF-8, with `summary.ROOT` for the base URL; empty when it is removed."""

    @property
    def exception_name(self) -> str:
        """Return the class name without its module."""
        return self.exception.rpartition(".")[2]


class Tally(NamedTuple):
    """How many records a group of list pages has (an exception, a file, a tag, or a status), and how many are written."""

    records: int
    """Its records, each as often as it is listed (see `build.keys.group_names`)."""
    written: int
    """Those whose prose is written."""
    drafted: int = 0
    """Those of the written whose prose is an AI-assisted draft not yet reviewed."""


@dataclass(frozen=True, slots=True)
class Overview:
    """What the pages about every record show of them all: the home page, the pages of every exception,
    file and tag, and the sitemap.

    A renderer makes it from every record's summary; an edit of a few records, from the build's
    state (see `build.update`), without reading every summary.
    """

    ids: tuple[str, ...]
    """Every record's id."""
    groups: dict[str, dict[str, Tally]]
    """`exception`, `file` and `tag` -> each name of that kind, in name order -> its tally."""
    active: int
    """How many records are active."""
    written: int
    """How many records are written."""
    drafted: int
    """How many of the written are AI-assisted drafts not yet reviewed."""
    recent: tuple[Summary, ...]
    """The home page's recently written pages, newest first (see `render.recently_changed`)."""


@dataclass(frozen=True, slots=True)
class SourceSettings:
    """`[source]` in `site.toml`: what `extract` and `check --source` read; flags override it."""

    include: tuple[str, ...] = ()
    """Globs of files to read; empty means the default (every `.py` file)."""
    exclude: tuple[str, ...] = ()
    """Globs of files to skip, on top of the default tests, docs and examples folders."""
    asserts: bool = False
    """Also document `assert cond, "message"`."""
    warnings: bool = False
    """Also document `warnings.warn("message", Category)` calls."""
    ids: str = "hash"
    """How new records' ids are made: `words` from the message's first literal words, `hash` from a digest."""


@dataclass(frozen=True, slots=True)
class HistorySettings:
    """`[history]` in `site.toml`: which git tags are the library's releases."""

    tags: str = "v*"
    """A glob of release tag names."""


@dataclass(frozen=True, slots=True)
class VerifySettings:
    """`[verify]` in `site.toml`: how `errorsite verify` runs the checks."""

    setup: str | None = None
    """Shell command run once before the checks."""
    timeout: int = 60
    """Seconds each command may run."""


@dataclass(frozen=True, slots=True)
class DraftSettings:
    """`[draft]` in `site.toml`: the chat-completions API `errorsite draft` asks; flags override it."""

    endpoint: str | None = None
    """Base URL of an OpenAI-compatible API (`http://127.0.0.1:8080/v1`); a key is never sent to it on
    this setting alone (see `draft.connection`)."""
    model: str | None = None
    """The model to ask."""
    key_env: str | None = None
    """The name of the environment variable that holds the API key (never the key itself)."""
    concurrency: int = 4
    """Requests in flight at once."""
    timeout: int = 120
    """Seconds one request may take before it is tried again."""


@dataclass(frozen=True, slots=True)
class Config:
    """Site settings: `content/site.toml` with command-line overrides applied."""

    title: str = "Error reference"
    base_url: str = "/"
    """Absolute URL (or path) the site is served at, ending with `/`."""
    repo: str | None = None
    source_url: str = "https://github.com/{repo}/blob/{commit}/{path}#L{line}"
    issue_url: str = "https://github.com/{repo}/issues/new?title={title}"
    edit_url: str = "https://github.com/{repo}/blob/HEAD/content/errors/{id}.json"
    """Where a record's file can be read and improved; shown on pages not yet written."""
    cname: str | None = None
    redirects: tuple[tuple[str, str], ...] = ()
    """Retired ids and the ids that replace them, sorted."""
    source: SourceSettings = SourceSettings()
    verify: VerifySettings = VerifySettings()
    history: HistorySettings = HistorySettings()
    draft: DraftSettings = DraftSettings()


@dataclass(frozen=True, slots=True)
class Site:
    """Everything the renderer needs: settings and valid records, sorted by id."""

    config: Config
    records: tuple[Record, ...]
    by_id: dict[str, Record] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self.by_id.update((r.id, r) for r in self.records)
