"""Plan-wire invariant matrix: one plan wire per invariant of its decoding or revalidation (01 §3.3, §3.6, §5;
05 §7, §9).

Each cell of ``strategies.wire_invariants`` edits the plan wire the reference built for a base scenario so
that exactly one invariant is broken (the strict JSON reader, the header and the plan schema, a memory-plan
row or total, a dynamic descriptor rule, a pool's bounds, slots or liveness evidence, the reusable execution
plan, a node field, the canonical round trip, the payload or hash against the semantic rebuild), re-seals it
with a correct ``plan_id`` and ``plan_hash`` unless the cell breaks those, and sends it to ``revalidate``
against the base scenario (or the trusted inputs the cell replays it against). The backend must refuse it
with the reference's error on the kind and every pinned field (``contract_errors.pinned``); the reference's
own answer must be the kind the cell names, and its message must carry the cell's reason, so a cell that an
earlier check would refuse fails instead of passing. A decode-stage refusal also pins the
``"decode untrusted execution plan"`` context (05 §1). A cell of kind
``invalid_execution_plan`` that is not replayed holds a value the decoder must derive exactly as the
reference does (the decoder accepts it, the rebuild comparison refuses it): a backend deriving another value
refuses it earlier.
"""

from __future__ import annotations

import pytest

from conformance.suites.contract_errors import error_of
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from reference.api import VNextError
from strategies.wire_invariants import WIRE_CELLS, WireCell, forged_wire

pytestmark = pytest.mark.requires("revalidate")

DECODE_CONTEXT = "decode untrusted execution plan"


def _reference_message(oracle: BackendUnderTest, cell: WireCell) -> str:
    target, wire = forged_wire(cell)
    try:
        oracle.revalidate(target.scenario, wire)
    except VNextError as error:
        return error.message
    raise AssertionError(f"{cell.name}: the reference accepts the forged wire")


@pytest.mark.parametrize(
    "cell", [pytest.param(cell, id=cell.name, marks=pytest.mark.rules(*cell.rules)) for cell in WIRE_CELLS]
)
def test_plan_wire_invariant_matrix(backend: BackendUnderTest, oracle: BackendUnderTest, cell: WireCell) -> None:
    target, wire = forged_wire(cell)
    want = error_of(lambda: oracle.revalidate(target.scenario, wire))
    assert want is not None, f"{cell.name}: the reference accepts the forged wire"
    assert want["kind"] == cell.kind, f"{cell.name}: the reference gives {want}, {cell.rule} says {cell.kind}"
    message = _reference_message(oracle, cell)
    assert cell.reason in message, f"{cell.name}: the reference refuses for another reason: {message}"
    if want.get("context") == DECODE_CONTEXT:
        exercise("05.1/decode_serialization_context")
    got = error_of(lambda: backend.revalidate(target.scenario, wire))
    assert got is not None, (
        f"{cell.name} ({cell.rule}): the backend accepts the forged wire; the reference gives {want}"
    )
    assert got == want, f"{cell.name} ({cell.rule}): the backend gives {got}, the reference {want}"
