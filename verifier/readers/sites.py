"""
The claim-site reader: where a bundle states each value a profile's claims and gate compare, read onto the evidence model.

`read_sites(tree, profile, receipts)` runs after the receipts are read (a
claim's instances are the dimension values of its selected receipts, and a
`{dim.index}` place is an instance's rank among them) and returns one
`verifier.evidence.Site` per place it looked, found or not:

- per claim instance, the stated value at `at` (`claim`, with the unit
  stated at `at.unit` when the claim maps one) and, for a margin, the
  target at `minus` (`target`) and the factor at `times` (`factor`), each only when the claim itself was found;
- per ranking claim (`pick`), the name stated at `at` (`named`);
- per claim, every other value the bundle states at the claim's templated
  place (`stated`: read backwards, `verifier.readers.locate.stated`; a
  place where one of its instances' values was found is not repeated), and
  one `stated` site with problem `blocked` per file of that place that
  integrity refused;
- per gate rule instance, the bounds a `bounds_at` file states (`bounds`)
  and the outcome a `recorded` place holds (`recorded`); the gate's own
  recorded outcome (`recorded`, rule `/gate`).

Each site names its rule by the rule's JSON Pointer in the profile
(`/claims/3`, `/gate/rules/0`, `/gate`): rule ids need not be unique.

So `derivation.claims` and `gate.rules` compare what the model holds and read
no document themselves. A place with no value, or in a file that cannot be
read or parsed (the grammar errors of `verifier.readers.grammars` and the reasons
`verifier.jsonio` refuses JSON), is a `Site` with its `problem` and the
reason in `detail`, not an exception; `schema.receipts` stores the model
before calling `read_sites`, so anything else it raises is one ERROR.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from verifier import units
from verifier.evidence import Location, Receipt, Site
from verifier.jsonio import JSONProblem
from verifier.readers.locate import AmbiguousLocation, fill_file, fill_named, locate, locate_beside, stated
from verifier.readers.select import instances, left_out, ranks, select_records
from verifier.readers.tree import Tree

__all__ = ["read_sites", "stated_bounds"]

#: Exceptions `locate` raises for a place with no value (`missing`) and for a file that cannot be read (`unreadable`).
_MISSING = (KeyError, LookupError)
_UNREADABLE = (OSError, JSONProblem)


def _missing(exc: Exception) -> str:
    """Return the `Site.problem` of a place not found: `ambiguous` when its `where` matched several elements, else `missing`."""
    return "ambiguous" if isinstance(exc, AmbiguousLocation) else "missing"


def read_sites(tree: Tree, profile: dict[str, Any], receipts: Sequence[Receipt]) -> tuple[Site, ...]:
    """
    Return every `Site` the profile's claims and gate read in `tree` (see the module docstring), in rule and instance order.

    `receipts` are the model's receipts, stand-ins for unread files included
    (they rank and select as the checks do). Side effects: reads (cached)
    the claim files through `tree`.
    """
    by_set: dict[str, list[Receipt]] = {}
    for r in receipts:
        by_set.setdefault(r.receipt_set, []).append(r)
    out: list[Site] = []
    chosen: dict[Any, Any] = {}  # `_signature` -> instances with their ranks, shared by the claims on one table's copies and the gate rules over the same
    for i, rule in enumerate(profile.get("claims", [])):
        records = by_set.get(rule["receipts"], [])
        if records:
            out.extend(_claim_sites(tree, profile, f"/claims/{i}", rule, records, chosen))
    gate = profile.get("gate")
    if gate:
        texts: dict[str, str | None] = {}  # the `bounds_at` files read so far (`stated_bounds`)
        for i, rule in enumerate(gate["rules"]):
            records = by_set.get(rule["receipts"], [])
            if "bounds_at" in rule:  # its instances are a claim's when they select and split the same receipts (a metric's range and its value)
                every = chosen.get(_signature(rule))
                keys = [key for key, _pairs, _indexes in every] if every is not None else instances(rule, records)
                out.extend(_bounds(tree, f"/gate/rules/{i}", rule, key, texts) for key in keys)
            if "recorded" in rule:
                ranked = ranks(select_records(records, rule), rule)
                for key in instances(rule, records):
                    out.append(_site(tree, f"/gate/rules/{i}", "recorded", rule["recorded"], key,
                                     lambda key=key: {d: ranked[d][v] for d, v in key.items()}))  # type: ignore[index]
        if "recorded" in gate:
            out.append(_site(tree, "/gate", "recorded", gate["recorded"], {}, dict))
    return tuple(out)


def _claim_sites(tree: Tree, profile: dict[str, Any], rid: str, rule: dict[str, Any], records: list[Receipt], chosen: dict[Any, Any]) -> Iterator[Site]:
    """
    Yield the sites of the claim rule at profile pointer `rid`: its instances' stated values (and margin targets), then what is stated backwards.

    `chosen` keeps, for this run, the instances of each receipt set,
    selection and `per` (what `select_records`, `ranks` and `instances` read
    of a rule) with their `(dimension, value)` pairs and ranks: the claims
    on the JSON, CSV and Markdown copies of one table compute them once.
    """
    at = rule["at"]
    if "pick" in rule:
        yield _site(tree, rid, "named", at, {}, dict)
        return
    signature = _signature(rule)
    if signature not in chosen:
        ranked = ranks(select_records(records, rule), rule)
        every = []  # per instance: its key, its `(dimension, value)` pairs and its `{dim.index}` ranks (None: unranked)
        for key in instances(rule, records):
            pairs = tuple(key.items())
            try:
                every.append((key, pairs, {d: ranked[d][v] for d, v in pairs}))
            except KeyError:  # the instance exists only through receipts that were not read: its `{dim.index}` places are unknown
                every.append((key, pairs, None))
        chosen[signature] = every
    found: set[tuple[str, str]] = set()  # the places an instance's value was read at: not stated again below
    file, beside, margin = at["file"], "unit" in at, "minus" in rule  # what every instance reads alike, read once
    templated_heading = at["pointer"].startswith("/tables/") and "{" in at["pointer"].split("/")[2]
    for key, pairs, indexes in chosen[signature]:
        if indexes is None:
            yield Site(rid, "claim", pairs, Location(file), problem="unranked", detail=", ".join(sorted(tree.blocked)))
            continue
        try:
            claim_file = fill_file(file, key, indexes) if "{" in file else file  # no placeholder: `fill_file` gives it as it is
        except KeyError:  # a placeholder the instance does not bind: `locate` says so below
            claim_file = file
        if claim_file in tree.blocked:  # never parsed, not even to find the value
            yield Site(rid, "claim", pairs, Location(claim_file), problem="blocked", detail=tree.blocked[claim_file])
            continue
        try:
            if beside:  # the unit stated beside the value (`at.unit`: inside the `where` element, else in the file), found with it
                rel, pointer, value, unit = locate_beside(tree, at, key, indexes, at["unit"])
            else:
                (rel, pointer, value), unit = locate(tree, at, key, indexes), None
        except _MISSING as exc:  # several elements matching its `where`: the profile names no one place (`ambiguous`)
            yield Site(rid, "claim", pairs, Location(at["file"], at.get("pointer")), problem=_missing(exc), detail=str(exc))
            continue
        except _UNREADABLE as exc:
            yield Site(rid, "claim", pairs, Location(at["file"], at.get("pointer")), problem="unreadable", detail=str(exc))
            continue
        yield Site(rid, "claim", pairs, Location(rel, pointer), value, _unit_in_text(unit) if isinstance(unit, str) else None)
        found.add((rel, pointer))
        if templated_heading:
            yield from _heading_numbers(tree, rid, pairs, rel, pointer, found)
        if margin:
            yield _site(tree, rid, "target", rule["minus"], key, lambda indexes=indexes: indexes)
        if "times" in rule:
            yield _site(tree, rid, "factor", rule["times"]["at"], key, lambda indexes=indexes: indexes)
    files = tree.glob(profile["receipts"][rule["receipts"]]["glob"]) if "{" in at["file"] else []
    for rel in files or [at["file"]]:
        if rel in tree.blocked:
            yield Site(rid, "stated", (), Location(rel), problem="blocked", detail=tree.blocked[rel])
    selection = rule["selection"]
    for bound, rel, pointer, value in stated(tree, at, files):
        if (rel, pointer) not in found and not left_out(selection, bound):  # another claim's row, or unchecked-claim
            yield Site(rid, "stated", tuple(bound.items()), Location(rel, pointer), value)


def _heading_numbers(tree: Tree, rid: str, pairs: tuple[tuple[str, str], ...], rel: str, pointer: str, found: set[tuple[str, str]]) -> Iterator[Site]:
    """
    Yield a `heading` site for each number of the heading whose table a claim instance located through a templated
    `/tables/{dim} ...` pointer that equals a value the instance binds ("Double Gyre FTLE (Iter/Run: 50, Num Runs: 3)"
    through `{iters}`, `{nruns}`): the table is found only for receipts stating them, so those numbers are compared
    (`claims.coverage` counts them), once per place (`found`).
    """
    heading = pointer.split("/")[2].replace("~1", "/").replace("~0", "~")
    values = {value for _dim, value in pairs}
    try:
        headings = tree.json(rel).get("headings", [])
    except (OSError, JSONProblem, AttributeError):
        return
    for i, entry in enumerate(headings):
        if isinstance(entry, dict) and entry.get("text") == heading:
            for j, number in enumerate(entry.get("numbers", [])):
                place = (rel, f"/headings/{i}/numbers/{j}")
                if number in values and place not in found:
                    found.add(place)
                    yield Site(rid, "heading", pairs, Location(*place), number)


def _signature(rule: dict[str, Any]) -> tuple[str, str, str, bool]:
    """Return what `select_records`, `ranks` and `instances` read of a claim or gate rule: its receipt set, selection, `per` and whether it compares arms."""
    return rule["receipts"], repr(rule["selection"]), repr(rule.get("per", [])), "baseline" in rule


def _site(tree: Tree, rule: str, role: str, at: dict[str, Any], key: dict[str, str], indexes: Any) -> Site:
    """Return the `Site` of one place: `locate(tree, at, key, indexes())`, or the problem that kept it from being read."""
    pairs = tuple(key.items())
    try:
        rel, pointer, value = locate(tree, at, key, indexes())
    except _MISSING as exc:
        return Site(rule, role, pairs, Location(at["file"], at.get("pointer")), problem=_missing(exc), detail=str(exc))
    except _UNREADABLE as exc:
        return Site(rule, role, pairs, Location(at["file"], at.get("pointer")), problem="unreadable", detail=str(exc))
    return Site(rule, role, pairs, Location(rel, pointer), value)


@functools.lru_cache(maxsize=1024)
def _unit_in_text(text: str) -> str | None:
    """Return the unit a claim's `at.unit` place states in `text` (a label ending in its unit, `Latency (ms)`, gives it: `units.unit_in_label`), or None; once per text (a table states a few units in every row)."""
    return units.unit_in_label(text.strip()) if text.strip() else None


_BOUND = re.compile(r"(>=|<=|≥|≤|>|<)\s*`?\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")


def _bounds(tree: Tree, rid: str, rule: dict[str, Any], key: dict[str, str], texts: dict[str, str | None]) -> Site:
    """Return the `bounds` site of one instance of the gate rule at profile pointer `rid`: the bounds its `bounds_at` file states (`texts`: see `stated_bounds`), or `missing` with the reason."""
    at = rule["bounds_at"]
    try:
        rel, bounds = stated_bounds(tree, at, key, texts)
    except KeyError as exc:
        return Site(rid, "bounds", tuple(key.items()), Location(at["file"]), problem="missing", detail=str(exc))
    return Site(rid, "bounds", tuple(key.items()), Location(rel, None), tuple(bounds))


@functools.lru_cache(maxsize=256)
def _naming(naming: str) -> re.Pattern[str]:
    """Return the pattern of `naming` as a whole name (no word character or dot either side), compiled once per name."""
    return re.compile(rf"(?<![\w.]){re.escape(naming)}(?![\w.])")


def stated_bounds(tree: Tree, at: dict[str, Any], key: dict[str, str], texts: dict[str, str | None] | None = None) -> tuple[str, list[tuple[str, Decimal]]]:
    """
    Return `(file, bounds)` the bundle states for one instance: every `>= x`, `<= y` on the first line of `at.file` that names `at.line_naming`.

    E.g. MLPerf's measurements README: "`ROUGE1`: `31.4286`, Required accuracy
    for closed division `>= 45.14291`". Raises `KeyError` when the file or
    such a line is absent or the line states no bound. `texts` (file -> its
    text, None when it cannot be read as UTF-8), when given, keeps each file
    read for the next call (`read_sites`: the rules on one run's metrics read one README).
    """
    rel = fill_named(at["file"], key)
    texts = {} if texts is None else texts
    if rel not in texts:
        try:
            texts[rel] = tree.read_bytes(rel).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            texts[rel] = None
    text = texts[rel]
    if text is None:
        raise KeyError(rel)
    naming = at["line_naming"]
    line = _naming_line(text, naming, _naming(naming))
    if line is not None:
        bounds = [(op.replace("≥", ">=").replace("≤", "<="), Decimal(number)) for op, number in _BOUND.findall(line)]
        if bounds:
            return rel, bounds
    raise KeyError(f"{rel}: no line naming {at['line_naming']} states a bound")


def _naming_line(text: str, naming: str, name: re.Pattern[str]) -> str | None:
    """Return the first of `text.splitlines()` in which `name` (the pattern of `naming`, `_naming`) finds it, or None."""
    return next((line for line in text.splitlines() if naming in line and name.search(line)), None)
