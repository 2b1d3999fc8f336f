"""Checkpoint capacity growth (spec 05 §7.12).

With a ``CheckpointCapacityPolicy`` *and* an authenticated sequence-checkpoint layout
(the state resources it names), each named resource must be a dynamic ``value``
descriptor with usage ``state`` and lifetime ``sequence``; its pool may grow by
``floor(maximum_retained_bytes / quantum) x quantum`` (0 -> no entry; two resources of
one pool disagreeing -> reject). Growth only raises a pool's maximum resident bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reference.errors import invalid_plan
from reference.ids import DynamicBackingPoolId, ResourceId
from reference.plan.memory.descriptor import DynamicResourceDescriptor
from reference.plan.memory.enums import AllocationLifetime, BufferUsage
from reference.policy.memory import CheckpointCapacityPolicy

__all__ = ["checkpoint_pool_ceiling", "derive_checkpoint_growth_ceilings", "validate_checkpoint_pool_ceiling"]


def _is_sequence_state_value(descriptor: DynamicResourceDescriptor) -> bool:
    return (
        descriptor.lifetime is AllocationLifetime.SEQUENCE
        and descriptor.usage is BufferUsage.STATE
        and descriptor.kind.is_value
    )


def checkpoint_pool_ceiling(policy: CheckpointCapacityPolicy, descriptor: DynamicResourceDescriptor) -> int:
    """``maximum_retained_bytes`` rounded down to the descriptor's physical allocation quantum."""
    quantum = descriptor.physical_allocation_quantum_bytes()
    return policy.maximum_retained_bytes // quantum * quantum


def derive_checkpoint_growth_ceilings(
    policy: CheckpointCapacityPolicy | None,
    checkpoint_resources: Iterable[ResourceId] | None,
    descriptors: Sequence[DynamicResourceDescriptor],
) -> dict[DynamicBackingPoolId, int]:
    """Per-pool growth ceilings; empty unless both a policy and a checkpoint layout exist."""
    if policy is None or checkpoint_resources is None:
        return {}
    by_id = {d.base_resource_id: d for d in descriptors}
    ceilings: dict[DynamicBackingPoolId, int] = {}
    for resource in sorted(set(checkpoint_resources)):
        descriptor = by_id.get(resource)
        if descriptor is None:
            raise invalid_plan(  # rule: 05.7.12/growth_derivation_needs_layout
                "checkpoint state has no memory descriptor"
            )
        if not _is_sequence_state_value(descriptor):
            raise invalid_plan(  # rule: 05.7.12/growth_derivation_needs_layout
                "checkpoint growth requires certified Sequence state value storage"
            )
        ceiling = checkpoint_pool_ceiling(policy, descriptor)
        if ceiling != 0:
            previous = ceilings.setdefault(descriptor.pool_id, ceiling)
            if previous != ceiling:
                raise invalid_plan(  # rule: 05.7.12/growth_derivation_needs_layout
                    "checkpoint resources disagree on their physical pool quantum"
                )
    return ceilings


def validate_checkpoint_pool_ceiling(
    policy: CheckpointCapacityPolicy | None, members: Sequence[DynamicResourceDescriptor], ceiling: int
) -> None:
    """A non-zero growth needs a policy and a Sequence state member whose rounded cap equals it."""
    if ceiling == 0:
        return
    if policy is None:
        raise invalid_plan(  # rule: 05.7.12/growth_needs_policy_on_decode
            "checkpoint pool growth has no capacity policy"
        )
    if not any(_is_sequence_state_value(d) and checkpoint_pool_ceiling(policy, d) == ceiling for d in members):
        raise invalid_plan(  # rule: 05.9.5/checkpoint_growth_removed_or_cap_changed
            "checkpoint pool growth differs from its State allocation quantum or cap"
        )
