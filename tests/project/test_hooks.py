"""pre-commit: the hooks we offer (`verify changed`, `verify inventory`) and our own config (pins checked)."""

from __future__ import annotations

import io
import json
import shutil

import pytest
import yaml
from conftest import ROOT
from helpers import write_bundle

from verifier.trust.assets import main as trust_main

HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
CONFIG = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())


def test_hook_entries_are_verify_commands():
    from verifier.cli import main

    for hook in HOOKS:
        program, command, *_ = hook["entry"].split()
        assert program == "verify" and command in main.commands, hook["id"]
        assert hook["language"] == "python"


def test_changed_verifies_each_bundle_of_the_files_once(tiny_assets, tmp_path, run, monkeypatch):
    write_bundle(tmp_path / "evidence" / "good")
    write_bundle(tmp_path / "evidence" / "bad", baseline_mean="10.5")
    monkeypatch.chdir(tmp_path)
    result = run("changed", "evidence/good/plan.json", "evidence/good/claims.json")
    assert result.exit_code == 0 and result.stderr.count("verify: PASS: evidence/good") == 1
    result = run("changed", "evidence/good/plan.json", "evidence/bad/sub/x.txt", "evidence/bad/claims.json")
    assert result.exit_code == 1
    assert "verify: FAIL: evidence/bad" in result.stderr and "verify: PASS: evidence/good" in result.stderr


def test_changed_never_passes_a_file_it_could_not_place_in_a_bundle(tiny_assets, tmp_path, run, monkeypatch):
    """An empty run is never a pass (docs/exit-codes.md): a file in no bundle is named and makes the run INCOMPLETE."""
    write_bundle(tmp_path / "evidence" / "good")
    monkeypatch.chdir(tmp_path)
    result = run("changed", "evidence/notes.md")
    assert result.exit_code == 3
    assert "verify: INCOMPLETE: evidence/notes.md: not inside any bundle" in result.stderr
    result = run("changed", "evidence/good/plan.json", "evidence/notes.md")
    assert result.exit_code == 3 and "verify: PASS: evidence/good" in result.stderr
    assert "evidence/notes.md: not inside any bundle" in result.stderr
    result = run("changed")
    assert result.exit_code == 2 and "needs at least one FILE" in result.stderr


def test_changed_never_climbs_above_the_working_directory(tiny_assets, tmp_path, run, monkeypatch):
    write_bundle(tmp_path / "outer")
    (tmp_path / "outer" / "inner").mkdir()
    monkeypatch.chdir(tmp_path / "outer" / "inner")
    result = run("changed", "x.txt")
    assert result.exit_code == 3 and "x.txt: not inside any bundle" in result.stderr


def test_project_config_checks_schemas_gates_and_pins():
    hooks = [h for repo in CONFIG["repos"] for h in repo["hooks"]]
    names = {h["id"] for h in hooks}
    assert {"check-metaschema", "check-jsonschema", "verify-pins"} <= names
    for hook in hooks:
        for i, arg in enumerate(hook.get("args", [])):
            if arg == "--schemafile":
                assert (ROOT / hook["args"][i + 1]).is_file()


def test_pin_check_passes_here_and_fails_on_an_edited_gate(tmp_path, capsys):
    assert trust_main(["--check", str(ROOT)]) == 0
    copy = tmp_path / "assets"
    for name in ("schemas", "gates", "profiles"):
        shutil.copytree(ROOT / name, copy / name)
    shutil.copy(ROOT / "inventory.json", copy / "inventory.json")
    gate = copy / "gates" / "ref2va-5s-v1.json"
    data = json.loads(gate.read_text())
    data["quality"]["thresholds"]["ssim"]["min"] = 0.5
    gate.write_text(json.dumps(data))
    before = (copy / "inventory.json").read_bytes()
    assert trust_main(["--check", str(copy)]) == 2
    assert "differs from the pin" in capsys.readouterr().err
    assert (copy / "inventory.json").read_bytes() == before


def test_progress_policy():
    from verifier.engine.progress import make_progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert make_progress(Tty(), env={}).bar is True
    assert make_progress(Tty(), env={"CI": "true"}) is None
    assert make_progress(io.StringIO(), env={}) is None
    assert make_progress(Tty(), env={"GITHUB_ACTIONS": "true"}, verbose=True).bar is False


def test_hashing_progress_counts_every_byte(tmp_path):
    from verifier.checks.integrity import hash_many
    from verifier.engine.progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    paths = []
    for i in range(3):
        p = tmp_path / f"f{i}"
        p.write_bytes(b"x" * (1000 * (i + 1)))
        paths.append(p)
    stream = Tty()
    progress = Progress(stream, bar=True)
    hash_many(paths, progress=progress)
    assert progress._done == 6000 and "100.0%" in stream.getvalue()
    lines = io.StringIO()
    hash_many(paths, progress=Progress(lines, bar=False))
    assert lines.getvalue().splitlines() == ["verify: hashing 3 file(s): 5.9 KiB", "verify: hashing 3 file(s): done (5.9 KiB)"]


def test_cli_is_silent_on_stderr_in_ci_without_verbose(tiny_assets, tmp_path, run, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = run(str(write_bundle(tmp_path / "b")))
    assert result.stderr == f"verify: PASS: {tmp_path / 'b'}\n"
    result = run(str(tmp_path / "b"), "-v")
    assert "verify: hashing 3 file(s)" in result.stderr


def test_pinning_a_directory_without_assets_is_refused_and_writes_nothing(tmp_path, capsys):
    """A newcomer ran `python -m verifier.trust .` in the wrong directory: it wrote an empty inventory.json and said nothing."""
    assert trust_main([str(tmp_path)]) == 2
    assert "nothing to pin" in capsys.readouterr().err
    assert not (tmp_path / "inventory.json").exists()
    assert trust_main(["--check", str(tmp_path)]) == 2


def _assets_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "assets"
    for name in ("schemas", "gates", "profiles"):
        shutil.copytree(ROOT / name, copy / name)
    shutil.copy(ROOT / "inventory.json", copy / "inventory.json")
    return copy


def _name_statistic(gate: Path, statistic: str) -> None:
    data = json.loads(gate.read_text())
    data["claims"][0]["statistic"] = statistic
    gate.write_text(json.dumps(data))


def test_pinning_and_checking_refuse_a_gate_naming_an_unknown_statistic(tmp_path, capsys):
    """The schema files name their statistic lists (`x-verify-enum`), which check-jsonschema cannot read: the pin hook
    checks every gate and profile against the filled schemas, and re-pinning refuses an invalid asset, writing nothing."""
    copy = _assets_copy(tmp_path)
    gate = copy / "gates" / "ref2va-5s-v1.json"
    _name_statistic(gate, "geomean")
    before = (copy / "inventory.json").read_bytes()
    assert trust_main([str(copy)]) == 2
    err = capsys.readouterr().err
    assert "ref2va-5s-v1.json" in err and "geomean" in err, err
    assert (copy / "inventory.json").read_bytes() == before
    write_inventory_unchecked(copy)  # pinned by hand: the check still refuses it
    assert trust_main(["--check", str(copy)]) == 2
    err = capsys.readouterr().err
    assert "ref2va-5s-v1.json" in err and "geomean" in err, err


def test_pinning_a_valid_change_still_works(tmp_path, capsys):
    copy = _assets_copy(tmp_path)
    _name_statistic(copy / "gates" / "ref2va-5s-v1.json", "median")
    assert trust_main([str(copy)]) == 0
    assert trust_main(["--check", str(copy)]) == 0
    capsys.readouterr()


def write_inventory_unchecked(root: Path) -> None:
    from verifier.trust.assets import write_inventory

    write_inventory(root)


def test_pinning_refuses_a_profile_naming_an_unknown_statistic(tmp_path, capsys):
    copy = _assets_copy(tmp_path)
    profile = copy / "profiles" / "hyperfine.json"
    data = json.loads(profile.read_text())
    text = json.dumps(data)
    assert '"statistic": "mean"' in text
    profile.write_text(text.replace('"statistic": "mean"', '"statistic": "geomean"', 1))
    before = (copy / "inventory.json").read_bytes()
    assert trust_main([str(copy)]) == 2
    err = capsys.readouterr().err
    assert "hyperfine.json" in err and "geomean" in err, err
    assert (copy / "inventory.json").read_bytes() == before


def test_no_hook_validates_with_a_raw_schema_that_names_its_lists():
    """check-jsonschema does not know `x-verify-enum`: an `if` naming a list then matches every value, so the raw gate
    schema refused every shipped gate (helper-95). Gates and profiles are validated by the pin hook, against the
    filled schemas (`python -m verifier.trust --check`, `trust.assets.load_all`)."""
    hooks = [h for repo in CONFIG["repos"] for h in repo["hooks"]]
    for hook in hooks:
        args = hook.get("args", [])
        if "--schemafile" in args:
            schema = (ROOT / args[args.index("--schemafile") + 1]).read_text()
            assert "x-verify-enum" not in schema, f"{hook['name']}: check-jsonschema cannot read {args[args.index('--schemafile') + 1]}"
    pins = next(h for h in hooks if h["id"] == "verify-pins")
    assert "profiles/" in pins["files"] and "gates/" in pins["files"]


@pytest.mark.parametrize("inventory", [b"[]", b"\xff\xfe", "directory"])
def test_repinning_over_an_unusable_inventory_is_one_line_naming_it(tmp_path, capsys, inventory):
    copy = _assets_copy(tmp_path)
    path = copy / "inventory.json"
    if inventory == "directory":
        path.unlink()
        path.mkdir()
    else:
        path.write_bytes(inventory)
    assert trust_main([str(copy)]) == 2
    err = capsys.readouterr().err
    assert "inventory.json" in err and err.count("\n") == 1, err
    if inventory != "directory":
        assert path.read_bytes() == inventory


@pytest.mark.parametrize("gate", [b"[]", b'{"quality": {"scorers": {"x": {"weights": [{}]}}}}', b"[" * 200000 + b"]" * 200000])
def test_repinning_a_malformed_gate_is_one_line_naming_it(tmp_path, capsys, gate):
    copy = _assets_copy(tmp_path)
    (copy / "gates" / "odd.json").write_bytes(gate)
    before = (copy / "inventory.json").read_bytes()
    assert trust_main([str(copy)]) == 2
    err = capsys.readouterr().err
    assert "odd.json" in err and err.count("\n") == 1, err
    assert (copy / "inventory.json").read_bytes() == before
