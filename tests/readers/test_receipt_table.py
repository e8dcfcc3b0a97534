"""The request receipts as columns (`verifier.model.evidence.ReceiptTable`) and the campaign's index of them (issue 40)."""

from __future__ import annotations

from array import array
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier.readers.campaign import Campaign, RequestIndex, elapsed, select
from verifier.model.evidence import (NO_INSTANT, Location, Output, Plan, PlannedRequest, PlannedRequests, Quantity, Receipt, ReceiptTable,
                               TextColumn, TimeColumn,
                               instant, parse_time)
from verifier.readers.native import from_documents

LINES = [
    {"kind": "worker", "worker_id": "w1", "server": "s1", "arm": "a", "exit_code": 0, "started_at": "2026-01-01T00:00:00Z"},
    {"kind": "request", "request_id": "r1", "server": "s1", "arm": "a", "phase": "measured", "outcome": "ok",
     "started_at": "2026-01-01T00:00:01Z", "ended_at": "2026-01-01T00:00:02.5Z", "elapsed_s": Decimal("1.50"),
     "outputs": [{"path": "out/r1.wav", "sha256": "ab" * 32}], "http_status": 200},
    {"kind": "request", "request_id": "r2", "server": "s1", "arm": "a", "phase": "warmup", "outcome": "timeout",
     "started_at": "2026-01-01T00:00:03Z", "ended_at": "2026-01-01T00:00:04Z", "elapsed_s": 1, "error": "deadline"},
    {"kind": "request", "request_id": "r1", "server": "s1", "arm": "a", "phase": "measured", "outcome": "ok",
     "started_at": "2026-01-01T00:00:05Z", "ended_at": "2026-01-01T00:00:06Z", "elapsed_s": Decimal("1.0")},
]


def _table() -> ReceiptTable:
    evidence = from_documents({"receipts": LINES}, manifest=None, names={"receipts": "receipts.jsonl"})
    assert isinstance(evidence.receipts, ReceiptTable)
    return evidence.receipts


def test_a_row_is_the_receipt_its_line_records():
    table = _table()
    assert len(table) == 3 and table.index.tolist() == [1, 2, 3]  # the worker line is not a row; rows keep their line
    assert table[0] == Receipt(
        dims={"request_id": "r1", "arm": "a", "server": "s1", "phase": "measured"},
        quantities={"elapsed": Quantity(Decimal("1.50"), "s", written="1.50")}, location=Location("receipts.jsonl", "/1"),
        ok=True, outputs=(Output("out/r1.wav", "ab" * 32),), started_at="2026-01-01T00:00:01Z", ended_at="2026-01-01T00:00:02.5Z",
        outcome="ok", http_status=200)
    second = table[1]
    assert (second.ok, second.outcome, second.error, second.outputs, second.location.pointer) == (False, "timeout", "deadline", (), "/2")
    assert second.quantities["elapsed"] == Quantity(Decimal(1), "s", written="1")
    assert table[-1] == table[2] and table[-1].location.pointer == "/3"
    assert [table.pointer(k) for k in range(3)] == ["/1", "/2", "/3"]  # the line's, not the row's
    assert [r.dims["request_id"] for r in table] == ["r1", "r2", "r1"]
    assert table[1:] == (table[1], table[2])
    with pytest.raises(IndexError):
        table[3]


def test_the_outputs_of_the_rows_are_the_models_output_media_and_a_boolean_is_no_elapsed_time():
    lines = [*LINES, {"kind": "request", "request_id": "r4", "elapsed_s": True, "outcome": "ok"}]
    plan = {"arms": [], "servers": [], "requests": [], "expected_output": {"fps": "24"}}
    evidence = from_documents({"receipts": lines, "plan": plan}, manifest=None, names={"receipts": "receipts.jsonl"})
    assert [(m.path, m.role, dict(m.expected)) for m in evidence.media] == [("out/r1.wav", "output", {"fps": "24"})]
    assert evidence.receipts.seconds(3) is None and evidence.receipts[3].quantities["elapsed"] is None


def test_a_table_is_equal_to_the_tuple_of_its_rows_and_rebuilt_from_them():
    table = _table()
    assert table == tuple(table) and table != tuple(table)[:2]
    again = ReceiptTable.of(tuple(table))
    assert again == table and again.index.tolist() == [1, 2, 3] and again.file == "receipts.jsonl"
    assert ReceiptTable.of(table) is table
    assert len(ReceiptTable.of(())) == 0 and ReceiptTable.of(()).file == "receipts.jsonl"


def test_a_receipt_without_a_numbered_pointer_keeps_its_position():
    receipts = [Receipt(dims={"request_id": "x"}, quantities={"elapsed": None}, location=Location("runs/a.jsonl", "")),
                Receipt(dims={}, quantities={"elapsed": Quantity(Decimal(2000), "ms")}, location=Location("runs/a.jsonl", "/7"))]
    table = ReceiptTable.of(receipts)
    assert table.index.tolist() == [0, 7] and table.file == "runs/a.jsonl"
    assert table.seconds(0) is None and table.seconds(1) == Decimal(2)
    assert elapsed(table, 1) == Decimal(2)
    with pytest.raises(ValueError, match="runs/a.jsonl /0 has no elapsed time"):
        elapsed(table, 0)


def test_the_index_files_every_receipt_under_its_request_id_in_the_order_read():
    index = RequestIndex(_table())
    assert list(index) == ["r1", "r2"] and len(index) == 2 and "r1" in index and "r3" not in index
    assert index.first == {"r1": 0, "r2": 1} and index.more == {"r1": [2]}
    assert index.rows("r1") == [0, 2] and index.rows("r3") == [] and index.count("r1") == 2 and index.count("r3") == 0
    assert [r.location.pointer for r in index["r1"]] == ["/1", "/3"]
    assert index.get("r3", []) == []
    with pytest.raises(KeyError):
        index["r3"]


def test_a_receipt_without_a_request_id_is_filed_under_the_empty_id():
    table = ReceiptTable("r.jsonl")
    table.add(0, None, "s", "a", "measured", "ok", 1, None, None, None, None)
    table.add(1, "", "s", "a", "measured", "ok", 1, None, None, None, None)
    assert RequestIndex(table).first == {"": 0} and RequestIndex(table).more == {"": [1]}


def test_select_gives_the_first_row_of_each_planned_request_and_names_the_missing():
    plan = Plan(arms={"a": "baseline"}, servers={"s1": "a"},
                requests=(PlannedRequest("r1", "s1", "measured"), PlannedRequest("r2", "s1", "warmup"), PlannedRequest("r9", "s1", "measured")))
    c = Campaign(plan=plan, receipts=_table(), arm_of_server={"s1": "a"})
    c.planned_on = {"s1": [0, 1, 2]}
    assert select(c, {}) == (array("q", [0, 1]), ["r9"])
    assert select(c, {"phase": "measured"}) == (array("q", [0]), ["r9"])
    assert select(c, {"outcome": "ok"}) == (array("q", [0]), ["r9"])  # the denominator stays the plan: r2 is selected out, not missing
    assert select(c, {"server": "s1", "arm": "a", "outcome": "timeout"}) == (array("q", [1]), ["r9"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3", None]), st.sampled_from(["ok", "error"]),
                          st.one_of(st.none(), st.decimals(min_value=0, max_value=100, places=3))), max_size=12))
def test_the_index_agrees_with_grouping_the_rows(rows):
    table = ReceiptTable("r.jsonl")
    for k, (rid, outcome, value) in enumerate(rows):
        table.add(k, rid, "s", "a", "measured", outcome, value, None, None, None, None)
    index = RequestIndex(table)
    grouped: dict[str, list[int]] = {}
    for k, (rid, _outcome, _value) in enumerate(rows):
        grouped.setdefault(rid or "", []).append(k)
    assert {rid: index.rows(rid) for rid in index} == grouped
    assert [r.dims.get("request_id") for r in table] == [rid for rid, _o, _v in rows]
    assert [sorted(r.dims) for r in table] == [sorted({"arm", "server", "phase"} | ({"request_id"} if rid is not None else set()))
                                               for rid, _o, _v in rows]  # a dimension not recorded is absent, not None
    assert [r.ok for r in table] == [outcome == "ok" for _r, outcome, _v in rows]
    assert [table.seconds(k) for k in range(len(table))] == [None if v is None else Decimal(v) for _r, _o, v in rows]


def test_planned_request_ids_are_copied_out_of_the_parsed_plan():
    """Memory (issue 40): the model keeps no string of the parsed plan, so the plan's memory is returned whole once dropped."""
    from verifier.readers.native import plan_of

    doc = {"arms": [{"id": "a"}], "servers": [{"id": "s1", "arm": "a"}],
           "requests": [{"id": "r-1", "server": "s1", "phase": "measured"}, {"id": "x", "server": "s1", "phase": "warmup"},
                        {"id": "", "server": "s1", "phase": "warmup"}]}
    plan = plan_of(doc, "plan.json")
    assert [r.id for r in plan.requests] == ["r-1", "x", ""]
    assert plan.requests[0].id is not doc["requests"][0]["id"]


def test_workers_and_lines_of_other_kinds_keep_their_line():
    lines = [*LINES, {"kind": "heartbeat"}, {"kind": "worker", "worker_id": "w2", "exit_code": 1}]
    evidence = from_documents({"receipts": lines}, manifest=None, names={"receipts": "run.jsonl"})
    assert [(w.name, w.location.file, w.location.pointer) for w in evidence.processes] == [("w1", "run.jsonl", "/0"), ("w2", "run.jsonl", "/5")]
    assert [(u.what, u.where.file, u.where.pointer) for u in evidence.unmapped] == [("receipt of kind 'heartbeat'", "run.jsonl", "/4")]


def test_a_plan_timeout_is_in_the_unit_its_name_states():
    from verifier.readers.native import plan_of

    plan = plan_of({"timeouts": {"request_s": 30, "reservation_min": Decimal("1.5"), "stop_ms": None, "flag_s": True}}, "plan.json")
    assert plan.timeouts == {"request_s": Quantity(Decimal(30), "s", written="30"), "reservation_min": Quantity(Decimal("1.5"), "min", written="1.5")}


@pytest.mark.parametrize("line", [[1, 2], "text", None, 3, {"kind": "request", "outputs": [{"nopath": 1}, 7]},
                                  {"kind": "request", "outputs": "x", "outcome": ["ok"], "server": {"a": 1}}])
def test_a_line_of_a_file_that_changed_while_read_is_modelled_without_failing(line):
    """A receipts file that changes mid-read is refused after its last line (`Bundle.records`); until then the builders only must not fail."""
    from verifier.readers.native import PlannedLines, ReceiptLines

    built = ReceiptLines.of([LINES[1], line], "receipts.jsonl")
    assert len(built.table) + len(built.processes) + len(built.unmapped) == 2
    assert [r.request_id for r in [built.table]][0][0] == "r1"
    assert len(PlannedLines.of([{"id": "a", "server": "s", "phase": "measured"}, line], "plan-requests.jsonl").requests) == 1


def test_elapsed_seconds_are_the_numbers_held_not_copies():
    """Memory (issue 40): a derivation over 10^6 rows holds the table's `Decimal`s, not a copy of each; an int is made a `Decimal`."""
    table = _table()
    assert table.seconds(0) is table.elapsed[0] and type(table.seconds(1)) is Decimal and table.seconds(1) == 1


# --- the timestamp columns (`TextColumn`, `TimeColumn`): exact text, instants the checks order and subtract ---

_TEXTS = st.one_of(st.none(), st.text(max_size=30), st.integers(), st.just(""), st.just("2026-01-01T00:00:01.5Z"))


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, max_size=40))
def test_a_text_column_gives_back_every_value_exactly_as_appended(values):
    column = TextColumn(values)
    assert len(column) == len(values)
    assert list(column) == values and [column[i] for i in range(len(values))] == values
    assert [column[i] for i in range(-len(values), 0)] == values
    assert column[1:3] == values[1:3]
    with pytest.raises(IndexError):
        column[len(values)]


def test_a_text_column_holds_ascii_text_as_bytes_and_the_rest_as_itself():
    column = TextColumn(["2026-01-01T00:00:01Z", None, "", "é", 5, "b"])
    assert bytes(column.blob) == b"2026-01-01T00:00:01Zb" and column.other == {2: "", 3: "é", 4: 5}  # None is an empty span
    assert column.ends.tolist() == [20, 20, 20, 20, 20, 21]


_INSTANTS = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30),
                         timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]))


def _nanoseconds_since_epoch(text: str) -> int:
    """The rule, written out: whole seconds from the text without its fraction, then the fraction's first nine digits as nanoseconds."""
    import re

    head, digits, zone = re.fullmatch(r"(.{19})(?:\.([0-9]+))?(Z|[+-][0-9]{2}:[0-9]{2})", text).groups()
    whole = datetime.fromisoformat(head + ("+00:00" if zone == "Z" else zone))
    return (whole - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(seconds=1) * 10**9 + int(((digits or "") + "0" * 9)[:9])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_INSTANTS, st.text("0123456789", max_size=12)), min_size=1, max_size=20), st.booleans())
def test_a_time_column_holds_each_rows_instant_to_the_nanosecond(moments, zulu):
    texts = [m.replace(microsecond=0).isoformat()[:19] + (f".{digits}" if digits else "") + m.isoformat()[-6:] for m, digits in moments]
    if zulu:
        texts = [t.replace("+00:00", "Z") for t in texts]
    column = TimeColumn(texts)
    assert list(column) == texts
    expected = [_nanoseconds_since_epoch(t) for t in texts]
    assert [column.instant(i) for i in range(len(texts))] == [instant(t) for t in texts] == expected
    assert column.at.tolist() == [n if -(2**63) < n < 2**63 else NO_INSTANT for n in expected]  # 1677 to 2262 in the array


@pytest.mark.parametrize(("text", "nanos"), [("2026-01-01T00:00:00.1234567Z", 123456700), ("2026-01-01T00:00:00.12345678Z", 123456780),
                                             ("2026-01-01T00:00:00.123456789123Z", 123456789), ("2026-01-01T00:00:00.123456+05:30", 123456000),
                                             ("2026-01-01T00:00:00+05:30", 0), ("2026-01-01T00:00:00.1Z", 100000000)])
def test_the_fraction_is_read_to_its_ninth_digit(text, nanos):
    batched = TimeColumn()
    batched.extend([text])  # a batch of lines: the same digits
    assert TimeColumn([text]).at[0] % 10**9 == batched.at[0] % 10**9 == instant(text) % 10**9 == nanos


def test_a_time_column_reads_what_only_parse_time_reads_when_asked_and_fails_as_it_fails():
    column = TimeColumn(["2026-01-01T00:00:01z", None, "2026-13-01T00:00:00Z", "2026-01-01T00:00:00.000001Z"])
    assert column.at.tolist() == [NO_INSTANT, NO_INSTANT, NO_INSTANT, 1767225600000001000]
    assert column.instant(0) == 1767225601000000000  # lower-case "z": UTC
    with pytest.raises(TypeError):
        column.instant(1)  # no text: the check that needs an instant fails as parse_time(None) fails
    with pytest.raises(ValueError):
        column.instant(2)


def test_a_tables_timestamps_are_time_columns_of_its_rows():
    table = _table()
    assert isinstance(table.started_at, TimeColumn) and list(table.started_at) == [
        "2026-01-01T00:00:01Z", "2026-01-01T00:00:03Z", "2026-01-01T00:00:05Z"]
    assert table.ended_at.at.tolist()[0] - table.started_at.at.tolist()[0] == 1_500_000_000


# --- the plan's requests as columns (`PlannedRequests`) ---


def test_planned_requests_are_columns_equal_to_the_tuple_of_their_rows():
    rows = (PlannedRequest("r1", "s1", "warmup"), PlannedRequest("r2", "s1", "measured"), PlannedRequest("r1", "s2", "measured"),
            PlannedRequest("r3", "s2", "measured"), PlannedRequest("r1", "s1", "measured"))
    requests = PlannedRequests(rows)
    assert requests == rows and tuple(requests) == rows and list(requests) == list(rows) and requests != list(rows)
    assert (requests.id, requests.server, requests.phase) == (["r1", "r2", "r1", "r3", "r1"], ["s1", "s1", "s2", "s2", "s1"],
                                                              ["warmup", "measured", "measured", "measured", "measured"])
    assert len(requests) == 5 and requests[1] == rows[1] and requests[-1] == rows[-1] and requests[1:3] == rows[1:3]
    assert requests.repeated == {"r1": 3} and requests.last == {"r1": 4}  # listed three times, last at row 4
    assert PlannedRequests.of(requests) is requests and PlannedRequests.of(rows) == requests
    with pytest.raises(IndexError):
        requests[5]
    assert requests.repeated == {"r1": 3}
    requests.append("r3", "s1", "measured")
    assert requests.repeated == {"r1": 3, "r3": 2} and requests.last == {"r1": 4, "r3": 5}  # found again after appending
    assert PlannedRequests().repeated == {} and len(PlannedRequests()) == 0
    by_columns = PlannedRequests(columns=(["a", "b", "a"], ["s", "s", "t"], ["warmup", "measured", "measured"]))
    assert by_columns == (PlannedRequest("a", "s", "warmup"), PlannedRequest("b", "s", "measured"), PlannedRequest("a", "t", "measured"))
    assert (by_columns.repeated, by_columns.last) == ({"a": 2}, {"a": 2})


def test_the_plans_requests_are_modelled_as_columns_with_one_str_per_server_and_phase():
    plan = {"arms": [], "servers": [], "requests": [{"id": f"r{i}", "server": "s" + "1", "phase": "meas" + "ured"} for i in range(3)]}
    requests = from_documents({"plan": plan}, manifest=None, names={}).plan.requests
    assert isinstance(requests, PlannedRequests) and requests.id == ["r0", "r1", "r2"]
    assert len({id(s) for s in requests.server}) == 1 and len({id(p) for p in requests.phase}) == 1


def test_a_time_column_keeps_what_is_no_ascii_text_as_itself_and_no_entry_for_none():
    values = ["2026-01-01T00:00:01Z", None, "", "2026-01-01T00:00:02é", 5, "2026-01-01T00:00:03Z"]
    column = TimeColumn(values)
    assert list(column) == values and [column[i] for i in range(6)] == values
    assert column.other == {2: "", 3: "2026-01-01T00:00:02é", 4: 5}  # None is an empty span, not an entry
    assert bytes(column.blob) == b"2026-01-01T00:00:01Z2026-01-01T00:00:03Z"
    assert column.at.tolist() == [1767225601000000000, NO_INSTANT, NO_INSTANT, NO_INSTANT, NO_INSTANT, 1767225603000000000]


def test_the_plans_own_id_objects_are_shared_and_a_repeat_still_found():
    ids = ["r" + str(i) for i in (1, 2, 1)]
    requests = PlannedRequests(columns=(ids, ["s"] * 3, ["measured"] * 3))
    own = requests.own()
    assert own == {"r1": "r1", "r2": "r2"} and own["r1"] is ids[2] and own["r2"] is ids[1]  # the last listing's object
    assert requests.repeated == {"r1": 2} and requests.last == {"r1": 2}
    unique = PlannedRequests(columns=(["a", "b"], ["s", "s"], ["measured", "measured"]))
    assert unique.own() == {"a": "a", "b": "b"} and unique.repeated == {} and unique.last == {}


def test_receipt_ids_the_plan_lists_are_the_plans_str_objects():
    plan = {"arms": [], "servers": [], "requests": [{"id": "r" + "1", "server": "s1", "phase": "measured"},
                                                     {"id": "r" + "2", "server": "s1", "phase": "warmup"}]}
    evidence = from_documents({"plan": plan, "receipts": LINES}, manifest=None, names={})
    planned = evidence.plan.requests
    assert evidence.receipts.request_id == ["r1", "r2", "r1"]
    assert [rid is planned.id[0] for rid in evidence.receipts.request_id] == [True, False, True]
    assert evidence.receipts.request_id[1] is planned.id[1]
    alone = from_documents({"receipts": LINES}, manifest=None, names={})  # no plan: the ids as read
    assert alone.receipts.request_id == ["r1", "r2", "r1"]


def test_receipt_ids_are_shared_with_a_plan_shards_ids_and_the_map_is_dropped_when_done():
    from verifier.readers.native import PlannedLines, ReceiptLines

    shard = PlannedLines.of([{"id": "".join(["r", "1"]), "server": "s1", "phase": "measured"}], "plan-requests.jsonl")  # not interned
    plan = Plan(arms={}, servers={}, requests_file="plan-requests.jsonl")
    built = ReceiptLines.of([LINES[1], {**LINES[2], "request_id": 7}], "receipts.jsonl", {"plan": plan, "plan_requests": shard})
    assert built.table.request_id[0] is shard.requests.id[0] and built.table.request_id[1] == "7"  # any JSON id as text
    assert built._planned is None  # the map of planned ids is not held once the lines are read
    unsharded = ReceiptLines.of([LINES[1]], "receipts.jsonl", {"plan": plan})  # the shard is not modelled: nothing to share
    assert unsharded.table.request_id == ["r1"] and unsharded.table.request_id[0] is not shard.requests.id[0]


# --- a batch of lines at a time (issue 40): `extend` is `append` of each, whatever the split ---

def _instant_texts(moments: list[tuple[datetime, str]], zulu: bool) -> list[str]:
    texts = [m.replace(microsecond=0).isoformat()[:19] + (f".{digits}" if digits else "") + m.isoformat()[-6:] for m, digits in moments]
    return [t.replace("+00:00", "Z") for t in texts] if zulu else texts


def _columns(column: TextColumn) -> tuple:
    return bytes(column.blob), column.ends.tolist(), column.other, getattr(column, "at", None) and column.at.tolist(), list(column)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_INSTANTS, st.text("0123456789", max_size=12)), max_size=20), st.booleans(),
       st.lists(_TEXTS, max_size=6), st.lists(st.integers(0, 30), max_size=4), st.booleans())
@example([], False, ["00010101000"], [], True)  # read by fromisoformat as a naive datetime (no offset): no instant (found by CI's draw)
@example([], False, ["2026-01-01T00:00:00", "2026-01-01T00:00:00Z"], [], True)  # a text without its offset beside one with it
def test_extending_a_column_is_appending_each_value(moments, zulu, others, cuts, mixed):
    """Whole batches of instants (every year 1 to 9999, zones, 0 to 12 digits of fraction) and batches with other values in them."""
    values = _instant_texts(moments, zulu) + (others if mixed else [])
    for kind in (TextColumn, TimeColumn):
        one_by_one = kind()
        for value in values:
            one_by_one.append(value)
        batched = kind()
        start = 0
        for cut in sorted(cuts) + [len(values)]:
            batched.extend(values[start:max(start, cut)])
            start = max(start, cut)
        batched.extend(values[start:])
        assert _columns(batched) == _columns(one_by_one) == _columns(kind(values))


def test_a_batch_of_instants_past_2262_keeps_the_others_and_marks_those_with_no_instant():
    column = TimeColumn()
    column.extend(["2026-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1677-09-21T00:12:43.145224192Z", "1677-09-21T00:12:43.145224191Z"])
    assert column.at.tolist() == [1767225600000000000, NO_INSTANT, -(2**63), NO_INSTANT]
    assert column.instant(1) == instant("9999-12-31T23:59:59Z") and column.instant(3) == -(2**63) - 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([*LINES, {"kind": "other"}, [1], None, {"kind": "request", "request_id": 7, "outputs": [{"path": "p"}, 3]},
                                 {"kind": "request", "server": 5, "arm": None, "phase": "warmup", "outcome": ["x"], "elapsed_s": True,
                                  "started_at": "2026-01-01T00:00:01.123456789Z", "ended_at": None, "outputs": []}]), max_size=12),
       st.lists(st.integers(0, 12), max_size=3))
def test_receipt_lines_fed_in_batches_model_what_they_model_fed_at_once(lines, cuts):
    from verifier.readers.native import ReceiptLines

    whole = ReceiptLines.of(lines, "receipts.jsonl")
    batched = ReceiptLines("receipts.jsonl")
    start = 0
    for cut in sorted(cuts) + [len(lines)]:
        batched.extend(start, lines[start:max(start, cut)])
        start = max(start, cut)
    batched.done()
    for built in (whole, batched):
        assert len(built.table) + len(built.processes) + len(built.unmapped) == len(lines)
    table, other = batched.table, whole.table
    assert tuple(table) == tuple(other) and table.outputs == other.outputs and table.index.tolist() == other.index.tolist()
    assert (batched.processes, batched.unmapped) == (whole.processes, whole.unmapped)
    rows = [k for k, line in enumerate(lines) if type(line) is dict and line.get("kind") == "request"]
    assert table.index.tolist() == rows  # each row keeps its line, across batches
    assert all(table[k].outputs == tuple(Output(o.get("path"), o.get("sha256")) for o in (lines[row].get("outputs") or [])
                                         if type(o) is dict) for k, row in enumerate(rows) if type(lines[row].get("outputs")) is list)


def test_a_builder_fed_a_stream_takes_it_a_batch_at_a_time():
    """A model built from a second stream (a cached schema result: `bundle.Lines`) holds one batch of parsed lines, not the file."""
    from verifier.readers import native

    sizes: list[int] = []

    class Counting(native.ReceiptLines):
        __slots__ = ()

        def extend(self, first: int, records: list) -> None:
            sizes.append((first, len(records)))
            super().extend(first, records)

    built = Counting.of((LINES[1] for _ in range(2 * native._FED + 3)), "receipts.jsonl")
    assert sizes == [(0, native._FED), (native._FED, native._FED), (2 * native._FED, 3)]
    assert built.table.index.tolist() == list(range(2 * native._FED + 3))


def test_a_timestamp_without_an_offset_has_no_instant_in_a_batch_or_alone():
    """RFC 3339 requires an offset; a naive text (a reader's or a file changed while read) is NO_INSTANT, never a TypeError."""
    batched, alone = TimeColumn(), TimeColumn(["2026-01-01T00:00:00"])
    batched.extend(["2026-01-01T00:00:00Z", "2026-01-01T00:00:00", "00010101000"])
    assert batched.at.tolist() == [1767225600000000000, NO_INSTANT, NO_INSTANT] and alone.at.tolist() == [NO_INSTANT]


def _copy(text: str) -> str:
    """A new `str` object equal to `text` (not the object the plan holds)."""
    return text[:1] + text[1:]  # a new object for two characters or more (the ids below); "" is one object in any case


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["r1", "r2", "r3", "r4"]), max_size=8), st.booleans(),
       st.lists(st.sampled_from(["r1", "r2", "r3", "r5", "", None]), max_size=10))
@example(["r1", "r1"], True, ["r1", "r2", "r1"])
def test_the_plan_join_is_the_index_of_the_ids_whether_the_reader_shared_them_or_not(plan_ids, one_object, receipt_ids):
    """`PlanJoin` (arrays; by object when the reader shares the plan's ids, by a dict when not) agrees with `RequestIndex` (issue 40)."""
    from verifier.readers.campaign import PlanJoin

    objects: dict[str, str] = {}
    listed = [objects.setdefault(rid, _copy(rid)) if one_object else _copy(rid) for rid in plan_ids]  # an id listed twice: one object or two
    requests = PlannedRequests(columns=(listed, ["s1"] * len(listed), ["measured"] * len(listed)))
    plan = Plan(arms={"a": "baseline"}, servers={"s1": "a"}, requests=requests)
    lines = [{"kind": "request", "server": "s1", "arm": "a", "phase": "measured", "outcome": "ok", "elapsed_s": 1,
              "started_at": "2026-01-01T00:00:01Z", "ended_at": "2026-01-01T00:00:02Z", "outputs": [],
              **({} if rid is None else {"request_id": _copy(rid)})} for rid in receipt_ids]
    shared = from_documents({"plan": plan, "receipts": lines}, manifest=None, names={}).receipts
    assert shared.shares is requests
    alone = from_documents({"receipts": lines}, manifest=None, names={}).receipts
    assert alone.shares is None
    index = RequestIndex(alone)
    want_at = [index.first.get(rid, -1) for rid in plan_ids]
    want_first = [index.first["" if rid is None else rid] == row for row, rid in enumerate(receipt_ids)]
    want_unplanned = {rid: row for rid, row in index.first.items() if rid not in plan_ids}
    want_firsts = {rid: index.first[rid] for rid in index.more}
    for table in (shared, alone):
        join = PlanJoin(table, requests)
        assert join.at.tolist() == want_at
        assert join.first.tolist() == want_first and join.first_rows.tolist() == sorted(index.first.values())
        assert join.more == index.more and join.firsts == want_firsts and join.unplanned == want_unplanned
        assert [join.first_of(row, rid) for row, rid in enumerate(receipt_ids)] == [index.first["" if rid is None else rid] for rid in receipt_ids]


def test_conformance_and_the_derivations_build_no_index_of_every_receipt_id():
    """Plan conformance and `select` read the campaign's `PlanJoin`: no dict of 10^6 ids (about 70 MB, issue 40)."""
    from pathlib import Path

    from verifier.checks import plan as pl
    from verifier.engine.pipeline import Context, RunData

    plan = {"format": "verify-plan", "format_version": 1, "campaign": "c", "frozen_at": "2026-01-01T00:00:00Z",
            "arms": [{"id": "a", "label": "A", "role": "baseline", "revision": "r0"}], "servers": [{"id": "s1", "arm": "a"}],
            "arm_order": ["A"], "warmups_per_server": 0, "measured_per_server": 2,
            "requests": [{"id": "r1", "server": "s1", "phase": "measured"}, {"id": "r2", "server": "s1", "phase": "measured"}]}
    lines = [{**LINES[1], "outputs": []}, {**LINES[1], "outputs": [], "request_id": "r2", "started_at": "2026-01-01T00:00:03Z",
                                            "ended_at": "2026-01-01T00:00:04.5Z"}]
    model = from_documents({"plan": plan, "receipts": lines}, manifest=None, names={})
    c = Campaign.build(model)
    ctx = Context(subject=Path("."), assets=None, run=RunData(evidence=model, campaign=c))
    assert [f.code for f in pl.conformance(ctx)] == ["requests", "timing", "outputs", "workers"]
    assert select(c, {"phase": "measured"}) == (array("q", [0, 1]), [])
    assert c._requests is None
    assert list(c.requests) == ["r1", "r2"]  # built when asked for


# --- `fixed_instants`: a batch of timestamps of one UTC shape read a column at a time (issue 40) ---

#: Texts of the fixed shape, then each character possibly replaced: digits that make no date (month 13, day 31 of
#: a short month, 29 February of a common year, hour 24, second 60, year 0 or past 2262), other separators, a lower-case
#: "z" or "t", an offset, a dropped or added character.
_FIXED = st.builds(lambda m, digits: m.replace(microsecond=0, tzinfo=None).isoformat() + (f".{digits}" if digits is not None else "") + "Z",
                   st.one_of(st.datetimes(min_value=datetime(1670, 1, 1), max_value=datetime(2270, 12, 31)),
                             st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31))),
                   st.one_of(st.none(), st.text("0123456789", max_size=12)))


@st.composite
def _fixed_batches(draw):
    texts = draw(st.lists(_FIXED, min_size=1, max_size=8))
    edits = draw(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 40), st.sampled_from(["", "0", "1", "2", "3", "6", "9", "z", "t", "T", "Z",
                                                                                             "+", ":", ".", "-", "+05:30", "é", "٣"])), max_size=3))
    for row, at, char in edits:
        if row < len(texts):
            text = texts[row]
            texts[row] = text[:at] + char + text[at + 1:]
    return texts


@settings(max_examples=800, deadline=None)
@given(_fixed_batches(), st.booleans())
@example(["2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z"], False)  # no 29 February in a common year
@example(["1900-02-29T23:59:59Z"], False)
@example(["2000-02-29T23:59:59.5Z"], False)  # by 400: a leap year
@example(["2026-01-01T00:00:00.Z"], False)  # fromisoformat reads it; the date-time format does not
@example(["1677-12-31T23:59:59Z", "2262-01-01T00:00:00Z"], False)
@example(["2026-01-01T00:00:00Z", None], False)
def test_fixed_instants_are_the_instants_of_each_text_or_none(texts, whole):
    """Whenever `fixed_instants` answers, it is each row's `_instant_or_none`, and each row matches the `date-time` pattern."""
    import re

    from verifier.schema.compiled_schema import DATE_TIME_PATTERN
    from verifier.model.evidence import _instant_or_none, fixed_instants

    values = texts if whole else texts[:1]
    at = fixed_instants(values)
    plain = all(type(t) is str and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z", t, re.ASCII) for t in values)
    if at is None:  # only what is not one plain shape, or names no instant it computes, is left to the rows
        assert not plain or len({len(t) for t in values}) > 1 or any(_instant_or_none(t) == NO_INSTANT or not 1678 <= int(t[:4]) <= 2261 for t in values)
        return
    assert at.tolist() == [_instant_or_none(t) for t in values]
    assert all(re.fullmatch(DATE_TIME_PATTERN.removesuffix("\\z") + "$", t) for t in values)


def test_a_long_batch_of_timestamps_is_read_a_column_at_a_time_with_the_instants_of_its_rows():
    from verifier.model.evidence import FIXED_FROM

    texts = [f"2026-03-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{i % 60:02d}.{i:09d}Z" for i in range(FIXED_FROM + 5)]
    batched, one_by_one = TimeColumn(), TimeColumn()
    batched.extend(texts)
    for text in texts:
        one_by_one.append(text)
    assert _columns(batched) == _columns(one_by_one)
    mixed = TimeColumn()
    mixed.extend(texts[:-1] + ["2026-02-30T00:00:00.000000000Z"])  # one row no date: the batch is read row by row
    assert mixed.at.tolist() == one_by_one.at.tolist()[:-1] + [NO_INSTANT]
