"""Profile check (8) the profile's gate rules, last: each rule over the selection it declares, its bounds stated, recorded outcomes re-derived."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from verifier.engine import stats

from verifier.model import units
from verifier.checks.profile_base import _BRACKETED, _all_records, _derivations, _f, _one_site, _profile, evidence, examined
from verifier.checks.profile_claims import _convert, _held
from verifier.checks.profile_matches import outcome_of
from verifier.model.evidence import Location, Receipt, Site
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check
from verifier.model.numtext import at_places, bound_places, number, quantity
from verifier.readers.pointers import fmt
from verifier.engine.derive import derive_rule
from verifier.readers.select import RecordSource, Underivable, check_complete, instances, select

__all__ = ["gate"]


@check("gate.rules", title="The profile's gate rules, each over the selection it declares")
def gate(ctx: Context) -> Iterator[Finding]:
    """
    Judge each gate rule on re-derived numbers, then compare with the outcome the bundle records.

    One finding per rule: PASS `rule-met` or FAIL `rule-not-met` (a
    threshold `min`/`max` on the derived statistic, or `below_baseline`:
    for every `per` key the candidate's statistic is below the baseline's);
    UNVERIFIED when it cannot be derived. With `recorded`: PASS
    `recorded-agrees` or FAIL `recorded-disagrees` (for the whole gate, and
    per instance for a rule with its own `recorded`: `_recorded_per_instance`).
    """
    cid = "gate.rules"
    spec = _profile(ctx)["gate"]
    source, _, source_pointer = spec.get("source", "").partition("#")
    where = {"path": source or None, "pointer": source_pointer or None}
    outcomes: list[bool | None] = []
    for i, rule in enumerate(spec["rules"]):
        ptr = f"/gate/rules/{i}"  # the rule's sites in the model (`Site.rule`)
        records = _all_records(ctx, rule["receipts"])
        covers = ", ".join(f"{k}={v}" for k, v in sorted(rule["selection"].items()))
        if rule.get("unmatched") == "skip" and not select(records, rule["selection"]) and not _held(ctx, rule):
            continue  # a rule for a benchmark this tree does not hold (`unmatched: skip`): not applicable, no finding
        each: dict[tuple[tuple[str, str], ...], bool] = {}  # instance key -> met, for the outcomes the bundle records per instance
        try:
            if "below_baseline" in rule:
                met, text, observed = _below(rule, records, each, _derivations(ctx))
            elif "bounds_at" in rule:
                met, text, observed = _stated_bounds({b.key: b for b in evidence(ctx).sites_of(ptr, "bounds")}, rule, records, each, _derivations(ctx))
            else:
                met, text, observed = _threshold(rule, records, each, _derivations(ctx))
        except Underivable as exc:
            outcomes.append(None)
            yield _f(cid, Status.UNVERIFIED, exc.code, f"{rule['id']} (over {covers}): cannot be judged: {exc}", **where)
            if "recorded" in rule:
                yield from _recorded_per_instance(ctx, ptr, rule, records, each)
            continue
        outcomes.append(met)
        at = where
        if not met and not where["path"] and isinstance(observed, dict):  # a stated bound: the file of the first instance that misses it
            first = next((o for o in observed.values() if isinstance(o, dict) and o.get("met") is False and o.get("file")), None)
            at = {"path": first["file"], "pointer": None} if first else where
        yield _f(cid, Status.PASS if met else Status.FAIL, "rule-met" if met else "rule-not-met",
                 f"{rule['id']} (over {covers}): {'met' if met else 'not met'}: {_BRACKETED.sub('', text)}",
                 expected={k: rule[k] for k in ("min", "max", "below_baseline") if k in rule}, observed=observed, derivation=text, **at)
        if "recorded" in rule:
            yield from _recorded_per_instance(ctx, ptr, rule, records, each)
    if "recorded" in spec:
        at = spec["recorded"]
        site = _one_site(ctx, "/gate", "recorded")
        if site.problem is not None:
            yield _f(cid, Status.UNVERIFIED, "recorded-unreadable", f"the recorded gate outcome cannot be read: {site.detail}", path=at["file"], pointer=at["pointer"])
            return
        rel, pointer, recorded = site.location.file, site.location.pointer or "", site.value
        examined(ctx).add((rel, pointer))
        said = outcome_of(recorded, at.get("outcomes"))  # true/false, or a word the profile maps ("passed", "failed")
        if None in outcomes:
            yield _f(cid, Status.UNVERIFIED, "recorded-not-compared", "a rule could not be judged, so the recorded outcome is not compared", path=rel, pointer=pointer)
        elif said is None:
            words = sorted(w for ws in at.get("outcomes", {}).values() for w in ws)
            yield _f(cid, Status.FAIL, "recorded-not-boolean", f"{Location(rel, pointer)} holds {recorded!r}, not true/false" + (f" or one of the outcome words {words}" if words else ""),
                     path=rel, pointer=pointer)
        else:
            ours = all(outcomes)
            agree = ours == said
            shown = str(said).lower() if isinstance(recorded, bool) else f"{recorded!r} ({str(said).lower()})"
            yield _f(cid, Status.PASS if agree else Status.FAIL, "recorded-agrees" if agree else "recorded-disagrees",
                     f"the bundle records gate outcome {shown}; re-derived outcome is {str(ours).lower()}",
                     path=rel, pointer=pointer, expected=ours, observed=recorded)


def _recorded_per_instance(ctx: Context, ptr: str, rule: dict[str, Any], records: list[Receipt], each: dict[tuple[tuple[str, str], ...], bool]) -> Iterator[Finding]:
    """
    Compare the outcome the bundle records for each instance of a gate rule (`rule.recorded`, templated by `per`) with the re-derived one.

    One finding per instance: PASS `recorded-agrees`, FAIL `recorded-disagrees`,
    FAIL `recorded-not-boolean` (neither true/false nor a word `outcomes`
    maps), UNVERIFIED `recorded-unreadable` (nothing recorded at the
    instance's place), UNVERIFIED `recorded-not-compared` (the instance was
    not judged). Every place read counts as examined for coverage.
    """
    cid = "gate.rules"
    at = rule["recorded"]
    for site in evidence(ctx).sites_of(ptr, "recorded"):
        key = dict(site.key)
        label = rule["id"] + "".join(f"[{k}={v}]" for k, v in key.items())
        if site.problem is not None:
            yield _f(cid, Status.UNVERIFIED, "recorded-unreadable", f"{label}: the outcome recorded for this instance cannot be read: {site.detail}", path=at["file"], pointer=at["pointer"])
            continue
        rel, pointer, recorded = site.location.file, site.location.pointer or "", site.value
        examined(ctx).add((rel, pointer))
        ours = each.get(tuple(key.items()))
        said = outcome_of(recorded, at.get("outcomes"))
        if ours is None:
            yield _f(cid, Status.UNVERIFIED, "recorded-not-compared", f"{label}: this instance was not judged, so the outcome {Location(rel, pointer)} records is not compared",
                     path=rel, pointer=pointer, observed=recorded)
        elif said is None:
            words = sorted(w for ws in at.get("outcomes", {}).values() for w in ws)
            yield _f(cid, Status.FAIL, "recorded-not-boolean", f"{label}: {Location(rel, pointer)} holds {recorded!r}, not true/false" + (f" or one of the outcome words {words}" if words else ""),
                     path=rel, pointer=pointer, observed=recorded)
        else:
            shown = str(said).lower() if isinstance(recorded, bool) else f"{recorded!r} ({str(said).lower()})"
            yield _f(cid, Status.PASS if ours == said else Status.FAIL, "recorded-agrees" if ours == said else "recorded-disagrees",
                     f"{label}: {Location(rel, pointer)} records {shown}; re-derived outcome is {str(ours).lower()}", path=rel, pointer=pointer, expected=ours, observed=recorded)


def _with_unit(bound: str, unit: str | None) -> str:
    """Return `>= 2 and <= 5` with the rule's unit after each number (`>= 2 % and <= 5 %`); none for no unit or the dimensionless `1`."""
    if not unit or unit == "1":
        return bound
    return " and ".join(f"{part} {unit}" for part in bound.split(" and "))


def _judged(value: Decimal, bound: Any, unit: str | None) -> str:
    """Return a gate rule's derived value for its message: at the bound's places plus two, more until it reads on its side of the bound (`numtext.bound_places`), with its unit."""
    value = value.normalize() if value.is_finite() and value == value.to_integral_value() else value  # `80.0` as `80`, as before
    return quantity(value, unit) if bound is None else quantity(at_places(value, bound_places(value, str(bound))), None) + (f" {unit}" if unit and unit != "1" else "")


def _arms(arms: tuple[Decimal, Decimal] | None, rule: dict[str, Any], records: list[Receipt]) -> str:
    """
    Return `; baseline X s, candidate Y s` (6 significant digits): the two sides a comparison statistic compared, or `""`.

    Their unit is the unit of the rule's value in the records (the base unit of its dimension: `verifier.readers.records`).
    """
    if arms is None:
        return ""
    name = rule.get("value", "latency")
    unit = next((q.unit for r in records if (q := (r.quantities or {}).get(name)) is not None), None)
    shown = f" {unit}" if unit and unit != "1" else ""
    return f"; baseline {number(arms[0], digits=6)}{shown}, candidate {number(arms[1], digits=6)}{shown}"


def _threshold(rule: dict[str, Any], records: list[Receipt], each: dict[tuple[tuple[str, str], ...], bool] | None = None,
               memo: dict[Any, Any] | None = None) -> tuple[bool, str, Any]:
    """Judge a `min`/`max` rule: once over its selection, or for every `per` instance (all must hold)."""
    low, high = rule.get("min"), rule.get("max")
    bound = " and ".join(b for b in (f">= {low}" if low is not None else "", f"<= {high}" if high is not None else "") if b)  # min and max: a range
    chosen = select(records, rule["selection"])
    check_complete(chosen, "the selection")
    keys = instances(rule, records)
    if rule["statistic"] in stats.COUNT_RESULTS and records and not chosen and not rule.get("per"):  # read, nothing matches: the count is 0 (with `per`: no instance)
        ok = (low is None or low <= 0) and (high is None or high >= 0)
        text = f"{rule['statistic']} = 0 (needs {bound}): no receipt of the {len(records)} read matches {rule['selection']}"
        if each is not None and not rule.get("per"):
            each[()] = ok
        return ok, text, "0"
    if not keys:
        raise Underivable(f"no receipts match {rule['selection']}", "empty-selection")
    met, lines, observed = True, [], {}
    for key in keys:
        result = derive_rule(rule, RecordSource(records), key, memo)
        value, text = _convert(result.value, rule["statistic"], rule.get("unit")), result.text
        ok = (low is None or value >= Decimal(str(low))) and (high is None or value <= Decimal(str(high)))
        if each is not None:
            each[tuple(key.items())] = ok
        met = met and ok
        label = ",".join(f"{k}={v}" for k, v in key.items())
        lines.append(f"{label + ': ' if label else ''}{rule['statistic']} = {_judged(value, low if low is not None else high, rule.get('unit'))} "
                     f"(needs {_with_unit(bound, rule.get('unit'))}{_arms(result.arms, rule, records)}) [{text}]")
        observed[label or rule["statistic"]] = str(value)
    return met, "; ".join(lines), observed if len(keys) > 1 or keys[0] else next(iter(observed.values()))


def _stated_bounds(found: dict[tuple[tuple[str, str], ...], Site], rule: dict[str, Any], records: list[Receipt],
                   each: dict[tuple[tuple[str, str], ...], bool] | None = None, memo: dict[Any, Any] | None = None) -> tuple[bool, str, Any]:
    """
    Judge a rule whose bounds the bundle states (`bounds_at`): every judged instance's statistic must satisfy every bound its file states.

    `found` maps each instance key (`Site.key`) to its `bounds` site
    (`verifier.readers.sites`); an instance without one states no bound.

    An instance whose file states no bound for the metric is underivable
    (UNVERIFIED `bounds-not-stated`), unless `bounds_at.unstated` is `skip`:
    then it is not judged (it stated no target) and counted in the message,
    except where it matches every `required_for` value (an MLPerf closed-division
    run must quote its ranges). A judged instance outside its bounds makes the
    rule not met whatever else is unverified; nothing judged is
    `bounds-not-stated`.
    """
    at = rule["bounds_at"]
    check_complete(select(records, rule["selection"]), "the selection")
    keys = instances(rule, records)
    if not keys:
        raise Underivable(f"no receipts match {rule['selection']}", "empty-selection")
    met, lines, observed, skipped, missing = True, [], {}, [], []
    for key in keys:
        label = ",".join(f"{k}={v}" for k, v in key.items())
        site = found.get(tuple(key.items()))
        if site is None or site.problem is not None:
            required = at.get("required_for", {})
            if at.get("unstated") == "skip" and not (required and all(key.get(k) == v for k, v in required.items())):
                skipped.append(label)
            else:
                missing.append(f"{label}: the bounds are not stated ({site.detail if site is not None else 'not read'})")
            continue
        rel, bounds = site.location.file, site.value
        result = derive_rule(rule, RecordSource(records), key, memo)
        value, text = _convert(result.value, rule["statistic"], rule.get("unit")), result.text
        ok = all(_BOUND_OPERATORS[op](value, b) for op, b in bounds)
        if each is not None:
            each[tuple(key.items())] = ok
        met = met and ok
        shown = " and ".join(f"{op} {b}" for op, b in bounds)
        lines.append(f"{label}: {rule.get('value', rule['statistic'])} = {_judged(value, bounds[0][1] if bounds else None, rule.get('unit'))} "
                     f"({'meets' if ok else 'does not meet'} {_with_unit(shown, rule.get('unit'))} stated in {rel}) [{text}]")
        observed[label] = {"value": str(value), "bounds": shown, "met": ok, "file": rel}
    failing = [line for line in lines if "does not meet" in line]
    not_judged = (f"; {len(skipped)} run(s) quote no range and are not judged" if skipped else "") + (f"; {len(missing)} unverified" if missing else "")
    if not failing and missing:
        raise Underivable("; ".join(missing) + not_judged, "bounds-not-stated", fail=False)
    if not lines:
        raise Underivable(f"{len(skipped)} run(s) quote no range, so nothing is judged", "bounds-not-stated", fail=False)
    judged = len(lines)
    return met, "; ".join(failing or lines[:1]) + (f" ({judged} judged, {len(failing)} not met{not_judged})" if judged > 1 or not_judged else ""), observed


#: The comparison each operator of a stated bound (`verifier.readers.sites.stated_bounds`) makes: `value <op> bound`.
_BOUND_OPERATORS: dict[str, Callable[[Decimal, Decimal], bool]] = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}


def _below(rule: dict[str, Any], records: list[Receipt], each: dict[tuple[tuple[str, str], ...], bool] | None = None,
           memo: dict[Any, Any] | None = None) -> tuple[bool, str, Any]:
    arms = rule["below_baseline"]
    check_complete(select(records, rule["selection"]), "the selection")
    keys = instances(rule, records)
    if not keys:
        raise Underivable(f"no receipts match {rule['selection']}", "empty-selection")
    lines, observed, met = [], {}, True
    unit = f" {units.base_symbol(rule['unit'])}" if rule.get("unit") else ""  # derive_rule's base unit (the load refused unknown units)
    for key in keys:
        b = derive_rule(rule, RecordSource(records), {**key, "arm": arms["baseline"]}, memo).value
        c = derive_rule(rule, RecordSource(records), {**key, "arm": arms["candidate"]}, memo).value
        label = ",".join(f"{k}={v}" for k, v in key.items())
        ok = c < b
        if each is not None:
            each[tuple(key.items())] = ok
        met = met and ok
        lines.append(f"{label + ': ' if label else ''}candidate {fmt(c)} {'<' if ok else '>='} baseline {fmt(b)}{unit}")
        observed[label] = {"baseline": str(b), "candidate": str(c)}
    per = f" per {', '.join(rule['per'])}" if rule.get("per") else ""
    return met, f"{rule['statistic']}{per}: " + "; ".join(lines), observed
