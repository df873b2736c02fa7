"""Site -> {site-relative path: bytes}: every page, the API and the search index.

It writes no output; it reads the templates, and may keep compiled ones in a cache it is given.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from html import escape as html_escape
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from operator import attrgetter
from typing import Any
from urllib.parse import quote, urlsplit

from jinja2 import BytecodeCache, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from . import __version__, markdown, paging, releases, urls
from .sitebuild import highlight
from .assets import templates_dir
from .model import Config, Overview, Record, Site, Summary, Tally
from .search.index import build_index, document_terms, index_script, read_index_script, search_entry
from .search.related import Links, Related, related_links, said
from .search.template import compile_template, template_parts
from .summary import COMPACT, ROOT, ROOT_BYTES, Mark, error_line, html, list_item, pattern_line, summarize, visible
from .schema import SCHEMA

HOME_LIST_LIMIT = 200
"""Above this many records the home page lists groups, not every error: it lists each error twice (by
exception and by file), and 1,000 records made a home page of 420 KB."""

HOME_GROUPS_LIMIT = 40
"""The home page shows at most this many exception types, source files and tags (those with the most
errors); their pages list them all. A library of 2,000 files would otherwise make a home page of 700 KB."""

RECENT_LIMIT = 8
"""How many recently written or updated pages the home page names."""

VARIANT_KINDS = {"plural": "Plural form", "alternative": "Another branch", "earlier": "Earlier wording"}
"""How the page names each kind of variant wording."""

REVIEW_REASONS = {"message changed": "the message changed", "code changed": "the code around the raise changed",
                  "moved": "the raise moved"}
"""How the review notice says why the prose may be out of date."""


def environment(highlighter: highlight.Highlighter, lists: Lists, compiled: BytecodeCache | None = None) -> Environment:
    """Return the Jinja environment: autoescaped, and strict so a typo fails the build.

    With `compiled`, compiled templates are kept there (see `sitebuild.compiled`).
    """
    env = Environment(
        bytecode_cache=compiled,
        loader=FileSystemLoader(str(templates_dir())),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=visible,
    )
    env.filters["md"] = lambda text: Markup(markdown.render(text, highlighter))
    env.filters["message_html"] = lambda text: Markup(message_html(text))
    env.filters["pattern_attribute"] = lambda text: Markup(pattern_attribute(text))
    env.filters["path_html"] = lambda text: Markup(path_html(text))
    env.globals["error_items"] = lists.items
    env.globals["written_of"] = written_of
    env.globals["variant_kinds"] = VARIANT_KINDS
    env.globals["review_reasons"] = REVIEW_REASONS
    env.globals["urls"] = urls
    env.globals["story_of"] = releases.story
    env.globals["release_url"] = releases.release_url
    return env


def message_html(message: str) -> str:
    """Return the template as HTML with each placeholder in a <var>."""
    out = []
    for text, hole in template_parts(message):
        safe = str(Markup.escape(text))
        out.append(f'<var class="ph">{safe}</var>' if hole else safe)
    return "".join(out)


def pattern_attribute(message: str) -> str:
    """Return the `data-pattern` attribute of a message: its compiled template as JSON, for the page's script
    to find the reader's values (match.js `fill`), in single quotes, so that JSON's quotes need no escaping."""
    text = json.dumps(compile_template(message), ensure_ascii=False, separators=(",", ":"))
    return "data-pattern='" + html_escape(text, quote=False).replace("'", "&#39;") + "'"


def path_html(path: str) -> str:
    """Return a path as HTML that may wrap after each `/`, so a long one breaks at its folders."""
    return "/<wbr>".join(str(Markup.escape(part)) for part in path.split("/"))


class Lists:
    """The lists of errors of the page being rendered, kept as bytes until the page is encoded.

    A list of errors may be 300 KB. It is joined from the UTF-8 items each summary holds
    (`Summary.item`) and goes into the encoded page as it is, neither decoded nor encoded again,
    nor searched again for forbidden code points (its items were made from text that
    `summary.html` showed). The page holds a mark in its place: the list's number between two
    NULs, which no other text of a page holds (`summary.visible`, the templates' `finalize`,
    replaces them).
    """

    def __init__(self) -> None:
        self.made: list[bytes] = []
        """The lists of the page being rendered, by number."""

    def items(self, records: Iterable[Summary], root: str, show_line: bool = False, pill: bool = True) -> Mark:
        """Return the mark of the list items of some errors (see `summary.list_item`), for templates."""
        return self.mark(b"".join(r.item if r.item is not None and not show_line and (r.written or not pill)
                                  else list_item(r, ROOT, show_line, pill).encode() for r in records), root)

    def mark(self, items: bytes, root: str) -> Mark:
        """Return the mark of ready-made list items, with `summary.ROOT` for the page's root `root`."""
        self.made.append(items.replace(ROOT_BYTES, html(root).encode()))
        return Mark(f"{ROOT}{len(self.made) - 1}{ROOT}")

    def splice(self, page: bytes) -> bytes:
        """Return the encoded page with each mark replaced by its list, and forget the lists."""
        if not self.made:
            return page
        made, self.made = self.made, []
        parts = page.split(ROOT_BYTES)
        marks = parts[1::2]
        assert len(marks) == len(made) and len(parts) % 2  # a mark for each list, none in the text
        parts[1::2] = [made[int(mark)] for mark in marks]
        return b"".join(parts)


@dataclass(frozen=True, slots=True)
class Paged:
    """A list split into pages (see `paging`): its items, in order, and where each page starts."""

    head: str
    """The URL of its first page."""
    items: Sequence[bytes]
    """Each item, in UTF-8, with `summary.ROOT` for the page's root."""
    starts: Sequence[int]
    """Where each page starts in `items` (`paging.split`)."""

    def span(self, number: int) -> tuple[int, int]:
        """Return the first item of page `number` (from 1) and the item after its last."""
        end = self.starts[number] if number < len(self.starts) else len(self.items)
        return self.starts[number - 1], end

    def links(self, number: int) -> list[str]:
        """Return the link from page `number` to each page, in order."""
        return [paging.page_link(number, target) for target in range(1, len(self.starts) + 1)]


def paged(head: str, items: Sequence[bytes]) -> Paged:
    """Return a list of `items` (with `summary.ROOT` for the root) split into pages under `paging.PAGE_BYTES`."""
    # Every page but the first lies two folders deeper, so its root is longer: each item is counted at that.
    extra = len(urls.root_of(paging.page_path(head, 2))) - len(ROOT_BYTES)
    return Paged(head, items, paging.split([len(item) + extra for item in items]))


@dataclass(frozen=True, slots=True)
class Listing:
    """A list of errors as its pages show it (`templates/list.html`)."""

    name: str
    """What it lists, as its heading says: the exception, the file, `#tag`, or `All errors`."""
    kind: str
    """`all`, `exception`, `file` or `tag`."""
    key: str
    """The exception, file or tag; empty for the list of every error."""
    written: int
    """How many of its errors are written: the first items."""
    drafted: int
    """How many of those are AI-assisted drafts not yet reviewed."""
    pages: Paged
    """Its items and pages."""


in_order = attrgetter("order")
"""Return a record's place in every list of errors (`Summary.order`)."""


def written_of(tally: Tally) -> str:
    """Return how many of a group's errors are written, as list pages say it."""
    return f"{tally.written} of {tally.records} written"


WRITTEN = attrgetter("written")
"""Return whether a record's page is written."""
DRAFTED = attrgetter("drafted")
"""Return whether a record's prose is an AI-assisted draft not yet reviewed."""


def recently_changed(cards: Iterable[Summary], limit: int | None = None) -> list[Summary]:
    """Return the written records whose prose is newest, by `analysis.date`, newest first: RECENT_LIMIT, or `limit`.

    Commits are hashes and carry no order without the repository, so the date the analysis
    gives is the order; records without one are left out, and equal dates go by list order
    (`in_order`: by title).
    """
    limit = RECENT_LIMIT if limit is None else limit
    dated = [r for r in cards if r.written and r.analysis_date]
    if len(dated) > limit:
        # Only the records of the newest `limit` dates can be listed: order those alone. Dates
        # repeat, so the distinct ones are few to sort.
        dates = sorted({r.analysis_date or "" for r in dated}, reverse=True)
        newest = dates[min(limit, len(dates)) - 1]
        dated = [r for r in dated if (r.analysis_date or "") >= newest]
    dated.sort(key=in_order)
    dated.sort(key=lambda r: r.analysis_date or "", reverse=True)
    return dated[:limit]


Known = Mapping[str, Mapping[str, bytes]]
"""The path of a list's first page -> record id -> the record's item on that list (with `summary.ROOT`
for the root), as the last build wrote its pages.

An update that renders a long list again takes each unedited record's item from there, the same
bytes, instead of making it again (see `build.previous`)."""

GROUP_LISTS = {"exceptions/index.html": ("exception", "Exception types"), "files/index.html": ("file", "Source files"),
               "tags/index.html": ("tag", "Tags")}
"""The first page of each list of groups -> the kind of group it lists, and its title."""
ALL_ERRORS = "errors/index.html"
"""The first page of the list of every error."""
ALL_ERRORS_NAME = "All errors"
"""Its title."""
SITEMAP = paging.SITEMAP
"""The sitemap, or the sitemap index that names the sitemap files (`paging.sitemap_path`)."""


def render_site(site: Site) -> dict[str, bytes]:
    """Return every file of the site, keyed by its path relative to the site root: the pages and
    the search index, and the index's fragments that a search loads (`search.shards`)."""
    from .search import shards

    files = Renderer(site).all()
    index = read_index_script(files["search-index.js"])
    assert index is not None, "the renderer writes the search index as index_script does"
    return files | shards.fragments(index)


class Renderer:
    """Renders the pages of one site; pure, so any page can be rendered alone.

    Pages other than a record's own show only summaries: given every record's summary (`summaries`)
    and related errors (`related`), the site's records need only be those whose pages are rendered.
    """

    def __init__(self, site: Site, related: Links | None = None,
                 highlighter: highlight.Highlighter | None = None, compiled: BytecodeCache | None = None,
                 search_entries: Mapping[str, dict[str, Any]] | None = None,
                 search_terms: Mapping[str, dict[str, int]] | None = None,
                 summaries: Mapping[str, Summary] | None = None, known: Known | None = None,
                 overview: Overview | None = None) -> None:
        self.site = site
        self.config = site.config
        self.highlighter = highlighter or highlight.Highlighter()
        self.lists = Lists()
        """The lists of errors of the page being rendered."""
        self.env = environment(self.highlighter, self.lists, compiled)
        self.cards: dict[str, Summary] = dict(sorted(summaries.items()) if summaries is not None
                                              else ((r.id, summarize(r)) for r in site.records))
        """Record id -> its summary, in id order."""
        self.related: Links = related_links(self.cards) if related is None else related
        """Record id -> its related errors."""
        self.search_entries: Mapping[str, dict[str, Any]] = search_entries or {}
        """Search index entries already known, by record id (a build keeps them from the last one)."""
        self.search_terms: Mapping[str, dict[str, int]] = search_terms or {}
        """Their weighted terms, by record id."""
        self.by_exception, self.by_file, self.by_tag = _groups(self.cards.values())
        self.same_message: dict[tuple[str, str], list[Summary]] = {}
        """(exception, wording) -> the records that raise it (as their message or a variant), in id order: one
        message raised at several places."""
        for card in self.cards.values():
            for wording in dict.fromkeys((card.message, *card.variants)):
                self.same_message.setdefault((card.exception, wording), []).append(card)
        self.known: Known = known or {}
        """What the last build's list pages show of unedited records (see `Known`)."""
        self.listings: dict[str, Listing] = {}
        """The lists of errors made so far, by the URL of their first page (see `listing`)."""
        self.given_overview = overview
        """What the pages about every record show of them, when given rather than made from `cards`."""

    @cached_property
    def overview(self) -> Overview:
        """Return what the pages about every record show of them (given, or made from every record's summary)."""
        if self.given_overview is not None:
            return self.given_overview
        cards = self.cards.values()
        groups = {kind: {name: Tally(len(members), sum(map(WRITTEN, members)), sum(map(DRAFTED, members)))
                         for name, members in named.items()}
                  for kind, named in (("exception", self.by_exception), ("file", self.by_file), ("tag", self.by_tag))}
        return Overview(tuple(self.cards), groups, sum(r.status == "active" for r in cards),
                        sum(map(WRITTEN, cards)), sum(map(DRAFTED, cards)), tuple(recently_changed(cards)))

    @cached_property
    def listed(self) -> list[Summary]:
        """Return every record's summary in list order (`in_order`)."""
        return sorted(self.cards.values(), key=in_order)

    def ordered(self, groups: dict[str, list[Summary]]) -> dict[str, list[Summary]]:
        """Return groups with their members in list order."""
        return {name: sorted(members, key=in_order) for name, members in groups.items()}

    def all(self) -> dict[str, bytes]:
        """Return every file of the site."""
        return {path: make() for path, make in self.plan().items()}

    def plan(self, paged: bool = True) -> dict[str, Callable[[], bytes]]:
        """Return every file of the site as a function that renders it, so any part can be rendered alone.

        Without `paged`, the lists (see `heads`) are left out: `series` gives the files of one.
        """
        out: dict[str, Callable[[], bytes]] = {}
        for record in self.site.records:
            out[urls.error(record.id)] = partial(self.error_page, record)
            out[urls.record_json(record.id)] = partial(self.record_json, record)
        if paged:
            for head in self.heads():
                out.update(self.series(head))
        for old, new in self.config.redirects:
            out[urls.error(old)] = partial(self.redirect_page, old, new)
        out.update(self.release_plan())
        out.update(self.shared_plan())
        return {_disk(path): make for path, make in sorted(out.items())}

    def heads(self) -> list[str]:
        """Return the first file of every list that may take more than one file (URLs): the lists of errors and of
        groups, and the sitemap."""
        return [*self.errors_lists, *GROUP_LISTS, SITEMAP]

    def series(self, head: str) -> dict[str, Callable[[], bytes]]:
        """Return every file of the list whose first file is `head` (see `heads`), by URL, as functions that
        render them: its pages, or the sitemap files and their index."""
        if head == SITEMAP:
            return self.sitemap_files()
        if head in GROUP_LISTS:
            pages = self.group_list(head)
            return {paging.page_path(head, n): partial(self.groups_page, pages, n)
                    for n in range(1, len(pages.starts) + 1)}
        return {paging.page_path(head, n): partial(self.list_page, head, n) for n in range(1, self.page_count(head) + 1)}

    @cached_property
    def errors_lists(self) -> dict[str, tuple[str, str, str, list[Summary]]]:
        """Return each list of errors by the URL of its first page: its name, kind, key and records."""
        found = {ALL_ERRORS: (ALL_ERRORS_NAME, "all", "", list(self.cards.values()))}
        found.update((urls.exception(name), (name, "exception", name, members))
                     for name, members in self.by_exception.items())
        found.update((urls.source_file(path), (path, "file", path, members)) for path, members in self.by_file.items())
        found.update((urls.tag(tag), (f"#{tag}", "tag", tag, members)) for tag, members in self.by_tag.items())
        return found

    def page_count(self, head: str) -> int:
        """Return how many pages the list of errors at `head` takes, making its items only when it may take two."""
        if head not in self.listings:
            # An item with its line (a file's list) is shorter than the one a summary holds: the sum
            # of those bounds the list, and most lists fit one page by far.
            items = [r.item for r in self.errors_lists[head][3]]
            deep = len(urls.root_of(paging.page_path(head, 2)))
            if None not in items and sum(len(item) + deep for item in items if item is not None) \
                    <= paging.PAGE_BYTES - paging.CHROME_BYTES:
                return 1
        return len(self.listing(head).pages.starts)

    def all_errors(self, items: list[bytes], written: int, drafted: int) -> dict[str, bytes]:
        """Return the pages of the list of every error, by output path, made of ready-made items (with
        `summary.ROOT` for the root), the `written` ones first, of which `drafted` are drafts."""
        self.listings[ALL_ERRORS] = Listing(ALL_ERRORS_NAME, "all", "", written, drafted, paged(ALL_ERRORS, items))
        return {_disk(path): make() for path, make in self.series(ALL_ERRORS).items()}

    def listing(self, head: str) -> Listing:
        """Return the list of errors whose first page is at `head`: its items, from the last build's
        pages where known, and its pages."""
        if head not in self.listings:
            name, kind, key, members = self.errors_lists[head]
            members = sorted(members, key=in_order)
            known = self.known.get(_disk(head), {})
            show_line = kind == "file"
            items = [known[r.id] if r.id in known else r.item if r.item is not None and not show_line
                     else list_item(r, ROOT, show_line).encode() for r in members]
            self.listings[head] = Listing(name, kind, key, sum(map(WRITTEN, members)), sum(map(DRAFTED, members)),
                                          paged(head, items))
        return self.listings[head]

    def shared_plan(self) -> dict[str, Callable[[], bytes]]:
        """Return the shared files as functions that render them."""
        out: dict[str, Callable[[], bytes]] = {
            "index.html": self.home_page,
            "search/index.html": partial(self.page, "search.html", "search/index.html", title="Search",
                                         description=f"Search {self.config.title}."),
            "404.html": partial(self.page, "404.html", "404.html", title="Page not found",
                                description="This page does not exist.", root=self.site_root(),
                                style=Markup(self.style_css().decode())),
            "search-index.js": self.search_index,
            "api/errors.json": partial(errors_json, self.cards.values(), self.config),
            "api/schema.json": lambda: _json({**SCHEMA, "$id": self.config.base_url + "api/schema.json"}),
            "robots.txt": lambda: f"User-agent: *\nAllow: /\nSitemap: {self.absolute('sitemap.xml')}\n".encode(),
            ".nojekyll": lambda: b"",
            "static/style.css": self.style_css,
        }
        if ships_patterns(self.config):
            out["api/patterns.json"] = partial(patterns_json, self.cards.values(), self.config)
        for asset in sorted((templates_dir() / "static").iterdir()):
            if asset.name != "style.css":
                out[f"static/{asset.name}"] = asset.read_bytes
        if self.config.cname:
            out["CNAME"] = lambda: (self.config.cname + "\n").encode()  # type: ignore[operator]
        return out

    # Pages

    def page(self, template: str, path: str, **context: Any) -> bytes:
        """Return one page rendered with the context every page shares."""
        root = context.pop("root", None) or urls.root_of(path)
        pretty = urls.pretty(path)
        html = self.env.get_template(template).render(
            site=self.config,
            root=root,
            path=path,
            canonical=self.absolute(pretty),
            version=__version__,
            **context,
        )
        return self.lists.splice(html.encode())

    def error_page(self, record: Record) -> bytes:
        """Return the page of one error."""
        source = record.source
        description = markdown.plain(record.meaning, self.highlighter.store) if record.meaning else record.message
        fix = record.example_fix
        before_after = self.highlighter.diff_html(fix.before, fix.after, fix.language) if fix else None
        return self.page(
            "error.html",
            urls.error(record.id),
            title=record.title,
            description=_clip(description, 200),
            og_type="article",
            record=record,
            snippet=Markup(self.highlighter.snippet_html(source.snippet, source.line,
                                                         self.highlighter.lexer_for_path(source.path))),
            source_link=self.source_link(record),
            issue_link=self.issue_link(record),
            edit_link=self.edit_link(record),
            before_after=tuple(map(Markup, before_after)) if before_after else None,
            fix_code=Markup(self.highlighter.code_html(fix.code, fix.code_language)) if fix and fix.code else None,
            related=self.related_shown(record),
            places=self.places(record),
            successors=self.successors(record),
            guard=Markup(self.highlighter.code_html("\n".join(source.guard), "python")) if source.guard else None,
            callers=[(caller, self.code_link(record, caller.path, caller.line)) for caller in source.callers],
            names=[(name, definition, self.code_link(record, definition.path, definition.line))
                   for name, definition in source.names],
        )

    def related_shown(self, record: Record) -> list[Related]:
        """Return a record's related errors as its page lists them: those it names, then the suggested ones that
        say no message already said (neither one of the record's own, whose places "Source" lists, nor that of a
        suggestion above, whose page lists its places), so that no two entries read alike.

        A function of the links and of the linked records' summaries alone, as the page's key (`keys.record_keys`)."""
        listed = said(self.cards[record.id])
        shown = []
        for link in self.related[record.id]:
            card = self.cards[link.id]
            if link.automatic and said(card) & listed:
                continue
            listed |= said(card)
            shown.append(Related(card, link.automatic))
        return sorted(shown, key=lambda item: (item.automatic, not item.record.written))

    def places(self, record: Record) -> list[Summary]:
        """Return the other records that raise one of a record's wordings with its exception, in id order."""
        found = {c.id: c for wording in (record.message, *(v.message for v in record.variants))
                 for c in self.same_message.get((record.exception, wording), ()) if c.id != record.id}
        return [found[i] for i in sorted(found)]

    def successors(self, record: Record) -> list[Summary]:
        """Return, for a removed error with a history, the active errors that raise its message now (a wording of
        theirs is its message).

        An update of a record with a history that could change them is a whole build (see `sitebuild.update`)."""
        return self.raised_now.get(record.message, []) if record.status == "removed" and record.history else []

    @cached_property
    def raised_now(self) -> dict[str, list[Summary]]:
        """Return each wording of the active errors -> those errors, in id order."""
        found: dict[str, list[Summary]] = defaultdict(list)
        for card in self.cards.values():
            if card.status == "active":
                for wording in dict.fromkeys((card.message, *card.variants)):
                    found[wording].append(card)
        return found

    def release_plan(self) -> dict[str, Callable[[], bytes]]:
        """Return the release pages, the "What changed" index and api/releases.json; none when no record has a history."""
        notes = releases.release_notes(self.site.records)
        if not notes:
            return {}
        out: dict[str, Callable[[], bytes]] = {n.url: partial(self.release_page, n) for n in notes}
        out[releases.RELEASES_URL] = partial(
            self.page, "releases.html", releases.RELEASES_URL, title="What changed",
            description=f"The errors each release of {self.config.title} added, reworded and removed.", notes=notes)
        out["api/releases.json"] = lambda: _json(releases.notes_data(notes, self.config.base_url))
        return out

    def release_page(self, notes: releases.Notes) -> bytes:
        """Return the page of one release: the errors it added, reworded and removed."""
        return self.page("release.html", notes.url, title=f"Release {notes.release}",
                         description=f"The errors release {notes.release} of {self.config.title} added, reworded and removed.",
                         notes=notes, pasted=releases.markdown_notes(notes, self.config.base_url))

    def list_page(self, head: str, number: int) -> bytes:
        """Return page `number` (from 1) of the list of errors whose first page is `head`."""
        listing = self.listing(head)
        pages = listing.pages
        start, end = pages.span(number)
        items = pages.items[start:end]
        # Written pages come first: the page's items up to `split` are written, the rest not.
        split = min(max(listing.written - start, 0), len(items))
        path = paging.page_path(head, number)
        root = urls.root_of(path)
        total = len(pages.items)
        description = f"Every error in {self.config.title}." if listing.kind == "all" else \
            f"{total} error{'s' if total != 1 else ''} of {self.config.title}: {listing.kind} {listing.key}."
        # The first page says where the errors not yet written start, when another page holds the first.
        later = bisect_right(pages.starts, listing.written) if 0 < listing.written < total else 1
        return self.page(
            "list.html",
            path,
            title=_page_title(listing.name, number, len(pages.starts)),
            description=description,
            name=listing.name,
            kind=listing.kind,
            total=total,
            written=listing.written,
            drafted=listing.drafted,
            done=self.lists.mark(b"".join(items[:split]), root) if split else None,
            todo=self.lists.mark(b"".join(items[split:]), root) if split < len(items) or not items else None,
            number=number,
            pages=pages.links(number),
            unwritten_from=later if number == 1 and later > 1 else None,
        )

    def group_list(self, head: str) -> Paged:
        """Return the list of every exception type, file or tag whose first page is `head`, and its pages."""
        kind = GROUP_LISTS[head][0]
        return paged(head, [group_item(kind, name, tally).encode() for name, tally in self.overview.groups[kind].items()])

    def groups_page(self, pages: Paged, number: int) -> bytes:
        """Return page `number` (from 1) of the list of every exception type, file or tag."""
        kind, title = GROUP_LISTS[pages.head]
        path = paging.page_path(pages.head, number)
        start, end = pages.span(number)
        return self.page("groups.html", path, title=_page_title(title, number, len(pages.starts)),
                         description=f"{title} in {self.config.title}.", name=title, total=len(pages.items),
                         items=self.lists.mark(b"".join(pages.items[start:end]), urls.root_of(path)),
                         number=number, pages=pages.links(number))

    def home_page(self) -> bytes:
        """Return the home page."""
        overview = self.overview
        list_all = len(overview.ids) <= HOME_LIST_LIMIT
        return self.page(
            "home.html",
            "index.html",
            title=self.config.title,
            description=f"{len(overview.ids)} errors, what they mean and how to fix them.",
            groups=overview.groups,
            shown={kind: leading(overview.groups[kind], HOME_GROUPS_LIMIT) for kind in ("exception", "file", "tag")},
            # Members are listed only on a small site's home page; elsewhere only counted.
            by_exception=self.ordered(self.by_exception) if list_all else {},
            by_file=self.ordered(self.by_file) if list_all else {},
            list_all=list_all,
            counts=self.counts(),
            recent=overview.recent,
        )

    def redirect_page(self, old: str, new: str) -> bytes:
        """Return the page at a retired id's URL that sends readers to its successor."""
        return self.page("redirect.html", urls.error(old), title=self.cards[new].title,
                         description=f"This error is now {new}.", target=self.cards[new],
                         target_href="../" + new + "/index.html", canonical_target=self.absolute(f"errors/{new}/"))

    # Links

    def site_root(self) -> str:
        """Return the site's root for the page served at any missing URL: base_url, or its path when relative."""
        # GitHub Pages serves 404.html for a missing page at any depth, where relative links break;
        # the absolute address also works from file://, where a root path names the disk's root.
        if self.config.base_url.startswith(("https://", "http://")):
            return self.config.base_url
        return urlsplit(self.config.base_url).path or "/"

    def style_css(self) -> bytes:
        """Return the site's style sheet: the template's rules and Pygments' colours."""
        return (self.env.loader.get_source(self.env, "static/style.css")[0]  # type: ignore[union-attr]
                + highlight.pygments_css()).encode()

    def absolute(self, pretty: str) -> str:
        """Return the absolute URL of a public path, from base_url."""
        return self.config.base_url + pretty

    def source_link(self, record: Record) -> str | None:
        """Return the permalink of the raise at its pinned commit, when the repo is known."""
        return self.code_link(record, record.source.path, record.source.line)

    def code_link(self, record: Record, path: str, line: int) -> str | None:
        """Return the permalink of a line of the repository at the record's pinned commit, when the repo is known."""
        return _format_url(self.config.source_url, repo=record.source.repo or "", commit=record.source.commit,
                           path=quote(path), line=str(line))

    def issue_link(self, record: Record) -> str | None:
        """Return the link that opens an issue about this page."""
        return _format_url(self.config.issue_url, repo=record.source.repo or self.config.repo or "",
                           title=quote(f"Error page {record.id}: {record.title}"),
                           id=record.id, url=quote(self.absolute(f"errors/{record.id}/")))

    def edit_link(self, record: Record) -> str | None:
        """Return the link to the record's file, for contributions."""
        return _format_url(self.config.edit_url, repo=self.config.repo or record.source.repo or "",
                           id=record.id)

    def counts(self) -> dict[str, int]:
        """Return how many records, exception types, files and tags the site has."""
        overview = self.overview
        return {
            "errors": len(overview.ids),
            "active": overview.active,
            "written": overview.written,
            "drafted": overview.drafted,
            "exceptions": len(overview.groups["exception"]),
            "files": len(overview.groups["file"]),
            "tags": len(overview.groups["tag"]),
        }

    # Data files

    def record_json(self, record: Record) -> bytes:
        """Return the whole record, normalised, with its URL."""
        return _json({**record_data(record), "url": self.absolute(f"errors/{record.id}/")})

    def search_index(self) -> bytes:
        """Return the search index as a script, so it loads from file:// too."""
        known, terms = self.search_entries, self.search_terms
        return index_script(build_index([known.get(r.id) or search_entry(r) for r in self.site.records],
                                        lambda rec: terms.get(rec["id"]) or document_terms(rec), self.config.base_url))

    @cached_property
    def sitemap_urls(self) -> list[str]:
        """Return the absolute URL of every page the sitemap names, sorted: each error's, and the first page of every list.

        The later pages of a list are linked from its first, and every error is named here itself.
        """
        pages = ["", "errors/", "exceptions/", "files/", "tags/", "search/"]
        overview = self.overview
        pages += [f"errors/{i}/" for i in overview.ids]
        pages += [urls.pretty(urls.exception(n)) for n in overview.groups["exception"]]
        pages += [urls.pretty(urls.source_file(p)) for p in overview.groups["file"]]
        pages += [urls.pretty(urls.tag(t)) for t in overview.groups["tag"]]
        return [self.absolute(p) for p in sorted(pages)]

    def sitemap_files(self) -> dict[str, Callable[[], bytes]]:
        """Return the sitemap: one file, or past `paging.SITEMAP_URLS` URLs an index and the files it names."""
        overview = self.overview
        count = 6 + len(overview.ids) + sum(map(len, overview.groups.values()))
        if count <= paging.SITEMAP_URLS:
            return {SITEMAP: partial(self.sitemap, 1)}
        parts = -(-count // paging.SITEMAP_URLS)
        out: dict[str, Callable[[], bytes]] = {SITEMAP: partial(self.sitemap_index, parts)}
        out.update((paging.sitemap_path(n), partial(self.sitemap, n)) for n in range(1, parts + 1))
        return out

    def sitemap(self, number: int) -> bytes:
        """Return the sitemap file `number` (from 1): every page when it is the only one, or its share of them."""
        limit = paging.SITEMAP_URLS
        # Only &, < and > need escaping in XML text (xml.sax.saxutils.escape, without its slow imports).
        body = "".join(f"<url><loc>{html_escape(url, quote=False)}</loc></url>\n"
                       for url in self.sitemap_urls[(number - 1) * limit:number * limit])
        return ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                f"{body}</urlset>\n").encode()

    def sitemap_index(self, parts: int) -> bytes:
        """Return the sitemap index that names the `parts` sitemap files."""
        body = "".join(f"<sitemap><loc>{html_escape(self.absolute(paging.sitemap_path(n)), quote=False)}</loc></sitemap>\n"
                       for n in range(1, parts + 1))
        return ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                f"{body}</sitemapindex>\n").encode()


def _page_title(name: str, number: int, pages: int) -> str:
    """Return the title of page `number` of a list of `pages` pages named `name`."""
    return name if pages == 1 else f"{name}, page {number} of {pages}"


def group_item(kind: str, name: str, tally: Tally) -> str:
    """Return a group's item on the list of every exception type, file or tag, with `summary.ROOT` for the root."""
    href = urls.exception(name) if kind == "exception" else urls.source_file(name) if kind == "file" else urls.tag(name)
    shown = f"#{html(name)}" if kind == "tag" else f"<code>{path_html(visible(name)) if kind == 'file' else html(name)}</code>"
    return f'<li><a href="{ROOT}{html(href)}">{shown}</a> <span class="meta">{written_of(tally)}</span></li>\n'


def errors_json(cards: Iterable[Summary], config: Config) -> bytes:
    """Return api/errors.json: every record's summary (`cards` in id order)."""
    return _json_lines({"version": 1}, "errors", [r.error_line if r.error_line is not None else error_line(r)
                                                  for r in cards], config.base_url)


def ships_patterns(config: Config) -> bool:
    """Return whether the site publishes api/patterns.json: the link helper prints absolute URLs only.

    With a relative base_url (the default `/`) every pattern's URL would be relative, and a helper
    would skip them all; no file is better than one that silently links nothing.
    """
    return config.base_url.startswith(("https://", "http://"))


def patterns_json(cards: Iterable[Summary], config: Config) -> bytes:
    """Return api/patterns.json: every active record's compiled pattern, for linking from messages."""
    lines = (r.pattern_line if r.pattern_line is not None else pattern_line(r) for r in cards)
    return _json_lines({"version": 1, "base_url": config.base_url}, "patterns", [line for line in lines if line],
                       config.base_url)


def record_data(record: Record) -> dict[str, Any]:
    """Return the record as normalised JSON data: defaults applied, empty parts left out."""
    source = record.source
    data: dict[str, Any] = {
        "id": record.id, "exception": record.exception, "message": record.message,
        "title": record.title, "status": record.status,
        "source": {k: v for k, v in {
            "repo": source.repo, "commit": source.commit, "path": source.path, "line": source.line,
            "function": source.function,
            "snippet": {"start": source.snippet.start, "code": source.snippet.code},
            "guard": list(source.guard) or None,
            "callers": [{"path": c.path, "line": c.line, "function": c.function} for c in source.callers] or None,
            "names": {name: {k: v for k, v in (("path", d.path), ("line", d.line), ("kind", d.kind), ("flag", d.flag),
                                               ("help", d.help)) if v is not None}
                      for name, d in source.names} or None,
        }.items() if v is not None},
    }
    if record.meaning:
        data["meaning"] = record.meaning
    if record.solutions:
        data["solutions"] = list(record.solutions)
    if record.example_fix:
        fix = record.example_fix
        data["example_fix"] = {k: v for k, v in {
            "before": fix.before, "after": fix.after, "language": fix.language, "code": fix.code,
            "code_language": fix.code_language if fix.code else None, "note": fix.note,
            "check": {"files": dict(fix.check.files), "before": fix.check.before, "after": fix.check.after}
            if fix.check else None,
            "verified": {"commit": fix.verified.commit, "date": fix.verified.date, "by": "errorsite verify"}
            if fix.verified else None,
        }.items() if v is not None}
    if record.when:
        data["when"] = {k: v for k, v in {"trigger": record.when.trigger, "situations": record.when.situations}.items() if v}
    if record.related:
        data["related"] = list(record.related)
    if record.tags:
        data["tags"] = list(record.tags)
    if record.analysis:
        a = record.analysis
        data["analysis"] = {k: v for k, v in {"by": a.by, "date": a.date, "note": a.note, "commit": a.commit,
                                              "model": a.model}.items() if v}
        if a.reviewed:
            data["analysis"]["reviewed"] = {"by": a.reviewed.by, "date": a.reviewed.date}
    if record.variants:
        data["variants"] = [{k: v for k, v in {"message": x.message, "kind": x.kind, "until": x.until}.items() if v}
                            for x in record.variants]
    if record.review:
        data["review"] = {"since": record.review.since, "why": record.review.why}
    if record.history:
        data["history"] = [{"release": h.release, "commit": h.commit, "change": h.change} for h in record.history]
    return data


Groups = dict[str, list[Summary]]
"""A list page's name -> its records."""


def _groups(records: Iterable[Summary]) -> tuple[Groups, Groups, Groups]:
    """Return the records of each exception, each file and each tag, by name in name order."""
    exceptions: Groups = defaultdict(list)
    files: Groups = defaultdict(list)
    tags: Groups = defaultdict(list)
    for record in records:
        exceptions[record.exception].append(record)
        files[record.path].append(record)
        for tag in record.tags:
            tags[tag].append(record)
    return dict(sorted(exceptions.items())), dict(sorted(files.items())), dict(sorted(tags.items()))


def _format_url(pattern: str, **values: str) -> str | None:
    if "{repo}" in pattern and not values.get("repo"):
        return None
    return pattern.format_map(values)


def _json(data: Any) -> bytes:
    return (_indented(data, "\n") + "\n").encode()


def _json_lines(head: dict[str, Any], name: str, lines: list[bytes], base_url: str) -> bytes:
    """Return `{**head, name: [...]}` as JSON with an item per line, from ready-made `lines` (see `summary`).

    The lists of every record are long: joined from lines made once per record, they are quick
    to make, and still read and compare line by line.
    """
    opening = COMPACT.encode({**head, name: []})[: -len("[]}")].encode()
    if not lines:
        return opening + b"[]}\n"
    return opening + b"[\n" + b",\n".join(lines).replace(ROOT_BYTES, json_base_url(base_url)) + b"\n]}\n"


def json_base_url(base_url: str) -> bytes:
    """Return the base URL as the API lists hold it in place of `summary.ROOT`: inside a JSON string, in UTF-8."""
    return encode_basestring(base_url)[1:-1].encode()


def _indented(value: Any, newline: str) -> str:
    """Return what `json.dumps(value, ensure_ascii=False, indent=1)` does, at the depth `newline` indents to.

    json's indenting encoder is pure Python and slow; this one calls C for every string and number,
    and writes strings and numbers inside lists and objects without another call, which makes
    api/errors.json of 10,000 records several times quicker.
    """
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = newline + " "
        return "{" + inner + ("," + inner).join(
            f"{encode_basestring(key if isinstance(key, str) else json.dumps(key))}: "
            + (encode_basestring(item) if type(item) is str else _indented(item, inner))
            for key, item in value.items()) + newline + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = newline + " "
        return "[" + inner + ("," + inner).join(
            encode_basestring(item) if type(item) is str else _indented(item, inner) for item in value) \
            + newline + "]"
    if isinstance(value, str):
        return encode_basestring(value)
    if type(value) is int:
        return int.__repr__(value)
    return JSON_CONSTANTS[value] if value is None or type(value) is bool else json.dumps(value)


JSON_CONSTANTS = {None: "null", True: "true", False: "false"}


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _disk(path: str) -> str:
    return urls.output_path(path)


def leading(groups: dict[str, Tally], limit: int) -> dict[str, Tally]:
    """Return the `limit` groups with the most errors (ties by name), in the order of `groups`."""
    if len(groups) <= limit:
        return groups
    kept = set(sorted(groups, key=lambda name: (-groups[name].records, name))[:limit])
    return {name: tally for name, tally in groups.items() if name in kept}
