"""
Coverage: every output media file spans the plan's expected timeline, per stream.

Each file is judged on its own against the expected frame count N, frame rate
and audio format the plan declares, never against the other arm (two arms
that carry the same truncated 0.5 s track agree with each other). The file is
demuxed with PyAV and nothing is decoded; all times are exact
`fractions.Fraction` seconds built from integer timestamps and time bases.
The measured facts these rules rest on are in
`shared/docs/media-notes.md` section C (rule ids in brackets are its C5 table,
plus A5, a gap check for audio that mirrors V2):

- [S1] exactly one video stream and the expected audio streams (one, or none
  when no audio is expected; other stream types are not judged), container
  and codecs on the gate's allowlists, `average_rate == fps`, `sample_rate`
  and channel count as planned;
- [X1] no packet flagged corrupt; [X2] the header frame count of each stream
  equals the demuxed packet count (a header count of 0 means "unknown", H-17);
- [V1] exactly N video packets; [V2] video timestamps on the constant step
  1/fps (each within less than one tick of `start + i/fps`, so a coarse time
  base such as WebM's 1/1000 passes and a gap or duplicate does not; checked
  while demuxing over a small reorder window, so memory stays constant);
  [V3] start within the gate's tolerance (half a frame) of 0; [V4] end (last
  pts plus its duration) within half a frame of N/fps;
- [A1]/[A2] audio start = first pts (in time-base ticks) + skip-samples side
  data (in samples, divided by the sample rate) no later than
  one codec frame and no earlier than the largest standard priming;
  [A3]/[A4] audio end = last pts + last duration - discard (samples) no shorter than one
  codec frame and no longer than priming plus one frame, against N/fps;
  [A5] audio packets are contiguous (each starts where the previous ended,
  within one tick when the time base is coarser than a sample, as in Matroska).
  Tolerances are samples per codec in the gate, divided by the sample rate.
  Unlike the C5 sketch, A1-A4 measure from the expected 0 and N/fps, not from
  the observed video start and end, so a short video does not excuse (or
  fail) its audio: each stream is judged on its own;
- [C1] across arms: the same audio payload (sha256 of the audio packets) in
  two arms whose video payloads differ is reported; the gate decides FAIL;
- [X3] `decode_errors` (used where a full decode is run anyway, e.g.
  `verify media --decode`) FAILs a file whose decoder raises.

Work per file is bounded by the gate's `limits` (bytes, packets, seconds) so
an absurd file ends in a FAIL, not a hang. Inputs are hostile: only the
gate's container formats are probed, and FFmpeg may not open any other file
or URL on the input's behalf (HLS or concat playlists named `.mp4`).
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from verifier.checks import figures
from verifier.formats.bundle import Bundle
from verifier.readers.campaign import campaign_of
from verifier.checks import profile_media
from verifier.checks.coverage_rules import CHECK, judge
from verifier.errors import Unverifiable
from verifier.readers.native import evidence_of
from verifier.media.demux import (  # the coverage family's names, re-exported (`__all__`)
    MAX_BOXES,
    REORDER_WINDOW,
    AudioFacts,
    MediaFacts,
    MediaUnreadable,
    VideoFacts,
    audio_span,
    declared_mp4_samples,
    open_media,
    probe,
)
from verifier.media.policy import (
    AAC_LC,
    DEFAULT_POLICY,
    KNOWN_AUDIO_RULES,
    KNOWN_CONTAINERS,
    MP3,
    Asked,
    AudioCodecRule,
    Expectation,
    Policy,
    policy_from_gate,
)
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check

__all__ = [
    "AAC_LC",
    "Asked",
    "CHECK",
    "DECODE_CHECK",
    "DEFAULT_POLICY",
    "KNOWN_AUDIO_RULES",
    "KNOWN_CONTAINERS",
    "MAX_BOXES",
    "MP3",
    "REORDER_WINDOW",
    "AudioFacts",
    "MediaUnreadable",
    "VideoFacts",
    "check_file",
    "AudioCodecRule",
    "audio_span",
    "declared_mp4_samples",
    "open_media",
    "Expectation",
    "MediaFacts",
    "Policy",
    "cross_arm",
    "decode_errors",
    "judge",
    "judge_media",
    "policy_from_gate",
    "probe",
    "streams",
]

DECODE_CHECK = "coverage.decode"


def check_file(path: Path, name: str, exp: Expectation, policy: Policy) -> tuple[list[Finding], MediaFacts | None]:
    """
    Return `(findings, facts)` for the media file at `path`, named `name` in findings.

    Never raises for bad media: an unreadable, empty or non-media file is one
    FAIL (`media-unreadable`, or `work-limit` when over the size limit), with
    `facts` None. Side effects: reads the file with FFmpeg's demuxer.
    """
    try:
        facts = probe(path, name, exp, policy)
    except MediaUnreadable as exc:
        return [Finding(check=CHECK, status=Status.FAIL, code=exc.code,
                        message=f"{exc} [S1]", path=name,
                        expected={"video": {"start": Fraction(0), "end": exp.duration, "frames": exp.frames}},
                        observed=None)], None
    return judge(facts, exp, policy), facts


def cross_arm(files: Sequence[tuple[str, str | None, MediaFacts]], policy: Policy) -> list[Finding]:
    """
    Return [C1] findings for the same audio payload in different arms whose video payloads differ.

    `files` holds `(name, arm, facts)`; files without an arm or without audio
    are ignored. Per audio payload digest shared by two or more arms with more
    than one video payload: one FAIL `identical-audio` when the policy says
    "fail", else one PASS `identical-audio-allowed` saying so. Nothing is
    emitted when no payload is shared.
    """
    by_audio: dict[str, list[tuple[str, str, str]]] = {}
    for name, arm, facts in files:
        if arm is None or facts.audio is None or facts.video is None or not facts.audio.packets:
            continue
        by_audio.setdefault(facts.audio.sha256.hexdigest(), []).append((name, arm, facts.video.sha256.hexdigest()))
    out = []
    for digest, members in sorted(by_audio.items()):
        arms = sorted({m[1] for m in members})
        videos = {m[2] for m in members}
        if len(arms) < 2 or len(videos) < 2:
            continue
        names = sorted(m[0] for m in members)
        status = Status.FAIL if policy.identical_audio == "fail" else Status.PASS
        code = "identical-audio" if status is Status.FAIL else "identical-audio-allowed"
        out.append(Finding(check=CHECK, status=status, code=code,
                           message=f"arms {', '.join(arms)} carry the same audio payload (sha256 {digest[:12]}...) "
                                   f"under different video in {len(names)} files: {', '.join(names)} [C1]",
                           path=names[0], expected="different audio per arm", observed={"audio_sha256": digest, "files": names}))
    return out


def decode_errors(path: Path, name: str, policy: Policy) -> list[Finding]:
    """
    Fully decode the first video and audio stream of the file at `path`; return [X3] findings.

    One FAIL `decode-error` when FFmpeg raises while decoding (e.g. a
    truncated file: `InvalidDataError`), `media-unreadable` when it cannot be
    opened, `work-limit` past the policy's `max_seconds`, else one PASS
    `decoded`. Used where a full decode is run anyway (scoring, `verify media
    --decode`); coverage itself never decodes. Side effects: decodes the
    whole file (CPU-bound).
    """
    import av

    deadline = time.monotonic() + policy.max_seconds
    frames = 0
    try:
        with open_media(path, policy) as (container, _size):
            chosen = [*container.streams.video[:1], *container.streams.audio[:1]]
            for packet in container.demux(chosen):
                frames += len(packet.decode())
                if time.monotonic() > deadline:
                    return [Finding(check=DECODE_CHECK, status=Status.FAIL, code="work-limit", path=name,
                                    message=f"decoding took longer than the gate's {policy.max_seconds} s [X3]")]
    except MediaUnreadable as exc:
        return [Finding(check=DECODE_CHECK, status=Status.FAIL, code=exc.code, path=name, message=f"{exc} [X3]")]
    except av.FFmpegError as exc:
        return [Finding(check=DECODE_CHECK, status=Status.FAIL, code="decode-error", path=name,
                        message=f"the decoder failed after {frames} frames: {type(exc).__name__}: {exc.strerror or exc} [X3]")]
    return [Finding(check=DECODE_CHECK, status=Status.PASS, code="decoded", path=name,
                    message=f"{frames} frames decoded without a decoder error [X3]", observed=frames)]


# --------------------------------------------------------------------------- the bundle check


def _media_of_bundle(ctx: Context) -> tuple[dict[str, str | None], list[Finding]]:
    """Return (bundle path -> arm label or None, findings about unusable sources) for every referenced media file."""
    media: dict[str, str | None] = {}
    notes: list[Finding] = []
    evidence = evidence_of(ctx)
    try:
        c = campaign_of(ctx)
    except Unverifiable as exc:
        notes.append(Finding(check=CHECK, status=Status.UNVERIFIED, code=exc.code, path=exc.path,
                             message=f"receipt outputs are not checked: {exc}"))
    else:
        table, join = c.receipts, c.join
        for i in sorted(table.outputs, key=lambda i: (join.first_of(i, table.request_id[i]), i)):  # grouped by request id, as read
            arm = c.arm_of_server.get(table.server[i], table.arm[i])  # the plan's arm of the server, else the receipt's own
            for o in table.outputs[i]:
                media.setdefault(o.path, arm)
    if evidence.present("quality"):
        try:
            evidence.need("quality")
        except Unverifiable as exc:
            notes.append(Finding(check=CHECK, status=Status.UNVERIFIED, code=exc.code, path=exc.path,
                                 message=f"media named by the quality index are not checked: {exc}"))
        else:
            for comp in evidence.quality:
                for side in (comp.reference, comp.candidate):
                    media.setdefault(side, None)
    return media, notes


@check("coverage.streams", title="Each output media file covers the planned timeline, per stream (PyAV demux, exact)",
       requires=("gate.pinned",),
       roads={"profile": ("Each output media file covers its expected timeline, per stream (PyAV demux, exact)", ())})
def streams(ctx: Context) -> Iterator[Finding]:
    """
    `coverage.streams` of every reader: `judge_media` of what it asks, a bundle's (native or mapped: `_asked_of_bundle`)
    or, for a profile without a `bundle` section (`ctx.options["profile"]`), its receipts' (`profile_media.asked`), after
    the presence of the outputs of its sets that map no expected shape (`profile_media.present`).
    """
    profile = ctx.options.get("profile")
    if profile is None or "bundle" in profile:
        return judge_media(ctx, _asked_of_bundle(ctx))
    return itertools.chain(profile_media.present(ctx), judge_media(ctx, profile_media.asked(ctx)))


def _asked_of_bundle(ctx: Context) -> Iterator[Finding | Asked]:
    """
    Yield what a bundle asks of coverage: every media file its receipts and quality index reference, against the plan's expected output.

    The plan's expected output must equal the one the gate froze, if any
    (FAIL `gate-plan-mismatch`); a gate with coverage but no referenced media
    is FAIL `no-media`; a gate without coverage is PASS `not-required` when
    no media are referenced. Raises `Unverifiable` when the plan is unusable,
    or (`no-coverage-gate`) the gate has no `coverage` section while media
    are referenced; `ConfigError` when the gate's coverage section is unusable.
    """
    section = (ctx.gate or {}).get("coverage")
    if section is not None:
        policy = policy_from_gate(section)
        evidence = evidence_of(ctx)
        evidence.need("plan")
        planned = dict(evidence.plan.expected_output) if evidence.plan else {}
        exp, frozen = Expectation.from_plan(planned), section.get("expected_output")
        if frozen is not None and Expectation.from_plan(frozen) != exp:
            yield Finding(check=CHECK, status=Status.FAIL, code="gate-plan-mismatch", path="plan.json", pointer="/expected_output",
                          message=f"the plan expects {planned}, the gate {ctx.gate_id} froze {frozen}; media are judged against the plan",
                          expected=Expectation.from_plan(frozen).to_json(), observed=exp.to_json())
    media, notes = _media_of_bundle(ctx)
    yield from notes
    if section is None and media:
        raise Unverifiable(f"gate {ctx.gate_id} has no coverage section, so the {len(media)} referenced media "
                           f"file(s) are not judged", code="no-coverage-gate")
    if section is None:
        yield Finding(check=CHECK, status=Status.PASS, code="not-required",
                      message=f"gate {ctx.gate_id} requires no media coverage and no receipt or comparison names a media file")
        return
    if not media:
        yield Finding(check=CHECK, status=Status.FAIL, code="no-media",
                      message=f"gate {ctx.gate_id} requires media coverage, but no receipt output or quality comparison names a media file",
                      path="receipts.jsonl")
    yield Asked(policy, exp, media, {})


def judge_media(ctx: Context, asked: Iterable[Finding | Asked]) -> Iterator[Finding]:
    """
    Judge what a reader asks of coverage (`asked`: its own findings, passed on, and `Asked` groups of files): the one body of `coverage.streams`.

    Only a file whose bytes matched their listed sha256 is read (a bundle
    file, `Bundle.path_of`; a file a profile-read bundle matched,
    `ctx.run.matched`; a supplied external artifact); any other is
    UNVERIFIED `media-not-verified`. Per file of a group the findings of
    `judge` (facts read back from `ctx.options["cache"]` when an earlier run
    demuxed bytes of this sha256, `docs/cache.md`); then [C1] `cross_arm`
    over the group's files whose arm is named; each finding's message names
    the records that name its file (`Asked.named`). Records each judged file
    in `ctx.run.coverage_checked` (re-used by `quality.rescore`) and its
    figures. Side effects: demuxes each file.
    """
    cache, bundle = ctx.options.get("cache"), ctx.bundle
    matched, externals = ctx.run.matched, ctx.run.externals_verified

    def where(name: str) -> Path | None:
        if isinstance(bundle, Bundle):
            found = bundle.path_of(name)
        else:
            rel = matched.get(name, ("",))[0]
            found = bundle.root / rel if rel and bundle.exists(rel) else None
        return found or (Path(externals[name]) if name in externals else None)

    for item in asked:
        if isinstance(item, Finding):
            yield item
            continue
        policy, exp, judged = item.policy, item.expected, []
        for name in sorted(item.media):
            path = where(name)
            if path is None:
                yield _named_by(Finding(check=CHECK, status=Status.UNVERIFIED, code="media-not-verified", path=name,
                                        message=f"{name} is referenced but is neither a bundle file nor a supplied external artifact "
                                                f"whose sha256 matched the manifest, so it is not read"), item.named)
                continue
            key = _facts_key(ctx, name, exp, policy) if cache is not None else None
            facts = _cached_facts(cache, key, name)
            if facts is not None:  # demuxed by an earlier run from bytes with this very sha256 (docs/cache.md)
                findings = [dataclasses.replace(f, cached="coverage") if facts[1] else f for f in judge(facts[0], exp, policy)]
                facts = facts[0]
            else:
                findings, facts = check_file(path, name, exp, policy)
                if key is not None and facts is not None and not facts.problems:  # a work limit or demuxer error is not kept
                    cache.store_result(key, facts.to_json())
            ctx.run.coverage_checked[name] = (exp, policy, findings, facts)  # re-used by quality.rescore
            yield from (_named_by(f, item.named) for f in findings)
            if facts is not None:
                judged.append((name, item.media[name], facts))
                figures.add(ctx.run.figures, "coverage", figures.coverage_entry(name, item.media[name], facts, exp.duration))
        yield from (_named_by(f, item.named) for f in cross_arm(judged, policy))


def _named_by(finding: Finding, named: dict[str, list[str]]) -> Finding:
    """Return `finding` with the records that name its file (and expect the shape it was judged against) added to its message."""
    records = named.get(finding.path or "")
    if not records:
        return finding
    shown = ", ".join(records[:3]) + (f" and {len(records) - 3} more" if len(records) > 3 else "")
    return dataclasses.replace(finding, message=f"{finding.message} (named by {shown})")


def _facts_key(ctx: Context, name: str, exp: Expectation, policy: Policy) -> str | None:
    """Return the cache key of the coverage facts of verified media file `name` (its manifest sha256), or None."""
    from verifier.cache.warm import result_key

    manifest = ctx.run.manifest or {}
    for entry in [*manifest.get("files", []), *manifest.get("external", [])]:
        if entry.get("path") == name and isinstance(entry.get("sha256"), str):
            return result_key("coverage-facts", entry["sha256"].lower(), exp.to_json(), repr(policy))
    return None


def _cached_facts(cache: Any, key: str | None, name: str) -> tuple[MediaFacts, bool] | None:
    """Return `(facts, from_an_earlier_run)` stored under `key`, or None (no cache, a miss, or an entry that does not read back)."""
    if cache is None or key is None:
        return None
    found = cache.result(key)
    if found is None:
        return None
    try:
        return MediaFacts.from_json(found[0], name), found[1]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # a foreign or older entry: demux again
