"""What README.md and docs/ci.md say about CI is checked like code."""

from __future__ import annotations

import re

import yaml
from conftest import ROOT

from verifier.report import REPORTERS


def _yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.S)


def test_readme_and_ci_doc_show_a_workflow_of_ten_lines_or_fewer_that_uses_the_action():
    for doc in ("README.md", "docs/ci.md"):
        block = _yaml_blocks((ROOT / doc).read_text())[0]
        assert len(block.strip().splitlines()) <= 10, doc
        workflow = yaml.safe_load(block)
        steps = workflow["jobs"]["verify"]["steps"]
        assert any(s["uses"].startswith("OWNER/verify@") for s in steps)
        for step in steps:
            ref = step["uses"].split("@", 1)[1]
            assert re.fullmatch(r"[0-9a-f]{40}|FILL-IN-40-HEX-SHA", ref), "actions are pinned by full sha (or marked to fill)"
        assert step is not None and steps[0]["with"]["persist-credentials"] is False


def test_ci_doc_lists_every_format_and_every_action_input():
    text = (ROOT / "docs" / "ci.md").read_text()
    for fmt in REPORTERS:
        assert f"| `{fmt}` |" in text, f"docs/ci.md's formats table has no row for format {fmt!r} of verifier.report.REPORTERS"
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    for name in action["inputs"]:
        assert f"`{name}`" in text, name


def test_ci_script_runs_the_readme_test_command_with_the_scoring_extra():
    readme = (ROOT / "README.md").read_text()
    command = next(line for line in re.findall(r"```sh\n(.*?)```", readme, flags=re.S) if "pytest" in line).strip()
    venv, install, test = (part.strip() for part in command.split("&&"))
    script = (ROOT / ".ci" / "run").read_text()
    assert "'.[test,scoring]'" in install, "CI must install the scoring extra so tests/scorers/test_lpips.py runs"
    assert venv in script and install.replace(" -e ", " --quiet -e ") in script
    runs = [line.strip() for line in script.splitlines() if line.strip().startswith("exec ")]
    assert len(runs) == 2 and all(line.endswith(test) for line in runs)  # with and without unshare --net
    assert "export VERIFY_REQUIRE_SCORING=1" in script
