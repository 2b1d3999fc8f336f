"""The plan-wire invariant cells: unique names, known rule ids, re-sealed wires the reference refuses for the
cell's reason (at decode when the cell breaks a decode-time invariant), and the edit operators."""

from __future__ import annotations

import json

import pytest

from conformance.rules import catalogue
from reference import api
from reference.canonical import canonical_bytes, sha256_hex
from reference.errors import Serialization, UnsupportedPlanSchema, VNextError
from reference.plan.decode import decode_untrusted
from strategies.json_edits import Edit
from strategies.wire_invariants import WIRE_CELLS, WireCell, forged_wire, wire_targets

DECODE_KINDS = ("serialization", "unsupported_plan_schema")


def test_cell_names_are_unique_and_rules_are_catalogued() -> None:
    names = [cell.name for cell in WIRE_CELLS]
    assert len(names) == len(set(names))
    known = catalogue().by_id
    assert [rule for cell in WIRE_CELLS for rule in cell.rules if rule not in known] == []


@pytest.mark.parametrize("cell", WIRE_CELLS, ids=lambda cell: cell.name)
def test_the_reference_refuses_the_cell_for_its_reason(cell: WireCell) -> None:
    target, wire = forged_wire(cell)
    base = wire_targets()[cell.target]
    assert wire != base.wire or target.scenario != base.scenario
    with pytest.raises(VNextError) as caught:
        api.revalidate(target.scenario, wire)
    assert caught.value.kind == cell.kind
    assert cell.reason in caught.value.message
    replayed = cell.against is not None or bool(cell.scenario_edits)
    if cell.kind in DECODE_KINDS and not replayed:
        with pytest.raises((Serialization, UnsupportedPlanSchema)) as decoded:
            decode_untrusted(wire)
        assert decoded.value.to_dict() == caught.value.to_dict()
    elif not replayed:
        decode_untrusted(wire)  # the decoder accepts it: only the rebuild comparison refuses it
    if isinstance(caught.value, Serialization) and not replayed:
        assert caught.value.context == "decode untrusted execution plan"
    if cell.reseal and not cell.raw:
        raw = json.loads(wire)
        payload = {k: v for k, v in raw["payload"].items() if k != "plan_id"}
        assert raw["plan_hash"] == sha256_hex(canonical_bytes(payload))
        assert raw["payload"]["plan_id"] == "plan/sha256/" + raw["plan_hash"]


def test_the_reusable_targets_carry_reusable_memory_and_a_checkpoint_capacity() -> None:
    for name in ("reusable_state_chain", "reusable_sequential"):
        memory = wire_targets()[name].raw()["payload"]["memory"]
        assert memory["reusable_execution"] is not None
        assert memory["checkpoint_capacity"] == {"maximum_retained_bytes": 4096}


def test_a_cell_needs_an_edit() -> None:
    with pytest.raises(ValueError, match="no edit"):
        WireCell("bad", "plan_fixture", (), "r", "x")
    assert WireCell("replay", "plan_fixture", (), "r", "x", against="rich_fixture").rules == ("r",)
    cell = WireCell("scenario", "plan_fixture", (), "r", "x", scenario_edits=(Edit(("name",), "set", "y"),))
    target, wire = forged_wire(cell)
    assert wire == wire_targets()["plan_fixture"].wire and target.scenario["name"] == "y"


def test_raw_bytes_are_written_after_sealing() -> None:
    cell = next(cell for cell in WIRE_CELLS if cell.name == "header_duplicate_payload")
    _, wire = forged_wire(cell)
    assert wire.count(b'"payload":') == 2
    raw = json.loads(wire)
    payload = {k: v for k, v in raw["payload"].items() if k != "plan_id"}
    assert raw["plan_hash"] == sha256_hex(canonical_bytes(payload))
