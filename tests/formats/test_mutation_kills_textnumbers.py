"""Kill tests for `verifier/formats/textnumbers.py` (cosmic-ray session `tools/cosmic-ray/textnumbers.toml`, docs/testing.md)."""

from __future__ import annotations

from decimal import Decimal

from verifier.formats.textnumbers import numbers_in, quantity


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


def test_a_unit_glued_to_a_digit_or_letter_after_it_is_no_unit():
    # kills `:77` `word is not None` -> `is None` and `(... .isalnum() or ... == "_")` -> `and`: "ms2" is no unit "ms"
    assert numbers_in("5 ms2") == [(0, 1, Decimal(5), None)]
    assert numbers_in("5 msé") == [(0, 1, Decimal(5), None)]
    assert numbers_in("5 ms_") == [(0, 1, Decimal(5), None)]


def test_a_number_glued_to_a_word_is_skipped_and_the_numbers_after_it_are_read():
    # kills `:82` `continue` -> `break` (a name such as "3em" ends the scan)
    assert numbers_in("3em or 5 ms") == [(7, 11, Decimal(5), "ms")]


def test_an_exponent_beyond_decimal_range_states_no_number_and_the_scan_goes_on():
    # `Decimal` raises InvalidOperation on an exponent past its limits (about 10^18): kills `:42` and `:87` `except InvalidOperation`
    # replaced and `:88` `continue` -> `break` (the run at 5cc909d called them equivalent; they are not)
    huge = "1e" + "9" * 30
    assert quantity(huge) is None and quantity("-2.5E-" + "9" * 30 + " ms") is None
    assert numbers_in(f"x {huge} y 5 ms") == [(37, 41, Decimal(5), "ms")]
