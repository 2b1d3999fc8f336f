"""``MemoryPlan`` (spec 05 §7.11): fields, derivation from rows, validation and wire.

Wire field order: device_capacity_bytes, policy_capacity_bytes, reserve_bytes,
usable_capacity_bytes, maximum_active_sequences, static_bytes, minimum_request_bytes,
minimum_sequence_bytes, minimum_step_bytes, minimum_invocation_peak_bytes,
minimum_runnable_request_bytes, theoretical_ceiling_bytes (u128 decimal string),
static_allocations, dynamic_descriptors, dynamic_pools, reusable_execution (null when
absent), [checkpoint_capacity, omitted when absent], invocation_liveness_mode,
invocation_liveness. ``from_wire`` is the standalone deserializer (deny_unknown_fields +
``validate``, failures ``Serialization``); ``from_wire_canonical`` adds the plan decoder's
canonical round trip (re-serialization must equal the input).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

from reference.canonical import canonical_bytes
from reference.errors import Serialization, VNextError, invalid_plan
from reference.ids import ResourceId
from reference.ints import U64_MAX, U128_MAX, check_uint, checked_add, checked_sub, checked_sum
from reference.model.element import ElementType
from reference.plan.memory.allocation import BufferRequest, ResourceAllocation
from reference.plan.memory.checkpoint import derive_checkpoint_growth_ceilings
from reference.plan.memory.descriptor import DynamicResourceDescriptor
from reference.plan.memory.enums import AllocationLifetime, BufferUsage, InvocationLivenessMode
from reference.plan.memory.liveness import NodeGraph, summarize_pool_invocation_liveness
from reference.plan.memory.pool import CanonicalU128, DynamicBackingPoolSpec, InvocationResourceLiveness
from reference.plan.memory.pools import derive_dynamic_pools, validate_dynamic_pools
from reference.plan.memory.reusable import ReusableExecutionMemoryPlan, derive_reusable_execution
from reference.plan.memory.storage import (
    quantize_storage_bytes,
    static_contiguous_profile,
    workspace_layout_fingerprint,
)
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.reusable import ReusableExecutionPolicy
from reference.wire import WireObject, decode_with

__all__ = ["MAX_EXECUTION_PLAN_RESOURCE_ROWS", "MemoryPlan"]

MAX_EXECUTION_PLAN_RESOURCE_ROWS: Final = 65_536
_CONTEXT: Final = "decode memory plan"
_FIELDS: Final = (
    "device_capacity_bytes",
    "policy_capacity_bytes",
    "reserve_bytes",
    "usable_capacity_bytes",
    "maximum_active_sequences",
    "static_bytes",
    "minimum_request_bytes",
    "minimum_sequence_bytes",
    "minimum_step_bytes",
    "minimum_invocation_peak_bytes",
    "minimum_runnable_request_bytes",
    "theoretical_ceiling_bytes",
    "static_allocations",
    "dynamic_descriptors",
    "dynamic_pools",
    "reusable_execution",
    "checkpoint_capacity",
    "invocation_liveness_mode",
    "invocation_liveness",
)


def _ascending(ids: Sequence[Any]) -> bool:
    return all(a < b for a, b in itertools.pairwise(ids))


@dataclass(frozen=True)
class MemoryPlan:
    """Budgets and rows of one execution plan; build with ``from_core``, check with ``validate``."""

    device_capacity_bytes: int
    policy_capacity_bytes: int
    reserve_bytes: int
    usable_capacity_bytes: int
    maximum_active_sequences: int
    static_bytes: int
    minimum_request_bytes: int
    minimum_sequence_bytes: int
    minimum_step_bytes: int
    minimum_invocation_peak_bytes: int
    minimum_runnable_request_bytes: int
    theoretical_ceiling_bytes: int
    static_allocations: tuple[ResourceAllocation, ...]
    dynamic_descriptors: tuple[DynamicResourceDescriptor, ...]
    dynamic_pools: tuple[DynamicBackingPoolSpec, ...]
    reusable_execution: ReusableExecutionMemoryPlan | None
    checkpoint_capacity: CheckpointCapacityPolicy | None
    invocation_liveness_mode: InvocationLivenessMode
    invocation_liveness: tuple[InvocationResourceLiveness, ...] = field(default=())

    def __post_init__(self) -> None:
        for name in ("static_allocations", "dynamic_descriptors", "dynamic_pools", "invocation_liveness"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        for name in _FIELDS[:11]:
            check_uint(getattr(self, name), 32 if name == "maximum_active_sequences" else 64, name)
        check_uint(self.theoretical_ceiling_bytes, 128, "theoretical_ceiling_bytes")

    # -- derivation ----------------------------------------------------------------
    @classmethod
    def from_core(
        cls,
        *,
        device_capacity_bytes: int,
        policy_capacity_bytes: int,
        reserve_bytes: int,
        maximum_active_sequences: int,
        static_allocations: Iterable[ResourceAllocation],
        dynamic_descriptors: Iterable[DynamicResourceDescriptor],
        graph: NodeGraph,
        reusable_execution_policy: ReusableExecutionPolicy | None = None,
        retained_resources: frozenset[ResourceId] = frozenset(),
        checkpoint_capacity: CheckpointCapacityPolicy | None = None,
        checkpoint_resources: Iterable[ResourceId] | None = None,
    ) -> MemoryPlan:
        """The §7.11 derivation, in order; ends with ``validate``."""
        statics = sorted(static_allocations, key=lambda a: a.resource_id)
        dynamics = sorted(dynamic_descriptors, key=lambda d: d.base_resource_id)
        if len(statics) + len(dynamics) > MAX_EXECUTION_PLAN_RESOURCE_ROWS:
            raise invalid_plan(  # rule: 05.1/resource_rows_limit
                f"execution plan resource rows exceed {MAX_EXECUTION_PLAN_RESOURCE_ROWS}"
            )
        usable = checked_sub(  # rule: 05.7.15/planning_ceilings_prechecked
            policy_capacity_bytes,
            reserve_bytes,
            error=partial(invalid_plan, "usable capacity (reserve exceeds the policy capacity) underflows"),
        )
        by_id = {d.base_resource_id: d for d in dynamics}
        for resource in sorted(retained_resources):
            descriptor = by_id.get(resource)
            if descriptor is None:
                raise invalid_plan(  # rule: 05.7.10/retained_resource_readable
                    f"retained completion resource `{resource.value}` has no dynamic descriptor"
                )
            if descriptor.usage is not BufferUsage.ACTIVATIONS or descriptor.lifetime not in (
                AllocationLifetime.STEP,
                AllocationLifetime.REQUEST,
            ):
                raise invalid_plan(  # rule: 05.7.10/retained_resource_readable
                    f"retained completion resource `{resource.value}` is not a readable activation"
                )
        static_bytes = checked_sum(  # rule: 05.7.11/checked_totals
            (a.size_bytes for a in statics), error=partial(invalid_plan, "static memory total overflows")
        )
        dynamic_capacity = checked_sub(  # rule: 05.7.11/dynamic_capacity_underflow, 05.7.15/i4_static_within_usable
            usable,
            static_bytes,
            error=partial(invalid_plan, "dynamic capacity (static memory exceeds usable capacity) underflows"),
        )
        base_pools = derive_dynamic_pools(dynamics, graph, dynamic_capacity, retained=retained_resources)
        reusable = (
            None
            if reusable_execution_policy is None
            else derive_reusable_execution(reusable_execution_policy, len(graph.nodes), dynamics, base_pools)
        )
        growth = derive_checkpoint_growth_ceilings(checkpoint_capacity, checkpoint_resources, dynamics)
        pools = derive_dynamic_pools(
            dynamics,
            graph,
            dynamic_capacity,
            reusable_ceilings=reusable.pool_workspace_ceilings() if reusable is not None else None,
            retained=retained_resources,
            growth_ceilings=growth,
        )
        mode, liveness = summarize_pool_invocation_liveness(
            (pool.invocation_liveness_mode, pool.invocation_liveness) for pool in pools
        )
        request = checked_sum(  # rule: 05.7.11/minimum_runnable_fits
            (p.minimum_request_bytes for p in pools), error=partial(invalid_plan, "minimum request bytes overflows")
        )
        sequence = checked_sum(  # rule: 05.7.11/minimum_runnable_fits
            (p.minimum_sequence_bytes for p in pools), error=partial(invalid_plan, "minimum sequence bytes overflows")
        )
        step = checked_sum(  # rule: 05.7.11/minimum_runnable_fits
            (p.minimum_step_bytes for p in pools), error=partial(invalid_plan, "minimum step bytes overflows")
        )
        invocation = checked_sum(  # rule: 05.7.11/minimum_runnable_fits
            (p.minimum_invocation_peak_bytes for p in pools),
            error=partial(invalid_plan, "invocation pool minimum bytes overflows"),
        )
        runnable = checked_sum(  # rule: 05.7.11/minimum_runnable_fits, 05.7.15/i5_minimum_runnable_within_usable
            (request, sequence, step, invocation),
            error=partial(invalid_plan, "minimum runnable request bytes overflows"),
        )
        dynamic_ceiling = checked_sum(
            (
                checked_add(
                    p.theoretical_ceiling_bytes,
                    p.reusable_workspace_ceiling_bytes,
                    limit=U128_MAX,
                    error=partial(invalid_plan, "pool overflows"),  # rule: 05.7.11/u128_totals_bounded
                )
                for p in pools
            ),
            limit=U128_MAX,
            error=partial(invalid_plan, "dynamic theoretical total overflows"),  # rule: 05.7.11/u128_totals_bounded
        )
        ceiling = checked_add(
            static_bytes,
            dynamic_ceiling,
            limit=U128_MAX,
            error=partial(invalid_plan, "plan theoretical ceiling overflows"),  # rule: 05.7.11/u128_totals_bounded
        )
        minimum_runnable = checked_add(  # rule: 05.7.11/minimum_runnable_fits
            static_bytes, runnable, error=partial(invalid_plan, "minimum runnable plan bytes overflows")
        )
        if minimum_runnable > usable:
            raise invalid_plan(  # rule: 05.7.11/minimum_runnable_fits, 05.7.15/i5_minimum_runnable_within_usable
                f"minimum runnable plan requires {minimum_runnable} bytes, exceeding usable capacity {usable}"
            )
        plan = cls(
            device_capacity_bytes,
            policy_capacity_bytes,
            reserve_bytes,
            usable,
            maximum_active_sequences,
            static_bytes,
            request,
            sequence,
            step,
            invocation,
            runnable,
            ceiling,
            tuple(statics),
            tuple(dynamics),
            pools,
            reusable,
            checkpoint_capacity,
            mode,
            liveness,
        )
        plan.validate()
        return plan

    # -- accessors -----------------------------------------------------------------
    def capacity_bytes(self) -> int:
        """The usable capacity."""
        return self.usable_capacity_bytes

    def static_buffer_requests(self) -> tuple[BufferRequest, ...]:
        return tuple(a.buffer_request() for a in self.static_allocations)

    @property
    def resource_row_count(self) -> int:
        return len(self.static_allocations) + len(self.dynamic_descriptors)

    # -- validation ----------------------------------------------------------------
    def validate(self) -> None:
        """Every §7.11 rule that can be checked without the plan nodes (``InvalidExecutionPlan``)."""
        if self.maximum_active_sequences == 0:
            raise invalid_plan(  # rule: 05.7.11/mas_at_least_one
                "maximum active sequences protocol ceiling must be non-zero"
            )
        if self.resource_row_count > MAX_EXECUTION_PLAN_RESOURCE_ROWS:
            raise invalid_plan(  # rule: 05.1/decoded_rows_within_wire_cap
                f"execution plan resource rows exceed {MAX_EXECUTION_PLAN_RESOURCE_ROWS}"
            )
        if not (
            _ascending([a.resource_id for a in self.static_allocations])
            and _ascending([d.base_resource_id for d in self.dynamic_descriptors])
            and _ascending([p.pool_id for p in self.dynamic_pools])
        ):
            raise invalid_plan("memory plan resource rows are not canonical")  # rule: 05.7.11/rows_strictly_ascending
        if (
            self.device_capacity_bytes == 0
            or self.policy_capacity_bytes == 0
            or self.policy_capacity_bytes > self.device_capacity_bytes
            or self.reserve_bytes >= self.policy_capacity_bytes
            or self.usable_capacity_bytes != self.policy_capacity_bytes - self.reserve_bytes
        ):
            raise invalid_plan("memory plan capacity or reserve is invalid")  # rule: 05.7.11/capacities_consistent
        seen: set[ResourceId] = set()
        actual_static = 0
        for allocation in self.static_allocations:
            _check_static_row(allocation, seen)
            actual_static = checked_add(  # rule: 05.7.11/static_bytes_matches_rows
                actual_static, allocation.size_bytes, error=partial(invalid_plan, "static allocation total overflows")
            )
        if actual_static != self.static_bytes:
            raise invalid_plan("static byte total is not core-derived")  # rule: 05.7.11/static_bytes_matches_rows
        by_id: dict[ResourceId, DynamicResourceDescriptor] = {}
        for descriptor in self.dynamic_descriptors:
            if descriptor.base_resource_id in seen:
                raise invalid_plan(  # rule: 05.7.11/dynamic_rows_valid
                    f"dynamic resource `{descriptor.base_resource_id.value}` is duplicated"
                )
            seen.add(descriptor.base_resource_id)
            if descriptor.theoretical_maximum_instances == 0 or descriptor.lifetime is AllocationLifetime.PLAN:
                raise invalid_plan(  # rule: 05.7.11/descriptor_rows_prechecked
                    "dynamic descriptor has no instances or a plan-static lifetime"
                )
            descriptor.demand.validate()
            by_id[descriptor.base_resource_id] = descriptor
        reusable_ceilings: dict[Any, int] = {}
        if self.reusable_execution is not None:
            self.reusable_execution.validate_local()
            reusable_ceilings = self.reusable_execution.pool_workspace_ceilings()
        dynamic_capacity = checked_sub(
            self.usable_capacity_bytes, actual_static, error=partial(invalid_plan, "dynamic capacity underflows")
        )  # rule: 05.7.11/stored_totals_derived, 05.7.15/i4_static_within_usable
        aggregates = validate_dynamic_pools(
            self.dynamic_pools, by_id, dynamic_capacity, reusable_ceilings, self.checkpoint_capacity
        )
        mode, liveness = summarize_pool_invocation_liveness(
            (pool.invocation_liveness_mode, pool.invocation_liveness) for pool in self.dynamic_pools
        )
        if mode is not self.invocation_liveness_mode or liveness != self.invocation_liveness:
            raise invalid_plan(  # rule: 05.7.11/liveness_summary_derived, 05.7.11/stored_totals_derived
                "global invocation liveness is not derived from per-pool evidence"
            )
        minimum = checked_sum(  # rule: 05.7.11/stored_totals_derived, 05.7.11/minimum_runnable_within_usable
            (
                aggregates.minimum_request_bytes,
                aggregates.minimum_sequence_bytes,
                aggregates.minimum_step_bytes,
                aggregates.minimum_invocation_peak_bytes,
            ),
            error=partial(invalid_plan, "minimum runnable request bytes overflows"),
        )
        theoretical = actual_static + aggregates.theoretical_ceiling_bytes + aggregates.reusable_workspace_ceiling_bytes
        underived = "dynamic minimum or theoretical ceiling is not core-derived"
        if (
            aggregates.minimum_request_bytes != self.minimum_request_bytes
            or aggregates.minimum_sequence_bytes != self.minimum_sequence_bytes
            or aggregates.minimum_step_bytes != self.minimum_step_bytes
            or aggregates.minimum_invocation_peak_bytes != self.minimum_invocation_peak_bytes
            or minimum != self.minimum_runnable_request_bytes
            or theoretical > U128_MAX
            or theoretical != self.theoretical_ceiling_bytes
        ):
            raise invalid_plan(underived)  # rule: 05.7.11/stored_totals_derived
        if actual_static + minimum > min(self.usable_capacity_bytes, U64_MAX):
            raise invalid_plan(underived)  # rule: 05.7.11/minimum_runnable_within_usable

    # -- wire ----------------------------------------------------------------------
    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: getattr(self, name) for name in _FIELDS[:11]}
        out["theoretical_ceiling_bytes"] = CanonicalU128.to_wire(self.theoretical_ceiling_bytes)
        out["static_allocations"] = [a.to_wire() for a in self.static_allocations]
        out["dynamic_descriptors"] = [d.to_wire() for d in self.dynamic_descriptors]
        out["dynamic_pools"] = [p.to_wire() for p in self.dynamic_pools]
        out["reusable_execution"] = None if self.reusable_execution is None else self.reusable_execution.to_wire()
        if self.checkpoint_capacity is not None:
            out["checkpoint_capacity"] = self.checkpoint_capacity.to_wire()
        out["invocation_liveness_mode"] = self.invocation_liveness_mode.to_wire()
        out["invocation_liveness"] = [row.to_wire() for row in self.invocation_liveness]
        return out

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = _CONTEXT, path: str = "$") -> MemoryPlan:
        """Standalone decode: deny_unknown_fields, typed rows, then ``validate``; failures ``Serialization``."""
        if isinstance(raw, dict):
            raw = {"reusable_execution": None, "checkpoint_capacity": None, **raw}
        obj = WireObject(raw, _FIELDS, type_name="MemoryPlan", context=context, path=path)

        def rows(name: str, decode: Any) -> tuple[Any, ...]:
            items = obj.array(name, max_items=MAX_EXECUTION_PLAN_RESOURCE_ROWS + 1)
            return tuple(decode(item, context=context, path=f"{obj.at(name)}[{i}]") for i, item in enumerate(items))

        numbers = [obj.u32(name) if name == "maximum_active_sequences" else obj.u64(name) for name in _FIELDS[:11]]
        ceiling = CanonicalU128.from_wire(
            obj.raw("theoretical_ceiling_bytes"), context=context, path=obj.at("theoretical_ceiling_bytes")
        )
        statics = rows("static_allocations", ResourceAllocation.from_wire)
        dynamics = rows("dynamic_descriptors", DynamicResourceDescriptor.from_wire)
        pools = rows("dynamic_pools", DynamicBackingPoolSpec.from_wire)
        reusable = obj.optional(
            "reusable_execution",
            lambda value, ctx, at: ReusableExecutionMemoryPlan.from_wire(value, context=ctx, path=at),
        )
        checkpoint = obj.optional(
            "checkpoint_capacity",
            lambda value, ctx, at: CheckpointCapacityPolicy.from_wire(value, context=ctx, path=at),
        )
        mode = InvocationLivenessMode.from_wire(
            obj.raw("invocation_liveness_mode"), context=context, path=obj.at("invocation_liveness_mode")
        )
        liveness = rows("invocation_liveness", InvocationResourceLiveness.from_wire)
        plan = cls(
            **dict(zip(_FIELDS[:11], numbers, strict=True)),
            theoretical_ceiling_bytes=ceiling,
            static_allocations=statics,
            dynamic_descriptors=dynamics,
            dynamic_pools=pools,
            reusable_execution=reusable,
            checkpoint_capacity=checkpoint,
            invocation_liveness_mode=mode,
            invocation_liveness=liveness,
        )
        decode_with(plan.validate, context=context, path=path)
        return plan

    @classmethod
    def from_wire_canonical(cls, raw: Any, *, context: str = _CONTEXT, path: str = "$") -> MemoryPlan:
        """``from_wire`` plus the canonical round trip: unknown, omitted-default or non-canonical data fails."""
        plan = cls.from_wire(raw, context=context, path=path)
        if canonical_bytes(plan.to_wire(), trusted=True) != canonical_bytes(raw, context=context):
            raise Serialization(  # rule: 05.9.1/memory_plan_canonical_helper
                context, f"{path}: memory plan does not re-serialize to its input (non-canonical)"
            )
        return plan


def _check_static_row(allocation: ResourceAllocation, seen: set[ResourceId]) -> None:
    invalid = f"static resource `{allocation.resource_id.value}` is duplicate or invalid"
    if allocation.resource_id in seen:
        raise invalid_plan(invalid)  # rule: 05.7.11/static_row_ids_unique
    stride_ok = False
    if allocation.per_instance_bytes > 0:
        try:
            stride_ok = allocation.instance_stride_bytes == quantize_storage_bytes(
                allocation.per_instance_bytes, allocation.alignment_bytes, allocation.storage.profile
            )
        except VNextError:  # a non-power-of-two alignment or an overflow: the row is invalid
            stride_ok = False
    if (
        not stride_ok
        or allocation.instance_count != 1
        or allocation.size_bytes != allocation.instance_stride_bytes
        or allocation.lifetime is not AllocationLifetime.PLAN
    ):
        raise invalid_plan(invalid)  # rule: 05.7.11/static_row_stride_size
    kind = allocation.kind.tag
    if kind == "value" and allocation.storage.profile != static_contiguous_profile():
        raise invalid_plan(invalid)  # rule: 05.7.11/static_value_row_profile
    if kind == "persistent" and not (
        allocation.usage is BufferUsage.PERSISTENT
        and allocation.element_type is ElementType.U8
        and allocation.storage.logical_layout_fingerprint == workspace_layout_fingerprint()
    ):
        raise invalid_plan(invalid)  # rule: 05.7.11/static_persistent_row
    if kind in ("scratch", "binding"):
        raise invalid_plan(invalid)  # rule: 05.7.11/scratch_binding_never_static
    seen.add(allocation.resource_id)


def plan_rows_sorted(rows: Sequence[ResourceAllocation]) -> bool:
    """Helper for callers: static rows strictly ascending by id."""
    return _ascending([a.resource_id for a in rows])
