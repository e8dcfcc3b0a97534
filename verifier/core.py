"""
The core: choose the reader for a path, run its pipeline, return a `Report`.

Readers:
- a directory with `manifest.json` is a bundle (format v1, `BUNDLE_PIPELINE`);
- a directory without one whose files a receipt-directory reader recognises
  (`detect_directory`: frozen HTTP matrix output, telemetry receipt) is given
  to that reader; any other directory is treated as a bundle, as before (the
  bundle checks then report the missing manifest);
- a file is read as strict JSON and given to the adapter whose detection
  matches what it records about its producer (`verifier.adapters.ADAPTERS`);
  no match is a usage error (exit 2).

Order of `BUNDLE_PIPELINE` (a security property, see `docs/architecture.md`):
(1) integrity before anything is parsed; (2) the gate the bundle names;
(3) schemas of the hashed documents; (4) plan conformance; (5) media
coverage per output file, before anything is scored; (6) derivation of
claims; (7) recorded quality against thresholds; (8) quality re-computed
from the media with the gate's pinned scorers.

`verify_media` runs the coverage family on standalone media files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from verifier import __version__
from verifier.adapters import ADAPTERS, detect, detect_directory
from verifier.bundle import Bundle
from verifier.checks import coverage, derivation, gate, integrity, plan, quality, rescore, schema
from verifier.errors import UsageError
from verifier.jsonio import JSONProblem, loads_strict
from verifier.model import Report
from verifier.pipeline import Context, run_pipeline
from verifier.trust import assets

__all__ = ["BUNDLE_PIPELINE", "check_device", "score_media", "verify_media", "verify_path"]


def check_device(device: str) -> None:
    """Raise `UsageError` unless `device` is "cpu", or "cuda" with torch installed and a GPU present."""
    if device == "cpu":
        return
    if device != "cuda":
        raise UsageError(f"--device {device!r}: use cpu or cuda")
    try:
        import torch
    except ImportError:
        raise UsageError("--device cuda needs torch (install the `scoring` extra)") from None
    if not torch.cuda.is_available():
        raise UsageError("--device cuda was given but no CUDA device is available")

BUNDLE_PIPELINE = (
    integrity.files,  # (1) nothing is parsed before it is hashed
    gate.pinned,  # (2) the gate comes from our pinned gates/, never the bundle
    schema.documents,  # (3) hashed documents validate against pinned schemas
    plan.conformance,  # (4) receipts are exactly what the plan called for
    coverage.streams,  # (5) each output file covers the planned timeline, judged alone, before any scoring
    derivation.claims,  # (6) claims re-derive from receipts
    quality.recorded,  # (7) recorded scores against the gate's thresholds, scorer identity against the gate's pin
    rescore.rescore,  # (8) scores re-computed from media that passed coverage, with digest-pinned scorers
)


def verify_path(path: str, *, artifacts: str | None = None, gate_id: str | None = None,
                debug: bool = False, asset_root: str | None = None, weights_dir: str | None = None,
                device: str = "cpu", parallel: bool = False) -> Report:
    """
    Verify the bundle directory, receipt directory or receipt file at `path` and return its `Report`.

    `artifacts` is a directory holding external artifacts by their manifest
    path; `gate_id` (optional) must equal the gate the bundle names.
    Raises `UsageError` for a missing or unreadable path or an unrecognised
    file, `ConfigError`/`PinMismatch` when our own assets fail their pins.
    Side effects: reads the bundle; never writes.
    """
    trusted = assets(asset_root)
    target = Path(path)
    if not os.path.lexists(target):
        raise UsageError(f"{path}: no such file or directory")
    if target.is_dir():
        if not os.access(target, os.R_OK | os.X_OK):
            raise UsageError(f"{path}: directory is not readable")
        reader = None if (target / "manifest.json").exists() else detect_directory(target)
        if reader is not None:
            ctx = Context(subject=target, assets=trusted, options={"directory": target, "name": target.name})
            findings, roster = run_pipeline(reader.PIPELINE, ctx, debug=debug)
            return Report(subject=path, kind=reader.KIND, verifier_version=__version__, findings=tuple(findings),
                          roster=tuple(roster), producer=ctx.data.get("producer"))
        check_device(device)
        ctx = Context(subject=target, assets=trusted, bundle=Bundle(root=target),
                      options={"artifacts": artifacts, "gate": gate_id, "weights_dir": weights_dir, "device": device,
                               "parallel": parallel})
        findings, roster = run_pipeline(BUNDLE_PIPELINE, ctx, debug=debug)
        return Report(subject=path, kind="bundle-v1", verifier_version=__version__, findings=tuple(findings),
                      roster=tuple(roster), gate=ctx.gate_id,
                      gate_sha256=trusted.gate_sha256(ctx.gate_id) if ctx.gate_id else None)
    if not target.is_file():
        raise UsageError(f"{path}: not a regular file or directory")
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        document: Any = loads_strict(data)
    except JSONProblem as exc:
        raise UsageError(f"{path}: not a bundle directory, and not a receipt verify can read: {exc}") from None
    adapter = detect(document)
    if adapter is None:
        raise UsageError(
            f"{path}: a file, not a bundle directory, and not a receipt of a known producer "
            f"(known: {', '.join(a.KIND for a in ADAPTERS)}); pass a bundle directory"
        )
    ctx = Context(subject=target, assets=trusted, options={"document": document, "name": target.name})
    findings, roster = run_pipeline(adapter.PIPELINE, ctx, debug=debug)
    return Report(subject=path, kind=adapter.KIND, verifier_version=__version__, findings=tuple(findings), roster=tuple(roster),
                  producer=ctx.data.get("producer"))


def verify_media(paths: list[str], *, gate_id: str | None = None, frames: int | None = None, fps: str | None = None,
                 sample_rate: int | None = None, channels: int | None = None,
                 containers: tuple[str, ...] = (), video_codecs: tuple[str, ...] = (), audio_codecs: tuple[str, ...] = (),
                 decode: bool = False, debug: bool = False, asset_root: str | None = None) -> Report:
    """
    Run the coverage family on standalone media files and return one `Report` (kind `media`).

    Expectations: from the gate `gate_id`'s `coverage.expected_output` when
    given, each overridden by `frames`, `fps` (e.g. "24", "30000/1001"),
    `sample_rate` (Hz) and `channels`; without a gate `frames` and `fps` are
    required, and `sample_rate`/`channels` go together (neither: the files
    must carry no audio). Tolerances and limits: the gate's, else
    `coverage.DEFAULT_POLICY` (the numbers of `ref2va-5s-v1`). `containers`,
    `video_codecs` and `audio_codecs`, when given, replace the allowlists
    (an audio codec must be one whose tolerances `coverage.KNOWN_AUDIO_RULES`
    states). `decode` adds a full decode per file ([X3], check
    `coverage.decode`). Raises `UsageError` for missing files or incomplete
    or inconsistent expectations, `ConfigError` for an unknown gate.
    Side effects: demuxes (and with `decode`, decodes) each file; never writes.
    """
    from fractions import Fraction

    from verifier.pipeline import Check

    trusted = assets(asset_root)
    if not paths:
        raise UsageError("give at least one media FILE")
    for p in paths:
        if not os.path.lexists(p):
            raise UsageError(f"{p}: no such file")
    policy = coverage.DEFAULT_POLICY
    base: dict[str, Any] = {}
    if gate_id is not None:
        section = trusted.gate(gate_id).get("coverage")
        if section is None:
            raise UsageError(f"gate {gate_id} has no coverage section")
        policy = coverage.policy_from_gate(section)
        base = dict(section.get("expected_output", {}))
    for key, value in (("frames", frames), ("fps", fps), ("sample_rate", sample_rate), ("channels", channels)):
        if value is not None:
            base[key] = value
    if "frames" not in base or "fps" not in base:
        raise UsageError("give --frames and --fps (or a --gate whose coverage section states the expected output)")
    if ("sample_rate" in base) != ("channels" in base):
        raise UsageError("give --sample-rate and --channels together (neither: the files must carry no audio)")
    try:
        rate = Fraction(str(base["fps"]))
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"--fps {base['fps']!r} is not a rate like 24 or 30000/1001") from None
    if rate <= 0 or int(base["frames"]) < 1:
        raise UsageError("--frames and --fps must be positive")
    exp = coverage.Expectation(frames=int(base["frames"]), fps=rate, sample_rate=base.get("sample_rate"),
                               channels=base.get("channels"))
    if containers or video_codecs or audio_codecs:
        unknown = [c for c in audio_codecs if c not in coverage.KNOWN_AUDIO_RULES]
        if unknown:
            raise UsageError(f"no tolerances are stated for audio codec(s) {', '.join(unknown)}; "
                             f"known: {', '.join(coverage.KNOWN_AUDIO_RULES)}")
        import dataclasses

        policy = dataclasses.replace(
            policy,
            containers=tuple(containers) or policy.containers,
            video_codecs=tuple(video_codecs) or policy.video_codecs,
            audio_codecs={c: coverage.KNOWN_AUDIO_RULES[c] for c in audio_codecs} or policy.audio_codecs,
        )

    def media(ctx: Context) -> Any:
        for p in paths:
            findings, _facts = coverage.check_file(Path(p), p, exp, policy)
            yield from findings

    def decoded(ctx: Context) -> Any:
        for p in paths:
            yield from coverage.decode_errors(Path(p), p, policy)

    pipeline = [Check(coverage.CHECK, coverage.streams.title, media)]
    if decode:
        pipeline.append(Check(coverage.DECODE_CHECK, "Each media file decodes without a decoder error (full decode)", decoded))
    ctx = Context(subject=Path(paths[0]), assets=trusted, gate_id=gate_id, options={"expectation": exp.to_json()})
    findings, roster = run_pipeline(pipeline, ctx, debug=debug)
    return Report(subject=" ".join(paths), kind="media", verifier_version=__version__, findings=tuple(findings),
                  roster=tuple(roster), gate=gate_id, gate_sha256=trusted.gate_sha256(gate_id) if gate_id else None)


def score_media(reference: str, candidate: str, *, gate_id: str, weights_dir: str | None = None, device: str = "cpu",
                parallel: bool = False, debug: bool = False, asset_root: str | None = None) -> Report:
    """
    Score REFERENCE against CANDIDATE with every scorer of gate `gate_id` and return one `Report` (kind `score`).

    Runs coverage on both files first (check `coverage.streams`, expectations
    from the gate's `coverage.expected_output`); a file that fails coverage
    blocks scoring. Then check `quality.score`: per metric of the gate's
    `quality.rescore` (else every scorer it pins) one finding with the mean
    (per-frame values in `derivation`) and the scorer identity, PASS or FAIL
    against the gate's threshold; a metric that cannot be computed (torch
    not installed, weights absent) is UNVERIFIED, so the verdict is
    INCOMPLETE (exit 3). Raises `UsageError` for missing files, a bad
    device, or a gate without quality or coverage sections; `ConfigError`
    for an unknown gate. Side effects: decodes both files, reads weights.
    """
    from verifier import scoring
    from verifier.checks.rescore import judge_threshold
    from verifier.model import Finding, Status
    from verifier.pipeline import Check
    from verifier.scorers.weights import WeightsProblem

    trusted = assets(asset_root)
    for p in (reference, candidate):
        if not os.path.lexists(p):
            raise UsageError(f"{p}: no such file")
    check_device(device)
    gate_doc = trusted.gate(gate_id)
    quality_section, section = gate_doc.get("quality"), gate_doc.get("coverage")
    if not quality_section or not quality_section.get("scorers"):
        raise UsageError(f"gate {gate_id} pins no scorers (quality.scorers), so there is nothing to score with")
    if section is None or "expected_output" not in section:
        raise UsageError(f"gate {gate_id} states no coverage.expected_output; coverage must run before scoring")
    policy = coverage.policy_from_gate(section)
    exp = coverage.Expectation.from_plan(section["expected_output"])
    metrics = list(quality_section.get("rescore") or quality_section["scorers"])
    names = {"reference": reference, "candidate": candidate}
    facts: dict[str, Any] = {}

    def covered(ctx: Context) -> Any:
        for side, path in names.items():
            findings, fact = coverage.check_file(Path(path), path, exp, policy)
            facts[side] = fact
            yield from findings

    def scored(ctx: Context) -> Any:
        scorers = scoring.Scorers(quality_section, weights_dir=weights_dir, device=device)
        ready = []
        for metric in metrics:
            try:
                identity = scorers.ready(metric)
            except WeightsProblem as problem:
                yield Finding(check="quality.score", status=Status(problem.status), code=problem.code,
                              message=f"{metric}: not computed: {problem}", expected=scorers.pin(metric))
                continue
            ready.append((metric, identity))
        if not ready:
            return
        progress = scoring.Progress()
        try:
            results = scoring.score_pair(Path(reference), Path(candidate), facts["reference"], facts["candidate"], policy,
                                         [m for m, _ in ready], scorers, progress=progress, label="scoring", parallel=parallel)
        finally:
            progress.done()
        for metric, identity in ready:
            result = results[metric]
            if isinstance(result, scoring.ScoreRefused):
                yield Finding(check="quality.score", status=Status.FAIL, code=result.code,
                              message=f"{metric}: cannot be computed: {result}", observed=result.code)
                continue
            rule = quality_section.get("thresholds", {}).get(metric)
            ok, bound = judge_threshold(result.value, rule)
            weights = "; ".join(f"{w['name']} sha256 {w['sha256']}" for w in identity.get("weights", []))
            who = f"{identity['id']}" + (f" [{weights}; state {identity.get('state_sha256')}]" if weights else "")
            frames = (f"per frame ({len(result.per_frame)}): " + ", ".join(f"{v:.6f}" for v in result.per_frame)
                      if result.per_frame else None)
            yield Finding(check="quality.score", status=Status.PASS if ok else Status.FAIL,
                          code="threshold-met" if ok else "threshold-missed",
                          message=f"{metric} = {result.value:.6f} ({'meets' if ok else 'does not meet'} {bound}); scorer {who}; "
                                  + ", ".join(f"{k} {v}" for k, v in sorted(identity.get("versions", {}).items())),
                          expected=rule, observed={"value": result.value, "identity": identity}, derivation=frames)

    pipeline = [Check(coverage.CHECK, coverage.streams.title, covered),
                Check("quality.score", "Every scorer of the gate, with its pins, on the pair; each metric against the "
                                       "gate's threshold", scored, requires=(coverage.CHECK,))]
    ctx = Context(subject=Path(reference), assets=trusted, gate_id=gate_id)
    findings, roster = run_pipeline(pipeline, ctx, debug=debug)
    return Report(subject=f"{reference} {candidate}", kind="score", verifier_version=__version__, findings=tuple(findings),
                  roster=tuple(roster), gate=gate_id, gate_sha256=trusted.gate_sha256(gate_id))
