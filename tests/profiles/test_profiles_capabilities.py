"""Issue 11: profile-language capabilities (ratio of sums, named confidence intervals, ...), each with an input that must PASS and one that must FAIL."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import make_assets
from helpers import by_check as _by
from helpers import one_claim as _claim
from helpers import write_tree

from verifier.core import verify_path
from verifier.errors import ConfigError




def _bundle(tmp_path: Path, files: dict[str, str], claims: list[dict], **extra) -> tuple[Path, str]:
    """Return `(bundle, asset_root)`: `files` written under tmp_path/run, a profile `run` reading `runs/*.csv` with the given claims."""
    bundle = write_tree(tmp_path / "run", files)
    doc = {
        "id": "run", "version": 1, "description": "test profile",
        "detect": {"files": ["summary.json"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                              "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}},
                              "values": {"samples": {"pointer": "/samples", "unit": "samples"}}}},
        "claims": claims,
        **extra,
    }
    return bundle, make_assets(tmp_path, {"run": doc})


# ---------------------------------------------------------------- ratio of sums

RUNS = "s,samples\n2,10\n8,10\n"  # sum 20 samples / 10 s = 2.0 samples/s; the mean of per-receipt rates is (5 + 1.25) / 2 = 3.125

RATE = {"id": "rate", "receipts": "runs", "statistic": "ratio_of_sums", "numerator": "samples", "denominator": "latency",
        "selection": {"phase": "measured"}, "unit": "samples/s", "at": {"file": "summary.json", "pointer": "/rate"}}


def test_ratio_of_sums_is_total_samples_over_total_seconds(tmp_path):
    bundle, assets = _bundle(tmp_path, {"runs/a.csv": RUNS, "summary.json": '{"rate": 2.0}'}, [RATE])
    f = _claim(verify_path(str(bundle), asset_root=assets), "rate")
    assert (f.status, f.code) == ("PASS", "derived") and "sum 20 of 2 / sum 10 of 2" in f.derivation


def test_ratio_of_sums_stated_as_the_mean_of_per_receipt_rates_fails(tmp_path):
    bundle, assets = _bundle(tmp_path, {"runs/a.csv": RUNS, "summary.json": '{"rate": 3.125}'}, [RATE])
    f = _claim(verify_path(str(bundle), asset_root=assets), "rate")
    assert (f.status, f.code) == ("FAIL", "claim-mismatch")


def test_ratio_of_sums_counts_receipts_as_decisions_per_second(tmp_path):
    claim = {**RATE, "id": "decisions", "numerator": "#receipts", "unit": "decisions/s", "at": {"file": "summary.json", "pointer": "/dps"}}
    bundle, assets = _bundle(tmp_path, {"runs/a.csv": RUNS, "summary.json": '{"dps": 0.2}'}, [claim])
    assert _claim(verify_path(str(bundle), asset_root=assets), "decisions").status == "PASS"
    (bundle / "summary.json").write_text('{"dps": 0.3}')
    assert _claim(verify_path(str(bundle), asset_root=assets), "decisions").status == "FAIL"


def test_ratio_of_sums_in_milliseconds_per_sample_converts_exactly(tmp_path):
    claim = {**RATE, "id": "per_sample", "numerator": "latency", "denominator": "samples", "unit": "ms/sample", "at": {"file": "summary.json", "pointer": "/ms"}}
    bundle, assets = _bundle(tmp_path, {"runs/a.csv": RUNS, "summary.json": '{"ms": 500}'}, [claim])
    assert _claim(verify_path(str(bundle), asset_root=assets), "per_sample").status == "PASS"


# ---------------------------------------------------------------- confidence intervals with the method named

TIMES = [1.0, 2.0, 3.0, 4.0, 5.5]


def _ci(method: str) -> float:
    """Independent half-width: scipy/statistics critical value times the sample SD over sqrt(n)."""
    import statistics

    from scipy import stats as sps

    n = len(TIMES)
    c = statistics.NormalDist().inv_cdf(0.975) if method == "normal-z" else sps.t.ppf(0.975, n - 1)
    return c * statistics.stdev(TIMES) / math.sqrt(n)


def _ci_claims(method: str) -> list[dict]:
    base = {"receipts": "runs", "selection": {"phase": "measured"}, "unit": "s", "method": method, "confidence": 95}
    return [{**base, "id": s, "statistic": s, "at": {"file": "summary.json", "pointer": f"/{s}"}} for s in ("ci_low", "ci_high", "ci_half_width")]


@pytest.mark.parametrize("method", ["normal-z", "student-t"])
def test_confidence_interval_rederives_with_the_named_method(tmp_path, method):
    half = _ci(method)
    centre = sum(TIMES) / len(TIMES)
    stated = {"ci_low": round(centre - half, 6), "ci_high": round(centre + half, 6), "ci_half_width": round(half, 6)}
    runs = "s,samples\n" + "".join(f"{t},1\n" for t in TIMES)
    bundle, assets = _bundle(tmp_path, {"runs/a.csv": runs, "summary.json": json.dumps(stated)}, _ci_claims(method))
    report = verify_path(str(bundle), asset_root=assets)
    for name in stated:
        f = _claim(report, name)
        assert (f.status, f.code) == ("PASS", "derived"), f.message
        assert method in f.derivation


def test_a_normal_z_interval_stated_where_the_profile_names_student_t_fails(tmp_path):
    half_z = _ci("normal-z")
    runs = "s,samples\n" + "".join(f"{t},1\n" for t in TIMES)
    bundle, assets = _bundle(tmp_path, {"runs/a.csv": runs, "summary.json": json.dumps({"ci_half_width": round(half_z, 6)})},
                             [_ci_claims("student-t")[2]])
    f = _claim(verify_path(str(bundle), asset_root=assets), "ci_half_width")
    assert (f.status, f.code) == ("FAIL", "claim-mismatch")


# ---------------------------------------------------------------- bad profiles: exit 2 naming file and JSON Pointer


@pytest.mark.parametrize(("claim", "message"), [
    ({**RATE, "unit": "ms"}, r"run\.json: invalid profile at /claims/0/unit: unit 'ms' \(time\) is not of the dimension of samples / latency"),
    ({**RATE, "numerator": "tokens"}, r"run\.json: invalid profile at /claims/0/numerator: 'tokens' is not a value"),
    ({k: v for k, v in RATE.items() if k != "denominator"}, r"run\.json: invalid profile at /claims/0"),
    ({**_ci_claims("normal-z")[0], "method": "linear"}, r"run\.json: invalid profile at /claims/0/method"),
    ({k: v for k, v in _ci_claims("student-t")[0].items() if k != "method"}, r"run\.json: invalid profile at /claims/0"),
    ({**_ci_claims("student-t")[0], "confidence": 100}, r"run\.json: invalid profile at /claims/0/confidence"),
    ({**_ci_claims("student-t")[0], "statistic": "mean"}, r"run\.json: invalid profile at /claims/0"),
])
def test_a_broken_capability_is_refused_naming_file_and_pointer(tmp_path, claim, message):
    bundle, assets = _bundle(tmp_path / "ok", {"runs/a.csv": RUNS, "summary.json": '{"rate": 2.0}'}, [RATE])
    doc = json.loads(Path(assets, "profiles", "run.json").read_text())
    doc["claims"] = [claim]
    with pytest.raises(ConfigError, match=message):
        verify_path(str(bundle), asset_root=make_assets(tmp_path / "bad", {"run": doc}))


# ---------------------------------------------------------------- joins across files, per-record flags, recorded outcome words

DIGEST_A, DIGEST_B = "a" * 64, "b" * 64


def _outputs(tmp_path: Path, outputs: dict[str, dict], refs: list[dict], matches: list[dict], **extra) -> tuple[Path, str]:
    bundle = tmp_path / "out"
    (bundle / "outputs").mkdir(parents=True)
    for task, doc in outputs.items():
        (bundle / "outputs" / f"{task}.json").write_text(json.dumps(doc))
    (bundle / "references.json").write_text(json.dumps({"refs": refs}))
    doc = {
        "id": "out", "version": 1, "description": "outputs against reference digests",
        "detect": {"files": ["references.json"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {
            "outputs": {"glob": "outputs/*.json", "encoding": "json", "name": "outputs/{task}.json",
                        "fields": {"phase": {"value": "measured"}}, "dimensions": {"task": {"from_name": "task"}}},
            "references": {"glob": "references.json", "encoding": "json", "records": "/refs",
                           "fields": {"phase": {"value": "measured"}}, "dimensions": {"task": {"pointer": "/task"}}},
        },
        "matches": matches,
        **extra,
    }
    return bundle, make_assets(tmp_path, {"out": doc})


JOIN = {"id": "digest-is-reference", "receipts": "outputs", "pointer": "/sha256",
        "equals": {"receipts": "references", "pointer": "/sha256", "on": ["task"]}}
REFS = [{"task": "a", "sha256": DIGEST_A}, {"task": "b", "sha256": DIGEST_B}]


def test_a_value_equal_to_the_value_in_another_file_passes(tmp_path):
    bundle, assets = _outputs(tmp_path, {"a": {"sha256": DIGEST_A}, "b": {"sha256": DIGEST_B}}, REFS, [JOIN])
    found = _by(verify_path(str(bundle), asset_root=assets), "derivation.matches")
    assert [(f.status, f.code, f.path) for f in found] == [("PASS", "equal", "outputs/a.json"), ("PASS", "equal", "outputs/b.json")]


def test_a_value_differing_from_the_value_in_another_file_fails_naming_both(tmp_path):
    bundle, assets = _outputs(tmp_path, {"a": {"sha256": DIGEST_A}, "b": {"sha256": DIGEST_A}}, REFS, [JOIN])
    report = verify_path(str(bundle), asset_root=assets)
    (bad,) = [f for f in _by(report, "derivation.matches") if f.status != "PASS"]
    assert (bad.status, bad.code, bad.path) == ("FAIL", "not-equal", "outputs/b.json") and "references.json /refs/1/sha256" in bad.message
    assert report.verdict == "FAIL"


def test_a_join_that_finds_no_single_record_is_unverified(tmp_path):
    bundle, assets = _outputs(tmp_path, {"a": {"sha256": DIGEST_A}, "b": {"sha256": DIGEST_B}}, REFS[:1], [JOIN])
    (b,) = [f for f in _by(verify_path(str(bundle), asset_root=assets), "derivation.matches") if f.path == "outputs/b.json"]
    assert (b.status, b.code) == ("UNVERIFIED", "join-unresolved")


FLAG = {"id": "byteexact", "receipts": "outputs", "pointer": "/sha256", "equals": {"pointer": "/reference_sha256"}, "flag": "/byteexact"}


@pytest.mark.parametrize(("flag", "digest", "status", "code"), [
    (True, DIGEST_A, "PASS", "flag-agrees"),
    (False, DIGEST_B, "PASS", "flag-agrees"),   # an honest false: the digests differ and the record says so
    (True, DIGEST_B, "FAIL", "flag-disagrees"),  # byteexact claimed, the digests differ
    (False, DIGEST_A, "FAIL", "flag-disagrees"),
    ("yes", DIGEST_A, "UNVERIFIED", "not-stated"),  # no outcome word declared for "yes"
])
def test_a_per_record_flag_is_checked_against_what_re_derives(tmp_path, flag, digest, status, code):
    record = {"sha256": digest, "reference_sha256": DIGEST_A, "byteexact": flag}
    bundle, assets = _outputs(tmp_path, {"a": record}, REFS, [FLAG])
    (f,) = _by(verify_path(str(bundle), asset_root=assets), "derivation.matches")
    assert (f.status, f.code) == (status, code), f.message


@pytest.mark.parametrize(("word", "status", "code"), [("passed", "PASS", "flag-agrees"), ("FAILED", "FAIL", "flag-disagrees")])
def test_a_per_record_outcome_word_is_checked_against_what_re_derives(tmp_path, word, status, code):
    entry = {**FLAG, "flag": "/status", "outcomes": {"true": ["passed"], "false": ["failed"]}}
    bundle, assets = _outputs(tmp_path, {"a": {"sha256": DIGEST_A, "reference_sha256": DIGEST_A, "status": word}}, REFS, [entry])
    (f,) = _by(verify_path(str(bundle), asset_root=assets), "derivation.matches")
    assert (f.status, f.code) == (status, code), f.message


def test_flags_the_matches_compare_are_covered_and_unmapped_ones_are_unchecked(tmp_path):
    record = {"sha256": DIGEST_A, "reference_sha256": DIGEST_A, "byteexact": True}
    documents = [{"file": "outputs/*.json"}]
    bundle, assets = _outputs(tmp_path, {"a": record}, REFS, [FLAG], claim_documents=documents)
    (covered,) = _by(verify_path(str(bundle), asset_root=assets), "claims.coverage")
    assert covered.code == "covered"
    bundle, assets = _outputs(tmp_path / "no-flag", {"a": record}, REFS, [{k: v for k, v in FLAG.items() if k != "flag"}], claim_documents=documents)
    (unchecked,) = _by(verify_path(str(bundle), asset_root=assets), "claims.coverage")
    assert (unchecked.code, unchecked.pointer) == ("unchecked-claim", "/byteexact")


GATE = {"rules": [{"id": "mean-under-6s", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "unit": "s", "max": 6}],
        "recorded": {"file": "summary.json", "pointer": "/gate", "outcomes": {"true": ["passed"], "false": ["failed"]}}}


@pytest.mark.parametrize(("word", "status", "code"), [
    ("passed", "PASS", "recorded-agrees"), ("Failed", "FAIL", "recorded-disagrees"), ("skipped", "FAIL", "recorded-not-boolean")])
def test_a_recorded_gate_outcome_written_as_a_word_is_compared(tmp_path, word, status, code):
    summary = json.dumps({"rate": 2.0, "gate": word})
    bundle, assets = _bundle(tmp_path, {"runs/a.csv": RUNS, "summary.json": summary}, [RATE], gate=GATE)
    (f,) = _by(verify_path(str(bundle), asset_root=assets), "gate.rules", code)
    assert f.status == status, f.message


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["matches"][0]["equals"].update(on=["arm"]), r"out\.json: invalid profile at /matches/0/equals/on: 'arm' is not a dimension of receipt set 'outputs'"),
    (lambda d: d["matches"][0]["equals"].update(receipts="refz"), r"out\.json: invalid profile at /matches/0/equals/receipts: unknown receipt set 'refz'"),
    (lambda d: d["matches"][0].update(outcomes={"true": ["ok"]}), r"out\.json: invalid profile at /matches/0"),
    (lambda d: d["matches"][0]["equals"].pop("on"), r"out\.json: invalid profile at /matches/0/equals"),
])
def test_a_broken_match_is_refused_naming_file_and_pointer(tmp_path, change, message):
    bundle, assets = _outputs(tmp_path, {"a": {"sha256": DIGEST_A}}, REFS, [JOIN])
    doc = json.loads(Path(assets, "profiles", "out.json").read_text())
    change(doc)
    with pytest.raises(ConfigError, match=message):
        verify_path(str(bundle), asset_root=make_assets(tmp_path / "bad", {"out": doc}))


# ---------------------------------------------------------------- the indexed selection keeps stand-ins for unread receipts


def test_an_unreadable_receipt_stays_in_the_denominator_of_a_large_selection(tmp_path):
    """Above the index threshold (16 records), a stand-in whose selected dimension is unknown (read from inside the file) is still selected."""
    files = {f"runs/r{i:02d}.csv": "s,samples,phase\n2,1,measured\n" for i in range(20)}
    files["runs/broken.csv"] = "s,samples,phase\n2,1\n"  # breaks the CSV grammar: unreadable, its phase is not known
    files["summary.json"] = '{"mean_s": 2}'
    claim = {"id": "mean_s", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "unit": "s",
             "at": {"file": "summary.json", "pointer": "/mean_s"}}
    bundle, assets = _bundle(tmp_path, files, [claim])
    doc = json.loads(Path(assets, "profiles", "run.json").read_text())
    doc["receipts"]["runs"]["fields"]["phase"] = {"pointer": "/phase"}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path / "p", {"run": doc}))
    f = _claim(report, "mean_s")
    assert (f.status, f.code) == ("UNVERIFIED", "incomplete-denominator") and "runs/broken.csv" in f.message


# ---------------------------------------------------------------- numbers written with their unit inside a string, in claim documents


def test_numbers_with_units_inside_strings_are_claims_coverage_accounts_for(tmp_path):
    files = {"runs/a.csv": RUNS, "summary.json": json.dumps({"rate": "2.0 samples/s", "wall": "244.6s", "util": "75%"})}
    claim = {**RATE, "at": {"file": "summary.json", "pointer": "/rate"}}
    bundle, assets = _bundle(tmp_path, files, [claim], claim_documents=[{"file": "summary.json"}])
    report = verify_path(str(bundle), asset_root=assets)
    assert _claim(report, "rate").status == "PASS"  # "2.0 samples/s": the number and its unit read from the string
    unchecked = {(f.pointer, f.observed) for f in _by(report, "claims.coverage", "unchecked-claim")}
    assert unchecked == {("/wall", "244.6s"), ("/util", "75%")}
    (bundle / "summary.json").write_text(json.dumps({"rate": "2.1 samples/s", "wall": "244.6s", "util": "75%"}))
    assert _claim(verify_path(str(bundle), asset_root=assets), "rate").status == "FAIL"


# ---------------------------------------------------------------- numbers inside a longer string ("18,812 MiB (32.1%)")

ARMS = {"runs/base.csv": "s,samples\n10,1\n", "runs/cand.csv": "s,samples\n8,1\n"}  # saved 2 s, 20.0 % less


def _inside(saved: str, note: str = "run on 4 GPUs") -> dict[str, str]:
    return {**ARMS, "summary.json": json.dumps({"saved": saved, "note": note})}


SAVED = [{"id": "saved_s", "receipts": "runs", "statistic": "difference", "baseline": "base", "candidate": "cand", "selection": {"phase": "measured"},
          "unit": "s", "at": {"file": "summary.json", "pointer": "/saved", "number": 0}},
         {"id": "saved_pct", "receipts": "runs", "statistic": "relative_reduction_pct", "baseline": "base", "candidate": "cand",
          "selection": {"phase": "measured"}, "unit": "%", "at": {"file": "summary.json", "pointer": "/saved", "number": 1}}]


def test_each_number_inside_a_longer_string_is_a_claim_with_its_unit(tmp_path):
    bundle, assets = _bundle(tmp_path, _inside("2,000 ms (20.0%) less"), SAVED, claim_documents=[{"file": "summary.json"}])
    report = verify_path(str(bundle), asset_root=assets)
    saved, pct = _claim(report, "saved_s"), _claim(report, "saved_pct")
    assert (saved.status, saved.pointer, saved.expected) == ("PASS", "/saved#numbers/0", "2000")  # stated in ms, derived in s, converted exactly
    assert (pct.status, pct.pointer) == ("PASS", "/saved#numbers/1")
    unchecked = [(f.pointer, f.observed) for f in _by(report, "claims.coverage", "unchecked-claim")]
    assert unchecked == [("/note#numbers/0", "4")]  # the number inside the note is stated too, and nothing accounts for it


def test_a_number_inside_a_longer_string_that_does_not_rederive_fails(tmp_path):
    bundle, assets = _bundle(tmp_path, _inside("2,000 ms (20.1%) less"), SAVED)
    report = verify_path(str(bundle), asset_root=assets)
    assert _claim(report, "saved_s").status == "PASS"
    assert (_claim(report, "saved_pct").status, _claim(report, "saved_pct").code) == ("FAIL", "claim-mismatch")
    bundle, assets = _bundle(tmp_path / "b", _inside("2,000 MiB (20.0%) less"), SAVED)
    f = _claim(verify_path(str(bundle), asset_root=assets), "saved_s")
    assert (f.status, f.code) == ("FAIL", "unit-mismatch")


def test_a_number_inside_a_string_declared_informational_is_accounted_for(tmp_path):
    bundle, assets = _bundle(tmp_path, _inside("2,000 ms (20.0%) less"), SAVED, claim_documents=[
        {"file": "summary.json", "informational": [{"pointer": "/note#numbers/*", "reason": "how many GPUs ran it (configuration)"}]}])
    (covered,) = _by(verify_path(str(bundle), asset_root=assets), "claims.coverage")
    assert (covered.status, covered.observed) == ("PASS", {"compared": 2, "informational": 1})


def test_a_number_index_past_the_strings_numbers_is_claim_missing(tmp_path):
    claim = {**SAVED[0], "at": {"file": "summary.json", "pointer": "/saved", "number": 2}}
    bundle, assets = _bundle(tmp_path, _inside("2,000 ms (20.0%) less"), [claim])
    f = _claim(verify_path(str(bundle), asset_root=assets), "saved_s")
    assert (f.status, f.code) == ("FAIL", "claim-missing")


def test_number_and_member_together_are_refused_naming_file_and_pointer(tmp_path):
    claim = {**SAVED[0], "at": {"file": "summary.json", "pointer": "/saved", "number": 0, "member": "x"}}
    bundle, assets = _bundle(tmp_path, _inside("2,000 ms"), [claim])
    with pytest.raises(ConfigError, match=r"run\.json: invalid profile at /claims/0/at"):
        verify_path(str(bundle), asset_root=assets)
