"""
JSON Lines read as a stream (issue 40, items 2 and 4, and its "Bad input"): `jsonio.iter_strict_lines`, `Bundle.records`,
`schema.documents` over a stream, and the evidence model built line by line.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path

import pytest
from bundlekit import read_lines, rehash, write_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.core import verify_path
from verifier.formats.jsonio import LINE_LIMIT, JSONProblem, iter_strict_lines, loads_strict, loads_strict_lines
from verifier.model.findings import Status
from verifier.engine.pipeline import RunData


def _read(data: bytes, size: int, limit: int = LINE_LIMIT) -> object:
    """Every `(line, document or (code, message, line))` of `data` split into pieces of `size` bytes, or the whole-file problem."""
    try:
        return [(n, (d.code, str(d), d.line) if type(d) is JSONProblem else d)
                for n, d in iter_strict_lines((data[i:i + size] for i in range(0, len(data), size)), line_limit=limit)]
    except JSONProblem as exc:
        return ("file", exc.code, str(exc), exc.line)


LINE = st.sampled_from([b'{"a":1}', b'{"b":2.50,"c":"\xc3\xa9"}', b'[]', b'', b'  ', b'{"a":1,"a":2}', b'{,', b'NaN', b'"\xff"',
                        b'{"x":"' + b"y" * 60 + b'"}', b'1e999', b'{"d":"\\ud800"}', b'{}\r'])


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=8), st.booleans(), st.integers(1, 70))
def test_the_lines_read_are_the_same_however_the_bytes_arrive(lines, final_newline, size):
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    whole = _read(data, max(len(data), 1), limit=64)
    assert _read(data, size, limit=64) == whole
    if any(len(x) > 64 for x in lines):
        return
    try:
        reference: object = [(n, d) for n, d in enumerate(loads_strict_lines(data), start=1)]
    except JSONProblem as exc:  # the whole-list reader stops at the first problem: the stream names the same one first
        reference = ("file", exc.code, str(exc), None) if exc.line is None else (exc.line, (exc.code, str(exc), exc.line))
        whole = whole if isinstance(whole, tuple) else next((n, d) for n, d in whole if isinstance(d, tuple))
    assert whole == reference


def test_a_line_longer_than_the_limit_is_a_problem_and_reading_goes_on():
    data = b'{"a":1}\n{"x":"' + b"y" * 100 + b'"}\n{"b":2}'
    for size in (1, 7, 1000):
        assert _read(data, size, limit=50) == [(1, {"a": 1}), (2, ("line-too-long", "line 2 is longer than 50 bytes, the limit for one line", 2)),
                                               (3, {"b": 2})]
    assert _read(b"z" * 100, 8, limit=50) == [(1, ("line-too-long", "line 1 is longer than 50 bytes, the limit for one line", 1))]


@pytest.mark.parametrize("size", [1, 9, 10, 11, 100])
def test_a_line_of_exactly_the_limit_is_read_one_byte_more_is_not(size):
    at_limit, above = b'"' + b"a" * 48 + b'"', b'"' + b"a" * 49 + b'"'  # 50 and 51 bytes
    assert _read(at_limit + b"\n" + above + b"\n" + at_limit, size, limit=50) == [
        (1, "a" * 48), (2, ("line-too-long", "line 2 is longer than 50 bytes, the limit for one line", 2)), (3, "a" * 48)]
    assert _read(above + above + b"\n" + at_limit, size, limit=50)[1:] == [(2, "a" * 48)]  # a line of 102 bytes is one line


def test_lines_after_the_first_batch_keep_their_numbers():
    from verifier.formats.jsonio import _BATCH

    lines = [b"{}"] * (_BATCH + 10)
    lines[_BATCH + 5] = b"{,"
    found = _read(b"\n".join(lines), 1 << 20)
    assert [(n, d[0]) for n, d in found if isinstance(d, tuple)] == [(_BATCH + 6, "invalid-json")] and len(found) == _BATCH + 10


def test_what_refuses_the_whole_file_names_the_file_offset():
    assert _read(b"\xef\xbb\xbf{}\n", 1) == ("file", "invalid-json", "starts with a byte order mark, which JSON forbids (RFC 8259 section 8.1)", None)
    assert _read(b'{"a":1}\n{"b":"\xff"}\n', 3) == ("file", "not-utf8", "not UTF-8: byte 0xff at offset 14 (line 2)", None)
    for load in (loads_strict_lines, loads_strict):  # the whole-document readers name the line too
        with pytest.raises(JSONProblem, match=r"^not UTF-8: byte 0xff at offset 14 \(line 3\)$"):
            load(b'{"a":\n1,\n"b":"\xff"}')


def test_a_receipts_file_is_not_held_and_not_under_the_document_size_limit(example_copy, monkeypatch):
    """The whole-document limit applies to JSON documents only: JSON Lines are streamed (docs/bundle-format.md)."""
    from verifier.checks import integrity

    size = (example_copy / "receipts.jsonl").stat().st_size
    monkeypatch.setattr(integrity, "DOCUMENT_LIMIT", size - 1)
    assert (example_copy / "plan.json").stat().st_size < size - 1 and (example_copy / "claims.json").stat().st_size < size - 1
    report = verify_path(str(example_copy))
    assert report.verdict == "PASS", [f.message for f in report.findings if f.status is not Status.PASS]
    limit = (example_copy / "plan.json").stat().st_size - 1
    monkeypatch.setattr(integrity, "DOCUMENT_LIMIT", limit)
    report = verify_path(str(example_copy))
    larger = sorted(n for n in ("plan.json", "claims.json", "quality-index.json") if (example_copy / n).stat().st_size > limit)
    assert sorted(f.path for f in report.findings if f.code == "unreadable-file") == larger and "plan.json" in larger


def test_a_receipt_line_longer_than_the_line_limit_is_a_finding_and_the_other_lines_are_still_read(example_copy):
    path = example_copy / "receipts.jsonl"
    rows = read_lines(path)
    rows[2]["error"] = "x" * (LINE_LIMIT + 10)  # line 3: too long to be read, whatever it holds
    del rows[4]["phase"]  # line 5: still validated
    write_lines(path, rows)
    rehash(example_copy)
    report = verify_path(str(example_copy))
    bad = [(f.code, f.pointer) for f in report.findings if f.check == "schema.documents" and f.status is Status.FAIL]
    assert bad == [("line-too-long", "/2"), ("schema-violation", "/4")]
    assert "line 3 is longer than" in next(f.message for f in report.findings if f.code == "line-too-long")
    assert report.verdict == "FAIL"


def test_every_bad_line_is_named_up_to_the_report_limit(example_copy):
    from verifier.checks.schema import MAX_ERRORS_PER_DOCUMENT

    path = example_copy / "receipts.jsonl"
    good = path.read_bytes().splitlines()
    path.write_bytes(b"\n".join(good + [b"{,"] * (MAX_ERRORS_PER_DOCUMENT + 5)) + b"\n")
    rehash(example_copy)
    report = verify_path(str(example_copy))
    bad = [f for f in report.findings if f.check == "schema.documents" and f.status is Status.FAIL]
    assert len(bad) == MAX_ERRORS_PER_DOCUMENT and {f.code for f in bad} == {"invalid-json"}
    assert bad[0].pointer == f"/{len(good)}" and f"line {len(good) + 1}:" in bad[0].message


def test_schema_errors_beyond_the_limit_keep_the_first_in_document_order(example_copy):
    from verifier.checks.schema import MAX_ERRORS_PER_DOCUMENT

    path = example_copy / "receipts.jsonl"
    rows = read_lines(path)
    row = dict(rows[0])
    del row["phase"]
    write_lines(path, rows + [row] * (12 * MAX_ERRORS_PER_DOCUMENT))  # more than the ten times the limit kept before a trim
    rehash(example_copy)
    report = verify_path(str(example_copy))
    pointers = [f.pointer for f in report.findings if f.code == "schema-violation"]
    expected = [f"/{i}" for i in range(len(rows), len(rows) + MAX_ERRORS_PER_DOCUMENT)]  # line numbers in order, not as text
    assert pointers == expected


def test_receipts_that_change_while_modelled_leave_the_receipts_unmapped(example_copy):
    """The model reads the lines again; bytes that no longer match the manifest are never modelled (`changed-during-verification`)."""
    from types import SimpleNamespace

    from verifier.formats.bundle import Bundle
    from verifier.readers.native import evidence_of

    names = ("plan.json", "receipts.jsonl", "claims.json")
    digests = {n: hashlib.sha256((example_copy / n).read_bytes()).hexdigest() for n in names}
    digests["receipts.jsonl"] = "0" * 64  # as if the file changed after integrity.files matched it
    bundle = Bundle(example_copy, verified={n: n for n in names}, digests=digests)
    ctx = SimpleNamespace(bundle=bundle, run=RunData(), options={}, gate_id=None)
    evidence = evidence_of(ctx)
    assert evidence.receipts == () and evidence.plan is not None
    assert {(u.part, u.code) for u in evidence.unmapped} >= {("receipts", "changed-during-verification"), ("processes", "changed-during-verification")}


def test_a_valid_receipts_file_cached_as_valid_is_not_read_by_the_schema_check(example_copy, monkeypatch, tmp_path):
    """Warm re-verify: the schema check trusts the cache for these very bytes (docs/cache.md); the model still reads them."""
    from verifier.formats.bundle import Bundle
    from verifier.cache.warm import Cache

    cache = Cache(tmp_path / "cache")
    assert verify_path(str(example_copy), cache=cache).verdict == "PASS"
    reads = []
    original = Bundle.records
    monkeypatch.setattr(Bundle, "records", lambda self, kind: reads.append(kind) or original(self, kind))
    report = verify_path(str(example_copy), cache=Cache(tmp_path / "cache"))  # a later run
    assert report.verdict == "PASS" and reads == ["receipts"]
    assert next(f for f in report.findings if f.check == "schema.documents" and f.path == "receipts.jsonl").cached == "schema"


def test_a_bad_line_met_outside_the_schema_check_is_not_a_document(tmp_path):
    """`Bundle.document` streams lines the schema check passed; a bad one met anyway (the file changed) is `blocked-by-schema`, never data."""
    from verifier.formats.bundle import Bundle
    from verifier.errors import Unverifiable

    (tmp_path / "receipts.jsonl").write_bytes(b'{"kind": "request"}\n{,\n{}\n')
    bundle = Bundle(tmp_path, verified={"receipts.jsonl": "receipts.jsonl"})
    read = []
    with pytest.raises(Unverifiable) as caught:
        read.extend(bundle.document("receipts"))
    assert caught.value.code == "blocked-by-schema" and "line 2" in str(caught.value) and read == [{"kind": "request"}]
    with pytest.raises(JSONProblem) as problem:
        bundle.raw_document("receipts")
    assert problem.value.line == 2 and problem.value.code == "invalid-json"


def test_records_are_read_from_the_file_integrity_matched(tmp_path):
    """`verified` maps the manifest's (NFC) name to the name on disk: that file is the one read."""
    from verifier.formats.bundle import Bundle

    (tmp_path / "on-disk.jsonl").write_bytes(b'{"a": 1}\n')
    bundle = Bundle(tmp_path, verified={"receipts.jsonl": "on-disk.jsonl"})
    assert list(bundle.records("receipts")) == [(1, {"a": 1})]


def test_the_plan_is_modelled_and_released_before_the_receipts_are_read_and_each_is_parsed_once(example_copy, monkeypatch):
    """Memory and time (issue 40): the plan's parsed dicts are not held while the receipt lines stream into the model, and
    each document is parsed once: the model is built in the pass that validates it (`Bundle.modelled`)."""
    from verifier.formats.bundle import Bundle
    from verifier.readers import native

    seen = []
    real_records, real_raw = Bundle.record_batches, Bundle.raw_document

    def record_batches(self, kind, vouch=None):
        seen.append(("lines of", kind, "plan parsed and held" if "plan" in self._cache else "plan modelled" if "plan" in self.modelled else "?"))
        return real_records(self, kind, vouch)

    def raw_document(self, kind, vouch=None):
        seen.append(("parsed", kind))
        return real_raw(self, kind, vouch)

    monkeypatch.setattr(Bundle, "record_batches", record_batches)
    monkeypatch.setattr(Bundle, "raw_document", raw_document)
    assert verify_path(str(example_copy)).verdict == "PASS"
    assert [s for s in seen if s[1] in ("plan", "receipts")] == [("parsed", "plan"), ("lines of", "receipts", "plan modelled")]
    assert native.DOCUMENT_READERS.keys() == {"plan"} and native.LINE_READERS.keys() == {"receipts", "plan_requests"}


def test_receipts_share_one_string_per_dimension_value_and_outcome():
    from verifier.readers.native import from_documents

    lines = [{"kind": "request", "request_id": f"r{i}", "arm": "ab", "server": "s1", "phase": "measured",
              "elapsed_s": Decimal("0.5"), "outcome": "o" + "k", "started_at": "x", "ended_at": "y"} for i in range(2)]
    lines[1] = {**lines[1], "arm": "".join(["a", "b"]), "server": "".join(["s", "1"]), "phase": "".join(["measured"]), "outcome": "".join(["o", "k"])}
    assert lines[1]["server"] is not lines[0]["server"]  # equal strings, two objects, as a JSON decoder gives them
    first, second = from_documents({"receipts": lines}, manifest=None, names={}).receipts
    assert all(first.dims[k] is second.dims[k] for k in ("arm", "server", "phase")) and first.outcome is second.outcome
    assert (first.dims["request_id"], second.dims["request_id"]) == ("r0", "r1")


def test_request_rows_for_the_plots_are_built_only_when_drawn(example_copy, monkeypatch):
    """A run whose report is not HTML builds no row per receipt (issue 40); the rows are those of `figures.requests`."""
    from verifier.checks import figures

    built = []
    real = figures.requests
    monkeypatch.setattr(figures, "requests", lambda campaign: built.append(1) or real(campaign))
    report = verify_path(str(example_copy))
    rows = report.figures["requests"]
    assert built == [] and isinstance(rows, figures.RequestRows)
    assert len(rows) == 20 and rows[0]["order"] == 0 and [r["order"] for r in rows] == list(range(20)) and built == [1]


def test_a_receipt_modelled_as_its_line_is_validated_is_found_at_its_line(example_copy):
    """The model built in the schema pass keeps each receipt's line: a finding on a receipt points at it (`/<line - 1>`)."""
    rows = read_lines(example_copy / "receipts.jsonl")
    k = max(i for i, r in enumerate(rows) if r["kind"] == "request")
    rows[k]["elapsed_s"] += 1
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert [(f.path, f.pointer) for f in report.findings if f.code == "elapsed-mismatch"] == [("receipts.jsonl", f"/{k}")]


def test_a_line_that_is_not_json_is_named_with_its_column_in_that_line():
    [(number, problem)] = [x for x in iter_strict_lines((b'{"a": 1}\n{"a" 2}\n',)) if type(x[1]) is JSONProblem]
    assert (number, str(problem)) == (2, "line 2: not valid JSON: Expecting ':' delimiter at column 6")


@pytest.mark.parametrize("fault", ["elapsed", "schema", "json"])
def test_the_findings_do_not_depend_on_how_many_lines_a_batch_holds(example_copy, monkeypatch, fault):
    """`schema.documents` validates and models a batch of lines at a time (`Bundle.record_batches`): 1, 2, 3 or 4096 lines a batch, one report."""
    from verifier.formats import jsonio

    path = example_copy / "receipts.jsonl"
    rows = read_lines(path)
    requests = [i for i, r in enumerate(rows) if r["kind"] == "request"]
    rows[requests[-1]]["elapsed_s"] += 1
    if fault == "schema":
        del rows[requests[2]]["phase"]
    write_lines(path, rows)
    if fault == "json":
        lines = path.read_bytes().splitlines()
        lines[3] = b"{,"
        path.write_bytes(b"\n".join(lines) + b"\n")
    rehash(example_copy)

    def findings() -> list[tuple]:
        return [(f.check, f.status, f.code, f.message, f.path, f.pointer) for f in verify_path(str(example_copy)).findings]

    whole = findings()
    assert any(f[2] == {"elapsed": "elapsed-mismatch", "schema": "schema-violation", "json": "invalid-json"}[fault] for f in whole)
    for size in (1, 2, 3):
        monkeypatch.setattr(jsonio, "_BATCH", size)
        assert findings() == whole


@pytest.mark.parametrize("lines", [1, 400])
def test_schema_errors_kept_stay_bounded_within_a_line_and_across_a_batch(example_copy, monkeypatch, lines):
    """20,000 schema errors in one line, or 50 in each of 400 lines of one batch: only the first 50 by pointer are kept while reading,
    so the memory the check holds does not grow with the errors (issue 40's "Bad input"; a trial found 1 GB at 4096 lines)."""
    import tracemalloc

    from verifier.checks.schema import MAX_ERRORS_PER_DOCUMENT

    path = example_copy / "receipts.jsonl"
    rows = read_lines(path)
    k = next(i for i, r in enumerate(rows) if r["kind"] == "request")
    bad = [dict(rows[k], outputs=[1] * (20_000 // lines)) for _ in range(lines)]
    write_lines(path, rows + bad)
    rehash(example_copy)
    from verifier.checks import schema

    peaks: list[int] = []
    real = schema._lines

    def traced(ctx, kind, *rest):  # the schema pass of the receipts alone, not the media the run decodes after it
        if kind != "receipts":
            return real(ctx, kind, *rest)
        tracemalloc.start()
        try:
            found = list(real(ctx, kind, *rest))
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        return iter(found)

    monkeypatch.setattr(schema, "_lines", traced)
    report = verify_path(str(example_copy))
    peak = peaks[0]
    pointers = [f.pointer for f in report.findings if f.code == "schema-violation"]
    assert len(pointers) == MAX_ERRORS_PER_DOCUMENT and pointers[0] == f"/{len(rows)}/outputs/0"
    assert peak < 8 * 2**20, f"{peak / 2**20:.0f} MiB traced"  # 20,000 errors kept at once take far more
