"""Storage helpers, layout fingerprints, identity vectors (spec 05 §7.2, §7.3, §11) and checkpoint quanta (§7.12)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.catalog.storage import DynamicStorageProfile
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import NodeId
from reference.ints import U64_MAX
from reference.model.element import ElementType
from reference.plan.memory import (
    BufferUsage,
    DynamicStorageContract,
    PoolCompatibilityKey,
    align_up,
    build_memory_plan,
    compiler_resource_id,
    layout_set_fingerprint,
    physical_allocation_quantum_bytes,
    quantize_storage_bytes,
    static_contiguous_profile,
    tensor_layout_fingerprint,
    weight_arena_resource_id,
    workspace_base_id,
    workspace_layout_fingerprint,
)
from reference.plan.memory.checkpoint import checkpoint_pool_ceiling
from reference.policy.memory import CheckpointCapacityPolicy
from tests.plan_memory.fixtures import LINEAR, plan_fixture_input

CONTIGUOUS_FP = "2ee77f83e72ffcea31cc6ac29a81070a45403f9fe3e3d76aa284ffc351ead457"
WORKSPACE_FP = "309780bb231c537e8511cd06c6de0030f971c09499f8c0504e3bdee811fad897"
SET_FP = "5ecd2941f2c44570bcee3178feaccaeb79f4eb49c6d9a01a0cf61df170fee566"
POOL_ID = "dynamic-pool/sha256/734945ab44a5271759cee9ce960f7e1cc71bd08d812d1b1d67701807b72fff19"
SCRATCH_ID = "resource/scratch/sha256/4076913c86a2c9d6e50c598db42f95917eca9cddefc8f3f56e97f4e84b523c2b"


def test_section_11_vectors() -> None:
    assert tensor_layout_fingerprint("contiguous") == CONTIGUOUS_FP
    assert workspace_layout_fingerprint() == WORKSPACE_FP
    assert layout_set_fingerprint([CONTIGUOUS_FP, CONTIGUOUS_FP]) == SET_FP
    key = PoolCompatibilityKey.of(
        DynamicStorageContract(static_contiguous_profile(), SET_FP), BufferUsage.ACTIVATIONS, ElementType.F32, 16
    )
    assert key.pool_id().value == POOL_ID
    assert workspace_base_id(NodeId("node.main"), "scratch", "3" * 64).value == SCRATCH_ID


def test_seed_plan_uses_the_vectors() -> None:
    plan = build_memory_plan(plan_fixture_input(0))
    activations = next(p for p in plan.dynamic_pools if p.compatibility.usage is BufferUsage.ACTIVATIONS)
    assert activations.pool_id.value == POOL_ID
    weight = plan.static_allocations[0]
    assert weight.to_wire()["storage"]["logical_layout_fingerprint"] == SET_FP


def test_layout_classes() -> None:
    strided = tensor_layout_fingerprint({"strided": {"byte_strides": [4, 16]}})
    assert strided != tensor_layout_fingerprint({"strided": {"byte_strides": [4, 32]}})
    exact = tensor_layout_fingerprint({"blocked": {"block": [2], "axis_order": [0], "padding": "exact"}})
    padded_a = {"blocked": {"block": [3], "axis_order": [0], "padding": {"zero_fill": {"physical_dimensions": [6]}}}}
    padded_b = {"blocked": {"block": [3], "axis_order": [0], "padding": {"zero_fill": {"physical_dimensions": [9]}}}}
    assert tensor_layout_fingerprint(padded_a) == tensor_layout_fingerprint(padded_b)  # zero-fill dims dropped
    assert len({CONTIGUOUS_FP, strided, exact, tensor_layout_fingerprint(padded_a)}) == 4
    assert layout_set_fingerprint([strided, CONTIGUOUS_FP]) == layout_set_fingerprint([CONTIGUOUS_FP, strided])
    with pytest.raises(Serialization):
        tensor_layout_fingerprint("diagonal")


def test_workspace_base_id_rejects_non_canonical_estimate() -> None:
    with pytest.raises(InvalidExecutionPlan):
        workspace_base_id(NodeId("node.main"), "scratch", "3" * 63)
    kinds = {workspace_base_id(NodeId("node.main"), kind, "3" * 64) for kind in ("scratch", "binding", "persistent")}
    assert len(kinds) == 3 and all(k.value.startswith("resource/") for k in kinds)


def test_compiler_ids() -> None:
    fp = "a" * 64
    arena = weight_arena_resource_id(fp, ElementType.F32)
    assert arena == compiler_resource_id("weight-arena", fp, '"f32"')
    assert arena.value.startswith("resource/weight-arena/sha256/")
    assert arena != weight_arena_resource_id(fp, ElementType.U8)
    with pytest.raises(ValueError):
        compiler_resource_id("weights", fp, "x")


@given(st.integers(0, U64_MAX), st.integers(0, 63))
def test_align_up(value: int, shift: int) -> None:
    alignment = 1 << shift
    if value + alignment - 1 > U64_MAX:
        with pytest.raises(InvalidExecutionPlan):
            align_up(value, alignment)
        return
    result = align_up(value, alignment)
    assert result % alignment == 0 and value <= result < value + alignment


@pytest.mark.parametrize("alignment", [0, 3, 12, 2**64])
def test_align_up_rejects_bad_alignment(alignment: int) -> None:
    with pytest.raises(InvalidExecutionPlan):
        align_up(1, alignment)


def test_quantize_and_quantum() -> None:
    paged = DynamicStorageProfile.paged(4096)
    assert quantize_storage_bytes(4, 16, LINEAR) == 16
    assert quantize_storage_bytes(4, 16, paged) == 4096
    assert quantize_storage_bytes(4097, 16, paged) == 8192
    assert physical_allocation_quantum_bytes(16, LINEAR) == 16
    assert physical_allocation_quantum_bytes(16, paged) == 4096
    assert physical_allocation_quantum_bytes(8192, paged) == 8192
    with pytest.raises(InvalidExecutionPlan):
        quantize_storage_bytes(U64_MAX - 100, 16, paged)


@pytest.mark.parametrize(
    ("cap", "growth"), [(65_535, 0), (65_536, 65_536), (65_537, 65_536), (U64_MAX, U64_MAX - 65_535)]
)
def test_checkpoint_quantum_cases(cap: int, growth: int) -> None:
    plan = build_memory_plan(plan_fixture_input(0, profile=DynamicStorageProfile.paged(65_536), capacity=MIB_CAP))
    state = next(d for d in plan.dynamic_descriptors if d.usage is BufferUsage.STATE)
    assert checkpoint_pool_ceiling(CheckpointCapacityPolicy(cap), state) == growth


MIB_CAP = 1 << 20


def test_storage_contract_rules() -> None:
    with pytest.raises(InvalidExecutionPlan):
        DynamicStorageContract(LINEAR, "A" * 64)
    contract = DynamicStorageContract(LINEAR, SET_FP)
    assert DynamicStorageContract.from_wire(contract.to_wire()) == contract
    for bad in (
        {**contract.to_wire(), "extra": 1},
        {"profile": contract.to_wire()["profile"]},
        {**contract.to_wire(), "logical_layout_fingerprint": "x"},
    ):
        with pytest.raises(Serialization):
            DynamicStorageContract.from_wire(bad)
