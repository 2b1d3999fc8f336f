"""Shared builders for the runtime tests: seed plans and a fresh runtime with its plan authority."""

from __future__ import annotations

from functools import cache
from typing import Any

from reference.scenario.execute import ScenarioPlan, scenario_plan
from seeds.scenarios import plan_fixture_scenario


@cache
def built_plan_fixture() -> ScenarioPlan:
    return scenario_plan(plan_fixture_scenario(0))


def scenario_of(name: str) -> dict[str, Any]:
    from conformance.suites.test_runtime_memory import _scenarios

    return _scenarios()[name]


def pytest_configure(config: Any) -> None:
    """The runtime-memory suite module (imported for its check functions) uses the harness marker."""
    config.addinivalue_line("markers", "requires(*operations): the case needs these backend operations")
