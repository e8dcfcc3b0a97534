"""
Scorer weights: found offline, hashed, compared with the gate's pin, then loaded from the same bytes.

Source: `shared/docs/media-notes.md` section A (A2 pitfalls, A3 recipe). The
rules, in order:

1. a weight file is looked up offline only: `--weights-dir/NAME`, then the
   torch hub cache (`$TORCH_HOME/hub/checkpoints/NAME`, `TORCH_HOME`
   defaulting to `$XDG_CACHE_HOME/torch`, i.e. `~/.cache/torch`), then, for a
   pin that names a `package_file`, that file inside the installed package
   (the LPIPS linear layers ship in the `lpips` wheel). Nothing is ever
   downloaded; the first existing candidate is the file (a wrong file there
   is refused, never skipped in favour of the next one);
2. the file is read once into memory and the sha256 of those bytes is
   compared with the pin *before* anything is unpickled;
3. the same bytes are deserialised with `torch.load(BytesIO, weights_only=True,
   map_location="cpu")` and must be a flat `{str: Tensor}` state dict;
4. modules are loaded with `strict=True` by the scorer (`lpips_alex`), and the
   loaded state is digested (`state_digest`) for a second pin.

`WeightsProblem` carries the finding status: UNVERIFIED when the file is
absent (nothing to judge with; the message names the file and digest to
supply), ERROR when a file is present but wrong (digest, format, keys): a
broken environment, never a PASS and never a traceback (field failure H-15).
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["WeightPin", "WeightsProblem", "hub_checkpoints", "load_state_dict", "locate", "read_verified", "state_digest"]


@dataclass(frozen=True, slots=True)
class WeightPin:
    """
    Represents one weight file a gate admits: file `name`, its `sha256`, its `role` in the scorer.

    `package_file`, when set, is `PACKAGE/RELATIVE` (e.g.
    `lpips/weights/v0.1/alex.pth`): the copy shipped inside an installed
    package, searched after the weights directory and the hub cache.
    `source` says where the digest comes from (documentation only).
    """

    name: str
    sha256: str
    role: str
    package_file: str | None = None
    source: str | None = None

    @classmethod
    def from_gate(cls, entry: dict[str, Any]) -> WeightPin:
        """Return the pin of one schema-valid gate `weights` entry."""
        return cls(name=entry["name"], sha256=entry["sha256"], role=entry["role"],
                   package_file=entry.get("package_file"), source=entry.get("source"))

    def supply_hint(self) -> str:
        """Return what a user must supply: the file name and its sha256."""
        return f"{self.name} (sha256 {self.sha256})"


class WeightsProblem(Exception):
    """
    Raised when a pinned weight file cannot be used.

    `status` is "UNVERIFIED" (absent, or the scoring stack is not installed)
    or "ERROR" (present but wrong); `code` is the finding code
    (`weights-absent`, `scoring-extra-missing`, `weights-digest-mismatch`,
    `weights-unreadable`, `weights-not-state-dict`, `weights-keys`,
    `state-digest-mismatch`, `state-digest-unpinned`); `path` the file concerned.
    """

    def __init__(self, status: str, code: str, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.path = path


def hub_checkpoints() -> Path:
    """Return the torch hub checkpoint directory, computed as torch does, without importing torch."""
    home = os.environ.get("TORCH_HOME")
    if not home:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        home = os.path.join(cache, "torch")
    return Path(home) / "hub" / "checkpoints"


def _package_path(package_file: str) -> Path | None:
    import importlib.util

    package, _, rel = package_file.partition("/")
    spec = importlib.util.find_spec(package)  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / rel


def candidates(pin: WeightPin, weights_dir: str | None) -> list[Path]:
    """Return the paths searched for `pin`, in order (see module docstring)."""
    out = []
    if weights_dir:
        out.append(Path(weights_dir) / pin.name)
    out.append(hub_checkpoints() / pin.name)
    if pin.package_file:
        packaged = _package_path(pin.package_file)
        if packaged is not None:
            out.append(packaged)
    return out


def locate(pin: WeightPin, weights_dir: str | None) -> Path:
    """
    Return the first existing candidate path for `pin`.

    Raises `WeightsProblem` UNVERIFIED `weights-absent` naming the file, its
    digest and every place searched when none exists.
    """
    searched = candidates(pin, weights_dir)
    for path in searched:
        if path.is_file():
            return path
        if os.path.lexists(path):  # present but a directory, FIFO, device or dangling link: refused, never skipped
            raise WeightsProblem("ERROR", "weights-not-regular-file",
                                 f"{path}: present but not a regular file; the {pin.role} weights must be the file "
                                 f"{pin.name} (sha256 {pin.sha256})", path=str(path))
    places = ", ".join(str(p) for p in searched)
    raise WeightsProblem("UNVERIFIED", "weights-absent",
                         f"the {pin.role} weights are absent: supply {pin.supply_hint()} in --weights-dir "
                         f"(searched {places}); nothing is downloaded", path=pin.name)


def read_verified(path: Path, pin: WeightPin) -> bytes:
    """
    Return the bytes of `path` after checking their sha256 against `pin`.

    The file is read once; the caller deserialises these same bytes (no
    second read, so no window between hashing and loading). Raises
    `WeightsProblem` ERROR `weights-unreadable` or `weights-digest-mismatch`.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO swapped in cannot block the open
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise OSError(f"{path}: not a regular file")
            os.set_blocking(handle.fileno(), True)
            data = handle.read()
    except OSError as exc:
        raise WeightsProblem("ERROR", "weights-unreadable", f"{path}: cannot be read: {exc.strerror or exc}", path=str(path)) from None
    got = hashlib.sha256(data).hexdigest()
    if got != pin.sha256.lower():  # upper-case hex is the same digest
        raise WeightsProblem("ERROR", "weights-digest-mismatch",
                             f"{path}: sha256 {got} is not the pinned {pin.sha256} of {pin.name}; refused before "
                             f"unpickling (supply the pinned file)", path=str(path))
    return data


def load_state_dict(data: bytes, where: str) -> dict[str, Any]:
    """
    Return the state dict serialised in `data`: `torch.load(BytesIO, weights_only=True, map_location="cpu")`.

    Raises `WeightsProblem` ERROR `weights-not-state-dict` when the bytes do
    not deserialise under `weights_only=True` (a pickle payload, a truncated
    or foreign file) or do not hold a flat `{str: Tensor}` mapping.
    """
    import torch

    try:
        loaded = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many types (UnpicklingError, RuntimeError, EOFError...) for bad bytes
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise WeightsProblem("ERROR", "weights-not-state-dict",
                             f"{where}: not a loadable state dict under weights_only=True: {type(exc).__name__}: {first[:200]}",
                             path=where) from None
    if not isinstance(loaded, dict) or not loaded or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in loaded.items()):
        raise WeightsProblem("ERROR", "weights-not-state-dict",
                             f"{where}: deserialises to {type(loaded).__name__}, not a mapping of names to tensors",
                             path=where)
    return loaded


def state_digest(state: dict[str, Any]) -> str:
    """
    Return the sha256 of a loaded module state: sorted names, dtype, shape and raw bytes of each tensor.

    `lins.N.*` entries of an LPIPS module are aliases of `linN.*` and are
    left out (media-notes A2 item 5).
    """
    h = hashlib.sha256()
    for name in sorted(state):
        if name.startswith("lins."):
            continue
        tensor = state[name].detach().to("cpu").contiguous()
        h.update(name.encode() + b"\0" + str(tensor.dtype).encode() + b"\0" + repr(tuple(tensor.shape)).encode() + b"\0")
        h.update(tensor.numpy().tobytes())
    return h.hexdigest()
