"""Profile check (7) `derivation.claims`, its last step: every value the bundle states at a claim's location that no derived instance reached is reported, never passed over."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from verifier.checks.profile_base import _PLACEHOLDER_RE, _f, _profile, evidence, examined, exists
from verifier.model.evidence import Evidence, Location, Receipt
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context
from verifier.readers.select import Underivable, check_complete, left_out, select

__all__ = ["_underived", "claimed_places"]


def claimed_places(model: Evidence) -> dict[tuple[str, str], set[str]]:
    """
    Return `(file, pointer) -> the rules` whose own instances found their stated value there (`Site` role `claim`,
    found): a place one claim binds is that claim's to judge, so another claim whose location template also reads it
    backwards (a per-label `where` meeting the table's Total row a Total claim checks; claims split by selection at
    `{file}`) does not report it `not-derivable` (`_underived`, and `verify profile check`'s preview).
    """
    places: dict[tuple[str, str], set[str]] = {}
    for site in model.sites:
        if site.role == "claim" and site.problem is None:
            places.setdefault((site.location.file, site.location.pointer or ""), set()).add(site.rule)
    return places

#: A digit: a text read backwards without one ("-", "N/A", "—") states no number, so it is no value to derive.
_DIGIT = re.compile(r"\d")


def _underived(ctx: Context, ptr: str, rule: dict[str, Any], records: list[Receipt], keys: list[dict[str, str]], ranked: Callable[[], dict[str, Any]],
               handled: set[tuple[str, str]], blocked: set[str]) -> Iterator[Finding]:
    """
    Yield a finding for every value the bundle states at the claim's location that no derived instance reached.

    UNVERIFIED `blocked-by-integrity` / `incomplete-denominator` when receipts
    that were not read may cover it, else UNVERIFIED `not-derivable`: the
    bundle states a number no receipt backs. A place another claim's instance
    found its value at is that claim's (`claimed_places`), not reported here.
    A claim file that is blocked is reported once, unread.
    """
    cid = "derivation.claims"
    model = evidence(ctx)
    found = model.sites_of(ptr, "stated")
    kept = ctx.run.claimed_places
    if kept is None or kept[0] is not model:  # once per model, not once per claim
        kept = ctx.run.claimed_places = (model, claimed_places(model))
    claimed = kept[1]
    for site in found:
        rel = site.location.file
        if site.problem == "blocked" and rel not in {done for done, _ in handled} | blocked:  # the files reported above, built only when one is blocked
            yield _f(cid, Status.UNVERIFIED, "blocked-by-integrity", f"{rule['id']}: {rel} is not parsed because {site.detail}, so the values it states are not checked",
                     path=rel)
    for site in found:
        if site.problem is not None:
            continue
        bound, rel, pointer, value = dict(site.key), site.location.file, site.location.pointer or "", site.value
        if (rel, pointer) in handled or (type(value) is str and not _DIGIT.search(value)):
            continue  # judged above, or a text stating no number ("-", "N/A", "not run"): nothing stated to derive
        if claimed.get((rel, pointer), {ptr}) - {ptr}:
            continue  # another claim's own place (the Total row a Total claim checks): that claim judges it
        key: dict[str, str] = {}
        unknown: dict[str, str] = {}
        for name, text in bound.items():
            if name.endswith(".index"):
                dim = name.removesuffix(".index")
                by_rank = {i: v for v, i in ranked().get(dim, {}).items()}
                if int(text) in by_rank:
                    key.setdefault(dim, by_rank[int(text)])
                else:
                    unknown[name] = text
            else:
                key[name] = text
        if not unknown and key in keys:
            examined(ctx).add((rel, pointer))
            continue  # an instance with this key was judged (e.g. claim-missing for an ambiguous `where`)
        if left_out(rule["selection"], key):
            continue  # stated for what this claim's selection leaves out (another model's row): another claim's value, or unchecked-claim
        examined(ctx).add((rel, pointer))  # reported below: never also unchecked-claim
        label = rule["id"] + "".join(f"[{k}={v}]" for k, v in {**key, **unknown}.items())
        selection = {**rule["selection"], **key}
        if "baseline" in rule:
            selection.pop("arm", None)
        try:
            check_complete(select(records, selection), ", ".join(f"{k}={v}" for k, v in sorted(selection.items())))
        except Underivable as exc:
            yield _f(cid, Status.UNVERIFIED, exc.code, f"{label}: {exc}", path=rel, pointer=pointer, observed=str(value) if isinstance(value, Decimal) else value)
            continue
        over = ", ".join(f"{k}={_said(v)}" for k, v in sorted({**selection, **unknown}.items()))
        shown = str(value) if isinstance(value, Decimal) else value
        said = f"{shown} {rule['unit']}" if isinstance(value, Decimal) and rule.get("unit") not in (None, "", "1") else shown  # as `stated 32.1 %`
        absent = _absent_file(ctx, rule, key)
        if absent is not None:
            yield _f(cid, Status.UNVERIFIED, "receipt-absent",
                     f"{label}: {Location(rel, pointer)} states {said!s}, but its receipt file {absent} (receipt set {rule['receipts']}: "
                     f"{_profile(ctx)['receipts'][rule['receipts']]['name']}) is not in this bundle, so it cannot be derived or checked",
                     path=rel, pointer=pointer, observed=shown, expected=absent)
            continue
        yield _f(cid, Status.UNVERIFIED, "not-derivable",
                 f"{label}: {Location(rel, pointer)} states {said!s}, but no receipt matches {over}, so it cannot be derived or checked",
                 path=rel, pointer=pointer, observed=shown)


def _said(value: Any) -> str:
    """Return a selection value in words: a join (`{"receipts", "pointer", "on"}`) as where it reads, an exclusion as "not in a,b", else the value itself."""
    if isinstance(value, dict) and "not" in value:
        return "not in " + ",".join(value["not"])
    if isinstance(value, dict):
        return f"<{value['pointer']} of the receipts.{value['receipts']} record with the same {'/'.join(value.get('on', []))}>"
    return str(value)


def _absent_file(ctx: Context, rule: dict[str, Any], key: dict[str, str]) -> str | None:
    """
    Return the receipt file the claim's receipt set names for instance `key` when it is not in the bundle, else None.

    Only for a receipt set with a `name` template whose every placeholder is
    taken (`from_name`) by a dimension `key` fixes, e.g.
    `measurements/{arm}/{task}.gpu.csv` for arm=bf16, task=ref2va: a stated
    number whose one receipt file is absent is UNVERIFIED `receipt-absent`
    naming that file, not a number no receipt could ever back.
    """
    spec = _profile(ctx)["receipts"][rule["receipts"]]
    template = spec.get("name")
    if not template:
        return None
    by_placeholder = {m["from_name"]: dim for part in ("fields", "dimensions") for dim, m in spec.get(part, {}).items() if "from_name" in m}
    try:
        rel = _PLACEHOLDER_RE.sub(lambda m: key[by_placeholder[m.group(1)]], template)
    except KeyError:
        return None
    return None if exists(ctx, rel) else rel
