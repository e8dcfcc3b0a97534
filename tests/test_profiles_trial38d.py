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
    wrong = {(0, "min_us_per_op"): 19.38961624700003}  # 3e-14 off: ten ulps, a real difference in its last written place
    report = _verify(tmp_path, {"out/results_py.json": _results(wrong)}, _decent())
    bad = [f for f in _by(report, "derivation.claims") if f.status.value == "FAIL"]
    assert [f.code for f in bad] == ["claim-mismatch"] and bad[0].message.startswith("min[engine=DecentDB]"), [f.message for f in bad]
