"""
Scoring many clip pairs at once: each media file decoded once, each frame through AlexNet once.

`score_many` takes every pair a run re-scores (a campaign's comparisons,
where one output is often compared with several others: arm A with arm B,
and arm B's two servers with each other) and groups the files into
connected components (two files are connected when a pair compares them).
The files of a component are decoded together, in lockstep, one frame
index at a time, in one demux pass per file that also collects its audio
(`verifier.media.decode`). Per frame index:

- LPIPS: the frame of every file some LPIPS pair needs goes through
  AlexNet once, as its own task on the worker threads
  (`LpipsScorer.features`; on a GPU, all of them as one batch here); each
  pair's distance is then the LPIPS head on the two files' normalised
  features (`LpipsScorer.distance`), the same sum lpips' `forward`
  computes, computed here while the workers run the next frame index;
- SSIM: each pair's frames are gathered into batches of at most
  `ssim.BATCH_PIXELS` pixels and scored by `ssim.ssim_batch` on the same
  workers (numpy releases the GIL); the values are collected per pair in
  frame order when the pair finishes. At most `MAX_IN_FLIGHT` batches wait
  for the workers; the main thread waits for the oldest beyond that. Each
  worker thread keeps its SSIM scratch planes (`ssim.Workspace`) from one
  batch to the next, for as long as the call runs.

The workers are `threads.plan().workers` threads, each kernel running on
`threads.plan().threads` threads (1 on a 2-core machine; see
`verifier.scorers.threads` for why).

Memory stays flat in clip length: at most two frames per file in flight (plus an
SSIM batch per pair, at most `MAX_IN_FLIGHT` submitted batches and two sets
of AlexNet features per file); audio PCM is
held whole per file (see `verifier.media.decode`). Refusals are those of
`verifier.scoring.rescore.score_pair`, with the same codes and messages: frame
counts compared before any frame is, decoded counts after, frame sizes per
pair; a decoder failure refuses the video metrics of the pairs that use the
file, and its audio is then decoded on its own.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.media.decode import DecodedFile, DecodeFailed
from verifier.media.demux import MediaFacts, MediaUnreadable
from verifier.media.policy import Policy

if TYPE_CHECKING:
    from verifier.scoring.scorer_set import MetricResult, ScoreRefused, Scorers

__all__ = ["PairJob", "score_many"]

VIDEO_METRICS = ("lpips", "ssim")


@dataclass
class PairJob:
    """Represents one pair to score: both files, their coverage facts, and the metrics wanted (all `Scorers.ready`)."""

    ref: Path
    cand: Path
    ref_facts: MediaFacts
    cand_facts: MediaFacts
    metrics: list[str]
    out: dict[str, Any] = field(default_factory=dict)  # metric -> MetricResult | ScoreRefused, filled by `score_many`
    per: dict[str, list[float]] = field(default_factory=dict)  # video metric -> per-frame values so far
    pending: list[tuple[Any, Any]] = field(default_factory=list)  # frame pairs waiting for an SSIM batch
    frames: int = 0  # frame pairs compared so far
    video_refused: Any = None  # the ScoreRefused stopping the video metrics, once one does
    keys: tuple[str, str] = ("", "")  # both files by resolved path (a file compared twice is decoded once)
    ssim_futures: list[Any] = field(default_factory=list)  # SSIM batches submitted to the worker thread, in frame order
    worker: Any = None  # the `_SsimWorker` of the running `score_many` (None: SSIM computed on the calling thread)


def score_many(jobs: list[PairJob], scorers: Scorers, policy: Policy, *,
               progress: Callable[[str], None] | None = None) -> None:
    """
    Score every job, filling `job.out` with a `MetricResult` or `ScoreRefused` per metric.

    Each file is decoded once for all the jobs that use it and every metric
    (see the module docstring). Raises `WeightsProblem` from the scorers;
    never raises for bad media (those are refusals).
    """
    from verifier.scoring import scorer_set

    for job in jobs:
        job.keys = (str(job.ref.resolve()), str(job.cand.resolve()))
        video = [m for m in job.metrics if m in VIDEO_METRICS]
        if video:
            try:
                _check_counts(job)
            except scorer_set.ScoreRefused as exc:
                job.video_refused = exc
            job.per = {m: [] for m in video}
        if "audio_cosine" in job.metrics:
            try:
                _check_audio(job)
            except scorer_set.ScoreRefused as exc:
                job.out["audio_cosine"] = exc
    from concurrent.futures import ThreadPoolExecutor

    from verifier.scorers import threads

    run = threads.plan()
    if any("lpips" in job.metrics for job in jobs):
        scorers.lpips_model()  # built now when the identity came from the warm cache (raises WeightsProblem)
    if scorers.lpips is not None:
        scorers.lpips.prepare()  # layouts set here, before worker threads share the model
    with threads.single_threaded_kernels(run.threads), \
            ThreadPoolExecutor(max_workers=run.workers, thread_name_prefix="verify-score") as pool:
        worker = _SsimWorker(pool)  # this call's own workers: concurrent calls (threads) never share them
        for job in jobs:
            job.worker = worker
        try:
            for component in _components(jobs):
                _score_component(component, scorers, policy, progress, pool)
            for job in jobs:
                _finish_video(job)
        finally:
            for job in jobs:
                job.worker = None


def _check_counts(job: PairJob) -> None:
    from verifier.scoring.scorer_set import ScoreRefused, video_frames

    n_ref, n_cand = video_frames(job.ref_facts), video_frames(job.cand_facts)
    if n_ref != n_cand:
        raise ScoreRefused("frame-count-mismatch", f"{job.ref_facts.name} has {n_ref} video frames, {job.cand_facts.name} "
                                                   f"{n_cand}; nothing is compared")
    if n_ref == 0:
        raise ScoreRefused("no-frames", f"{job.ref_facts.name} and {job.cand_facts.name} hold no video frames")


def _check_audio(job: PairJob) -> None:
    from verifier.scoring.scorer_set import ScoreRefused, exact_samples

    for facts in (job.ref_facts, job.cand_facts):
        if facts.audio is None:
            raise ScoreRefused("no-audio", f"{facts.name}: no audio stream")
    rate_r, rate_c = job.ref_facts.audio.sample_rate, job.cand_facts.audio.sample_rate  # type: ignore[union-attr]
    if rate_r != rate_c:
        raise ScoreRefused("sample-rate-mismatch", f"{job.ref_facts.name} is at {rate_r} Hz, {job.cand_facts.name} at "
                                                   f"{rate_c} Hz; audio at different sample rates is not compared "
                                                   f"(nothing is resampled)")
    exact_samples(job.ref_facts)
    exact_samples(job.cand_facts)


def _wants_video(job: PairJob) -> bool:
    return bool(job.per) and job.video_refused is None


def _wants_audio(job: PairJob) -> bool:
    return "audio_cosine" in job.metrics and "audio_cosine" not in job.out


def _components(jobs: list[PairJob]) -> list[list[PairJob]]:
    """Return the jobs grouped so that two jobs sharing a file (by resolved path) are in one group, in first-seen order."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    active = [j for j in jobs if _wants_video(j) or _wants_audio(j)]
    for job in active:
        parent[find(job.keys[0])] = find(job.keys[1])
    groups: dict[str, list[PairJob]] = {}
    for job in active:
        groups.setdefault(find(job.keys[0]), []).append(job)
    return list(groups.values())


def _score_component(jobs: list[PairJob], scorers: Scorers, policy: Policy,
                     progress: Callable[[str], None] | None, pool: Any = None) -> None:
    from verifier.scoring import scorer_set

    files: dict[str, DecodedFile] = {}
    for job in jobs:
        for key, path in zip(job.keys, (job.ref, job.cand), strict=True):
            if key not in files:
                files[key] = DecodedFile(path, policy, video=False, audio=False)
            files[key].video |= _wants_video(job)
            files[key].audio |= _wants_audio(job)
    lpips_model = scorers.lpips
    iterators = {key: iter(f.frames()) for key, f in files.items() if f.video}
    failed: dict[str, Any] = {}
    ended: dict[str, int] = {}
    total = max((scorer_set.video_frames(j.ref_facts) for j in jobs if _wants_video(j)), default=0)
    waiting: tuple[dict[str, Any], list[PairJob]] | None = None  # the LPIPS features in flight and the jobs they are for
    for k in itertools.count():
        live = [j for j in jobs if _wants_video(j)]
        if not live:
            break
        frames: dict[str, Any] = {}
        for key in sorted({key for j in live for key in j.keys}):
            if key in ended or key in failed:
                continue
            try:
                frames[key] = next(iterators[key])
            except StopIteration:
                ended[key] = k
            except (DecodeFailed, MediaUnreadable) as exc:
                failed[key] = scorer_set.ScoreRefused(getattr(exc, "code", "decode-error"), str(exc))
        need_lpips: set[str] = set()
        lpips_jobs: list[PairJob] = []  # the jobs that compared frame k (their distances once its features are in)
        for job in live:
            r, c = job.keys
            if r in failed or c in failed:
                job.video_refused = failed.get(r) or failed.get(c)
                continue
            if r not in frames or c not in frames:
                if r in frames or c in frames:  # one file ended, the other did not
                    short = job.ref_facts.name if r not in frames else job.cand_facts.name
                    job.video_refused = scorer_set.ScoreRefused(
                        "frame-count-mismatch", f"{short} decoded only {k} frames, the other file more; nothing is reported")
                continue
            a, b = frames[r], frames[c]
            if a.shape != b.shape:
                job.video_refused = scorer_set.ScoreRefused(
                    "frame-size-mismatch", f"frame {k}: {job.ref_facts.name} is {a.shape[1]}x{a.shape[0]}, "
                                           f"{job.cand_facts.name} {b.shape[1]}x{b.shape[0]}; frames of different sizes "
                                           f"are not compared (no resize)")
                continue
            job.frames += 1
            if "lpips" in job.per:
                need_lpips.update((r, c))
                lpips_jobs.append(job)
            if "ssim" in job.per:
                job.pending.append((a, b))
                _flush_ssim(job, final=False)
        submitted = None
        if need_lpips and lpips_model is not None:
            submitted = _submit_features(lpips_model, {key: frames[key] for key in sorted(need_lpips)}, pool)
            submitted = (submitted, lpips_jobs)
        if waiting is not None:  # frame k - 1's distances, while the workers run frame k's forwards
            _distances(lpips_model, *waiting)
        waiting = submitted
        if not frames:
            break
        if progress is not None and k % 4 == 0:
            progress(f"re-scoring {len(jobs)} comparison(s) of {len(files)} file(s): frame {k + 1}/{total}")
    if waiting is not None:
        _distances(lpips_model, *waiting)
    for job in jobs:
        if _wants_audio(job):
            job.out["audio_cosine"] = _audio(job, files, scorers)


def _submit_features(model: Any, frames: dict[str, Any], pool: Any) -> dict[str, Any]:
    """Return, per file key, the future (or, without a pool or on a GPU, the value) of its frame's AlexNet features."""
    if pool is None or model.device != "cpu":  # one batch on the calling thread (a GPU runs it as one kernel launch)
        keys = list(frames)
        return dict(zip(keys, model.features([frames[key] for key in keys]), strict=True))
    return {key: pool.submit(_one_feature, model, frame) for key, frame in frames.items()}


def _one_feature(model: Any, frame: Any) -> list[Any]:
    return model.features([frame])[0]  # type: ignore[no-any-return]


def _distances(model: Any, features: dict[str, Any], jobs: list[PairJob]) -> None:
    """Append each job's LPIPS distance of one frame index (jobs refused since are left alone: their values are dropped)."""
    done = {key: value.result() if hasattr(value, "result") else value for key, value in features.items()}
    for job in jobs:
        if _wants_video(job):
            job.per["lpips"].append(model.distance(done[job.keys[0]], done[job.keys[1]]))


#: At most this many SSIM batches wait for the worker (each holds its two frame stacks, at most
#: `ssim.BATCH_PIXELS` pixels a side): memory stays bounded whatever the clip length.
MAX_IN_FLIGHT = 16


@dataclass
class _SsimWorker:
    """Represents the workers of one `score_many` call (numpy and torch release the GIL, so SSIM batches and AlexNet
    forwards run side by side) and its submitted SSIM batches, oldest first."""

    pool: Any
    in_flight: deque[Any] = field(default_factory=deque)
    local: threading.local = field(default_factory=threading.local)  # per worker thread: its `ssim.Workspace`


def _ssim_on_worker(worker: _SsimWorker, ref: Any, cand: Any) -> Any:
    """Return `ssim.ssim_batch(ref, cand)` computed in the calling worker thread's own workspace (kept for its next batch)."""
    from verifier.scorers import ssim as ssim_scorer

    space = getattr(worker.local, "workspace", None)
    if space is None:
        space = worker.local.workspace = ssim_scorer.Workspace()
    return ssim_scorer.ssim_batch(ref, cand, workspace=space)


def _flush_ssim(job: PairJob, final: bool) -> None:
    import numpy as np

    from verifier.scorers import ssim as ssim_scorer

    if not job.pending:
        return
    a = job.pending[0][0]
    if final or (len(job.pending) + 1) * a.shape[0] * a.shape[1] > ssim_scorer.BATCH_PIXELS:
        ref = np.stack([p[0] for p in job.pending])
        cand = np.stack([p[1] for p in job.pending])
        job.pending.clear()
        if job.worker is None:  # no worker (called outside `score_many`): compute here
            job.per["ssim"].extend(float(v) for v in ssim_scorer.ssim_batch(ref, cand))
            return
        future = job.worker.pool.submit(_ssim_on_worker, job.worker, ref, cand)
        job.ssim_futures.append(future)
        job.worker.in_flight.append(future)
        while len(job.worker.in_flight) > MAX_IN_FLIGHT:
            job.worker.in_flight.popleft().result()


def _collect_ssim(job: PairJob) -> None:
    """Append the SSIM values of the job's submitted batches, in order (re-raises what `ssim_batch` raised)."""
    for future in job.ssim_futures:
        job.per["ssim"].extend(float(v) for v in future.result())
    job.ssim_futures.clear()


def _finish_video(job: PairJob) -> None:
    import numpy as np

    from verifier.scoring.scorer_set import MetricResult, ScoreRefused, video_frames

    if not job.per:
        return
    if job.video_refused is None:
        _flush_ssim(job, final=True)
        if "ssim" in job.per:
            _collect_ssim(job)
        n = video_frames(job.ref_facts)
        counts = {m: len(v) for m, v in job.per.items()}
        if any(c != n for c in counts.values()):
            job.video_refused = ScoreRefused("frame-count-mismatch", f"decoded {counts} frames, the demuxer counted {n}; "
                                                                     f"nothing is reported")
    job.pending.clear()
    job.ssim_futures.clear()  # a refused job's batches are not waited for (the pool's shutdown finishes them)
    for metric, values in job.per.items():
        job.out[metric] = job.video_refused if job.video_refused is not None else MetricResult(
            value=float(np.mean(np.asarray(values, dtype=np.float64))), per_frame=values)


def _audio(job: PairJob, files: dict[str, DecodedFile], scorers: Scorers) -> MetricResult | ScoreRefused:
    from verifier.scoring.scorer_set import MetricResult, ScoreRefused, exact_samples
    from verifier.scorers import audio as audio_scorer

    pcm = []
    for key, facts in zip(job.keys, (job.ref_facts, job.cand_facts), strict=True):
        decoded = files[key]
        exact = exact_samples(facts)
        try:
            data, rate = decoded.pcm()
        except (DecodeFailed, MediaUnreadable) as exc:
            return ScoreRefused(getattr(exc, "code", "decode-error"), str(exc))
        if rate != facts.audio.sample_rate:  # type: ignore[union-attr]
            return ScoreRefused("sample-rate-mismatch", f"{facts.name}: decoded at {rate} Hz, the stream declares "
                                                        f"{facts.audio.sample_rate} Hz")  # type: ignore[union-attr]
        if data.shape[1] < exact:
            return ScoreRefused("audio-decoded-short", f"{facts.name}: decoded {data.shape[1]} samples per channel, fewer "
                                                       f"than the {exact} the packet timestamps span")
        pcm.append(data[:, :exact])
    rate_r = job.ref_facts.audio.sample_rate  # type: ignore[union-attr]
    try:
        value = audio_scorer.spectral_cosine(pcm[0], pcm[1], rate_x=rate_r, rate_y=rate_r,
                                             length_tolerance=scorers.length_tolerance())
    except audio_scorer.AudioRefused as exc:
        return ScoreRefused(exc.code, str(exc))
    return MetricResult(value=value)
