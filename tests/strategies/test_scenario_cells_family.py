"""``strategies.scenario_cells.family``: each cell is refused by the reference for its own reason, and the
inputs the cells build around their one fault are otherwise accepted (a declared policy without an error
object, an optional extra component with a valid encoding, an unchanged specialized schema)."""

from __future__ import annotations

import json

import pytest

from reference import api
from reference.errors import VNextError
from strategies.budget import base_scenario
from strategies.scenario_cells import family
from strategies.scenario_cells.cell import ScenarioCell
from strategies.scenario_cells.encodings import quantized

from .helpers import assert_cell_refused

_PROTOCOL_ONLY = frozenset({"scenario_over_size_cap"})
"""Cells whose fault is in the scenario's JSON text, which only the protocol's decode reads."""


def test_cell_names_are_unique() -> None:
    names = [cell.name for cell in family.CELLS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("cell", [c for c in family.CELLS if c.name not in _PROTOCOL_ONLY], ids=lambda c: c.name)
def test_the_reference_refuses_each_cell_for_its_reason(cell: ScenarioCell) -> None:
    assert_cell_refused(cell)


def test_the_oversized_scenario_is_refused_by_its_decode() -> None:
    cell = next(c for c in family.CELLS if c.name == "scenario_over_size_cap")
    with pytest.raises(VNextError) as info:
        api.parse_scenario(json.dumps(cell.scenario()).encode("utf-8"))
    assert cell.reason in info.value.message


def test_the_cells_surroundings_are_accepted() -> None:
    declared = family._declared_policy(None)()
    api.build_plan(declared)
    extra = base_scenario("plan_fixture")
    extra["family"]["document"]["weight_schema"]["components"].append(family._component("packed_values", quantized()))
    api.build_plan(extra)
    api.build_plan(family._specialized(lambda schema: None)())
