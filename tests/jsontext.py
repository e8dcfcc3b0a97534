"""JSON text for the property tests of the typed readers (`tests/readers/test_typed_receipts.py`, `test_typed_plan.py`).

`Raw` is a literal written as it is (a number's exact text, an escape); `dumps` writes compact JSON keeping it;
`stated_twice` states a member again at the end of an object's text; `damaged` cuts, spaces or breaks one character.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st


class Raw(str):
    """A literal written as it is (`dumps`): `Raw("1.0")`, `Raw('"\\u0041"')`."""


def dumps(value: object) -> str:
    """`value` as compact JSON, a `Raw` as its literal, non-ASCII as itself (no `\\u` escape but for what JSON needs)."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(dumps, value)) + "]"
    return json.dumps(value, ensure_ascii=False)


def stated_twice(text: str, key: str, value: object) -> str:
    """The text of a JSON object (`text`, ending in `}`) with member `key` stated again, as `value`, at its end."""
    return text[:-1] + f",{json.dumps(key)}:{dumps(value)}" + "}"


@st.composite
def damaged(draw: st.DrawFn, text: str) -> str:
    """`text` with one character replaced, removed or added: a space, a structural character, a backslash, a NUL, a CR, a byte-order mark."""
    at = draw(st.integers(0, len(text)))
    return text[:at] + draw(st.sampled_from(["", " ", "\t", ",", "}", "{", "\\", '"', ":", "\r", "\x00", "}{", "\ufeff"])) + text[at + 1:]
