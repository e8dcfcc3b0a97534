"""
`verify profile check DIR --profile P`: what each rule of a profile matched in the evidence, before any verdict.

A profile can load (its schema, units and cross-references hold: `verifier.profiles.language.load_profile`) and still describe
another folder than the one it is run on: a misspelled arm, a glob one directory off, a `where` naming a column the
table does not have. Run as `verify`, each of these is a FAIL or UNVERIFIED finding that looks like the evidence's
fault. `rule_lines` says instead, per rule, what it matched: the files and records of each receipt set, the receipts
each claim, gate rule, identity and `matches` entry selects (per arm for an arm comparison), its instances, and how
many of the places it names the bundle states; a rule that matched nothing is named as an authoring problem
(`NOTHING`). `verify profile explain` prints the same lines after its per-file listing.

Nothing here judges: the counts come from the evidence model the profile pipeline built (`verifier.model.evidence`:
receipts with their set, and the `Site`s where claims and gate rules are stated).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from verifier.checks.profile_coverage import pointer_matches
from verifier.checks.profile_unreached import claimed_places
from verifier.engine.derive import arm_name
from verifier.model.evidence import Evidence, Receipt, StatedClaim
from verifier.readers.informational import pattern_names
from verifier.model.numtext import number
from verifier.readers.records import members_near, stated_nowhere
from verifier.readers.select import RECEIPTS, instances, is_join, left_out, select

__all__ = ["NOTHING", "PROBLEM", "rule_lines"]

#: The words that end the line of a rule that matched something yet names a problem of the profile (an optional value absent, ...).
PROBLEM = "an authoring problem (see above)"

#: The word that marks a rule that matched nothing in the evidence (an authoring problem until shown otherwise).
NOTHING = "matches nothing"


def _many(n: int, noun: str) -> str:
    """Return "0 receipts", "1 receipt", "12 receipts": the counts a reader compares with 0, 1 and many."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _plain(selection: dict[str, Any]) -> dict[str, Any]:
    """Return `selection` without its joins (resolved per instance at run time; here every record may match one); exclusions kept."""
    return {k: v for k, v in selection.items() if not is_join(v)}


def _filled(template: str, key: dict[str, str]) -> str:
    """Return `template` with each `{dim}` of `key` replaced by its value (the instance a place was sought for; other placeholders kept)."""
    for dim, value in key.items():
        template = template.replace("{" + dim + "}", value)
    return template


def _unreached(rule: dict[str, Any], stated: list[Any], records: list[Receipt], selection: dict[str, Any], others: set[tuple[str, str]] = frozenset()) -> str:
    """
    Return the text previewing the places a claim's location states (read backwards: `Site`s of role "stated") for
    dimension values no receipt of its selection has: `verify` reports each UNVERIFIED `not-derivable` or `receipt-absent`
    (`verifier.checks.profile_unreached`). A text without a digit ("-", "N/A") states no number and is not counted; a
    place bound by `{dim.index}` is left to `verify`. "" when there is none.
    """
    derived = {tuple(sorted(k.items())) for k in instances(rule, records)}
    base = {k: v for k, v in selection.items() if not ("baseline" in rule and k == "arm")}
    places = []
    for site in stated:
        key = dict(site.key)
        if site.problem is not None or any(k.endswith(".index") for k in key) or tuple(sorted(key.items())) in derived:
            continue
        if (site.location.file, site.location.pointer or "") in others:
            continue  # another claim's own place (`claimed_places`): judged there
        if (type(site.value) is str and not any(c.isdigit() for c in site.value)) or left_out(base, key) or select(records, {**base, **key}):
            continue
        places.append(site)
    if not places:
        return ""
    first = places[0]
    said = ", ".join(f"{k}={v}" for k, v in first.key)
    return (f"; {_many(len(places), 'stated place')} no instance derives (verify reports {'it' if len(places) == 1 else 'each'} UNVERIFIED "
            f"`not-derivable` or `receipt-absent`; first: {first.location.file} {first.location.pointer or chr(34) * 2} states {first.value} for {said})")


def _absent_values(rule: dict[str, Any], chosen: list[Receipt]) -> list[tuple[str, int, int]]:
    """
    Return `(value, absent, of)` for each value `rule` derives from (`value`, `x`, `numerator`, `denominator`) that is
    absent on some read receipts of `chosen`: an `optional` value the record does not state is left out of its
    `quantities` (`verifier.readers.records`), and a statistic over such a receipt is UNVERIFIED `value-absent`.
    """
    if rule["statistic"] in ("count", "count_ok"):
        return []
    names = [None if rule["statistic"] == "ratio_of_sums" else rule.get("value", "latency"), rule.get("x"), rule.get("numerator"), rule.get("denominator")]
    read = [r for r in chosen if r.unread is None and not r.unknown]
    out = []
    for name in dict.fromkeys(n for n in names if n and n != RECEIPTS):
        n = sum(name not in r.quantities for r in read)
        if n:
            out.append((name, n, len(read)))
    return out


def _instance_arms(rule: dict[str, Any], records: list[Receipt], selection: dict[str, Any]) -> tuple[str, bool, bool]:
    """
    Return `(text, empty, problem)` for an arm comparison whose `baseline` or `candidate` is a `{dim}` of its `per`:
    each instance's two arms resolved (`derive.arm_name`) and selected as `derive.derive_rule` selects them (the
    selection, the instance's other dimensions, `arm` replaced). `empty`: no instance has both arms; `problem`: some
    instance has an arm that selects no receipt (`verify` reports FAIL `empty-selection` for it, UNVERIFIED when the arm
    selects none in every instance: a misspelled arm). The text names the
    first such arm and instance, and how many instances it misses in.
    """
    keys = instances(rule, records)
    missed: dict[tuple[str, str], list[dict[str, str]]] = {}
    for key in keys:
        base = {**selection, **{k: v for k, v in key.items() if k != "arm"}}
        for role in ("baseline", "candidate"):
            arm = arm_name(rule[role], key)
            if not select(records, {**base, "arm": arm}):
                missed.setdefault((role, arm), []).append(key)
    text = f"selection {selection or 'all'} selects {_many(len(select(records, selection)), 'receipt')}, {_many(len(keys), 'instance')} of per {rule['per']}"
    for (role, arm), where in missed.items():
        said = ", ".join(f"{k}={v}" for k, v in where[0].items())
        text += f"; {role} arm {arm!r} selects no receipt for {len(where)} of {_many(len(keys), 'instance')} (first: {said})"
    if not missed:
        text += f"; baseline arm {rule['baseline']!r}, candidate arm {rule['candidate']!r}: both select receipts in every instance"
    hit = {tuple(sorted(k.items())) for w in missed.values() for k in w}
    return text, not keys or len(hit) == len(keys), bool(missed)


def _rule_id(document: dict[str, Any], pointer: str) -> str:
    """Return the `id` of the rule at profile pointer `pointer` (`/claims/3`)."""
    _, section, index = pointer.split("/")
    return str(document[section][int(index)]["id"])


def _every_mismatch(rule: dict[str, Any], judged: dict[str, list[Any]]) -> str:
    """
    Return the text naming a claim whose every compared instance differs from what the bundle states, or at least
    half of them and three or more (`verify` FAILs each `claim-mismatch`): on evidence the author trusts, the rule is the first suspect (a statistic, `of`, `method`,
    unit or place the bundle does not use), with a factor of 100 named ("%" for a value stated in `x` or `1`). "" else.
    """
    found = judged.get(rule["id"], [])
    differ = [f for f in found if f.code == "claim-mismatch"]
    if not differ or (len(differ) < len(found) and (len(differ) < 3 or 2 * len(differ) < len(found))):
        return ""  # none, or a few of many: what evidence with some wrong numbers looks like
    first = differ[0]
    hint = ""
    try:
        stated, derived = Decimal(str(first.expected)), Decimal(str(first.observed))
        if stated and derived and any(abs(derived / stated - k) <= k / 50 for k in (Decimal(100), Decimal("0.01"))):
            hint = ": a factor of 100 (a `%` unit for a value the bundle states as a fraction or `x`, or the reverse?)"
    except (InvalidOperation, ValueError, ZeroDivisionError):
        pass
    said = f"every one of its {_many(len(found), 'compared instance')} differs" if len(differ) == len(found) else \
        f"{len(differ)} of its {_many(len(found), 'compared instance')} differ"
    return (f"; {said} from what the bundle states (first: stated {first.expected}, "
            f"derived {number(first.observed)}{hint}): a statistic, `of`, `method`, unit or place the bundle does not use? (verify reports each FAIL claim-mismatch)")


def rule_lines(document: dict[str, Any], model: Evidence | None, glob: Callable[[str], list[str]], findings: Sequence[Any] = ()) -> tuple[list[str], int]:
    """
    Return `(lines, nothing)`: one line per receipt set, claim, gate rule, identity, `matches` entry and claim document of
    the profile `document`, saying what it matched in `model` (the evidence the profile pipeline read from a directory
    whose files `glob` lists, `verifier.readers.tree.Tree.glob`), and how many of them matched nothing (each such line says `NOTHING`).

    A receipt set matches nothing when no record was read from it; a derivation when its selection (for `speedup`,
    `relative_reduction_pct` and `difference`: either arm's) selects no receipt, or when none of the places it names is
    stated (`Site.problem`, with the first reason); a claim document when its glob names no file.
    """
    receipts: list[Receipt] = list(model.receipts) if model is not None else []
    by_set: dict[str, list[Receipt]] = {}
    for r in receipts:
        by_set.setdefault(r.receipt_set or "", []).append(r)
    lines: list[str] = []
    nothing = 0

    def say(where: str, text: str, empty: bool, problem: bool = False) -> None:
        """Add the line of one rule; `empty`: it matched nothing, `problem`: it matched something but names an authoring problem (said in `text`)."""
        nonlocal nothing
        nothing += empty or problem
        lines.append(f"  {where}: {text}" + (f": {NOTHING} (an authoring problem, unless this evidence lacks it)" if empty
                                             else f": {PROBLEM}" if problem else ""))

    blind: dict[str, tuple[str, str]] = {}  # receipt set -> (dimension, pointer) of its first dimension no record states
    unmapped: dict[str, dict[str, str]] = {}  # receipt set -> mapped name -> the first place of its mapping no record states
    for rid, spec in document.get("receipts", {}).items():
        got = by_set.get(rid, [])
        read = [r for r in got if r.unread is None or r.raw is not None]  # a record kept as a stand-in for a mapping matching nothing was read
        matched = glob(spec["glob"])
        unread = len({r.path for r in got if r.unread is not None and r.raw is None})  # one stand-in per file, or per record whose `unnest` array is missing
        left_out = len(set(matched) - {r.path for r in got}) if "where" in spec else 0  # read, each record left out by the set's `where`
        notes = ([f"{_many(unread, 'file')} not read"] if unread else []) + ([f"{_many(left_out, 'file')} whose every record `where` leaves out"] if left_out else [])
        say(f"receipts.{rid}", f"glob {spec['glob']!r} names {_many(len(matched), 'file')}, {_many(len(read), 'record')} read"
            + (f" ({'; '.join(notes)})" if notes else ""), not read)
        for where, _name, pointer in stated_nowhere(spec, read):
            if where.startswith("dimensions/"):
                blind.setdefault(rid, (_name, pointer))
            unmapped.setdefault(rid, {}).setdefault(_name, where)
            say(f"receipts.{rid}/{where}", f"pointer {pointer!r} matches no record of set {rid} ({_many(len(read), 'record')}); "
                f"members seen there: {members_near(read[0].raw, pointer) or 'none'}", True)
    rules = [(f"/claims/{i}", c) for i, c in enumerate(document.get("claims", []))]
    rules += [(f"/gate/rules/{i}", r) for i, r in enumerate((document.get("gate") or {}).get("rules", []))]
    absent = {d["file"] for d in document.get("claim_documents", []) if d.get("optional") and not glob(d["file"])}
    claimed = claimed_places(model) if model is not None else {}
    judged: dict[str, list[Any]] = {}  # claim id -> its compared instances (PASS `derived`, FAIL `claim-mismatch`)
    for f in findings:
        if f.check == "derivation.claims" and f.code in ("derived", "claim-mismatch"):
            judged.setdefault(re.split(r"[:\[]", f.message, maxsplit=1)[0], []).append(f)
    for pointer, rule in rules:
        records = by_set.get(rule["receipts"], [])
        if "at" in rule and rule["at"]["file"] in absent:  # claimed in an optional document this evidence does not publish
            lines.append(f"  {pointer[1:]} ({rule['id']}): not a claim of this evidence: {rule['at']['file']!r} is an `optional` claim document it does not hold")
            continue
        if rule["receipts"] in blind:  # every receipt of the set is a stand-in: name the cause, not "0 instances" or a site "unranked"
            name, ptr = blind[rule["receipts"]]
            say(f"{pointer[1:]} ({rule['id']})", f"receipt set {rule['receipts']}'s dimension {name} (pointer {ptr!r}) matches no record, so what any "
                f"selection takes and which instances exist are unknown (verify: UNVERIFIED incomplete-denominator); fix receipts.{rule['receipts']}/dimensions/{name} first",
                False, True)
            continue
        selection = _plain(rule["selection"])
        problem = False
        if "baseline" in rule and "{" not in rule["baseline"] + rule["candidate"]:
            arms = {arm: len(select(records, {**selection, "arm": arm})) for arm in (rule["baseline"], rule["candidate"])}
            text = "; ".join(f"{'baseline' if arm == rule['baseline'] else 'candidate'} arm {arm!r}: {_many(n, 'receipt')}" for arm, n in arms.items())
            empty = not all(arms.values())
        elif "baseline" in rule:  # an arm named by `{dim}`: resolved per instance, as `derive.derive_rule` does
            text, empty, problem = _instance_arms(rule, records, selection)
        else:
            chosen = len(select(records, selection))
            text, empty = f"selection {selection or 'all'} selects {_many(chosen, 'receipt')}", not chosen
        if empty and rule.get("unmatched") == "skip":  # declared: a rule for a benchmark the evidence need not hold
            lines.append(f"  {pointer[1:]} ({rule['id']}): {text}: {NOTHING}, not applicable to this evidence (`unmatched: skip`)")
            continue
        if rule.get("per") and not empty and not ("baseline" in rule and "{" in rule["baseline"] + rule["candidate"]):
            text += f", {_many(len(instances(rule, records)), 'instance')} of per {rule['per']}"
        absent = _absent_values(rule, select(records, {k: v for k, v in selection.items() if not ("baseline" in rule and k == "arm")}))
        if absent:
            misspelled = unmapped.get(rule["receipts"], {})
            text += "".join(f"; value {name} is absent on {n} of {_many(m, 'receipt')} of {kind} {rule['id']} "
                            + (f"(receipts.{rule['receipts']}/{misspelled[name]} matches no record: fix it; those instances will be UNVERIFIED `value-absent`)"
                               if name in misspelled else "(it is `optional`: those instances will be UNVERIFIED `value-absent`; narrow the selection)")
                            for name, n, m in absent
                            for kind in ["claim" if pointer.startswith("/claims/") else "gate rule"])
            problem = True
        role = "named" if "pick" in rule else "claim" if pointer.startswith("/claims/") else "recorded" if "recorded" in rule else "bounds" if "bounds_at" in rule else None
        sites = model.sites_of(pointer, role) if model is not None and role else []
        if sites:
            found = [s for s in sites if s.problem is None]
            missing = [s for s in sites if s.problem is not None]
            text += f"; its place is stated for {len(found)} of {len(sites)}"
            places = {(s.location.file, s.location.pointer) for s in found}
            if len(places) < len(found):  # a `per` dimension its location does not name: several instances compared with one stated value
                text += f" ({len(found)} instances at {_many(len(places), 'place')}: a `per` dimension the location does not name, or a `where` that binds the wrong column?)"
            several = [s for s in missing if s.problem == "ambiguous"]
            if several:  # the profile's `where` chooses no single element: its fault whatever the evidence holds
                text += (f"; its `where` matches several elements for {_many(len(several), 'instance')} (first: {several[0].detail}): "
                         "add a member that tells them apart")
                problem = True
            missing = [s for s in missing if s.problem != "ambiguous"]
            if missing:
                first = missing[0]
                rel, where = (_filled(t, dict(first.key)) for t in (first.location.file, first.location.pointer or ""))
                why = ("absent (no such file in this folder)" if first.problem == "unreadable" and "{" not in rel and not glob(rel)
                       else f"{first.problem}{', ' + first.detail if first.detail else ''}")  # a misspelled `at.file` is absent, not unreadable
                text += f" (first not found: {rel} {where or chr(34) * 2}: {why})"
            empty = empty or not found
        shared = sorted((place, sorted(rules - {pointer})) for place, rules in claimed.items() if pointer in rules and rules - {pointer})
        if shared:  # two claims comparing one stated value: one of them binds the wrong row or place (a copied `where`)
            (rel, where_), owners = shared[0]
            named = ", ".join(f"{o[1:]} ({_rule_id(document, o)})" for o in owners)
            text += (f"; its place is also compared by {named} ({_many(len(shared), 'place')}, first: {rel} {where_ or chr(34) * 2}): "
                     "two claims compare one stated value (a `where` or template binding another row?)")
            problem = True
        mismatch = _every_mismatch(rule, judged) if pointer.startswith("/claims/") else ""
        if mismatch:
            text += mismatch
            problem = True
        if model is not None and pointer.startswith("/claims/") and "pick" not in rule:
            others = {place for place, rules in claimed.items() if rules - {pointer}}
            text += _unreached(rule, model.sites_of(pointer, "stated"), records, selection, others)
        say(f"{pointer[1:]} ({rule['id']})", text, empty, problem)
    for i, identity in enumerate(document.get("identities", [])):
        sets = identity["receipts"] if isinstance(identity["receipts"], list) else [identity["receipts"]]
        n = sum(len([r for r in by_set.get(rid, []) if r.unread is None]) for rid in sets)
        say(f"identities/{i} ({identity['id']})", f"{_many(n, 'record')} of {', '.join(sets)}", not n)
    for i, entry in enumerate(document.get("matches", [])):
        n = len([r for r in select(by_set.get(entry["receipts"], []), entry.get("selection", {})) if r.unread is None])
        say(f"matches/{i} ({entry['id']})", f"{_many(n, 'record')} of {entry['receipts']} selected", not n)
    stated: dict[str, list[str]] = {}  # file -> the pointers of the numbers and outcomes it states
    for item in [*(model.claims if model is not None else ()), *(model.outcomes if model is not None else ())]:
        stated.setdefault(item.location.file, []).append(item.id if isinstance(item, StatedClaim) else item.location.pointer or "")
    for i, declared in enumerate(document.get("claim_documents", [])):
        named = glob(declared["file"])
        if not named and declared.get("optional"):
            lines.append(f"  claim_documents/{i}: {declared['file']!r} names no file: {NOTHING}, not applicable to this evidence (`optional`)")
            continue
        say(f"claim_documents/{i}", f"{declared['file']!r} names {_many(len(named), 'file')}", not named)
        pointers = [p for rel in named for p in stated.get(rel, ())]
        for kind in ("informational", "needs_external"):
            for j, item in enumerate(declared.get(kind, [])):
                if named and not any(pointer_matches(item["pointer"], p) for p in pointers):  # a pattern declaring nothing: a typo, or a layout it was not written for
                    say(f"claim_documents/{i}/{kind}/{j}", f"{item['pointer']!r} matches no stated number of {_many(len(named), 'file')} ({_many(len(pointers), 'stated number')})", True)
    if model is not None and stated:  # the one pattern set: a class or regex holding nothing is a typo, or a layout it was not written for
        held = Counter(model.informational.values())
        total = sum(len(pointers) for pointers in stated.values())
        for where, name in pattern_names(document.get("informational")):
            say(where[1:], f"holds {_many(held[name], 'stated number')} of {total}" + ("" if held[name] else " (none that a pattern before it left)"), not held[name])
    return lines, nothing
