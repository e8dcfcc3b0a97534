"""
The `mlperf-inference` profile reads every LoadGen scenario, not only Offline.

A real MLPerf results tree (mlcommons' unofficial v5.0 submissions, read at
commit 73228d45) publishes Server rows in `Queries/s`, SingleStream and
MultiStream rows in `Latency (ms)` (LoadGen's early-stopping estimate), writes
the scenario as `Offline`/`SingleStream` for the directories `offline/` and
`singlestream/`, and its MultiStream summaries print per-query latencies (the
detail log's `result_*_query_latency_ns`, not its per-sample
`result_*_latency_ns`). The corpus tree has Offline rows only, so the tree
here is written in the shape of that real one: one platform, resnet50, the
four scenarios, with the figures of its open-division RTX4090x1 rows.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import profile_document
from helpers import by_check, one_claim, write_tree

from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.readers.grammars import parse
from verifier.profiles.language import load_profile
from verifier.trust.assets import assets as shipped_assets
from verifier.model.units import unit_in_label

ROW = "open/MLCommons/results/demo-sut/{model}/{scenario}"
LATENCIES = ("Min latency (ns)", "Max latency (ns)", "Mean latency (ns)", "50.00 percentile latency (ns)", "90.00 percentile latency (ns)",
             "95.00 percentile latency (ns)", "97.00 percentile latency (ns)", "99.00 percentile latency (ns)", "99.90 percentile latency (ns)")
PER_SAMPLE = ("result_min_latency_ns", "result_max_latency_ns", "result_mean_latency_ns", "result_50.00_percentile_latency_ns",
              "result_90.00_percentile_latency_ns", "result_95.00_percentile_latency_ns", "result_97.00_percentile_latency_ns",
              "result_99.00_percentile_latency_ns", "result_99.90_percentile_latency_ns")
PER_QUERY = ("result_min_query_latency_ns", "result_max_query_latency_ns", "result_mean_query_latency_ns",
             "result_50.00_percentile_per_query_latency_ns", "result_90.00_percentile_per_query_latency_ns",
             "result_95.00_percentile_per_query_latency_ns", "result_97.00_percentile_per_query_latency_ns",
             "result_99.00_percentile_per_query_latency_ns", "result_99.90_percentile_per_query_latency_ns")
#: scenario directory -> (the table's Scenario, Result, Units, LoadGen's headline summary line, detail entries that give it)
SCENARIOS = {
    "offline": ("Offline", "44252.9", "Samples/s", "Samples per second : 44252.9", {"result_samples_per_second": 44252.9}),
    "server": ("Server", "637.535", "Queries/s", "Completed samples per second    : 637.54\nScheduled samples per second : 637.55",
               {"result_completed_samples_per_sec": 637.535, "result_scheduled_samples_per_sec": 637.547}),
    "singlestream": ("SingleStream", "0.283089", "Latency (ms)", "90th percentile latency (ns) : 282000",
                     {"early_stopping_latency_ss": 283089, "early_stopping_latency_ms": 290000}),
    "multistream": ("MultiStream", "0.498402", "Latency (ms)", "99th percentile latency (ns) : 497000", {"early_stopping_latency_ms": 498402}),
}
COLUMNS = ("Organization", "Division", "Platform", "Model", "Scenario", "Result", "Accuracy", "Units")


def _summary(scenario: str) -> str:
    headline = SCENARIOS[scenario][3]
    lines = ["=" * 48, "MLPerf Results Summary", "=" * 48, f"Scenario : {SCENARIOS[scenario][0]}", "Mode     : PerformanceOnly",
             headline, "Result is : VALID", "", "Additional Stats"]
    if scenario == "multistream":
        lines.append("Per-query latency:  ")
    lines += [f"{name:<32}: {400000 + 1000 * i}" for i, name in enumerate(LATENCIES)]
    return "\n".join(lines) + "\n"


def _detail(scenario: str) -> str:
    entries: dict[str, object] = {"result_validity": "VALID", **SCENARIOS[scenario][4]}
    if scenario == "multistream":  # per-query figures are the summary's; per-sample ones differ
        entries.update({k: 400000 + 1000 * i for i, k in enumerate(PER_QUERY)})
        entries.update({k: 300000 + 1000 * i for i, k in enumerate(PER_SAMPLE)})
    else:
        entries.update({k: 400000 + 1000 * i for i, k in enumerate(PER_SAMPLE)})
    return "".join(f':::MLLOG {json.dumps({"key": k, "value": v, "time_ms": 1.0})}\n' for k, v in entries.items())


def _rows() -> list[dict[str, str]]:
    return [{"Organization": "MLCommons", "Division": "open", "Platform": "demo-sut", "Model": "resnet50", "Scenario": table,
             "Result": result, "Accuracy": "acc: 76.078", "Units": units} for table, result, units, _h, _d in SCENARIOS.values()]


def write_mlperf_tree(root: Path, rows: list[dict[str, str]] | None = None, *, model: str = "resnet50",
                      accuracy: str = "accuracy=76.078%, good=38039, total=50000\n") -> Path:
    """Write a results tree of the four LoadGen scenarios of `model`, with its table as summary.json, summary.csv and README.md; return `root`."""
    rows = _rows() if rows is None else rows
    files: dict[str, str] = {}
    for scenario in SCENARIOS:
        base = ROW.format(model=model, scenario=scenario)
        files[f"{base}/performance/run_1/mlperf_log_summary.txt"] = _summary(scenario)
        files[f"{base}/performance/run_1/mlperf_log_detail.txt"] = _detail(scenario)
        files[f"{base}/accuracy/accuracy.txt"] = accuracy
    files["summary.json"] = json.dumps({str(i): {**r, "MlperfModel": r["Model"]} for i, r in enumerate(rows)}, indent=4)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, quoting=csv.QUOTE_ALL, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    files["summary.csv"] = out.getvalue()
    files["README.md"] = "\n".join(["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
                                   + ["| " + " | ".join(r[c] for c in COLUMNS) + " |" for r in rows]) + "\n"
    return write_tree(root, files)


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    return verify_path(str(write_mlperf_tree(tmp_path_factory.mktemp("mlperf4"))))


def test_every_scenario_result_re_derives_in_its_units_in_all_three_copies(four):
    assert four.kind == "profile:mlperf-inference"
    for prefix in ("", "csv.", "readme."):
        for scenario, (_t, result, units, _h, _d) in SCENARIOS.items():
            label = f"{prefix}Result{'' if scenario == 'offline' else '.' + scenario}[division=open][org=MLCommons][platform=demo-sut][model=resnet50][scenario={scenario}]"
            f = one_claim(four, label)
            shown = "ms" if units == "Latency (ms)" else units
            assert f.status == "PASS" and f"stated {result} {shown}" in f.message, f.message
    assert not [f for f in four.findings if f.status in ("FAIL", "ERROR")], [f.message for f in four.findings if f.status in ("FAIL", "ERROR")]


def test_multistream_summaries_are_joined_to_the_per_query_latencies(four):
    query = [f for f in by_check(four, "derivation.matches") if "-query-latency-" in f.message]
    assert len(query) == 9 and all(f.status == "PASS" and "multistream" in f.path for f in query), [f.message for f in query]
    sample = [f for f in by_check(four, "derivation.matches") if "-latency-equals" in f.message and "-query-" not in f.message]
    assert len(sample) == 27 and not [f for f in sample if "multistream" in f.path]


@pytest.mark.parametrize("scenario, bad", [("singlestream", "0.283088"), ("multistream", "0.498403"), ("server", "637.536")])
def test_a_scenario_result_changed_in_its_last_place_fails(tmp_path, scenario, bad):
    rows = _rows()
    rows[list(SCENARIOS).index(scenario)]["Result"] = bad
    report = verify_path(str(write_mlperf_tree(tmp_path, rows)))
    f = one_claim(report, f"Result.{scenario}[division=open][org=MLCommons][platform=demo-sut][model=resnet50][scenario={scenario}]")
    assert f.status == "FAIL" and f.code == "claim-mismatch" and report.verdict == "FAIL", f.message


def test_a_multistream_summary_latency_that_is_not_the_per_query_one_fails(tmp_path):
    root = write_mlperf_tree(tmp_path)
    summary = root / ROW.format(model="resnet50", scenario="multistream") / "performance/run_1/mlperf_log_summary.txt"
    summary.write_text(summary.read_text().replace("Mean latency (ns)               : 402000", "Mean latency (ns)               : 302000"))
    report = verify_path(str(root))
    bad = [f for f in by_check(report, "derivation.matches") if f.status == "FAIL"]
    assert [f.message.split(":")[0] for f in bad] == ["summary-mean-query-latency-equals-the-detail-log"], [f.message for f in bad]


def test_a_latency_figure_stated_in_samples_per_second_fails_as_a_unit_mismatch(tmp_path):
    rows = _rows()
    rows[2]["Units"] = "Samples/s"
    report = verify_path(str(write_mlperf_tree(tmp_path, rows)))
    f = one_claim(report, "Result.singlestream[division=open][org=MLCommons][platform=demo-sut][model=resnet50][scenario=singlestream]")
    assert f.status == "FAIL" and f.code == "unit-mismatch", f.message


def test_without_fold_case_a_capitalised_scenario_is_not_found(tmp_path):
    """The table writes `SingleStream` for the directory `singlestream/`: only `fold_case` finds the row."""
    profile = profile_document("mlperf-inference")
    for claim in profile["claims"]:
        claim["at"].pop("fold_case", None)
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({**profile, "id": "mlperf-draft"}))
    report = verify_path(str(write_mlperf_tree(tmp_path / "tree")), profile=str(draft))
    assert by_check(report, "derivation.claims", "claim-missing")
    assert not by_check(verify_path(str(tmp_path / "tree")), "derivation.claims", "claim-missing")


def test_fold_case_must_name_a_member_the_location_compares(tmp_path):
    profile = profile_document("mlperf-inference")
    profile["claims"][0]["at"]["fold_case"] = ["Senario"]
    with pytest.raises(ConfigError, match=r"/claims/0/at/fold_case: 'Senario' is not a member its `where` compares"):
        load_profile(profile, shipped_assets().schema("profile"), origin="draft.json")


def test_a_match_selects_only_dimensions_of_its_receipt_set(tmp_path):
    profile = profile_document("mlperf-inference")
    profile["matches"][0]["selection"] = {"senario": ["offline"]}
    with pytest.raises(ConfigError, match=r"/matches/0/selection/senario: 'senario' is not a dimension of receipt set 'performance'"):
        load_profile(profile, shipped_assets().schema("profile"), origin="draft.json")


@pytest.mark.parametrize("text, unit", [("Latency (ms)", "ms"), ("Mean latency (ns)", "ns"), ("Queries/s", "Queries/s"),
                                        ("Latency (parsecs)", "Latency (parsecs)"), ("(ms)", "(ms)"), ("a (b) (ms)", "a (b) (ms)")])
def test_a_unit_label_gives_the_unit_in_its_parentheses(text, unit):
    assert unit_in_label(text) == unit


@pytest.mark.parametrize("line, members", [
    ("Accuracy Results: {'FID_SCORE': '23.5', 'CLIP_SCORE': '31.2'}", {"FID_SCORE": "23.5", "CLIP_SCORE": "31.2"}),
    ("{'rouge1': 31.5}", {"rouge1": "31.5"}),
    ("No cached features at '/x/y.pickle'... converting {", None),
    ("Accuracy Results: {'a': __import__('os')}", None),
])
def test_a_python_dict_line_may_follow_a_label(line, members):
    records = parse(line.encode() + b"\n", {"encoding": "text", "lines": ["python-dict"]})
    got = {k: str(v) for k, v in records[0][1].items() if not k.startswith("#")} if records and records[0][1] else None
    assert (got or None) == members


def test_the_tree_states_no_number_that_is_left_unchecked(four):
    assert not [f for f in four.findings if f.status == "UNVERIFIED" and f.check in ("derivation.claims", "claims.coverage", "derivation.matches")], \
        [f.message for f in four.findings if f.status == "UNVERIFIED"]


def test_a_row_no_claim_selects_is_reported_unchecked_never_dropped(tmp_path):
    """A row whose scenario no `Result` claim selects ("Ofline") is no claim's value: claims.coverage reports its numbers."""
    rows = _rows() + [{**_rows()[0], "Scenario": "Ofline", "Result": "44252.8"}]
    report = verify_path(str(write_mlperf_tree(tmp_path, rows)))
    unchecked = [f for f in by_check(report, "claims.coverage", "unchecked-claim") if f.pointer.endswith("/Result")]
    assert sorted(f.path for f in unchecked) == ["README.md", "summary.csv", "summary.json"], [f.message for f in unchecked]
    assert report.verdict == "INCOMPLETE"


def test_fold_case_compares_the_instance_value_casefolded_too(tmp_path):
    """Forwards, the instance's own spelling is casefolded as well: `SingleStream` finds the row `singlestream`."""
    from verifier.readers.sites import locate
    from verifier.readers.tree import Tree

    write_tree(tmp_path, {"t.json": json.dumps([{"Scenario": "offline", "R": 1}, {"Scenario": "singlestream", "R": 2}])})
    at = {"file": "t.json", "pointer": "", "where": {"Scenario": "{scenario}"}, "then": "/R", "fold_case": ["Scenario"]}
    tree = Tree(root=tmp_path)
    documents = {"t.json": tree.json("t.json")}
    assert locate(tree, documents, at, {"scenario": "SingleStream"}, {}) == ("t.json", "/1/R", 2)
    with pytest.raises(LookupError):
        locate(Tree(root=tmp_path), documents, {**at, "fold_case": []}, {"scenario": "SingleStream"}, {})


def test_a_row_without_receipts_is_read_back_under_its_scenario_claim_once(tmp_path):
    """A table row for a run this tree lacks (`SingleStream` of another platform) is that scenario's claim, UNVERIFIED once."""
    rows = _rows() + [{**_rows()[2], "Platform": "other-sut", "Result": "1.5"}]
    report = verify_path(str(write_mlperf_tree(tmp_path, rows)))
    about = [f for f in report.findings if f.path == "summary.json" and (f.pointer or "").startswith("/4/Result")]
    assert [(f.check, f.status, f.code) for f in about] == [("derivation.claims", "UNVERIFIED", "receipt-absent")], [f.message for f in about]
    assert about[0].message.startswith("Result.singlestream[division=open][org=MLCommons][platform=other-sut][model=resnet50][scenario=singlestream]")


def test_two_rows_for_one_run_fail_once_and_are_not_also_unchecked(tmp_path):
    # one row the table states twice (equal but for the value read) is the evidence's fault: FAIL claim-missing, once; several
    # different rows matching a `where` are the profile's (UNVERIFIED ambiguous-location, tests/profiles/test_profiles_trial38c.py)
    rows = _rows() + [dict(_rows()[0])]
    report = verify_path(str(write_mlperf_tree(tmp_path, rows)))
    missing = [f for f in by_check(report, "derivation.claims", "claim-missing") if f.path == "summary.json" and "Result[" in f.message]
    assert len(missing) == 1 and "2 elements" in missing[0].message, [f.message for f in missing]
    assert not [f for f in by_check(report, "claims.coverage", "unchecked-claim") if (f.pointer or "").endswith("/Result")]


def test_a_claim_document_larger_than_a_page_may_be_is_unread_and_named(tmp_path):
    from verifier.readers.tree import MAX_PAGE_BYTES

    root = write_mlperf_tree(tmp_path)
    readme = root / "README.md"
    readme.write_text(readme.read_text() + "\n" + "x" * MAX_PAGE_BYTES + "\n")
    report = verify_path(str(root))
    about = [f for f in by_check(report, "claims.coverage") if f.path == "README.md"]
    assert [(f.status, f.code) for f in about] == [("UNVERIFIED", "claim-unreadable")] and "more than the 4 MiB" in about[0].message
    assert {f.status for f in by_check(report, "derivation.claims") if f.path == "README.md"} == {"UNVERIFIED"}
    assert report.verdict == "INCOMPLETE"


def test_a_claim_document_stating_too_many_numbers_is_one_finding(tmp_path):
    from verifier.readers.claimdocs import MAX_STATED

    root = write_mlperf_tree(tmp_path)
    readme = root / "README.md"
    readme.write_text(readme.read_text() + "\n" + "1 " * MAX_STATED + "\n")
    report = verify_path(str(root))
    about = [(f.status, f.code) for f in by_check(report, "claims.coverage") if f.path == "README.md"]
    assert about == [("UNVERIFIED", "too-many-numbers")]


def test_a_long_unchecked_number_is_shown_shortened(tmp_path):
    rows = _rows()
    rows[0]["Extra"] = "7" * 5000
    report = verify_path(str(write_mlperf_tree(tmp_path, rows)))
    long = [f for f in by_check(report, "claims.coverage", "unchecked-claim") if f.path == "summary.json"]
    assert len(long) == 1 and "(5000 characters)" in long[0].message and len(long[0].message) < 300, long[0].message[:300]


def test_a_claim_document_may_state_exactly_max_stated_numbers(tmp_path, monkeypatch):
    from verifier.readers import claimdocs
    from verifier.readers.tree import Tree

    write_tree(tmp_path, {"doc.json": json.dumps({"a": [1, 2, 3], "ok": True})})
    monkeypatch.setattr(claimdocs, "MAX_STATED", 4)
    read = claimdocs.read_claim_documents(Tree(root=tmp_path), [{"file": "doc.json"}])
    assert (len(read.claims), len(read.outcomes), read.unmapped) == (3, 1, ())
    monkeypatch.setattr(claimdocs, "MAX_STATED", 3)
    read = claimdocs.read_claim_documents(Tree(root=tmp_path), [{"file": "doc.json"}])
    assert (read.claims, [u.code for u in read.unmapped]) == ((), ["too-many-numbers"])


def test_a_csv_starting_with_a_byte_order_mark_names_its_first_column_plainly():
    """Spreadsheet programs write a UTF-8 BOM; it is not part of the first header (a newcomer's CSV FAILed missing-field)."""
    assert parse(b"\xef\xbb\xbfid,ms\n1,2\n", {"encoding": "csv"}) == parse(b"id,ms\n1,2\n", {"encoding": "csv"})
    assert "id" in parse(b"\xef\xbb\xbfid,ms\n1,2\n", {"encoding": "csv"})[0][1]


def test_a_receipt_figure_of_5000_digits_is_not_derived_from(tmp_path):
    """A newcomer's CSV latency of 5000 digits was derived from and PASSed a gate; in JSON it was refused as out of range."""
    huge = "9" * 5000
    rows = _rows()
    rows[0]["Result"] = huge
    root = write_mlperf_tree(tmp_path, rows)
    summary = root / ROW.format(model="resnet50", scenario="offline") / "performance/run_1/mlperf_log_summary.txt"
    summary.write_text(summary.read_text().replace("Samples per second : 44252.9", f"Samples per second : {huge}"))
    report = verify_path(str(root))
    f = one_claim(report, "Result[division=open][org=MLCommons][platform=demo-sut][model=resnet50][scenario=offline]")
    assert f.status != "PASS", f.message
    (bad,) = by_check(report, "schema.documents", "number-out-of-range")
    assert bad.status == "UNVERIFIED" and "(5000 characters)" in bad.message and len(bad.message) < 400


def test_a_server_summary_printed_with_two_decimals_is_joined_at_its_precision(four):
    """LoadGen's summary prints 637.54 of the detail log's 637.535 (the real tree's retinanet Server row): equal at 0.005."""
    joins = [f for f in by_check(four, "derivation.matches") if "samples-per-second" in f.message and "server" in f.path]
    assert sorted((f.status, f.message.split(":")[0]) for f in joins) == [
        ("PASS", "summary-completed-samples-per-second-equals-the-detail-log"), ("PASS", "summary-scheduled-samples-per-second-equals-the-detail-log")]


@pytest.mark.parametrize("printed", ["637.52", "637.55"])
def test_a_server_summary_off_by_more_than_its_last_place_fails(tmp_path, printed):
    root = write_mlperf_tree(tmp_path)
    summary = root / ROW.format(model="resnet50", scenario="server") / "performance/run_1/mlperf_log_summary.txt"
    summary.write_text(summary.read_text().replace("Completed samples per second    : 637.54", f"Completed samples per second    : {printed}"))
    report = verify_path(str(root))
    bad = [f.message.split(":")[0] for f in by_check(report, "derivation.matches") if f.status == "FAIL"]
    assert bad == ["summary-completed-samples-per-second-equals-the-detail-log"] and report.verdict == "FAIL"


def test_a_detail_figure_beyond_the_printed_precision_fails_the_server_join(tmp_path):
    root = write_mlperf_tree(tmp_path)
    detail = root / ROW.format(model="resnet50", scenario="server") / "performance/run_1/mlperf_log_detail.txt"
    detail.write_text(detail.read_text().replace('"value": 637.535', '"value": 637.532'))  # 637.54 printed: 0.008 off, beyond 0.005
    bad = [f.message.split(":")[0] for f in by_check(verify_path(str(root)), "derivation.matches") if f.status == "FAIL"]
    assert bad == ["summary-completed-samples-per-second-equals-the-detail-log"]


def test_joins_without_precision_stay_exact(tmp_path):
    root = write_mlperf_tree(tmp_path)
    detail = root / ROW.format(model="resnet50", scenario="offline") / "performance/run_1/mlperf_log_detail.txt"
    detail.write_text(detail.read_text().replace('"value": 44252.9', '"value": 44252.94'))  # within the summary's last place, but not equal
    bad = [f.message.split(":")[0] for f in by_check(verify_path(str(root)), "derivation.matches") if f.status == "FAIL"]
    assert bad == ["summary-samples-per-second-equals-the-detail-log"]


def test_a_log_printing_fewer_digits_than_the_summary_is_joined_at_the_log_s_precision(tmp_path):
    """The real tree's resnet50 Server row: the summary prints 35342.64, the detail log 35342.6 (six significant digits)."""
    root = write_mlperf_tree(tmp_path)
    run = root / ROW.format(model="resnet50", scenario="server") / "performance/run_1"
    (run / "mlperf_log_summary.txt").write_text((run / "mlperf_log_summary.txt").read_text().replace(
        "Scheduled samples per second : 637.55", "Scheduled samples per second : 35342.64"))
    (run / "mlperf_log_detail.txt").write_text((run / "mlperf_log_detail.txt").read_text().replace('"value": 637.547', '"value": 35342.6'))
    joins = [f for f in by_check(verify_path(str(root)), "derivation.matches") if f.message.startswith("summary-scheduled")]
    assert [f.status for f in joins] == ["PASS"], [f.message for f in joins]


@pytest.mark.parametrize("stated, status", [("0.86236", "PASS"), ("0.86237", "FAIL")])
def test_3d_unet_dice_is_read_from_its_labelled_assignment_line(tmp_path, stated, status):
    """3d-unet's accuracy script writes `Accuracy: mean = 0.86236, kidney = 0.9350, tumor = 0.7897`; the table `DICE: 0.86236`."""
    rows = [{**r, "Model": "3d-unet-99", "Accuracy": f"DICE: {stated}"} for r in _rows()]
    root = write_mlperf_tree(tmp_path, rows, model="3d-unet-99",
                             accuracy="Processing evaluation summary...\nAccuracy: mean = 0.86236, kidney = 0.9350, tumor = 0.7897\nDone!\n")
    report = verify_path(str(root))
    f = one_claim(report, "Accuracy.DICE[division=open][org=MLCommons][platform=demo-sut][model=3d-unet-99][scenario=offline]")
    assert f.status == status, f.message
    assert not by_check(report, "claims.coverage", "unchecked-claim")


@pytest.mark.parametrize("line, members", [
    ("Accuracy: mean = 0.86236, kidney = 0.9350", {"mean": "0.86236", "kidney": "0.9350"}),
    ("accuracy=76.000%, good=380, total=500", {"accuracy": "76.000%", "good": "380", "total": "500"}),
    ("Reading examples...", None),
    ("No cached features at '/x': converting", None),
])
def test_an_assignments_line_may_follow_a_label(line, members):
    records = parse(line.encode() + b"\n", {"encoding": "text", "lines": ["assignments"]})
    got = {k: v for k, v in records[0][1].items() if not k.startswith("#")} if records else {}
    assert (got or None) == members
