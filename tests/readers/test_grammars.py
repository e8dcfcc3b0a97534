"""Issue 11: the grammars profiles read foreign files with, tested on real corpus files (read in place) and on inputs that must be refused."""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import CORPUS

from verifier.readers.grammars import GrammarError, parse, unpivot
from verifier.formats.textnumbers import quantity
from verifier.readers.mdtables import markdown_tables

MLPERF = CORPUS / "mlperf-inference-test-submissions-v5.0"
MIXTRAL = MLPERF / "open/MLCommons/results/gh_action-reference-cpu-pytorch_v2.6.0-default_config/mixtral-8x7b/offline"
RESNET = MLPERF / "open/MLCommons/results/gh_macos-latest_x86-mlcommons_cpp-cpu-onnxruntime-default_config/resnet50/offline"
H3 = CORPUS / "vllm-omni-rankings-h3-online-fp8"
TEXT = {"encoding": "text", "lines": ["json-object", "python-dict", "assignments", "key-value"]}


def test_key_value_summary_reads_loadgen_numbers_with_their_keys():
    ((loc, record),) = parse((MIXTRAL / "performance/run_1/mlperf_log_summary.txt").read_bytes(), {"encoding": "text", "lines": ["key-value"]})
    assert loc == ""
    assert record["Samples per second"] == "0.000195653"
    assert record["Tokens per second"] == "0.0148696"
    assert record["Mean latency (ns)"] == "10388329323290"
    assert record["99.90 percentile latency (ns)"] == "15333278355759"
    assert record["Scenario"] == "Offline"


def test_prefixed_json_lines_fold_into_one_record():
    spec = {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::MLLOG ", "fold": {"key": "/key", "value": "/value"}}
    ((_, record),) = parse((MIXTRAL / "performance/run_1/mlperf_log_detail.txt").read_bytes(), spec)
    assert record["result_tokens_per_second"] == Decimal("0.0148696")
    assert record["result_samples_per_second"] == Decimal("0.000195653")
    assert record["result_validity"] == "VALID"


def test_python_dict_and_hash_lines_of_an_accuracy_output():
    ((_, record),) = parse((MIXTRAL / "accuracy/accuracy.txt").read_bytes(), TEXT)
    assert record["rouge1"] == Decimal("31.4286")
    assert record["tokens_per_sample"] == Decimal("152.0")
    assert record["gen_num"] == 3
    assert len(record["hash"]) == 64


def test_assignments_line_of_a_resnet_accuracy_output():
    ((_, record),) = parse((RESNET / "accuracy/accuracy.txt").read_bytes(), TEXT)
    assert record["accuracy"] == "76.000%"
    assert (record["good"], record["total"]) == ("380", "500")
    assert quantity(record["accuracy"]) == (Decimal("76.000"), "%")


def test_python_literal_is_never_evaluated():
    ((_, record),) = parse(b"{'a': __import__('os').getcwd()}\nx: 1\n", TEXT)
    assert record == {"x": "1"}


def test_member_stated_twice_with_different_values_is_left_out_and_named():
    ((_, record),) = parse(b"Samples per second: 1.5\nSamples per second: 2.5\nScenario: Offline\n", {"encoding": "text", "lines": ["key-value"]})
    assert "Samples per second" not in record
    assert record["#conflicts"] == {"Samples per second": [1, 2]} and record["Scenario"] == "Offline"


def test_bad_prefixed_line_is_a_grammar_error():
    with pytest.raises(GrammarError):
        parse(b':::MLLOG {"key": "a", "value": 1\n', {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::MLLOG "})


def test_one_json_object_per_file_is_one_record():
    ((loc, record),) = parse((H3 / "measurements/bf16/t2va.time.json").read_bytes(), {"encoding": "json"})
    assert loc == "" and record["wall_time_s"] == Decimal("65.603885312") and record["started_ns"] == 1786112554835154942


def test_headerless_csv_with_named_columns():
    pairs = parse((H3 / "measurements/bf16/t2va.gpu.csv").read_bytes(), {"encoding": "csv", "columns": ["timestamp", "gpu", "mib", "util", "watts"]})
    assert pairs[0][0] == "#row=1"
    assert pairs[0][1] == {"timestamp": "2026/08/07 14:22:34.908", "gpu": "0", "mib": "101452", "util": "0", "watts": "200.26"}


def test_csv_row_with_the_wrong_number_of_cells_is_a_grammar_error():
    with pytest.raises(GrammarError):
        parse(b"a,b\n1,2,3\n", {"encoding": "csv"})


def test_markdown_tables_of_results_md():
    rows = markdown_tables((H3 / "RESULTS.md").read_text(encoding="utf-8"))
    aggregate = [r for r in rows if r["#heading"] == "Aggregate results"]
    per_task = [r for r in rows if r["#heading"] == "Per-task results"]
    assert len(aggregate) == 9 and len(per_task) == 27
    assert aggregate[-1]["Case"] == "all_linear_fp8" and aggregate[-1]["Mean speedup"] == "1.066x"
    row = next(r for r in per_task if (r["Case"], r["Task"]) == ("bf16", "ref2va"))
    assert row["Wall s"] == "229.41" and row["Video"] == "MP4" and row["#line"] > 0
    dlo = [r for r in rows if r["#heading"] == "DLO cold-start memory"]
    assert dlo[0]["Full-lifecycle peak MiB/GPU"] == "58,696"


def test_wide_row_unpivots_into_one_record_per_column():
    pairs = [("#row=1", {"id": "r1", "base_s": "1.5", "cand_s": "1.2"}), ("#row=2", {"id": "r2", "base_s": "1.6"})]
    out = unpivot(pairs, {"columns": {"base_s": "baseline", "cand_s": "candidate"}, "dimension": "arm", "keep": ["id"]})
    assert [r for _, r in out] == [
        {"id": "r1", "arm": "baseline", "value": "1.5"}, {"id": "r1", "arm": "candidate", "value": "1.2"},
        {"id": "r2", "arm": "baseline", "value": "1.6"}, {"id": "r2", "arm": "candidate"},
    ]


@pytest.mark.parametrize(("text", "expected"), [
    ("244.6s", (Decimal("244.6"), "s")), ("75%", (Decimal(75), "%")), ("1.066x", (Decimal("1.066"), "x")),
    ("58,696", (Decimal(58696), None)), ("-0.7%", (Decimal("-0.7"), "%")), ("18,812 MiB", (Decimal(18812), "MiB")),
    ("0.0148696", (Decimal("0.0148696"), None)), ("12 tokens/s", (Decimal(12), "tokens/s")),
])
def test_quantities_inside_strings(text, expected):
    assert quantity(text) == expected


@pytest.mark.parametrize("text", ["-", "", "MP4", "1,23", "abc 12", "1.2.3", True, None])
def test_non_quantities(text):
    assert quantity(text) is None


def test_markdown_table_encoding_reads_every_row_with_its_table_row_and_heading():
    """The `markdown-table` receipt encoding (it raised KeyError 'table' on every file until a profile first used it)."""
    rows = parse(b"# Runs\n\n| arm | s |\n|---|---:|\n| a | 1,200 |\n| b | 3 |\n", {"encoding": "markdown-table"})
    assert [location for location, _ in rows] == ["#table=1&row=1", "#table=1&row=2"]
    assert rows[0][1]["arm"] == "a" and rows[0][1]["s"] == "1,200" and rows[0][1]["#heading"] == "Runs"


@pytest.mark.parametrize("fold", [{"key": "/key", "value": "/value"}, None])
def test_a_bad_prefixed_line_is_named_by_its_line_number(fold):
    """A `PREFIX {json}` line that is not strict JSON (here a duplicate key) is refused naming its 1-based line, folded or not."""
    from verifier.readers import grammars

    spec = {"encoding": "text", "lines": ["prefixed-json"], "prefix": ":::MLLOG "}
    if fold:
        spec["fold"] = fold
    data = b'header\n:::MLLOG {"key": "a", "value": 1}\n:::MLLOG {"key": "b", "value": 1, "value": 2}\n'
    with pytest.raises(grammars.GrammarError) as exc:
        grammars.parse(data, spec)
    assert str(exc.value).startswith("line 3: ") and "duplicate key 'value'" in str(exc.value)
