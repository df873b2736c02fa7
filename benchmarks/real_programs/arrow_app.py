"""A booking tool that reads dates and times with arrow, and the input its users give it.

Run: python arrow_app.py USE  (one of USES; each fails as a user's program would).
"""

import datetime
import sys

import arrow

DISTRIBUTION = "arrow==1.4.0"
PACKAGE = "arrow"
REPO = "arrow-py/arrow"


def booked(text: str, pattern: str = "YYYY-MM-DD HH:mm") -> arrow.Arrow:
    """Return a booking's start, read as the form asks for it."""
    return arrow.get(text, pattern)


START = arrow.get("2024-03-10T09:00:00+00:00")

USES = {
    "date in another order": lambda: booked("10/03/2024 09:00"),
    "time left out": lambda: booked("2024-03-10"),
    "month thirteen": lambda: booked("2024-13-10 09:00"),
    "free text": lambda: arrow.get("next tuesday"),
    "iso with a bad separator": lambda: arrow.get("2024-03-10X09:00"),
    "iso with too many fraction digits": lambda: arrow.get("2024-03-10T09:00:00.1234567-"),
    "iso week out of range": lambda: arrow.get("2024-W60-1"),
    "unknown timezone": lambda: START.to("Mars/Olympus"),
    "timezone in the input": lambda: arrow.get("2024-03-10 09:00 Moon/Base", "YYYY-MM-DD HH:mm ZZZ"),
    "unsupported locale": lambda: START.humanize(locale="xx-yy"),
    "timestamp as text": lambda: arrow.Arrow.fromtimestamp("yesterday"),
    "timestamp too large": lambda: arrow.get(10**20),
    "none given": lambda: arrow.get(None),
    "list given": lambda: arrow.get([2024, 3, 10]),
    "two unrelated arguments": lambda: arrow.get(3.5, [1]),
    "shift by an unknown unit": lambda: START.shift(fortnights=1),
    "replace an unknown attribute": lambda: START.replace(fortnight=1),
    "interval of zero": lambda: list(arrow.Arrow.interval("hour", START, START.shift(hours=3), 0)),
    "range with an unknown frame": lambda: list(arrow.Arrow.range("fortnight", START, limit=2)),
    "span of an unknown frame": lambda: START.span("fortnight"),
    "week starting on day eight": lambda: START.span("week", week_start=8),
    "humanize with a bad granularity": lambda: START.humanize(START.shift(days=2), granularity="fortnight"),
    "humanize a string": lambda: START.humanize("2024-03-11"),
    "dehumanize free text": lambda: START.dehumanize("a while ago"),
    "compare with a date": lambda: START < datetime.date(2024, 3, 11),
    "between with a bad bound": lambda: START.is_between(START, START.shift(days=1), "[x"),
    "midnight with minutes": lambda: arrow.get("2024-03-10T24:30"),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
