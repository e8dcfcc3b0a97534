"""The roster (issue 10, item 3): every family in the fixed order, for every reader; a family the evidence cannot feed is one UNVERIFIED finding."""

from __future__ import annotations

import json

import pytest
from conftest import CORPUS, ROOT

from verifier.checks.profile import pipeline_for
from verifier.core import BUNDLE_PIPELINE, verify_path
from verifier.engine.pipeline import Check
from verifier.engine.roster import FAMILIES, family_of, in_families

FAMILY_IDS = [f.id for f in FAMILIES]


def _families_in_order(report) -> list[str]:
    """Return the names of the families the report's roster holds a check of (a member, or the family's stand-in), in roster order."""
    ran = [info.check for info in report.roster]
    assert ran == sorted(ran, key=lambda c: FAMILIES.index(family_of(c) or next(f for f in FAMILIES if f.id == c)))
    return [f.name for f in FAMILIES if any(c in f.members or c == f.id for c in ran)]


def test_the_native_pipeline_has_a_member_in_every_family_in_order():
    assert in_families(BUNDLE_PIPELINE, "bundle-v1", frozenset()) == BUNDLE_PIPELINE  # nothing stood in, nothing reordered
    covered = {family_of(c.id).name for c in BUNDLE_PIPELINE} | {f.name for f in FAMILIES if f.members & {c.id for c in BUNDLE_PIPELINE}}
    assert covered == {f.name for f in FAMILIES}


def test_a_check_of_no_family_is_refused():
    with pytest.raises(ValueError, match="belongs to no family"):
        in_families((Check("made.up", "x", lambda ctx: iter(())),), "test", frozenset())


@pytest.mark.parametrize("profile", sorted(p.stem for p in (ROOT / "profiles").glob("*.json")))
def test_every_shipped_profile_runs_every_family_in_the_fixed_order(profile):
    document = json.loads((ROOT / "profiles" / f"{profile}.json").read_text())
    if "bundle" in document:
        pytest.skip("a mapped profile runs the native pipeline")
    steps = pipeline_for(document)
    order = [family_of(c.id) or next(f for f in FAMILIES if f.id == c.id) for c in steps]
    names = [f.name for f in order]
    assert sorted(set(names), key=names.index) == [f.name for f in FAMILIES]
    assert names == sorted(names, key=[f.name for f in FAMILIES].index)


def test_a_profile_bundle_reports_each_family_it_cannot_feed_once():
    report = verify_path(str(CORPUS / "hyperfine-3em"))  # no manifest, no plan, no quality comparisons
    assert _families_in_order(report) == [f.name for f in FAMILIES]
    for family_id, missing in (("plan.conformance", ["plan"]), ("quality.recorded", ["quality"]),
                               ("quality.rescore", ["quality", "media"]), ("integrity.unchanged", ["files"])):
        found = [f for f in report.findings if f.check == family_id]
        assert [(f.status, f.code) for f in found] == [("UNVERIFIED", "not-in-evidence")], family_id
        assert found[0].observed == missing and all(part in found[0].message for part in missing)
    assert [(f.status, f.code) for f in report.findings if f.check == "gate.pinned"] == [("PASS", "profile-pinned")]
    unchanged = next(f for f in report.findings if f.check == "integrity.unchanged")
    assert "names no manifest" in unchanged.message  # why, in the profile's terms: nothing was matched to a sha256


def test_a_profile_bundle_with_a_manifest_rehashes_what_it_matched():
    report = verify_path(str(CORPUS / "system1-omni-gdn-20261003"))
    assert _families_in_order(report) == [f.name for f in FAMILIES]
    assert [(f.status, f.code) for f in report.findings if f.check == "integrity.unchanged"] == [("PASS", "unchanged")]
    assert sorted(f.code for f in report.findings if f.status == "FAIL") == ["missing-file", "rule-not-met"]


def test_a_native_bundle_without_its_quality_index_reports_the_quality_families_once(example_copy):
    (example_copy / "quality-index.json").unlink()
    manifest = json.loads((example_copy / "manifest.json").read_text())
    manifest["files"] = [e for e in manifest["files"] if e["path"] != "quality-index.json"]
    (example_copy / "manifest.json").write_text(json.dumps(manifest, indent=2))
    report = verify_path(str(example_copy))
    assert _families_in_order(report) == [f.name for f in FAMILIES]
    recorded = [f for f in report.findings if f.check == "quality.recorded"]
    assert [(f.status, f.code) for f in recorded] == [("UNVERIFIED", "not-in-evidence")]
    assert "quality-index.json is absent" in recorded[0].message
    rescored = [f for f in report.findings if f.check == "quality.rescore"]
    assert [(f.status, f.code) for f in rescored] == [("UNVERIFIED", "no-quality-index")]


# --- one roster of family ids, whatever the reader (issue 36) -------------------------------------------------------

def _profile_pipelines():
    import json
    from pathlib import Path

    from verifier.checks.profile import pipeline_for

    root = Path(__file__).resolve().parent.parents[1] / "profiles"
    for path in sorted(root.glob("*.json")):
        profile = json.loads(path.read_text())
        if "bundle" not in profile:
            for claims_text in (False, True):
                yield path.stem, pipeline_for(profile, claims_text=claims_text)


def test_no_roster_has_a_profile_only_check_id():
    from verifier.core import BUNDLE_PIPELINE

    pipelines = [("bundle-v1", BUNDLE_PIPELINE), *_profile_pipelines()]
    assert len(pipelines) > 10
    for name, pipeline in pipelines:
        ids = [c.id for c in pipeline]
        assert not [i for i in ids if i.startswith("profile.")], name
        assert len(ids) == len(set(ids)), (name, sorted(i for i in ids if ids.count(i) > 1))
        assert all(i.split(".")[0] in FAMILY_PREFIXES for i in ids), (name, ids)


FAMILY_PREFIXES = {"integrity", "gate", "schema", "plan", "receipts", "attempts", "coverage", "derivation", "claims", "quality"}


def test_the_gdn_bundle_reports_under_the_native_family_ids():
    from pathlib import Path

    from verifier.core import verify_path

    gdn = Path(__file__).resolve().parent.parents[2] / "shared" / "corpus" / "system1-omni-gdn-20261003"
    report = verify_path(str(gdn))
    ids = {entry.check if hasattr(entry, "check") else entry["check"] for entry in report.roster}
    assert {"integrity.files", "derivation.claims", "gate.rules"} <= ids
    assert not {i for i in ids if i.startswith("profile.")}


#: Checks of a profile's own sections (per-record identities and joins, clocks, listed digests): members of the plan and
#: derivation families a native bundle has no section for, so no native id to report under.
PER_RECORD = frozenset({"plan.overlap", "derivation.identities", "derivation.matches", "derivation.digests"})


def test_a_family_with_one_native_check_has_one_id_for_every_reader():
    """Issue 36 item 1: where a native bundle runs one check of a family, its id, every reader reports under that id alone."""
    native = {c.id for c in BUNDLE_PIPELINE}
    single = [f for f in FAMILIES if f.members & native == {f.id}]
    assert [f.name for f in single] == ["integrity", "gate", "schema", "coverage", "quality", "rescore", "unchanged"]
    assert {f.name: sorted(f.members - {f.id}) for f in single} == {f.name: [] for f in single}  # no profile-only id beside it
    assert PER_RECORD <= {m for f in FAMILIES if f.name in ("plan", "derivation") for m in f.members} - native


def test_a_profile_read_corpus_bundle_has_only_native_ids_rule_packs_and_its_sections_checks():
    """
    The roster of a profile-read bundle (system1-omni-gdn: receipts, identities, clocks, media, claims, a gate) holds the
    ids a native bundle's roster can have, the rules family's (`gate.rules` of each rule pack, `claims.coverage`) and the
    checks of its own per-record sections (`PER_RECORD`), nothing else; its schema and coverage rows are the family ids.
    """
    native = {c.id for c in BUNDLE_PIPELINE}
    rules = next(f for f in FAMILIES if f.name == "rules").members
    report = verify_path(str(CORPUS / "system1-omni-gdn-20261003"))
    ids = [info.check for info in report.roster]
    assert set(ids) - native - rules - PER_RECORD == set(), ids
    assert [i for i in ids if family_of(i).name in ("schema", "coverage")] == ["schema.documents", "coverage.streams"]
    assert {f.check for f in report.findings if f.code == "mapped"} == {"schema.documents"}  # the receipt sets it read


def _registrations():
    """(check id, file) of every `@check(ID, ...)` and `Check("literal id", ...)` of the package, read from its source."""
    import ast

    found = []
    for path in sorted((ROOT / "verifier").rglob("*.py")):
        tree = ast.parse(path.read_text())
        consts = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                  for t in n.targets if isinstance(t, ast.Name)}
        decorators = [d for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for d in n.decorator_list
                      if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "check"]
        literal = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Check"
                   and n.args and isinstance(n.args[0], ast.Constant)]
        for call in decorators + literal:
            first = call.args[0]
            found.append((first.value if isinstance(first, ast.Constant) else consts.get(first.id, first.id), str(path.relative_to(ROOT))))
    return found


def test_each_check_id_is_registered_once_but_the_rule_packs():
    """
    Issue 36: one registration per id, its title and `requires` by input (`roads`); `gate.rules` is one per producer's
    rule pack. (`core.verify_media` and `core.score_media`, the `verify media` and `verify score` commands, run
    `coverage.streams` over the files they are given as checks of their own: `Check(coverage.CHECK, ...)`.)
    """
    by_id: dict = {}
    for cid, path in _registrations():
        by_id.setdefault(cid, []).append(path)
    twice = {cid: paths for cid, paths in by_id.items() if len(paths) > 1}
    assert sorted(twice) == ["gate.rules"], twice
    assert all(p.startswith(("verifier/checks/packs/", "verifier/checks/profile_gate.py")) for p in twice["gate.rules"])
    assert len(by_id) > 30


def test_a_check_is_titled_and_ordered_by_the_input_it_runs_on():
    from verifier.checks import derivation, integrity, schema

    claims = {road: derivation.claims.on(road) for road in ("bundle", "mapped", "profile", "receipt")}
    assert claims["bundle"].requires == claims["mapped"].requires == ("gate.pinned",) and claims["receipt"].requires == ("schema.documents",)
    assert claims["profile"].requires == () and claims["bundle"].title == claims["mapped"].title != claims["profile"].title
    assert claims["profile"].on("bundle") == claims["bundle"] and claims["profile"].on("mapped") == claims["mapped"]  # from the registration's table
    assert integrity.files.on("mapped").title.endswith("the profile names (sha256 and size), nothing unlisted")
    assert schema.documents.on("receipt").title.startswith("The receipt names the producer version")
    assert integrity.unchanged.on("receipt") == integrity.unchanged  # one title for every input: nothing to choose
    with pytest.raises(ValueError, match="unknown road 'native'"):
        integrity.files.on("native")
    assert [c.title for c in pipeline_for({"id": "p", "receipts": {}, "claims": [{}]}) if c.id == "derivation.claims"] == [claims["profile"].title]
