"""
Issue 13, seed 000 (telemetry receipt review): the checks of its rule pack verifier/checks/packs/telemetry.py (telemetry.protocol, .provenance, .occupancy; gate.rules) and the rows verifier/adapters/telemetry.py states (refused facts and conclusions, the rate).

Each rule: an input built from the shipped receipt (tests/fixtures/telemetry/good,
the seed's live receipt shape) that must FAIL with the rule's code, and an
honest variant that must not FAIL in that check. The shipped receipt itself is
the INCOMPLETE baseline (test_telemetry.py).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from test_telemetry import FIX, _edit, _replace_carrier, make_telemetry

from verifier.core import verify_path

SUBJECT = {"model": "glm", "base_url": "http://127.0.0.1:30000"}


def _add_carrier(d: Path, name: str, filename: str, text: str) -> None:
    """Retain a new carrier file and list it in the receipt's evidence with its sha256."""
    (d / filename).write_text(text)
    digest = hashlib.sha256((d / filename).read_bytes()).hexdigest()
    _edit(d, lambda r: r["evidence"].__setitem__(name, {"path": filename, "sha256": digest}))


def _set(*path, value):
    def change(d):
        def inner(r):
            node = r
            for p in path[:-1]:
                node = node[p]
            node[path[-1]] = value
        _edit(d, inner)
    return change


def _stdout_line(old: str, new: str):
    return lambda d: _replace_carrier(d, "stdout", "bench.stdout", make_telemetry.bench_stdout().replace(old, new))


def _both(*changes):
    def change(d):
        for c in changes:
            c(d)
    return change


STARTS = [0.001, 0.002, 0.8103, 0.8121]  # two waves under cap 2: the second wave starts when the first ends


def _starts(stagger):
    return _both(lambda d: _add_carrier(d, "request_starts", "request-starts.json", json.dumps(STARTS)),
                 _set("standings", "arrival", "request_starts_retained", value=True),
                 _set("standings", "arrival", "observed_max_stagger_ms", value=stagger))


def _lease(protects):
    return _both(_set("standings", "window", "standing", value="isolated"),
                 _set("standings", "window", "isolation_lease", value={"id": "group-b-window-42", **({"protects": protects} if protects else {})}))


def _traffic(receipt, carrier=False):
    steps = [_set("standings", "window", "standing", value="foreign-traffic-observed"),
             _set("standings", "window", "traffic_receipt", value=receipt)]
    if carrier:
        steps.insert(0, lambda d: _add_carrier(d, "traffic", "operator-traffic.jsonl", '{"actor": "operator", "start": 1, "end": 2}\n'))
    return _both(*steps)


def _qualified_except(*unmet):
    """Everything a qualification needs, minus the named prerequisites."""
    steps = [_set("standings", "qualification", value="qualified")]
    if "subject-established" not in unmet:
        steps.append(_set("standings", "subject", value={"standing": "established"}))
    if "arrival-observed" not in unmet:
        steps.append(_starts(811.1))
    if "window-isolated" not in unmet:
        steps.append(_lease(SUBJECT))
    if "occupancy-trace" not in unmet:
        steps.append(lambda d: _add_carrier(d, "occupancy_trace", "occupancy.prom.jsonl", '{"t": 0, "running": 2}\n'))
    if "implementation-bound" not in unmet:
        steps.append(_set("protocol", "implementation", "revision", value="0123456789abcdef0123456789abcdef01234567"))
    preempted = None if "no-preemptions" in unmet else 0.0  # the counter is absent: unread is unmet (issue 39)
    steps.append(lambda d: _replace_carrier(d, "metrics_before", "metrics-before.prom", make_telemetry.scrape(1000.0, preemptions=preempted)))
    steps.append(lambda d: _replace_carrier(d, "metrics_after", "metrics-after.prom", make_telemetry.scrape(
        1512.0, running=5.0 if "occupancy-within-cap" in unmet else 0.0, preemptions=preempted)))
    return _both(*steps)


# (check, code, change that must FAIL with code, change that keeps the check free of FAIL)
RULES = [
    ("derivation.claims", "bucket-peak-as-engine-concurrency", _set("facts", "engine_peak_concurrent_requests", value=4),
     _set("facts", "client_bucket_peak", value=4)),
    ("derivation.claims", "bucket-peak-as-engine-concurrency", _set("facts", "foreign_in_flight_at_peak", value=2),
     _set("facts", "foreign_in_flight_at_peak", value=None)),
    ("derivation.claims", "bucket-peak-as-engine-concurrency", _set("facts", "peak_concurrency_proves_shared_window", value=True),
     _set("facts", "engine_surplus_tokens", value=0)),
    ("derivation.claims", "causal-conclusion", _set("conclusions", "itl_tail_cause", value="contention"),
     _set("conclusions", "itl_tail_cause", value="unestablished")),
    ("derivation.claims", "causal-conclusion", _set("conclusions", "ttft_would_bind", value={"concurrency": 16}),
     _set("conclusions", "ttft_would_bind", value=None)),
    ("derivation.claims", "causal-conclusion", _set("conclusions", "window_gap_cause", value="operator-traffic"),
     _set("conclusions", "window_gap_cause", value="unknown")),
    ("derivation.claims", "authored-interval", _set("facts", "rate", value={"output_tokens_per_s": 512, "interval_s": 1}),
     _set("facts", "rate", value={"output_tokens_per_s": 30.06, "interval_s": 17.03})),
    ("derivation.claims", "authored-interval", _set("facts", "rate", value={"output_tokens_per_s": 28.44, "interval_s": 18.0}),
     _set("facts", "rate", value={"output_tokens_per_s": 30.065, "interval_s": 17.030})),
    ("derivation.claims", "rate-from-zero-duration", _set("facts", "rate", value={"output_tokens_per_s": 0, "interval_s": 0}),
     _set("facts", "rate", value=None)),
    ("derivation.claims", "rate-from-zero-duration",
     _both(_stdout_line("Benchmark duration (s):                  17.03", "Benchmark duration (s):                  0.00"),
           _set("facts", "benchmark_duration_s", value=0)),
     _both(_stdout_line("Benchmark duration (s):                  17.03", "Benchmark duration (s):                  0.00"),
           _set("facts", "benchmark_duration_s", value=0), _set("facts", "rate", value=None))),
    ("derivation.claims", "claim-mismatch", _set("facts", "rate", value={"output_tokens_per_s": 30.2, "interval_s": 17.03}),
     _set("facts", "rate", value={"output_tokens_per_s": 30.065, "interval_s": 17.03})),
    ("telemetry.protocol", "protocol-mismatch", _set("protocol", "max_concurrency", value=4), _set("protocol", "max_concurrency", value=2)),
    ("telemetry.protocol", "protocol-mismatch", _set("protocol", "arrival", value="poisson"), _set("protocol", "arrival", value="send-all")),
    ("telemetry.protocol", "protocol-mismatch", _set("protocol", "request_rate", value=8), _set("protocol", "request_rate", value="inf")),
    ("telemetry.protocol", "protocol-mismatch", _stdout_line("Traffic request rate: inf", "Traffic request rate: 5.0"),
     _both(_stdout_line("Traffic request rate: inf", "Traffic request rate: 5.0"), _set("protocol", "request_rate", value=5),
           _set("protocol", "arrival", value="poisson"))),
    ("telemetry.protocol", "protocol-mismatch", _stdout_line("Maximum request concurrency: 2\n", "Maximum request concurrency: None\n"),
     _both(_stdout_line("Maximum request concurrency: 2\n", "Maximum request concurrency: None\n"), _set("protocol", "max_concurrency", value=None))),
    ("telemetry.provenance", "random-dataset-unpinned", _set("protocol", "seed", value=None),
     _both(_set("protocol", "seed", value=None), lambda d: _add_carrier(d, "requests", "requests.jsonl", '{"prompt_token_ids": [1, 2]}\n'))),
    ("telemetry.provenance", "implementation-not-exact", _set("protocol", "implementation", "revision", value="main"),
     _set("protocol", "implementation", "revision", value="0123456789abcdef0123456789abcdef01234567")),
    ("telemetry.provenance", "implementation-digest-mismatch",
     _both(lambda d: _add_carrier(d, "implementation", "serve.py", "# vllm/benchmarks/serve.py as installed\n"),
           _set("protocol", "implementation", "sha256", value="ab" * 32)),
     _both(lambda d: _add_carrier(d, "implementation", "serve.py", "# vllm/benchmarks/serve.py as installed\n"),
           _set("protocol", "implementation", "sha256",
                value=hashlib.sha256(b"# vllm/benchmarks/serve.py as installed\n").hexdigest().upper()))),
    ("telemetry.occupancy", "idle-precondition-violated",
     lambda d: _replace_carrier(d, "metrics_before", "metrics-before.prom", make_telemetry.scrape(1000.0, running=3.0)),
     lambda d: _replace_carrier(d, "metrics_before", "metrics-before.prom", make_telemetry.scrape(1000.0, running=0.0))),
    ("telemetry.occupancy", "idle-precondition-violated",
     lambda d: _replace_carrier(d, "metrics_before", "metrics-before.prom", make_telemetry.scrape(1000.0, waiting=1.0)),
     _both(lambda d: _replace_carrier(d, "metrics_before", "metrics-before.prom", make_telemetry.scrape(1000.0, waiting=1.0)),
           _set("preconditions", "idle", value=False))),
    ("telemetry.occupancy", "boundary-as-interval", _set("standings", "occupancy", value="interval"),
     _set("standings", "occupancy", value="boundary-only")),
    ("gate.rules", "generic-lease", _lease(None), _lease(SUBJECT)),
    ("gate.rules", "generic-lease", _lease({"model": "glm", "base_url": "http://192.168.1.236:30001"}), _lease(SUBJECT)),
    ("gate.rules", "prose-traffic-receipt", _traffic({"statement": "possible operator/harness/nccl traffic"}),
     _traffic({"attributed_to": "operator", "evidence": "traffic"}, carrier=True)),
    ("gate.rules", "prose-traffic-receipt", _traffic({"attributed_to": "operator", "evidence": "traffic"}),
     _traffic({"attributed_to": "operator", "evidence": "traffic"}, carrier=True)),
    ("gate.rules", "starts-flag-without-carrier", _set("standings", "arrival", "request_starts_retained", value=True), _starts(811.1)),
    ("gate.rules", "claim-mismatch", _starts(0), _starts(None)),
    ("gate.rules", "qualification-without-prerequisites", _set("standings", "qualification", value="qualified"),
     _set("standings", "qualification", value="unqualified")),
    ("gate.rules", "qualification-without-prerequisites", _qualified_except("occupancy-within-cap"), _qualified_except()),
    ("gate.rules", "qualification-without-prerequisites", _qualified_except("implementation-bound"), _qualified_except()),
]


def _copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(FIX, dest)
    return dest


@pytest.mark.parametrize("check,code,bad,good", RULES, ids=[f"{r[1]}-{i}" for i, r in enumerate(RULES)])
def test_telemetry_rule_fails_on_breaking_input_and_holds_on_honest_input(tmp_path, check, code, bad, good):
    broken = _copy(tmp_path, "bad")
    bad(broken)
    report = verify_path(str(broken))
    fails = {x.code for x in report.findings if x.check == check and x.status == "FAIL"}
    assert code in fails, [(x.check, x.code, x.message) for x in report.findings if x.status != "PASS"]
    assert report.verdict == "FAIL"
    honest = _copy(tmp_path, "good")
    good(honest)
    report = verify_path(str(honest))
    assert not [x for x in report.findings if x.check == check and x.status in ("FAIL", "ERROR")], \
        [(x.code, x.message) for x in report.findings if x.check == check and x.status != "PASS"]
    assert report.verdict in ("PASS", "INCOMPLETE"), [(x.check, x.code, x.message) for x in report.findings if x.status == "FAIL"]


def test_bucket_peak_four_under_cap_two_replays_as_a_client_fact_with_zero_foreign_work():
    """The review's witness: cap 2, printed peak 4, surplus 0 — the peak replays, and nothing foreign follows from it."""
    report = verify_path(str(FIX))
    peak = next(x for x in report.findings if x.pointer == "/facts/client_bucket_peak")
    assert peak.status == "PASS" and peak.check == "derivation.claims"
    surplus = next(x for x in report.findings if x.pointer == "/facts/engine_surplus_tokens")
    assert surplus.status == "PASS" and surplus.check == "derivation.claims" and float(surplus.expected) == 0
    assert "not observed foreign traffic" in surplus.message
    assert next(x for x in report.findings if x.pointer == "/conclusions/itl_tail_cause").code == "cause-unestablished"


def test_fully_prerequisited_qualification_is_recorded_not_passed(tmp_path):
    d = _copy(tmp_path, "q")
    _qualified_except()(d)
    report = verify_path(str(d))
    (q,) = [x for x in report.findings if x.check == "gate.rules" and x.code in {"telemetry-only", "qualification-without-prerequisites", "qualification-recorded"}]
    assert q.status == "UNVERIFIED" and q.code == "qualification-recorded"
    assert report.verdict == "INCOMPLETE"


def test_occupancy_above_cap_refuses_and_names_the_scrape(tmp_path):
    d = _copy(tmp_path, "o")
    _replace_carrier(d, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1512.0, running=5.0))
    report = verify_path(str(d))
    occ = [x for x in report.findings if x.check == "telemetry.occupancy" and x.code == "occupancy-above-cap"]
    assert occ and occ[0].status == "UNVERIFIED" and occ[0].path == "metrics-after.prom"


def test_the_review_send_all_red_four_prompts_cap_two_no_starts_never_mints_zero_stagger(tmp_path):
    d = _copy(tmp_path, "s")
    _set("standings", "arrival", "observed_max_stagger_ms", value=0)(d)
    report = verify_path(str(d))
    assert {(x.check, x.code) for x in report.findings if x.status == "FAIL"} == {("gate.rules", "declaration-as-observation")}


WRONG_TYPES = [
    ("facts", "rate", "30 tok/s"),
    ("facts", "rate", {"output_tokens_per_s": "30", "interval_s": 17.03}),
    ("protocol", "seed", "20260918"),
    ("protocol", "request_rate", "fast"),
    ("protocol", "burstiness", "1.0"),
    ("protocol", "implementation", "vllm main"),
    ("protocol", "implementation", {"revision": 5}),
    ("preconditions", "idle", "yes"),
    ("standings", "qualification", "maybe"),
    ("standings", "occupancy", 2),
    ("standings", "subject", "established"),
    ("conclusions", None, ["contention"]),
]


@pytest.mark.parametrize("parent,key,value", WRONG_TYPES, ids=[f"{p}-{k}-{i}" for i, (p, k, _) in enumerate(WRONG_TYPES)])
def test_wrong_typed_field_is_a_schema_finding_never_a_crash(tmp_path, parent, key, value, run):
    d = _copy(tmp_path, "w")
    _edit(d, lambda r: r.__setitem__(parent, value) if key is None else r.setdefault(parent, {}).__setitem__(key, value))
    report = verify_path(str(d))
    assert ("schema.documents", "schema-violation") in {(x.check, x.code) for x in report.findings if x.status == "FAIL"}
    assert not [x for x in report.findings if x.status == "ERROR"]
    assert "Traceback" not in run(str(d)).output


@pytest.mark.parametrize("field,value", [("isolation_lease", {"protects": "glm"}), ("traffic_receipt", {"attributed_to": 5})])
def test_wrong_typed_window_field_is_a_schema_finding(tmp_path, field, value):
    d = _copy(tmp_path, "w")
    _edit(d, lambda r: r["standings"]["window"].__setitem__(field, value))
    report = verify_path(str(d))
    assert ("schema.documents", "schema-violation") in {(x.check, x.code) for x in report.findings if x.status == "FAIL"}
    assert not [x for x in report.findings if x.status == "ERROR"]


def test_starts_carrier_that_is_not_a_list_of_times_fails(tmp_path):
    d = _copy(tmp_path, "t")
    _add_carrier(d, "request_starts", "request-starts.json", '{"first": 0.001}')
    _set("standings", "arrival", "request_starts_retained", value=True)(d)
    report = verify_path(str(d))
    assert ("gate.rules", "starts-unreadable") in {(x.check, x.code) for x in report.findings if x.status == "FAIL"}
    _add_carrier(d, "request_starts", "request-starts.json", json.dumps(STARTS[:3]))
    report = verify_path(str(d))
    assert ("gate.rules", "starts-incomplete") in {(x.check, x.code) for x in report.findings if x.status == "FAIL"}


def _leaves(node, path=()):
    if isinstance(node, dict) and node:
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node):
            yield from _leaves(v, (*path, i))
    else:
        yield path


def test_any_leaf_of_any_type_is_a_finding_never_an_error(tmp_path):
    """Every leaf of the receipt (and of the optional blocks the rules read) replaced by each JSON type: no ERROR, no traceback."""
    base = json.loads((FIX / "telemetry-receipt.json").read_text())
    base["standings"]["window"].update(standing="isolated", isolation_lease={"protects": dict(SUBJECT)},
                                       traffic_receipt={"attributed_to": "operator", "evidence": "traffic"})
    base["standings"]["qualification"] = "qualified"
    base["standings"]["arrival"]["request_starts_retained"] = True
    d = _copy(tmp_path, "leaf")
    _add_carrier(d, "request_starts", "request-starts.json", json.dumps(STARTS))
    base["evidence"]["request_starts"] = json.loads((d / "telemetry-receipt.json").read_text())["evidence"]["request_starts"]
    errors = []
    for path in _leaves(base):
        for value in (None, "x", 0, -1, 1.5, True, [], {}, "inf", "0" * 64):
            doc = json.loads(json.dumps(base))
            node = doc
            for p in path[:-1]:
                node = node[p]
            node[path[-1]] = value
            (d / "telemetry-receipt.json").write_text(json.dumps(doc))
            report = verify_path(str(d))
            errors += [(path, value, x.check, x.message) for x in report.findings if x.status == "ERROR"]
    assert not errors, errors[:5]


@pytest.mark.parametrize("text", ["[" * 100000 + "]" * 100000, "[NaN, 1, 2, 3]", "[1, 2, 3, 1e999]", "\xff\xfe"])
def test_hostile_starts_carrier_is_a_finding_never_an_error(tmp_path, text):
    d = _copy(tmp_path, "h")
    (d / "request-starts.json").write_bytes(text.encode("latin-1"))
    digest = hashlib.sha256((d / "request-starts.json").read_bytes()).hexdigest()
    _edit(d, lambda r: r["evidence"].__setitem__("request_starts", {"path": "request-starts.json", "sha256": digest}))
    _set("standings", "arrival", "request_starts_retained", value=True)(d)
    report = verify_path(str(d))
    assert not [x for x in report.findings if x.status == "ERROR"], [x.message for x in report.findings if x.status == "ERROR"]
    assert ("gate.rules", "starts-unreadable") in {(x.check, x.code) for x in report.findings if x.status == "FAIL"}
