"""A receipt set's `unnest` (docs/profiles.md): one document record made into the records of its arrays or parameter combinations."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from verifier.readers.pointers import resolve
from verifier.readers.problems import Problem

__all__ = ["unnest_elements"]


def unnest_elements(spec: dict[str, Any], record: Any, rel: str, pointer: str, problems: list[Problem]) -> Iterable[tuple[str, Any, dict[str, Any]]]:
    """
    Yield `(element pointer, element, parallel entries)` for each record a receipt set's `unnest` makes of one document
    record (`("", None, {})` once without `unnest`): the elements of `unnest.array` (with `then`, each element's inner
    array flattened: runs -> values), each with its entry of every `parallel` array, or the combinations of
    `product_of` (`_product`). A missing array is FAIL `missing-field`, a parallel array of another length FAIL
    `parallel-mismatch`, appended to `problems` (those elements are then not yielded).
    """
    unnest = spec.get("unnest")
    if not unnest:
        yield "", None, {}
        return
    if "product_of" in unnest:
        yield from _product(unnest, record, rel, pointer, problems)
        return
    try:
        array = resolve(record, unnest["array"])
    except KeyError:
        array = None
    if not isinstance(array, list):
        problems.append(Problem("FAIL", "missing-field", f"{rel} {pointer}: array {unnest['array']} is missing", rel, pointer, unnest["array"]))
        return
    columns: dict[str, list[Any] | None] = {}
    for name, p in unnest.get("parallel", {}).items():
        try:
            column = resolve(record, p)
        except KeyError:
            column = None
        if not isinstance(column, list) or len(column) != len(array):
            have = (f"has {len(column)} entries" if isinstance(column, list)
                    else "is missing" if column is None else f"is a {type(column).__name__}, not an array")
            problems.append(Problem("FAIL", "parallel-mismatch", f"{rel} {pointer}: {p} {have}, {unnest['array']} has {len(array)} entries", rel, pointer + p, name))
            column = None
        columns[name] = column
    inner = unnest.get("then")
    for i, element in enumerate(array):
        if inner is not None:  # an array inside each element, flattened: runs -> values, forks -> samples
            try:
                values = resolve(element, inner)
            except KeyError:
                values = None
            if values is None and unnest.get("then_optional"):
                continue  # an element stating no inner array holds no records (pyperf's calibration runs write only `warmups`)
            if not isinstance(values, list):
                problems.append(Problem("FAIL", "missing-field", f"{rel} {pointer}: array {unnest['array']}/{i}{inner} is missing", rel, f"{pointer}{unnest['array']}/{i}", inner))
                continue
            for j, value in enumerate(values):
                yield f"{unnest['array']}/{i}{inner}/{j}", value, {}
            continue
        parallel = {name: col[i] for name, col in columns.items() if col is not None}
        yield f"{unnest['array']}/{i}", element, parallel


def _product(unnest: dict[str, Any], record: Any, rel: str, pointer: str, problems: list[Problem]) -> Iterable[tuple[str, Any, dict[str, Any]]]:
    """
    Yield `(element pointer, combination, parallel entries)` per combination of `unnest["product_of"]` (an array of
    arrays: asv's `params`), in `itertools.product` order (the last array varies fastest), the combination an array
    of its entries ([] for an empty `product_of`: one combination); each `parallel` array must hold one entry per
    combination. Records FAIL `missing-field` (no array of arrays) or `parallel-mismatch` (another length) and yields nothing.
    With `each` (a `parallel` name: asv's `samples`), each entry of that array's entry for a combination is one record,
    that parallel name then holding the entry; a combination whose entry is null or unstated holds no records, one that
    is no array is FAIL `missing-field`.
    """
    where = unnest["product_of"]
    try:
        axes = resolve(record, where)
    except KeyError:
        axes = None
    if not isinstance(axes, list) or not all(isinstance(axis, list) for axis in axes):
        problems.append(Problem("FAIL", "missing-field", f"{rel} {pointer}: {where} is not an array of arrays", rel, pointer, where))
        return
    combinations = list(itertools.product(*axes))
    columns: dict[str, list[Any]] = {}
    for name, p in unnest.get("parallel", {}).items():
        try:
            column = resolve(record, p)
        except KeyError:
            continue  # an array this record does not state (asv leaves trailing columns out): a value mapped to it is missing
        if not isinstance(column, list) or len(column) != len(combinations):
            have = f"has {len(column)} entries" if isinstance(column, list) else f"is a {type(column).__name__}, not an array"
            problems.append(Problem("FAIL", "parallel-mismatch", f"{rel} {pointer}: {p} {have}, {where} has {len(combinations)} combinations", rel, pointer + p, name))
            return
        columns[name] = column
    each = unnest.get("each")
    for i, combination in enumerate(combinations):
        entries = {name: column[i] for name, column in columns.items()}
        if each is None:
            yield f"#combination={i}", list(combination), entries
            continue
        inner = entries.get(each)
        if inner is None:
            continue  # a combination stating no samples (null, or an array the record leaves out) holds no records
        if not isinstance(inner, list):
            problems.append(Problem("FAIL", "missing-field", f"{rel} {pointer}: {unnest['parallel'][each]}/{i} is not an array", rel, pointer, each))
            continue
        for j, value in enumerate(inner):
            yield f"#combination={i}&{each}={j}", list(combination), {**entries, each: value}
