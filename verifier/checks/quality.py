"""
Recorded quality: the quality index against the gate's thresholds.

Every comparison names media that are bundle files (matched by the integrity
check) or declared external artifacts, carries every score the gate requires,
and each score meets its threshold. Scores are judged as recorded here;
`quality.rescore` (`verifier.checks.rescore`) re-computes them from the media
where the gate asks, so these findings say "as recorded".
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier.readers.campaign import campaign_of
from verifier.model.evidence import QualityComparison
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check
from verifier.readers.native import evidence_of

__all__ = ["recorded"]

CHECK = "quality.recorded"


def _f(status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=CHECK, status=status, code=code, message=message, path="quality-index.json", **kw)


@check("quality.recorded", title="Recorded quality scores meet the gate's thresholds, as recorded (quality.rescore re-computes them)",
       requires=("gate.pinned",))
def recorded(ctx: Context) -> Iterator[Finding]:
    """
    Check each comparison of `quality-index.json`.

    PASS `threshold-met` per comparison; FAIL `no-comparisons` (thresholds, empty list), `threshold-missed`,
    `score-missing`, `media-not-in-bundle`, `comparison-count`,
    `self-comparison`, `duplicate-comparison`, `duplicate-comparison-id`,
    `candidate-output-not-compared`; UNVERIFIED `no-quality-gate` when the
    gate has no quality section but the bundle has an index, and
    `metric-not-attested` for a recorded metric the gate neither pins nor
    re-computes. Per
    recorded metric with a gate scorer pin: PASS `scorer-identity-pinned` or
    FAIL `scorer-identity-differs`; a metric whose identity differs is
    refused, not compared: its scores meet or miss no threshold, and one
    UNVERIFIED `scores-not-comparable` says so (an LPIPS v0.0 score against a
    threshold set for v0.1 says nothing).
    """
    from verifier.scoring.rescore import identity_differences

    evidence = evidence_of(ctx)
    gate = (ctx.gate or {}).get("quality")
    if gate is None:
        if evidence.present("quality"):
            yield _f(Status.UNVERIFIED, "no-quality-gate", "the gate sets no quality thresholds, so the recorded scores are not judged")
        else:
            yield _f(Status.PASS, "not-required", "the gate requires no quality comparisons and the bundle records none")
        return
    evidence.need("quality")
    files = {e.path for e in evidence.files}
    external = {e.path for e in evidence.externals}
    thresholds = gate["thresholds"]
    comparisons = evidence.quality
    recorded_metrics = sorted({name for comp in comparisons for name in comp.scores})
    refused: set[str] = set()  # metrics recorded by another scorer than the pinned one: their scores are not on the threshold's scale
    for name in recorded_metrics:
        pin = gate.get("scorers", {}).get(name)
        if pin is None:
            continue
        mine = evidence.scorers.get(name)
        differences = identity_differences(mine, pin)
        pinned = {k: v for k, v in pin.items() if k != "facts"}
        if differences:
            refused.add(name)
            yield _f(Status.FAIL, "scorer-identity-differs",
                     f"{name}: the scorer identity the index records differs from the gate's pin: {'; '.join(differences)}",
                     pointer=f"/scorers/{name}", expected=pinned, observed=mine)
            if name in thresholds:
                n = sum(1 for comp in comparisons if comp.scores.get(name) is not None)
                yield _f(Status.UNVERIFIED, "scores-not-comparable",
                         f"{name}: {n} recorded score(s) are not compared with the gate's threshold {thresholds[name]}: they come from "
                         f"scorer {(mine or {}).get('id')!r}, not the pinned {pin.get('id')!r} (another LPIPS version, weights or "
                         "parameters score on another scale), so meeting or missing the threshold would say nothing",
                         pointer=f"/scorers/{name}", expected=pin.get("id"), observed=(mine or {}).get("id"))
        else:
            yield _f(Status.PASS, "scorer-identity-pinned", f"{name}: recorded scorer {pin['id']} equals the gate's pin",
                     pointer=f"/scorers/{name}", expected=pinned, observed=mine)
    rescored = set(gate.get("rescore", []))
    for name in recorded_metrics:
        if name in thresholds and name not in rescored and name not in gate.get("scorers", {}):
            yield _f(Status.UNVERIFIED, "metric-not-attested",
                     f"{name} is recorded, but the gate neither pins its scorer nor re-computes it, so its values are not attested "
                     f"(its threshold is still applied below)", pointer="/comparisons", observed=name)
    if "comparisons" in gate and len(comparisons) != gate["comparisons"]:
        yield _f(Status.FAIL, "comparison-count", f"{len(comparisons)} comparisons recorded, the gate requires {gate['comparisons']}",
                 pointer="/comparisons", expected=gate["comparisons"], observed=len(comparisons))
    if thresholds and not comparisons:
        # a gate with thresholds asks for quality evidence: an empty list meets every threshold vacuously (issue 13)
        yield _f(Status.FAIL, "no-comparisons", f"the gate sets quality thresholds ({', '.join(sorted(thresholds))}) but the index "
                 "records no comparison, so no threshold was met by anything", pointer="/comparisons", expected=">= 1", observed=0)
    for i, comp in enumerate(comparisons):
        problems = []
        for side, media in (("reference", comp.reference), ("candidate", comp.candidate)):
            if media not in files and media not in external:
                problems.append(_f(Status.FAIL, "media-not-in-bundle",
                                   f"comparison {comp.id} {side} {media} is neither a bundle file nor a declared external artifact",
                                   pointer=f"/comparisons/{i}/{side}", observed=media))
        for name in gate["required_scores"]:
            if name not in comp.scores:
                problems.append(_f(Status.FAIL, "score-missing", f"comparison {comp.id} has no {name} score, which the gate requires",
                                   pointer=f"/comparisons/{i}/scores", expected=name))
        met = []
        for name, value in sorted(comp.scores.items()):
            rule = thresholds.get(name)
            if rule is None or name in refused:
                continue
            lo, hi = rule.get("min"), rule.get("max")
            ok = value is not None and (lo is None or value >= Decimal(str(lo))) and (hi is None or value <= Decimal(str(hi)))
            bound = " and ".join(b for b in (lo is not None and f">= {lo}", hi is not None and f"<= {hi}") if b)
            if ok:
                met.append(f"{name} {value} {bound}")
            else:
                problems.append(_f(Status.FAIL, "threshold-missed", f"comparison {comp.id}: recorded {name} {value} does not meet {bound}",
                                   pointer=f"/comparisons/{i}/scores/{name}", expected=rule, observed=str(value)))
        if problems:
            yield from problems
        else:
            yield _f(Status.PASS, "threshold-met", f"comparison {comp.id}: as recorded: {'; '.join(met)}",
                     pointer=f"/comparisons/{i}", observed={k: str(v) for k, v in comp.scores.items()})
    yield from _pairing(ctx, gate, comparisons)  # last: it needs the plan and receipts, which may be unusable


def _pairing(ctx: Context, gate: dict[str, Any], comparisons: tuple[QualityComparison, ...]) -> Iterator[Finding]:
    """
    FAIL comparisons that compare nothing: a file with itself, the same pair or id twice, and (with the gate's
    `pairs: measured-candidate-vs-baseline`) a measured candidate output that no comparison sets against a baseline output.
    """
    seen_ids: dict[str, int] = {}
    seen_pairs: dict[frozenset[str], str] = {}
    for i, comp in enumerate(comparisons):
        if comp.id in seen_ids:
            yield _f(Status.FAIL, "duplicate-comparison-id", f"comparison id {comp.id} is used twice (entries {seen_ids[comp.id]} and {i})",
                     pointer=f"/comparisons/{i}/id", observed=comp.id)
        seen_ids.setdefault(comp.id, i)
        if comp.reference == comp.candidate:
            yield _f(Status.FAIL, "self-comparison", f"comparison {comp.id} compares {comp.reference} with itself",
                     pointer=f"/comparisons/{i}", observed=comp.reference)
            continue
        pair = frozenset((comp.reference, comp.candidate))
        if pair in seen_pairs:
            yield _f(Status.FAIL, "duplicate-comparison", f"comparison {comp.id} repeats comparison {seen_pairs[pair]} ({comp.reference} vs {comp.candidate})",
                     pointer=f"/comparisons/{i}", observed=sorted(pair))
        seen_pairs.setdefault(pair, comp.id)
    if gate.get("pairs") != "measured-candidate-vs-baseline":
        return
    campaign = campaign_of(ctx)
    roles = dict(campaign.plan.arms)
    outputs: dict[str, set[str]] = {"baseline": set(), "candidate": set()}
    measured_candidate: list[tuple[str, str]] = []
    for receipts in campaign.requests.values():
        for r in receipts[:1]:
            role = roles.get(r.dims.get("arm", ""))
            for o in r.outputs:
                if role in outputs:
                    outputs[role].add(o.path)
                if role == "candidate" and r.dims.get("phase") == "measured":
                    measured_candidate.append((r.dims.get("request_id", ""), o.path))
    against_baseline = {c.candidate for c in comparisons if c.reference in outputs["baseline"]}
    missing = [(rid, path) for rid, path in sorted(measured_candidate) if path not in against_baseline]
    for rid, path in missing:
        yield _f(Status.FAIL, "candidate-output-not-compared",
                 f"measured candidate request {rid} output {path} is not the candidate of any comparison against a baseline output",
                 pointer="/comparisons", expected=path)
    if not missing:
        yield _f(Status.PASS, "pairs-complete",
                 f"every measured candidate output ({len(measured_candidate)}) is compared against a baseline output",
                 pointer="/comparisons", observed=len(measured_candidate))
