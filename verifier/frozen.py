"""
Building instances of frozen, slotted dataclasses (`Finding`, `Site`, `Location`) without the per-field cost of their `__init__`.

A frozen dataclass's generated `__init__` stores each field through
`object.__setattr__(self, name, value)`, which looks the name up again for
every field (about 1 microsecond for a `Finding`'s ten); the checks build one
finding per stated value, hundreds a run. `builder(cls)` returns a function
that stores them through the slots' own descriptors, giving an equal instance
of the same class in under half the time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["builder"]

T = TypeVar("T")


def builder(cls: type[T]) -> Callable[..., T]:
    """
    Return a function taking the fields of dataclass `cls` (positionally in field order, or by name) and returning what `cls(...)` returns for them.

    Fields with a plain `default` keep it; the instance equals, hashes and
    prints as `cls(...)`'s. Only for a frozen dataclass with `slots=True`
    whose `__init__` does nothing else: raises `TypeError` for a class that
    is not one, defines `__post_init__` (validation `cls(...)` would run),
    or has a field outside `__init__` or with a `default_factory`.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with slots")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} defines __post_init__, which its __init__ runs")
    fields = dataclasses.fields(cls)
    if any(not f.init or f.default_factory is not dataclasses.MISSING for f in fields):
        raise TypeError(f"{cls.__name__} has a field outside __init__ or with a default_factory")
    names = [f.name for f in fields]
    defaults = {f"_default_{f.name}": f.default for f in fields if f.default is not dataclasses.MISSING}
    args = ", ".join(f"{n}=_default_{n}" if f"_default_{n}" in defaults else n for n in names)
    body = "\n".join(f"    _set_{n}(self, {n})" for n in names)
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, **defaults, **{f"_set_{n}": cls.__dict__[n].__set__ for n in names}}
    exec(f"def build({args}):\n    self = _new(_cls)\n{body}\n    return self\n", namespace)  # noqa: S102 - straight-line code over our own field names, as dataclasses writes __init__
    build = namespace["build"]
    build.__doc__ = f"Return {cls.__name__}(...) of these fields (`verifier.frozen.builder`)."
    return build  # type: ignore[no-any-return]
