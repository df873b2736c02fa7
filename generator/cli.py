"""The `errorsite` command: argparse, and the only place that prints or exits."""

from __future__ import annotations

import argparse
import contextlib
import os
import errno
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__
from .sitebuild.paths import CACHE_DIR, user_cache
from .problems import BUG_REPORT_URL, Problem, UsageError, UserError, crash_summary

# A command imports what it needs when it runs: `build` is run after every edit, and most of
# what the other commands import would only lengthen it.
if TYPE_CHECKING:
    from .model import Site

DEFAULT_CONTENT = "content"
BUG_EXIT = 70
"""Exit status of a crash: a bug in errorsite (sysexits' EX_SOFTWARE), not a problem of the input."""
ENVIRONMENT_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS,
                                errno.EMFILE, errno.ENFILE, errno.EIO})
"""Operating system errors that the machine causes (full disk, permissions), whatever the file."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors carry the URL of their page."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}", hint=f"run '{self.prog} --help'", page="bad-usage")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    parser = make_parser(command_named(sys.argv[1:] if argv is None else argv))
    args: argparse.Namespace | None = None
    try:
        args = parser.parse_args(argv)
        return _run(args)
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader stopped reading (`errorsite lookup ... | head -1`): nothing is wrong, and
        # nothing more can be said. Standard output goes to devnull so that the interpreter's
        # last flush does not fail again on its way out.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:  # noqa: BLE001 - every crash ends in one line that says it is a bug
        if args is not None and args.debug:
            import traceback

            traceback.print_exc()
        print(bug_line(error), file=sys.stderr)
        return BUG_EXIT


def run() -> NoReturn:
    """Be the `errorsite` command: run `main`, then exit without tidying the interpreter away.

    Everything is written and closed when `main` returns. Freeing every object one by one, as
    the interpreter does on its way out, took a tenth of a build after an edit of 10,000 records.
    """
    global _untidy_exit
    _untidy_exit = True
    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a reader gone away, or a stream closed: nothing more can be said
    os._exit(status)


_untidy_exit = False
"""Whether this process ends without freeing its objects (`run`), rather than returning to a caller."""


def _leave_to_exit() -> None:
    """Let a scan of a whole repository leave its syntax trees to the end of the process (`scan.leave_for_exit`), and
    turn the cyclic garbage collector off to the end: what the command makes lives to its end, makes few cycles, and
    the first collection after a scan would walk every object (0.4 s of a re-extract of 12,000 records) to free
    almost nothing."""
    if _untidy_exit:
        import gc

        from .extract.scan import leave_for_exit

        leave_for_exit()
        gc.disable()


def bug_line(error: BaseException) -> str:
    """Return the one line printed for a crash: what it was, that it is a bug, and where to report it."""
    return (f"error: this is a bug in errorsite ({crash_summary(error)}); please report it at {BUG_REPORT_URL} "
            "with the output of the same command run as 'errorsite --debug ...'")


def _run(args: argparse.Namespace) -> int:
    _working_folder()
    try:
        return args.run(args)
    except OSError as error:
        if not users_error(error, args):
            raise
        # A folder that cannot be written, a disk that is full: the user's to fix, not a bug.
        raise UserError(
            f"cannot use {error.filename or 'a file'!r}: {error.strerror or error}",
            hint="check that the path exists, that you may read or write it, and that the disk has room",
            page="file-system-error",
        ) from None


def _working_folder() -> None:
    """Raise a UserError when the folder the command runs in is gone: every relative path, the default content
    folder among them, would name nothing."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise UserError(
            "the current folder no longer exists: it was deleted or moved while this shell was in it",
            hint="cd to a folder that exists (cd \"$PWD\" enters the folder again if it was made again) and run "
            "the command again",
            page="working-folder-gone",
        ) from None


def users_error(error: OSError, args: argparse.Namespace) -> bool:
    """Return whether `error` is the user's to fix: the machine refused, or it is about a path they chose.

    The paths they chose are those on the command line (and the default content folder), anything
    inside them, what errorsite keeps beside them (the previous tree, a build's staging and old folders), and
    the build cache in the user's cache folder, and the folders on the way to them.
    Any other file (errorsite's own, one it made and lost) failing is a bug.
    """
    if error.errno in ENVIRONMENT_ERRORS or isinstance(error, InterruptedError):
        return True
    named = [value for value in vars(args).values() if isinstance(value, Path)]
    if getattr(args, "content", None) is None and "content" in vars(args):
        named.append(Path(DEFAULT_CONTENT))
    roots: list[Path] = []
    with contextlib.suppress(UserError):
        roots.append(user_cache())
    for path in named:
        path = path.absolute()
        roots += [path, path.parent / CACHE_DIR]
    for name in (error.filename, error.filename2):
        if not isinstance(name, (str, bytes)) or not name:
            continue
        where = Path(name.decode(errors="replace") if isinstance(name, bytes) else name).absolute()
        if any(path.absolute().is_relative_to(where) for path in named):
            return True  # a folder on the way to a path they chose
        for place in (where, *where.parents):
            if place in roots or any(place.parent == path.absolute().parent and
                                     place.name.startswith((f".{path.name}.new-", f".{path.name}.old-"))
                                     for path in named):
                return True
    return False


def make_parser(command: str | None = None) -> Parser:
    """Return the parser of every subcommand.

    Given the name of the `command` about to run, only that command's arguments are added: the
    others' would only be made and thrown away, before every build.
    """
    parser = Parser(prog="errorsite", description="Turn a library's errors into a static, searchable error reference.")
    parser.add_argument("--version", action="version", version=f"errorsite {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="also print the traceback of a crash (a bug in errorsite)")

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(run=usage)
    sub = parser.add_subparsers(title="commands", parser_class=Parser)
    for name, (summary, arguments) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=summary)
        if command not in COMMANDS or command == name:
            arguments(command_parser)
        # Also after the command's name; SUPPRESS keeps a --debug given before it.
        command_parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


def command_named(argv: Sequence[str]) -> str | None:
    """Return the command that `argv` runs, if any: its first word that is not an option.

    Only the command's parser reads what follows its name, and errorsite's own options take no
    value, so a word before it is always an option.
    """
    return next((word for word in argv if not word.startswith("-")), None)


def _build_arguments(build: argparse.ArgumentParser) -> None:
    _content_option(build)
    build.add_argument("--out", default="site", type=Path, help="output folder (default: site)")
    build.add_argument("--base-url", help="where the site is served, e.g. https://owner.github.io/repo/")
    build.add_argument("--quiet", action="store_true", help="print nothing but errors")
    build.set_defaults(run=run_build)


def _serve_arguments(serve: argparse.ArgumentParser) -> None:
    _content_option(serve)
    serve.add_argument("--port", type=port, default=8000, help="port to listen on; 0 picks a free one (default: 8000)")
    serve.add_argument("--base-url", help="serve as if published at this URL (its path is the path prefix)")
    serve.set_defaults(run=run_serve)


def _check_arguments(check: argparse.ArgumentParser) -> None:
    _content_option(check)
    check.add_argument("--source", type=Path, metavar="REPO_DIR",
                       help="also compare every snippet with its file at the pinned commit in this git "
                       "repository, and list raise sites at HEAD that no record documents")
    check.add_argument("--strict", action="store_true", help="with --source: exit 1 when a raise site has no record")
    check.add_argument("--min-written", type=float, metavar="PERCENT",
                       help="with --source: exit 1 when fewer than PERCENT %% of the active records have prose")
    _file_options(check)
    check.set_defaults(run=run_check)


def _extract_arguments(extract_: argparse.ArgumentParser) -> None:
    extract_.add_argument("repo_dir", type=Path, metavar="REPO_DIR", help="a git repository (it is not checked out)")
    extract_.add_argument("--commit", default="HEAD", metavar="REV", help="commit, branch or tag to read (default: HEAD)")
    extract_.add_argument("--repo", metavar="OWNER/NAME",
                          help="GitHub repository; written into new records' source.repo and used in their ids")
    extract_.add_argument("--content", type=Path, default=Path(DEFAULT_CONTENT), metavar="DIR", help="content folder (default: content)")
    _file_options(extract_)
    extract_.add_argument("--history", action="store_true",
                          help="also walk the release tags ([history] tags) and write each record's history")
    extract_.add_argument("--verbose", action="store_true", help="list each skipped raise and unchanged record")
    extract_.set_defaults(run=run_extract)


def _init_arguments(init_: argparse.ArgumentParser) -> None:
    init_.add_argument("repo_dir", nargs="?", type=Path, default=Path("."), metavar="REPO_DIR",
                       help="the library's git repository (default: the current folder)")
    init_.add_argument("--content", type=Path, metavar="DIR", help="content folder, inside REPO_DIR (default: REPO_DIR/content)")
    init_.set_defaults(run=run_init)


def _lookup_arguments(lookup: argparse.ArgumentParser) -> None:
    lookup.add_argument("message", help="the message as you saw it (a traceback works too); - reads standard input")
    _content_option(lookup)
    lookup.add_argument("--base-url", help="print URLs under this base URL")
    lookup.add_argument("--limit", type=int, default=5, help="how many matches to print (default: 5)")
    lookup.add_argument("--version", dest="at_version", metavar="VERSION",
                        help="the library's version that printed the message: each page says whether that version "
                        "raises it and with which wording, and pages of errors it raises come first")
    lookup.add_argument("--site", type=Path,
                        help="search a built site's index (the folder errorsite build wrote) instead of a content folder")
    lookup.set_defaults(run=run_lookup)


def _explain_arguments(explain: argparse.ArgumentParser) -> None:
    explain.add_argument("query", metavar="ID_OR_MESSAGE", help="a record id, or a message as you saw it")
    _content_option(explain)
    explain.add_argument("--site", type=Path, help="read a built site's api/ files instead of a content folder")
    explain.set_defaults(run=run_explain)


def _verify_arguments(verify: argparse.ArgumentParser) -> None:
    verify.add_argument("ids", nargs="*", metavar="ID", help="check only these records (default: every record with a check)")
    verify.add_argument("--content", type=Path, default=Path(DEFAULT_CONTENT), metavar="DIR",
                        help="folder with site.toml and errors/*.json; its records are updated (default: content)")
    verify.set_defaults(run=run_verify)


def _rename_arguments(rename_: argparse.ArgumentParser) -> None:
    rename_.add_argument("old", metavar="OLD", help="the record's id now")
    rename_.add_argument("new", metavar="NEW", help="its new id; the old one's URL redirects to it")
    rename_.add_argument("--content", type=Path, default=Path(DEFAULT_CONTENT), metavar="DIR",
                         help="folder with site.toml and errors/*.json (default: content)")
    rename_.set_defaults(run=run_rename)


def _draft_arguments(draft: argparse.ArgumentParser) -> None:
    draft.add_argument("ids", nargs="*", metavar="ID", help="draft only these records (default: every unwritten one)")
    draft.add_argument("--content", type=Path, default=Path(DEFAULT_CONTENT), metavar="DIR",
                       help="folder with site.toml and errors/*.json; its records are updated (default: content)")
    draft.add_argument("--endpoint", metavar="URL",
                       help="base URL of an OpenAI-compatible API, instead of [draft] endpoint; the API key "
                       "is sent only to an endpoint given here or in $ERRORSITE_DRAFT_ENDPOINT")
    draft.add_argument("--model", metavar="NAME", help="the model to ask, instead of [draft] model")
    draft.add_argument("--dry-run", action="store_true", help="print the request of one record and send nothing")
    draft.add_argument("--redraft", action="store_true",
                       help="also draft again the earlier AI-assisted drafts that nobody has reviewed")
    draft.add_argument("--limit", type=positive, metavar="N", help="draft at most N records")
    draft.add_argument("--verbose", action="store_true",
                       help="list each invalid optional part of a draft (a tag, the title, part of the example) "
                       "that was left out of its record, and why")
    draft.set_defaults(run=run_draft)


def _edit_arguments(edit: argparse.ArgumentParser) -> None:
    edit.add_argument("id", metavar="ID", help="the record to edit")
    edit.add_argument("--content", type=Path, default=Path(DEFAULT_CONTENT), metavar="DIR",
                      help="folder with site.toml and errors/*.json (default: content)")
    edit.set_defaults(run=run_edit)


def positive(text: str) -> int:
    """Return `text` as a whole number of at least 1; argparse reports anything else as invalid."""
    number = int(text)
    if number < 1:
        raise ValueError
    return number


def _patterns_arguments(patterns: argparse.ArgumentParser) -> None:
    _content_option(patterns)
    patterns.add_argument("--out", type=Path, required=True, metavar="FILE",
                          help="where the package wants it, e.g. src/mylib/_errorsite/patterns.bin")
    patterns.add_argument("--base-url", help="where the site is published (default: base_url of site.toml)")
    patterns.set_defaults(run=run_patterns)


def _vendor_arguments(vendor: argparse.ArgumentParser) -> None:
    vendor.add_argument("folder", type=Path, metavar="DIR",
                        help="a folder of its own inside the library's package, e.g. src/mylib/_errorsite")
    _content_option(vendor)
    vendor.add_argument("--base-url", help="where the site is published (default: base_url of site.toml)")
    vendor.set_defaults(run=run_vendor)


def port(text: str) -> int:
    """Return `text` as a TCP port number; argparse reports anything else as an invalid port."""
    number = int(text)
    if not 0 <= number <= 65535:
        # No message: argparse says "invalid port value: '70000'", a usage error and not a crash.
        raise ValueError
    return number


def _file_options(parser: argparse.ArgumentParser) -> None:
    from .extract import globs

    parser.add_argument("--include", action="append", default=[], metavar="GLOB",
                        help="files to read, instead of [source] include in site.toml (default: *.py); "
                        "a glob without / matches the file name, with / the whole path, ** any folders")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="files to skip, instead of [source] exclude in site.toml; always added to: "
                        + " ".join(globs.DEFAULT_EXCLUDE))
    parser.add_argument("--asserts", action=argparse.BooleanOptionalAction, default=None,
                        help='also record `assert cond, "message"` as AssertionError (default: [source] asserts)')
    parser.add_argument("--warnings", action=argparse.BooleanOptionalAction, default=None,
                        help='also record `warnings.warn("message", Category)` calls (default: [source] warnings)')


def _content_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--content", type=Path, default=None,
        help="folder with site.toml and errors/*.json (default: ./content, "
        "or errorsite's own error reference when there is none)",
    )


def content_folder(args: argparse.Namespace) -> Path:
    """Return the content folder the user named, or the default one."""
    if args.content is not None:
        return args.content
    if Path(DEFAULT_CONTENT).is_dir():
        return Path(DEFAULT_CONTENT)
    # Said every time, so that nobody publishes errorsite's own reference by mistake.
    print(
        f"errorsite: no --content given and no {DEFAULT_CONTENT}/ folder here: "
        "using errorsite's own error reference",
        file=sys.stderr,
    )
    from . import assets

    return assets.embedded_content()


def load_site(args: argparse.Namespace) -> Site:
    """Return the validated site of the chosen content folder."""
    from . import load, validate

    return validate.build_site(load.load(content_folder(args)), getattr(args, "base_url", None))


def run_build(args: argparse.Namespace) -> int:
    """Build the site, rendering only what changed since the last build."""
    from .sitebuild import pipeline

    progress = None if args.quiet or not sys.stderr.isatty() else Progress()
    result = pipeline.build(content_folder(args), args.out, args.base_url, progress=progress,
                            waiting=lambda: print(f"errorsite: waiting for another build of {args.out} to finish",
                                                  file=sys.stderr, flush=True))
    if progress:
        progress.finish()
    if not args.quiet:
        done = "nothing changed" if not result.rendered else (
            f"{result.rendered} files rendered, {result.written} written, {result.deleted} deleted")
        records = f"{result.records} record{'s' * (result.records != 1)}"
        pages = f"{result.pages} page{'s' * (result.pages != 1)}"
        weight = f"{result.size / 1024 / 1024:,.1f} MB, {result.size / max(result.records, 1) / 1024:,.1f} KB a record"
        print(f"built {records}, {pages} ({weight}) into {args.out} "
              f"in {result.seconds:.2f} s ({done}; {_index_size(args.out)})")
        if result.coverage is not None:
            from .summary import coverage

            print("pages: " + coverage(*result.coverage))
    if not (args.out / "api" / "patterns.json").is_file():
        print("note: no api/patterns.json: the link helper prints absolute URLs, and base_url is relative;"
              " set base_url in site.toml or pass --base-url https://owner.github.io/repo/ to publish it",
              file=sys.stderr)
    return 0


def _index_size(out: Path) -> str:
    """Return the size of the whole search index a build wrote, which a search loads only in fragments."""
    try:
        size = (out / "search-index.js").stat().st_size
    except OSError:
        return "no search index"
    return f"search index {size / 1024:,.0f} KB, loaded in fragments"


class Progress:
    """Files rendered so far and the rate, on one terminal line, once a build takes over a second."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.shown = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter() - self.started
        if now < 1 or (now - self.shown < 0.2 and done < total):
            return
        self.shown = now
        print(f"\rrendered {done:,}/{total:,} files, {done / now:,.0f}/s", end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        """End the progress line, if one was shown."""
        if self.shown:
            print(file=sys.stderr)


def run_serve(args: argparse.Namespace) -> int:
    """Serve the site and rebuild it on every change, until interrupted."""
    from . import serve

    serve.serve(content_folder(args), args.port, args.base_url, log=lambda text: print(text, flush=True),
                debug=args.debug)
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Validate the content, and with --source compare it with the code."""
    _leave_to_exit()
    from . import load, validate, verify
    from .extract import git, globs
    from .extract.check import check_source
    from .extract.facts import FactStore
    from .patterns import stale_vendored
    from .sitebuild.paths import UnsafeCache
    from .summary import coverage

    folder = content_folder(args)
    # What a check found of each record file is kept by its bytes: only those that changed are checked again. A
    # cache folder refused checks every file, as before, and says so once, for the source (`check --source`).
    try:
        store: FactStore | None = FactStore.open(False, False)
    except UnsafeCache:
        store = None
    passed = store.records_checked(folder) if store is not None else frozenset()
    keys: dict[str, bytes] = {}  # each record file's `validate.checked_key`, made once as it is read

    def known(file: str, digest: bytes) -> bool:
        keys[file] = validate.checked_key(file, digest)
        return keys[file] in passed

    content = load.load(folder, known)
    site = validate.build_site(content, passed=passed)
    checked = frozenset(keys[raw.file] for raw in content.records)
    if store is not None and checked != passed:
        store.keep_records_checked(folder, checked)
    # A check that ran against older code is said, never a failure: re-pinning must not stop a deploy.
    stale = verify.stale(content.records)
    for note in stale:
        print(f"note: {note}", file=sys.stderr)
    count = f"{len(site.records)} record{'s' if len(site.records) != 1 else ''}"
    if stale:
        count += (f" ({len(stale)} example{'s' if len(stale) != 1 else ''} checked against older code;"
                  " `errorsite verify` checks again)")
    active = [r for r in site.records if r.status == "active"]
    print("active pages: " + coverage(len(active), sum(r.written for r in active), sum(r.drafted for r in active)))
    if args.source is None:
        print(f"ok: {count}, no problems")
        return 0
    settings = globs.with_flags(site.config.source, args.include, args.exclude, args.asserts, args.warnings)
    report = check_source(site, args.source, settings, strict=args.strict, min_written=args.min_written,
                          extract=extract_command(args))
    stale_links = stale_vendored(site, args.source, folder, git.work_tree_files(args.source))
    for problem in sorted(report.problems + tuple(stale_links)):
        print(problem, file=sys.stderr)
    for line in report.lines():
        print(line)
    found = len(report.problems) + len(stale_links)
    failures = [f"{found} problem{'s' if found != 1 else ''}"] if found else []
    if report.strict and report.undocumented:
        failures.append(f"{len(report.undocumented)} undocumented raise site{'s' if len(report.undocumented) != 1 else ''}")
    if report.too_few_written:
        failures.append(f"{report.written_share:.1%} of pages written, below {args.min_written:g}%")
    print(f"failed: {count}; " + ", ".join(failures) if failures else f"ok: {count}, no problems")
    return 1 if report.failed or stale_links else 0


def extract_command(args: argparse.Namespace) -> str:
    """Return the `errorsite extract` command that reads what this `check --source` read, as one would type it."""
    import shlex

    words = ["errorsite", "extract", str(args.source)]
    if args.content is not None and args.content != Path(DEFAULT_CONTENT):
        words += ["--content", str(args.content)]
    words += [f"--{flag}={glob}" for flag in ("include", "exclude") for glob in getattr(args, flag)]
    words += [f"--{'' if value else 'no-'}{flag}" for flag in ("asserts", "warnings")
              if (value := getattr(args, flag)) is not None]
    return shlex.join(words)


def run_extract(args: argparse.Namespace) -> int:
    """Write or update the records of a repository's raise sites."""
    _leave_to_exit()
    from .extract import sync

    report = sync.run(args.repo_dir, args.commit, args.repo, args.content,
                      args.include, args.exclude, args.asserts, args.warnings)
    for line in report.lines(args.verbose):
        print(line)
    if args.history:
        from .extract import history

        print(history.run(args.repo_dir, args.content, args.repo, args.include, args.exclude, args.asserts,
                          args.warnings).summary())
    return 0


def run_init(args: argparse.Namespace) -> int:
    """Set errorsite up in a repository, changing no file that exists."""
    _leave_to_exit()
    from . import init

    for line in init.init(args.repo_dir, args.content).lines():
        print(line)
    return 0


def run_explain(args: argparse.Namespace) -> int:
    """Print one record as plain text."""
    from . import explain

    if args.site is not None:
        data, url = explain.published_record(args.site, args.query)
    else:
        data, url = explain.content_record(load_site(args), args.query)
    print(explain.explain(data, url), end="")
    return 0


def run_lookup(args: argparse.Namespace) -> int:
    """Print the pages that explain a message, best first, and weaker candidates apart; exit 1 when none explains it."""
    from urllib.parse import quote

    from . import releases

    text = sys.stdin.read() if args.message == "-" else args.message
    if args.site is not None:
        from .explain import site_search

        results, by_id, base_url = site_search(args.site, text, args.limit, args.base_url)
    else:
        from .lookup import search_content

        results, by_id, base_url = search_content(content_folder(args), text, args.limit, args.base_url)

    version = args.at_version
    if version is not None:
        # Pages of errors that version raises come first; the order is otherwise the engine's.
        results.sort(key=lambda r: not releases.raised_at(by_id[r["id"]], version))
    query = f"?v={quote(version)}" if version is not None else ""

    def line(result: dict[str, Any]) -> str:
        record = by_id[result["id"]]
        kind = result["kind"]
        if result["variant"] is not None:
            kind += f", {record.variants[result['variant']].kind} wording"
            printed = releases.printed_by(record, result["variant"])
            kind += f", {printed}" if printed else ""
        shown = f"{base_url}errors/{record.id}/{query}  [{kind}]  {record.exception}: {record.title}"
        said = releases.at_version(record, version) if version is not None else None
        if said:
            shown += f"\n    {said}"
        if result["other_class"]:
            shown += f"\n    printed as {result['other_class']}: a base class, a wrapper or a label of {record.exception}"
        if result["places"]:
            shown += f"\n    raised at {len(result['places']) + 1} places; the others: " + " ".join(
                f"{base_url}errors/{other}/" for other in result["places"])
        return shown

    explained = [r for r in results if r["confident"]]
    weak = [r for r in results if not r["confident"]]
    for result in explained:
        print(line(result))
    if not explained:
        print("No page explains this message.")
    if weak:
        print("\nWeak candidates (they share words or part of the text; none explains it):" if not explained
              else "\nWeaker candidates:")
        for result in weak:
            print("  " + line(result))
    return 0 if explained else 1


def run_verify(args: argparse.Namespace) -> int:
    """Run the example checks and record their outcomes."""
    from . import verify

    report = verify.verify(args.content, args.ids)
    for line in report.failure_lines():
        print(line, file=sys.stderr)
    print(report.summary())
    return 1 if report.failed else 0


def run_rename(args: argparse.Namespace) -> int:
    """Give a record another id, keeping the old URL working."""
    from . import rename

    for line in rename.rename(args.content, args.old, args.new).lines():
        print(line)
    return 0


def run_draft(args: argparse.Namespace) -> int:
    """Draft the prose of unwritten records through a chat-completions API."""
    from . import draft

    planned = draft.plan(args.content, args.ids, args.redraft, 1 if args.dry_run else args.limit)
    conn = draft.connection(planned.site.config.draft, args.endpoint, args.model, os.environ)
    if args.dry_run:
        print(draft.dry_run(planned, conn), end="")
        return 0
    progress = DraftProgress() if sys.stderr.isatty() else None
    if planned.jobs:
        print(conn.destination(), file=sys.stderr)
    report = draft.run(planned, conn, progress=progress)
    if progress:
        progress.finish()
    for line in report.lines(args.verbose):
        print(line)
    return 130 if report.stopped else 1 if report.failed else 0


class DraftProgress:
    """A bar of the records drafted so far, on one terminal line."""

    WIDTH = 30

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.shown = False

    def __call__(self, done: int, failed: int, total: int) -> None:
        filled = self.WIDTH * done // max(total, 1)
        seconds = time.perf_counter() - self.started
        print(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done:,}/{total:,} records"
              + (f", {failed:,} failed" if failed else "") + f", {seconds:,.0f} s", end="", file=sys.stderr, flush=True)
        self.shown = True

    def finish(self) -> None:
        """End the progress line, if one was shown."""
        if self.shown:
            print(file=sys.stderr)


def run_edit(args: argparse.Namespace) -> int:
    """Edit a record's prose as Markdown in $VISUAL or $EDITOR, and write it back validated."""
    from . import edit

    def ask(problems: list[Problem]) -> str:
        for problem in problems:
            print(problem, file=sys.stderr)
        if not sys.stdin.isatty():
            return "k"
        print("The record was not written. Edit again (e), or keep a copy of your text and stop (k)? [e/k] ",
              end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().strip().lower()[:1] or "e"

    result = edit.edit(args.content, args.id, edit.editor_command(os.environ), ask)
    print(f"wrote {result.file}" if result.written else f"unchanged: {result.file}")
    return 0


def run_patterns(args: argparse.Namespace) -> int:
    """Write the patterns.json of the site's active records where the package wants it."""
    from . import patterns

    site = load_site(args)
    written = patterns.write(patterns.compact_bytes(site, patterns.distribution_of(args.out.parent)), args.out)
    count = sum(r.status == "active" for r in site.records)
    print(f"{'wrote' if written else 'unchanged:'} {args.out} ({count} pattern{'s' if count != 1 else ''})")
    return 0


def run_vendor(args: argparse.Namespace) -> int:
    """Copy the link helper and the current patterns into a package folder of the library."""
    from . import patterns

    done = patterns.vendor(load_site(args), args.folder)
    count = f"{done.count} pattern{'s' if done.count != 1 else ''}, {done.size / 1024:.0f} KB"
    print(f"{'wrote' if done.helper_written else 'unchanged:'} {done.helper} (the link helper, errorsite {__version__})")
    print(f"{'wrote' if done.patterns_written else 'unchanged:'} {done.patterns} ({count})")
    return 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "build": ("validate every record and render the site", _build_arguments),
    "serve": ("build, serve on 127.0.0.1, and rebuild and reload on every change", _serve_arguments),
    "check": ("validate every record without writing anything", _check_arguments),
    "extract": ("write or update records from a git repository's raise sites", _extract_arguments),
    "init": ("set errorsite up in a library's repository: settings, workflow, first extract", _init_arguments),
    "lookup": ("find the pages of a concrete error message", _lookup_arguments),
    "explain": ("print an error's page as plain text", _explain_arguments),
    "verify": ("run every example fix's check and record the outcome in its record", _verify_arguments),
    "rename": ("give a record another id; its old URL redirects to the new one", _rename_arguments),
    "patterns": ("write the patterns file a library ships beside its vendored link helper", _patterns_arguments),
    "draft": ("draft the prose of unwritten records through an OpenAI-compatible API", _draft_arguments),
    "edit": ("edit a record's prose as Markdown in your editor; it is written back validated", _edit_arguments),
    "vendor": ("copy the link helper and the current patterns into a package folder of the library", _vendor_arguments),
}
"""Each command's name, its one-line help, and what adds its arguments, in the order `--help` lists them."""
