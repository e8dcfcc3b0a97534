"""Selections over a profile's receipts (the evidence model's `Receipt`s): `RecordSource` hands them to the one rule derivation (`verifier.engine.derive.derive_rule` -> `verifier.engine.stats.derive`)."""

from __future__ import annotations

import re
from decimal import Decimal
from collections.abc import Iterable, Sequence
from typing import Any

from verifier.model.evidence import Receipt
from verifier.engine.stats import Underivable

__all__ = ["ABSENT", "Instance", "ReceiptSet", "RecordSource", "Underivable", "check_complete", "instances", "is_join", "key_values", "left_out", "ranks", "rule_instances",
           "select", "select_records"]


#: A dimension value that sorts as a number ("2", "-0.5"), compiled once rather than looked up per value.
_NUMERIC = re.compile(r"-?\d+(\.\d+)?")


def is_join(value: Any) -> bool:
    """Return whether selection value `value` is a join (`{"receipts", "pointer", "on"}`, resolved per instance), not a value, list or exclusion."""
    return isinstance(value, dict) and "not" not in value


def _tests(selection: dict[str, Any]) -> list[tuple[str, Any, int]]:
    """
    Return `(dimension, wanted, mode)` per key of `selection` a record is tested on (joins left out: resolved per instance).

    Mode 0: the dimension equals `wanted`; 1: it is one of the list `wanted`;
    2: an exclusion (`{"not": [...]}`): it is none of `wanted` (a frozenset).
    """
    return [(k, frozenset(v["not"]), 2) if isinstance(v, dict) else (k, v, 1 if isinstance(v, list) else 0) for k, v in selection.items() if not is_join(v)]


def _outside(value: str | None, wanted: Any, mode: int) -> bool:
    """Return whether dimension value `value` (None: the record lacks the dimension) fails one `_tests` test."""
    return (value != wanted) if mode == 0 else (value not in wanted) if mode == 1 else (value is None or value in wanted)


def left_out(selection: dict[str, Any], key: dict[str, str]) -> bool:
    """Return whether dimension values `key` (read back from where a bundle states a value) are outside `selection` (joins aside; an excluded value is outside)."""
    return any(k in key and _outside(key[k], wanted, mode) for k, wanted, mode in _tests(selection))  # the selection's few keys, not every bound dimension


def select(records: list[Receipt], selection: dict[str, str]) -> list[Receipt]:
    """
    Return the records whose dimensions equal every key of `selection` (a list value: equal one of its members; `{"not": [...]}`: none of them).

    A stand-in for unread receipts, or a record whose dimension could not be
    mapped, is returned whenever it may belong to the selection (a dimension
    it lacks matches), so derivations see that their denominator is incomplete.
    """
    tests = _tests(selection)  # a join (not resolved for an instance yet, `checks.profile_base.joined`) may match any record
    if not isinstance(records, ReceiptSet) or len(records) < _INDEX_FROM or not any(mode < 2 for _k, _v, mode in tests):  # an exclusion narrows nothing
        return _matching(records, tests)
    index = records.index
    narrowest: tuple[int, int, dict[str, list[int]], list[int], list[Any]] | None = None
    for at, (k, value, mode) in enumerate(tests):  # the narrowest candidate set of one key (counted, not built; none is narrower than one), then the other keys checked on it
        if mode == 2:
            continue
        exact, maybe = index.get(k) or _index_key(records, index, k)
        wanted = value if mode else [value]
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


def _matching(records: list[Receipt], tests: list[tuple[str, Any, int]]) -> list[Receipt]:
    """
    Return, in order, the records that may match every `(key, value, mode)` of `tests` (`_tests`).

    A record matches a key when its dimension equals the value (a list: one
    of its members; an exclusion: none of them); one lacking the dimension may match when it is a
    stand-in for unread receipts or could not map that dimension (`unknown`).
    """
    out = []
    for r in records:
        dims = r.dims
        for k, value, mode in tests:
            if k in dims:
                if (dims[k] != value) if mode == 0 else (dims[k] not in value) if mode == 1 else (dims[k] in value):
                    break
            elif r.unread is None and k not in r.unknown:
                break
        else:
            out.append(r)
    return out


_INDEX_FROM = 16  # below this many records a scan is as fast as an index


class ReceiptSet(list):  # type: ignore[type-arg]
    """
    Represents the records of one receipt set as a run holds them (`list[Receipt]`), with the per-dimension index `select` builds on them.

    `index` maps a dimension to `(value -> positions, positions that may
    match any value)`, filled by `select` one dimension at a time as
    selections ask for it; it lives as long as the list (one run's model:
    `checks.profile_base._all_records`). The list is not changed once built.
    A plain list given to `select` is scanned instead.
    """

    __slots__ = ("index",)

    def __init__(self, records: Iterable[Receipt] = ()) -> None:
        super().__init__(records)
        self.index: dict[str, tuple[dict[str, list[int]], list[int]]] = {}


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
    absent = [r for r in records if name not in r.quantities and not r.unknown]  # an `optional` value the record does not state
    missing = [_place(r) for r, v in zip(records, got, strict=True) if (v is None and name in r.quantities) or r.unknown]
    failed = [_place(r) for r in records if not r.ok]
    if missing or failed:  # the evidence lacks a required value or holds a failed receipt: FAIL
        raise Underivable(
            f"{len(records) - len(set(missing) | set(failed))}/{len(records)} receipts of {label} have a usable {name} "
            f"(missing: {missing[:3] or 'none'}; not ok: {failed[:3] or 'none'}); a statistic over the survivors is not one over all",
            "incomplete-denominator",
        )
    if absent:  # only optional absences: the profile says the value may be left out, so this statistic cannot be derived (UNVERIFIED)
        raise Underivable(
            f"value {name} is absent on {len(absent)} of {len(records)} receipts of {label} ({', '.join(_place(r) for r in absent[:3])}"
            f"{f' and {len(absent) - 3} more' if len(absent) > 3 else ''}); it is mapped `optional` (or its mapping matches no record of its set: "
            f"`mapping-matches-nothing`), so a statistic over them is underivable "
            "(narrow the selection, e.g. a receipt-set `where` {\"present\": true})",
            ABSENT, fail=False,
        )
    return got  # type: ignore[return-value]


#: The code of a statistic over receipts lacking an `optional` value (left out of their `quantities`, never None): UNVERIFIED, naming the value.
ABSENT = "value-absent"


def _place(r: Receipt) -> str:
    """Return where receipt `r` was read, as findings name it: its file and, inside it, its pointer ("est/b.json", "runs.json /3")."""
    return f"{r.path} {r.pointer}" if r.pointer else r.path


def _label(selection: dict[str, Any]) -> str:
    return ", ".join([f"{k}={v if isinstance(v, str) else ('in ' + ','.join(v) if isinstance(v, list) else 'joined' if is_join(v) else 'not in ' + ','.join(v['not']))}"
                      for k, v in sorted(selection.items())]) or "all receipts"


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




class RecordSource:
    """
    A profile's receipts (one receipt set's `Receipt`s, the evidence model) as a `verifier.engine.derive.Source`.

    Every selection raises `Underivable` when it holds a stand-in for
    receipts that were not read (`check_complete`, UNVERIFIED), is empty
    (`empty-selection`) or holds a receipt lacking a usable value
    (`incomplete-denominator`).
    """

    __slots__ = ("basis",)

    def __init__(self, records: list[Receipt]) -> None:
        self.basis = records

    def label(self, selection: dict[str, Any]) -> str:
        """The selection as derivation texts name it; a list value reads "in a,b", an exclusion "not in a,b", a join "joined"."""
        return _label(selection)

    def count(self, rule: dict[str, Any], selection: dict[str, Any]) -> tuple[list[Receipt], str]:
        """The selected receipts, each of whose dimensions is known."""
        label = _label(selection)
        chosen = select(self.basis, selection)
        check_complete(chosen, label)
        if not chosen:
            raise Underivable(f"no receipts match {label}", "empty-selection")
        unknown = [r.pointer for r in chosen if r.unknown]
        if unknown:
            raise Underivable(f"{len(unknown)} receipts of {label} lack a mapped dimension ({unknown[:3]}), so the count is not known", "incomplete-denominator")
        return chosen, f"receipts with {label}"

    def values(self, selection: dict[str, Any], name: str) -> tuple[list[Decimal], str]:
        """The values `name` of the selected receipts, in file order."""
        label = _label(selection)
        return _values(select(self.basis, selection), name, label), f"values of {name} ({label})"

    def groups(self, selection: dict[str, Any], name: str) -> tuple[dict[str, list[Decimal]], str]:
        """Server -> values (one group "" when the receipts map no server)."""
        return _groups(self.basis, selection, name), _label(selection)

    def arms(self, selection: dict[str, Any], name: str, baseline: str, candidate: str) -> tuple[dict[str, dict[str, list[Decimal]]], str]:
        """Arm -> server -> values of the two arms (each replacing any `arm` of `selection`)."""
        base = {k: v for k, v in selection.items() if k != "arm"}
        return {arm: _groups(self.basis, {**base, "arm": arm}, name) for arm in (baseline, candidate)}, _label(selection)

    def sums(self, selection: dict[str, Any], numerator: str, denominator: str) -> tuple[list[list[Decimal]], str]:
        """The values summed above and below the line (`#receipts`: 1 per receipt)."""
        label = _label(selection)
        chosen = select(self.basis, selection)
        check_complete(chosen, label)
        if not chosen:
            raise Underivable(f"no receipts match {label}", "empty-selection")
        parts = [[Decimal(1)] * len(chosen) if part == RECEIPTS else _values(chosen, part, label) for part in (numerator, denominator)]
        return parts, f"receipts: {numerator} / {denominator} ({label})"


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
    tests = [t for t in _tests(rule["selection"]) if not (t[0] == "arm" and "baseline" in rule)]
    out = []
    for r in records:
        for k, v, mode in tests:
            if _outside(r.dims.get(k), v, mode):
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


#: One instance of a rule as `rule_instances` gives it: its key, its `(dimension, value)` pairs, its `{dim.index}` ranks or the `KeyError` that left them unknown.
Instance = tuple[dict[str, str], tuple[tuple[str, str], ...], "dict[str, int] | KeyError"]


def rule_instances(profile: dict[str, Any], receipts: Sequence[Receipt]) -> dict[str, list[Instance]]:
    """
    Return, per claim and gate rule that reads a place (by its profile pointer: `/claims/3`, `/gate/rules/0`), its instances and their ranks, each computed once.

    An instance's ranks are a `KeyError` when only receipts that were not read give it (its `{dim.index}` places are
    unknown). A claim over a receipt set without receipts has no entry, a ranking claim (`pick`) no instance. Rules alike
    in what `select_records`, `ranks` and `instances` read of them (one table's JSON, CSV and Markdown copies, a metric's
    gate range and its value) share one list.
    """
    by_set: dict[str, list[Receipt]] = {}
    for r in receipts:
        by_set.setdefault(r.receipt_set, []).append(r)
    shared: dict[tuple[str, str, str, bool], list[Instance]] = {}
    out: dict[str, list[Instance]] = {}
    rules = [(f"/claims/{i}", rule) for i, rule in enumerate(profile.get("claims", [])) if by_set.get(rule["receipts"])]
    for rid, rule in [*rules, *((f"/gate/rules/{i}", rule) for i, rule in enumerate((profile.get("gate") or {}).get("rules", [])))]:
        signature = rule["receipts"], repr(rule["selection"]), repr(rule.get("per", [])), "baseline" in rule
        if "pick" in rule or not ("at" in rule or "bounds_at" in rule or "recorded" in rule) or signature in shared:
            out[rid] = shared[signature] if signature in shared and "pick" not in rule else []
            continue
        records = by_set.get(rule["receipts"], [])
        ranked, every = ranks(select_records(records, rule), rule), shared.setdefault(signature, [])
        for key in instances(rule, records):
            pairs = tuple(key.items())
            try:
                every.append((key, pairs, {d: ranked[d][v] for d, v in pairs}))
            except KeyError as exc:
                every.append((key, pairs, exc))
        out[rid] = every
    return out
