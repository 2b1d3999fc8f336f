"""Policy enums and component structs (spec 04 §2): wire spellings, widths, lenient decoders."""

from __future__ import annotations

from typing import Any

import pytest

from reference.catalog.storage import DynamicStorageProfile
from reference.errors import InvalidExecutionPlan, Serialization
from reference.policy import (
    AdmissionFitPolicy,
    AdmissionPolicy,
    AttentionExecutionPolicy,
    CheckpointCapacityPolicy,
    ExecutionDeterminismRequirement,
    RuntimeMemoryPolicy,
    SchedulingDiscipline,
)
from tests.policy.strategies import LINEAR, paged

CTX = "test policy components"
EAGER_ONLY = {
    "contract_version": {"major": 1, "minor": 0},
    "contract_fingerprint": "bd310dd799501048f0c7de845dd1d52750d76632c2a84e49d8857b89b09e1af4",
    "repeatability": "bitwise_same_runtime",
    "replay_equivalence": "ineligible",
}
EAGER_AND_REPLAY = {
    "contract_version": {"major": 1, "minor": 0},
    "contract_fingerprint": "c090a0186eb5c2db4101e7ceed1845a729cd2b84248622cdd65f8bde1b32b8bf",
    "repeatability": "bitwise_same_runtime",
    "replay_equivalence": "bitwise_eager_equivalent",
}


@pytest.mark.parametrize(
    ("enum", "values"),
    [
        (SchedulingDiscipline, ["first_ready", "priority", "deadline"]),
        (AdmissionFitPolicy, ["immediate_only", "full_input_must_fit"]),
        (AttentionExecutionPolicy, ["auto", "portable", "native-adaptive"]),
        (ExecutionDeterminismRequirement, ["bitwise_same_runtime", "bitwise_same_runtime_with_replay"]),
    ],
)
def test_enum_wire_spellings(enum: Any, values: list[str]) -> None:
    assert [member.to_wire() for member in enum] == values
    for value in values:
        assert enum.from_wire(value, context=CTX).to_wire() == value
    for bad in ["", values[0].upper(), values[-1].replace("-", "_") + "x", 0, None]:
        with pytest.raises(Serialization):
            enum.from_wire(bad, context=CTX)


def test_attention_kebab_case_only() -> None:
    with pytest.raises(Serialization):
        AttentionExecutionPolicy.from_wire("native_adaptive", context=CTX)


def test_attention_resolution() -> None:
    auto, portable, native = AttentionExecutionPolicy
    assert AttentionExecutionPolicy.default() is auto
    assert [p.is_resolved() for p in (auto, portable, native)] == [False, True, True]
    assert auto.resolve(True) is native and auto.resolve(False) is portable
    assert portable.resolve(True) is portable and native.resolve(True) is native
    with pytest.raises(ValueError, match="native-adaptive"):
        native.resolve(False)


def test_determinism_accepts_table() -> None:
    plain, replay = ExecutionDeterminismRequirement
    assert plain.accepts(EAGER_ONLY) and plain.accepts(EAGER_AND_REPLAY)
    assert not replay.accepts(EAGER_ONLY) and replay.accepts(EAGER_AND_REPLAY)
    assert not plain.requires_replay_equivalence() and replay.requires_replay_equivalence()
    other = {**EAGER_AND_REPLAY, "repeatability": "approximate"}
    assert not plain.accepts(other) and not replay.accepts(other)

    class Semantics:
        def to_wire(self) -> dict[str, Any]:
            return EAGER_ONLY

    assert plain.accepts(Semantics()) and not replay.accepts(Semantics())


def test_checkpoint_capacity() -> None:
    assert CheckpointCapacityPolicy(1).to_wire() == {"maximum_retained_bytes": 1}
    with pytest.raises(InvalidExecutionPlan):
        CheckpointCapacityPolicy(0)
    with pytest.raises(ValueError):
        CheckpointCapacityPolicy(2**64)
    assert CheckpointCapacityPolicy.from_wire({"maximum_retained_bytes": 2**64 - 1}, context=CTX).maximum_retained_bytes
    for bad in [
        {"maximum_retained_bytes": 0},
        {"maximum_retained_bytes": -1},
        {},
        {"maximum_retained_bytes": 1, "x": 2},
    ]:
        with pytest.raises(Serialization):
            CheckpointCapacityPolicy.from_wire(bad, context=CTX)


def _memory_wire() -> dict[str, Any]:
    return {
        "capacity_bytes": 4096,
        "reserve_bytes": 128,
        "maximum_active_sequences": 3,
        "dynamic_storage_profile_order": [LINEAR, paged(4096)],
    }


def test_memory_policy_wire() -> None:
    wire = _memory_wire()
    memory = RuntimeMemoryPolicy.from_wire(wire, context=CTX)
    assert memory.to_wire() == wire
    assert list(memory.to_wire()) == list(wire)
    with_checkpoint = {**wire, "checkpoint_capacity": {"maximum_retained_bytes": 5}}
    assert RuntimeMemoryPolicy.from_wire(with_checkpoint, context=CTX).to_wire() == with_checkpoint
    assert RuntimeMemoryPolicy.from_wire({**wire, "checkpoint_capacity": None}, context=CTX) == memory
    assert RuntimeMemoryPolicy.from_wire({**wire, "unknown": [1]}, context=CTX) == memory


def test_memory_policy_has_no_rules_of_its_own() -> None:
    memory = RuntimeMemoryPolicy(0, 5, 0, ())
    assert memory.to_wire()["dynamic_storage_profile_order"] == []


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("capacity_bytes", -1),
        ("capacity_bytes", 2**64),
        ("maximum_active_sequences", 2**32),
        ("reserve_bytes", True),
        (
            "dynamic_storage_profile_order",
            [{"allocator": "linear_arena", "view": {"paged_regions": {"block_bytes": 16}}}],
        ),
        (
            "dynamic_storage_profile_order",
            [{"allocator": {"fixed_block_arena": {"block_bytes": 3}}, "view": "contiguous"}],
        ),
        ("dynamic_storage_profile_order", [{**LINEAR, "extra": 1}]),
        ("dynamic_storage_profile_order", {}),
    ],
)
def test_memory_policy_wire_rejections(key: str, value: Any) -> None:
    with pytest.raises(Serialization):
        RuntimeMemoryPolicy.from_wire({**_memory_wire(), key: value}, context=CTX)


def test_memory_policy_constructor_widths() -> None:
    profile = DynamicStorageProfile.linear_contiguous()
    with pytest.raises(ValueError):
        RuntimeMemoryPolicy(2**64, 0, 1, (profile,))
    with pytest.raises(TypeError):
        RuntimeMemoryPolicy(1, 0, True, (profile,))
    with pytest.raises(TypeError):
        RuntimeMemoryPolicy(1, 0, 1, (profile,), 5)  # type: ignore[arg-type]


def _admission_wire() -> dict[str, Any]:
    return {
        "maximum_queue_depth": 8,
        "maximum_scheduled_tokens": 4096,
        "sequence_fit_policy": "immediate_only",
        "allow_defer": True,
        "cancellation_check_interval_steps": 1,
    }


def test_admission_policy_wire() -> None:
    wire = _admission_wire()
    admission = AdmissionPolicy.from_wire(wire, context=CTX)
    assert admission.to_wire() == wire and list(admission.to_wire()) == list(wire)
    assert AdmissionPolicy.from_wire({**wire, "later": 1}, context=CTX) == admission
    assert AdmissionPolicy.from_wire({**wire, "sequence_fit_policy": "full_input_must_fit"}, context=CTX)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("maximum_queue_depth", 2**32),
        ("maximum_scheduled_tokens", -1),
        ("sequence_fit_policy", "deferred"),
        ("allow_defer", "yes"),
        ("allow_defer", 1),
        ("cancellation_check_interval_steps", 1.5),
    ],
)
def test_admission_policy_wire_rejections(key: str, value: Any) -> None:
    with pytest.raises(Serialization):
        AdmissionPolicy.from_wire({**_admission_wire(), key: value}, context=CTX)


@pytest.mark.parametrize("key", list(_admission_wire()))
def test_admission_policy_fields_required(key: str) -> None:
    wire = _admission_wire()
    del wire[key]
    with pytest.raises(Serialization):
        AdmissionPolicy.from_wire(wire, context=CTX)


def test_admission_constructor_widths() -> None:
    with pytest.raises(TypeError):
        AdmissionPolicy(1, 1, AdmissionFitPolicy.IMMEDIATE_ONLY, 1, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        AdmissionPolicy(1, 1, "sometimes", True, 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        AdmissionPolicy(2**32, 1, AdmissionFitPolicy.IMMEDIATE_ONLY, True, 1)
