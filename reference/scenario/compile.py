"""Compiling a scenario's program with the program plan compiler (05 §7.13).

``compile_scenario_plan(scenario, options)`` decodes the compile options document first (its shape
errors never depend on the scenario), then the scenario's family, catalog, policy and planning
registry, in that order, and runs ``ProgramPlanCompiler.compile``. The compiler makes its own node
resolutions and weight arenas and builds with the identity weight plan and no completion retention,
so the scenario's ``resolutions``, ``weights`` and ``completion_retention`` are not read (their
outer shape is still checked).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference.documents.compile_options import compile_options_from_document
from reference.documents.registry import RegistryDocument
from reference.plan.compiler import ProgramPlanCompilation, ProgramPlanCompiler
from reference.scenario.document import SCENARIO_CONTEXT, ScenarioDocument
from reference.scenario.sections import SCENARIO_CATALOGS, SCENARIO_FAMILIES, scenario_policy

__all__ = ["compile_scenario_plan"]


def compile_scenario_plan(scenario: Mapping[str, Any], options: Any) -> ProgramPlanCompilation:
    """Options, then scenario -> family -> catalog -> policy -> registry, then the compiler (first failure wins)."""
    compile_options = compile_options_from_document(options)
    doc = ScenarioDocument.from_wire(scenario)
    family = SCENARIO_FAMILIES(doc)
    catalog = SCENARIO_CATALOGS(doc)
    policy = scenario_policy(doc)
    document = RegistryDocument.from_wire(doc.registry, context=SCENARIO_CONTEXT, path="$.registry")
    registry, _ = document.build(catalog)
    return ProgramPlanCompiler.compile(family, catalog, policy, registry.planning(), compile_options)
