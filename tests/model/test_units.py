"""The one unit registry: exact conversion within a dimension, refusal across."""
from decimal import Decimal

import pytest

from verifier.model import units


def test_ms_to_s_is_exact():
    assert units.convert(Decimal("108120"), "ms", "s") == Decimal("108.12")


def test_rate_scale_and_dimension():
    u = units.parse("tokens/min")
    assert u.dimension == "tokens/time"
    assert units.convert(Decimal("60"), "tokens/min", "tokens/s") == Decimal("1")


def test_alias_and_per():
    assert units.parse("tps").dimension == units.parse("tokens per second").dimension


def test_across_dimensions_is_refused():
    with pytest.raises(units.UnitMismatch, match="samples/s.*tokens/s|tokens/s.*samples/s"):
        units.convert(Decimal("1"), "samples/s", "tokens/s")


def test_percent_is_not_dimensionless():
    assert not units.parse("%").compatible(units.parse("x"))


def test_binary_and_decimal_bytes():
    assert units.convert(Decimal("1"), "GiB", "MiB") == Decimal("1024")
    assert units.convert(Decimal("1"), "GB", "MB") == Decimal("1000")


def test_unknown_unit_names_it():
    with pytest.raises(units.UnitError, match="furlongs"):
        units.parse("furlongs")
    assert not units.known("")
