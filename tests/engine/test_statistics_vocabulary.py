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


def test_gate_schema_takes_its_statistics_from_stats():
    enum = _schema("gate")["properties"]["claims"]["items"]["properties"]["statistic"]["enum"]
    assert enum == list(stats.STATISTICS), "schemas/gate.schema.json's statistic enum must be stats.STATISTICS (then re-pin inventory.json)"


def test_profile_schema_takes_its_statistics_from_stats():
    enum = _schema("profile")["$defs"]["derivation"]["properties"]["statistic"]["enum"]
    assert enum == list(stats.STATISTICS), "schemas/profile.schema.json's statistic enum must be stats.STATISTICS (then re-pin inventory.json)"


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
