"""A request validator that checks JSON documents with jsonschema, and the documents that fail it.

Run: python jsonschema_app.py USE  (one of USES; each fails as a user's program would).
"""

import sys

from jsonschema import Draft202012Validator, validate

DISTRIBUTION = "jsonschema==4.26.0"
PACKAGE = "jsonschema"
REPO = "python-jsonschema/jsonschema"

ORDER = {"type": "object", "required": ["item", "quantity"], "additionalProperties": False,
         "properties": {"item": {"type": "string", "maxLength": 8, "pattern": "^[a-z]+$"},
                        "quantity": {"type": "integer", "minimum": 1, "maximum": 99, "multipleOf": 1},
                        "size": {"enum": ["S", "M", "L"]},
                        "notes": {"type": "array", "maxItems": 2, "uniqueItems": True}}}


def check(document: object) -> None:
    """Validate an order as the program receives it."""
    validate(document, ORDER)


USES = {
    "quantity as a string": lambda: check({"item": "tea", "quantity": "2"}),
    "quantity left out": lambda: check({"item": "tea"}),
    "quantity zero": lambda: check({"item": "tea", "quantity": 0}),
    "quantity too large": lambda: check({"item": "tea", "quantity": 300}),
    "item name too long": lambda: check({"item": "chamomile", "quantity": 1}),
    "item with digits": lambda: check({"item": "tea2", "quantity": 1}),
    "size not offered": lambda: check({"item": "tea", "quantity": 1, "size": "XL"}),
    "unknown field": lambda: check({"item": "tea", "quantity": 1, "colour": "red"}),
    "too many notes": lambda: check({"item": "tea", "quantity": 1, "notes": ["a", "b", "c"]}),
    "repeated notes": lambda: check({"item": "tea", "quantity": 1, "notes": ["a", "a"]}),
    "not an object": lambda: check(["tea", 1]),
    "empty string": lambda: validate("", {"minLength": 1}),
    "constant differs": lambda: validate(1, {"const": 2}),
    "odd number": lambda: validate(7, {"multipleOf": 2}),
    "exclusive minimum": lambda: validate(5, {"exclusiveMinimum": 5}),
    "forbidden by not": lambda: validate(1, {"not": {"type": "integer"}}),
    "valid under both": lambda: validate(3, {"oneOf": [{"type": "integer"}, {"minimum": 0}]}),
    "valid under none": lambda: validate("x", {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
    "dependency missing": lambda: validate({"a": 1}, {"dependentRequired": {"a": ["b"]}}),
    "empty object": lambda: validate({}, {"minProperties": 1}),
    "nothing contained": lambda: validate([1], {"contains": {"type": "string"}}),
    "false schema": lambda: validate(1, False),
    "misspelt type in the schema": lambda: validate(1, {"type": "strng"}),
    "email format": lambda: validate("nope", {"format": "email"}, format_checker=Draft202012Validator.FORMAT_CHECKER),
    "reference to nowhere": lambda: validate(1, {"$ref": "#/definitions/missing"}),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
