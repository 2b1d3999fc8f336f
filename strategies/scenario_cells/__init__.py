"""Targeted scenario cells: one input per contract check that no generated or mutated document reaches.

A single-path mutation of a valid document (``strategies.mutations``) meets the first check on its path;
the checks behind it need inputs valid one by one and wrong in combination (an attribute pair, a formula
against its workspace, a registration against its family, a binding against its operation) or shaped as
the decoder's later branches expect. Each cell (``cell.ScenarioCell``) builds one such input from a base
scenario, names the rule it breaks, the operation that meets it, the kind the rule names and a fragment of
the reference's message, so a cell an earlier check refuses fails instead of passing. The tables are per
contract sheet: catalog (03), family (01-02), its weight schema (02 §8), its plain layouts and its encoded
and indirect layouts (02 §8.7), resolution (04), plan (05).
"""

from __future__ import annotations

from typing import Final

from strategies.scenario_cells import (
    catalog,
    family,
    plan,
    resolution,
    weight_encodings,
    weight_layouts,
    weight_schema,
)
from strategies.scenario_cells.cell import OPERATIONS, ScenarioCell

__all__ = ["OPERATIONS", "SCENARIO_CELLS", "ScenarioCell"]

#: Every cell, by sheet.
SCENARIO_CELLS: Final[tuple[ScenarioCell, ...]] = (
    *family.CELLS,
    *weight_schema.CELLS,
    *weight_layouts.CELLS,
    *weight_encodings.CELLS,
    *catalog.CELLS,
    *resolution.CELLS,
    *plan.CELLS,
)
