"""
The evidence repository's own trust root (issue 15): verify.toml, its gates and pins, --trust-ref, init/pin/gate new.

The acceptance test builds a git evidence repository with its own gate, then
on a branch loosens the gate and edits a bundle only the loosened gate passes:
judged by `--trust-ref main` it FAILs and the report names the changed gate;
judged by the working tree it refuses to start until the edit is re-pinned.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLE
from trustkit import TEAM_GATE, bundle, git, trusted_repository, write_gate

from verifier.errors import ConfigError, PinMismatch, UsageError
from verifier.trust.assets import assets
from verifier.trust.trustroot import RepositoryTrust, WorkTree, locate, read_config
from verifier.commands.trustroot_cmds import init, new_gate, pin

@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A committed evidence repository (branch main) with a trust root, the gate team-v1 and a bundle it PASSes."""
    return trusted_repository(tmp_path / "repo")


def test_repository_gate_judges_its_bundle_and_the_report_names_its_origin(repo, run):
    result = run("-f", "json", str(repo / "evidence" / "run1"))
    assert result.exit_code == 0, result.output
    trust = json.loads(result.stdout)["trust"]
    pins = json.loads((repo / "verify" / "inventory.json").read_text())["assets"]
    assert trust["sources"] == [{"kind": "gate", "id": "team-v1", "origin": "repository",
                                 "path": "verify/gates/team-v1.json", "sha256": pins["verify/gates/team-v1.json"]}]
    assert trust["config"] == "verify.toml" and trust["ref"] is None and trust["changed"] == []
    text = run(str(repo / "evidence" / "run1")).stdout
    assert "gate team-v1: repository verify/gates/team-v1.json sha256 " + pins["verify/gates/team-v1.json"][:12] in text


def test_shipped_gate_reports_shipped_origin(run):
    trust = json.loads(run("-f", "json", str(EXAMPLE)).stdout)["trust"]
    assert [(s["origin"], s["path"]) for s in trust["sources"]] == [("shipped", "gates/ref2va-5s-v1.json")]
    assert trust["config"] is None


def test_a_branch_that_loosens_its_gate_is_judged_by_the_base(repo, run):
    git(repo, "checkout", "-qb", "loosen")
    write_gate(repo, {**TEAM_GATE, "plan": {**TEAM_GATE["plan"], "measured_per_server": 1}})
    bundle(repo / "evidence" / "run1", measured=1)  # only the loosened gate passes this
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "loosen the gate")
    target = str(repo / "evidence" / "run1")

    judged = run("--trust-ref", "main", "-f", "json", target)
    assert judged.exit_code == 1, judged.output
    report = json.loads(judged.stdout)
    assert report["verdict"] == "FAIL"
    assert report["trust"]["changed"] == ["verify/gates/team-v1.json"]
    assert report["trust"]["ref"]["ref"] == "main"
    assert report["trust"]["sources"][0]["sha256"] == json.loads(git(repo, "show", "main:verify/inventory.json"))["assets"][
        "verify/gates/team-v1.json"]
    text = run("--trust-ref", "main", target).stdout
    assert "changed since main" in text and "verify/gates/team-v1.json" in text

    unpinned = run(target)  # the working tree's trust root: the edited gate no longer matches its pin
    assert unpinned.exit_code == 2
    assert "verify/gates/team-v1.json" in unpinned.stderr and "differs from its pins" in unpinned.stderr

    pin(str(repo), assets())  # deliberate: re-pinned, so the working tree judges by the edited gate ...
    assert run(target).exit_code == 0
    git(repo, "commit", "-qam", "re-pin")
    again = json.loads(run("--trust-ref", "main", "-f", "json", target).stdout)  # ... but the base still does not
    assert again["verdict"] == "FAIL"
    assert again["trust"]["changed"] == ["verify/gates/team-v1.json", "verify/inventory.json"]


def test_trust_ref_without_a_trust_root_at_the_base_lists_the_new_one_and_uses_shipped_assets(repo, run, tmp_path):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", "-b", "main")
    (fresh / "README").write_text("x")
    git(fresh, "add", "-A")
    git(fresh, "commit", "-qm", "empty")
    init(str(fresh))
    write_gate(fresh, TEAM_GATE)
    pin(str(fresh), assets())
    bundle(fresh / "evidence" / "run1", measured=2)
    report = json.loads(run("--trust-ref", "main", "-f", "json", str(fresh / "evidence" / "run1")).stdout)
    assert report["verdict"] == "FAIL"  # team-v1 is not pinned at main: unknown gate
    assert {"verify.toml", "verify/gates/team-v1.json", "verify/inventory.json"} <= set(report["trust"]["changed"])


def test_unknown_trust_ref_and_no_git_are_usage_errors(repo, run, tmp_path):
    assert run("--trust-ref", "no-such-branch", str(repo / "evidence" / "run1")).exit_code == 2
    assert "--trust-ref" in run("--trust-ref", "--upload-pack=x", str(repo / "evidence" / "run1")).stderr
    outside = bundle(tmp_path / "nogit" / "b", measured=2)
    result = run("--trust-ref", "main", str(outside))
    assert result.exit_code == 2 and "not inside a git repository" in result.stderr


def test_a_repository_id_colliding_with_a_shipped_one_is_a_configuration_error(repo, run):
    write_gate(repo, {**TEAM_GATE, "id": "ref2va-5s-v1"})
    with pytest.raises(ConfigError, match="already shipped"):
        pin(str(repo), assets())
    inventory = json.loads((repo / "verify" / "inventory.json").read_text())
    assert "verify/gates/ref2va-5s-v1.json" not in inventory["assets"]  # nothing was pinned
    inventory["assets"]["verify/gates/ref2va-5s-v1.json"] = __import__("hashlib").sha256(
        (repo / "verify" / "gates" / "ref2va-5s-v1.json").read_bytes()).hexdigest()
    (repo / "verify" / "inventory.json").write_text(json.dumps(inventory))
    result = run(str(repo / "evidence" / "run1"))
    assert result.exit_code == 2 and "already shipped by verify" in result.stderr


@pytest.mark.parametrize(("edit", "error", "match"), [
    (lambda r: (r / "verify" / "gates" / "extra.json").write_text("{}"), PinMismatch, "not pinned"),
    (lambda r: (r / "verify" / "gates" / "team-v1.json").unlink(), PinMismatch, "pinned .* but absent"),
    (lambda r: (r / "verify.toml").write_text('gates = "../x"\n'), ConfigError, "inside the repository"),
    (lambda r: (r / "verify.toml").write_text('gatez = "g"\n'), ConfigError, "unknown key"),
    (lambda r: (r / "verify.toml").write_text("gates = [\n"), ConfigError, "not valid TOML"),
    (lambda r: (r / "verify" / "inventory.json").unlink(), PinMismatch, "inventory named by verify.toml is absent"),
], ids=["unpinned-file", "pinned-absent", "path-escapes", "unknown-key", "bad-toml", "no-inventory"])
def test_a_broken_trust_root_refuses_to_start(repo, edit, error, match):
    edit(repo)
    with pytest.raises(error, match=match):
        locate(repo / "evidence" / "run1", shipped=assets())


def test_a_trusted_symlink_is_refused(repo, tmp_path):
    (tmp_path / "elsewhere.json").write_text(json.dumps(TEAM_GATE))
    (repo / "verify" / "gates" / "team-v1.json").unlink()
    (repo / "verify" / "gates" / "team-v1.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(ConfigError, match="symlink"):
        locate(repo, shipped=assets())


def test_pyproject_tool_verify_is_a_trust_root_too(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.verify]\ngates = "judges"\n')
    config = read_config(WorkTree(tmp_path))
    assert config is not None and config.gates == "judges" and config.file == "pyproject.toml"
    (tmp_path / "verify.toml").write_text("")
    with pytest.raises(ConfigError, match="keep one"):
        read_config(WorkTree(tmp_path))


def test_init_refuses_twice_and_pin_needs_a_config(tmp_path):
    assert "verify.toml" in init(str(tmp_path))
    with pytest.raises(UsageError, match="already has a trust root"):
        init(str(tmp_path))
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    with pytest.raises(UsageError, match="verify init"):
        pin(str(other), assets())


def test_newcomer_init_gate_new_pin_verify(tmp_path, run, monkeypatch):
    """The README's few lines: from nothing to a verdict judged by the team's own gate."""
    import shutil

    repo = tmp_path / "evidence-repo"
    shutil.copytree(EXAMPLE, repo / "evidence" / "run1")
    monkeypatch.chdir(repo)
    assert run("init").exit_code == 0
    made = run("gate", "new", "ours-v1", "--from", "evidence/run1")
    assert made.exit_code == 0, made.output
    gate = json.loads((repo / "verify" / "gates" / "ours-v1.json").read_text())
    assert gate["plan"]["measured_per_server"] == 3 and gate["coverage"]["expected_output"]["frames"] == 124
    assert gate["quality"]["comparisons"] == 14
    assert run("evidence/run1").exit_code == 2  # not pinned yet: refuses
    assert run("pin").exit_code == 0
    assert run("manifest", "evidence/run1", "--write", "--gate", "ours-v1").exit_code == 0
    result = run("-f", "json", "evidence/run1")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["trust"]["sources"][0]["id"] == "ours-v1"
    assert run("gate", "new", "ours-v1", "--from", "evidence/run1").exit_code == 2  # exists
    assert run("gate", "new", "ref2va-5s-v1", "--from", "evidence/run1").exit_code == 2  # shipped


def test_an_unpinned_profile_file_is_marked_and_refused_in_ci(tmp_path, run, monkeypatch):
    from conftest import ROOT

    document = json.loads((ROOT / "profiles" / "hyperfine.json").read_text())
    document["id"] = "my-hyperfine"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(document))
    target = ROOT / "tests" / "data" / "hyperfine" / "export.json"
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    result = run("--profile", str(path), "-f", "json", str(target))
    assert result.exit_code in (0, 1, 3), result.output
    sources = json.loads(result.stdout)["trust"]["sources"]
    assert sources[0]["origin"] == "unpinned" and sources[0]["id"] == "my-hyperfine"
    assert "UNPINNED profile" in run("--profile", str(path), str(target)).stdout
    for name, value in (("VERIFY_PINNED_ONLY", "true"), ("GITHUB_ACTIONS", "true"), ("CI", "true"), ("CI", "1")):
        monkeypatch.setenv(name, value)
        refused = run("--profile", str(path), str(target))
        assert refused.exit_code == 2 and "refused in CI" in refused.stderr, (name, value)
        monkeypatch.delenv(name)
    monkeypatch.setenv("CI", "false")
    assert run("--profile", str(path), str(target)).exit_code in (0, 1, 3)


def test_repository_trust_checks_scorer_weights_section(repo):
    gate = json.loads(json.dumps(TEAM_GATE))
    write_gate(repo, gate)
    inventory = json.loads((repo / "verify" / "inventory.json").read_text())
    inventory["scorer_weights"] = [{"name": "w.pth", "sha256": "0" * 64, "gates": ["team-v1"]}]
    (repo / "verify" / "inventory.json").write_text(json.dumps(inventory))
    config = read_config(WorkTree(repo))
    with pytest.raises(PinMismatch, match="scorer_weights"):
        RepositoryTrust(repo, config, WorkTree(repo), assets())


def test_a_profile_is_the_callers_own_copy_and_detection_one_per_process():
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import TrustSet

    trusted = TrustSet(assets())
    mine = trusted.profile("hyperfine")
    mine["detect"] = {"files": ["changed-by-a-caller"]}
    assert trusted.profile("hyperfine")["detect"] != mine["detect"]  # a caller's change never reaches the next run
    assert trusted.detection("hyperfine") is trusted.detection("hyperfine")  # detection: no copy per run


def test_a_profile_copy_shares_no_container_with_the_validated_one_or_another_copy():
    """Each copy (`verifier.trust.assets._copy_json` of the validated profile) equals another, types and all, and a change deep inside it reaches nothing else."""
    from decimal import Decimal

    from verifier.trust.assets import _copy_json
    from verifier.trust.trustroot import TrustSet

    def containers(node, out):
        if isinstance(node, (dict, list)):
            out.append(node)
            for child in node.values() if isinstance(node, dict) else node:
                containers(child, out)
        return out

    def typed(node):
        """`node` with every value's type beside it, so 1 and True and Decimal("1") differ."""
        if isinstance(node, dict):
            return {k: typed(v) for k, v in node.items()}
        if isinstance(node, list):
            return [typed(v) for v in node]
        return (type(node).__name__, node)

    trusted = TrustSet(assets())
    for pid in trusted.profile_ids():
        shared = trusted.profile(pid)
        before = json.dumps(typed(shared), default=repr)  # a Decimal (a profile's non-integer number, e.g. criterion's `scale`) shown as its repr
        first, second = trusted.profile(pid), trusted.profile(pid)
        assert typed(first) == typed(shared) and list(first) == list(shared)
        ids = [{id(c) for c in containers(d, [])} for d in (shared, first, second)]
        assert len(ids[1]) == len(containers(first, [])) == len(containers(shared, []))  # no container in two places
        assert not ids[0] & ids[1] and not ids[1] & ids[2] and not ids[0] & ids[2]
        for node in containers(first, []):  # change every container of one copy
            if isinstance(node, dict):
                node["changed-by-a-check"] = True
            else:
                node.append("changed-by-a-check")
        assert json.dumps(typed(shared), default=repr) == before and json.dumps(typed(trusted.profile(pid)), default=repr) == before
    inner = {"at": [Decimal("0.5"), 1, True, None, "s"]}
    document = {"a": inner, "b": inner, "c": [Decimal("1E+400"), -0.0]}
    copy = _copy_json(document)
    assert typed(copy) == typed(document) and copy["a"] is not copy["b"]  # as `_copy_json`: a shared dict becomes two


def test_pinning_a_schema_naming_no_list_names_its_file(tmp_path, run, monkeypatch):
    """helper-95: `verify pin` said `schema <no $id>: x-verify-enum 'NOPE' ...`, naming no file."""
    repo = tmp_path / "evidence-repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    assert run("init").exit_code == 0
    (repo / "verify" / "schemas" / "mine.schema.json").write_text(json.dumps(
        {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
         "properties": {"statistic": {"x-verify-enum": "NOPE"}}}))
    result = run("pin")
    assert result.exit_code == 2
    assert "mine.schema.json" in result.stderr and "NOPE" in result.stderr, result.stderr
