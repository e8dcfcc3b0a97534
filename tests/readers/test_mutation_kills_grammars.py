"""Kill tests for `verifier/readers/grammars.py` (cosmic-ray session `tools/cosmic-ray/readers_grammars.toml`, docs/testing.md)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from verifier.readers.grammars import GrammarError, parse

RUNS = b'{"runs": [{"a": 1}, {"a": 2}], "meta": {"b": 1}}'


def _error(data: bytes, spec: dict) -> tuple[str, str]:
    with pytest.raises(GrammarError) as caught:
        parse(data, spec)
    return caught.value.code, str(caught.value)


def test_json_records_pointer_takes_an_array_and_refuses_an_object():
    """Kills :130 AddNot and :130 ReplaceUnaryOperator_Delete_Not (an array refused, an object taken)."""
    assert parse(RUNS, {"encoding": "json", "records": "/runs"}) == [("/runs/0", {"a": 1}), ("/runs/1", {"a": 2})]
    assert _error(RUNS, {"encoding": "json", "records": "/meta"}) == ("missing-records", "'/meta' is not an array of records")


def test_text_bench_lines_with_members_of_give_one_record_per_benchmark():
    """Kills :135 ReplaceComparisonOperator_Eq_NotEq (a text file with `members_of` read as one record)."""
    data = b"test a ... bench:       1,234 ns/iter (+/- 56)\ntest b ... bench:       7 ns/iter (+/- 1)\n"
    assert parse(data, {"encoding": "text", "lines": ["libtest-bench"], "records": {"members_of": ""}}) == [
        ("/a", {"#key": "a", "ns_per_iter": Decimal(1234), "deviation_ns": Decimal(56)}),
        ("/b", {"#key": "b", "ns_per_iter": Decimal(7), "deviation_ns": Decimal(1)}),
    ]


def test_prefixed_jsonl_names_lines_from_one():
    """Kills :158 NumberReplacer (line numbers from 0) and :161 AddNot (every good line refused)."""
    spec = {"encoding": "jsonl", "prefix": ":::X "}
    assert parse(b'noise\n:::X {"k": 1}\n', spec) == [("#line=2", {"k": 1})]
    assert _error(b'noise\n:::X {"k": 1}\n:::X {"k": \n', spec) == (
        "bad-line",
        "line 3: a ':::X' line is not strict JSON: not valid JSON: Expecting value at line 1 column 7",
    )


def test_csv_shape_error_names_the_row_by_its_place_in_the_file():
    """Kills :177 NumberReplacer (header file: rows named from 1) and :179 NumberReplacer (`columns` file: rows named from 2)."""
    assert _error(b"a,b\n1,2\n3\n", {"encoding": "csv"}) == ("csv-shape", "row 3 has 1 cells, the header names 2")
    assert _error(b"3\n1,2\n", {"encoding": "csv", "columns": ["a", "b"]}) == ("csv-shape", "row 1 has 1 cells, the header names 2")
    assert parse(b"a,b\n1,2\n", {"encoding": "csv"}) == [("#row=1", {"a": "1", "b": "2"})]


def test_a_label_stating_its_own_value_before_assignments():
    """
    Kills :206 ReplaceComparisonOperator_IsNot_Is, :206 AddNot, :206 ReplaceAndWithOr #4 and #6.

    MLPerf whisper's `Word Error Rate: 2.0671%, accuracy=97.9329%` gives the label's value and the assignments; a labelled
    line whose first piece holds an "=" but is no assignment (`a=b=c`), with or without a comma, states nothing.
    """
    spec = {"encoding": "text", "lines": ["assignments"]}
    assert parse(b"Word Error Rate: 2.0671%, accuracy=97.9329%\n", spec) == [("", {"Word Error Rate": "2.0671%", "accuracy": "97.9329%"})]
    assert parse(b"Accuracy: a=b=c, x=1\nAccuracy: a=b=c\nScore: 5\n", spec) == [("", {})]


def test_fold_pointers_of_several_tokens_and_of_the_whole_document():
    """
    Kills :255 AddNot and :255 ReplaceComparisonOperator_Eq_NotEq (a two-token key read as its first member; a key ""
    indexed), and :370 NumberReplacer (a value pointer "" taken for a one-member pointer: IndexError).
    """
    line = b':::X {"a": {"b": "name"}, "v": 1}\n'
    base = {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::X "}
    assert parse(line, {**base, "fold": {"key": "/a/b", "value": "/v"}}) == [("", {"name": 1})]
    assert parse(line, {**base, "fold": {"key": "", "value": "/v"}}) == [("", {"{'a': {'b': 'name'}, 'v': 1}": 1})]
    assert parse(b':::X {"key": "a", "v": 1}\n', {**base, "fold": {"key": "/key", "value": ""}}) == [("", {"a": {"key": "a", "v": 1}})]


def test_a_python_dict_line_must_end_with_its_closing_brace():
    """Kills :294 ReplaceAndWithOr (`{'a': 1} # note`, which `ast.literal_eval` reads as a dict, taken as a dict line)."""
    spec = {"encoding": "text", "lines": ["json-object", "python-dict", "assignments", "key-value"]}
    assert parse(b"{'a': 1} # note\nx: 2\n", spec) == [("", {"x": "2"})]
    assert parse(b"{'a': 1}\n", spec) == [("", {"a": 1})]


def test_an_unknown_line_grammar_is_a_grammar_error():
    """Kills :305 AddNot and :307 AddNot (an unknown grammar read as assignments or as key-value)."""
    for line in (b"a=1\n", b"a: 1\n"):
        assert _error(line, {"encoding": "text", "lines": ["nonsense"]}) == ("unknown-grammar", "line 1: unknown line grammar 'nonsense'")


def test_a_file_that_is_not_utf8_is_a_grammar_error_naming_the_offset():
    """Kills :95 ExceptionReplacer (the UnicodeDecodeError escaping as a traceback)."""
    assert _error(b"a: 1\nb: \xff\n", {"encoding": "text"}) == ("not-utf8", "not UTF-8 at byte offset 8")


def test_a_benchmark_stated_twice_with_members_of_is_conflicting_members():
    """Kills :137 AddNot (every text file with `members_of` refused, one with a conflict taken)."""
    data = b"test a ... bench:       1,234 ns/iter (+/- 56)\ntest a ... bench:       7 ns/iter (+/- 1)\n"
    assert _error(data, {"encoding": "text", "lines": ["libtest-bench"], "records": {"members_of": ""}}) == (
        "conflicting-members",
        "members stated twice with different values: {'a': [1, 2]} (member -> line numbers)",
    )


def test_unfolded_prefixed_json_lines_give_their_objects_only():
    """Kills :272 AddNot (an object line read as nothing, an array or number line as members)."""
    spec = {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::X "}
    assert parse(b':::X {"a": 1}\n:::X [1]\n:::X 2\n', spec) == [("", {"a": 1})]


def test_folded_prefixed_json_without_a_prefix_reads_no_line():
    """Kills :367 ReplaceUnaryOperator_Delete_Not (no `prefix` taken as the empty prefix: every JSON line folded)."""
    spec = {"encoding": "text", "lines": ["prefixed-json"], "fold": {"key": "/key", "value": "/value"}}
    assert parse(b'{"key": "a", "value": 1}\n', spec) == [("", {})]


def test_json_lines_are_named_from_line_one():
    """Kills :115 NumberReplacer (line numbers from 2)."""
    assert parse(b'{"a": 1}\n{"a": 2}\n', {"encoding": "jsonl"}) == [("#line=1", {"a": 1}), ("#line=2", {"a": 2})]


def test_text_members_of_a_pointer_naming_nothing_is_missing_records():
    """Kills :141 ExceptionReplacer (the MembersError escaping as a traceback)."""
    assert _error(b"a: 1\nb: 2\n", {"encoding": "text", "records": {"members_of": "/x"}}) == ("missing-records", "no records at '/x'")


def test_csv_rows_of_blank_cells_are_no_rows():
    """Kills :170 ReplaceAndWithOr (a row of empty or blank cells kept as a record or refused for its shape)."""
    assert parse(b"a,b\n1,2\n,\n \n", {"encoding": "csv"}) == [("#row=1", {"a": "1", "b": "2"})]


def test_fold_value_pointer_of_two_tokens():
    """Kills :255 NumberReplacer #26 (a two-token value pointer read as its first member)."""
    spec = {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::X ", "fold": {"key": "/k", "value": "/v/w"}}
    assert parse(b':::X {"k": "a", "v": {"w": 1}}\n', spec) == [("", {"a": 1})]


def test_unpivot_passes_over_a_record_that_is_no_object():
    """Kills :531 ReplaceContinueWithBreak (a number among the records ending the unpivot)."""
    spec = {"encoding": "json", "records": "", "unpivot": {"columns": {"c1": "L1", "c2": "L2"}, "dimension": "dim", "keep": ["id"]}}
    assert parse(b'[1, {"id": "x", "c1": "5", "c2": ""}]', spec) == [
        ("/1&column=c1", {"id": "x", "dim": "L1", "value": "5"}),
        ("/1&column=c2", {"id": "x", "dim": "L2"}),
    ]


def test_json_records_pointer_naming_nothing_is_missing_records():
    """Kills :128 ExceptionReplacer (the KeyError escaping as a traceback)."""
    assert _error(RUNS, {"encoding": "json", "records": "/nope"}) == ("missing-records", "no records at '/nope'")


def test_fold_pointer_past_the_end_of_an_array_is_a_bad_line():
    """Kills :240 ReplaceComparisonOperator_Lt_LtE (index == length: an IndexError traceback instead of `bad-line`)."""
    spec = {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::X "}
    line = b':::X {"a": ["x"], "v": 1}\n'
    assert parse(line, {**spec, "fold": {"key": "/a/0", "value": "/v"}}) == [("", {"x": 1})]
    assert _error(line, {**spec, "fold": {"key": "/a/1", "value": "/v"}}) == ("bad-line", "line 1: a ':::X' line lacks {'key': '/a/1', 'value': '/v'}")


def test_a_json_object_line_is_read_as_json():
    """Kills :283 ReplaceUnaryOperator_Delete_Not (every object line refused: `true` is no Python literal, so nothing reads it)."""
    spec = {"encoding": "text", "lines": ["json-object", "python-dict", "assignments", "key-value"]}
    assert parse(b'{"ok": true, "x": 0.10000000000000001}\n', spec) == [("", {"ok": True, "x": Decimal("0.10000000000000001")})]


def test_folded_prefixed_json_beside_other_line_grammars_reads_every_grammar():
    """Kills :367 AddNot (the folded fast path taken for `lines` other than `["prefixed-json"]`: the key-value line lost)."""
    spec = {"encoding": "text", "lines": ["prefixed-json", "key-value"], "prefix": ":::X ", "fold": {"key": "/key", "value": "/value"}}
    assert parse(b':::X {"key": "a", "value": 1}\nb: 2\n', spec) == [("", {"a": 1, "b": "2"})]


def test_json_members_of_a_pointer_naming_nothing_is_missing_records():
    """Kills :123 ExceptionReplacer (the MembersError escaping as a traceback)."""
    assert _error(RUNS, {"encoding": "json", "records": {"members_of": "/nope"}}) == ("missing-records", "no records at '/nope'")
