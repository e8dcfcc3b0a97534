"""
Issue 42, hostile input second round: each defect found, with the test that was red before its fix.

(1) numbers in exponent notation in a claim text are read as their value and checked;
(2) deeply nested trust-root and cache files; (3) the size budget of what a report copies from
the bundle; (4) special files refused; (5) escaping and cut messages.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import EXAMPLE

from verifier.prose.binding import bind
from verifier.formats.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.readers.claimtext import extract
from verifier.engine.pipeline import Context, run_pipeline
from verifier.trust.assets import assets


@pytest.fixture(scope="module")
def example_evidence():
    """Return `(evidence, pairs, keys)` of the shipped example (the checks before `claims.stated` run first)."""
    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE))
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    return statements.collect_all(ctx)[:3]


# (1) exponent notation: read as a number, never as an identifier
@pytest.mark.parametrize(("text", "number", "value", "unit"), [
    ("candidate mean 9.0e1 s", "9.0e1", Decimal("90"), "s"),
    ("candidate mean 1.0812E+2 s", "1.0812E+2", Decimal("108.12"), "s"),
    ("candidate mean 10812e-2 s", "10812e-2", Decimal("108.12"), "s"),
    ("candidate mean 1e2s", "1e2", Decimal("100"), "s"),
    ("speedup of 3.77e0x", "3.77e0", Decimal("3.77"), "x"),
])
def test_exponent_number_is_a_quantity_with_its_value(text, number, value, unit):
    [q] = extract(text, "pr.md")
    assert (q.number, q.value, q.unit, q.informational) == (number, value, unit, None)


def test_seven_hex_digits_with_one_e_stay_a_commit_id():
    [q] = extract("built at 1234e56 of main, 20 requests", "pr.md")[:1]
    assert q.informational == "commit"


@pytest.mark.parametrize(("text", "status"), [
    ("The candidate arm mean is 9.0e1 s.", "FAIL"),
    ("The candidate arm mean is 1.0812e2 s.", "PASS"),
    ("The candidate arm mean is 1.0812E+2 s.", "PASS"),
    ("The baseline arm mean is 4.0727e2 s.", "PASS"),
    ("The baseline arm mean is 4.0728e2 s.", "FAIL"),
])
def test_exponent_number_in_a_claim_text_is_checked(text, status, example_evidence):
    [outcome] = bind(extract(text, "pr.md"), *example_evidence)
    assert outcome.status == status, outcome.message
    assert outcome.code != "informational"


@pytest.mark.parametrize("text", ["gpt-4e2 model", "see 0x1e5 in the log"])
def test_exponent_glued_into_a_name_stays_a_name(text):
    assert all(q.informational for q in extract(text, "pr.md"))


@pytest.mark.parametrize(("text", "status"), [
    ("The candidate arm mean is 1e999999999 s.", "FAIL"),
    ("The candidate arm mean is 1e-999999999 s.", "FAIL"),
    ("The candidate arm mean is 0e99999999999999999999 s.", "FAIL"),
    ("The candidate arm mean is 1.0812e0000000000000000002 s.", "PASS"),
])
def test_exponent_beyond_any_range_is_compared_never_dropped(text, status, example_evidence):
    [outcome] = bind(extract(text, "pr.md"), *example_evidence)
    assert outcome.status == status, outcome.message


# (5) a zero mantissa is 0 whatever its exponent: not out of range
@pytest.mark.parametrize("literal", ["0e99999999999999999999", "-0.000E+99999999999999999999", "0e-99999999999999999999"])
def test_zero_with_a_huge_exponent_is_zero_not_out_of_range(literal):
    from verifier.formats.jsonio import loads_strict

    assert loads_strict(f'{{"v": {literal}}}'.encode())["v"] == 0
    assert loads_strict(f'[{literal}]'.encode()) == [0]


def test_nonzero_with_a_huge_exponent_stays_out_of_range():
    from verifier.formats.jsonio import JSONProblem, loads_strict

    with pytest.raises(JSONProblem, match="outside the binary64 range"):
        loads_strict(b"[1e99999999999999999999]")


def test_one_digit_before_the_exponent_is_a_number_even_without_a_unit():
    [q] = extract("the count is 1e9999999", "pr.md")
    assert q.informational is None and q.number == "1e9999999"


# (2) deep nesting: a trust-root file is one line exit 2 naming it; a cache entry is a miss
DEEP = 5000


@pytest.mark.parametrize("text", [
    "gates = " + "[" * DEEP + "]" * DEEP + "\n",
    "gates = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n",
], ids=["array", "inline-table"])
def test_deeply_nested_verify_toml_is_one_line_exit_2(run, tmp_path, text):
    from trustkit import trusted_repository

    repo = trusted_repository(tmp_path / "repo")
    (repo / "verify.toml").write_text(text)
    result = run(str(repo / "evidence" / "run1"))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.stderr.count("\n") == 1
    assert "verify.toml" in result.stderr and "nested" in result.stderr


def test_nested_beyond_the_cap_but_readable_verify_toml_is_refused_too(tmp_path):
    from verifier.errors import ConfigError
    from verifier.trust.trustroot import WorkTree, read_config

    (tmp_path / "verify.toml").write_text("gates = " + "[" * 100 + "]" * 100 + "\n")
    with pytest.raises(ConfigError, match=r"verify.toml .*nested deeper than 64"):
        read_config(WorkTree(tmp_path))


def test_deeply_nested_pyproject_above_a_bundle_is_no_trust_root_as_a_broken_one_is(run, tmp_path):
    import shutil

    shutil.copytree(EXAMPLE, tmp_path / "repo" / "b")
    (tmp_path / "repo" / "pyproject.toml").write_text("[tool.verify]\nx = " + "[" * DEEP + "]" * DEEP + "\n")
    result = run(str(tmp_path / "repo" / "b"))
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output


def test_pyproject_tool_verify_nested_beyond_the_cap_is_refused(tmp_path):
    from verifier.errors import ConfigError
    from verifier.trust.trustroot import WorkTree, read_config

    (tmp_path / "pyproject.toml").write_text("[tool.verify]\ngates = " + "[" * 100 + "]" * 100 + "\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml .*nested deeper than 64"):
        read_config(WorkTree(tmp_path))
    (tmp_path / "pyproject.toml").write_text("[project]\nx = " + "[" * 100 + "]" * 100 + "\n")
    assert read_config(WorkTree(tmp_path)) is None  # not ours to judge


@pytest.mark.parametrize("body", [b"[" * 100000 + b"]" * 100000, b'{"kind": "k", "key": "x", "value": ' + b"[" * 100 + b"]" * 100 + b"}", b'{"kind": "k", "key": "x", "value": ' + b"[" * 100000 + b"]" * 100000 + b"}"])
def test_deeply_nested_cache_entry_is_a_miss(tmp_path, body):
    import os

    from verifier.cache.cachefs import entry_path, read_entry

    path = entry_path(tmp_path, "k", "x")
    path.parent.mkdir(parents=True)
    path.write_bytes(body)
    os.chmod(path, 0o600)
    assert read_entry(tmp_path, "k", "x") is None


# (3) the size budget of what a report copies from the bundle: one place (`Report`), every reporter
def test_cut_keeps_the_head_and_names_what_it_left_out():
    from verifier.model.findings import cut

    assert cut("abc", 3) == "abc"
    shown = cut("x" * 100, 30)
    assert len(shown) <= 30 and shown == "x" * 12 + "\u2026 [cut, 88 chars]"
    assert cut(shown, 30) == shown  # idempotent


def _report(finding):
    from verifier.model.findings import Report

    return Report(subject="b", kind="bundle-v1", verifier_version="0", findings=(finding,), roster=())


def test_every_string_a_finding_copies_is_cut_in_the_report(monkeypatch):
    from verifier.model import findings as model
    from verifier.model.findings import Finding, Status

    monkeypatch.setattr(model, "MAX_SHOWN_CHARS", 40)
    monkeypatch.setattr(model, "MAX_SHOWN_ITEMS", 5)
    long = "y" * 1000
    f = Finding(check="c.x", status=Status.FAIL, code="k", message="m" * 1000, path="p" * 1000, pointer="/" + long,
                expected=long, observed={"sentence": long, long: 1, "list": list(range(50)), "d": Decimal("1." + "1" * 500)},
                derivation=long)
    [g] = _report(f).findings
    for text in (g.message, g.path, g.pointer, g.expected, g.derivation, g.observed["sentence"], g.observed["d"]):
        assert len(text) <= 40 and "\u2026 [cut, " in text, text
    assert g.observed["list"] == [0, 1, 2, 3, "\u2026 [cut, 46 items]"]
    assert any("\u2026 [cut, " in k for k in g.observed)
    small = Finding(check="c.x", status=Status.PASS, code="k", message="fine", observed={"a": [1, 2]})
    assert _report(small).findings[0] is small  # nothing to cut: the same finding


def test_a_report_is_bounded_by_its_findings_not_by_the_bundle(monkeypatch):
    from verifier.model.findings import MAX_SHOWN_CHARS, Finding, Status
    from verifier.report import REPORTERS

    sentence = "The candidate mean is 108.12 s " + "and more words " * 70000  # ~1 MiB
    f = Finding(check="claims.stated", status=Status.UNVERIFIED, code="unchecked-claim", path="claims.json",
                message=f"{sentence} is not accounted for", observed={"sentence": sentence, "claim": sentence})
    report = _report(f)
    for name, render in REPORTERS.items():
        size = len(render(report, verbose=True))
        assert size < 20 * MAX_SHOWN_CHARS, (name, size)


def test_a_sentence_past_the_limit_is_read_in_pieces_cut_at_whitespace(monkeypatch, example_evidence):
    from verifier.readers import claimtext

    monkeypatch.setattr(claimtext, "MAX_SENTENCE_CHARS", 100)
    text = "The candidate arm mean is 108.12 s " + "and more words " * 20 + "x" * 150 + " then the baseline arm mean is 407.27 s"
    found = extract(text, "pr.md")
    assert [(q.number, q.column) for q in found] == [("108.12", 27), ("407.27", len(text) - 7)]
    assert all(len(q.sentence) <= 150 and "108.12" in q.sentence or "407.27" in q.sentence for q in found)
    assert max(len(q.sentence) for q in found) <= 160  # the one word of 150 characters is never cut
    assert [o.status for o in bind(found, *example_evidence)] == ["PASS", "PASS"]


def test_a_headline_past_the_claim_text_limit_is_unverified_unread(monkeypatch, example_copy):
    import json

    from bundlekit import codes, rehash

    from verifier.readers import claimtext
    from verifier.checks import statements as statements_check
    from verifier.core import verify_path

    monkeypatch.setattr(statements_check, "MAX_TEXT_BYTES", 1000)
    claims = json.loads((example_copy / "claims.json").read_text())
    claims["headline"] += " and" + " more" * 300
    (example_copy / "claims.json").write_text(json.dumps(claims))
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert ("claims.stated", "UNVERIFIED", "claim-text-too-large") in codes(report)
    assert claimtext.MAX_TEXT_BYTES == 4 * 2**20


# (4) special files (FIFOs, devices, sockets) given anywhere are refused with one line, never opened
def _fifo(tmp_path, name="pipe.md"):
    import os

    path = tmp_path / name
    os.mkfifo(path)
    return path


@pytest.fixture(autouse=False)
def deadline():
    """Fail (not hang) a test that blocks on a special file: SIGALRM after 60 s raises in the main thread."""
    import signal

    def _raise(signum, frame):
        raise TimeoutError("blocked on a special file")

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _one_line_refusal(result, path, kind="FIFO"):
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and str(path) in result.stderr and f"is a {kind}" in result.stderr, result.stderr
    assert "Traceback" not in result.output


def test_claims_text_that_is_a_fifo_is_refused_without_blocking(run, tmp_path, deadline):
    path = _fifo(tmp_path)
    _one_line_refusal(run("check", str(EXAMPLE), "--claims-text", str(path)), path)


@pytest.mark.parametrize("argv", [
    lambda p: ["check", str(p)],
    lambda p: ["check", str(EXAMPLE), "--artifacts", str(p)],
    lambda p: ["check", str(EXAMPLE), "--weights-dir", str(p)],
    lambda p: ["manifest", str(p)],
    lambda p: ["inventory", str(p)],
    lambda p: ["changed", str(p)],
], ids=["subject", "artifacts", "weights-dir", "manifest", "inventory", "changed"])
def test_a_fifo_given_as_any_path_argument_is_refused(run, tmp_path, argv, deadline):
    path = _fifo(tmp_path, "pipe")
    _one_line_refusal(run(*argv(path)), path)


def test_a_character_device_as_claims_text_is_refused(run):
    _one_line_refusal(run("check", str(EXAMPLE), "--claims-text", "/dev/null"), "/dev/null", "character device")


def test_a_socket_as_claims_text_is_refused(run, tmp_path):
    import socket

    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        _one_line_refusal(run("check", str(EXAMPLE), "--claims-text", str(path)), path, "socket")


# (5) an unknown unit is named cut, never echoed whole
@pytest.mark.parametrize("text", ["q" * 50000, "tokens/" + "q" * 50000, "q" * 50000 + " per s"])
def test_an_unknown_unit_of_50_kb_is_named_cut(text):
    from verifier.model import units

    with pytest.raises(units.UnitError) as caught:
        units.parse(text)
    assert len(str(caught.value)) < 800 and "[cut, " in str(caught.value)  # the list of known units is about 500


def test_an_unknown_profile_unit_of_50_kb_is_one_short_line():
    from verifier.errors import ConfigError
    from verifier.profiles.language import _units

    with pytest.raises(ConfigError) as caught:
        _units({"claims": [{"unit": "q" * 50000}]}, "mine.json")
    message = str(caught.value)
    assert len(message) < 400 and "[cut, " in message and "/claims/0/unit" in message and "\n" not in message


# (5) JSON and SARIF reports carry no raw control or bidi character from the bundle
@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_and_sarif_escape_control_and_bidi_characters_as_the_text_report_does(fmt):
    import json
    import re

    from verifier.model.findings import Finding, Status
    from verifier.report import REPORTERS
    from verifier.report._common import visible

    evil = "ok\u202etxt.exe\x1b[31m\x85\u2066x\x7f"
    f = Finding(check="integrity.files", status=Status.FAIL, code="sha256-mismatch", path=f"a/{evil}.json",
                message=f"file {evil} differs", observed={evil: evil, "list": [evil]}, expected=evil)
    out = REPORTERS[fmt](_report(f))
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]", out)
    assert visible(evil).replace("\\", "\\\\") in out  # the text report's escapes, as JSON writes them
    if fmt == "json":
        [g] = json.loads(out)["findings"]
        assert g["message"] == f"file {visible(evil)} differs" and g["observed"] == {visible(evil): visible(evil), "list": [visible(evil)]}


def test_a_one_mib_headline_gives_reports_bounded_by_their_findings(example_copy):
    import json

    from bundlekit import rehash

    from verifier.core import verify_path
    from verifier.report import REPORTERS

    base = verify_path(str(EXAMPLE))
    claims = json.loads((example_copy / "claims.json").read_text())
    claims["headline"] += " and" + " more words here" * (2**20 // 16)  # 1 MiB in one sentence, after the stated numbers
    (example_copy / "claims.json").write_text(json.dumps(claims))
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert report.verdict == base.verdict and len(report.findings) == len(base.findings)
    for fmt in ("text", "json", "sarif", "junit", "markdown", "github"):
        grown = len(REPORTERS[fmt](report, verbose=True)) - len(REPORTERS[fmt](base, verbose=True))
        assert grown < 64 * 2**10, (fmt, grown)  # the sentence is copied cut, not whole, into each of its findings


def test_an_external_artifact_that_is_a_fifo_under_artifacts_is_named_so_and_never_read(example_copy, tmp_path, deadline):
    import os

    from test_bundle import _made_external

    from verifier.core import verify_path

    moved = _made_external(example_copy, tmp_path)
    (moved / "A1-m1.mp4").unlink()
    os.mkfifo(moved / "A1-m1.mp4")
    report = verify_path(str(example_copy), artifacts=str(tmp_path / "artifacts"))
    [f] = [f for f in report.findings if f.code == "external-not-supplied"]
    assert f.status.value == "UNVERIFIED" and "is not a regular file" in f.message and report.verdict == "INCOMPLETE"
