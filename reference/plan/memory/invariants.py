"""The budget inequalities I1-I11 of spec 05 §7.15, one named check each.

Each ``check_iN_*`` takes a ``MemoryPlan`` and returns ``None`` when the inequality holds,
raising ``InvalidExecutionPlan`` otherwise. ``check_budget_invariants`` runs all eleven.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from reference.errors import invalid_plan
from reference.ints import U64_MAX
from reference.plan.memory.plan import MAX_EXECUTION_PLAN_RESOURCE_ROWS, MemoryPlan

__all__ = [
    "INVARIANTS",
    "check_budget_invariants",
    "check_i1_policy_capacity",
    "check_i2_reserve_below_capacity",
    "check_i3_usable_capacity",
    "check_i4_static_fits",
    "check_i5_minimum_runnable_fits",
    "check_i6_minimum_runnable_is_sum",
    "check_i7_pool_residency",
    "check_i8_theoretical_ceiling",
    "check_i9_scheduler_ceilings",
    "check_i10_row_limit",
    "check_i11_instances_follow_sequences",
]


def check_i1_policy_capacity(plan: MemoryPlan) -> None:
    """I1: ``0 < policy_capacity <= device_capacity``."""
    if not 0 < plan.policy_capacity_bytes <= plan.device_capacity_bytes:
        raise invalid_plan(  # rule: 05.7.15/invariants_harness_side
            "I1: policy capacity must be non-zero and within device memory"
        )


def check_i2_reserve_below_capacity(plan: MemoryPlan) -> None:
    """I2: ``reserve < policy_capacity``."""
    if plan.reserve_bytes >= plan.policy_capacity_bytes:
        raise invalid_plan("I2: reserve must be below the policy capacity")  # rule: 05.7.15/invariants_harness_side


def check_i3_usable_capacity(plan: MemoryPlan) -> None:
    """I3: ``usable = policy_capacity - reserve``."""
    if plan.usable_capacity_bytes != plan.policy_capacity_bytes - plan.reserve_bytes:
        raise invalid_plan(  # rule: 05.7.15/invariants_harness_side
            "I3: usable capacity must be policy capacity minus reserve"
        )


def check_i4_static_fits(plan: MemoryPlan) -> None:
    """I4: ``static = sum(static.size_bytes) <= usable``."""
    if plan.static_bytes != sum(a.size_bytes for a in plan.static_allocations):
        raise invalid_plan("I4: static bytes must be the sum of static rows")  # rule: 05.7.15/invariants_harness_side
    if plan.static_bytes > plan.usable_capacity_bytes:
        raise invalid_plan("I4: static bytes exceed usable capacity")  # rule: 05.7.15/invariants_harness_side


def check_i5_minimum_runnable_fits(plan: MemoryPlan) -> None:
    """I5: ``static + minimum_runnable <= usable``."""
    if plan.static_bytes + plan.minimum_runnable_request_bytes > plan.usable_capacity_bytes:
        raise invalid_plan(  # rule: 05.7.15/invariants_harness_side
            "I5: static plus minimum runnable bytes exceed usable capacity"
        )


def check_i6_minimum_runnable_is_sum(plan: MemoryPlan) -> None:
    """I6: each minimum is the sum over pools, and runnable = request + sequence + step + invocation peak."""
    pools = plan.dynamic_pools
    sums = (
        sum(p.minimum_request_bytes for p in pools),
        sum(p.minimum_sequence_bytes for p in pools),
        sum(p.minimum_step_bytes for p in pools),
        sum(p.minimum_invocation_peak_bytes for p in pools),
    )
    stored = (
        plan.minimum_request_bytes,
        plan.minimum_sequence_bytes,
        plan.minimum_step_bytes,
        plan.minimum_invocation_peak_bytes,
    )
    if sums != stored or plan.minimum_runnable_request_bytes != sum(stored) or sum(stored) > U64_MAX:
        raise invalid_plan(  # rule: 05.7.15/invariants_harness_side
            "I6: minimum runnable bytes are not the sum of the pool minima"
        )


def check_i7_pool_residency(plan: MemoryPlan) -> None:
    """I7: per pool ``0 < min = req+seq+step+inv <= max = min(theoretical+reusable+growth, usable-static)``."""
    dynamic_capacity = plan.usable_capacity_bytes - plan.static_bytes
    for pool in plan.dynamic_pools:
        p = pool.provisioning
        minimum = (
            pool.minimum_request_bytes
            + pool.minimum_sequence_bytes
            + pool.minimum_step_bytes
            + pool.minimum_invocation_peak_bytes
        )
        ceiling = (
            pool.theoretical_ceiling_bytes
            + pool.reusable_workspace_ceiling_bytes
            + pool.checkpoint_growth_ceiling_bytes
        )
        if not (0 < p.minimum_resident_bytes == minimum <= p.maximum_resident_bytes == min(ceiling, dynamic_capacity)):
            raise invalid_plan(  # rule: 05.7.15/invariants_harness_side
                f"I7: pool `{pool.pool_id.value}` residency bounds are inconsistent"
            )


def check_i8_theoretical_ceiling(plan: MemoryPlan) -> None:
    """I8: ``ceiling (u128) = static + sum(pool theoretical + reusable)`` (growth excluded; may exceed usable)."""
    expected = plan.static_bytes + sum(
        p.theoretical_ceiling_bytes + p.reusable_workspace_ceiling_bytes for p in plan.dynamic_pools
    )
    if plan.theoretical_ceiling_bytes != expected:
        raise invalid_plan(  # rule: 05.7.15/invariants_harness_side
            "I8: theoretical ceiling is not static plus pool ceilings"
        )


def check_i9_scheduler_ceilings(plan: MemoryPlan, maximum_scheduled_tokens: int | None = None) -> None:
    """I9: ``maximum_active_sequences >= 1`` and (when given) ``maximum_scheduled_tokens >= 1``."""
    if plan.maximum_active_sequences < 1 or (maximum_scheduled_tokens is not None and maximum_scheduled_tokens < 1):
        raise invalid_plan("I9: scheduler ceilings must be non-zero")  # rule: 05.7.15/invariants_harness_side


def check_i10_row_limit(plan: MemoryPlan) -> None:
    """I10: ``static rows + dynamic rows <= 65 536``."""
    if plan.resource_row_count > MAX_EXECUTION_PLAN_RESOURCE_ROWS:
        raise invalid_plan("I10: resource rows exceed 65536")  # rule: 05.7.15/invariants_harness_side


def check_i11_instances_follow_sequences(plan: MemoryPlan) -> None:
    """I11: every dynamic descriptor's ``theoretical_maximum_instances == maximum_active_sequences``."""
    for descriptor in plan.dynamic_descriptors:
        if descriptor.theoretical_maximum_instances != plan.maximum_active_sequences:
            raise invalid_plan(  # rule: 05.7.15/invariants_harness_side
                f"I11: `{descriptor.base_resource_id.value}` instances differ from maximum active sequences"
            )


INVARIANTS: Final[tuple[Callable[[MemoryPlan], None], ...]] = (
    check_i1_policy_capacity,
    check_i2_reserve_below_capacity,
    check_i3_usable_capacity,
    check_i4_static_fits,
    check_i5_minimum_runnable_fits,
    check_i6_minimum_runnable_is_sum,
    check_i7_pool_residency,
    check_i8_theoretical_ceiling,
    check_i9_scheduler_ceilings,
    check_i10_row_limit,
    check_i11_instances_follow_sequences,
)


def check_budget_invariants(plan: MemoryPlan, maximum_scheduled_tokens: int | None = None) -> None:
    """Run I1-I11 in order; the first violation raises."""
    for check in INVARIANTS:
        if check is check_i9_scheduler_ceilings:
            check_i9_scheduler_ceilings(plan, maximum_scheduled_tokens)
        else:
            check(plan)
