"""Scenario-level execution: build the scenario's plan, run it on a device runtime, report.

``execute_scenario(scenario, inputs, replays)`` is what ``reference.api.execute``
calls. The plan is built exactly as ``build_plan`` builds it
(``reference.scenario.plan.scenario_trusted_inputs``); the runtime is
``ReferenceDeviceRuntime`` over the catalog's device unless a factory is given
(the fault-injection tests pass broken runtimes).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.device import DeviceDescriptor
from reference.errors import InvalidExecutionPlan
from reference.ids import ProgramValueId
from reference.model.prepared import PreparedModelFamily
from reference.plan.execution_plan import ExecutionPlan
from reference.runtime.device import ReferenceDeviceRuntime
from reference.runtime.executor import ExecutionOutcome, PlanExecutor, execute_plan
from reference.runtime.program_oracle import evaluate_program
from reference.runtime.result import MAX_REPLAYS, ExecuteResult
from reference.scenario.plan import scenario_trusted_inputs

__all__ = [
    "RuntimeFactory",
    "ScenarioPlan",
    "default_inputs",
    "execute_scenario",
    "oracle_outputs",
    "program_input_lengths",
    "scenario_plan",
]

RuntimeFactory = Callable[[DeviceDescriptor], ReferenceDeviceRuntime]


@dataclass(frozen=True, slots=True)
class ScenarioPlan:
    """The built plan with the trusted family and catalog it was built against."""

    plan: ExecutionPlan
    family: PreparedModelFamily
    catalog: CapabilityCatalog


def scenario_plan(scenario: Mapping[str, Any]) -> ScenarioPlan:
    """Decode the scenario and build its execution plan exactly as ``build_plan`` does (05 §3)."""
    inputs = scenario_trusted_inputs(scenario)
    return ScenarioPlan(inputs.build(), inputs.family, inputs.catalog)


def _inputs(built: ScenarioPlan, inputs: Mapping[str, bytes]) -> dict[ProgramValueId, bytes]:
    declared = {v.value for v in built.family.program.inputs}
    unknown = sorted(set(inputs) - declared)
    if unknown:
        raise InvalidExecutionPlan(  # rule: 03.13.2/execute_request_checked
            reason=f"`{unknown[0]}` is not a program input"
        )
    return {ProgramValueId(k): bytes(v) for k, v in inputs.items()}


def execute_scenario(
    scenario: Mapping[str, Any],
    inputs: Mapping[str, bytes],
    replays: int,
    runtime_factory: RuntimeFactory = ReferenceDeviceRuntime,
) -> ExecuteResult:
    """Build the plan, run ``replays`` (1..=64) requests with ``inputs``, return outputs, ledger and digests."""
    if type(replays) is not int or not 1 <= replays <= MAX_REPLAYS:
        raise InvalidExecutionPlan(  # rule: 03.13.2/execute_request_checked
            reason=f"execute runs 1..={MAX_REPLAYS} replays, got {replays!r}"
        )
    built = scenario_plan(scenario)
    runtime = runtime_factory(built.catalog.device)
    outcome: ExecutionOutcome = execute_plan(
        runtime, built.plan, built.family, built.catalog, _inputs(built, inputs), replays
    )
    return ExecuteResult({k.value: v for k, v in outcome.outputs}, outcome.ledger, outcome.replay_digests)


def oracle_outputs(scenario: Mapping[str, Any], inputs: Mapping[str, bytes]) -> dict[str, bytes]:
    """The value-level oracle's outputs (no device): what every runtime must produce."""
    built = scenario_plan(scenario)
    executor = PlanExecutor(ReferenceDeviceRuntime(built.catalog.device), built.plan, built.family, built.catalog)
    executor.initialize()  # materializes the weights through the trusted plan
    executor.teardown()
    outputs = evaluate_program(
        built.plan, built.family, built.catalog, _inputs(built, inputs), executor.weight_payloads
    )
    return {k.value: v for k, v in outputs}


def program_input_lengths(built: ScenarioPlan) -> dict[str, int]:
    """Bytes each program input occupies (its first input binding's storage), in program order."""
    lengths: dict[str, int] = {}
    for value_id in built.family.program.inputs:
        for node in built.plan.nodes:
            binding = next((b for b in node.values if b.value_id == value_id and b.role.value == "input"), None)
            if binding is not None:
                lengths[value_id.value] = sum(c.length_bytes for c in binding.storage.components)
                break
    return lengths


def default_inputs(built: ScenarioPlan, seed: int = 0) -> dict[str, bytes]:
    """Deterministic input bytes: ``sha256("vnext-conformance/inputs/v1\\0" + id + "\\0" + u64_le(seed))`` stream."""
    out = {}
    for value_id, length in program_input_lengths(built).items():
        prefix = b"vnext-conformance/inputs/v1\x00" + value_id.encode("utf-8") + b"\x00" + seed.to_bytes(8, "little")
        stream = b"".join(hashlib.sha256(prefix + i.to_bytes(8, "little")).digest() for i in range((length + 31) // 32))
        out[value_id] = stream[:length]
    return out
