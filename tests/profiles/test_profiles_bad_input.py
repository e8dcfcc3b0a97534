"""Issue 7 bad input: broken profiles are exit 2; bundle problems are findings naming file and field; never a traceback."""

from __future__ import annotations

import re

import copy
from decimal import Decimal
import json
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS, ROOT, copy_bundle, make_assets, profile_document, repin_files_map

from verifier.core import verify_path
from verifier.errors import ConfigError, PinMismatch
from verifier.trust.assets import Assets

SYSTEM1 = CORPUS / "system1-omni-gdn-20261003"
EXPORT = ROOT / "tests" / "data" / "hyperfine" / "export.json"


@pytest.fixture
def cli_assets(monkeypatch):
    """Return a function that makes the CLI use a given asset root."""

    def use(root: str) -> None:
        monkeypatch.setattr("verifier.core.assets", lambda _root=None: Assets(Path(root)))

    return use


def _system1(change) -> dict:
    doc = copy.deepcopy(profile_document("system1-omni-gdn"))
    change(doc)
    return doc


# ---------------------------------------------------------------- broken profiles: exit 2


def test_unknown_unit_is_refused_at_load(tmp_path, run, cli_assets):
    doc = _system1(lambda d: d["receipts"]["e2e"]["fields"]["latency"].update(unit="fortnights"))
    root = make_assets(tmp_path, {"system1-omni-gdn": doc})
    with pytest.raises(ConfigError, match="invalid profile at /receipts/e2e/fields/latency/unit: unknown unit 'fortnights'"):
        verify_path(str(SYSTEM1), asset_root=root)
    cli_assets(root)
    result = run(str(SYSTEM1))
    assert result.exit_code == 2 and "system1-omni-gdn.json" in result.stderr and "Traceback" not in result.stderr


def test_profile_failing_its_schema_is_exit_2(tmp_path, run, cli_assets):
    doc = _system1(lambda d: d["claims"][0].update(statistic="geomean"))
    cli_assets(make_assets(tmp_path, {"system1-omni-gdn": doc}))
    result = run("--profile", "system1-omni-gdn", str(SYSTEM1))
    assert result.exit_code == 2 and "invalid profile at /claims/0" in result.stderr


def test_profile_edited_after_pinning_is_exit_2(tmp_path, run, cli_assets):
    root = make_assets(tmp_path, {"system1-omni-gdn": profile_document("system1-omni-gdn")})
    path = Path(root) / "profiles" / "system1-omni-gdn.json"
    path.write_text(path.read_text().replace('"min": 2', '"min": 0.1'))
    with pytest.raises(PinMismatch):
        verify_path(str(SYSTEM1), asset_root=root)
    cli_assets(root)
    result = run(str(SYSTEM1))
    assert result.exit_code == 2 and "differs from the pin" in result.stderr


def test_unpinned_profile_is_exit_2(tmp_path):
    root = make_assets(tmp_path, {})
    shutil.copy(ROOT / "profiles" / "hyperfine.json", Path(root) / "profiles" / "hyperfine.json")
    with pytest.raises(PinMismatch, match="not pinned"):
        verify_path(str(EXPORT), asset_root=root)


def test_gate_rule_that_does_not_name_its_selection_is_refused(tmp_path):
    doc = _system1(lambda d: d["gate"]["rules"][0].pop("selection"))
    with pytest.raises(ConfigError, match="'selection' is a required property"):
        verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))


def test_gate_rule_with_an_empty_selection_is_refused(tmp_path):
    doc = _system1(lambda d: d["gate"]["rules"][0].update(selection={}))
    with pytest.raises(ConfigError, match="gate/rules/0/selection"):
        verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))


def test_gate_rule_selecting_on_an_unmapped_dimension_is_refused(tmp_path):
    doc = _system1(lambda d: d["gate"]["rules"][0].update(selection={"tokens": "936"}))
    with pytest.raises(ConfigError, match="'tokens' is not a dimension of receipt set 'e2e'"):
        verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))


def test_claim_location_placeholder_outside_per_is_refused(tmp_path):
    doc = _system1(lambda d: d["claims"][4].update(per=["server"]))  # aggregate_mean_ms points at /arms/{arm}/...
    with pytest.raises(ConfigError, match=r"placeholder \{arm\}"):
        verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))


def test_claim_naming_an_unknown_receipt_set_is_refused(tmp_path):
    doc = _system1(lambda d: d["claims"][0].update(receipts="e2e-typo"))
    with pytest.raises(ConfigError, match="unknown receipt set 'e2e-typo'"):
        verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))


def test_unknown_profile_name_is_exit_2(run):
    result = run("--profile", "no-such-profile", str(SYSTEM1))
    assert result.exit_code == 2 and "unknown profile 'no-such-profile'" in result.stderr
    assert "system1-omni-gdn" in result.stderr


# ---------------------------------------------------------------- detection


def test_several_matching_profiles_is_exit_2_listing_them(tmp_path, run, cli_assets):
    twin = copy.deepcopy(profile_document("hyperfine"))
    twin["id"] = "hyperfine-twin"
    cli_assets(make_assets(tmp_path, {"hyperfine-twin": twin}, keep_shipped=True))
    shutil.copy(EXPORT, tmp_path / "bench.json")
    result = run(str(tmp_path / "bench.json"))
    assert result.exit_code == 2 and "several profiles: hyperfine, hyperfine-twin" in result.stderr
    bundle = tmp_path / "b"
    bundle.mkdir()
    shutil.copy(EXPORT, bundle / "bench.json")
    result = run(str(bundle))
    assert result.exit_code == 2 and "several profiles match it: hyperfine, hyperfine-twin" in result.stderr


def test_no_matching_profile_runs_discovery_listing_the_shipped_ones(tmp_path):
    (tmp_path / "notes.json").write_text('{"hello": 1}')
    report = verify_path(str(tmp_path))  # discovery (issue 37), never a PASS
    assert report.kind == "discovery" and report.verdict == "INCOMPLETE"
    assert re.search("no shipped profile matches it.*criterion, google-benchmark, hyperfine, jmh, lm-eval, mlperf-inference, mlperf-training, pyperf, pytest-benchmark, sglang-bench-serving, system1-omni-gdn, vllm-omni-pr6540, vllm-omni-rankings-comparison, vllm-omni-rankings-study",
                     report.findings[0].message)


# ---------------------------------------------------------------- bundle problems: findings naming file and field


def test_receipt_missing_a_mapped_field_fails_naming_file_and_field(tmp_path, run):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "e2e/candidate-measured-2.jsonl"
    lines = (bundle / rel).read_text().split("\n")
    lines[5] = lines[5].replace('"latency_s": ', '"latency_was": ', 1)
    (bundle / rel).write_text("\n".join(lines))
    repin_files_map(bundle, rel)
    report = verify_path(str(bundle))
    (missing,) = [f for f in report.findings if f.code == "missing-field" and f.check == "schema.documents"]
    assert (missing.status, missing.path, missing.pointer, missing.expected) == ("FAIL", rel, "#line=6", "latency")
    assert "/latency_s" in missing.message
    mean = next(f for f in report.findings if f.message.startswith("pass_mean_ms[arm=candidate][server=2]"))
    assert (mean.status, mean.code) == ("FAIL", "incomplete-denominator")  # absence is not zero
    result = run(str(bundle))
    assert result.exit_code == 1 and "Traceback" not in result.stdout + result.stderr


def test_glob_matching_nothing_is_unverified_naming_the_glob(tmp_path):
    doc = _system1(lambda d: d["receipts"]["e2e"].update(glob="e2e/*-measured-*.json"))
    report = verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))
    (empty,) = [f for f in report.findings if f.code == "no-receipts" and f.check == "schema.documents"]
    assert empty.status == "UNVERIFIED" and empty.path == "e2e/*-measured-*.json"
    assert all(f.status == "UNVERIFIED" for f in report.findings if f.message.startswith("pass_mean_ms"))
    gate = [f for f in report.findings if f.check == "gate.rules"]
    assert gate and all(f.status != "PASS" for f in gate)


def test_receipt_that_is_not_strict_json_is_unverified_naming_the_file(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "e2e/baseline-measured-2.jsonl"
    (bundle / rel).write_text((bundle / rel).read_text().replace('"latency_s": ', '"latency_s": NaN, "x": ', 1))
    repin_files_map(bundle, rel)
    report = verify_path(str(bundle))
    (bad,) = [f for f in report.findings if f.code == "unreadable-receipt"]
    # issue 11: we could not read it, which is not evidence against a claim (UNVERIFIED, never FAIL)
    assert bad.status == "UNVERIFIED" and bad.path == rel and "non-finite" in bad.message


def test_receipt_file_not_matching_its_name_template_fails(tmp_path):
    doc = _system1(lambda d: d["receipts"]["e2e"].update(glob="e2e/*.jsonl"))
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"]["e2e/baseline-1.jsonl"] = manifest["files"].pop("e2e/baseline-measured-1.jsonl")
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    (bundle / "e2e/baseline-measured-1.jsonl").rename(bundle / "e2e/baseline-1.jsonl")
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))
    (bad,) = [f for f in report.findings if f.code == "name-mismatch"]
    assert bad.status == "FAIL" and bad.path == "e2e/baseline-1.jsonl"


def test_unlisted_file_in_a_files_map_bundle_fails(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    (bundle / "e2e" / "extra.jsonl").write_text("{}\n")
    report = verify_path(str(bundle))
    assert any(f.code == "unlisted-file" and f.path == "e2e/extra.jsonl" and f.status == "FAIL" for f in report.findings)


def test_symlinked_receipt_is_never_read(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = bundle / "e2e/candidate-measured-1.jsonl"
    outside = tmp_path / "outside.jsonl"
    rel.rename(outside)
    rel.symlink_to(outside)
    report = verify_path(str(bundle))
    # one integrity road: a symlink is reported as such (as in a native bundle), never followed, never hashed
    assert any(f.check == "integrity.files" and f.code == "symlink-escape" and f.path == "e2e/candidate-measured-1.jsonl"
               for f in report.findings)
    assert not any(f.path == "e2e/candidate-measured-1.jsonl" and f.code in ("mapped", "match") for f in report.findings)


def test_time_statistic_without_a_unit_is_refused(tmp_path):
    doc = _system1(lambda d: d["claims"][0].pop("unit"))
    with pytest.raises(ConfigError, match="invalid profile at /claims/0: 'unit' is a required property"):
        verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))


def test_threshold_rule_with_per_is_judged_on_every_instance(tmp_path):
    def change(d):
        d["gate"]["rules"].append({"id": "kernel-reduction-at-least-5pct-per-shape", "receipts": "kernel",
                                   "statistic": "relative_reduction_pct", "baseline": "baseline", "candidate": "candidate",
                                   "selection": {"phase": "measured"}, "per": ["tokens"], "min": 5})
    report = verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": _system1(change)}))
    (rule,) = [f for f in report.findings if f.message.startswith("kernel-reduction-at-least-5pct-per-shape")]
    assert rule.status == "FAIL"  # 107 tokens: about 0.39 %; 936 and 3399 tokens: about 13 %
    assert set(rule.observed) == {"tokens=107", "tokens=936", "tokens=3399"}
    assert Decimal(rule.observed["tokens=936"]) > 13


def test_json_report_of_a_profile_run_validates_against_the_report_schema():
    from verifier.report import render
    from verifier.trust.assets import assets, schema_validator

    report = verify_path(str(SYSTEM1))
    document = json.loads(render(report, "json"))
    errors = list(schema_validator(assets().schema("report")).iter_errors(document))
    assert not errors, errors[0].message
    assert document["kind"] == "profile:system1-omni-gdn" and document["verdict"] == "FAIL"


def test_receipt_file_missing_altogether_fails_the_file_count(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    manifest = json.loads((bundle / "manifest.json").read_text())
    del manifest["files"]["e2e/candidate-measured-2.jsonl"]
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    (bundle / "e2e/candidate-measured-2.jsonl").unlink()
    report = verify_path(str(bundle))
    (count,) = [f for f in report.findings if f.code == "file-count"]
    assert count.status == "FAIL" and count.path == "e2e/*-measured-*.jsonl" and "matches 3 file(s)" in count.message


def test_no_finding_is_an_error_on_malformed_bundle_documents(tmp_path):
    corruptions = {
        "e2e/summary.json": lambda t: "[]",
        "e2e/baseline-measured-1.jsonl": lambda t: '"x"\n' + t,
        "e2e/baseline-measured-2.jsonl": lambda t: t.replace('"latency_s": ', '"latency_s": "abc", "y": ', 1),
        "kernel/analysis/results.jsonl": lambda t: t.replace('"pass": 1', '"pass": null'),
        "kernel/analysis/summary.json": lambda t: t.replace('"tokens": 936', '"tokens": 107'),
    }
    for index, (rel, change) in enumerate(corruptions.items()):
        bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path / str(index))
        (bundle / rel).write_text(change((bundle / rel).read_text()))
        repin_files_map(bundle, rel)
        report = verify_path(str(bundle), profile="system1-omni-gdn")
        assert report.verdict == "FAIL", rel
        assert not [f for f in report.findings if f.status == "ERROR"], rel


@pytest.mark.parametrize("edit,pointer", [
    (lambda i: i["left"].update(unit="s"), "/identities/0/left/unit"),
    (lambda i: i["left"].pop("unit"), "/identities/0/left/unit"),
    (lambda i: i["terms"][1].update(unit="s"), "/identities/0/terms/1/unit"),
])
def test_a_percentage_identity_not_in_percent_of_counts_is_refused_at_load(tmp_path, edit, pointer):
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import TrustSet

    doc = copy.deepcopy(profile_document("mlperf-inference"))
    doc["id"] = "mlperf-pct-draft"
    edit(doc["identities"][0])
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(doc))
    with pytest.raises(ConfigError, match=f"draft.json: invalid profile at {pointer}: "):
        TrustSet(assets()).add_unpinned_profile(draft)


def test_a_misspelled_gate_bound_names_the_forms_and_the_stray_member(tmp_path):
    """A newcomer's `mni` for `min` read '{...whole rule with Decimal('1.1')...} is not valid under any of the given schemas'."""
    from conftest import profile_document

    from verifier.errors import ConfigError
    from verifier.profiles.language import load_profile
    from verifier.trust.assets import assets

    doc = profile_document("system1-omni-gdn")
    doc["gate"]["rules"][0]["mni"] = doc["gate"]["rules"][0].pop("min")
    with pytest.raises(ConfigError) as err:
        load_profile(doc, assets().schema("profile"), origin="draft.json")
    assert str(err.value) == ("draft.json: invalid profile at /gate/rules/0: it states none of `below_baseline`, `bounds_at`, `max`, `min` "
                              "(one of them is required); Unevaluated properties are not allowed ('mni' was unexpected)")


@pytest.mark.parametrize("edit, pointer", [
    (lambda d: d["claim_documents"][0].__setitem__("file", "../../outside/results.json"), "/claim_documents/0/file"),
    (lambda d: d["receipts"]["runs"].__setitem__("glob", "tools/../../*.json"), "/receipts/runs/glob"),
    (lambda d: d["detect"].__setitem__("files", ["a.json", ".."]), "/detect/files/1"),
])
def test_a_path_leaving_the_folder_is_refused_when_the_profile_loads(edit, pointer):
    """A newcomer's `at.file: ../../outside/results.json` loaded, then read 'claim file cannot be read' without the reason."""
    from conftest import profile_document

    from verifier.errors import ConfigError
    from verifier.profiles.language import load_profile
    from verifier.trust.assets import assets

    doc = profile_document("hyperfine")
    edit(doc)
    with pytest.raises(ConfigError, match=f"draft.json: invalid profile at {pointer}: .* has a '..' segment"):
        load_profile(doc, assets().schema("profile"), origin="draft.json")


# ---------------------------------------------------------------- detection reads only the detection members


def test_a_profile_broken_outside_its_detection_is_exit_2_only_for_what_it_reads(tmp_path, run, cli_assets):
    broken = copy.deepcopy(profile_document("hyperfine"))
    broken["claims"][0]["statistic"] = "geomean"
    root = make_assets(tmp_path, {"system1-omni-gdn": profile_document("system1-omni-gdn"), "hyperfine": broken})
    assert verify_path(str(SYSTEM1), asset_root=root).exit_code == 1  # the GDN bundle's own verdict, as with every profile intact
    with pytest.raises(ConfigError, match=r"hyperfine\.json: invalid profile at /claims/0"):
        verify_path(str(EXPORT), asset_root=root)
    cli_assets(root)
    result = run(str(EXPORT))
    assert result.exit_code == 2 and "hyperfine.json: invalid profile at /claims/0" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("detect", "where"), [({"files": ["summary.json"], "glob": 3}, "/detect/glob"),
                                               ({"files": ["../outside.json"]}, "/detect/files/0"),
                                               ({"pointers": [{"pointer": "/a", "glob": "*.json"}]}, "/detect/pointers/0")])
def test_a_profile_whose_detection_is_broken_is_exit_2_for_every_detected_run(tmp_path, run, cli_assets, detect, where):
    broken = copy.deepcopy(profile_document("hyperfine"))
    broken["detect"] = detect
    root = make_assets(tmp_path, {"system1-omni-gdn": profile_document("system1-omni-gdn"), "hyperfine": broken})
    with pytest.raises(ConfigError, match=rf"hyperfine\.json: invalid profile at {where}"):
        verify_path(str(SYSTEM1), asset_root=root)
    cli_assets(root)
    result = run(str(SYSTEM1))
    assert result.exit_code == 2 and f"hyperfine.json: invalid profile at {where}" in result.stderr and "Traceback" not in result.stderr


def test_detection_reads_the_detection_members_of_every_profile_and_validates_one_whole(tmp_path, monkeypatch):
    from verifier.profiles import language as profiles

    loaded = []
    monkeypatch.setattr("verifier.trust.assets.load_profile", lambda doc, *a, **k: loaded.append(doc["id"]) or profiles.load_profile(doc, *a, **k))
    root = make_assets(tmp_path, {}, keep_shipped=True)
    verify_path(str(SYSTEM1), asset_root=root)
    verify_path(str(ROOT / "tests" / "data" / "mlperf-inference"), asset_root=root)  # no manifest.json: `folders.not_one_bundle` detects too
    assert loaded == ["system1-omni-gdn", "mlperf-inference"]
