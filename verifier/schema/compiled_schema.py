"""
A compiled JSON Schema validator (jsonschema-rs) that agrees with the reference one, used as a pre-filter.

`verifier.schema.validation.schema_validator` (pure-Python `jsonschema`, Draft
2020-12, formats asserted) is the reference: every finding's message and
JSON Pointer come from it. Validating 10^5 receipt lines with it costs about
130 us a line (`benchmarks/bench_receipts.py`); jsonschema-rs decides the same
question in about 1-8 us. `Checked.iter_errors` therefore asks the compiled
validator first and runs the reference only on an instance it calls invalid,
so the errors reported are the reference's, byte for byte, and valid data
never pays for the pure-Python walk.

That is only sound if the compiled validator never accepts what the reference
rejects, also inside `not`, `if` and `oneOf`, where a stricter branch turns
into a more lenient whole; so it must decide exactly as the reference does.
`compiled_copy` admits a schema only when every keyword in it is one whose
meaning both share on strict-JSON values (`verifier.formats.jsonio`: dict, list, str,
int, `Decimal`, bool, None), and adjusts the three places where they differ:

- `format`: `date-time` becomes the Rust pattern `DATE_TIME_PATTERN`, which
  accepts exactly the strings the reference's checker does (jsonschema's
  `is_datetime`: rfc3339-validator's regex on `instance.upper()`, year 0
  refused, the day within its month, no leap second, and no final newline:
  `verifier.schema.validation`; proven by `tests/schema/test_date_time_pattern.py`), so a receipt line
  calls back into Python for no format; every other format (`uri`) calls the
  reference's own checker (`Draft202012Validator.FORMAT_CHECKER`);
- `type` naming `integer`: the reference calls no `Decimal` an integer
  (`Decimal('1.0')` from `1.0` in the evidence is a number only), jsonschema-rs
  calls every integral number one (JSON Schema 2020-12 Validation section
  6.1.1); a keyword `x-verify-integer` added beside it rejects a `Decimal`
  when the types do not admit `number`;
- `pattern` and `patternProperties`: Python's `$` also matches before a final
  newline (`re` documentation), the Rust `regex` crate's only at the end; a
  pattern is admitted only in a small common syntax (literal ASCII, `\\`
  escapes of punctuation, bracket classes of literals and ranges, groups,
  `|`, quantifiers, `^`, and `$` as its last character, rewritten to
  `\\n?\\z`) and compiled with the `regex` crate (linear time, no backtracking
  limit that could turn into a verdict).

`unevaluatedProperties` is shared: both implement Draft 2020-12's
annotation rules (properties evaluated by `properties`, `patternProperties`,
`additionalProperties`, and by the subschemas of `allOf`, `$ref`, `if`/`then`/
`else`, `dependentSchemas` and the passing branches of `anyOf`/`oneOf`);
`tests/schema/test_compiled_schema.py` compares them on hostile variants of every
claim and gate rule of the shipped profiles, where the profile schema uses it
beside `allOf` and `oneOf`.

Everything else (`multipleOf`, `unevaluatedItems`, `prefixItems`, a
non-integer numeric bound or one beyond 2^53 (jsonschema-rs compares it as a
float), a float in `const`/`enum` or an integer beyond 2^53, a `$ref` leaving the
document, any keyword not listed in `_SAME`/`_SUBSCHEMAS`, a pattern outside
the syntax) makes `compiled_copy` return None, and that schema is validated
by the reference alone, as before. `docs/bundle-format.md` lists which
shipped schemas run compiled.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

__all__ = ["DATE_TIME_PATTERN", "Checked", "checked_validator", "compiled_copy", "meta_valid", "rust_pattern"]

#: Keywords whose values are compared or copied as they are: both validators read them alike on strict-JSON values.
_SAME = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated",
                   "readOnly", "writeOnly", "x-verify-profile", "required", "dependentRequired", "uniqueItems",
                   "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "format"})
_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
#: Keywords whose value is one subschema, a list of them, or a map of names to them.
_SUBSCHEMAS = frozenset({"items", "additionalProperties", "unevaluatedProperties", "propertyNames", "not", "if", "then", "else",
                         "contains"})
_LISTS = frozenset({"allOf", "anyOf", "oneOf"})
_MAPS = frozenset({"properties", "$defs", "dependentSchemas"})
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated",
                          "readOnly", "writeOnly", "x-verify-profile"})

#: One token of the common pattern syntax (see the module docstring); `$` is handled apart.
_TOKEN = re.compile(r"""
    \\[.\\/^$*+?()\[\]{}|-]                      # an escaped punctuation character
  | \[\^?(?:[A-Za-z0-9 _.,:;/\#@!%=+*?(){}|~'"<>$^-]|\\[.\\/^\[\]-])+\]   # a bracket class of literals and ranges
  | \(\?:|[()|]                                   # groups and alternation
  | [*+?]\?? | \{[0-9]{1,4}(?:,[0-9]{0,4})?\}\??  # quantifiers
  | \^                                            # start anchor
  | [A-Za-z0-9 _,:;/\#@!%=~'"<>&-]                # a literal ASCII character
""", re.VERBOSE)


def rust_pattern(pattern: str) -> str | None:
    """
    Return `pattern` rewritten so the Rust `regex` crate matches exactly the strings Python's `re.search` does, or None.

    None when `pattern` uses anything outside the common syntax of the module
    docstring (e.g. `\\d`, `.`, `\\b`, lookaround, a `$` not at the very end,
    doubled `&&`/`--`/`~~` inside a class, which Rust reads as set operations).
    """
    body, end = (pattern[:-1], r"\n?\z") if pattern.endswith("$") and not pattern.endswith("\\$") else (pattern, "")
    pos, previous = 0, "("
    while pos < len(body):
        match = _TOKEN.match(body, pos)
        if match is None:
            return None
        token = match.group()
        if token.startswith("[") and any(pair in token for pair in ("&&", "--", "~~", "[:")):
            return None
        if token[0] in "*+?{" and (previous in ("(", "(?:", "|", "^") or previous[0] in "*+?{"):
            return None  # a quantifier needs an atom before it: `(?=`, `a**` and the like are not in the syntax
        pos, previous = match.end(), token
    return body + end


_YEAR = "(?:[0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})"  # 0001-9999: the reference refuses year 0
_DAYS = ("(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
         "|02-(?:0[1-9]|1[0-9]|2[0-8])")  # calendar.monthrange outside February 29
_MULTIPLE_OF_4 = "(?:0[48]|[2468][048]|[13579][26])"  # two digits divisible by 4, 00 excepted
_LEAP = f"(?:[0-9]{{2}}{_MULTIPLE_OF_4}|{_MULTIPLE_OF_4}00)"  # Gregorian: by 4, not by 100 unless by 400 (0400, 2000; not 0000)
#: The strings our `date-time` checker accepts (`verifier.schema.validation`: jsonschema's, `validate_rfc3339(s.upper())`,
#: without the final newline Python's `$` lets through), for the Rust `regex` crate (`t`/`z` are the only characters
#: whose upper case is in its ASCII syntax).
DATE_TIME_PATTERN = (f"^(?:{_YEAR}-(?:{_DAYS})|{_LEAP}-02-29)[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?"
                     "(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])\\z")


#: The largest integer every float between it and its negation holds exactly (2^53): jsonschema-rs compares a bound past it as a float.
_EXACT = 2**53


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool)) or type(value) is int and abs(value) <= _EXACT


def compiled_copy(schema: Any) -> Any:
    """
    Return the copy of `schema` to hand jsonschema-rs, or None when a keyword is outside what both validators share.

    `schema` is a parsed Draft 2020-12 schema (dict or bool); the copy adds
    `x-verify-integer` beside each `type` naming `integer` and rewrites
    patterns (`rust_pattern`). Pure; raises nothing.
    """
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return None
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            out[key] = value
        elif key == "type":
            types = [value] if isinstance(value, str) else value
            if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
                return None
            out[key] = value
            if "integer" in types and "number" not in types:
                out["x-verify-integer"] = True
        elif key in ("const", "enum"):
            values = [value] if key == "const" else value
            if not isinstance(values, list) or not all(_scalar(v) for v in values):
                return None
            out[key] = value
        elif key in _BOUNDS:
            if isinstance(value, bool) or not isinstance(value, int) or abs(value) > _EXACT:
                return None
            out[key] = value
        elif key == "pattern":
            rewritten = rust_pattern(value) if isinstance(value, str) else None
            if rewritten is None:
                return None
            out[key] = rewritten
        elif key == "$ref":
            if not isinstance(value, str) or not value.startswith("#"):
                return None
            out[key] = value
        elif key in _SUBSCHEMAS:
            sub = compiled_copy(value)
            if sub is None:
                return None
            out[key] = sub
        elif key in _LISTS or key in _MAPS or key == "patternProperties":
            if not isinstance(value, list if key in _LISTS else dict):
                return None
            if key in _LISTS:
                subs = [compiled_copy(v) for v in value]
                if any(s is None for s in subs):
                    return None
                out[key] = subs
                continue
            mapped = {}
            for name, sub_schema in value.items():
                sub = compiled_copy(sub_schema)
                name = rust_pattern(name) if key == "patternProperties" else name
                if sub is None or name is None:
                    return None
                mapped[name] = sub
            out[key] = mapped
        elif key == "format" and value == "date-time":
            continue  # the pattern below, added after the loop so an `allOf` of the schema cannot replace it
        elif key in _SAME:
            out[key] = value
        else:
            return None
    if schema.get("format") == "date-time":
        out["allOf"] = [*out.get("allOf", []), {"pattern": DATE_TIME_PATTERN}]
    return out


class _NoDecimalInteger:
    """jsonschema-rs keyword `x-verify-integer`: a `Decimal` is not an `integer` (as `jsonschema`'s type checker has it)."""

    def __init__(self, parent_schema: Any, value: Any, schema_path: Any) -> None:
        pass

    def validate(self, instance: Any) -> None:
        """Raise `ValueError` when `instance` is a `Decimal` (jsonschema-rs then reports the instance invalid)."""
        if type(instance) is Decimal:
            raise ValueError("a Decimal is not an integer")


class Checked:
    """
    A reference validator with a compiled pre-filter; `iter_errors` yields the reference's errors.

    `reference` is a `jsonschema.Draft202012Validator`; `compiled` a
    jsonschema-rs validator of `compiled_copy(schema)`, or None (then every
    instance goes to the reference).
    """

    def __init__(self, reference: Any, compiled: Any) -> None:
        self.reference = reference
        self.compiled = compiled

    def all_valid(self, instances: list[Any]) -> bool:
        """Return True when the compiled validator accepts every one of `instances` (then none has an error); False when any must go to `iter_errors`."""
        if self.compiled is None:
            return False
        try:
            return all(map(self.compiled.is_valid, instances))
        except Exception:  # noqa: BLE001 - a value the compiled side cannot take: each goes to `iter_errors`
            return False
        except BaseException as exc:  # a Rust panic arrives as pyo3's PanicException, a BaseException
            if type(exc).__name__ != "PanicException":
                raise
            return False

    def iter_errors(self, instance: Any) -> Iterator[Any]:
        """Yield the reference's `ValidationError`s for `instance` (none, without running it, when the compiled one accepts it)."""
        if self.compiled is not None:
            try:
                if self.compiled.is_valid(instance):
                    return iter(())
            except Exception:  # noqa: BLE001 - a value the compiled side cannot take: the reference decides
                pass
            except BaseException as exc:  # a Rust panic arrives as pyo3's PanicException, a BaseException
                if type(exc).__name__ != "PanicException":
                    raise
        return self.reference.iter_errors(instance)  # type: ignore[no-any-return]


_COMPILED: dict[str, Any] = {}


def checked_validator(schema: dict[str, Any], reference: Any) -> Checked:
    """
    Return a `Checked` for `schema` around `reference` (`verifier.schema.validation.schema_validator(schema)`).

    The compiled validator is built once per process per schema content; when
    jsonschema-rs is not installed or refuses the copy, `compiled` is None.
    """
    key = json.dumps(schema, sort_keys=True, default=str)
    if key not in _COMPILED:
        _COMPILED[key] = _compile(schema, reference)
    return Checked(reference, _COMPILED[key])


def _conforms(func: Any, raises: Any) -> Any:
    """Return the reference checker's test `func` as jsonschema-rs calls it (as `jsonschema.FormatChecker.check` does)."""
    def conforms(value: str) -> bool:
        try:
            return bool(func(value))
        except raises:
            return False
    return conforms


def _compile(schema: dict[str, Any], reference: Any) -> Any:
    copy = compiled_copy(schema)
    if copy is None:
        return None
    try:
        import jsonschema_rs
    except ImportError:
        return None
    formats = {name: _conforms(*entry) for name, entry in reference.format_checker.checkers.items()}
    try:
        return jsonschema_rs.Draft202012Validator(
            copy, formats=formats, validate_formats=True, ignore_unknown_formats=False,
            keywords={"x-verify-integer": _NoDecimalInteger}, pattern_options=jsonschema_rs.RegexOptions())
    except Exception:  # noqa: BLE001 - e.g. a pattern the regex crate cannot compile: the reference alone decides
        return None


_META: list[Any] = []


def meta_valid(schema: Any, checkers: dict[str, Any]) -> bool:
    """
    Return whether jsonschema-rs finds `schema` valid against the Draft 2020-12 metaschema, `format`s asserted by `checkers`.

    `checkers` is the reference's `FormatChecker.checkers` (name -> (function,
    exceptions): `regex` is Python's `re.compile`, `uri` and `uri-reference`
    the installed checkers), so the question is the one the reference's
    `Draft202012Validator.check_schema` answers, in compiled code (19 shipped
    schemas: about 14 ms against 240 ms). The metaschema is jsonschema-rs's
    own copy of the official one. False when jsonschema-rs is absent or cannot
    answer, or `schema` holds a `Decimal` (a strict-JSON number with a
    fraction or exponent, no integer to the reference): the caller then asks
    the reference, which also words the error.
    `tests/schema/test_compiled_schema.py` compares the two on hostile variants of
    the shipped schemas.
    """
    if _holds_decimal(schema):  # the reference calls no `Decimal` an integer (`minLength: 1.0`), jsonschema-rs calls it one
        return False
    try:
        if not _META:
            import jsonschema_rs

            formats = {name: _conforms(*entry) for name, entry in checkers.items()}
            _META.append(jsonschema_rs.Draft202012Validator({"$ref": "https://json-schema.org/draft/2020-12/schema"}, formats=formats,
                                                            validate_formats=True, ignore_unknown_formats=False))
        return bool(_META[0].is_valid(schema))
    except Exception:  # noqa: BLE001 - not installed, or a value it cannot take: the reference decides
        return False
    except BaseException as exc:  # a Rust panic arrives as pyo3's PanicException, a BaseException
        if type(exc).__name__ != "PanicException":
            raise
        return False


def _holds_decimal(node: Any) -> bool:
    """Return whether a `Decimal` lies anywhere in the JSON-like `node` (a schema read by the strict reader)."""
    if type(node) is Decimal:
        return True
    if isinstance(node, dict):
        return any(_holds_decimal(v) for v in node.values())
    return isinstance(node, list) and any(_holds_decimal(v) for v in node)
