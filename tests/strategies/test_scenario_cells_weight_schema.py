"""``strategies.scenario_cells.weight_schema``: each cell is refused by the reference for its own reason; a limit
pair's trees fall on either side of the budget pass; an order cell's faults, each alone, are refused with another
kind or field than the one the cell expects, so the cell's answer shows which check came first."""

from __future__ import annotations

from typing import Any

import pytest

from reference import api
from reference.errors import VNextError
from reference.model.layout_traversal import LayoutBudgetBreach, layout_budget_breach
from reference.model.weight_layout import decode_physical_layout
from strategies.budget import base_scenario
from strategies.json_edits import apply_edits
from strategies.scenario_cells import weight_schema
from strategies.scenario_cells.cell import ScenarioCell
from strategies.scenario_cells.encodings import dense, quantized

from .helpers import assert_cell_refused

CELLS = {cell.name: cell for cell in weight_schema.CELLS}


def _refusal(scenario: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(VNextError) as info:
        api.build_plan(scenario)
    error = info.value.to_dict()
    error.pop("reason", None)
    error.pop("message", None)
    return error


def test_cell_names_are_unique() -> None:
    assert len(CELLS) == len(weight_schema.CELLS)


@pytest.mark.parametrize("cell", weight_schema.CELLS, ids=lambda c: c.name)
def test_the_reference_refuses_each_cell_for_its_reason(cell: ScenarioCell) -> None:
    assert_cell_refused(cell)


@pytest.mark.parametrize(
    ("pair", "breach"),
    [
        ("layout_16_deep", LayoutBudgetBreach.DEPTH),
        ("composite_4096_nodes", LayoutBudgetBreach.NODES),
        ("expert_stack_2047", LayoutBudgetBreach.NODES),
    ],
)
def test_a_limit_pair_straddles_the_budget_pass(pair: str, breach: LayoutBudgetBreach) -> None:
    def layout(name: str) -> Any:
        raw = CELLS[name].scenario()["family"]["document"]["weight_schema"]["tensors"][0]["physical_layout"]
        return decode_physical_layout(raw, "test")

    assert layout_budget_breach(layout(f"{pair}_within_budget")) is None
    assert layout_budget_breach(layout(f"{pair}_over_budget")) is breach


#: Each order cell's faults, each applied alone to the plan fixture: a refusal other than the cell's.
_ALONE = {
    "component_shape_before_spec": (
        weight_schema._appended(weight_schema._component("packed_values", quantized(bits_per_weight=0))),
    ),
    "component_spec_before_abi": (
        weight_schema._appended(
            weight_schema._component("packed_values", quantized()),
            weight_schema._component("packed_values", quantized(bits_per_weight=3), name="extra2"),
        ),
    ),
    "component_dense_affine_before_bytes": (
        weight_schema._appended(weight_schema._component("values", dense("f32"), (2**63, 4))),
    ),
    "component_bytes_before_role": (weight_schema._appended(weight_schema._component("zero_points", dense("f32"))),),
    "component_checks_before_next_component": (
        weight_schema._appended(weight_schema._component("values", dense("f32"), (4, 0), name="zero")),
    ),
    "references_unknown_before_shape": ((weight_schema._REFERENCE_RETYPED,),),
    "references_required_before_shape": ((weight_schema._REFERENCE_RETYPED,),),
}


@pytest.mark.parametrize("name", sorted(_ALONE))
def test_an_order_cell_breaks_two_checks_with_different_answers(name: str) -> None:
    cell = CELLS[name]
    assert cell.rule.endswith(("component_checks_in_order", "refs_order"))
    expected = _refusal(cell.scenario())
    for edits in _ALONE[name]:
        alone = _refusal(apply_edits(base_scenario(cell.base), edits))
        assert alone != expected, f"{name}: the later fault alone answers like the cell"


def test_every_order_cell_is_checked_here() -> None:
    ordered = {cell.name for cell in weight_schema.CELLS if cell.rule in {"02.8.6/component_checks_in_order",
                                                                           "02.8.11/refs_order"}}  # fmt: skip
    assert ordered == set(_ALONE)
