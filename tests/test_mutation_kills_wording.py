"""
Tests that kill surviving mutants of `verifier/wording.py` (issue 42, cosmic-ray run of record).

`keys_of` on extracted quantities: the last key before a number wins (the
subject nearest to it), the first key of a parenthesis or a clause after it;
`bound_holds` at the bound itself (inclusive or strict); `extreme` is pinned
in `tests/test_mutation_kills_binding.py`.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from verifier.claimtext import extract
from verifier.wording import bound_holds, keys_of

KEYS = {"alpha", "beta"}


@pytest.mark.parametrize(("text", "key"), [
    ("Compared with alpha, beta took 1.5 s.", "beta"),   # before the number: the last key (`:96` True -> False, `:99` [-1] -> [-0])
    ("Beta, unlike alpha, took 1.5 s.", "alpha"),
    ("It took 1.5 s (beta, then alpha).", "beta"),        # a parenthesis right after: its first key (`:99` [0] -> [-1])
    ("It took 1.5 s on beta and not on alpha.", "beta"),  # the clause after ends at "and"
    ("It took 1.5 s on beta versus alpha.", "beta"),      # the clause after: its first key (`:96` its False -> True)
])
def test_the_key_nearest_before_a_number_or_first_after_it_is_its_subject(text, key):
    (q,) = extract(text, "pr.md")
    assert keys_of(q, KEYS) == [key]


@pytest.mark.parametrize(("text", "keys", "found"), [
    ("Request A1-w1 took 1.5 s.", {"A1-w1", "A1", "w1"}, ["A1-w1"]),  # a key is named only as a whole run: not A1, not w1
    ("Request a1-W1 took 1.5 s.", {"A1-w1"}, ["A1-w1"]),                # case-insensitive
    ("Requests A1 and b_2 took 1.5 s.", {"A1", "b_2", "A"}, ["b_2"]),    # the last before the number; "A" is no whole run
    ("Request A1x took 1.5 s.", {"A1"}, []),                             # a run longer than the key does not name it
    ("Server s1.a took 1.5 s.", {"s1.a", "s1", "a"}, ["a"]),             # "a" is a run of its own after the dot, nearer the number
    ("Server s1.a took 1.5 s.", {"s1.a", "s1"}, ["s1.a"]),                # a key with a dot is searched for, whole
    ("It took 1.5 s (s1.a, then s2).", {"s1.a", "s2", "s1"}, ["s1"]),    # both start at the same place: sorted by key
    ("It took 1.5 s on x-ray.", {"x", "x-ray"}, ["x-ray"]),
    ("On A1 it took 1.5 s.", {"A1", "a1"}, ["a1"]),                      # two keys alike but for case: both named at one place, the last by key
])
def test_keys_are_named_only_as_whole_runs_of_word_characters_and_hyphens(text, keys, found):
    """`keys_of` looks plain keys (word characters and hyphens: server and request ids) up per run of the text, any other key by search."""
    (q,) = extract(text, "pr.md")
    assert keys_of(q, keys) == found


@pytest.mark.parametrize(("side", "inclusive", "derived", "holds"), [
    ("upper", True, "2", True), ("upper", False, "2", False), ("upper", True, "2.001", False), ("upper", False, "1.999", True),
    ("lower", True, "2", True), ("lower", False, "2", False), ("lower", True, "1.999", False), ("lower", False, "2.001", True),
])
def test_a_bound_holds_at_itself_only_when_inclusive(side, inclusive, derived, holds):
    """Kills `:137` `derived <= stated` -> `<` ("at most 2 s" holds for exactly 2 s) and its lower-bound twin."""
    assert bound_holds(side, inclusive, Decimal("2"), Decimal(derived)) is holds


def test_a_table_cells_key_is_the_first_its_row_and_header_name():
    """Kills `:96` `(q.context, False)` -> `True`: a row "beta then alpha" is beta's."""
    (q,) = extract("| run | latency |\n|---|---|\n| beta then alpha | 1.5 s |\n", "pr.md")
    assert keys_of(q, KEYS) == ["beta"]


def test_a_speed_word_with_a_unit_the_registry_does_not_know_names_either_extreme():
    """Kills `:83` `unit and units.known(unit)` -> `or`: an unknown unit is never parsed (it would raise `UnitError`)."""
    from verifier.wording import extreme

    assert extreme("the fastest run", "furlongs") == ("fastest", frozenset({"min", "max"}))
