"""Pool derivation and structural re-derivation (spec 05 §7.8, §7.11).

``derive_dynamic_pools`` groups descriptors by compatibility key (pools sorted by id,
members by resource id) and computes each pool's minima, step slots, invocation
liveness, theoretical ceiling (u128 sum of member resident bytes), reusable ceiling and
checkpoint growth. ``validate_dynamic_pools`` re-derives everything that can be derived
without the plan nodes and returns the plan-level aggregates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from reference.errors import invalid_plan
from reference.ids import DynamicBackingPoolId, ResourceId
from reference.ints import U64_MAX, U128_MAX, checked_add
from reference.plan.memory.checkpoint import validate_checkpoint_pool_ceiling
from reference.plan.memory.descriptor import DynamicResourceDescriptor, PoolCompatibilityKey
from reference.plan.memory.enums import AllocationLifetime, StepResourceSlotKind
from reference.plan.memory.liveness import (
    NodeGraph,
    derive_pool_invocation_liveness,
    derive_pool_step_slots,
    is_reusable_step_activation,
    validate_pool_liveness_rows,
)
from reference.plan.memory.pool import DynamicBackingPoolSpec, StepResourceSlot, pool_combined_ceiling
from reference.policy.memory import CheckpointCapacityPolicy

__all__ = [
    "PoolAggregates",
    "derive_dynamic_pools",
    "group_descriptors",
    "minimum_for_lifetime",
    "step_slot_bytes",
    "validate_dynamic_pools",
]


def group_descriptors(
    descriptors: Sequence[DynamicResourceDescriptor],
) -> dict[DynamicBackingPoolId, tuple[PoolCompatibilityKey, list[DynamicResourceDescriptor]]]:
    """Descriptors by derived pool id (each descriptor's stored pool id must be the derived one)."""
    groups: dict[DynamicBackingPoolId, tuple[PoolCompatibilityKey, list[DynamicResourceDescriptor]]] = {}
    for descriptor in descriptors:
        key = descriptor.compatibility
        pool_id = key.pool_id()
        if descriptor.pool_id != pool_id:
            raise invalid_plan(  # rule: 05.7.8/descriptor_pool_id_stored_derived
                f"dynamic resource `{descriptor.base_resource_id.value}` has a non-derived backing pool id"
            )
        entry = groups.setdefault(pool_id, (key, []))
        if entry[0] != key:
            raise invalid_plan(  # rule: 05.7.8/pool_id_collision_incompatible
                "dynamic backing pool hash collision has incompatible contracts"
            )
        entry[1].append(descriptor)
    for _, members in groups.values():
        members.sort(key=lambda d: d.base_resource_id)
    return dict(sorted(groups.items()))


def minimum_for_lifetime(members: Sequence[DynamicResourceDescriptor], lifetime: AllocationLifetime) -> int:
    """Sum of member minimum request bytes with ``lifetime`` (checked u64)."""
    total = 0
    for descriptor in members:
        if descriptor.lifetime is lifetime:
            total = checked_add(  # rule: 05.7.11/checked_totals
                total,
                descriptor.minimum_request_bytes,
                error=partial(invalid_plan, f"pool {lifetime.value} minimum overflows"),
            )
    return total


def step_slot_bytes(slots: Sequence[StepResourceSlot], by_id: Mapping[ResourceId, DynamicResourceDescriptor]) -> int:
    """Sum over slots of the largest member minimum request bytes (checked u64)."""
    total = 0
    for slot in slots:
        largest = 0
        for resource in slot.resource_ids:
            descriptor = by_id.get(resource)
            if descriptor is None:
                raise invalid_plan(  # rule: 05.7.8/step_slot_members_known
                    "step slot references a missing dynamic descriptor"
                )
            largest = max(largest, descriptor.minimum_request_bytes)
        total = checked_add(  # rule: 05.7.11/checked_totals
            total, largest, error=partial(invalid_plan, "pool step minimum overflows")
        )
    return total


def _theoretical(members: Sequence[DynamicResourceDescriptor]) -> int:
    total = 0
    for descriptor in members:
        total = checked_add(
            total,
            descriptor.theoretical_maximum_resident_bytes,
            limit=U128_MAX,
            error=partial(invalid_plan, "pool theoretical ceiling overflows"),  # rule: 05.7.11/u128_totals_bounded
        )
    return total


def derive_dynamic_pools(
    descriptors: Sequence[DynamicResourceDescriptor],
    graph: NodeGraph,
    dynamic_capacity_bytes: int,
    *,
    reusable_ceilings: Mapping[DynamicBackingPoolId, int] | None = None,
    retained: frozenset[ResourceId] = frozenset(),
    growth_ceilings: Mapping[DynamicBackingPoolId, int] | None = None,
) -> tuple[DynamicBackingPoolSpec, ...]:
    """Every pool of §7.8 from the descriptors and the plan nodes."""
    reusable = dict(reusable_ceilings or {})
    growth = dict(growth_ceilings or {})
    groups = group_descriptors(descriptors)
    if any(pool_id not in groups for pool_id in (*reusable, *growth)):
        raise invalid_plan(  # rule: 05.7.14/derived_ceilings_name_known_pools
            "a reusable or checkpoint ceiling references an unknown dynamic pool"
        )
    pools = []
    for pool_id, (key, members) in groups.items():
        by_id = {d.base_resource_id: d for d in members}
        slots = derive_pool_step_slots(graph, members, retained)
        mode, rows, peak = derive_pool_invocation_liveness(graph, members)
        pools.append(
            DynamicBackingPoolSpec.from_core(
                key,
                tuple(d.base_resource_id for d in members),
                minimum_for_lifetime(members, AllocationLifetime.REQUEST),
                minimum_for_lifetime(members, AllocationLifetime.SEQUENCE),
                step_slot_bytes(slots, by_id),
                peak,
                slots,
                _theoretical(members),
                reusable.get(pool_id, 0),
                growth.get(pool_id, 0),
                dynamic_capacity_bytes,
                mode,
                rows,
            )
        )
    return tuple(pools)


@dataclass(frozen=True, slots=True)
class PoolAggregates:
    """Plan-level sums re-derived from the pools."""

    minimum_request_bytes: int = 0
    minimum_sequence_bytes: int = 0
    minimum_step_bytes: int = 0
    minimum_invocation_peak_bytes: int = 0
    theoretical_ceiling_bytes: int = 0
    reusable_workspace_ceiling_bytes: int = 0


def validate_dynamic_pools(
    pools: Sequence[DynamicBackingPoolSpec],
    descriptors: Mapping[ResourceId, DynamicResourceDescriptor],
    dynamic_capacity_bytes: int,
    reusable_ceilings: Mapping[DynamicBackingPoolId, int],
    checkpoint_capacity: CheckpointCapacityPolicy | None,
) -> PoolAggregates:
    """Pools must be exactly the ones the descriptors imply (everything but node-order evidence)."""
    groups = group_descriptors(list(descriptors.values()))
    if len(pools) != len(groups):
        raise invalid_plan(  # rule: 05.7.11/pools_derived_from_descriptors
            "dynamic backing pool count is not derived from descriptors"
        )
    if any(pool_id not in groups for pool_id in reusable_ceilings):
        raise invalid_plan(  # rule: 05.7.14/pool_reusable_ceilings
            "reusable workspace ceiling references an unknown dynamic pool"
        )
    sums = [0, 0, 0, 0]
    theoretical_total = 0
    reusable_total = 0
    for pool in pools:
        pool.validate_local()
        if pool.pool_id not in groups:
            raise invalid_plan(  # rule: 05.7.8/pool_members_ascending
                "dynamic backing pool has no descriptor members"
            )
        key, members = groups[pool.pool_id]
        if pool.compatibility != key or pool.resource_ids != tuple(d.base_resource_id for d in members):
            raise invalid_plan(  # rule: 05.7.11/pools_derived_from_descriptors
                "dynamic backing pool compatibility or membership is not core-derived"
            )
        by_id = {d.base_resource_id: d for d in members}
        expected_step = {d.base_resource_id for d in members if d.lifetime is AllocationLifetime.STEP}
        actual_step = {r for slot in pool.step_resource_slots for r in slot.resource_ids}
        if actual_step != expected_step:
            raise invalid_plan(  # rule: 05.7.8/slots_ascending_members_unique
                "step resource slots do not cover exactly the pool's Step descriptors"
            )
        for slot in pool.step_resource_slots:
            if slot.kind is StepResourceSlotKind.ORDERED_SINGLE_FENCE_STEP_WAVE and not all(
                is_reusable_step_activation(by_id[r]) for r in slot.resource_ids
            ):
                raise invalid_plan(  # rule: 05.7.9/shared_slot_only_reusable
                    "shared Step slot contains a non-transient activation resource"
                )
        invocation_ids = frozenset(d.base_resource_id for d in members if d.lifetime is AllocationLifetime.INVOCATION)
        peak = validate_pool_liveness_rows(
            pool.invocation_liveness_mode, pool.invocation_liveness, invocation_ids, by_id
        )
        validate_checkpoint_pool_ceiling(checkpoint_capacity, members, pool.checkpoint_growth_ceiling_bytes)
        theoretical = _theoretical(members)
        reusable = reusable_ceilings.get(pool.pool_id, 0)
        combined = pool_combined_ceiling(theoretical, reusable, pool.checkpoint_growth_ceiling_bytes)
        maximum_resident = min(combined, dynamic_capacity_bytes)
        if maximum_resident > U64_MAX:
            raise invalid_plan("pool resident ceiling exceeds u64")  # rule: 05.7.8/resident_ceiling_clamped_u64
        expected = (
            minimum_for_lifetime(members, AllocationLifetime.REQUEST),
            minimum_for_lifetime(members, AllocationLifetime.SEQUENCE),
            step_slot_bytes(pool.step_resource_slots, by_id),
            peak,
            theoretical,
            reusable,
            maximum_resident,
        )
        actual = (
            pool.minimum_request_bytes,
            pool.minimum_sequence_bytes,
            pool.minimum_step_bytes,
            pool.minimum_invocation_peak_bytes,
            pool.theoretical_ceiling_bytes,
            pool.reusable_workspace_ceiling_bytes,
            pool.provisioning.maximum_resident_bytes,
        )
        if actual != expected:
            raise invalid_plan(  # rule: 05.7.11/pools_derived_from_descriptors
                "dynamic backing pool bounds or liveness are not core-derived"
            )
        for index in range(4):
            sums[index] = checked_add(  # rule: 05.7.11/checked_totals
                sums[index], expected[index], error=partial(invalid_plan, "plan dynamic minimum overflows")
            )
        theoretical_total = checked_add(  # rule: 05.7.11/u128_totals_bounded
            theoretical_total,
            theoretical,
            limit=U128_MAX,
            error=partial(invalid_plan, "dynamic theoretical total overflows"),
        )
        reusable_total = checked_add(  # rule: 05.7.11/u128_totals_bounded
            reusable_total, reusable, limit=U128_MAX, error=partial(invalid_plan, "reusable workspace total overflows")
        )
    return PoolAggregates(sums[0], sums[1], sums[2], sums[3], theoretical_total, reusable_total)
