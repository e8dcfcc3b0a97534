"""One statistics vocabulary: `stats.STATISTICS` is the enum of the gate and profile schemas; what a reader cannot derive is refused at load."""

import copy
import json
import shutil
from pathlib import Path

import pytest

from verifier.engine import stats
from verifier.engine.derive import CAMPAIGN_STATISTICS, RECORD_STATISTICS
from verifier.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent.parent


def _schema(name: str) -> dict:
    return json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text())


def _loaded(name: str) -> dict:
    from verifier.trust.assets import Assets

    return Assets(ROOT).schema(name)


def _conditions(rules: list[dict]) -> dict[str, list[str]]:
    """Return `{member required by a conditional: the statistics of its if}` of an `allOf` of `if statistic enum ... then required`."""
    return {name: rule["if"]["properties"]["statistic"]["enum"] for rule in rules if "enum" in rule["if"]["properties"]["statistic"]
            for name in rule["then"]["required"]}


def _statistic_lists(node, pointer: str = "") -> list[str]:
    """Return the JSON Pointer of each `enum` in `node` listing three or more statistics of the vocabulary (`pick` is `max` or `min`)."""
    if isinstance(node, list):
        return [p for i, item in enumerate(node) for p in _statistic_lists(item, f"{pointer}/{i}")]
    if not isinstance(node, dict):
        return []
    enum = node.get("enum")
    here = [pointer] if isinstance(enum, list) and len(enum) > 2 and set(enum) <= set(stats.STATISTICS) else []
    return here + [p for key, value in node.items() if key != "enum" for p in _statistic_lists(value, f"{pointer}/{key}")]


def test_the_schema_files_name_the_vocabulary_and_write_no_list_of_statistics():
    """Adding a statistic edits stats.py, not the pinned schema files: they name its lists (`x-verify-enum`), never write one out."""
    assert _statistic_lists(_schema("gate")) == []
    # the one list left: the per-arm statistics `of` compares (derive_rule's, no group of stats.py)
    assert _statistic_lists(_schema("profile")) == ["/$defs/derivation/properties/of/properties/statistic"]
    assert _schema("gate")["properties"]["claims"]["items"]["properties"]["statistic"] == {"x-verify-enum": "STATISTICS"}
    assert len(_statistic_lists(_loaded("gate"))) == 3 and len(_statistic_lists(_loaded("profile"))) == 6


def test_gate_schema_takes_its_statistics_from_stats():
    items = _loaded("gate")["properties"]["claims"]["items"]
    assert items["properties"]["statistic"]["enum"] == list(stats.STATISTICS)
    assert _conditions(items["allOf"]) == {"baseline": list(stats.ARM_STATISTICS), "candidate": list(stats.ARM_STATISTICS),
                                           "selection": list(stats.SELECTION_STATISTICS)}


def test_profile_schema_takes_its_statistics_from_stats():
    derivation = _loaded("profile")["$defs"]["derivation"]
    assert derivation["properties"]["statistic"]["enum"] == list(stats.STATISTICS)
    assert _conditions(derivation["allOf"]) == {
        "method": list(stats.CI_STATISTICS), "confidence": list(stats.CI_STATISTICS), "unit": list(stats.UNIT_STATISTICS),
        "baseline": list(stats.TWO_ARM_STATISTICS), "candidate": list(stats.TWO_ARM_STATISTICS),
        "x": list(stats.REGRESSION_STATISTICS), "value": list(stats.REGRESSION_STATISTICS)}


def test_the_unit_list_is_each_statistic_in_its_values_unit_or_a_slope():
    assert set(stats.UNIT_STATISTICS) | set(stats.CI_STATISTICS) == set(stats.VALUE_STATISTICS) | {"slope", "slope_through_origin"}


def test_a_gate_naming_an_unknown_statistic_is_exit_2_naming_the_file_and_the_vocabulary(tmp_path, monkeypatch):
    """The enum the loaded schema takes from stats.STATISTICS still refuses what is not in it (without it the gate would load)."""
    from click.testing import CliRunner

    from verifier.cli import main
    from verifier.trust.assets import Assets, write_inventory

    root = tmp_path / "assets"
    shutil.copytree(ROOT / "schemas", root / "schemas")
    shutil.copytree(ROOT / "gates", root / "gates")
    gate = json.loads((root / "gates" / "ref2va-5s-v1.json").read_text())
    gate["claims"][0]["statistic"] = "geomean"
    (root / "gates" / "ref2va-5s-v1.json").write_text(json.dumps(gate))
    (root / "inventory.json").write_text(json.dumps({"inventory_version": 1, "assets": {}}))
    write_inventory(root)
    monkeypatch.setattr("verifier.core.assets", lambda _root=None: Assets(root))
    result = CliRunner().invoke(main, [str(ROOT / "examples" / "ref2va-5s")], catch_exceptions=False)
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert f"{root / 'gates' / 'ref2va-5s-v1.json'}: invalid gate: 'geomean' is not one of {list(stats.STATISTICS)}" in result.stderr


def test_a_profile_naming_an_unknown_statistic_is_refused_naming_the_file_and_the_vocabulary():
    from conftest import profile_document

    from verifier.profiles.language import load_profile

    doc = profile_document("system1-omni-gdn")
    doc["claims"][0]["statistic"] = "geomean"
    with pytest.raises(ConfigError) as err:
        load_profile(doc, _schema("profile"), origin="draft.json")  # the file as written: the validator fills it as Assets does
    assert str(err.value) == f"draft.json: invalid profile at /claims/0/statistic: 'geomean' is not one of {list(stats.STATISTICS)}"


def test_a_schema_naming_no_list_of_the_vocabulary_is_refused_at_start(tmp_path):
    from verifier.trust.assets import Assets, write_inventory

    root = tmp_path / "assets"
    shutil.copytree(ROOT / "schemas", root / "schemas")
    text = (root / "schemas" / "gate.schema.json").read_text()
    (root / "schemas" / "gate.schema.json").write_text(text.replace('"x-verify-enum": "STATISTICS"', '"x-verify-enum": "STATISTIC"'))
    (root / "inventory.json").write_text(json.dumps({"inventory_version": 1, "assets": {}}))
    write_inventory(root)
    with pytest.raises(ConfigError) as err:
        Assets(root)
    assert str(err.value).startswith(f"{root / 'schemas' / 'gate.schema.json'}: schema ") and "x-verify-enum 'STATISTIC' names no list of " in str(err.value)


def test_each_reader_derives_a_part_of_the_vocabulary_and_refuses_the_rest():
    assert set(CAMPAIGN_STATISTICS) < set(RECORD_STATISTICS) == set(stats.STATISTICS)
    assert not set(stats.PAIR_STATISTICS) & set(CAMPAIGN_STATISTICS)


def _assets_with_gate(tmp_path: Path, rule: dict):
    from helpers import TINY_GATE

    from verifier.trust.assets import Assets, write_inventory

    root = tmp_path / "assets"
    shutil.copytree(ROOT / "schemas", root / "schemas")
    (root / "gates").mkdir()
    gate = copy.deepcopy(TINY_GATE)
    gate["claims"].append(rule)
    (root / "gates" / "tiny-v1.json").write_text(json.dumps(gate))
    (root / "inventory.json").write_text(json.dumps({"inventory_version": 1, "assets": {}}))
    write_inventory(root)
    return Assets(root), root


@pytest.mark.parametrize("statistic", ["ci_low", "ratio_of_sums", "ratio"])
def test_a_gate_naming_a_statistic_no_native_campaign_derives_is_refused_at_load(tmp_path, statistic):
    assets, root = _assets_with_gate(tmp_path, {"claim": "x", "statistic": statistic, "selection": {"phase": "measured"}})
    with pytest.raises(ConfigError) as err:
        assets.gate("tiny-v1")
    assert str(err.value).startswith(f"{root / 'gates/tiny-v1.json'}: invalid gate at /claims/2/statistic: statistic {statistic!r} cannot be derived")


@pytest.mark.parametrize("statistic", ["max", "population_sd", "difference", "harmonic_mean"])
def test_a_gate_naming_a_statistic_of_latencies_loads(tmp_path, statistic):
    rule = {"claim": "x", "statistic": statistic, "selection": {"phase": "measured"}, "baseline": "baseline", "candidate": "candidate"}
    assets, _ = _assets_with_gate(tmp_path, rule)
    assert assets.gate("tiny-v1")["claims"][2]["statistic"] == statistic


def test_a_profile_naming_a_pair_statistic_loads_with_its_arms():
    """`ratio` and `relative_change_pct` compare the two arms' means of server means (tests/profiles/test_profiles_authoring.py judges them)."""
    from conftest import profile_document

    from verifier.profiles.language import load_profile
    from verifier.trust.assets import assets

    doc = profile_document("system1-omni-gdn")
    rule = next(c for c in doc["claims"] if "baseline" in c)
    rule["statistic"], rule["unit"] = "ratio", "%"
    load_profile(doc, assets().schema("profile"), origin="draft.json")
