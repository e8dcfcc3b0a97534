"""
Benchmark the coverage check against `ffprobe -v error -count_packets -show_streams` (issue 3).

Usage: `python benchmarks/coverage_bench.py [--clips 100] [--size 320x240] [--keep DIR]`

1. Writes `--clips` 5 s clips (124 frames at 24 fps, 32 kHz stereo AAC, H.264)
   with `tests/media/make_clips.py` into a temporary directory.
2. Times the whole coverage check in this process (`coverage.check_file`:
   open, demux every packet, judge; PyAV's import timed separately) and
   `ffprobe -v error -count_packets -show_streams` on the same files, one
   process per file as a script would run it. Prints both totals and the
   ratio; the issue's target is coverage <= 0.25x ffprobe.
3. Peak memory: runs the check on a 5 s and a 5 min clip, each in a fresh
   process, and prints peak RSS (`VmHWM`) and the tracemalloc peak of
   the check itself. Peak memory must not grow with clip length.

ffprobe comes from Debian's `ffmpeg` package: `apt-get install -y ffmpeg`.
Without it the ffprobe half is skipped with a message (exit 0 still prints
the coverage figures). Side effects: writes clips under a temporary
directory (removed unless `--keep`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _make_clips_module():
    spec = importlib.util.spec_from_file_location("make_clips", ROOT / "tests" / "media" / "make_clips.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MEMORY_PROBE = r"""
import json, sys, tracemalloc
from fractions import Fraction
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from verifier.checks import coverage
frames = int(sys.argv[3])
exp = coverage.Expectation(frames=frames, fps=Fraction(24), sample_rate=32000, channels=2)
import av  # imported before measuring, so the figure is the check's own
tracemalloc.start()
findings, _ = coverage.check_file(Path(sys.argv[2]), Path(sys.argv[2]).name, exp, coverage.DEFAULT_POLICY)
_, peak = tracemalloc.get_traced_memory()
# VmHWM is this process's own peak RSS (ru_maxrss can carry the parent's peak across fork+exec)
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"codes": sorted({f.code for f in findings}), "tracemalloc_peak": peak, "hwm_kib": hwm}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", type=int, default=100)
    parser.add_argument("--size", default="320x240", help="frame size WxH of the generated clips")
    parser.add_argument("--keep", type=Path, help="write clips here and keep them")
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    make_clips = _make_clips_module()
    work = args.keep or Path(tempfile.mkdtemp(prefix="coverage-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        paths = [make_clips.write_clip(work / f"clip{i:03d}.mp4", pattern_offset=i, tone_offset=i * 100,
                                       width=width, height=height) for i in range(args.clips)]
        print(f"generated {len(paths)} clips of 5.167 s at {width}x{height} in {time.perf_counter() - t0:.1f} s "
              f"({sum(p.stat().st_size for p in paths) / len(paths) / 1024:.0f} KiB each)")

        t0 = time.perf_counter()
        import av  # noqa: F401

        from verifier.checks import coverage
        import_s = time.perf_counter() - t0
        exp = coverage.Expectation(frames=124, fps=make_clips.Fraction(24), sample_rate=32000, channels=2)
        t0 = time.perf_counter()
        verdicts = [coverage.check_file(p, p.name, exp, coverage.DEFAULT_POLICY)[0] for p in paths]
        cov_s = time.perf_counter() - t0
        bad = [p.name for p, fs in zip(paths, verdicts) if [f.code for f in fs] != ["covered"]]
        print(f"coverage (in process): {cov_s * 1000:.0f} ms for {len(paths)} files, "
              f"{cov_s / len(paths) * 1000:.2f} ms/file (+ {import_s * 1000:.0f} ms one-off import of PyAV and verifier)"
              + (f"; NOT covered: {bad}" if bad else "; all covered"))

        ffprobe = shutil.which("ffprobe")
        if ffprobe is None:
            print("ffprobe not found: install Debian's ffmpeg (`apt-get install -y ffmpeg`) to compare; skipped")
        else:
            version = subprocess.run([ffprobe, "-version"], capture_output=True, text=True).stdout.split("\n")[0]
            t0 = time.perf_counter()
            for p in paths:
                subprocess.run([ffprobe, "-v", "error", "-count_packets", "-show_streams", str(p)],
                               check=True, stdout=subprocess.DEVNULL)
            probe_s = time.perf_counter() - t0
            print(f"ffprobe -v error -count_packets -show_streams: {probe_s * 1000:.0f} ms for {len(paths)} files, "
                  f"{probe_s / len(paths) * 1000:.2f} ms/file ({version})")
            ratio = cov_s / probe_s
            print(f"ratio coverage/ffprobe: {ratio:.3f}x (target <= 0.25x): {'met' if ratio <= 0.25 else 'NOT met'}; "
                  f"with the one-off import: {(cov_s + import_s) / probe_s:.3f}x")

        long_clip = make_clips.write_clip(work / "five_minutes.mp4", frames=24 * 300,
                                          audio_samples=300 * 32000, width=width, height=height)
        for label, path, frames in (("5 s", paths[0], 124), ("5 min", long_clip, 24 * 300)):
            out = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(ROOT), str(path), str(frames)],
                                 capture_output=True, text=True, check=True).stdout
            m = json.loads(out)
            print(f"memory {label:>5} clip ({path.stat().st_size / 1024:.0f} KiB): peak RSS (VmHWM) {m['hwm_kib'] / 1024:.1f} MiB, "
                  f"tracemalloc peak of the check {m['tracemalloc_peak'] / 1024:.1f} KiB, findings {m['codes']}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
