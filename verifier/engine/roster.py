"""
The roster of check families, in the fixed order of `docs/architecture.md`, for every reader.

A reader's pipeline is its checks grouped into `FAMILIES`: integrity, gate
and trust, schema, plan conformance, coverage, derivation of claims,
recorded quality, re-scoring, gate rules, `integrity.unchanged`. A family
none of whose member checks the reader runs is never silently absent: it
gets a stand-in that reports exactly one UNVERIFIED `not-in-evidence`
finding, under the family's native check id, saying which parts of the
evidence model (`verifier.model.evidence.PARTS`) the reader does not supply.

Bundle format v1 (and a profile with a `bundle` section, which runs the
same checks) has a member in every family; its gates state their rules
as plan, claim, coverage and quality sections, so its gate rules are the
thresholds `quality.recorded` judges. A profile without a `bundle` section
runs the profile checks (under the same family ids), and stands in for what the profile language
does not map (plan, quality comparisons, re-scoring).

The receipt readers of `verifier/adapters/` register no check: each reads
its receipt onto the evidence model, and its producer's checks are its rule
pack (`verifier/checks/packs/`), each a member of one family. Every
reader's schema family is `schema.documents` and the stated numbers of the
serving record and of the vLLM result (its aggregates, latency statistics
and the numbers it cannot re-derive), of the telemetry receipt (with its
refusals) and of the HTTP matrix's rounds (percentiles, throughputs) are
`derivation.claims` (`verifier.core.receipt_pipeline` runs both over the
reader's data); the packs' own checks report under their own ids
(`PACK_MEMBERS`) and their rules as `gate.rules`. A receipt names no gate
and no manifest: reading it strictly, recognising its producer version
(which pinned schema judges it) and validating it make its schema family;
its plan, ledger and retained carriers (`matrix.plan_digest`,
`telemetry.carriers`: digests the receipt itself records, compared once
it validated) its plan family; re-derived numbers its derivation family;
the rule tables of the seeds' reviews (`checks.packs.serving_record.RULES`,
`checks.packs.http_matrix.RULES`, the telemetry standings and qualification) its
gate-rules family: a receipt names no gate, so those rules, shipped with
the reader, are what judges it. Integrity, gate, coverage, quality and
re-scoring stand in for them (and gate rules for vLLM, which has no rule table).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from verifier.model.evidence import PARTS
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Check, Context

__all__ = ["FAMILIES", "PACK_MEMBERS", "Family", "family_of", "in_families", "stand_in"]


@dataclass(frozen=True)
class Family:
    """
    Represents one family of checks: `name`, the native check `id` it reports under, a `title`,
    the evidence `needs` (names of `verifier.model.evidence.PARTS`) and the check ids of every reader that are its `members`.
    """

    name: str
    id: str
    title: str
    needs: tuple[str, ...]
    members: frozenset[str]


#: The check ids the producers' rule packs (`verifier/checks/packs/`) report under their own ids, by family name (see the
#: module docstring); their readers' schema family is `schema.documents` and the packs' rules report as `gate.rules`.
PACK_MEMBERS: dict[str, frozenset[str]] = {
    "plan": frozenset({"vllm.requests", "vllm.arrival", "matrix.plan_digest", "matrix.provenance", "matrix.denominators", "matrix.stop",
                       "telemetry.carriers", "telemetry.process", "telemetry.protocol", "telemetry.provenance", "telemetry.occupancy"}),
    "derivation": frozenset({"vllm.peak", "matrix.spread"}),
}

FAMILIES: tuple[Family, ...] = (
    Family("integrity", "integrity.files", "Files match the evidence's manifest (sha256 and size)", ("files",),
           frozenset({"integrity.files"})),
    Family("gate", "gate.pinned", "The evidence is judged by a pinned gate or profile", ("gate",), frozenset({"gate.pinned"})),
    Family("schema", "schema.documents", "Documents and receipts have the shape their format requires", ("receipts",),
           frozenset({"schema.documents"})),
    Family("plan", "plan.conformance", "Receipts conform to the frozen plan", ("plan", "receipts"),
           frozenset({"plan.conformance", "receipts.consistency", "attempts.retained", "plan.overlap"}) | PACK_MEMBERS["plan"]),
    Family("coverage", "coverage.streams", "Output media cover the planned timeline", ("media",),
           frozenset({"coverage.streams"})),
    Family("derivation", "derivation.claims", "Claims re-derive from the receipts", ("claims", "receipts"),
           frozenset({"derivation.claims", "claims.stated", "derivation.identities", "derivation.matches", "derivation.digests"})
           | PACK_MEMBERS["derivation"]),
    Family("quality", "quality.recorded", "Recorded quality scores meet the gate's thresholds", ("quality",),
           frozenset({"quality.recorded"})),
    Family("rescore", "quality.rescore", "Quality scores re-computed from the media", ("quality", "media"),
           frozenset({"quality.rescore"})),
    Family("rules", "gate.rules", "The gate's rules hold on re-derived numbers", ("gate", "claims"),
           frozenset({"quality.recorded", "gate.rules", "claims.coverage"})),
    Family("unchanged", "integrity.unchanged", "Files read by later checks still have their matched sha256", ("files",),
           frozenset({"integrity.unchanged"})),
)

assert all(set(f.needs) <= set(PARTS) for f in FAMILIES)


def family_of(check_id: str) -> Family | None:
    """Return the first family (in roster order) whose members include `check_id`, or None."""
    return next((f for f in FAMILIES if check_id in f.members), None)


def stand_in(family: Family, reader: str, missing: Sequence[str], note: str | None = None) -> Check:
    """
    Return the check that reports family `family` as not run for `reader`: one UNVERIFIED `not-in-evidence` finding.

    `missing` names the evidence parts the reader does not supply (may be
    empty when the reader supplies them but has no check of this family);
    `note`, when given, is the reader's own words on why (appended after a colon).
    """

    def run(ctx: Context) -> Iterator[Finding]:
        why = (f"the {reader} reader supplies no {', '.join(missing)}" if missing
               else f"the {reader} reader has no check of this family")
        yield Finding(check=family.id, status=Status.UNVERIFIED, code="not-in-evidence",
                      message=f"{family.title}: not checked: {why}" + (f": {note}" if note else ""), observed=list(missing))

    return Check(family.id, family.title, run)


def in_families(checks: Sequence[Check], reader: str, held: set[str] | frozenset[str],
                notes: Mapping[str, str] | None = None, *, road: str = "bundle") -> tuple[Check, ...]:
    """
    Return `checks` as input `road` (`verifier.engine.pipeline.ROADS`) runs them (`Check.on`: its titles and `requires`) in
    roster order, with one `stand_in` per family none of `checks` belongs to.

    `held` names the evidence parts (`verifier.model.evidence.PARTS`) the reader
    supplies; a stand-in names the family's needs outside `held`, and
    `notes` (family name -> text) says in the reader's words why a family
    stands in. Within a family the checks keep their given order; a check
    belonging to several families is placed at the first. Raises
    `ValueError` for a check of no family (every check has a place in the
    roster), and for a check that would run before a check it `requires`
    (`run_pipeline` would report it as a `pipeline-order` ERROR).
    """
    placed: dict[str, list[Check]] = {f.name: [] for f in FAMILIES}
    checks = [chk.on(road) for chk in checks]
    for chk in checks:
        family = family_of(chk.id)
        if family is None:
            raise ValueError(f"check {chk.id} belongs to no family of the roster (verifier/engine/roster.py)")
        placed[family.name].append(chk)
    ids = {chk.id for chk in checks}
    out: list[Check] = []
    for family in FAMILIES:
        if placed[family.name]:
            out.extend(placed[family.name])
        elif not family.members & ids:
            out.append(stand_in(family, reader, [p for p in family.needs if p not in held], (notes or {}).get(family.name)))
    for i, chk in enumerate(out):
        late = [r for r in chk.requires if r in ids and r not in {c.id for c in out[:i]}]
        if late:
            raise ValueError(f"check {chk.id} requires {', '.join(late)}, which its family order places after it (verifier/engine/roster.py)")
    return tuple(out)
