"""Profile check (7) claims re-derived at their stated precision (the gate rules, (8), are `verifier.checks.profile_gate`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from verifier.engine import stats

from verifier.model import units
from verifier.checks.profile_base import _all_records, _derivations, _f, _one_site, _profile, _tree, evidence, examined, files_matching, joined, never_stated
from verifier.checks.profile_unreached import _underived
from verifier.model.evidence import Location, Receipt, Site
from verifier.formats.textnumbers import quantity
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context
from verifier.readers.claimdocs import no_number_texts, states_no_number
from verifier.readers.sites import fill_named
from verifier.readers.informational import not_applicable
from verifier.readers.pointers import fmt, to_decimal
from verifier.readers.records import unit_scale
from verifier.engine.derive import Stated, arm_name, derive_rule, for_stated_unit, judge
from verifier.readers.select import RecordSource, Underivable, instances, ranks, select, select_records

__all__ = ["claims", "select_records"]  # select_records: `verifier.readers.select`, named here for its callers


@functools.lru_cache(maxsize=256)
def _scale(statistic: str, unit: str | None) -> Decimal:
    """
    Return the factor from the derivation's unit to the claim's `unit` (cached: a `Decimal` is immutable).

    A value's statistic is in the base unit of its dimension (1/`unit_scale`); a ratio (`stats.RATIO_RESULTS`) or a
    percentage (`stats.PERCENT_RESULTS`) is a pure number, written in `1`, `x` or `%` by `units.pure_scale` (a speedup
    of 1.2 in `%` is 120, never 1.2); a count is a number of receipts in any count unit. The profile's load refused
    every other unit (`verifier.profiles.language`), so no unit here can relabel a number without its factor.
    """
    if statistic in stats.COUNT_RESULTS or unit is None:
        return Decimal(1)
    for results, dimension in ((stats.RATIO_RESULTS, "dimensionless"), (stats.PERCENT_RESULTS, "percent")):
        if statistic in results:
            factor = units.pure_scale(dimension, unit)
            return stats.CONTEXT.divide(Decimal(factor.numerator), Decimal(factor.denominator))
    return stats.CONTEXT.divide(Decimal(1), unit_scale(unit))


def _convert(value: Decimal, statistic: str, unit: str | None) -> Decimal:
    """Return a derived value (base unit of its dimension, a pure number, or a count) in the rule's `unit` (`_scale`)."""
    if statistic in stats.COUNT_RESULTS or unit is None:
        return value
    if statistic in stats.RATIO_RESULTS or statistic in stats.PERCENT_RESULTS:
        factor = _scale(statistic, unit)  # 100, 1/100 or 1: exact in Decimal
        return value if factor == 1 else stats.CONTEXT.multiply(value, factor)
    return stats.CONTEXT.divide(value, unit_scale(unit))  # divided, not multiplied by a rounded 1/60 (a value in `min` stays exact)


#: The per-record arithmetic of a value mapping (`docs/profiles.md`): each is one binary64 operation of the producer.
_COMPUTED = ("divide_by", "subtract", "unit_from")


def _steps(profile: dict[str, Any], rule: dict[str, Any], unit: str | None) -> int:
    """
    Return how many binary64 roundings the producer's arithmetic put on each input of `rule` before its statistic.

    One per `divide_by`, `subtract` or `unit_from` of the value mapping the rule reads, and one for the conversion from
    the mapping's unit to the stated `unit` when they differ (ns / n_ops / 1000 printed as us: two roundings);
    `stats.tolerance` (`steps`) adds u |x| per rounding (`docs/tolerances.md`, "inputs").
    """
    mapping = ((profile.get("receipts") or {}).get(rule.get("receipts")) or {}).get("values", {}).get(rule.get("value", ""))
    if not isinstance(mapping, dict):
        return 0
    return sum(1 for key in _COMPUTED if key in mapping) + (1 if unit and mapping.get("unit") and mapping["unit"] != unit else 0)


def _stated(value: Any) -> tuple[Decimal | None, str | None]:
    """Return `(number, unit)` of a stated value: a JSON number, a numeric string, or a number with its unit inside a string ("1.066x", "30.7%")."""
    number = to_decimal(value)
    if number is not None:
        return number, None
    found = quantity(value)
    if found is None:
        return None, None
    return found


def _held(ctx: Context, rule: dict[str, Any]) -> bool:
    """
    Return whether a receipt of a set reading other files than the rule's own (another `glob`) matches the rule's selection (`unmatched: skip`).

    The tree holds the benchmark a rule is for when such a receipt does (an
    MLPerf run's performance logs without its `accuracy.txt`): then the rule's
    own set matching nothing is a gap, UNVERIFIED `empty-selection`, never a
    rule that does not apply. A set with the same glob reads the same files,
    split by its `where` (LoadGen logs that state `effective_accuracy_sample_count`
    and those that do not): when its receipts match, the files are there, so
    there is no gap.
    """
    sets = _profile(ctx).get("receipts", {})
    glob = sets[rule["receipts"]]["glob"]
    if any(select(_all_records(ctx, rid), rule["selection"]) for rid, spec in sets.items() if spec["glob"] == glob):
        return False  # the rule's files are there, and a sibling set's `where` took them
    return any(select(_all_records(ctx, rid), rule["selection"]) for rid, spec in sets.items() if spec["glob"] != glob)


def _absent_optional_documents(ctx: Context) -> set[str]:
    """
    Return the `file` of each claim document the profile declares `optional` that the tree does not hold.

    A claim located in one of them (`at.file` equal to it) is no claim of
    this tree (MLPerf's root `summary.json`: the official results
    repositories publish none). A document present as a symbolic link is
    not absent (it is reported `symlink-not-followed`).
    """
    linked = {u.where.file for u in evidence(ctx).unmapped if u.where is not None}
    return {doc["file"] for doc in _profile(ctx).get("claim_documents", [])
            if doc.get("optional") and doc["file"] not in linked and not files_matching(ctx, doc["file"])}


def claims(ctx: Context) -> Iterator[Finding]:
    """
    Re-derive each claim instance and compare it with the number the bundle states.

    Tolerance: `stats.tolerance` (the claim's `tolerance` when it states
    one). PASS `derived`; FAIL `claim-mismatch`, `claim-missing` (UNVERIFIED
    `claim-unstated`, one per rule counting them, under `"unstated": "skip"`),
    `incomplete-denominator`, `empty-selection`; UNVERIFIED `claim-not-stated`
    (null), `no-receipts`, `blocked-by-integrity`, `incomplete-denominator`
    (receipts not read may cover it). Then every other value the bundle
    states at the claim's location (a pass, command, shape or index no
    receipt has) is UNVERIFIED `not-derivable`, or `receipt-absent` naming
    the file the receipt set's `name` template gives for it: a stated number
    is never passed over in silence.
    """
    cid = "derivation.claims"
    model = evidence(ctx)
    seen = examined(ctx)
    memo = _derivations(ctx)
    suffixes: dict[tuple[tuple[str, str], ...], str] = {}  # an instance's key -> its part of a label, "[dim=value]..."
    no_number = no_number_texts(_profile(ctx))
    absent = _absent_optional_documents(ctx)
    said_na = "not-applicable" in (_profile(ctx).get("informational") or {}).get("classes", ())  # "N/A (OOM at 64)": the pattern set's class, at claim places too
    dead: dict[str, dict[str, str]] = {}  # rule id -> its arms that select nothing in every instance -> the arm values the records have
    for i, rule in enumerate(_profile(ctx)["claims"]):
        ptr = f"/claims/{i}"  # the rule's sites in the model (`Site.rule`)
        if rule["at"]["file"] in absent:  # the tree does not publish this optional document: it claims nothing there
            continue
        rid = rule["receipts"]
        records = _all_records(ctx, rid)
        if not records:
            yield _f(cid, Status.UNVERIFIED, "no-receipts", f"{rule['id']}: receipt set {rid} yielded no records, so the claim cannot be derived")
            continue
        if "pick" in rule:
            yield from _pick(ctx, ptr, rule, records)
            continue
        ranked = _ranked(records, rule)  # computed when first asked: only unranked instances and `{dim.index}` places need it
        targets, factors = {t.key: t for t in model.sites_of(ptr, "target")}, {t.key: t for t in model.sites_of(ptr, "factor")}
        keys: list[dict[str, str]] = []
        handled: set[tuple[str, str]] = set()
        blocked: set[str] = set()
        unstated: list[tuple[str, str]] = []  # (label, file) of the instances whose location states nothing, under `"unstated": "skip"`
        said_none: list[tuple[str, str]] = []  # (label, text) of the instances whose location writes "N/A", "-", ... (`claimdocs.no_number_texts`)
        # what every instance of the rule shares, read once per rule rather than once per stated value
        rule_id, statistic = rule["id"], rule["statistic"]  # the unit: the chosen value's (`for_stated_unit`)
        stated_unit_at, margin_arms, plain = "unit" in rule["at"], "baseline" in rule, not any(isinstance(v, dict) for v in rule["selection"].values())
        for site in model.sites_of(ptr, "claim"):
            key = dict(site.key)
            keys.append(key)
            suffix = suffixes.get(site.key)
            if suffix is None:  # once per instance: the claims on one table's copies share it
                suffix = suffixes[site.key] = "".join([f"[{k}={v}]" for k, v in site.key])
            label = rule_id + suffix
            if site.problem == "missing" and rule.get("unstated") == "skip":
                rel = rule["at"]["file"]
                for dim, value in key.items():
                    rel = rel.replace("{" + dim + "}", value)
                unstated.append((label, rel))  # the format writes this number for some instances only: no claim, counted below
                continue
            if site.problem in _SITE_PROBLEMS:
                yield _site_problem(cid, rule, site, key, label, ranked, blocked)
                continue
            rel, pointer, stated_value = site.location.file, site.location.pointer or "", site.value
            place = (rel, pointer)
            handled.add(place)
            seen.add(place)
            claimed, stated_unit = _stated(stated_value)
            if claimed is None and (states_no_number(stated_value, no_number) or (said_na and not_applicable(stated_value))):  # "N/A", "-": it states no number here
                said_none.append((label, stated_value))
                continue
            if claimed is None:
                yield _f(cid, Status.UNVERIFIED, "claim-not-stated", f"{label}: {Location(rel, pointer)} holds {stated_value!r}, not a number", path=rel, pointer=pointer,
                         observed=stated_value)
                continue
            stated_unit = (site.unit or stated_unit) if stated_unit_at else stated_unit
            chosen = for_stated_unit(rule, stated_unit)  # the value the stated unit names (`value_by_unit`), else the rule's own
            try:
                derived_rule = chosen if plain else joined(ctx, chosen, key)  # `joined` returns a rule without joins as it is
            except Underivable as exc:
                yield _f(cid, Status.FAIL if exc.fail else Status.UNVERIFIED, exc.code, f"{label}: {exc}", path=rel, pointer=pointer, observed=str(claimed))
                continue
            unit = stated_unit if stated_unit is not None else chosen.get("unit", "")  # the unit compared in: the stated one after a conversion
            try:
                scale = _scale(statistic, unit or None)
            except (units.UnitError, units.UnitMismatch):  # unknown, or no unit of a pure number: the judge's conversion fails first (unit-mismatch)
                scale = Decimal(1)
            yield from judge(Stated(label, claimed, pointer, derived_rule, RecordSource(records), unit=stated_unit or "", path=rel, key=key, memo=memo,
                                    style="profile", scale=scale, steps=_steps(_profile(ctx), chosen, unit),
                                    adjust=functools.partial(_adjust, ctx, chosen, targets.get(site.key), factors.get(site.key)),
                                    explain=functools.partial(_explain, rule, key, records, dead) if margin_arms else None,
                                    other=functools.partial(_other, ctx, chosen, records, key, label, rel, pointer)), cid, rel, "the receipts")
        if unstated and not never_stated(rule, records):  # a counter no receipt states (never set by the run) is no claim of it
            files = sorted({rel for _, rel in unstated})
            yield _f(cid, Status.UNVERIFIED, "claim-unstated", f"{rule_id}: {len(unstated)} instance(s) state no value at the mapped location, which the profile "
                     f"allows (`unstated: skip`), so they are not claimed: {', '.join(label for label, _ in unstated[:5])}"
                     + (f" and {len(unstated) - 5} more" if len(unstated) > 5 else ""), path=files[0] if len(files) == 1 else rule["at"]["file"])
        if said_none:
            written = sorted({text.strip() for _, text in said_none})
            yield _f(cid, Status.UNVERIFIED, "claim-unstated", f"{rule_id}: {len(said_none)} instance(s) state no number at the mapped location (they write "
                     f"{', '.join(repr(t) for t in written[:5])}: a text of the no-number set, `NO_NUMBER` and the profile's `no_number`), so they are not claimed: "
                     f"{', '.join(label for label, _ in said_none[:5])}" + (f" and {len(said_none) - 5} more" if len(said_none) > 5 else ""), path=rule["at"]["file"])
        yield from _underived(ctx, ptr, rule, records, keys, ranked, handled, blocked)


def _adjust(ctx: Context, rule: dict[str, Any], target: Site | None, factor: Site | None, derived: Decimal, text: str) -> tuple[Decimal, str]:
    """
    Return `(value, text)`: a derived value (`_convert`) in `rule`'s unit, minus the target its `minus` names, times the factor its
    `times` names (`Stated.adjust`). Raises `Underivable` as `_target` and `_factor` do.
    """
    derived, unit = _convert(derived, rule["statistic"], rule.get("unit")), rule.get("unit", "")
    if "minus" in rule:  # a margin to a target the bundle states ("1.073 s to go to 15 s")
        value, where = _target(ctx, rule, target)
        derived, text = derived - value, f"{text}; minus the target {fmt(value)} {unit} stated at {where}".replace("  ", " ")
    if "times" in rule:  # a factor the bundle states (MLPerf Training's scaling.json), or the profile's default when its file is absent
        value, where = _factor(ctx, rule, factor)
        derived, text = stats.CONTEXT.multiply(derived, value), f"{text}; times the factor {fmt(value)} {where}"
    return derived, text


def _explain(rule: dict[str, Any], key: dict[str, str], records: list[Receipt], dead: dict[str, dict[str, str]], exc: Underivable) -> Underivable:
    """
    Return the `Underivable` to report for a claim of a baseline/candidate rule (`Stated.explain`): an empty selection
    through an arm no instance has is the profile's misspelled name, UNVERIFIED with the arm values the records have;
    any other `exc` as it is. `dead` keeps each rule's dead arms (`_dead_arms`) for the run.
    """
    if exc.code != "empty-selection":
        return exc
    if rule["id"] not in dead:
        dead[rule["id"]] = _dead_arms(rule, records)
    arm = next((a for a in (arm_name(rule[role], key) for role in ("baseline", "candidate")) if a in dead[rule["id"]]), None)
    if arm is None:
        return exc
    return Underivable(f"{exc}; arm {arm!r} selects no receipt in any of the rule's instances (misspelled arm? the records have {dead[rule['id']][arm]})",
                       exc.code, fail=False)


#: The code of a claim whose location's `where` matches several elements: the profile's fault, UNVERIFIED, never FAIL `claim-missing`.
AMBIGUOUS = "ambiguous-location"

#: The `Site.problem`s of a claim instance whose stated value was not found (`_site_problem` reports each).
_SITE_PROBLEMS = ("unranked", "blocked", "missing", "ambiguous", "unreadable")


def _site_problem(cid: str, rule: dict[str, Any], site: Site, key: dict[str, str], label: str,
                  ranked: Callable[[], dict[str, dict[str, int]]], blocked: set[str]) -> Finding:
    """
    Return the finding of a claim instance whose stated value the site reader did not find (`site.problem` is set).

    UNVERIFIED `blocked-by-integrity` or `incomplete-denominator` (`unranked`:
    the instance exists only through receipts that were not read; `blocked`:
    its file is never parsed, which is added to `blocked`), FAIL
    `claim-missing`, UNVERIFIED `ambiguous-location` (several elements match
    the location's `where`: the profile chooses no single value to compare, so
    nothing was checked; `verify profile check` names it), UNVERIFIED `claim-unreadable`.
    """
    if site.problem == "unranked":  # the instance exists only through receipts that were not read (integrity, grammar)
        unread = [f"{d}={v}" for d, v in key.items() if v not in ranked().get(d, {})]
        why = f" (not parsed: {site.detail})" if site.detail else ""
        return _f(cid, Status.UNVERIFIED, "blocked-by-integrity" if site.detail else "incomplete-denominator",
                  f"{label}: no readable receipt has {', '.join(unread)}: its receipts were not read{why}, so the "
                  "claim cannot be derived", path=rule["at"]["file"])
    if site.problem == "blocked":  # never parsed, not even to find the value
        blocked.add(site.location.file)
        return _f(cid, Status.UNVERIFIED, "blocked-by-integrity", f"{label}: {site.location.file} is not parsed because {site.detail}", path=site.location.file)
    if site.problem == "ambiguous":  # the profile names no one place: its fault, not the evidence's
        return _f(cid, Status.UNVERIFIED, AMBIGUOUS, f"{label}: the profile's location is ambiguous ({site.detail}): a location names one place, so nothing "
                  "is compared; add a member to `where` that tells the rows apart (`verify profile check` names it too)", path=rule["at"]["file"])
    if site.problem == "missing":
        return _f(cid, Status.FAIL, "claim-missing", f"{label}: the bundle states no value at the mapped location ({site.detail})", path=rule["at"]["file"])
    return _f(cid, Status.UNVERIFIED, "claim-unreadable", f"{label}: claim file cannot be read: {site.detail}", path=rule["at"]["file"])


def _factor(ctx: Context, rule: dict[str, Any], site: Site | None) -> tuple[Decimal, str]:
    """
    Return `(factor, said)`: the pure number stated at the claim's `times.at` (examined: a changed factor changes the claim),
    or its `absent` default when the file is not there. Raises `Underivable` UNVERIFIED `factor-not-stated` otherwise.
    """
    times = rule["times"]
    if site is not None and site.problem is None:
        number = to_decimal(site.value)
        if number is not None and number.is_finite():
            examined(ctx).add((site.location.file, site.location.pointer or ""))
            return number, f"stated at {site.location.file} {site.location.pointer}"
        raise Underivable(f"the factor at {site.location.file} {site.location.pointer} is {site.value!r}, not a number", "factor-not-stated", fail=False)
    rel = fill_named(times["at"]["file"], dict(site.key)) if site is not None else times["at"]["file"]
    if "absent" in times and site is not None and not _tree(ctx).exists(rel):  # the file is not there: the profile's default
        return Decimal(times["absent"]), f"(the default: {rel} is absent)"
    why = site.detail if site is not None else "not read"
    raise Underivable(f"the factor is not stated at {times['at']['file']} {times['at']['pointer']} ({why})", "factor-not-stated", fail=False)


def _target(ctx: Context, rule: dict[str, Any], site: Site | None) -> tuple[Decimal, str]:
    """
    Return `(target, place)`: the number the bundle states at the claim's `minus` location (its `target` site), in the claim's unit, and where.

    The target's place counts as examined: a changed target changes the
    margin, so the claim compares it too. Raises `Underivable` UNVERIFIED
    `target-not-stated` when nothing numeric is stated there, FAIL
    `unit-mismatch` when it is written in a unit of another dimension.
    """
    if site is None or site.problem is not None:
        why = site.detail if site is not None else "not read"
        raise Underivable(f"the target of its margin is not stated at {rule['minus']['file']} {rule['minus']['pointer']} ({why})", "target-not-stated", fail=False)
    rel, pointer, value = site.location.file, site.location.pointer or "", site.value
    number, written = _stated(value)
    if number is None:
        raise Underivable(f"the target of its margin at {Location(rel, pointer)} is {value!r}, not a number", "target-not-stated", fail=False)
    examined(ctx).add((rel, pointer))
    unit = rule.get("unit") or "1"
    if written is not None and written != unit:
        try:
            number = units.convert(number, written, unit)
        except (units.UnitError, units.UnitMismatch):
            raise Underivable(f"the target at {Location(rel, pointer)} is stated in {written}, not of the dimension of {unit}", "unit-mismatch", fail=True) from None
    return number, f"{Location(rel, pointer)}"


def _other(ctx: Context, rule: dict[str, Any], records: list[Receipt], key: dict[str, str], label: str, rel: str, pointer: str,
           claimed: Decimal, derived: Decimal, unit: str, text: str) -> Finding | None:
    """
    Return FAIL `unit-mismatch` when a mismatching stated number equals another declared value of the instance's one receipt (`Stated.other`), else None.

    Only for `first`/`last` claims over one receipt (a figure copied from a
    summary): a stated number equal (at its stated precision) to another
    value of that receipt in another unit's dimension is that value stated in
    the wrong unit (MLPerf's tokens/s figure published as samples/s).
    """
    if rule["statistic"] not in ("first", "last"):
        return None
    chosen = [r for r in select(records, {**rule["selection"], **key}) if r.unread is None]
    if len(chosen) != 1:
        return None
    for name, mapping in _profile(ctx)["receipts"][rule["receipts"]].get("values", {}).items():
        value = chosen[0].value(name)
        if name == rule.get("value") or value is None or units.parse(mapping["unit"]).dimension == units.parse(unit or "1").dimension:
            continue
        shown = stats.CONTEXT.divide(value, unit_scale(mapping["unit"]))
        if stats.compare(claimed, shown).holds:
            return _f("derivation.claims", Status.FAIL, "unit-mismatch",
                      f"{label}: {Location(rel, pointer)} states {claimed} {unit}, but {claimed} is the receipt's {name} ({fmt(shown)} {mapping['unit']}), "
                      f"not its {rule.get('value', 'latency')} ({fmt(derived)} {unit}): a {mapping['unit']} figure stated as {unit}",
                      path=rel, pointer=pointer, expected=f"{fmt(derived)} {unit}", observed=f"{claimed} {unit}", derivation=text)
    return None


def _pick(ctx: Context, ptr: str, rule: dict[str, Any], records: list[Receipt]) -> Iterator[Finding]:
    """
    Check a comparison stated in words ("X has the highest mean speedup"): the named instance must be the one with the largest (`pick: max`) or smallest statistic.

    The statistic is derived for every instance of the rule's `per` dimension
    (one dimension) over its selection; the bundle states the winner's name
    at `at`. PASS `derived`; FAIL `claim-mismatch` naming the winner and both
    values; FAIL `tie` when several instances share the extreme value;
    UNVERIFIED when an instance cannot be derived (the ranking would be over
    survivors) or the statement cannot be read.
    """
    cid = "derivation.claims"
    (dim,) = rule["per"]
    site = _one_site(ctx, ptr, "named")
    if site.problem == "unreadable":
        yield _f(cid, Status.UNVERIFIED, "claim-unreadable", f"{rule['id']}: claim file cannot be read: {site.detail}", path=rule["at"]["file"])
        return
    if site.problem == "ambiguous":
        yield _f(cid, Status.UNVERIFIED, AMBIGUOUS, f"{rule['id']}: the profile's location is ambiguous ({site.detail}): a location names one place",
                 path=rule["at"]["file"])
        return
    if site.problem is not None:
        yield _f(cid, Status.FAIL, "claim-missing", f"{rule['id']}: the bundle states no name at the mapped location ({site.detail})", path=rule["at"]["file"])
        return
    rel, pointer, named = site.location.file, site.location.pointer or "", site.value
    examined(ctx).add((rel, pointer))
    values: dict[str, Decimal] = {}
    for key in instances(rule, records):
        try:
            value = derive_rule(joined(ctx, rule, key), RecordSource(records), key, _derivations(ctx)).value
            values[key[dim]] = _convert(value, rule["statistic"], rule.get("unit"))
        except Underivable as exc:
            yield _f(cid, Status.UNVERIFIED, exc.code, f"{rule['id']}: {dim}={key[dim]} cannot be derived ({exc}), so the ranking is not known", path=rel, pointer=pointer)
            return
    if not values:
        yield _f(cid, Status.UNVERIFIED, "empty-selection", f"{rule['id']}: no {dim} matches {rule['selection']}", path=rel, pointer=pointer)
        return
    extreme = max(values.values()) if rule["pick"] == "max" else min(values.values())
    winners = sorted(k for k, v in values.items() if v == extreme)
    ranking = ", ".join(f"{k} {fmt(v)}" for k, v in sorted(values.items(), key=lambda kv: kv[1], reverse=rule["pick"] == "max"))
    word = "largest" if rule["pick"] == "max" else "smallest"
    text = f"{rule['statistic']} of {rule.get('value', 'latency')} per {dim} ({word} first): {ranking}"
    if len(winners) > 1:
        yield _f(cid, Status.FAIL, "tie", f"{rule['id']}: {Location(rel, pointer)} names {named}, but {', '.join(winners)} share the {word} value", path=rel, pointer=pointer,
                 expected=winners, observed=named, derivation=text)
        return
    ok = named == winners[0]
    yield _f(cid, Status.PASS if ok else Status.FAIL, "derived" if ok else "claim-mismatch",
             f"{rule['id']}: {Location(rel, pointer)} names {named}; the {word} is {winners[0]} ({fmt(values[winners[0]])})"
             + ("" if ok or named not in values else f", {named} has {fmt(values[named])}"),
             path=rel, pointer=pointer, expected=named, observed=winners[0], derivation=text)


def _dead_arms(rule: dict[str, Any], records: list[Receipt]) -> dict[str, str]:
    """
    Return `{arm: the arm values the records have, as text}` for each `baseline`/`candidate` arm of `rule` that selects no
    receipt in any instance (with the rule's selection and the instance's other dimensions): a misspelled arm, the
    profile's fault (UNVERIFIED); an arm missing in some instances only is evidence (FAIL `empty-selection`, kept).
    """
    selection = {k: v for k, v in rule["selection"].items() if k != "arm" and not isinstance(v, dict)}
    keys = instances({**rule, "selection": selection}, records)
    out: dict[str, str] = {}
    for role in ("baseline", "candidate"):
        arms = {arm_name(rule[role], key) for key in keys}
        for arm in arms:
            if not any(select(records, {**selection, **{k: v for k, v in key.items() if k != "arm"}, "arm": arm}) for key in keys
                       if arm_name(rule[role], key) == arm):
                have = sorted({str(r.dims["arm"]) for r in records if r.dims.get("arm") is not None})
                out[arm] = ", ".join(repr(a) for a in have[:12]) + (f" ({len(have)} in all)" if len(have) > 12 else "") if have else "no arm values"
    return out


def _ranked(records: list[Receipt], rule: dict[str, Any]) -> Callable[[], dict[str, dict[str, int]]]:
    """Return a function giving `ranks(select_records(records, rule), rule)`, computed on its first call and then kept (a closure: cheaper to make than `functools.cache`, once per rule)."""
    kept: list[dict[str, dict[str, int]]] = []

    def ranked() -> dict[str, dict[str, int]]:
        if not kept:
            kept.append(ranks(select_records(records, rule), rule))
        return kept[0]
    return ranked


# ---------------------------------------------------------------- (8) gate
