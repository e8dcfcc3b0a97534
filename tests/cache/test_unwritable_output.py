"""A report that cannot be written (a full disk: /dev/full) is one line naming why, exit 2, never a traceback (helper-95)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLE, ROOT

FULL = Path("/dev/full")


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full here")
@pytest.mark.parametrize("args", [["schema", "gate"], ["--no-cache", str(EXAMPLE)]])
def test_a_full_disk_is_one_line_and_exit_2(args, tmp_path):
    with FULL.open("w") as out:
        proc = subprocess.run([sys.executable, "-c", "from verifier.fastpath import main; main()", *args], stdout=out,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=600,
                              env={"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "verify: error: cannot write the output: No space left on device", proc.stderr
