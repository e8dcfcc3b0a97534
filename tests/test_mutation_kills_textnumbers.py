"""Kill tests for `verifier/textnumbers.py` (cosmic-ray session `tools/cosmic-ray/textnumbers.toml`, docs/testing.md)."""

from __future__ import annotations

from decimal import Decimal

from verifier.textnumbers import numbers_in


def test_a_text_that_is_not_ascii_is_scanned_from_its_first_character():
    assert numbers_in("5 µs later") == [(0, 4, Decimal(5), "µs")]
    assert numbers_in("5 ms über") == [(0, 4, Decimal(5), "ms")]


def test_a_long_text_ending_in_a_number_and_its_unit():
    text = "x " * 200 + "took 5 ms"
    assert numbers_in(text) == [(len(text) - 4, len(text), Decimal(5), "ms")]
    text = "x " * 200 + "took 5"
    assert numbers_in(text) == [(len(text) - 1, len(text), Decimal(5), None)]


def test_an_ascii_text_starting_with_a_number():
    assert numbers_in("5 apples") == [(0, 1, Decimal(5), None)]
    assert numbers_in("apples") == []
