"""``strategies.scenario_cells.weight_encodings``: every layout kind's valid tensor is accepted, and each cell,
that tensor with one fault, is refused by the reference for its own reason, at its rule's own site unless the
kind makes the check through a shared one."""

from __future__ import annotations

import pytest

from conformance.reach.attribution import error_rules
from conformance.rules import catalogue
from reference import api
from strategies.budget import base_scenario
from strategies.json_edits import apply_edits
from strategies.scenario_cells import SCENARIO_CELLS
from strategies.scenario_cells.cell import ScenarioCell
from strategies.scenario_cells.weight_encodings import ACCEPTED_LAYOUTS, CELLS, LAYOUTS

from .helpers import assert_cell_refused

#: Cells refused by a check the kind makes through a binding or a child it validates (a component's dimensions
#: or element type, an axis component's axis, a zero-fill group padding, a child's shape): the refusal comes from
#: that shared check's site, and the cell alone names the kind's rule.
_AT_SHARED_SITES = frozenset(
    {
        "quantized_packed_shape_transposed",
        "quantized_scales_shape",
        "quantized_scales_type",
        "quantized_zero_points_shape",
        "quantized_zero_points_type",
        "quantized_packed_zero_points_shape",
        "quantized_axis_indices_axis",
        "quantized_axis_indices_shape",
        "quantized_permutation_narrow_type",
        "quantized_permutation_axis",
        "quantized_codebook_shape",
        "quantized_codebook_type",
        "block_grid_scales_rounded_down",
        "block_grid_scales_type",
        "block_quantized_grid_undivided",
        "block_quantized_padding_not_minimal",
        "reshape_values_range_shape",
        "indexed_indices_shape",
        "indexed_values_tensor_shape",
        "indexed_source_shape_overflows",
    }
)


def test_the_cells_are_gathered_and_named_once() -> None:
    names = [cell.name for cell in CELLS]
    assert len(names) == len(set(names))
    assert {cell.name for cell in CELLS} <= {cell.name for cell in SCENARIO_CELLS}
    assert set(names) >= _AT_SHARED_SITES


@pytest.mark.parametrize("kind", sorted(LAYOUTS))
def test_each_kind_s_valid_tensor_is_accepted(kind: str) -> None:
    api.build_plan(apply_edits(base_scenario("plan_fixture"), LAYOUTS[kind]))


@pytest.mark.parametrize("name", sorted(ACCEPTED_LAYOUTS))
def test_each_accepted_layout_prepares_and_names_known_rules(name: str) -> None:
    edits, rules = ACCEPTED_LAYOUTS[name]
    api.prepare_family(apply_edits(base_scenario("plan_fixture"), edits))
    known = catalogue().by_id
    assert rules and all(rule in known and known[rule].reachable for rule in rules), rules


@pytest.mark.parametrize("cell", CELLS, ids=lambda c: c.name)
def test_the_reference_refuses_each_cell_for_its_reason(cell: ScenarioCell) -> None:
    raised = error_rules(assert_cell_refused(cell))
    assert "02.8.7/layout_errors_field" in raised
    if cell.name not in _AT_SHARED_SITES:
        assert cell.rule in raised, f"{cell.name}: raised at a site of {raised}, not of {cell.rule}"
