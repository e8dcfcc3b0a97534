"""
Tests that the folded `PREFIX {json}` loop of `verifier.grammars._members` (LoadGen's `:::MLLOG` lines) reads exactly as the reader loop it stands for.

The former `_text_record` (each line through its readers, members merged
into one record, conflicts named with their lines) is kept here as the
spec; generated files of good, conflicting, equal-but-differently-written,
non-object, member-lacking, non-strict and unprefixed lines must give the
same record or the same `GrammarError` (code and message) through both.
"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from conftest import CORPUS

from verifier import grammars
from verifier.grammars import GrammarError

MLLOG = {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::MLLOG ", "fold": {"key": "/key", "value": "/value"}}


def _former(text: str, spec: dict) -> dict:
    """`_text_record` before the folded loop: every line through `_line_readers` (a refused line named by its number, as `_members` names it)."""
    record: dict = {}
    lines_of: dict = {}
    conflicts: dict = {}
    readers = grammars._line_readers(spec)
    for number, line in enumerate(text.splitlines(), start=1):
        for read in readers:
            try:
                members = read(line)
            except GrammarError as exc:  # since 5 Dec 2026 a refused line is named by its number
                raise GrammarError(exc.code, f"line {number}: {exc}") from None
            if members is None:
                continue
            for key, value in members.items():
                if key in conflicts:
                    conflicts[key].append(number)
                elif key in record and record[key] != value:
                    conflicts[key] = [lines_of[key], number]
                    del record[key]
                else:
                    record[key] = value
                    lines_of.setdefault(key, number)
            break
    if conflicts:
        record["#conflicts"] = {key: lines for key, lines in conflicts.items()}
    return record


def _outcome(read, text: str, spec: dict):
    try:
        record = read(text, spec)
    except GrammarError as exc:
        return ("refused", exc.code, str(exc))
    return ("ok", repr(record), [type(v).__name__ for v in record.values()])


_LINES = [
    ':::MLLOG {"key": "a", "value": 1}',
    ':::MLLOG {"key": "a", "value": 1.0}',  # equal to 1, written otherwise: the later value is kept
    ':::MLLOG {"key": "a", "value": true}',  # True == 1 as well
    ':::MLLOG {"key": "a", "value": 2}',  # a conflict
    ':::MLLOG {"key": 5, "value": "x"}',  # a key that is not a string: str(5)
    ':::MLLOG {"key": "b", "value": null}',
    ':::MLLOG {"key": "e", "value": [1, {"f": 2}]}',
    ':::MLLOG {"value": 3, "key": "c", "metadata": {"file": "x.cc"}}',
    ':::MLLOG  {"key": "c", "value": 3}',  # whitespace after the prefix: still strict JSON
    ':::MLLOG {"key": "c", "value": 3}\t',
    ':::MLLOG ["a", 1]',  # not an object
    ':::MLLOG 7',
    ':::MLLOG {"0": "g", "1": 4}',
    ':::MLLOG {"key": "b"}',  # lacks the value member
    ':::MLLOG {"key": "a", "key": "b", "value": 1}',  # duplicate key: not strict JSON
    ':::MLLOG {"key": "a", "value": NaN}',
    ':::MLLOG {"key": "a", "value": 1e999}',
    ':::MLLOG \ufeff{"key": "a", "value": 1}',
    ':::MLLOG {"key": "a", "value": 1} x',
    ":::MLLOG nope",
    ":::MLLOG ",
    ':::MLLOG\t{"key": "d", "value": 4}',  # not the prefix
    ' :::MLLOG {"key": "d", "value": 4}',
    "Samples per second: 5",
    "",
]
_FOLDS = [
    {"key": "/key", "value": "/value"},
    {"key": "/0", "value": "/1"},  # one member each, also an array index: a list line is read by the reader's walk
    {"key": "/a~1b", "value": "/value"},  # an escaped member name
    {"key": "/metadata/file", "value": "/value"},  # two tokens: the reader loop
    {"key": "/key", "value": "/metadata/file"},
]


@pytest.mark.parametrize("fold", _FOLDS, ids=lambda f: f"{f['key']}->{f['value']}")
def test_folded_lines_read_as_the_reader_loop(fold):
    rng = random.Random(fold["key"] + fold["value"])
    spec = {**MLLOG, "fold": fold}
    outcomes = set()
    for _ in range(3000):
        lines = [rng.choice(_LINES[:13] if rng.random() < 0.7 else _LINES) for _ in range(rng.randint(0, 10))]
        if fold["key"] == "/0":
            lines = [line.replace('["a", 1]', '["h", 5]') for line in lines]
        text = ("\r\n" if rng.random() < 0.2 else "\n").join(lines) + rng.choice(["", "\n"])
        expected = _outcome(_former, text, spec)
        assert _outcome(grammars._text_record, text, spec) == expected, text
        outcomes.add(expected[0] if expected[0] == "ok" else expected[1])
        if expected[0] == "ok" and "#conflicts" in expected[1]:
            outcomes.add("conflict")
    assert {"ok", "bad-line"} <= outcomes
    if fold == MLLOG["fold"]:
        assert "conflict" in outcomes


def test_the_corpus_detail_logs_read_as_the_reader_loop():
    for path in sorted(CORPUS.glob("mlperf-inference-test-submissions-v5.0/*/*/results/*/*/*/performance/run_1/mlperf_log_detail.txt")):
        text = path.read_text()
        assert _outcome(grammars._text_record, text, MLLOG) == _outcome(_former, text, MLLOG), path


def test_a_lacking_or_broken_line_is_refused_by_the_folded_loop_as_by_the_reader():
    for line, message in ((':::MLLOG {"key": "b"}', "lacks"), (':::MLLOG {"key": "a", "key": "b", "value": 1}', "duplicate key"),
                          (':::MLLOG  {"key": "a", "value": 1e999}', "outside the binary64 range")):
        with pytest.raises(GrammarError) as exc:
            grammars._text_record(':::MLLOG {"key": "a", "value": 1}\n' + line, MLLOG)
        assert exc.value.code == "bad-line" and message in str(exc.value)


#: Lines of members stated again and again: several conflicting members (one a number key read as its string), chains of
#: equal values written otherwise, and members stated once; every line an object holding both fold members.
_REPEATED = [
    ':::MLLOG {"key": "a", "value": 1}',
    ':::MLLOG {"key": "a", "value": 1.0}',
    ':::MLLOG {"key": "a", "value": true}',
    ':::MLLOG {"key": "a", "value": 2}',
    ':::MLLOG {"key": "c", "value": "x"}',
    ':::MLLOG {"key": "c", "value": "y"}',
    ':::MLLOG {"key": 5, "value": "x"}',
    ':::MLLOG {"key": "5", "value": "y"}',
    ':::MLLOG {"key": "5", "value": "x"}',
    ':::MLLOG {"key": "#conflicts", "value": 0}',
    ':::MLLOG {"key": true, "value": 1}',  # keys of other types, read as their strings ("True", "1", "{'k': 1}", "[1]")
    ':::MLLOG {"key": "True", "value": 2}',
    ':::MLLOG {"key": 1, "value": 1}',
    ':::MLLOG {"key": {"k": 1}, "value": 1}',
    ':::MLLOG {"key": [1], "value": 1}',
    ':::MLLOG {"key": "[1]", "value": 3}',
    ':::MLLOG {"key": "g", "value": {"h": [1, 2.50]}, "time_ms": 1.5}',
    ':::MLLOG {"key": "g", "value": {"h": [1, 2.5]}, "time_ms": 2.5}',
    ':::MLLOG {"key": "u1", "value": null}',
    ':::MLLOG {"key": "u2", "value": "z"}',
    "Samples per second: 5",
]


def test_members_stated_again_and_again_read_as_the_reader_loop():
    """The folded record's replay of repeated members: which are left out, the lines named and the order of `#conflicts`, as the reader loop gives them."""
    rng = random.Random(20261205)
    seen = set()
    for _ in range(4000):
        lines = [rng.choice(_REPEATED) for _ in range(rng.randint(0, 14))]
        text = "\n".join(lines)
        expected = _outcome(_former, text, MLLOG)
        assert _outcome(grammars._text_record, text, MLLOG) == expected, text
        assert expected[0] == "ok"
        conflicts = eval(expected[1], {"Decimal": Decimal}).get("#conflicts")  # noqa: S307 - our own repr of a record
        if isinstance(conflicts, dict):  # not the member "#conflicts" a line states (0)
            seen.add(len(conflicts))
            seen.update(f"lines{len(v)}" for v in conflicts.values())
    assert {1, 2, 3, "lines2", "lines4"} <= seen  # several members in conflict at once, and lists of several lines


_KEY_VALUE_LINES = ["Samples per second: 5", "Samples per second : 5.0", "Mean latency (ns): 10", "Mean latency (ns):10", "Result is : VALID",
                    "a: b: c", "a:", ": b", "= x: 1", "{a: 1", "[a: 1", "no colon here", "", "   ", "  spaced key  :  spaced value  ",
                    "a\u00a0: b", "Scenario: Offline", "Scenario: Server", "a\x0bb: c", "x\u2028y: z"]


def test_key_value_lines_read_as_the_reader_loop():
    """`key : value` files (LoadGen's summary): a file stating no member twice is read whole at once; repeated members, conflicts and odd lines as the reader loop reads them."""
    rng = random.Random(51205)
    spec = {"encoding": "text", "lines": ["key-value"]}
    seen = set()
    for _ in range(4000):
        lines = [rng.choice(_KEY_VALUE_LINES) for _ in range(rng.randint(0, 8))]
        text = rng.choice(["\n", "\r\n"]).join(lines)
        expected = _outcome(_former, text, spec)
        assert _outcome(grammars._text_record, text, spec) == expected, text
        seen.add("#conflicts" in expected[1])
    assert seen == {True, False}
    for path in sorted(CORPUS.glob("mlperf-inference-test-submissions-v5.0/*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt")):
        text = path.read_text()
        assert _outcome(grammars._text_record, text, spec) == _outcome(_former, text, spec), path


def test_lines_split_as_splitlines():
    """`_lines` (a split at "\\n" for ASCII text holding no other break) gives `str.splitlines()` for texts of every line break."""
    rng = random.Random(8)
    pieces = ["a", ":::MLLOG {}", " ", "\n", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029", "é", ""]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert grammars._lines(text) == text.splitlines(), repr(text)
    for text in ("", "\n", "\n\n", "a", "a\n", "a\n\n", "\na", "a\rb", "a\r\nb\n"):
        assert grammars._lines(text) == text.splitlines(), repr(text)


def test_a_text_file_read_with_no_line_grammar_has_no_members():
    assert grammars._text_record("a: b\nc=d\n{}", {"encoding": "text", "lines": []}) == {}
