"""
`verify --claims-text FILE BUNDLE`: a pull-request body whose every number is bound, and bad claim texts.

The example PR text `examples/ref2va-5s-pr.md` is modelled on the seed's
(`shared/seeds/ref2va-campaign-review.txt`); changing any one of its stated
quantities, or its "% lower" into "% faster", must FAIL naming that number.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import EXAMPLE, ROOT

from verifier.prose.binding import bind
from verifier.formats.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.readers.claimtext import extract
from verifier.engine.pipeline import Context, run_pipeline
from verifier.trust.assets import assets

PR = ROOT / "examples" / "ref2va-5s-pr.md"


@pytest.fixture(scope="module")
def example_evidence():
    """Return `(evidence, pairs, keys)` of the shipped example (the checks before `claims.stated` run first)."""
    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE))
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    return statements.collect_all(ctx)[:3]


def judge(text: str, evidence) -> list:
    return bind(extract(text, "pr.md"), *evidence)


def test_pr_text_verifies_with_nothing_unchecked(run):
    result = run("check", "-f", "json", str(EXAMPLE), "--claims-text", str(PR))
    document = json.loads(result.stdout)
    assert result.exit_code == 0, [f["message"] for f in document["findings"] if f["status"] != "PASS"]
    mine = [f for f in document["findings"] if f["check"] == "claims.stated" and f["observed"]["source"] == str(PR)]
    assert len(mine) >= 25 and all(f["status"] == "PASS" for f in mine)
    assert {f["code"] for f in mine} >= {"bound", "plan-count", "gate-threshold", "recorded-score", "informational"}


def _bump(number: str) -> str:
    last = number[-1]
    return number[:-1] + ("8" if last == "9" else str(int(last) + 1))


def _variants():
    text = PR.read_text(encoding="utf-8")
    for q in extract(text, "pr.md"):
        if q.informational:
            continue  # identifiers (commit ids) are not quantities: changing one changes no claim
        lines = text.split("\n")
        line = lines[q.line - 1]
        at = q.column - 1
        assert line[at:at + len(q.number)] == q.number
        lines[q.line - 1] = line[:at] + _bump(q.number) + line[at + len(q.number):]
        yield pytest.param("\n".join(lines), q.line, q.column, _bump(q.number), id=f"{q.line}:{q.column}:{q.number}")


def test_pr_text_has_the_quantities_the_issue_names():
    stated = [q.stated for q in extract(PR.read_text(encoding="utf-8"), "pr.md") if not q.informational]
    assert {"407.27 s", "108.12 s", "73.45 %", "3.77 x", "20 requests", "14", "32", "0.80", "0.977337"} <= set(stated)
    assert len(stated) >= 25


@pytest.mark.parametrize(("text", "line", "column", "changed"), list(_variants()))
def test_changing_any_stated_number_fails_naming_it(text, line, column, changed, example_evidence):
    outcomes = judge(text, example_evidence)
    bad = [o for o in outcomes if o.status != "PASS"]
    assert [(o.status, o.quantity.line, o.quantity.column, o.quantity.number) for o in bad] == [("FAIL", line, column, changed)], \
        [o.message for o in bad]


def test_lower_into_faster_fails_as_wording_mismatch(example_evidence):
    text = PR.read_text(encoding="utf-8").replace("73.45% lower", "73.45% faster")
    bad = [o for o in judge(text, example_evidence) if o.status != "PASS"]
    assert [(o.status, o.code, o.quantity.stated) for o in bad] == [("FAIL", "wording-mismatch", "73.45 %")]
    assert "73.45% faster" in bad[0].quantity.sentence


def test_failing_pr_text_exits_1_and_names_the_sentence(run, tmp_path):
    path = tmp_path / "pr.md"
    path.write_text(PR.read_text(encoding="utf-8").replace("407.27 → 108.12 s", "407.27 → 98.12 s"), encoding="utf-8")
    result = run("check", str(EXAMPLE), "--claims-text", str(path))
    assert result.exit_code == 1
    line = next(row for row in result.stdout.splitlines() if row.startswith("FAIL"))
    assert "claims.stated [claim-mismatch]" in line and f"{path}:5:" in line and "98.12 s" in line and "407.27 → 98.12 s HTTP E2E" in line


def test_unchecked_number_in_pr_text_is_incomplete_never_pass(run, tmp_path):
    path = tmp_path / "pr.md"
    path.write_text(PR.read_text(encoding="utf-8") + "\nMean sampled peak HBM rises 3.10%.\n", encoding="utf-8")
    result = run("check", str(EXAMPLE), "--claims-text", str(path))
    assert result.exit_code == 3
    assert re.search(r"UNVERIFIED +claims.stated \[unchecked-claim\] .*pr.md:\d+:\d+: 3.10 %", result.stdout)


@pytest.mark.parametrize(("content", "message"), [
    (b"\xff\xfe407.27 s", "claim text is not UTF-8 (byte 0xff at offset 0)"),
    (b"", "claim text is empty"),
    (b"  \n\t\n", "claim text is empty"),
    (b"No number at all; only `code 12` and https://example.org/12/34.", "states no number"),
    (b"see 098b51f6b96dd160a0959e74e8822422527ff06d", "states no number"),
])
def test_bad_claim_text_is_one_line_exit_2(run, tmp_path, content, message):
    path = tmp_path / "body.md"
    path.write_bytes(content)
    result = run("check", str(EXAMPLE), "--claims-text", str(path))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr and str(path) in result.stderr
    assert "Traceback" not in result.output


def test_claims_text_for_a_receipt_file_is_a_usage_error(run, tmp_path):
    path = tmp_path / "body.md"
    path.write_text("407.27 s", encoding="utf-8")
    result = run("check", str(ROOT / "tests" / "fixtures" / "vllm" / "abcd-bucket-peak.json"), "--claims-text", str(path))
    assert result.exit_code == 2 and "--claims-text needs a bundle directory" in result.stderr


def test_missing_claims_text_file_is_one_line_exit_2(run, tmp_path):
    result = run("check", str(EXAMPLE), "--claims-text", str(tmp_path / "nope.md"))
    assert result.exit_code == 2 and "cannot read" in result.stderr and result.stderr.count("\n") == 1


def test_claims_text_is_never_written(tmp_path: Path, run):
    path = tmp_path / "pr.md"
    path.write_bytes(PR.read_bytes())
    run("check", str(EXAMPLE), "--claims-text", str(path))
    assert path.read_bytes() == PR.read_bytes()


def test_the_seed_pull_request_body_against_the_example(example_evidence):
    """The real PR body of the seed review, read in place: what the example's evidence supports binds, the rest is named."""
    from conftest import SHARED

    seed = (SHARED / "seeds" / "ref2va-campaign-review.txt").read_text(encoding="utf-8")
    body = seed.split("[Dong1017]", 1)[0].split("\n", 4)[4]  # the author's PR body, after its "[author]", Refs and title lines
    judged = {(o.quantity.stated, o.status, o.code) for o in judge(body, example_evidence)}
    assert {("407.27 s", "PASS", "bound"), ("108.12 s", "PASS", "bound"), ("73.45 %", "PASS", "bound"), ("3.77 x", "PASS", "bound"),
            ("14", "PASS", "bound"), ("32", "PASS", "bound"), ("0.80", "PASS", "gate-threshold"),
            ("910B1", "PASS", "informational")} <= judged
    # the example has 20 requests and a lowest audio cosine of 0.977337: the seed's campaign numbers contradict it
    assert {("26 requests", "FAIL", "claim-mismatch"), ("0.813411", "FAIL", "claim-mismatch")} <= judged
    # HBM and the pilot are not in the evidence: named, never passed
    assert {("3.10 %", "UNVERIFIED", "unchecked-claim"), ("44.86 %", "UNVERIFIED", "unchecked-claim")} <= judged
    assert not {j for j in judged if j[1] == "FAIL"} - {("26 requests", "FAIL", "claim-mismatch"), ("0.813411", "FAIL", "claim-mismatch")}


def test_claim_text_with_too_many_numbers_is_refused_in_one_line(run, tmp_path):
    from verifier.readers.claimtext import MAX_QUANTITIES

    path = tmp_path / "body.md"
    path.write_text("1 s. " * (MAX_QUANTITIES + 1), encoding="utf-8")
    result = run("check", str(EXAMPLE), "--claims-text", str(path))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and f"more than the {MAX_QUANTITIES}" in result.stderr


def test_long_hostile_texts_extract_in_linear_time():
    import time

    start = time.perf_counter()
    for text in ("a1 2 " * 20000, "1 " * 20000, "2026-01-01 " * 10000, "| a | b (s) |\n|---|---|\n" + "| 1 | 2 |\n" * 5000):
        assert extract(text, "hostile")
    assert time.perf_counter() - start < 120  # a hang guard, not a speed target (quadratic versions took minutes)


@pytest.mark.parametrize("folder", ["vllm-save-result-ascend"])
def test_claims_text_for_a_folder_no_bundle_reader_reads_is_a_usage_error_not_silently_dropped(run, tmp_path, folder):
    """A receipt folder (an adapter) derives nothing the text could bind to: exit 2, never ignored (a profile-read folder binds it:
    tests/profiles/test_profile_claims_text.py)."""
    from conftest import CORPUS

    path = tmp_path / "body.md"
    path.write_text("3.95x faster", encoding="utf-8")
    result = run("check", str(CORPUS / folder), "--claims-text", str(path))
    assert result.exit_code == 2, result.output
    assert "--claims-text needs a bundle directory" in result.stderr and result.stderr.count("\n") == 1


def test_an_html_block_the_html_reader_refuses_still_states_its_numbers():
    """`<![` is markup `html.parser` refuses; `extract` never raises, and every number of the block's source counts, on its own line."""
    found = extract("<div>\n<![\n7 ms\n</div>\n\n5 ms", "x.md")
    assert [(q.value, q.line) for q in found] == [(Decimal("7"), 3), (Decimal("5"), 6)]
    assert extract("<div><![ ]]>", "x.md") == []


def test_extract_with_a_limit_stops_after_one_number_more_than_it():
    one_sentence = "latency 1 s, 2 s, 3 s, 4 s, 5 s, 6 s, 7 s, 8 s"
    full = extract(one_sentence, "t")
    capped = extract(one_sentence, "t", limit=3)
    assert len(full) == 8 and [q.number for q in capped] == ["1", "2", "3", "4"]
    assert capped[:3] == full[:3]  # the first ones are read as without a limit
    many = "1 s. " * 50
    assert len(extract(many, "t", limit=5)) == 6 and len(extract(many, "t")) == 50
    assert len(extract("1 s. 2 s.", "t", limit=5)) == 2  # under the limit: everything


def test_a_claim_text_may_state_exactly_max_quantities_numbers_and_one_more_is_refused():
    """The limit is on the count, wherever a paragraph ends: 2000 numbers then one more paragraph is 2001."""
    from verifier.readers.claimtext import MAX_QUANTITIES, ClaimTextError, extract, read_claim_text

    exact = ("1 s " * MAX_QUANTITIES).encode()
    assert read_claim_text(exact, "body.md")
    for over in (exact + b"\n\n2 s\n", exact + b". 2 s\n"):  # the extra number in its own paragraph, in its own sentence
        with pytest.raises(ClaimTextError, match=f"more than the {MAX_QUANTITIES}"):
            read_claim_text(over, "body.md")
    # the first limit + 1 numbers, within one sentence or across paragraphs
    assert len(extract("1 s.\n\n2 s.\n\n3 s.\n\n4 s.\n\n5 s.\n", "t", limit=2)) == 3
    assert [q.number for q in extract("1 s, 2 s, 3 s, 4 s and 5 s.\n", "t", limit=2)] == ["1", "2", "3"]
    assert len(extract("1 s.\n\n2 s.\n\n3 s.\n", "t")) == 3


@pytest.mark.parametrize("given", ["pr.md", ("pr.md",), ("pr.md", b"bytes"), ["pr.md", "text"]])
def test_a_claims_text_that_is_not_a_name_and_text_pair_is_a_type_error(given):
    # a path string was read as the pair ("/", "t"): the run said the prose states no number
    from verifier.core import verify_path
    with pytest.raises(TypeError, match="claims_text must be a \\(name, text\\) pair"):
        verify_path(str(EXAMPLE), claims_text=given)
