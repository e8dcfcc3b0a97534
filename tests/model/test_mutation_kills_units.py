"""
Kill tests for `verifier/model/units.py` (issue 42): the survivors of the cosmic-ray session `tools/cosmic-ray/units.toml`.

Each unit of the registry is pinned to its source's scale (SI prefixes, BIPM
SI brochure 9th ed. table 7; binary prefixes, IEC 80000-13:2008), and each
conversion helper at its boundary (same scale, same dimension, ratio vs
percentage).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from fractions import Fraction

import pytest

from verifier.model.units import UnitError, UnitMismatch, base_symbol, convert, parse, pure_scale, to_base, unit_in_label

SCALES = {
    "ns": ("time", Fraction(1, 10**9)), "nanoseconds": ("time", Fraction(1, 10**9)),
    "us": ("time", Fraction(1, 10**6)), "µs": ("time", Fraction(1, 10**6)), "μs": ("time", Fraction(1, 10**6)),
    "microseconds": ("time", Fraction(1, 10**6)),
    "ms": ("time", Fraction(1, 1000)), "msec": ("time", Fraction(1, 1000)),
    "s": ("time", 1), "seconds": ("time", 1), "min": ("time", 60), "minutes": ("time", 60), "h": ("time", 3600), "hours": ("time", 3600),
    "tokens": ("tokens", 1), "B": ("bytes", 1), "kB": ("bytes", 10**3), "KB": ("bytes", 10**3), "MB": ("bytes", 10**6),
    "GB": ("bytes", 10**9), "TB": ("bytes", 10**12), "KiB": ("bytes", 2**10), "MiB": ("bytes", 2**20), "GiB": ("bytes", 2**30),
    "TiB": ("bytes", 2**40), "samples": ("samples", 1), "frames": ("frames", 1), "requests": ("requests", 1), "queries": ("requests", 1),
    "ops": ("count", 1), "x": ("dimensionless", 1), "1": ("dimensionless", 1), "%": ("percent", 1),
}


@pytest.mark.parametrize("name", sorted(SCALES))
def test_every_unit_has_its_sources_scale(name):
    dimension, scale = SCALES[name]
    unit = parse(name)
    assert (unit.dimension, unit.scale) == (dimension, Fraction(scale))
    assert to_base(Decimal(3), name) == Decimal(3) * Decimal(Fraction(scale).numerator) / Decimal(Fraction(scale).denominator)


def test_to_base_of_a_base_unit_returns_the_value_itself():
    value = Decimal("1.2345678901234567890123456789012345678901")  # more digits than the 34 of a scaled result
    assert to_base(value, "s") is value
    assert to_base(Decimal("1500"), "ms") == Decimal("1.5")
    assert to_base(Decimal("2"), "tokens/min") == Decimal("0.03333333333333333333333333333333333")  # 34 significant digits


def test_convert_keeps_the_value_when_the_scales_agree_and_scales_exactly_otherwise():
    value = Decimal("1.2345678901234567890123456789012345678901")
    assert convert(value, "seconds", "s") is value
    assert convert(Decimal("1500"), "ms", "s") == Decimal("1.5")
    assert convert(Decimal("1"), "GiB", "MiB") == Decimal(1024)
    with pytest.raises(UnitMismatch):
        convert(Decimal(1), "ms", "tokens")


def test_pure_scale_between_a_ratio_and_a_percentage():
    assert pure_scale("dimensionless", "%") == 100
    assert pure_scale("percent", "1") == Fraction(1, 100)
    assert pure_scale("percent", "%") == 1
    assert pure_scale("dimensionless", "x") == 1
    for dimension, unit in (("time", "%"), ("dimensionless", "ms"), ("percent", "s")):
        with pytest.raises(UnitMismatch):
            pure_scale(dimension, unit)


def test_base_symbols_of_rates_and_units():
    assert base_symbol("ms") == "s"
    assert base_symbol("MiB/s") == "B/s"
    assert base_symbol("tokens per second") == "tokens/s"
    assert base_symbol("%") == "%"
    with pytest.raises(UnitError):
        base_symbol("parsecs")


def test_case_folding_never_reaches_the_byte_prefixes():
    assert parse("MS").scale == Fraction(1, 1000)  # other names fold case
    for name in ("mb", "gb", "kib", "Mib"):
        with pytest.raises(UnitError):
            parse(name)


def test_units_are_compatible_exactly_when_their_dimensions_agree():
    assert parse("ms").compatible(parse("h"))
    assert parse("tokens/s").compatible(parse("tokens/min"))
    assert not parse("ms").compatible(parse("tokens"))
    assert not parse("tokens").compatible(parse("ms"))


def test_a_unit_is_immutable_and_hashable():
    unit = parse("ms")
    assert hash(unit) == hash(parse("ms"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        unit.scale = Fraction(1)  # type: ignore[misc]


def test_unit_in_label_returns_the_parenthesised_unit_of_a_label():
    assert unit_in_label("Latency (ms)") == "ms"
    assert unit_in_label("Mean latency (ns)") == "ns"
    assert unit_in_label("tokens/s") == "tokens/s"
    assert unit_in_label("Latency (parsecs)") == "Latency (parsecs)"


def test_convert_between_scaled_units_keeps_34_significant_digits():
    assert convert(Decimal(2), "tokens/min", "tokens/s") == Decimal("0.03333333333333333333333333333333333")


def test_pure_scale_compares_dimensions_by_value_not_identity():
    dimension = "".join(["per", "cent"])  # as read from a file: equal to "percent", not the same object
    assert pure_scale(dimension, "%") == 1
    assert pure_scale("".join(["dimension", "less"]), "x") == 1


def test_convert_refuses_every_dimension_mismatch_in_either_direction():
    for source, target in (("ms", "tokens"), ("tokens", "ms"), ("B", "%"), ("%", "B")):
        with pytest.raises(UnitMismatch):
            convert(Decimal(1), source, target)


def test_a_unit_that_is_not_text_is_refused_as_unknown():
    for value in (None, 12, ["ms"], "", "   "):
        with pytest.raises(UnitError):
            parse(value)  # type: ignore[arg-type]


def test_an_unknown_unit_is_named_in_60_characters():
    from verifier.model.units import shown

    assert len(shown("a" * 5000)) == 60
    assert shown("ms") == "'ms'"


def test_a_ratio_read_from_a_file_is_written_as_a_percentage_times_100():
    assert pure_scale("".join(["dimension", "less"]), "%") == 100
    assert pure_scale("".join(["per", "cent"]), "x") == Fraction(1, 100)
