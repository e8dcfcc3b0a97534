"""
Tests that kill surviving mutants of `verifier/trust/trustroot.py` (issue 42, cosmic-ray; docs/testing.md, "Mutation testing").

Each test drives the trust root through its public functions on a small
repository (`WorkTree` over a temporary directory, or `MemorySource`, the
`Source` protocol over a dict) and pins the exact message of every refusal;
each docstring names the mutants it kills (line of `verifier/trust/trustroot.py`, operator).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import TINY_GATE

from verifier.errors import ConfigError, PinMismatch, UsageError
from verifier.trust.assets import assets
from verifier.trust.trustroot import (
    Config,
    RepositoryTrust,
    TrustSet,
    WorkTree,
    find_repository,
    is_profile_file,
    pins_for,
    profile_origin,
    profiles_listed,
    read_config,
    scorer_weights_of,
)

HERE = "the working tree"


def _config(tmp_path: Path, text: str, name: str = "verify.toml") -> Config | None:
    (tmp_path / name).write_text(text)
    return read_config(WorkTree(tmp_path))


@pytest.mark.parametrize("text", [
    'gates = "x"\nprofiles = "x"\n',  # one-character names: CPython keeps one object per such string
    'gates = "judges"\nprofiles = "judges"\n',
    'gates = "j"\nschemas = "j/s"\n',
    'gates = "j/g"\nprofiles = "j"\n',
])
def test_two_kinds_sharing_a_directory_are_refused_whatever_its_name(tmp_path, text):
    """A bug the session showed: `a is not b` told two kinds apart by object identity, so `gates = "x"` and `profiles = "x"` passed."""
    with pytest.raises(ConfigError) as caught:
        _config(tmp_path, text)
    assert str(caught.value) == f"verify.toml ({HERE}): the gates, profiles and schemas directories must be distinct"


# --- the in-memory trust root: `RepositoryTrust` over the `Source` protocol, no git and no bundle ---------------------------------

ROOT = Path(__file__).resolve().parent.parents[1]
GATE = {**TINY_GATE, "id": "team-v1"}
PROFILE = {**json.loads((ROOT / "profiles" / "pyperf.json").read_text()), "id": "team-pyperf"}
SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}
CONFIG = Config(file="verify.toml", gates="verify/gates", profiles="verify/profiles", schemas="verify/schemas", inventory="verify/inventory.json")
WHERE = "verify/inventory.json (memory)"


class MemorySource:
    """The `Source` protocol over a dict `{repository-relative path: bytes}`."""

    label = "memory"

    def __init__(self, files: dict[str, bytes]) -> None:
        self.data = files

    def read(self, rel: str) -> bytes | None:
        return self.data.get(rel)

    def files(self, directory: str) -> list[str]:
        return sorted(r for r in self.data if r.startswith(directory.rstrip("/") + "/"))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _source(files: dict[str, object], *, pins: dict[str, str] | None = None, inventory: object = None) -> MemorySource:
    """Return a source holding `files` (dicts written as JSON) and an inventory pinning them all (or `pins`, or `inventory` itself)."""
    data = {rel: (doc if isinstance(doc, bytes) else json.dumps(doc).encode()) for rel, doc in files.items()}
    if inventory is None:
        inventory = {"inventory_version": 1, "assets": pins if pins is not None else {r: _sha(b) for r, b in sorted(data.items())}}
    data["verify/inventory.json"] = inventory if isinstance(inventory, bytes) else json.dumps(inventory).encode()
    return MemorySource(data)


def _trust(source: MemorySource) -> RepositoryTrust:
    return RepositoryTrust(Path("/repo"), CONFIG, source, assets())


def _refused(source: MemorySource, error: type[Exception] = ConfigError) -> str:
    with pytest.raises(error) as caught:
        _trust(source)
    assert type(caught.value) is error
    return str(caught.value)


def test_a_complete_trust_root_loads_every_kind_under_its_id():
    source = _source({"verify/gates/team-v1.json": GATE, "verify/profiles/team-pyperf.json": PROFILE,
                      "verify/schemas/team.schema.json": SCHEMA, "verify/schemas/alpha.schema.json": SCHEMA})
    trust = _trust(source)
    assert trust.ids("gates") == ["team-v1"] and trust.ids("profiles") == ["team-pyperf"] and trust.ids("schemas") == ["alpha", "team"]
    assert trust.documents[("gates", "team-v1")] == ("verify/gates/team-v1.json", GATE)
    assert trust.documents[("schemas", "team")] == ("verify/schemas/team.schema.json", SCHEMA)
    rel, profile = trust.documents[("profiles", "team-pyperf")]
    assert rel == "verify/profiles/team-pyperf.json" and profile["id"] == "team-pyperf"
    assert trust.pins == {r: _sha(source.data[r]) for r in source.data if r != "verify/inventory.json"}
    assert pins_for(CONFIG, source) == trust.pins and list(pins_for(CONFIG, source)) == sorted(trust.pins)


def test_the_inventory_must_exist_parse_and_follow_its_schema():
    gate = {"verify/gates/team-v1.json": GATE}
    absent = MemorySource({"verify/gates/team-v1.json": json.dumps(GATE).encode()})
    assert _refused(absent, PinMismatch) == ("/repo/verify/inventory.json: the inventory named by verify.toml is absent (memory); "
                                             "run `verify pin`")
    assert _refused(_source(gate, inventory=b'{"assets": {}, "assets": {}}')).startswith(f"{WHERE}: ")
    assert _refused(_source(gate, inventory={"inventory_version": 1})) == f"{WHERE}: 'assets' is a required property"


def test_every_file_is_pinned_every_pin_exists_and_every_digest_matches():
    gate = {"verify/gates/team-v1.json": GATE}
    digest = _sha(json.dumps(GATE).encode())
    assert _refused(_source(gate, pins={}), PinMismatch) == (
        f"verify/gates/team-v1.json: not pinned in {WHERE}; run `verify pin` after a deliberate edit, refusing to start")
    assert _refused(_source(gate, pins={"verify/gates/team-v1.json": digest, "verify/gates/gone.json": "0" * 64}), PinMismatch) == (
        f"verify/gates/gone.json: pinned in {WHERE} but absent; refusing to start")
    assert _refused(_source(gate, pins={"verify/gates/team-v1.json": "0" * 64}), PinMismatch) == (
        f"verify/gates/team-v1.json: sha256 {digest} differs from the pin {'0' * 64} in {WHERE}; the trust root differs from its pins "
        "(re-pin with `verify pin` after a deliberate edit), refusing to start")


@pytest.mark.parametrize("rel,message", [
    ("verify/gates/team-v1.txt", "verify/gates/team-v1.txt: verify/gates/ holds only <id>.json files"),
    ("verify/gates/sub/team-v1.json", "verify/gates/sub/team-v1.json: verify/gates/ holds only <id>.json files"),
    ("verify/schemas/team.json", "verify/schemas/team.json: verify/schemas/ holds only <id>.schema.json files"),
    ("verify/profiles/team.schema", "verify/profiles/team.schema: verify/profiles/ holds only <id>.json files"),
    ("verify/gates/ref2va-5s-v1.json", "verify/gates/ref2va-5s-v1.json: gate id 'ref2va-5s-v1' is already shipped by verify; "
                                       "a repository cannot override a shipped one, choose another id"),
    ("verify/profiles/pyperf.json", "verify/profiles/pyperf.json: profile id 'pyperf' is already shipped by verify; "
                                    "a repository cannot override a shipped one, choose another id"),
    ("verify/schemas/gate.schema.json", "verify/schemas/gate.schema.json: schema id 'gate' is already shipped by verify; "
                                        "a repository cannot override a shipped one, choose another id"),
    ("verify/schemas/receipt.schema.json", "verify/schemas/receipt.schema.json: schema id 'receipt' is already shipped by verify; "
                                           "a repository cannot override a shipped one, choose another id"),
])
def test_a_trusted_file_is_named_by_its_own_new_id(rel, message):
    """Kills `:370` `k[len("schemas/"):-len(".schema.json")]` -> `:+len(...)` (ReplaceUnaryOperator_USub_UAdd): `receipt` is no 4-letter id."""
    doc = GATE if "/gates/" in rel else PROFILE if "/profiles/" in rel else SCHEMA
    assert _refused(_source({rel: doc})) == message


def test_a_trusted_document_is_strict_json_a_valid_gate_with_its_own_id():
    gate_rel = "verify/gates/team-v1.json"
    assert _refused(_source({gate_rel: b'{"id": "team-v1", "id": "team-v1"}'})).startswith(f"{gate_rel} (memory): ")
    assert _refused(_source({"verify/schemas/t.schema.json": b"{\"a\": NaN}"})).startswith("verify/schemas/t.schema.json (memory): ")
    assert _refused(_source({gate_rel: {**GATE, "version": "one"}})) == f"{gate_rel} (memory): invalid gate: 'one' is not of type 'integer'"
    ratio = {**GATE, "claims": [*GATE["claims"], {"claim": "r", "statistic": "ratio", "of": "requests"}]}
    assert _refused(_source({gate_rel: ratio})) == (
        f"{gate_rel} (memory): invalid gate at /claims/2/statistic: statistic 'ratio' cannot be derived from a native bundle's receipts: "
        "it takes two given numbers, not a selection")
    assert _refused(_source({gate_rel: {**GATE, "id": "team-v2"}})) == f"{gate_rel}: its `id` must be 'team-v1' (the file name)"
    assert _refused(_source({"verify/profiles/team.json": PROFILE})) == "verify/profiles/team.json: its `id` must be 'team' (the file name)"
    assert _refused(_source({"verify/profiles/team.json": [1]})) == "verify/profiles/team.json: its `id` must be 'team' (the file name)"


def test_the_scorer_weights_section_is_what_the_gates_admit():
    weights = {"name": "w.pth", "sha256": "a" * 64, "role": "net"}
    quality = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())["quality"]  # a complete quality section, one weight file
    gate = {**GATE, "quality": {**quality, "scorers": {**quality["scorers"], "lpips": {"id": "lpips", "weights": [weights], "versions": {}, "parameters": {}}}}}
    files = {"verify/gates/team-v1.json": gate}
    pins = {"verify/gates/team-v1.json": _sha(json.dumps(gate).encode())}
    admitted = [{"name": "w.pth", "sha256": "a" * 64, "gates": ["team-v1"]}]
    assert _trust(_source(files, inventory={"inventory_version": 1, "assets": pins, "scorer_weights": admitted})).ids("gates") == ["team-v1"]
    assert _refused(_source(files, inventory={"inventory_version": 1, "assets": pins}), PinMismatch) == (
        f"{WHERE}: scorer_weights differs from the weights the repository's gates admit {admitted}; re-pin with `verify pin`, refusing to start")
    assert _trust(_source({"verify/gates/team-v1.json": GATE})).ids("gates") == ["team-v1"]  # no weights: none listed, none needed


def test_scorer_weights_of_collects_each_named_and_digested_weight_once_with_its_gates():
    w1, w2 = {"name": "b.pth", "sha256": "1" * 64}, {"name": "a.pth", "sha256": "2" * 64}
    gates = {
        "g2": {"quality": {"scorers": {"lpips": {"weights": [w1, {"name": 3, "sha256": "x"}, {"name": "n"}, "w"]}, "x": "y"}}},
        "g1": {"quality": {"scorers": {"lpips": {"weights": [w1, w2]}}}},
        "g3": {"quality": {"scorers": ["lpips"]}}, "g4": {"quality": None}, "g5": [1], "g6": {},
    }
    assert scorer_weights_of(gates) == [{"name": "a.pth", "sha256": "2" * 64, "gates": ["g1"]},
                                        {"name": "b.pth", "sha256": "1" * 64, "gates": ["g1", "g2"]}]
    assert scorer_weights_of({}) == []


# --- read_config over a working tree -----------------------------------------------------------------------------------------------

def test_no_config_is_none_and_an_empty_one_takes_every_default(tmp_path):
    """Also kills `:172` `frozen=True` -> `False` of `Config` (ReplaceTrueWithFalse)."""
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        CONFIG.gates = "elsewhere"  # type: ignore[misc]
    assert read_config(WorkTree(tmp_path)) is None
    assert _config(tmp_path, "") == Config(file="verify.toml", gates="verify/gates", profiles="verify/profiles",
                                           schemas="verify/schemas", inventory="verify/inventory.json")
    assert _config(tmp_path, 'gates = "a/./g/"\ninventory = "pins.json"\n') == Config(
        file="verify.toml", gates="a/g", profiles="verify/profiles", schemas="verify/schemas", inventory="pins.json")
    assert CONFIG.directory("gates") == "verify/gates" and CONFIG.directory("schemas") == "verify/schemas"


@pytest.mark.parametrize("text,message", [
    ('gates = ""\n', "`gates` must be a non-empty string (a path relative to the repository root)"),
    ("profiles = 3\n", "`profiles` must be a non-empty string (a path relative to the repository root)"),
    ('gates = "/abs"\n', "`gates` = '/abs' must be a relative path inside the repository"),
    ('gates = "a\\\\b"\n', "`gates` = 'a\\\\b' must be a relative path inside the repository"),
    ('gates = "."\n', "`gates` = '.' must be a relative path inside the repository"),
    ('gates = "a/.."\n', "`gates` = 'a/..' must be a relative path inside the repository"),
    ('schemas = "a/../../x"\n', "`schemas` = 'a/../../x' must be a relative path inside the repository"),
    ('inventory = "verify/gates/pins.json"\n', "the inventory must not sit inside a pinned directory"),
    ('schemas = "s"\ninventory = "s/pins.json"\n', "the inventory must not sit inside a pinned directory"),
    ('zeta = 1\nalpha = 2\ngates = "g"\n', "unknown key(s) alpha, zeta; known: gates, profiles, schemas, inventory"),
])
def test_a_config_value_names_a_path_inside_the_repository(tmp_path, text, message):
    with pytest.raises(ConfigError) as caught:
        _config(tmp_path, text)
    assert str(caught.value) == f"verify.toml ({HERE}): {message}"


def test_a_pinned_directory_may_share_a_prefix_but_not_a_path():
    """`a.startswith(b + "/")`: `judges` and `judges2` are two directories; the inventory beside them is outside both."""
    assert _config_text('gates = "judges"\nprofiles = "judges2"\ninventory = "judges.json"\n').profiles == "judges2"


def _config_text(text: str) -> Config | None:
    return read_config(MemorySource({"verify.toml": text.encode()}))


@pytest.mark.parametrize("data,message", [
    (b"\xff", "verify.toml (memory): not valid TOML: "),
    (b"gates = [\n", "verify.toml (memory): not valid TOML: "),
    (b"gates = " + b"[" * 100 + b"]" * 100 + b"\n", "verify.toml (memory): nested deeper than 64 levels"),
    (b"a = 1\n[b]\nc = 2\n", "verify.toml (memory): unknown key(s) a, b; known: gates, profiles, schemas, inventory"),
])
def test_a_verify_toml_that_is_no_config_is_refused_in_one_line(data, message):
    with pytest.raises(ConfigError) as caught:
        read_config(MemorySource({"verify.toml": data}))
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


@pytest.mark.parametrize("data", [
    b"\xff", b"[project\n", b"[tool]\nverify = 1\n" if False else b"tool = 1\n", b"[project]\nname = 'x'\n",
    b"[tool.other]\nx = 1\n", b"x = " + b"[" * 100 + b"]" * 100 + b"\n",
])
def test_a_pyproject_without_tool_verify_is_no_trust_root(data):
    """A `pyproject.toml` that does not parse, is too deep or has no `[tool.verify]` is not ours to judge: no config, no error."""
    assert read_config(MemorySource({"pyproject.toml": data})) is None


def test_a_pyproject_tool_verify_is_a_config_and_a_bad_one_is_refused():
    config = read_config(MemorySource({"pyproject.toml": b'[tool.verify]\ngates = "g"\n'}))
    assert config is not None and config.file == "pyproject.toml" and config.gates == "g"
    for data, message in [
        (b"[tool]\nverify = 1\n", "pyproject.toml [tool.verify] (memory): must be a table of gates, profiles, schemas, inventory"),
        (b"[tool.verify]\ngates = " + b"[" * 100 + b"]" * 100 + b"\n", "pyproject.toml (memory): nested deeper than 64 levels"),
        (b"[tool.verify]\ngatez = 1\n", "pyproject.toml [tool.verify] (memory): unknown key(s) gatez; known: gates, profiles, schemas, inventory"),
    ]:
        with pytest.raises(ConfigError) as caught:
            read_config(MemorySource({"pyproject.toml": data}))
        assert str(caught.value) == message
    with pytest.raises(ConfigError) as caught:
        read_config(MemorySource({"verify.toml": b"", "pyproject.toml": b"[tool.verify]\n"}))
    assert str(caught.value) == "both verify.toml and pyproject.toml [tool.verify] exist (memory); keep one"
    assert read_config(MemorySource({"verify.toml": b'gates = "v"\n', "pyproject.toml": b"[tool.other]\n"})).gates == "v"


# --- WorkTree, find_repository, is_profile_file ---------------------------------------------------------------------------------------

def test_the_working_tree_reads_regular_files_and_refuses_symlinks_and_directories(tmp_path):
    tree = WorkTree(tmp_path)
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "a.json").write_bytes(b"{}")
    (tmp_path / "g" / "sub").mkdir()
    (tmp_path / "g" / "sub" / "b.json").write_bytes(b"[]")
    (tmp_path / "g" / "__pycache__").mkdir()
    (tmp_path / "g" / "__pycache__" / "x.pyc").write_bytes(b"")
    (tmp_path / "file").write_text("x")
    assert tree.label == HERE
    assert tree.read("g/a.json") == b"{}" and tree.read("absent.json") is None
    assert tree.files("g") == ["g/a.json", "g/sub/b.json"] and tree.files("absent") == [] and tree.files("file") == []
    with pytest.raises(ConfigError) as caught:
        tree.read("g")
    assert str(caught.value) == f"{tmp_path / 'g'}: not a regular file"
    (tmp_path / "link.json").symlink_to(tmp_path / "g" / "a.json")
    with pytest.raises(ConfigError) as caught:
        tree.read("link.json")
    assert str(caught.value) == f"{tmp_path / 'link.json'}: a trusted file must not be a symlink"
    (tmp_path / "linked").symlink_to(tmp_path / "g")
    with pytest.raises(ConfigError) as caught:
        tree.files("linked")
    assert str(caught.value) == f"{tmp_path / 'linked'}: a trusted directory must not be a symlink"
    (tmp_path / "g" / "sub" / "c.json").symlink_to(tmp_path / "file")
    with pytest.raises(ConfigError) as caught:
        tree.files("g")
    assert str(caught.value) == f"{tmp_path / 'g' / 'sub' / 'c.json'}: a trusted file must not be a symlink"


def test_find_repository_stops_at_a_trust_root_or_at_the_top_of_the_repository(tmp_path):
    top = tmp_path / "top"
    deep = top / "evidence" / "run1"
    deep.mkdir(parents=True)
    (deep / "manifest.json").write_text("{}")
    assert find_repository(deep) is None  # no .git up to / and no config: none
    (top / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file: still the top
    (tmp_path / "verify.toml").write_text("")  # above the top: not this repository's
    assert find_repository(deep / "manifest.json") is None
    (top / "pyproject.toml").write_text("[project\n")  # does not parse: not a trust root
    assert find_repository(deep) is None
    (top / "pyproject.toml").write_text("[tool.black]\n")
    assert find_repository(deep) is None
    (top / "pyproject.toml").write_text("[tool.verify]\n")
    assert find_repository(deep / "manifest.json") == top.resolve()
    (top / "evidence" / "verify.toml").write_text("")
    assert find_repository(deep) == (top / "evidence").resolve()
    assert find_repository(top / "evidence") == (top / "evidence").resolve()


@pytest.mark.parametrize("value,is_file", [("./mine.json", True), ("mine.json", True), ("a/b", True), ("pyperf", False), ("x.jsonl", False)])
def test_a_profile_value_is_a_file_when_it_ends_in_json_or_has_a_directory(value, is_file):
    assert is_profile_file(value) is is_file


# --- TrustSet: the shipped assets plus the repository's ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def trust_set() -> TrustSet:
    source = _source({"verify/gates/team-v1.json": GATE, "verify/profiles/team-pyperf.json": PROFILE,
                      "verify/schemas/team.schema.json": SCHEMA})
    return TrustSet(assets(), _trust(source), ref={"ref": "main", "commit": "c" * 40}, changed=("verify.toml",))


def test_a_trust_set_answers_for_both_the_shipped_and_the_repository_assets(trust_set):
    shipped = assets()
    pins = trust_set.repository.pins
    assert trust_set.gate_ids() == sorted([*shipped.gate_ids(), "team-v1"])
    assert trust_set.profile_ids() == sorted([*shipped.profile_ids(), "team-pyperf"])
    assert trust_set.has_gate("team-v1") and trust_set.has_gate("ref2va-5s-v1") and not trust_set.has_gate("nope")
    assert trust_set.gate("team-v1") == GATE and trust_set.gate("ref2va-5s-v1") == shipped.gate("ref2va-5s-v1")
    assert trust_set.gate_sha256("team-v1") == pins["verify/gates/team-v1.json"]
    assert trust_set.gate_sha256("ref2va-5s-v1") == shipped.gate_sha256("ref2va-5s-v1")
    assert trust_set.profile("team-pyperf")["id"] == "team-pyperf" and trust_set.profile("pyperf")["id"] == "pyperf"
    assert trust_set.profile_sha256("team-pyperf") == pins["verify/profiles/team-pyperf.json"]
    assert trust_set.profile_sha256("pyperf") == shipped.profile_sha256("pyperf")
    assert trust_set.schema("team") == SCHEMA and trust_set.schema("gate") == shipped.schema("gate")
    alone = TrustSet(shipped)
    assert alone.gate_ids() == shipped.gate_ids() and alone.profile_ids() == shipped.profile_ids() and not alone.has_gate("team-v1")
    with pytest.raises(ConfigError):
        alone.gate("team-v1")


def test_each_origin_says_where_a_gate_or_profile_came_from(trust_set):
    pins = trust_set.repository.pins
    shipped = assets()
    team = {"kind": "gate", "id": "team-v1", "origin": "repository", "path": "verify/gates/team-v1.json",
            "sha256": pins["verify/gates/team-v1.json"], "ref": "main", "commit": "c" * 40}
    assert trust_set.origin("gate", "team-v1") == team
    assert trust_set.origin("profile", "pyperf") == {"kind": "profile", "id": "pyperf", "origin": "shipped", "path": "profiles/pyperf.json",
                                                     "sha256": shipped.profile_sha256("pyperf")}
    assert trust_set.origin("gate", "ref2va-5s-v1")["path"] == "gates/ref2va-5s-v1.json"
    assert TrustSet(shipped, trust_set.repository).origin("gate", "team-v1") == {k: v for k, v in team.items() if k not in ("ref", "commit")}
    described = trust_set.describe([("gate", "team-v1"), ("profile", "pyperf"), ("gate", "team-v1")])
    assert described == {"config": "verify.toml", "ref": {"ref": "main", "commit": "c" * 40},
                         "sources": [team, trust_set.origin("profile", "pyperf")], "changed": ["verify.toml"]}
    assert TrustSet(shipped).describe([]) == {"config": None, "ref": None, "sources": [], "changed": []}
    defaulted = TrustSet(shipped)
    defaulted.default = {"ref": "origin/main", "commit": "d" * 40, "changed": ["verify.toml"]}
    assert defaulted.describe([])["default"] == {"ref": "origin/main", "commit": "d" * 40, "changed": ["verify.toml"]}
    assert profile_origin(trust_set, "team-pyperf") == "repository" and profile_origin(trust_set, "pyperf") == "shipped"
    assert profile_origin(shipped, "anything") == "shipped"
    assert profiles_listed(trust_set, ["pyperf", "team-pyperf", "asv"]) == "repository profiles: team-pyperf; shipped profiles: asv, pyperf"
    assert profiles_listed(shipped, []) == "shipped profiles: none"


def test_an_unpinned_profile_file_is_read_registered_and_reported_as_unpinned(tmp_path):
    shipped = assets()
    trusted = TrustSet(shipped)
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({**PROFILE, "id": "draft-1"}))
    assert trusted.add_unpinned_profile(draft) == "draft-1"
    sha = _sha(draft.read_bytes())
    assert trusted.profile("draft-1")["id"] == "draft-1" and trusted.profile_sha256("draft-1") == sha
    assert trusted.origin("profile", "draft-1") == {"kind": "profile", "id": "draft-1", "origin": "unpinned", "path": str(draft), "sha256": sha}
    assert profile_origin(trusted, "draft-1") == "unpinned" and "draft-1" not in trusted.profile_ids()
    copy = tmp_path / "pyperf-copy.json"
    copy.write_text(json.dumps(PROFILE | {"id": "pyperf"}))
    assert trusted.add_unpinned_profile(copy, own_id=False) == "pyperf"  # `profile explain` of an edited copy: the draft wins
    assert trusted.profile_sha256("pyperf") == _sha(copy.read_bytes()) and trusted.origin("profile", "pyperf")["origin"] == "unpinned"
    nameless = tmp_path / "nameless.json"
    nameless.write_text(json.dumps({k: v for k, v in PROFILE.items() if k != "id"}))
    numbered = tmp_path / "numbered.json"
    numbered.write_text(json.dumps({**PROFILE, "id": 7}))
    for path, kw, error, message in [
        (tmp_path / "absent.json", {}, UsageError, f"--profile {tmp_path / 'absent.json'}: cannot read the profile: No such file or directory"),
        (nameless, {"label": "mine"}, ConfigError, "mine: it has no `id` (a string); give it its own"),
        (numbered, {}, ConfigError, f"--profile {numbered}: it has no `id` (a string); give it its own"),
        (copy, {}, ConfigError, f"--profile {copy}: its `id` 'pyperf' is a pinned profile's id; give it its own"),
    ]:
        with pytest.raises(error) as caught:
            TrustSet(shipped).add_unpinned_profile(path, **kw)
        assert str(caught.value) == message
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": "x", "id": "y"}')
    with pytest.raises(ConfigError) as caught:
        TrustSet(shipped).add_unpinned_profile(bad)
    assert str(caught.value).startswith(f"--profile {bad}: not strict JSON: ")


# --- GitCommit, git_top, changed_files, locate (a small git repository, no bundle) --------------------------------------------------

def _git(repo: Path, *args: str) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                          check=True, capture_output=True, text=True).stdout


def _write(repo: Path, files: dict[str, object]) -> None:
    for rel, doc in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(doc if isinstance(doc, bytes) else json.dumps(doc).encode())


@pytest.fixture
def committed(tmp_path: Path) -> Path:
    """A git repository (branch main, one commit) with `verify.toml`, the gate team-v1, a committed `__pycache__` and its inventory."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    source = _source({"verify/gates/team-v1.json": GATE})
    _write(repo, {**source.data, "verify.toml": b"", "verify/gates/__pycache__/x.pyc": b"\0", "README": b"x", "notes\tof the team.txt": b"t"})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "trust root")
    return repo


def test_a_commit_reads_its_trusted_files_and_names_itself(committed):
    from verifier.trust.trustroot import GitCommit

    commit = GitCommit(committed, "main")
    head = _git(committed, "rev-parse", "HEAD").strip()
    assert commit.commit == head and commit.label == f"git main ({head[:12]})"
    assert commit.read("verify.toml") == b"" and commit.read("README") == b"x" and commit.read("absent") is None
    assert commit.read("notes\tof the team.txt") == b"t"  # kills `:145` `split(b"\t", 1)` -> `2`: a name may hold a tab
    assert commit.files("verify/gates") == commit.files("verify/gates/") == ["verify/gates/team-v1.json"]
    assert commit.files("verify/gate") == [] and commit.files("verify") == ["verify/gates/team-v1.json", "verify/inventory.json"]
    for ref, message in [("-x", "--trust-ref '-x': not a git ref"), ("nope", f"--trust-ref nope: no such commit (in {committed})")]:
        with pytest.raises(UsageError) as caught:
            GitCommit(committed, ref)
        assert str(caught.value) == message


def test_a_committed_symlink_is_refused_when_read_or_listed(committed):
    from verifier.trust.trustroot import GitCommit

    (committed / "verify" / "gates" / "link.json").symlink_to("team-v1.json")
    _git(committed, "add", "-A")
    _git(committed, "commit", "-qm", "a link")
    commit = GitCommit(committed, "HEAD")
    for call in (lambda: commit.read("verify/gates/link.json"), lambda: commit.files("verify/gates")):
        with pytest.raises(ConfigError) as caught:
            call()
        assert str(caught.value) == f"verify/gates/link.json at {commit.label}: a trusted file must not be a symlink"
    assert commit.files("verify/profiles") == []


def test_without_git_a_trust_ref_is_a_usage_error(committed, monkeypatch):
    from verifier.trust.trustroot import GitCommit

    monkeypatch.setenv("PATH", "")
    with pytest.raises(UsageError) as caught:
        GitCommit(committed, "main")
    assert str(caught.value) == "--trust-ref main: cannot run git: No such file or directory"


def test_git_top_is_the_working_trees_top_or_a_usage_error(committed, tmp_path):
    from verifier.trust.trustroot import git_top

    assert git_top(committed / "verify" / "gates" / "team-v1.json") == committed.resolve()
    assert git_top(committed / "verify") == committed.resolve()
    (tmp_path / "plain").mkdir()
    with pytest.raises(UsageError) as caught:
        git_top(tmp_path / "plain")
    assert str(caught.value) == f"--trust-ref: {tmp_path / 'plain'} is not inside a git repository"


def test_changed_files_lists_each_trusted_file_the_working_tree_edits(committed):
    from verifier.trust.trustroot import GitCommit, changed_files

    base = GitCommit(committed, "main")
    config = read_config(base)
    assert changed_files(committed, base, config) == ()
    (committed / "README").write_text("edited")  # not trusted
    assert changed_files(committed, base, config) == ()
    _write(committed, {"verify/gates/team-v2.json": {**GATE, "id": "team-v2"}})
    assert changed_files(committed, base, config) == ("verify/gates/team-v2.json",)
    _write(committed, {"verify/gates/team-v1.json": {**GATE, "version": 2}})
    assert changed_files(committed, base, config) == ("verify/gates/team-v1.json", "verify/gates/team-v2.json")
    (committed / "verify.toml").write_text('gates = "other"\n')  # the new config no longer names verify/gates: still listed
    assert changed_files(committed, base, config) == ("verify.toml", "verify/gates/team-v1.json", "verify/gates/team-v2.json")
    (committed / "verify.toml").write_text("gates = [\n")
    assert changed_files(committed, base, config) == ("verify.toml",)
    (committed / "verify" / "gates" / "team-v2.json").unlink()
    (committed / "verify" / "gates" / "team-v1.json").unlink()  # deleted: absent on one side
    (committed / "verify.toml").write_text("")
    assert changed_files(committed, base, config) == ("verify/gates/team-v1.json",)
    _git(committed, "checkout", "-q", "--", ".")
    (committed / "verify.toml").write_text('inventory = "pins.json"\n')
    assert changed_files(committed, base, config) == ("verify.toml",)  # kills `:570` AddNot, `:575` `is not None` -> `is`: unchanged
    (committed / "verify" / "inventory.json").unlink()
    (committed / "verify" / "inventory.json").symlink_to(committed / "README")  # out of the new config's sight, and a link
    assert changed_files(committed, base, config) == ("verify.toml", "verify/inventory.json")
    (committed / "verify" / "inventory.json").unlink()
    _git(committed, "checkout", "-q", "--", ".")
    assert changed_files(committed, base, None) == ("verify/gates/team-v1.json", "verify/inventory.json")  # the base trusts none


def test_locate_judges_by_the_working_tree_or_by_the_named_commit(committed, tmp_path):
    from verifier.trust.trustroot import locate

    shipped = assets()
    work = locate(committed / "README", shipped=shipped)
    assert work.repository is not None and work.repository.ids("gates") == ["team-v1"] and work.ref is None and work.changed == ()
    assert work.repository.source.label == HERE and work.repository.root == committed.resolve()
    _write(committed, {"verify/gates/team-v1.json": {**GATE, "version": 2}})
    at_main = locate(committed / "README", ref="main", shipped=shipped)
    head = _git(committed, "rev-parse", "HEAD").strip()
    assert at_main.ref == {"ref": "main", "commit": head} and at_main.changed == ("verify/gates/team-v1.json",)
    assert at_main.repository is not None and at_main.repository.documents[("gates", "team-v1")][1] == GATE  # the base's gate, not the edit
    with pytest.raises(PinMismatch):
        locate(committed, shipped=shipped)  # the working tree's own gate no longer matches its pin
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    assert locate(plain, shipped=shipped).repository is None  # no trust root up to the repository's top
    (plain / "pyproject.toml").write_text('tool = "verify"\n')  # `"verify" in tool` holds for a string, yet it is no table
    assert locate(plain, shipped=shipped).repository is None
    bare = tmp_path / "bare"
    bare.mkdir()
    _git(bare, "init", "-q", "-b", "main")
    (bare / "README").write_text("x")
    _git(bare, "add", "-A")
    _git(bare, "commit", "-qm", "no trust root")
    none = locate(bare, ref="main", shipped=shipped)
    assert none.repository is None and none.ref["ref"] == "main" and none.changed == ()


def test_a_git_failure_is_one_line_naming_gits_last_word(tmp_path):
    """Kills `:135` `message[-1]` -> `message[+1]` (ReplaceUnaryOperator_USub_UAdd): git's one-line complaint is the message."""
    from verifier.trust.trustroot import GitCommit

    (tmp_path / "plain").mkdir()
    with pytest.raises(UsageError) as caught:
        GitCommit(tmp_path / "plain", "main")
    assert str(caught.value) == f"--trust-ref main: fatal: not a git repository (or any of the parent directories): .git (in {tmp_path / 'plain'})"


def test_a_git_failure_after_other_lines_names_the_last_one(tmp_path, monkeypatch):
    """Kills `:135` `message[-1]` -> `message[-0]` (NumberReplacer): git's trace or warning lines come first, its complaint last."""
    from verifier.trust.trustroot import GitCommit

    (tmp_path / "plain").mkdir()
    monkeypatch.setenv("GIT_TRACE", "1")  # git writes a trace line to stderr before it fails
    with pytest.raises(UsageError) as caught:
        GitCommit(tmp_path / "plain", "main")
    assert str(caught.value) == f"--trust-ref main: fatal: not a git repository (or any of the parent directories): .git (in {tmp_path / 'plain'})"


def test_detection_reads_the_detection_members_of_shipped_repository_and_unpinned_profiles(trust_set, tmp_path):
    """`TrustSet.detection`: the members `verifier.profiles.language.DETECTION` of the profile of each origin, nothing else."""
    for pid in ("pyperf", "team-pyperf"):
        assert trust_set.detection(pid) == {k: trust_set.profile(pid)[k] for k in ("id", "detect", "non_finite") if k in trust_set.profile(pid)}
        assert set(trust_set.detection(pid)) < set(trust_set.profile(pid))
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({**PROFILE, "id": "draft-2"}))
    trusted = TrustSet(assets())
    trusted.add_unpinned_profile(draft)
    assert trusted.detection("draft-2") == {"id": "draft-2", "detect": PROFILE["detect"]}
    with pytest.raises(ConfigError, match="unknown profile 'nowhere'"):
        trusted.detection("nowhere")


def test_an_invalid_gate_is_reported_by_its_first_problem_in_a_stable_order():
    """Kills `:385` `problems[0]` -> `problems[-1]` (NumberReplacer): of two problems, the first by text is named."""
    gate = {**GATE, "version": "one", "description": 5}  # two problems: "'one' is not of type 'integer'" < "5 is not of type 'string'"
    assert _refused(_source({"verify/gates/team-v1.json": gate})) == "verify/gates/team-v1.json (memory): invalid gate: 'one' is not of type 'integer'"


def test_a_trust_set_takes_its_ref_and_changes_only_by_name():
    """Kills `:420` the `*` of `TrustSet.__init__` -> `/` (ReplaceBinaryOperator_Mul_Div)."""
    shipped = assets()
    assert TrustSet(shipped=shipped, repository=None, ref={"ref": "main", "commit": "c"}).ref == {"ref": "main", "commit": "c"}
    with pytest.raises(TypeError):
        TrustSet(shipped, None, {"ref": "main", "commit": "c"})  # type: ignore[misc]


def test_an_invalid_inventory_is_reported_by_its_first_problem_in_a_stable_order():
    """Kills `:345` `errors[0]` -> `errors[-1]` (NumberReplacer)."""
    inventory = {"inventory_version": 2, "assets": {"verify/gates/team-v1.json": "x"}}  # "'x' does not match ..." < "1 was expected"
    assert _refused(_source({"verify/gates/team-v1.json": GATE}, inventory=inventory)) == f"{WHERE}: 'x' does not match '^[0-9a-f]{{64}}$'"


def test_repository_gates_and_schemas_are_read_as_the_shipped_ones_are_with_floats_and_profiles_with_decimals():
    """Kills `:380` `kind != "profiles"` -> `not kind != ...` (AddNot): a gate's or schema's number is a float, as in the shipped ones."""
    gate = {**GATE, "claims": [{**GATE["claims"][1], "tolerance": 0.25}]}
    schema = {**SCHEMA, "maximum": 0.5}
    profile = json.loads((ROOT / "profiles" / "pyperf.json").read_text())
    trust = _trust(_source({"verify/gates/team-v1.json": gate, "verify/schemas/team.schema.json": schema,
                            "verify/profiles/team-pyperf.json": {**profile, "id": "team-pyperf"}}))
    got = trust.documents[("gates", "team-v1")][1]["claims"][0]["tolerance"]
    assert got == 0.25 and type(got) is float
    assert type(trust.documents[("schemas", "team")][1]["maximum"]) is float
    shipped = assets().profile("pyperf")
    assert trust.documents[("profiles", "team-pyperf")][1] == {**shipped, "id": "team-pyperf"}


def test_an_unpinned_profiles_label_and_id_rule_are_given_by_name(tmp_path):
    """Kills `:474` the `*` of `TrustSet.add_unpinned_profile` -> `/` (ReplaceBinaryOperator_Mul_Div)."""
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({**PROFILE, "id": "draft-2"}))
    with pytest.raises(TypeError):
        TrustSet(assets()).add_unpinned_profile(draft, "mine")  # type: ignore[misc]
    assert TrustSet(assets()).add_unpinned_profile(path=draft, label="mine") == "draft-2"


def test_only_shipped_schema_files_reserve_a_schema_id():
    """A shipped file under `schemas/` that is no `<id>.schema.json` (a shared `$defs` file) reserves no id.

    Kills `:371` `k.startswith("schemas/") and k.endswith(".schema.json")` -> `or`: `schemas/common.defs.json`
    would reserve the id `comm` (its name less 12 characters), refusing a repository's `comm.schema.json`.
    """
    import copy

    shipped = copy.copy(assets())
    shipped.pins = {**shipped.pins, "schemas/common.defs.json": "0" * 64, "docs/ab/xyz.schema.json": "0" * 64}
    source = _source({"verify/schemas/comm.schema.json": SCHEMA, "verify/schemas/xyz.schema.json": SCHEMA})
    trust = RepositoryTrust(Path("/repo"), CONFIG, source, shipped)
    assert trust.ids("schemas") == ["comm", "xyz"]
