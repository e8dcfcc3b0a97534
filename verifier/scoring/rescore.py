"""
Re-scoring: a gate's metrics computed with its pinned scorers, reused from earlier runs where they can be.

Used by the `quality.rescore` check (bundle) and `verify score` (two files).
Inputs have passed coverage (`verifier.checks.coverage`), whose demuxed facts
(`verifier.media.demux.MediaFacts`, imported from `media/`: `checks/` imports
the scoring modules, never the other way) give the frame counts (compared before any frame is) and the exact audio
sample counts from packet timestamps (media-notes C4); PCM is trimmed to
those counts, never to the shorter signal.

The scoring itself is `verifier.scoring.batch_scoring.score_many`: the pairs of a
run are scored together, each media file decoded once for every pair and
metric, in lockstep, one frame at a time (memory stays flat in clip
length); SSIM and LPIPS are computed on the same decoded frames, and a
frame shared by several pairs goes through AlexNet once. `score_pairs`
adds the reuse (within a process, and across runs through the warm cache).

Metric names: `lpips`, `ssim`, `audio_cosine`. Parameters come from the
gate's `quality.scorers` and must equal what the implementations compute
(`verifier.scorers.parameters`); anything
else is a `ConfigError` (a gate cannot ask for a variant we do not compute).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from verifier.cache.warm import Cache, result_key
from verifier.media.demux import MediaFacts
from verifier.media.policy import Policy
from verifier.scoring.scorer_set import (
    METRICS,
    VIDEO_METRICS,
    MetricResult,
    Progress,
    ScoreRefused,
    Scorers,
    _plain,
    exact_samples,
    identity_differences,
    video_frames,
)

__all__ = ["METRICS", "VIDEO_METRICS", "MetricResult", "Progress", "ScoreRefused", "Scorers", "exact_samples",
           "identity_differences", "score_audio", "score_pair", "score_pairs", "score_video", "video_frames"]

def score_video(ref: Path, cand: Path, ref_facts: MediaFacts, cand_facts: MediaFacts,
                policy: Policy, metrics: list[str], scorers: Scorers, *, progress: Callable[[str], None] | None = None,
                label: str = "", parallel: bool = False) -> dict[str, MetricResult]:
    """
    Return the video metrics (`lpips`, `ssim`) of one pair, decoding each file once (`verifier.scoring.batch_scoring`).

    The demuxed frame counts must be equal before any frame is compared, and
    the decoded counts too; every pair of frames must have the same size.
    Raises `ScoreRefused` (`frame-count-mismatch`, `no-frames`,
    `frame-size-mismatch`, `decode-error`), `WeightsProblem` from the scorers.
    `label` and `parallel` are accepted for callers of earlier versions and
    change nothing (everything runs in this process).
    """
    out = _score_pair(ref, cand, ref_facts, cand_facts, policy, [m for m in metrics if m in VIDEO_METRICS], scorers,
                      progress=progress)
    for result in out.values():
        if isinstance(result, ScoreRefused):
            raise result
    return out  # type: ignore[return-value]


def score_audio(ref: Path, cand: Path, ref_facts: MediaFacts, cand_facts: MediaFacts,
                policy: Policy, length_tolerance: int) -> MetricResult:
    """
    Return the `stft_mag_cosine_v1` score of a pair's audio, each trimmed to its exact sample count.

    Differing sample rates are refused before decoding (H-16: nothing is
    resampled). Raises `ScoreRefused` with the refusal code of
    `audio.AudioRefused` (`sample-rate-mismatch`, `length-mismatch`,
    `too-short`, `silence`, `non-finite`) or a decoding code.
    """
    scorers = Scorers({"scorers": {"audio_cosine": {"parameters": {"length_tolerance_samples": length_tolerance}}}})
    result = _score_pair(ref, cand, ref_facts, cand_facts, policy, ["audio_cosine"], scorers)["audio_cosine"]
    if isinstance(result, ScoreRefused):
        raise result
    return result


#: Results by (reference sha256, candidate sha256, metrics, scorer identities, tolerance-free parameters):
#: a score is a function of the bytes and the scorer, so a pair whose bytes the integrity check matched
#: is not decoded twice in one process (the example's pairs repeat across arms, and tests verify many copies).
_MEMO: dict[str, dict[str, Any]] = {}
_MEMO_SIZE = 512


def score_pair(ref: Path, cand: Path, ref_facts: MediaFacts, cand_facts: MediaFacts,
               policy: Policy, metrics: list[str], scorers: Scorers, *, progress: Callable[[str], None] | None = None,
               label: str = "", parallel: bool = False, digests: tuple[str, str] | None = None,
               cache: Cache | None = None) -> dict[str, MetricResult | ScoreRefused]:
    """
    Return each requested metric of a pair, or the `ScoreRefused` that stopped it (`score_pairs` of one pair).

    `label` and `parallel` are accepted for callers of earlier versions and change nothing.
    """
    return score_pairs([(ref, cand, ref_facts, cand_facts, digests)], policy, metrics, scorers, progress=progress,
                       cache=cache)[0]


def score_pairs(pairs: list[tuple[Path, Path, MediaFacts, MediaFacts, tuple[str, str] | None]],
                policy: Policy, metrics: list[str], scorers: Scorers, *,
                progress: Callable[[str], None] | None = None,
                cache: Cache | None = None) -> list[dict[str, MetricResult | ScoreRefused]]:
    """
    Return, per pair `(ref, cand, ref facts, cand facts, digests)`, each metric or the `ScoreRefused` that stopped it.

    `metrics` must all be ready (`Scorers.ready`). The pairs not reused are
    scored together by `verifier.scoring.batch_scoring.score_many`: each file is
    decoded once for every pair and metric, and a frame shared by several
    pairs goes through AlexNet once; a refusal of the video decoding applies
    to every video metric of that pair. `digests`, the verified sha256 of
    both files, lets a repeated pair reuse its results within this process
    (keyed with the scorers' identities), and across runs through `cache`
    (`verifier.cache.warm`): keyed by both digests, the metrics, the gate's pins,
    the run's scorer identities (library versions, device, threads), the
    coverage policy, the verifier version, the digest of the verifier's own
    source and the installed distributions (`verifier.cache.warm.result_key`).
    Only pairs whose every metric was computed are stored (refusals are
    recomputed). Results read from the cache have `cached` True.
    """
    from verifier.scoring.batch_scoring import PairJob, score_many

    results: list[dict[str, MetricResult | ScoreRefused] | None] = []
    keys: list[tuple[str | None, str | None]] = []
    for _ref, _cand, _rf, _cf, digests in pairs:
        key = None
        if digests is not None:
            key = json.dumps([digests, metrics, [_plain(scorers.pin(m)) for m in metrics],
                              [sorted(scorers.ready(m).items(), key=str) for m in metrics]], default=str,
                             sort_keys=True)  # an identity read back from the cache has its keys sorted
        stored_key = None if key is None or cache is None else result_key("score", key, repr(policy))
        out: dict[str, MetricResult | ScoreRefused] | None = None
        if stored_key is not None:  # the cache first, so a result is marked `cached` exactly when an earlier run stored it
            out = _from_cache(cache.result(stored_key), metrics)  # type: ignore[union-attr]
        elif key is not None and key in _MEMO:
            out = dict(_MEMO[key])
        results.append(out)
        keys.append((key, stored_key))
    todo = [i for i, r in enumerate(results) if r is None]
    jobs = [PairJob(pairs[i][0], pairs[i][1], pairs[i][2], pairs[i][3], list(metrics)) for i in todo]
    if jobs:
        score_many(jobs, scorers, policy, progress=progress)  # builds LPIPS first if its identity came from the cache
    for i, job in zip(todo, jobs, strict=True):
        results[i] = job.out
        stored_key = keys[i][1]
        if stored_key is not None and all(isinstance(r, MetricResult) for r in job.out.values()):
            cache.store_result(stored_key, {m: {"value": r.value, "per_frame": r.per_frame}  # type: ignore[union-attr]
                                            for m, r in job.out.items() if isinstance(r, MetricResult)})
    for (key, _stored), out in zip(keys, results, strict=True):
        if key is not None and out is not None:
            if len(_MEMO) >= _MEMO_SIZE:
                _MEMO.pop(next(iter(_MEMO)))
            _MEMO[key] = {m: (replace(r, cached=False) if isinstance(r, MetricResult) else r) for m, r in out.items()}
    return results  # type: ignore[return-value]


def _from_cache(found: tuple[Any, bool] | None, metrics: list[str]) -> dict[str, MetricResult | ScoreRefused] | None:
    """Return the results of a cache entry (`{metric: {value, per_frame}}`, from an earlier run?), or None when it is not one for `metrics`."""
    if found is None:
        return None
    entry, earlier = found
    if not isinstance(entry, dict) or sorted(entry) != sorted(metrics):
        return None
    out: dict[str, MetricResult | ScoreRefused] = {}
    for metric in metrics:
        item = entry[metric]
        if (not isinstance(item, dict) or type(item.get("value")) is not float or not isinstance(item.get("per_frame"), list)
                or not all(type(v) is float for v in item["per_frame"])):
            return None
        out[metric] = MetricResult(value=item["value"], per_frame=list(item["per_frame"]), cached=earlier)
    return out


def _score_pair(ref: Path, cand: Path, ref_facts: MediaFacts, cand_facts: MediaFacts,
                policy: Policy, metrics: list[str], scorers: Scorers, *,
                progress: Callable[[str], None] | None = None) -> dict[str, MetricResult | ScoreRefused]:
    from verifier.scoring.batch_scoring import PairJob, score_many

    job = PairJob(ref, cand, ref_facts, cand_facts, list(metrics))
    score_many([job], scorers, policy, progress=progress)
    return job.out
