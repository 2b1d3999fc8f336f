"""Targeted scenario cells: one input per contract check that only a combination of valid parts reaches.

Each cell of ``strategies.scenario_cells`` is a base scenario edited so that exactly one check fails (an
attribute value against its schema, a binding against its operation contract, a formula against its
workspace, a registration against its family, ...), sent to the operation that meets the check. The
reference's answer must be the kind the cell's rule names, with the fields the cell pins, and its message
must carry the cell's reason, so a cell that an earlier check would refuse fails instead of passing. The
backend's error must equal the reference's on the kind and every pinned field (``contract_errors.pinned``).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.suites.contract_errors import pinned
from harness.under_test import BackendUnderTest
from reference.api import VNextError
from strategies.scenario_cells import SCENARIO_CELLS, ScenarioCell


def _refusal(under: BackendUnderTest, cell: ScenarioCell, arguments: tuple[Any, ...]) -> VNextError | None:
    try:
        getattr(under, cell.operation)(*arguments)
    except VNextError as error:
        return error
    return None


@pytest.mark.parametrize(
    "cell",
    [
        pytest.param(cell, id=cell.name, marks=(pytest.mark.rules(cell.rule), pytest.mark.requires(cell.operation)))
        for cell in SCENARIO_CELLS
    ],
)
def test_scenario_cell(backend: BackendUnderTest, oracle: BackendUnderTest, cell: ScenarioCell) -> None:
    arguments = cell.arguments()
    reference = _refusal(oracle, cell, arguments)
    assert reference is not None, f"{cell.name}: the reference accepts the input; {cell.rule} refuses it"
    want = pinned(reference)
    assert want["kind"] == cell.kind, f"{cell.name}: the reference gives {want}, {cell.rule} says {cell.kind}"
    for name, value in cell.fields.items():
        assert want.get(name) == value, f"{cell.name}: the reference's {name} is {want.get(name)!r}, not {value!r}"
    assert cell.reason in reference.message, f"{cell.name}: the reference refuses for another reason: {reference}"
    answer = _refusal(backend, cell, arguments)
    assert answer is not None, f"{cell.name} ({cell.rule}): the backend accepts the input; the reference gives {want}"
    got = pinned(answer)
    assert got == want, f"{cell.name} ({cell.rule}): the backend gives {got}, the reference {want}"
