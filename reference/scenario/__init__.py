"""Scenario documents: one JSON document that fully describes a planning case."""

from reference.scenario.document import SCENARIO_CONTEXT, SCENARIO_VERSION, ScenarioDocument

__all__ = ["SCENARIO_CONTEXT", "SCENARIO_VERSION", "ScenarioDocument"]
