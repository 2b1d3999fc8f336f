"""Row constructors: ``ResourceAllocation``, ``DynamicResourceDescriptor``, ``PoolCompatibilityKey``,
step slots and pool ``validate_local`` (spec 05 §7.6-§7.9) — every rule with a negative test."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from reference.catalog.storage import DynamicStorageProfile
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import NodeId, ResourceId
from reference.model.element import ElementType
from reference.model.state import StateInitialization
from reference.plan.memory import (
    AllocationKind,
    AllocationLifetime,
    BufferUsage,
    CanonicalU128,
    DynamicBackingPoolSpec,
    DynamicResourceDemand,
    DynamicResourceDescriptor,
    DynamicStorageContract,
    InvocationLivenessMode,
    PoolCompatibilityKey,
    ResourceAllocation,
    StepResourceSlot,
    StepResourceSlotKind,
    build_memory_plan,
    layout_set_fingerprint,
    static_contiguous_profile,
    tensor_layout_fingerprint,
    workspace_layout_fingerprint,
)
from reference.versions import ContractVersion
from tests.plan_memory.fixtures import LINEAR, plan_fixture_input

R = ResourceId("resource.x")
N = NodeId("node.main")
VALUE_FP = layout_set_fingerprint([tensor_layout_fingerprint("contiguous")])
VALUE = DynamicStorageContract(LINEAR, VALUE_FP)
WORKSPACE = DynamicStorageContract(LINEAR, workspace_layout_fingerprint())
NONE, ZERO = StateInitialization.NONE, StateInitialization.ZERO
L = AllocationLifetime


def descriptor(**changes: Any) -> DynamicResourceDescriptor:
    args: dict[str, Any] = {
        "base_resource_id": R,
        "demand": DynamicResourceDemand.fixed(16),
        "alignment_bytes": 16,
        "usage": BufferUsage.ACTIVATIONS,
        "element_type": ElementType.F32,
        "lifetime": L.REQUEST,
        "kind": AllocationKind.value(),
        "storage": VALUE,
        "initialization": NONE,
        "theoretical_maximum_instances": 3,
    }
    args.update(changes)
    return DynamicResourceDescriptor.new(**args)


def test_descriptor_accepts_seed_shapes() -> None:
    d = descriptor()
    assert (d.minimum_request_bytes, d.theoretical_maximum_resident_bytes) == (16, 48)
    state = descriptor(usage=BufferUsage.STATE, element_type=ElementType.U8, lifetime=L.SEQUENCE, initialization=ZERO)
    assert state.initialization is ZERO
    scratch = descriptor(
        usage=BufferUsage.SCRATCH,
        element_type=ElementType.U8,
        lifetime=L.INVOCATION,
        kind=AllocationKind.scratch(N),
        storage=WORKSPACE,
    )
    assert scratch.kind.to_wire() == {"scratch": {"node_id": "node.main"}}


@pytest.mark.parametrize(
    "changes",
    [
        {"theoretical_maximum_instances": 0},
        {"alignment_bytes": 0},
        {"alignment_bytes": 3},
        {"lifetime": L.PLAN},
        {"kind": AllocationKind.initialization_scratch()},
        {"kind": AllocationKind.scratch(N), "usage": BufferUsage.SCRATCH, "element_type": ElementType.U8},
        {"kind": AllocationKind.scratch(N), "lifetime": L.INVOCATION, "element_type": ElementType.U8},
        {"kind": AllocationKind.scratch(N), "lifetime": L.INVOCATION, "usage": BufferUsage.SCRATCH},
        {
            "kind": AllocationKind.binding(N),
            "lifetime": L.INVOCATION,
            "usage": BufferUsage.SCRATCH,
            "element_type": ElementType.U8,
        },
        {
            "kind": AllocationKind.persistent(N),
            "lifetime": L.INVOCATION,
            "usage": BufferUsage.PERSISTENT,
            "element_type": ElementType.U8,
        },
        {"kind": AllocationKind.persistent(N), "lifetime": L.REQUEST, "usage": BufferUsage.PERSISTENT},
        {"usage": BufferUsage.WEIGHTS},
        {"initialization": ZERO},
        {"initialization": ZERO, "usage": BufferUsage.STATE, "lifetime": L.REQUEST},
        {"demand": DynamicResourceDemand.actual_sequences(8, 4)},
        {"demand": DynamicResourceDemand.fixed(2**64 - 4)},
    ],
)
def test_descriptor_rules(changes: dict[str, Any]) -> None:
    with pytest.raises(InvalidExecutionPlan):
        descriptor(**changes)


def test_actual_sequence_resident_uses_minimum() -> None:
    d = descriptor(demand=DynamicResourceDemand.actual_sequences(8, 3))
    assert d.theoretical_maximum_request_bytes == 32
    assert d.theoretical_maximum_resident_bytes == 16 * 3  # minimum x instances (U7)


def test_descriptor_wire() -> None:
    d = descriptor()
    assert DynamicResourceDescriptor.from_wire(d.to_wire()) == d
    wire = d.to_wire()
    forged = {**wire, "pool_id": "dynamic-pool/sha256/" + "0" * 64}
    for bad in (
        forged,
        {**wire, "extra": 1},
        {**wire, "alignment_bytes": 3},
        {**wire, "usage": "weights"},
        {k: v for k, v in wire.items() if k != "initialization"},
        {**wire, "pool_id": "pool"},
    ):
        with pytest.raises(Serialization):
            DynamicResourceDescriptor.from_wire(bad)


def test_pool_key_rules() -> None:
    key = PoolCompatibilityKey.of(VALUE, BufferUsage.ACTIVATIONS, ElementType.F32, 16)
    assert PoolCompatibilityKey.from_wire(key.to_wire()) == key
    with pytest.raises(InvalidExecutionPlan):
        PoolCompatibilityKey(LINEAR, BufferUsage.ACTIVATIONS, ElementType.F32, VALUE_FP, 16, ContractVersion(1, 1))
    with pytest.raises(InvalidExecutionPlan):
        PoolCompatibilityKey(LINEAR, BufferUsage.ACTIVATIONS, ElementType.F32, VALUE_FP, 24)
    with pytest.raises(Serialization):
        PoolCompatibilityKey.from_wire({**key.to_wire(), "version": {"major": 2, "minor": 0}})
    with pytest.raises(Serialization):
        PoolCompatibilityKey.from_wire({**key.to_wire(), "logical_layout_fingerprint": "f" * 63})


def test_resource_allocation_rules() -> None:
    row = ResourceAllocation.new(R, 4, 16, BufferUsage.WEIGHTS, ElementType.U8, AllocationKind.value(), VALUE)
    assert (row.instance_stride_bytes, row.size_bytes, row.instance_count, row.lifetime) == (16, 16, 1, L.PLAN)
    paged = DynamicStorageContract(DynamicStorageProfile.paged(4096), workspace_layout_fingerprint())
    assert (
        ResourceAllocation.new(
            R, 4, 16, BufferUsage.PERSISTENT, ElementType.U8, AllocationKind.persistent(N), paged
        ).size_bytes
        == 4096
    )
    for bad in ((0, 16), (4, 0), (4, 48)):
        with pytest.raises(InvalidExecutionPlan):
            ResourceAllocation.new(
                R, bad[0], bad[1], BufferUsage.WEIGHTS, ElementType.U8, AllocationKind.value(), VALUE
            )
    assert ResourceAllocation.from_wire(row.to_wire()) == row
    assert ResourceAllocation.from_wire({**row.to_wire(), "unknown": 1}) == row  # derived serde: lenient
    assert row.buffer_request().to_wire()["size_bytes"] == 16


def test_step_slot_rules() -> None:
    a, b = ResourceId("resource.a"), ResourceId("resource.b")
    assert StepResourceSlot.ordered_single_fence_wave([b, a]).resource_ids == (a, b)
    with pytest.raises(InvalidExecutionPlan):
        StepResourceSlot.ordered_single_fence_wave([a])
    with pytest.raises(InvalidExecutionPlan):
        StepResourceSlot.ordered_single_fence_wave([a, a])
    for slot in (
        StepResourceSlot(StepResourceSlotKind.DEDICATED, ()),
        StepResourceSlot(StepResourceSlotKind.DEDICATED, (a, b)),
        StepResourceSlot(StepResourceSlotKind.ORDERED_SINGLE_FENCE_STEP_WAVE, (a,)),
        StepResourceSlot(StepResourceSlotKind.ORDERED_SINGLE_FENCE_STEP_WAVE, (b, a)),
    ):
        with pytest.raises(InvalidExecutionPlan):
            slot.validate()


@pytest.mark.parametrize("text", ["0", "1", "340282366920938463463374607431768211455", "18446744073709551616"])
def test_canonical_u128_accepts(text: str) -> None:
    assert CanonicalU128.to_wire(CanonicalU128.from_wire(text, context="t")) == text


@pytest.mark.parametrize(
    "raw", ["01", "-1", "+1", "1.0", " 1", "", "340282366920938463463374607431768211456", 5, "1e3"]
)
def test_canonical_u128_rejects(raw: Any) -> None:
    with pytest.raises(Serialization):
        CanonicalU128.from_wire(raw, context="t")


def _pool() -> DynamicBackingPoolSpec:
    plan = build_memory_plan(plan_fixture_input(0))
    return next(p for p in plan.dynamic_pools if p.invocation_liveness)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda p: dataclasses.replace(p, pool_id=type(p.pool_id)("dynamic-pool/sha256/" + "0" * 64)),
        lambda p: dataclasses.replace(p, resource_ids=()),
        lambda p: dataclasses.replace(p, resource_ids=p.resource_ids * 2),
        lambda p: dataclasses.replace(p, checkpoint_growth_ceiling_bytes=16),
        lambda p: dataclasses.replace(p, minimum_request_bytes=p.minimum_request_bytes + 1),
        lambda p: dataclasses.replace(p, theoretical_ceiling_bytes=0),
        lambda p: dataclasses.replace(p, invocation_liveness=()),
        lambda p: dataclasses.replace(p, invocation_liveness_mode=InvocationLivenessMode.NO_INVOCATION_RESOURCES),
        lambda p: dataclasses.replace(p, invocation_liveness=p.invocation_liveness * 2),
        lambda p: dataclasses.replace(p, provisioning=dataclasses.replace(p.provisioning, maximum_resident_bytes=0)),
        lambda p: dataclasses.replace(
            p, step_resource_slots=(StepResourceSlot.dedicated(R), StepResourceSlot.dedicated(R))
        ),
    ],
)
def test_pool_validate_local(mutate: Any) -> None:
    pool = _pool()
    pool.validate_local()
    with pytest.raises(InvalidExecutionPlan):
        mutate(pool).validate_local()
    with pytest.raises(Serialization):
        DynamicBackingPoolSpec.from_wire(mutate(pool).to_wire())


def test_pool_wire_growth_key() -> None:
    pool = _pool()
    wire = pool.to_wire()
    assert "checkpoint_growth_ceiling_bytes" not in wire
    assert DynamicBackingPoolSpec.from_wire(wire) == pool
    assert DynamicBackingPoolSpec.from_wire({**wire, "checkpoint_growth_ceiling_bytes": 0}) == pool  # serde default
    with pytest.raises(Serialization):
        DynamicBackingPoolSpec.from_wire({**wire, "extra": True})
    with pytest.raises(Serialization):
        DynamicBackingPoolSpec.from_wire({**wire, "theoretical_ceiling_bytes": 192})


def test_static_contiguous_profile() -> None:
    assert static_contiguous_profile().to_wire() == {"allocator": "linear_arena", "view": "contiguous"}
