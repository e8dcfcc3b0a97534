"""
Long fuzz run over every target of `tests/end_to_end/test_fuzz.py` (issue 14).

Usage: `.venv/bin/python tools/fuzz.py SECONDS [EXAMPLES_PER_ROUND]` from the
repository root. Runs the targets round-robin under the hypothesis profile
`fuzz-long` (fresh random seeds every round, `EXAMPLES_PER_ROUND` examples
per target per round, default 200) until SECONDS have passed, then prints
the inputs tried per target (`fuzz_targets.CALLS`), the crashes (each with
hypothesis' falsifying example on stderr) and the wall time. Exit 1 if any
target crashed.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    """Run the fuzz targets for the given number of seconds and print the tally."""
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 600.0
    os.environ["HYPOTHESIS_PROFILE"] = "fuzz-long"
    os.environ["FUZZ_EXAMPLES"] = sys.argv[2] if len(sys.argv) > 2 else "200"
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
    import fuzz_targets
    import test_fuzz
    from helpers import make_assets

    tiny_root = str(make_assets(Path(tempfile.mkdtemp(prefix="fuzz-assets-")) / "assets"))
    tests = [getattr(test_fuzz, n) for n in dir(test_fuzz) if n.startswith("test_fuzz_")]
    crashes: list[str] = []
    start = time.monotonic()
    rounds = 0
    while time.monotonic() - start < seconds:
        rounds += 1
        for test in tests:
            if time.monotonic() - start >= seconds:
                break
            try:
                test(tiny_root=tiny_root) if "tiny_root" in test.hypothesis.inner_test.__code__.co_varnames else test()
            except Exception:  # noqa: BLE001 - a crash is the finding; keep fuzzing the other targets
                crashes.append(f"{test.__name__}: {traceback.format_exc(limit=3)}")
                print(crashes[-1], file=sys.stderr)
    elapsed = time.monotonic() - start
    total = sum(fuzz_targets.CALLS.values())
    print(f"fuzz: {elapsed:.0f} s, {rounds} round(s), {total} inputs tried, {len(crashes)} crash(es)")
    for name, n in sorted(fuzz_targets.CALLS.items()):
        print(f"  {name:24} {n}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
