"""
Tests that kill surviving mutants of `verifier/checks/schema.py` (issue 14): which documents are validated and how.

`documents` runs on a stand-in bundle (documents held in memory, raising
what the real reader raises): a JSON file that is no document of the
format is FAIL `unknown-document` (a declared attempt is not); the quality
index is required once the gate has a quality section; a missing required
document is FAIL, an optional one nothing; unreadable, malformed and
unverified documents are one finding each, with the line as pointer; an
empty receipts file has no records; valid bytes known to a cache are PASS
without validation, and an invalid document is never remembered. Issue 42:
a missing document does not stop the ones after it, at most 50 schema
errors are shown per document, and only an error with a pointer says where.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE

from verifier.formats.bundle import DOCUMENTS
from verifier.checks.schema import documents
from verifier.errors import Unverifiable
from verifier.formats.jsonio import JSONProblem
from verifier.engine.pipeline import Context, RunData
from verifier.trust.assets import assets

GOOD = {kind: ([json.loads(x) for x in (EXAMPLE / name).read_text().splitlines()] if lines else json.loads((EXAMPLE / name).read_text()))
        for kind, (name, _schema, lines, _required) in DOCUMENTS.items() if (EXAMPLE / name).exists()}  # the plan's shard is optional


class _Bundle:
    def __init__(self, docs: dict[str, Any], extra: tuple[str, ...] = ()):
        self.kinds, self.docs, self.problems, self.root = DOCUMENTS, docs, {}, Path("/nonexistent")
        self.verified = {n: n for n in [DOCUMENTS[k][0] for k in docs] + list(extra)}
        self.parsed_sha256 = {k: f"sha-{k}" for k in docs}
        self.digests = {DOCUMENTS[k][0]: f"sha-{k}" for k in docs}
        self.modelled: dict[str, Any] = {}

    def release(self, kind: str) -> None:
        """As `Bundle.release`: the parsed document is dropped (here: kept, as a test reads it back)."""

    def record_batches(self, kind: str, vouch=None):
        """As `Bundle.record_batches`: a JSON Lines document in batches of consecutive lines (here two lines a batch), what refuses the whole file raised."""
        value = self.docs[kind]
        if isinstance(value, JSONProblem) and value.line is not None:  # one bad line among good ones
            yield [(value.line, value)]
            return
        lines = list(enumerate(self.raw_document(kind), start=1))  # a `JSONProblem` item stands for a bad line
        for first in range(0, len(lines), 2):
            yield lines[first:first + 2]

    def has(self, kind: str) -> bool:
        return kind in self.docs

    def raw_document(self, kind: str) -> Any:
        value = self.docs[kind]
        if isinstance(value, Exception):
            raise value
        return value


class _Cache:
    def __init__(self):
        self.kept: dict[str, tuple[str, bool]] = {}

    def result(self, key: str):
        return self.kept.get(key)

    def store_result(self, key: str, value: str) -> None:
        self.kept[key] = (value, True)  # as a later run sees it: stored by an earlier one


def _run(docs: dict[str, Any], gate: dict | None = None, extra: tuple[str, ...] = (), cache: Any = None, roles=()) -> list:
    bundle = _Bundle(docs, extra)
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle, gate=gate, options={"cache": cache},
                  run=RunData(manifest={"files": [{"path": p, "role": "rejected-attempt"} for p in roles]}))
    return [(f.status.value, f.code, f.path, f.pointer) for f in documents(ctx)]


def _valid(kinds) -> list:
    return [("PASS", "valid", DOCUMENTS[k][0], None) for k in kinds]


def test_json_files_outside_the_format_are_unknown_documents_declared_attempts_are_not():
    found = _run(GOOD, extra=("extra.json", "attempts/a.jsonl", "notes.txt", "Data.JSON"), roles=("attempts/a.jsonl",))
    assert found[:2] == [("FAIL", "unknown-document", "Data.JSON", None), ("FAIL", "unknown-document", "extra.json", None)]
    assert found[2:] == _valid(GOOD)


def test_the_quality_index_is_required_only_when_the_gate_judges_quality():
    docs = {k: v for k, v in GOOD.items() if k != "quality"}
    assert _run(docs, gate={"quality": {}}) == _valid(["manifest", "plan", "receipts", "claims"]) + [
        ("FAIL", "missing-document", "quality-index.json", None)]
    assert _run(docs, gate={"claims": []}) == _valid(["manifest", "plan", "receipts", "claims"])
    no_plan = {k: v for k, v in GOOD.items() if k != "plan"}
    assert ("FAIL", "missing-document", "plan.json", None) in _run(no_plan, gate={"claims": []})


@pytest.mark.parametrize("problem,expected", [
    (JSONProblem("duplicate-key", "duplicate key 'a'", line=3), ("FAIL", "duplicate-key", "receipts.jsonl", "/2")),
    (JSONProblem("not-utf8", "not UTF-8"), ("FAIL", "not-utf8", "receipts.jsonl", None)),
    (Unverifiable("not hashed", code="blocked-by-integrity"), ("UNVERIFIED", "blocked-by-integrity", "receipts.jsonl", None)),
    (PermissionError(13, "Permission denied"), ("FAIL", "unreadable-file", "receipts.jsonl", None)),
])
def test_a_document_that_cannot_be_read_is_one_finding(problem, expected):
    found = _run({**GOOD, "receipts": problem})
    assert found == _valid(["manifest", "plan"]) + [expected] + _valid(["claims", "quality"])


def test_an_unreadable_document_names_the_system_error():
    bundle = _Bundle({**GOOD, "plan": PermissionError(13, "Permission denied")})
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle)
    (f,) = [f for f in documents(ctx) if f.code == "unreadable-file"]
    assert f.message == "plan.json cannot be read (Permission denied)" and bundle.problems["plan"] == "cannot be read (Permission denied)"


def test_an_empty_receipts_file_has_no_records():
    assert ("FAIL", "schema-violation", "receipts.jsonl", "") in _run({**GOOD, "receipts": []})


def test_schema_errors_name_what_was_expected():
    bundle = _Bundle({**GOOD, "plan": {**GOOD["plan"], "frozen_at": "yesterday"}})
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle)
    bad = [f for f in documents(ctx) if f.code == "schema-violation"]
    assert [(f.pointer, f.expected) for f in bad] == [("/frozen_at", {"format": "date-time"})]
    assert bundle.problems == {"plan": "1 schema error(s)"}


def test_valid_bytes_known_to_the_cache_pass_and_invalid_ones_are_never_remembered():
    cache = _Cache()
    assert _run(GOOD, cache=cache) == _valid(GOOD) and len(cache.kept) == len(GOOD)
    bundle = _Bundle({**GOOD, "plan": {"not": "a plan"}})  # same digests as the valid run: the cache answers
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle, options={"cache": cache})
    again = list(documents(ctx))
    assert [(f.code, f.cached) for f in again] == [("valid", "schema")] * len(GOOD)
    fresh = _Cache()
    assert ("FAIL", "schema-violation") in {(s, c) for s, c, *_ in _run({**GOOD, "plan": {"not": "a plan"}}, cache=fresh)}
    assert len(fresh.kept) == len(GOOD) - 1


# --- issue 42, cosmic-ray run of record -------------------------------------------------------------------------------

def test_a_missing_document_does_not_stop_the_documents_after_it():
    """Kills `:60` `continue` -> `break` (the missing plan would end the loop: receipts, claims, quality never validated)."""
    no_plan = {k: v for k, v in GOOD.items() if k != "plan"}
    assert _run(no_plan) == _valid(["manifest"]) + [("FAIL", "missing-document", "plan.json", None)] + _valid(["receipts", "claims", "quality"])


def test_at_most_50_schema_errors_are_reported_per_document_the_first_in_document_order():
    """Kills `:26` `MAX_ERRORS_PER_DOCUMENT = 50` -> 51 and -> 49: 60 empty receipts give more than 50 errors, 50 are shown."""
    bundle = _Bundle({**GOOD, "receipts": [{}] * 60})
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle)
    bad = [f for f in documents(ctx) if f.code == "schema-violation"]
    assert len(bad) == 50
    lines = [int(f.pointer.split("/")[1]) for f in bad]
    assert lines == sorted(lines) and lines[0] == 0 and 2 in lines  # the first 50 in document order, also past the cut at 500
    total = int(bundle.problems["receipts"].split()[0])
    assert total > 51 and bundle.problems["receipts"] == f"{total} schema error(s)"


def test_a_schema_error_message_names_its_pointer_and_a_document_level_one_does_not():
    """Kills `:95` `where = ... if ptr` -> `if not ptr` (" at /frozen_at" dropped, " at " added to the pointer-less error)."""
    bundle = _Bundle({**GOOD, "plan": {**GOOD["plan"], "frozen_at": "yesterday"}, "receipts": []})
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle)
    assert [f.message for f in documents(ctx) if f.code == "schema-violation"] == [
        "plan.json at /frozen_at: 'yesterday' is not a 'date-time'", "receipts.jsonl: no records"]


@pytest.mark.parametrize("problem,expected", [
    (JSONProblem("invalid-json", "not valid JSON"), ("FAIL", "invalid-json", "plan.json", None)),
    (Unverifiable("not hashed", code="blocked-by-integrity"), ("UNVERIFIED", "blocked-by-integrity", "plan.json", None)),
    (PermissionError(13, "Permission denied"), ("FAIL", "unreadable-file", "plan.json", None)),
])
def test_a_json_document_that_cannot_be_read_does_not_stop_the_documents_after_it(problem, expected):
    """Kills the `continue` -> `break` of each way a JSON document (not JSON Lines) cannot be read."""
    assert _run({**GOOD, "plan": problem}) == _valid(["manifest"]) + [expected] + _valid(["receipts", "claims", "quality"])


def _problems(receipts: Any) -> tuple[list, dict[str, str]]:
    bundle = _Bundle({**GOOD, "receipts": receipts})
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle)
    found = [(f.status.value, f.code, f.pointer, f.message) for f in documents(ctx) if f.path == "receipts.jsonl"]
    return found, bundle.problems


def test_what_makes_the_receipts_unusable_is_recorded_for_the_checks_after():
    """`bundle.problems` is the reason every later check gives (`blocked-by-schema`): the first bad line, else the count of errors."""
    bad = [JSONProblem("invalid-json", f"line {n}: not valid JSON", line=n) for n in (2, 4)]
    _found, problems = _problems([GOOD["receipts"][0], bad[0], GOOD["receipts"][1], bad[1]])
    assert problems == {"receipts": "line 2: not valid JSON"}
    broken = [{**r, "elapsed_s": "fast"} for r in GOOD["receipts"][:3]]
    assert _problems(broken)[1] == {"receipts": "3 schema error(s)"}
    assert _problems([])[1] == {"receipts": "1 schema error(s)"}


def test_a_streamed_document_that_cannot_be_read_names_the_system_error():
    found, problems = _problems(PermissionError(13, "Permission denied"))
    assert found == [("FAIL", "unreadable-file", None, "receipts.jsonl cannot be read (Permission denied)")]
    assert problems == {"receipts": "cannot be read (Permission denied)"}


def test_bad_lines_and_schema_errors_share_the_limit_of_findings():
    from verifier.checks.schema import MAX_ERRORS_PER_DOCUMENT

    bad = [JSONProblem("invalid-json", f"line {n}: not valid JSON", line=n) for n in range(1, 11)]
    broken = [{**GOOD["receipts"][0], "elapsed_s": "fast"}] * 60
    found, _ = _problems(bad + broken)
    assert len(found) == MAX_ERRORS_PER_DOCUMENT and [f[1] for f in found[:10]] == ["invalid-json"] * 10
    assert {f[1] for f in found[10:]} == {"schema-violation"}


def test_a_receipt_lines_schema_error_names_its_line_counted_from_one():
    """Issue 40 "Bad input": a receipt line breaking its schema is a finding naming the line (its pointer counts from 0)."""
    receipts = [dict(r) for r in GOOD["receipts"]]
    index = next(i for i, r in enumerate(receipts) if i >= 10 and r["kind"] == "request")
    receipts[index]["elapsed_s"] = "fast"
    bundle = _Bundle({**GOOD, "receipts": receipts})
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle)
    assert [(f.message, f.pointer) for f in documents(ctx) if f.code == "schema-violation"] == [
        (f"receipts.jsonl line {index + 1} at /{index}/elapsed_s: 'fast' is not of type 'number'", f"/{index}/elapsed_s")]


def test_a_required_document_that_is_a_symlink_is_said_not_a_regular_file(example_copy):
    """The newcomer trial: a symlinked receipts.jsonl was reported "absent"; it is there, and never read."""
    from verifier.core import verify_path

    (example_copy / "receipts.jsonl").rename(example_copy / "real.jsonl")
    (example_copy / "receipts.jsonl").symlink_to("real.jsonl")
    found = [f.message for f in verify_path(str(example_copy)).findings if f.code == "missing-document"]
    assert found == ["receipts.jsonl is required by bundle format v1 but is not a regular file, so it is not read"]
    ctx = Context(subject=Path("."), assets=assets(), bundle=_Bundle({k: v for k, v in GOOD.items() if k != "plan"}))
    assert [f.message for f in documents(ctx) if f.code == "missing-document"] == ["plan.json is required by bundle format v1 but absent"]


def test_schema_errors_are_in_document_order_array_indices_as_numbers():
    """Found by stop 49's trial: JSON Lines findings sorted "/10" before "/2" (pointers compared as text), and the cut kept those."""
    receipts = [row for row in GOOD["receipts"] if row["kind"] == "request"][:12]
    assert len(receipts) == 12
    for i, field in ((11, "outcome"), (2, "phase"), (10, "outcome")):
        receipts[i] = {**receipts[i], field: 5}
    bundle = _Bundle({**GOOD, "receipts": receipts})
    ctx = Context(subject=Path("."), assets=assets(), bundle=bundle)
    found = [f.pointer for f in documents(ctx) if f.code == "schema-violation"]
    assert found == ["/2/phase", "/10/outcome", "/11/outcome"], found  # by line first, whatever the member ("outcome" < "phase")
    key = __import__("verifier.checks.schema", fromlist=["_in_document_order"])._in_document_order
    assert sorted([("/a/10", 1), ("/a/9/b", 1), ("/a/9", 1), ("/b", 1), ("", 1)], key=key) == [("", 1), ("/a/9", 1), ("/a/9/b", 1), ("/a/10", 1), ("/b", 1)]
