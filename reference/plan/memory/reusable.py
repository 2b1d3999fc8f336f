"""Reusable execution memory (spec 05 §7.14; wire = decision D-05M-4 for U6).

For a ``ReusableExecutionPolicy``: ``maximum_device_executables = node_count x
startup_capture_case_count x maximum_reusable_lanes`` (checked u64). Per bucket (policy
order) and per base pool, the step budget is the sum over the pool's step slots of the
largest member request at the bucket shape, and the invocation budget is the largest
row (total order) or the sum of rows (concurrent); only non-zero budgets are kept. A
pool's reusable workspace ceiling = sum over buckets of ``(step + invocation) x lanes``.

Wire (deny_unknown_fields everywhere): ``{"maximum_reusable_lanes", "maximum_device_executables",
"buckets": [{"bucket": <ReusableExecutionBucketSpec>, "pool_budgets": [{"pool_id",
"step_bytes", "invocation_bytes"}]}], ["program_policy"]}`` (program policy omitted when absent).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from reference.errors import VNextError, invalid_plan
from reference.ids import DynamicBackingPoolId, ResourceId
from reference.ints import check_uint, checked_add, checked_mul, checked_product
from reference.plan.memory.demand import DynamicResourceShape
from reference.plan.memory.descriptor import DynamicResourceDescriptor
from reference.plan.memory.enums import InvocationLivenessMode
from reference.plan.memory.pool import DynamicBackingPoolSpec
from reference.policy.reusable import (
    MAX_REUSABLE_EXECUTION_BUCKETS,
    ReusableExecutionBucketSpec,
    ReusableExecutionPolicy,
    ReusableExecutionProgramPolicy,
)
from reference.wire import WireObject, decode_with

__all__ = [
    "ResolvedReusableExecutionBucket",
    "ReusableExecutionMemoryPlan",
    "ReusablePoolWorkspaceBudget",
    "derive_reusable_execution",
]


@dataclass(frozen=True, slots=True)
class ReusablePoolWorkspaceBudget:
    """One pool's step and invocation budget at one bucket; the sum is non-zero and fits u64."""

    pool_id: DynamicBackingPoolId
    step_bytes: int
    invocation_bytes: int

    def __post_init__(self) -> None:
        check_uint(self.step_bytes, 64, "step_bytes")
        check_uint(self.invocation_bytes, 64, "invocation_bytes")

    def validate(self) -> None:
        if self.total_bytes() == 0:
            raise invalid_plan(  # rule: 05.7.14/reusable_memory_plan_checked
                "reusable pool workspace budget is empty"
            )

    def total_bytes(self) -> int:
        return checked_add(  # rule: 05.7.14/reusable_memory_plan_checked
            self.step_bytes,
            self.invocation_bytes,
            error=partial(invalid_plan, "reusable pool workspace budget overflows"),
        )

    def to_wire(self) -> dict[str, Any]:
        return {"pool_id": self.pool_id.value, "step_bytes": self.step_bytes, "invocation_bytes": self.invocation_bytes}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ReusablePoolWorkspaceBudget:
        obj = WireObject(
            raw,
            ("pool_id", "step_bytes", "invocation_bytes"),
            type_name="ReusablePoolWorkspaceBudget",
            context=context,
            path=path,
        )
        budget = cls(obj.identity("pool_id", DynamicBackingPoolId), obj.u64("step_bytes"), obj.u64("invocation_bytes"))
        decode_with(budget.validate, context=context, path=path)
        return budget


@dataclass(frozen=True, slots=True)
class ResolvedReusableExecutionBucket:
    """A policy bucket with its per-pool budgets (strictly ascending by pool id)."""

    bucket: ReusableExecutionBucketSpec
    pool_budgets: tuple[ReusablePoolWorkspaceBudget, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "pool_budgets", tuple(self.pool_budgets))

    def validate(self) -> None:
        self.bucket.validate()
        ids = [budget.pool_id for budget in self.pool_budgets]
        if any(a >= b for a, b in itertools.pairwise(ids)):
            raise invalid_plan(  # rule: 05.7.14/reusable_memory_plan_checked, 05.7.14/bucket_pool_budgets
                "resolved reusable bucket pool budgets are duplicate or non-canonical"
            )
        for budget in self.pool_budgets:
            budget.validate()

    def to_wire(self) -> dict[str, Any]:
        return {"bucket": self.bucket.to_wire(), "pool_budgets": [b.to_wire() for b in self.pool_budgets]}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ResolvedReusableExecutionBucket:
        obj = WireObject(
            raw, ("bucket", "pool_budgets"), type_name="ResolvedReusableExecutionBucket", context=context, path=path
        )
        bucket = ReusableExecutionBucketSpec.from_wire(obj.raw("bucket"), context=context, path=obj.at("bucket"))
        budgets = tuple(
            ReusablePoolWorkspaceBudget.from_wire(item, context=context, path=f"{obj.at('pool_budgets')}[{i}]")
            for i, item in enumerate(obj.array("pool_budgets"))
        )
        resolved = cls(bucket, budgets)
        decode_with(resolved.validate, context=context, path=path)
        return resolved


@dataclass(frozen=True, slots=True)
class ReusableExecutionMemoryPlan:
    """Lanes, the device-executable ceiling and the resolved buckets of a reusable policy."""

    maximum_reusable_lanes: int
    maximum_device_executables: int
    buckets: tuple[ResolvedReusableExecutionBucket, ...]
    program_policy: ReusableExecutionProgramPolicy | None = None

    def __post_init__(self) -> None:
        check_uint(self.maximum_reusable_lanes, 32, "maximum_reusable_lanes")
        check_uint(self.maximum_device_executables, 64, "maximum_device_executables")
        object.__setattr__(self, "buckets", tuple(self.buckets))

    def validate_local(self) -> None:
        """Non-zero lanes/executables, 1..=64 buckets, each valid, in canonical policy order."""
        if (
            self.maximum_reusable_lanes == 0
            or self.maximum_device_executables == 0
            or not 1 <= len(self.buckets) <= MAX_REUSABLE_EXECUTION_BUCKETS
        ):
            raise invalid_plan(  # rule: 05.7.14/reusable_memory_plan_checked, 05.7.14/maximum_device_executables
                "reusable execution memory plan has an invalid lane, executable, or bucket count"
            )
        for bucket in self.buckets:
            bucket.validate()
        if tuple(self.policy().buckets) != tuple(b.bucket for b in self.buckets):
            raise invalid_plan(  # rule: 05.7.14/reusable_memory_plan_checked
                "reusable execution memory buckets are non-canonical"
            )

    def policy(self) -> ReusableExecutionPolicy:
        """The policy these buckets canonically came from."""
        policy = ReusableExecutionPolicy.new(self.maximum_reusable_lanes, [b.bucket for b in self.buckets])
        return policy if self.program_policy is None else policy.with_program_policy(self.program_policy)

    def pool_workspace_ceilings(self) -> dict[DynamicBackingPoolId, int]:
        """Per pool: sum over buckets of ``(step + invocation) x lanes`` (checked u64)."""
        totals: dict[DynamicBackingPoolId, int] = {}
        for bucket in self.buckets:
            for budget in bucket.pool_budgets:
                bytes_ = checked_mul(
                    budget.total_bytes(),
                    self.maximum_reusable_lanes,
                    error=partial(invalid_plan, "reusable lane workspace budget overflows"),
                )  # rule: 05.7.14/reusable_memory_plan_checked
                totals[budget.pool_id] = checked_add(  # rule: 05.7.14/reusable_memory_plan_checked
                    totals.get(budget.pool_id, 0),
                    bytes_,
                    error=partial(invalid_plan, "reusable pool workspace ceiling overflows"),
                )
        return totals

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "maximum_reusable_lanes": self.maximum_reusable_lanes,
            "maximum_device_executables": self.maximum_device_executables,
            "buckets": [bucket.to_wire() for bucket in self.buckets],
        }
        if self.program_policy is not None:
            out["program_policy"] = self.program_policy.to_wire()
        return out

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode reusable execution memory plan", path: str = "$"
    ) -> ReusableExecutionMemoryPlan:
        """deny_unknown_fields (``program_policy`` may be missing), then ``validate_local``."""
        if isinstance(raw, dict) and "program_policy" not in raw:
            raw = {**raw, "program_policy": None}
        obj = WireObject(
            raw,
            ("maximum_reusable_lanes", "maximum_device_executables", "buckets", "program_policy"),
            type_name="ReusableExecutionMemoryPlan",
            context=context,
            path=path,
        )
        buckets = tuple(
            ResolvedReusableExecutionBucket.from_wire(item, context=context, path=f"{obj.at('buckets')}[{i}]")
            for i, item in enumerate(obj.array("buckets", max_items=MAX_REUSABLE_EXECUTION_BUCKETS + 1))
        )
        program = obj.optional(
            "program_policy",
            lambda value, ctx, at: ReusableExecutionProgramPolicy.from_wire(value, context=ctx, path=at),
        )
        plan = cls(obj.u32("maximum_reusable_lanes"), obj.u64("maximum_device_executables"), buckets, program)
        decode_with(plan.validate_local, context=context, path=path)
        return plan


def _step_bytes(
    pool: DynamicBackingPoolSpec, by_id: Mapping[ResourceId, DynamicResourceDescriptor], shape: DynamicResourceShape
) -> int:
    total = 0
    for slot in pool.step_resource_slots:
        largest = max(by_id[r].evaluate_request_bytes(shape) for r in slot.resource_ids)
        total = checked_add(  # rule: 05.7.14/reusable_memory_plan_checked
            total, largest, error=partial(invalid_plan, "reusable step workspace budget overflows")
        )
    return total


def _invocation_bytes(
    pool: DynamicBackingPoolSpec, by_id: Mapping[ResourceId, DynamicResourceDescriptor], shape: DynamicResourceShape
) -> int:
    rows = []
    for row in pool.invocation_liveness:
        size = 0
        for resource in row.resource_ids:
            size = checked_add(  # rule: 05.7.14/reusable_row_single_member
                size,
                by_id[resource].evaluate_request_bytes(shape),
                error=partial(invalid_plan, "reusable invocation row budget overflows"),
            )
        rows.append(size)
    if pool.invocation_liveness_mode is InvocationLivenessMode.TOTAL_ORDER_REUSE:
        return max(rows, default=0)
    total = 0
    for size in rows:
        total = checked_add(  # rule: 05.7.14/reusable_memory_plan_checked
            total, size, error=partial(invalid_plan, "reusable concurrent invocation budget overflows")
        )
    return total


def derive_reusable_execution(
    policy: ReusableExecutionPolicy,
    node_count: int,
    descriptors: Sequence[DynamicResourceDescriptor],
    base_pools: Sequence[DynamicBackingPoolSpec],
) -> ReusableExecutionMemoryPlan:
    """The reusable plan of §7.14 over the base pools (those built without reusable ceilings)."""
    try:
        policy.validate()
    except VNextError:
        raise
    if node_count <= 0:
        raise invalid_plan(  # rule: 05.7.14/reusable_plan_has_nodes
            "reusable execution requires at least one plan node"
        )
    overflow = partial(invalid_plan, "reusable device executable count overflows")
    executables = checked_product(  # rule: 05.7.14/reusable_memory_plan_checked
        (node_count, policy.startup_capture_case_count(), policy.maximum_reusable_lanes), error=overflow
    )
    by_id = {d.base_resource_id: d for d in descriptors}
    buckets = []
    for bucket in policy.buckets:
        capacity = bucket.capacity
        shape = DynamicResourceShape(capacity.maximum_sequences, capacity.maximum_tokens, capacity.maximum_pages)
        budgets = []
        for pool in base_pools:
            step = _step_bytes(pool, by_id, shape)
            invocation = _invocation_bytes(pool, by_id, shape)
            if step or invocation:
                budget = ReusablePoolWorkspaceBudget(pool.pool_id, step, invocation)
                budget.validate()
                budgets.append(budget)
        resolved = ResolvedReusableExecutionBucket(bucket, tuple(budgets))
        resolved.validate()
        buckets.append(resolved)
    plan = ReusableExecutionMemoryPlan(
        policy.maximum_reusable_lanes, executables, tuple(buckets), policy.program_policy
    )
    plan.validate_local()
    return plan
