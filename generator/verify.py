"""Run each record's example check and record the outcome in the record (`errorsite verify`).

A check holds when, in a fresh folder holding its `files`, `before` fails and
the lookup engine, given its output (standard output and error, the last
64 KiB), ranks this record first with a match of its message or a link to
its page (not of mere words; and where the output has a traceback, its
innermost frame is in the record's `source.path`), and `after` does not show
the error: it exits 0, or lookup finds neither this record's message nor a link
to its page in its output. Commands run
through the shell in the check's folder, with the folder of the Python that
runs errorsite first on `PATH`, so `python` and `errorsite` in a check are the
ones running it. The `[verify] setup` command runs once, in the content
folder, before any check.

The only change written is `example_fix.verified`, spliced into the file's
text so that every other byte stays as it was; a file whose outcome did not
change is not written at all.
"""

from __future__ import annotations

import codecs
import datetime
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import load, validate
from .search.index import index_of
from .search.rank import search
from .load import RawRecord
from .model import Check, Record, Site
from .problems import Invalid, Problem, UserError, did_you_mean, page_url
from .recordjson import ordered
from .schema import COMMIT

OUTPUT_BYTES = 64 * 1024
"""How much of a command's output is kept (its end): what lookup reads and the failure shows."""
TAIL_LINES = 20
"""Lines of output printed under a failure."""
LINE_CHARS = 300
"""A longer printed output line is cut."""
KILL_WAIT = 5
"""Seconds to wait for a killed command's output to close."""
BY = "errorsite verify"
PROOF_KINDS = ("full", "partial", "link")
"""Kinds of lookup result that show a record's error, not merely words of its page: a match of its message
template, or (`link`) the URL of its page, which a message like errorsite's own ends with; a message that is
all placeholders (`{prog}: {message}`) is found by nothing else."""

_FRAME = re.compile(r'^[ \t]*File "([^"]+)", line [0-9]+', re.MULTILINE)
_TRACEBACK = "Traceback (most recent call last):"


@dataclass(frozen=True, slots=True)
class CommandRun:
    """What one shell command did."""

    command: str
    """The command line as the record states it."""
    status: int | None
    """Exit status; None when it was killed at the timeout."""
    output: str
    """The end of its standard output and error, interleaved as written, decoded leniently."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one record's check."""

    record: Record
    """The record whose check ran."""
    problem: Problem | None
    """Why the check does not prove the example; None when it held."""
    run: CommandRun | None
    """The command whose result the problem is about; None when it held or its files could not be made."""
    written: bool
    """Whether the record's file was rewritten (its `verified` field added, changed or removed)."""


@dataclass(frozen=True, slots=True)
class Report:
    """Every check's outcome, in record id order."""

    outcomes: tuple[Outcome, ...]
    seconds: float
    """Wall time of the whole run, setup included."""

    @property
    def failed(self) -> list[Outcome]:
        """Return the outcomes of the checks that did not hold."""
        return [o for o in self.outcomes if o.problem is not None]

    def failure_lines(self) -> list[str]:
        """Return each failure in full: where, why, the command and the end of its output."""
        return [line for outcome in self.failed for line in failure_lines(outcome)]

    def summary(self) -> str:
        """Return one line: how many checks held and failed, and how many files were updated."""
        held = len(self.outcomes) - len(self.failed)
        written = sum(o.written for o in self.outcomes)
        return (f"{held} of {len(self.outcomes)} checks held, {len(self.failed)} failed; "
                f"{written} record file{'s' if written != 1 else ''} updated in {self.seconds:.1f} s")


def verify(content_dir: Path, ids: Sequence[str] = (), today: str | None = None) -> Report:
    """Run the checks of `content_dir` (all, or those of `ids`), record each outcome, and return them."""
    started = time.perf_counter()
    site = validate.build_site(load.load(content_dir))
    records = select(site, ids)
    settings = site.config.verify
    if settings.setup and records:
        setup(settings.setup, content_dir, settings.timeout)
    index = index_of(site)
    date = today or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    workers = max(1, min(len(records), os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        outcomes = tuple(pool.map(lambda r: _verify_one(r, index, settings.timeout, date), records))
    return Report(outcomes, time.perf_counter() - started)


def select(site: Site, ids: Sequence[str]) -> list[Record]:
    """Return the records to check: those named, or every record with a check, in id order."""
    if not ids:
        return [r for r in site.records if r.example_fix and r.example_fix.check]
    checked = {r.id for r in site.records if r.example_fix and r.example_fix.check}
    for record_id in ids:
        _has_check(record_id, checked, set(site.by_id))
    return [site.by_id[i] for i in sorted(set(ids))]


def _has_check(record_id: str, checked: set[str], known: set[str]) -> None:
    if record_id not in checked:
        raise UserError(
            f"no record with an example check has the id {record_id!r}",
            hint=("add example_fix.check to the record first" if record_id in known
                  else did_you_mean(record_id, checked) or "run errorsite verify with no id to run every check"),
            page="verify-unknown-id",
        )


def setup(command: str, folder: Path, timeout: int) -> None:
    """Run the `[verify] setup` command in `folder`; raise a UserError unless it succeeds."""
    run = run_command(command, folder, timeout)
    if run.status != 0:
        how = f"did not finish within {timeout} s" if run.status is None else f"exited with status {run.status}"
        shown = escape(command)
        output = "\n".join(tail(run.output)) or "    (no output)"
        raise UserError(
            f"the [verify] setup command {how}: {shown}\n{output}",
            hint="run the command by hand in the content folder, fix it or the [verify] table in site.toml",
            page="verify-setup-failed",
        )


def run_command(command: str, cwd: Path, timeout: int) -> CommandRun:
    """Run a shell command line in `cwd`; when it ends or times out, end every process it started.

    On Linux the command runs under `contain.py`, which no process the command starts can leave
    (see there); elsewhere the command's session is its process group, killed at the end.
    """
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", os.defpath)])
    contained = sys.platform == "linux"
    argv: str | list[str] = [sys.executable, "-I", str(CONTAIN), command] if contained else command
    process = subprocess.Popen(
        argv, shell=not contained, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    kept = _Tail()
    reader = threading.Thread(target=kept.read, args=(process.stdout,), daemon=True)
    reader.start()
    try:
        status: int | None = process.wait(timeout)
    except subprocess.TimeoutExpired:
        status = None
        if contained:
            process.terminate()  # contain.py then ends everything the command started
            process.wait()
    if not contained or status is None and reader.is_alive():
        # Without contain.py, or if it could not end them: kill the command's process group.
        _kill_group(process.pid)
        process.wait()
    reader.join(KILL_WAIT)
    return CommandRun(command, status, kept.text())


CONTAIN = Path(__file__).with_name("contain.py")
"""The script that runs a command on Linux (see `run_command`)."""


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class _Tail:
    """The last OUTPUT_BYTES of a stream, so a command that prints without end costs bounded memory."""

    def __init__(self) -> None:
        self.data = bytearray()

    def read(self, stream: Any) -> None:
        """Read `stream` to its end, keeping only its tail."""
        while chunk := stream.read1(65536):
            self.data += chunk
            if len(self.data) > 2 * OUTPUT_BYTES:
                del self.data[:-OUTPUT_BYTES]
        stream.close()

    def text(self) -> str:
        """Return the kept tail, decoded; undecodable bytes become U+FFFD."""
        return bytes(self.data[-OUTPUT_BYTES:]).decode("utf-8", "replace")


def _verify_one(record: Record, index: dict[str, Any], timeout: int, date: str) -> Outcome:
    check = record.example_fix.check if record.example_fix else None
    assert check is not None
    failure = prove(record, check, index, timeout)
    problem = None
    if failure is not None:
        try:
            _does_not_hold(failure.why)
        except Invalid as error:
            problem = Problem.of(record.file, failure.pointer, error)
    try:
        written = record_outcome(Path(record.file), record, held=problem is None, date=date)
    except Invalid as error:
        # The file became something verify does not write back (a link) while the checks ran.
        return Outcome(record, Problem.of(record.file, "", error), None, False)
    return Outcome(record, problem, failure.run if failure else None, written)


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a check does not hold."""

    pointer: str
    """The field of the check at fault: its files, its `before` or its `after`."""
    why: str
    """One line for the user."""
    run: CommandRun | None
    """The command whose result shows it."""


def prove(record: Record, check: Check, index: dict[str, Any], timeout: int) -> Failure | None:
    """Run `check` in a fresh folder; return why it does not hold, or None when it holds."""
    with tempfile.TemporaryDirectory(prefix="errorsite-verify-", ignore_cleanup_errors=True) as name:
        folder = Path(name)
        try:
            make_files(folder, check.files)
        except OSError as error:
            return Failure("/example_fix/check/files", f"cannot create its files: {error.strerror or error}", None)
        before = run_command(check.before, folder, timeout)
        why = before_fails(record, before, index, timeout)
        if why:
            return Failure("/example_fix/check/before", why, before)
        after = run_command(check.after, folder, timeout)
        why = after_passes(record, after, index, timeout)
        return Failure("/example_fix/check/after", why, after) if why else None


def _does_not_hold(why: str) -> None:
    """Raise the error that says why a check does not prove its example."""
    raise Invalid(
        f"the example check does not hold: {why}",
        hint="run the command in a folder with the check's files; fix the check, or the example and its check together",
        page="example-check-failed",
    )


def make_files(folder: Path, files: Iterable[tuple[str, str]]) -> None:
    """Write the check's files into `folder` (paths were validated as relative and inside it)."""
    for relative, text in files:
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def before_fails(record: Record, run: CommandRun, index: dict[str, Any], timeout: int) -> str | None:
    """Return why `before`'s run does not show this record's error, or None when it does."""
    if run.status is None:
        return f"`before` did not finish within {timeout} s"
    if run.status == 0:
        return "`before` exited with status 0; it must fail with this error"
    results = search(index, run.output, limit=1)
    if not results:
        return "the output of `before` matches no record: it failed with another error"
    if results[0]["id"] != record.id:
        return f"lookup finds record {results[0]['id']!r} first in the output of `before`, not this one"
    if results[0]["kind"] not in PROOF_KINDS:
        return ("lookup finds this record in the output of `before` by shared words only, "
                "not by its message or its page's URL")
    raised = raise_path(run.output)
    if raised is not None and not same_file(raised, record.source.path):
        return f"the traceback of `before` raises in {raised!r}, not in {record.source.path!r}"
    return None


def after_passes(record: Record, run: CommandRun, index: dict[str, Any], timeout: int) -> str | None:
    """Return why `after`'s run still shows this record's error, or None when it does not."""
    if run.status is None:
        return f"`after` did not finish within {timeout} s"
    if run.status == 0:
        return None
    if any(r["id"] == record.id and r["kind"] in PROOF_KINDS for r in search(index, run.output)):
        return f"`after` exited with status {run.status} and its output still shows this error"
    return None


def raise_path(output: str) -> str | None:
    """Return the file of the innermost frame of the last traceback in `output`, if it has one."""
    at = output.rfind(_TRACEBACK)
    if at < 0:
        return None
    frames = _FRAME.findall(output, at)
    return frames[-1] if frames else None


def same_file(frame: str, path: str) -> bool:
    """Return whether a traceback's file is the repository path `path` (installed or checked out)."""
    mine = path.split("/")
    theirs = frame.replace("\\", "/").split("/")
    need = min(2, len(mine))
    return len(theirs) >= need and theirs[-need:] == mine[-need:]


# --- the record file ----------------------------------------------------------


def record_outcome(path: Path, record: Record, held: bool, date: str) -> bool:
    """Add, keep, update or remove the record's `verified` field; return whether the file was written."""
    current = record.example_fix.verified if record.example_fix else None
    if held and current is not None and current.commit == record.source.commit:
        return False
    if not held and current is None:
        return False
    verified = {"commit": record.source.commit, "date": date, "by": BY} if held else None
    # Read as every record is read: a regular file in its folder, never a link.
    data = load.read_bytes(path, link=False)
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    text = with_verified(data[len(bom):].decode("utf-8"), verified)
    replace_file(path, bom + text.encode("utf-8"))
    return True


def replace_file(path: Path, data: bytes) -> None:
    """Put a file holding `data` in the place of the regular file `path`, in one rename, keeping its mode.

    The new file is made beside it under a name nobody can have chosen, created exclusively and
    without following a link (`mkstemp`), so nothing a pull request placed in the folder is
    written through; the rename replaces the directory entry, never a link's target.
    """
    mode = stat.S_IMODE(os.lstat(path).st_mode)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".verify-tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(name, mode)
        os.replace(name, path)
    except BaseException:
        os.unlink(name)
        raise


@dataclass(frozen=True, slots=True)
class _Member:
    """Where one member of a JSON object stands in the file's text."""

    key: str
    key_start: int
    """Index of the key's opening quote."""
    value_start: int
    value_end: int
    """Index just after the value."""


_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    """Return the index of the first character at or after `at` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _members(text: str, start: int) -> list[_Member]:
    """Return the members of the JSON object whose `{` is at `start`."""
    members: list[_Member] = []
    at = _skip(text, start + 1)
    while text[at] != "}":
        key, colon = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
        value_start = _skip(text, _skip(text, colon) + 1)
        _, value_end = _DECODER.raw_decode(text, value_start)
        members.append(_Member(key, at, value_start, value_end))
        at = _skip(text, value_end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return members


def _member(members: list[_Member], key: str) -> _Member | None:
    # JSON's last duplicate wins, as when the file was read.
    return next((m for m in reversed(members) if m.key == key), None)


def with_verified(text: str, verified: dict[str, str] | None) -> str:
    """Return a record file's text with `example_fix.verified` set to `verified` (None: removed), nothing else changed."""
    root = _members(text, _skip(text, 0))
    fix = _member(root, "example_fix")
    assert fix is not None
    members = _members(text, fix.value_start)
    old = _member(members, "verified")
    if verified is None:
        assert old is not None
        i = members.index(old)
        if i > 0:
            new = text[:members[i - 1].value_end] + text[old.value_end:]
        else:
            following = members[1].key_start if len(members) > 1 else _skip(text, old.value_end)
            new = text[:old.key_start] + text[following:]
    else:
        last = members[-1]
        line_start = text.rfind("\n", 0, last.key_start) + 1
        indent = text[line_start:last.key_start] if not text[line_start:last.key_start].strip() else ""
        value = json.dumps(ordered(verified, "verified"), indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
        if old is not None:
            new = text[:old.value_start] + value + text[old.value_end:]
        else:
            new = text[:last.value_end] + f',\n{indent}"verified": {value}' + text[last.value_end:]
    expected = json.loads(text)
    if verified is None:
        expected["example_fix"].pop("verified")
    else:
        expected["example_fix"]["verified"] = verified
    # The splice must change that one field and nothing else; a mismatch is a bug, never written.
    assert json.loads(new) == expected
    return new


# --- stale proofs and printing ------------------------------------------------


def stale(records: Iterable[RawRecord]) -> list[Problem]:
    """Return a notice for each record whose `verified` commit is not its pin: its check has not run on this code."""
    problems = []
    for raw in records:
        try:
            _fresh(raw.data)
        except Invalid as error:
            problems.append(Problem.of(raw.file, "/example_fix/verified", error))
    return problems


def _fresh(data: Any) -> None:
    source = data.get("source") if isinstance(data, dict) else None
    fix = data.get("example_fix") if isinstance(data, dict) else None
    verified = fix.get("verified") if isinstance(fix, dict) else None
    pin = source.get("commit") if isinstance(source, dict) else None
    commit = verified.get("commit") if isinstance(verified, dict) else None
    # A malformed commit is the schema's problem, reported once there.
    if not (isinstance(pin, str) and isinstance(commit, str) and re.match(COMMIT, pin) and re.match(COMMIT, commit)):
        return
    if commit != pin:
        raise Invalid(
            f"the example was checked against {commit}, but the record is pinned to {pin}",
            hint="the page says the code has changed since; errorsite verify runs the check again and updates"
            " or removes this field",
            page="verified-stale",
        )


def failure_lines(outcome: Outcome) -> list[str]:
    """Return the printed form of a failed check: where, why, the command and the end of its output."""
    problem = outcome.problem
    assert problem is not None
    lines = [f"{problem.file}: {problem.pointer}: {problem.reason}"]
    run = outcome.run
    if run is not None:
        lines.append("  $ " + escape(run.command).replace("\n", "\n    "))
        ended = "killed at the timeout" if run.status is None else f"exit status {run.status}"
        shown = tail(run.output)
        lines.append(f"  {ended}; " + ("the end of its output:" if shown else "it printed nothing"))
        lines += shown
    if problem.hint:
        lines.append(f"  hint: {problem.hint}")
    lines.append(f"  see {page_url(problem.page)}")
    return lines


def tail(output: str) -> list[str]:
    """Return the last lines of a command's output, indented, escaped and cut, for a terminal."""
    text = output.replace("\r\n", "\n").rstrip("\n")
    lines = text.split("\n") if text.strip() else []
    return ["    | " + _cut(escape(line)) for line in lines[-TAIL_LINES:]]


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + f"… ({len(line) - LINE_CHARS:,} more characters)"


def escape(text: str) -> str:
    """Return `text` with every control or format character but the line break spelt as an escape."""
    return "".join(
        ch if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co")
        else ascii(ch)[1:-1]
        for ch in text
    )
