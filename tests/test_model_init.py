"""`Finding.__init__` (set slot by slot, `verifier.model._slot_init`) takes and stores exactly what the dataclass's own `__init__` would."""

from __future__ import annotations

import dataclasses
import inspect
import random

import pytest

from verifier.model import CheckInfo, Finding, Status, _slot_init


def _reference() -> type:
    """The dataclass `Finding` would be with the `__init__` `dataclasses` generates."""
    specs = [(f.name, f.type, dataclasses.field(default=f.default, kw_only=True)) for f in dataclasses.fields(Finding)]
    return dataclasses.make_dataclass("Reference", specs, frozen=True, slots=True, kw_only=True)


def _values(obj: object) -> list[object]:
    return [getattr(obj, f.name) for f in dataclasses.fields(obj)]  # type: ignore[arg-type]


def test_finding_takes_the_arguments_of_the_dataclass_init():
    ours, theirs = inspect.signature(Finding.__init__), inspect.signature(_reference().__init__)
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
           [(p.name, p.kind, p.default) for p in theirs.parameters.values()]


def test_finding_stores_what_the_dataclass_init_stores_on_random_arguments():
    reference = _reference()
    rng = random.Random(7)
    names = [f.name for f in dataclasses.fields(Finding)]
    values = [None, "", "x", 0, 1, True, [1], {"a": [2]}, ("t",), Status.PASS, Status.FAIL, 1.5]
    for _ in range(2000):
        kwargs = {name: rng.choice(values) for name in names if rng.random() < 0.7}
        if rng.random() < 0.1:
            kwargs["unknown"] = 1
        outcomes = []
        for cls in (Finding, reference):
            try:
                obj = cls(**kwargs)
            except TypeError:
                outcomes.append(TypeError)
            else:
                outcomes.append([id(v) for v in _values(obj)])
        assert outcomes[0] == outcomes[1], kwargs
    with pytest.raises(TypeError):
        Finding("c", Status.PASS, "code", "message")  # type: ignore[misc] - keyword-only, as the dataclass's


def test_a_finding_stays_frozen_comparable_and_replaceable():
    finding = Finding(check="c", status=Status.PASS, code="k", message="m", path="p", observed=[1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        finding.code = "other"  # type: ignore[misc]
    assert finding == Finding(check="c", status=Status.PASS, code="k", message="m", path="p", observed=[1])
    assert dataclasses.replace(finding, code="x").code == "x" and dataclasses.replace(finding, code="x").path == "p"


def test_slot_init_refuses_a_field_it_cannot_copy():
    with pytest.raises(TypeError):
        _slot_init(CheckInfo)  # `counts` has a default factory
    for spec, options in ((("a", int, dataclasses.field(default=0)), {"kw_only": True}),  # a default other than None
                          (("a", int), {}),  # positional
                          (("a", int, dataclasses.field(default=None, init=False)), {"kw_only": True})):
        with pytest.raises(TypeError):
            _slot_init(dataclasses.make_dataclass("Other", [spec], frozen=True, slots=True, **options))
