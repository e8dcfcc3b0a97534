"""
Where a bundle states each value a profile's claims and gate compare: the claim-site reader, and a location read forwards and backwards.

`locate(tree, documents, at, key, indexes)` reads a profile location (`at`: file,
pointer, `where`, `then`, `member`, `number`) forwards for one instance;
`stated(tree, documents, at, files)` reads it backwards, every value the bundle states
there with the placeholders it binds. Both read the documents `parse_claim_files`
parsed once (file -> its document): no location parses a file itself.

`read_sites(tree, documents, instances, profile)` runs after the receipts are read (a
claim's instances are the dimension values of its selected receipts, and a
`{dim.index}` place is an instance's rank among them: `instances` holds them,
`verifier.readers.select.rule_instances`) and returns one
`verifier.model.evidence.Site` per place it looked, found or not:

- per claim instance, the stated value at `at` (`claim`, with the unit
  stated at `at.unit` when the claim maps one) and, for a margin, the
  target at `minus` (`target`) and the factor at `times` (`factor`), each only when the claim itself was found;
- per ranking claim (`pick`), the name stated at `at` (`named`);
- per claim, every other value the bundle states at the claim's templated
  place (`stated`: read backwards; a
  place where one of its instances' values was found is not repeated), and
  one `stated` site with problem `blocked` per file of that place that
  integrity refused;
- per gate rule instance, the bounds a `bounds_at` file states (`bounds`)
  and the outcome a `recorded` place holds (`recorded`); the gate's own
  recorded outcome (`recorded`, rule `/gate`).

Each site names its rule by the rule's JSON Pointer in the profile
(`/claims/3`, `/gate/rules/0`, `/gate`): rule ids need not be unique.

So `derivation.claims` and `gate.rules` compare what the model holds and read
no document themselves. A place with no value, or in a file that cannot be
read or parsed (the grammar errors of `verifier.readers.grammars` and the reasons
`verifier.formats.jsonio` refuses JSON), is a `Site` with its `problem` and the
reason in `detail`, not an exception; `schema.documents` (`verifier.checks.profile_receipts`) stores the model
before calling `read_sites`, so anything else it raises is one ERROR.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal
from typing import Any, NamedTuple

from verifier.model import units
from verifier.model.evidence import Location, Receipt, Site
from verifier.formats.jsonio import JSONProblem
from verifier.formats.linear_regex import compile_linear
from verifier.readers.pointers import PLACEHOLDER as _PLACEHOLDER
from verifier.readers.pointers import dim_text, resolve
from verifier.readers.select import Instance, left_out
from verifier.readers.tree import Tree
from verifier.formats.textnumbers import numbers_in

__all__ = ["AmbiguousLocation", "excluded", "fill_file", "fill_named", "locate", "locate_beside", "member_of", "member_start", "number_of",
           "parse_claim_files", "read_sites", "stated", "stated_bounds"]

#: Exceptions `locate` raises for a place with no value (`missing`) and for a file that cannot be read (`unreadable`).
_MISSING = (KeyError, LookupError)
_UNREADABLE = (OSError, JSONProblem)


def parse_claim_files(tree: Tree, profile: dict[str, Any], receipts: Sequence[Receipt]) -> dict[str, Any]:
    """
    Return every file the places of `profile`'s claims and gate can name, parsed once: file -> its document (`Tree.json`), or the `OSError` or `JSONProblem` reading it raised.

    A templated place (`{dim}`, `{dim.index}`) names each file of the tree its template matches. Only rules over a
    receipt set with receipts count (`read_sites` locates no other); a file integrity blocked is left out for a claim's
    own place (`at`: `read_sites` says `blocked`), not for a target, factor or recorded one. Side effects: reads (cached) those files through `tree`.
    """
    sets = {r.receipt_set for r in receipts}
    places = {gate["recorded"]["file"]: True} if (gate := profile.get("gate")) and "recorded" in gate else {}  # file template -> blocked files too
    for rule in [*profile.get("claims", []), *(gate or {}).get("rules", [])]:
        for p in (rule.get("at"), rule.get("minus"), rule.get("times", {}).get("at"), rule.get("recorded")) if rule["receipts"] in sets else ():
            if p is not None:
                places[p["file"]] = places.get(p["file"], False) or "pick" in rule or p is not rule.get("at")
    documents: dict[str, Any] = {}
    for template, blocked_too in places.items():
        pattern = _template(template, ".*") if "{" in template else None
        for rel in [f for f in tree.files() if pattern.fullmatch(f)] if pattern is not None else [template]:
            if rel not in documents and (blocked_too or rel not in tree.blocked):
                try:
                    documents[rel] = tree.json(rel)
                except (OSError, JSONProblem) as exc:
                    documents[rel] = exc
    return documents


def _document(documents: dict[str, Any], rel: str) -> Any:
    """Return the document `parse_claim_files` parsed of `rel`; raises what reading it raised (`FileNotFoundError` for a file it did not read)."""
    document = documents[rel] if rel in documents else FileNotFoundError(rel)
    if isinstance(document, (OSError, JSONProblem)):
        raise document.with_traceback(None)
    return document


def read_sites(tree: Tree, documents: dict[str, Any], instances: dict[str, list[Instance]], profile: dict[str, Any]) -> tuple[Site, ...]:
    """
    Return every `Site` the profile's claims and gate read in `tree` (see the module docstring), in rule and instance order.

    `documents` are the claim files `parse_claim_files` parsed, `instances`
    each rule's instances with their ranks (`verifier.readers.select.rule_instances`
    of the model's receipts, stand-ins for unread files included: they rank
    and select as the checks do). Side effects: reads a `bounds_at` file's
    text through `tree`.
    """
    out: list[Site] = []
    for i, rule in enumerate(profile.get("claims", [])):
        if f"/claims/{i}" in instances:  # a claim over a receipt set with receipts
            out.extend(_claim_sites(tree, documents, profile, f"/claims/{i}", rule, instances[f"/claims/{i}"]))
    gate = profile.get("gate")
    if gate:
        texts: dict[str, str | None] = {}  # the `bounds_at` files read so far (`stated_bounds`)
        for i, rule in enumerate(gate["rules"]):
            if "bounds_at" in rule:
                out.extend(_bounds(tree, f"/gate/rules/{i}", rule, key, texts) for key, _pairs, _indexes in instances[f"/gate/rules/{i}"])
            if "recorded" in rule:
                out.extend(_site(tree, documents, f"/gate/rules/{i}", "recorded", rule["recorded"], key, lambda indexes=indexes: _known(indexes))
                           for key, _pairs, indexes in instances[f"/gate/rules/{i}"])
        if "recorded" in gate:
            out.append(_site(tree, documents, "/gate", "recorded", gate["recorded"], {}, dict))
    return tuple(out)


def _known(indexes: dict[str, int] | KeyError) -> dict[str, int]:
    """Return an instance's ranks (`rule_instances`), or raise the `KeyError` that left them unknown (its places are then `missing`)."""
    if isinstance(indexes, KeyError):
        raise indexes.with_traceback(None)
    return indexes


def _claim_sites(tree: Tree, documents: dict[str, Any], profile: dict[str, Any], rid: str, rule: dict[str, Any], every: list[Instance]) -> Iterator[Site]:
    """Yield the sites of the claim rule at profile pointer `rid` over its instances `every` (`rule_instances`): their stated values (and margin targets), then what is stated backwards."""
    at = rule["at"]
    if "pick" in rule:
        yield _site(tree, documents, rid, "named", at, {}, dict)
        return
    found: set[tuple[str, str]] = set()  # the places an instance's value was read at: not stated again below
    file, margin = at["file"], "minus" in rule  # what every instance reads alike, read once
    templated_heading = at["pointer"].startswith("/tables/") and "{" in at["pointer"].split("/")[2]
    for key, pairs, indexes in every:
        if isinstance(indexes, KeyError):  # the instance exists only through receipts that were not read: its `{dim.index}` places are unknown
            yield Site(rid, "claim", pairs, Location(file), problem="unranked", detail=", ".join(sorted(tree.blocked)))
            continue
        try:
            claim_file = fill_file(file, key, indexes) if "{" in file else file  # no placeholder: `fill_file` gives it as it is
        except KeyError:  # a placeholder the instance does not bind: `locate` says so below
            claim_file = file
        if claim_file in tree.blocked:  # never parsed, not even to find the value
            yield Site(rid, "claim", pairs, Location(claim_file), problem="blocked", detail=tree.blocked[claim_file])
            continue
        yield (site := _site(tree, documents, rid, "claim", at, key, lambda indexes=indexes: indexes, at.get("unit")))
        if site.problem is not None:
            continue
        rel, pointer = site.location.file, site.location.pointer or ""
        found.add((rel, pointer))
        if templated_heading:
            yield from _heading_numbers(documents, rid, pairs, rel, pointer, found)
        if margin:
            yield _site(tree, documents, rid, "target", rule["minus"], key, lambda indexes=indexes: indexes)
        if "times" in rule:
            yield _site(tree, documents, rid, "factor", rule["times"]["at"], key, lambda indexes=indexes: indexes)
    files = tree.glob(profile["receipts"][rule["receipts"]]["glob"]) if "{" in at["file"] else []
    for rel in files or [at["file"]]:
        if rel in tree.blocked:
            yield Site(rid, "stated", (), Location(rel), problem="blocked", detail=tree.blocked[rel])
    selection = rule["selection"]
    for bound, rel, pointer, value in stated(tree, documents, at, files):
        if (rel, pointer) not in found and not left_out(selection, bound):  # another claim's row, or unchecked-claim
            yield Site(rid, "stated", tuple(bound.items()), Location(rel, pointer), value)


def _heading_numbers(documents: dict[str, Any], rid: str, pairs: tuple[tuple[str, str], ...], rel: str, pointer: str, found: set[tuple[str, str]]) -> Iterator[Site]:
    """
    Yield a `heading` site for each number of the heading whose table a claim instance located through a templated
    `/tables/{dim} ...` pointer that equals a value the instance binds ("Double Gyre FTLE (Iter/Run: 50, Num Runs: 3)"
    through `{iters}`, `{nruns}`): the table is found only for receipts stating them, so those numbers are compared
    (`claims.coverage` counts them), once per place (`found`).
    """
    heading = pointer.split("/")[2].replace("~1", "/").replace("~0", "~")
    values = {value for _dim, value in pairs}
    try:
        headings = _document(documents, rel).get("headings", [])
    except (OSError, JSONProblem, AttributeError):
        return
    for i, entry in enumerate(headings):
        if isinstance(entry, dict) and entry.get("text") == heading:
            for j, number in enumerate(entry.get("numbers", [])):
                place = (rel, f"/headings/{i}/numbers/{j}")
                if number in values and place not in found:
                    found.add(place)
                    yield Site(rid, "heading", pairs, Location(*place), number)


def _site(tree: Tree, documents: dict[str, Any], rule: str, role: str, at: dict[str, Any], key: dict[str, str], indexes: Any, beside: str | None = None) -> Site:
    """
    Return the `Site` of one place: `locate(tree, documents, at, key, indexes())`, or the problem that kept it from being read.

    With `beside` (a claim's `at.unit`) its unit too: the one stated beside the value (`locate_beside`), as `_unit_in_text` reads it.
    """
    pairs = tuple(key.items())
    try:
        rel, pointer, value, unit = locate_beside(tree, documents, at, key, indexes(), beside) if beside is not None else (*locate(tree, documents, at, key, indexes()), None)
    except (*_MISSING, *_UNREADABLE) as exc:  # `ambiguous`: several elements match its `where`, the profile names no one place
        problem = ("ambiguous" if isinstance(exc, AmbiguousLocation) else "missing") if isinstance(exc, _MISSING) else "unreadable"
        return Site(rule, role, pairs, Location(at["file"], at.get("pointer")), problem=problem, detail=str(exc))
    return Site(rule, role, pairs, Location(rel, pointer), value, _unit_in_text(unit) if isinstance(unit, str) else None)


@functools.lru_cache(maxsize=1024)
def _unit_in_text(text: str) -> str | None:
    """Return the unit a claim's `at.unit` place states in `text` (a label ending in its unit, `Latency (ms)`, gives it: `units.unit_in_label`), or None; once per text (a table states a few units in every row)."""
    return units.unit_in_label(text.strip()) if text.strip() else None


_BOUND = re.compile(r"(>=|<=|≥|≤|>|<)\s*`?\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")


def _bounds(tree: Tree, rid: str, rule: dict[str, Any], key: dict[str, str], texts: dict[str, str | None]) -> Site:
    """Return the `bounds` site of one instance of the gate rule at profile pointer `rid`: the bounds its `bounds_at` file states (`texts`: see `stated_bounds`), or `missing` with the reason."""
    at = rule["bounds_at"]
    try:
        rel, bounds = stated_bounds(tree, at, key, texts)
    except KeyError as exc:
        return Site(rid, "bounds", tuple(key.items()), Location(at["file"]), problem="missing", detail=str(exc))
    return Site(rid, "bounds", tuple(key.items()), Location(rel, None), tuple(bounds))


@functools.lru_cache(maxsize=256)
def _naming(naming: str) -> re.Pattern[str]:
    """Return the pattern of `naming` as a whole name (no word character or dot either side), compiled once per name."""
    return re.compile(rf"(?<![\w.]){re.escape(naming)}(?![\w.])")


def stated_bounds(tree: Tree, at: dict[str, Any], key: dict[str, str], texts: dict[str, str | None] | None = None) -> tuple[str, list[tuple[str, Decimal]]]:
    """
    Return `(file, bounds)` the bundle states for one instance: every `>= x`, `<= y` on the first line of `at.file` that names `at.line_naming`.

    E.g. MLPerf's measurements README: "`ROUGE1`: `31.4286`, Required accuracy
    for closed division `>= 45.14291`". Raises `KeyError` when the file or
    such a line is absent or the line states no bound. `texts` (file -> its
    text, None when it cannot be read as UTF-8), when given, keeps each file
    read for the next call (`read_sites`: the rules on one run's metrics read one README).
    """
    rel = fill_named(at["file"], key)
    texts = {} if texts is None else texts
    if rel not in texts:
        try:
            texts[rel] = tree.read_bytes(rel).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            texts[rel] = None
    text = texts[rel]
    if text is None:
        raise KeyError(rel)
    naming = at["line_naming"]
    line = _naming_line(text, naming, _naming(naming))
    if line is not None:
        bounds = [(op.replace("≥", ">=").replace("≤", "<="), Decimal(number)) for op, number in _BOUND.findall(line)]
        if bounds:
            return rel, bounds
    raise KeyError(f"{rel}: no line naming {at['line_naming']} states a bound")


def _naming_line(text: str, naming: str, name: re.Pattern[str]) -> str | None:
    """Return the first of `text.splitlines()` in which `name` (the pattern of `naming`, `_naming`) finds it, or None."""
    return next((line for line in text.splitlines() if naming in line and name.search(line)), None)


# ---------------------------------------------------------------- a location, forwards (`locate`) and backwards (`stated`)


class AmbiguousLocation(LookupError):
    """A location's `where` matches several different elements (`_distinct`): the profile names no one place (its fault, never the evidence's)."""


def fill_file(template: str, key: dict[str, str], indexes: dict[str, int]) -> str:
    """
    Return the file name `template` names for one instance: `{dim}` takes its key value, `{dim.index}` its rank in `indexes`.

    Raises `KeyError` for a placeholder the instance does not bind.
    """

    return _fill(template, key, indexes, escape=False)


def fill_named(template: str, key: dict[str, str]) -> str:
    """
    Return `template` with each `{name}` placeholder, `.index` ones included, replaced by `key[name]` (e.g. a gate rule's `bounds_at` file).

    What `PLACEHOLDER.sub` with a lookup in `key` gives; raises `KeyError` for the first placeholder `key` does not bind.
    """
    return _fill(template, key, None, escape=False)


@functools.lru_cache(maxsize=4096)
def _split(template: str) -> tuple[str, ...]:
    """Return `template` split at its placeholders (`PLACEHOLDER.split`: literal, name, literal, ...), once per template."""
    return tuple(_PLACEHOLDER.split(template))


def _fill(template: str, key: dict[str, str], indexes: dict[str, int] | None, *, escape: bool) -> str:
    """
    Return `template` with `{dim}` replaced by `key[dim]` (JSON-Pointer-escaped when `escape`) and `{dim.index}` by `indexes[dim]`.

    With `indexes` None every placeholder, `.index` ones included, is looked
    up in `key` as written (a `where` template). What `PLACEHOLDER.sub` with
    a replacement function gives, placeholders filled left to right; raises
    `KeyError` for the first one the instance does not bind.
    """
    parts = _split(template)
    if len(parts) == 1:
        return template
    if len(parts) == 3 and not parts[0] and not parts[2]:  # the whole template is one placeholder (a `where` value "{model}"): no join
        part = parts[1]
        if indexes is not None and part.endswith(".index"):
            return str(indexes[part.removesuffix(".index")])
        return key[part].replace("~", "~0").replace("/", "~1") if escape else key[part]
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(part)
        elif indexes is not None and part.endswith(".index"):
            out.append(str(indexes[part.removesuffix(".index")]))
        else:
            out.append(key[part].replace("~", "~0").replace("/", "~1") if escape else key[part])
    return "".join(out)


def locate(tree: Tree, documents: dict[str, Any], at: dict[str, Any], key: dict[str, str], indexes: dict[str, int]) -> tuple[str, str, Any]:
    """
    Return `(file, pointer, value)` of a claim location for one instance.

    `{dim}` placeholders take the instance's key value, `{dim.index}` its
    0-based rank among the receipts' values of `dim`. With `where`, `pointer`
    names an array (or an object, whose member values are the elements, e.g.
    a table keyed by row number) and the element whose members equal every `where` value
    (a list of literal texts: one of them, e.g. the `Units` a table writes for results,
    not for power) is taken (exactly one must match; the members `fold_case` lists are
    compared casefolded), then `then` is resolved inside it.
    Raises `KeyError` (pointer not found), `LookupError` (no or several,
    `AmbiguousLocation` for several
    elements match), `OSError` or `JSONProblem` (file unreadable: what
    parsing it raised, `documents` holding what `parse_claim_files` parsed).
    """
    rel, document, spot, pointer, element = _found(tree, documents, at, key, indexes)
    pointer, value = _inside(spot, element, pointer, spot.then, key, indexes)
    return rel, pointer, value


def locate_beside(tree: Tree, documents: dict[str, Any], at: dict[str, Any], key: dict[str, str], indexes: dict[str, int], beside: str) -> tuple[str, str, Any, Any]:
    """
    Return `locate(tree, documents, at, key, indexes)` and, fourth, the value at pointer `beside` next to it, or None when there is none.

    With `where` that is what `locate` of `at` with `then` set to `beside`
    returns (inside the element found, `member` or `number` applied as for
    the value); without, the value at `beside` in the file. The element is
    found once for both (e.g. a table row's Result and its Units). Raises
    what `locate` raises for the value; a `beside` that cannot be read
    (`LookupError`) gives None.
    """
    rel, document, spot, pointer, element = _found(tree, documents, at, key, indexes)
    pointer, value = _inside(spot, element, pointer, spot.then, key, indexes)
    try:
        if spot.where is not None:
            _pointer, there = _inside(spot, element, "", beside, key, indexes)
        else:
            there = resolve(document, _fill(beside, key, indexes, escape=True))
    except LookupError:  # KeyError included: nothing stated beside the value
        there = None
    return rel, pointer, value, there


def _found(tree: Tree, documents: dict[str, Any], at: dict[str, Any], key: dict[str, str], indexes: dict[str, int]) -> tuple[str, Any, _Spot, str, Any]:
    """
    Return `(file, document, spot, pointer, found)` of `locate`: the value at `at.pointer`, or with `where` the one element that matches and its pointer.

    Raises what `locate` raises for them. The elements a `where` chooses among
    are indexed once per file, pointer and members (`_where_index`).
    """
    rel = fill_file(at["file"], key, indexes)
    document = _document(documents, rel)
    spot = _spot(at)
    pointer = _fill(spot.pointer, key, indexes, escape=True)
    value = resolve(document, pointer)
    if spot.where is None:
        return rel, document, spot, pointer, value
    texts = [template if isinstance(template, tuple) else key[name] if name is not None else _fill(template, key, None, escape=False)
             for _member, template, name in spot.where]
    if not isinstance(value, (list, dict)):
        raise KeyError(pointer)
    index = _where_index(tree, rel, pointer, value, spot.members, spot.fold)
    if spot.listed:  # a member compared with a list of alternatives: every combination looked up, the hits of each kept
        hits = [h for wanted in itertools.product(*[[_folded(t) if folded else t for t in (texts[i] if isinstance(texts[i], tuple) else (texts[i],))] for i, folded in spot.order])
                for h in index.get(wanted, [])]
    else:
        hits = index.get(tuple([texts[i].casefold() if folded else texts[i] for i, folded in spot.order]), [])
    if "where_not" in at:
        hits = [h for h in hits if not excluded(value[h], at)]
    if len(hits) != 1:
        want = {member: text for (member, _template, _name), text in zip(spot.where, texts, strict=True)}
        kind = AmbiguousLocation if hits and _distinct([value[h] for h in hits], spot.then) else LookupError
        raise kind(f"{len(hits)} elements of {pointer or chr(34) * 2} match {want}")  # "" (the whole document), never a blank
    return rel, document, spot, f"{pointer}/{_escape(str(hits[0]))}", value[hits[0]]


def _inside(spot: _Spot, found: Any, pointer: str, then: str, key: dict[str, str], indexes: dict[str, int]) -> tuple[str, Any]:
    """Return `(pointer, value)` of `locate` from what `_found` found: with `where`, `then` resolved inside the element; then the `member` or `number`."""
    value = found
    if spot.where is not None:
        then = _fill(then, key, indexes, escape=True)
        value = resolve(found, then)
        pointer += then
    if spot.member is not None:
        value = member_of(value, spot.member)
        pointer += "#" + spot.member
    if spot.number is not None:
        value = number_of(value, spot.number)
        pointer += f"#numbers/{spot.number}"
    return pointer, value


class _Spot(NamedTuple):
    """
    What `locate` reads of one location `at`: its `pointer` and `then` templates, the `member` or `number` inside.

    `where` (None without one) holds `(member, template, name)` per `where` member in the
    profile's order (`name` is the dimension when the template is one whole
    `{dim}` placeholder, so its text is `key[name]`, else None; a list of
    literal alternatives is a tuple of texts, `listed` True when there is one);
    `members` the member names sorted and `fold` the `fold_case` names (the
    key of `_where_index`); `order` the `(position in where, casefolded)`
    pairs in `members` order, which turn the texts into an index key.
    """

    pointer: str
    where: tuple[tuple[str, str, str | None], ...] | None
    members: tuple[str, ...]
    fold: tuple[str, ...]
    order: tuple[tuple[int, bool], ...]
    then: str
    member: str | None
    number: int | None
    listed: bool = False


def _spot(at: dict[str, Any]) -> _Spot:
    """Return the `_Spot` of `at`."""
    pairs = tuple((member, tuple(template), None) if isinstance(template, list) else (member, template, _whole(template))
                  for member, template in at.get("where", {}).items())
    fold = tuple(at.get("fold_case", ()))
    members = tuple(sorted(member for member, _template, _name in pairs))
    position = {member: i for i, (member, _template, _name) in enumerate(pairs)}
    return _Spot(at["pointer"], pairs if "where" in at else None, members, fold, tuple((position[m], m in fold) for m in members),  # type: ignore[arg-type]
                 at.get("then", ""), at.get("member"), at.get("number"), any(isinstance(t, tuple) for _m, t, _n in pairs))


def _whole(template: str) -> str | None:
    """Return the dimension a template that is one whole `{dim}` placeholder names (`where` value "{model}"), else None."""
    parts = _split(template)
    return parts[1] if len(parts) == 3 and not parts[0] and not parts[2] else None


#: A superscript exponent sign or digit ("⁻¹"): a number carrying one is not stated plainly.
_EXPONENT = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]")


def number_of(text: Any, index: int) -> str:
    """
    Return the `index`-th number inside `text` as written, with its unit ("18,812 MiB (32.1%)", 1 -> "32.1%"; `textnumbers.numbers_in`).

    Raises `KeyError` when `text` is not a string or states fewer numbers. A text carrying a superscript exponent
    (`"(117.88)⁻¹"`: 1/117.88, which `numbers_in` reads as no number) is returned whole for a number it does not
    state plainly: not a number, so the claim there is UNVERIFIED (never judged as 117.88, never FAIL `claim-missing`).
    """
    found = numbers_in(text) if isinstance(text, str) else []
    if index >= len(found) and isinstance(text, str) and _EXPONENT.search(text):
        return text
    if index >= len(found):
        raise KeyError(f"#numbers/{index}: {text!r} states {len(found)} number(s)")
    start, end, _number, _unit = found[index]
    return text[start:end]  # type: ignore[index]


def member_of(text: Any, name: str) -> str:
    """
    Return the value of `NAME: value` inside `text` (pairs separated by blanks, e.g. `ROUGE1: 31.4286  ROUGE2: 5.8824`).

    Raises `KeyError` when `text` is not a string or states no such member, `LookupError` when it states it twice.
    """
    if not isinstance(text, str):
        raise KeyError(name)
    hits = _member_pattern(name).findall(text)
    if not hits:
        raise KeyError(name)
    if len(set(hits)) > 1:
        raise LookupError(f"{name} is stated {len(hits)} times in {text!r}")
    return hits[0]


def member_start(text: Any, name: str) -> int | None:
    """Return the offset in `text` where the value of its `NAME: value` member starts, or None when it states no such member."""
    if not isinstance(text, str):
        return None
    m = _member_pattern(name).search(text)
    return m.start(1) if m else None


@functools.lru_cache(maxsize=1024)
def _member_pattern(name: str) -> re.Pattern[str]:
    """Return the compiled pattern of one `NAME: value` member (compiled once per name, not once per call)."""
    return re.compile(rf"(?:^|\s){re.escape(name)}\s*:\s*(\S+)")


@functools.lru_cache(maxsize=4096)
def _template(text: str, value: str) -> Any:
    """Return a regex matching `text` with each `{name}` as a named group (`.index` ones digits only); `value` is the group pattern. Matched by RE2 (`verifier.formats.linear_regex`), in time linear in the text."""
    parts = _PLACEHOLDER.split(text)
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(re.escape(part))
        else:
            group = f"g{i}_" + re.sub(r"[^A-Za-z0-9_]", "_", part)
            out.append(f"(?P<{group}>{r'[0-9]+' if part.endswith('.index') else value})")
    return compile_linear("".join(out))


def _bind(pattern: re.Pattern[str], text: str, names: list[str], bound: dict[str, str]) -> dict[str, str] | None:
    """Return `bound` extended with the placeholders `pattern` captures from `text` (a copy, `_bind_into`), or None when it does not match or contradicts `bound`."""
    out = dict(bound)
    return out if _bind_into(pattern, text, names, out) else None


def _bind_into(pattern: re.Pattern[str], text: str, names: list[str], bound: dict[str, str]) -> bool:
    """Extend `bound` in place with the placeholders `pattern` captures from `text`; return False when it does not match or contradicts `bound` (then `bound` is partly extended: drop it)."""
    m = pattern.fullmatch(text)
    if not m:
        return False
    for name, value in zip(names, m.groups(), strict=True):
        if bound.setdefault(name, value) != value:
            return False
    return True


def _where_index(tree: Tree, rel: str, pointer: str, container: Any, members: tuple[str, ...],
                 fold: tuple[str, ...] = ()) -> dict[tuple[Any, ...], list[Any]]:
    """
    Return (cached per file, pointer and member names) the element indexes of `container` by the texts of `members`: one scan, not one per instance.

    The texts of the members in `fold` are casefolded (`str.casefold`). A member the element does not state (or states
    as null) is the empty text, which the instances of a dimension mapped with `"absent": ""` bind (JMH's `params`).
    """
    key = ("where-index", rel, pointer, members, fold)
    cache = tree._cache  # noqa: SLF001 - the tree's per-run cache of parsed documents
    if key not in cache:
        index: dict[tuple[Any, ...], list[Any]] = {}
        for i, e in _elements(container):
            if isinstance(e, dict):
                texts = ("" if _member(e, m) is None else dim_text(_member(e, m)) for m in members)
                index.setdefault(tuple(_folded(t) if m in fold else t for m, t in zip(members, texts, strict=True)), []).append(i)
        cache[key] = index
    return cache[key]  # type: ignore[no-any-return]


def _distinct(elements: list[Any], then: str) -> bool:
    """
    Return whether `elements` (several matching one `where`) are different rows: they differ in a member besides the
    one `then` reads (and the `#line` a Markdown reader adds). Then the `where` does not tell apart rows the bundle keeps apart: the profile's fault
    (`AmbiguousLocation`). Rows equal in every other member are one row the bundle states twice (MLPerf's summary
    listing a run twice, with one result or two): the evidence's, a FAIL `claim-missing`.
    """
    head = then[1:].split("/")[0].replace("~1", "/").replace("~0", "~") if then else None
    rows = [{k: v for k, v in e.items() if k != head and not str(k).startswith("#")} if isinstance(e, dict) else e for e in elements]  # `#line`: where, not what
    return any(row != rows[0] for row in rows[1:])


def excluded(element: Any, at: dict[str, Any]) -> bool:
    """
    Return whether location `at`'s `where_not` leaves `element` out: one of its members states one of the texts listed
    for it (compared as `where` compares: `dim_text`, casefolded for a `fold_case` member). An element left out is
    never located and never read backwards (a table's Total row beside the per-endpoint rows).
    """
    if not isinstance(element, dict):
        return False
    fold = at.get("fold_case", ())
    for member, texts in at.get("where_not", {}).items():
        text = dim_text(_member(element, member))
        if text is None:
            continue
        if member in fold:
            text = text.casefold()
            texts = [t.casefold() for t in texts]
        if text in texts:
            return True
    return False


def _member(element: dict[str, Any], member: str) -> Any:
    """
    Return what a location `where` compares in `element`: its member `member`, else, for a JSON Pointer of more than one
    token (`/params/n`, kept as written by `verifier.profiles.profile_lint`), the nested value it names; None when absent.
    """
    if member in element or member[:1] != "/":
        return element.get(member)
    try:
        return resolve(element, member)
    except KeyError:
        return None


def _folded(text: str | None) -> str | None:
    """Return `text` casefolded (None stays None): how a `fold_case` member's text is compared and bound."""
    return None if text is None else text.casefold()


def _elements(container: list[Any] | dict[str, Any]) -> Iterable[tuple[Any, Any]]:
    """Return the `(index or member name, element)` pairs a `where` chooses among: an array's elements or an object's member values."""
    return container.items() if isinstance(container, dict) else enumerate(container)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _walk(node: Any, pointer: str, base: str, bound: dict[str, str]) -> Iterable[tuple[dict[str, str], str, Any]]:
    """Yield `(bindings, concrete_pointer, value)` for every place in `node` the templated `pointer` reaches."""
    if pointer == "":
        yield bound, base, node
        return
    if "{" not in pointer and "~" not in pointer and pointer[0] == "/":  # no placeholder, nothing escaped: one place, written as given
        try:
            child = resolve(node, pointer)
        except KeyError:
            return
        yield bound, base + pointer, child
        return
    head, _, rest = pointer[1:].partition("/")
    rest = "/" + rest if _ else ""
    names = _PLACEHOLDER.findall(head)
    if not names:
        token = head.replace("~1", "/").replace("~0", "~")
        try:
            child = resolve(node, "/" + head)
        except KeyError:
            return
        yield from _walk(child, rest, f"{base}/{_escape(token)}", bound)
        return
    pattern = _template(head, ".+")
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for k, child in children:
        extended = _bind(pattern, _escape(str(k)), names, bound)
        if extended is not None:
            yield from _walk(child, rest, f"{base}/{_escape(str(k))}", extended)


def stated(tree: Tree, documents: dict[str, Any], at: dict[str, Any], files: list[str]) -> Iterable[tuple[dict[str, str], str, str, Any]]:
    """
    Yield `(bindings, file, pointer, value)` for every value the bundle states at the templated location `at`.

    The inverse of `locate`: each `{dim}` (or `{dim.index}`) placeholder is
    bound from what the bundle actually holds (file names among `files` when
    the file is templated, object members, array indexes, the members a
    `where` compares), so a stated value nothing derives is still found.
    Null and non-scalar values are not stated values. Files that are blocked
    or unreadable (`documents`: what `parse_claim_files` parsed) are skipped (the caller reports them).
    """
    file_names = _PLACEHOLDER.findall(at["file"])
    if file_names:
        pattern = _template(at["file"], ".+")
        targets = [(b, rel) for rel in files if (b := _bind(pattern, rel, file_names, {})) is not None]
    else:
        targets = [({}, at["file"])]  # when it is absent, `_document` raises `OSError` below, which skips it
    for bound, rel in targets:
        if rel in tree.blocked:
            continue
        try:
            document = _document(documents, rel)
        except (OSError, JSONProblem):
            continue
        found_here = _stated_in(document, at, rel, bound, tree._cache)  # noqa: SLF001 - the tree's per-run cache
        if "member" in at:
            name = at["member"]
            for b1, rel_, pointer, value in found_here:
                try:
                    member = member_of(value, name)
                except LookupError:  # KeyError included: the string states no such member, so nothing is stated here
                    continue
                yield b1, rel_, f"{pointer}#{name}", member
        elif "number" in at:
            for b1, rel_, pointer, value in found_here:
                try:
                    number = number_of(value, at["number"])
                except LookupError:  # the string states no such number: nothing is stated here
                    continue
                yield b1, rel_, f"{pointer}#numbers/{at['number']}", number
        else:
            yield from found_here


def _stated_in(document: Any, at: dict[str, Any], rel: str, bound: dict[str, str], cache: dict[Any, Any]) -> list[tuple[dict[str, str], str, str, Any]]:
    """
    Return the scalar values `stated` finds in one parsed file.

    With `where`, the matching elements are found once per file and location,
    and the values at `then` inside them once per file, location and `then`
    (`cache`, the tree's per-run cache): every claim there (the members of
    one cell, a table's JSON, CSV and Markdown copies) shares them.
    """
    if "where" not in at:
        return [(b1, rel, pointer, node) for b1, pointer, node in _walk(document, at["pointer"], "", bound)
                if node is not None and not isinstance(node, (dict, list))]
    where = ("stated-where", rel, at["pointer"], tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in at["where"].items()),
             tuple(at.get("fold_case", ())), tuple(sorted(bound.items())), repr(sorted(at.get("where_not", {}).items())))
    key = (*where, at.get("then", ""))
    if key not in cache:
        if where not in cache:
            cache[where] = list(_where_matches(document, at, bound))
        cache[key] = [(b3, rel, then, value) for b2, element_pointer, element in cache[where]
                      for b3, then, value in _walk(element, at.get("then", ""), element_pointer, b2)
                      if value is not None and not isinstance(value, (dict, list))]
    return cache[key]  # type: ignore[no-any-return]


def _where_matches(document: Any, at: dict[str, Any], bound: dict[str, str]) -> Iterable[tuple[dict[str, str], str, Any]]:
    """
    Yield `(bindings, element_pointer, element)` for every element at `at.pointer` whose `where` members bind the templates (`fold_case` members casefolded).

    A member given a list of literal alternatives matches when its text is one of them.
    """
    fold = at.get("fold_case", ())
    tests = [(member, member in fold, *((None, frozenset(_folded(t) if member in fold else t for t in template)) if isinstance(template, list)
                                        else (_template(template, ".+"), _PLACEHOLDER.findall(template))))
             for member, template in at["where"].items()]
    for b1, pointer, node in _walk(document, at["pointer"], "", bound):
        if not isinstance(node, (list, dict)):
            continue
        for i, element in _elements(node):
            if not isinstance(element, dict) or ("where_not" in at and excluded(element, at)):
                continue
            b2 = dict(b1)  # extended by every member in turn; dropped at the first that does not bind
            for member, folded, pattern, names in tests:
                text = dim_text(_member(element, member))
                if text is None:
                    break
                if folded:
                    text = text.casefold()
                if pattern is None:
                    if text not in names:  # a list of alternatives (`names` holds them)
                        break
                elif not _bind_into(pattern, text, names, b2):
                    break
            else:
                yield b2, f"{pointer}/{_escape(str(i))}", element
