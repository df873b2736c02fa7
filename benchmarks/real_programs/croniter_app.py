"""A job scheduler that reads cron schedules with croniter, and the schedules its users write.

Run: python croniter_app.py USE  (one of USES; each fails as a user's program would).
"""

import datetime
import sys

from croniter import croniter, croniter_range

DISTRIBUTION = "croniter==7.0.0"
PACKAGE = "croniter"
REPO = "pallets-eco/croniter"

START = datetime.datetime(2024, 3, 10, 9, 0)


def next_run(schedule: str, after: object = START) -> object:
    """Return when a job runs next, as the scheduler asks."""
    return croniter(schedule, after).get_next(datetime.datetime)


USES = {
    "four columns": lambda: next_run("0 9 * *"),
    "eight columns": lambda: next_run("0 9 * * * * * *"),
    "minute sixty": lambda: next_run("60 9 * * *"),
    "hour out of range": lambda: next_run("0 25 * * *"),
    "month thirteen": lambda: next_run("0 9 1 13 *"),
    "negative minute": lambda: next_run("-5 9 * * *"),
    "step of zero": lambda: next_run("*/0 * * * *"),
    "range out of bands": lambda: next_run("0 9-30 * * *"),
    "last day in a range": lambda: next_run("0 9 L-3 * *"),
    "unknown day name": lambda: next_run("0 9 * * funday"),
    "unknown month name": lambda: next_run("0 9 1 smarch *"),
    "question mark in minutes": lambda: next_run("? 9 * * *"),
    "question mark with a digit": lambda: next_run("0 9 1? * *"),
    "nth weekday zero": lambda: next_run("0 9 * * 1#0"),
    "nearest weekday out of range": lambda: next_run("0 9 40W * *"),
    "nearest weekday in a list": lambda: next_run("0 9 1,15W * *"),
    "nth weekday mixed with a day": lambda: next_run("0 9 * * 1#2,3"),
    "hashed without an id": lambda: next_run("H 9 * * *"),
    "start given as text": lambda: next_run("0 9 * * *", "tomorrow"),
    "bad return type": lambda: croniter("0 9 * * *", START).get_next(str),
    "hash id of a wrong type": lambda: croniter("H 9 * * *", START, hash_id=42),
    "range of mixed types": lambda: list(croniter_range(START, 5, "0 9 * * *")),
    "day thirty in february": lambda: next_run("0 9 30 2 *"),
    "february thirtieth checked": lambda: croniter.expand("0 9 30 2 *", strict=True),
    "text in a step": lambda: next_run("0 9 */x * *"),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
