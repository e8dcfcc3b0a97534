"""
Tests that the fast paths of `verifier/formats/jsonio.py` decide exactly as the slow rules they stand for.

`_long_digits` (which decoder range-checks integers) must agree with the
`_LONG_DIGITS` regex, also for a run crossing a masking slice and for
non-ASCII digits; `_float` without an exponent must accept and refuse what
the range arithmetic does; a text that is not JSON is refused with the
words and position `JSONDecoder.decode` gives; each document of a table
of examples reads to the value or the refusal (code and message) written
beside it; the compiled batch path reads what text-by-text reading reads.
"""

from __future__ import annotations

import json
import random
from decimal import Decimal

import pytest

from verifier.formats import jsonio
from verifier.formats.jsonio import JSONProblem, loads_strict, loads_strict_text

RUN = jsonio.MAX_INT_DIGITS - 2


def _texts(rng: random.Random) -> list[str]:
    out = []
    for _ in range(2000):
        parts = []
        for _ in range(rng.randint(0, 8)):
            if rng.random() < 0.5:
                parts.append(rng.choice(["a", " ", ",", "\u0661\u0662", "x" * rng.randint(0, 500)]))
            else:
                parts.append("7" * rng.randint(0, RUN + 100))
        out.append("".join(parts))
    return out


@pytest.mark.parametrize("step", [1 << 20, 50, RUN, RUN + 1, 1000])
def test_long_digits_agrees_with_the_regex_at_every_slice_size(monkeypatch, step):
    monkeypatch.setattr(jsonio, "_MASK_STEP", step)
    for text in _texts(random.Random(step)):
        assert jsonio._long_digits(text) == (jsonio._LONG_DIGITS.search(text) is not None), (step, len(text))


def test_a_long_integer_across_a_slice_boundary_is_still_range_checked(monkeypatch):
    monkeypatch.setattr(jsonio, "_MASK_STEP", 1000)
    text = '{"pad": "' + "x" * 900 + '", "n": ' + "9" * (jsonio.MAX_INT_DIGITS + 1) + "}"
    with pytest.raises(JSONProblem) as exc:
        loads_strict_text(text)
    assert exc.value.code == "number-out-of-range"


def test_non_ascii_digits_go_through_the_regex():
    assert jsonio._long_digits("\u0661" * RUN)
    assert not jsonio._long_digits("\u0661" * (RUN - 1))


@pytest.mark.parametrize("literal, ok", [
    ("1" * 290 + ".5", True),
    ("0." + "0" * 296 + "1", True),  # 299 characters, 10**-297: the fast path
    ("0." + "0" * 310 + "1", False),  # 10**-311: below the binary64 range, refused by the range arithmetic
    ("1" * 309 + ".5", True),  # 1.1e308: 311 characters, so the range arithmetic decides (in range)
    ("2" * 309 + ".5", False),  # 2.2e308: beyond the largest binary64
    ("1e308", True),
    ("2e308", False),
    ("1.0e-309", False),
])
def test_float_fast_path_accepts_and_refuses_as_the_range_rule(literal, ok):
    value = None
    try:
        value = jsonio._float(literal)
    except JSONProblem:
        pass
    expected = Decimal(literal)
    in_range = not expected or (abs(expected.adjusted()) <= jsonio.MAX_EXPONENT and abs(expected) <= jsonio.MAX_BINARY64)
    assert (value is not None) == in_range
    assert in_range == ok
    if value is not None:
        assert str(value) == str(expected)


@pytest.mark.parametrize("text", ["", "   ", "1 2", '{"a": 1} x', ' \n{"a": 1}\t\r\n', "[1,", '{"a" 1}', "tru", "  7  "])
def test_a_text_not_json_is_refused_as_json_decode_words_it(text):
    try:
        expected = ("ok", json.JSONDecoder().decode(text))
    except json.JSONDecodeError as exc:
        expected = ("err", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    try:
        got = ("ok", loads_strict(text.encode()))
    except JSONProblem as exc:
        got = ("err", str(exc))
    assert got == expected


def _outcome(read, text: str):
    try:
        return ("ok", repr(read(text)))
    except JSONProblem as exc:
        return ("refused", exc.code, str(exc))


_DEEP = "[" * (jsonio.MAX_DEPTH + 1) + "]" * (jsonio.MAX_DEPTH + 1)
_DEEPEST = "[" * jsonio.MAX_DEPTH + "]" * jsonio.MAX_DEPTH
_OUT_OF_RANGE = "integer {}...999999999999 (310 characters) is outside the binary64 range"


#: Documents with JSON's whitespace and other characters before and after them, and extra data: the value read, or the
#: refusal's code and message (positions as `json.JSONDecodeError` gives them).
@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', ("ok", "{'a': 1}")),
    (' \n{"a": 1}\t\r\n', ("ok", "{'a': 1}")),
    ("\t7\n", ("ok", "7")),
    ('"\\ud83d\\ude00"', ("ok", "'\U0001f600'")),  # a surrogate pair is one character
    (_DEEPEST, ("ok", repr(eval(_DEEPEST)))),  # noqa: S307 - nested empty lists
    ("\ufeff{\"a\": 1}", ("refused", "invalid-json", "starts with a byte order mark, which JSON forbids (RFC 8259 section 8.1)")),
    ("\u00a0{\"a\": 1}", ("refused", "invalid-json", "not valid JSON: Expecting value at line 1 column 1")),  # NBSP is not JSON whitespace
    ("{\"a\": 1}\u00a0", ("refused", "invalid-json", "not valid JSON: Extra data at line 1 column 9")),
    ('{"a": 1}\n x', ("refused", "invalid-json", "not valid JSON: Extra data at line 2 column 2")),
    ('{"a": 1}{}', ("refused", "invalid-json", "not valid JSON: Extra data at line 1 column 9")),
    ("7 1", ("refused", "invalid-json", "not valid JSON: Extra data at line 1 column 3")),
    ("", ("refused", "invalid-json", "not valid JSON: Expecting value at line 1 column 1")),
    ("   ", ("refused", "invalid-json", "not valid JSON: Expecting value at line 1 column 4")),
    ('{"a" 1}', ("refused", "invalid-json", "not valid JSON: Expecting ':' delimiter at line 1 column 6")),
    ("[1,", ("refused", "invalid-json", "not valid JSON: Expecting value at line 1 column 4")),
    ("nul", ("refused", "invalid-json", "not valid JSON: Expecting value at line 1 column 1")),
    ('{"a": 1, "a": 2}', ("refused", "duplicate-key", "duplicate key 'a'")),
    ('{"a": {"b": 1, "b": 1}}', ("refused", "duplicate-key", "duplicate key 'b'")),
    (" NaN", ("refused", "non-finite-number", "non-finite number NaN is not JSON")),
    ("[1, -Infinity]\n", ("refused", "non-finite-number", "non-finite number -Infinity is not JSON")),
    ("1e400", ("refused", "number-out-of-range", "number 1e400 is outside the binary64 range")),
    ("-1.5e-400 ", ("refused", "number-out-of-range", "number -1.5e-400 is outside the binary64 range")),
    ("9" * (jsonio.MAX_INT_DIGITS + 1), ("refused", "number-out-of-range", _OUT_OF_RANGE.format("9" * 20))),
    ("-" + "9" * jsonio.MAX_INT_DIGITS, ("refused", "number-out-of-range", _OUT_OF_RANGE.format("-" + "9" * 19))),
    ('"\\ud800" ', ("refused", "invalid-unicode", "string \\ud800 holds a lone surrogate, which is not a Unicode character (RFC 8259 section 8.2)")),
    ('{"\\udfff": 1}', ("refused", "invalid-unicode", "key \\udfff holds a lone surrogate, which is not a Unicode character (RFC 8259 section 8.2)")),
    (_DEEP, ("refused", "too-deep", "nested deeper than 64 levels of arrays and objects")),
    (" " + '{"a":' * (jsonio.MAX_DEPTH + 1) + "1" + "}" * (jsonio.MAX_DEPTH + 1), ("refused", "too-deep", "nested deeper than 64 levels of arrays and objects")),
], ids=lambda v: repr(v)[:30] if isinstance(v, str) else None)
def test_each_document_reads_to_its_value_or_its_refusal(text, expected):
    """Text and bytes alike (bytes: not the byte order mark, which the bytes reader is not given here)."""
    assert _outcome(loads_strict_text, text) == expected
    if not text.startswith("\ufeff"):
        assert _outcome(lambda t: loads_strict(t.encode()), text) == expected


#: Around the document: JSON's four whitespace characters, none, and two that are not JSON whitespace (NBSP, a BOM).
_AROUND = ["", " ", "\t", "\n", "\r\n ", "\u00a0", "\ufeff"]
#: Documents, strict and not: each refusal `loads_strict` names, on a document that may or may not fill the text.
_DOCUMENTS = [
    '{"a": 1}', '{"a": 1, "a": 2}', '{"a": {"b": 1, "b": 1}}', "NaN", '[1, -Infinity]', "1e400", "-1.5e-400", "1.5", "7",
    "9" * (jsonio.MAX_INT_DIGITS + 1), "-" + "9" * jsonio.MAX_INT_DIGITS, '"\\ud800"', '{"\\udfff": 1}', '"\\ud83d\\ude00"',
    _DEEP, _DEEPEST, '"x"', "true", "null", "nul", "[1,", '{"a" 1}', "", "x",
]


@pytest.mark.parametrize("text, code", [
    (' {"a": 1, "a": 2}', "duplicate-key"),  # leading whitespace: read by the whitespace-skipping path, still strict
    ('\t[NaN]\n', "non-finite-number"),
    ('\n1e999', "number-out-of-range"),
    (" " + "9" * 400, "number-out-of-range"),
    ('\r"\\udbff"', "invalid-unicode"),
    ('{"a": 1} {"a": 1}', "invalid-json"),  # a document filling only part of the text: Extra data
    ('{"a": 1}x', "invalid-json"),
    ('{"a": 1, "a": 2}', "duplicate-key"),  # filling the text: read by the one-scan path
    ("1E+309", "number-out-of-range"),
    ('["\\ud800"]', "invalid-unicode"),
])
def test_a_document_with_text_around_it_stays_strict(text, code):
    with pytest.raises(JSONProblem) as exc:
        loads_strict_text(text)
    assert exc.value.code == code


# --- loads_strict_each: the compiled decoder must read exactly what `loads_strict_text` reads ---------------------------


def _each_outcomes(texts: list[str]) -> list:
    out = []
    for result in jsonio.loads_strict_each(texts):
        out.append(("refused", result.code, str(result)) if isinstance(result, JSONProblem) else ("ok", repr(result)))
    return out


def test_each_gives_what_text_by_text_gives_on_the_whole_grid():
    """Every grid text alone and behind a well-formed line: the same value, or its JSONProblem (code and message) in its place."""
    for before in _AROUND:
        for document in _DOCUMENTS:
            for after in _AROUND[:4]:
                text = before + document + after
                expected = _outcome(loads_strict_text, text)
                assert _each_outcomes([text]) == [expected], text[:80]
                assert _each_outcomes(['{"k": 1.50}', text]) == [("ok", repr({"k": Decimal("1.50")})), expected], text[:80]


#: Key and string spellings that stress the `":` count: quotes and colons inside strings, escaped and not.
_KEYS = ["a", "b", '":', ":", '"', "\\", "a:b", "", "E+", "é"]
_NUMBERS = ["0", "-0", "7", "1.50", "-0.0", "1e5", "1E+5", "2.5e-3", "1e400", "-1.5e-400", "0.0000001", "9" * 320, "1" * 40,
            "1" * 300 + "." + "1" * 300 + "e200", "1" * 200 + "." + "1" * 200, "0." + "0" * 310 + "1"]
_SPACE = ["", "", "", " ", "\t", "\r", "\n"]


def _string(rng: random.Random, pool: list[str]) -> str:
    text = rng.choice(pool)
    if rng.random() < 0.15:  # the same string with every character escaped as \uXXXX (how `":` can hide from a count)
        return '"' + "".join(f"\\u{ord(c):04x}" for c in text) + '"'
    return json.dumps(text, ensure_ascii=rng.random() < 0.5)


def _value(rng: random.Random, depth: int) -> str:
    sp = lambda: rng.choice(_SPACE)  # noqa: E731
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice([rng.choice(_NUMBERS), _string(rng, _KEYS), "true", "null", "NaN"][: 4 if rng.random() < 0.97 else 5])
    if roll < 0.45:
        return "[" + ",".join(sp() + _value(rng, depth + 1) + sp() for _ in range(rng.randint(0, 3))) + "]"
    pairs = []
    for _ in range(rng.randint(0, 4)):
        pairs.append(sp() + _string(rng, _KEYS) + sp() + ":" + sp() + _value(rng, depth + 1) + sp())
    return "{" + ",".join(pairs) + "}"


def test_each_agrees_with_text_by_text_on_random_documents():
    """Random documents (duplicate keys, `":` in strings, escapes, spaced colons, out-of-range numbers): batch and line by line agree, and the compiled path serves most batches."""
    rng = random.Random(20261205)
    compiled = 0
    for _ in range(3000):
        texts = [rng.choice(_SPACE) + _value(rng, 0) + rng.choice(_SPACE) for _ in range(rng.randint(1, 4))]
        assert _each_outcomes(texts) == [_outcome(loads_strict_text, t) for t in texts], texts
        compiled += jsonio._checked_many(texts) is not None
    assert compiled > 400  # the property is tested on the compiled path, not only on its fallback


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}', '{"a" :1, "a":2}', '{"a":1,"b":{"c":[1,{"c":2,"c":3}]}}', '{"a":1,"\\u0061":2}',
    '{"a":"\\u0022:","a":1}', '{"a":1,"a":"\\u0022:"}', '{"a":1e400}', '{"a":1E-400}', '{"a":' + "9" * 400 + "}", '\ufeff{"a":1}',
    '{"a":' + "1" * 300 + "." + "1" * 300 + "e200}", '{"a":1.8e308}', '{"a":1e-309}', '{"a":-2E+308}',
    "[" * (jsonio.MAX_DEPTH + 1) + "]" * (jsonio.MAX_DEPTH + 1), '{"a":NaN}',
])
def test_the_compiled_path_declines_each_hazard(text):
    """Each refusal the compiled decoder does not make itself sends the batch line by line, where it is refused."""
    assert jsonio._checked_many(['{"key": "x", "value": 1.5}', text]) is None
    assert isinstance(jsonio.loads_strict_each(['{"key": "x", "value": 1.5}', text])[1], JSONProblem)


def test_the_compiled_path_reads_a_loadgen_line_exactly():
    line = ('{"key": "result_completed_samples_per_sec", "value": 637.535, "time_ms": 10.5, "namespace": "mlperf::logging", '
            '"event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "file": "loadgen.cc", "line_no": 1200}}')
    docs = jsonio._checked_many([line, line.replace("637.535", "35342.50")])
    assert docs is not None
    assert repr(docs[0]["value"]) == "Decimal('637.535')" and repr(docs[1]["value"]) == "Decimal('35342.50')"
    assert docs == [loads_strict_text(line), loads_strict_text(line.replace("637.535", "35342.50"))]


@pytest.mark.parametrize("data, found", [
    (b'{"a": "x"}', False), (b'{"a": "\\u0041"}', True), (b'{"a": "\\\\u"}', False), (b'{"a": "\\\\\\u0041"}', True),
    (b'{"a": "\\n\\t"}', False), (b'"\\"\x00"\\u00e9"', True), (b'"\\\\"', False),
])
def test_unicode_escape_finds_escapes_not_escaped_backslashes(data, found):
    assert jsonio._unicode_escape(data) is found


@pytest.mark.parametrize("literal", ["1.7976931348623157e308", "1e308", "9.99e307", "1e-308", "-1e-308", "0e-500", "0.0", "1.50"])
def test_numbers_at_the_binary64_bounds_read_as_text_by_text(literal):
    """In range at either bound: the batch reads what `loads_strict_text` reads (the compiled path, or its fallback for [1e308, max])."""
    text = '{"a": ' + literal + "}"
    assert repr(jsonio.loads_strict_each(['{"k": 1}', text])[1]) == repr(loads_strict_text(text))


@pytest.mark.parametrize("literal", ["1.7976931348623157000000000001e308", "1.79769313486231570000000000005e308",
                                     "-1.7976931348623157000000000000499e308"])
def test_a_number_just_above_the_binary64_maximum_is_refused(literal):
    """The range compare is exact: `abs` would round to the thread's 28-digit context and let these through (found by an adversarial tester)."""
    with pytest.raises(JSONProblem) as exc:
        loads_strict_text('{"a": ' + literal + "}")
    assert exc.value.code == "number-out-of-range"
    assert isinstance(jsonio.loads_strict_each(['{"a": ' + literal + "}"])[0], JSONProblem)


def test_the_range_rule_does_not_depend_on_the_callers_decimal_context():
    import decimal

    with decimal.localcontext(prec=3):
        assert str(loads_strict_text('{"a": 1.797e308}')["a"]) == "1.797E+308"
        assert not jsonio.in_binary64(Decimal("1.7976931348623157000000000001e308"))


@pytest.mark.parametrize("data, line", [(b"x\n\n1\n", 1), (b"1\n\nx\n", 2), (b"1\n[\n\n", 2), (b"1\n\n", 2)])
def test_json_lines_name_the_first_bad_line(data, line):
    """A blank line and an invalid one: the earlier is named (the batch reader must not reorder them)."""
    with pytest.raises(JSONProblem) as exc:
        jsonio.loads_strict_lines(data)
    assert exc.value.line == line


#: What `_colons_unless_hazard` returns for a text the compiled decoder must not take.
_HAZARD = None


@pytest.mark.parametrize("data, expected", [
    (b"", 0), (b'{"a": 1}', 1), (b'{"a": {"b": [1, {"c": 2}]}}', 3), (b'":::"', 3),  # colons inside strings are counted too
    (b"[" * 64 + b"]" * 64, 0), (b"[" * 65, _HAZARD), (b"{" * 40 + b"[" * 25, _HAZARD), (b"[]" * 65, _HAZARD),  # more than 64 opening brackets in one text, closed or not
    (b"[" * 64 + b"\x00" + b"[" * 64, 0),  # texts parted by NUL: each one's brackets counted alone
    (b'{"a":[1,' * 32, 32), (b'{"a":[1,' * 33, _HAZARD),  # members and elements between the brackets do not hide them
    (b"9" * (jsonio.MAX_INT_DIGITS - 3), 0), (b"9" * (jsonio.MAX_INT_DIGITS - 2), _HAZARD), (b"1." + b"0" * 400, _HAZARD),
    (b"9" * 306 + b",9", 0), (b"1.5e3," * 100, 0), (b'"abc123def456"' * 60, 0), (b"1," * 400, 0),
])
def test_one_skeleton_pass_counts_colons_unless_deep_or_long_digits(data, expected):
    """The colon count, or None for a text nested deeper than `MAX_DEPTH` or holding a run of `MAX_INT_DIGITS - 2` digits."""
    assert jsonio._colons_unless_hazard(data) == expected


def test_a_deep_text_with_members_and_elements_between_its_brackets_is_refused_in_a_batch():
    text = '{"a":[1,' * (jsonio.MAX_DEPTH // 2 + 1) + "2" + "]}" * (jsonio.MAX_DEPTH // 2 + 1)
    assert jsonio._checked_many(['{"k": 1}', text]) is None
    assert jsonio.loads_strict_each(['{"k": 1}', text])[1].code == "too-deep"
