"""The targeted scenario cell tables: well-formed, unique, each naming a rule a backend can break.

Whether each cell makes the reference refuse for its reason is the suite's own check
(``conformance/suites/test_scenario_cells.py``), run against the reference by the project's
conformance runs; here the tables themselves are checked.
"""

from __future__ import annotations

import pytest

from conformance.rules import catalogue
from reference.errors import ERROR_KINDS
from strategies.json_edits import Edit
from strategies.scenario_cells import (
    SCENARIO_CELLS,
    ScenarioCell,
    catalog,
    family,
    plan,
    resolution,
    weight_encodings,
    weight_layouts,
    weight_schema,
)


def test_every_table_is_gathered_once_and_names_are_unique() -> None:
    tables = (
        *family.CELLS,
        *weight_schema.CELLS,
        *weight_layouts.CELLS,
        *weight_encodings.CELLS,
        *catalog.CELLS,
        *resolution.CELLS,
        *plan.CELLS,
    )
    assert tables == SCENARIO_CELLS
    names = [cell.name for cell in SCENARIO_CELLS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.parametrize("cell", SCENARIO_CELLS, ids=[cell.name for cell in SCENARIO_CELLS])
def test_each_cell_names_an_observable_rule_and_a_contract_kind(cell: ScenarioCell) -> None:
    rules = catalogue().by_id
    assert cell.rule in rules, f"{cell.name}: unknown rule {cell.rule}"
    assert not rules[cell.rule].internal, f"{cell.name}: {cell.rule} is marked internal"
    assert cell.kind in ERROR_KINDS and cell.reason, cell.name
    first, second = cell.scenario(), cell.scenario()
    assert first == second and first is not second, f"{cell.name}: the scenario is not a fresh, fixed copy"


def test_malformed_cells_are_refused() -> None:
    edit = (Edit(("name",), "set", "x"),)
    with pytest.raises(ValueError, match="unknown operation"):
        ScenarioCell("c", "r", "serialization", "x", edits=edit, operation="nothing")
    with pytest.raises(ValueError, match="unknown base"):
        ScenarioCell("c", "r", "serialization", "x", base="nowhere", edits=edit)
    with pytest.raises(ValueError, match="not both or neither"):
        ScenarioCell("c", "r", "serialization", "x")
    with pytest.raises(ValueError, match="not both or neither"):
        ScenarioCell("c", "r", "serialization", "x", edits=edit, make=dict)
    with pytest.raises(ValueError, match="carry options"):
        ScenarioCell("c", "r", "serialization", "x", edits=edit, operation="compile_plan")
    with pytest.raises(ValueError, match="carry options"):
        ScenarioCell("c", "r", "serialization", "x", edits=edit, options={})


def test_arguments_follow_the_operation() -> None:
    edit = (Edit(("name",), "set", "x"),)
    built = ScenarioCell("c", "r", "serialization", "x", edits=edit)
    assert len(built.arguments()) == 1 and built.arguments()[0]["name"] == "x"
    compiled = ScenarioCell("c", "r", "serialization", "x", edits=edit, operation="compile_plan", options={"a": 1})
    assert compiled.arguments()[1] == {"a": 1}
