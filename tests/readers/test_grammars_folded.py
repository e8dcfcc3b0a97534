"""
Tests of `text` records (`verifier.readers.grammars._text_record`) of folded `PREFIX {json}` lines (LoadGen's `:::MLLOG` lines) and of `key : value` files, by examples.

Each example file is written out with the record it reads to, or the
`GrammarError` (code and message) it is refused with: good, conflicting,
equal-but-differently-written, non-object, member-lacking, non-strict and
unprefixed lines, under each kind of fold (one-token members, array
indices, escaped names, two-token members); a member stated with values
that differ is left out and named in `#conflicts` with every line stating
it. The corpus's detail and summary logs read without refusal.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import CORPUS

from verifier.readers import grammars
from verifier.readers.grammars import GrammarError

MLLOG = {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::MLLOG ", "fold": {"key": "/key", "value": "/value"}}
KEY_VALUE = {"encoding": "text", "lines": ["key-value"]}


def _outcome(text: str, spec: dict):
    """`("ok", repr(record))` (so `1` and `Decimal("1.0")`, and the members' order, differ) or `("refused", code, message)`."""
    try:
        record = grammars._text_record(text, spec)
    except GrammarError as exc:
        return ("refused", exc.code, str(exc))
    return ("ok", repr(record))


def _lines(*lines: str, end: str = "\n") -> str:
    return end.join(lines)


_LACKS = "a ':::MLLOG' line lacks {'key': '/key', 'value': '/value'}"
_NOT_STRICT = "a ':::MLLOG' line is not strict JSON: "


@pytest.mark.parametrize("text, expected", [
    ("", ("ok", {})),
    (_lines(':::MLLOG {"key": "a", "value": 1}', ':::MLLOG {"key": "a", "value": 1.0}', ':::MLLOG {"key": "b", "value": null}',
            "Samples per second: 5", ':::MLLOG {"value": 3, "key": "c", "metadata": {"file": "x.cc"}}', ""),
     ("ok", {"a": Decimal("1.0"), "b": None, "c": 3})),  # an equal value written otherwise: the later is kept; an unprefixed line is skipped
    (_lines(':::MLLOG  {"key": "c", "value": 3}', ':::MLLOG {"key": "e", "value": [1, {"f": 2}]}\t', ':::MLLOG\t{"key": "d", "value": 4}',
            ' :::MLLOG {"key": "d", "value": 4}'),
     ("ok", {"c": 3, "e": [1, {"f": 2}]})),  # whitespace around the JSON is JSON's; a line not starting with the prefix is not read
    (_lines(':::MLLOG {"key": "a", "value": 1}', ':::MLLOG {"key": "a", "value": 2}', ':::MLLOG {"key": "a", "value": true}',
            ':::MLLOG {"key": 5, "value": "x"}', ':::MLLOG {"key": "5", "value": "y"}', ':::MLLOG {"key": "5", "value": "x"}', end="\r\n"),
     ("ok", {"#conflicts": {"a": [1, 2, 3], "5": [4, 5, 6]}})),  # a key that is not a string is read as its text
    (_lines(':::MLLOG {"key": "a", "value": 1}', ':::MLLOG {"key": "a", "value": 1.0}', ':::MLLOG {"key": "a", "value": true}',
            ':::MLLOG {"key": "a", "value": 2}', ':::MLLOG {"key": "a", "value": 1}'),
     ("ok", {"#conflicts": {"a": [1, 4, 5]}})),  # the first line stating it, then every line after the conflict
    (_lines(':::MLLOG {"key": "a", "value": 1}', ':::MLLOG {"key": "b", "value": 1}', ':::MLLOG {"key": "c", "value": 1}',
            ':::MLLOG {"key": "b", "value": 2}', ':::MLLOG {"key": "c", "value": 1}', ':::MLLOG {"key": "a", "value": 2}', ':::MLLOG {"key": "b", "value": 3}'),
     ("ok", {"c": 1, "#conflicts": {"b": [2, 4, 7], "a": [1, 6]}})),  # conflicts named in the order they are met, not first stated
    (_lines(':::MLLOG {"key": "g", "value": {"h": [1, 2.50]}, "time_ms": 1.5}', ':::MLLOG {"key": "g", "value": {"h": [1, 2.5]}, "time_ms": 2.5}',
            ':::MLLOG {"key": "#conflicts", "value": 0}', ':::MLLOG {"key": true, "value": 1}', ':::MLLOG {"key": "True", "value": 2}',
            ':::MLLOG {"key": [1], "value": 1}', ':::MLLOG {"key": "[1]", "value": 3}', ':::MLLOG {"key": {"k": 1}, "value": 1}'),
     ("ok", {"g": {"h": [1, Decimal("2.5")]}, "#conflicts": {"True": [4, 5], "[1]": [6, 7]}, "{'k': 1}": 1})),
    (_lines(':::MLLOG ["a", 1]', ':::MLLOG {"key": "c", "value": 3}'), ("refused", "bad-line", "line 1: " + _LACKS)),  # not an object
    (_lines(':::MLLOG {"key": "a", "value": 1}', ':::MLLOG 7'), ("refused", "bad-line", "line 2: " + _LACKS)),
    (_lines(':::MLLOG {"key": "a", "value": 1}', ':::MLLOG {"key": "b"}'), ("refused", "bad-line", "line 2: " + _LACKS)),
    (_lines(':::MLLOG {"key": "a", "value": 1}', ':::MLLOG {"key": "a", "key": "b", "value": 1}'),
     ("refused", "bad-line", "line 2: " + _NOT_STRICT + "duplicate key 'key'")),
    (':::MLLOG {"key": "a", "value": NaN}', ("refused", "bad-line", "line 1: " + _NOT_STRICT + "non-finite number NaN is not JSON")),
    (':::MLLOG {"key": "a", "value": 1e999}', ("refused", "bad-line", "line 1: " + _NOT_STRICT + "number 1e999 is outside the binary64 range")),
    (':::MLLOG \ufeff{"key": "a", "value": 1}',
     ("refused", "bad-line", "line 1: " + _NOT_STRICT + "starts with a byte order mark, which JSON forbids (RFC 8259 section 8.1)")),
    (':::MLLOG {"key": "a", "value": 1} x', ("refused", "bad-line", "line 1: " + _NOT_STRICT + "not valid JSON: Extra data at line 1 column 26")),
    (":::MLLOG nope", ("refused", "bad-line", "line 1: " + _NOT_STRICT + "not valid JSON: Expecting value at line 1 column 1")),
    (":::MLLOG ", ("refused", "bad-line", "line 1: " + _NOT_STRICT + "not valid JSON: Expecting value at line 1 column 1")),
], ids=lambda v: repr(v)[:40] if isinstance(v, str) else None)
def test_mllog_lines_read_to_their_record(text, expected):
    assert _outcome(text, MLLOG) == (expected if expected[0] == "refused" else ("ok", repr(expected[1])))


@pytest.mark.parametrize("fold, text, expected", [
    ({"key": "/0", "value": "/1"}, _lines(':::MLLOG ["h", 5]', ':::MLLOG {"0": "g", "1": 4}', ':::MLLOG ["h", 5.0, 7]', ':::MLLOG ["g", 6]',
                                          ':::MLLOG {"0": 5, "1": "x"}', ':::MLLOG [5, "x"]', ':::MLLOG {"0": 7, "1": "x"}', ':::MLLOG ["7", "y"]'),
     {"h": Decimal("5.0"), "5": "x", "#conflicts": {"g": [2, 4], "7": [7, 8]}}),  # array indices and member names alike; a key read as its text
    ({"key": "/a~1b", "value": "/value"}, _lines(':::MLLOG {"a/b": "k", "value": 2}', ':::MLLOG {"value": 3, "a/b": "j"}'), {"k": 2, "j": 3}),
    ({"key": "/metadata/file", "value": "/value"},
     _lines(':::MLLOG {"key": "z", "value": 2, "metadata": {"file": "x.cc"}}', ':::MLLOG {"key": "y", "value": 3, "metadata": {"file": "y.cc"}}',
            ':::MLLOG {"key": "y", "value": 4, "metadata": {"file": "y.cc"}}'),
     {"x.cc": 2, "#conflicts": {"y.cc": [2, 3]}}),
    ({"key": "/key", "value": "/metadata/file"},
     _lines(':::MLLOG {"key": "z", "value": 2, "metadata": {"file": "x.cc"}}', ':::MLLOG {"key": "y", "value": 3, "metadata": {"file": "y.cc"}}',
            ':::MLLOG {"key": "z", "metadata": {"file": "x.cc"}}'),
     {"z": "x.cc", "y": "y.cc"}),
], ids=lambda v: f"{v['key']}->{v['value']}" if isinstance(v, dict) and "key" in v else None)
def test_each_kind_of_fold_reads_its_members(fold, text, expected):
    assert _outcome(text, {**MLLOG, "fold": fold}) == ("ok", repr(expected))
    lacking = text + "\n:::MLLOG {}"
    assert _outcome(lacking, {**MLLOG, "fold": fold}) == ("refused", "bad-line", f"line {text.count(chr(10)) + 2}: a ':::MLLOG' line lacks {fold}")


def test_the_corpus_detail_logs_read_to_their_members():
    """Every `:::MLLOG` detail log of the MLPerf tree: 86 to 89 members, LoadGen's repeated `generic_message` its one conflict."""
    paths = sorted(CORPUS.glob("mlperf-inference-test-submissions-v5.0/*/*/results/*/*/*/performance/run_1/mlperf_log_detail.txt"))
    assert len(paths) == 38
    for path in paths:
        record = grammars._text_record(path.read_text(), MLLOG)
        assert 86 <= len(record) <= 89 and list(record["#conflicts"]) == ["generic_message"], path
        assert isinstance(record["result_validity"], str) and isinstance(record["loadgen_version"], str), path
    first = grammars._text_record(paths[0].read_text(), MLLOG)  # retinanet, Offline, onnxruntime on CPU
    assert (first["effective_scenario"], first["result_samples_per_second"], first["result_validity"], first["#conflicts"]) == (
        "Offline", Decimal("0.421941"), "VALID", {"generic_message": [60, 65]})

def test_a_lacking_or_broken_folded_line_is_refused():
    for line, message in ((':::MLLOG {"key": "b"}', "lacks"), (':::MLLOG {"key": "a", "key": "b", "value": 1}', "duplicate key"),
                          (':::MLLOG  {"key": "a", "value": 1e999}', "outside the binary64 range")):
        with pytest.raises(GrammarError) as exc:
            grammars._text_record(':::MLLOG {"key": "a", "value": 1}\n' + line, MLLOG)
        assert exc.value.code == "bad-line" and message in str(exc.value)


@pytest.mark.parametrize("text, expected", [
    (_lines("Samples per second: 5", "Samples per second : 5.0", "Mean latency (ns): 10", "Result is : VALID", "  spaced key  :  spaced value  ",
            "no colon here", "", "   "),
     {"Mean latency (ns)": "10", "Result is": "VALID", "spaced key": "spaced value", "#conflicts": {"Samples per second": [1, 2]}}),
    (_lines("a: b: c", "a:", ": b", "= x: 1", "{a: 1", "[a: 1", "Scenario: Offline", "Scenario: Server\r", "Scenario: Offline"),
     {"a": "b: c", "#conflicts": {"Scenario": [7, 8, 9]}}),  # split at the first colon; no key, no value or a bracket: not a member
    ("a\u00a0: b\na\x0bb: c\nx\u2028y: z", {"a": "b", "b": "c", "y": "z"}),  # every line break `str.splitlines` knows parts lines
    ("Scenario: Offline\nMode: PerformanceOnly\n", {"Scenario": "Offline", "Mode": "PerformanceOnly"}),
    ("Scenario: Offline\nScenario: Offline\nMode: x\nScenario: Server\nScenario: Offline", {"Mode": "x", "#conflicts": {"Scenario": [1, 4, 5]}}),
], ids=lambda v: repr(v)[:40] if isinstance(v, str) else None)
def test_key_value_lines_read_to_their_record(text, expected):
    assert _outcome(text, KEY_VALUE) == ("ok", repr(expected))


def test_the_corpus_summary_logs_read_to_their_members():
    paths = sorted(CORPUS.glob("mlperf-inference-test-submissions-v5.0/*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt"))
    assert len(paths) == 38
    for path in paths:
        record = grammars._text_record(path.read_text(), KEY_VALUE)
        assert "#conflicts" not in record and record["Result is"] in ("VALID", "INVALID"), path
    first = grammars._text_record(paths[0].read_text(), KEY_VALUE)
    assert list(first.items())[:5] == [("SUT name", "QueueSUT"), ("Scenario", "Offline"), ("Mode", "PerformanceOnly"),
                                       ("Samples per second", "0.421941"), ("Result is", "VALID")]


def test_a_text_file_read_with_no_line_grammar_has_no_members():
    assert grammars._text_record("a: b\nc=d\n{}", {"encoding": "text", "lines": []}) == {}
