"""
Tests that kill surviving mutants of `verifier/formats/jsonio.py` (issue 14), each at the boundary of a documented rule.

A lone surrogate in a key is named by at most 60 characters of the key; a
blank JSON Lines line is named as blank; `unparsed_files` (the names a
usage error gives for a directory no reader recognises) reads `*.json`
files only, no symlinks, three directory levels deep, files up to 64 MiB.

The tests after those kill the survivors of the cosmic-ray session of
`tools/cosmic-ray/formats_jsonio.toml` (docs/testing.md): a zero whose
exponent is past `Decimal`'s limits keeps its sign and at most 308 places;
"/" and ":" are no digits to the long-run screens; `iter_strict_lines`'
signature; the file offset of a byte that is not UTF-8 after a skipped long
line; the line numbers of a vouched batch after the first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verifier.formats import jsonio
from verifier.formats.jsonio import (JSONProblem, iter_strict_batches, iter_strict_lines, loads_strict, loads_strict_each, loads_strict_lines,
                                      unparsed_files)


def test_a_lone_surrogate_key_is_named_by_its_first_60_escaped_characters():
    key = "k" * 100
    with pytest.raises(JSONProblem) as exc:
        loads_strict(('{"' + key + '\\ud800": 1}').encode())
    assert exc.value.code == "invalid-unicode"
    assert f"key {'k' * 60} holds a lone surrogate" in str(exc.value)


def test_a_blank_json_lines_line_is_named_as_blank():
    with pytest.raises(JSONProblem) as exc:
        loads_strict_lines(b'{"a": 1}\n\n{"a": 2}\n')
    assert (exc.value.code, str(exc.value), exc.value.line) == ("invalid-json", "line 2 is blank", 2)


def _broken(path: Path, data: bytes = b"{broken") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_unparsed_files_names_broken_json_three_levels_deep_and_no_deeper(tmp_path):
    _broken(tmp_path / "a" / "b" / "c" / "level3.json")
    _broken(tmp_path / "a" / "b" / "c" / "d" / "level4.json")
    assert [line.split(":")[0] for line in unparsed_files(tmp_path)] == ["a/b/c/level3.json"]


def test_unparsed_files_reads_json_files_only_and_never_a_symlink(tmp_path):
    _broken(tmp_path / "notes.txt")
    target = _broken(tmp_path / "elsewhere" / "real.json")
    os.symlink(target, tmp_path / "link.json")
    assert [line.split(":")[0] for line in unparsed_files(tmp_path)] == ["elsewhere/real.json"]


def test_unparsed_files_reads_files_up_to_64_mib(tmp_path):
    _broken(tmp_path / "big.json", b"[" + b" " * (2 * 2**20))  # 2 MiB, unterminated: broken, and well under the limit
    assert [line.split(":")[0] for line in unparsed_files(tmp_path)] == ["big.json"]
    assert unparsed_files(tmp_path, max_bytes=2**20) == []  # over a smaller limit it is not read


# --- the cosmic-ray session of `tools/cosmic-ray/formats_jsonio.toml` (docs/testing.md): each test names its mutant ---------


@pytest.mark.parametrize("literal, shown", [
    ("0e-99999999999999999999", "0E-308"),  # a zero with an exponent beyond Decimal's limits: 308 places at most, never wider
    ("-0e-99999999999999999999", "-0E-308"),
    ("0e99999999999999999999", "0"),  # a positive exponent: no places, as written (0, not 0.0)
    ("-0.000E+99999999999999999999", "-0"),
])
def test_a_zero_with_an_exponent_past_decimals_limits_keeps_its_sign_and_at_most_308_places(literal, shown):
    """`_float`'s zero: `-MAX_EXPONENT` -> `MAX_EXPONENT` (0E+308, wider than stated) and `else 0` -> `else -1` (0.0) (`:133`)."""
    assert str(loads_strict(literal.encode())) == shown
    assert str(loads_strict_each([literal])[0]) == shown


@pytest.mark.parametrize("neighbour", ["/", ":"])
def test_the_bytes_beside_the_digits_are_no_digits_to_the_long_run_screens(neighbour):
    """`_DIGIT_MASK`'s digit range `0x30 <= b <= 0x39` widened (`:213`, `0x30` -> `47`: "/" masked as a digit).

    `_long_digits` answers as `_LONG_DIGITS` does ("/" and ":" are no `\\d`), and
    `_colons_unless_hazard` counts the colons of a string of digits parted by
    them (its skeleton's run of digits is no run of digits in the text), so
    the compiled decoder reads it.
    """
    run = jsonio.MAX_INT_DIGITS - 2
    assert not jsonio._long_digits(neighbour * (2 * run)) and not jsonio._long_digits(("7" + neighbour) * run)
    string = ("7" + neighbour) * run
    data = ('{"a": "' + string + '"}').encode()
    assert jsonio._colons_unless_hazard(data) == data.count(b":")
    assert jsonio._checked_many([data.decode()]) == [{"a": string}]


def test_iter_strict_lines_takes_its_chunks_by_name_and_its_line_limit_only_by_name():
    """The `*` of `iter_strict_lines`' signature -> `/` (`:492`): `chunks` positional only, `line_limit` positional too."""
    assert list(iter_strict_lines(chunks=iter([b"1\n"]), line_limit=5)) == [(1, 1)]
    with pytest.raises(TypeError):
        iter_strict_lines(iter([b"1\n"]), 5)  # type: ignore[misc]


def test_a_byte_not_utf8_after_a_skipped_long_line_is_named_at_its_file_offset():
    """`offset += at + 1` -> `+ 0` after the newline that ends a line skipped as too long (`:547`): the offset would be one short."""
    with pytest.raises(JSONProblem) as exc:
        list(iter_strict_lines(iter([b"x" * 10, b"xx\n\xff\n"]), line_limit=5))  # the newline at offset 12, 0xff at 13
    assert (exc.value.code, str(exc.value), exc.value.line) == ("not-utf8", "not UTF-8: byte 0xff at offset 13 (line 2)", None)


def test_a_vouched_batch_after_the_first_is_the_range_of_its_own_line_numbers(monkeypatch):
    """`number + first + 1` -> `number - first + 1` in the vouched range's start (`:581`): wrong from the second batch of a chunk on."""
    monkeypatch.setattr(jsonio, "_BATCH", 2)
    firsts: list[int] = []
    batches = list(iter_strict_batches(iter([b"1\n2\n3\n4\n5\n"]), vouch=lambda first, texts: firsts.append(first) or True))
    assert batches == [range(1, 3), range(3, 5), range(5, 6)] and firsts == [0, 2, 4]


def test_a_raw_control_character_names_its_place_once():
    """The standard library's message, "Invalid control character at", is followed by the place once (was "at at line 1 column 3")."""
    from verifier.formats.jsonio import JSONProblem, loads_strict_text

    with pytest.raises(JSONProblem) as caught:
        loads_strict_text('"a\x01"')
    assert str(caught.value).endswith("not valid JSON: Invalid control character at line 1 column 3"), str(caught.value)
