"""
Fan-out of verification work on a Dask distributed cluster (optional extra `distributed`).

`verify inventory REPO --executor ADDRESS` verifies the repository's bundles
as tasks on the Dask scheduler at ADDRESS (e.g. `tcp://scheduler:8786`); the
results are gathered in the order of the local loop and assembled by the same
code, so the report is the same, byte for byte in JSON, as without
`--executor`. Every worker must see the repository (and `--artifacts`) at the
same path and have the same `verify-evidence` installed (see
`docs/distributed.md`). Every path leaves the client resolved (`absolute`): a
worker runs in its own folder, where a relative path names another file or
none. Dask is the engine: nothing here schedules, retries or moves data itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from verifier.errors import UsageError

__all__ = ["EXTRA", "absolute", "map_on_cluster", "on_worker", "reachable", "require"]

EXTRA = "distributed"
T = TypeVar("T")
R = TypeVar("R")


def absolute(path: str | None) -> str | None:
    """Return `path` made absolute against the client's working directory (symlinks kept), None for None."""
    import os

    return None if path is None else os.path.abspath(path)


def on_worker(*paths: str) -> None:
    """
    Raise `FileNotFoundError` naming the first of `paths` this worker cannot see (and the worker's host), else return.

    Called first in a task: a worker that does not see the bundle at the
    client's path names the file, never a bare "No such file or directory".
    """
    import os
    import socket

    for path in paths:
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path}: not found on the Dask worker at {socket.gethostname()} (every worker must see the "
                                    "bundle, artifacts and weights at the client's absolute paths: docs/distributed.md)")


def require() -> None:
    """Raise `UsageError` (exit 2) naming the extra when Dask distributed is not installed; called before any check runs."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(f"--executor needs Dask distributed, which is not installed: install the `{EXTRA}` extra "
                         f"(pip install 'verify-evidence[{EXTRA}]')") from None


def _client(address: Any) -> Any:
    require()
    from distributed import Client

    try:
        return Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"--executor {address}: cannot connect to a Dask scheduler there: {exc}") from None


def reachable(address: Any) -> None:
    """
    Connect to the scheduler at `address` once and disconnect; called before any check runs.

    Raises `UsageError` (exit 2) when the extra is not installed or nothing
    answers there within 10 s, so an unusable `--executor` is one line, never
    an ERROR inside `quality.rescore`. A `Client` or `LocalCluster` object is
    taken as given.
    """
    require()
    if isinstance(address, str):
        _client(address).close()


def map_on_cluster(address: Any, func: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """
    Return `[func(item) for item in items]`, each call run as a task on the Dask scheduler at `address`.

    `address` is a scheduler address (`tcp://host:8786`, `inproc://...` for an
    in-process cluster) or a `distributed.Client`/`LocalCluster`. `func` and
    the items must be picklable (module-level functions, plain data). Results
    keep the order of `items`. Raises `UsageError` when the extra is not
    installed or nothing answers at `address`; an exception raised by `func`
    on a worker is raised here.
    """
    client = _client(address)
    try:
        futures = client.map(func, list(items), pure=False)
        return list(client.gather(futures))
    finally:
        client.close()
