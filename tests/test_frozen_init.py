"""`verifier.frozen.slot_init`: the classes built in bulk (`FileEntry`, `Finding`, `Location`, `Receipt`, `Site`, `StatedClaim`) take and store exactly what their dataclass `__init__` would."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import random

import pytest

from verifier.evidence import FileEntry, Location, Quantity, Receipt, Site, StatedClaim
from verifier.frozen import slot_init
from verifier.model import CheckInfo, Finding, Status

FAST = (FileEntry, Finding, Location, Receipt, Site, StatedClaim)
VALUES = [None, "", "x", 0, 1, True, [1], {"a": [2]}, ("t",), Status.PASS, 1.5]


def _reference(cls: type) -> type:
    """The dataclass `cls` would be with the `__init__` `dataclasses` generates."""
    specs = [(f.name, f.type, dataclasses.field(default=f.default, kw_only=f.kw_only)) for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass("Reference", specs, frozen=True, slots=True)


def _params(init: object) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(init).parameters.values()]  # type: ignore[arg-type]


@pytest.mark.parametrize("cls", FAST, ids=lambda c: c.__name__)
def test_the_init_takes_the_parameters_of_the_dataclass_init(cls):
    assert cls.__init__.__doc__ and "slot_init" in cls.__init__.__doc__  # the fast one is in place
    assert _params(cls.__init__) == _params(_reference(cls).__init__)


@pytest.mark.parametrize("cls", FAST, ids=lambda c: c.__name__)
def test_the_init_stores_what_the_dataclass_init_stores_on_random_arguments(cls):
    reference = _reference(cls)
    rng = random.Random(7)
    names = [f.name for f in dataclasses.fields(cls)]
    for _ in range(1500):
        kwargs = {name: rng.choice(VALUES) for name in names if rng.random() < 0.75}
        if rng.random() < 0.1:
            kwargs["unknown"] = 1
        positional = [rng.choice(VALUES) for _ in range(rng.randrange(len(names) + 2))]
        for args, kw in (((), kwargs), (positional, {}), (positional[:2], {k: v for k, v in kwargs.items() if k not in names[:2]})):
            outcomes = []
            for c in (cls, reference):
                try:
                    obj = c(*args, **kw)
                except TypeError:
                    outcomes.append(TypeError)
                else:
                    outcomes.append([id(getattr(obj, n)) for n in names])
            assert outcomes[0] == outcomes[1], (args, kw)


def test_instances_stay_frozen_comparable_picklable_and_replaceable():
    finding = Finding(check="c", status=Status.PASS, code="k", message="m", path="p", observed=[1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        finding.code = "other"  # type: ignore[misc]
    assert finding == Finding(check="c", status=Status.PASS, code="k", message="m", path="p", observed=[1])
    assert dataclasses.replace(finding, code="x").code == "x" and dataclasses.replace(finding, code="x").path == "p"
    site = Site("/claims/0", "claim", (("a", "1"),), Location("f", "/0"), 1)
    assert pickle.loads(pickle.dumps(site)) == site and hash(site) == hash(Site("/claims/0", "claim", (("a", "1"),), Location("f", "/0"), 1))
    assert repr(Location("f")) == "Location(file='f', pointer=None)"
    with pytest.raises(TypeError):
        Finding("c", Status.PASS, "code", "message")  # type: ignore[misc] - keyword-only, as the dataclass's


def test_slot_init_refuses_a_class_whose_init_it_cannot_copy():
    with pytest.raises(TypeError):
        slot_init(CheckInfo)  # `counts` has a default factory
    with pytest.raises(TypeError):
        slot_init(Quantity)  # its __post_init__ checks the unit
    with pytest.raises(TypeError):
        slot_init(dataclasses.make_dataclass("Open", ["a"], slots=True))  # not frozen
    with pytest.raises(TypeError):
        slot_init(dataclasses.make_dataclass("Plain", ["a"], frozen=True))  # no slots
    with pytest.raises(TypeError):
        slot_init(dataclasses.make_dataclass("Hidden", [("a", int, dataclasses.field(default=0, init=False))], frozen=True, slots=True))
    with pytest.raises(TypeError):
        slot_init(dataclasses.make_dataclass("Var", [("a", int), ("b", dataclasses.InitVar[int])], frozen=True, slots=True))
