"""
`verifier.readers.campaign`: the plan selection and the elapsed time every latency statistic reads (issue 40 made both cheaper per request).

`Campaign.planned` filters by each of `server`, `phase` and `arm` (the arm
through the plan's servers), keeps plan order and ignores other keys;
`elapsed` is the receipt's elapsed time in seconds whatever unit the reader
gave it.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from conftest import EXAMPLE

from verifier.readers.campaign import Campaign, elapsed
from verifier.model.evidence import Location, Quantity, Receipt, ReceiptTable
from verifier.formats.jsonio import loads_strict, loads_strict_lines
from verifier.readers.native import from_documents


@pytest.fixture(scope="module")
def campaign() -> Campaign:
    docs = {"plan": loads_strict((EXAMPLE / "plan.json").read_bytes()),
            "receipts": loads_strict_lines((EXAMPLE / "receipts.jsonl").read_bytes())}
    return Campaign.build(from_documents(docs, manifest=loads_strict((EXAMPLE / "manifest.json").read_bytes()), names={}))


def _reference(c: Campaign, selection: dict[str, str]) -> list[str]:
    """The rule, written out: a planned request matches when each of its server, phase and arm equals the selection's."""
    rows = [(r, {"server": r.server, "phase": r.phase, "arm": c.arm_of_server.get(r.server)}) for r in c.plan.requests]
    return [r.id for r, row in rows if all(row[k] == v for k, v in selection.items() if k in row)]


@pytest.mark.parametrize("selection", [{"arm": "baseline"}, {"arm": "candidate", "phase": "measured"}, {"phase": "warmup"},
                                       {"server": "A1"}, {"server": "B1", "arm": "baseline"}, {"arm": "nobody"},
                                       {"arm": "baseline", "outcome": "ok"}, {}])
def test_planned_selects_by_server_phase_and_arm_in_plan_order(campaign: Campaign, selection: dict[str, str]) -> None:
    requests = campaign.plan.requests
    got = [requests.id[k] for k in campaign.planned(selection)]
    assert got == _reference(campaign, selection)
    if selection.get("arm") in ("baseline", "candidate") and "server" not in selection:
        assert got and all(campaign.arm_of_server[requests.server[k]] == selection["arm"] for k in campaign.planned(selection))
        assert len(got) < len(campaign.plan.requests)


@pytest.mark.parametrize("value,unit,seconds", [("1500", "ms", "1.5"), ("2.50", "s", "2.50"), ("0.25", "min", "15.00")])
def test_elapsed_is_in_seconds_whatever_the_unit_read(value: str, unit: str, seconds: str) -> None:
    receipt = Receipt(dims={"request_id": "r"}, quantities={"elapsed": Quantity(Decimal(value), unit)}, location=Location("x", "/0"))
    got = elapsed(ReceiptTable.of([receipt]), 0)
    assert got == Decimal(seconds) and str(got) == seconds


def test_a_request_the_plan_lists_twice_is_selected_once() -> None:
    """plan.conformance FAILs the repeat (`plan-inconsistent`); a derivation still counts and uses that request's receipt once."""
    from verifier.readers.campaign import select

    plan = loads_strict((EXAMPLE / "plan.json").read_bytes())
    plan["requests"] = [*plan["requests"], plan["requests"][-1], plan["requests"][-1]]
    docs = {"plan": plan, "receipts": loads_strict_lines((EXAMPLE / "receipts.jsonl").read_bytes())}
    twice = Campaign.build(from_documents(docs, manifest=loads_strict((EXAMPLE / "manifest.json").read_bytes()), names={}))
    last = plan["requests"][-1]
    rows, missing = select(twice, {"server": last["server"]})
    ids = [twice.receipts.request_id[i] for i in rows] + missing
    assert ids.count(last["id"]) == 1 and len(ids) == len(set(ids))
    docs["receipts"] = [r for r in docs["receipts"] if r.get("request_id") != last["id"]]
    unreceipted = Campaign.build(from_documents(docs, manifest=loads_strict((EXAMPLE / "manifest.json").read_bytes()), names={}))
    assert select(unreceipted, {"server": last["server"]})[1] == [last["id"]]
