"""Execution planning (spec 05 §2-§9): the plan build, its nodes and wire; the memory plan
lives in ``reference.plan.memory``.

Entry points: ``build_execution_plan(family, catalog, policy, resolutions, *,
completion_retention=(), execution_weights=None)``, the one door to a plan, over
``build_plan(request)`` (``ExecutionPlan::build`` with a ``PlanBuildRequest``);
``decode_untrusted(wire)`` (§9.1); ``ProgramPlanCompiler.compile`` (spec 05 §7.13).
"""

from reference.plan.build import build_execution_plan, build_plan
from reference.plan.decode import UnvalidatedExecutionPlan, decode_untrusted
from reference.plan.execution_plan import ExecutionPlan
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
    "UnvalidatedExecutionPlan",
    "build_execution_plan",
    "build_plan",
    "decode_untrusted",
    "plan_hash_of_material",
]
