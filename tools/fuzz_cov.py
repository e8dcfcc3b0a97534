"""
Coverage-guided fuzzing of the readers a bundle or a pull request reaches, under atheris (libFuzzer) (issue 42).

Usage, from the repository root:

    python tools/fuzz_cov.py [--seconds 1800] [--target NAME ...] [--work DIR]

Splits `--seconds` evenly over the targets (default: all of `TARGETS`) and
fuzzes each in a child process of its own (`--child`): the `verifier`
package is imported under `atheris.instrument_imports`, so libFuzzer keeps
the inputs that reach new branches of our code; each target starts from its
seed corpus (`tests/fuzz_readers.py` seeds, the shipped fixtures), written
into `DIR/NAME/` (a temporary directory by default), which the run grows.
Inputs are at most 64 KiB (128 KiB for media files, `MAX_LEN`). A Python
exception escaping a target, a timeout (30 s an input) or an RSS over 3 GiB
is a crash: libFuzzer writes the input to `DIR/crash-NAME-*`.
Prints per target the inputs executed, the corpus size and the crashes,
then the totals; exit 1 if any target crashed. Results: docs/testing.md.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]


def _json_seeds() -> list[bytes]:
    return [(ROOT / "tests" / "fixtures" / "vllm" / "abcd-bucket-peak.json").read_bytes(),
            (ROOT / "examples" / "ref2va-5s" / "manifest.json").read_bytes()]


def targets() -> dict:
    """Return `{name: (function(bytes), seeds())}`: the readers of `tests/fuzz_readers.py` plus the byte-level ones of `tests/fuzz_targets.py`."""
    import fuzz_readers
    import fuzz_targets

    table = dict(fuzz_readers.TARGETS)
    table["json-loader"] = (fuzz_targets.loader, _json_seeds)
    table["manifest-reader"] = (fuzz_targets.read_manifest, lambda: [_json_seeds()[1]])
    table["vllm-file"] = (lambda data: fuzz_targets.verify_file("vllm", data), lambda: [fuzz_targets.SEEDS["vllm"].read_bytes()])
    table["serving-file"] = (lambda data: fuzz_targets.verify_file("serving", data), lambda: [fuzz_targets.SEEDS["serving"].read_bytes()])
    return table


#: libFuzzer's `-max_len` (bytes) where 64 KiB would cut the seeds: a real 5 s clip of the example bundle is 99 KB.
MAX_LEN = {"media-metadata": 131072}


def child(name: str, corpus: Path, seconds: int, artifacts: Path) -> None:
    """Fuzz one target under atheris until `seconds` pass (libFuzzer's `-max_total_time`); never returns."""
    import atheris

    with atheris.instrument_imports(include=["verifier"]):
        import verifier.cache.cachefs  # noqa: F401 - imported here so that every reader the targets call is instrumented
        import verifier.checks.coverage  # noqa: F401
        import verifier.readers.claimtext  # noqa: F401
        import verifier.core  # noqa: F401
        import verifier.readers.grammars  # noqa: F401
        import verifier.commands.manifest  # noqa: F401
        import verifier.media.demux  # noqa: F401
        import verifier.profiles.language  # noqa: F401
        import verifier.readers.rst_doc  # noqa: F401
        import verifier.trust.trustroot  # noqa: F401
    function, _ = targets()[name]
    atheris.Setup([sys.argv[0], str(corpus), f"-max_total_time={seconds}", "-print_final_stats=1", "-timeout=30",
                   "-rss_limit_mb=3072", f"-max_len={MAX_LEN.get(name, 65536)}", f"-artifact_prefix={artifacts}/crash-{name}-"], function)
    atheris.Fuzz()


def main() -> int:
    """Run every chosen target for its share of the time and print the tally."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--seconds", type=float, default=1800.0)
    parser.add_argument("--target", action="append", help="a name of TARGETS (repeatable); default all")
    parser.add_argument("--work", help="corpus and crash directory (default: a new temporary one)")
    parser.add_argument("--child", nargs=3, metavar=("NAME", "CORPUS", "SECONDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="fuzz-cov-"))
    if args.child:
        name, corpus, seconds = args.child
        child(name, Path(corpus), int(seconds), work)
    table = targets()
    names = args.target or sorted(table)
    share = max(1, int(args.seconds / len(names)))
    crashes, total, start = 0, 0, time.monotonic()
    rows = []
    for name in names:
        corpus = work / name
        corpus.mkdir(parents=True, exist_ok=True)
        for i, seed in enumerate(table[name][1]()):
            (corpus / f"seed-{i}").write_bytes(seed)
        began = time.monotonic()
        done = subprocess.run([sys.executable, __file__, "--work", str(work), "--child", name, str(corpus), str(share)],
                              capture_output=True, text=True, cwd=ROOT)
        runs = re.search(r"stat::number_of_executed_units: (\d+)", done.stderr)
        n = int(runs.group(1)) if runs else 0
        crashed = done.returncode != 0
        if crashed:
            print(f"--- {name}: exit {done.returncode}\n{done.stderr[-4000:]}", file=sys.stderr)
        crashes += crashed
        total += n
        rows.append(f"  {name:16} {n:9} inputs  {len(list(corpus.iterdir())):6} in corpus  {time.monotonic() - began:6.0f} s"
                    f"  {'CRASH' if crashed else 'ok'}")
    print(f"fuzz_cov: {time.monotonic() - start:.0f} s, {len(names)} target(s), {total} inputs, {crashes} crash(es); work {work}")
    print("\n".join(rows))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
