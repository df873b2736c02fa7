"""A configuration checker built on voluptuous schemas, and the mistakes in the configurations it checks.

Run: python voluptuous_app.py USE  (one of USES; each fails as a user's program would).
"""

import sys

from voluptuous import (All, Any, Boolean, Coerce, Date, Datetime, Email, ExactSequence, In, IsFile, Length, Match,
                        Number, Range, Required, Schema, Unique, Url)

DISTRIBUTION = "voluptuous==0.16.0"
PACKAGE = "voluptuous"
REPO = "alecthomas/voluptuous"

USER = Schema({Required("name"): str, "age": int, "email": Email(), "tags": [str],
               "home": Url(), "role": In(["admin", "user"])})


USES = {
    "age given as a word": lambda: USER({"name": "ann", "age": "ten"}),
    "name left out": lambda: USER({"age": 3}),
    "unknown key": lambda: USER({"name": "ann", "nick": "a"}),
    "email without an at": lambda: USER({"name": "ann", "email": "nope"}),
    "home not a URL": lambda: USER({"name": "ann", "home": "nope"}),
    "role not allowed": lambda: USER({"name": "ann", "role": "root"}),
    "tag not a string": lambda: USER({"name": "ann", "tags": ["a", 2]}),
    "nested value wrong": lambda: Schema({"user": {"age": int}})({"user": {"age": "x"}}),
    "list instead of a mapping": lambda: USER([1]),
    "two wrong values": lambda: Schema({"a": int, "b": str})({"a": "x", "b": 1}),
    "too short": lambda: Schema(All(str, Length(min=3)))("ab"),
    "out of range": lambda: Schema(All(int, Range(min=0, max=10)))(42),
    "cannot coerce": lambda: Schema(Coerce(int))("x"),
    "no match": lambda: Schema(Match(r"^\d+$"))("abc"),
    "none of the alternatives": lambda: Schema(Any(int, None))("x"),
    "datetime format": lambda: Schema(Datetime())("yesterday"),
    "date format": lambda: Schema(Date())("2020-13-45"),
    "duplicates": lambda: Schema(Unique())([1, 1]),
    "precision": lambda: Schema(Number(precision=3))("12345"),
    "not a file": lambda: Schema(IsFile())("/nonexistent/errorsite-bench"),
    "not a boolean": lambda: Schema(Boolean())("maybe"),
    "literal differs": lambda: Schema("exact")("other"),
    "sequence too short": lambda: Schema(ExactSequence([int, str]))([1]),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
