"""The plan-wire invariant cells: unique names, known rule ids, re-sealed wires the decoder refuses for the
cell's reason, and the edit operators."""

from __future__ import annotations

import json

import pytest

from conformance.rules import catalogue
from reference.api import revalidate
from reference.canonical import canonical_bytes, sha256_hex
from reference.errors import Serialization, VNextError
from reference.plan.decode import decode_untrusted
from strategies.forged_wire import SERIALIZATION
from strategies.wire_invariants import WIRE_CELLS, WireCell, forged_wire, wire_targets


def test_cell_names_are_unique_and_rules_are_catalogued() -> None:
    names = [cell.name for cell in WIRE_CELLS]
    assert len(names) == len(set(names))
    known = catalogue().by_id
    assert [cell.rule for cell in WIRE_CELLS if cell.rule not in known] == []


@pytest.mark.parametrize("cell", WIRE_CELLS, ids=lambda cell: cell.name)
def test_the_decoder_refuses_the_cell_for_its_reason(cell: WireCell) -> None:
    target, wire = forged_wire(cell)
    assert wire != target.wire
    if cell.kind == SERIALIZATION:
        with pytest.raises(Serialization) as caught:
            decode_untrusted(wire)
        assert cell.reason in caught.value.message
        assert caught.value.context == "decode untrusted execution plan"
    else:
        decode_untrusted(wire)  # only the rebuild comparison refuses it
        with pytest.raises(VNextError) as refused:
            revalidate(target.scenario, wire)
        assert (refused.value.kind, cell.reason in refused.value.message) == (cell.kind, True)
    if cell.reseal:
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
