"""Exact worked numbers of spec 05 §7.16, §7.9, §7.5 and the seed fixtures."""

from __future__ import annotations

from reference.plan import build_execution_plan
from reference.plan.memory import AllocationLifetime, BufferUsage, InvocationLivenessMode, TokensDemand
from seeds.catalogs import catalog
from seeds.policies import policy, policy_with, policy_with_tokens
from seeds.resolution import planning_registry, sequential_planning_registry, sequential_resolved_values
from tests.plan.helpers import family, plan_fixture, raises_kind, resolve, sequential_family


def test_plan_fixture_worked_numbers() -> None:
    memory = plan_fixture(0).memory
    assert memory.device_capacity_bytes == 1 << 20
    assert (memory.policy_capacity_bytes, memory.reserve_bytes, memory.usable_capacity_bytes) == (4096, 128, 3968)
    assert memory.maximum_active_sequences == 3
    assert memory.static_bytes == 48
    assert len(memory.static_allocations) == 2 and len(memory.static_buffer_requests()) == 2
    assert len(memory.dynamic_descriptors) == 4
    assert len(memory.dynamic_pools) == 3
    assert (memory.minimum_request_bytes, memory.minimum_sequence_bytes) == (32, 16)
    assert (memory.minimum_step_bytes, memory.minimum_invocation_peak_bytes) == (0, 64)
    assert memory.minimum_runnable_request_bytes == 112
    assert memory.theoretical_ceiling_bytes == 384
    pool_members = sorted(r for p in memory.dynamic_pools for r in p.resource_ids)
    assert pool_members == sorted(d.base_resource_id for d in memory.dynamic_descriptors)
    state = next(d for d in memory.dynamic_descriptors if d.base_resource_id.value == "resource.state.0")
    assert state.theoretical_maximum_instances == 3 and state.minimum_request_bytes == 16
    persistent = next(a for a in memory.static_allocations if a.usage is BufferUsage.PERSISTENT)
    assert persistent.size_bytes == 32 and persistent.kind.tag == "persistent"


def test_policy_with_4096_256_4() -> None:
    memory = plan_fixture(0, policy_with(4096, 256, 4)).memory
    assert memory.usable_capacity_bytes == 3840
    assert memory.theoretical_ceiling_bytes == 496
    state = next(d for d in memory.dynamic_descriptors if d.usage is BufferUsage.STATE)
    assert state.theoretical_maximum_instances == 4


def test_policy_511_builds_with_ceiling_above_usable() -> None:
    memory = plan_fixture(0, policy(511)).memory
    assert memory.usable_capacity_bytes == 383
    assert memory.theoretical_ceiling_bytes == 384 > memory.usable_capacity_bytes


def test_capacity_above_device_memory_is_rejected() -> None:
    raises_kind("invalid_execution_plan", lambda: plan_fixture(0, policy((1 << 20) + 1)))


def test_sequential_scratch_total_order_reuse() -> None:
    fam, cat, pol = sequential_family(), catalog(), policy(4096)
    planning = sequential_planning_registry(cat)
    first = resolve(
        fam, cat, pol, planning, "node.first",
        sequential_resolved_values("value.input", "resource.sequential.input", "value.intermediate",
                                   "resource.sequential.intermediate"),
    )  # fmt: skip
    second = resolve(
        fam, cat, pol, planning, "node.second",
        sequential_resolved_values("value.intermediate", "resource.sequential.intermediate", "value.output",
                                   "resource.sequential.output"),
    )  # fmt: skip
    plan = build_execution_plan(fam, cat, pol, [first, second])
    assert [d.value for d in plan.nodes[1].dependencies] == ["node.first"]
    memory = plan.memory
    assert memory.invocation_liveness_mode is InvocationLivenessMode.TOTAL_ORDER_REUSE
    assert memory.minimum_invocation_peak_bytes == 96
    scratch = [d for d in memory.dynamic_descriptors if d.usage is BufferUsage.SCRATCH]
    assert sum(d.minimum_request_bytes for d in scratch) == 160
    assert len({d.pool_id for d in scratch}) == 1
    intermediate = next(
        d for d in memory.dynamic_descriptors if d.base_resource_id.value == "resource.sequential.intermediate"
    )
    assert intermediate.lifetime is AllocationLifetime.STEP
    assert intermediate.minimum_request_bytes == intermediate.theoretical_maximum_request_bytes == 16
    assert (memory.minimum_request_bytes, memory.minimum_sequence_bytes, memory.minimum_step_bytes) == (32, 16, 16)
    assert memory.minimum_runnable_request_bytes == 160
    assert memory.static_bytes == 80
    assert memory.theoretical_ceiling_bytes == 752


def test_token_scaled_scratch_binds_runtime_limits() -> None:
    cat = catalog()
    plans = []
    for tokens, expected in ((32, 224), (4096, 28672)):
        pol = policy_with_tokens(4096, 128, 3, tokens)
        planning = planning_registry(cat, 7, 32, "token_scaled_scratch")
        from seeds.resolution import resolved_values

        plan = build_execution_plan(
            family(), cat, pol, [resolve(family(), cat, pol, planning, "node.main", resolved_values(0))]
        )
        scratch = next(d for d in plan.memory.dynamic_descriptors if d.usage is BufferUsage.SCRATCH)
        assert isinstance(scratch.demand, TokensDemand)
        assert scratch.demand.maximum_tokens == tokens
        assert scratch.theoretical_maximum_request_bytes == expected
        plans.append(plan)
    first, second = (p.nodes[0].provider_resources for p in plans)
    assert first.estimate_fingerprint == second.estimate_fingerprint
    assert first.scratch is not None and second.scratch is not None
    assert first.scratch.size_formula == second.scratch.size_formula
