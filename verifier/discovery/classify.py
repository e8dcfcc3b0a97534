"""
Discovery's judgement of each stated number: bound, ambiguous, near-miss or unexplained.

- a single value read elsewhere explains a number only when the number's
  labels share a word with that value's member name (a date is not a seed);
- a statistic over several values binds only when the label names it (a
  comparison of two selections needs its label's word, `speedup`...; a
  label's `std`, `stdev`, `sd` names the sample and the population SD
  alike: numpy's `std` is the population one);
- bound: after the context's preferences (a statistic its labels name, a
  member its labels name, a comparison its label names (a speedup of
  times; with `mean` named, a mean of the comparison member before the
  comparison of the means), a member sharing a word with the label, the
  rawest set: rank 0 before 1, then a set of the number's own
  file, then, among sets giving the same value, the selection the context
  names most fully; one derivation over a table restated in two files
  counts once), exactly one
  derivation reproduces the number, its selection is named by the context,
  and a number of fewer than `MIN_DIGITS` significant digits is bound only
  when its context names that derivation fully (its labels name the
  member, or the set has one; and the statistic, or it is a single value;
  and its group was not found by value); digits count as written;
- ambiguous: several derivations fit (listed, none bound), or a stated
  zero is reproduced only by a small non-zero value;
- near-miss: the context names one derivation and the number is not its
  value (beyond `verifier.engine.stats.compare`'s tolerance), or the number is the
  value of another member or statistic than its label names (both named);
- unexplained: none of the above, and a small integer without a unit at an
  end of a range its text states ("specific levels (1 to 10 inclusive)":
  settings, not a measurement; `in_range_of_settings`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.engine import stats

from verifier.model import units
from verifier.discovery.context import Stated
from verifier.discovery.search import Derivation, Search

__all__ = ["MIN_DIGITS", "Verdict", "classify", "in_range_of_settings", "label", "unit_agrees"]

MIN_DIGITS = 3


@dataclass(frozen=True)
class Verdict:
    """The judgement of one stated number: `kind` (bound, ambiguous, near-miss, unexplained) and the derivations shown."""

    kind: str
    derivations: tuple[Derivation, ...] = ()
    named: tuple[Derivation, ...] = ()
    why: str = ""  # ambiguous: why the derivations that fit are not bound (several fit; or the one that fits is not enough)


def label(d: Derivation) -> str:
    """Return the statistic's short name (`p95` for a percentile) as labels name it."""
    return f"p{d.q}" if d.statistic == "percentile" else d.statistic


def _digits(st: Stated) -> int:
    """Return the significant digits of `st` as written: zeros after the decimal point count (`59.00`: 4), an integer's trailing zeros do not (`120`: 2)."""
    if not st.value:
        return 1
    exact = st.value.as_tuple()
    return len(exact.digits) if isinstance(exact.exponent, int) and exact.exponent < 0 else len(st.value.normalize().as_tuple().digits)


def _copies_once(fits: list[Derivation]) -> list[Derivation]:
    """Return `fits` with each derivation over a copy of one table in another file left out (`results.csv` and `results.json`: the same member, statistic, selection and value)."""
    seen: set[tuple[object, ...]] = set()
    out = []
    for f in fits:
        same = (f.member, f.statistic, f.q, f.method, f.selection, f.over, f.baseline, f.candidate, f.value, f.n, f.rank, f.enumerated)
        if same not in seen:
            seen.add(same)
            out.append(f)
    return out


def _member_agrees(f: Derivation, found: Search, named_sets: set[str]) -> bool:
    """Return whether `f` is of the member its set's name the labels give (or its set has no member the labels name)."""
    return f.sid not in named_sets or (f.sid, f.member) in found.member_named


def unit_agrees(st: Stated, f: Derivation) -> bool:
    """
    Return whether derivation `f` is of the dimension `st`'s unit states (True when no unit, or one the registry does not know, is stated).

    A percentage is a relative statistic (`stats.PERCENT_RESULTS`) or a value of a percent member, never a
    difference of MB/s that happens to be 50.09; a unit of another dimension (a time, a size, a rate) is never a
    ratio or a percentage, nor a value of a member whose name gives a unit of another dimension; a time is a value
    a page states (a README's "1ms") is a value of a member whose name gives a time unit (converted to the stated
    one), never one of no known unit (1.1015 of `mean` is not "1ms"; a data document's number takes its unit from
    its own record, `"unit": "s"`, which the values beside it share); a member of no known unit may hold any other
    dimension (`Samples per second`).
    """
    if st.unit is None or not units.known(st.unit):
        return True
    member = units.parse(f.unit).dimension if f.unit and units.known(f.unit) else None
    relative = f.statistic in stats.PERCENT_RESULTS or f.statistic in stats.RATIO_RESULTS
    if units.parse(st.unit).dimension == "percent":
        return f.statistic in stats.PERCENT_RESULTS or (member == "percent" and not relative)
    if units.parse(st.unit).dimension in units.PURE:
        return True
    dimension = units.parse(st.unit).dimension
    if relative or (member is not None and member != dimension):
        return False
    page = st.rel.rsplit(".", 1)[-1].lower() in ("md", "markdown", "html", "htm", "rst", "txt")
    scaled = dimension == "time" and units.base_symbol(st.unit) != st.unit  # ms, us, ns: not the base unit a member of no unit is read in
    return member is not None or not (page and scaled)  # a page's "1ms" against a member of no unit: nothing converted it


def in_range_of_settings(st: Stated) -> bool:
    """
    Return whether `st` is a small integer without a unit at an end of a range its text states ("levels 1 to 10",
    "0-9 inclusive", "between 2 and 8", "from 1 through 4"): a span of settings, not a measurement.
    """
    if st.unit is not None or not re.fullmatch(r"-?\d+", st.text) or _digits(st) >= MIN_DIGITS:
        return False
    n, link = re.escape(st.text), r"\s*(?:to|through|-|\u2013|\u2014|\.\.)\s*"
    return bool(re.search(rf"(?<![\w.]){n}{link}-?\d|\d{link}{n}(?![\w.])|\bbetween\s+{n}\s+and\s+\d|\bbetween\s+-?\d+\s+and\s+{n}(?![\w.])", st.label))


def classify(st: Stated, found: Search) -> Verdict:
    """Return the `Verdict` of stated number `st` from what `verifier.discovery.search.search` found (fits of another dimension than its unit left out)."""
    if in_range_of_settings(st):
        return Verdict("unexplained")  # "levels (1 to 10 inclusive)": settings; a near-miss needs a measurement its context names
    selected = _copies_once([f for f in found.fits if (f.selection or f.baseline is not None or f.groups is not None) and unit_agrees(st, f)])
    fits = [f for f in selected if not (f.n == 1 and not f.member_hint and f.member)]
    agree = fits
    named_sets = {sid for sid, _ in found.member_named}
    if found.pair_named and found.stat_named in (None, "mean") and any(f.baseline is not None and _member_agrees(f, found, named_sets) for f in agree):
        pairs = [f for f in agree if f.baseline is not None]  # `speedup_vs_bf16`: the comparison, not a copy of it elsewhere
        timed = [f for f in pairs if f.statistic == "speedup" and f.unit and units.known(f.unit) and units.parse(f.unit).dimension == "time"]
        means = [f for f in agree if found.stat_named == "mean" and f.baseline is None and f.statistic == "mean"]
        agree = means or timed or pairs  # `mean memory saved`: the mean of the savings; `平均减少` with no such mean: of the means; a speedup is of times
        if st.value == 1 and any(f.statistic in ("speedup", "ratio") for f in agree):
            return Verdict("ambiguous", tuple(agree[:8]), why="1.0 is the ratio of any two equal values")  # no binding
    elif found.stat_named:
        family = {found.stat_named, "population_sd"} if found.stat_named == "sd" else {found.stat_named}  # `stdev`: numpy's std is the population SD
        exact = [f for f in agree if label(f) in family]
        agree = exact or [f for f in agree if f.n == 1 and f.statistic == "first"]  # the named statistic, else a copy of one value
    else:  # a statistic over several values that nothing names is a coincidence until the label says which
        unnamed = [f for f in agree if f.n > 1 and f.baseline is None]
        agree = [f for f in agree if f.n == 1 or f.baseline is not None]
        if not agree and unnamed:
            return Verdict("ambiguous", tuple(unnamed[:8]), why="its context names no statistic, and a statistic over several values nothing names is a coincidence")
    other = [f for f in selected if f.sid in named_sets and (f.sid, f.member) not in found.member_named]
    agree = [f for f in agree if _member_agrees(f, found, named_sets)]
    if other and (not agree or min(f.rank for f in other) < min(f.rank for f in agree)):
        named = [n for n in found.named if n.sid in {f.sid for f in other}]
        if named:  # the rawest source holds it under another member than the label names: a copy elsewhere does not explain it
            return Verdict("near-miss", tuple(other[:4]), tuple(named[:4]))
    hinted = [f for f in agree if f.member_hint]
    agree = hinted or agree  # `Mean speedup`: of `speedup_vs_bf16`, not of `audio_corr_vs_bf16` that happens to round alike
    if agree:
        rank = min(f.rank for f in agree)
        agree = [f for f in agree if f.rank == rank]
        own = [f for f in agree if f.rel == st.rel]
        agree = own or agree  # a set of the number's own file before the same shape elsewhere
        if len({f.value for f in agree}) == 1:  # the same value by several sets: the one whose selection the context names most fully
            most = max(len(f.selection) for f in agree)
            agree = [f for f in agree if len(f.selection) == most]
    if len(agree) == 1 and st.value == 0 and agree[0].value != 0 and agree[0].statistic != "count":
        return Verdict("ambiguous", tuple(agree), why="a stated 0 is any small value at its precision")
    if len(agree) == 1:
        f = agree[0]
        full = f.member_named and (found.stat_named is not None or f.n == 1) and not f.enumerated
        if _digits(st) >= MIN_DIGITS or full:
            return Verdict("bound", (f,))
        return Verdict("ambiguous", (f,), why=f"a number of fewer than {MIN_DIGITS} significant digits binds only when its context names the member and the statistic")
    if len(agree) > 1:
        return Verdict("ambiguous", tuple(agree[:8]))
    if fits:  # reproduced, but by another member or statistic than the context names
        named = [n for n in found.named if n.sid in {f.sid for f in fits}]
        if named:
            return Verdict("near-miss", tuple(fits[:4]), tuple(named[:4]))
    if len(found.named) == 1:
        return Verdict("near-miss", (), tuple(found.named))
    return Verdict("unexplained")
