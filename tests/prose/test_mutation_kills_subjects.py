"""
Tests that kill mutants of `verifier/prose/subjects.py` (issue 42, cosmic-ray): the subject words of a stated number, pinned by example.

`read` is driven over sentences whose subject words sit at each boundary (a
selector followed by fillers, a key with `'s`, the noun's first two words,
two selectors, "in all" or "each" beside a named id); `triggers` and
`bind_subject` over a hand-made set of evidence values (requests, server and
all-request extremes, counts, a plan count and a derived mean that no subject
may pick, a request value in GB a time may not bind to).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from verifier.prose.binding import Evidence
from verifier.readers.claimtext import extract
from verifier.prose.subjects import bind_subject, read, triggers

REQUESTS = ("A1-m1", "A1-w1", "B1-m1", "B1-m2")
KEYS = {k: k for k in ("A1", "A2", "B1", "B2", "arm-a", "arm-b", *REQUESTS)} | {"baseline": "arm-a", "candidate": "arm-b"}
LEVELS = {"A1": "server", "A2": "server", "B1": "server", "B2": "server", "arm-a": "arm", "arm-b": "arm"} | {r: "request" for r in REQUESTS}


def _q(text: str):
    """The last number `text` states (its informational numbers left out)."""
    return [q for q in extract(text, "t.md") if not q.informational][-1]


def _read(text: str) -> tuple:
    s = read(_q(text), KEYS, LEVELS)
    return s.level, s.key, s.phase, s.selector, s.single, s.statistic, s.words


@pytest.mark.parametrize("text,subject", [
    # a key, its level, and a single request named by its id (`:103`-`:105`, `:133` `or -> and`, `== -> !=`)
    ("Request A1-m1 took 395.10 s.", ("request", "A1-m1", None, None, True, False, ("A1-m1",))),
    ("A1-m1 took 3 s.", ("request", "A1-m1", None, None, True, False, ("A1-m1",))),
    ("The fastest baseline request took 395.10 s.", ("arm", "arm-a", None, "min", True, False, ("baseline", "fastest"))),
    ("A2's last measured request took 419.44 s.", ("server", "A2", "measured", "last", True, False, ("A2", "measured", "last"))),
    ("B2's slowest warmup took 400 s.", ("server", "B2", "warmup", "max", True, False, ("B2", "warmup", "slowest"))),
    # "each server"/"every arm" and "in all" only when no id is named (`:107`, `:110` `and -> or`, `is -> is not`)
    ("Every arm handled 10 requests.", ("arm", None, None, "other", False, False, ("every arm", "every"))),
    ("B1, like every arm, took 3 s.", ("server", "B1", None, "other", False, False, ("B1", "every"))),
    ("All requests in all took 3 s.", ("all", None, None, None, False, False, ("in all",))),
    ("A1 took 3 s overall.", ("server", "A1", None, None, False, False, ("A1",))),
    # the phase: the noun's first two words decide (`:114` `[:2]` -> `[:1]`, `[:3]`), else the clause; both is neither
    ("The measured phase followed 3 HTTP warmups.", (None, None, "warmup", None, False, False, ("warmups",))),
    ("We ran 3 HTTP warmups measured by curl.", (None, None, "warmup", None, False, False, ("warmups",))),
    ("We ran 2 warmups and 3 measured requests.", (None, None, "measured", None, False, False, ("measured",))),
    ("The warmups and measured requests took 3 s.", (None, None, None, None, False, False, ())),
    ("The timed requests took 3 s.", (None, None, "measured", None, False, False, ("measured",))),
    # selectors: the first kind in `SELECTORS` order wins (`:131` `break -> continue`); of requests or of something else
    ("The first request was the fastest at 3 s.", (None, None, None, "min", True, False, ("fastest",))),
    ("3 s was the fastest.", (None, None, None, "min", False, False, ("fastest",))),
    ("The slowest server mean was 400 s.", (None, None, None, "other", False, True, ("slowest",))),
    # `_selects_requests`: five words after the selector are read (`:84` `[:5]`), fillers and ids (with 's) skipped (`:85`)
    ("It was the slowest of the a an server at 4 s.", (None, None, None, "other", False, False, ("slowest",))),
    ("It was the slowest of the a an in server at 4 s.", (None, None, None, "max", False, False, ("slowest",))),
    ("The fastest A1's request took 2 s.", ("server", "A1", None, "min", True, False, ("A1", "fastest"))),
    ("B1 took 400 s each.", ("server", "B1", None, "each", False, False, ("B1", "each"))),
    ("B1 took 3 s on each request.", ("server", "B1", None, "each", True, False, ("B1", "each"))),
    # one request meant: a singular request noun and a unit that is not a request count (`:132` `and -> or`, `not`, `in`)
    ("The request count of A1 was 5.", ("server", "A1", None, None, False, False, ("A1",))),
    ("A1 mean request took 3 s.", ("server", "A1", None, None, True, True, ("A1",))),
    # only the number's own clause after it counts (`_window` `:73` `[0] -> [-1]`)
    ("It took 3 s, the slowest of A1.", (None, None, None, None, False, False, ())),
    ("It took 3 s; the warmup was slow.", (None, None, None, None, False, False, ())),
])
def test_read_gives_the_subject_words_of_a_number(text, subject):
    assert _read(text) == subject


def test_a_subject_is_a_frozen_value_with_slots():
    """`Subject` `:47`: `frozen=True` (hashable, read-only) and `slots=True` (no per-instance dict), as its docstring's value type."""
    import dataclasses

    s = read(_q("Request A1-m1 took 3 s."), KEYS, LEVELS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.level = "arm"  # type: ignore[misc]
    assert hash(s) == hash(read(_q("Request A1-m1 took 3 s."), KEYS, LEVELS)) and not hasattr(s, "__dict__")


@pytest.mark.parametrize("text,narrows", [
    ("Request A1-m1 took 3 s.", True),  # a request
    ("The mean of request A1-m1 was 3 s.", True),  # a request, even with a statistic word
    ("The slowest server mean was 400 s.", True),  # a selector (of servers)
    ("The fastest run took 3 s; A1 was slow.", True),  # a selector
    ("A1 mean request took 3 s.", False),  # a single request with a statistic word: the gate's rules name it
    ("The first request took 3 s.", True),
    ("A1's warmups took 3 s.", True),  # the warmups of one server
    ("The baseline warmups took 3 s.", True),  # of one arm
    ("The warmups took 3 s in all.", False),
    ("The measured requests of A1 took 3 s.", False),  # the measured phase of a server is what the gate derives
    ("A1 took 3 s overall.", False),
    ("Server B2 handled 5 requests.", True),  # a count of one server, one arm
    ("The baseline handled 5 requests.", True),
    ("We ran 4 requests in all.", False),
    ("A1 ran 5 warmups.", True),
    ("We ran 5 warmups.", False),
    ("A1 used 5 GB.", False),  # neither a time nor a request count
    ("A1 served 5 frames.", False),
    ("A1 had 5 failures.", False),  # no unit, but no request noun (`:142` `and -> or`)
])
def test_triggers_only_for_subjects_narrower_than_the_gate_rules(text, narrows):
    """`triggers` `:147`-`:151`: each `or`/`and` (also one at a time), `==`, `in` and `not` of its conditions, its final `return False`."""
    q = _q(text)
    assert triggers(q, read(q, KEYS, LEVELS)) is narrows


def _request(rid: str, server: str, arm: str, seconds: int, phase: str) -> Evidence:
    return Evidence(f"request.{rid}.elapsed_s", Decimal(seconds), "s", "receipts", "", statistic="value",
                    keys=frozenset({rid, server, arm}), level="request", phase=phase)


EVIDENCE = [
    _request("A1-m1", "A1", "arm-a", 10, "measured"), _request("A1-w1", "A1", "arm-a", 20, "warmup"),
    _request("B1-m1", "B1", "arm-b", 5, "measured"), _request("B1-m2", "B1", "arm-b", 7, "measured"),
    Evidence("request.A1-m1.size", Decimal(5), "GB", "receipts", "", statistic="value", keys=frozenset({"A1-m1", "A1", "arm-a"}),
             level="request", phase="measured"),
    Evidence("server.B1.all.min_s", Decimal(5), "s", "receipts", "", statistic="min", keys=frozenset({"B1"}), level="server"),
    Evidence("server.B1.all.max_s", Decimal(7), "s", "receipts", "", statistic="max", keys=frozenset({"B1"}), level="server"),
    Evidence("all.all.min_s", Decimal(5), "s", "receipts", "", statistic="min", level="all"),
    Evidence("server.A1.all.count", Decimal(2), None, "receipts", "", statistic="count", keys=frozenset({"A1"}), level="server"),
    Evidence("server.A1.warmup.count", Decimal(1), None, "receipts", "", statistic="count", keys=frozenset({"A1"}), level="server",
             phase="warmup"),
    Evidence("arm.arm-a.all.count", Decimal(5), None, "receipts", "", statistic="count", keys=frozenset({"arm-a"}), level="arm"),
    Evidence("arm.arm-b.all.count", Decimal(5), None, "receipts", "", statistic="count", keys=frozenset({"arm-b"}), level="arm"),
    Evidence("count.requests", Decimal(4), None, "derived", "", statistic="count", level="all"),
    Evidence("plan.A1.count", Decimal(9), None, "plan", "", statistic="count", keys=frozenset({"A1"}), level="server"),
    Evidence("server_mean_s.B1", Decimal(6), "s", "derived", "", statistic="mean", keys=frozenset({"B1", "arm-b"}), level="server",
             phase="measured"),
]
HALF = Decimal("0.5")


@pytest.mark.parametrize("text,verdict,names,tolerance", [
    # one request by its id, whatever its phase, never for a count; a value in GB is no time (`:158`-`:159`, `:192`-`:193`)
    ("Request A1-m1 took 10 s.", "pass", ["request.A1-m1.elapsed_s"], HALF),
    ("Request A1-m1 took 12 s.", "fail", ["request.A1-m1.elapsed_s"], HALF),
    ("Request A1-m1 took 10000 ms.", "pass", ["request.A1-m1.elapsed_s"], HALF),  # converted into the stated unit (`:197`)
    ("The measured request A1-w1 took 20 s.", "pass", ["request.A1-w1.elapsed_s"], HALF),
    ("Request A1-m1 had 1 retries.", "unbound", [], None),
    # a statistic word is not a request selector (`:189` `and -> or`, `not`, `!= -> ==`)
    ("The slowest server mean was 400 s.", "unbound", [], None),
    ("A1 mean request took 3 s.", "unbound", [], None),
    # counts of a scope and phase, from receipts or derivations only, never the plan (`:166`, `:191` `in -> not in`)
    ("Server A1 handled 2 requests.", "pass", ["server.A1.all.count"], HALF),
    ("Server A1 handled 3 requests.", "fail", ["server.A1.all.count"], HALF),
    ("A1 ran 1 warmup.", "pass", ["server.A1.warmup.count"], HALF),
    ("We ran 4 requests in all.", "pass", ["count.requests"], HALF),
    ("Every arm handled 5 requests.", "pass", ["arm.arm-a.all.count", "arm.arm-b.all.count"], HALF),  # every id of the level (`:164`)
    ("The baseline handled 5 requests.", "pass", ["arm.arm-a.all.count"], HALF),
    # no selector: every request of the scope; several values leave it unbound (`:160`, `:168`, `:202`)
    ("A request of B1 took 5 s.", "unbound", ["request.B1-m1.elapsed_s", "request.B1-m2.elapsed_s"], HALF),
    # each: every request must hold, the ones that do not are named; a bound has no tolerance (`:169`-`:172`, `:199`-`:201`)
    ("Each request of B1 took 5 s.", "fail", ["request.B1-m2.elapsed_s"], HALF),
    ("B1 took at most 7 s on each request.", "pass", ["request.B1-m1.elapsed_s", "request.B1-m2.elapsed_s"], Decimal(0)),
    ("B1 took under 7 s on each request.", "fail", ["request.B1-m2.elapsed_s"], Decimal(0)),
    ("Each request in all took at least 5 s.", "pass", [f"request.{r}.elapsed_s" for r in REQUESTS], Decimal(0)),
    ("Each request in all took more than 5 s.", "fail", ["request.B1-m1.elapsed_s"], Decimal(0)),
    ("B1 took 400 s each.", "unbound", [], None),  # which statistic of each server is not said
    # a selector picks its statistic at the subject's level and phase (`:160`, `:173`)
    ("The fastest request of B1 took 5 s.", "pass", ["server.B1.all.min_s"], HALF),
    ("The slowest request of B1 took 5 s.", "fail", ["server.B1.all.max_s"], HALF),
    ("The fastest measured request of B1 took 5 s.", "unbound", [], None),
    ("The fastest request in all took 5 s.", "pass", ["all.all.min_s"], HALF),
])
def test_bind_subject_binds_only_what_the_subject_determines(text, verdict, names, tolerance):
    q = _q(text)
    found, chosen, tol = bind_subject(q, read(q, KEYS, LEVELS), EVIDENCE)
    assert (found, [e.name for e in chosen], tol) == (verdict, names, tolerance)


@pytest.mark.parametrize("text,selector,word", [
    # the selectors of a time come from `wording.EXTREME_WORDS` (issue 36): every word that names the least (greatest) time
    ("The lowest request took 3 s.", "min", "lowest"), ("The smallest A1 request took 3 s.", "min", "smallest"),
    ("The min request took 3 s.", "min", "min"), ("The shortest request took 3 s.", "min", "shortest"),
    ("The highest request took 3 s.", "max", "highest"), ("The largest request took 3 s.", "max", "largest"),
    ("The max request took 3 s.", "max", "max"), ("The peak request took 3 s.", "max", "peak"),
    ("The quickest request took 3 s.", "min", "quickest"), ("The closest request took 3 s.", None, None),
    # "best" and "worst" select nothing: they are as often ordinary words of a sentence about a mean
    ("The worst request took 3 s.", None, None), ("The best request took 3 s.", None, None),
    ("Our best estimate of the mean is 3 s.", None, None), ("Worst case, the baseline mean was 3 s.", None, None),
])
def test_every_word_naming_the_least_or_greatest_time_is_a_selector(text, selector, word):
    s = read(_q(text), KEYS, LEVELS)
    assert (s.selector, s.words[-1] if s.selector else None) == (selector, word)
