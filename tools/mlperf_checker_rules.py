"""Write the `checker-*` gate rules of `profiles/mlperf-inference.json` from the official MLPerf submission checker's constants.

Usage::

    git --git-dir=/work/.mirror/mlcommons+inference/repo show HEAD:tools/submission/submission_checker/constants.py > /tmp/constants.py
    python tools/mlperf_checker_rules.py /tmp/constants.py COMMIT

Reads `MODEL_CONFIG` (per round: `accuracy-target`, `accuracy-upper-limit`,
`latency-constraint`, `performance-sample-count`, `accuracy-sample-count`, `dataset-size`), `OFFLINE_MIN_SPQ_SINCE_V4`, `TEST_DURATION_MS` and
`LLM_LATENCY_LIMITS` of mlcommons/inference
`tools/submission/submission_checker/constants.py` as data (`ast`; numbers and
products, sums and differences of numbers only, nothing is executed), and replaces every gate rule
whose id starts with `checker-` by one rule per model family and metric, its
description citing the file, commit, rounds and line. The other rules are kept.
Exit 2 with one line on a file it cannot read.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

PROFILE = Path(__file__).resolve().parent.parent / "profiles" / "mlperf-inference.json"
SOURCE = "mlcommons/inference tools/submission/submission_checker/constants.py"
#: checker metric -> (the profile's value in the `accuracy` receipts, its unit)
METRICS = {"acc": ("accuracy", "%"), "mAP": ("mAP", "%"), "F1": ("f1", "1"), "AUC": ("auc", "%"), "DICE": ("dice", "1"),
           "ROUGE1": ("rouge1", "1"), "ROUGE2": ("rouge2", "1"), "ROUGEL": ("rougeL", "1"), "ROUGELSUM": ("rougeLsum", "1"),
           "GEN_LEN": ("gen_len", "1"), "TOKENS_PER_SAMPLE": ("tokens_per_sample", "tokens"), "gsm8k_accuracy": ("gsm8k", "1"),
           "mbxp_accuracy": ("mbxp", "1"), "exact_match": ("exact_match", "1"), "CLIP_SCORE": ("clip_score", "1"),
           "FID_SCORE": ("fid_score", "1"), "ACCURACY": ("accuracy", "%"), "vbench_score": ("vbench_score", "1"),
           "F1_HIERARCHICAL": ("f1", "1")}
#: metrics whose accuracy.txt line the profile's grammars do not read (listed in the profile description as not checked)
UNREAD = {"DLRM_NE", "DLRM_ACC", "DLRM_AUC", "E2E_ACCURACY"}
#: directory names the checker maps onto a model (`model_mapping` of MODEL_CONFIG)
ALIASES = {"resnet": ["resnet50", "mobilenet"], "retinanet": ["ssd-resnet34"], "llama3.1-405b": ["llama3_1-405b"],
           "llama3.1-8b": ["llama3_1-8b"], "llama3.1-8b-edge": ["llama3_1-8b-edge"]}
SCENARIOS = {"Offline": ["offline", "Offline"], "Server": ["server", "Server"], "Interactive": ["interactive", "Interactive"],
             "SingleStream": ["singlestream", "SingleStream"], "MultiStream": ["multistream", "MultiStream"]}
DIMS = ["division", "org", "platform", "model", "scenario"]
JUDGED = ["closed", "network"]


def _value(node: ast.AST) -> Any:
    """Evaluate a literal of dicts, lists, tuples, numbers, strings and products, sums and differences of numbers; raise ValueError on anything else."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return [_value(n) for n in node.elts]
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Sub, ast.Add)):
        left, right = _value(node.left), _value(node.right)
        return left * right if isinstance(node.op, ast.Mult) else left - right if isinstance(node.op, ast.Sub) else left + right
    raise ValueError(f"line {getattr(node, 'lineno', '?')}: not a literal")


def _lines(node: ast.Dict) -> dict[str, int]:
    return {_value(k): k.lineno for k in node.keys}


def read(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (the module's literal assignments by name, {round: {section: {model: line}}})."""
    tree = ast.parse(path.read_text())
    names: dict[str, Any] = {}
    lines: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            try:
                names[name] = _value(stmt.value)
            except (ValueError, TypeError):
                continue
            if name == "MODEL_CONFIG":
                for rk, rv in zip(stmt.value.keys, stmt.value.values):
                    lines[_value(rk)] = {_value(sk): _lines(sv) for sk, sv in zip(rv.keys, rv.values) if isinstance(sv, ast.Dict)}
            elif isinstance(stmt.value, ast.Dict):
                lines[name] = _lines(stmt.value)
            else:
                lines[name] = stmt.lineno
    return names, lines


def _round_order(r: str) -> tuple[int, ...]:
    return tuple(int(p) for p in r.lstrip("v").split("."))


def _cite(commit: str, section: str, model: str, where: dict[str, Any], rounds: list[str]) -> str:
    first = rounds[0]
    return f"{SOURCE} @ {commit[:12]}, MODEL_CONFIG['{first}']['{section}']['{model}'] (line {where[first][section][model]}); same in rounds {', '.join(rounds)}"


def _num(x: float) -> float | int:
    """The checker's product at 12 significant digits (76.46 * 0.99 = 75.6954, not 75.69539999999999)."""
    return int(x) if float(x).is_integer() else float(f"{x:.12g}")


def _rule(rid: str, receipts: str, value: str, unit: str, selection: dict[str, Any], description: str, *, low: float | None = None,
          high: float | None = None, divisions: list[str] = JUDGED) -> dict[str, Any]:
    rule: dict[str, Any] = {"id": rid, "receipts": receipts, "statistic": "first", "value": value, "unit": unit,
                            "selection": {"phase": "measured", "division": divisions, **selection}, "per": DIMS, "unmatched": "skip"}
    if low is not None:
        rule["min"] = _num(low)
    if high is not None:
        rule["max"] = _num(high)
    rule["description"] = description
    return rule


def rules(names: dict[str, Any], where: dict[str, Any], commit: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Return the `checker-*` rules and the checker's targets left unread (model, metric)."""
    config = names["MODEL_CONFIG"]
    rounds = sorted(config, key=_round_order)
    seen: dict[tuple[str, str], list[str]] = {}  # (model, repr of its targets, limits, latencies) -> rounds
    per_model: dict[str, dict[str, Any]] = {}
    for r in rounds:
        for model, target in config[r]["accuracy-target"].items():
            key = (model, json.dumps([target, config[r]["accuracy-upper-limit"].get(model), config[r]["latency-constraint"].get(model)], sort_keys=True))
            seen.setdefault(key, []).append(r)
    out: list[dict[str, Any]] = []
    unread: list[str] = []
    latest: dict[str, tuple[list[str], list[str]]] = {}  # model -> (the rounds of its newest configuration, the rounds that differ)
    for (model, _), rs in seen.items():
        if model not in latest or _round_order(rs[-1]) > _round_order(latest[model][0][-1]):
            latest[model] = (rs, [*latest.get(model, ([], []))[0], *latest.get(model, ([], []))[1]])
        else:
            latest[model][1].extend(rs)
    for model, (rs, other) in sorted(latest.items()):
        first = rs[0]
        target = config[first]["accuracy-target"][model]
        upper = config[first]["accuracy-upper-limit"].get(model)
        names_of = [model, *ALIASES.get(model, [])]
        tag = model
        note = (f"; round(s) {', '.join(sorted(other, key=_round_order))} configure {model} otherwise, and a results tree does not state its round, "
                f"so the newest configuration is the one judged") if other else ""
        by_scenario = target if isinstance(target, dict) else {None: target}
        limits = dict(zip(upper[::2], upper[1::2])) if upper else {}
        for scenario, pairs in by_scenario.items():
            for metric, low in zip(pairs[::2], pairs[1::2]):
                if metric in UNREAD:
                    unread.append(f"{model} {metric} >= {low:.6g}")
                    continue
                value, unit = METRICS[metric]
                sel: dict[str, Any] = {"model": names_of}
                if scenario:
                    sel["scenario"] = SCENARIOS[scenario]
                high = limits.get(metric)
                rid = f"checker-accuracy-{tag}-{metric}" + (f"-{scenario}" if scenario else "")
                said = f">= {low:.10g}" + (f" and <= {high:.10g} (accuracy-upper-limit)" if high is not None else "")
                text = (f"{metric} of each closed- or network-division {model} run{' in ' + scenario if scenario else ''} {said}, as the submission checker's "
                        f"accuracy_result_check requires (open-division results are not judged by it): {_cite(commit, 'accuracy-target', model, where, rs)}{note}")
                out.append(_rule(rid, "accuracy", value, unit, sel, text, low=low, high=high))
        for metric, high in limits.items():
            if metric not in {m for m in (by_scenario[next(iter(by_scenario))])[::2]}:
                value, unit = METRICS[metric]
                out.append(_rule(f"checker-accuracy-{tag}-{metric}-upper", "accuracy", value, unit, {"model": names_of},
                                 f"{metric} <= {high:.10g}: {_cite(commit, 'accuracy-upper-limit', model, where, rs)}", high=high))
        for scenario, limit in (config[first]["latency-constraint"].get(model) or {}).items():
            if scenario == "Server":  # early stopping: the target latency passed to it (performance_check.latency_check)
                value, what = "target_latency", "effective_target_latency_ns"
            else:  # no early stopping: the 99th percentile latency
                value, what = "p99_latency", "result_99.00_percentile_latency_ns"
            out.append(_rule(f"checker-latency-{tag}-{scenario}", "detail", value, "ns", {"model": names_of, "scenario": SCENARIOS[scenario]},
                             f"{what} of each closed- or network-division {model} {scenario} run <= {limit} ns (performance_check.latency_check): "
                             f"{_cite(commit, 'latency-constraint', model, where, rs)}{note}", high=limit))
    return out, unread


def performance_rules(names: dict[str, Any], where: dict[str, Any], commit: str) -> list[dict[str, Any]]:
    """The per-run rules of performance_check that do not depend on the round: duration, Offline samples per query, performance sample count, LLM TTFT/TPOT."""
    config = names["MODEL_CONFIG"]
    models = sorted({m for r in config.values() for m in r["models"]})
    every = sorted({n for m in models if m not in ("e2e-rag-qna", "e2e-rag-db") for n in [m, *ALIASES.get(m, [])]})
    out = [_rule("checker-min-duration", "detail", "min_duration", "ms", {"model": every},
                 f"effective_min_duration_ms of each closed- or network-division run >= TEST_DURATION_MS = {names['TEST_DURATION_MS']} ms "
                 f"(performance_check.min_duration_check; the e2e-rag models are exempt there; the checker applies it in every division, the profile in the "
                 f"closed and network divisions only, see its description): {SOURCE} @ {commit[:12]}, line {where['TEST_DURATION_MS']}",
                 low=names["TEST_DURATION_MS"])]
    groups: dict[int, list[str]] = {}
    for model, spq in names["OFFLINE_MIN_SPQ_SINCE_V4"].items():
        groups.setdefault(spq, []).extend([model, *ALIASES.get(model, [])])
    for spq, ms in sorted(groups.items()):
        out.append(_rule(f"checker-offline-samples-per-query-{spq}", "detail", "samples_per_query", "samples",
                         {"model": sorted(ms), "scenario": SCENARIOS["Offline"]},
                         f"effective_samples_per_query of each closed-division Offline run of {', '.join(sorted(ms))} >= {spq} "
                         f"(performance_check.min_query_count_check, closed division): {SOURCE} @ {commit[:12]}, OFFLINE_MIN_SPQ_SINCE_V4 "
                         f"(line {where['OFFLINE_MIN_SPQ_SINCE_V4'][ms[0]]})", low=spq, divisions=["closed"]))
    counts: dict[int, list[str]] = {}
    cited: dict[int, tuple[str, str]] = {}
    for r in sorted(config, key=_round_order):
        for model, n in config[r]["performance-sample-count"].items():
            if model not in counts.get(n, []):
                counts.setdefault(n, []).extend([model, *ALIASES.get(model, [])])
                cited.setdefault(n, (r, model))
    for n, ms in sorted(counts.items()):
        r, m = cited[n]
        out.append(_rule(f"checker-performance-sample-count-{n}", "detail", "performance_sample_count", "samples", {"model": sorted(set(ms))},
                         f"effective_performance_sample_count of each closed- or network-division run of {', '.join(sorted(set(ms)))} >= {n} "
                         f"(performance_check.performance_sample_count_check): {SOURCE} @ {commit[:12]}, MODEL_CONFIG['{r}']['performance-sample-count']['{m}'] "
                         f"(line {where[r]['performance-sample-count'][m]}); one number per model in every round", low=n))
    out += dataset_rules(names, where, commit)
    for model, by_scenario in names["LLM_LATENCY_LIMITS"].items():
        for scenario, limits in by_scenario.items():
            for which, value in (("ttft", "ttft_p99"), ("tpot", "tpot_p99")):
                out.append(_rule(f"checker-llm-{model}-{scenario}-{which}", "detail", value, "ns",
                                 {"model": [model, *ALIASES.get(model, [])], "scenario": SCENARIOS[scenario]},
                                 f"the 99th percentile {which.upper()} of each closed- or network-division {model} {scenario} run < {limits[which]} ns, "
                                 f"written <= {limits[which] - 1} ns (LoadGen writes whole nanoseconds) (performance_check.llm_check): {SOURCE} @ {commit[:12]}, "
                                 f"LLM_LATENCY_LIMITS['{model}'] (line {where['LLM_LATENCY_LIMITS'][model]})", high=limits[which] - 1))
    return out


def dataset_rules(names: dict[str, Any], where: dict[str, Any], commit: str) -> list[dict[str, Any]]:
    """
    The accuracy run's sample count must be the model's accuracy-sample-count, else its dataset-size (accuracy_check.dataset_check).

    The checker reads LoadGen's `effective_accuracy_sample_count` where the log
    states it, else `qsl_reported_total_count`: two receipt sets of
    `accuracy/mlperf_log_detail.txt` split by that member's presence, each with
    its rule. Where rounds disagree (qwen3-vl Interactive) the newest is judged.
    """
    config = names["MODEL_CONFIG"]
    expected: dict[tuple[str, str | None], tuple[int, str, str]] = {}  # (model, scenario or None) -> (count, round, section)
    for r in sorted(config, key=_round_order):
        for model in config[r]["models"]:
            asc = config[r]["accuracy-sample-count"].get(model)
            if isinstance(asc, dict):
                for scenario, n in asc.items():
                    expected[(model, scenario)] = (n, r, "accuracy-sample-count")
                expected.pop((model, None), None)
            elif asc is not None:
                expected[(model, None)] = (asc, r, "accuracy-sample-count")
            else:
                expected[(model, None)] = (config[r]["dataset-size"][model], r, "dataset-size")
    groups: dict[tuple[int, str | None], list[tuple[str, str, str]]] = {}
    for (model, scenario), (n, r, section) in sorted(expected.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        groups.setdefault((n, scenario), []).append((model, r, section))
    out = []
    for (n, scenario), members in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        ms = sorted({a for m, _r, _s in members for a in [m, *ALIASES.get(m, [])]})
        cites = "; ".join(f"MODEL_CONFIG['{r}']['{section}']['{m}'] (line {where[r][section][m]})" for m, r, section in members)
        sel: dict[str, Any] = {"model": ms, **({"scenario": SCENARIOS[scenario]} if scenario else {})}
        for receipts, value, key in (("accuracy_log_counted", "accuracy_sample_count", "effective_accuracy_sample_count"),
                                     ("accuracy_log", "qsl_total_count", "qsl_reported_total_count")):
            tag = f"{n}" + (f"-{scenario}" if scenario else "")
            out.append(_rule(f"checker-accuracy-samples-{tag}" + ("" if receipts == "accuracy_log" else "-effective"), receipts, value, "samples", sel,
                             f"{key} of each closed- or network-division accuracy run (accuracy/mlperf_log_detail.txt) of {', '.join(ms)}"
                             f"{' in ' + scenario if scenario else ''} = {n} (accuracy_check.dataset_check; the checker reads "
                             f"{'effective_accuracy_sample_count where the log states it' if receipts != 'accuracy_log' else 'qsl_reported_total_count where the log states no effective_accuracy_sample_count'}): "
                             f"{SOURCE} @ {commit[:12]}, {cites}", low=n, high=n))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: mlperf_checker_rules.py CONSTANTS_PY COMMIT", file=sys.stderr)
        return 2
    try:
        names, where = read(Path(argv[0]))
    except (OSError, SyntaxError, ValueError) as exc:
        print(f"mlperf_checker_rules: {argv[0]}: {exc}", file=sys.stderr)
        return 2
    commit = argv[1]
    profile = json.loads(PROFILE.read_text())
    accuracy, unread = rules(names, where, commit)
    kept = [r for r in profile["gate"]["rules"] if not r["id"].startswith("checker-")]
    profile["gate"]["rules"] = kept + accuracy + performance_rules(names, where, commit)
    PROFILE.write_text(json.dumps(profile, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(accuracy)} accuracy/latency rules; not read: {'; '.join(unread)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
