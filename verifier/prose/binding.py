"""
Binding: each stated quantity of a claim text to a value the evidence gives, with the formula its wording names.

Pure functions: `bind(quantities, evidence)` returns one `Outcome` per
`verifier.readers.claimtext.Quantity`. The evidence is a list of `Evidence` values
(derived from receipts, counted in the plan, quoted from the gate, recorded
in the quality index), each with its unit and the words that name it, plus
`Pair`s of (baseline, candidate) values that relative phrases compare.

The phrase decides the formula (`PHRASES`; conventions and sources in
`docs/claims.md`): with b the baseline and c the candidate value of a time,
"X % lower / less / reduction" is (1 - c/b) x 100, "X % faster" is
(b/c - 1) x 100, "X % slower" and "rises X %" are (c/b - 1) x 100, and
"N x faster / as fast / speedup / less time" is b/c. A stated value is
compared at the precision it is stated (half a unit of its last place,
`verifier.engine.stats.tolerance`), after converting its unit into the
evidence's unit within one dimension (`verifier.model.units`).

Outcome codes: PASS `bound` (a derived value), `plan-count`,
`gate-threshold`, `recorded-score`, `informational` (an identifier rule);
FAIL `claim-mismatch` (the wording singles out one value and the stated
number is not it), `wording-mismatch` (the stated number is what another
phrase's formula gives), `unit-mismatch` (the wording singles out one value, of
another dimension; when it leaves several, none in the stated unit's
dimension, the number is `unchecked-claim`); UNVERIFIED `unchecked-claim` (nothing accounts for the number),
`unbound-claim` (its subject words, `verifier.prose.subjects`, leave several derivations
that disagree, or none: the candidates are listed, never FAIL).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from verifier.engine import stats

from verifier.prose import subjects

from verifier.model import units
from verifier.readers.claimtext import Quantity
from verifier.model.numtext import comparison_text, number
from verifier.prose.wording import DIFFERENCE_AFTER as _DIFFERENCE_AFTER
from verifier.prose.wording import DIFFERENCE_BEFORE as _DIFFERENCE_BEFORE
from verifier.prose.wording import EXTREME_WORDS
from verifier.prose.wording import FOREIGN_WORDS, LATENCY_WORDS
from verifier.prose.wording import THRESHOLD as _THRESHOLD
from verifier.prose.wording import bound_holds as _bound_holds
from verifier.prose.wording import key_finder
from verifier.prose.wording import bound_of as _bound_of
from verifier.prose.wording import clause_after as _clause_after
from verifier.prose.wording import extreme as _extreme
from verifier.prose.wording import foreign_noun as _foreign_noun
from verifier.prose.wording import keys_of as _keys_of
from verifier.prose.wording import local as _local
from verifier.prose.wording import per_request as _per_request
from verifier.prose.wording import score_extreme as _score_extreme
from verifier.prose.wording import statistic as _statistic
from verifier.prose.wording import words as _words

__all__ = ["PHRASES", "Evidence", "Outcome", "Pair", "bind"]

C = stats.CONTEXT
#: The words naming the least or the greatest whatever is measured (their statistic is said as `min`/`max` in messages).
_LEAST_OR_MOST = frozenset(EXTREME_WORDS["min"] + EXTREME_WORDS["max"])


@dataclass(frozen=True, slots=True)
class Evidence:
    """
    Represents one value the evidence gives.

    `name` is stable (`arm_mean_s.baseline`, `plan.measured_per_server`,
    `gate.quality.ssim.min`, `quality.audio_cosine.min`), `value` a Decimal
    in `unit` (a registry unit string, or None for a count or a score).
    `source` is `derived`, `plan`, `gate` or `recorded`; `statistic` is
    `mean`, `median`, `p95`, `sd`, `count`, `min`, `max`, `threshold` or
    None; `keys` the arm and server ids it belongs to; `topics` words that
    name it (`latency`, `throughput`, `timeout`, `ssim`); `nouns` a regular
    expression its count noun must match (`measured requests`); `primary`
    marks the arm statistic the gate's headline compares. `derivation` says
    how it was obtained.
    """

    name: str
    value: Decimal
    unit: str | None
    source: str
    derivation: str
    statistic: str | None = None
    keys: frozenset[str] = frozenset()
    topics: frozenset[str] = frozenset()
    nouns: str | None = None
    primary: bool = False
    level: str | None = None  # "arm", "server", "request" or "all" (the whole campaign) for values of one subject
    phase: str | None = None  # "warmup" or "measured" when the value covers one phase only; None: both


@dataclass(frozen=True, slots=True)
class Pair:
    """Represents a (baseline, candidate) pair of one statistic that relative phrases compare; `primary` for the gate's headline pair."""

    name: str
    base: Evidence
    cand: Evidence
    primary: bool = False


@dataclass(frozen=True, slots=True)
class Outcome:
    """
    Represents the verdict on one stated quantity.

    `status` is PASS, FAIL or UNVERIFIED; `code` see the module docstring;
    `evidence` the bound value's name (or None), `derived` its value in the
    stated unit (or None), `tolerance` the comparison's half unit, `formula`
    the bound derivation in words, `message` one line for the report.
    """

    quantity: Quantity
    status: str
    code: str
    message: str
    evidence: str | None = None
    derived: Decimal | None = None
    tolerance: Decimal | None = None
    formula: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _pct_less(b: Decimal, c: Decimal) -> Decimal:
    return C.multiply(Decimal(1) - C.divide(c, b), Decimal(100))


def _pct_faster(b: Decimal, c: Decimal) -> Decimal:
    return C.multiply(C.divide(b, c) - Decimal(1), Decimal(100))


def _pct_more(b: Decimal, c: Decimal) -> Decimal:
    return C.multiply(C.divide(c, b) - Decimal(1), Decimal(100))


def _ratio(b: Decimal, c: Decimal) -> Decimal:
    return C.divide(b, c)


def _inverse(b: Decimal, c: Decimal) -> Decimal:
    return C.divide(c, b)


#: phrase key -> (what the wording means, formula text, formula, unit). See docs/claims.md for the sources.
PHRASES: dict[str, tuple[str, str, Callable[[Decimal, Decimal], Decimal], str]] = {
    "pct-less": ("X % lower / less time / reduction", "(1 - candidate/baseline) x 100", _pct_less, "%"),
    "pct-faster": ("X % faster (speed, not time)", "(baseline/candidate - 1) x 100", _pct_faster, "%"),
    "pct-slower": ("X % slower (more time)", "(candidate/baseline - 1) x 100", _pct_more, "%"),
    "pct-more": ("rises / X % higher / more", "(new/old - 1) x 100 = (candidate/baseline - 1) x 100", _pct_more, "%"),
    "x-faster": ("N x faster (read as N x as fast; some read it as N + 1)", "baseline/candidate", _ratio, "x"),
    "x-as-fast": ("N x as fast", "baseline/candidate", _ratio, "x"),
    "x-less": ("N x lower / less time", "baseline/candidate", _ratio, "x"),
    "speedup": ("N x speedup", "baseline/candidate", _ratio, "x"),
    "x-slower": ("N x slower", "candidate/baseline", _inverse, "x"),
}

def _compatible(q: Quantity, e: Evidence) -> bool:
    if q.unit is None or e.unit is None:
        return q.unit is None or e.unit is None and q.unit in ("requests",)
    if not (units.known(q.unit) and units.known(e.unit)):
        return q.unit == e.unit
    return units.parse(q.unit).compatible(units.parse(e.unit))


def _fmt(value: Decimal) -> str:
    """Return `value` for a message (`numtext.number`): at most 12 significant digits, plain notation, an integer without a fraction."""
    if value.is_finite() and value == value.to_integral_value():
        value = value.normalize()
    return number(value)


def _holds(q: Quantity, e: Evidence) -> tuple[bool, Decimal, Decimal]:
    """Return (holds, derived value in the stated unit, tolerance in the stated unit)."""
    convertible = q.unit and e.unit and units.known(q.unit) and units.known(e.unit) and _compatible(q, e)
    derived = units.parse(e.unit).convert(e.value, units.parse(q.unit)) if convertible else e.value
    exact = e.statistic in stats.COUNT_RESULTS or e.source == "plan"  # a count is exact: "100 requests" is not 104
    tol = stats.tolerance(q.value, written=None if exact else q.number)
    return stats.compare(q.value, derived, declared=tol).holds, derived, tol


def _pass(q: Quantity, e: Evidence, code: str, derived: Decimal, tol: Decimal, note: str = "") -> Outcome:
    unit = f" {q.unit}" if q.unit else ""
    return Outcome(q, "PASS", code, f"{q.stated} is {e.name} = {_fmt(derived)}{unit} ({e.derivation}){note}",
                   evidence=e.name, derived=derived, tolerance=tol, formula=e.derivation)


def _mismatch(q: Quantity, e: Evidence, derived: Decimal, tol: Decimal, why: str) -> Outcome:
    shown, compared = comparison_text(q.value, derived, tol, q.unit or None)  # the digits the claims tables show
    return Outcome(q, "FAIL", "claim-mismatch",
                   f"states {q.stated}, but {why} it is {e.name}, which the evidence gives as {shown} "
                   f"({compared}; {e.derivation})", evidence=e.name, derived=derived, tolerance=tol, formula=e.derivation)


def _unchecked(q: Quantity, why: str) -> Outcome:
    return Outcome(q, "UNVERIFIED", "unchecked-claim", f"{q.stated} is not accounted for: {why}")


def bind(quantities: Sequence[Quantity], evidence: Sequence[Evidence], pairs: Sequence[Pair], keys: dict[str, str],
         levels: dict[str, str] | None = None) -> list[Outcome]:
    """
    Return one `Outcome` per quantity, in order.

    `keys` maps each arm or server id, and the words `baseline`/`candidate`,
    to the arm or server id it names (so "baseline" finds the baseline arm
    whatever its id). `levels` maps each id to `arm`, `server` or `request`
    (request ids may be keys too); with it, a number whose subject words
    narrow it (`verifier.prose.subjects`) binds only to the derivation they
    determine, else it is `unbound-claim`. Never raises for any quantities.
    """
    outcomes: list[Outcome] = []
    ids = _Ids.of(keys, evidence, quantities)
    for q in quantities:
        if q.informational:
            outcomes.append(Outcome(q, "PASS", "informational", f"{q.number} is an identifier ({q.informational}), not a quantity"))
            continue
        try:
            outcomes.append(_bind_one(q, quantities, evidence, pairs, keys, levels or {}, ids))
        except (ArithmeticError, units.UnitError) as exc:
            outcomes.append(_unchecked(q, f"it could not be compared ({type(exc).__name__}: {exc})"))
    return outcomes


def _bind_one(q: Quantity, quantities: Sequence[Quantity], evidence: Sequence[Evidence], pairs: Sequence[Pair],
              keys: dict[str, str], levels: dict[str, str], ids: _Ids) -> Outcome:
    local = _local(q)
    if q.unit in ("%", "x"):
        return _bind_relative(q, pairs, keys, ids)
    q = _per_request(q)
    if not q.role and (_DIFFERENCE_BEFORE.search(q.before.lower()) or _DIFFERENCE_AFTER.match(q.after.lower())):
        outcome = _bind_difference(q, pairs)
        # "Fps fell by 2 frames/s": a change, never the level of some value that happens to equal it
        return outcome or _unchecked(q, "it is stated as a difference, and no baseline/candidate pair of time values the "
                                        "evidence derives has it")
    if _THRESHOLD.search(_threshold_window(q)):
        outcome = _bind_threshold(q, evidence)
        if outcome is not None:
            return outcome
    recorded = [e for e in evidence if e.source == "recorded"]
    topic = _nearest_topic(q, recorded) if recorded and _words(q.sentence) & set().union(*(e.topics for e in recorded)) else set()
    metric = [e for e in recorded if e.topics & topic and (e.topics & _words(local) or not _words(local) & LATENCY_WORDS)]
    if metric and (q.unit is None or not units.known(q.unit) or units.parse(q.unit).dimension == "dimensionless") \
            and not _counts(q, evidence):  # "all 14 comparisons passed" beside "the best SSIM": a count, not a score
        return _bind_score(q, metric, local, _better_end(evidence, topic), quantities, keys, evidence, ids)
    unknown = None if _keys_of(q, ids.names) else _unknown_id(q, ids)
    if unknown:  # "Server C1 had a mean of 396.30 s": no other server's value may stand for it
        return _names_nothing(q, unknown)
    if levels and not q.role:
        outcome = _bind_by_subject(q, evidence, keys, levels)
        if outcome is not None:
            return outcome
    noun = _count_noun(q)
    counted = sorted((e for e in evidence if e.nouns and re.match(e.nouns, noun)), key=lambda e: -len(e.nouns or ""))
    if counted and noun != q.noun or counted and q.unit is None:
        return _bind_count(q, counted, keys)
    if _counts(q, evidence):  # "3 clips": a count of something the evidence does not count, never a level such as a duration
        return _unchecked(q, f"it counts '{_foreign_noun(q)}', which the evidence does not count")
    return _bind_value(q, quantities, evidence, pairs, keys, local)


def _bind_count(q: Quantity, counted: Sequence[Evidence], keys: dict[str, str]) -> Outcome:
    """
    Judge a stated count against the counts its noun names, the most specific noun (longest pattern) first.

    Of those, the count of the arm or server the sentence names (`wording.keys_of`)
    when one carries it in `keys`; the stated number is compared with their
    value when they all give one, else UNVERIFIED `unbound-claim` listing them
    (which arm's count is meant is not said), never the first one.
    """
    top = [e for e in counted if len(e.nouns or "") == len(counted[0].nouns or "")]
    found = _keys_of(q, set(keys))
    if found:
        keyed = [e for e in top if keys[found[0]] in e.keys]
        if not keyed and not any(e.keys for e in top) and re.search(rf"(?<![\w-]){re.escape(found[0].lower())}(?![\w-])", q.before.lower()):
            # "Alpha handled 2 requests" where only a count over all arms is derived: alpha's count is not
            return _unchecked(q, f"the wording names '{found[0]}', and the evidence counts no {_count_noun(q)} for it")
        top = keyed or top
    elif len(top) > 1 and all(e.keys for e in top) and not re.search(r"\bper (?:server|arm)$", _count_noun(q)):
        # "We ran 4 requests" against counts per arm: the words name neither one arm's count nor their total
        shown = "; ".join(f"{e.name} = {_fmt(e.value)}" for e in top[:6]) + (f"; and {len(top) - 6} more" if len(top) > 6 else "")
        return Outcome(q, "UNVERIFIED", "unbound-claim", f"{q.stated} is not bound: its words name no arm or server and no "
                                                         f"'per server' or 'each arm', and the evidence counts per arm or server only ({shown})",
                       extra={"candidates": ", ".join(e.name for e in top)})
    if len({e.value for e in top}) > 1:
        return _unbound(q, found[:1], top)
    e = top[0]
    ok, derived, tol = _holds(q, e)
    code = "plan-count" if e.source == "plan" else "bound"
    return _pass(q, e, code, derived, tol) if ok else _mismatch(q, e, derived, tol, f'"{q.number} {q.noun}" names a count;')


def _bind_by_subject(q: Quantity, evidence: Sequence[Evidence], keys: dict[str, str], levels: dict[str, str]) -> Outcome | None:
    """Bind `q` by its subject words (`verifier.prose.subjects`) when they narrow it; None when they do not (the other rules decide)."""
    subject = subjects.read(q, keys, levels)
    if not subjects.triggers(q, subject):
        return None
    plan_topics = set().union(*(e.topics for e in evidence if e.source in ("plan", "gate")))
    if _words(_local(q)) & plan_topics:  # "the request timeout is 900 s": a plan value its topic names, not a request's time
        return None
    verdict, chosen, tol = subjects.bind_subject(q, subject, list(evidence))
    said = ", ".join(f"'{w}'" for w in subject.words) or "its words"
    if verdict == "unbound":
        return _unbound(q, subject.words, chosen)
    e = chosen[0]
    _, derived, _ = _holds(q, e)
    if verdict == "pass":
        names = ", ".join(x.name for x in chosen[:3]) + (f" and {len(chosen) - 3} more" if len(chosen) > 3 else "")
        if len(chosen) == 1:
            return _pass(q, e, "bound", derived, tol or Decimal(0), f"; the subject ({said}) names it")
        return Outcome(q, "PASS", "bound", f"{q.stated} holds for {names}, the values the subject ({said}) names ({e.derivation})",
                       evidence=e.name, derived=derived, tolerance=tol, formula=e.derivation)
    return _mismatch(q, e, derived, tol or Decimal(0), f"the subject ({said}) names")


def _unbound(q: Quantity, said: Sequence[str], chosen: Sequence[Evidence]) -> Outcome:
    """UNVERIFIED `unbound-claim`: the subject words leave several derivations that disagree, or none; the candidates are listed."""
    words = ", ".join(f"'{w}'" for w in said) or "its words"
    if not chosen:
        return Outcome(q, "UNVERIFIED", "unbound-claim", f"{q.stated} is not bound: the subject ({words}) names no derivation the evidence has",
                       extra={"candidates": ""})
    shown = "; ".join(f"{e.name} = {_fmt(e.value)}" for e in chosen[:6]) + (f"; and {len(chosen) - 6} more" if len(chosen) > 6 else "")
    return Outcome(q, "UNVERIFIED", "unbound-claim", f"{q.stated} is not bound: the subject ({words}) leaves {len(chosen)} derivations "
                                                     f"that disagree ({shown})", extra={"candidates": ", ".join(e.name for e in chosen)})


def _bound_words(bound: tuple[str, bool]) -> str:
    """Return the words a bound `(side, inclusive)` is stated with: "at least ", "above ", "at most " or "below "."""
    side, inclusive = bound
    return ("at least " if inclusive else "above ") if side == "lower" else ("at most " if inclusive else "below ")


def _judge_bound(q: Quantity, chosen: Sequence[Evidence], bound: tuple[str, bool], code: str, why: str) -> Outcome:
    """Judge a stated bound over every value in `chosen` (converted to the stated unit): PASS when all lie on its side, FAIL naming the first that does not."""
    words = _bound_words(bound)
    for e in chosen:
        _, derived, _ = _holds(q, e)
        if not _bound_holds(bound[0], bound[1], q.value, derived):
            unit = f" {q.unit}" if q.unit else ""
            return Outcome(q, "FAIL", "claim-mismatch", f"states {words}{q.stated}, but {why} {e.name}, which is {_fmt(derived)}{unit} ({e.derivation})",
                           evidence=e.name, derived=derived, tolerance=Decimal(0), formula=e.derivation)
    e = chosen[0]
    _, derived, _ = _holds(q, e)
    names = ", ".join(x.name for x in chosen[:3]) + (f" and {len(chosen) - 3} more" if len(chosen) > 3 else "")
    return Outcome(q, "PASS", code, f"{words}{q.stated} holds for {names} ({e.derivation})", evidence=e.name, derived=derived,
                   tolerance=Decimal(0), formula=e.derivation)


def _bind_difference(q: Quantity, pairs: Sequence[Pair]) -> Outcome | None:
    """Judge "fell by X s" / "X s less" as baseline - candidate of the time pair the wording names (its statistic, else the headline pair)."""
    usable = [p for p in pairs if _compatible(q, p.base) and p.base.unit and units.known(p.base.unit)
              and units.parse(p.base.unit).dimension == "time"]
    if not usable or q.unit is None:
        return None
    statistic = _statistic(_local(q))
    named = [p for p in usable if p.base.statistic == statistic] if statistic else []
    tol = stats.tolerance(q.value)
    for p in named or usable:
        diff = p.base.value - p.cand.value
        derived = units.parse(p.base.unit).convert(diff, units.parse(q.unit))
        if stats.compare(q.value, derived, declared=tol).holds:
            return Outcome(q, "PASS", "bound", f"{q.stated} is the difference baseline - candidate of {p.name} = {_fmt(derived)} {q.unit} "
                                               f"({_fmt(p.base.value)} - {_fmt(p.cand.value)} {p.base.unit})", evidence=p.name,
                           derived=derived, tolerance=tol, formula=f"baseline - candidate of {p.name}")
    chosen = named[0] if len(named) == 1 else next((p for p in usable if p.primary), None) if not named else None
    if chosen is None:
        return None
    derived = units.parse(chosen.base.unit).convert(chosen.base.value - chosen.cand.value, units.parse(q.unit))
    shown, compared = comparison_text(q.value, derived, tol, q.unit or None)
    return Outcome(q, "FAIL", "claim-mismatch", f"states a difference of {q.stated}, but baseline - candidate of {chosen.name} is "
                                                f"{shown} ({compared}; {_fmt(chosen.base.value)} - {_fmt(chosen.cand.value)} {chosen.base.unit})",
                   evidence=chosen.name, derived=derived, tolerance=tol,
                   formula=f"baseline - candidate of {chosen.name}")


#: Dimensions whose units name what is counted (`26 requests`, `124 frames`): such a number is a count.
COUNT_DIMENSIONS = frozenset({"requests", "frames", "samples", "count", "tokens"})


def _count_noun(q: Quantity) -> str:
    """Return what `q` counts: its unit word when that is a countable noun, the words after it up to a conjunction, and a distributive "per server" of its clause."""
    noun = re.split(r"\b(?:and|plus|or|with)\b", q.noun)[0].strip()
    if q.unit and units.known(q.unit) and units.parse(q.unit).dimension in COUNT_DIMENSIONS:
        noun = f"{q.unit} {noun}".strip()
    if " per " not in f" {noun} ":
        m = re.search(r"\b(?:per|each|for each|on each) (server|arm)\b", q.tail) or \
            re.search(r"\b(?:each|every) (server|arm)\b(?!.*\d)", q.before.lower())  # "Each arm ran 2 requests"
        if m:
            noun = f"{noun} per {m.group(1)}"
    return noun


def _threshold_window(q: Quantity) -> str:
    """Return the words that may quote `q` as a gate threshold: just before it, and just after it unless they introduce the next number ("SSIM 0.99 (gate 0.97)")."""
    after = _clause_after(q)[:24]
    if re.search(r"(?:gate|gates|threshold|thresholds|limit)\s*(?:of|is|at|:|=)?\s*[(\[]?\s*$", q.after.lower()) and q.after.strip():
        after = ""
    return f"{q.context} {q.before[-24:]} {after}".lower()


def _nearest_topic(q: Quantity, candidates: Sequence[Evidence]) -> set[str]:
    """Return the topic words (metric names) mentioned last before `q` in its sentence, else first after it."""
    before = q.sentence[:q.start].lower()
    best: tuple[int, set[str]] = (-1, set())
    for e in candidates:
        for word in e.topics:
            at = max((m.start() for m in re.finditer(rf"\b{re.escape(word)}\b", before)), default=-1)
            if at > best[0]:
                best = (at, set(e.topics))
    if best[0] >= 0:
        return best[1]
    after = q.sentence[q.start:].lower()
    hits = sorted((m.start(), tuple(sorted(e.topics))) for e in candidates for w in e.topics for m in re.finditer(rf"\b{re.escape(w)}\b", after))
    return set(hits[0][1]) if hits else set()


def _bind_threshold(q: Quantity, evidence: Sequence[Evidence]) -> Outcome | None:
    gates = [e for e in evidence if e.statistic == "threshold"]
    topic = _nearest_topic(q, gates)
    named = [e for e in gates if e.topics & topic] if topic else []
    for e in named or gates:
        ok, derived, tol = _holds(q, e)
        if ok:
            return _pass(q, e, "gate-threshold", derived, tol)
    if len(named) == 1 or len({e.value for e in named}) == 1 and named:
        e = named[0]
        ok, derived, tol = _holds(q, e)
        return _mismatch(q, e, derived, tol, "the wording quotes a gate threshold;")
    return None


def _better_end(evidence: Sequence[Evidence], topic: set[str]) -> tuple[str, Evidence] | None:
    """
    Return which end of the recorded metric `topic` names is better, `"min"` or `"max"`, with the gate threshold that says it.

    A gate's floor (`gate.quality.ssim.min`: the score must be at least it)
    makes the greater score the better, a ceiling (`gate.quality.lpips.max`)
    the less; None when the gate bounds the metric on both sides or not at all.
    """
    gates = [e for e in evidence if e.source == "gate" and e.statistic == "threshold" and e.topics & topic]
    sides = {e.name.rsplit(".", 1)[-1] for e in gates}
    if len(sides) != 1 or not sides <= {"min", "max"}:
        return None
    return ("max" if sides == {"min"} else "min"), gates[0]


#: Words that name a side of every comparison (`quality-index.json` records a reference and a candidate), not one subject.
_SIDES = frozenset({"baseline", "candidate", "reference"})
_ANY_EXTREME = re.compile(r"\b(?:" + "|".join(w for group in EXTREME_WORDS.values() for w in group) + r")\b")
#: The words between the two ends of a range: "from X to Y", "from X (worst) to Y", "from X down to Y".
_RANGE_TO = re.compile(r"\s*(?:\([^)]*\)\s*)?(?:(?:down|up)\s+)?to\s*")


def _counts(q: Quantity, evidence: Sequence[Evidence]) -> bool:
    """
    Return whether `q` counts the noun after it ("14 comparisons", "250 requests", "3 clips"), so it is never a score.

    A whole number written without a point, with no unit or a unit of a
    counted dimension (`COUNT_DIMENSIONS`), followed by a noun a count of the
    evidence names (`Evidence.nouns`), or by a plural word (ending in `s`,
    not `ss` or `us`: "across", "thus") that is no statistic word ("1 means").
    """
    if not q.number.isdigit():
        return False
    if q.unit is not None and not (units.known(q.unit) and units.parse(q.unit).dimension in COUNT_DIMENSIONS):
        return False
    noun = _count_noun(q)
    if any(e.nouns and re.match(e.nouns, noun) for e in evidence):
        return True
    word = _foreign_noun(q)
    return word.endswith("s") and not word.endswith(("ss", "us")) and _statistic(word) is None


def _scores_beside(q: Quantity, quantities: Sequence[Quantity], evidence: Sequence[Evidence]) -> list[Quantity]:
    """Return the other numbers of `q`'s sentence that may be scores: not identifiers, not counts (`_counts`), not gate thresholds quoted as such."""
    return [o for o in quantities if o is not q and o.sentence == q.sentence and o.line == q.line and o.source == q.source
            and not o.informational and not _counts(o, evidence) and not _THRESHOLD.search(_threshold_window(o))]


def _own_extreme_words(q: Quantity, others: Sequence[Quantity]) -> str:
    """
    Return the text whose extreme words (`wording.EXTREME_WORDS`) belong to `q`: its table context and the words of its sentence nearest to it.

    Each extreme word of the sentence belongs to the number nearest to it
    in characters among `q` and the `others` that may be scores ("from
    0.991703 (worst) to 1.000000 (best)", "the best SSIM was 1.000000 and
    the worst 0.991703"); `q` keeps those it is nearest to, a tie included.
    Alone in its sentence, a number has them all.
    """
    sentence = q.sentence.lower()
    spans = [(o.start, o.start + len(o.number)) for o in (q, *others)]

    def distance(span: tuple[int, int], at: int, end: int) -> int:
        return at - span[1] if at >= span[1] else span[0] - end

    kept = [m.group(0) for m in _ANY_EXTREME.finditer(sentence)
            if distance(spans[0], m.start(), m.end()) <= min(distance(s, m.start(), m.end()) for s in spans)]
    return f"{q.context.lower()} {' '.join(kept)}"


def _range_partner(q: Quantity, others: Sequence[Quantity]) -> Quantity | None:
    """
    Return the other end of a range `q` is one end of, else None.

    An arrow's or "from A to B"'s end (`q.role`) pairs with the score next to
    it in `others` (after the start, before the end); otherwise "from X" pairs
    with the next score when that one follows "to" ("from X (worst) to Y",
    "from X down to Y"), and a score after "to" with the previous one when
    that one follows "from".
    """
    after = sorted((o for o in others if o.start > q.start), key=lambda o: o.start)
    before = sorted((o for o in others if o.start < q.start), key=lambda o: o.start)
    if q.role == "from" or re.search(r"\bfrom\s*$", q.before) and after and _RANGE_TO.fullmatch(after[0].before):
        return after[0] if after else None
    if q.role == "to" or _RANGE_TO.fullmatch(q.before) and before and re.search(r"\bfrom\s*$", before[-1].before):
        return before[-1] if before else None
    return None


def _named_subject(q: Quantity, scores: Sequence[Evidence], keys: dict[str, str], metric: str,
                   ids: _Ids) -> tuple[str | None, list[Evidence] | Outcome]:
    """
    Return `(id, its scores)` for the comparison, request, server or arm `q`'s words name (`wording.keys_of`), `(None, [])` when none.

    An id the evidence has that no recorded score of `metric` is about, or a
    word shaped like the evidence's ids (`c99` beside `c01`..`c14`, `A9`
    beside `A1`) that names none of them, gives an UNVERIFIED
    `unbound-claim` outcome instead: the words name a subject, so no other
    score may stand for it. The words `baseline`, `candidate` and
    `reference` name a side of every comparison, not a subject.
    """
    found = _keys_of(q, ids.names)
    if found:
        key = keys.get(found[0], found[0])
        own = [e for e in scores if key in e.keys]
        if own:
            return found[0], own
        return found[0], Outcome(q, "UNVERIFIED", "unbound-claim", f"{q.stated} is not bound: its words name '{found[0]}', and no recorded "
                                                                  f"{metric} score is of a comparison, request, server or arm '{found[0]}'",
                                 extra={"candidates": ""})
    unknown = _unknown_id(q, ids)
    if unknown:
        return unknown, _names_nothing(q, unknown)
    return None, []


@dataclass(frozen=True, slots=True)
class _Ids:
    """
    Represents what one `bind` call computes once: the subject ids (`names` as written, `shape` their shapes) and the arrow ends (`arrows`).

    The ids are the keys (arm, server and request ids) and every id a
    recorded score is about (`Evidence.keys` of level `comparison`), less
    the words `baseline`, `candidate` and `reference` (`_SIDES`: they name a
    side of every comparison, not one subject). `shape` matches a word of
    the form of an id with digits, each run of w digits read as 1 to w
    digits (`c99` beside `c01`, `A9` beside `A1`, not `A100`), or None.
    `arrows` groups the arrow ends (`Quantity.role`) of the call's
    quantities by `(source, line, sentence)`: a relative phrase looks up its
    sentence's arrows there, so binding stays linear in the quantities.
    """

    names: frozenset[str]
    shape: re.Pattern[str] | None
    arrows: dict[tuple[str, int, str], list[Quantity]]

    @classmethod
    def of(cls, keys: dict[str, str], evidence: Sequence[Evidence], quantities: Sequence[Quantity] = ()) -> _Ids:
        names = frozenset(k for k in {*keys, *(k for e in evidence if e.level == "comparison" for k in e.keys)} if k.lower() not in _SIDES)
        shapes = {re.sub(r"\d+", lambda m: rf"\d{{1,{len(m.group())}}}", re.escape(k.lower())) for k in names if re.search(r"\d", k)}
        arrows: dict[tuple[str, int, str], list[Quantity]] = {}
        for o in quantities:
            if o.role:
                arrows.setdefault((o.source, o.line, o.sentence), []).append(o)
        return cls(names, re.compile("|".join(sorted(shapes))) if shapes else None, arrows)


def _unknown_id(q: Quantity, ids: _Ids) -> str | None:
    """
    Return a word of `q`'s own words (`wording.keys_of`'s windows) that names a subject the evidence does not have, as written, else None.

    Such a word follows `server`, `request`, `comparison` or `arm` and holds
    a letter and a digit ("server C1"), or has the shape of an id
    (`_Ids.shape`); the callers look for the ids themselves first
    (`wording.keys_of`), so it is none of them.
    """
    text = f"{q.context} {q.before} {_clause_after(q)}".lower()
    after_noun = {m.group(1) for m in re.finditer(r"\b(?:server|request|comparison|arm)\s+([\w-]*[a-z][\w-]*)", text) if re.search(r"\d", m.group(1))}
    for token in re.findall(r"[\w-]+", text):
        if token in after_noun or ids.shape is not None and ids.shape.fullmatch(token):
            return next((w for w in re.findall(r"[\w-]+", f"{q.context} {q.sentence}") if w.lower() == token), token)  # as written
    return None


def _names_nothing(q: Quantity, word: str) -> Outcome:
    """UNVERIFIED `unbound-claim`: the words of `q` name a subject (`word`) the evidence has no comparison, request, server or arm of."""
    return Outcome(q, "UNVERIFIED", "unbound-claim", f"{q.stated} is not bound: its words name '{word}', and the evidence has no "
                                                     f"comparison, request, server or arm '{word}'", extra={"candidates": ""})


def _bind_score(q: Quantity, metric: Sequence[Evidence], local: str, better: tuple[str, Evidence] | None,
                quantities: Sequence[Quantity], keys: dict[str, str], evidence: Sequence[Evidence], ids: _Ids) -> Outcome:
    scores = [e for e in metric if e.level == "comparison"]
    subject, own = _named_subject(q, scores, keys, sorted(next(iter(metric)).topics)[0], ids)
    if isinstance(own, Outcome):
        return own
    others = _scores_beside(q, quantities, evidence)
    found = _score_extreme(_own_extreme_words(q, others), better[0] if better else None)
    statistic = _statistic(local)
    partner = _range_partner(q, others) if not found and not statistic else None
    if partner is not None:  # "SSIM ranged from X to Y": the lower end is the lowest score, the upper the highest
        found = ("from ... to", frozenset({"min"} if q.value < partner.value else {"max"} if q.value > partner.value else {"min", "max"}))
    named = found[1] if found else frozenset({statistic}) if statistic else frozenset()
    if own:  # the subject's own lowest and highest score
        chosen = [end for s, end in (("min", min(own, key=lambda e: e.value)), ("max", max(own, key=lambda e: e.value))) if s in named]
    else:
        chosen = [e for e in metric if e.statistic in named]
    bound = _bound_of(q)
    if found and len(found[1]) > 1 and chosen:  # "the worst SSIM": its lowest or its highest score, which one the words do not say
        return _either_end(q, chosen, bound, found[0])
    why, note = statistic, ""
    if found and (found[0] in _LEAST_OR_MOST or partner is not None):  # "lowest", "peak", a range's end: the statistic they name
        why = next(iter(found[1])) if partner is None else f"{'the lower' if 'min' in found[1] else 'the upper'} end of a range from ... to"
    elif found:  # "best", "worst": the end the gate's direction gives
        why = found[0] + (f"; {better[1].name} = {_fmt(better[1].value)}: a {'greater' if better[0] == 'max' else 'less'} score is better"
                          if better else "")
        note = f"; the wording ({why}) names it"
    if subject:
        why = f"'{subject}'" + (f", {why}" if why else "")
        note = note or f"; the wording ({why}) names it"
    if bound is not None:
        # "audio cosine was at least 0.97": every recorded score (or the one the wording names) lies on the stated side
        return _judge_bound(q, chosen[:1] or list(own or metric), bound, "recorded-score", f"the wording ({why}) names" if note else "the recorded score")
    if not chosen and own and len({e.value for e in own}) == 1:  # one comparison, or a subject whose scores all agree
        chosen = own[:1]
    if chosen:
        e = chosen[0]
        ok, derived, tol = _holds(q, e)
        return _pass(q, e, "recorded-score", derived, tol, note) if ok else _mismatch(q, e, derived, tol, f"the wording ({why}) says")
    for e in own or metric:
        ok, derived, tol = _holds(q, e)
        if ok:
            return _pass(q, e, "recorded-score", derived, tol, note)
    if own:  # a subject whose scores disagree, and the number is none of them: which one is meant is not said
        return _unbound(q, [subject or ""], own)
    low = min(metric, key=lambda e: e.value)
    high = max(metric, key=lambda e: e.value)
    return Outcome(q, "FAIL", "claim-mismatch",
                   f"states {q.stated} for {sorted(next(iter(metric)).topics)[0]}, but no recorded score is {q.number} at its stated precision "
                   f"(recorded range {_fmt(low.value)} .. {_fmt(high.value)})", evidence=low.name, derived=low.value,
                   tolerance=stats.tolerance(q.value), formula="recorded scores of quality-index.json")


def _either_end(q: Quantity, ends: Sequence[Evidence], bound: tuple[str, bool] | None, word: str) -> Outcome:
    """Judge a score whose word names one of its recorded extremes (`ends`: the lowest, the highest), not which: PASS naming the end it holds for, else FAIL naming both."""
    said = f"the wording ({word}) names the lowest or the highest recorded score, and nothing says which"
    stated = f"{_bound_words(bound)}{q.stated}" if bound else q.stated
    for e in ends:
        ok, derived, tol = _holds(q, e)
        if bound is not None:
            ok, tol = _bound_holds(bound[0], bound[1], q.value, derived), Decimal(0)
        if ok:
            return Outcome(q, "PASS", "recorded-score", f"{stated} holds for {e.name} = {_fmt(derived)} ({e.derivation}): {said}; "
                                                        f"this is the {'lowest' if e.statistic == 'min' else 'highest'}",
                           evidence=e.name, derived=derived, tolerance=tol, formula=e.derivation)
    shown = " and ".join(f"{e.name} = {_fmt(e.value)} ({e.derivation})" for e in ends)
    _, derived, tol = _holds(q, ends[0])
    return Outcome(q, "FAIL", "claim-mismatch", f"states {stated}, but {said}, and it is neither: {shown}",
                   evidence=ends[0].name, derived=derived, tolerance=Decimal(0) if bound else tol, formula=ends[0].derivation)


def _server_means(local: str) -> bool:
    """Return whether `local` names server means ("the baseline server means"), not their SD."""
    return bool(re.search(r"\bserver means?\b", local)) and not re.search(r"\bsd\b|standard deviation", local)


#: The words between two numbers of one list ("1 s and 4 s", "1 s, 2 s, and 4 s").
_LIST_CONTINUATION = re.compile(r"\s*(?:,|,?\s*(?:and|or))\s*", re.IGNORECASE)


def _narrow(q: Quantity, quantities: Sequence[Quantity], evidence: Sequence[Evidence], keys: dict[str, str],
            local: str) -> tuple[list[Evidence], list[str]]:
    """Return the evidence values the wording of `q` singles out, and the wording used (empty when nothing narrows)."""
    pool = [e for e in evidence if e.source in ("derived", "plan") and e.statistic != "count" and not e.nouns]
    used: list[str] = []
    found = _keys_of(q, set(keys))
    if found:
        key = keys[found[0]]
        pool = [e for e in pool if key in e.keys]
        if any(e.level == "arm" and key in e.keys for e in pool) and not _server_means(local):  # an arm named: its arm-level values
            pool = [e for e in pool if e.level != "server"] or pool
        used.append(f"'{found[0]}'")
    elif _LIST_CONTINUATION.fullmatch(q.before) and (named := next(iter(key_finder(set(keys))(q.sentence)), None)):
        # "the candidate's min and max were 1 s and 4 s": a later number of a list is its sentence's subject's, never another arm's
        pool = [e for e in pool if not e.keys or keys[named] in e.keys]
        used.append(f"'{named}'")
    statistic = _statistic(local)
    named = None if statistic else _extreme(local, q.unit)  # "the fastest request took 3 s": a minimum, never a mean
    if statistic is None and named is None and not q.role:
        statistic = _statistic(q.sentence.lower())
    if statistic:
        narrowed = [e for e in pool if e.statistic == statistic or (statistic == "mean" and e.statistic == "mean")]
        if statistic == "mean" and _server_means(local):
            narrowed = [e for e in narrowed if e.level == "server"] or narrowed
        pool = narrowed
        used.append(f"'{statistic}'")
    elif named is not None:
        pool = [e for e in pool if e.statistic in named[1]]
        used.append(f"'{named[0]}'")
    said = _words(local) | ({q.unit.lower()} if q.unit else set())
    topics = [e for e in pool if e.topics & said]
    if topics and len(topics) < len(pool):
        pool = topics
        used.append("'" + "/".join(sorted(set().union(*(e.topics & said for e in topics)))) + "'")
    if used and not statistic:
        primary = [e for e in pool if e.primary]
        if primary:
            pool = primary
    return pool, used


def _bind_value(q: Quantity, quantities: Sequence[Quantity], evidence: Sequence[Evidence], pairs: Sequence[Pair],
                keys: dict[str, str], local: str) -> Outcome:
    if q.role:
        return _bind_arrow(q, quantities, pairs, keys)
    pool, used = _narrow(q, quantities, evidence, keys, local)
    bound = _bound_of(q)
    if used:
        if not pool:
            return _unchecked(q, f"the wording ({', '.join(used)}) names no value the evidence derives")
        fits = [e for e in pool if _compatible(q, e)]
        if not fits and len(used) == 1 and _keys_of(q, set(keys)):
            # only an arm or server is named: its values of other dimensions are not derived, which is not a contradiction
            return _unchecked(q, f"the wording names only {used[0]}, and the evidence derives nothing in {q.unit or 'no unit'} for it")
        if fits and bound is not None:
            if len({(e.value, e.unit) for e in fits}) == 1 or all(_bound_holds(bound[0], bound[1], q.value, _holds(q, e)[1]) for e in fits):
                return _judge_bound(q, fits, bound, "bound", f"the wording ({', '.join(used)}) names")
            return _unchecked(q, f"a bound, but the wording ({', '.join(used)}) leaves {len(fits)} values and not all lie on its side")
        if not fits and len({e.name for e in pool}) > 1:  # the wording leaves several values: naming none, it contradicts none
            return _unchecked(q, f"the wording ({', '.join(used)}) leaves {len({e.name for e in pool})} values, none in the dimension of {q.unit or 'no unit'}")
        if not fits:
            e = pool[0]
            return Outcome(q, "FAIL", "unit-mismatch",
                           f"states {q.stated}, but the wording ({', '.join(used)}) names {e.name}, which is in {e.unit or 'no unit'} "
                           f"({units.parse(e.unit).dimension if e.unit and units.known(e.unit) else 'a count'}), "
                           f"not {q.unit} ({units.parse(q.unit).dimension if q.unit and units.known(q.unit) else '?'})",
                           evidence=e.name, formula=e.derivation)
        for e in fits:
            ok, derived, tol = _holds(q, e)
            if ok:
                return _pass(q, e, "plan-count" if e.source == "plan" else "bound", derived, tol)
        only_key = len(used) == 1 and bool(_keys_of(q, set(keys))) and not _statistic(local) and not _statistic(q.sentence.lower())
        if only_key and q.unit is not None:  # "B1 took 107.00 s": its mean, one of its requests? the words do not say
            key = keys[_keys_of(q, set(keys))[0]]
            return _unbound(q, [used[0].strip("'")], [e for e in evidence if key in e.keys and e.source in ("derived", "receipts")
                                                     and _compatible(q, e)] or fits)
        if len(fits) > 1 and all(e.level == "server" for e in fits) and _server_means(local):  # which server's mean is not said
            return _unbound(q, [u.strip("'") for u in used], fits)
        named_only_by_key = q.unit is None and only_key
        if len({(e.value, e.unit) for e in fits}) == 1 and not named_only_by_key:  # a bare number near an arm's name is not yet its latency
            e = fits[0]
            ok, derived, tol = _holds(q, e)
            return _mismatch(q, e, derived, tol, f"the wording ({', '.join(used)}) says")
        shown = ", ".join(e.name for e in fits[:4]) + (f", and {len(fits) - 4} more" if len(fits) > 4 else "")
        leaves = f"{len(fits)} values ({shown}) and none is" if len(fits) > 1 else f"one value ({shown}), which is not"
        return _unchecked(q, f"the wording ({', '.join(used)}) leaves {leaves} {q.stated}")
    if bound is not None:
        return _unchecked(q, "a bound, but the wording names no value the evidence derives")
    if q.unit is None and _foreign_noun(q):
        return _unchecked(q, f"it counts '{_foreign_noun(q)}', which the evidence does not count")
    fits = [e for e in evidence if e.source in ("derived", "plan") and q.unit is not None and _compatible(q, e)] if q.unit else \
        [e for e in evidence if e.source in ("derived", "plan")]
    for e in fits:
        ok, derived, tol = _holds(q, e)
        if ok:
            note = "" if q.unit else f"; no unit stated, read as {e.unit}" if e.unit else ""
            return _pass(q, e, "plan-count" if e.source == "plan" else "bound", derived, tol, note)
    if re.fullmatch(r"(19|20)\d\d", q.number) and q.unit is None:
        return Outcome(q, "PASS", "informational", f"{q.number} is a year, not a quantity")
    return _unchecked(q, "no derived value, plan count or gate threshold has this value, and the wording names none")


def _bind_arrow(q: Quantity, quantities: Sequence[Quantity], pairs: Sequence[Pair], keys: dict[str, str]) -> Outcome:
    """Judge one end of "A -> B": the pair of values whose other end or this end matches, else the gate's headline pair."""
    other = quantities[q.partner] if q.partner is not None and q.partner < len(quantities) else None
    usable = [p for p in pairs if _compatible(q, p.base)]
    if not usable:
        return _unchecked(q, "an arrow pair, but the evidence derives no baseline/candidate pair in this unit")
    # the statistic its own words name, else its other end's (one arrow, one pair), else the sentence's
    statistic = _statistic(_local(q)) or (_statistic(_local(other)) if other is not None else None) or _statistic(q.sentence.lower())
    if statistic:
        usable = [p for p in usable if p.base.statistic == statistic] or usable
    mine = (lambda p: p.base) if q.role == "from" else (lambda p: p.cand)
    theirs = (lambda p: p.cand) if q.role == "from" else (lambda p: p.base)
    chosen = None
    for p in usable:
        if _holds(q, mine(p))[0] or (other is not None and _holds(other, theirs(p))[0]):
            chosen = p
            break
    if chosen is None:
        primary = [p for p in usable if p.primary]
        chosen = primary[0] if primary else (usable[0] if len(usable) == 1 else None)
    if chosen is None:
        return _unchecked(q, "an arrow pair that matches no baseline/candidate pair the evidence derives")
    e = mine(chosen)
    ok, derived, tol = _holds(q, e)
    if ok:
        return _pass(q, e, "bound", derived, tol, f"; the {'start' if q.role == 'from' else 'end'} of an arrow is the {'baseline' if q.role == 'from' else 'candidate'}")
    return _mismatch(q, e, derived, tol, f"as the {'start' if q.role == 'from' else 'end'} of an arrow (the {'baseline' if q.role == 'from' else 'candidate'})")


def _pair_for(q: Quantity, arrows_of: dict[tuple[str, int, str], list[Quantity]], pairs: Sequence[Pair]) -> tuple[Pair | None, bool]:
    """Return the pair a relative phrase compares and whether the sentence ties it to that pair (arrow or arm words)."""
    time_pairs = [p for p in pairs if p.base.unit and units.known(p.base.unit) and units.parse(p.base.unit).dimension == "time"]
    arrows = [o for o in arrows_of.get((q.source, q.line, q.sentence), ()) if o is not q]
    statistic = _statistic(_local(q))
    for o in arrows:
        for p in time_pairs:
            if _compatible(o, p.base) and (_holds(o, p.base if o.role == "from" else p.cand)[0]):
                return p, True
    candidates = [p for p in time_pairs if p.base.statistic == statistic] if statistic else []
    primary = [p for p in time_pairs if p.primary]
    chosen = (candidates or primary or time_pairs or [None])[0]
    words = _words(f"{q.sentence} {q.context}")
    tied = bool(arrows) or bool(words & {"baseline", "candidate"}) or q.source.endswith("#/headline")
    return chosen, tied


def _bind_relative(q: Quantity, pairs: Sequence[Pair], keys: dict[str, str], ids: _Ids) -> Outcome:
    local_words = _words(_local(q))
    if local_words & FOREIGN_WORDS:
        return _unchecked(q, f"it is about {', '.join(sorted(local_words & FOREIGN_WORDS))}, which the evidence derives no pair for")
    pair, tied = _pair_for(q, ids.arrows, pairs)
    if pair is None:
        return _unchecked(q, "the evidence derives no baseline/candidate pair to compare")
    speedish = q.phrase in ("pct-faster", "pct-slower", "x-faster", "x-as-fast", "x-slower", "speedup", "x-less")
    if not (tied or speedish or _words(f"{q.sentence} {q.context}") & LATENCY_WORDS):
        return _unchecked(q, "nothing in its sentence ties it to the baseline/candidate latencies")
    b, c = pair.base.value, pair.cand.value
    unit_kind = q.unit
    same_unit = {k: v for k, v in PHRASES.items() if v[3] == unit_kind}
    where = f"{pair.name}: baseline {_fmt(b)} {pair.base.unit}, candidate {_fmt(c)} {pair.cand.unit}"
    tol = stats.tolerance(q.value)
    if q.phrase is not None:
        meaning, text, formula, _ = PHRASES[q.phrase]
        derived = formula(b, c)
        if stats.compare(q.value, derived, declared=tol).holds:
            return Outcome(q, "PASS", "bound", f'{q.stated} ("{meaning}" = {text}) re-derives: {_fmt(derived)} from {where}',
                           evidence=pair.name, derived=derived, tolerance=tol, formula=f"{text} on {where}")
        for key, (other_meaning, other_text, other_formula, _) in same_unit.items():
            if other_formula is formula:
                continue
            other = other_formula(b, c)
            if stats.compare(q.value, other, declared=tol).holds:
                return Outcome(q, "FAIL", "wording-mismatch",
                               f'states "{q.number} {q.unit} {_phrase_words(q)}": that wording means {text}, which the evidence gives as '
                               f'{_fmt(derived)} {q.unit}; {q.number} {q.unit} is {other_text} ("{other_meaning}") ({where})',
                               evidence=pair.name, derived=derived, tolerance=tol, formula=f"{text} on {where}",
                               extra={"wording_means": text, "value_is": other_text})
        status = "FAIL" if tied or speedish else "UNVERIFIED"
        code = "claim-mismatch" if status == "FAIL" else "unchecked-claim"
        shown, compared = comparison_text(q.value, derived, tol, q.unit or None)
        return Outcome(q, status, code, f'states {q.stated} ("{meaning}" = {text}), but the evidence gives {shown} '
                                        f'({compared}; {where})', evidence=pair.name, derived=derived, tolerance=tol,
                       formula=f"{text} on {where}")
    for key, (meaning, text, formula, _) in same_unit.items():
        derived = formula(b, c)
        if stats.compare(q.value, derived, declared=tol).holds:
            return Outcome(q, "PASS", "bound", f'{q.stated} (no wording; equals {text}) re-derives: {_fmt(derived)} from {where}',
                           evidence=pair.name, derived=derived, tolerance=tol, formula=f"{text} on {where}")
    return _unchecked(q, f"it has no wording that names a formula, and no formula on {where} gives it")


def _phrase_words(q: Quantity) -> str:
    m = re.match(r"^\s*([\w-]+(?:\s+[\w-]+)?)", q.after)
    return m.group(1) if m else ""
