"""Seed plans run end to end on the reference runtime within their memory plans (issue 8/8)."""

from __future__ import annotations

import pytest

from harness.backends import connect
from harness.protocol.codecs import ProtocolError
from harness.protocol.operations import OPERATIONS
from reference import api
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import ProgramValueId, WeightId
from reference.resolution.usage import BufferUsage
from reference.runtime.device import ReferenceDeviceRuntime
from reference.runtime.executor import OUT_OF_PLAN_PROBES, PlanExecutor, execute_plan
from reference.runtime.result import ExecuteResult
from reference.runtime.weights import weight_stream
from reference.scenario.execute import default_inputs, execute_scenario, oracle_outputs, scenario_plan
from schemas import validate

from .conftest import built_plan_fixture, scenario_of

# (scenario, peak bytes held by one request; = static + minimum runnable where every pool peaks together)
PEAKS = {
    "plan_fixture_0": 160,  # 48 static + 112 runnable (05 §7.16)
    "sequential_scratch": 240,  # 80 static + 32 request + 16 sequence + 16 step + 96 invocation peak (not 160)
    "graph_alias_must_alias_exact": 144,
    "graph_state_chain": 288,  # below 144 + 176: the last node's output is never live with the first's
}


@pytest.mark.parametrize(("name", "peak"), sorted(PEAKS.items()))
def test_seed_scenarios_run_within_their_memory_plans(name: str, peak: int) -> None:
    scenario = scenario_of(name)
    built = scenario_plan(scenario)
    result = execute_scenario(scenario, default_inputs(built), 3)
    memory = built.plan.memory
    assert result.ledger.peak_bytes == peak
    assert peak <= memory.static_bytes + memory.minimum_runnable_request_bytes <= memory.usable_capacity_bytes
    assert result.ledger.final_resident_bytes == 0
    assert result.ledger.refused_allocations == OUT_OF_PLAN_PROBES
    assert len(set(result.replay_digests)) == 1 and len(result.replay_digests) == 3
    assert result.outputs == oracle_outputs(scenario, default_inputs(built))


def test_ledger_per_usage_peaks_of_the_plan_fixture() -> None:
    scenario = scenario_of("plan_fixture_0")
    result = execute_scenario(scenario, default_inputs(scenario_plan(scenario)), 1)
    by_usage = result.ledger.peak_bytes_by_usage
    assert by_usage[BufferUsage.WEIGHTS] == 16 and by_usage[BufferUsage.PERSISTENT] == 32
    assert by_usage[BufferUsage.ACTIVATIONS] == 32 and by_usage[BufferUsage.STATE] == 16
    assert by_usage[BufferUsage.SCRATCH] == 64 and by_usage[BufferUsage.TRANSFER] == 0


def test_weights_are_uploaded_through_the_identity_materializer() -> None:
    built = built_plan_fixture()
    executor = PlanExecutor(ReferenceDeviceRuntime(built.catalog.device), built.plan, built.family, built.catalog)
    executor.initialize()
    expected = weight_stream("weight.component", 16)
    assert executor.weight_payloads == {WeightId("weight.component"): expected}
    weight_buffer = next(b for b in executor.runtime.live_buffers() if b.descriptor.usage is BufferUsage.WEIGHTS)
    assert bytes(weight_buffer.data) == expected
    executor.teardown()
    assert executor.runtime.live_buffers() == ()


def test_state_read_write_changes_what_later_nodes_read() -> None:
    chain, read_only = scenario_of("graph_state_chain"), scenario_of("graph_state_read_only")
    inputs = default_inputs(scenario_plan(chain))
    assert inputs == default_inputs(scenario_plan(read_only))
    a = execute_scenario(chain, inputs, 1).outputs["value.state-read.1"]
    b = execute_scenario(read_only, inputs, 1).outputs["value.state-read.1"]
    assert a != b  # two read-write nodes updated the state in between


def test_outputs_depend_on_inputs_and_the_state_is_zeroed_per_replay() -> None:
    scenario = scenario_of("plan_fixture_0")
    built = scenario_plan(scenario)
    one, two = default_inputs(built, 0), default_inputs(built, 1)
    assert execute_scenario(scenario, one, 1).outputs != execute_scenario(scenario, two, 1).outputs
    chain = scenario_of("graph_state_chain")
    result = execute_scenario(chain, default_inputs(scenario_plan(chain)), 4)
    assert len(set(result.replay_digests)) == 1


def test_bad_inputs_and_replays_are_contract_errors() -> None:
    scenario = scenario_of("plan_fixture_0")
    good = default_inputs(scenario_plan(scenario))
    for inputs, replays in [
        ({}, 1),
        ({"value.input": b"\x00" * 15}, 1),
        ({**good, "value.other": b""}, 1),
        (good, 0),
        (good, 65),
    ]:
        with pytest.raises(InvalidExecutionPlan):
            execute_scenario(scenario, inputs, replays)
    with pytest.raises(Serialization):
        execute_scenario({}, good, 1)


def test_a_runtime_for_another_device_fails_preflight() -> None:
    import dataclasses

    built = built_plan_fixture()
    other = ReferenceDeviceRuntime(dataclasses.replace(built.catalog.device, total_memory_bytes=2 << 20))
    with pytest.raises(InvalidExecutionPlan):
        execute_plan(other, built.plan, built.family, built.catalog, {ProgramValueId("value.input"): bytes(16)}, 1)


def test_execute_through_the_api_backend_and_protocol() -> None:
    scenario = scenario_of("sequential_scratch")
    inputs = default_inputs(scenario_plan(scenario))
    assert "execute" in api.supported_operations()
    direct = api.execute(scenario, inputs, 2)
    client = connect("reference")
    assert client.execute(scenario, inputs, 2) == direct
    execute = OPERATIONS["execute"]
    encoded = execute.encode_result(direct)
    validate("runtime/execute_result.json", encoded)
    assert execute.decode_result(encoded) == direct
    assert ExecuteResult.from_wire(direct.to_wire()) == direct
    params = execute.encode_params(execute.bind((scenario, inputs, 2), {}))
    assert client.outcome(execute, params).value == encoded


@pytest.mark.parametrize(
    "mutate",
    [
        lambda w: w.update(replay_digests=[]),
        lambda w: w.update(replay_digests=["A" * 64]),
        lambda w: w["ledger"].pop("peak_bytes"),
        lambda w: w["ledger"]["peak_bytes_by_usage"].update(scratch=10**9),
        lambda w: w["outputs"].update({"value.output": "not base64"}),
        lambda w: w.update(extra=1),
    ],
)
def test_malformed_execute_results_are_refused(mutate: object) -> None:
    scenario = scenario_of("plan_fixture_0")
    wire = api.execute(scenario, default_inputs(scenario_plan(scenario)), 1).to_wire()
    mutate(wire)  # type: ignore[operator]
    with pytest.raises(ProtocolError):
        OPERATIONS["execute"].decode_result(wire)


def test_a_program_output_that_is_an_input_or_weight_value_is_read_back_from_its_storage() -> None:
    """02 §10.3 step 7: outputs may name input, state or weight values; execute returns their bytes."""
    scenario = scenario_of("plan_fixture_returns_its_input_and_weight")
    built = scenario_plan(scenario)
    inputs = default_inputs(built)
    result = execute_scenario(scenario, inputs, 2)
    assert set(result.outputs) == {"value.output", "value.input", "value.weight"}
    assert result.outputs["value.input"] == inputs["value.input"]
    assert result.outputs["value.weight"] == weight_stream("weight.component", 16)
    assert result.outputs == oracle_outputs(scenario, inputs)
