"""
The one rule derivation of the package: select -> derive (`verifier.engine.stats.derive`) -> judge (`stats.compare`, by the caller).

`derive_rule` reads what a claim or gate rule asks (its `statistic`,
`selection`, the `per` key of one instance, `value`, `q`, `method`,
`confidence`, `scale`, `baseline`/`candidate`, `of`, `numerator`/`denominator`),
asks a `Source` for the values that selection names, in the shape the
statistic needs, and hands them to `stats.derive`. Two sources exist:

- `verifier.readers.select.RecordSource`: a profile's receipts (the
  evidence model's `Receipt`s of one receipt set), every statistic of
  `stats.STATISTICS` that takes selected values;
- `verifier.checks.derivation.CampaignSource`: a native bundle's campaign
  (plan and receipts indexed by `campaign.campaign_of`), each latency
  statistic over every planned request of the selection (the planned
  denominator), counts of requests, worker exits or quality comparisons.

A source raises `stats.Underivable` for a selection it cannot give (empty,
incomplete denominator, a statistic it has no values for).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import Any, Protocol

from verifier.engine import stats

from verifier.model import units
from verifier.model.findings import Finding, Status
from verifier.model.evidence import Location
from verifier.model.numtext import comparison_text, delta_text, number, tolerance_text
from verifier.engine.stats import Underivable

__all__ = ["CAMPAIGN_STATISTICS", "RECORD_STATISTICS", "Refused", "Source", "Stated", "Underivable", "arm_name", "claim_finding", "derive_rule", "for_stated_unit", "judge", "not_derivable"]

#: The statistics a rule may name over a profile's receipts (`readers.select.RecordSource`): the whole vocabulary
#: `stats.STATISTICS` (the pair statistics `ratio` and `relative_change_pct` take the two arms' means of server means).
RECORD_STATISTICS = stats.STATISTICS
#: The statistics a native gate rule may name (`checks.derivation.CampaignSource`): its receipts carry one value, the
#: latency, so the sample, group and arm statistics of it and counts; no confidence interval (a gate names no
#: confidence level), no ratio of sums (no second value to sum), no pair statistic.
CAMPAIGN_STATISTICS = stats.SAMPLE_STATISTICS + stats.ROBUST_STATISTICS + stats.GROUP_STATISTICS + stats.ARM_STATISTICS


def not_derivable(rules: Sequence[dict[str, Any]], derivable: Sequence[str], source: str) -> tuple[int, str] | None:
    """
    Return `(index, why)` for the first of `rules` whose `statistic` is outside `derivable`, or None.

    For the load-time refusal of a gate or profile whose schema allows the
    whole vocabulary (`stats.STATISTICS`) while its `source` (a native
    campaign, a profile's receipts) cannot derive some of it.
    """
    for i, rule in enumerate(rules):
        statistic = rule.get("statistic")
        if statistic in stats.STATISTICS and statistic not in derivable:
            why = ("it takes two given numbers, not a selection" if statistic in stats.PAIR_STATISTICS
                   else f"the statistics it can give are {', '.join(derivable)}")
            return i, f"statistic {statistic!r} cannot be derived from {source}: {why}"
    return None


class Source(Protocol):
    """
    Where `derive_rule` takes a rule's values from; each method returns `(values, of)`, `of` describing them for the derivation text.

    `basis` is the object the values are read from (a list of receipts, a
    campaign): a memo entry is kept against it, so two sources over one basis
    share derivations. `selection` maps a dimension to a value (or a list of
    values); `name` is the rule's `value` (default `latency`). Every method
    raises `stats.Underivable` when the evidence cannot give the values.
    """

    basis: object

    def label(self, selection: dict[str, Any]) -> str:
        """The selection as the derivation texts name it ("arm=a, phase=measured")."""

    def count(self, rule: dict[str, Any], selection: dict[str, Any]) -> tuple[Sequence[Any], str]:
        """The items a `count` rule counts (receipts, worker exits, comparisons)."""

    def values(self, selection: dict[str, Any], name: str) -> tuple[list[Decimal], str]:
        """One sequence of Decimal values (sample statistics, confidence intervals)."""

    def groups(self, selection: dict[str, Any], name: str) -> tuple[dict[str, list[Decimal]], str]:
        """Server -> values (group statistics)."""

    def arms(self, selection: dict[str, Any], name: str, baseline: str, candidate: str) -> tuple[dict[str, dict[str, list[Decimal]]], str]:
        """Arm -> server -> values for the two arms (each arm replacing any `arm` of `selection`)."""

    def sums(self, selection: dict[str, Any], numerator: str, denominator: str) -> tuple[list[list[Decimal]], str]:
        """The numerator and denominator sequences of `ratio_of_sums`."""


@dataclasses.dataclass(frozen=True)
class Stated:
    """
    One stated number and what derives it (a receipt reader's `stated`, a gate's or profile's claim), judged by `judge`.

    `label` names it in messages, `pointer` locates it; `rule` is what `derive_rule` derives over `source` (a count's
    `description` says what it counts), or None with `why` not (`unit` the stated one). `conflict` `(pointer, text,
    observed)`: the receipt's words contradict themselves (FAIL). `alternative` `(rule, text)`: the rule those words rule
    out, and what to say (`{derived}` filled in) when the value is its derivation. `samples` `(n, pointer, noun)`: a
    stated sample size that must be the number of inputs.

    How its producer words and computes it: `refused`, the finding the reader gives instead of a derivation (its
    status, code and message; e.g. nothing was measured), reported as it is. `how` words the derivation as
    `claim_finding` does (PASS `derived`, FAIL `claim-mismatch` with the delta and tolerance); with it, `scale` converts
    the derived value to the stated unit (1000: s -> ms), `input_error` bounds each input's own float error
    (`stats.tolerance`; a span's `stats.clock_span_error`), `steps` counts the binary64 operations the producer
    applied to each input before the statistic (`stats.tolerance`; its x 1000 for ms), and `float_bound` False judges the number at its stated precision alone (no float error of
    the statistic over its inputs); `bound`, when given, the keywords of `stats.tolerance` that judge it instead (`exact`:
    a count; `source`: a value as its own carrier printed it). `words` `(passed, failed)`: the messages of a count
    (`str.format` with `claimed` and `derived`), the producer's identity worded as it states it. `path` is the file its
    finding names: "" (the default) the receipt's, None none (a receipt directory's rows name their own carriers), any
    other text that file (a matrix directory's `summary.json`).

    The gate's and profile's claims are rows too: `key` and `memo` as `derive_rule` takes them; `style` "gate" (a stated
    `unit` converts into the rule's, precision carried; FAIL `unit-mismatch` at `unit_pointer`) or "profile" (the derived
    value converts into the stated `unit`, bounded with `scale` and `steps`); the profile's hooks `adjust(derived, text)`
    (its rule's unit, margin, factor; raises `Underivable`), `explain(exc)` (the `Underivable` to report) and
    `other(claimed, derived, unit, text)` (a mismatch's finding instead, or None). The rule's `tolerance` is declared.
    """

    label: str
    claimed: Any
    pointer: str | None
    rule: dict[str, Any] | None
    source: Any = None
    why: str = ""
    unit: str = ""
    mismatch: str = "claim-mismatch"
    conflict: tuple[str, str, Any] | None = None
    alternative: tuple[dict[str, Any], str] | None = None
    samples: tuple[int, str, str] | None = None
    refused: Refused | None = None
    how: str | None = None
    scale: Decimal = Decimal(1)
    input_error: Decimal | None = None
    float_bound: bool = True
    steps: int = 0
    words: tuple[str, str] | None = None
    bound: dict[str, Any] | None = None
    path: str | None = ""
    key: dict[str, str] = dataclasses.field(default_factory=dict)
    memo: dict[Any, Any] | None = None
    style: str = "receipt"
    unit_pointer: str | None = None
    adjust: Callable[[Decimal, str], tuple[Decimal, str]] | None = None
    explain: Callable[[Underivable], Underivable] | None = None
    other: Callable[[Decimal, Decimal, str, str], Finding | None] | None = None


@dataclasses.dataclass(frozen=True)
class Refused:
    """
    The finding a receipt reader gives for a stated number instead of its derivation (`Stated.refused`), or for a number
    it derives that nothing states.

    A refusal (nothing was measured: FAIL or UNVERIFIED), or the producer's own rule on where a number may be stated
    (an HTTP matrix's failed round states no percentile; no steady-state window when n <= 2c), which may PASS.
    `status`, `code` and `message` as the finding reports them; `expected` and `observed` (JSON values, None: not
    given) likewise; an `observed` not given is the stated number (`Stated.claimed`) as text, when one is stated. A number
    the reader derives that nothing states is its `expected`, never its `observed` (the claims table's claimed side). Its pointer is the `Stated` one (None: the finding names no place, e.g. nothing is stated).
    """

    status: Status
    code: str
    message: str
    expected: Any = None
    observed: Any = None


def arm_name(template: str, key: dict[str, str]) -> str:
    """Return the arm a rule's `baseline`/`candidate` names: literal, or `{dim}` taken from the instance key (e.g. each case against "bf16")."""
    if template.startswith("{") and template.endswith("}") and template[1:-1] in key:
        return key[template[1:-1]]
    return template


#: Members of a claim or gate rule that say where a value is stated or how it is judged, not what is derived: rules that
#: differ only in these (one table published as JSON, CSV and Markdown) derive the same value, which `derive_rule` memoises.
_NOT_DERIVED = frozenset({"id", "at", "minus", "unit", "tolerance", "description", "per", "min", "max", "bounds_at", "recorded", "pick", "below_baseline", "value_by_unit"})


def derive_rule(rule: dict[str, Any], source: Source, key: dict[str, str], memo: dict[Any, Any] | None = None) -> stats.Derived:
    """
    Return the `stats.Derived` value of one claim or gate rule over `source`: select, then `stats.derive`.

    `key` holds the `per` dimension values of this instance (e.g.
    `{"server": "s1"}`); they join the rule's `selection`. Statistics of a
    value are in the base unit of its dimension (seconds, bytes, ...; callers
    convert to the claim's unit). `relative_reduction_pct`, `speedup`,
    `difference` (baseline minus candidate), `ratio` and `relative_change_pct`
    compare each arm's mean of server means, or, with `of`, the statistic `of`
    names derived per arm;
    `baseline`/`candidate` may be `{dim}`, taken from `key` (`arm_name`).

    With `memo` (a dict the caller keeps for one run), a rule whose every
    other member equals an earlier one's (`_NOT_DERIVED` aside) over the same
    `source.basis` and `key` returns that derivation (or raises its
    `Underivable`) again instead of deriving it anew: the claims on the same
    row of a table published three times derive once. The memo also keeps
    each rule object's signature, so a rule must not change during the run.

    Raises `stats.Underivable` when the source cannot give the values or the
    statistic is undefined over them (`stats.derive`).
    """
    if memo is not None:
        shown = memo.get(("rule", id(rule)))  # a rule's own signature, once per rule object (kept with it, so its id is its own)
        if shown is None or shown[0] is not rule:
            shown = memo[("rule", id(rule))] = (rule, repr([item for item in rule.items() if item[0] not in _NOT_DERIVED]))
        basis = source.basis
        signature = (id(basis), shown[1], tuple(key.items()))  # key values are dimension texts: hashable, equal when their reprs are
        kept = memo.get(signature)
        if kept is None or kept[0] is not basis:  # the memo holds the basis, so its id names no other object while kept
            try:
                kept = memo[signature] = (basis, derive_rule(rule, source, key), None)
            except Underivable as exc:
                kept = memo[signature] = (basis, None, exc)
        if kept[2] is not None:
            raise kept[2]
        return kept[1]  # type: ignore[no-any-return]
    statistic = rule["statistic"]
    selection = {**rule.get("selection", {}), **key}
    name = rule.get("value", "latency")
    if statistic in stats.COUNT_RESULTS:  # `count_ok`: the successes only (a failed receipt's outcome is not in `ok_outcomes`)
        items, of = source.count(rule, selection)
        return stats.derive(statistic, items if statistic == "count" else [item.ok for item in items], of=of)
    if statistic in stats.ARM_STATISTICS + stats.PAIR_STATISTICS and isinstance(rule.get("of"), dict):
        # the change of another statistic (e.g. of the median, the max) per arm, not of the arms' means of server means
        base_sel = {k: v for k, v in selection.items() if k != "arm"}
        baseline, candidate = arm_name(rule["baseline"], key), arm_name(rule["candidate"], key)
        inner = {k: v for k, v in rule.items() if k not in ("of", "baseline", "candidate")}
        inner = {**inner, **rule["of"], "selection": base_sel}
        b, c = derive_rule(inner, source, {"arm": baseline}), derive_rule(inner, source, {"arm": candidate})
        if statistic in stats.ARM_STATISTICS:
            result = stats.derive(statistic, {baseline: {"": [b.value]}, candidate: {"": [c.value]}}, baseline=baseline, candidate=candidate, of=source.label(selection))
        else:  # ratio = candidate / baseline, relative_change_pct = (candidate - baseline) / baseline * 100
            result = stats.derive(statistic, (c.value, b.value) if statistic == "ratio" else (b.value, c.value), of=source.label(selection))
        return dataclasses.replace(result, text=f"{result.text}; baseline: {b.text}; candidate: {c.text}", inputs=b.inputs + c.inputs)
    if statistic in stats.ARM_STATISTICS:
        baseline, candidate = arm_name(rule["baseline"], key), arm_name(rule["candidate"], key)
        arms, of = source.arms(selection, name, baseline, candidate)
        return stats.derive(statistic, arms, baseline=baseline, candidate=candidate, of=of)
    if statistic in stats.PAIR_STATISTICS:  # the arms' means of server means as the pair: ratio = candidate / baseline, relative_change_pct = (candidate - baseline) / baseline * 100
        baseline, candidate = arm_name(rule["baseline"], key), arm_name(rule["candidate"], key)
        arms, of = source.arms(selection, name, baseline, candidate)
        b, c = (stats.derive("mean_of_server_means", arms[arm], of=f"arm {arm}, {of}") for arm in (baseline, candidate))
        result = stats.derive(statistic, (c.value, b.value) if statistic == "ratio" else (b.value, c.value), of=of)
        return dataclasses.replace(result, text=f"{result.text}; baseline: {b.text}; candidate: {c.text}", inputs=b.inputs + c.inputs)
    if statistic in stats.REGRESSION_STATISTICS:  # y (`value`) on x (the declared value `x`), one pair per receipt, in file order
        xs, _ = source.values(selection, rule["x"])
        ys, _ = source.values(selection, name)
        return stats.derive(statistic, (xs, ys), of=f"({rule['x']}, {name}) of receipts ({source.label(selection)})")
    if statistic in stats.GROUP_STATISTICS:
        groups, of = source.groups(selection, name)
        return stats.derive(statistic, groups, of=of)
    if statistic in stats.SUM_RATIO_STATISTICS:  # sum(numerator) / sum(denominator) over the one selection
        parts, of = source.sums(selection, rule["numerator"], rule["denominator"])
        return stats.derive(statistic, parts, of=of)
    values, of = source.values(selection, name)
    return stats.derive(statistic, values, q=rule.get("q"), method=rule.get("method"), confidence=rule.get("confidence"), scale=rule.get("scale"), of=of)


def for_stated_unit(rule: dict[str, Any], stated_unit: str | None) -> dict[str, Any]:
    """
    Return the claim `rule` deriving the value its `value_by_unit` names for `stated_unit`, or `rule` itself.

    The alternative whose `unit` has the dimension of `stated_unit` replaces
    the rule's `value` and `unit` (MLPerf's `Units` column: a row in
    `Tokens/s` derives the tokens per second, one in `Samples/s` the claim's
    own samples per second). No stated unit, an unknown one, or one no
    alternative has (the claim's own dimension, or another: then the
    comparison reports `unit-mismatch`) keeps `rule`. The load
    (`verifier.profiles.language`) made each alternative's dimension its own, so at
    most one matches.
    """
    if stated_unit is None or "value_by_unit" not in rule or not units.known(stated_unit):
        return rule
    dimension = units.parse(stated_unit).dimension
    for alt in rule["value_by_unit"]:
        if units.parse(alt["unit"]).dimension == dimension:
            return {**rule, "value": alt["value"], "unit": alt["unit"]}
    return rule


def claim_finding(check_id: str, claimed: Any, derived: Decimal, *, name: str | None, pointer: str | None, label: str,
                  how: str, scale: Decimal = Decimal(1), **bound: Any) -> Finding:
    """
    Compare a stated number with its derivation at the precision it is stated (the receipt readers' and rule packs' checks).

    `claimed` is the receipt's number (int or `Decimal`), `derived` the
    re-derived exact value in the unit of its inputs, `scale` what converts
    it to the stated unit (1000: s -> ms; the message and `expected` give it
    converted); `bound` takes the other keywords of `stats.tolerance`
    (`statistic`, `values`, `exact`, `source`, `declared`, `input_error`), the one
    place tolerances are computed. Returns PASS `derived` or FAIL
    `claim-mismatch`; the message writes the derived value and the delta at
    the stated places plus two (`numtext.comparison_text`), the finding's
    `expected` and `observed` keep them exact.
    """
    if scale != 1:
        derived = derived * scale
        bound["scale"] = scale
    c = Decimal(claimed)
    cmp = stats.compare(c, derived, **bound)
    detail = cmp.detail(c, derived)
    shown, compared = comparison_text(c, derived, cmp.tolerance)  # the stated places plus two (more while the outcome needs them)
    if cmp.holds:
        return Finding(check=check_id, status=Status.PASS, code="derived", message=f"{label} = {c} re-derives ({shown}) from {how}",
                       path=name, pointer=pointer, expected=str(derived), observed=detail, derivation=how)
    return Finding(check=check_id, status=Status.FAIL, code="claim-mismatch",
                   message=f"{label} = {c}, but {how} gives {shown} ({compared}: docs/tolerances.md)",
                   path=name, pointer=pointer, expected=str(derived), observed=detail, derivation=how)


def judge(s: Stated, check_id: str, name: str | None, noun: str) -> Iterator[Finding]:
    """
    Judge one stated number (`derive.Stated`, from any road: a native claim, a receipt's number, a profile's claim site) into its findings.

    The one road after a number is found: refused, contradicted or not derivable as the row says; else derived
    (`derive_rule` over `s.source` with `s.key`, then `s.adjust`), its unit reconciled with the stated one (`s.style`),
    bounded (`stats.tolerance`: the statistic over its inputs, the rule's `tolerance`, `s.scale`, `s.steps`) and compared
    (`stats.compare`). `name` is the file a row with `path` "" names, `noun` what gives the derived value in messages
    ("the receipts", "the cases"). Yields one finding: PASS `derived`; FAIL `s.mismatch` (`claim-mismatch` by default),
    `unit-mismatch`, `definition-contradicts-value`, `samples-mismatch`, or an `Underivable`'s code (FAIL or UNVERIFIED
    as it says); UNVERIFIED `not-derivable`; a refused number, its `derive.Refused` finding (observed: the stated number
    as text when the refusal gives none, so every report shows it as claimed).
    """
    name = name if s.path == "" else s.path  # a receipt directory's row names its own carrier, or no file

    def f(status: Status, code: str, message: str, **kw: Any) -> Finding:
        return Finding(check=check_id, status=status, code=code, message=message, path=name, **{"pointer": s.pointer, **kw})

    if s.refused is not None:  # a refused stated number is its finding's observed unless the reader says otherwise
        observed = s.refused.observed if s.refused.observed is not None or s.claimed is None else str(s.claimed)
        yield f(s.refused.status, s.refused.code, s.refused.message, expected=s.refused.expected, observed=observed)
        return
    if s.conflict is not None:
        yield f(Status.FAIL, "definition-contradicts-value", f"{s.label}: {s.conflict[1]}", pointer=s.conflict[0], observed=s.conflict[2])
        return
    if s.rule is None:
        yield f(Status.UNVERIFIED, "not-derivable", f"{s.label} = {s.claimed} {s.unit}: not re-derived: {s.why}", observed=str(s.claimed))
        return
    try:
        result = derive_rule(s.rule, s.source, s.key, s.memo)
        derived, text = result.value, result.text
        if s.adjust is not None:
            derived, text = s.adjust(derived, text)
    except Underivable as exc:
        exc = s.explain(exc) if s.explain is not None else exc
        yield f(Status.FAIL if exc.fail else Status.UNVERIFIED, exc.code, f"{s.label} = {s.claimed}: {exc}" if s.style == "gate" else f"{s.label}: {exc}",
                observed=None if s.claimed is None else str(s.claimed))
        return
    if s.rule["statistic"] in stats.COUNT_RESULTS and s.style == "receipt":
        how, n = s.rule.get("description"), int(derived)
        holds = stats.compare(s.claimed, derived, exact=True).holds
        if s.words is not None:
            message = s.words[0 if holds else 1].format(claimed=s.claimed, derived=n)
        else:
            message = f"{s.label} = {s.claimed} re-derives ({how})" if holds else f"{s.label} = {s.claimed}, but {noun} give {n} ({how})"
        yield f(Status.PASS if holds else Status.FAIL, "derived" if holds else s.mismatch, message, expected=n, observed=s.claimed, derivation=how)
        return
    if s.how is not None:  # worded as the producer's own identities are (`claim_finding`)
        bound = s.bound if s.bound is not None else (
            {"statistic": result.statistic, "values": result.inputs, "input_error": s.input_error, "steps": s.steps} if s.float_bound else {})
        yield claim_finding(check_id, s.claimed, derived, name=name, pointer=s.pointer, label=s.label, how=s.how, scale=s.scale, **bound)
        return
    if s.samples is not None and not stats.compare(s.samples[0], Decimal(len(result.inputs)), exact=True).holds:
        yield f(Status.FAIL, "samples-mismatch", f"{s.label} says {s.samples[0]} samples, {noun} record {len(result.inputs)} {s.samples[2]}",
                pointer=s.samples[1], expected=len(result.inputs), observed=s.samples[0])
        return
    claimed, unit, rule_unit = s.claimed, s.unit, s.rule.get("unit") or ""
    bound = {"statistic": result.statistic, "values": result.inputs, "declared": s.rule.get("tolerance"), "scale": s.scale, "steps": s.steps}
    latency = s.style == "gate" and result.statistic not in (*stats.COUNT_RESULTS, *stats.RATIO_RESULTS, *stats.PERCENT_RESULTS)
    if latency and (named := rule_unit or unit) and named != "s":  # a native statistic of latencies is in s: into the unit the rule (else the claim) names
        try:
            derived, bound["scale"] = units.convert(derived, "s", named), units.convert(Decimal(1), "s", named)
        except (units.UnitError, units.UnitMismatch):
            yield f(Status.FAIL, "unit-mismatch", f"{s.label}: the gate derives a latency statistic (in s), which cannot be written in {named}",
                    pointer=s.unit_pointer if not rule_unit else s.pointer, expected="s", observed=named, derivation=text)
            return
        text = f"{text}; in {named}: {derived}"
    if s.style == "gate" and unit and rule_unit and unit != rule_unit:  # a claim stated in another unit of the rule's dimension, converted exactly
        try:
            given, wanted = units.parse(unit), units.parse(rule_unit)
            converted = given.convert(claimed, wanted)
        except (units.UnitError, units.UnitMismatch) as exc:
            yield f(Status.FAIL, "unit-mismatch", f"{s.label} is stated in {unit}, but the gate derives it in {rule_unit}: {exc}",
                    pointer=s.unit_pointer, expected=rule_unit, observed=unit, derivation=text)
            return
        if bound["declared"] is None:  # the stated precision and the float bound in the stated unit, carried into the rule's unit
            in_stated = stats.tolerance(claimed, **{**bound, "scale": wanted.convert(bound["scale"], given)})
            bound["declared"] = abs(given.convert(in_stated, wanted))
        text = f"{text}; stated {claimed} {unit} = {converted} {rule_unit}"
        claimed, unit = converted, rule_unit
    elif s.style == "profile" and unit and unit != rule_unit:  # the derived value converted into the stated unit
        try:
            derived = units.convert(derived, rule_unit or "1", unit)
        except (units.UnitError, units.UnitMismatch):
            have = units.parse(rule_unit or "1").dimension  # the rule's unit was checked at load; "" is dimensionless
            stated_dim = units.parse(unit).dimension if units.known(unit) else "unknown unit"
            yield f(Status.FAIL, "unit-mismatch", f"{s.label}: {Location(name or '', s.pointer or '')} states {claimed} in {unit} ({stated_dim}), but the value "
                    f"it names is derived in {rule_unit or '1'} ({have}): {stats.fmt(derived)} {rule_unit}",
                    expected=f"{claimed} {unit}", observed=f"{derived} {rule_unit}", derivation=text)
            return
    elif s.style == "profile":
        unit = rule_unit
    cmp = stats.compare(claimed, derived, **bound)
    shown_unit = f" {unit}" if unit and unit != "1" else ""  # the dimensionless unit is not written ("count = 5")
    if s.style == "profile":
        bounded = tolerance_text(cmp.tolerance, unit or None)
        shown, bounded = (stats.fmt(derived), bounded) if cmp.holds else comparison_text(claimed, derived, cmp.tolerance, unit or None)
        if not cmp.holds:  # the digits the claims tables show: past the stated places until the delta reads on its side of the tolerance
            shown = shown[: -len(unit) - 1] if unit and unit != "1" else shown
            other = s.other(claimed, derived, unit, text) if s.other is not None else None
            if other is not None:  # the stated number is another value of the same receipt, e.g. tokens/s stated as samples/s
                yield other
                return
        yield f(Status.PASS if cmp.holds else Status.FAIL, "derived" if cmp.holds else s.mismatch, f"{s.label}: stated {claimed}{shown_unit}, derived {shown}{shown_unit} ({bounded})",
                expected=str(claimed), observed=str(derived), derivation=text)
        return
    detail = {"claim": s.label, **cmp.detail(claimed, derived)}
    if s.style == "gate":
        c, d, t = number(claimed), number(derived), tolerance_text(cmp.tolerance, unit or None)
        passed, failed = f"{s.label} = {c}{shown_unit} re-derives ({d}, {t})", f"{s.label} claims {c}{shown_unit}, {noun} give {d}{shown_unit} ({delta_text(cmp.delta, unit or None)}, {t})"
    else:
        passed, failed = f"{s.label} = {claimed} re-derives ({derived})", f"{s.label} = {claimed}, {noun} give {derived}"
    if cmp.holds:
        yield f(Status.PASS, "derived", passed, expected=str(derived), observed=detail, derivation=text)
    elif s.alternative is not None and stats.compare(claimed, (alt := derive_rule(s.alternative[0], s.source, {})).value,
                                                     statistic=alt.statistic, values=alt.inputs).holds:
        yield f(Status.FAIL, "definition-contradicts-value", f"{s.label} = {claimed}: " + s.alternative[1].format(derived=derived),
                expected=str(derived), observed=detail, derivation=text)
    else:
        yield f(Status.FAIL, s.mismatch, failed, expected=str(derived), observed=detail, derivation=text)
