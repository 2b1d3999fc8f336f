"""Targeted scenario cells: family checks (see ``strategies.scenario_cells``)."""

from __future__ import annotations

from typing import Final

from strategies.scenario_cells.cell import ScenarioCell

CELLS: Final[tuple[ScenarioCell, ...]] = ()
