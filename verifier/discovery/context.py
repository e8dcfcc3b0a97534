"""
The numbers a directory states, each with the context discovery matches derivations against.

`stated_numbers(sources, sets)` lists every number `verifier.readers.claimdocs.
stated_numbers` finds in a JSON, CSV, Markdown or HTML document (JSON
numbers, table cells, prose numbers), except raw data: the elements of a
numeric array of more than `MAX_ORDINAL_ARRAY` elements (a shorter one's
elements carry their `ordinal`), the members of a `lines` record set or of a `files` set
(except one JSON object per file: a per-run summary states its numbers,
unless the set holds more than `MAX_STATED_ROWS` files: then each file is
one record of the run's data, as a large row set's rows are),
the rows of CSV, JSON Lines or JSON-array files merged across files of one
name pattern, and the rows of a set of more than `MAX_STATED_ROWS` rows.
A number's context includes its own file's path: the directory names and
the file's stem are chunks a dimension value can be named by
(`summary/anyscale_70b.json` selects `name=anyscale_70b` of
`individual/*.json`); in a JSON document a number written as a string
(`"max": "151"`) is a value, never a name. Each `Stated` carries its
context: `labels` (the member names on its JSON Pointer, a table's column
and heading, a prose item's words: what the number is), `names` (the text
of the record it sits in and the object names on its path: which
selection it is) and `pairs` (its record's integer and text members, `name=value`).
Words of other languages count through the closed `VOCABULARY` (`tokens`),
and a count stated in words (`五次`) is `Stated.n`.
At most `MAX_STATED` numbers are listed (a bound of the search).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from verifier.model import units
from verifier.discovery.recordsets import RecordSet
from verifier.discovery.sources import Source
from verifier.formats.textnumbers import quantity
from verifier.readers.claimdocs import stated_numbers as claimdoc_numbers

__all__ = ["MAX_ORDINAL_ARRAY", "MAX_STATED", "MAX_STATED_ROWS", "Stated", "VOCABULARY", "stated_numbers", "tokens", "unit_of"]

MAX_STATED = 20000
MAX_STATED_ROWS = 200
#: The elements of a numeric array of at most this many elements are stated numbers (`baseline_ms: [0.0513, 0.0510]`, one per server), each with its ordinal; longer arrays are raw data.
MAX_ORDINAL_ARRAY = 8

#: The closed vocabulary of statistic, comparison and count words of other languages than English (Chinese, Japanese), as the English word `tokens` adds:
#: text in these scripts has no spaces, so a word is found as a substring.
VOCABULARY = {"平均": "mean", "均值": "mean", "中位数": "median", "中央値": "median", "最大": "max", "最小": "min", "标准差": "sd", "標準偏差": "sd",
              "总计": "sum", "合计": "sum", "合計": "sum", "总和": "sum", "次数": "count", "请求": "request", "リクエスト": "request",
              "减少": "reduction", "降低": "reduction", "削減": "reduction", "加速比": "speedup", "高速化": "speedup", "提升": "improvement",
              "首次": "first", "第一次": "first", "每": "each", "各": "each", "P99": "p99", "P95": "p95", "P90": "p90", "P50": "median"}
#: Numerals of that vocabulary, for a count stated in words (`五次` five times).
_NUMERALS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_COUNTED = re.compile(r"(\d+|[一两二三四五六七八九十])\s*(?:次|回|个|組|组)")
#: Words after a number that say it counts something (`5 次正式请求` five formal requests, `74 requests`).
COUNT_WORDS = ("次", "回", "个", "requests", "runs", "repeats", "iterations", "trials", "tasks")

_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z][a-z]{2,})")  # `meanResTime`, not `rougeL`
_CHUNK = re.compile(r"[\s,;:()\[\]{}|=\"'`]+")
_BYTES = {"mib": "MiB", "gib": "GiB", "kib": "KiB", "mb": "MB", "gb": "GB", "kb": "kB", "b": "B", "bytes": "B"}


def tokens(text: str) -> set[str]:
    """Return the lowercase words of `text`, split at every non-alphanumeric character and before a capitalised word of three or more letters after two lowercase ones (`meanResTime`: mean, res, time; `rougeL` stays one), and the English word of each `VOCABULARY` word it holds."""
    words = {t for t in _SPLIT.split(_CAMEL.sub(" ", text).lower()) if t}
    if not text.isascii():
        words.update(english for word, english in VOCABULARY.items() if word in text)
    return words


def counted(text: str) -> int | None:
    """Return the count a text states in words of `VOCABULARY` (`五次完整请求平均` -> 5), or None; one count only (several: None)."""
    if text.isascii():
        return None
    found = {int(m.group(1)) if m.group(1).isdigit() else _NUMERALS[m.group(1)] for m in _COUNTED.finditer(text)}
    return found.pop() if len(found) == 1 else None


@functools.lru_cache(maxsize=4096)
def unit_of(label: str) -> str | None:
    """Return the unit a member name or label ends with (`mean_ms` -> ms, `Peak GPU MiB` -> MiB, `Mean latency (ns)` -> ns), or None."""
    inner = units.unit_in_label(label)
    if inner != label and units.known(inner):
        return inner
    words = [w for w in re.split(r"[^A-Za-z%]+", label) if w]
    if len(words) < 2:
        return None  # a bare `min` or `s` names a statistic or nothing, not a unit
    last = words[-1]
    if last.lower() == "min" or words[-2].lower() == "per":
        return None  # `tokens_min` is a minimum, not minutes; `token_per_s` a rate, not seconds
    for cand in (last, _BYTES.get(last.lower(), "")):
        if cand and cand not in ("x",) and units.known(cand) and units.parse(cand).dimension in ("time", "bytes", "percent"):
            return cand
    if "%" in label or last.lower() in ("pct", "percent"):
        return "%"
    return None


@dataclass
class Stated:
    """
    One stated number: `rel` and `pointer` where, `text` as written, `value` (Decimal), `unit` (or None),
    `labels` and `names` (word sets), `chunks` (the record's whole texts, lowercase), `pairs` (`name=value` of integer and text members), `ordinal`, `versus`, `n` (below).
    """

    rel: str
    pointer: str
    text: str
    value: Decimal
    unit: str | None
    labels: set[str]
    names: set[str]
    chunks: set[str]
    pairs: set[str]
    label: str
    ordinal: tuple[int, int] | None = None  # (position from 1, length) of an element of a short numeric array
    versus: frozenset[str] = frozenset()  # the words after `vs` in its label: the other side of a comparison, not a selection
    n: int | None = None  # how many values its context says it is over (`五次...平均`: 5)


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _context(doc: Any, pointer: str) -> tuple[list[str], list[tuple[str, bool]], dict[str, Any] | None, str]:
    """Return `(keys on the path, (token, is-array-index) per step, the innermost object holding the number, prose text)`."""
    path = pointer.split("#", 1)[0]
    steps = [_unescape(t) for t in path.split("/")[1:]] if path else []
    node, keys, kinds, record, prose = doc, [], [], None, ""
    for tok in steps:
        if isinstance(node, dict):
            record = node
            keys.append(tok)
            kinds.append((tok, False))
            node = node.get(tok)
        elif isinstance(node, list):
            kinds.append((tok, True))
            try:
                node = node[int(tok)]
            except (ValueError, IndexError):
                break
        else:
            break
        if isinstance(node, dict) and "text" in node and "numbers" in node and isinstance(node.get("text"), str):
            prose = node["text"]
    return keys, kinds, record, prose


def _data_files(sets: list[RecordSet]) -> tuple[set[str], set[tuple[str, str]]]:
    """Return the files that are raw data (members of `lines` sets, of `files` sets other than one JSON object per file: rows of CSV, JSON Lines or JSON arrays merged across files) and the `(file, row pointer)` of large row sets."""
    files: set[str] = set()
    rows: set[tuple[str, str]] = set()
    for rs in sets:
        if rs.kind == "files" and not rs.rel and len(rs.records) > MAX_STATED_ROWS:
            files.update(r.rel for r in rs.records)  # more per-run objects than a summary holds rows: each file is a record, data
        elif rs.kind == "lines" or (rs.kind == "files" and not rs.rel):
            files.update(r.rel for r in rs.records if r.pointer or not r.rel.lower().endswith(".json"))  # rows merged across files are data
        elif rs.kind == "rows" and len(rs.records) > MAX_STATED_ROWS:
            rows.update((r.rel, r.pointer) for r in rs.records)
    return files, rows


def stated_numbers(sources: list[Source], sets: list[RecordSet]) -> tuple[list[Stated], int, int]:
    """
    Return `(stated numbers in file order, how many more were left out by MAX_STATED, how many were identifiers)` (see the module docstring).

    A number written inside a date, a clock reading, a version, a commit id, an
    issue reference, a word, or a text that begins with a no-value word
    (`2023-08-31`, `10:42`, `#123`, `N/A (OOM at 64)`) is an identifier, not a
    stated quantity: it is counted, not listed. The rules are every class of
    `verifier.readers.informational.CLASSES`, the claim text reader's
    (`claimtext.identifier_spans`), so discovery and a profile's `informational`
    section read a text's numbers alike.
    """
    from verifier.readers.informational import CLASSES, compile_patterns, informational_numbers

    identifiers = compile_patterns({"classes": sorted(CLASSES)})
    data, big_rows = _data_files(sets)
    big_files = {rel for rel, _ in big_rows}
    out: list[Stated] = []
    dropped = held = 0
    memo: dict[str, Any] = {}
    for src in sources:
        if src.kind != "document" or src.rel in data:
            continue
        page = isinstance(src.doc, dict) and "prose" in src.doc and "tables" in src.doc
        json_doc = src.rel.lower().endswith(".json")
        own_path = _path_names(src.rel)
        skip = frozenset({"#line", "#html", "headings", "literal"}) if page else frozenset()  # `literal`: a fenced code block shows text, states nothing
        found = list(claimdoc_numbers(src.doc, memo=memo, skip=skip))
        informational = informational_numbers(src.doc, [(p, v) for p, v in found if isinstance(v, str)], identifiers)
        for pointer, value in found:
            if isinstance(value, bool):
                continue
            if pointer in informational:
                held += 1
                continue
            q = quantity(value) if not isinstance(value, str) else quantity(value) or _embedded(value)
            if q is None:
                continue
            keys, kinds, record, prose = _context(src.doc, pointer)
            holder = record.get(keys[-1]) if isinstance(record, dict) and keys else None
            ordinal = None
            if kinds and kinds[-1][1] and isinstance(holder, list) and not isinstance(value, str):
                if len(holder) > MAX_ORDINAL_ARRAY or len(kinds) < 2 or kinds[-2][1]:
                    continue  # an element of a long numeric array: raw data
                ordinal = (int(kinds[-1][0]) + 1, len(holder))
            if src.rel in big_files and any((src.rel, "/" + "/".join(t for t, _ in kinds[:i])) in big_rows for i in range(1, len(kinds) + 1)):
                continue
            if len(out) >= MAX_STATED:
                dropped += 1
                continue
            last = keys[-1] if keys else ""
            heading = keys[1] if page and len(keys) > 1 and keys[0] == "tables" else ""
            label_text = " ".join(k for k in ([last, heading] if not prose else [prose]) if k)
            if "#numbers/" in pointer and isinstance(holder, str):  # `ROUGE1: 31.4286  mbxp_accuracy: 0.0`: the name before the number is its label
                m = re.search(r"([A-Za-z_][\w.]*)\s*[:=]\s*" + re.escape(str(value)), holder)
                label_text = f"{m.group(1)} {label_text}" if m else label_text
                after = re.search(re.escape(str(value)) + r"\s*(\S+)", holder)
                if after and after.group(1).startswith(COUNT_WORDS):  # `5 次正式请求`: the number counts (`每组 ... 5 次`: in each group)
                    each = tokens(holder[: after.start()]) & {"each", "per", "every"}
                    label_text = f"{label_text} count" + (" each" if each else "")
            unit = q[1] if q[1] else unit_of(last)
            rec = {k: v for k, v in (record or {}).items() if k != "#line"}
            texts = [v for v in rec.values() if isinstance(v, str) and not (json_doc and quantity(v) is not None)]  # JSON's "151" is a value, not a name
            short = [t for t in texts if len(t.split()) <= 3]
            if unit is None:
                for k, v in rec.items():
                    if k.lower() in ("unit", "units") and isinstance(v, str) and units.known(units.unit_in_label(v)):
                        unit = units.unit_in_label(v)
            labels = tokens(label_text) | set().union(*(tokens(t) for t in short)) if short else tokens(label_text)
            names = set().union(*(tokens(t) for t in texts)) if texts else set()
            names |= {t for k in keys for t in tokens(k)} | tokens(prose)
            chunks = {t.lower().strip() for t in texts} | {k.lower() for k, idx in kinds if not idx} | {c for c in _CHUNK.split(prose.lower()) if c}
            chunks |= own_path  # `summary/anyscale_70b.json` names the `name=anyscale_70b` of `individual/*.json`
            pairs = {f"{k}={v}" for k, v in rec.items() if (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, str) and len(v) <= 200)}
            versus = _versus(label_text)
            out.append(Stated(src.rel, pointer, str(value), q[0], unit, labels, names, chunks, pairs, label_text, ordinal, versus, counted(label_text)))
    return out, dropped, held


def _versus(label: str) -> frozenset[str]:
    """Return the words after `vs`/`versus`/`against` in a label (`speedup_vs_bf16` -> {bf16}): they name a comparison's other side."""
    words = [t for t in _SPLIT.split(label.lower()) if t]
    return frozenset(words[i + 1] for i, w in enumerate(words[:-1]) if w in ("vs", "versus", "against"))


def _path_names(rel: str) -> set[str]:
    """Return the lowercase directory names and file stem of `rel` (what the file's own path names: a number's context too)."""
    parts = rel.lower().split("/")
    return {*parts[:-1], parts[-1].split(".", 1)[0]} - {""}


def _embedded(text: str) -> tuple[Decimal, str | None] | None:
    """Return the `(number, unit)` of a number stated inside a longer string (`stated_numbers` gives it as its own text)."""
    from verifier.formats.textnumbers import numbers_in

    found = numbers_in(text)
    return (found[0][2], found[0][3]) if found else None
