"""``strategies.scenario_cells.catalog``: each cell is refused by the reference for its own reason, and the
attribute cells' provider rows carry the fingerprint of the operation they edit (so the refusal is the
attribute check, not the catalog's fingerprint check)."""

from __future__ import annotations

import pytest

from reference import api
from strategies.scenario_cells.catalog import CELLS
from strategies.scenario_cells.cell import ScenarioCell

from .helpers import assert_cell_refused


def test_cell_names_are_unique() -> None:
    names = [cell.name for cell in CELLS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("cell", CELLS, ids=lambda cell: cell.name)
def test_the_reference_refuses_each_cell_for_its_reason(cell: ScenarioCell) -> None:
    extra = ({}, 1) if cell.operation == "execute" else ()  # no program inputs and one replay, as the suite sends
    assert_cell_refused(cell, *extra)


def test_an_attribute_cell_without_its_bad_value_is_accepted() -> None:
    """The attribute cells differ from an accepted scenario only in the value they break."""
    cell = next(c for c in CELLS if c.name == "attribute_value_out_of_range")
    scenario = cell.scenario()
    scenario["family"]["document"]["program"]["blocks"][0]["nodes"][0]["attributes"] = {"attr.width": {"unsigned": 8}}
    api.build_plan(scenario)
