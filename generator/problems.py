"""User-facing errors: one base class, and the problems validation collects.

Every message a user reads ends with the URL of its page in errorsite's own
error reference, which is built from `content/` by errorsite itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

REFERENCE_URL = "https://errorsite.github.io/errorsite/"
"""Where errorsite's own error reference is published."""
BUG_REPORT_URL = "https://github.com/errorsite/errorsite/issues"
"""Where a crash of errorsite itself (a bug, not the user's mistake) is reported."""


def crash_summary(error: BaseException) -> str:
    """Return `ExceptionType: message` on one line, for the report of a crash (a bug in errorsite)."""
    try:
        said = " ".join(str(error).split())
    except Exception:  # noqa: BLE001 - an exception that cannot describe itself is still reported
        said = "(its message could not be read)"
    if len(said) > 200:
        said = said[:200] + "..."
    return f"{type(error).__name__}: {said}" if said else type(error).__name__


def page_url(page: str) -> str:
    """Return the URL of the reference page for the error `page`."""
    return f"{REFERENCE_URL}errors/{page}/"


LISTED_CHOICES = 12
"""Above this many choices a hint names only the closest, never the whole list."""


def did_you_mean(name: str, choices: Iterable[str]) -> str | None:
    """Return a hint naming the closest of `choices`, or listing a short list of them."""
    import difflib  # only a mistake needs it, and a build without one should not wait for it

    choices = sorted(choices)
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    if not choices or len(choices) > LISTED_CHOICES:
        return None
    return "expected one of: " + ", ".join(choices)


CONTROL_CHARACTER = "[\x00-\x1f\x7f-\x9f\u2028\u2029]"


def printable(text: str) -> str:
    """Return `text` with control characters escaped, so that a file name or key cannot drive the terminal."""
    # Compiled, and kept, by `re` when a problem is first shown: a build without one never compiles it.
    return re.sub(CONTROL_CHARACTER, lambda found: repr(found.group())[1:-1], text)


class UserError(Exception):
    """A mistake in the user's input or usage: printed cleanly, never a traceback."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None, page: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.page = page

    def __str__(self) -> str:
        text = self.message
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return f"{text}\n  see {page_url(self.page)}"


class UsageError(UserError):
    """The command line itself is wrong (exit status 2)."""

    exit_code = 2


class Invalid(UserError):
    """One field of one input file is wrong; the caller adds file and pointer."""

    def __init__(self, message: str, *, hint: str | None = None, page: str, position: str = "") -> None:
        super().__init__(message, hint=hint, page=page)
        self.position = position
        """`line:column` in the file, for syntax errors, which have no pointer."""


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one input file, located by a JSON pointer."""

    file: str
    """The file as the user named it (a path relative to where they ran us)."""
    pointer: str
    """JSON pointer of the field (`/source/line`); empty for the whole file."""
    reason: str
    """One line saying what is wrong."""
    hint: str | None = None
    """What to do about it, when that helps."""
    page: str = ""
    """Id of this error's page in errorsite's reference."""

    def __str__(self) -> str:
        file, pointer = printable(self.file), printable(self.pointer)
        where = f"{file}: {pointer}: " if pointer else f"{file}: "
        text = where + self.reason
        if self.hint:
            text += f" ({self.hint})"
        if self.page:
            text += f"\n  see {page_url(self.page)}"
        return text

    @classmethod
    def of(cls, file: str, pointer: str, error: Invalid) -> Problem:
        """Return the problem that `error` describes, placed at `file` and `pointer`."""
        where = f"{file}:{error.position}" if error.position else file
        return cls(where, pointer, error.message, error.hint, error.page)


class ProblemsFound(UserError):
    """The input has problems; all of them are listed."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems)
        super().__init__(f"{len(self.problems)} problem(s) found", page="problems-found")

    def __str__(self) -> str:
        lines = [str(p) for p in self.problems]
        count = len(self.problems)
        lines.append(f"{count} problem{'s' if count != 1 else ''} found; nothing was written.")
        return "\n".join(lines)
