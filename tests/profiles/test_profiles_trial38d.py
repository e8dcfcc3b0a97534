"""Issue 38, the fourth newcomer trial (DecentDB python_embedded_compare results_py.json; ethereum/benchmarking Parity table).

Every authoring mistake the trial made is named at load or by `verify profile check`, never as an evidence FAIL, and
units or precision never make an honest number FAIL. The bundles are small and made up, shaped like the two real sets
(sphildreth/decentdb benchmarks/python_embedded_compare/out/results_py.json: per engine, bench and op count, the elapsed
ns of 7 timed iterations and the us per op the tool printed; ethereum/benchmarking constantinople/processed/*.md: a
table with Gascost, Time (ns) and MGas/S = Gascost * 1000 / Time).
"""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path

from conftest import make_assets
from helpers import by_check as _by
from helpers import one_claim as _claim
from helpers import write_tree

from verifier.core import verify_path

#: (engine, bench, n_ops, elapsed ns per iteration): 19389616247 ns / 1e6 ops / 1000 is 19.389616247000003 in binary64,
#: one ulp above 19.389616247 (the producer's printed double of the declared arithmetic).
RUNS = [("DecentDB", "point_select", 1000000, [19389616247, 19412345678, 19501234567]),
        ("SQLite", "point_select", 1000000, [934483478, 935787807, 936165366]),
        ("DecentDB", "insert", 10000, [934483478, 941862461, 943258322])]


def _results(change: dict | None = None) -> str:
    """Return results_py.json as the tool writes it: per run the samples and its us/op statistics, computed in binary64."""
    rows = []
    for engine, bench, n, samples in RUNS:
        per = [s / n / 1000 for s in samples]
        rows.append({"bench": bench, "engine": engine, "n_ops": n, "samples_elapsed_ns": samples, "unit": "us/op",
                     "mean_us_per_op": sum(per) / len(per), "p50_us_per_op": statistics.median(per),
                     "min_us_per_op": min(per), "max_us_per_op": max(per)})
    for (i, name), value in (change or {}).items():
        rows[i][name] = value
    return json.dumps({"results": rows}, indent=2)


def _claim_rule(cid: str, statistic: str, then: str, **extra) -> dict:
    return {"id": cid, "receipts": "iters", "statistic": statistic, "value": "per_op", "selection": {"phase": "measured"},
            "per": ["engine", "bench", "n_ops"], "unit": "us",
            "at": {"file": "out/results_py.json", "pointer": "/results",
                   "where": {"engine": "{engine}", "bench": "{bench}", "n_ops": "{n_ops}"}, "then": then}, **extra}


def _decent(claims: list[dict] | None = None) -> dict:
    """Return a profile like the trial's: samples unnested, divided by n_ops, in ns; claims in us."""
    claims = claims if claims is not None else [_claim_rule(s, s, f"/{s}_us_per_op") for s in ("min", "max", "mean")]
    return {
        "id": "decent", "version": 1, "description": "test profile shaped like DecentDB results_py.json",
        "detect": {"files": ["out/results_py.json"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"iters": {"glob": "out/results_py.json", "encoding": "json", "records": "/results",
                               "unnest": {"array": "/samples_elapsed_ns"},
                               "fields": {"phase": {"value": "measured"}},
                               "values": {"per_op": {"element": True, "unit": "ns", "divide_by": {"pointer": "/n_ops"}}},
                               "dimensions": {"engine": {"pointer": "/engine"}, "bench": {"pointer": "/bench"}, "n_ops": {"pointer": "/n_ops"}}}},
        "claims": claims,
    }


def _verify(tmp_path: Path, files: dict[str, str], doc: dict):
    bundle = write_tree(tmp_path / "bundle", files)
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {doc["id"]: doc}))


# ---------------------------------------------------------------- D1: a binary64 result of divide_by and a unit conversion

def test_min_max_printed_as_the_binary64_result_of_divide_by_and_conversion_pass(tmp_path):
    assert 19389616247 / 1000000 / 1000 == 19.389616247000003  # the premise: one ulp above the exact value
    report = _verify(tmp_path, {"out/results_py.json": _results()}, _decent())
    found = _by(report, "derivation.claims")
    assert found and all(f.status.value == "PASS" for f in found), [f.message for f in found if f.status.value != "PASS"]
    assert "19.389616247000003" in _claim(report, "min[engine=DecentDB][bench=point_select][n_ops=1000000]").message


def test_a_difference_in_the_last_written_place_of_min_still_fails(tmp_path):
    wrong = {(0, "min_us_per_op"): 19.38961624700003}  # 3e-14 off: eight ulps, a real difference in its last written place
    report = _verify(tmp_path, {"out/results_py.json": _results(wrong)}, _decent())
    bad = [f for f in _by(report, "derivation.claims") if f.status.value == "FAIL"]
    assert [f.code for f in bad] == ["claim-mismatch"] and bad[0].message.startswith("min[engine=DecentDB]"), [f.message for f in bad]


# ---------------------------------------------------------------- D2, D3: an identity's places and its tolerance

#: (name, gas, ns/iter): MGas/S = gas * 1000 / ns as postprocess_parity.py prints it (str of a Python 2 float: 12 digits).
ROWS = [("alt_bn128_add_a", 500.0, 208.0), ("alt_bn128_add_b", 500.0, 1174.0), ("sha256_c", 60.0, 566.0)]


def _table(change: dict | None = None) -> str:
    """Return the processed table: Name, Gascost, Time (ns), MGas/S (12 significant digits, as Python 2's str prints)."""
    lines = ["| Name | Gascost | Time (ns) | MGas/S |", "| ----- | ----- | ----- | ----- |"]
    for name, gas, ns in ROWS:
        mgas = (change or {}).get(name, f"{gas * 1000 / ns:.12g}")
        lines.append(f"| {name} | {gas} | {ns:.2f} | {mgas} |")
    return "\n".join(lines) + "\n"


def _parity(**identity) -> dict:
    """Return a profile like the trial's: the table's rows, MGas/S = Gascost / Time (ns) in ops/us, every other cell informational."""
    return {
        "id": "parity", "version": 1, "description": "test profile shaped like ethereum/benchmarking's processed Parity table",
        "detect": {"files": ["processed/parity.txt.md"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"rows": {"glob": "processed/*.md", "encoding": "markdown-table", "fields": {"phase": {"value": "measured"}},
                              "values": {"gas": {"pointer": "/Gascost", "unit": "ops"}, "time": {"pointer": "/Time (ns)", "unit": "ns"}},
                              "dimensions": {"name": {"pointer": "/Name"}}}},
        "identities": [{"id": "mgas-per-s", "receipts": "rows", "left": {"pointer": "/MGas~1S", "unit": "ops/us"}, "op": "ratio",
                        "terms": [{"pointer": "/Gascost", "unit": "ops"}, {"pointer": "/Time (ns)", "unit": "ns"}], **identity}],
        "claims": [],
        "claim_documents": [{"file": "processed/*.md", "informational": [
            {"pointer": "/tables/*/*/Gascost", "reason": "the gas price: a constant"},
            {"pointer": "/tables/*/*/Time (ns)", "reason": "ns/iter of the raw bench lines"}]}],
    }


def test_cells_an_identity_compares_count_as_examined(tmp_path):
    report = _verify(tmp_path, {"processed/parity.txt.md": _table()}, _parity())
    assert [f.code for f in _by(report, "derivation.identities")] == ["identity-holds"]
    unchecked = [f.message for f in _by(report, "claims.coverage") if f.status.value != "PASS"]
    assert not unchecked, unchecked
    assert [f.status.value for f in _by(report, "claims.coverage")] == ["PASS"]


def _per_second(rate: str) -> tuple[dict[str, str], dict]:
    """Return a table whose Gas/s = Gascost / Time (s) (both sides' base units alike, so a term's half unit converts 1:1) and its profile."""
    table = f"| Name | Gascost | Time (s) | Gas/s |\n| --- | --- | --- | --- |\n| sha256_c | 500.0 | 2.08 | {rate} |\n"
    doc = _parity()
    doc["identities"][0] |= {"left": {"pointer": "/Gas~1s", "unit": "ops/s"}, "terms": [{"pointer": "/Gascost", "unit": "ops"}, {"pointer": "/Time (s)", "unit": "s"}]}
    doc["claim_documents"][0]["informational"].append({"pointer": "/tables/*/*/Time (s)", "reason": "the time"})
    return {"processed/parity.txt.md": table}, doc


def test_identity_tolerance_is_the_stated_results_own_precision(tmp_path):
    assert f"{500.0 / 2.08:.12g}" == "240.384615385"
    honest = _verify(tmp_path / "a", *_per_second("240.384615385"))
    assert [f.code for f in _by(honest, "derivation.identities")] == ["identity-holds"], [f.message for f in _by(honest, "derivation.identities")]
    off = _verify(tmp_path / "b", *_per_second("240.380615385"))  # 0.004 off in a 12-digit value: not covered by "500.0"'s 0.05 ops
    bad = _by(off, "derivation.identities")
    assert [f.code for f in bad] == ["identity-mismatch"], [f.message for f in bad]
    assert "tolerance 0.0000000005" in bad[0].message, bad[0].message
    coarse = _verify(tmp_path / "c", *_per_second("240.38"))  # written with 5 digits: its own half unit (0.005) covers the rounding
    assert [f.code for f in _by(coarse, "derivation.identities")] == ["identity-holds"]


# ---------------------------------------------------------------- D4: a divisor, subtrahend or unit pointer no record states

def _check(run, tmp_path: Path, files: dict[str, str], doc: dict):
    """Return the CLI result of `verify profile check` over `files` with the draft `doc`."""
    bundle = write_tree(tmp_path / "bundle", files)
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps(doc | {"id": "draft-" + doc["id"]}))
    return run("profile", "check", str(bundle), "--profile", str(draft))


def _misspelled(computed: str) -> dict:
    """Return the DecentDB profile with the value's `computed` operation (divide_by, subtract, unit_from) at a member no record has."""
    doc = copy.deepcopy(_decent())
    per_op = doc["receipts"]["iters"]["values"]["per_op"]
    per_op[computed] = {"pointer": "/n_opss"} if computed != "unit_from" else {"pointer": "/unitt", "one_of": ["ns", "us"]}
    if computed != "divide_by":
        del per_op["divide_by"]
    return doc


def test_a_misspelled_divisor_is_one_unverified_mapping_matches_nothing(tmp_path):
    for computed in ("divide_by", "subtract", "unit_from"):
        report = _verify(tmp_path / computed, {"out/results_py.json": _results()}, _misspelled(computed))
        fails = [f for f in report.findings if f.status.value == "FAIL"]
        assert not fails, (computed, [f.message for f in fails][:3])
        never = [f for f in report.findings if f.code == "mapping-matches-nothing"]
        assert len(never) == 1 and never[0].status.value == "UNVERIFIED", (computed, [f.message for f in never])
        assert "per_op" in never[0].message and ("/n_opss" in never[0].message or "/unitt" in never[0].message), never[0].message


def test_profile_check_names_a_misspelled_divisor(run, tmp_path):
    for computed, pointer in (("divide_by", "/n_opss"), ("subtract", "/n_opss"), ("unit_from", "/unitt")):
        result = _check(run, tmp_path / computed, {"out/results_py.json": _results()}, _misspelled(computed))
        assert result.exit_code == 1, (computed, result.stdout)
        line = next(x for x in result.stdout.splitlines() if f"values/per_op/{computed}" in x)
        assert repr(pointer) in line and "/n_ops" in line and "NOTHING" in line.upper(), line
        claim = next(x for x in result.stdout.splitlines() if x.strip().startswith("claims/0"))
        assert f"receipts.iters/values/per_op/{computed} matches no record" in claim and "optional" not in claim, claim


# ---------------------------------------------------------------- D5, D6: a misspelled dimension pointer, a misspelled arm

def _summary() -> str:
    """Return summary.json: per engine, the speedup of DecentDB's mean us/op over the engine's, point_select at 1e6 ops."""
    means = {engine: sum(s / n / 1000 for s in samples) / len(samples) for engine, bench, n, samples in RUNS if bench == "point_select"}
    return json.dumps({"speedup": {engine: means["DecentDB"] / mean for engine, mean in means.items()}})


def _with_speedup(baseline: str = "DecentDB", bench_pointer: str = "/bench") -> dict:
    doc = copy.deepcopy(_decent())
    iters = doc["receipts"]["iters"]
    iters["fields"]["arm"] = {"pointer": "/engine"}
    iters["dimensions"]["bench"]["pointer"] = bench_pointer
    doc["claims"].append({"id": "speedup", "receipts": "iters", "statistic": "speedup", "baseline": baseline, "candidate": "{arm}", "value": "per_op",
                          "of": {"statistic": "mean"}, "selection": {"phase": "measured", "bench": "point_select", "n_ops": "1000000"}, "per": ["arm"],
                          "unit": "x", "at": {"file": "summary.json", "pointer": "/speedup/{arm}"}})
    return doc


def _files() -> dict[str, str]:
    return {"out/results_py.json": _results(), "summary.json": _summary()}


def test_the_speedup_fixture_passes_as_written(tmp_path):
    report = _verify(tmp_path, _files(), _with_speedup())
    assert {f.status.value for f in _by(report, "derivation.claims")} == {"PASS"}, [f.message for f in _by(report, "derivation.claims") if f.status.value != "PASS"]


def test_profile_check_points_a_claim_at_its_unreadable_dimension(run, tmp_path):
    result = _check(run, tmp_path, _files(), _with_speedup(bench_pointer="/bnech"))
    assert result.exit_code == 1
    lines = [x for x in result.stdout.splitlines() if x.strip().startswith("claims/")]
    assert len(lines) == 4, result.stdout
    for line in lines:
        assert "dimension bench" in line and "'/bnech'" in line and "unranked" not in line, line


def test_an_arm_that_selects_nothing_in_every_instance_is_unverified_with_the_arms_the_records_have(tmp_path):
    report = _verify(tmp_path, _files(), _with_speedup(baseline="DecentBD"))
    speedup = [f for f in _by(report, "derivation.claims") if f.message.startswith("speedup")]
    assert len(speedup) == 2 and {f.status.value for f in speedup} == {"UNVERIFIED"}, [f.message for f in speedup]
    assert all("misspelled arm?" in f.message and "'DecentDB'" in f.message and "'SQLite'" in f.message for f in speedup), speedup[0].message
    assert not [f for f in report.findings if f.status.value == "FAIL"]


def test_an_arm_that_selects_nothing_in_some_instances_stays_fail(tmp_path):
    files = _files()
    files["summary.json"] = json.dumps({"s": {"DecentDB-point_select": 1, "SQLite-point_select": 1, "DecentDB-insert": 1}})
    doc = _with_speedup(baseline="SQLite")  # SQLite ran point_select only: its arm selects nothing in the instance bench=insert alone
    doc["claims"][-1] |= {"selection": {"phase": "measured"}, "per": ["arm", "bench"], "at": {"file": "summary.json", "pointer": "/s/{arm}-{bench}"}}
    report = _verify(tmp_path, files, doc)
    insert = [f for f in _by(report, "derivation.claims") if f.message.startswith("speedup[arm=DecentDB][bench=insert]")]
    assert [(f.status.value, f.code) for f in insert] == [("FAIL", "empty-selection")], [f.message for f in insert]


# ---------------------------------------------------------------- D7: what docs/profiles.md now says, held

def test_tables_without_a_heading_are_keyed_top_and_top_2_and_identity_rows_find_them():
    from verifier.readers.markdown_doc import markdown_document, row_pointers
    from verifier.readers.mdtables import markdown_tables

    text = "| a | b |\n| - | - |\n| 1 | 2 |\n\nbetween\n\n| a | b |\n| - | - |\n| 3 | 4 |\n\n# Later\n\n| a | b |\n| - | - |\n| 5 | 6 |\n"
    tables = markdown_document(text.encode())["tables"]
    assert list(tables) == ["(top)", "(top) (2)", "Later"]
    rows = markdown_tables(text)
    places = row_pointers(rows)
    assert sorted(places.values()) == ["/tables/(top) (2)/0", "/tables/(top)/0", "/tables/Later/0"]
    for row in rows:  # each place holds that row's cells
        _, _, name, index = places[id(row)].split("/")
        assert tables[name][int(index)]["a"] == row["a"]


def test_divide_by_after_unnest_reads_the_outer_record_and_where_placeholders_match_json_numbers(tmp_path):
    report = _verify(tmp_path, {"out/results_py.json": _results()}, _decent())
    mean = _claim(report, "mean[engine=DecentDB][bench=insert][n_ops=10000]")  # n_ops is the JSON number 10000, `where` "{n_ops}" binds it
    assert mean.status.value == "PASS" and "/n_ops" not in (mean.observed or "")
    # the divisor /n_ops is a member of the record /results/2, not of the unnested element (a bare number): per_op = ns / n_ops
    assert mean.derivation and "per_op" in mean.derivation


def test_cells_a_matches_entry_compares_on_a_markdown_row_count_as_examined(tmp_path):
    table = "| Name | Gascost | Time (ns) | MGas/S | Again |\n| - | - | - | - | - |\n| a | 500.0 | 208.00 | 2403.84615385 | 208 |\n"
    doc = _parity()
    doc["matches"] = [{"id": "time-twice", "receipts": "rows", "pointer": "/Again", "equals": {"pointer": "/Time (ns)"}}]
    doc["claim_documents"][0]["informational"] = [{"pointer": "/tables/*/*/Gascost", "reason": "the gas price: a constant"}]
    report = _verify(tmp_path, {"processed/parity.txt.md": table}, doc)
    assert [f.status.value for f in _by(report, "derivation.matches")] == ["PASS"]
    assert [f.status.value for f in _by(report, "claims.coverage")] == ["PASS"], [f.message for f in _by(report, "claims.coverage")]
