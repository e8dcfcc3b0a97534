"""
LPIPS (AlexNet, v0.1) built offline from digest-pinned weights, loaded strictly.

Source: R. Zhang et al., "The Unreasonable Effectiveness of Deep Features as
a Perceptual Metric", CVPR 2018, package `lpips` 0.1.4; the construction
follows `shared/docs/media-notes.md` A3 and avoids every pitfall of A2:
`lpips.LPIPS` is built with `pretrained=False, pnet_rand=True` so neither
`lpips` (non-strict linear load, no hash) nor `torchvision` (hub cache: no
hash on a cache hit, `weights_only=False`) loads anything; the backbone and
linear weights come from `verifier.scorers.weights` (offline, sha256 before
unpickling, `weights_only=True`) and are loaded with `strict=True`. The
backbone file must be a complete torchvision AlexNet (strict load into
`torchvision.models.alexnet(weights=None)`), of which LPIPS uses
`features.{0,3,6,8,10}`; the linear file must hold exactly
`lin{0..4}.model.1.weight`. The digest of the loaded state is compared with
the gate's `state_sha256`.

Parameters (`PARAMETERS`, fixed, media-notes A4): RGB channel order, NCHW
float32, inputs in [-1, 1] (uint8 v -> v / 127.5 - 1; `normalize=False`),
`version="0.1"` (with the ScalingLayer), `lpips=True`, `spatial=False`
(spatial average per layer), native resolution (no resize), the clip score
is the mean of the per-frame distances. Blind spots: BGR input or [0, 1]
input give plausible wrong scores without error (so inputs are built here,
from uint8 RGB frames only); scores depend on resolution.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from verifier.scorers import compiled, parameters, threads
from verifier.scorers.weights import WeightPin, WeightsProblem, load_state_dict, locate, read_verified, state_digest

__all__ = ["ID", "PARAMETERS", "LpipsScorer", "build", "to_lpips_input"]

ID = "lpips-alex-v0.1"
PARAMETERS: dict[str, Any] = parameters.LPIPS
LINEAR_KEYS = frozenset(f"lin{i}.model.1.weight" for i in range(5))
EXTRA = "scoring"
INSTALL_HINT = "pip install 'verify-evidence[scoring]'"


def to_lpips_input(frame: npt.NDArray[np.uint8]) -> Any:
    """
    Return a uint8 HxWx3 RGB frame as a 1x3xHxW float32 tensor in [-1, 1] (0 -> -1, 128 -> 0.00392, 255 -> 1).

    Raises `ValueError` for anything but a uint8 HxWx3 array: float input in
    [0, 1] would be accepted by `lpips` without error and shrink the scores
    (field failure H-14), so it is refused here.
    """
    import torch

    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"LPIPS input must be a uint8 HxWx3 RGB frame, got {getattr(frame, 'dtype', type(frame))} "
                         f"{getattr(frame, 'shape', '')}")
    tensor = torch.from_numpy(np.ascontiguousarray(frame)).permute(2, 0, 1)[None].to(torch.float32)
    return tensor / 127.5 - 1.0


def _versions() -> dict[str, str]:
    from importlib.metadata import version

    return {name: version(name).split("+")[0] for name in ("torch", "torchvision", "lpips")}


@dataclass
class LpipsScorer:
    """Represents a built LPIPS model with its identity (id, weight digests, state digest, versions, parameters)."""

    model: Any
    device: str
    identity: dict[str, Any] = field(default_factory=dict)
    _layout: Any = None  # the backbone's memory format once `features` set it
    _weights: Any = None  # the 5 linear layers' weights as vectors, once `distance` built them
    _scratch: threading.local = field(default_factory=threading.local, repr=False)  # per thread: `distance`'s buffers

    def prepare(self) -> None:
        """Set the backbone's memory layout and the head's weight vectors now, so threads can share the model afterwards."""
        import torch

        channels_last = torch.channels_last if self.device == "cpu" else torch.contiguous_format
        if self._layout != channels_last:
            self.model.net.to(memory_format=channels_last)
            self._layout = channels_last
        if self._weights is None:
            self._weights = [lin.model[-1].weight.detach().reshape(-1) for lin in self.model.lins]

    def distances(self, ref: list[npt.NDArray[np.uint8]], cand: list[npt.NDArray[np.uint8]]) -> list[float]:
        """Return the LPIPS distance of each (ref, cand) uint8 RGB frame pair, as float64 values of the float32 outputs."""
        import torch

        if len(ref) != len(cand):
            raise ValueError(f"{len(ref)} reference frames vs {len(cand)} candidate frames")
        with torch.inference_mode():
            a = torch.cat([to_lpips_input(f) for f in ref]).to(self.device)
            b = torch.cat([to_lpips_input(f) for f in cand]).to(self.device)
            out = self.model(a, b, normalize=False)
        return [float(v) for v in out.reshape(-1).cpu().tolist()]

    def features(self, frames: list[npt.NDArray[np.uint8]]) -> list[list[Any]]:
        """
        Return, per uint8 HxWx3 RGB frame, its 5 unit-normalised AlexNet feature maps (1xCxhxw float32 tensors on `device`).

        The frames run through the network as one batch in channels-last
        layout (faster on CPU; the same arithmetic up to float32 rounding):
        the stacked HxWx3 bytes become float32 in place with the same
        operations as `to_lpips_input` (x / 127.5 - 1), and their NCHW view is
        already channels-last, so nothing is copied into another layout.
        Each map is divided by its norm over channels plus 1e-10, as
        `lpips.normalize_tensor` does, with the norm from
        `torch.linalg.vector_norm` (one pass; it rounds differently from
        lpips' sum of squares in the last float32 bit). `distance` of two
        such lists equals `distances` of the two frames to well inside 1e-6
        (`tests/scorers/test_lpips.py`), so a frame shared by several comparisons
        goes through AlexNet once. Raises `ValueError` as `to_lpips_input` does.
        """
        import torch

        if not frames:
            return []
        for frame in frames:
            if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
                to_lpips_input(frame)  # raises the one ValueError for bad input
        self.prepare()
        channels_last = self._layout
        with torch.inference_mode():
            batch = torch.from_numpy(np.stack(frames)).to(self.device, torch.float32)  # N x H x W x 3
            batch.div_(127.5).sub_(1.0)
            outs = self.model.net.forward(self.model.scaling_layer(batch.permute(0, 3, 1, 2).contiguous(memory_format=channels_last)))
            normed = [o.div_(torch.linalg.vector_norm(o, dim=1, keepdim=True).add_(1e-10)) for o in outs]  # in place: the maps are ours
        return [[layer[i:i + 1] for layer in normed] for i in range(len(frames))]

    def distance(self, a: list[Any], b: list[Any]) -> float:
        """
        Return the LPIPS distance of two frames given by their `features`: the sum over layers of the spatial mean of lin((a - b)^2).

        lpips' `forward` applies each layer's 1x1 convolution `lin` (no bias)
        to the squared difference and then averages over space. Here the
        squared difference, laid out pixels x channels (the channels-last
        maps of `features` are already), is multiplied by the layer's weight
        vector in float32 (the same dot product per pixel as the 1x1
        convolution) and the pixel values are summed in float64: one
        product instead of a convolution, a copy and a mean (differences
        from lpips' order of summation about 1e-8). The squared differences
        and per-pixel sums are written into buffers each calling thread keeps
        for its next call (fresh 6 MB maps per comparison and frame cost page
        faults on every call); the arithmetic is the same. With numba
        installed (CPU), each layer is instead one compiled pass over both
        maps in float64 (`compiled.lpips_layer_sum`; the two paths agree to
        about 1e-8, `tests/scorers/test_lpips.py`).
        """
        import torch

        with torch.inference_mode():
            self.prepare()
            if self.device == "cpu" and compiled.available():  # one pass over both maps, float64 (`compiled.lpips_layer_sum`)
                val = 0.0
                for kk in range(len(a)):
                    _, c, h, w = a[kk].shape
                    val += compiled.lpips_layer_sum(a[kk].permute(0, 2, 3, 1).reshape(h * w, c).numpy(),
                                                    b[kk].permute(0, 2, 3, 1).reshape(h * w, c).numpy(),
                                                    self._weights[kk].numpy()) / (h * w)
                return val
            buffers = getattr(self._scratch, "buffers", None)
            if buffers is None:
                buffers = self._scratch.buffers = {}
            val = 0.0
            for kk in range(len(a)):
                _, c, h, w = a[kk].shape
                diff, sums = buffers.get(kk, (None, None))
                if diff is None or diff.shape != a[kk].shape or diff.stride() != a[kk].stride():
                    diff, sums = buffers[kk] = (torch.empty_like(a[kk]), torch.empty(h * w, dtype=a[kk].dtype))
                torch.sub(a[kk], b[kk], out=diff)
                diff.square_()
                pixels = diff.permute(0, 2, 3, 1).reshape(h * w, c)  # no copy for a channels-last map
                torch.mv(pixels, self._weights[kk], out=sums)
                val += float(sums.sum(dtype=torch.float64)) / (h * w)
        return val


def _import_stack() -> tuple[Any, Any, Any]:
    try:
        import torch
        import torchvision
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import lpips
    except ImportError as exc:
        raise WeightsProblem("UNVERIFIED", "scoring-extra-missing",
                             f"LPIPS needs torch, torchvision and lpips, which are not installed ({exc.name or exc}): "
                             f"install the `{EXTRA}` extra ({INSTALL_HINT})") from None
    return torch, torchvision, lpips


def build(pins: list[WeightPin], state_sha256: str | None, *, weights_dir: str | None = None, device: str = "cpu") -> LpipsScorer:
    """
    Return the LPIPS scorer built from the pinned weights, or raise `WeightsProblem`.

    `pins` must hold one `backbone` and one `linear` pin. Every file is found
    offline (`weights.locate`), hashed and compared before unpickling, loaded
    with `weights_only=True`, and every module is loaded strictly; then the
    digest of the loaded state must equal `state_sha256` (None: not pinned
    yet, UNVERIFIED `state-digest-unpinned` naming the computed value).
    Side effects: reads the weight files; never writes, never downloads.
    """
    roles = {p.role: p for p in pins}
    if set(roles) != {"backbone", "linear"} or len(pins) != 2:
        raise WeightsProblem("ERROR", "weights-pins", f"the LPIPS scorer needs exactly one backbone and one linear pin, "
                                                      f"the gate has {sorted(p.role for p in pins)}")
    torch, torchvision, lpips = _import_stack()
    loaded: dict[str, dict[str, Any]] = {}
    files: list[dict[str, str]] = []
    for role in ("backbone", "linear"):
        pin = roles[role]
        path = locate(pin, weights_dir)
        data = read_verified(path, pin)
        loaded[role] = load_state_dict(data, str(path))
        files.append({"name": pin.name, "sha256": pin.sha256, "path": str(path)})
    backbone, linear = loaded["backbone"], loaded["linear"]
    try:
        torchvision.models.alexnet(weights=None).load_state_dict(backbone, strict=True)
    except RuntimeError as exc:
        raise WeightsProblem("ERROR", "weights-keys", f"{files[0]['path']}: not a complete AlexNet state dict "
                                                      f"(strict load): {str(exc).splitlines()[0][:300]}",
                             path=files[0]["path"]) from None
    if set(linear) != LINEAR_KEYS:
        missing, unexpected = sorted(LINEAR_KEYS - set(linear)), sorted(set(linear) - LINEAR_KEYS)
        raise WeightsProblem("ERROR", "weights-keys", f"{files[1]['path']}: the linear weights must hold exactly "
                                                      f"{sorted(LINEAR_KEYS)}; missing {missing}, unexpected {unexpected}",
                             path=files[1]["path"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torchvision's deprecated `pretrained=` kwarg, used by lpips 0.1.4
        model = lpips.LPIPS(net="alex", version="0.1", lpips=True, spatial=False, pretrained=False, pnet_rand=True,
                            use_dropout=True, verbose=False)
    try:
        net_state = {name: backbone[f"features.{name.split('.')[1]}.{name.split('.')[2]}"] for name in model.net.state_dict()}
        model.net.load_state_dict(net_state, strict=True)
        for i in range(5):
            getattr(model, f"lin{i}").load_state_dict({"model.1.weight": linear[f"lin{i}.model.1.weight"]}, strict=True)
    except (KeyError, RuntimeError) as exc:
        raise WeightsProblem("ERROR", "weights-keys", f"the pinned weights do not fit LPIPS-AlexNet (strict load): "
                                                      f"{str(exc).splitlines()[0][:300]}") from None
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    digest = state_digest(model.state_dict())
    if state_sha256 is None:
        raise WeightsProblem("UNVERIFIED", "state-digest-unpinned",
                             f"the weight files match their pins, but the gate pins no digest of the loaded LPIPS state yet; "
                             f"the state loaded here digests to {digest}: pin it as state_sha256 once it is confirmed")
    if digest != state_sha256:
        raise WeightsProblem("ERROR", "state-digest-mismatch",
                             f"the loaded LPIPS state digests to {digest}, not the pinned {state_sha256}")
    model.to(device)
    identity = {"id": ID, "weights": [{"name": f["name"], "sha256": f["sha256"]} for f in files],
                "state_sha256": digest, "versions": _versions(), "parameters": dict(PARAMETERS),
                "files": [f["path"] for f in files], "device": device, "threads": threads.plan().threads}
    return LpipsScorer(model=model, device=device, identity=identity)
