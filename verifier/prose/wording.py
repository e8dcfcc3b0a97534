"""
Wording: what the words around a stated number say about it, as pure functions over `verifier.readers.claimtext.Quantity`.

Used by `verifier.prose.binding` to choose the value a number is compared with:
the statistic a sentence names (`mean`, `p95`, `sd`), the extreme (`lowest`),
the arm or server keys it is tied to, whether it is stated as a bound
("above 0.95", "at most 2 s"), a bare count of something the evidence does
not count ("4 crashes"), and "X s per request" read as a time. No evidence
is read here; conventions and sources are in `docs/claims.md`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal

from verifier.model import units
from verifier.readers.claimtext import Quantity

__all__ = ["DIFFERENCE_AFTER", "DIFFERENCE_BEFORE", "EXTREME_WORDS", "EXTREMES", "TIME_EXTREMES", "FOREIGN_WORDS", "extreme", "LATENCY_WORDS", "THRESHOLD", "bound_holds", "bound_of", "clause_after", "foreign_noun", "key_finder", "keys_of", "local",
           "per_request", "score_extreme", "statistic", "words"]

#: Words that tie a relative phrase to the latency arms of a bundle.
LATENCY_WORDS = frozenset("latency latencies e2e end-to-end time duration wall elapsed runtime response seconds "
                          "request requests inverse-latency faster slower speedup speed-up quicker headline mean".split())
#: Words that say a number is about something the bundle's latency pairs are not.
FOREIGN_WORDS = frozenset("memory hbm vram throughput bandwidth power energy cost size accuracy quality ssim lpips "
                          "cosine utilization utilisation bytes disk pilot tokens".split())
_STATISTICS = (("sd", r"\b(?:sd|stdev|std|standard deviation|stddev)\b"), ("p", r"\bp(\d{1,2}(?:\.\d+)?)\b"),
               ("median", r"\b(?:median|p50)\b"), ("mean", r"\b(?:mean|means|average|avg)\b"))
#: The one vocabulary of words naming an extreme of several values (issue 36), by what they name: `min` (`max`) the
#: smallest (largest) whatever is measured; `fast` (`slow`) the smallest (largest) time and the largest (smallest) rate,
#: so their extreme depends on the unit ("the slowest latency" is the longest, "the slowest throughput" the least);
#: `best` (`worst`) the better (worse) end: of a time and a rate the same ends as `fast` (`slow`), and of a recorded
#: score the end its metric's direction gives (the worst SSIM is its least, the worst LPIPS its greatest), either end
#: when that is not known; `near` ("closest") one end of a recorded score, never the one the direction gives: the
#: score closest to the reference is the best, the one closest to the gate (the review's "closest margins") the
#: worst. Every reading of an extreme is built from it: `extreme` (a time, a rate or another unit: `min`, `max`, `fast`,
#: `slow`; not "best"/"worst", as often ordinary words of a sentence about a mean: "our best estimate", "worst case"),
#: `score_extreme` (a recorded score, which has no unit: all but `fast`/`slow`, which name a clip or a run, not a
#: score) and `TIME_EXTREMES` (`verifier.prose.subjects`' selectors of request times: `min`, `max`, `fast`, `slow` only: "best" and
#: "worst" are as often ordinary words of a sentence about a mean, "our best estimate", "worst case", "the best server").
EXTREME_WORDS: dict[str, tuple[str, ...]] = {
    "min": ("min", "minimum", "lowest", "smallest", "shortest"),
    "max": ("max", "maximum", "highest", "largest", "longest", "peak"),
    "fast": ("fastest", "quickest"),
    "slow": ("slowest",),
    "best": ("best",),
    "worst": ("worst",),
    "near": ("closest",),
}


def _any_of(*kinds: str) -> str:
    """Return a regular expression matching any word of `EXTREME_WORDS` of these kinds, whole."""
    return r"\b(?:" + "|".join(w for kind in kinds for w in EXTREME_WORDS[kind]) + r")\b"


_LEAST, _MOST, _FAST, _SLOW = (_any_of(*kinds) for kinds in (("min",), ("max",), ("fast",), ("slow",)))
#: The words naming the smallest or the largest of values of any unit, with the statistic they name (first match wins).
EXTREMES = (("min", _LEAST), ("max", _MOST))
#: The words naming the better, the worse or either end of a recorded score (`score_extreme`).
_DIRECTED = _any_of("best", "worst", "near")
#: The words naming the smallest or the largest of several times (`extreme` of a time gives the same statistic).
TIME_EXTREMES = (("min", _any_of("min", "fast")), ("max", _any_of("max", "slow")))  # not "best"/"worst": "our best estimate of the mean"
#: The words and signs that quote a threshold; `>` after `-` or `=` is an arrow ("0.99 -> 1.0", "A => B"), not "greater than".
THRESHOLD = re.compile(r"\b(?:gate|gates|threshold|thresholds|limit|bar|floor|ceiling)\b|<=?|(?<![-=])>=?|≥|≤")


def words(text: str) -> set[str]:
    """Return the lower-cased words of `text` (letters, digits and inner hyphens)."""
    return set(re.findall(r"[a-z0-9][a-z0-9-]*", text.lower()))


def clause_after(q: Quantity) -> str:
    """Return the words after `q` up to the end of its clause (a comma, semicolon, colon, "and" or "but")."""
    return re.split(r"[,;:]| and | but ", q.after, maxsplit=1)[0]


def local(q: Quantity) -> str:
    """Return the words that belong to this number: its table context, the words since the previous number, and its own clause after it."""
    return f"{q.context} {q.before} {clause_after(q)}".lower()


def statistic(text: str) -> str | None:
    """Return the statistic `text` names first by precedence (`sd`, `pNN`, `median`, `mean`), or None."""
    for name, rx in _STATISTICS:
        m = re.search(rx, text)
        if m:
            return f"p{m.group(1)}" if name == "p" else name
    return None


def extreme(text: str, unit: str | None) -> tuple[str, frozenset[str]] | None:
    """
    Return `(word, statistics)` for the first extreme word of `text`, or None.

    The words are those of `EXTREME_WORDS`; `statistics` is `{"min"}` or
    `{"max"}`: "lowest", "shortest", "minimum" name the smallest value,
    "highest", "longest", "maximum", "peak" the largest. "fastest",
    "quickest" and "slowest" name the smallest and the
    largest of a time (`unit` of dimension time) and the reverse of a rate
    (`.../time`); with another or no unit they name either (`{"min", "max"}`).
    "best", "worst" and "closest" name no extreme here (`score_extreme` reads them).
    """
    hits = []
    for rx, named in ((_LEAST, {"min"}), (_MOST, {"max"}), (_FAST, None), (_SLOW, None)):
        m = re.search(rx, text)
        if m:
            hits.append((m.start(), m.group(0), rx, named))
    if not hits:
        return None
    _, word, rx, named = min(hits)
    if named is None:
        dimension = units.parse(unit).dimension if unit and units.known(unit) else ""
        fast = rx == _FAST
        named = ({"min"} if fast else {"max"}) if dimension == "time" else \
            ({"max"} if fast else {"min"}) if dimension.endswith("/time") else {"min", "max"}
    return word, frozenset(named)


def score_extreme(text: str, better: str | None) -> tuple[str, frozenset[str]] | None:
    """
    Return `(word, statistics)` for the extreme of a recorded score that `text` names, or None.

    A `min` word of `EXTREME_WORDS` anywhere in `text` names `{"min"}`, else
    a `max` word `{"max"}` (this precedence, not their places); else the
    first `best`, `worst` or `near` word names the better end `{better}`
    ("min" or "max": which end of the metric is better, from its gate), the
    other end, or (`near`, or `better` None) `{"min", "max"}`: one of the
    two, which one the words do not say.
    """
    for name, rx in EXTREMES:
        m = re.search(rx, text)
        if m:
            return m.group(0), frozenset({name})
    m = re.search(_DIRECTED, text)
    if not m:
        return None
    word = m.group(0)
    if better is None or word in EXTREME_WORDS["near"]:
        return word, frozenset({"min", "max"})
    return word, frozenset({better if word in EXTREME_WORDS["best"] else "max" if better == "min" else "min"})


#: A maximal run of word characters and hyphens: a key made only of those is named where a run equals it (`keys_of`).
_RUN = re.compile(r"[\w-]+")


def key_finder(keys: set[str]) -> Callable[[str], list[str]]:
    """
    Return a function giving the keys of `keys` named in a text, in the order they stand there (a key named twice, twice).

    A key is named where its text (case-insensitive) stands with no word
    character or hyphen right before or after it. Keys made only of word
    characters and hyphens (server and request ids) are looked up once per
    run of such characters, so the cost of a search does not grow with the
    number of keys (10^6 request ids); any other key is searched for. The
    keys are sorted into those two kinds once, here.
    """
    plain: dict[str, list[str]] = {}
    other = []
    for k in keys:
        if _RUN.fullmatch(k.lower()):
            plain.setdefault(k.lower(), []).append(k)
        else:
            other.append(k)

    def found(text: str) -> list[str]:
        low = text.lower()
        hits = [(m.start(), k) for m in _RUN.finditer(low) for k in plain.get(m.group(), ())]
        hits += [(m.start(), k) for k in other for m in re.finditer(rf"(?<![\w-]){re.escape(k.lower())}(?![\w-])", low)]
        return [k for _, k in sorted(hits)]
    return found


def keys_of(q: Quantity, keys: set[str]) -> list[str]:
    """
    Return the arm/server/request keys the wording ties to `q`: a parenthesis right after it, else its table row, else the words before it, else its clause.

    A key is named as `key_finder` finds it.
    """
    found = key_finder(keys)
    paren = re.match(r"^\s*\(([^)]*)\)", q.after)
    for text, last in ((paren.group(1) if paren else "", False), (q.context, False), (q.before, True), (clause_after(q), False)):
        hits = found(text)
        if hits:
            return [hits[-1] if last else hits[0]]
    return []


#: Words that may follow a bare number without naming what it counts ("3.77 overall", "2 of 4").
_NOT_NOUNS = frozenset("and or of in on at for to by with from than as per overall total each times fold faster slower "
                       "lower higher less more the a an is was were are be vs versus".split())


def foreign_noun(q: Quantity) -> str:
    """Return the noun a bare number counts ("4 crashes", "900 dollars") when it is a word, else ""; known count nouns are bound earlier."""
    m = re.match(r"\s*([a-z][a-z-]{2,})\b", q.noun.lower())
    return m.group(1) if m and m.group(1) not in _NOT_NOUNS else ""


#: "fell by 299.15 s", "saves 299 s": an absolute difference of a time pair (baseline - candidate).
DIFFERENCE_BEFORE = re.compile(r"\b(?:fell|fall\w*|drop\w*|reduc\w*|cut\w*|lower\w*|decreas\w*|shrank|shrunk|shav\w*|trim\w*|improv\w*)"
                                r"(?:\s+[\w-]+){0,3}?\s+by\s*(?:about\s+|around\s+|~)?$|\b(?:sav\w*|shav\w*)\s*(?:about\s+|around\s+|~)?$")
DIFFERENCE_AFTER = re.compile(r"^\s*(?:less|lower|shorter|faster|quicker|saved|fewer)\b")
#: Written right before a number: it is a bound, not a value ("above 0.95", "at least 0.97", "under 200 s").
_LOWER_BOUND = re.compile(r"\b(?:above|exceed\w*|more\s+than|greater\s+than|higher\s+than)\s*$|(?P<inclusive>\bat\s+least|\bno\s+less\s+than|\bnot\s+below|>=|\u2265)\s*$|(?<![-=])>\s*$")
_UPPER_BOUND = re.compile(r"\b(?:below|under|less\s+than|lower\s+than|fewer\s+than)\s*$|(?P<inclusive>\bat\s+most|\bno\s+more\s+than|\bnot\s+above|<=|\u2264)\s*$|<\s*$")


def bound_of(q: Quantity) -> tuple[str, bool] | None:
    """Return ("lower" | "upper", inclusive) when the words right before `q` state it as a bound ("above 0.95", "at most 2 s"), else None."""
    before = q.before.lower()
    for side, rx in (("lower", _LOWER_BOUND), ("upper", _UPPER_BOUND)):
        m = rx.search(before)
        if m:
            return side, bool(m.group("inclusive"))
    return None


def bound_holds(side: str, inclusive: bool, stated: Decimal, derived: Decimal) -> bool:
    """Return whether `derived` lies on the stated side of the bound `stated` (no tolerance: a bound is stated exactly)."""
    if side == "lower":
        return derived >= stated if inclusive else derived > stated
    return derived <= stated if inclusive else derived < stated


_PER_REQUEST = re.compile(r"^(?P<unit>.+?)\s*(?:/|\s+per\s+)(?:request|req|sample|call)s?$", re.IGNORECASE)


def per_request(q: Quantity) -> Quantity:
    """Read "299 s per request" as 299 s when it is a time: latency statistics are per request already (their unit is s, not s/request)."""
    m = _PER_REQUEST.match(q.unit or "")
    if not m or not units.known(m.group("unit")) or units.parse(m.group("unit")).dimension != "time":
        return q
    return replace(q, unit=m.group("unit"))
