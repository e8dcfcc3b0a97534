"""
Recorded gate outcomes: a bundle that says a gate passed must say what it covered, and the verifier re-derives it.

`claims.json` may record `outcomes`: `{"gate": "quality" | "quality.<metric>", "passed": true|false,
"covers": "all" | [comparison ids]}`. Each is re-derived from the recorded quality scores against the
pinned gate's thresholds over exactly the comparisons it covers:

- PASS `outcome-rederived`: the re-derived outcome equals the recorded one;
- FAIL `outcome-contradicted`: it re-derives to the opposite (a recorded pass with a score past its threshold);
- FAIL `outcome-scope-unknown`: `covers` names a comparison the quality index does not hold;
- UNVERIFIED `outcome-scope-undeclared`: no `covers`, so what "passed" means is not stated (never PASS);
- UNVERIFIED `outcome-not-derivable`: a gate name nothing re-derives, or a covered score is missing.

Called by `claims.stated` (`verifier.checks.statements`); reads the run's evidence model (`readers.native.evidence_of`).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier.model.findings import Finding, Status
from verifier.readers.native import evidence_of

__all__ = ["outcomes"]

CHECK = "claims.stated"


def _f(status: Status, code: str, message: str, index: int, **kw: Any) -> Finding:
    return Finding(check=CHECK, status=status, code=code, message=message, path="claims.json", pointer=f"/outcomes/{index}", **kw)


def outcomes(ctx: Any) -> Iterator[Finding]:
    """Yield one finding per recorded outcome of `claims.json` (see the module docstring); nothing when none is recorded."""
    evidence = evidence_of(ctx)
    evidence.need("claims")
    recorded = evidence.outcomes
    if not recorded:
        return
    quality = (ctx.gate or {}).get("quality") or {}
    thresholds = quality.get("thresholds", {})
    comparisons = {c.id: c for c in evidence.quality} if evidence.usable("quality") else None
    for i, outcome in enumerate(recorded):
        name, passed = outcome.gate, outcome.passed
        said = f"outcome {name} passed={str(passed).lower()}"
        if outcome.covers is None:
            yield _f(Status.UNVERIFIED, "outcome-scope-undeclared",
                     f"{said} names no selection it covered (`covers`), so what it passed is not stated", i)
            continue
        metrics = list(quality.get("required_scores", thresholds)) if name == "quality" else \
            [name.split(".", 1)[1]] if name.startswith("quality.") and name.split(".", 1)[1] in thresholds else None
        if metrics is None or comparisons is None:
            why = f"no gate section {name!r} with thresholds" if metrics is None else "the quality index is unusable"
            yield _f(Status.UNVERIFIED, "outcome-not-derivable", f"{said}: nothing re-derives it ({why})", i)
            continue
        covers = list(comparisons) if outcome.covers == "all" else list(outcome.covers)
        unknown = [c for c in covers if c not in comparisons]
        if unknown:
            yield _f(Status.FAIL, "outcome-scope-unknown", f"{said} covers {', '.join(unknown)}, which quality-index.json does not hold", i,
                     observed=unknown)
            continue
        failing, missing = [], []
        for cid in covers:
            for metric in metrics:
                value = comparisons[cid].scores.get(metric)
                bound = thresholds.get(metric, {})
                if value is None:
                    missing.append(f"{cid}.{metric}")
                    continue
                if ("min" in bound and value < Decimal(str(bound["min"]))) or ("max" in bound and value > Decimal(str(bound["max"]))):
                    failing.append(f"{cid}.{metric}={value}")
        if missing:
            yield _f(Status.UNVERIFIED, "outcome-not-derivable", f"{said}: covered scores are missing ({', '.join(missing[:5])})", i)
            continue
        derived = not failing
        detail = {"gate": name, "covers": covers, "recorded": passed, "derived": derived, "failing": failing}
        scope = f"{len(covers)} comparison(s) x {', '.join(metrics)}"
        if derived == passed:
            yield _f(Status.PASS, "outcome-rederived", f"{said} re-derives over {scope}", i, expected=derived, observed=detail)
        else:
            yield _f(Status.FAIL, "outcome-contradicted",
                     f"{said}, but over {scope} it re-derives to passed={str(derived).lower()}"
                     + (f" ({', '.join(failing[:5])} past the gate's thresholds)" if failing else ""), i, expected=derived, observed=detail)
