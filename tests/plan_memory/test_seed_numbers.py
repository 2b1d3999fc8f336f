"""Worked numbers of spec 05 §7.16 / §7.9 (upstream-asserted and derived) reproduced exactly."""

from __future__ import annotations

import pytest

from reference.errors import InvalidExecutionPlan
from reference.ids import NodeId, ResourceId
from reference.model.element import ElementType
from reference.plan.memory import (
    AllocationKind,
    AllocationLifetime,
    BufferUsage,
    InvocationLivenessMode,
    StepResourceSlotKind,
    build_memory_plan,
    workspace_base_id,
)
from reference.plan.memory.invariants import check_budget_invariants
from tests.plan_memory.fixtures import (
    ESTIMATE,
    MIB,
    graph_alias_nodes,
    graph_state_nodes,
    plan_fixture_input,
    plan_input,
    sequential_scratch_nodes,
)


@pytest.mark.parametrize("variant", [0, 1, 7])
def test_plan_fixture_numbers(variant: int) -> None:
    plan = build_memory_plan(plan_fixture_input(variant))
    assert (plan.device_capacity_bytes, plan.policy_capacity_bytes, plan.reserve_bytes) == (MIB, 4096, 128)
    assert plan.usable_capacity_bytes == plan.capacity_bytes() == 3968
    assert plan.maximum_active_sequences == 3
    assert plan.static_bytes == 48
    sizes = {a.kind.tag: (a.resource_id.value, a.size_bytes) for a in plan.static_allocations}
    assert sizes["value"] == (f"resource.weight.{variant}", 16)
    assert sizes["persistent"] == (workspace_base_id(NodeId("node.main"), "persistent", ESTIMATE).value, 32)
    assert len(plan.static_allocations) == 2 and len(plan.static_buffer_requests()) == 2
    persistent = next(a for a in plan.static_allocations if a.kind.tag == "persistent")
    assert (persistent.usage, persistent.lifetime, persistent.size_bytes) == (
        BufferUsage.PERSISTENT,
        AllocationLifetime.PLAN,
        32,
    )
    assert len(plan.dynamic_descriptors) == 4
    by_id = {d.base_resource_id.value: d for d in plan.dynamic_descriptors}
    state = by_id[f"resource.state.{variant}"]
    assert (state.lifetime, state.minimum_request_bytes, state.theoretical_maximum_instances) == (
        AllocationLifetime.SEQUENCE,
        16,
        3,
    )
    assert state.to_wire()["demand"] == {"fixed": {"bytes": 4}}
    assert state.initialization.value == "zero"
    for name in ("input", "output"):
        row = by_id[f"resource.{name}.{variant}"]
        assert (row.lifetime, row.minimum_request_bytes) == (AllocationLifetime.REQUEST, 16)
    scratch = next(d for d in plan.dynamic_descriptors if d.kind.tag == "scratch")
    assert (scratch.lifetime, scratch.minimum_request_bytes, scratch.alignment_bytes, scratch.usage) == (
        AllocationLifetime.INVOCATION,
        64,
        16,
        BufferUsage.SCRATCH,
    )
    assert scratch.theoretical_maximum_instances == 3
    assert len(plan.dynamic_pools) == 3
    assert [p.pool_id for p in plan.dynamic_pools] == sorted(p.pool_id for p in plan.dynamic_pools)
    members = sorted(r for p in plan.dynamic_pools for r in p.resource_ids)
    assert members == sorted(d.base_resource_id for d in plan.dynamic_descriptors)
    usages = sorted((p.compatibility.usage.value, p.compatibility.element_type.value) for p in plan.dynamic_pools)
    assert usages == [("activations", "f32"), ("scratch", "u8"), ("state", "u8")]
    for pool in plan.dynamic_pools:
        p = pool.provisioning
        assert p.mode.value == "demand_driven_elastic"
        assert p.minimum_resident_bytes <= p.maximum_resident_bytes <= pool.theoretical_ceiling_bytes
    assert (plan.minimum_request_bytes, plan.minimum_sequence_bytes, plan.minimum_step_bytes) == (32, 16, 0)
    assert plan.minimum_invocation_peak_bytes == 64
    assert plan.minimum_runnable_request_bytes == 112
    assert plan.theoretical_ceiling_bytes == 48 + 3 * (16 + 16 + 16 + 64) == 384
    assert plan.reusable_execution is None and plan.checkpoint_capacity is None
    check_budget_invariants(plan, 4096)


def test_policy_with_4096_256_4() -> None:
    plan = build_memory_plan(plan_fixture_input(0, reserve=256, mas=4))
    assert plan.usable_capacity_bytes == 3840
    assert plan.theoretical_ceiling_bytes == 496
    assert {d.theoretical_maximum_instances for d in plan.dynamic_descriptors} == {4}
    assert plan.minimum_runnable_request_bytes == 112


def test_policy_511_builds_with_ceiling_above_usable() -> None:
    plan = build_memory_plan(plan_fixture_input(0, capacity=511))
    assert plan.usable_capacity_bytes == 383
    assert plan.theoretical_ceiling_bytes == 384 > plan.usable_capacity_bytes


def test_capacity_above_device_rejected() -> None:
    with pytest.raises(InvalidExecutionPlan):
        build_memory_plan(plan_fixture_input(0, capacity=MIB + 1))


def test_smallest_building_capacity_is_static_plus_runnable_plus_reserve() -> None:
    # static 48 + runnable 112 = 160 usable, reserve 128 -> capacity 288 builds, 287 does not.
    assert build_memory_plan(plan_fixture_input(0, capacity=288)).usable_capacity_bytes == 160
    with pytest.raises(InvalidExecutionPlan):
        build_memory_plan(plan_fixture_input(0, capacity=287))


def test_sequential_scratch_total_order_reuse() -> None:
    plan = build_memory_plan(plan_input(sequential_scratch_nodes(), capacity=16384))
    scratch_pool = next(p for p in plan.dynamic_pools if p.compatibility.usage is BufferUsage.SCRATCH)
    assert len(scratch_pool.resource_ids) == 2
    assert scratch_pool.compatibility.element_type is ElementType.U8
    assert scratch_pool.compatibility.alignment_bytes == 16
    assert scratch_pool.invocation_liveness_mode is InvocationLivenessMode.TOTAL_ORDER_REUSE
    assert scratch_pool.minimum_invocation_peak_bytes == 96 == max(64, 96)
    scratch_minima = sorted(d.minimum_request_bytes for d in plan.dynamic_descriptors if d.kind.tag == "scratch")
    assert scratch_minima == [64, 96] and sum(scratch_minima) == 160
    intermediate = next(
        d for d in plan.dynamic_descriptors if d.base_resource_id == ResourceId("resource.intermediate")
    )
    assert intermediate.lifetime is AllocationLifetime.STEP
    assert (intermediate.minimum_request_bytes, intermediate.theoretical_maximum_request_bytes) == (16, 16)
    assert (plan.minimum_request_bytes, plan.minimum_sequence_bytes, plan.minimum_step_bytes) == (32, 16, 16)
    assert plan.minimum_invocation_peak_bytes == 96
    assert plan.minimum_runnable_request_bytes == 160
    assert plan.static_bytes == 80
    assert plan.theoretical_ceiling_bytes == 752
    assert plan.invocation_liveness_mode is InvocationLivenessMode.TOTAL_ORDER_REUSE
    assert [row.node_id.value for row in plan.invocation_liveness] == ["node.first", "node.second"]


def test_sequential_scratch_without_dependency_is_conservative() -> None:
    plan = build_memory_plan(plan_input(sequential_scratch_nodes(second_depends=False), capacity=16384))
    assert plan.minimum_invocation_peak_bytes == 160
    assert plan.invocation_liveness_mode is InvocationLivenessMode.CONSERVATIVE_CONCURRENT


def test_graph_alias_numbers() -> None:
    plan = build_memory_plan(plan_input(graph_alias_nodes(), capacity=16384))
    assert (plan.static_bytes, plan.minimum_runnable_request_bytes, plan.theoretical_ceiling_bytes) == (48, 96, 336)
    rows = [d for d in plan.dynamic_descriptors if d.base_resource_id == ResourceId("resource.graph.input.0")]
    assert len(rows) == 1 and rows[0].lifetime is AllocationLifetime.REQUEST


def test_graph_state_chain_numbers() -> None:
    plan = build_memory_plan(plan_input(graph_state_nodes(chain=True), capacity=16384))
    assert (plan.static_bytes, plan.minimum_runnable_request_bytes, plan.theoretical_ceiling_bytes) == (144, 176, 1248)
    assert plan.invocation_liveness_mode is InvocationLivenessMode.TOTAL_ORDER_REUSE
    assert plan.minimum_invocation_peak_bytes == 64
    for pool in plan.dynamic_pools:
        assert all(slot.kind is StepResourceSlotKind.DEDICATED for slot in pool.step_resource_slots)


def test_graph_state_read_only_numbers() -> None:
    plan = build_memory_plan(plan_input(graph_state_nodes(chain=False), capacity=16384))
    assert (plan.static_bytes, plan.minimum_runnable_request_bytes, plan.theoretical_ceiling_bytes) == (80, 208, 704)
    assert plan.invocation_liveness_mode is InvocationLivenessMode.CONSERVATIVE_CONCURRENT
    assert plan.minimum_invocation_peak_bytes == 64 + 64


@pytest.mark.parametrize(("mst", "expected"), [(32, 224), (4096, 28672)])
def test_token_scaled_scratch(mst: int, expected: int) -> None:
    plan = build_memory_plan(plan_fixture_input(0, scratch={"tokens": {"bytes_per_token": 7}}, mst=mst))
    scratch = next(d for d in plan.dynamic_descriptors if d.kind.tag == "scratch")
    assert scratch.kind == AllocationKind.scratch(NodeId("node.main"))
    assert scratch.to_wire()["demand"] == {"tokens": {"bytes_per_token": 7, "maximum_tokens": mst}}
    assert scratch.theoretical_maximum_request_bytes == expected
    assert scratch.minimum_request_bytes == 16
