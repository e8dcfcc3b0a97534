"""
JSON Schema validators for our own schemas (Draft 2020-12, formats asserted).

A module of its own so that both `verifier.trust` (which pins the schemas)
and the readers that validate against them (`verifier.profiles`) import it
without importing each other. `verifier.trust.schema_validator` re-exports it.
"""

from __future__ import annotations

from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

from verifier.errors import ConfigError

__all__ = ["DRAFT_2020_12", "REQUIRED_FORMATS", "schema_validator"]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

#: Formats our schemas rely on; if the installed jsonschema has no checker for
#: one of them, we refuse to start rather than accept any string (H-11).
REQUIRED_FORMATS = ("date-time", "uri")


def schema_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """
    Return a Draft 2020-12 validator for `schema` with `format` asserted.

    Raises `ConfigError` when the schema does not declare `$schema` as Draft
    2020-12 (a schema without `$schema` could be read under another draft and
    silently ignore keywords, H-12), when it is not a valid schema, or when a
    format we rely on has no registered checker (H-11).
    """
    declared = schema.get("$schema")
    if declared != DRAFT_2020_12:
        raise ConfigError(
            f"schema {schema.get('$id', '<no $id>')}: $schema must be {DRAFT_2020_12!r}, got {declared!r}"
        )
    checker = Draft202012Validator.FORMAT_CHECKER
    missing = [f for f in REQUIRED_FORMATS if f not in checker.checkers]
    if missing:
        raise ConfigError(
            f"jsonschema has no checker for format(s) {missing}; install jsonschema[format-nongpl]"
        )
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ConfigError(f"schema {schema.get('$id')}: not a valid schema: {exc.message}") from None
    return Draft202012Validator(schema, format_checker=checker)
