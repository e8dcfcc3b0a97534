"""
Subjects: the words that say *what* a stated number is about, and the binding that follows only from them.

A sentence's subject words narrow a number to one derivation: the request,
server or arm it names ("request A1-m1", "Server B2", "the baseline"),
"in all", the phase ("warmup", "measured"), the selector ("first",
"last", "fastest", "slowest", "each") and whether a single request is
meant ("request took" against "requests"). `read(q, keys, request_ids)`
returns those facets as a `Subject`; `bind_subject(q, subject, evidence)`
compares the number with the values whose facets match them all
(`Evidence.level`, `keys`, `phase`, `statistic`).

A number binds only when its subject determines one derivation (or every
derivation it leaves gives the same value); when the subject leaves several
values, or none, it is UNVERIFIED `unbound-claim` with the candidates
listed, never FAIL: the text is not contradicted by a value it may not
mean. Conventions and the phrase table: `docs/claims.md`, "Subjects".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from verifier.engine import stats

from verifier.model import units
from verifier.readers.claimtext import Quantity
from verifier.prose.wording import TIME_EXTREMES, bound_holds, bound_of, keys_of

__all__ = ["SELECTORS", "Subject", "bind_subject", "read", "triggers"]

#: Selector words -> the statistic over the receipts they select (ordered: first match in the text wins per selector kind).
SELECTORS = (
    *TIME_EXTREMES,  # "fastest", "shortest", "minimum", ... / "slowest", "longest", "worst", ...: `wording.EXTREME_WORDS` of a time
    ("first", r"\b(?:first|earliest|initial|opening)\b"),
    ("last", r"\b(?:last|final|latest|closing)\b"),
    ("each", r"\b(?:each|every)\b"),
)
_WARMUP = re.compile(r"\bwarm[- ]?ups?\b")
_MEASURED = re.compile(r"\bmeasured\b|\btimed\b")
_IN_ALL = re.compile(r"\bin all\b|\bin total\b|\boverall\b|\ball (?:\d+ )?(?:the )?(?:requests|warm-?ups)\b|\bacross all\b|\bof all\b")
_SINGLE = re.compile(r"\b(?:request|warm-?up|run|call)\b(?!s)")
_STAT_WORDS = re.compile(r"\b(?:mean|means|averag\w*|avg|median|p\d{1,2}|sd|stdev|standard deviation|typical)\b")


@dataclass(frozen=True, slots=True)
class Subject:
    """
    Represents the subject words of one stated number.

    `level` is `request` (a request id named), `server`, `arm`, `all` ("in
    all") or None (nothing named); `key` the request, server or arm id;
    `phase` `warmup`, `measured` or None (both phases); `selector` `min`,
    `max`, `first`, `last`, `each`, `other` (a selector of servers or arms,
    "the slowest server": it selects no request) or None; `single` whether a single
    request is meant ("request took", not "requests"); `statistic` a
    statistic word it also names (`mean`, ...) or None; `words` the subject
    words found, for messages.
    """

    level: str | None
    key: str | None
    phase: str | None
    selector: str | None
    single: bool
    statistic: bool
    words: tuple[str, ...]


def _window(q: Quantity) -> str:
    """The words that belong to `q`: its table context, its clause before it (since the previous number) and its clause after it."""
    after = re.split(r"[,;:]| and | but ", q.after, maxsplit=1)[0]
    return f"{q.context} {q.before} {after}".lower()


_FILLER = frozenset("of the a an all in its their both".split()) | {"measured", "timed", "baseline", "candidate", "baseline's", "candidate's"}
_REQUEST_NOUN = re.compile(r"^(?:requests?|warm-?ups?|runs?|calls?|ones?|latenc(?:y|ies)|times?|durations?|took|was|were|is|at|of|with|in)$")  # "max latency": the time of a request


def _selects_requests(after: str, keys: dict[str, str]) -> bool:
    """Return whether the words after a selector name requests ("fastest baseline request", "last warmup"), not a server, arm or statistic."""
    ids = {k.lower() for k in keys}
    for word in re.findall(r"[a-z0-9][a-z0-9'-]*", after)[:5]:
        if word in _FILLER or word.removesuffix("'s") in ids:
            continue
        return bool(_REQUEST_NOUN.match(word))
    return True


def read(q: Quantity, keys: dict[str, str], levels: dict[str, str]) -> Subject:
    """
    Return the `Subject` of `q`.

    `keys` maps each name the evidence knows (arm and server ids,
    `baseline`/`candidate`, request ids) to the id it names; `levels` maps
    each such id to its level (`arm`, `server`, `request`). The id nearest
    before the number in its clause wins (a parenthesis right after it, its
    table row, then its own clause after it). Pure; never raises.
    """
    text = _window(q)
    found = keys_of(q, set(keys))
    key = keys[found[0]] if found else None
    level = levels.get(key) if key else None
    said: list[str] = [found[0]] if found else []
    each = re.search(r"\b(?:each|every)\s+(server|arm)\b", text)
    if level is None and each:
        level = each.group(1)
        said.append(each.group(0))
    if level is None and _IN_ALL.search(text):
        level = "all"
        said.append("in all")
    phase = None
    noun = " ".join(q.noun.lower().split()[:2])  # the noun right after the number decides first ("2 warmups and 3 measured requests")
    warm, measured = _WARMUP.search(noun), _MEASURED.search(noun)
    if not (warm or measured):
        warm, measured = _WARMUP.search(text), _MEASURED.search(text)
    if warm and not measured:
        phase = "warmup"
        said.append(warm.group(0))
    elif measured and not warm:
        phase = "measured"
        said.append("measured")
    selector = None
    for name, rx in SELECTORS:
        m = re.search(rx, text)
        if m:
            # "the slowest server", "the first arm": a selector of something other than requests selects no request
            selector = name if _selects_requests(text[m.end():], keys) else "other"
            said.append(m.group(0))
            break
    if selector in ("min", "max") and all(re.search(rx, text) for name, rx in SELECTORS if name in ("min", "max")):
        selector = "other"  # "min and max latency were 1 s and 4 s": which number is which is not read, so neither is chosen
    single = bool(_SINGLE.search(text)) and not q.unit in (None, "requests")
    return Subject(level, key, phase, selector, single or level == "request", bool(_STAT_WORDS.search(text)), tuple(said))


def _is_time(q: Quantity) -> bool:
    return bool(q.unit and units.known(q.unit) and units.parse(q.unit).dimension == "time")


def _is_request_count(q: Quantity) -> bool:
    noun = f"{q.unit or ''} {q.noun}".strip().lower()
    return q.unit in (None, "requests") and bool(re.match(r"^(?:[a-z-]+\s+)?(?:requests|warm-?ups|measured\s+requests)\b(?!\s+per)", noun))


def triggers(q: Quantity, s: Subject) -> bool:
    """Return whether the subject words of `q` narrow it beyond what the gate's rules name: a request, a selector, or a count of one server or arm."""
    if _is_time(q):
        return s.level == "request" or s.selector is not None or (s.single and not s.statistic) or (s.phase == "warmup" and s.level in ("server", "arm"))
    if _is_request_count(q):
        return s.level in ("server", "arm", "request")
    return False


def _matches(s: Subject, e: object, count: bool) -> bool:
    level = getattr(e, "level", None)
    phase = getattr(e, "phase", None) or "all"
    statistic = getattr(e, "statistic", None)
    if s.level == "request":  # one request named by its id: its phase is its own
        return level == "request" and s.key in getattr(e, "keys", frozenset()) and not count
    if (s.phase or "all") != phase and not (level == "request" and s.phase is None):
        return False
    keys = getattr(e, "keys", frozenset())
    want_level = s.level or "all"
    anyone = want_level == "all" or s.key is None  # "in all", or "each server": every id of the level
    if count:
        return statistic == "count" and (level or "all") == want_level and (anyone or s.key in keys)
    if s.selector is None:  # "a request of B1 took ...", "A1's warmups took ...": every value of the scope is a candidate
        return level == "request" and (anyone or s.key in keys)
    if s.selector == "each":
        if s.single or want_level == "all":  # "each request", "each measured request of A1"
            return level == "request" and (anyone or s.key in keys)
        return False  # "each server took 400 s": which statistic of each server is not said
    return statistic == s.selector and level == want_level and (anyone or s.key in keys)


def bind_subject(q: Quantity, s: Subject, evidence: list) -> tuple[str, list, Decimal | None]:  # type: ignore[type-arg]
    """
    Return `(verdict, candidates, tolerance)` for `q` under its subject `s`.

    `verdict` is `pass`, `fail` or `unbound`. `candidates` are the
    `Evidence` values the subject selects (compatible in unit); `each`
    selects every request of its scope, and the stated number must hold for
    all of them. A subject that also names a statistic word ("the slowest
    server mean") is not a request selector: `unbound`. Never raises for
    well-formed evidence; conversion errors propagate as `ArithmeticError`
    or `units.UnitError` (caught by `binding.bind`).
    """
    count = not _is_time(q)
    if s.statistic and not count and s.level != "request":
        return "unbound", [], None
    chosen = [e for e in evidence if getattr(e, "source", "") in ("derived", "receipts") and _matches(s, e, count)]
    if not count:
        chosen = [e for e in chosen if e.unit and units.known(e.unit) and units.parse(e.unit).dimension == "time"]
    if not chosen:
        return "unbound", [], None
    tol = stats.tolerance(q.value)
    values = [(e, units.parse(e.unit).convert(e.value, units.parse(q.unit)) if not count else e.value) for e in chosen]
    bound = bound_of(q)
    if bound is not None:
        ok = all(bound_holds(bound[0], bound[1], q.value, v) for _, v in values)
        return ("pass" if ok else "fail"), [e for e, v in values if not bound_holds(bound[0], bound[1], q.value, v)] or chosen, Decimal(0)
    if len({v for _, v in values}) > 1 and s.selector != "each":
        return "unbound", chosen, tol
    wrong = [e for e, v in values if not stats.compare(q.value, v, declared=tol).holds]
    return ("fail", wrong, tol) if wrong else ("pass", chosen, tol)
