"""
`claims.stated` for a bundle a profile reads (no `bundle` section): every number of a `verify --claims-text FILE` bound to the values the profile's claims derive (`collect`) by the one body, `statements.judge`.

The values are the profile's claim rules, each instance derived as
`derivation.claims` derives it (`verifier.derive.derive_rule` over the receipt
set, the run's memo) in the rule's unit; the binding and its wording rules
are the native bundle's (`verifier.binding.bind`, `docs/claims.md`). A
value of one arm (a rule whose `per` is `["arm"]`) pairs with the other
arm's, so a stated reduction or speedup ("0.42 % lower", "1.5x faster")
binds to the two. Runs only when a claim text is given (`core`), so a
profile's roster without one is unchanged.
"""

from __future__ import annotations

import re

from collections.abc import Iterator
from typing import Any

from verifier import units
from verifier.binding import Evidence
from verifier.checks.profile_base import _all_records, _derivations, _profile, joined
from verifier.checks.profile_claims import _convert
from verifier.checks.statements import CHECK, Candidates, given, judge, pairs_of, statistic_word
from verifier.derive import derive_rule
from verifier.model import Finding
from verifier.pipeline import Context, check
from verifier.readers.select import RecordSource, Underivable, instances

__all__ = ["collect", "stated_text"]

#: What a profile's count counts is not named by the profile: any of these nouns may name it.
_COUNT_NOUN = r"^(?:[a-z-]+\s+){0,2}(?:requests|receipts|records|runs|passes|samples|queries)\b"


def _counted(per: list[str]) -> str:
    """
    Return the pattern of the nouns a count rule's value may be stated with (`binding._count_noun`'s noun).

    A count noun (`_COUNT_NOUN`); a distributive "per X" / "each X" only for
    an X the rule counts per: "74 requests per server" is a count per
    server, never the count over all servers.
    """
    dims = "|".join(re.escape(d) for d in per)
    return _COUNT_NOUN + (rf"(?!.*\b(?:per|each)\b(?!\s+(?:{dims})\b))" if dims else r"(?!.*\b(?:per|each)\b)")


def collect(ctx: Context) -> Candidates:
    """
    Return `(evidence, pairs, keys, levels)`: every value the profile's claim rules derive, the arm pairs, the arm/server words, and no subject levels (`{}`).

    One `Evidence` per instance that derives (an underivable one gives
    nothing), named `rule_id[dim=value]...`, in the rule's unit; `keys` maps
    each arm and server value, and `baseline`/`candidate`, to the arm or
    server it names.
    """
    rules = [r for r in _profile(ctx).get("claims", []) if "pick" not in r]
    memo = _derivations(ctx)
    keys: dict[str, str] = {}
    for rule in rules:
        for role in ("baseline", "candidate"):
            if role in rule and not rule[role].startswith("{"):
                keys[role] = rule[role]
    evidence: list[Evidence] = []
    per_arm: dict[str, dict[str, Evidence]] = {}
    for rule in rules:
        records = _all_records(ctx, rule["receipts"])
        if not records:
            continue
        statistic, unit, per = rule["statistic"], rule.get("unit"), rule.get("per", [])
        plain = not any(isinstance(v, dict) for v in rule["selection"].values())
        for key in instances(rule, records):
            try:
                result = derive_rule(rule if plain else joined(ctx, rule, key), RecordSource(records), key, memo)
            except Underivable:
                continue
            for dim in ("arm", "server"):
                if dim in key:
                    keys.setdefault(key[dim], key[dim])
            name = rule["id"] + "".join(f"[{k}={v}]" for k, v in key.items())
            value = _convert(result.value, statistic, unit)
            if statistic == "count":
                evidence.append(Evidence(name, value, None, "derived", result.text, statistic="count", keys=frozenset(key.values()),
                                         nouns=_counted(per)))
                continue
            if statistic in ("relative_reduction_pct", "speedup"):
                evidence.append(Evidence(name, value, unit, "derived", result.text, statistic=statistic, keys=frozenset(key.values()),
                                         topics=frozenset({"speedup"} if statistic == "speedup" else {"reduction"})))
                continue
            stat = statistic_word(rule)
            timed = unit is not None and units.known(unit) and units.parse(unit).dimension == "time"
            level = "arm" if per == ["arm"] else "server" if "server" in per else None
            e = Evidence(name, value, unit, "derived", result.text, statistic=stat, keys=frozenset(key.values()),
                         topics=frozenset({"latency"} if timed else set(rule["id"].lower().replace("-", "_").split("_"))),
                         primary=statistic == "mean_of_server_means" and level == "arm", level=level)
            evidence.append(e)
            if level == "arm":
                per_arm.setdefault(rule["id"], {})[key["arm"]] = e
    base, cand = keys.get("baseline", "baseline"), keys.get("candidate", "candidate")
    return evidence, pairs_of(per_arm, base, cand), keys, {}


@check(CHECK, title="Every number the pull request states is bound to the values the profile derives, or named as unchecked")
def stated_text(ctx: Context) -> Iterator[Finding]:
    """`claims.stated` of a profile-read bundle: `statements.judge` over the run's claim text (`given`) with the values `collect` gives."""
    return judge(ctx, given(ctx), [], collect)
