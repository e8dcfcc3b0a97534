"""
Tests that kill surviving mutants of `verifier/prose/wording.py` (issue 42, cosmic-ray run of record).

`keys_of` on extracted quantities: the last key before a number wins (the
subject nearest to it), the first key of a parenthesis or a clause after it;
`bound_holds` at the bound itself (inclusive or strict); `extreme` is pinned
in `tests/prose/test_mutation_kills_binding.py`.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from verifier.readers.claimtext import extract
from verifier.prose.wording import bound_holds, keys_of

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
    from verifier.prose.wording import extreme

    assert extreme("the fastest run", "furlongs") == ("fastest", frozenset({"min", "max"}))


# One vocabulary of extreme words (issue 36): `wording.EXTREME_WORDS`, from which `extreme`, `score_extreme` (recorded
# scores) and `subjects.SELECTORS` (request times) are built (their binding of a score: `tests/prose/test_mutation_kills_binding.py`). Where the three former lists disagreed, the choice made:
# "shortest"/"longest" and "peak" name the least/greatest wherever an extreme is read. "worst" and "best" name the worse
# and the better end: of a time and a rate the same as "slowest" and "fastest", and of a recorded score the end its gate's
# threshold gives (a floor: the greater is better), or when no one-sided threshold gives it, the lowest or the highest,
# never a comparison's or a mean score between them (h36h; was, after 15d361b: any recorded score equal to the number).
# "closest" names one end of a recorded score only (closest to the reference: the best; closest to the gate, as the
# review's "closest margins": the worst), never which, and nothing of a time or a rate.


@pytest.mark.parametrize(("text", "unit", "expected"), [
    ("the peak rate", "req/s", ("peak", {"max"})), ("peak memory", "GiB", ("peak", {"max"})),
    ("the slowest latency", "s", ("slowest", {"max"})), ("the slowest throughput", "req/s", ("slowest", {"min"})),
    ("the fastest latency", "s", ("fastest", {"min"})), ("the fastest throughput", "req/s", ("fastest", {"max"})),
    ("the slowest score", None, ("slowest", {"min", "max"})), ("the closest score", None, None), ("the closest run", "s", None),
    # "best" and "worst" name no extreme of a time or a rate: they are as often ordinary words ("our best estimate of the
    # mean", "worst case, the mean was"), and a recorded score reads them by its direction (`score_extreme`)
    ("the worst latency", "s", None), ("the best throughput", "req/s", None), ("our best estimate of the mean", "s", None),
])
def test_every_extreme_word_is_read_by_extreme(text, unit, expected):
    from verifier.prose.wording import extreme

    found = extreme(text, unit)
    assert (None if found is None else (found[0], set(found[1]))) == expected


def test_the_three_readings_of_extremes_come_from_one_vocabulary():
    """Every word of `EXTREME_WORDS` and no other is an extreme for `extreme` (not "closest"), `score_extreme` (not the speed words) and the request selectors."""
    import re

    from verifier.prose.subjects import SELECTORS
    from verifier.prose.wording import EXTREME_WORDS, extreme, score_extreme

    every = {w for words in EXTREME_WORDS.values() for w in words}
    timed = every - set(EXTREME_WORDS["near"] + EXTREME_WORDS["best"] + EXTREME_WORDS["worst"])  # "our best estimate": no extreme of a time
    assert {w for w in every if extreme(f"the {w} one", "s")} == timed
    assert {w: extreme(f"the {w} one", "s")[1] for w in timed} == {
        **{w: {"min"} for w in EXTREME_WORDS["min"] + EXTREME_WORDS["fast"]},
        **{w: {"max"} for w in EXTREME_WORDS["max"] + EXTREME_WORDS["slow"]}}
    scores = {w: score_extreme(f"the {w} one", None) for w in every}
    assert scores == {**{w: (w, {"min"}) for w in EXTREME_WORDS["min"]}, **{w: (w, {"max"}) for w in EXTREME_WORDS["max"]},
                      **{w: None for w in EXTREME_WORDS["fast"] + EXTREME_WORDS["slow"]},
                      **{w: (w, {"min", "max"}) for w in EXTREME_WORDS["best"] + EXTREME_WORDS["worst"] + EXTREME_WORDS["near"]}}
    selectors = {w: [name for name, rx in SELECTORS if name in ("min", "max") and re.search(rx, f"the {w} one")] for w in every}
    assert selectors == {w: sorted(extreme(f"the {w} one", "s")[1]) if w in timed else [] for w in every}


@pytest.mark.parametrize(("text", "better", "expected"), [
    # the better end the gate gives: "best" names it, "worst" the other, "closest" either; min/max words ignore it
    ("the best one", "max", ("best", {"max"})), ("the best one", "min", ("best", {"min"})),
    ("the worst one", "max", ("worst", {"min"})), ("the worst one", "min", ("worst", {"max"})),
    ("the closest one", "max", ("closest", {"min", "max"})), ("the closest one", "min", ("closest", {"min", "max"})),
    ("the lowest one", "max", ("lowest", {"min"})), ("the peak one", "min", ("peak", {"max"})),
    # a min word anywhere before a max word, a max word before "best"/"worst", whatever their places; else the first of those
    ("the highest, then the lowest", None, ("lowest", {"min"})), ("the best, then the highest", "min", ("highest", {"max"})),
    ("the worst, then the best", "max", ("worst", {"min"})), ("the best, then the worst", "max", ("best", {"max"})),
    ("the fastest clip", "max", None), ("a worsted clip, the bestest", "max", None),
])
def test_score_extreme_reads_the_end_a_word_names_with_the_better_end_given(text, better, expected):
    from verifier.prose.wording import score_extreme

    found = score_extreme(text, better)
    assert (None if found is None else (found[0], set(found[1]))) == expected


def _score(text: str, unit: str | None = None) -> list[tuple[str, str, str]]:
    from verifier.prose.binding import Evidence, bind

    recorded = [Evidence(f"quality.{m}.{s}", Decimal(v), None, "recorded", f"d {m} {s}", statistic=s, topics=frozenset({m}))
                for m in ("lpips", "ssim") for s, v in (("min", "0.10" if m == "lpips" else "0.95"), ("max", "0.30" if m == "lpips" else "0.99"))]
    return [(o.status, o.code, o.message) for o in bind(extract(text, "pr.md"), recorded, [], {})]


@pytest.mark.parametrize(("text", "expected"), [
    # "worst" and "closest" with no gate: the lowest or the highest score, saying which (was: any recorded score)
    ("The worst LPIPS was 0.30.", ("PASS", "recorded-score", "0.30 holds for quality.lpips.max = 0.30 (d lpips max): the wording (worst) names the "
                                                             "lowest or the highest recorded score, and nothing says which; this is the highest")),
    ("The closest SSIM was 0.99.", ("PASS", "recorded-score", "0.99 holds for quality.ssim.max = 0.99 (d ssim max): the wording (closest) names the "
                                                              "lowest or the highest recorded score, and nothing says which; this is the highest")),
    # "peak", "highest", "longest" name the greatest score, "shortest" the least
    ("The peak SSIM was 0.95.", ("FAIL", "claim-mismatch", "states 0.95, but the wording (max) says it is quality.ssim.max, which the evidence "
                                                            "gives as 0.99 (delta -0.04, tolerance 0.005; d ssim max)")),
    ("On the longest clip SSIM was 0.95.", ("FAIL", "claim-mismatch", "states 0.95, but the wording (max) says it is quality.ssim.max, which "
                                                                       "the evidence gives as 0.99 (delta -0.04, tolerance 0.005; d ssim max)")),
    ("On the shortest clip SSIM was 0.99.", ("FAIL", "claim-mismatch", "states 0.99, but the wording (min) says it is quality.ssim.min, which "
                                                                        "the evidence gives as 0.95 (delta 0.04, tolerance 0.005; d ssim min)")),
])
def test_the_extreme_words_of_a_recorded_score(text, expected):
    assert _score(text) == [expected]
