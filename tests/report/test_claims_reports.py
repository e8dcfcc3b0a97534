"""Every report format carries the stated claims: per number the sentence, the bound value, claimed vs derived, the verdict."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from bundlekit import edit_json, rehash

from verifier.core import verify_path
from verifier.report import render

HEADLINE = "407.27 s -> 108.12 s HTTP E2E, 73.45 % faster (3.77x inverse-latency speedup). Peak HBM rises 3.10 %."


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    import shutil

    from conftest import EXAMPLE

    bundle = tmp_path_factory.mktemp("r") / "bundle"
    shutil.copytree(EXAMPLE, bundle)
    edit_json(bundle / "claims.json", lambda d: d.update(headline=HEADLINE))
    rehash(bundle)
    return verify_path(str(bundle))


def test_text_lists_failing_and_unchecked_numbers_with_sentence(report):
    text = render(report, "text")
    section = text.split("stated claims:", 1)[1].split("checks run:", 1)[0]
    lines = [row for row in section.splitlines()[1:] if row.strip()]
    assert len(lines) == 2
    assert lines[0].split()[:2] == ["FAIL", "claims.json#/headline:1:32"] and "wording-mismatch" in lines[0]
    assert "(baseline/candidate - 1) x 100 of arm_mean_s = 276.68" in lines[0] and HEADLINE.split(". ")[0] in lines[0]
    assert lines[1].split()[0] == "UNVERIFIED" and "3.10 %" in lines[1] and "unchecked-claim" in lines[1]
    verbose = render(report, "text", verbose=True)
    assert "407.27 s -> arm_mean_s.baseline = 407.27" in verbose


def test_markdown_has_a_stated_claims_table(report):
    md = render(report, "markdown")
    table = md.split("#### Stated claims", 1)[1].split("####", 1)[0]
    assert "| Status | Where | Claimed | Bound to | Derived | Delta | Sentence |" in table  # the HTML table's shape (issue 41 trial)
    assert "❌ FAIL | `claims.json#/headline:1:32` | 73.45 % |" in table
    assert "⚠️ UNVERIFIED" in table and "Peak HBM rises 3.10 %." in table
    assert "`arm_mean_s.baseline` | 407.27 s | 0.00 s |" in table


def test_json_and_sarif_carry_sentence_binding_claimed_and_derived(report):
    document = json.loads(render(report, "json"))
    stated = [f for f in document["findings"] if f["check"] == "claims.stated"]
    bad = [f for f in stated if f["status"] == "FAIL"]
    assert len(bad) == 1 and bad[0]["observed"]["sentence"].startswith("407.27 s -> 108.12 s")
    assert bad[0]["observed"]["claimed"] == "73.45" and bad[0]["observed"]["derived"].startswith("276.683")
    assert bad[0]["observed"]["wording_means"] == "(baseline/candidate - 1) x 100"
    assert {f["status"] for f in stated} == {"PASS", "FAIL", "UNVERIFIED"}
    sarif = json.loads(render(report, "sarif"))
    results = [r for r in sarif["runs"][0]["results"] if r["properties"]["check"] == "claims.stated"]
    assert {r["ruleId"] for r in results} >= {"claims.stated/wording-mismatch", "claims.stated/unchecked-claim"}
    assert any(r["properties"]["observed"].get("sentence", "").startswith("Peak HBM") for r in results)


def test_github_annotations_and_junit_name_the_numbers(report, monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(Path(report.subject).parent)  # GitHub's file= is relative to where verify runs
    gh = render(report, "github")
    assert any(line.startswith("::error file=") and "claims.stated [wording-mismatch]" in line and "73.45 %" in line
               for line in gh.splitlines())
    assert any(line.startswith("::warning") and "unchecked-claim" in line and "3.10 %" in line for line in gh.splitlines())
    junit = ET.fromstring(render(report, "junit"))
    case = next(c for c in junit.iter("testcase") if c.get("name") == "claims.stated")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "FAIL"
    assert "73.45 % faster" in failure.text and "Peak HBM rises 3.10 %." in failure.text
