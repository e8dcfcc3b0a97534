"""
Load-time checks of a profile's authoring: what can be decided without the evidence, refused before any is read.

`verifier.profiles.language.load_profile` calls `normalise` (after the schema) and
`lint` (with its other cross-checks). Each refusal is one `ConfigError`
line naming the profile file, the JSON Pointer of the offending place and
what to write instead (exit 2), never a run whose claims all come out FAIL
`claim-missing` with no hint that the profile is at fault:

- a location's `pointer` or `then` that is not a JSON Pointer (no leading
  "/": `summary/mean` for `/summary/mean`), and a `pointer` ending in
  `#numbers/N` as reports print a number inside a text (`"number": N`);
- a pointer into a flat record (a CSV row, a Markdown table row) or into a
  table of a claim document with more tokens than the row has: a "/" inside
  a column name or heading left unescaped (`/ms/req` for `/ms~1req`, RFC
  6901 section 3);
- a location `where` key that is a pointer of more than one token into a
  table's rows (a row is flat: a "/" inside the column name left
  unescaped); both kinds of `where` take a member name as written
  (`"Wall s"`, `"ms/req"`), a one-token JSON Pointer (`"/Wall s"`,
  `"/ms~1req"`) or a deeper pointer to a nested member (`"/meta/kind"`,
  JMH's `"/params/collectionSize"`): `normalise` writes each in the form its
  reader reads;
- a template with two placeholders side by side (`{arm}{server}`): where one
  value ends and the next begins is ambiguous by construction;
- `labels` or `absent` on a value, `divide_by`, `subtract` or `unit_from` on a dimension, a `unit_from.one_of` unit of another dimension than the value's `unit`, a `divide_by.parallel` that is no `unnest.parallel` array;
- `of` on a statistic of one selection (it applies to the two-arm
  comparisons `relative_reduction_pct`, `speedup`, `difference`, `ratio`,
  `relative_change_pct` only; elsewhere it would be silently ignored);
- a `selection` value holding a `{placeholder}` (selections are literal; the
  text would match no receipt), and a `baseline` or `candidate` `{dim}`, or a
  `bounds_at.file` placeholder, that is not a `per` dimension (it would name
  an arm, or a file, called "{dim}");
- a regex of the `informational` pattern set that RE2 does not compile (a
  backreference, a lookaround, a syntax error) or longer than 200 characters.
"""

from __future__ import annotations

import re
from typing import Any

from verifier.engine import stats

from verifier.model import units
from verifier.errors import ConfigError
from verifier.readers.pointers import PLACEHOLDER

__all__ = ["lint", "normalise"]

#: Encodings whose records are flat (column -> cell): a pointer into one has one token.
FLAT_ENCODINGS = ("csv", "markdown-table")
#: Claim documents read into a JSON-like shape whose `tables` rows are flat (`verifier.readers.markdown_doc`, `readers.html`), and CSV.
_TABLE_DOCUMENTS = (".md", ".markdown", ".html", ".htm", ".rst")


def _refuse(origin: str, pointer: str, message: str) -> ConfigError:
    """Return the one-line `ConfigError` of a broken profile (the form of `verifier.profiles.language._refuse`)."""
    return ConfigError(f"{origin}: invalid profile at {pointer}: {message}")


def _tokens(pointer: str) -> list[str]:
    """Return the raw (still escaped) tokens of a JSON Pointer that starts with "/" ("" has none)."""
    return pointer[1:].split("/") if pointer else []


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def locations(document: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Return `(profile pointer, location, its rule)` of every place the profile says a bundle states something."""
    found = [(f"/claims/{i}/{part}", c[part], c) for i, c in enumerate(document.get("claims", [])) for part in ("at", "minus") if part in c]
    gate = document.get("gate") or {}
    found += [(f"/gate/rules/{i}/recorded", r["recorded"], r) for i, r in enumerate(gate.get("rules", [])) if "recorded" in r]
    if "recorded" in gate:
        found.append(("/gate/recorded", gate["recorded"], {}))
    return found


def normalise(document: dict[str, Any], origin: str) -> None:
    """
    Write every `where` key of `document` in the form its reader reads, in place (idempotent).

    A receipt set's `where` keys become JSON Pointers (a member name `phase` -> `/phase`, `ms/req` -> `/ms~1req`); a
    location's one-token keys (and its `fold_case` names) become member names (`/Wall s` -> `Wall s`), and a deeper
    pointer stays one (`/params/n`: the nested member, `verifier.readers.sites`). A location key of more than one token
    into a table's rows is refused (`ConfigError`): a row is flat, so it is a "/" left unescaped.
    """
    for rid, spec in document.get("receipts", {}).items():
        if "where" in spec:
            spec["where"] = {(key if key.startswith("/") else "/" + _escape(key)): value for key, value in spec["where"].items()}
    for pointer, at, _rule in locations(document):
        if "where_not" in at:  # its keys as `where`'s: a member name, a one-token pointer read as the name, a deeper pointer kept
            at["where_not"] = {(_unescape(k[1:]) if k.startswith("/") and len(_tokens(k)) == 1 else k): v for k, v in at["where_not"].items()}
            if "where" not in at:
                raise _refuse(origin, f"{pointer}/where_not", "`where_not` leaves out elements a `where` chooses among: add the `where` "
                              "(e.g. {\"Endpoint\": \"{label}\"}) or remove `where_not`")
        if "where" not in at:
            continue
        named: dict[str, str] = {}
        for key in at["where"]:
            if key.startswith("/"):
                tokens = _tokens(key)
                if len(tokens) != 1 and _is_table(at):
                    raise _refuse(origin, f"{pointer}/where", f"key {key!r} is a pointer of {len(tokens)} tokens, but a table row is flat (column -> cell): "
                                  f"write the column's name ({'/'.join(_unescape(t) for t in tokens)!r}) or a one-token pointer ({'/' + '~1'.join(tokens)!r})")
                if len(tokens) == 1:
                    named[key] = _unescape(tokens[0])  # a deeper pointer stays one: the nested member it names is compared (`/params/n`)
        if named:
            at["where"] = {named.get(key, key): value for key, value in at["where"].items()}
            if "fold_case" in at:
                at["fold_case"] = [_unescape(m[1:]) if m.startswith("/") and len(_tokens(m)) == 1 else m for m in at["fold_case"]]


def lint(document: dict[str, Any], origin: str) -> None:
    """Raise `ConfigError` for the first authoring mistake of `document` the module docstring lists; return None when there is none."""
    _mapping_kinds(document, origin)
    _location_pointers(document, origin)
    _flat_records(document, origin)
    _ambiguous(document, origin)
    _literal_selections(document, origin)
    _informational(document, origin)
    _members_that_apply(document, origin)


def _informational(document: dict[str, Any], origin: str) -> None:
    """Refuse a regex of the `informational` pattern set that RE2 does not compile, or one too long (`verifier.readers.informational.compile_patterns`)."""
    from verifier.readers.informational import compile_patterns

    try:
        compile_patterns(document.get("informational"))
    except ValueError as exc:
        pointer, message = exc.args[0]
        raise _refuse(origin, pointer, message) from None


#: The statistics that compare two selections (the baseline and candidate arms): the only ones `of` applies to.
TWO_SELECTIONS = stats.TWO_ARM_STATISTICS


def _members_that_apply(document: dict[str, Any], origin: str) -> None:
    """Refuse `of` on a statistic of one selection: it names what each arm's statistic is, and would be ignored (never silently)."""
    rules = [(f"/claims/{i}", c) for i, c in enumerate(document.get("claims", []))]
    rules += [(f"/gate/rules/{i}", r) for i, r in enumerate((document.get("gate") or {}).get("rules", []))]
    for where, rule in rules:
        if "of" in rule and rule["statistic"] not in TWO_SELECTIONS:
            raise _refuse(origin, f"{where}/of", f"`of` names the statistic each arm is compared by, for {', '.join(TWO_SELECTIONS)}; "
                          f"{rule['statistic']} derives over one selection, so `of` would be ignored: remove it, or write "
                          f"\"statistic\": \"{rule['of'].get('statistic', 'median')}\" for the statistic itself")


def _mapping_kinds(document: dict[str, Any], origin: str) -> None:
    """Refuse `labels` on a value (they name dimension values) and `divide_by` or `subtract` on a dimension (they compute a number)."""
    for rid, spec in document.get("receipts", {}).items():
        for section, mappings in (("fields", spec["fields"]), ("dimensions", spec.get("dimensions", {})), ("values", spec.get("values", {}))):
            for name, mapping in mappings.items():
                numeric = section == "values" or name in ("latency", "start", "end")
                if "labels" in mapping and numeric:
                    raise _refuse(origin, f"/receipts/{rid}/{section}/{name}/labels", "`labels` map texts onto dimension values; a number is read as written (map it under `dimensions`)")
                if "absent" in mapping and section == "values":
                    raise _refuse(origin, f"/receipts/{rid}/{section}/{name}/absent", "`absent` names the dimension value of a record not stating the member; a number that is absent is not zero (map it under `dimensions`)")
                for computed in ("divide_by", "subtract", "unit_from"):
                    if computed in mapping and section != "values":
                        raise _refuse(origin, f"/receipts/{rid}/{section}/{name}/{computed}", f"`{computed}` computes a per-record number: declare it under `values` (with the unit of the result)")
                for index, written in enumerate(mapping.get("unit_from", {}).get("one_of", [])):
                    if units.known(written) and units.known(mapping.get("unit", "")) and units.parse(written).dimension != units.parse(mapping["unit"]).dimension:
                        raise _refuse(origin, f"/receipts/{rid}/{section}/{name}/unit_from/one_of/{index}",
                                      f"{written!r} is not a unit of {mapping['unit']!r}'s dimension ({units.parse(mapping['unit']).dimension}): a record stating it could not be converted")
                parallel = mapping.get("divide_by", {}).get("parallel")
                if parallel is not None and parallel not in spec.get("unnest", {}).get("parallel", {}):
                    raise _refuse(origin, f"/receipts/{rid}/{section}/{name}/divide_by/parallel",
                                  f"{parallel!r} is not an array of this set's `unnest.parallel` (arrays: {sorted(spec.get('unnest', {}).get('parallel', {}))})")


def _location_pointers(document: dict[str, Any], origin: str) -> None:
    """Refuse a location `pointer`, `then` or `unit` that is not empty and does not start with "/", and a `then` into a flat table row with more than one token."""
    for pointer, at, _rule in locations(document):
        for part in ("pointer", "then", "unit"):
            text = at.get(part, "")
            if text and not text.startswith("/"):
                raise _refuse(origin, f"{pointer}/{part}", f"{text!r} is not a JSON Pointer: it must start with '/' (write {'/' + text!r}; '' is the whole document)")
        inner = re.search(r"#numbers/(\d+)$", at.get("pointer", ""))
        if inner:  # discovery's and coverage's way of printing the N-th number inside a text, pasted as it is
            raise _refuse(origin, f"{pointer}/pointer", f"{at['pointer']!r} ends in '#numbers/{inner[1]}' (the N-th number inside the text there): "
                          f"write \"pointer\": {at['pointer'][:inner.start()]!r}, \"number\": {inner[1]}")
        _table_location(origin, pointer, at)


def _is_table(at: dict[str, Any]) -> bool:
    """Return whether location `at` chooses among the rows of a table (a CSV claim document, or `/tables/...` of a Markdown, HTML or rst one): flat rows."""
    name = at["file"].lower()
    return name.endswith(".csv") or (name.endswith(_TABLE_DOCUMENTS) and (at["pointer"] + "/").startswith("/tables/"))


def _table_location(origin: str, pointer: str, at: dict[str, Any]) -> None:
    """Refuse a location into a table of a Markdown, HTML or CSV claim document that reaches past a row's cells (a "/" left unescaped)."""
    name = at["file"].lower()
    if name.endswith(".csv"):
        where_depth, row_depth = 0, 2  # a list of rows: "" with `where`, else /N/column
    elif name.endswith(_TABLE_DOCUMENTS) and (at["pointer"] + "/").startswith("/tables/"):
        where_depth, row_depth = 2, 4  # /tables/heading with `where`, else /tables/heading/N/column
    else:
        return
    tokens = _tokens(at["pointer"])
    if "where" in at:
        then = _tokens(at.get("then", ""))
        if len(tokens) > where_depth and where_depth:
            fixed = "/" + "/".join(tokens[:1] + ["~1".join(tokens[1:])])
            raise _refuse(origin, f"{pointer}/pointer", f"{at['pointer']!r} reaches past a table's heading: a '/' inside the heading is written '~1' (write {fixed!r})")
        if len(then) > 1:
            raise _refuse(origin, f"{pointer}/then", f"{at['then']!r} has {len(then)} tokens, but a table row is flat (column -> cell): a '/' inside a column name "
                          f"is written '~1' (write {'/' + '~1'.join(then)!r})")
        return
    if len(tokens) <= row_depth:
        return
    rows = [i for i, t in enumerate(tokens) if (t.isdigit() or _ROW.fullmatch(t)) and i >= row_depth - 2]  # the row: an index, or `{dim.index}`
    if len(rows) == 1:
        at_row = rows[0]
        fixed = tokens[:row_depth - 3] + (["~1".join(tokens[row_depth - 3:at_row])] if row_depth == 4 else []) + [tokens[at_row], "~1".join(tokens[at_row + 1:])]
        instead = f"write {'/' + '/'.join(fixed)!r}"
    else:
        instead = "write each '/' inside a heading or column name as '~1'"
    raise _refuse(origin, f"{pointer}/pointer", f"{at['pointer']!r} has {len(tokens)} tokens, but a table cell is reached in {row_depth}: {instead}")


def _flat_records(document: dict[str, Any], origin: str) -> None:
    """Refuse a pointer of more than one token into the records of a flat receipt set (CSV, Markdown table rows): an unescaped "/" in a column name."""
    for rid, spec in document.get("receipts", {}).items():
        if spec["encoding"] not in FLAT_ENCODINGS or "unnest" in spec:
            continue
        places = [(f"/receipts/{rid}/{section}/{name}/pointer", m["pointer"]) for section in ("fields", "values", "dimensions")
                  for name, m in spec.get(section, {}).items() if "pointer" in m]
        places += [(f"/receipts/{rid}/where", key) for key in spec.get("where", {})]
        for where, pointer in places:
            tokens = _tokens(pointer)
            if len(tokens) > 1:
                raise _refuse(origin, where, f"{pointer!r} has {len(tokens)} tokens, but a {spec['encoding']} record is flat (column -> cell): "
                              f"a '/' inside a column name is written '~1' (write {'/' + '~1'.join(tokens)!r})")


def _ambiguous(document: dict[str, Any], origin: str) -> None:
    """
    Refuse a template with two placeholders side by side (`{arm}{server}`): where one value ends and the next begins is ambiguous by construction.

    In a receipt set's `name` a placeholder its `name_patterns` gives a regex does not count: the regex says where it ends.
    """
    # a placeholder the set's `name_patterns` gives a regex is delimited by it (pyperf's `{dir}{suite}.json`, `dir` a run of whole directories)
    places = [(f"/receipts/{rid}/name", PLACEHOLDER.sub(lambda m, given=spec.get("name_patterns", {}): "(pattern)" if m.group(1) in given else m.group(0),
                                                        spec.get("name", ""))) for rid, spec in document.get("receipts", {}).items()]
    for pointer, at, _rule in locations(document):
        places += [(f"{pointer}/{part}", at.get(part, "")) for part in ("file", "pointer", "then")]
        places += [(f"{pointer}/where/{_escape(k)}", v) for k, v in at.get("where", {}).items() if isinstance(v, str)]
    places += [(f"/gate/rules/{i}/bounds_at/file", r["bounds_at"]["file"]) for i, r in enumerate((document.get("gate") or {}).get("rules", [])) if "bounds_at" in r]
    for pointer, text in places:
        if _ADJACENT.search(text):
            raise _refuse(origin, pointer, f"{text!r} has two placeholders side by side, so where one value ends and the next begins is ambiguous: "
                          "put the separator the files use between them ('{arm}-{server}')")


#: A row index written as a placeholder (`{server.index}`).
_ROW = re.compile(r"\{[A-Za-z0-9_.-]+\.index\}")
#: Two placeholders with nothing between them.
_ADJACENT = re.compile(r"\{[A-Za-z0-9_.-]+\}\{[A-Za-z0-9_.-]+\}")


def _literal_selections(document: dict[str, Any], origin: str) -> None:
    """Refuse a `{placeholder}` in a selection value, and a `baseline`/`candidate` `{dim}` that is not a `per` dimension."""
    rules = [(f"/claims/{i}", c) for i, c in enumerate(document.get("claims", []))]
    rules += [(f"/gate/rules/{i}", r) for i, r in enumerate((document.get("gate") or {}).get("rules", []))]
    for where, rule in rules:
        for dim, value in rule.get("selection", {}).items():
            for text in value if isinstance(value, list) else [value] if isinstance(value, str) else value.get("not", []):
                if PLACEHOLDER.search(text):
                    raise _refuse(origin, f"{where}/selection/{dim}", f"{text!r}: a selection value is literal text, matched as written (no receipt has it); "
                                  f"to derive once per {dim} value, put {dim!r} in `per`")
        if "bounds_at" in rule:
            foreign = [n for n in PLACEHOLDER.findall(rule["bounds_at"]["file"]) if n.removesuffix(".index") not in rule.get("per", [])]
            if foreign:
                raise _refuse(origin, f"{where}/bounds_at/file", f"placeholder {{{foreign[0]}}} is not one of the rule's `per` dimensions {rule.get('per', [])}: "
                              "each names the instance's value, so add it to `per` or write the text")
        for part in ("baseline", "candidate"):
            text = rule.get(part, "")
            names = PLACEHOLDER.findall(text)
            if names and (not (text.startswith("{") and text.endswith("}") and len(names) == 1) or names[0] not in rule.get("per", [])):
                raise _refuse(origin, f"{where}/{part}", f"{text!r}: an arm is named literally or by one whole `{{dim}}` of the rule's `per` {rule.get('per', [])}")
