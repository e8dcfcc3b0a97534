#!/usr/bin/env python3
"""
Benchmark: our integrity check against `openssl dgst -sha256` and bagit-python.

Builds a synthetic bundle (format v1: random payload files of varied sizes and
a valid `manifest.json`) in a temporary directory, reads every file once to
warm the page cache, then times, in the same run and for `--reps` rounds:

- `hash_many`: `verifier.checks.integrity.hash_many` over the payload files;
- `check`: the full `integrity.files` check (walk, manifest load and schema
  validation, hashing, comparison) run through `verifier.engine.pipeline.run_pipeline`
  with a `Context` as `verifier.core` builds it;
- `openssl`: `openssl dgst -sha256` over the same files, two processes in
  parallel, the file list split in two halves of about equal bytes;
- `bagit`: `bagit.py --validate --processes 2` on the same payload laid out as
  a bag (payload hard-linked, so the same inodes and page cache; the bag is
  made once, untimed).

Ours runs in a child process so its peak RSS (`ru_maxrss`) is its own; the
time reported is measured inside the child around the call (interpreter start
and imports excluded; the child's wall time including them is shown too).
Then a sweep runs `check` on bundles of the same total size made of few large
or many small files, to show peak memory does not grow with file size.

Medians over `--reps` are reported. All temporary data is deleted at exit
(normal exit, exception, SIGINT, SIGTERM, SIGHUP).

Usage: python benchmarks/integrity_bench.py [--total-mib 1024] [--files 200] [--reps 5]
Needs: `openssl` on PATH, bagit-python (`pip install bagit`, provides `bagit.py`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout being benchmarked
MIB = 1 << 20
GATE = "ref2va-5s-v1"


# --------------------------------------------------------------------------- child side


def _child(mode: str, bundle_dir: str) -> None:
    """Run one measured call of our code in this (fresh) process; print one JSON line."""
    sys.path.insert(0, str(ROOT))
    from verifier.formats.bundle import Bundle
    from verifier.checks import integrity
    from verifier.model.findings import Status
    from verifier.engine.pipeline import Context, run_pipeline
    from verifier.trust.assets import assets

    root = Path(bundle_dir)
    manifest = json.loads((root / "manifest.json").read_bytes())
    trusted = assets()  # verifies our pinned schemas/gates, as verify_path does; untimed setup
    baseline_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu0 = _cpu(resource.RUSAGE_SELF)
    if mode == "hash":
        paths = [root / e["path"] for e in manifest["files"]]
        t0 = time.perf_counter()
        result = integrity.hash_many(paths)
        seconds = time.perf_counter() - t0
        bad = [str(p) for p, e in zip(paths, manifest["files"])
               if result[p] != (e["size"], e["sha256"])]
        ok = not bad
    elif mode == "check":
        ctx = Context(subject=root, assets=trusted, bundle=Bundle(root=root), options={"artifacts": None, "gate": None})
        t0 = time.perf_counter()
        findings, _roster = run_pipeline([integrity.files], ctx)
        seconds = time.perf_counter() - t0
        matches = sum(1 for f in findings if f.status is Status.PASS and f.code == "match")
        ok = matches == len(manifest["files"]) and all(f.status is Status.PASS for f in findings)
        bad = [f"{f.status} {f.code} {f.message}" for f in findings if f.status is not Status.PASS][:5]
    else:
        raise SystemExit(f"unknown child mode {mode!r}")
    cpu = _cpu(resource.RUSAGE_SELF) - cpu0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": seconds, "cpu": cpu, "ok": ok, "bad": bad, "baseline_kib": baseline_kib,
                      "peak_kib": peak_kib, "module": integrity.__file__}))


def _cpu(who: int) -> float:
    """Return user + system CPU seconds of `who` (RUSAGE_SELF or RUSAGE_CHILDREN)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def run_ours(mode: str, bundle: Path) -> dict:
    """Run our code in a child process; return its JSON result plus `wall` (spawn to exit)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", mode, str(bundle)],
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"child {mode} failed (exit {proc.returncode}):\n{proc.stderr}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if not out["ok"]:
        raise SystemExit(f"child {mode}: results differ from the manifest: {out['bad']}")
    out["wall"] = wall
    return out


# --------------------------------------------------------------------------- building data


def varied_sizes(total: int, count: int, seed: int) -> list[int]:
    """Return `count` log-normally varied sizes (>= 4 KiB) summing exactly to `total`."""
    rng = random.Random(seed)
    weights = [rng.lognormvariate(0.0, 1.0) for _ in range(count)]
    scale = total / sum(weights)
    sizes = [max(4096, int(w * scale)) for w in weights]
    sizes[sizes.index(max(sizes))] += total - sum(sizes)
    return sizes


def write_bundle(bundle: Path, sizes: list[int]) -> list[dict]:
    """Write random files of `sizes` under `bundle/payload/` plus a valid v1 `manifest.json`; return the entries."""
    entries = []
    for i, size in enumerate(sizes):
        rel = f"payload/part{i // 20:02d}/file{i:04d}.bin"
        path = bundle / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        with open(path, "wb") as fh:
            left = size
            while left:
                block = os.urandom(min(left, 4 * MIB))
                digest.update(block)
                fh.write(block)
                left -= len(block)
            fh.flush()
            os.fsync(fh.fileno())  # no write-back of this data may overlap the timed runs
        entries.append({"path": rel, "sha256": digest.hexdigest(), "size": size})
    manifest = {
        "format": "verify-bundle",
        "format_version": 1,
        "gate": GATE,
        "description": f"synthetic benchmark bundle: {len(sizes)} random files, {sum(sizes)} bytes",
        "files": entries,
        "external": [],
    }
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return entries


def make_bag(bag: Path, bundle: Path, entries: list[dict]) -> None:
    """Lay out the bundle's payload as a BagIt bag (hard links, then `bagit.make_bag`, sha256 only)."""
    import bagit

    for e in entries:
        dest = bag / e["path"]
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.link(bundle / e["path"], dest)
    bagit.make_bag(str(bag), checksums=["sha256"], processes=2)
    os.sync()  # flush the bag's tag files (and anything else) before timing


def warm(paths: list[Path]) -> None:
    """Read every file once (the warm-up read), so timings are page-cache warm."""
    buf = bytearray(MIB)
    for p in paths:
        with open(p, "rb", buffering=0) as fh:
            while fh.readinto(buf):
                pass


# --------------------------------------------------------------------------- baselines


def split_halves(entries: list[dict]) -> tuple[list[dict], list[dict]]:
    """Split the file list in two halves of about equal bytes (largest first, each to the lighter half)."""
    halves: tuple[list[dict], list[dict]] = ([], [])
    load = [0, 0]
    for e in sorted(entries, key=lambda e: -e["size"]):
        k = 0 if load[0] <= load[1] else 1
        halves[k].append(e)
        load[k] += e["size"]
    return halves


def run_openssl(bundle: Path, halves: tuple[list[dict], list[dict]], check: bool) -> tuple[float, float]:
    """Return (wall, CPU) seconds of two parallel `openssl dgst -sha256` processes, one per half; optionally compare digests."""
    cpu0 = _cpu(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    procs = [subprocess.Popen(["openssl", "dgst", "-sha256", "-r", *[e["path"] for e in half]],
                              cwd=bundle, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for half in halves]
    outs = [p.communicate() for p in procs]
    seconds = time.perf_counter() - t0
    cpu = _cpu(resource.RUSAGE_CHILDREN) - cpu0
    for p, (_out, err) in zip(procs, outs):
        if p.returncode != 0:
            raise SystemExit(f"openssl failed (exit {p.returncode}): {err.decode(errors='replace')}")
    if check:
        want = {e["path"]: e["sha256"] for half in halves for e in half}
        got = {}
        for out, _err in outs:
            for line in out.decode().splitlines():
                digest, name = line.split(" ", 1)
                got[name.lstrip("*")] = digest
        if got != want:
            raise SystemExit("openssl digests differ from the manifest")
    return seconds, cpu


def run_bagit(bagit_cmd: list[str], bag: Path) -> tuple[float, float]:
    """Return (wall, CPU) seconds of `bagit.py --validate --processes 2 BAG` (CPU includes its pool workers); it must validate."""
    cpu0 = _cpu(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([*bagit_cmd, "--validate", "--processes", "2", str(bag)], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    cpu = _cpu(resource.RUSAGE_CHILDREN) - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"bagit.py --validate failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return seconds, cpu


# --------------------------------------------------------------------------- report


def machine() -> str:
    """Return `nproc`, the CPU model and whether it has SHA extensions, from /proc/cpuinfo."""
    model, sha = "unknown", False
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and model == "unknown":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                sha = sha or "sha_ni" in line.split()
    except OSError:
        pass
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count())
    return f"nproc {nproc}, CPU {model}, sha_ni {'yes' if sha else 'no'}"


def versions() -> str:
    """Return the versions of Python, OpenSSL (CLI) and bagit."""
    import bagit

    ossl = subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout.strip()
    return f"Python {sys.version.split()[0]}, {ossl}, bagit {bagit.VERSION}"


def main() -> None:
    """Parse arguments, build data, run the rounds, print the report, delete everything."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--total-mib", type=int, default=1024, help="payload size of the main bundle (default 1024)")
    ap.add_argument("--files", type=int, default=200, help="number of payload files (default 200)")
    ap.add_argument("--reps", type=int, default=5, help="measured rounds; medians are reported (default 5)")
    ap.add_argument("--seed", type=int, default=2, help="seed of the size distribution (default 2)")
    ap.add_argument("--tmpdir", default=None, help="parent of the temporary directory (default: system temp)")
    ap.add_argument("--no-sweep", action="store_true", help="skip the peak-memory-vs-file-size sweep")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "BUNDLE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(*args.child)
        return

    if shutil.which("openssl") is None:
        raise SystemExit("openssl not found on PATH")
    bagit_exe = shutil.which("bagit.py") or str(Path(sys.executable).with_name("bagit.py"))
    if not Path(bagit_exe).is_file():
        raise SystemExit("bagit.py not found: pip install bagit")
    bagit_cmd = [sys.executable, bagit_exe]

    def on_signal(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)  # unwinds through the finally below, which deletes the data

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)

    work = Path(tempfile.mkdtemp(prefix="verify-integrity-bench-", dir=args.tmpdir))
    try:
        bench(args, work, bagit_cmd)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        print(f"temporary data deleted: {work} ({'gone' if not work.exists() else 'STILL PRESENT'})")


def bench(args: argparse.Namespace, work: Path, bagit_cmd: list[str]) -> None:
    """Build the data under `work`, run `args.reps` rounds and the sweep, and print the report."""
    total = args.total_mib * MIB
    bundle, bag = work / "bundle", work / "bag"
    t0 = time.perf_counter()
    sizes = varied_sizes(total, args.files, args.seed)
    entries = write_bundle(bundle, sizes)
    make_bag(bag, bundle, entries)
    build_s = time.perf_counter() - t0
    paths = [bundle / e["path"] for e in entries]
    warm(paths)
    halves = split_halves(entries)

    print(f"machine: {machine()}")
    print(f"software: {versions()}; commit {_commit()}")
    print(f"bundle: {len(entries)} files, {total / MIB:.0f} MiB, sizes {min(sizes) / MIB:.2f}"
          f"..{max(sizes) / MIB:.1f} MiB (median {statistics.median(sizes) / MIB:.2f}); "
          f"openssl halves {sum(e['size'] for e in halves[0]) / MIB:.0f}/{sum(e['size'] for e in halves[1]) / MIB:.0f} MiB; "
          f"built and bagged untimed in {build_s:.1f} s; page cache warmed by one read")

    names = ("hash_many", "check", "openssl", "bagit")
    times: dict[str, list[float]] = {k: [] for k in (*names, "check_wall")}
    cpus: dict[str, list[float]] = {k: [] for k in names}
    peaks: dict[str, list[int]] = {"hash_many": [], "check": []}
    base_kib: list[int] = []
    module = ""
    load_before = _loadavg()
    for rep in range(args.reps):
        for name in names[rep % 4:] + names[:rep % 4]:  # rotate the order between rounds
            if name == "openssl":
                wall, cpu = run_openssl(bundle, halves, check=rep == 0)
            elif name == "bagit":
                wall, cpu = run_bagit(bagit_cmd, bag)
            else:
                out = run_ours("hash" if name == "hash_many" else "check", bundle)
                wall, cpu = out["seconds"], out["cpu"]
                peaks[name].append(out["peak_kib"])
                base_kib.append(out["baseline_kib"])
                module = out["module"]
                if name == "check":
                    times["check_wall"].append(out["wall"])
            times[name].append(wall)
            cpus[name].append(cpu)

    med = {k: statistics.median(v) for k, v in times.items()}
    best = {k: min(v) for k, v in times.items()}
    print(f"ours from: {module}; load average before/after the rounds: {load_before} / {_loadavg()}")
    print(f"wall s over {args.reps} rounds: median, min, median CPU s (user+sys, all processes), every run")
    for k, label in (("hash_many", "ours hash_many (threads=nproc)  "),
                     ("check", "ours integrity.files check      "),
                     ("check_wall", "  same, child incl. start+import"),
                     ("openssl", "openssl dgst -sha256 x2 procs   "),
                     ("bagit", "bagit.py --validate --proc 2    ")):
        cpu = f"{statistics.median(cpus[k]):6.3f}" if k in cpus else "     -"
        print(f"  {label} {med[k]:6.3f} {best[k]:6.3f} {cpu}   {' '.join(f'{t:.3f}' for t in times[k])}")
    for k in ("check", "hash_many"):
        r_o, r_b = med[k] / med["openssl"], med[k] / med["bagit"]
        print(f"ratios {k} (median): ours/openssl {r_o:.3f} (target <= 1.10: {'met' if r_o <= 1.10 else 'MISSED'}), "
              f"ours/bagit {r_b:.3f} (target < 1: {'met' if r_b < 1 else 'MISSED'}); "
              f"by min {best[k] / best['openssl']:.3f}, {best[k] / best['bagit']:.3f}")
    print(f"peak RSS of our child (ru_maxrss, max over rounds): check {max(peaks['check']) / 1024:.1f} MiB, "
          f"hash_many {max(peaks['hash_many']) / 1024:.1f} MiB; after imports, before hashing "
          f"{statistics.median(base_kib) / 1024:.1f} MiB")

    if args.no_sweep:
        return
    shutil.rmtree(bag)
    shutil.rmtree(bundle)
    print(f"peak RSS vs file size (integrity.files check, same total, page cache warm, median of {min(args.reps, 3)}):")
    sweep_total = 1000 * MIB
    for count in (200, 20, 2):
        d = work / f"sweep-{count}"
        write_bundle(d, [sweep_total // count] * count)
        warm([p for p in (d / "payload").rglob("*") if p.is_file()])
        runs = [run_ours("check", d) for _ in range(min(args.reps, 3))]
        print(f"  {count:3d} files x {sweep_total // count / MIB:5.0f} MiB: peak {max(r['peak_kib'] for r in runs) / 1024:6.1f} MiB "
              f"(after imports {statistics.median(r['baseline_kib'] for r in runs) / 1024:.1f}), "
              f"check median {statistics.median(r['seconds'] for r in runs):.3f} s, min {min(r['seconds'] for r in runs):.3f} s")
        shutil.rmtree(d)


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "verifier"],
                               capture_output=True, text=True).stdout.strip()
        return out.stdout.strip() + (" (+ uncommitted changes to verifier/)" if dirty else "")
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
