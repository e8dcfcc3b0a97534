"""Selections over a profile's receipts (the evidence model's `Receipt`s), handed to the one statistics engine (`derive_rule` -> `verifier.stats.derive`)."""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal
from typing import Any

from verifier import stats
from verifier.evidence import Receipt
from verifier.stats import Underivable

__all__ = ["Underivable", "arm_name", "check_complete", "derive_rule", "instances", "key_values", "left_out", "ranks", "select", "select_records"]


#: A dimension value that sorts as a number ("2", "-0.5"), compiled once rather than looked up per value.
_NUMERIC = re.compile(r"-?\d+(\.\d+)?")


def left_out(selection: dict[str, Any], key: dict[str, str]) -> bool:
    """Return whether dimension values `key` (read back from where a bundle states a value) are outside `selection` (joins aside)."""
    for k, wanted in selection.items():  # the selection's few keys, not every bound dimension
        if k in key and not isinstance(wanted, dict) and (key[k] not in wanted if isinstance(wanted, list) else key[k] != wanted):
            return True
    return False


def select(records: list[Receipt], selection: dict[str, str]) -> list[Receipt]:
    """
    Return the records whose dimensions equal every key of `selection` (a list value: equal one of its members).

    A stand-in for unread receipts, or a record whose dimension could not be
    mapped, is returned whenever it may belong to the selection (a dimension
    it lacks matches), so derivations see that their denominator is incomplete.
    """
    tests = [(k, v, isinstance(v, list)) for k, v in selection.items() if not isinstance(v, dict)]  # a join (not resolved for an instance yet, `checks.profile_base.joined`) may match any record
    if len(records) < _INDEX_FROM or not tests:
        return _matching(records, tests)
    index = _index(records)
    narrowest: tuple[int, int, dict[str, list[int]], list[int], list[Any]] | None = None
    for at, (k, value, listed) in enumerate(tests):  # the narrowest candidate set of one key (counted, not built; none is narrower than one), then the other keys checked on it
        exact, maybe = index.get(k) or _index_key(records, index, k)
        wanted = value if listed else [value]
        size = (len(exact.get(wanted[0], ())) if len(wanted) == 1 else sum(len(exact.get(v, ())) for v in wanted)) + len(maybe)
        if narrowest is None or size < narrowest[0]:
            narrowest = (size, at, exact, maybe, wanted)
            if size <= 1:
                break
    size, chosen, exact, maybe, wanted = narrowest  # type: ignore[misc]  # tests is not empty
    if not size:
        return []
    del tests[chosen]  # each candidate may match the chosen key: only the other keys are left to check
    if len(wanted) == 1 and not maybe:  # one value's positions: already ascending, each once
        return _matching([records[i] for i in exact[wanted[0]]], tests)
    found = [i for v in wanted for i in exact.get(v, ())] + maybe
    return _matching([records[i] for i in sorted(set(found))], tests)


def _matching(records: list[Receipt], tests: list[tuple[str, Any, bool]]) -> list[Receipt]:
    """
    Return, in order, the records that may match every `(key, value, value is a list)` of `tests`.

    A record matches a key when its dimension equals the value (a list: one
    of its members); one lacking the dimension may match when it is a
    stand-in for unread receipts or could not map that dimension (`unknown`).
    """
    out = []
    for r in records:
        dims = r.dims
        for k, value, listed in tests:
            if k in dims:
                if (dims[k] not in value) if listed else (dims[k] != value):
                    break
            elif r.unread is None and k not in r.unknown:
                break
        else:
            out.append(r)
    return out


_INDEX_FROM = 16  # below this many records a scan is as fast as an index
_INDEXES: list[tuple[list[Receipt], int, dict[str, tuple[dict[str, list[int]], list[int]]]]] = []  # the last few lists indexed (claims and gate reuse one list per receipt set)


def _index(records: list[Receipt]) -> dict[str, tuple[dict[str, list[int]], list[int]]]:
    """Return the per-dimension index of `records` (kept for the last 8 lists, identified by identity and length)."""
    for lst, n, index in _INDEXES:
        if lst is records and n == len(records):
            return index
    index: dict[str, tuple[dict[str, list[int]], list[int]]] = {}
    _INDEXES.insert(0, (records, len(records), index))
    del _INDEXES[8:]
    return index


def _index_key(records: list[Receipt], index: dict[str, Any], key: str) -> tuple[dict[str, list[int]], list[int]]:
    """Index `records` by dimension `key`: value -> positions, plus the positions that may match any value (unread stand-ins, unmapped dimension)."""
    exact: dict[str, list[int]] = {}
    maybe: list[int] = []
    for i, r in enumerate(records):
        if key in r.dims:
            exact.setdefault(r.dims[key], []).append(i)
        elif r.unread is not None or key in r.unknown:
            maybe.append(i)
    index[key] = (exact, maybe)
    return exact, maybe


def check_complete(records: list[Receipt], label: str) -> None:
    """Raise `Underivable` (UNVERIFIED) when `records` include stand-ins for receipts that were not read."""
    unread = [r for r in records if r.unread is not None]
    if unread:
        files = sorted({r.path for r in unread})
        code = "blocked-by-integrity" if all(r.unread_code == "blocked-by-integrity" for r in unread) else "incomplete-denominator"
        raise Underivable(
            f"{label} covers receipts that were not read: " + "; ".join(f"{r.path}{' ' + r.pointer if r.pointer else ''} ({r.unread})" for r in unread[:3])
            + (f" and {len(unread) - 3} more ({', '.join(files)})" if len(unread) > 3 else "") + "; a statistic over the others is not one over all",
            code, fail=False,
        )


def _values(records: list[Receipt], name: str, label: str) -> list[Decimal]:
    """Return the values `name` of `records`; raises `Underivable` for a stand-in among them (`check_complete`), none, or one without a usable value."""
    if not records:  # (`check_complete` finds nothing in an empty list)
        raise Underivable(f"no receipts match {label}", "empty-selection")
    got = []
    usable = True
    for r in records:  # one pass; the first stand-in raises as `check_complete` does
        if r.unread is not None:
            check_complete(records, label)
        value = r.value(name)
        got.append(value)
        if value is None or r.unknown or not r.ok:
            usable = False
    if usable:
        return got  # type: ignore[return-value]
    missing = [r.pointer for r, v in zip(records, got, strict=True) if v is None or r.unknown]
    failed = [r.pointer for r in records if not r.ok]
    if missing or failed:
        raise Underivable(
            f"{len(records) - len(set(missing) | set(failed))}/{len(records)} receipts of {label} have a usable {name} "
            f"(missing: {missing[:3] or 'none'}; not ok: {failed[:3] or 'none'}); a statistic over the survivors is not one over all",
            "incomplete-denominator",
        )
    return got  # type: ignore[return-value]


def _label(selection: dict[str, Any]) -> str:
    return ", ".join([f"{k}={v if isinstance(v, str) else ('in ' + ','.join(v) if isinstance(v, list) else 'joined')}" for k, v in sorted(selection.items())]) or "all receipts"


def key_values(records: list[Receipt], dim: str) -> list[str]:
    """Return the distinct values of `dim` in `records`, numerically sorted when all are numbers."""
    found = {r.dims[dim] for r in records if dim in r.dims}
    if all(_NUMERIC.fullmatch(v) for v in found):
        return sorted(found, key=lambda v: (Decimal(v), v))  # "1" before "1.0": equal numbers in one order every run, not the set's
    return sorted(found)


def _groups(records: list[Receipt], selection: dict[str, str], name: str) -> dict[str, list[Decimal]]:
    """Return server -> values of `name` over `selection` (one group "" when the receipts map no server)."""
    chosen = select(records, selection)
    check_complete(chosen, _label(selection))
    servers = key_values(chosen, "server") if any("server" in r.dims for r in chosen) else []
    if not servers:
        return {"": _values(chosen, name, _label(selection))}
    return {sid: _values(select(chosen, {"server": sid}), name, _label({**selection, "server": sid})) for sid in servers}




def arm_name(template: str, key: dict[str, str]) -> str:
    """Return the arm a rule's `baseline`/`candidate` names: literal, or `{dim}` taken from the instance key (e.g. each case against "bf16")."""
    if template.startswith("{") and template.endswith("}") and template[1:-1] in key:
        return key[template[1:-1]]
    return template


#: Members of a claim or gate rule that say where a value is stated or how it is judged, not what is derived: rules that
#: differ only in these (one table published as JSON, CSV and Markdown) derive the same value, which `derive_rule` memoises.
_NOT_DERIVED = frozenset({"id", "at", "minus", "unit", "tolerance", "description", "per", "min", "max", "bounds_at", "recorded", "pick", "below_baseline"})


def derive_rule(rule: dict[str, Any], records: list[Receipt], key: dict[str, str], memo: dict[Any, Any] | None = None) -> stats.Derived:
    """
    Return the `stats.Derived` value of one claim or gate rule over `records`: select, then `stats.derive`.

    With `memo` (a dict the caller keeps for one run), a rule whose every
    other member equals an earlier one's (`_NOT_DERIVED` aside) over the same
    `records` list and `key` returns that derivation (or raises its
    `Underivable`) again instead of deriving it anew: the claims on the same
    row of a table published three times derive once. The memo also keeps
    each rule object's signature, so a rule must not change during the run.

    `key` holds the `per` dimension values of this instance. Statistics of a
    value are in the base unit of its dimension (seconds, bytes, ...; callers
    convert to the claim's unit); `first`/`last` take the file order;
    `difference` is baseline minus candidate (each arm's mean of server
    means, like `speedup`, or the statistic named in `of`); `ratio_of_sums`
    divides the sum of value `numerator` by the sum of `denominator` (either
    may be `#receipts`, each receipt counting 1); `ci_*` take `method` and
    `confidence`. Raises
    `stats.Underivable` when the selection is empty or holds a receipt with
    a missing or failed value, or a stand-in for receipts that were not read.
    """
    if memo is not None:
        shown = memo.get(("rule", id(rule)))  # a rule's own signature, once per rule object (kept with it, so its id is its own)
        if shown is None or shown[0] is not rule:
            shown = memo[("rule", id(rule))] = (rule, repr([item for item in rule.items() if item[0] not in _NOT_DERIVED]))
        signature = (id(records), shown[1], tuple(key.items()))  # key values are dimension texts: hashable, equal when their reprs are
        kept = memo.get(signature)
        if kept is None or kept[0] is not records:  # the memo holds `records`, so its id names no other list while kept
            try:
                kept = memo[signature] = (records, derive_rule(rule, records, key), None)
            except Underivable as exc:
                kept = memo[signature] = (records, None, exc)
        if kept[2] is not None:
            raise kept[2]
        return kept[1]  # type: ignore[no-any-return]
    statistic = rule["statistic"]
    selection = {**rule["selection"], **key}
    name = rule.get("value", "latency")
    label = _label(selection)
    if statistic in stats.COUNT_RESULTS:  # `count_ok`: the successes only (a failed receipt's outcome is not in `ok_outcomes`)
        chosen = select(records, selection)
        check_complete(chosen, label)
        if not chosen:
            raise Underivable(f"no receipts match {label}", "empty-selection")
        unknown = [r.pointer for r in chosen if r.unknown]
        if unknown:
            raise Underivable(f"{len(unknown)} receipts of {label} lack a mapped dimension ({unknown[:3]}), so the count is not known", "incomplete-denominator")
        return stats.derive(statistic, chosen if statistic == "count" else [r.ok for r in chosen], of=f"receipts with {label}")
    if statistic in stats.ARM_STATISTICS:
        base_sel = {k: v for k, v in selection.items() if k != "arm"}
        baseline, candidate = arm_name(rule["baseline"], key), arm_name(rule["candidate"], key)
        if "of" in rule:  # the relative change of another statistic (e.g. of the max), not of the mean of server means
            inner = {k: v for k, v in rule.items() if k not in ("of", "baseline", "candidate")}
            inner = {**inner, **rule["of"], "selection": base_sel}
            b, c = derive_rule(inner, records, {"arm": baseline}), derive_rule(inner, records, {"arm": candidate})
            result = stats.derive(statistic, {baseline: {"": [b.value]}, candidate: {"": [c.value]}}, baseline=baseline, candidate=candidate, of=label)
            return dataclasses.replace(result, text=f"{result.text}; baseline: {b.text}; candidate: {c.text}", inputs=b.inputs + c.inputs)
        arms = {arm: _groups(records, {**base_sel, "arm": arm}, name) for arm in (baseline, candidate)}
        return stats.derive(statistic, arms, baseline=baseline, candidate=candidate, of=label)
    if statistic in stats.PAIR_STATISTICS:  # the arms' means of server means as the pair: ratio = candidate / baseline, relative_change_pct = (candidate - baseline) / baseline * 100
        base_sel = {k: v for k, v in selection.items() if k != "arm"}
        baseline, candidate = arm_name(rule["baseline"], key), arm_name(rule["candidate"], key)
        b, c = (stats.derive("mean_of_server_means", _groups(records, {**base_sel, "arm": arm}, name), of=f"arm {arm}, {label}") for arm in (baseline, candidate))
        result = stats.derive(statistic, (c.value, b.value) if statistic == "ratio" else (b.value, c.value), of=label)
        return dataclasses.replace(result, text=f"{result.text}; baseline: {b.text}; candidate: {c.text}", inputs=b.inputs + c.inputs)
    if statistic in stats.REGRESSION_STATISTICS:  # y (`value`) on x (the declared value `x`), one pair per receipt
        chosen = select(records, selection)
        xs, ys = _values(chosen, rule["x"], label), _values(chosen, name, label)
        return stats.derive(statistic, (xs, ys), of=f"({rule['x']}, {name}) of receipts ({label})")
    if statistic in stats.GROUP_STATISTICS:
        return stats.derive(statistic, _groups(records, selection, name), of=label)
    if statistic in stats.SUM_RATIO_STATISTICS:  # sum(numerator) / sum(denominator) over the one selection
        chosen = select(records, selection)
        check_complete(chosen, label)
        if not chosen:
            raise Underivable(f"no receipts match {label}", "empty-selection")
        parts = [[Decimal(1)] * len(chosen) if part == RECEIPTS else _values(chosen, part, label) for part in (rule["numerator"], rule["denominator"])]
        return stats.derive(statistic, parts, of=f"receipts: {rule['numerator']} / {rule['denominator']} ({label})")
    values = _values(select(records, selection), name, label)
    return stats.derive(statistic, values, q=rule.get("q"), method=rule.get("method"), confidence=rule.get("confidence"), of=f"values of {name} ({label})")


#: A `ratio_of_sums` numerator or denominator naming the number of receipts (each counts 1), e.g. decisions per second.
RECEIPTS = "#receipts"


def instances(rule: dict[str, Any], records: list[Receipt]) -> list[dict[str, str]]:
    """Return one `per`-key mapping per instance of `rule` (the cartesian keys present in the selected records)."""
    per = rule.get("per", [])
    if not per:
        return [{}]
    chosen = select(records, rule["selection"])
    keys = {tuple([r.dims.get(d) for d in per]) for r in chosen}
    sort_keys: dict[str, tuple[int, Any, str]] = {}  # value -> its `_sort_key`, once per distinct value
    for values in keys:
        for v in values:
            if v is not None and v not in sort_keys:
                sort_keys[v] = _sort_key(v)
    ordered = sorted([k for k in keys if None not in k], key=lambda k: [sort_keys[v] for v in k])
    return [dict(zip(per, k, strict=True)) for k in ordered]


def _sort_key(value: str) -> tuple[int, Any, str]:
    """Return where `value` sorts: numbers first, by value and then by text ("1" before "1.0", whatever order a set gives them), then other text."""
    return (0, Decimal(value), value) if _NUMERIC.fullmatch(value) else (1, value, value)


def select_records(records: list[Receipt], rule: dict[str, Any]) -> list[Receipt]:
    """Return the records in the rule's selection (arm ignored for arm comparisons, so both arms rank alike; joins are per instance)."""
    tests = [(k, v, isinstance(v, list)) for k, v in rule["selection"].items() if not (k == "arm" and "baseline" in rule) and not isinstance(v, dict)]
    out = []
    for r in records:
        for k, v, listed in tests:
            if (r.dims.get(k) not in v) if listed else (r.dims.get(k) != v):
                break
        else:
            out.append(r)
    return out


def ranks(records: list[Receipt], rule: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Return, per `per` dimension of `rule`, each value's 0-based rank among `records`' values of it (`key_values` order): what `{dim.index}` names."""
    out: dict[str, dict[str, int]] = {}
    for dim in rule.get("per", []):
        for i, v in enumerate(key_values(records, dim)):
            out.setdefault(dim, {})[v] = i
    return out
