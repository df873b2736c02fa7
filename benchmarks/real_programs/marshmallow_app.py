"""A sign-up service that loads forms with marshmallow schemas, and the forms its users send.

Run: python marshmallow_app.py USE  (one of USES; each fails as a user's program would).
"""

import enum
import sys

from marshmallow import Schema, fields, validate

DISTRIBUTION = "marshmallow==4.4.0"
PACKAGE = "marshmallow"
REPO = "marshmallow-code/marshmallow"


class Plan(enum.Enum):
    FREE = 1
    PRO = 2


class SignUp(Schema):
    name = fields.String(required=True, validate=validate.Length(min=2, max=20))
    age = fields.Integer(validate=validate.Range(min=13))
    email = fields.Email()
    website = fields.URL()
    plan = fields.Enum(Plan)
    born = fields.Date()
    newsletter = fields.Boolean()
    score = fields.Float()
    tags = fields.List(fields.String(), validate=validate.Length(max=3))
    team = fields.String(validate=validate.OneOf(["red", "blue"]))


FORM = SignUp()


def sign_up(form: dict) -> dict:
    """Return the loaded form, as the service receives it."""
    return FORM.load(form)


USES = {
    "age as a word": lambda: sign_up({"name": "ann", "age": "ten"}),
    "age too low": lambda: sign_up({"name": "ann", "age": 9}),
    "name left out": lambda: sign_up({"age": 20}),
    "name too short": lambda: sign_up({"name": "a"}),
    "email without an at": lambda: sign_up({"name": "ann", "email": "nope"}),
    "website not a URL": lambda: sign_up({"name": "ann", "website": "nope"}),
    "plan unknown": lambda: sign_up({"name": "ann", "plan": "GOLD"}),
    "birth date impossible": lambda: sign_up({"name": "ann", "born": "2020-13-45"}),
    "newsletter maybe": lambda: sign_up({"name": "ann", "newsletter": "maybe"}),
    "score as a word": lambda: sign_up({"name": "ann", "score": "high"}),
    "too many tags": lambda: sign_up({"name": "ann", "tags": ["a", "b", "c", "d"]}),
    "tags not a list": lambda: sign_up({"name": "ann", "tags": "a,b"}),
    "team not offered": lambda: sign_up({"name": "ann", "team": "green"}),
    "unknown field": lambda: sign_up({"name": "ann", "nick": "a"}),
    "form not a mapping": lambda: sign_up(["ann"]),
    "integer field alone": lambda: fields.Integer().deserialize("abc"),
    "strict integer": lambda: fields.Integer(strict=True).deserialize(1.5),
    "decimal": lambda: fields.Decimal().deserialize("x"),
    "not a string": lambda: fields.String().deserialize(42),
    "null": lambda: fields.String().deserialize(None),
    "UUID": lambda: fields.UUID().deserialize("zzz"),
    "datetime": lambda: fields.DateTime().deserialize("yesterday"),
    "IP address": lambda: fields.IP().deserialize("1.2.3"),
    "length exactly": lambda: validate.Length(equal=2)("abc"),
    "regexp": lambda: validate.Regexp(r"\d+")("abc"),
    "equal": lambda: validate.Equal(3)(4),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
