"""The worked example of docs/profiles.md: its profile JSON is run as written (docs are checked like code)."""

from __future__ import annotations

import hashlib
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import ROOT, make_assets

from verifier.engine import stats
from verifier.core import verify_path
from verifier.errors import UsageError

DOC = ROOT / "docs" / "profiles.md"


def example_profile() -> dict:
    """Return the JSON block that follows the `example-profile` marker in docs/profiles.md."""
    text = DOC.read_text()
    after = text[text.index("<!-- example-profile"):]
    return json.loads(re.search(r"```json\n(.*?)\n```", after, re.S).group(1))


def _bundle(root: Path, *, p95_method: str = "nearest-rank", tamper: bool = False) -> Path:
    root.mkdir()
    (root / "receipts").mkdir()
    summary: dict = {}
    means = {}
    for arm, base in (("baseline", Decimal("40.0")), ("candidate", Decimal("31.0"))):
        rows = ["id,phase,latency_ms"]
        measured = []
        for i in range(2):
            rows.append(f"w{i},warmup,{base * 3}")
        for i in range(20):
            value = base + Decimal(i) * Decimal("0.9") + Decimal(i * 37 % 11) / 10
            measured.append(value)
            rows.append(f"r{i},measured,{value}")
        (root / "receipts" / f"{arm}.csv").write_text("\n".join(rows) + "\n")
        p95 = stats.percentile_nearest_rank(measured, Decimal(95)) if p95_method == "nearest-rank" else stats.percentile_linear(measured, Decimal(95))
        means[arm] = stats.mean(measured)
        summary[arm] = {"mean_ms": float(round(means[arm], 3)), "p95_ms": float(round(p95, 3))}
    summary["speedup"] = float(round(means["baseline"] / means["candidate"], 2))
    (root / "summary.json").write_text(json.dumps(summary, indent=2))
    sums = [f"{hashlib.sha256((root / rel).read_bytes()).hexdigest()}  {rel}" for rel in ("receipts/baseline.csv", "receipts/candidate.csv", "summary.json")]
    (root / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    if tamper:
        path = root / "receipts" / "candidate.csv"
        path.write_text(path.read_text().replace("r0,measured,31.0", "r0,measured,21.0"))
    return root


@pytest.fixture
def acme_assets(tmp_path):
    return make_assets(tmp_path, {"acme-run": example_profile()}, keep_shipped=True)


def test_worked_example_passes_every_check_it_declares(tmp_path, acme_assets):
    report = verify_path(str(_bundle(tmp_path / "acme-run")), asset_root=acme_assets)
    assert report.kind == "profile:acme-run"
    # every check the profile declares passes; the families the profile language cannot feed without a `bundle`
    # section (plan, media coverage here, recorded quality, re-scoring) are one UNVERIFIED stand-in each (verifier/engine/roster.py): INCOMPLETE
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3
    assert [(f.check, f.code) for f in report.findings if f.status != "PASS"] == [
        ("plan.conformance", "not-in-evidence"), ("coverage.streams", "not-in-evidence"), ("quality.recorded", "not-in-evidence"), ("quality.rescore", "not-in-evidence")]
    claims = {f.message.split(":")[0]: f for f in report.findings if f.check == "derivation.claims"}
    assert set(claims) == {"mean_ms[arm=baseline]", "mean_ms[arm=candidate]", "p95_ms[arm=baseline]", "p95_ms[arm=candidate]", "speedup"}
    assert [f.code for f in report.findings if f.check == "gate.rules"] == ["rule-met"]


def test_worked_example_with_interpolated_p95_fails(tmp_path, acme_assets):
    report = verify_path(str(_bundle(tmp_path / "acme-run", p95_method="linear")), asset_root=acme_assets)
    bad = {f.message.split(":")[0] for f in report.findings if f.code == "claim-mismatch"}
    assert "p95_ms[arm=baseline]" in bad and report.verdict == "FAIL"


def test_worked_example_tampered_receipt_is_blocked(tmp_path, acme_assets):
    report = verify_path(str(_bundle(tmp_path / "acme-run", tamper=True)), asset_root=acme_assets)
    assert any(f.code == "sha256-mismatch" and f.path == "receipts/candidate.csv" for f in report.findings)
    assert any(f.code == "blocked-by-integrity" for f in report.findings)
    assert report.verdict == "FAIL" and not [f for f in report.findings if f.status == "ERROR"]
    # every claim of the tampered arm is UNVERIFIED naming the unread file, never a crash and never dropped
    # (a newcomer's trial hit a KeyError here when the tampered arm had no readable record)
    blocked = {f.message.split(":")[0] for f in report.findings if f.check == "derivation.claims" and f.status == "UNVERIFIED"}
    assert {"mean_ms[arm=candidate]", "p95_ms[arm=candidate]", "speedup"} <= blocked
    assert all("receipts/candidate.csv" in f.message for f in report.findings
               if f.check == "derivation.claims" and f.status == "UNVERIFIED")


def test_worked_example_is_not_detected_without_the_profile(tmp_path):
    report = verify_path(str(_bundle(tmp_path / "acme-run")))  # discovery runs instead (issue 37), never PASS
    assert report.kind == "discovery" and report.verdict == "INCOMPLETE"
    assert any("no shipped profile matches" in f.message for f in report.findings)
