"""
The second reviewer trial of issue 41 (four FAIL reports read by someone who did not write them): what it found wrong, pinned.

Each test names the complaint it answers (numbered as in the trial's list).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from verifier.model import CheckInfo, Finding, Report, Status
from verifier.report import render

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")
MLPERF = CORPUS / "mlperf-inference-test-submissions-v5.0"
H3 = CORPUS / "vllm-omni-rankings-h3-online-fp8"


@pytest.fixture(scope="module")
def nohash(tmp_path_factory) -> Report:
    """The example with one README number changed and the manifest not re-hashed (the trial's `fail-example-nohash`)."""
    from conftest import EXAMPLE

    from verifier.core import verify_path as verify

    dest = tmp_path_factory.mktemp("nohash") / "bundle"
    shutil.copytree(EXAMPLE, dest, symlinks=True)
    readme = dest / "README.md"
    readme.write_text(readme.read_text().replace("73.45 % lower", "75.45 % lower", 1))
    return verify(str(dest))


def test_1_readme_numbers_blocked_by_integrity_are_counted_not_dropped(nohash):
    blocked = [f for f in nohash.findings if f.check == "claims.stated" and f.code == "blocked-by-integrity"]
    assert [(f.status, f.path) for f in blocked] == [(Status.UNVERIFIED, "README.md")]
    assert blocked[0].message.startswith("README.md: 25 numbers not judged (blocked by integrity.files")
    for fmt in ("text", "markdown", "html"):
        out = render(nohash, fmt)
        assert "25 numbers not judged (blocked by integrity.files" in out, fmt
    text = render(nohash, "text")
    stated = text[text.index("stated claims:"):]
    assert "README.md: 25 numbers not judged" in stated  # in the stated-claims section too, not only among the groups
    assert '<p class="note stated-blocked">README.md: 25 numbers not judged' in render(nohash, "html")
    md = render(nohash, "markdown")
    assert "- README.md: 25 numbers not judged" in md[md.index("#### Stated claims"):]
