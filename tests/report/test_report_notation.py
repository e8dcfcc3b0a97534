"""
Issue 41 ("Numbers" and "SARIF records no absolute path" under Why; What to build item 4): one notation for a
comparison's tolerance and delta in every message and report format, and no absolute path in JUnit either.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from bundlekit import edit_json, rehash
from conftest import EXAMPLE

from verifier.model.findings import Finding, Report, Status
from verifier.report import REPORTERS, render

#: A tolerance or delta and the number written after it (`tolerance 0.005 s`, `delta -0.05`, `|diff| 2.6e-07 <= 1e-06`).
_AFTER = re.compile(r"(?:tolerance|delta|diff|difference)\W{0,6}?(?:<=\s*|>\s*|of\s*)?(-?\d[\d.]*(?:[eE][-+]?\d+)?)", re.IGNORECASE)


def _bad_numbers(text: str) -> list[str]:
    """Return each number written after a tolerance or delta word in exponent form or with more than 12 significant digits."""
    bad = []
    for m in _AFTER.finditer(text):
        number = m.group(1)
        digits = number.lstrip("-").replace(".", "").lstrip("0")
        if re.search(r"[eE][-+]?\d", number) or len(digits) > 12:
            bad.append(text[max(0, m.start() - 60):m.end() + 10])
    return bad


#: The machine formats, whose values stay exact by design: only their messages are read (every other format in full).
MACHINE_MESSAGES = {
    "json": lambda text: [f["message"] for f in json.loads(text)["findings"]],
    "sarif": lambda text: [r["message"]["text"] for r in json.loads(text)["runs"][0]["results"]],
}


def _human_text(report: Report) -> str:
    """Every human-readable format of `REPORTERS` in full, and the messages of the machine formats (`MACHINE_MESSAGES`)."""
    parts = []
    for fmt in REPORTERS:
        text = render(report, fmt)
        parts += MACHINE_MESSAGES[fmt](text) if fmt in MACHINE_MESSAGES else [text]
    return html.unescape("\n".join(parts))  # `&lt;= 1e-06` in HTML and XML reads `<= 1e-06`


@pytest.fixture(scope="module")
def example_and_fail_copy(tmp_path_factory) -> list[Report]:
    from verifier.core import verify_path

    bundle = tmp_path_factory.mktemp("notation") / "fail-copy"
    shutil.copytree(EXAMPLE, bundle)
    edit_json(bundle / "claims.json", lambda d: d["claims"][0].update(value=Decimal("380.00")))
    rehash(bundle)
    return [verify_path(str(EXAMPLE)), verify_path(str(bundle))]


def test_no_report_of_the_example_or_its_fail_copy_writes_a_tolerance_or_delta_in_exponent_form(example_and_fail_copy):
    example, failing = example_and_fail_copy
    assert (example.verdict, failing.verdict) == ("PASS", "FAIL")
    for report in example_and_fail_copy:
        text = _human_text(report)
        assert "tolerance" in text and "delta" in text
        assert _bad_numbers(text) == []


def test_the_fail_copy_states_delta_and_tolerance_in_the_one_notation(example_and_fail_copy):
    message = next(f.message for f in example_and_fail_copy[1].findings if f.check == "derivation.claims" and f.status is Status.FAIL)
    assert message.endswith("(delta -16.3 s, tolerance 0.005 s)"), message
    rescored = [f.message for f in example_and_fail_copy[0].findings if f.check == "quality.rescore" and "re-computes" in f.message]
    assert rescored and all(re.search(r"\(delta (0|-?0\.0000\d+), tolerance 0\.000001\)$", m) for m in rescored), rescored[:2]


def test_a_count_claim_writes_no_dimensionless_unit(tmp_path):
    """Issue 41, Why: "count = 5 1" (a count stated with the dimensionless unit `1` wrote it after the number)."""
    from verifier.core import verify_path

    bundle = tmp_path / "unit-one"
    shutil.copytree(EXAMPLE, bundle)

    def unit_one(doc):
        for claim in doc["claims"]:
            if claim["id"] == "count.requests":
                claim["unit"] = "1"
            elif claim["id"] == "count.comparisons":
                claim.update(unit="1", value=15)
    edit_json(bundle / "claims.json", unit_one)
    rehash(bundle)
    report = verify_path(str(bundle))
    found = {f.message.split(" ", 1)[0]: f.message for f in report.findings if f.check == "derivation.claims" and f.message.startswith("count.")}
    assert found["count.requests"] == "count.requests = 20 re-derives (20, tolerance 0.5)", found
    assert found["count.comparisons"] == "count.comparisons claims 15, the receipts give 14 (delta 1, tolerance 0.5)", found
    assert not re.search(r"\b1[45] 1\b|\b20 1\b", _human_text(report))


def test_the_checker_itself_flags_exponents_and_long_digits():
    assert _bad_numbers("(|diff| 2.6e-07 <= 1e-06)") and _bad_numbers("tolerance 0.005000000000016") and _bad_numbers("delta 1E+2")
    assert _bad_numbers("(tolerance 1e-06)") and not _bad_numbers("(delta -0.05 s, tolerance 0.005 s)")


@pytest.mark.parametrize(("value", "unit", "shown"), [
    (Decimal("0.00500000000016"), "s", "tolerance 0.005 s"), (1e-06, None, "tolerance 0.000001"), (Decimal("5E-7"), "1", "tolerance 0.0000005"),
    (Decimal("0.50"), None, "tolerance 0.5"), (Decimal("500"), "ms", "tolerance 500 ms")])
def test_a_tolerance_is_written_one_way(value, unit, shown):
    from verifier.model.numtext import tolerance_text

    assert tolerance_text(value, unit) == shown


@pytest.mark.parametrize(("value", "kwargs", "shown"), [
    (Decimal("1.99749920200"), {}, "delta 1.997499202"), ("0E-8", {}, "delta 0"), (2.6e-07, {"digits": 2}, "delta 0.00000026"),
    (Decimal("-16.300"), {"unit": "s"}, "delta -16.3 s"), (Decimal("48.3751968918918919"), {}, "delta 48.3751968919")])
def test_a_delta_is_written_one_way(value, kwargs, shown):
    from verifier.model.numtext import delta_text

    assert delta_text(value, **kwargs) == shown


def test_junit_records_no_absolute_path_when_the_bundle_is_given_absolutely(tmp_path):
    """The rule SARIF follows (`sarif._relative`): a bundle given absolutely is recorded by its last component."""
    finding = Finding(check="integrity.files", status=Status.FAIL, code="sha256-mismatch", message="m", path="a.json")
    report = Report(subject=str(tmp_path / "bundle") + "/", kind="bundle-v1", verifier_version="0", roster=(), findings=(finding,))
    text = render(report, "junit")
    assert str(tmp_path) not in text
    assert 'name="bundle"' in text
    single = Report(subject=str(tmp_path / "r.json"), kind="serving-performance-v1", verifier_version="0", roster=(),
                    findings=(Finding(check="schema.documents", status=Status.FAIL, code="x", message="m", path="r.json"),))
    assert str(tmp_path) not in render(single, "junit")
    relative = Report(subject="evidence/b", kind="bundle-v1", verifier_version="0", roster=(), findings=(finding,))
    assert 'name="evidence/b"' in render(relative, "junit")  # a relative path is kept as given


def test_every_machine_format_named_is_registered():
    """A format is read in full unless named a machine format here: a name left after its format is gone is a stale list."""
    assert set(MACHINE_MESSAGES) <= set(REPORTERS), sorted(set(MACHINE_MESSAGES) - set(REPORTERS))



CORPUS = Path(__file__).resolve().parent.parents[2] / "shared" / "corpus"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not here")
@pytest.mark.parametrize("name", ["vllm-omni-rankings-h3-online-fp8", "mlperf-inference-test-submissions-v5.0", "system1-omni-gdn-20261003"])
def test_profile_read_reports_write_tolerance_and_delta_the_same_way(name):
    from verifier.core import verify_path

    report = verify_path(str(CORPUS / name))
    assert _bad_numbers(_human_text(report)) == []
    claims = [f.message for f in report.findings if f.check == "derivation.claims" and f.code in ("derived", "claim-mismatch") and ": stated " in f.message]
    assert claims and all(re.search(r"\((delta -?[\d.]+( \S+)?, )?tolerance [\d.]+( \S+)?\)$", m) for m in claims), claims[:3]
    if name.startswith("vllm-omni-rankings-h3"):
        assert "dlo.saved_pct_streaming: stated 32.1 %, derived 32.0499 % (delta 0.0501 %, tolerance 0.05 %)" in claims
        assert any(m.endswith("stated 67.38 s, derived 67.38 s (tolerance 0.005 s)") for m in claims)


@pytest.mark.parametrize(("delta", "places", "extra", "shown"), [
    ("-45.4090909095454545", 4, 7, "-45.4090909095"), ("-45.4090909095454545", 4, 8, "-45.4090909095"),
    ("0.123456789012345", 2, 2, "0.1235"), ("-7E-17", 2, 2, "-0.00000000000000007")])
def test_a_tables_delta_is_rounded_once(delta, places, extra, shown):
    """Past 12 significant digits a delta is written at 12, rounded once from its exact value: the claims table read -45.4090909096
    (rounded at 11 places to ...90955, then half-even to ...096) where the finding's message and the exact delta read ...9095 (trial #11)."""
    from verifier.report._common import delta_shown

    assert delta_shown(delta, places, extra) == shown
