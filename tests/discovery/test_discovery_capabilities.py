"""Discovery's capabilities for issue 37's agreement: each binds its number, and its number changed in the last place is never bound."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT

CORPUS = ROOT.parent / "shared" / "corpus"
FASTH3 = CORPUS / "vllm-omni-rankings-fasth3-vae-int8"
SYSTEM1 = CORPUS / "system1-omni-gdn-20261003"


def _kinds(folder: Path, rel: str) -> dict[str, str]:
    """Verdict kind by pointer of the stated numbers of file `rel`."""
    from verifier.discovery import discover

    disc = discover(folder, seconds=600)
    return {s.pointer: v.kind for s, v in zip(disc.stated, disc.verdicts) if s.rel == rel}


def _verdicts(folder: Path, rel: str) -> dict[str, object]:
    from verifier.discovery import discover

    disc = discover(folder, seconds=600)
    return {s.pointer: v for s, v in zip(disc.stated, disc.verdicts) if s.rel == rel}


def _changed(tmp_path: Path, source: Path, rel: str, old: str, new: str) -> Path:
    """A copy of `source` with `old` replaced by `new` (once) in file `rel`."""
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    doc = folder / rel
    text = doc.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    doc.write_text(text.replace(old, new), encoding="utf-8")
    return folder


# -- ordinal dimensions from array position (system1's per-server kernel figures) --

def test_an_element_of_a_short_array_selects_the_ordinal_dimension_its_position_names():
    verdicts = _verdicts(SYSTEM1, "kernel/analysis/summary.json")
    first, second = verdicts["/shapes/0/baseline_ms/0"], verdicts["/shapes/0/baseline_ms/1"]
    assert first.kind == "bound" and second.kind == "bound"
    assert ("pass", "1") in first.derivations[0].selection and ("pass", "2") in second.derivations[0].selection
    assert verdicts["/shapes/1/reduction_percent/1"].kind == "bound"
    assert verdicts["/shapes/1/reduction_percent/1"].derivations[0].statistic == "relative_reduction_pct"


def test_an_array_element_changed_in_its_last_place_is_not_bound(tmp_path):
    folder = _changed(tmp_path, SYSTEM1, "kernel/analysis/summary.json", "0.05129078", "0.05129079")
    assert _kinds(folder, "kernel/analysis/summary.json")["/shapes/0/baseline_ms/0"] in ("near-miss", "unexplained")


def test_the_elements_of_a_short_array_no_dimension_enumerates_are_raw_data_not_stated(tmp_path):
    (tmp_path / "export.json").write_text(json.dumps({"runs": [{"command": "a", "mean": 2.5, "times": [2.25, 2.75]},
                                                               {"command": "b", "mean": 3.5, "times": [3.25, 3.75]}]}))
    assert not any("/times/" in p for p in _kinds(tmp_path, "export.json"))


# -- statistic and count words of other languages; a group found by value (fasth3's index.html) --

def test_chinese_prose_names_the_mean_the_first_request_the_saving_and_the_count():
    kinds = _kinds(FASTH3, "index.html")
    assert kinds["/prose/8/numbers/0"] == "bound"  # 17.4168 s 五次完整请求平均: the mean of five
    assert kinds["/prose/9/numbers/1"] == "bound"  # 正式请求 1 17.451 s: the first
    assert kinds["/prose/34/numbers/0"] == "bound" and kinds["/prose/34/numbers/1"] == "bound"  # 平均减少 1.344 秒（7.72%）
    assert kinds["/tables/当前最佳 + INT8 ConvRot/5/对比条件#numbers/1"] == "bound"  # 每组 ... 5 次正式请求
    assert kinds["/tables/当前最佳 + INT8 ConvRot/5/对比条件#numbers/0"] != "bound"  # 每组 1 次预热: one warm-up each, no record set holds them


@pytest.mark.parametrize(("old", "new", "pointer"), [
    ("<strong>17.4168<span>", "<strong>17.4169<span>", "/prose/8/numbers/0"),
    ("正式请求 1<br><b>17.451 s", "正式请求 1<br><b>17.452 s", "/prose/9/numbers/1"),
    ("平均减少 1.344 秒", "平均减少 1.345 秒", "/prose/34/numbers/0"),
    ("（7.72%）", "（7.73%）", "/prose/34/numbers/1"),
    ("、5 次正式请求", "、6 次正式请求", "/tables/当前最佳 + INT8 ConvRot/5/对比条件#numbers/1"),
], ids=["mean", "first", "difference", "reduction", "count-each"])
def test_chinese_prose_changed_in_its_last_place_is_not_bound(tmp_path, old, new, pointer):
    folder = _changed(tmp_path, FASTH3, "index.html", old, new)
    assert _kinds(folder, "index.html")[pointer] in ("near-miss", "unexplained", "ambiguous")


def test_the_count_the_context_states_must_agree_with_the_group_found_by_value(tmp_path):
    folder = _changed(tmp_path, FASTH3, "index.html", "<strong>17.4168<span> s</span></strong><span class=\"metric-label\">五次",
                      "<strong>17.4168<span> s</span></strong><span class=\"metric-label\">四次")
    assert _kinds(folder, "index.html")["/prose/8/numbers/0"] != "bound"  # four requests: the five of /videos/0 are not what it says


def test_the_vocabulary_finds_words_inside_unspaced_text():
    from verifier.discovery.context import counted, tokens

    assert {"mean", "request"} <= tokens("五次完整请求平均") and "median" in tokens("中位数") and "sd" in tokens("标准差")
    assert tokens("mean latency") == {"mean", "latency"}
    assert counted("17.4168 s 五次完整请求平均") == 5 and counted("每组 1 次预热、5 次正式请求") is None and counted("five runs") is None


# -- a statistic of per-group means across a named dimension --

def _two_step(folder: Path, stated: str) -> Path:
    folder.mkdir()
    (folder / "runs.json").write_text(json.dumps({"runs": [{"server": 1, "latency_s": 1.0}, {"server": 1, "latency_s": 2.0},
                                                           {"server": 1, "latency_s": 3.0}, {"server": 2, "latency_s": 10.0}]}))
    (folder / "summary.json").write_text('{"latency_mean_of_server_means_s": ' + stated + "}")
    return folder


def test_a_mean_of_server_means_binds_as_a_two_step_derivation(tmp_path):
    verdict = _verdicts(_two_step(tmp_path / "a", "6.000"), "summary.json")["/latency_mean_of_server_means_s"]
    assert verdict.kind == "bound", verdict
    d = verdict.derivations[0]
    assert d.groups == "server" and d.statistic == "mean" and d.n == 2  # (2 + 10) / 2, not the pooled 4


def test_a_two_step_number_changed_in_its_last_place_is_not_bound(tmp_path):
    assert _kinds(_two_step(tmp_path / "a", "6.001"), "summary.json")["/latency_mean_of_server_means_s"] in ("near-miss", "unexplained")


def test_the_draft_leaves_a_two_step_derivation_out_with_a_note(tmp_path):
    from verifier.discovery import discover
    from verifier.discovery.draft import draft_profile

    folder = _two_step(tmp_path / "a", "6.000")
    with pytest.raises(ValueError, match="per-server means"):
        draft_profile(discover(folder, seconds=600), "two-step")


# -- h3's shapes: a table restated in two files, `vs` naming the other side, a case's attributes --

def _h3_like(folder: Path, summary: dict, speedups: bool = True) -> Path:
    """Per-task rows of two cases (an attribute `dit` goes with each case) in results.json and the same in results.csv."""
    folder.mkdir()
    rows = [{"case": "bf16", "task": "t2v", "dit": "BF16", "text_encoder": "BF16", "wall_time_s": 60.0, "speedup_vs_bf16": 1.0},
            {"case": "bf16", "task": "i2v", "dit": "BF16", "text_encoder": "BF16", "wall_time_s": 70.0, "speedup_vs_bf16": 1.0},
            {"case": "fp8", "task": "t2v", "dit": "FP8", "text_encoder": "MLP", "wall_time_s": 48.0, "speedup_vs_bf16": 1.25},
            {"case": "fp8", "task": "i2v", "dit": "FP8", "text_encoder": "MLP", "wall_time_s": 56.93, "speedup_vs_bf16": 70.0 / 56.93}]
    if not speedups:
        rows = [{k: v for k, v in r.items() if k != "speedup_vs_bf16"} for r in rows]
    (folder / "results.json").write_text(json.dumps(rows))
    keys = list(rows[0])
    (folder / "results.csv").write_text("\n".join([",".join(keys)] + [",".join(str(r[k]) for k in keys) for r in rows]) + "\n")
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def test_a_mean_named_vs_a_case_is_not_selected_by_that_case_and_a_copied_table_counts_once(tmp_path):
    mean = (1.25 + 70.0 / 56.93) / 2
    folder = _h3_like(tmp_path / "a", [{"case": "fp8", "tasks": 2, "mean_speedup_vs_bf16": round(mean, 6)}])
    verdict = _verdicts(folder, "summary.json")["/0/mean_speedup_vs_bf16"]
    assert verdict.kind == "bound", verdict
    assert verdict.derivations[0].statistic == "mean" and ("case", "fp8") in verdict.derivations[0].selection
    changed = _h3_like(tmp_path / "b", [{"case": "fp8", "tasks": 2, "mean_speedup_vs_bf16": round(mean, 6) + 0.000001}])
    assert _kinds(changed, "summary.json")["/0/mean_speedup_vs_bf16"] in ("near-miss", "unexplained")


def test_a_speedup_compares_the_case_with_the_baseline_case_whatever_attributes_go_with_each(tmp_path):
    folder = _h3_like(tmp_path / "a", {}, speedups=False)
    (folder / "RESULTS.md").write_text("| Case | Task | DiT | Speedup |\n|---|---|---|---:|\n| `fp8` | `t2v` | FP8 | 1.250x |\n")
    verdict = _verdicts(folder, "RESULTS.md")
    (pointer,) = [p for p in verdict if p.endswith("/Speedup")]
    assert verdict[pointer].kind == "bound", verdict[pointer]
    d = verdict[pointer].derivations[0]
    assert d.statistic == "speedup" and (d.baseline, d.candidate) == ("bf16", "fp8")
    (folder / "RESULTS.md").write_text("| Case | Task | DiT | Speedup |\n|---|---|---|---:|\n| `fp8` | `t2v` | FP8 | 1.251x |\n")
    assert _kinds(folder, "RESULTS.md")[pointer] in ("near-miss", "unexplained")


def test_significant_digits_count_as_written():
    from decimal import Decimal

    from verifier.discovery.classify import _digits
    from verifier.discovery.context import Stated

    def stated(text):
        return Stated("a.md", "/x", text, Decimal(text), None, set(), set(), set(), set(), "x")

    assert _digits(stated("59.00")) == 4 and _digits(stated("120")) == 2 and _digits(stated("1.0")) == 2 and _digits(stated("0.0512")) == 3


def test_balanced_groups_still_bind_a_mean_of_server_means(tmp_path):
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "runs.json").write_text(json.dumps({"runs": [{"server": 1, "latency_s": 1.0}, {"server": 1, "latency_s": 3.0},
                                                           {"server": 2, "latency_s": 10.0}, {"server": 2, "latency_s": 12.0}]}))
    (folder / "summary.json").write_text('{"latency_mean_of_server_means_s": 6.500}')
    assert _kinds(folder, "summary.json")["/latency_mean_of_server_means_s"] == "bound"


def test_a_member_the_label_shares_a_word_with_is_preferred_to_one_that_rounds_alike(tmp_path):
    folder = _h3_like(tmp_path / "a", {})
    rows = json.loads((folder / "results.json").read_text())
    for r, q in zip(rows, (1.0, 1.0, 1.23, 1.25)):
        r["quality_vs_bf16"] = q  # its fp8 mean 1.24 rounds as the mean speedup (1.2398) does
    (folder / "results.json").write_text(json.dumps(rows))
    (folder / "results.csv").unlink()
    (folder / "RESULTS.md").write_text("| Case | Mean speedup |\n|---|---:|\n| `fp8` | 1.24x |\n")
    verdict = next(v for p, v in _verdicts(folder, "RESULTS.md").items() if p.endswith("Mean speedup"))
    assert verdict.kind == "bound" and verdict.derivations[0].member == "speedup_vs_bf16", verdict


def test_a_group_found_by_value_binds_a_number_of_fewer_than_three_digits_never():
    from decimal import Decimal

    from verifier.discovery.classify import classify
    from verifier.discovery.context import Stated
    from verifier.discovery.search import Derivation, Search

    st = Stated("a.md", "/x", "5.5", Decimal("5.5"), None, {"mean"}, set(), set(), set(), "mean")
    fit = Derivation("s1", "x", "mean", (("#at", "/0"),), Decimal("5.5"), 4, 0, "mean of 4", member_named=True, member_hint=True, enumerated=True)
    assert classify(st, Search([fit], [], "mean", set())).kind == "ambiguous"
    assert classify(st, Search([Derivation(**{**fit.__dict__, "enumerated": False})], [], "mean", set())).kind == "bound"


def test_a_count_for_each_group_needs_its_context_to_say_each(tmp_path):
    folder = _changed(tmp_path, FASTH3, "index.html", "每组 1 次预热、5 次正式请求", "1 次预热、5 次正式请求")
    kinds = _kinds(folder, "index.html")
    assert kinds["/tables/当前最佳 + INT8 ConvRot/5/对比条件#numbers/1"] != "bound"  # 5 requests, but of which group the context does not say
    assert kinds["/tables/当前最佳 + INT8 ConvRot/5/对比条件#numbers/0"] != "bound"  # nor 1 warm-up (1 record of each side is a coincidence)


@pytest.mark.parametrize(("stated", "kind"), [("22.73", "bound"), ("22.74", "unexplained")])
def test_a_mean_reduction_with_no_mean_of_reductions_is_the_reduction_of_the_means(tmp_path, stated, kind):
    (tmp_path / "runs.json").write_text(json.dumps([{"arm": "base", "latency_s": 10.0}, {"arm": "base", "latency_s": 12.0},
                                                    {"arm": "fast", "latency_s": 8.0}, {"arm": "fast", "latency_s": 9.0}]))
    (tmp_path / "summary.json").write_text('{"mean_latency_reduction_pct": ' + stated + "}")  # (1 - 8.5 / 11) * 100 = 22.727...
    verdict = _verdicts(tmp_path, "summary.json")["/mean_latency_reduction_pct"]
    assert verdict.kind == kind, verdict
    if kind == "bound":
        assert verdict.derivations[0].statistic == "relative_reduction_pct"


def test_a_changed_mean_speedup_binds_neither_member(tmp_path):
    folder = _h3_like(tmp_path / "a", {})
    (folder / "results.csv").unlink()
    (folder / "RESULTS.md").write_text("| Case | Mean speedup |\n|---|---:|\n| `fp8` | 1.25x |\n")  # 1.2398 and 1.2389 both read 1.24
    assert next(v for p, v in _verdicts(folder, "RESULTS.md").items() if p.endswith("Mean speedup")).kind in ("near-miss", "unexplained")


@pytest.mark.parametrize(("stated", "kind"), [("29.4%", "bound"), ("29.5%", "not bound")])
def test_mean_memory_saved_is_the_mean_of_the_savings_before_the_saving_of_the_means(tmp_path, stated, kind):
    raw = tmp_path / "raw"
    raw.mkdir()
    for name, peak in (("base-t1", 100.0), ("base-t2", 100.0), ("fast-t1", 70.0), ("fast-t2", 71.2)):
        (raw / f"{name}.json").write_text(json.dumps({"peak_mib": peak}))
    (tmp_path / "results.json").write_text(json.dumps([{"case": "base", "task": "t1", "reduction_pct": 0.0, "wall_s": 9.5},
                                                       {"case": "base", "task": "t2", "reduction_pct": 0.0, "wall_s": 9.75},
                                                       {"case": "fast", "task": "t1", "reduction_pct": 30.0, "wall_s": 8.5},
                                                       {"case": "fast", "task": "t2", "reduction_pct": 28.8, "wall_s": 8.75}]))  # no word in common with the label
    (tmp_path / "RESULTS.md").write_text(f"| Case | Mean memory saved |\n|---|---:|\n| `fast` | {stated} |\n")  # both readings give 29.4
    verdict = next(v for p, v in _verdicts(tmp_path, "RESULTS.md").items() if p.endswith("Mean memory saved"))
    assert verdict.kind == kind or (kind == "not bound" and verdict.kind in ("near-miss", "unexplained")), verdict
    if kind == "bound":
        assert verdict.derivations[0].statistic == "mean" and verdict.derivations[0].member == "reduction_pct"


def test_a_mean_of_balanced_server_means_in_a_named_arm_is_the_one_step_mean(tmp_path):
    (tmp_path / "runs.json").write_text(json.dumps([{"arm": a, "server": s, "latency_s": x} for a, s, x in (
        ("base", 1, 1.0), ("base", 1, 3.0), ("base", 2, 10.0), ("base", 2, 12.0), ("fast", 1, 0.5), ("fast", 2, 0.75))]))
    (tmp_path / "summary.json").write_text(json.dumps({"arms": [{"arm": "base", "latency_mean_of_server_means_s": 6.500}]}))
    verdict = _verdicts(tmp_path, "summary.json")["/arms/0/latency_mean_of_server_means_s"]
    assert verdict.kind == "bound" and verdict.derivations[0].groups is None, verdict  # equal groups: (2 + 11) / 2 is the mean of all four


def test_a_member_that_is_a_comparison_already_is_not_compared_again(tmp_path):
    folder = _h3_like(tmp_path / "a", {}, speedups=False)
    rows = json.loads((folder / "results.json").read_text())
    for r, peak, psnr in zip(rows, (200.0, 210.0, 150.0, 160.0), (None, None, 30.0, 40.0)):
        r["peak_mib"] = peak
        if psnr is not None:
            r["psnr_vs_bf16"] = psnr  # fp8's t2v against its i2v: (1 - 30 / 40) * 100 = 25.0 as well, a coincidence of two comparisons
    (folder / "results.json").write_text(json.dumps(rows))
    (folder / "results.csv").unlink()
    (folder / "RESULTS.md").write_text("| Case | Task | DiT | Memory saved |\n|---|---|---|---:|\n| `fp8` | `t2v` | FP8 | 25.0% |\n")
    verdict = next(v for p, v in _verdicts(folder, "RESULTS.md").items() if p.endswith("Memory saved"))
    assert verdict.kind == "bound" and verdict.derivations[0].member == "peak_mib", verdict  # (1 - 150 / 200) * 100
