"""
`date-time` in the compiled pre-filter is a Rust pattern that decides exactly as the reference checker (issue 40).

The reference is the installed `jsonschema`'s `date-time` checker
(rfc3339-validator on `instance.upper()`), without the final newline
Python's `$` lets through (`verifier.schema.validation._strict`). The pattern
(`verifier.schema.compiled_schema.DATE_TIME_PATTERN`) must accept exactly the same
strings, or a receipt the reference rejects would pass unchecked. Proven here on
every day of 0000-13 to 32 of years around each leap-year rule, and on strings
Hypothesis builds from the grammar's pieces (leap seconds, year 0, offsets,
lowercase `t`/`z`, a final newline, non-ASCII digits) and from arbitrary text.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker

from verifier.schema.compiled_schema import checked_validator
from verifier.schema.validation import DRAFT_2020_12, schema_validator

_SCHEMA = {"$schema": DRAFT_2020_12, "format": "date-time"}
_CHECKED = checked_validator(_SCHEMA, schema_validator(_SCHEMA))


def _reference(text: str) -> bool:
    """Our checker (`verifier.schema.validation`): the installed one, without the final newline Python's `$` lets through."""
    return schema_validator(_SCHEMA).format_checker.conforms(text, "date-time")


def test_a_final_newline_is_no_date_time_though_the_installed_checker_lets_it_through() -> None:
    text = "2026-01-01T00:00:00.5Z\n"
    assert Draft202012Validator.FORMAT_CHECKER.conforms(text, "date-time")  # Python's `$`
    assert not _reference(text) and not _CHECKED.compiled.is_valid(text)
    assert list(_CHECKED.iter_errors(text)) and not list(_CHECKED.iter_errors(text[:-1]))
    assert _reference("2026-01-01T00:00:00.5Z") and _reference("2026-01-01t00:00:00.5z") and _reference(5)


def _same(text: str) -> None:
    assert _CHECKED.compiled.is_valid(text) == _reference(text), repr(text)


def test_every_day_of_the_leap_year_rules_is_decided_as_the_reference() -> None:
    years = [*range(0, 9), 96, 100, 104, 396, 400, 404, 1896, 1900, 1904, 1999, 2000, 2001, 2024, 2100, 2400, 9996, 9999]
    for year in years:
        for month in range(0, 14):
            for day in range(0, 33):
                _same(f"{year:04d}-{month:02d}-{day:02d}T12:00:00Z")
    assert _reference("2000-02-29T00:00:00Z") and not _reference("1900-02-29T00:00:00Z")  # the loop reaches both sides


def _pad(n: int, width: int) -> str:
    return f"{n:0{width}d}"


_PIECES = st.tuples(
    st.one_of(st.integers(0, 10000).map(lambda y: _pad(y, 4)), st.integers(0, 99999).map(str)),
    st.integers(0, 13).map(lambda m: _pad(m, 2)), st.integers(0, 32).map(lambda d: _pad(d, 2)),
    st.sampled_from(["T", "t", " ", "_", "TT"]),
    st.integers(0, 25).map(lambda h: _pad(h, 2)), st.integers(0, 61).map(lambda m: _pad(m, 2)),
    st.sampled_from(["00", "59", "60", "61", "5", "٣٣"]),
    st.sampled_from(["", ".0", ".123456789", ".", ".1a", ".٣"]),
    st.one_of(st.sampled_from(["Z", "z", "", "+0000", "Z\n", "ZZ"]),
              st.tuples(st.sampled_from("+-−"), st.integers(0, 25), st.integers(0, 61)).map(lambda t: f"{t[0]}{t[1]:02d}:{t[2]:02d}")),
    st.sampled_from(["", "\n", "\n\n", " ", "\r", "\r\n", "x"]),
)


@settings(max_examples=3000, deadline=None)
@given(_PIECES)
def test_strings_built_from_the_grammar_are_decided_as_the_reference(pieces: tuple[str, ...]) -> None:
    year, month, day, sep, hour, minute, second, frac, zone, tail = pieces
    _same(f"{year}-{month}-{day}{sep}{hour}:{minute}:{second}{frac}{zone}{tail}")


@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.text(), st.text(alphabet="0123456789-:.TtZz+\n ", max_size=30)))
def test_arbitrary_text_is_decided_as_the_reference(text: str) -> None:
    _same(text)


def test_a_valid_receipt_calls_no_python_format_checker() -> None:
    """The point of the pattern: a valid receipt line runs with no call from Rust back into Python for `date-time`."""
    calls: list[str] = []
    checker = FormatChecker()
    for name, (func, raises) in Draft202012Validator.FORMAT_CHECKER.checkers.items():
        checker.checks(name, raises)(lambda value, func=func, name=name: calls.append(name) or func(value))
    schema = json.loads((Path(__file__).resolve().parent.parent.parent / "schemas" / "receipt.schema.json").read_text())
    schema["$comment"] = "a copy not compiled before, so the counting checker is the one compiled in"
    checked = checked_validator(schema, Draft202012Validator(schema, format_checker=checker))
    receipt = {"kind": "request", "request_id": "s1-0", "arm": "baseline", "server": "s1", "phase": "measured",
               "started_at": "2026-01-01T00:00:00.010000Z", "ended_at": "2026-01-01T00:00:00.015000Z",
               "elapsed_s": 0.005, "outcome": "ok", "outputs": []}
    assert checked.compiled.is_valid(receipt)
    assert not checked.compiled.is_valid(dict(receipt, started_at="2026-02-30T00:00:00Z"))
    assert calls == []


def test_a_timestamp_with_a_final_newline_fails_its_schema_and_no_check_errs(example_copy) -> None:
    """Found by this stop's newcomer trial: such a `started_at` passed the schema, then `parse_time` raised inside plan conformance (ERROR, exit 4)."""
    from bundlekit import read_lines, rehash, write_lines

    from verifier.core import verify_path

    rows = read_lines(example_copy / "receipts.jsonl")
    at = next(i for i, r in enumerate(rows) if r["kind"] == "request")
    rows[at]["started_at"] += "\n"
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert [(f.status.value, f.path, f.pointer) for f in report.findings if f.code == "schema-violation"] == [
        ("FAIL", "receipts.jsonl", f"/{at}/started_at")]
    assert not [f for f in report.findings if f.status.value == "ERROR"] and report.verdict == "FAIL"
