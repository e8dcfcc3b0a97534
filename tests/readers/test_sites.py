"""
The claim-site reader (`verifier.readers.sites`): the profile's claims and gate checks read the evidence model, never a document.

On real evidence (the corpus, read in place), `derivation.claims` and
`gate.rules` run with the directory taken away after `schema.documents`
built the model: any read through the tree raises, so an equal report proves
that both checks compare only what the model holds.
"""

from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from pathlib import Path

import pytest

from verifier import core
from verifier.core import verify_path
from verifier.model.evidence import Location, Site
from verifier.readers.select import rule_instances
from verifier.readers.sites import parse_claim_files, read_sites
from verifier.readers.tree import Tree

CORPUS = Path(__file__).resolve().parent.parents[2] / "shared" / "corpus"
NO_DOCUMENTS = ("derivation.claims", "gate.rules")


class _NoTree:
    """A bundle that refuses every use: what `derivation.claims` and `gate.rules` see once the model is built."""

    def __getattr__(self, name: str):
        raise AssertionError(f"a check read the tree ({name}) instead of the evidence model")


def _report(target: Path, monkeypatch: pytest.MonkeyPatch | None = None, *, assets: str | None = None) -> list:
    if monkeypatch is not None:
        real = core.run_pipeline

        def without_tree(pipeline, ctx, **kw):
            tree = ctx.bundle
            wrapped = []
            for chk in pipeline:
                if chk.id in NO_DOCUMENTS:
                    def run(c, f=chk.func):
                        c.bundle = _NoTree()
                        try:
                            return list(f(c))
                        finally:
                            c.bundle = tree
                    chk = dataclasses.replace(chk, func=run)
                wrapped.append(chk)
            return real(wrapped, ctx, **kw)

        monkeypatch.setattr(core, "run_pipeline", without_tree)
    report = verify_path(str(target), asset_root=assets)
    return json.loads(json.dumps([dataclasses.asdict(f) for f in report.findings], default=str))


@pytest.mark.parametrize("name", ["mlperf-inference-test-submissions-v5.0", "vllm-omni-rankings-h3-online-fp8",
                                  "vllm-omni-rankings-fasth3-vae-int8", "vllm-omni-pr6540"])
def test_claims_and_gate_of_real_evidence_read_only_the_model(name, monkeypatch):
    target = CORPUS / name
    if not target.is_dir():
        pytest.skip(f"{target} is not here")
    plain = _report(target)
    assert any(f["check"] in NO_DOCUMENTS for f in plain)
    assert _report(target, monkeypatch) == plain


@pytest.mark.parametrize("tampered", ["receipts/candidate.csv", "summary.json"])
def test_files_integrity_refused_are_reported_from_the_model_alone(tampered, tmp_path, monkeypatch):
    # the worked example of docs/profiles.md with one file's bytes changed after SHA256SUMS: a receipt (its claims' instances
    # are unranked) or the claim document itself (its sites are blocked); both are reported as before, without the tree
    from conftest import make_assets
    from test_profiles_docs import _bundle, example_profile

    assets = make_assets(tmp_path / "assets", {"acme-run": example_profile()}, keep_shipped=True)
    target = _bundle(tmp_path / "acme-run")
    (target / tampered).write_bytes((target / tampered).read_bytes().replace(b"1", b"7", 1))
    plain = _report(target, assets=assets)
    assert any(f["check"] == "derivation.claims" and f["code"] == "blocked-by-integrity" and tampered in f["message"] for f in plain)
    assert _report(target, monkeypatch, assets=assets) == plain


def _profile(claims: list[dict], gate: dict | None = None) -> dict:
    return {"id": "t", "receipts": {"runs": {"glob": "runs/*.json"}}, "claims": claims, **({"gate": gate} if gate else {})}


def _read_sites(tree: Tree, profile: dict, receipts) -> tuple[Site, ...]:
    """Return the sites `schema.documents` reads: the claim files parsed once (`parse_claim_files`), then located."""
    return read_sites(tree, parse_claim_files(tree, profile, receipts), rule_instances(profile, receipts), profile)


def _receipts(*arms: str):
    from helpers import profile_receipt

    return tuple(dataclasses.replace(profile_receipt(f"runs/{a}.json", "1", dims={"arm": a, "phase": "measured"}), receipt_set="runs") for a in arms)


def test_sites_name_their_rule_by_its_profile_pointer_so_equal_ids_do_not_mix(tmp_path):
    (tmp_path / "s.json").write_text('{"x": {"a": 1, "b": 2}, "y": {"a": 3}}')
    claim = {"id": "same", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"]}
    profile = _profile([{**claim, "at": {"file": "s.json", "pointer": "/x/{arm}"}}, {**claim, "at": {"file": "s.json", "pointer": "/y/{arm}"}}])
    sites = _read_sites(Tree(root=tmp_path), profile, _receipts("a", "b"))
    claims = [(s.rule, s.key, s.location.pointer, s.value, s.problem) for s in sites if s.role == "claim"]
    assert claims == [("/claims/0", (("arm", "a"),), "/x/a", 1, None), ("/claims/0", (("arm", "b"),), "/x/b", 2, None),
                      ("/claims/1", (("arm", "a"),), "/y/a", 3, None), ("/claims/1", (("arm", "b"),), "/y/{arm}", None, "missing")]  # where it looked


def test_a_site_says_why_nothing_was_read_there(tmp_path):
    (tmp_path / "s.json").write_text('{"x": {"a": 1}}')
    (tmp_path / "bad.json").write_text('{"x": 1, "x": 2}')
    claim = {"id": "c", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"]}
    tree = Tree(root=tmp_path, blocked={"locked.json": "its sha256 differs from the manifest"})
    profile = _profile([{**claim, "at": {"file": "bad.json", "pointer": "/x"}}, {**claim, "at": {"file": "locked.json", "pointer": "/x"}},
                        {**claim, "at": {"file": "s.json", "pointer": "/x/{arm}", "unit": "/u"}}],
                       gate={"rules": [], "recorded": {"file": "nowhere.json", "pointer": "/gate"}})
    sites = _read_sites(tree, profile, _receipts("a"))
    got = {(s.rule, s.role): (s.problem, s.detail) for s in sites if s.role != "stated"}
    assert got[("/claims/0", "claim")][0] == "unreadable" and "duplicate key" in got[("/claims/0", "claim")][1]
    assert got[("/claims/1", "claim")] == ("blocked", "its sha256 differs from the manifest")
    assert got[("/claims/2", "claim")] == (None, "")
    assert got[("/gate", "recorded")][0] == "unreadable" and "nowhere.json" in got[("/gate", "recorded")][1]
    stated = [(s.rule, s.location.file, s.problem) for s in sites if s.role == "stated"]
    assert ("/claims/1", "locked.json", "blocked") in stated


def test_a_claim_site_keeps_the_unit_stated_beside_it(tmp_path):
    (tmp_path / "s.json").write_text('{"rows": [{"arm": "a", "v": 1500, "u": "ms"}, {"arm": "b", "v": 2, "u": " "}]}')
    claim = {"id": "c", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"],
             "at": {"file": "s.json", "pointer": "/rows", "where": {"arm": "{arm}"}, "then": "/v", "unit": "/u"}}
    sites = [s for s in _read_sites(Tree(root=tmp_path), _profile([claim]), _receipts("a", "b")) if s.role == "claim"]
    assert [(s.value, s.unit) for s in sites] == [(1500, "ms"), (2, None)]  # a blank unit states none


def test_the_model_finds_sites_by_rule_and_role_in_reader_order():
    from verifier.model.evidence import Evidence

    one, two = Site("/claims/0", "claim", (), Location("a")), Site("/claims/0", "claim", (("arm", "b"),), Location("b"))
    model = Evidence(reader="t", sites=(one, Site("/claims/1", "claim", (), Location("c")), two))
    assert model.sites_of("/claims/0", "claim") == [one, two] and model.sites_of("/claims/0", "stated") == []


# --- found by a trial that compared every report with the code before the sites reader (helper-16) -----------------------

def test_markup_html_parser_refuses_is_an_unreadable_claim_document_not_a_crash(tmp_path):
    # html.parser raises AssertionError on a marked section it does not know; it was an ERROR in claims (and, once the
    # sites were read in schema.documents, an ERROR that left every later check without receipts)
    from verifier.readers.grammars import GrammarError
    from verifier.formats.jsonio import JSONProblem
    from verifier.readers.html import html_document

    with pytest.raises(GrammarError, match="not HTML the reader can parse"):
        html_document(b"<html><body><p>mean <b>15 ms</b></p><![foo[ x ]]></body></html>")
    (tmp_path / "page.html").write_text("<p>mean <b>15 ms</b></p><![foo[ x ]]>")
    with pytest.raises(JSONProblem):
        Tree(root=tmp_path).json("page.html")
    claim = {"id": "c", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"},
             "at": {"file": "page.html", "pointer": "/prose/0/numbers/0"}}
    (site,) = [s for s in _read_sites(Tree(root=tmp_path), _profile([claim]), _receipts("a")) if s.role == "claim"]
    assert site.problem == "unreadable" and "marked section" in site.detail


def test_a_csv_field_beyond_the_csv_modules_limit_breaks_the_grammar_not_the_run():
    from verifier.readers.grammars import GrammarError, parse

    with pytest.raises(GrammarError, match="field larger than field limit"):
        parse(b"arm,mean_ms\nbaseline," + b"x" * 200_000 + b"\n", {"encoding": "csv"})


def test_a_file_with_an_unsafe_name_is_no_file_the_model_reads():
    # `receipt-absent` names the receipt file a stated value would come from; a file of that name the reader refuses to open
    # (a backslash, a control or bidi character) is absent as far as reading goes, as `Tree.exists` says
    from verifier.checks.profile_base import exists
    from verifier.model.evidence import Evidence, FileEntry
    from verifier.engine.pipeline import Context, RunData

    model = Evidence(reader="profile:t", files=(FileEntry("receipts/a.csv", None, None), FileEntry("receipts/x\\y.csv", None, None)))
    ctx = Context(subject=Path("."), assets=None, bundle=None, options={}, run=RunData(evidence=model))
    assert exists(ctx, "receipts/a.csv") and not exists(ctx, "receipts/x\\y.csv") and not exists(ctx, "receipts/b.csv")


def test_a_failure_reading_the_sites_leaves_the_receipts_to_every_later_check(monkeypatch):
    # the model is stored before the sites are read: a bug there is one ERROR, not a run whose checks see no receipts
    from verifier.checks import profile_receipts

    target = CORPUS / "mlperf-inference-test-submissions-v5.0"
    if not target.is_dir():
        pytest.skip(f"{target} is not here")
    plain = [f for f in _report(target) if f["check"] in ("derivation.identities", "derivation.matches")]

    def broken(*_args, **_kw):
        raise RuntimeError("a bug in the sites reader")

    monkeypatch.setattr(profile_receipts, "read_sites", broken)
    report = _report(target)
    assert [f["code"] for f in report if f["status"] == "ERROR"] == ["verifier-error"]
    assert [f for f in report if f["check"] in ("derivation.identities", "derivation.matches")] == plain and plain


def test_locating_reads_the_parsed_claim_files_and_no_file_itself(tmp_path):
    """`read_sites` locates every place (forwards, backwards, a margin's target) in what `parse_claim_files` parsed: it reads no claim file itself."""
    (tmp_path / "s.md").write_text("# T\n\n| arm | v |\n|---|---|\n| a | 1 |\n| b | 2 |\n")
    (tmp_path / "t.json").write_text('{"a": 0.5, "b": 1}')
    claim = {"id": "c", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"],
             "at": {"file": "s.md", "pointer": "/tables/T", "where": {"arm": "{arm}"}, "then": "/v"}, "minus": {"file": "t.json", "pointer": "/{arm}"}}
    profile, receipts = _profile([claim]), _receipts("a", "b")
    documents = parse_claim_files(Tree(root=tmp_path), profile, receipts)
    assert sorted(documents) == ["s.md", "t.json"]
    tree = Tree(root=tmp_path)  # a fresh tree: nothing of the parse kept in its cache
    got = [(s.role, s.location.pointer, s.value) for s in read_sites(tree, documents, rule_instances(profile, receipts), profile)]
    assert got == [("claim", "/tables/T/0/v", "1"), ("target", "/a", Decimal("0.5")), ("claim", "/tables/T/1/v", "2"), ("target", "/b", 1)]
    assert tree.read() == frozenset()
