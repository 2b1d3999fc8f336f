"""device_runtime_script: the script decoder, the step answers and their protocol form (decision 08-runtime D14)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.backends.reference import ReferenceImplementation
from harness.protocol.codecs import ProtocolError
from harness.protocol.operations import OPERATIONS, Level
from harness.protocol.validation import SchemaCheck
from reference import api
from reference.errors import InvalidExecutionPlan, Serialization
from reference.runtime.script import MAX_SCRIPT_STEPS, SCRIPT_OPS
from seeds.scenarios import plan_fixture_scenario
from tests.harness.test_harness_protocol import HANDSHAKE, converse

SCENARIO = plan_fixture_scenario(0)
OP = OPERATIONS["device_runtime_script"]


def _call(params: dict[str, Any]) -> dict[str, Any]:
    replies = converse(ReferenceImplementation(), HANDSHAKE, {"id": 1, "op": "device_runtime_script", "params": params})
    reply: dict[str, Any] = replies[1]
    return reply


def test_the_operation_is_declared_at_the_runtime_level_and_implemented() -> None:
    assert OP.level is Level.RUNTIME
    assert "device_runtime_script" in api.supported_operations()
    assert [p.name for p in OP.params] == ["scenario", "script"]


def test_answers_travel_as_values_errors_and_refusals() -> None:
    script = [
        {"op": "copy_region", "source_offset_bytes": 0, "destination_offset_bytes": 0, "length_bytes": 0},
        {"op": "device_terminal", "error": None},
        {"op": "create_stream"},
        {"op": "submit", "stream": 2, "commands": []},
    ]
    reply = _call({"scenario": SCENARIO, "script": script})
    answers = reply["result"]["answers"]
    assert answers[0]["error"]["kind"] == "invalid_execution_plan"
    assert answers[1] == {"value": {"status": "succeeded"}}
    assert answers[2] == {"value": {"state": "ready"}}
    assert answers[3]["refused"]["as"] == "definitely_not_submitted"
    SchemaCheck(enabled=True).result(OP, reply["result"])
    decoded = OP.decode_result(reply["result"])
    assert isinstance(decoded[0].error, InvalidExecutionPlan)
    assert OP.encode_result(decoded)["answers"][1:] == answers[1:]


@pytest.mark.parametrize(
    "raw",
    [
        {"answers": [{}]},
        {"answers": [{"value": 1, "error": {}}]},
        {"answers": [{"refused": {"as": "crashed", "message": ""}}]},
        {"answers": [{"error": {"kind": "no_such_kind"}}]},
        {"answers": {}},
        [],
    ],
)
def test_malformed_answers_are_protocol_errors(raw: Any) -> None:
    with pytest.raises(ProtocolError):
        OP.decode_result(raw)


def test_the_script_is_decoded_before_the_scenario() -> None:
    with pytest.raises(Serialization) as caught:
        api.device_runtime_script({}, [{"op": "nope"}])
    assert caught.value.context == "decode device runtime script"
    with pytest.raises(Serialization) as caught:
        api.device_runtime_script({}, [])
    assert caught.value.context == "decode scenario"


def test_a_script_is_capped_and_every_op_is_documented() -> None:
    assert api.device_runtime_script(SCENARIO, [{"op": "runtime_enums"}] * MAX_SCRIPT_STEPS)
    with pytest.raises(Serialization):
        api.device_runtime_script(SCENARIO, [{"op": "runtime_enums"}] * (MAX_SCRIPT_STEPS + 1))
    protocol = (Path(__file__).resolve().parents[2] / "harness" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert all(f"`{op}`" in protocol for op in SCRIPT_OPS)


def test_a_step_naming_a_failed_steps_handle_is_refused_as_no_handle() -> None:
    answers = api.device_runtime_script(
        SCENARIO,
        [
            {"op": "allocate", "resource_id": "resource.absent"},
            {"op": "encode_zero", "buffer": 0, "offset_bytes": 0, "length_bytes": 1},
        ],
    )
    assert isinstance(answers[0].error, InvalidExecutionPlan)
    assert answers[1].refused == "no_handle"


def test_a_failed_submit_consumes_its_commands() -> None:
    script: list[dict[str, Any]] = [
        {"op": "create_stream"},
        {"op": "allocate", "resource_id": "resource.weight.0"},
        {"op": "encode_zero", "buffer": 1, "offset_bytes": 0, "length_bytes": 4},
        {"op": "submit", "stream": 0, "commands": [2]},
        {"op": "submit", "stream": 0, "commands": [2]},
    ]
    with pytest.raises(Serialization, match="already in a batch"):
        api.device_runtime_script(SCENARIO, script)
