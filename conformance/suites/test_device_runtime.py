"""DeviceRuntime value rules (03 §13.1, §13.3) through ``device_runtime_script``.

Each case sends one short script to the backend and to the reference and compares the answers
step by step: a step's value must equal the reference's, field for field; a step's error must be
the same contract error (its free-text ``reason`` is the implementation's own words). The
reference's answers are first checked against what the contract sheet states.

``runtime_enums`` is compared exactly but for ``timing_modes``: the sheet lists ``off``,
``completion`` and ``kernel`` (``kernel`` in newer files) and the reference adds ``replay``
(decision 08-runtime D12), so a backend's list must hold the sheet's three in that order.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Sequence
from typing import Any, Final

import pytest

from conformance.suites.contract_errors import error_of, pinned
from harness.cases import exercise
from harness.protocol.codecs import RawJson
from harness.under_test import BackendUnderTest
from reference.api import StepAnswer, scenario_plan
from seeds.scenarios import plan_fixture_scenario
from strategies.budget import with_policy

U64_MAX: Final = (1 << 64) - 1
OK: Final = "ok"
IEP: Final = "invalid_execution_plan"
SCENARIO: Final = plan_fixture_scenario(0)


def _region(src: int, dst: int, length: int) -> dict[str, Any]:
    return {"source_offset_bytes": src, "destination_offset_bytes": dst, "length_bytes": length}


def _descriptor(size: int, element_type: str = "u8") -> dict[str, Any]:
    return {
        "resource_id": f"buffer.{size}",
        "size_bytes": size,
        "alignment_bytes": 1,
        "usage": "scratch",
        "element_type": element_type,
    }


def _bounds(src: int, dst: int, length: int, source: int, destination: int) -> dict[str, Any]:
    return {
        "op": "copy_region_bounds",
        "region": _region(src, dst, length),
        "source": _descriptor(source),
        "destination": _descriptor(destination),
    }


def _layout(element_type: str, count: int) -> dict[str, Any]:
    return {"op": "host_transfer_layout", "element_type": element_type, "element_count": count}


def _layout_bytes(element_type: str, count: int, length: int) -> dict[str, Any]:
    return {
        "op": "host_layout_bytes",
        "layout": {"element_type": element_type, "element_count": count},
        "length_bytes": length,
    }


def _report(code: str, message: str, retryable: bool = False) -> dict[str, Any]:
    return {"op": "device_error_report", "code": code, "message": message, "retryable": retryable}


#: case id -> (rules, [(step, expected outcome: "ok" or the error kind)]).
CASES: Final[dict[str, tuple[tuple[str, ...], list[tuple[dict[str, Any], str]]]]] = {
    "copy_region_length": (
        ("03.13.1/copy_region_length",),
        [({"op": "copy_region", **_region(0, 0, 0)}, IEP), ({"op": "copy_region", **_region(0, 0, 1)}, OK)],
    ),
    "copy_region_overflow": (
        ("03.13.1/copy_region_overflow",),
        [
            ({"op": "copy_region", **_region(U64_MAX - 3, 0, 4)}, IEP),
            ({"op": "copy_region", **_region(0, U64_MAX - 3, 4)}, IEP),
            ({"op": "copy_region", **_region(U64_MAX, U64_MAX, 1)}, IEP),
            ({"op": "copy_region", **_region(U64_MAX - 4, U64_MAX - 4, 4)}, OK),
            ({"op": "copy_region", **_region(0, 0, U64_MAX)}, OK),
        ],
    ),
    "copy_region_bounds": (
        ("03.13.1/copy_region_bounds",),
        [
            (_bounds(1, 0, 4, 4, 8), IEP),
            (_bounds(0, 5, 4, 8, 8), IEP),
            (_bounds(0, 0, 4, 4, 4), OK),
            (_bounds(4, 4, 4, 8, 8), OK),
            (_bounds(0, 0, 0, 4, 4), IEP),
        ],
    ),
    "host_layout_count": (
        ("03.13.1/host_layout_count",),
        [(_layout("f32", 0), IEP), (_layout("u8", 1), OK), (_layout("f32", 3), OK)],
    ),
    "host_layout_overflow": (
        ("03.13.1/host_layout_overflow",),
        [
            (_layout("f32", 1 << 62), IEP),
            (_layout("f32", U64_MAX), IEP),
            (_layout("f32", (1 << 62) - 1), OK),
            (_layout("u8", U64_MAX), OK),
        ],
    ),
    "host_layout_bytes": (
        ("03.13.1/host_layout_bytes",),
        [
            (_layout_bytes("f32", 3, 11), IEP),
            (_layout_bytes("f32", 3, 13), IEP),
            (_layout_bytes("f32", 3, 12), OK),
            (_layout_bytes("f32", 0, 0), IEP),
        ],
    ),
    "error_report_code": (
        ("03.13.1/error_report_code",),
        [
            (_report("x" * 65, "m"), IEP),
            (_report("", "m"), IEP),
            (_report("a b", "m"), IEP),
            (_report("a/b", "m"), IEP),
            (_report("\u00e9", "m"), IEP),
            (_report("x" * 64, "m"), OK),
            (_report("Az09._-", "m", True), OK),
        ],
    ),
    "error_report_message_blank": (
        ("03.13.1/error_report_message_blank",),
        [(_report("c", ""), IEP), (_report("c", " \n\t "), IEP), (_report("c", " x "), OK)],
    ),
    "error_report_message_length": (
        ("03.13.1/error_report_message_length",),
        [
            (_report("c", "m" * 4097), IEP),
            (_report("c", "\u00e9" * 2049), IEP),
            (_report("c", "m" * 4096), OK),
            (_report("c", "\u00e9" * 2048), OK),
        ],
    ),
    "error_report_message_controls": (
        ("03.13.1/error_report_message_controls",),
        [
            (_report("c", "a\rb"), IEP),
            (_report("c", "a\x00b"), IEP),
            (_report("c", "a\x7fb"), IEP),
            (_report("c", "a\x1bb"), IEP),
            (_report("c", "a\n\tb"), OK),
        ],
    ),
    "terminal_wire": (
        ("03.13.1/terminal_wire",),
        [
            ({"op": "device_terminal", "error": None}, OK),
            ({"op": "device_terminal", "error": "device lost"}, OK),
            ({"op": "fence_query", "status": "pending", "error": None}, OK),
            ({"op": "fence_query", "status": "terminal", "error": None}, OK),
            ({"op": "fence_query", "status": "terminal", "error": "device lost"}, OK),
        ],
    ),
    "fence_indeterminate_not_terminal": (
        ("03.13.1/fence_indeterminate_not_terminal",),
        [
            ({"op": "fence_query", "status": "indeterminate", "error": "unknown"}, OK),
            ({"op": "fence_query", "status": "terminal", "error": None}, OK),
        ],
    ),
    "create_stream_ready": (
        ("03.13.3/create_stream_ready",),
        [
            ({"op": "create_stream"}, OK),
            ({"op": "stream_state", "stream": 0}, OK),
            ({"op": "create_stream"}, OK),
            ({"op": "stream_state", "stream": 2}, OK),
        ],
    ),
}

# --------------------------------------------------------------------------- runtime steps
# Buffers are the scenario plan's own reservations: ``$persistent`` (u8, 32 bytes), ``$weight`` (f32, 16 bytes)
# and ``$input`` (a dynamic f32 row, 16 bytes at its minimum shape); a handle is the index of the step that made it.
RTE: Final = "refused:runtime_error"
DNS: Final = "refused:definitely_not_submitted"


def _u8(count: int) -> dict[str, Any]:
    return {"element_type": "u8", "element_count": count}


def _upload(buffer: int, data: bytes, offset: int = 0, layout: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "op": "encode_upload",
        "buffer": buffer,
        "layout": layout or _u8(len(data)),
        "data_base64": base64.b64encode(data).decode("ascii"),
        "offset_bytes": offset,
    }


def _zero(buffer: int, offset: int, length: int) -> dict[str, Any]:
    return {"op": "encode_zero", "buffer": buffer, "offset_bytes": offset, "length_bytes": length}


def _readback(stream: int, buffer: int, region: dict[str, Any], layout: dict[str, Any]) -> dict[str, Any]:
    return {"op": "readback", "stream": stream, "buffer": buffer, "region": region, "layout": layout}


STREAM: Final = ({"op": "create_stream"}, OK)
PERSISTENT: Final = ({"op": "allocate", "resource_id": "$persistent"}, OK)
WEIGHT: Final = ({"op": "allocate", "resource_id": "$weight"}, OK)
INPUT: Final = ({"op": "allocate", "resource_id": "$input"}, OK)

CASES.update(
    {
        "buffer_descriptor_unchanged": (
            ("03.13.3/buffer_descriptor_unchanged",),
            [PERSISTENT, WEIGHT, INPUT],
        ),
        "allocation_permits": (
            ("03.13.2/request_equals_reservation",),
            [
                ({"op": "allocate", "resource_id": "resource.absent"}, IEP),
                ({"op": "encode_zero", "buffer": 0, "offset_bytes": 0, "length_bytes": 1}, "refused:no_handle"),
                PERSISTENT,
            ],
        ),
        "readback_zero_padding": (
            ("03.13.3/readback_zero_padding", "03.13.3/encode_upload_checks"),
            [
                STREAM,
                PERSISTENT,
                (_upload(1, bytes([10, 11, 12, 13])), OK),
                ({"op": "submit", "stream": 0, "commands": [2]}, OK),
                (_readback(0, 1, _region(1, 2, 2), _u8(6)), OK),
            ],
        ),
        "readback_checks": (
            ("03.13.3/readback_checks",),
            [
                STREAM,
                PERSISTENT,
                WEIGHT,
                (_readback(0, 1, _region(0, 0, 4), _u8(3)), RTE),
                (_readback(0, 1, _region(30, 0, 4), _u8(8)), RTE),
                (_readback(0, 2, _region(0, 0, 4), _u8(4)), RTE),
                (_readback(0, 1, _region(0, 0, 0), _u8(4)), IEP),
                (_readback(0, 1, _region(28, 0, 4), _u8(4)), OK),
                (_readback(0, 2, _region(0, 4, 4), {"element_type": "f32", "element_count": 2}), OK),
            ],
        ),
        "encode_zero_checks": (
            ("03.13.3/encode_zero_checks",),
            [
                PERSISTENT,
                (_zero(0, 30, 4), RTE),
                (_zero(0, 0, 0), RTE),
                (_zero(0, U64_MAX, 1), RTE),
                (_zero(0, 33, 0), RTE),
                (_zero(0, 0, 32), OK),
                (_zero(0, 31, 1), OK),
            ],
        ),
        "encode_upload_checks": (
            ("03.13.3/encode_upload_checks",),
            [
                PERSISTENT,
                WEIGHT,
                (_upload(0, bytes(3), layout=_u8(4)), RTE),
                (_upload(1, bytes(4)), RTE),
                (_upload(0, bytes(4), offset=30), RTE),
                (_upload(0, bytes(4), offset=U64_MAX - 1), RTE),
                (_upload(0, bytes(4), offset=28), OK),
                (_upload(1, bytes(16), layout={"element_type": "f32", "element_count": 4}), OK),
                (_upload(0, b"", layout=_u8(0)), IEP),
            ],
        ),
        "encode_copy_checks": (
            ("03.13.3/encode_copy_checks", "03.13.1/copy_region_bounds"),
            [
                PERSISTENT,
                WEIGHT,
                INPUT,
                ({"op": "encode_copy", "source": 0, "destination": 1, "region": _region(0, 0, 4)}, RTE),
                ({"op": "encode_copy", "source": 1, "destination": 2, "region": _region(8, 0, 12)}, RTE),
                ({"op": "encode_copy", "source": 1, "destination": 2, "region": _region(0, 12, 8)}, RTE),
                ({"op": "encode_copy", "source": 1, "destination": 2, "region": _region(0, 0, 0)}, IEP),
                ({"op": "encode_copy", "source": 1, "destination": 2, "region": _region(4, 8, 8)}, OK),
            ],
        ),
        "copy_runs_at_submit": (
            ("03.13.3/encode_copy_checks", "03.13.3/query_fence", "03.13.3/wait_fence"),
            [
                STREAM,
                WEIGHT,
                INPUT,
                (_upload(1, bytes(range(1, 17)), layout={"element_type": "f32", "element_count": 4}), OK),
                ({"op": "encode_copy", "source": 1, "destination": 2, "region": _region(4, 8, 8)}, OK),
                ({"op": "submit", "stream": 0, "commands": [3, 4]}, OK),
                ({"op": "query_fence", "fence": 5}, OK),
                ({"op": "wait_fence", "fence": 5}, OK),
                (_readback(0, 2, _region(0, 0, 16), {"element_type": "f32", "element_count": 4}), OK),
            ],
        ),
        "submit_refusals": (
            ("03.13.3/submit_refusal_executes_nothing", "03.13.3/synchronize"),
            [
                STREAM,
                ({"op": "submit", "stream": 0, "commands": []}, DNS),
                ({"op": "stream_state", "stream": 0}, OK),
                PERSISTENT,
                (_zero(3, 0, 4), OK),
                ({"op": "submit", "stream": 0, "commands": [4]}, OK),
                ({"op": "synchronize", "stream": 0}, OK),
            ],
        ),
        "foreign_handles": (
            (
                "03.13.3/foreign_stream_failed",
                "03.13.3/submit_refusals",
                "03.13.3/query_fence",
                "03.13.3/wait_fence",
                "03.13.3/synchronize",
                "03.13.3/readback_checks",
                "03.13.3/encode_zero_checks",
            ),
            [
                STREAM,
                ({"op": "create_stream", "runtime": 1}, OK),
                ({"op": "stream_state", "stream": 1}, OK),
                ({"op": "stream_state", "stream": 1, "runtime": 1}, OK),
                ({"op": "allocate", "resource_id": "$weight", "runtime": 1}, OK),
                (_zero(4, 0, 4), RTE),
                ({**_zero(4, 0, 4), "runtime": 1}, OK),
                ({"op": "submit", "stream": 0, "commands": [6]}, DNS),
                ({"op": "stream_state", "stream": 0}, OK),
                ({"op": "submit", "stream": 1, "commands": []}, DNS),
                ({**_zero(4, 0, 4), "runtime": 1}, OK),
                ({"op": "submit", "stream": 1, "commands": [10], "runtime": 1}, OK),
                ({"op": "query_fence", "fence": 11}, OK),
                ({"op": "wait_fence", "fence": 11}, "refused:fence_indeterminate"),
                ({"op": "synchronize", "stream": 1}, RTE),
                (_readback(1, 4, _region(0, 0, 4), {"element_type": "f32", "element_count": 1}), RTE),
                (_readback(0, 4, _region(0, 0, 4), {"element_type": "f32", "element_count": 1}), RTE),
                ({"op": "query_fence", "fence": 11, "runtime": 1}, OK),
                ({"op": "wait_fence", "fence": 11, "runtime": 1}, OK),
            ],
        ),
    }
)

#: The runtime answers the sheet states: stream states, fence receipts and readback bytes.
RECEIPT: Final = {"terminal": {"status": "succeeded"}, "execution_timing": {"status": "not_requested"}}
SHEET_RUNTIME_VALUES: Final[dict[str, dict[int, Any]]] = {
    "readback_zero_padding": {
        0: {"state": "ready"},
        3: {"state": "submitted"},
        4: {"data_base64": base64.b64encode(bytes([0, 0, 11, 12, 0, 0])).decode("ascii")},
    },
    "copy_runs_at_submit": {
        5: {"state": "submitted"},
        6: {"status": "terminal", "is_terminal": True, "receipt": RECEIPT},
        7: RECEIPT,
        8: {"data_base64": base64.b64encode(bytes(8) + bytes(range(5, 13))).decode("ascii")},
    },
    "submit_refusals": {2: {"state": "ready"}, 5: {"state": "submitted"}, 6: {"state": "ready"}},
    "foreign_handles": {
        2: {"state": "failed"},
        3: {"state": "ready"},
        8: {"state": "ready"},
        12: {"status": "indeterminate", "is_terminal": False, "receipt": None},
        17: {"status": "terminal", "is_terminal": True, "receipt": RECEIPT},
        18: RECEIPT,
    },
}


@functools.cache
def _resources() -> dict[str, dict[str, Any]]:
    """The descriptors of the plan's reservations the runtime cases allocate, by placeholder."""
    memory = scenario_plan(SCENARIO).plan.memory
    statics = {row.buffer_request().usage.to_wire(): row.buffer_request() for row in memory.static_allocations}
    dynamic = next(d for d in memory.dynamic_descriptors if d.base_resource_id.value == "resource.input.0")
    picked = {"$persistent": statics["persistent"], "$weight": statics["weights"]}
    out = {
        name: {
            "resource_id": r.resource_id.value,
            "size_bytes": r.size_bytes,
            "alignment_bytes": r.alignment_bytes,
            "usage": r.usage.to_wire(),
            "element_type": r.element_type.to_wire(),
        }
        for name, r in picked.items()
    }
    out["$input"] = {
        "resource_id": "resource.input.0",
        "size_bytes": 16,
        "alignment_bytes": dynamic.alignment_bytes,
        "usage": dynamic.usage.to_wire(),
        "element_type": dynamic.element_type.to_wire(),
    }
    return out


def _resolved(step: dict[str, Any]) -> dict[str, Any]:
    if step.get("op") == "allocate" and step["resource_id"].startswith("$"):
        return {**step, "resource_id": _resources()[step["resource_id"]]["resource_id"]}
    return step


#: What the sheet states of the value steps' values (checked on the reference's answers).
SHEET_VALUES: Final[dict[str, list[Any]]] = {
    "terminal_wire": [
        {"status": "succeeded"},
        {"status": "failed_but_quiescent", "error": "device lost"},
        {"wire": {"status": "pending"}, "is_terminal": False},
        {
            "wire": {
                "status": "terminal",
                "detail": {"terminal": {"status": "succeeded"}, "execution_timing": {"status": "not_requested"}},
            },
            "is_terminal": True,
        },
        {
            "wire": {
                "status": "terminal",
                "detail": {
                    "terminal": {"status": "failed_but_quiescent", "error": "device lost"},
                    "execution_timing": {"status": "not_requested"},
                },
            },
            "is_terminal": True,
        },
    ],
    "fence_indeterminate_not_terminal": [
        {"wire": {"status": "indeterminate", "detail": "unknown"}, "is_terminal": False},
        {
            "wire": {
                "status": "terminal",
                "detail": {"terminal": {"status": "succeeded"}, "execution_timing": {"status": "not_requested"}},
            },
            "is_terminal": True,
        },
    ],
    "create_stream_ready": [{"state": "ready"}] * 4,
}


def _outcome(answer: StepAnswer) -> tuple[str, Any]:
    """An answer as its value, its pinned error fields or how it was refused (the message is free text)."""
    if answer.error is not None:
        return ("error", pinned(answer.error))
    if answer.refused is not None:
        return ("refused", answer.refused)
    return ("value", answer.value)


def _outcomes(answers: Sequence[StepAnswer]) -> list[Any]:
    return [_outcome(a) for a in answers]


def _kind(answer: StepAnswer) -> str:
    if answer.error is not None:
        return answer.error.kind
    return OK if answer.refused is None else f"refused:{answer.refused}"


def _compare(got: Sequence[StepAnswer], want: Sequence[StepAnswer]) -> None:
    assert len(got) == len(want), f"the backend answered {len(got)} steps of {len(want)}"
    for index, (mine, theirs) in enumerate(zip(_outcomes(got), _outcomes(want), strict=True)):
        assert mine == theirs, f"step {index}: the backend answered {mine}, the reference {theirs}"


@pytest.mark.requires("device_runtime_script")
@pytest.mark.parametrize("case", sorted(CASES))
def test_script_step_matches_the_reference(backend: BackendUnderTest, oracle: Any, case: str) -> None:
    rules, steps = CASES[case]
    exercise(*rules)
    script = [_resolved(step) for step, _ in steps]
    want = oracle.device_runtime_script(SCENARIO, script)
    kinds = [_kind(a) for a in want]
    assert kinds == [expected for _, expected in steps], "the reference departs from the contract sheet"
    if case in SHEET_VALUES:
        assert [a.value for a in want] == SHEET_VALUES[case], "the reference departs from the contract sheet"
    for index, value in SHEET_RUNTIME_VALUES.get(case, {}).items():
        assert want[index].value == value, f"step {index}: the reference departs from the contract sheet"
    for step, answer in zip(script, want, strict=True):
        if step["op"] == "allocate" and answer.error is None:
            placeholder = next(k for k, v in _resources().items() if v["resource_id"] == step["resource_id"])
            assert answer.value == _resources()[placeholder], "the buffer's descriptor is not its reservation"
    _compare(backend.device_runtime_script(SCENARIO, script), want)


@pytest.mark.requires("device_runtime_script")
@pytest.mark.rules("03.13.1/runtime_enums")
def test_runtime_enums(backend: BackendUnderTest, oracle: Any) -> None:
    (want,) = oracle.device_runtime_script(SCENARIO, [{"op": "runtime_enums"}])
    assert want.value == {
        "stream_states": ["ready", "recording", "submitted", "failed"],
        "timing_modes": ["off", "completion", "replay", "kernel"],
        "default_timing_mode": "off",
        "command_phases": ["initialization", "dynamic_binding", "compute", "result_binding"],
    }
    (got,) = backend.device_runtime_script(SCENARIO, [{"op": "runtime_enums"}])
    assert got.error is None, f"the backend answered {got.error}"
    assert isinstance(got.value, dict) and set(got.value) == set(want.value)
    for key in ("stream_states", "default_timing_mode", "command_phases"):
        assert got.value[key] == want.value[key], f"{key}: the backend answered {got.value[key]}"
    modes = got.value["timing_modes"]
    assert isinstance(modes, list) and [m for m in modes if m in ("off", "completion", "kernel")] == [
        "off",
        "completion",
        "kernel",
    ], f"timing_modes: the backend answered {modes}"


#: Scripts no decoder accepts: the whole call is refused with ``decode device runtime script``.
MALFORMED: Final[dict[str, Any]] = {
    "not_an_array": {"op": "runtime_enums"},
    "unknown_op": [{"op": "reset_device"}],
    "unknown_field": [{"op": "runtime_enums", "extra": 1}],
    "missing_field": [{"op": "copy_region", "source_offset_bytes": 0, "destination_offset_bytes": 0}],
    "over_u64": RawJson(
        b'[{"op":"copy_region","source_offset_bytes":0,"destination_offset_bytes":0,"length_bytes":18446744073709551616}]'
    ),
    "fractional": [{"op": "copy_region", **_region(0, 0, 1.5)}],  # type: ignore[arg-type]
    "negative": [{"op": "copy_region", **_region(-1, 0, 1)}],
    "unknown_element_type": [_layout("f128", 1)],
    "stream_not_created": [{"op": "stream_state", "stream": 0}],
    "not_a_buffer": [{"op": "create_stream"}, _zero(0, 0, 1)],
    "command_in_two_batches": [
        {"op": "create_stream"},
        {"op": "allocate", "resource_id": "resource.weight.0"},
        _zero(1, 0, 4),
        {"op": "submit", "stream": 0, "commands": [2]},
        {"op": "submit", "stream": 0, "commands": [2]},
    ],
    "later_handle": [{"op": "stream_state", "stream": 1}, {"op": "create_stream"}],
    "pending_fence_with_error": [{"op": "fence_query", "status": "pending", "error": "e"}],
    "indeterminate_fence_without_error": [{"op": "fence_query", "status": "indeterminate", "error": None}],
    "unknown_fence_status": [{"op": "fence_query", "status": "lost", "error": None}],
    "describe_error_of_a_value_step": [{"op": "runtime_enums"}, {"op": "describe_error", "error": 0}],
    "describe_error_of_itself": [{"op": "describe_error", "error": 0}],
    "runtime_2": [{"op": "create_stream", "runtime": 2}],
    "bad_base64": [{"op": "allocate", "resource_id": "resource.weight.0"}, {**_upload(0, b"ab"), "data_base64": "YWI"}],
    "too_many_steps": [{"op": "runtime_enums"}] * 257,
}


@pytest.mark.requires("device_runtime_script")
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_script_is_refused_like_the_reference(backend: BackendUnderTest, oracle: Any, case: str) -> None:
    script = MALFORMED[case]
    want = error_of(lambda: oracle.device_runtime_script(SCENARIO, script))
    assert want == {"kind": "serialization", "context": "decode device runtime script"}
    assert error_of(lambda: backend.device_runtime_script(SCENARIO, script)) == want


#: Two runtime refusals (an empty batch, a foreign stream) and the report of each.
DESCRIBE_ERROR: Final = [
    {"op": "create_stream"},
    {"op": "submit", "stream": 0, "commands": []},
    {"op": "describe_error", "error": 1},
    {"op": "create_stream", "runtime": 1},
    {"op": "synchronize", "stream": 3},
    {"op": "describe_error", "error": 4},
    {"op": "describe_error", "error": 0},
]


@pytest.mark.requires("device_runtime_script")
@pytest.mark.rules("03.13.3/describe_error_valid")
def test_describe_error_is_a_valid_report(backend: BackendUnderTest, oracle: Any) -> None:
    """``describe_error`` is ``DeviceErrorReport::new(code, str(e), false)``: its code and message are the
    implementation's, so the report is compared by domain and ``retryable`` and then rebuilt by the reference."""
    want = oracle.device_runtime_script(SCENARIO, DESCRIBE_ERROR)
    assert [_kind(a) for a in want] == [OK, DNS, OK, OK, RTE, OK, "refused:no_handle"]
    got = backend.device_runtime_script(SCENARIO, DESCRIBE_ERROR)
    assert [_kind(a) for a in got] == [_kind(a) for a in want], f"the backend answered {_outcomes(got)}"
    for index in (2, 5):
        report = got[index].value
        assert isinstance(report, dict) and set(report) == {"domain", "code", "message", "retryable"}, report
        assert report["domain"] == "device" and report["retryable"] is False, report
        rebuilt = {"op": "device_error_report", "code": report["code"], "message": report["message"]}
        (check,) = oracle.device_runtime_script(SCENARIO, [{**rebuilt, "retryable": False}])
        assert check.value == report, f"step {index}: the report {report} is not a valid DeviceErrorReport"


def _tight() -> dict[str, Any]:
    """The plan fixture under a usable capacity of 200 bytes: its minimum runnable plan (160 bytes) fits, every
    reservation held at its instance limit (48 static bytes, three instances of 112 dynamic bytes) does not."""
    return with_policy(plan_fixture_scenario(0), capacity=328, reserve=128)


@pytest.mark.requires("device_runtime_script")
@pytest.mark.rules("03.13.2/second_permit_refused")
def test_a_permit_beyond_the_plan_is_refused(backend: BackendUnderTest, oracle: Any) -> None:
    """A second permit for a live static row, a fourth for a dynamic row of three instances and one that would hold
    more than the usable capacity are refused (03 §13.2 step 2); the permits within the plan are granted."""
    scenario = _tight()
    memory = scenario_plan(scenario).plan.memory
    assert memory.usable_capacity_bytes == 200 and memory.static_bytes + memory.minimum_runnable_request_bytes == 160
    weight = next(row.resource_id.value for row in memory.static_allocations if row.usage.to_wire() == "weights")
    dynamic = {
        name: next(d for d in memory.dynamic_descriptors if name in d.base_resource_id.value)
        for name in ("input", "output", "state", "scratch")
    }
    assert all(d.theoretical_maximum_instances == 3 for d in dynamic.values()), dynamic

    def allocate(name: str) -> dict[str, Any]:
        return {"op": "allocate", "resource_id": weight if name == "weight" else dynamic[name].base_resource_id.value}

    names = ["weight", "weight", *["input"] * 4, *["output"] * 3, *["state"] * 3, "scratch"]
    script = [allocate(name) for name in names]
    want = oracle.device_runtime_script(scenario, script)
    refused = {index: answer.error.message for index, answer in enumerate(want) if answer.error is not None}
    assert list(refused) == [1, 5, 12], refused
    assert "already has 1 live instance" in refused[1] and "already has 3 live instance" in refused[5], refused
    assert "over the usable capacity 200" in refused[12], refused
    _compare(backend.device_runtime_script(scenario, script), want)
