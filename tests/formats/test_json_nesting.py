"""How deep a parsed document nests (`verifier.formats.jsonio._nesting`), the one depth measure of the strict reader and `check_depth`."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.formats import jsonio
from verifier.formats.jsonio import MAX_DEPTH, JSONProblem, check_depth, loads_strict

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3), max_leaves=30)


def _levels(value: object) -> int:
    """Levels of arrays and objects, by definition: a container is one more than its deepest member."""
    if isinstance(value, dict):
        return 1 + max(map(_levels, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_levels, value), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_nesting_is_the_levels_of_arrays_and_objects(value):
    assert jsonio._nesting(value) == _levels(value)


@pytest.mark.parametrize("levels", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 5])
@pytest.mark.parametrize("shape", ["arrays", "objects and arrays"])
def test_a_document_is_refused_exactly_past_the_depth_limit(levels, shape):
    if shape == "arrays":
        text = "[" * levels + "]" * levels
    else:  # an object holding an array holding an object ..., `levels` in all
        text = "".join('{"a":' if k % 2 == 0 else "[" for k in range(levels)) + "1" + "".join("}" if k % 2 == 0 else "]" for k in reversed(range(levels)))
    value = json.loads(text)
    assert jsonio._nesting(value) == min(levels, MAX_DEPTH + 1)
    if levels > MAX_DEPTH:
        with pytest.raises(JSONProblem, match=f"nested deeper than {MAX_DEPTH} levels"):
            loads_strict(text.encode())
        with pytest.raises(JSONProblem, match=f"nested deeper than {MAX_DEPTH} levels"):
            check_depth(value)
    else:
        assert loads_strict(text.encode()) == value
        check_depth(value)


def test_wide_documents_are_not_deep():
    plan = {"requests": [{"id": f"r{i}", "server": "s", "phase": "measured"} for i in range(10_000)]}
    assert jsonio._nesting(plan) == 3
    check_depth(plan)


@pytest.mark.parametrize("text", ['{"a": "\\ud800"}', '["x", "\\udfff"]', '{"\\ud800": 1}', '[{"a": [1, "\\ud83d"]}]', '[["\\ud800"]]', '"\\ud800"'])
def test_a_lone_surrogate_anywhere_is_refused(text):
    with pytest.raises(JSONProblem) as caught:
        loads_strict(text.encode())
    assert caught.value.code == "invalid-unicode"


def test_a_document_both_too_deep_and_holding_a_lone_surrogate_is_refused_as_too_deep():
    text = "[" * (MAX_DEPTH + 1) + '"\\ud800"' + "]" * (MAX_DEPTH + 1)
    with pytest.raises(JSONProblem) as caught:
        loads_strict(text.encode())
    assert caught.value.code == "too-deep"
