"""
Re-scoring: a gate's metrics computed with its pinned scorers, reused from earlier runs where they can be.

Used by the `quality.rescore` check (bundle) and `verify score` (two files).
Inputs have passed coverage (`verifier.checks.coverage`), whose demuxed facts
give the frame counts (compared before any frame is) and the exact audio
sample counts from packet timestamps (media-notes C4); PCM is trimmed to
those counts, never to the shorter signal.

The scoring itself is `verifier.batch_scoring.score_many`: the pairs of a
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
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.cache import Cache, installed_version, result_key
from verifier.checks import coverage
from verifier.errors import ConfigError
from verifier.scorers.weights import WeightPin, WeightsProblem

if TYPE_CHECKING:  # the scorers (numpy, torch) are imported where scores are computed: a warm run reuses them
    from verifier.scorers import lpips_alex  # without loading numpy (docs/cache.md)

__all__ = ["METRICS", "VIDEO_METRICS", "MetricResult", "Progress", "ScoreRefused", "Scorers", "exact_samples",
           "identity_differences", "score_audio", "score_pair", "score_pairs", "score_video", "video_frames"]

METRICS = ("lpips", "ssim", "audio_cosine")
VIDEO_METRICS = ("lpips", "ssim")


class ScoreRefused(Exception):
    """Raised when a pair cannot be scored as given (the evidence is at fault): `code` is the finding code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:  # picklable with its code (results come back from cluster workers)
        return (ScoreRefused, (self.code, str(self)))


class Progress:
    """Writes one updating status line to stderr when it is a TTY (long work shows progress); silent otherwise."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self._width = 0

    def __call__(self, message: str) -> None:
        """Show `message` in place of the previous one."""
        if self.enabled:
            self.stream.write("\r" + message.ljust(self._width))
            self.stream.flush()
            self._width = len(message)

    def done(self) -> None:
        """Clear the status line."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _library_versions(names: tuple[str, ...]) -> dict[str, str]:
    return {name: installed_version(name) for name in names}


def identity_differences(recorded: dict[str, Any] | None, pinned: dict[str, Any]) -> list[str]:
    """
    Return how a recorded scorer identity differs from the gate's pin (empty when equal).

    Compared: `id`, the set of weight files as (name, sha256), `versions`,
    `parameters`, and `state_sha256` when the gate pins one.
    """
    if recorded is None:
        return ["no scorer identity recorded"]
    recorded, pinned = _plain(recorded), _plain(pinned)
    out = []
    if recorded.get("id") != pinned.get("id"):
        out.append(f"id {recorded.get('id')!r} != pinned {pinned.get('id')!r}")
    rec_w = sorted((w.get("name"), w.get("sha256").lower() if isinstance(w.get("sha256"), str) else w.get("sha256")) for w in recorded.get("weights", []))
    pin_w = sorted((w["name"], w["sha256"]) for w in pinned.get("weights", []))
    if rec_w != pin_w:
        out.append(f"weights {rec_w} != pinned {pin_w}")
    for key in ("versions", "parameters"):
        # compared as canonical JSON, so `1` never equals `true` and `1.0` never equals `1`
        if json.dumps(recorded.get(key), sort_keys=True) != json.dumps(pinned.get(key), sort_keys=True):
            out.append(f"{key} {recorded.get(key)} != pinned {pinned.get(key)}")
    if pinned.get("state_sha256") and str(recorded.get("state_sha256")).lower() != pinned["state_sha256"]:
        out.append(f"state_sha256 {recorded.get('state_sha256')} != pinned {pinned['state_sha256']}")
    return out


def _plain(value: Any) -> Any:
    """Return `value` with `Decimal` numbers (strict JSON reading) as floats, so 1.5 == Decimal("1.5")."""
    from decimal import Decimal

    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class Scorers:
    """
    Represents the scorers a gate's `quality` section pins, built lazily once per run.

    `ready(metric)` returns the run's scorer identity or raises
    `WeightsProblem` (UNVERIFIED: extra or weights absent; ERROR: weights
    wrong); the outcome is cached, so a missing file is reported once.
    `weights_dir` and `device` are the run options (`--weights-dir`, `--device`).
    """

    def __init__(self, quality: dict[str, Any], *, weights_dir: str | None = None, device: str = "cpu",
                 cache: Cache | None = None) -> None:
        self.quality = quality
        self.weights_dir = weights_dir
        self.device = device
        self.cache = cache  # the warm re-verify cache: LPIPS's identity is learnt from its weight files' identities
        self._ready: dict[str, dict[str, Any] | WeightsProblem] = {}
        self.lpips: lpips_alex.LpipsScorer | None = None
        self._lpips_build: Callable[[], dict[str, Any]] | None = None  # set when the identity came from the cache

    def lpips_model(self) -> lpips_alex.LpipsScorer | None:
        """
        Return the LPIPS model, building it now when `ready("lpips")` took its identity from the cache.

        Raises `WeightsProblem` when that build fails, and ERROR
        `scorer-identity-changed` when the built identity is not the one
        remembered (the scores would be keyed by the wrong identity).
        """
        if self.lpips is None and self._lpips_build is not None:
            build, self._lpips_build = self._lpips_build, None
            built = build()
            remembered = self._ready.get("lpips")
            if isinstance(remembered, dict) and built != remembered:
                problem = WeightsProblem("ERROR", "scorer-identity-changed",
                                         "the LPIPS scorer built from the weight files now differs from the identity "
                                         "remembered for them by the warm cache; nothing is scored with it")
                self._ready["lpips"] = problem
                self.lpips = None
                raise problem
        return self.lpips

    def pin(self, metric: str) -> dict[str, Any]:
        """Return the gate's scorer pin of `metric`; raises `ConfigError` when the gate pins none."""
        pin = self.quality.get("scorers", {}).get(metric)
        if pin is None:
            raise ConfigError(f"the gate re-scores {metric} but pins no scorer for it (quality.scorers.{metric})")
        return pin  # type: ignore[no-any-return]

    def tolerance(self, metric: str) -> float:
        """Return the gate's absolute re-score tolerance of `metric`; raises `ConfigError` when absent."""
        tol = self.quality.get("tolerances", {}).get(metric)
        if tol is None:
            raise ConfigError(f"the gate re-scores {metric} but states no tolerance (quality.tolerances.{metric})")
        return float(tol)

    def ready(self, metric: str) -> dict[str, Any]:
        """Return the identity of the scorer of `metric` for this run, building it on first use."""
        if metric not in self._ready:
            try:
                self._ready[metric] = self._build(metric)
            except WeightsProblem as problem:
                self._ready[metric] = problem
        value = self._ready[metric]
        if isinstance(value, WeightsProblem):
            raise value
        return value

    def _check_parameters(self, metric: str, implemented: dict[str, Any], ignore: tuple[str, ...] = ()) -> dict[str, Any]:
        pin = self.pin(metric)
        declared = {k: v for k, v in pin.get("parameters", {}).items() if k not in ignore}
        if declared != implemented:
            raise ConfigError(f"gate scorer {metric} declares parameters {declared}, but this verifier computes {implemented}")
        return pin

    def _build(self, metric: str) -> dict[str, Any]:
        from verifier.scorers.parameters import BY_METRIC as PARAMETERS

        if metric == "lpips":
            from verifier.scorers import known

            pin = self._check_parameters(metric, PARAMETERS["lpips"])
            pins = [WeightPin.from_gate(w) for w in pin.get("weights", [])]

            def build() -> dict[str, Any]:
                from verifier.scorers import lpips_alex  # torch, numpy: only when the model is needed

                self.lpips = lpips_alex.build(pins, pin.get("state_sha256"), weights_dir=self.weights_dir, device=self.device)
                return self.lpips.identity

            identity, built = known.identity_or_build(metric, pins, pin.get("state_sha256"), self.weights_dir, self.device,
                                                      self.cache, build)
            if not built:
                self._lpips_build = build
            return identity
        if metric == "ssim":
            pin = self._check_parameters(metric, PARAMETERS["ssim"])
            # computed by `verifier.scorers.ssim` with numpy alone (equal to scikit-image's, which the tests hold it to)
            return {"id": pin["id"], "weights": [], "versions": _library_versions(("numpy", "av")),
                    "parameters": dict(pin["parameters"])}
        if metric == "audio_cosine":
            pin = self._check_parameters(metric, PARAMETERS["audio_cosine"], ignore=("length_tolerance_samples",))
            return {"id": pin["id"], "weights": [], "versions": _library_versions(("numpy", "av")),
                    "parameters": dict(pin["parameters"])}
        raise ConfigError(f"unknown metric {metric!r}; known: {', '.join(METRICS)}")

    def length_tolerance(self) -> int:
        """Return the audio length tolerance in samples (gate `scorers.audio_cosine.parameters.length_tolerance_samples`)."""
        return int(self.pin("audio_cosine")["parameters"].get("length_tolerance_samples", 0))


@dataclass
class MetricResult:
    """Represents one metric of one pair: the clip `value` (mean) and the `per_frame` values (video metrics)."""

    value: float
    per_frame: list[float] = field(default_factory=list)
    cached: bool = False  # True when taken from the warm re-verify cache (`verifier.cache`), not computed in this run


def video_frames(facts: coverage.MediaFacts) -> int:
    """Return the demuxed video frame count as coverage counts it (packets with and without a pts; [V1])."""
    v = facts.video
    return 0 if v is None else v.packets + v.missing_pts


def exact_samples(facts: coverage.MediaFacts) -> int:
    """Return the exact audio samples per channel from coverage's packet-timestamp span (media-notes C4)."""
    a = facts.audio
    if a is None:
        raise ScoreRefused("no-audio", f"{facts.name}: no audio stream")
    start, end = coverage.audio_span(a)  # the coverage check's own derivation, not re-derived here
    if start is None or end is None or not a.sample_rate:
        raise ScoreRefused("audio-span-unknown", f"{facts.name}: the audio span cannot be established from packet timestamps")
    samples = (end - start) * a.sample_rate
    if samples.denominator != 1 or samples <= 0:
        raise ScoreRefused("audio-span-unknown", f"{facts.name}: the audio span {samples} is not a positive whole number of samples")
    return int(samples)


# --------------------------------------------------------------------------- scoring


def score_video(ref: Path, cand: Path, ref_facts: coverage.MediaFacts, cand_facts: coverage.MediaFacts,
                policy: coverage.Policy, metrics: list[str], scorers: Scorers, *, progress: Callable[[str], None] | None = None,
                label: str = "", parallel: bool = False) -> dict[str, MetricResult]:
    """
    Return the video metrics (`lpips`, `ssim`) of one pair, decoding each file once (`verifier.batch_scoring`).

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


def score_audio(ref: Path, cand: Path, ref_facts: coverage.MediaFacts, cand_facts: coverage.MediaFacts,
                policy: coverage.Policy, length_tolerance: int) -> MetricResult:
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


def score_pair(ref: Path, cand: Path, ref_facts: coverage.MediaFacts, cand_facts: coverage.MediaFacts,
               policy: coverage.Policy, metrics: list[str], scorers: Scorers, *, progress: Callable[[str], None] | None = None,
               label: str = "", parallel: bool = False, digests: tuple[str, str] | None = None,
               cache: Cache | None = None) -> dict[str, MetricResult | ScoreRefused]:
    """
    Return each requested metric of a pair, or the `ScoreRefused` that stopped it (`score_pairs` of one pair).

    `label` and `parallel` are accepted for callers of earlier versions and change nothing.
    """
    return score_pairs([(ref, cand, ref_facts, cand_facts, digests)], policy, metrics, scorers, progress=progress,
                       cache=cache)[0]


def score_pairs(pairs: list[tuple[Path, Path, coverage.MediaFacts, coverage.MediaFacts, tuple[str, str] | None]],
                policy: coverage.Policy, metrics: list[str], scorers: Scorers, *,
                progress: Callable[[str], None] | None = None,
                cache: Cache | None = None) -> list[dict[str, MetricResult | ScoreRefused]]:
    """
    Return, per pair `(ref, cand, ref facts, cand facts, digests)`, each metric or the `ScoreRefused` that stopped it.

    `metrics` must all be ready (`Scorers.ready`). The pairs not reused are
    scored together by `verifier.batch_scoring.score_many`: each file is
    decoded once for every pair and metric, and a frame shared by several
    pairs goes through AlexNet once; a refusal of the video decoding applies
    to every video metric of that pair. `digests`, the verified sha256 of
    both files, lets a repeated pair reuse its results within this process
    (keyed with the scorers' identities), and across runs through `cache`
    (`verifier.cache`): keyed by both digests, the metrics, the gate's pins,
    the run's scorer identities (library versions, device, threads), the
    coverage policy, the verifier version, the digest of the verifier's own
    source and the installed distributions (`verifier.cache.result_key`).
    Only pairs whose every metric was computed are stored (refusals are
    recomputed). Results read from the cache have `cached` True.
    """
    from verifier.batch_scoring import PairJob, score_many

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


def _score_pair(ref: Path, cand: Path, ref_facts: coverage.MediaFacts, cand_facts: coverage.MediaFacts,
                policy: coverage.Policy, metrics: list[str], scorers: Scorers, *,
                progress: Callable[[str], None] | None = None) -> dict[str, MetricResult | ScoreRefused]:
    from verifier.batch_scoring import PairJob, score_many

    job = PairJob(ref, cand, ref_facts, cand_facts, list(metrics))
    score_many([job], scorers, policy, progress=progress)
    return job.out
