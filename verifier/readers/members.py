"""Records from the members of a JSON object (a profile's `"records": {"members_of": POINTER}`): an object keyed by name, such as asv's `results`."""

from __future__ import annotations

from typing import Any

from verifier.readers.pointers import resolve

__all__ = ["MembersError", "members"]


class MembersError(ValueError):
    """Raised when a document does not hold what `members_of` reads: the message names the pointer."""


def members(document: Any, spec: dict[str, Any]) -> list[tuple[str, Any]]:
    """
    Return one `(pointer, record)` pair per member of the object at `spec["members_of"]` of `document`, in file order.

    Each record holds `#key` (the member's name, mapped as a dimension with the pointer `/#key`) and: with `columns`
    (a list of names, or a JSON Pointer to an array of names in the same document: asv's `result_columns`), the
    member's array read positionally (`{columns[i]: value[i]}`; a shorter array leaves the trailing columns unstated,
    as asv writes them); without it, the member's own members when it is an object, else `#value` (the member).
    Raises `MembersError` (which `verifier.readers.grammars.parse` reports as `GrammarError` `missing-records`) for no object at `members_of`, a `columns` pointer that names no array of
    strings, or a member that is not an array while `columns` is given.
    """
    where = spec["members_of"]
    try:
        holder = resolve(document, where)
    except KeyError:
        raise MembersError(f"no records at {where!r}") from None
    if not isinstance(holder, dict):
        raise MembersError(f"{where!r} is not an object whose members are records")
    columns = spec.get("columns")
    if isinstance(columns, str):
        try:
            columns = resolve(document, columns)
        except KeyError:
            raise MembersError(f"no column names at {spec['columns']!r}") from None
        if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            raise MembersError(f"{spec['columns']!r} is not an array of column names")
    pairs = []
    for key, value in holder.items():
        pointer = f"{where}/{key.replace('~', '~0').replace('/', '~1')}"
        if columns is not None:
            if not isinstance(value, list):
                raise MembersError(f"{pointer} is not an array of the columns it is read by")
            record = {"#key": key, **dict(zip(columns, value))}
        elif isinstance(value, dict):
            record = {"#key": key, **value}
        else:
            record = {"#key": key, "#value": value}
        pairs.append((pointer, record))
    return pairs
