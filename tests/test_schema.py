"""The published JSON Schema and errorsite's validator agree on valid and invalid records."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from errorsite import load, validate
from errorsite.schema import SCHEMA

from conftest import FIXTURES
from test_validate import CASES, GOOD

# Rules that need more than one record, the file name or the snippet's line count:
# only the validator can check them, and the schema says so in its description.
BEYOND_SCHEMA = {"id-file-mismatch", "line-outside-snippet", "unknown-related", "related-to-itself", "unknown-language"}


def test_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", sorted((FIXTURES / "basic" / "errors").glob("*.json")), ids=lambda p: p.stem)
def test_valid_records_pass_both(path: Path) -> None:
    data = json.loads(path.read_text())
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)
    assert not list(validate.check_record(load.RawRecord(str(path), data)))


@pytest.mark.parametrize("change, pointer, page", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_records_fail_both(change, pointer: str, page: str) -> None:
    data = json.loads((FIXTURES / "basic" / "errors" / f"{GOOD}.json").read_text())
    change(data)
    ours = list(validate.check_record(load.RawRecord(f"{GOOD}.json", data)))
    schema_errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(data))
    if page in BEYOND_SCHEMA:
        assert not schema_errors
        return
    assert ours, "errorsite accepted a record the schema rejects"
    assert schema_errors, "the schema accepts a record errorsite rejects"
    assert pointer in {location for e in schema_errors for location in _pointers(e)}


def _pointers(error: jsonschema.ValidationError) -> list[str]:
    """Return the pointer of the failing value, and of the field an object error names."""
    base = "".join(f"/{part}" for part in error.absolute_path)
    names = error.message.split("'")[1::2] if error.validator in ("required", "additionalProperties") else []
    return [base] + [f"{base}/{name}" for name in names]
