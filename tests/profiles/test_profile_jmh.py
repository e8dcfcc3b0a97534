"""The shipped `jmh` profile on real JMH JSON output (`tests/data/jmh/SOURCE.md`), and the language it needed: `weibull` percentiles, objects as dimension values, `absent`."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.engine import stats

from verifier.trust import assets as trust
from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.profiles.language import Tree, candidates, load_profile
from verifier.readers.pointers import dim_text

JMH = ROOT / "tests" / "data" / "jmh" / "json-bench-jmh-result.json"
FIRST = 'score[file=jmh-result.json][benchmark=bench.Case1.decodeArgonaut][mode=thrpt][params={"depth":"10","length":"10"}]'
CLAIMS = ["score", "scoreError", "scoreConfidence.low", "scoreConfidence.high", "scorePercentiles.0.0", "scorePercentiles.50.0",
          "scorePercentiles.100.0", "scorePercentiles.90.0", "scorePercentiles.95.0", "scorePercentiles.99.0", "scorePercentiles.99.9",
          "scorePercentiles.99.99", "scorePercentiles.99.999", "scorePercentiles.99.9999"]
PLACES = {"score": ("score",), "scoreError": ("scoreError",), "scoreConfidence.low": ("scoreConfidence", 0), "scoreConfidence.high": ("scoreConfidence", 1),
          **{f"scorePercentiles.{q}": ("scorePercentiles", q) for q in ("0.0", "50.0", "100.0", "90.0", "95.0", "99.0", "99.9", "99.99", "99.999", "99.9999")}}


def _shipped() -> dict[str, dict]:
    assets = trust.assets(str(ROOT))
    return {pid: assets.detection(pid) for pid in assets.profile_ids()}


def _claims(report) -> dict[str, object]:
    return {f.message.split(": ")[0]: f for f in report.findings if f.check == "derivation.claims" and f.code != "claim-unstated"}


def _variant(tmp_path: Path, change) -> Path:
    doc = json.loads(JMH.read_text())
    change(doc)
    out = tmp_path / "jmh-result.json"
    out.write_text(json.dumps(doc, indent=4))
    return out


def test_real_output_rederives_every_number_of_the_primary_metric(run):
    report = verify_path(str(JMH))
    assert report.kind == "profile:jmh"
    claims = _claims(report)
    assert len(claims) == 42 and all(f.status == "PASS" for f in claims.values()), [f.message for f in claims.values() if f.status != "PASS"]
    (coverage,) = [f for f in report.findings if f.check == "claims.coverage"]
    assert coverage.status == "PASS"
    assert report.verdict == "INCOMPLETE" and run(str(JMH)).exit_code == 3


@pytest.mark.parametrize("claim", CLAIMS)
def test_each_changed_number_fails_naming_it(tmp_path, claim):
    member, *index = PLACES[claim]

    def change(doc):
        metric = doc[0]["primaryMetric"]
        if index:
            metric[member][index[0]] *= 1.000001
        else:
            metric[member] *= 1.000001
    report = verify_path(str(_variant(tmp_path, change)))
    failed = [label for label, f in _claims(report).items() if f.status == "FAIL"]
    assert failed == [FIRST.replace("score[", f"{claim}[", 1)], failed
    assert report.verdict == "FAIL"


def test_a_normal_interval_or_a_linear_percentile_instead_of_jmhs_fails(tmp_path):
    doc = json.loads(JMH.read_text(), parse_float=Decimal)
    xs = [x for fork in doc[0]["primaryMetric"]["rawData"] for x in fork]
    normal = stats.derive("ci_half_width", xs, method="normal-z", confidence=Decimal("99.9")).value
    linear = stats.percentile_linear(xs, Decimal(90))
    assert linear != doc[0]["primaryMetric"]["scorePercentiles"]["90.0"]

    def change(doc):
        doc[0]["primaryMetric"]["scoreError"] = float(normal)
        doc[0]["primaryMetric"]["scorePercentiles"]["90.0"] = float(linear)
    claims = _claims(verify_path(str(_variant(tmp_path, change))))
    assert claims[FIRST.replace("score[", "scoreError[", 1)].status == "FAIL"
    assert claims[FIRST.replace("score[", "scorePercentiles.90.0[", 1)].status == "FAIL"


def test_a_benchmark_without_params_is_one_instance_and_still_checked(tmp_path):
    # JMH writes `params` only for a benchmark with @Param fields
    def change(doc):
        del doc[1]["params"]
        doc[1]["primaryMetric"]["score"] *= 1.000001
    claims = _claims(verify_path(str(_variant(tmp_path, change))))
    label = "score[file=jmh-result.json][benchmark=bench.Case1.decodeCirce][mode=thrpt][params=]"
    assert claims[label].status == "FAIL" and claims[label].code == "claim-mismatch"
    assert sum(f.status == "PASS" for f in claims.values()) == 41


def test_one_benchmark_with_two_params_sets_is_two_instances(tmp_path):
    def change(doc):
        doc[2]["benchmark"] = doc[0]["benchmark"]
        doc[2]["primaryMetric"]["score"] *= 1.000001
    failed = [label for label, f in _claims(verify_path(str(_variant(tmp_path, change)))).items() if f.status == "FAIL"]
    assert failed == ['score[file=jmh-result.json][benchmark=bench.Case1.decodeArgonaut][mode=thrpt][params={"depth":"100","length":"10"}]']


def test_a_run_too_short_for_an_error_states_nan_and_is_never_failed(tmp_path):
    # fewer than three iterations: JMH writes "NaN" for scoreError and scoreConfidence
    def change(doc):
        metric = doc[0]["primaryMetric"]
        metric["rawData"] = [metric["rawData"][0][:1], metric["rawData"][1][:1]]
        xs = [fork[0] for fork in metric["rawData"]]
        metric["score"] = sum(xs) / 2
        metric["scoreError"], metric["scoreConfidence"] = "NaN", ["NaN", "NaN"]
        metric["scorePercentiles"] = {q: (min(xs) if q == "0.0" else metric["score"] if q == "50.0" else max(xs)) for q in metric["scorePercentiles"]}
    report = verify_path(str(_variant(tmp_path, change)))
    assert not any(f.status == "FAIL" for f in report.findings), [f.message for f in report.findings if f.status == "FAIL"]
    unstated = [f for f in report.findings if f.check == "derivation.claims" and f.status == "UNVERIFIED"]
    assert {f.message.split("[")[0] for f in unstated} == {"scoreError", "scoreConfidence.low", "scoreConfidence.high"}


def test_detected_in_its_folder_and_two_below_only(tmp_path):
    results = tmp_path / "build" / "results" / "jmh"
    results.mkdir(parents=True)
    shutil.copy(JMH, results / "results.json")  # the Gradle plugin's place, from the project root: build/results/jmh/
    assert candidates(_shipped(), Tree(root=tmp_path / "build")) == ["jmh"]
    assert "jmh" not in candidates(_shipped(), Tree(root=tmp_path))
    assert verify_path(str(tmp_path)).kind == "discovery"  # no shipped profile matches it: discovery reads it (issue 37), never this profile
    assert "jmh" not in candidates(_shipped(), Tree(root=ROOT))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "list.json").write_text(json.dumps([{"benchmark": "x", "mode": "avgt"}]))
    assert "jmh" not in candidates(_shipped(), Tree(root=tmp_path / "other"))


# ---------------------------------------------------------------- the language it needed


def test_weibull_percentiles_are_commons_math_default_estimation():
    xs = [Decimal(v) for v in (15, 20, 35, 40, 50)]
    # position q/100 (n + 1): 0.9 * 6 = 5.4 -> clamped to the maximum; 0.4 * 6 = 2.4 -> 20 + 0.4 * 15
    assert stats.derive("percentile", xs, q=90, method="weibull").value == 50
    assert stats.derive("percentile", xs, q=40, method="weibull").value == Decimal("26.0")
    assert stats.derive("percentile", xs, q=10, method="weibull").value == 15  # 0.6 < 1: the minimum
    assert stats.derive("percentile", xs, q=50, method="weibull").value == stats.median(xs)


def test_an_object_is_a_dimension_value_by_its_canonical_json():
    assert dim_text({"b": "2", "a": "1"}) == dim_text({"a": "1", "b": "2"}) == '{"a":"1","b":"2"}'
    assert dim_text([1, 2]) is None and dim_text(None) is None


def test_absent_on_a_value_is_refused():
    doc = json.loads((ROOT / "profiles" / "jmh.json").read_text())
    doc["receipts"]["iterations"]["values"]["score"]["absent"] = "0"
    schema = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())
    with pytest.raises(ConfigError, match="/receipts/iterations/values/score/absent"):
        load_profile(doc, schema, origin="draft.json")
