"""Execution planning (spec 05 §2-§9): the plan build, its nodes and wire; the memory plan
lives in ``reference.plan.memory``.

Entry points: ``build_execution_plan(family, catalog, policy, resolutions, *,
completion_retention=(), execution_weights=None)`` and ``ExecutionPlan.build(request)``
with ``PlanBuildRequest``; ``ProgramPlanCompiler.compile`` (spec 05 §7.13).
"""

from reference.plan.execution_plan import ExecutionPlan, build_execution_plan
from reference.plan.node import (
    NodeTokenBindingProjection,
    NodeWorkContract,
    PlanExactAlias,
    PlanExactAliasKind,
    PlanNode,
    PlanStateEffect,
)
from reference.plan.payload import (
    EXECUTION_PLAN_SCHEMA,
    MAX_EXECUTION_PLAN_WIRE_BYTES,
    ExecutionPlanPayload,
    plan_hash_of_material,
)
from reference.plan.request import CompletionRetentionSpec, PlanBuildRequest
from reference.plan.retained import RetainedCompletionValue
from reference.plan.selection import ProviderSelection, ProviderSelectionReason, RejectedProvider

__all__ = [
    "EXECUTION_PLAN_SCHEMA",
    "MAX_EXECUTION_PLAN_WIRE_BYTES",
    "CompletionRetentionSpec",
    "ExecutionPlan",
    "ExecutionPlanPayload",
    "NodeTokenBindingProjection",
    "NodeWorkContract",
    "PlanBuildRequest",
    "PlanExactAlias",
    "PlanExactAliasKind",
    "PlanNode",
    "PlanStateEffect",
    "ProviderSelection",
    "ProviderSelectionReason",
    "RejectedProvider",
    "RetainedCompletionValue",
    "build_execution_plan",
    "plan_hash_of_material",
]
