"""`verify --claims-text PR.md DIR` on a bundle a profile reads: the text's numbers bind to what the profile's claims derive."""

from __future__ import annotations

import json

from conftest import CORPUS

GDN = CORPUS / "system1-omni-gdn-20261003"

PR = """## Results

The candidate's aggregate mean is 48.20 ms against 48.41 ms for the baseline, a 0.42 % reduction.
Each server ran 74 measured requests.
The candidate's aggregate mean is 47.00 ms.
"""


def _stated(report: dict) -> dict[str, tuple[str, str]]:
    return {f["observed"]["stated"]: (f["status"], f["code"]) for f in report["findings"] if f["check"] == "claims.stated"}


def test_a_pull_request_body_binds_to_the_gdn_bundle(run, tmp_path):
    body = tmp_path / "pr.md"
    body.write_text(PR, encoding="utf-8")
    result = run("check", "--no-cache", "-f", "json", "--claims-text", str(body), str(GDN))
    assert result.exit_code == 1, result.stderr  # the bundle's own FAILs (cc17077), and the 47.00 ms below
    report = json.loads(result.stdout)
    judged = _stated(report)
    assert judged["48.20 ms"] == judged["48.41 ms"] == judged["74"] == ("PASS", "bound")
    assert judged["0.42 %"] == ("PASS", "bound")  # (1 - candidate/baseline) x 100 of the two arms' aggregate means
    assert judged["47.00 ms"] == ("FAIL", "claim-mismatch")
    assert "claims.stated" in [r["check"] for r in report["roster"]]


def test_without_a_claim_text_the_profile_roster_has_no_claims_stated(run):
    result = run("check", "--no-cache", "-f", "json", str(GDN))
    assert "claims.stated" not in [r["check"] for r in json.loads(result.stdout)["roster"]]


def test_hyperfine_folder_binds_its_claim_text_too(run, tmp_path):
    body = tmp_path / "pr.md"
    body.write_text("It is 3.95x faster.", encoding="utf-8")
    result = run("check", "--no-cache", "-f", "json", "--claims-text", str(body), str(CORPUS / "hyperfine-3em"))
    assert result.exit_code in (1, 3), result.stderr
    assert "3.95x" in _stated(json.loads(result.stdout)) or "3.95 x" in _stated(json.loads(result.stdout))
