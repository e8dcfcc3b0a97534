"""
Issue 41: a plain `verify` on a pull-request checkout whose trust root (gates, profiles, pins) differs from the default
branch's says so at the top and in the verdict line, and names the `--trust-ref` to use.
"""

from __future__ import annotations

import json

import pytest
from trustkit import TEAM_GATE, bundle, git, trusted_repository, write_gate

from verifier.trust.assets import assets
from verifier.commands.trustroot_cmds import pin


@pytest.fixture
def loosened(tmp_path):
    """A checkout of branch `loosen` that loosened and re-pinned the gate `main` holds; its bundle passes only the loosened gate."""
    repo = trusted_repository(tmp_path / "repo")
    git(repo, "checkout", "-qb", "loosen")
    write_gate(repo, {**TEAM_GATE, "plan": {**TEAM_GATE["plan"], "measured_per_server": 1}})
    bundle(repo / "evidence" / "run1", measured=1)
    pin(str(repo), assets())
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "loosen the gate and re-pin it")
    return repo


def test_a_plain_run_on_a_loosened_checkout_says_its_trust_root_differs(loosened, run):
    target = str(loosened / "evidence" / "run1")
    text = run(target)
    assert text.exit_code == 0  # judged by the loosened gate, as asked; but it says so
    lines = text.stdout.splitlines()
    assert lines[1].startswith("trust: TRUST ROOT DIFFERS from main (") and "verify/gates/team-v1.json" in lines[1]
    assert "--trust-ref main" in lines[1]
    assert lines[-1].startswith("verdict: PASS") and lines[-1].endswith("differs from main's: re-run with --trust-ref main")
    report = json.loads(run("-f", "json", target).stdout)
    assert report["trust"]["default"]["ref"] == "main"
    assert report["trust"]["default"]["changed"] == ["verify/gates/team-v1.json", "verify/inventory.json"]
    md = run("-f", "markdown", target).stdout
    assert "**Verdict: PASS**" in md and "--trust-ref main" in md.split("\n\n")[1]
    page = run("-f", "html", target).stdout
    assert page.index('id="trust-differs"') < page.index("To act on")
    gh = run("-f", "github", target).stdout.splitlines()
    assert gh[-1].endswith("re-run with --trust-ref main") and any(g.startswith("::warning") and "TRUST ROOT DIFFERS" in g for g in gh)
    assert run("--trust-ref", "main", target).exit_code == 1  # the named ref judges by main's gate


def test_a_checkout_whose_trust_root_is_the_default_branch_s_says_nothing(loosened, run):
    git(loosened, "checkout", "-q", "main")
    text = run(str(loosened / "evidence" / "run1")).stdout
    assert "TRUST ROOT DIFFERS" not in text and "--trust-ref" not in text
    assert "default" not in json.loads(run("-f", "json", str(loosened / "evidence" / "run1")).stdout)["trust"]


def test_in_ci_the_action_s_base_ref_is_the_default(loosened, run, monkeypatch):
    git(loosened, "branch", "-q", "base", "main")
    git(loosened, "branch", "-qm", "main", "trunk")  # no `main` any more: only the CI base names the default
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("GITHUB_BASE_REF", "base")
    report = json.loads(run("-f", "json", str(loosened / "evidence" / "run1")).stdout)
    assert report["trust"]["default"]["ref"] == "base"
