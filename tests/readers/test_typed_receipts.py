"""
The typed reading of receipt lines (`ReceiptLines.vouch`, issue 40) is a pre-filter of the reference reading.

The reference: the strict reader (`verifier.formats.jsonio.iter_strict_batches`), the
receipt schema (`schemas/receipt.schema.json`, `checked_validator`) and
`ReceiptLines.extend`. `vouch` may accept a batch of lines only when the
reference accepts every line of it, and must then build the very same model.
Its msgspec types are written by hand after the schema: the tests below fail
when the two differ (the schema's fingerprint, the fields, enums and patterns, and
a property over near-valid lines: valid ones mutated).
"""

from __future__ import annotations

import json
import typing
from decimal import Decimal
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jsontext import Raw as _Raw, damaged, stated_twice
from jsontext import dumps as _dumps
from verifier.schema.compiled_schema import checked_validator
from verifier.formats.jsonio import JSONProblem, iter_strict_batches
from verifier.readers import native
from verifier.readers.native import RECEIPT_SCHEMA_SHA256, ReceiptLines, schema_sha256
from verifier.trust.assets import schema_validator

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = json.loads((ROOT / "schemas" / "receipt.schema.json").read_text())
THEN = {branch["if"]["properties"]["kind"]["const"]: branch["then"] for branch in SCHEMA["allOf"]}
VALIDATOR = checked_validator(SCHEMA, schema_validator(SCHEMA))


def _model(builder: ReceiptLines) -> tuple:
    """Everything the builder modelled, values with their types (an int and a Decimal of one value differ)."""
    t = builder.table
    typed = lambda column: [(type(v).__name__, str(v)) for v in column]  # noqa: E731
    return (t.index.tolist(), t.request_id, t.server, t.arm, t.phase, t.outcome, typed(t.elapsed), list(t.started_at),
            t.started_at.at.tolist(), list(t.ended_at), t.ended_at.at.tolist(), typed(t.http_status), t.error, t.outputs,
            builder.processes, builder.unmapped)


def reference(texts: list[str]) -> ReceiptLines | None:
    """The model the reference reading builds of `texts` (lines), or None when it refuses a line."""
    builder = ReceiptLines("receipts.jsonl")
    data = "".join(text + "\n" for text in texts).encode("utf-8", "surrogatepass")
    try:
        for batch in iter_strict_batches(iter([data])):
            documents = [item for _, item in batch]
            if any(type(item) is JSONProblem for item in documents) or not VALIDATOR.all_valid(documents):
                return None
            builder.extend(batch[0][0] - 1, documents)
    except JSONProblem:  # the file refused whole (raised, not a line's problem): a byte order mark at its start
        return None
    return builder


def vouched(texts: list[str]) -> ReceiptLines | None:
    """The model `vouch` builds of `texts`, or None when it does not vouch for them."""
    builder = ReceiptLines("receipts.jsonl")
    return builder if builder.vouch(0, texts) else None


def test_the_types_mirror_the_shipped_receipt_schema():
    assert schema_sha256(SCHEMA) == RECEIPT_SCHEMA_SHA256, (
        "schemas/receipt.schema.json changed: bring verifier/readers/native.py's typed receipts (_Request, _Worker, _Output) "
        "in line with it, then its RECEIPT_SCHEMA_SHA256")
    for kind, struct in (("request", native._Request), ("worker", native._Worker)):
        then = THEN[kind]
        info = msgspec.inspect.type_info(struct)
        assert info.tag == kind and info.tag_field == "kind" and info.forbid_unknown_fields
        assert {f.name for f in info.fields} | {"kind"} == set(then["properties"]) and then["additionalProperties"] is False
        assert {f.name for f in info.fields if f.required} | {"kind"} == set(then["required"])
        assert all(default is msgspec.UNSET for default in struct.__struct_defaults__) and struct.__struct_config__.omit_defaults
        hints = typing.get_type_hints(struct)
        for name, prop in then["properties"].items():
            if "enum" in prop:
                assert set(typing.get_args(hints[name])) == set(prop["enum"]), name
            if "pattern" in prop:
                assert prop["pattern"] == f"^{native.NAME_PATTERN}$", name
            if prop.get("format") == "date-time":
                assert name in ("started_at", "ended_at")
    item = THEN["request"]["properties"]["outputs"]["items"]
    info = msgspec.inspect.type_info(native._Output)
    assert info.forbid_unknown_fields and item["additionalProperties"] is False
    assert {f.name for f in info.fields} == set(item["properties"]) == set(item["required"])
    fields = {f.name: f.type for f in info.fields}
    assert fields["path"].min_length == item["properties"]["path"]["minLength"]
    assert fields["sha256"].pattern == item["properties"]["sha256"]["pattern"]
    assert {f.name: f.type.ge for f in msgspec.inspect.type_info(native._Worker).fields if f.name == "pid"} == {
        "pid": THEN["worker"]["properties"]["pid"]["minimum"]}


def test_the_shipped_receipt_lines_are_vouched_for_and_modelled_as_the_reference_models_them():
    texts = (ROOT / "examples" / "ref2va-5s" / "receipts.jsonl").read_text().splitlines()
    assert texts
    fast, slow = vouched(texts), reference(texts)
    assert fast is not None and slow is not None
    assert _model(fast) == _model(slow)


NAMES = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,12}\Z")
TIMES = st.one_of(
    st.datetimes(timezones=st.just(None)).map(lambda d: d.isoformat(timespec="microseconds") + "Z"),
    st.sampled_from(["2024-02-29T23:59:59Z", "2026-01-01T00:00:00.123456789Z", "2026-01-01t00:00:00z",
                     "2026-01-01T00:00:00+05:30", "2026-12-31T23:59:59.5-00:00", "0001-01-01T00:00:00Z",
                     "9999-12-31T23:59:59.999999999+23:59"]))
ELAPSED = st.one_of(st.integers(1, 10**6), st.decimals(min_value=Decimal("1e-9"), max_value=Decimal(10**6), places=6),
                    st.sampled_from(["0.005", "1e-3", "2.50E+1", "1.0", "7"]))
SHA = st.text("0123456789abcdefABCDEF", min_size=64, max_size=64)
TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=8)  # no control character: JSON writes it as a `\\u` escape


@st.composite
def valid_line(draw: st.DrawFn) -> dict:
    """A valid receipt line: a request (outputs, optional fields) or a worker; `elapsed_s` as a literal (`_Raw`)."""
    if draw(st.booleans()) or draw(st.booleans()):
        line = {"kind": "request", "request_id": draw(NAMES), "arm": draw(NAMES), "server": draw(NAMES),
                "phase": draw(st.sampled_from(["warmup", "measured"])), "started_at": draw(TIMES), "ended_at": draw(TIMES),
                "elapsed_s": _Raw(str(draw(ELAPSED))), "outcome": draw(st.sampled_from(["ok", "failed", "timeout"])),
                "outputs": draw(st.lists(st.fixed_dictionaries({"path": TEXT.filter(bool), "sha256": SHA}), max_size=2))}
        for key, values in (("http_status", st.one_of(st.none(), st.integers(-1000, 1000))), ("error", st.one_of(st.none(), TEXT))):
            if draw(st.booleans()):
                line[key] = draw(values)
        return line
    line = {"kind": "worker", "worker_id": draw(NAMES), "arm": draw(NAMES), "server": draw(NAMES), "pid": draw(st.integers(1, 2**31)),
            "started_at": draw(TIMES), "ended_at": draw(st.one_of(st.none(), TIMES)),
            "exit_code": draw(st.one_of(st.none(), st.integers(-255, 255)))}
    if draw(st.booleans()):
        line["signal"] = draw(st.one_of(st.none(), st.integers(1, 64)))
    return line


ODD = st.sampled_from([
    None, True, False, 0, -1, 1, 10**400, "", " ", "x\n", ".x", "a/b", "\u00e9", "2026-02-29T00:00:00Z", "2026-01-01T24:00:00Z",
    "2026-01-01T23:59:60Z", "2026-01-01T00:00:00", "2026-01-01 00:00:00Z", "0000-01-01T00:00:00Z", "2026-01-01T00:00:00Z\n",
    _Raw("1e400"), _Raw("1e-400"), _Raw("0.0"), _Raw("-0.5"), _Raw("1" * 320), _Raw("1.0"), _Raw("1E2"), _Raw("2"), [], {}, [{}],
    {"path": "p", "sha256": "0" * 64, "x": 1}, [{"path": "", "sha256": "0" * 64}], [{"path": "p", "sha256": "0" * 63 + "g"}],
    "request", "worker", "warmup", "ok", _Raw('"\\u0041"'), _Raw('"a\\u003ab"'), _Raw('"\\ud800"'), _Raw("[" * 70 + "]" * 70)])


#: Near misses of each field: values a constraint of the schema refuses, next to ones it accepts.
NEAR = {
    "kind": ["Request", "request ", "process", None], "phase": ["Measured", "warmup ", "run"], "outcome": ["OK", "error", "timeout\n"],
    "pid": [0, -1, 2, 2**63, _Raw("1.0"), _Raw("1e0"), "1", True], "exit_code": [_Raw("0.0"), "0", False, 2**64], "signal": [_Raw("9.0"), "9", True],
    "http_status": [_Raw("200.0"), "200", True, 10**30, _Raw("-0")], "error": [0, False, [], {}],
    "elapsed_s": [0, _Raw("0.0"), _Raw("0e5"), _Raw("-0.001"), _Raw("1e-400"), _Raw("1e400"), _Raw("1.7976931348623157e308"),
                  _Raw("1e-300"), _Raw("5e-324"), "0.5", True, None, [1], _Raw("9" * 310)],
    "outputs": [None, {}, [None], [{"path": "p"}], [{"path": "p", "sha256": "0" * 64 + "\n"}], [{"path": "p", "sha256": "A" * 65}],
                [{"path": "\n", "sha256": "f" * 64}], [{"sha256": "f" * 64, "path": "p", "path ": "q"}]],
    "started_at": ["2026-01-01T00:00:00.Z", "2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2100-02-29T00:00:00Z",
                   "2000-02-29T00:00:00Z", "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00+05:60", "2026-01-01T00:00Z",
                   "2026-01-01T00:00:00.5", "+2026-01-01T00:00:00Z", "20260101T000000Z", "1969-12-31T23:59:59.999999999Z",
                   "1677-01-01T00:00:00Z", "2263-01-01T00:00:00Z"],
    "request_id": ["a b", "-a", "_", "a_", "A.-", "é", "a\n", "\na", "a\x00b", ""],
}
NEAR["ended_at"] = NEAR["started_at"] + [None]
NEAR["worker_id"] = NEAR["arm"] = NEAR["server"] = NEAR["request_id"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A valid line's text, mutated: a value replaced (by a near miss of its field or an odd value), a field dropped or added, a key stated twice, the text cut or spaced."""
    line = draw(valid_line())
    how = draw(st.sampled_from(["none", "near", "near", "near", "value", "drop", "extra", "duplicate", "text"]))
    key = draw(st.sampled_from(sorted(line)))
    if how == "near":
        key = draw(st.sampled_from(sorted(set(line) & set(NEAR))))
        line[key] = draw(st.sampled_from(NEAR[key]))
    elif how == "value":
        line[key] = draw(ODD)
    elif how == "drop":
        del line[key]
    elif how == "extra":
        line[draw(st.sampled_from(["stdout", "x", "kind ", "Kind", "pid", "request_id", "worker_id", "outputs"]))] = draw(ODD)
    text = _dumps(line)
    if how == "duplicate":
        text = stated_twice(text, key, draw(st.one_of(ODD, st.just(line[key]))))
    elif how == "text":
        text = draw(damaged(text))
    return text


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(valid_line().map(_dumps), max_size=2), mutated(), st.integers(0, 2))
def test_what_vouch_accepts_the_reference_accepts_and_models_alike(texts, text, at):
    """Valid lines and one mutated line (one bad line sends its whole batch to the reference, which would hide a second)."""
    texts = texts[:at] + [text] + texts[at:]
    fast = vouched(texts)
    if fast is None:
        return
    slow = reference(texts)
    assert slow is not None, texts
    assert _model(fast) == _model(slow)


@settings(max_examples=150, deadline=None)
@given(st.lists(valid_line().map(_dumps), min_size=1, max_size=6))
def test_valid_lines_are_vouched_for(texts):
    """The pre-filter is worth having: valid lines in the shape producers write (no final newline in a name, upper-case T and Z) pass it."""
    assert reference(texts) is not None
    fast = vouched(texts)
    assert fast is not None, texts
    assert _model(fast) == _model(reference(texts))


@pytest.mark.parametrize("text", [
    '{"kind":"request","request_id":"a","request_id":"b","arm":"A","server":"s","phase":"measured","started_at":"2026-01-01T00:00:00Z",'
    '"ended_at":"2026-01-01T00:00:01Z","elapsed_s":1,"outcome":"ok","outputs":[]}',
    '{"kind":"request","request_id":"a\\u003ab","arm":"A","server":"s","phase":"measured","started_at":"2026-01-01T00:00:00Z",'
    '"ended_at":"2026-01-01T00:00:01Z","elapsed_s":1,"outcome":"ok","outputs":[]}',
    '{"kind":"request","request_id":"a","arm":"A","server":"s","phase":"measured","started_at":"2026-02-30T00:00:00Z",'
    '"ended_at":"2026-01-01T00:00:01Z","elapsed_s":1,"outcome":"ok","outputs":[]}',
    '{"kind":"request","request_id":"a\\n","arm":"A","server":"s","phase":"measured","started_at":"2026-01-01T00:00:00Z",'
    '"ended_at":"2026-01-01T00:00:01Z","elapsed_s":1,"outcome":"ok","outputs":[]}',
    '{"kind":"worker","worker_id":"w","arm":"A","server":"s","pid":1,"started_at":"2026-01-01T00:00:00Z","ended_at":null,'
    f'"exit_code":{"9" * 320}}}',
    '{"kind":"request","request_id":"a","arm":"A","server":"s","phase":"measured","started_at":"2026-01-01T00:00:00Z",'
    '"ended_at":"2026-01-01T00:00:01Z","elapsed_s":0.0,"outcome":"ok","outputs":[]}',
    '{"kind":"worker","worker_id":"w","arm":"A","server":"s","pid":0,"started_at":"2026-01-01T00:00:00Z","ended_at":null,"exit_code":0}',
])
def test_what_vouch_cannot_vouch_for_goes_to_the_reference(text):
    """A duplicate key, a `\\u` escape, a date that is not one, a name with a final newline (valid: Python's `$`), an integer past binary64, bounds."""
    assert vouched([text]) is None


def test_a_receipts_file_judged_by_another_schema_is_read_the_reference_way():
    builder = ReceiptLines("receipts.jsonl")
    assert builder.vouch_for(SCHEMA) is not None
    stricter = json.loads(json.dumps(SCHEMA))
    stricter["allOf"][0]["then"]["properties"]["request_id"]["maxLength"] = 3
    assert builder.vouch_for(stricter) is None


def test_a_bad_time_after_many_good_ones_is_refused_in_time_linear_in_the_lines():
    """`_all_match` once backtracked into every earlier time (3 ways to read a year): 16 lines took a minute, a batch of 4096 forever."""
    import subprocess
    import sys

    line = {"kind": "request", "request_id": "r", "arm": "A", "server": "s", "phase": "measured", "elapsed_s": 1, "outcome": "ok",
            "started_at": "2026-01-01t00:00:00z", "ended_at": "2026-01-01T00:00:01Z", "outputs": []}  # lower case: read by the pattern
    good = [json.dumps({**line, "request_id": f"r{i}"}) for i in range(4000)]
    bad = json.dumps({**line, "request_id": "x", "started_at": "2026-02-30t00:00:00z"})
    code = ("import sys, json; from verifier.readers.native import ReceiptLines; texts = json.load(sys.stdin); "
            "print(ReceiptLines('receipts.jsonl').vouch(0, texts))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(good + [bad]), capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert done.stdout.strip() == "False", done.stderr


def _long_batch(lines: list[dict], at: int, text: str) -> list[str]:
    """`native.FIXED_FROM` request lines of the common UTC shape (their times read a column at a time) with `lines` and `text` among them."""
    from verifier.model.evidence import FIXED_FROM

    base = [_dumps({"kind": "request", "request_id": f"r{i}", "arm": "A", "server": "s", "phase": "measured",
                    "started_at": f"2026-01-01T00:00:{i % 60:02d}.{i:06d}Z", "ended_at": f"2026-01-01T00:01:{i % 60:02d}.{i:06d}Z",
                    "elapsed_s": _Raw("0.5"), "outcome": "ok", "outputs": []}) for i in range(FIXED_FROM)]
    texts = base[:at] + [_dumps(line) for line in lines] + base[at:]
    return texts[:at] + [text] + texts[at:]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(valid_line(), max_size=3), mutated(), st.integers(0, 70))
@example([], '\ufeff"kind":"worker","worker_id":"0","arm":"0","server":"0","pid":1,"started_at":"2000-01-01T00:00:00Z","ended_at":null,'
         '"exit_code":null}', 0)  # a byte order mark opens the file: the reference refuses it whole (raises)
def test_a_batch_long_enough_to_read_its_times_a_column_at_a_time_is_vouched_for_as_the_reference_reads_it(lines, text, at):
    """From `FIXED_FROM` request lines the times are read a column at a time (`fixed_instants`): one near miss still sends the batch away."""
    texts = _long_batch(lines, at, text)
    fast = vouched(texts)
    slow = reference(texts)
    if fast is None:  # declined (it may decline valid lines): the reference reads them
        return
    assert slow is not None, texts
    assert _model(fast) == _model(slow)


@pytest.mark.parametrize("time", ["2026-02-29T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:59:60Z", "0000-01-01T00:00:00Z",
                                  "2026-01-01T00:00:00.Z", "2026-13-01T00:00:00Z", "2026-04-31T00:00:00.000000Z"])
@pytest.mark.parametrize("field", ["started_at", "ended_at"])
def test_a_time_that_is_no_date_time_in_a_long_batch_is_not_vouched_for(time, field):
    line = json.loads(_long_batch([], 0, "{}")[1])
    line[field] = time
    assert vouched(_long_batch([], 5, json.dumps(line))) is None


def test_a_long_batch_of_valid_lines_with_times_of_every_shape_is_vouched_for_as_the_reference_reads_it():
    texts = _long_batch([], 3, "{}")[:3] + _long_batch([], 3, "{}")[4:]
    for k, time in enumerate(["2026-01-01t00:00:00z", "2026-01-01T00:00:00+05:30", "2024-02-29T23:59:59.123456789Z", "1600-01-01T00:00:00Z"]):
        line = json.loads(texts[k])
        line["started_at"] = time
        texts[k] = json.dumps(line)
        fast, slow = vouched(texts), reference(texts)
        assert fast is not None and slow is not None
        assert _model(fast) == _model(slow)
