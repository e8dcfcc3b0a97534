"""
The gate's pinned scorers and what one scoring yields: `Scorers`, `MetricResult`, `ScoreRefused`, and the frame and sample counts scored.

Shared by `verifier.scoring.rescore` (which pairs to score, reuse across runs) and
`verifier.scoring.batch_scoring` (the scoring itself), so neither imports the other
back; `verifier.scoring.rescore` re-exports every name here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from verifier.cache.warm import Cache, installed_version
from verifier.errors import ConfigError
from verifier.media.demux import MediaFacts, audio_span
from verifier.scorers.weights import WeightPin, WeightsProblem

if TYPE_CHECKING:  # the scorers (numpy, torch) are imported where scores are computed: a warm run reuses them
    from verifier.scorers import lpips_alex  # without loading numpy (docs/cache.md)

__all__ = ["METRICS", "VIDEO_METRICS", "MetricResult", "Progress", "ScoreRefused", "Scorers", "exact_samples",
           "identity_differences", "video_frames"]

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
                from verifier.scorers import (
                    lpips_alex,  # torch, numpy: only when the model is needed
                )

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
    cached: bool = False  # True when taken from the warm re-verify cache (`verifier.cache.warm`), not computed in this run


def video_frames(facts: MediaFacts) -> int:
    """Return the demuxed video frame count as coverage counts it (packets with and without a pts; [V1])."""
    v = facts.video
    return 0 if v is None else v.packets + v.missing_pts


def exact_samples(facts: MediaFacts) -> int:
    """Return the exact audio samples per channel from coverage's packet-timestamp span (media-notes C4)."""
    a = facts.audio
    if a is None:
        raise ScoreRefused("no-audio", f"{facts.name}: no audio stream")
    start, end = audio_span(a)  # the coverage check's own derivation (`verifier.checks.coverage_rules` reads it too), not re-derived here
    if start is None or end is None or not a.sample_rate:
        raise ScoreRefused("audio-span-unknown", f"{facts.name}: the audio span cannot be established from packet timestamps")
    samples = (end - start) * a.sample_rate
    if samples.denominator != 1 or samples <= 0:
        raise ScoreRefused("audio-span-unknown", f"{facts.name}: the audio span {samples} is not a positive whole number of samples")
    return int(samples)


# --------------------------------------------------------------------------- scoring
