"""
JSON Schema validators for our own schemas (Draft 2020-12, formats asserted).

A module of its own so that both `verifier.trust.assets` (which pins the schemas)
and the readers that validate against them (`verifier.profiles.language`) import it
without importing each other. `verifier.trust.assets.schema_validator` re-exports it.

A schema file names a list of the statistics vocabulary instead of writing it
out (`{"x-verify-enum": "STATISTICS"}`, `verifier.engine.stats.SCHEMA_ENUMS`):
`filled` reads it as that `enum`, and `schema_validator` validates only
against the filled schema, so a new statistic edits no pinned schema file.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from verifier.errors import ConfigError

if TYPE_CHECKING:  # jsonschema is imported on first use: a warm re-verify whose validity is cached never loads it
    from jsonschema import Draft202012Validator

__all__ = ["DRAFT_2020_12", "ENUM_KEYWORD", "REQUIRED_FORMATS", "filled", "known_valid", "note_valid", "schema_validator", "unknown_formats"]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

#: Formats our schemas rely on; if the installed jsonschema has no checker for
#: one of them, we refuse to start rather than accept any string (H-11).
REQUIRED_FORMATS = ("date-time", "uri")


#: The keyword by which a schema names a list of `verifier.engine.stats.SCHEMA_ENUMS` in place of an `enum`.
ENUM_KEYWORD = "x-verify-enum"


def filled(schema: Any) -> Any:
    """
    Return parsed JSON Schema `schema` with each `"x-verify-enum": NAME` read as `"enum": list(stats.SCHEMA_ENUMS[NAME])`.

    The `enum` takes the keyword's place (key order kept, so error messages and
    their order are those of a schema writing the list out); the result is a
    new object where anything was filled, else `schema` itself. Data (`const`,
    `enum`, ... values) is left as it is. Raises `ConfigError` naming the
    schema's `$id` when NAME is no list of `SCHEMA_ENUMS`.
    """
    if not _names_a_list(schema):
        return schema
    from verifier.engine.stats import SCHEMA_ENUMS

    def fill(node: Any) -> Any:  # node is a schema (dict or bool)
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == ENUM_KEYWORD:
                if not isinstance(value, str) or value not in SCHEMA_ENUMS:
                    raise ConfigError(f"schema {schema.get('$id', '<no $id>')}: {ENUM_KEYWORD} {value!r} names no list of "
                                      f"verifier.engine.stats.SCHEMA_ENUMS ({', '.join(SCHEMA_ENUMS)})")
                out["enum"] = list(SCHEMA_ENUMS[value])
            elif key in _DATA_KEYWORDS:
                out[key] = value
            elif key in _NAME_MAPS and isinstance(value, dict):
                out[key] = {name: fill(sub) for name, sub in value.items()}
            elif isinstance(value, list):
                out[key] = [fill(item) for item in value]
            else:
                out[key] = fill(value)
        return out

    return fill(schema)


def _names_a_list(node: Any) -> bool:
    """Return whether `ENUM_KEYWORD` occurs anywhere in `node` (a quick test before copying)."""
    return ENUM_KEYWORD in json.dumps(node, default=str)


#: Canonical JSON of the schemas that passed the meta-schema check in this process (the check is pure).
_VALID_SCHEMAS: set[str] = set()


def schema_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """
    Return a Draft 2020-12 validator for `schema` with `format` asserted.

    Raises `ConfigError` when the schema does not declare `$schema` as Draft
    2020-12 (a schema without `$schema` could be read under another draft and
    silently ignore keywords, H-12), when it is not a valid schema, or when a
    format we rely on has no registered checker (H-11).
    """
    import jsonschema
    from jsonschema import Draft202012Validator

    from verifier.schema.compiled_schema import meta_valid

    schema = filled(schema)
    declared = schema.get("$schema")
    if declared != DRAFT_2020_12:
        raise ConfigError(
            f"schema {schema.get('$id', '<no $id>')}: $schema must be {DRAFT_2020_12!r}, got {declared!r}"
        )
    installed = Draft202012Validator.FORMAT_CHECKER
    missing = [f for f in REQUIRED_FORMATS if f not in installed.checkers]
    if missing:
        raise ConfigError(
            f"jsonschema has no checker for format(s) {missing}; install jsonschema[format-nongpl]"
        )
    checker = _strict(installed)
    canonical = json.dumps(schema, sort_keys=True, default=str)
    if canonical not in _VALID_SCHEMAS:  # checked once per process per schema content (44 calls, 19 schemas per run)
        if not meta_valid(schema, installed.checkers):  # compiled first; the reference decides what it does not accept, and words why
            try:
                Draft202012Validator.check_schema(schema)
            except jsonschema.SchemaError as exc:
                raise ConfigError(f"schema {schema.get('$id')}: not a valid schema: {exc.message}") from None
        _VALID_SCHEMAS.add(canonical)
    unknown = unknown_formats(schema, set(checker.checkers))
    if unknown:
        pointer, name = unknown[0]
        raise ConfigError(
            f"schema {schema.get('$id', '<no $id>')} at {pointer}: format {name!r} has no checker, so it would assert "
            "nothing; refusing to start"
        )
    return Draft202012Validator(schema, format_checker=checker)


def _strict(installed: Any) -> Any:
    """
    Return a copy of the `jsonschema.FormatChecker` `installed` whose `date-time` also refuses a string ending in a newline.

    The installed checker (rfc3339-validator) matches with Python's `$`, which
    lets one final "\\n" through; RFC 3339 section 5.6 has no such character,
    and a timestamp holding one is no instant any reader can parse (it made
    plan conformance fail inside the verifier, ERROR, not the evidence).
    """
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    checker.checkers.update(installed.checkers)
    func, raises = installed.checkers["date-time"]
    checker.checkers["date-time"] = (lambda value, func=func: not isinstance(value, str) or (not value.endswith("\n") and func(value)), raises)
    return checker


def _valid_key(schema: dict[str, Any], digest: str) -> str:
    from verifier.cache.warm import result_key

    canonical = json.dumps(schema, sort_keys=True, separators=(",", ":"), default=str)
    return result_key("schema-valid", hashlib.sha256(canonical.encode()).hexdigest(), digest)


def known_valid(cache: Any, schema: dict[str, Any], digest: str | None) -> bool | None:
    """
    Return whether an earlier run found the document whose bytes have sha256 `digest` valid against `schema`.

    `cache` is a warm re-verify `verifier.cache.warm.Cache` or None. Returns None
    when nothing is known (no cache, no digest, or never validated with this
    schema, verifier code and installed packages: `verifier.cache.warm.result_key`),
    else True when the entry was stored by an earlier run and False when by
    this one (a finding reused from it is then not marked as cached). Only
    valid outcomes are remembered (`note_valid`); an invalid document is
    validated again, so its errors are always computed.
    """
    if cache is None or digest is None:
        return None
    found = cache.result(_valid_key(schema, digest))
    if found is None or found[0] != "valid":
        return None
    return bool(found[1])


def note_valid(cache: Any, schema: dict[str, Any], digest: str | None) -> None:
    """Remember that the document with sha256 `digest` is valid against `schema` (no-op without a cache or digest)."""
    if cache is not None and digest is not None:
        cache.store_result(_valid_key(schema, digest), "valid")


#: Keywords whose values are data, not subschemas: a `"format"` key inside them is not the keyword.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples", "x-verify-profile"})
#: Keywords whose values map names to subschemas: their keys are property names, never keywords.
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def unknown_formats(schema: Any, known: set[str], pointer: str = "") -> list[tuple[str, str]]:
    """
    Return `(JSON pointer, name)` of every `format` keyword in `schema` whose name is not in `known`.

    A typo such as `date_time` asserts nothing under JSON Schema 2020-12
    (unknown formats are ignored, section 7.2.3 of the Validation spec), so
    our schemas may only name formats the installed checker implements.
    """
    found: list[tuple[str, str]] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            here = f"{pointer}/{key}"
            if key == "format" and isinstance(value, str):
                if value not in known:
                    found.append((here, value))
            elif key in _DATA_KEYWORDS:
                continue
            elif key in _NAME_MAPS and isinstance(value, dict):
                for name, sub in value.items():
                    found.extend(unknown_formats(sub, known, f"{here}/{name}"))
            else:
                found.extend(unknown_formats(value, known, here))
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            found.extend(unknown_formats(item, known, f"{pointer}/{i}"))
    return found
