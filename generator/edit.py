"""Edit a record's prose as one Markdown document (`errorsite edit ID`).

`document` turns a record into Markdown: one `#` heading per section (`## ` headings inside
Example fix, When it happens and Solutions), each field's text as it is, and the fields the code
owns (id, exception, message, source, variants, status) left out. `parse` reads such a document
back into the record's data. The two are exact inverses: a line of a field that reads like one
of the document's headings is written with a backslash before it, which `parse` removes, and a
field whose text only lost blank lines at its ends keeps its text as it was.

While the editor is open, every save that makes a valid record is written to the record file, so
that `errorsite serve` shows the page as it will look; an editor that fails puts the file back.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from . import load, validate
from .draft import find_record, too_large
from .load import RawRecord
from .model import Config
from .problems import Invalid, Problem, UserError
from .recordjson import rewrite, write_atomically

POLL_SECONDS = 0.3
"""How often the document is looked at while the editor is open."""

INTRO = """\
<!--
  errorsite edit {id}: the prose of {exception}: {message}
  Each "#" heading is a section; write under it and keep the headings. A section left empty
  is left out. Solutions are one "## " heading each, in order; Related and Tags are "- " lists.
  Under Provenance, "reviewed by" and "reviewed on" say that a person read the prose against
  the code and stands by it; delete the "review" line once you have read the prose again.
  The message, the source and the example's check belong to the code and stay as they are.
  Save to see the page in `errorsite serve`; close the editor to write the record.
-->
"""

TOP = ("Title", "What it means", "Solutions", "Example fix", "When it happens", "Related", "Tags", "Provenance")
"""The document's sections, in order."""
FIX_PARTS = (("Before", "before"), ("After", "after"), ("Language", "language"), ("Code", "code"),
             ("Code language", "code_language"), ("Note", "note"))
"""The parts of Example fix: heading, and the field of `example_fix` it holds."""
WHEN_PARTS = (("Trigger", "trigger"), ("Common situations", "situations"))
PROVENANCE_KEYS = (("by", ("by",)), ("model", ("model",)), ("date", ("date",)), ("commit", ("commit",)),
                   ("reviewed by", ("reviewed", "by")), ("reviewed on", ("reviewed", "date")), ("note", ("note",)))
"""The lines of Provenance: their key, and where in `analysis` they go."""
COMMENT = re.compile(r"\A\s*<!--.*?-->\s*\n?", re.S)
HEADINGS = {f"# {name}" for name in TOP} | {f"## {h}" for h, _ in FIX_PARTS + WHEN_PARTS}
SOLUTION = re.compile(r"## Solution [0-9]+")


def _marker(line: str) -> bool:
    """Return whether `line` reads as one of the document's headings."""
    return line in HEADINGS or SOLUTION.fullmatch(line) is not None


def _special(line: str) -> bool:
    """Return whether `line` reads as one of the document's headings, or nearly (see `_not_misspelt`)."""
    return _marker(line) or _misspelt(line) is not None


def _escaped(text: str) -> str:
    """Return a field's text with each line that reads as a heading (after any backslashes) given one more."""
    return "\n".join("\\" + line if _special(line.lstrip("\\")) else line for line in text.split("\n"))


def _unescaped(text: str) -> str:
    return "\n".join(line[1:] if line.startswith("\\") and _special(line.lstrip("\\")) else line
                     for line in text.split("\n"))


def document(data: dict[str, Any]) -> str:
    """Return the record's prose as a Markdown document."""
    # The message goes into the opening comment, which a "-->" in it would end early.
    message = " ".join(data["message"].split()).replace("-->", "--&gt;")
    parts = [INTRO.format(id=data["id"], exception=data["exception"], message=message)]

    def section(heading: str, text: str | None) -> None:
        parts.append(f"{heading}\n\n{_escaped(text)}\n\n" if text else f"{heading}\n\n")

    section("# Title", data.get("title"))
    section("# What it means", data.get("meaning"))
    parts.append("# Solutions\n\n")
    for number, solution in enumerate(data.get("solutions", []), 1):
        section(f"## Solution {number}", solution)
    fix = data.get("example_fix") or {}
    parts.append("# Example fix\n\n")
    for heading, key in FIX_PARTS:
        section(f"## {heading}", fix.get(key))
    when = data.get("when") or {}
    parts.append("# When it happens\n\n")
    for heading, key in WHEN_PARTS:
        section(f"## {heading}", when.get(key))
    section("# Related", "\n".join(f"- {i}" for i in data.get("related", [])))
    section("# Tags", "\n".join(f"- {t}" for t in data.get("tags", [])))
    analysis = data.get("analysis") or {}
    lines = [f"{key}: {_get(analysis, path)}" for key, path in PROVENANCE_KEYS if _get(analysis, path) is not None]
    if "review" in data:
        lines.append(f"review: {data['review']['why']} since {data['review']['since']}")
    section("# Provenance", "\n".join(lines))
    return "".join(parts).rstrip("\n") + "\n"


def _get(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


@dataclass(frozen=True, slots=True)
class Section:
    """One heading of the document and the lines under it."""

    heading: str
    line: int
    """The heading's line number in the document, from 1."""
    text: str


def sections(text: str) -> Iterator[Section]:
    """Yield each heading of the document with its text, blank lines at its ends removed."""
    body = COMMENT.sub("", text, count=1)
    offset = text[:len(text) - len(body)].count("\n")
    heading, start, lines = "", offset + 1, list[str]()
    for number, line in enumerate(body.split("\n"), offset + 1):
        _not_misspelt(line, number)
        if _marker(line):
            if heading or "\n".join(lines).strip():
                yield Section(heading, start, _trimmed(lines))
            heading, start, lines = line, number, []
        else:
            lines.append(line)
    if heading or "\n".join(lines).strip():
        yield Section(heading, start, _trimmed(lines))


def _not_misspelt(line: str, number: int) -> None:
    """Raise for a heading that is nearly one of the document's: a typo would hide its section in the one above."""
    close = _misspelt(line)
    if close is not None:
        _fail(number, f"unknown heading {line!r}", f"did you mean {close!r}?")


def _misspelt(line: str) -> str | None:
    """Return the heading of the document that `line` nearly is, if it is nearly one and not one."""
    if not line.startswith("#") or _marker(line):
        return None
    close = difflib.get_close_matches(line, sorted(HEADINGS), n=1, cutoff=0.8)
    return close[0] if close else None


def _trimmed(lines: list[str]) -> str:
    text = "\n".join(lines)
    return text.strip("\n").rstrip()


def parse(text: str, old: dict[str, Any]) -> dict[str, Any]:
    """Return the record `old` with the prose of the document `text`; raise Invalid for a document it cannot read."""
    data = {key: value for key, value in old.items()
            if key not in ("title", "meaning", "solutions", "when", "related", "tags", "analysis", "review")}
    fix = {k: v for k, v in (old.get("example_fix") or {}).items() if k in ("check", "verified")}
    when: dict[str, str] = {}
    solutions: list[str] = []
    seen: set[str] = set()
    top = ""
    for part in sections(text):
        if not part.heading:
            _fail(part.line, "text before the first heading", "write it under one of the # headings")
        if part.heading.startswith("# "):
            top = part.heading[2:]
            if top in seen:
                _fail(part.line, f"the section {part.heading!r} appears twice", "keep one of them")
            seen.add(top)
        elif not _belongs(part.heading, top):
            _fail(part.line, f"{part.heading!r} is not a part of {'# ' + top if top else 'any section'}",
                       "keep each ## heading under the # heading it came with")
        value = _unescaped(part.text)
        if part.heading.startswith("# ") and value and top in ("Solutions", "Example fix", "When it happens"):
            _fail(part.line, f"text directly under {part.heading!r}",
                       "write it under one of its ## headings" + (" (## Solution N)" if top == "Solutions" else ""))
        _place(data, fix, when, solutions, part, value, old)
    if solutions:
        data["solutions"] = solutions
    if fix.keys() - {"check", "verified"} or fix.get("check"):
        data["example_fix"] = fix
    if when:
        data["when"] = when
    return _kept_where_unchanged(data, old)


def _belongs(heading: str, top: str) -> bool:
    if top == "Solutions":
        return SOLUTION.fullmatch(heading) is not None
    parts = FIX_PARTS if top == "Example fix" else WHEN_PARTS if top == "When it happens" else ()
    return heading in {f"## {h}" for h, _ in parts}


def _place(data: dict[str, Any], fix: dict[str, Any], when: dict[str, str], solutions: list[str], part: Section,
           value: str, old: dict[str, Any]) -> None:
    """Put one section's text where it belongs in the record."""
    heading = part.heading
    if heading.startswith("## Solution"):
        if value:
            solutions.append(value)
    elif heading in {f"## {h}" for h, _ in FIX_PARTS}:
        if value:
            fix[dict(FIX_PARTS)[heading[3:]]] = value
    elif heading in {f"## {h}" for h, _ in WHEN_PARTS}:
        if value:
            when[dict(WHEN_PARTS)[heading[3:]]] = value
    elif heading == "# Title" and value:
        data["title"] = value
    elif heading == "# What it means" and value:
        data["meaning"] = value
    elif heading in ("# Related", "# Tags") and value:
        data[heading[2:].lower()] = _list(value, part)
    elif heading == "# Provenance" and value:
        _provenance(data, value, part, old)


def _list(value: str, part: Section) -> list[str]:
    items = []
    for number, line in enumerate(value.split("\n"), part.line + 2):
        if not line.strip():
            continue
        if not line.startswith("- ") or not line[2:].strip():
            _fail(number, f"{line!r} under {part.heading!r} is not a list item", "write one '- name' a line")
        items.append(line[2:].strip())
    return items


def _provenance(data: dict[str, Any], value: str, part: Section, old: dict[str, Any]) -> None:
    analysis: dict[str, Any] = {}
    keys = dict(PROVENANCE_KEYS)
    for number, line in enumerate(value.split("\n"), part.line + 2):
        if not line.strip():
            continue
        key, colon, text = line.partition(":")
        key, text = key.strip().lower(), text.strip()
        if key == "review" and "review" in old:
            data["review"] = old["review"]
            continue
        if not colon or key not in keys:
            _fail(number, f"{line!r} is not a provenance line",
                       "write 'key: value' with a key of: " + ", ".join(k for k, _ in PROVENANCE_KEYS))
        where = analysis
        for step in keys[key][:-1]:
            where = where.setdefault(step, {})
        where[keys[key][-1]] = text
    if analysis:
        data["analysis"] = analysis


def _kept_where_unchanged(data: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """Return `data` with each text that differs from the old one only in blank lines at its ends put back."""
    def keep(new: Any, was: Any) -> Any:
        if isinstance(new, str) and isinstance(was, str) and new == was.strip("\n").rstrip():
            return was
        if isinstance(new, dict) and isinstance(was, dict):
            # The key order the person's file had is kept too: only the values change.
            order = [k for k in was if k in new] + [k for k in new if k not in was]
            return {k: keep(new[k], was.get(k)) for k in order}
        if isinstance(new, list) and isinstance(was, list) and len(new) == len(was):
            return [keep(n, w) for n, w in zip(new, was)]
        return new

    kept: dict[str, Any] = keep(data, old)
    return kept


def _fail(line: int, reason: str, hint: str) -> NoReturn:
    """Raise the error that says where the document cannot be read."""
    raise Invalid(f"line {line}: {reason}", hint=hint, page="edit-bad-document")


def problems_of(text: str, raw: RawRecord, known: set[str]) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Return the record the document makes and its problems (a record is None when the document cannot be read)."""
    try:
        data = parse(text, raw.data)
    except Invalid as error:
        return None, [Problem.of(raw.file, "", error)]
    edited = RawRecord(raw.file, data)
    found = list(validate.check_record(edited))
    if not found:
        seen = dict.fromkeys(known, "") | {data["id"]: raw.file}
        found = list(validate.check_references(seen, [validate.to_record(edited, Config())], Config(), ""))
    return data, found


# --- the command ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    """What an edit did."""

    file: str
    written: bool
    """Whether the record file changed."""


Ask = Callable[[list[Problem]], str]
"""Shown the problems of an edit, return "e" to edit again, anything else to keep a copy and stop."""


class _File:
    """The record file under edit: its bytes before, and what the previews wrote into it."""

    def __init__(self, path: Path, raw: RawRecord, known: set[str]) -> None:
        self.path = path
        self.original = path.read_bytes()
        self.raw = raw
        self.known = known
        self.previewed: bytes | None = None
        self.lock = threading.Lock()

    def ours(self) -> bool:
        """Return whether the file holds what it held before the edit, or what a preview wrote: nobody else changed it."""
        return self.path.read_bytes() in (self.original, self.previewed)

    def write(self, text: str) -> None:
        """Write the record file; what it holds now becomes ours."""
        write_atomically(self.path, text)
        self.previewed = text.encode("utf-8")

    def made(self, text: str) -> tuple[dict[str, Any] | None, str, list[Problem]]:
        """Return the record the document `text` makes, the record file's text for it, and its problems.

        The problems are those `errorsite check` would find in that file: what is written is what it reads.
        """
        data, problems = problems_of(text, self.raw, self.known)
        if data is None or problems:
            return data, "", problems
        # A person's layout of the file (key order, indentation) stays; only what changed is written.
        new = rewrite(self.original.decode("utf-8-sig"), data)
        oversize = too_large(new)
        if oversize:
            return data, new, [Problem(self.raw.file, "", oversize, "shorten the prose: a record's prose is a few "
                                       "kilobytes", "file-too-large")]
        return data, new, []

    def preview(self, text: str) -> None:
        """Write the record a saved document makes, when valid, so that `errorsite serve` shows it."""
        _, new, problems = self.made(text)
        with self.lock:
            if not problems and self.ours():
                self.write(new)

    def put_back(self) -> None:
        """Give the record file its bytes from before the edit, if a preview changed them."""
        with self.lock:
            if self.previewed is not None and self.path.read_bytes() == self.previewed:
                write_atomically(self.path, self.original.decode("utf-8"))


def edit(content: Path, record_id: str, editor: str, ask: Ask) -> Result:
    """Open the record's prose in `editor` until it makes a valid record, then write it; return what was done."""
    site = validate.build_site(load.load(content))
    record = find_record(site, record_id)
    raw = RawRecord(record.file, load.read_json(Path(record.file)))
    file = _File(Path(record.file), raw, set(site.by_id) - {record.id})
    folder = Path(tempfile.mkdtemp(prefix="errorsite-edit-"))
    draft_path = folder / f"{record.id}.md"
    start = document(raw.data)
    draft_path.write_text(start, encoding="utf-8")
    # The last text of the document seen while the editor was open: what can be kept if the document goes.
    saved = [start]

    def seen(text: str) -> None:
        saved[0] = text
        file.preview(text)

    try:
        while True:
            status = _run_editor(editor, draft_path, seen)
            try:
                text = _read_document(draft_path, start, saved[0], content)
            except UserError:
                file.put_back()
                raise
            if status != 0:
                file.put_back()
                raise UserError(
                    f"the editor {editor!r} exited with status {status}; the record was not changed"
                    + (f" (your text is kept in {_keep(text.encode(), record.id, content)})" if text != start else ""),
                    hint="set VISUAL or EDITOR to an editor that waits until you close the file (code --wait, "
                    "subl -w, nano, vim)",
                    page="editor-failed",
                )
            data, new, problems = file.made(text)
            if not problems:
                if not file.ours():
                    _not_written(f"{record.file} changed while you edited it", text, record.id, content)
                if data == raw.data:
                    file.put_back()
                    return Result(record.file, False)
                file.write(new)
                return Result(record.file, True)
            file.put_back()
            if ask(problems) != "e":
                _not_written(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in the edit of "
                             f"{record.id}", text, record.id, content)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_editor(editor: str, document_path: Path, saved: Callable[[str], None]) -> int:
    """Run the editor on the document, calling `saved` with its text after each save; return its exit status."""
    done = threading.Event()

    def watch() -> None:
        stamp = document_path.stat().st_mtime_ns
        while not done.wait(POLL_SECONDS):
            try:
                now = document_path.stat().st_mtime_ns
                if now != stamp:
                    stamp = now
                    saved(document_path.read_text(encoding="utf-8-sig"))
            except (OSError, UnicodeDecodeError):
                continue  # an editor that replaces the file: read it at the next look

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        # Through the shell, as git runs $EDITOR: "code --wait" and "emacsclient -t" work as given.
        return subprocess.run(["sh", "-c", f'{editor} "$1"', editor, str(document_path)], check=False).returncode
    finally:
        done.set()
        watcher.join()


def _read_document(document_path: Path, start: str, saved: str, content: Path) -> str:
    """Return the document's text once the editor is closed.

    A document the editor removed, or saved in another encoding than UTF-8, is no record, but it
    may be the only copy of someone's work: the UserError says where what could be kept of it is.
    """
    try:
        data = document_path.read_bytes()
    except OSError:
        kept = (f"your text as last saved is kept in {_keep(saved.encode(), document_path.stem, content)}"
                if saved != start else "no change to it had been saved")
        raise UserError(
            f"the editor removed the document {document_path}, or put something other than a file in its place; "
            f"the record was not written and {kept}",
            hint="run errorsite edit again (pasting your text from the copy, if one was kept); an editor must save "
            "the document where it opened it",
            page="edit-document-removed",
        ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        copy = _keep(data, document_path.stem, content)
        raise UserError(
            f"the editor saved the document in an encoding other than UTF-8 (byte 0x{data[error.start]:02x} at "
            f"line {line}); the record was not written and your text is kept, as saved, in {copy}",
            hint=f"set your editor to save UTF-8, print the copy as UTF-8 (iconv -f latin1 -t utf-8 {copy}, for a "
            "Latin-1 one) and paste it into a new errorsite edit",
            page="edit-document-unreadable",
        ) from None


def _keep(data: bytes, record_id: str, content: Path) -> Path:
    """Write `data` (the document) beside the content folder, where it outlives the edit; return the copy's path."""
    folder = content.absolute().parent
    number = 1
    while True:
        copy = folder / (f"{record_id}.edit.md" if number == 1 else f"{record_id}.edit-{number}.md")
        try:
            # Created exclusively: never written through a link that a repository placed at that name.
            with open(copy, "xb") as out:
                out.write(data)
            return copy
        except FileExistsError:
            number += 1


def _not_written(reason: str, text: str, record_id: str, content: Path) -> NoReturn:
    """Raise the error that says the record was not written, with where the user's text is kept."""
    raise UserError(
        f"{reason}; the record was not written and your text is kept in {_keep(text.encode(), record_id, content)}",
        hint="fix the problems in a new errorsite edit, pasting your text from the copy",
        page="edit-not-written",
    )


def editor_command(environ: dict[str, str] | os._Environ[str]) -> str:
    """Return the editor to run: $VISUAL, else $EDITOR, else vi, as git chooses."""
    return environ.get("VISUAL") or environ.get("EDITOR") or "vi"

