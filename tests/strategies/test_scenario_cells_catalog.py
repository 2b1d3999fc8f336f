"""``strategies.scenario_cells.catalog``: each cell is refused by the reference for its own reason, and the
attribute cells' provider rows carry the fingerprint of the operation they edit (so the refusal is the
attribute check, not the catalog's fingerprint check)."""

from __future__ import annotations

import pytest

from reference import api
from reference.errors import VNextError
from strategies.scenario_cells.catalog import CELLS
from strategies.scenario_cells.cell import ScenarioCell


def test_cell_names_are_unique() -> None:
    names = [cell.name for cell in CELLS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("cell", CELLS, ids=lambda cell: cell.name)
def test_the_reference_refuses_each_cell_for_its_reason(cell: ScenarioCell) -> None:
    arguments = cell.arguments()
    if cell.operation == "execute":  # no program inputs and one replay, as the cell suite sends it
        arguments = (*arguments, {}, 1)
    with pytest.raises(VNextError) as info:
        getattr(api, cell.operation)(*arguments)
    assert info.value.kind == cell.kind
    assert cell.reason in info.value.message


def test_an_attribute_cell_without_its_bad_value_is_accepted() -> None:
    """The attribute cells differ from an accepted scenario only in the value they break."""
    cell = next(c for c in CELLS if c.name == "attribute_value_out_of_range")
    scenario = cell.scenario()
    scenario["family"]["document"]["program"]["blocks"][0]["nodes"][0]["attributes"] = {"attr.width": {"unsigned": 8}}
    api.build_plan(scenario)
