"""Broken runtimes are caught by the runtime-memory suite's checks; the reference passes them."""

from __future__ import annotations

import pytest

from conformance.suites.test_runtime_memory import REPLAYS, check_peak_within_budget, runtime_budget, runtime_problems
from reference.runtime.device import ReferenceDeviceRuntime
from reference.scenario.execute import RuntimeFactory, default_inputs, execute_scenario, oracle_outputs, scenario_plan

from .broken import (
    LeakyRuntime,
    NondeterministicRuntime,
    OverAllocatingRuntime,
    PlanObliviousRuntime,
    SlightlyOverAllocatingRuntime,
)
from .conftest import scenario_of

NAMES = ["plan_fixture_0", "sequential_scratch", "graph_state_chain"]


def _problems(name: str, factory: RuntimeFactory) -> list[str]:
    scenario = scenario_of(name)
    inputs = default_inputs(scenario_plan(scenario))
    result = execute_scenario(scenario, inputs, REPLAYS, runtime_factory=factory)
    return runtime_problems(result, runtime_budget(scenario), oracle_outputs(scenario, inputs))


@pytest.mark.parametrize("name", NAMES)
def test_the_reference_runtime_passes_every_check(name: str) -> None:
    assert _problems(name, ReferenceDeviceRuntime) == []


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("factory", "symptom"),
    [
        (OverAllocatingRuntime, "exceeds capacity - reserve"),
        (SlightlyOverAllocatingRuntime, "exceeds static + minimum runnable"),
        (LeakyRuntime, "still held after teardown"),
        (PlanObliviousRuntime, "still held after teardown"),
        (NondeterministicRuntime, "not bitwise identical"),
        (NondeterministicRuntime, "the oracle computes"),
    ],
)
def test_broken_runtimes_are_caught(name: str, factory: RuntimeFactory, symptom: str) -> None:
    problems = _problems(name, factory)
    assert any(symptom in p for p in problems), problems


def test_a_leak_also_grows_the_peak_with_replays() -> None:
    scenario = scenario_of("sequential_scratch")
    inputs = default_inputs(scenario_plan(scenario))
    one = execute_scenario(scenario, inputs, 1, runtime_factory=LeakyRuntime)
    many = execute_scenario(scenario, inputs, 8, runtime_factory=LeakyRuntime)
    assert many.ledger.peak_bytes > one.ledger.peak_bytes
    assert check_peak_within_budget(many, runtime_budget(scenario))
