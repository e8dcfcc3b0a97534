"""
Re-scoring: every metric the gate re-scores is re-computed from the bundle's media and must match the record.

For each comparison of `quality-index.json` and each metric of the gate's
`quality.rescore`:

- the scorer must be available with the gate's pins (`verifier.scoring.scorer_set.Scorers`):
  one finding per scorer says so (PASS `scorer-ready` with its identity:
  weight digests, state digest, library versions, parameters), or why not
  (UNVERIFIED `scoring-extra-missing` naming the extra, `weights-absent`
  naming the file and digest to supply, `state-digest-unpinned`; ERROR for a
  weight file that is present but wrong), and the comparisons it would have
  scored stay UNVERIFIED;
- both media must be bundle files or supplied external artifacts whose
  sha256 matched the manifest (else UNVERIFIED `scoring-media-not-verified`), and
  must each pass coverage on their own (else UNVERIFIED `blocked-by-coverage`:
  coverage failure blocks scoring);
- a recorded score must equal the re-computed one within the gate's
  per-metric tolerance (FAIL `rescore-mismatch`, PASS `rescore-match`); a
  metric the bundle does not record is judged on the re-computed value
  against the gate's threshold (PASS `rescored-threshold-met`, FAIL
  `threshold-missed`); a pair that cannot be scored as given FAILs with the
  refusal's code (`frame-size-mismatch`, `sample-rate-mismatch`, ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from verifier.checks import figures

from verifier.scoring import rescore as scoring
from verifier.checks import coverage
from verifier.errors import Unverifiable
from verifier.model.evidence import QualityComparison
from verifier.model.findings import Finding, Status
from verifier.model.numtext import delta_text, tolerance_text
from verifier.engine.pipeline import Context, check
from verifier.readers.native import evidence_of
from verifier.scorers.weights import WeightsProblem

__all__ = ["judge_threshold", "rescore"]

CHECK = "quality.rescore"
INDEX = "quality-index.json"


def _f(status: Status, code: str, message: str, **kw: Any) -> Finding:
    kw.setdefault("path", INDEX)
    return Finding(check=CHECK, status=status, code=code, message=message, **kw)


def judge_threshold(value: float, rule: dict[str, Any] | None) -> tuple[bool, str]:
    """Return (meets, bound text) of `value` against a gate threshold rule `{min?, max?}` (no rule: met)."""
    if rule is None:
        return True, "no threshold"
    lo, hi = rule.get("min"), rule.get("max")
    ok = (lo is None or value >= lo) and (hi is None or value <= hi)
    bound = " and ".join(b for b in (lo is not None and f">= {lo}", hi is not None and f"<= {hi}") if b)
    return ok, bound


def _where(ctx: Context, name: str) -> Path | None:
    disk = ctx.bundle.path_of(name)  # recorded as touched: re-hashed by integrity.unchanged after scoring
    if disk is not None:
        return disk  # type: ignore[no-any-return]
    external = ctx.run.externals_verified.get(name)
    return Path(external) if external is not None else None


@check(CHECK, title="Scores re-computed from the media with the gate's pinned scorers match the recorded ones",
       requires=("gate.pinned",))
def rescore(ctx: Context) -> Iterator[Finding]:
    """
    Re-compute the gate's `quality.rescore` metrics for every comparison (see module docstring).

    PASS `not-required` when the gate re-scores nothing. Raises `Unverifiable`
    when the quality index or plan is unusable or the gate has no coverage
    section (coverage gates scoring). Side effects: decodes media, loads
    pinned weights (offline); never writes.
    """
    quality = (ctx.gate or {}).get("quality") or {}
    metrics = list(quality.get("rescore", []))
    if not metrics:
        yield _f(Status.PASS, "not-required", f"gate {ctx.gate_id} re-computes no quality metric")
        return
    evidence = evidence_of(ctx)
    if not evidence.present("quality"):
        raise Unverifiable(f"gate {ctx.gate_id} re-scores {', '.join(metrics)} but the bundle has no {INDEX}",
                           code="no-quality-index", path=INDEX)
    evidence.need("quality")
    section = (ctx.gate or {}).get("coverage")
    if section is None:
        raise Unverifiable(f"gate {ctx.gate_id} re-scores {', '.join(metrics)} but has no coverage section, and coverage "
                           f"must pass before anything is scored", code="no-coverage-gate", path=INDEX)
    policy = coverage.policy_from_gate(section)
    evidence.need("plan")
    exp = coverage.Expectation.from_plan(dict(evidence.plan.expected_output) if evidence.plan else {})
    scorers = scoring.Scorers(quality, weights_dir=ctx.options.get("weights_dir"), device=ctx.options.get("device") or "cpu",
                              cache=ctx.options.get("cache"))
    comparisons = evidence.quality
    available = []
    for metric in metrics:
        tolerance = scorers.tolerance(metric)
        try:
            identity = scorers.ready(metric)
        except WeightsProblem as problem:
            yield _f(Status(problem.status), problem.code,
                     f"{metric}: {problem}; its re-score of {len(comparisons)} comparison(s) is not established",
                     expected=scorers.pin(metric), observed=[c.id for c in comparisons])
            continue
        available.append(metric)
        yield _f(Status.PASS, "scorer-ready", f"{metric}: scorer {identity['id']} ready with the gate's pins "
                                              f"({tolerance_text(tolerance)}); {_describe(identity)}",
                 path=None, expected=_public(scorers.pin(metric)), observed=_public(identity))
    if not available:
        return
    progress = scoring.Progress()
    planned: dict[int, dict[str, Any]] = {}
    if ctx.options.get("executor") is not None:  # score every pair as a task on the cluster, then judge here in order
        jobs: list[tuple[int, tuple[Any, ...]]] = []
        for i, comp in enumerate(comparisons):
            for _finding in _comparison(ctx, i, comp, available, scorers, quality, exp, policy, progress,
                                        len(comparisons), jobs=jobs):
                pass  # the same findings are yielded by the judging pass below
        from verifier.engine.fanout import map_on_cluster

        planned = dict(zip([i for i, _ in jobs], map_on_cluster(ctx.options["executor"], score_job, [j for _, j in jobs]),
                           strict=True))
    else:  # score every pair here, all at once: each media file decoded once for all its comparisons
        local: list[tuple[int, tuple[Any, ...]]] = []
        for i, comp in enumerate(comparisons):
            for _finding in _comparison(ctx, i, comp, available, scorers, quality, exp, policy, progress,
                                        len(comparisons), local=local):
                pass  # the same findings are yielded by the judging pass below
        try:
            results = scoring.score_pairs([pair for _, pair in local], policy, available, scorers, progress=progress,
                                          cache=ctx.options.get("cache"))
        except WeightsProblem as problem:  # LPIPS's identity came from the warm cache and building it now failed
            yield _f(Status(problem.status), problem.code, f"lpips: {problem}; the re-score of {len(comparisons)} "
                                                           f"comparison(s) is not established", path=None)
            return
        finally:
            progress.done()
        planned = dict(zip([i for i, _ in local], results, strict=True))
    try:
        for i, comp in enumerate(comparisons):
            yield from _comparison(ctx, i, comp, available, scorers, quality, exp, policy, progress, len(comparisons),
                                   planned=planned)
    finally:
        progress.done()


_WORKER_SCORERS: dict[str, scoring.Scorers] = {}


def score_job(job: tuple[Any, ...]) -> dict[str, Any]:
    """
    Score one pair on a cluster worker: `(ref path, cand path, ref name, cand name, expectation, policy, metrics, quality, weights_dir, device, digests, cache)`.

    Returns `scoring.score_pair`'s results. The worker builds the gate's
    scorers itself (once per process and gate section) and probes both files
    again for the facts scoring needs (their coverage was judged by the
    caller); SSIM runs in the task's process (no worker process of its own).
    """
    ref, cand, ref_name, cand_name, exp, policy, metrics, quality, weights_dir, device, digests, cache = job
    from verifier.engine.fanout import on_worker

    on_worker(ref, cand, *([weights_dir] if weights_dir else []))
    key = json.dumps([quality, weights_dir, device], sort_keys=True, default=str)
    if key not in _WORKER_SCORERS:
        _WORKER_SCORERS[key] = scoring.Scorers(quality, weights_dir=weights_dir, device=device)
    scorers = _WORKER_SCORERS[key]
    for metric in metrics:
        scorers.ready(metric)
    facts = [coverage.probe(Path(ref), ref_name, exp, policy), coverage.probe(Path(cand), cand_name, exp, policy)]
    return scoring.score_pair(Path(ref), Path(cand), facts[0], facts[1], policy, metrics, scorers, digests=digests,
                              cache=cache)


def _public(identity: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in identity.items() if k not in ("facts",)}


def _describe(identity: dict[str, Any]) -> str:
    parts = [f"{w['name']} sha256 {w['sha256'][:12]}..." for w in identity.get("weights", [])]
    if identity.get("state_sha256"):
        parts.append(f"state sha256 {identity['state_sha256'][:12]}...")
    parts.append(", ".join(f"{k} {v}" for k, v in sorted(identity.get("versions", {}).items())))
    return "; ".join(parts)


def _digests(ctx: Context, comp: QualityComparison) -> tuple[str, str] | None:
    """Return the manifest sha256 of both media of `comp` (matched by integrity before we got here), or None."""
    evidence = evidence_of(ctx)
    by_path = {e.path: e.sha256.lower() for e in [*evidence.files, *evidence.externals] if e.sha256}
    ref, cand = by_path.get(comp.reference), by_path.get(comp.candidate)
    return (ref, cand) if ref and cand else None


def _comparison(ctx: Context, i: int, comp: QualityComparison, metrics: list[str], scorers: scoring.Scorers,
                quality: dict[str, Any], exp: coverage.Expectation, policy: coverage.Policy,
                progress: scoring.Progress, total: int, *, jobs: list[tuple[int, tuple[Any, ...]]] | None = None,
                planned: dict[int, dict[str, Any]] | None = None,
                local: list[tuple[int, tuple[Any, ...]]] | None = None) -> Iterator[Finding]:
    """
    Yield the findings of comparison `i`; with `jobs`, only append its scoring job (for `score_job`) when it is scored.

    With `local`, only append `(i, (ref path, cand path, ref facts, cand facts, digests))` for
    `scoring.score_pairs`. `planned` holds results already computed (here or on a cluster), by comparison index.
    """
    pointer = f"/comparisons/{i}"
    cid = comp.id
    paths, facts = {}, {}
    for side, name in (("reference", comp.reference), ("candidate", comp.candidate)):
        where = _where(ctx, name)
        if where is None:
            yield _f(Status.UNVERIFIED, "scoring-media-not-verified",
                     f"comparison {cid}: {side} {name} is neither a bundle file nor a supplied external artifact whose "
                     f"sha256 matched the manifest, so {', '.join(metrics)} are not re-computed",
                     pointer=f"{pointer}/{side}", observed=name)
            return
        earlier = ctx.run.coverage_checked.get(name)  # this run's coverage.streams demuxed it already
        if earlier is not None and earlier[0] == exp and earlier[1] == policy:
            findings, fact = earlier[2], earlier[3]
        else:
            findings, fact = coverage.check_file(where, name, exp, policy)
        bad = sorted({f.code for f in findings if f.status is not Status.PASS})
        if fact is None or bad:
            yield _f(Status.UNVERIFIED, "blocked-by-coverage",
                     f"comparison {cid}: blocked by coverage: {side} {name} does not cover the planned timeline "
                     f"({', '.join(bad)}), so {', '.join(metrics)} are not re-computed",
                     pointer=f"{pointer}/{side}", observed=bad)
            return
        paths[side], facts[side] = where, fact
    if local is not None:
        local.append((i, (paths["reference"], paths["candidate"], facts["reference"], facts["candidate"], _digests(ctx, comp))))
        return
    if jobs is not None:
        jobs.append((i, (str(paths["reference"]), str(paths["candidate"]), comp.reference, comp.candidate, exp, policy,
                         metrics, quality, ctx.options.get("weights_dir"), ctx.options.get("device") or "cpu",
                         _digests(ctx, comp), ctx.options.get("cache"))))
        return
    if planned is not None and i in planned:
        results = planned[i]
    else:
        results = scoring.score_pair(paths["reference"], paths["candidate"], facts["reference"], facts["candidate"], policy,
                                     metrics, scorers, progress=progress, label=f"re-scoring {cid} ({i + 1}/{total})",
                                     parallel=ctx.options.get("parallel", False), digests=_digests(ctx, comp),
                                     cache=ctx.options.get("cache"))
    thresholds = quality.get("thresholds", {})
    for metric in metrics:
        result = results[metric]
        where = f"{pointer}/scores/{metric}"
        if isinstance(result, scoring.ScoreRefused):
            yield _f(Status.FAIL, result.code, f"comparison {cid}: {metric} cannot be computed: {result}",
                     pointer=pointer, observed=result.code)
            continue
        value, tol = result.value, scorers.tolerance(metric)
        figures.add(ctx.run.figures, "frames", {"comparison": cid, "metric": metric, "threshold": thresholds.get(metric),
                                         "scores": [float(x) for x in result.per_frame or []]})
        cached = "score" if result.cached else None
        frames = (f" = mean of {len(result.per_frame)} frames (min {min(result.per_frame):.6f}, max "
                  f"{max(result.per_frame):.6f})" if result.per_frame else "")
        derivation = f"{metric} re-computed from {comp.reference} vs {comp.candidate}: {value!r}{frames}"
        recorded = comp.scores.get(metric)
        if recorded is None:
            ok, bound = judge_threshold(value, thresholds.get(metric))
            status, code = (Status.PASS, "rescored-threshold-met") if ok else (Status.FAIL, "threshold-missed")
            yield _f(status, code, f"comparison {cid}: {metric} not recorded; re-computed {value:.6f} "
                                   f"{'meets' if ok else 'does not meet'} {bound}",
                     pointer=pointer, expected=thresholds.get(metric), observed=value, derivation=derivation, cached=cached)
            continue
        signed = float(Decimal(str(recorded))) - value
        diff = abs(signed)
        shown = f"({delta_text(signed, digits=2)}, {tolerance_text(tol)})"  # the one notation (numtext): never `2.6e-07 <= 1e-06`
        if diff <= tol:
            yield _f(Status.PASS, "rescore-match", f"comparison {cid}: recorded {metric} {recorded} re-computes to "
                                                   f"{value:.7f} {shown}",
                     pointer=where, expected=value, observed=str(recorded), derivation=derivation, cached=cached)
        else:
            yield _f(Status.FAIL, "rescore-mismatch", f"comparison {cid}: recorded {metric} {recorded} but the media "
                                                      f"re-compute to {value:.7f} {shown}",
                     pointer=where, expected=value, observed=str(recorded), derivation=derivation, cached=cached)
