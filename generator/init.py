"""`errorsite init`: set errorsite up in a library's repository.

It writes what a maintainer would otherwise copy from the README, fitted to
the repository it finds:

- `<content>/site.toml`: `title`, `repo` and `base_url` from the GitHub
  remote, and a `[source]` table for the layout (a `src/` layout or packages
  at the top; tests, docs, examples, benchmarks and test-helper folders and a
  vendored link helper left out);
- `.github/workflows/errors.yml`: on pull requests the records are checked
  against the code (full history, `--strict`); on the default branch the
  records are re-pinned to it (a squash merge leaves pins to commits that are
  gone), checked, and the site is built with the base URL GitHub Pages reports
  and deployed, both through errorsite's own GitHub Action;
- `.gitignore` with the build output and cache, when there is none;

then a first `extract` when the content folder holds no records yet. A file
that exists is never changed: init names it and goes on, so a second run
changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from . import __version__
from .extract import git, sync
from .extract.globs import FileFilter
from .extract.sync import ExtractReport
from .problems import CONTROL_CHARACTER, ProblemsFound, UserError
from .schema import REPO

ACTION = "errorsite/errorsite"
"""The repository whose root holds errorsite's GitHub Action (`action.yml`).

The workflow names it at `v<version>`, the tag the Release workflow creates on the commit it
publishes; the Action installs errorsite from that tag's checkout."""

WORKFLOW = ".github/workflows/errors.yml"
"""Where init writes the workflow, relative to the repository root."""

IGNORED = ("site/", ".errorsite-cache/")
"""What `.gitignore` should list: the default build output and the build cache."""

_GITHUB = re.compile(
    r"(?:(?:https?|ssh|git)://(?:[^@/]+@)?github\.com(?::\d+)?/|[^@/:]+@github\.com:)"
    r"(?P<repo>[^/]+/[^/]+?)(?:\.git)?/?"
)
"""A GitHub remote URL: https, ssh (`git@github.com:owner/name.git`), ssh:// and git:// forms.

Its `repo` counts only when it is an `owner/name` by the record format's pattern, so the
site.toml init writes passes check."""

NOT_CODE = frozenset({
    "tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "benchmark", "bench",
    "test_utils", "testutils", "test_helpers", "_testing", "_test_utils",
})
"""Folder names whose files document nothing a user of the library meets: tests, docs, examples, test helpers."""

NOT_PACKAGES = NOT_CODE | {"scripts", "tools", "ci", "build", "dist", "site", "content"}
"""Top-level folders that are never the library itself."""

NOT_MODULES = frozenset({"setup.py", "conftest.py", "noxfile.py", "tasks.py", "fabfile.py", "manage.py"})
"""Top-level files that are project tooling, not the library."""

LINK_HELPER_MARK = b"ERRORSITE_NO_LINKS"
"""Text every copy of errorsite's link helper carries (its opt-out variable): a vendored copy is not the library's code."""

MAX_READ_BYTES = 5_000_000
"""The most init reads of one file of the work tree (extract scans no larger source file)."""


@dataclass(frozen=True)
class Layout:
    """What init found in the work tree, and the `[source]` table that fits it."""

    kind: str
    """`src` (packages under `src/`), `flat` (packages or modules at the top) or `unknown`."""
    include: tuple[str, ...]
    """Globs of the library's files; empty when none were found (every `.py` file is read)."""
    exclude: tuple[str, ...]
    """Test, docs, example, benchmark and test-helper folders inside them, and vendored link helpers."""


@dataclass(frozen=True)
class Remote:
    """The GitHub repository of the work tree, from its git remotes."""

    repo: str | None
    """`owner/name`, when a remote is on GitHub."""
    note: str | None
    """Why there is none, for the user."""


@dataclass(frozen=True)
class InitReport:
    """What init did."""

    written: tuple[str, ...]
    """Files written, relative to the repository root."""
    kept: tuple[str, ...]
    """Files that existed and were left as they were."""
    notes: tuple[str, ...]
    """What the user should know or do next."""
    extract: ExtractReport | None = None
    """The first extract, when init ran one."""

    def lines(self) -> list[str]:
        """Return the lines to print."""
        out = [f"wrote {path}" for path in self.written]
        out += [f"kept {path} (it exists; init changes no file that exists)" for path in self.kept]
        if self.extract is not None:
            out.append("extract: " + self.extract.summary())
        out += [f"note: {note}" for note in self.notes]
        return out


class FirstExtractFailed(UserError):
    """The first extract stopped on a user error after init wrote its files: it says which files those are."""

    def __init__(self, written: list[str], error: UserError) -> None:
        super().__init__(error.message, hint=error.hint, page=error.page)
        self.exit_code = error.exit_code
        self.written = written
        """The files init wrote before the extract ran."""
        self.error = error
        """Why the extract stopped."""

    def __str__(self) -> str:
        done = "init wrote " + ", ".join(self.written) if self.written else "init wrote no file"
        if isinstance(self.error, ProblemsFound):
            count = len(self.error.problems)
            why = "\n".join([*map(str, self.error.problems), f"{count} problem{'s' if count != 1 else ''} found."])
        else:
            why = str(self.error)
        return "\n".join([f"{done}; then the first extract stopped, and wrote no record:", why, AFTER_EXTRACT])


AFTER_EXTRACT = "  fix that, then run `errorsite extract` (init keeps the files it wrote; a second init changes none)"
"""What to do when the first extract stopped (`FirstExtractFailed`)."""


@dataclass
class _Plan:
    """Files init would write, and notes, gathered before anything is written."""

    files: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def init(repo_dir: Path, content_dir: Path | None = None) -> InitReport:
    """Set errorsite up in the git repository `repo_dir`; return what was written and kept."""
    files = git.work_tree_files(repo_dir)
    content_dir = content_dir if content_dir is not None else repo_dir / "content"
    content = _inside(repo_dir, content_dir)
    remote = github_remote(git.remote_urls(repo_dir))
    layout = find_layout(files, lambda path: _read_regular(repo_dir / path))
    plan = _Plan()
    plan.files[f"{content}/site.toml"] = site_toml(remote.repo, repo_dir.resolve().name, layout)
    plan.files[WORKFLOW] = workflow(content)
    plan.files[".gitignore"] = "".join(f"{line}\n" for line in IGNORED)
    if remote.note:
        plan.notes.append(remote.note)
    if layout.kind == "unknown":
        plan.notes.append("found no package under src/ or at the top: [source] reads every .py file;"
                          " set include in site.toml to the library's folders")
    written, kept = _write_new(repo_dir, plan.files)
    if ".gitignore" in kept:
        ignore = repo_dir / ".gitignore"
        missing = [line for line in IGNORED if line not in _lines(ignore)]
        if missing:
            plan.notes.append(("git reads no .gitignore that is a link: make it a file holding " if ignore.is_symlink()
                               else "add to .gitignore: ") + " ".join(missing))
    try:
        report = _first_extract(repo_dir, content_dir, plan.notes)
    except UserError as error:
        raise FirstExtractFailed(written, error) from None
    if written:
        plan.notes.append(f"next: write the prose into {content}/errors/*.json, `errorsite build --content {content}`"
                          " to see the site, commit, and on GitHub set Settings > Pages > Source to GitHub Actions")
    return InitReport(tuple(written), tuple(kept), tuple(plan.notes), report)


def _inside(repo_dir: Path, content_dir: Path) -> str:
    """Return the content folder relative to the repository root, as a POSIX path."""
    try:
        relative = content_dir.resolve().relative_to(repo_dir.resolve())
    except ValueError:
        raise UserError(
            f"--content {str(content_dir)!r} is outside the repository {str(repo_dir)!r}",
            hint="the workflow builds the content folder from the repository's checkout; give a folder inside it",
            page="content-outside-repository",
        ) from None
    return relative.as_posix() if relative.parts else "."


def _write_new(repo_dir: Path, files: dict[str, str]) -> tuple[list[str], list[str]]:
    """Write each file that does not exist yet; return (written, kept) paths.

    Every file is proven inside the repository, its folders resolved (a `.github` that is a link
    leads elsewhere), before any is written; each is created exclusively, never through a link.
    """
    home = repo_dir.resolve()
    new = {}
    for name, text in sorted(files.items()):
        path = repo_dir / name
        if not (path.exists() or path.is_symlink()):
            new[name] = (_proven_inside(home, path, name), _utf8(text, name))
    for name, (path, data) in new.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "xb") as file:
            file.write(data)
    return list(new), sorted(files.keys() - new.keys())


def _proven_inside(home: Path, path: Path, name: str) -> Path:
    """Return `path` once its nearest existing folder resolves inside the repository `home`."""
    folder = path.parent
    while not folder.exists() and not folder.is_symlink():
        folder = folder.parent
    if not folder.resolve().is_relative_to(home):
        raise UserError(
            f"refused to write {name!r}: {str(folder)!r} leads to {str(folder.resolve())!r}, outside the repository",
            hint="init writes only inside the repository; replace the link by a folder, or write the file yourself",
            page="init-outside-repository",
        )
    return path


def _utf8(text: str, name: str) -> bytes:
    """Return `text` as UTF-8; a folder name that is not UTF-8 cannot be written into a settings file."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        shown = text[error.start:error.end].encode("utf-8", "surrogateescape")
        raise UserError(
            f"cannot write {name!r}: a folder name in it holds bytes that are not UTF-8 ({shown!r})",
            hint="TOML and YAML files are UTF-8: rename the folder to a UTF-8 name, or give --content a folder "
            "whose path is UTF-8",
            page="name-not-utf8",
        ) from None


def _lines(path: Path) -> set[str]:
    """Return the stripped lines of a text file (none when it is a link, as git reads no .gitignore that is one)."""
    return {line.strip() for line in _read_regular(path).decode("utf-8", "replace").splitlines()}


def _read_regular(path: Path) -> bytes:
    """Return the first `MAX_READ_BYTES` of a regular file of the work tree; b"" for a link or any other file.

    A repository can hold a link to anything, /dev/zero or a file that does not exist: init reads
    none through a link (extract reads a link's blob, never its target), and no device or FIFO.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0))
    except OSError:
        return b""
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return b""
        return file.read(MAX_READ_BYTES)


def _first_extract(repo_dir: Path, content_dir: Path, notes: list[str]) -> ExtractReport | None:
    """Run extract when the content folder has no records yet and the repository has a commit."""
    errors_dir = content_dir / "errors"
    if errors_dir.is_dir() and any(errors_dir.glob("*.json")):
        notes.append(f"{errors_dir} holds records already: `errorsite extract {repo_dir}` updates them")
        return None
    try:
        git.resolve(repo_dir, "HEAD")
    except UserError:
        notes.append(f"the repository has no commit yet: commit the code, then run `errorsite extract {repo_dir}`")
        return None
    report = sync.run(repo_dir, "HEAD", None, content_dir)
    # An empty errors/ still makes a valid content folder to build.
    errors_dir.mkdir(parents=True, exist_ok=True)
    return report


def github_remote(urls: dict[str, str]) -> Remote:
    """Return the GitHub repository of `origin` (else of the only remote, else of any GitHub remote)."""
    if not urls:
        return Remote(None, "the repository has no git remote, so site.toml has no repo: source links and"
                      ' "report a problem" need one; add repo = "owner/name" and base_url when it is on GitHub')
    names = ["origin"] if "origin" in urls else sorted(urls)
    for name in names:
        found = _GITHUB.fullmatch(urls[name].strip())
        if found and re.fullmatch(REPO, found["repo"]):
            return Remote(found["repo"], None)
    shown = ", ".join(f"{name} {urls[name]}" for name in names)
    return Remote(None, f"no remote is on GitHub ({shown}), so site.toml has no repo:"
                  ' add repo = "owner/name", and set source_url for another host')


def find_layout(files: Iterable[str], read: Callable[[str], bytes]) -> Layout:
    """Return the layout of a work tree's files and the `[source]` table that fits it."""
    python = [f for f in files if f.endswith(".py")]
    src = sorted({p.parts[1] for p in map(PurePosixPath, python)
                  if len(p.parts) == 3 and p.parts[0] == "src" and p.parts[2] == "__init__.py"})
    if src:
        kind, include = "src", [f"src/{name}/**/*.py" for name in src]
    else:
        packages = sorted({p.parts[0] for p in map(PurePosixPath, python)
                           if len(p.parts) == 2 and p.parts[1] == "__init__.py" and _is_library(p.parts[0])})
        modules = sorted(f"/{f}" for f in python if "/" not in f and f not in NOT_MODULES and not f.startswith("test"))
        include = [f"{name}/**/*.py" for name in packages] + modules
        kind = "flat" if include else "unknown"
    chosen = FileFilter(include or ("*.py",), ())
    selected = [f for f in python if chosen(f)]
    excluded = sorted({folder for f in selected if (folder := _not_code_folder(f)) is not None})
    helpers = sorted(f for f in selected if _not_code_folder(f) is None and LINK_HELPER_MARK in read(f))
    return Layout(kind, tuple(include), tuple([f"{folder}/**" for folder in excluded] + [f"/{f}" for f in helpers]))


def _is_library(name: str) -> bool:
    """Return whether a top-level folder may be the library's package."""
    return name not in NOT_PACKAGES and not name.startswith((".", "_")) and not name.startswith("test")


def _not_code_folder(path: str) -> str | None:
    """Return the outermost folder of `path` that holds tests, docs, examples or test helpers, if any."""
    parts = PurePosixPath(path).parts[:-1]
    for index, part in enumerate(parts):
        if part in NOT_CODE:
            return "/".join(parts[:index + 1])
    return None


def site_toml(repo: str | None, folder_name: str, layout: Layout) -> str:
    """Return the text of a new `site.toml`."""
    # A title is one line of text (validate.py refuses control characters): a folder's odd name loses them.
    name = repo.partition("/")[2] if repo else re.sub(CONTROL_CHARACTER, "", folder_name)
    lines = [
        "# errorsite settings: https://errorsite.github.io/errorsite/ documents every key.",
        f"title = {_toml(f'{name} error reference')}",
    ]
    if repo:
        owner, name = repo.split("/")
        pages = f"https://{owner.lower()}.github.io/" + ("" if name.lower() == f"{owner.lower()}.github.io" else f"{name}/")
        lines += [f"repo = {_toml(repo)}", "# The GitHub Pages address; the workflow builds with the one Pages reports.",
                  f"base_url = {_toml(pages)}"]
    lines += [
        "",
        "# What `errorsite extract` and `errorsite check --source` read; flags override it.",
        "[source]",
    ]
    if layout.include:
        lines.append(f"include = {_toml_list(layout.include)}")
    lines += [
        "# Tests, docs, examples, benchmarks and test helpers raise nothing a user of the library meets.",
        f"exclude = {_toml_list(layout.exclude)}",
        "# New records' ids (their URLs) from the message's first words; `errorsite rename` changes one later.",
        'ids = "words"',
    ]
    return "\n".join(lines) + "\n"


def _toml(text: str) -> str:
    """Return a TOML basic string (JSON's escapes are TOML's; TOML also wants DEL escaped)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007F")


def _yaml(text: str) -> str:
    """Return a YAML double-quoted string that GitHub Actions reads back as `text`.

    JSON's escapes are YAML's; YAML also wants DEL, the C1 controls and the non-characters
    escaped, and the line and paragraph separators are escaped for parsers that break lines at
    them. `${{`, which Actions would read as the start of an expression, is written by one.
    """
    quoted = json.dumps(text, ensure_ascii=False).replace("${{", "${{ '${{' }}")
    return re.sub("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]", lambda found: f"\\u{ord(found.group()):04x}", quoted)


def _toml_list(items: Iterable[str]) -> str:
    """Return a TOML array of strings."""
    return "[" + ", ".join(_toml(item) for item in items) + "]"


def workflow(content: str) -> str:
    """Return the GitHub Actions workflow that checks pull requests and publishes from the default branch."""
    action = f"{ACTION}@v{__version__}"
    return f"""\
# The error reference: records checked against the code on every pull request,
# the site built and published on GitHub Pages from the default branch.
# Written by `errorsite init`. In the repository's settings, set Pages > Source
# to "GitHub Actions".
name: Error reference

on:
  pull_request:
  push:
  workflow_dispatch:

permissions:
  contents: read

jobs:
  check:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          # check --source compares every record with its pinned commit: it needs the full history.
          fetch-depth: 0
      - uses: {action}
        with:
          content: {_yaml(content)}
          strict: true

  publish:
    if: github.event_name != 'pull_request' && github.ref_name == github.event.repository.default_branch
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pages: write
      id-token: write
    concurrency:
      group: pages
      cancel-in-progress: false
    environment:
      name: github-pages
      url: ${{{{ steps.errors.outputs.page-url }}}}
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - id: errors
        uses: {action}
        with:
          content: {_yaml(content)}
          # The records' pins may name commits a squash merge removed: the site is built from fresh ones.
          repin: true
          deploy: true
"""
