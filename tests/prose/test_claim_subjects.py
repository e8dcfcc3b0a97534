"""
Issue 39: the subject words of a sentence (a server, an arm, one request, first/last, fastest/slowest,
each, warmup/measured, in all) select the derivation; a number binds only when they determine one.

`tests/data/README_TEST.md` is a README for the example bundle whose every sentence is true, with
more than 20 narrowed subjects: it PASSes as a `--claims-text`, and changing any one of its numbers
FAILs naming its sentence. A sentence whose subject leaves several derivations is `unbound-claim`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_claims_stated import run_claims, stated

from verifier.readers.claimtext import extract

ROOT = Path(__file__).resolve().parent.parents[1]
README = ROOT / "tests" / "data" / "README_TEST.md"
EXAMPLE = ROOT / "examples" / "ref2va-5s"
TEXT = README.read_text()
NUMBERS = [q for q in extract(TEXT, "README_TEST.md") if not q.informational]
NARROWED = ("Server B2 handled 5 requests", "Request A1-m1 took", "The fastest baseline request took 395.10 s",
            "A2's last measured request took 419.44 s", "Each server handled", "B2's slowest warmup", "in all took")


@pytest.fixture
def shared_example() -> Path:
    """The shipped example, read in place: a claim text is passed as an option, the bundle is never written."""
    return EXAMPLE


def _bind(bundle: Path, text: str, name: str = "README_TEST.md"):
    return stated(run_claims(bundle, (name, text)), source=name)


def test_readme_test_has_twenty_narrowed_subjects_and_passes_through_the_cli():
    assert sum(1 for line in TEXT.splitlines() for s in re.split(r"(?<=\.) ", line)
               if re.search(r"\b(?:Server [AB]\d|Request [AB]\d-|[AB]\d's|fastest|slowest|first|last|Each|Every|in all|arm|baseline ran)\b", s)) >= 20
    assert all(s in TEXT for s in NARROWED)
    run = subprocess.run([sys.executable, "-m", "verifier", "--claims-text", str(README), str(EXAMPLE)],
                         capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_readme_test_every_number_is_bound_by_its_subject(example_copy):
    found = _bind(example_copy, TEXT)
    assert len(found) == len(extract(TEXT, "README_TEST.md"))
    assert all(f.status == "PASS" for f in found), [f.message for f in found if f.status != "PASS"]
    by_stated = {(f.observed["line"], f.observed["stated"]): f.observed["binding"] for f in found}
    assert by_stated[(8, "5 requests")] == "server.B2.all.count"
    assert by_stated[(13, "395.10 s")] == "arm.baseline.all.min_s"
    assert by_stated[(16, "419.44 s")] == "server.A2.measured.last_s"
    assert by_stated[(12, "395.10 s")] == "request.A1-m1.elapsed_s"


def _mutated(q) -> str:
    """`TEXT` with the leading digit of `q` raised by one (9 becomes 19)."""
    lines = TEXT.splitlines(keepends=True)
    line = lines[q.line - 1]
    at = q.column - 1
    digit = line[at]
    assert digit.isdigit(), (q.stated, line[at:at + 10])
    lines[q.line - 1] = line[:at] + ("19" if digit == "9" else str(int(digit) + 1)) + line[at + 1:]
    return "".join(lines)


@pytest.mark.parametrize("q", NUMBERS, ids=[f"{q.line}:{q.column}:{q.stated}" for q in NUMBERS])
def test_changing_any_one_number_fails_naming_its_sentence(q, shared_example):
    found = _bind(shared_example, _mutated(q))
    mine = [f for f in found if (f.observed["line"], f.observed["column"]) == (q.line, q.column)]
    assert len(mine) == 1 and mine[0].status == "FAIL", [(f.status, f.message) for f in mine]
    digit = q.sentence[q.start]
    sentence = q.sentence[:q.start] + ("19" if digit == "9" else str(int(digit) + 1)) + q.sentence[q.start + 1:]
    assert f'Sentence: "{sentence[:150]}' in mine[0].message and mine[0].code in ("claim-mismatch", "wording-mismatch")


@pytest.mark.parametrize("sentence, number", [
    ("Server B2 handled 5 requests.", "5 requests"),
    ("The fastest baseline request took 395.10 s.", "395.10 s"),
    ("A2's last measured request took 419.44 s.", "419.44 s"),
])
def test_the_issue_examples_pass_and_were_failed_by_a_broader_derivation(sentence, number, shared_example):
    found = _bind(shared_example, sentence)
    assert [(f.status, f.observed["stated"]) for f in found] == [("PASS", number)], [f.message for f in found]


@pytest.mark.parametrize("sentence, candidates", [
    ("B1 took 107.00 s.", 3),             # its mean? one of its requests? the words do not say
    ("A request of B1 took 107.00 s.", 5),  # one of its five requests, not which
    ("A1's warmups took 497.00 s.", 2),
    ("The slowest server mean was 420.00 s.", 0),  # a selector over a statistic: not a request selector
    ("The slowest server, A2, averaged 420.00 s.", 0),  # "slowest" selects a server, "averaged" a statistic of it
    ("The first arm took 400.00 s.", 0),  # a selector of arms selects no request
])
def test_an_ambiguous_sentence_is_unbound_never_fail(sentence, candidates, shared_example):
    found = _bind(shared_example, sentence)
    assert [(f.status, f.code) for f in found] == [("UNVERIFIED", "unbound-claim")], [f.message for f in found]
    assert len([c for c in found[0].observed.get("candidates", "").split(", ") if c]) >= candidates


def test_a_determined_subject_with_another_value_fails(shared_example):
    found = _bind(shared_example, "B1's fastest measured request took 106.66 s.")
    assert [(f.status, f.code) for f in found] == [("FAIL", "claim-mismatch")]
    assert found[0].observed["binding"] == "server.B1.measured.min_s" and found[0].observed["derived"] == "105.46"


@pytest.mark.parametrize("headline", ["", "Faster video generation", "   ", None])
def test_a_headline_without_a_number_is_nothing_to_check(headline, example_copy):
    """Issue 39 item 2: "Faster video generation" (or "") gave `no-findings`, INCOMPLETE, where no headline gave PASS."""
    from bundlekit import edit_json, rehash

    from verifier.model.findings import verdict_of

    (example_copy / "README.md").unlink()
    edit_json(example_copy / "claims.json", lambda d: d.pop("headline") if headline is None else d.update(headline=headline))
    rehash(example_copy)
    findings = run_claims(example_copy)
    mine = stated(findings)
    assert [(f.status.value, f.code) for f in mine] == [("PASS", "no-claim-text")], [f.message for f in mine]
    assert verdict_of(findings) == "PASS"


@pytest.mark.parametrize("sentence", ["The baseline server means are 396.30 s and 418.24 s.",
                                      "The candidate server means are 106.66 s and 109.58 s."])
def test_an_arm_with_server_means_binds_to_that_arms_server_means(sentence, shared_example):
    """An arm named with "server means": each number is one of that arm's server means (A1 396.30 s, A2 418.24 s), not the arm mean (407.27 s)."""
    found = _bind(shared_example, sentence)
    assert [f.status for f in found] == ["PASS", "PASS"], [f.message for f in found]
    assert all(f.observed["binding"].startswith("server_mean_s.") for f in found), [f.observed["binding"] for f in found]


@pytest.mark.parametrize("sentence", ["The baseline server means are 400.00 s and 418.24 s.",
                                      "The baseline server means are 109.58 s and 418.24 s."])  # the candidate's B2 mean is not the baseline's
def test_an_arm_server_mean_matching_none_is_unbound_never_fail(sentence, shared_example):
    """Which of the arm's two servers a wrong number means is not said: UNVERIFIED `unbound-claim` with both server means listed."""
    found = _bind(shared_example, sentence)
    assert [(f.status, f.code) for f in found] == [("UNVERIFIED", "unbound-claim"), ("PASS", "bound")], [f.message for f in found]
    assert set(found[0].observed["candidates"].split(", ")) == {"server_mean_s.A1", "server_mean_s.A2"}


def test_a_later_number_of_an_arm_server_mean_sentence_is_never_fail(shared_example):
    """The arm is named before the first number only; a wrong second number is UNVERIFIED (no one value is determined), never FAIL."""
    found = _bind(shared_example, "The baseline server means are 396.30 s and 500.00 s.")
    assert [f.status for f in found] == ["PASS", "UNVERIFIED"], [f.message for f in found]
