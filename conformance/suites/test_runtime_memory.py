"""Runtime memory-budget conformance (optional operation ``execute``; 03 §13, 05 §7).

For every accepted seed scenario (and every accepted ``build_plan`` scenario of
the corpus) the backend runs the plan on its device runtime and reports outputs,
its accounting ledger and one digest per replay. The checks below are pure
functions of that result (``tests/runtime`` runs them against broken runtimes):

* peak held bytes never exceed the plan's budget ``capacity - reserve`` nor the
  envelope of one minimal request ``static_bytes + minimum_runnable_request_bytes``,
  and no usage class peaks above the total;
* no allocation outside the plan is granted: exactly the ``OUT_OF_PLAN_PROBES``
  documented probes are refused, and nothing is still held after teardown;
* replays are bitwise identical, and the first digest is the digest of the outputs;
* outputs equal the reference (the oracle backend) and the value-level oracle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import pytest

from conformance.corpus import plan_scenarios
from conformance.suites.contract_errors import error_of
from harness.under_test import BackendUnderTest
from reference.api import (
    OUT_OF_PLAN_PROBES,
    ExecuteResult,
    VNextError,
    default_inputs,
    oracle_outputs,
    replay_digest,
    scenario_plan,
)
from seeds.scenarios import graph_scenario, paged_storage_scenario, plan_fixture_scenario, sequential_scratch_scenario

__all__ = [
    "REPLAYS",
    "RuntimeBudget",
    "check_no_allocation_outside_plan",
    "check_no_leak",
    "check_outputs_equal",
    "check_peak_within_budget",
    "check_replays_identical",
    "runtime_budget",
    "runtime_problems",
]

REPLAYS: Final = 3


@dataclass(frozen=True, slots=True)
class RuntimeBudget:
    """What the reference plan of a scenario allows one minimal request to hold."""

    usable_capacity_bytes: int
    one_request_envelope_bytes: int
    program_outputs: tuple[str, ...]


def runtime_budget(scenario: Mapping[str, Any]) -> RuntimeBudget:
    built = scenario_plan(scenario)
    memory = built.plan.memory
    return RuntimeBudget(
        memory.usable_capacity_bytes,
        memory.static_bytes + memory.minimum_runnable_request_bytes,
        tuple(v.value for v in built.family.program.outputs),
    )


def check_peak_within_budget(result: ExecuteResult, budget: RuntimeBudget) -> list[str]:
    ledger, problems = result.ledger, []
    if ledger.peak_bytes > budget.usable_capacity_bytes:
        problems.append(f"peak {ledger.peak_bytes} B exceeds capacity - reserve = {budget.usable_capacity_bytes} B")
    if ledger.peak_bytes > budget.one_request_envelope_bytes:
        problems.append(
            f"peak {ledger.peak_bytes} B exceeds static + minimum runnable = {budget.one_request_envelope_bytes} B"
        )
    problems += [
        f"usage `{u.value}` peaks at {v} B, above the total peak"
        for u, v in ledger.peak_bytes_by_usage.items()
        if v > ledger.peak_bytes
    ]
    return problems


def check_no_allocation_outside_plan(result: ExecuteResult) -> list[str]:
    refused = result.ledger.refused_allocations
    if refused != OUT_OF_PLAN_PROBES:
        return [f"{OUT_OF_PLAN_PROBES} out-of-plan probes must each be refused, {refused} refusals were counted"]
    return []


def check_no_leak(result: ExecuteResult) -> list[str]:
    held = result.ledger.final_resident_bytes
    return [f"{held} B are still held after teardown (a leaked buffer)"] if held else []


def check_replays_identical(result: ExecuteResult, budget: RuntimeBudget, replays: int) -> list[str]:
    digests, problems = result.replay_digests, []
    if len(digests) != replays:
        problems.append(f"{len(digests)} replay digests for {replays} replays")
    if len(set(digests)) > 1:
        problems.append(f"replays are not bitwise identical: {len(set(digests))} distinct digests")
    if set(result.outputs) != set(budget.program_outputs):
        problems.append(f"outputs {sorted(result.outputs)} are not the program outputs {list(budget.program_outputs)}")
    else:
        mine = replay_digest([(v, result.outputs[v]) for v in budget.program_outputs])
        if digests and digests[0] != mine:
            problems.append("the first replay digest is not the digest of the returned outputs")
    return problems


def check_outputs_equal(result: ExecuteResult, expected: Mapping[str, bytes]) -> list[str]:
    return [
        f"output `{k}` is {result.outputs.get(k, b'').hex()}, the oracle computes {v.hex()}"
        for k, v in sorted(expected.items())
        if result.outputs.get(k) != v
    ] + [f"unexpected output `{k}`" for k in sorted(set(result.outputs) - set(expected))]


def runtime_problems(
    result: ExecuteResult, budget: RuntimeBudget, expected: Mapping[str, bytes], replays: int = REPLAYS
) -> list[str]:
    """Every check at once (what the fault-injection tests assert on)."""
    return [
        *check_peak_within_budget(result, budget),
        *check_no_allocation_outside_plan(result),
        *check_no_leak(result),
        *check_replays_identical(result, budget, replays),
        *check_outputs_equal(result, expected),
    ]


# --------------------------------------------------------------------------- scenarios


def _seed_scenarios() -> dict[str, dict[str, Any]]:
    cases = {
        "plan_fixture_0": plan_fixture_scenario(0),
        "plan_fixture_1": plan_fixture_scenario(1),
        "sequential_scratch": sequential_scratch_scenario(),
        "paged_storage": paged_storage_scenario(),
        "graph_state_chain": graph_scenario("state_chain"),
        "graph_state_read_only": graph_scenario("state_read_only"),
    }
    for variant in ("must_alias_exact", "may_alias_exact", "may_alias_distinct"):
        cases[f"graph_alias_{variant}"] = graph_scenario("alias", variant)
    cases["plan_fixture_returns_its_input_and_weight"] = _returning_read_values(plan_fixture_scenario(0))
    return cases


def _returning_read_values(scenario: dict[str, Any]) -> dict[str, Any]:
    """``scenario`` whose program also returns its first input and its weight value: a program output may be an
    input, state or weight value (02 §10.3 step 7), read back from the storage the nodes read it from."""
    program = scenario["family"]["document"]["program"]
    program["outputs"] = [*program["outputs"], program["inputs"][0], "value.weight"]
    return scenario


def _accepted(scenario: Mapping[str, Any]) -> bool:
    try:
        scenario_plan(scenario)
    except VNextError:
        return False
    return True


@cache
def _scenarios() -> dict[str, dict[str, Any]]:
    cases = _seed_scenarios()
    for key, scenario in plan_scenarios():
        if _accepted(scenario):
            cases[f"corpus_{key}"] = scenario
    return cases


SCENARIO_IDS: Final = sorted(_scenarios())


@cache
def _expected(name: str) -> tuple[RuntimeBudget, dict[str, bytes], dict[str, bytes]]:
    scenario = _scenarios()[name]
    inputs = default_inputs(scenario_plan(scenario))
    return runtime_budget(scenario), inputs, oracle_outputs(scenario, inputs)


def _run(backend: BackendUnderTest, name: str, replays: int = REPLAYS) -> tuple[ExecuteResult, RuntimeBudget]:
    budget, inputs, _ = _expected(name)
    return backend.execute(_scenarios()[name], inputs, replays), budget


def _assert_none(problems: list[str]) -> None:
    assert not problems, "; ".join(problems)


@pytest.mark.requires("execute")
@pytest.mark.parametrize("name", SCENARIO_IDS)
def test_peak_device_bytes_stay_within_the_plan_budget(backend: BackendUnderTest, name: str) -> None:
    result, budget = _run(backend, name)
    _assert_none(check_peak_within_budget(result, budget))


@pytest.mark.requires("execute")
@pytest.mark.parametrize("name", SCENARIO_IDS)
def test_no_allocation_outside_the_plan_is_granted(backend: BackendUnderTest, name: str) -> None:
    result, _ = _run(backend, name)
    _assert_none(check_no_allocation_outside_plan(result) + check_no_leak(result))


@pytest.mark.requires("execute")
@pytest.mark.parametrize("name", SCENARIO_IDS)
def test_replay_is_bitwise_identical(backend: BackendUnderTest, name: str) -> None:
    result, budget = _run(backend, name)
    _assert_none(check_replays_identical(result, budget, REPLAYS))
    single, _ = _run(backend, name, 1)
    assert single.ledger.peak_bytes == result.ledger.peak_bytes, "peak bytes grow with the number of replays"


@pytest.mark.requires("execute")
@pytest.mark.parametrize("name", SCENARIO_IDS)
def test_outputs_equal_the_oracle(backend: BackendUnderTest, oracle: BackendUnderTest, name: str) -> None:
    result, _ = _run(backend, name)
    _, _, expected = _expected(name)
    _assert_none(check_outputs_equal(result, expected))
    reference, _ = _run(oracle, name)
    _assert_none(check_outputs_equal(result, reference.outputs))


@pytest.mark.requires("execute")
def test_wrong_input_length_is_a_contract_error(backend: BackendUnderTest, oracle: BackendUnderTest) -> None:
    scenario = _scenarios()["plan_fixture_0"]
    inputs = {"value.input": b"\x00" * 15}
    kinds = []
    for target in (oracle, backend):
        try:
            target.execute(scenario, inputs, 1)
        except VNextError as exc:
            kinds.append(exc.kind)
    assert kinds == ["invalid_execution_plan", "invalid_execution_plan"]


#: Execute requests broken one way each (harness/PROTOCOL.md §5.2): (inputs change, replays, reason phrase).
EXECUTE_REQUEST_CELLS: Final[dict[str, tuple[str, int, str]]] = {
    "unknown_input": ("unknown", 1, "`value.unknown` is not a program input"),
    "missing_input": ("missing", 1, "program input `value.input` needs 16 bytes, got None"),
    "zero_replays": ("none", 0, "execute runs 1..=64 replays"),
    "replays_over_64": ("none", 65, "execute runs 1..=64 replays"),
}


@pytest.mark.requires("execute")
@pytest.mark.parametrize("cell", sorted(EXECUTE_REQUEST_CELLS))
def test_malformed_execute_requests_match_the_reference(
    backend: BackendUnderTest, oracle: BackendUnderTest, cell: str
) -> None:
    change, replays, phrase = EXECUTE_REQUEST_CELLS[cell]
    scenario = _scenarios()["plan_fixture_0"]
    inputs = dict(default_inputs(scenario_plan(scenario)))
    if change == "unknown":
        inputs["value.unknown"] = b"\x00" * 4
    elif change == "missing":
        inputs.clear()
    with pytest.raises(VNextError) as info:
        oracle.execute(scenario, inputs, replays)
    raw = info.value.to_dict()
    assert raw["kind"] == "invalid_execution_plan" and phrase in raw["reason"], f"{cell}: the reference gives {raw}"
    want = error_of(lambda: oracle.execute(scenario, inputs, replays))
    got = error_of(lambda: backend.execute(scenario, inputs, replays))
    assert got is not None, f"{cell}: the backend executes; the reference gives {want}"
    assert got == want, f"{cell}: the backend gives {got}, the reference {want}"
