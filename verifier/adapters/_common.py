"""
Helpers shared by the receipt readers not yet moved onto the native families:
finding construction, schema validation of one document, and producer
profiles (a stated number is compared with `verifier.derive.claim_finding`).

A producer profile is data: the `x-verify-profile` annotation of a pinned
schema in `schemas/` (JSON Schema 2020-12 ignores unknown keywords, so the
annotation never changes validation). It names the producer and version, the
keys whose presence or absence identifies that version, and the definitions
(percentile, standard deviation, peak concurrency) its numbers follow.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from verifier.jsonio import schema_message
from verifier.model import Finding, Status
from verifier.trust import schema_validator

__all__ = ["f", "profile_of", "schema_findings"]


def f(check_id: str, status: Status, code: str, message: str, **kw: Any) -> Finding:
    """Return a `Finding` for check `check_id` (shorthand used by every reader)."""
    return Finding(check=check_id, status=status, code=code, message=message, **kw)


def schema_findings(check_id: str, assets: Any, schema_name: str, document: Any, name: str) -> Iterator[Finding]:
    """
    Validate `document` against pinned `schemas/<schema_name>.schema.json`.

    Yields one FAIL `schema-violation` per error (file `name` and JSON pointer
    in the message) or one PASS `valid`. Raises `ConfigError` if the schema
    itself is unusable (the CLI turns that into exit 2).
    """
    validator = schema_validator(assets.schema(schema_name))
    errors = sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path])
    for e in errors:
        ptr = "".join(f"/{p}" for p in e.absolute_path)
        yield f(check_id, Status.FAIL, "schema-violation", f"{name} at {ptr or '/'}: {schema_message(e)}", path=name, pointer=ptr)
    if not errors:
        yield f(check_id, Status.PASS, "valid", f"{name} is valid against {schema_name}.schema.json", path=name)


def profile_of(assets: Any, schema_name: str) -> dict[str, Any]:
    """Return the `x-verify-profile` annotation of pinned schema `schema_name` (empty dict if absent)."""
    return dict(assets.schema(schema_name).get("x-verify-profile", {}))
