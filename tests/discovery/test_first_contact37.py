"""
Defects of the first-contact trial on three public sets (issue 37, trial of 6 Dec 2026: SIMD-Exploration's
Google Benchmark output, rust-compression-comparison, woosh-benchmarks), each red before its fix.

Inputs are small and made up, modelled on those sets (the sets themselves are described in the tests'
docstrings); none is copied from the corpus.
"""

from __future__ import annotations

from decimal import Decimal

from verifier.prose.binding import Evidence, bind
from verifier.readers.claimtext import extract


def _median(name: str, value: str, unit: str | None) -> Evidence:
    return Evidence(name, Decimal(value), unit, "derived", f"median of {name}", statistic="median", keys=frozenset({name}))


def test_a_time_stated_where_the_wording_leaves_several_values_of_another_unit_is_not_a_unit_mismatch():
    """SIMD-Exploration's README: "The median execution time ... was 1.407 nanoseconds." against 84 medians in unit 1."""
    evidence = [_median(f"median.real_time[arm=BM_{i}]", str(i), "1") for i in range(1, 5)]
    [outcome] = bind(extract("The median execution time for the baseline was 1.407 nanoseconds.", "README.md"), evidence, [], {})
    assert (outcome.status, outcome.code) == ("UNVERIFIED", "unchecked-claim"), outcome.message
    assert "4 values" in outcome.message


def test_a_time_stated_where_the_wording_names_one_value_of_another_unit_is_still_a_unit_mismatch():
    evidence = [_median("median.throughput", "7", "tokens/s")]
    [outcome] = bind(extract("The median execution time was 1.407 nanoseconds.", "README.md"), evidence, [], {})
    assert (outcome.status, outcome.code) == ("FAIL", "unit-mismatch"), outcome.message


# ---------------------------------------------------------------- 1. a value's unit read from its record (`unit_from`)

import json  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from conftest import ROOT  # noqa: E402

from verifier.core import verify_path  # noqa: E402
from verifier.errors import ConfigError  # noqa: E402

GBENCH = ROOT / "tests" / "data" / "google-benchmark" / "arrow-tensor-conversion-benchmark.json"
FAMILY = "Int8RowMajorTensorConversionFixture<Int32Type>/ConvertToSparseCOOTensorInt32"


def _gbench(tmp_path: Path, change=None, name: str = "bench.json") -> Path:
    doc = json.loads(GBENCH.read_text())
    if change:
        change(doc)
    out = tmp_path / name
    out.write_text(json.dumps(doc, indent=2))
    return out


def _in_us(doc):
    """The family's rows written in microseconds (`--benchmark_time_unit=us`): every time / 1000, and its `time_unit` us."""
    for row in doc["benchmarks"]:
        if row["run_name"] == FAMILY:
            row["time_unit"] = "us"
            for member in ("real_time", "cpu_time"):
                row[member] = row[member] / 1000


def _claims(report):
    return {f.message.split(": ")[0]: f for f in report.findings if f.check == "derivation.claims" and f.code != "claim-unstated"}


def test_gbench_times_are_time_quantities_read_in_each_rows_time_unit(tmp_path):
    report = verify_path(str(_gbench(tmp_path, _in_us)))
    claims = _claims(report)
    us = claims[f"median.real_time[file=bench.json][arm={FAMILY}][time_unit=us]"]
    assert us.status == "PASS" and " us" in us.message, us.message
    assert not any(f.status == "FAIL" for f in report.findings)


def test_gbench_a_row_whose_time_unit_is_no_time_unit_fails_naming_it(tmp_path):
    def change(doc):
        _in_us(doc)
        doc["benchmarks"][0]["time_unit"] = "furlongs"
    report = verify_path(str(_gbench(tmp_path, change)))
    bad = [f for f in report.findings if f.check == "schema.documents" and f.code == "unit-mismatch"]
    assert bad and bad[0].status == "FAIL" and "'furlongs'" in bad[0].message and "/time_unit" in bad[0].message


def test_gbench_a_median_stated_in_nanoseconds_in_a_write_up_binds_to_the_row_in_microseconds(tmp_path):
    path = _gbench(tmp_path, _in_us)
    doc = json.loads(path.read_text())
    (median,) = [r for r in doc["benchmarks"] if r["run_name"] == FAMILY and r.get("aggregate_name") == "median"]
    text = f"The median execution time was {median['real_time'] * 1000:.0f} nanoseconds."
    report = verify_path(str(path.parent), claims_text=("pr.md", text))
    stated = [f for f in report.findings if f.check == "claims.stated"]
    assert stated and all(f.status != "FAIL" for f in stated), [f.message for f in stated]
    assert any(f.status == "PASS" and "median.real_time" in f.message for f in stated), [f.message for f in stated]


def _profile_with(unit_from: dict, unit: str = "s") -> dict:
    doc = json.loads((ROOT / "profiles" / "google-benchmark.json").read_text())
    doc["receipts"]["repetitions"]["values"]["real_time"].update(unit=unit, unit_from=unit_from)
    return doc


@pytest.mark.parametrize("unit_from, words", [
    ({"pointer": "/time_unit", "one_of": ["ns", "MB"]}, "one_of/1"),
    ({"pointer": "/time_unit", "one_of": ["ns", "fortnights?"]}, "unknown unit"),
])
def test_a_unit_from_admitting_a_unit_of_another_dimension_or_an_unknown_one_is_refused_at_load(unit_from, words):
    from verifier.profiles.language import load_profile
    from verifier.trust.assets import assets
    with pytest.raises(ConfigError) as exc:
        load_profile(_profile_with(unit_from), assets(str(ROOT)).schema("profile"), origin="p.json")
    assert words in str(exc.value)


# ---------------------------------------------------------------- 10. a counter no entry sets is no claim of the evidence

def test_gbench_counters_the_benchmark_never_sets_give_no_claim_unstated_group(tmp_path):
    """SIMD-Exploration's runs set no `SetBytesProcessed`: six `claim-unstated` groups for bytes/items per second were noise."""
    def change(doc):
        for row in doc["benchmarks"]:
            del row["bytes_per_second"], row["items_per_second"]
    report = verify_path(str(_gbench(tmp_path, change)))
    unstated = [f.message.split(":")[0] for f in report.findings if f.code == "claim-unstated"]
    assert not [m for m in unstated if "per_second" in m], unstated
    assert not any(f.status == "FAIL" for f in report.findings)


def test_gbench_a_counter_set_by_some_entries_is_still_claimed_where_stated(tmp_path):
    def change(doc):
        for row in doc["benchmarks"]:
            if row["run_name"] != FAMILY:
                row.pop("bytes_per_second", None)
    claims = _claims(verify_path(str(_gbench(tmp_path, change))))
    assert claims[f"mean.bytes_per_second[file=bench.json][arm={FAMILY}][time_unit=ns]"].status == "PASS"


# ---------------------------------------------------------------- 6. a repository's pinned profile before a shipped one

def test_a_pinned_repository_profile_is_chosen_over_a_shipped_one_that_also_matches(tmp_path):
    """The trial's trust root: `verify init`, a hand profile of Google Benchmark files pinned, `verify evidence/simd` -> exit 2."""
    from trustkit import git

    from verifier.trust.assets import assets
    from verifier.trust.trustroot import locate
    from verifier.commands.trustroot_cmds import init, pin

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    init(str(repo))
    own = json.loads((ROOT / "profiles" / "google-benchmark.json").read_text())
    own.update(id="team-gbench", description="the team's reading of its Google Benchmark files")
    (repo / "verify" / "profiles" / "team-gbench.json").write_text(json.dumps(own))
    pin(str(repo), assets())
    (repo / "evidence" / "simd").mkdir(parents=True)
    _gbench(repo / "evidence" / "simd")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "trust root")
    report = verify_path(str(repo / "evidence" / "simd"), trust=locate(repo / "evidence" / "simd", shipped=assets()))
    assert report.kind == "profile:team-gbench"


def test_several_matching_profiles_are_named_as_repository_or_shipped(tmp_path):
    from trustkit import git

    from verifier.errors import UsageError
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import locate
    from verifier.commands.trustroot_cmds import init, pin

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    init(str(repo))
    own = json.loads((ROOT / "profiles" / "google-benchmark.json").read_text())
    for ident in ("team-a", "team-b"):
        (repo / "verify" / "profiles" / f"{ident}.json").write_text(json.dumps({**own, "id": ident}))
    pin(str(repo), assets())
    (repo / "evidence" / "simd").mkdir(parents=True)
    _gbench(repo / "evidence" / "simd")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "trust root")
    with pytest.raises(UsageError) as exc:
        verify_path(str(repo / "evidence" / "simd"), trust=locate(repo / "evidence" / "simd", shipped=assets()))
    message = str(exc.value)
    assert "repository profiles: team-a, team-b" in message and "shipped profiles:" in message
    assert "team-a" not in message.split("shipped profiles:")[1]


# ---------------------------------------------------------------- 2. files without a suffix: sniffed, and a look-alike named

def test_discovery_reads_json_and_csv_files_without_a_suffix_by_their_content(tmp_path):
    """SIMD-Exploration writes `BENCHMARK_OUT=auto-vec-data`: nine JSON files with no suffix were skipped as of unread kinds."""
    from verifier.discovery.sources import read_sources

    (tmp_path / "auto-vec-data").write_text(json.dumps({"benchmarks": [{"name": "a", "real_time": 1.5}, {"name": "b", "real_time": 2.5}]}))
    (tmp_path / "timings").write_text("name,seconds\na,1.5\nb,2.5\n")
    (tmp_path / "LICENSE").write_text("Permission is hereby granted, free of charge, to any person\n")
    sources, skips, _tree = read_sources(tmp_path)
    read = {s.rel: s for s in sources}
    assert read["auto-vec-data"].doc["benchmarks"][1]["real_time"] == 2.5
    assert read["timings"].doc == [{"name": "a", "seconds": "1.5"}, {"name": "b", "seconds": "2.5"}]
    assert "LICENSE" not in read and any(s.rel == "LICENSE" and s.kind == "other-kind" for s in skips)


def test_discovery_names_the_shipped_profile_files_without_a_suffix_look_like(tmp_path):
    _gbench(tmp_path, name="auto-vec-data")
    report = verify_path(str(tmp_path))
    assert report.kind == "discovery"
    text = " ".join(f.message for f in report.findings)
    assert "look like google-benchmark output" in text and "auto-vec-data" in text and "*.json" in text, text


# ---------------------------------------------------------------- 3. one object per file, many files: data, not statements

def test_a_thousand_per_run_files_of_one_name_pattern_are_data_not_stated_numbers(tmp_path):
    """The trial's `run0000.json` .. `run0999.json` (one object each): "2000 stated number(s): 2000 unexplained"."""
    from verifier.discovery import discover

    for i in range(1000):
        (tmp_path / f"run{i:04d}.json").write_text(json.dumps({"latency_ms": 100 + i % 7, "tokens": 50 + i % 3}))
    disc = discover(tmp_path, seconds=60)
    assert disc.sets and not disc.stated, len(disc.stated)
    report = verify_path(str(tmp_path))
    assert [f.code for f in report.findings if f.check == "discovery.claims"] == ["nothing-to-bind"]


def test_a_few_per_run_summary_files_still_state_their_numbers(tmp_path):
    from verifier.discovery import discover

    for i in range(3):
        (tmp_path / f"run{i}.json").write_text(json.dumps({"latency_ms": 100 + i, "tokens": 50 + i}))
    assert len(discover(tmp_path, seconds=60).stated) == 6


# ---------------------------------------------------------------- 4. code blocks are shown text; small integers bind once

def _gbench_with_readme(tmp_path: Path, readme: str) -> Path:
    _gbench(tmp_path, lambda doc: doc["context"].update(json_schema_version=1, date="2022-09-02T16:11:56+01:00"), name="auto-vec-data.json")
    (tmp_path / "README.md").write_text(readme)
    return tmp_path


def test_discovery_lists_no_number_of_a_fenced_code_block(tmp_path):
    """SIMD-Exploration's README shows an example output in a fenced block: its `+01:00` and `"json_schema_version": 1` were drafted."""
    from verifier.discovery import discover

    readme = ('# Results\n\nAn example of the output:\n\n```json\n{"context": {"date": "2022-09-02T16:11:56+01:00", "json_schema_version": 1,\n'
              ' "num_cpus": 10}}\n```\n')
    disc = discover(_gbench_with_readme(tmp_path, readme), seconds=60)
    assert not [st for st in disc.stated if st.rel == "README.md"], [(st.pointer, st.text) for st in disc.stated if st.rel == "README.md"]


def test_several_small_numbers_are_never_bound_to_one_value_by_coincidence():
    """Ten `1`s of the README's example block were each bound to `json_schema_version`: a small integer recurs by chance."""
    from verifier.discovery import coincidences
    from verifier.discovery.classify import Verdict
    from verifier.discovery.context import Stated
    from verifier.discovery.search import Derivation

    def stated(pointer, text):  # one page
        return Stated("README.md", pointer, text, Decimal(text), None, {"json_schema_version"}, set(), set(), set(), "json_schema_version")

    version = Derivation("s1", "context/json_schema_version", "first", (), Decimal(1), 1, 0, "first of json_schema_version")
    cpus = Derivation("s1", "context/num_cpus", "first", (), Decimal(4), 1, 0, "first of num_cpus")
    mhz = Derivation("s1", "context/mhz_per_cpu", "first", (), Decimal(1805), 1, 0, "first of mhz_per_cpu")
    found = [stated("/prose/0/numbers/0", "1"), stated("/prose/1/numbers/0", "1"), stated("/prose/2/numbers/0", "4"),
             stated("/prose/3/numbers/0", "1805"), stated("/prose/4/numbers/0", "1805")]
    verdicts = [Verdict("bound", (version,)), Verdict("bound", (version,)), Verdict("bound", (cpus,)), Verdict("bound", (mhz,)), Verdict("bound", (mhz,))]
    kinds = [v.kind for v in coincidences(found, verdicts)]
    assert kinds == ["ambiguous", "ambiguous", "bound", "bound", "bound"]


# ---------------------------------------------------------------- 5. a fit's dimension agrees with the stated unit

def _fit(statistic: str, value: str, unit: str | None):
    from verifier.discovery.search import Derivation

    return Derivation("s1", "speed", statistic, (), Decimal(value), 10, 0, f"{statistic} of speed", unit=unit)


def test_a_percent_is_not_fit_by_a_difference_of_rates_nor_a_time_by_a_unitless_sum():
    """rust-compression-comparison: "50%" listed as a fit for a difference of MB/s; woosh: "1ms" for a sum of 'mean' = 1.1015."""
    from verifier.discovery.classify import unit_agrees
    from verifier.discovery.context import Stated

    def stated(text, unit):
        return Stated("README.md", "/prose/0/numbers/0", text, Decimal(text), unit, set(), set(), set(), set(), "")

    assert not unit_agrees(stated("50", "%"), _fit("difference", "50.09", "MB/s"))
    assert unit_agrees(stated("55", "%"), _fit("relative_reduction_pct", "55.4", "MB/s"))
    assert not unit_agrees(stated("1", "ms"), _fit("sum", "1.1015", None))
    assert unit_agrees(stated("1.1", "ms"), _fit("mean", "1.1", "s"))
    assert not unit_agrees(stated("2.19", "ms"), _fit("speedup", "2.19", "s"))
    assert unit_agrees(stated("0.18", "s"), _fit("mean", "0.1795", None))  # a member of no unit read in the base unit
    assert unit_agrees(stated("7", None), _fit("sum", "7", None))


def test_one_fit_is_not_called_several(tmp_path):
    """'1 derivations fit, none bound' labelled ambiguous contradicted the docs' "several derivations fit"."""
    from verifier.discovery.classify import Verdict
    from verifier.discovery.context import Stated
    from verifier.discovery.report import _finding

    st = Stated("README.md", "/prose/0/numbers/0", "5", Decimal(5), None, set(), set(), set(), set(), "")
    message = _finding(st, Verdict("ambiguous", (_fit("sum", "5", None),))).message
    assert "1 derivations" not in message, message


# ---------------------------------------------------------------- 7. small integers of a range phrase are configuration

def test_the_ends_of_a_range_of_settings_are_never_a_near_miss():
    """rust-compression-comparison (a real excerpt): "specific levels (1 to 10 inclusive)" was a near-miss against an sd of 40.43."""
    from verifier.discovery import discover

    disc = discover(ROOT / "tests" / "data" / "rust-compression-comparison", seconds=60)
    got = {st.text: v.kind for st, v in zip(disc.stated, disc.verdicts) if st.rel == "README.md" and "inclusive" in st.label and "1 to 10" in st.label}
    assert set(got) == {"1", "10"} and all(kind not in ("near-miss", "bound") for kind in got.values()), got


# ---------------------------------------------------------------- 8. locations printed in the form a profile takes

WOOSH_README = "# Results\n\n## Fenestra\n\n| source | woosh | tokenize |\n|---|---|---|\n| bytes | 418μs 2.19x | 915μs |\n"


def test_discovery_prints_a_number_inside_a_text_as_pointer_and_at_number(tmp_path):
    (tmp_path / "README.md").write_text(WOOSH_README)
    (tmp_path / "r.json").write_text(json.dumps({"benchmarks": [{"source": "bytes", "tokenizer": "woosh", "mean": 0.000418}] * 2}))
    report = verify_path(str(tmp_path))
    cells = [f for f in report.findings if f.check == "discovery.claims" and f.path == "README.md" and "418" in f.message]
    assert cells and all("#" not in (f.pointer or "") for f in cells), [(f.pointer, f.message) for f in cells]
    assert '"number": 0' in cells[0].message


def test_a_pasted_numbers_pointer_is_refused_naming_at_number(tmp_path):
    from verifier.profiles.language import load_profile
    from verifier.trust.assets import assets

    doc = json.loads((ROOT / "profiles" / "google-benchmark.json").read_text())
    doc["claims"] = [{"id": "c", "receipts": "repetitions", "statistic": "mean", "value": "real_time", "selection": {"phase": "measured"}, "unit": "s",
                      "at": {"file": "README.md", "pointer": "/tables/Fenestra/0/woosh#numbers/0"}}]
    with pytest.raises(ConfigError) as exc:
        load_profile(doc, assets(str(ROOT)).schema("profile"), origin="p.json")
    assert '"number": 0' in str(exc.value) and "/tables/Fenestra/0/woosh" in str(exc.value), str(exc.value)


# ---------------------------------------------------------------- 9. an integer's trailing zeros in prose are not significant

@pytest.mark.parametrize("text, derived, status", [
    ("The median was 4100 nanoseconds.", "4104", "PASS"),     # 4100: two significant digits, +/- 50 ns
    ("The median was 4110 nanoseconds.", "4113", "PASS"),     # 4110: three, +/- 5 ns
    ("The median was 4110 nanoseconds.", "4116", "FAIL"),
    ("The median was 4113 nanoseconds.", "4114", "FAIL"),     # no trailing zero: the units place
    ("The median was 4100.0 nanoseconds.", "4104", "FAIL"),   # a decimal point says every digit is significant
])
def test_trailing_zeros_of_an_integer_in_prose_are_not_significant(text, derived, status):
    evidence = [_median("median.real_time", derived, "ns")]
    [outcome] = bind(extract(text, "README.md"), evidence, [], {})
    assert outcome.status == status, outcome.message


def test_a_count_stated_with_trailing_zeros_is_still_exact():
    count = Evidence("count.requests", Decimal(104), None, "derived", "count of requests", statistic="count", keys=frozenset({"count"}))
    [outcome] = bind(extract("The run counted 100 requests.", "README.md"), [count], [], {})
    assert outcome.status != "PASS", outcome.message


# ---------------------------------------------------------------- 11. what docs/exit-codes.md says of --claims-text and draft

def test_claims_text_runs_on_a_profile_read_folder_and_exits_2_on_discovery(run, tmp_path):
    (tmp_path / "g").mkdir()
    _gbench(tmp_path / "g")
    (tmp_path / "pr.md").write_text("The median was 88573 nanoseconds.\n")
    assert run("--claims-text", str(tmp_path / "pr.md"), str(tmp_path / "g")).exit_code != 2
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "r.csv").write_text("a,b\n1,2\n3,4\n")
    assert run("--claims-text", str(tmp_path / "pr.md"), str(tmp_path / "d")).exit_code == 2


def test_profile_draft_with_nothing_bound_exits_2_and_writes_nothing(run, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "README.md").write_text("# Notes\n\nNothing measured here.\n")
    result = run("profile", "draft", str(tmp_path / "d"), "-o", str(tmp_path / "p.json"))
    assert result.exit_code == 2 and not (tmp_path / "p.json").exists()
