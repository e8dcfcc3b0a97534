"""
Schemas: every document a reader gives validates against the pinned schema that judges it. One body, `documents`.

Documents are parsed strictly (`verifier.formats.jsonio`: duplicate keys, NaN and
Infinity, non-UTF-8 are errors) and validated as JSON Schema Draft 2020-12 with
`format` asserted (`verifier.trust.assets.schema_validator`). Every error is
reported with its JSON Pointer (the first `MAX_ERRORS_PER_DOCUMENT` of a
document, in document order), not only the first.

What each reader gives: a bundle (format v1, or a foreign layout a
profile's `bundle` section maps onto it) its documents by kind, each with
its schema (a JSON or JSON Lines file that is not one of them has no
schema and FAILs; a mapped bundle also names the columns it could not map);
a receipt reader (`ctx.options["reader"]`) its document, or the files of
its receipt directory read strictly, and the producer version that chooses
the pinned schema judging them; a profile without a `bundle` section the
receipt sets it maps, each mapped field present (`verifier.checks.profile_receipts`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from verifier.checks import profile_receipts
from verifier.formats.bundle import Bundle
from verifier.schema.compiled_schema import checked_validator
from verifier.errors import Unverifiable
from verifier.formats.jsonio import JSONProblem, json_pointer, loads_strict, loads_strict_lines, schema_message
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check
from verifier.readers.native import DOCUMENT_READERS, DOCUMENT_VOUCHERS, LINE_READERS, schema_sha256
from verifier.trust.assets import schema_validator
from verifier.schema.validation import known_valid, note_valid

__all__ = ["documents"]

MAX_ERRORS_PER_DOCUMENT = 50


def _f(status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check="schema.documents", status=status, code=code, message=message, **kw)


@check("schema.documents", title="Every document validates against its pinned JSON Schema (2020-12, formats asserted)",
       roads={"receipt": ("The receipt names the producer version a pinned schema judges, and validates against it", ()),
              "profile": ("Receipt files exist and every mapped field is present", ())})
def documents(ctx: Context) -> Iterator[Finding]:
    """
    Validate every document the reader gives against the pinned schema that judges it.

    A bundle (`ctx.bundle.kinds`; `verifier.formats.bundle.DOCUMENTS` for format v1):
    PASS `valid` per document; FAIL `missing-document`, `schema-violation`
    (one per error, with pointer), `duplicate-key`, `non-finite-number`,
    `not-utf8`, `invalid-json`, `number-out-of-range`, `invalid-unicode`,
    `too-deep`, `unreadable-file`, `unknown-document`; UNVERIFIED when the
    file did not pass integrity, and `unmapped-field` per foreign column a
    mapped bundle's profile maps onto no receipt field (`bundle.unmapped`).
    Records unusable documents in `bundle.problems`. A receipt reader
    (`ctx.options["reader"]`): its version first (`_receipt`, `_directory`),
    then the same `valid` / `schema-violation` findings. A profile without a
    `bundle` section (`ctx.options["profile"]`): its receipt sets read onto
    the evidence model (`verifier.checks.profile_receipts.read`, its findings).
    """
    profile = ctx.options.get("profile")
    if profile is not None and "bundle" not in profile:
        yield from profile_receipts.read(ctx)
        return
    reader = ctx.options.get("reader")
    if reader is None:
        yield from _bundle(ctx)
        for name, what in getattr(ctx.bundle, "unmapped", ()):
            yield _f(Status.UNVERIFIED, "unmapped-field", f"{name}: {what} is not mapped onto any receipt field, so nothing checks it", path=name)
        return
    for given in (_directory(ctx, reader) if hasattr(reader, "FILES") else _receipt(ctx, reader)):
        if type(given) is Finding:
            yield given
            continue
        name, schema_name, value, lines = given
        schema = ctx.assets.schema(schema_name)
        validator = checked_validator(schema, schema_validator(schema))
        if lines:
            yield from _judged(name, schema_name, [e for i, line in enumerate(value) for e in _errors(validator, line, (i,))], lines=True)
        else:
            yield from _judged(name, schema_name, _errors(validator, value))


def _errors(validator: Any, value: Any, at: tuple[int, ...] = ()) -> list[tuple[str, Any]]:
    """Return `(pointer, jsonschema error)` of every error of `value` (at `at` in its document: a JSON Lines line's index)."""
    return [(json_pointer([*at, *error.absolute_path]), error) for error in validator.iter_errors(value)]


def _judged(name: str, schema_name: str, errors: list[tuple[str, Any]], lines: bool = False, cached: str | None = None) -> Iterator[Finding]:
    """Yield FAIL `schema-violation` per error (`_violations`) of document `name`, or one PASS `valid` against `schema_name`."""
    if errors:
        yield from _violations(name, errors, lines=lines)
    else:
        yield _f(Status.PASS, "valid", f"{name} is valid against {schema_name}.schema.json", path=name, cached=cached)


def _bundle(ctx: Context) -> Iterator[Finding]:
    """The documents of a bundle, each against its schema (see `documents`)."""
    bundle = ctx.bundle
    gate = ctx.gate or {}
    known = {name for name, *_ in bundle.kinds.values()}
    # retained attempts (manifest `role`) are JSON Lines receipts validated by `attempts.retained`
    known |= {e["path"] for e in (ctx.run.manifest or {}).get("files", []) if e.get("role")}
    for rel in sorted(bundle.verified.values()):
        if rel.lower().endswith((".json", ".jsonl")) and rel not in known:
            yield _f(Status.FAIL, "unknown-document",
                     f"{rel} is JSON but not a document of bundle format v1, so no schema checks it", path=rel)
    for kind, (name, schema_name, lines, required) in bundle.kinds.items():
        if kind == "quality" and "quality" in gate:
            required = True
        plan = bundle.modelled.get("plan")
        if kind == "plan_requests" and plan is not None:  # the shard is required exactly when the valid plan names it
            required = plan.requests_file == name
            if not required and bundle.has(kind):
                yield _f(Status.FAIL, "unknown-document", f"{name} is present but plan.json lists its requests itself "
                         f'(it does not say "requests": {{"file": "{name}"}}), so no check reads it', path=name)
                continue
        if not bundle.has(kind):
            if required:
                bundle.problems[kind] = "missing"
                there = os.path.lexists(bundle.root / name)  # a symlink or special file: in the folder, never read
                yield _f(Status.FAIL, "missing-document", f"{name} is required by bundle format v1 but "
                         + ("is not a regular file, so it is not read" if there else "absent"), path=name)
            continue
        if lines:
            yield from _lines(ctx, kind, name, schema_name)
            continue
        try:
            vouch = _voucher(ctx, kind, schema_name, name)
            value = bundle.raw_document(kind, vouch) if vouch is not None else bundle.raw_document(kind)
        except (Unverifiable, JSONProblem, OSError) as exc:
            yield _unreadable(bundle.problems, kind, name, exc)
            continue
        schema = ctx.assets.schema(schema_name)
        earlier = known_valid(ctx.options.get("cache"), schema, bundle.parsed_sha256.get(kind))
        if type(value) is _Vouched:  # read, judged valid and modelled by the reader's own reading (`DOCUMENT_VOUCHERS`)
            bundle.modelled[kind] = value.model
            if earlier is None:
                note_valid(ctx.options.get("cache"), schema, bundle.parsed_sha256.get(kind))
            yield from _judged(name, schema_name, [], cached="schema" if earlier else None)
            continue
        if earlier is not None:  # these very bytes were valid against this schema in a run of this code (docs/cache.md)
            _model(bundle, kind, name, value)
            yield from _judged(name, schema_name, [], cached="schema" if earlier else None)
            continue
        validator = checked_validator(schema, schema_validator(schema))  # the reference's errors, compiled speed on valid items
        errors = _errors(validator, value)
        if errors:
            bundle.problems[kind] = f"{len(errors)} schema error(s)"
            yield from _judged(name, schema_name, errors)
            continue
        note_valid(ctx.options.get("cache"), schema, bundle.parsed_sha256.get(kind))
        _model(bundle, kind, name, value)
        del value
        yield from _judged(name, schema_name, [])


class _Vouched(NamedTuple):
    """A document's model built by its reader's own reading of its bytes, which vouched the document is valid (`_voucher`)."""

    model: Any


def _voucher(ctx: Context, kind: str, schema_name: str, name: str) -> Callable[[bytes], _Vouched | None] | None:
    """
    Return the reading `Bundle.raw_document` first offers the bytes of document `kind` (file `name`), or None when its reader has none.

    The reading (`DOCUMENT_VOUCHERS`: the reader's types mirror one schema,
    by `schema_sha256`, and read a bundle format v1 file's bytes) is offered
    only by a native `Bundle` (a mapped bundle's documents are mapped from
    foreign files) and tried only when `schema_name` is that schema; it
    gives a `_Vouched` model only for a document valid against it (the
    schema's own validator judges what the types leave to it), else None:
    the document is then parsed and validated as before.
    """
    offered = DOCUMENT_VOUCHERS.get(kind)
    if offered is None or type(ctx.bundle) is not Bundle:
        return None
    digest, read = offered

    def vouch(data: bytes) -> _Vouched | None:
        try:
            schema = ctx.assets.schema(schema_name)
        except Exception:  # noqa: BLE001 - the schema is looked up again after the parse, which reports it as before
            return None
        if schema_sha256(schema) != digest:
            return None
        validator = checked_validator(schema, schema_validator(schema))
        model = read(data, lambda document: not _errors(validator, document), name)
        return None if model is None else _Vouched(model)
    return vouch


def _model(bundle: Any, kind: str, name: str, value: Any) -> None:
    """Model the valid parsed document `value` of `kind` (file `name`) if the reader has a builder for it (`DOCUMENT_READERS`), and drop its parsed form."""
    reader = DOCUMENT_READERS.get(kind)
    if reader is not None:
        bundle.modelled[kind] = reader(value, name)
        bundle.release(kind)


def _lines(ctx: Context, kind: str, name: str, schema_name: str) -> Iterator[Finding]:
    """
    Validate the JSON Lines document of `kind` as it is read, a batch of consecutive lines at a time (`Bundle.record_batches`), holding no batch after its own check.

    A line that is not strict JSON is a FAIL naming its line (pointer
    `/<line - 1>`), and reading goes on: every bad line and every schema
    error of the other lines is counted, the first `MAX_ERRORS_PER_DOCUMENT`
    (by pointer) reported. What refuses the whole file (a byte order mark,
    bytes that are not UTF-8) is one FAIL without a pointer.
    """
    bundle = ctx.bundle
    schema = ctx.assets.schema(schema_name)
    digest = bundle.digests.get(bundle.kinds[kind][0])
    earlier = known_valid(ctx.options.get("cache"), schema, None if digest is None else digest + ":lines")
    if earlier is not None:  # these very bytes were valid against this schema in a run of this code (docs/cache.md)
        yield from _judged(name, schema_name, [], cached="schema" if earlier else None)
        return
    validator = checked_validator(schema, schema_validator(schema))  # the reference's errors, compiled speed on valid items
    reader = LINE_READERS.get(kind)
    model = reader(name, bundle.modelled) if reader else None  # the model of the lines, built as they are validated: parsed once
    bad: list[tuple[str, JSONProblem]] = []
    errors: list[tuple[str, Any]] = []
    n_errors, number = 0, 0
    try:
        offered = model.vouch_for(schema) if model else None  # the reader's own pre-filter of valid lines, if any

        def vouch(first: int, texts: list[str]) -> bool:  # models the lines only while the document is usable
            return offered(first, texts, model is not None)  # type: ignore[misc]

        for batch in bundle.record_batches(kind, vouch=vouch if offered else None):  # consecutive lines
            if type(batch) is range:  # valid lines, modelled by the model's own reader (`ReceiptLines.vouch`)
                number = batch[-1]
                continue
            number = batch[-1][0]
            documents = [item for _number, item in batch if type(item) is not JSONProblem]
            if len(documents) < len(batch):
                for number, item in batch:
                    if type(item) is JSONProblem and len(bad) < MAX_ERRORS_PER_DOCUMENT:  # in line order: the first are kept
                        bad.append((f"/{number - 1}", item))
                model = None  # the document is unusable: nothing is modelled
            if not validator.all_valid(documents):
                for number, item in batch:
                    if type(item) is not JSONProblem:
                        for error in validator.iter_errors(item):
                            n_errors += 1
                            errors.append((json_pointer([number - 1, *error.absolute_path]), error))
                            model = None
                            if len(errors) > 10 * MAX_ERRORS_PER_DOCUMENT:  # only the first by pointer are reported: memory stays bounded, also within a line
                                errors = sorted(errors, key=_in_document_order)[:MAX_ERRORS_PER_DOCUMENT]
            if model is not None:
                model.extend(batch[0][0] - 1, documents)
    except (Unverifiable, JSONProblem, OSError) as exc:
        yield _unreadable(bundle.problems, kind, name, exc)
        return
    if bad:
        bundle.problems[kind] = str(bad[0][1])
        for ptr, problem in bad:
            yield _f(Status.FAIL, problem.code, f"{name}: {problem}", path=name, pointer=ptr)
    if not number:  # not one line
        n_errors, errors = 1, [("", None)]
    if errors:
        bundle.problems.setdefault(kind, f"{n_errors} schema error(s)")
        yield from _violations(name, errors, limit=MAX_ERRORS_PER_DOCUMENT - len(bad), lines=True)
    if bad or errors:
        return
    note_valid(ctx.options.get("cache"), schema, digest + ":lines" if digest else None)
    if model is not None:
        bundle.modelled[kind] = model.done()
    yield from _judged(name, schema_name, [])


def _unreadable(problems: dict[str, str], kind: str, name: str, exc: Exception) -> Finding:
    """
    Record in `problems` (a bundle's, by kind) why document `kind` (file `name`) cannot be used, and return its one finding.

    `Unverifiable` (not matched by integrity, changed since) is UNVERIFIED
    with its code; `JSONProblem` (not strict JSON as a whole: no line, a bad
    line is a finding of its own) FAIL with its code; `OSError` (unreadable
    evidence, e.g. mode 000: the bundle's fault, not the verifier's) FAIL
    `unreadable-file` naming the system's reason.
    """
    if isinstance(exc, Unverifiable):
        problems[kind] = str(exc)
        return _f(Status.UNVERIFIED, exc.code, str(exc), path=name)
    if isinstance(exc, JSONProblem):
        problems[kind] = str(exc)
        return _f(Status.FAIL, exc.code, f"{name}: {exc}", path=name)
    reason = getattr(exc, "strerror", None) or exc
    problems[kind] = f"cannot be read ({reason})"
    return _f(Status.FAIL, "unreadable-file", f"{name} cannot be read ({reason})", path=name)


def _in_document_order(error: tuple[str, Any]) -> tuple[tuple[int, int | str], ...]:
    """Sort key of `(pointer, error)`: the pointer's steps, an array index as a number (line 3's "/2" before line 11's "/10")."""
    return tuple((0, int(step)) if step.isdigit() else (1, step) for step in error[0].split("/")[1:])


def _violations(name: str, errors: list[tuple[str, Any]], limit: int = MAX_ERRORS_PER_DOCUMENT, lines: bool = False) -> Iterator[Finding]:
    """
    Yield a FAIL `schema-violation` for each of the first `limit` `(pointer, jsonschema error or None for "no records")` in document order.

    In JSON Lines (`lines`) a pointer's first step is the line's index, and
    the message also names the line, counted from 1 ("line 40 at /39/elapsed_s").
    """
    for ptr, error in sorted(errors, key=_in_document_order)[:limit]:
        message = schema_message(error) if error is not None else "no records"
        where = f" at {ptr}" if ptr else ""
        if lines and ptr:
            where = f" line {int(ptr.split('/')[1]) + 1}{where}"
        yield _f(Status.FAIL, "schema-violation", f"{name}{where}: {message}", path=name, pointer=ptr,
                 expected=None if error is None else _expected(error))


def _expected(error: Any) -> Any:
    if error.validator in ("format", "type", "const", "enum", "pattern", "required"):
        return {error.validator: error.validator_value}
    return error.validator


def _at(document: Any, pointer: str) -> Any:
    node = document
    for part in pointer.strip("/").split("/"):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _receipt(ctx: Context, reader: Any) -> Iterator[Finding | tuple[str, str, Any, bool]]:
    """
    The version of receipt reader `reader`'s document `ctx.options["document"]` (file `ctx.options["name"]`), then the document.

    Every `(pointer, value)` of `reader.VERSION` stated with that value and type (`True` is not 1; schema `<reader.KIND>`),
    or exactly one pinned schema of `reader.VERSIONS` matching by signature (`_by_signature`; profile and schema name to
    `ctx.run`); else UNVERIFIED `unknown-producer-version` (never FAIL, `docs/receipts.md`) and nothing more. Then PASS
    `producer-identified` (`ctx.run.producer`) and `(name, schema name, document, False)` to validate.
    """
    document, name = ctx.options["document"], ctx.options["name"]
    if hasattr(reader, "VERSIONS"):
        chosen = _by_signature(ctx.assets, reader.VERSIONS, set(document))
        if chosen is None:
            yield _f(Status.UNVERIFIED, "unknown-producer-version", f"{name}: {reader.FAMILY}, but its field set matches no known "
                     f"version ({', '.join(reader.VERSIONS)}); nothing in it is re-derived", path=name, observed=sorted(document))
            return
        schema_name, profile = chosen
        ctx.run.profile, ctx.run.schema = profile, schema_name
        producer, text = {"producer": profile["producer"], "version": profile["version"]}, profile["version"]
        observed: dict[str, Any] = {**producer, "profile": schema_name}
    else:
        stated = {ptr: _at(document, ptr) for ptr, _ in reader.VERSION}
        other = [(ptr, want) for ptr, want in reader.VERSION if not (type(stated[ptr]) is type(want) and stated[ptr] == want)]
        observed = {k: str(v) for k, v in stated.items()}
        if other:
            yield _f(Status.UNVERIFIED, "unknown-producer-version", f"{name}: {reader.FAMILY}, but "
                     + "; ".join(f"{ptr} is {stated[ptr]!r}, not {want!r}" for ptr, want in other)
                     + ": an unknown producer version, nothing in it is re-derived",
                     path=name, pointer=other[0][0], expected=dict(reader.VERSION), observed=observed)
            return
        schema_name, producer, text = reader.KIND, dict(reader.PRODUCER), reader.VERSION_TEXT
    ctx.run.producer = producer
    yield _f(Status.PASS, "producer-identified", f"{name}: producer {producer['producer']}; version: {text}", path=name, observed=observed)
    yield name, schema_name, document, False


def _directory(ctx: Context, reader: Any) -> Iterator[Finding | tuple[str, str, Any, bool]]:
    """
    The files of receipt directory `ctx.options["directory"]` of `reader`, its producer version, then each file to validate.

    Each file of `reader.FILES` read strictly (`.jsonl` as JSON Lines): FAIL `symlink` / `symlink-escape` for a link (never
    followed; its target inside or outside the directory), UNVERIFIED `unreadable-file`, FAIL with the strictness code (`_unreadable`),
    else PASS `read` (`reader.READ`, with `{name}`, `{size}` in bytes); bytes and parsed files in `ctx.run.raw`,
    `ctx.run.doc`. Then the members of `reader.MATCH[0]` the `match` of its pinned schema's `x-verify-profile`
    names must equal it (else UNVERIFIED `unknown-producer-version`; the profile to `ctx.run.profile`), PASS
    `producer-identified`, and `(name, schema name, parsed file, is JSON Lines)` per file of `reader.SCHEMAS`, in order.
    """
    root = ctx.options["directory"]
    raw: dict[str, bytes] = {}
    docs: dict[str, Any] = {}
    ctx.run.raw, ctx.run.doc = raw, docs
    for name in reader.FILES:
        path = root / name
        if path.is_symlink():  # never followed, named as `integrity.files` names a link in a bundle
            link = os.readlink(path)
            inside = (path.parent / link).resolve().is_relative_to(root.resolve())
            yield _f(Status.FAIL, "symlink" if inside else "symlink-escape",
                     f"{name} is a symlink to {link!r} ({'inside' if inside else 'outside'} the receipt directory); symlinks are never followed",
                     path=name)
            continue
        try:
            raw[name] = data = path.read_bytes()
        except OSError as exc:
            yield _f(Status.UNVERIFIED, "unreadable-file", f"{name}: cannot be read ({exc.strerror or exc})", path=name)
            continue
        try:
            docs[name] = loads_strict_lines(data) if name.endswith(".jsonl") else loads_strict(data)
        except JSONProblem as exc:
            yield _unreadable({}, name, name, exc)
            continue
        yield _f(Status.PASS, "read", reader.READ.format(name=name, size=len(data)), path=name)
    if len(docs) < len(reader.FILES):
        return
    name, words = reader.MATCH
    profile = dict(ctx.assets.schema(reader.SCHEMAS[name]).get("x-verify-profile", {}))
    match, document = profile["match"], docs[name]
    seen = {k: document.get(k) if isinstance(document, dict) else None for k in match}
    if seen != match:  # compared as Python values, as this reader always has (True equals 1; the schema then refuses it)
        yield _f(Status.UNVERIFIED, "unknown-producer-version",
                 f"{name}: {'/'.join(match)} {seen} is not a known {words} ({match}); nothing re-derived",
                 path=name, pointer=f"/{list(match)[-1]}", expected=match, observed=seen)
        return
    ctx.run.profile = profile
    ctx.run.producer = producer = {"producer": profile["producer"], "version": profile["version"]}
    yield _f(Status.PASS, "producer-identified", f"{name}: producer {producer['producer']}; version: {producer['version']}",
             path=name, observed=producer)
    for name, schema_name in reader.SCHEMAS.items():
        yield name, schema_name, docs[name], name.endswith(".jsonl")


def _by_signature(assets: Any, schema_names: Any, keys: set[str]) -> tuple[str, dict[str, Any]] | None:
    """
    Return `(schema_name, profile)` of the one pinned schema whose `x-verify-profile` `signature` (`{"keys_present": [...],
    "keys_absent": [...]}`) matches `keys`: every present key in `keys`, no absent one. None when zero or several match.
    """
    hits = []
    for name in schema_names:
        profile = dict(assets.schema(name).get("x-verify-profile", {}))
        sig = profile.get("signature", {})
        if set(sig.get("keys_present", ())) <= keys and not (set(sig.get("keys_absent", ())) & keys):
            hits.append((name, profile))
    return hits[0] if len(hits) == 1 else None
