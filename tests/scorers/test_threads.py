"""
`verifier.scorers.threads`: the kernel thread setting is applied inside the block and restored after it.

A fake `torch` module stands in for torch (only `get_num_threads` and
`set_num_threads` are touched), so these tests need no scoring extra; the
OpenBLAS test runs against the copy numpy loaded, when it is OpenBLAS.
"""

from __future__ import annotations

import sys
import threading
import types

import pytest

from verifier.scorers import threads


class FakeTorch(types.ModuleType):
    """Records every `set_num_threads` call; starts at `start` threads."""

    def __init__(self, start: int) -> None:
        super().__init__("torch")
        self.value = start
        self.calls: list[int] = []

    def get_num_threads(self) -> int:
        return self.value

    def set_num_threads(self, n: int) -> None:
        self.calls.append(n)
        self.value = n


@pytest.fixture()
def torch(monkeypatch):
    fake = FakeTorch(6)
    monkeypatch.setitem(sys.modules, "torch", fake)
    return fake


def test_sets_inside_and_restores_after(torch):
    with threads.single_threaded_kernels(1):
        assert torch.value == 1
    assert torch.value == 6
    assert torch.calls == [1, 6]


def test_restores_after_an_exception(torch):
    with pytest.raises(RuntimeError), threads.single_threaded_kernels(1):
        assert torch.value == 1
        raise RuntimeError("scorer failed")
    assert torch.value == 6
    assert threads._depth == 0 and threads._saved == {}


def test_nested_uses_share_one_setting_and_the_last_exit_restores(torch):
    with threads.single_threaded_kernels(1):
        with threads.single_threaded_kernels(3):
            assert torch.value == 1  # the inner entry does not change what the outer one set
        assert torch.value == 1  # the inner exit does not restore while the outer block runs
    assert torch.value == 6
    assert torch.calls == [1, 6]


def test_concurrent_uses_restore_when_the_last_one_ends(torch):
    entered, release = threading.Barrier(2), threading.Event()
    seen: list[int] = []

    def worker() -> None:
        with threads.single_threaded_kernels(1):
            entered.wait()
            release.wait(10)
            seen.append(torch.value)

    t = threading.Thread(target=worker)
    t.start()
    with threads.single_threaded_kernels(1):
        entered.wait()
    assert torch.value == 1  # the other user is still inside
    release.set()
    t.join(10)
    assert seen == [1] and torch.value == 6


def test_a_second_run_saves_afresh(torch):
    with threads.single_threaded_kernels(1):
        pass
    torch.value = 4  # the user changed it between runs
    with threads.single_threaded_kernels(1):
        assert torch.value == 1
    assert torch.value == 4


def test_without_torch_nothing_is_imported(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    with threads.single_threaded_kernels(1):
        assert "torch" not in sys.modules
    assert "torch" not in sys.modules


def test_openblas_threads_are_restored():
    pytest.importorskip("numpy")
    blas = threads._openblas()
    if blas is None:
        pytest.skip("numpy here does not use OpenBLAS")
    get, put = blas
    before = get()
    put(2)
    try:
        with threads.single_threaded_kernels(1):
            assert get() == 1
        assert get() == 2
    finally:
        put(before)


@pytest.mark.parametrize(
    ("cpus", "workers", "per_kernel"),
    [(1, 1, 1), (2, 2, 1), (4, 4, 1), (7, 4, 1), (8, 4, 2), (16, 4, 4)],
)
def test_plan(monkeypatch, cpus, workers, per_kernel):
    monkeypatch.setattr(threads, "_cpus", lambda: cpus)
    assert threads.plan() == threads.Plan(workers=workers, threads=per_kernel)


@pytest.mark.parametrize(("limit", "expected"), [("1", 1), ("2", 2), ("", None), ("0", None), ("x", None)])
def test_omp_num_threads_limits_the_cores(monkeypatch, limit, expected):
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda pid: set(range(64)))
    monkeypatch.setenv("OMP_NUM_THREADS", limit)
    assert threads._cpus() == (expected if expected is not None else 64)
