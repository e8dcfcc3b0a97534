"""
Fan-out on Dask distributed (`verifier.engine.fanout`, `verify inventory --executor`): same report as local.

The cluster is a `distributed.LocalCluster` the test starts with 2 workers in
this process (`processes=False`: Dask's in-process transport, so no socket is
needed; CI runs the tests in a network namespace without loopback). The
repository holds `COPIES` copies of the example bundle; the 50 copies of the
issue are measured by `benchmarks/bench_fanout.py` (a 10-copy repository keeps
this test under a minute on a loaded 2-core machine).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from bundlekit import ROOT

distributed = pytest.importorskip("distributed", reason="fan-out needs the `distributed` extra (Dask distributed)")
pytest.importorskip("av")

from verifier.commands.repository import verify_repository  # noqa: E402

COPIES = 10


def make_repository(root: Path, copies: int) -> Path:
    """Write an evidence repository holding `copies` copies of the example bundle, each registered."""
    (root / "evidence").mkdir(parents=True)
    bundles = {}
    for i in range(copies):
        dest = root / "evidence" / f"run-{i:03d}"
        shutil.copytree(ROOT / "examples" / "ref2va-5s", dest)
        bundles[dest.name] = {"kind": "campaign",
                              "manifest_sha256": hashlib.sha256((dest / "manifest.json").read_bytes()).hexdigest()}
    (root / "evidence-inventory.json").write_text(json.dumps(
        {"format": "verify-evidence-inventory", "format_version": 1, "bundles": bundles}))
    return root


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        yield c


def test_inventory_on_a_two_worker_cluster_gives_the_same_json_report(cluster, tmp_path, run):
    repo = make_repository(tmp_path / "repo", COPIES)
    local = run("inventory", str(repo), "-f", "json", "--no-cache")
    fanned = run("inventory", str(repo), "-f", "json", "--no-cache", "--executor", cluster.scheduler_address)
    assert local.exit_code == fanned.exit_code == 0
    assert fanned.stdout == local.stdout
    report = json.loads(local.stdout)
    assert sum(f["code"] == "bundle-verdict" for f in report["findings"]) == COPIES
    assert sum(f["code"] == "rescore-match" for f in report["findings"]) == 28 * COPIES


def test_a_failing_bundle_fails_the_same_way_on_the_cluster(cluster, tmp_path):
    repo = make_repository(tmp_path / "repo", 2)
    (repo / "evidence" / "run-001" / "media" / "A1-m1.mp4").write_bytes(b"not the recorded clip")
    local = verify_repository(str(repo))
    fanned = verify_repository(str(repo), executor=cluster.scheduler_address)
    assert local.verdict == fanned.verdict == "FAIL"
    assert json.dumps(fanned.to_json(), sort_keys=True) == json.dumps(local.to_json(), sort_keys=True)


def test_without_the_extra_executor_is_a_usage_error_naming_it(tmp_path, run, monkeypatch):
    import sys

    repo = make_repository(tmp_path / "repo", 1)
    monkeypatch.setitem(sys.modules, "distributed", None)
    result = run("inventory", str(repo), "--executor", "tcp://scheduler.invalid:8786")
    assert result.exit_code == 2 and "`distributed` extra" in result.stderr


def test_re_scoring_a_bundle_on_the_cluster_gives_the_same_json_report(cluster, example_copy, run, monkeypatch):
    from verifier.engine import fanout
    from verifier.scoring import rescore as scoring

    calls = []
    real = fanout.map_on_cluster
    monkeypatch.setattr(fanout, "map_on_cluster", lambda address, func, items: calls.append(len(items)) or real(address, func, items))
    local = run(str(example_copy), "-f", "json", "--no-cache")
    scoring._MEMO.clear()  # the workers (threads of this process here) must compute, not find this run's results
    fanned = run(str(example_copy), "-f", "json", "--no-cache", "--executor", cluster.scheduler_address)
    assert local.exit_code == fanned.exit_code == 0
    assert calls == [14]  # every comparison of the example was scored as a task
    assert fanned.stdout == local.stdout


def test_a_refused_pair_comes_back_from_a_worker_with_its_code():
    import pickle

    from verifier.scoring.rescore import ScoreRefused

    back = pickle.loads(pickle.dumps(ScoreRefused("frame-size-mismatch", "frame 3: 64x48 vs 32x24")))
    assert (back.code, str(back)) == ("frame-size-mismatch", "frame 3: 64x48 vs 32x24")


def test_every_path_leaves_the_client_resolved(cluster, tmp_path, run, monkeypatch):
    """Issue 41: with relative paths, workers (running in their own folders) got paths that named nothing there."""
    from verifier.engine import fanout

    make_repository(tmp_path / "repo", 2)
    sent = []
    real = fanout.map_on_cluster

    def spy(address, func, items):
        sent.extend(items)
        return real(address, func, items)

    monkeypatch.setattr(fanout, "map_on_cluster", spy)
    monkeypatch.chdir(tmp_path)
    result = run("inventory", "repo", "-f", "json", "--no-cache", "--executor", cluster.scheduler_address)
    assert result.exit_code == 0, result.output[-1000:]
    assert len(sent) == 2 and all(Path(job[0]).is_absolute() for job in sent), [job[0] for job in sent]


def test_a_file_a_worker_cannot_see_is_named():
    from verifier.checks.rescore import score_job

    missing = "/nonexistent/evidence/run1/media/A1-m1.mp4"
    with pytest.raises(FileNotFoundError, match="A1-m1.mp4: not found on the Dask worker"):
        score_job((missing, missing, "a", "b", None, None, [], {}, None, "cpu", {}, None))
