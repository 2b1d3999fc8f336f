"""The memory plan of an execution plan (spec 05 §7): a pure planner with its own typed input.

Entry point: ``build_memory_plan(MemoryPlanInput) -> MemoryPlan``. The budget inequalities
I1-I11 are in ``reference.plan.memory.invariants``.
"""

from reference.plan.memory.allocation import BufferRequest, ResourceAllocation
from reference.plan.memory.build import build_memory_plan, check_planning_ceilings
from reference.plan.memory.checkpoint import derive_checkpoint_growth_ceilings
from reference.plan.memory.demand import (
    MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS,
    ActualSequencesDemand,
    AffineDemand,
    BoundedShapeBucketsDemand,
    DynamicResourceDemand,
    DynamicResourceShape,
    DynamicResourceShapeBucket,
    FixedDemand,
    PagesDemand,
    TokensDemand,
    bind_runtime_limits,
)
from reference.plan.memory.descriptor import DynamicResourceDescriptor, PoolCompatibilityKey
from reference.plan.memory.enums import (
    AllocationKind,
    AllocationLifetime,
    BufferUsage,
    DynamicPoolProvisioningMode,
    InvocationLivenessMode,
    StateInitialization,
    StepResourceSlotKind,
)
from reference.plan.memory.identities import (
    compiler_resource_id,
    pool_id_for,
    weight_arena_resource_id,
    workspace_base_id,
)
from reference.plan.memory.inputs import (
    MemoryNodeInput,
    MemoryPlanInput,
    MemoryStorageComponent,
    MemoryValueInput,
    MemoryWorkspaceInput,
)
from reference.plan.memory.liveness import NodeGraph, PlanNodeLiveness
from reference.plan.memory.plan import MAX_EXECUTION_PLAN_RESOURCE_ROWS, MemoryPlan
from reference.plan.memory.pool import (
    CanonicalU128,
    DynamicBackingPoolSpec,
    DynamicPoolProvisioningPolicy,
    InvocationResourceLiveness,
    StepResourceSlot,
)
from reference.plan.memory.pools import derive_dynamic_pools
from reference.plan.memory.reusable import (
    ResolvedReusableExecutionBucket,
    ReusableExecutionMemoryPlan,
    ReusablePoolWorkspaceBudget,
    derive_reusable_execution,
)
from reference.plan.memory.storage import (
    DynamicStorageContract,
    align_up,
    layout_set_fingerprint,
    physical_allocation_quantum_bytes,
    quantize_storage_bytes,
    static_contiguous_profile,
    tensor_layout_fingerprint,
    workspace_layout_fingerprint,
)

__all__ = [
    "MAX_EXECUTION_PLAN_RESOURCE_ROWS",
    "MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS",
    "ActualSequencesDemand",
    "AffineDemand",
    "AllocationKind",
    "AllocationLifetime",
    "BoundedShapeBucketsDemand",
    "BufferRequest",
    "BufferUsage",
    "CanonicalU128",
    "DynamicBackingPoolSpec",
    "DynamicPoolProvisioningMode",
    "DynamicPoolProvisioningPolicy",
    "DynamicResourceDemand",
    "DynamicResourceDescriptor",
    "DynamicResourceShape",
    "DynamicResourceShapeBucket",
    "DynamicStorageContract",
    "FixedDemand",
    "InvocationLivenessMode",
    "InvocationResourceLiveness",
    "MemoryNodeInput",
    "MemoryPlan",
    "MemoryPlanInput",
    "MemoryStorageComponent",
    "MemoryValueInput",
    "MemoryWorkspaceInput",
    "NodeGraph",
    "PagesDemand",
    "PlanNodeLiveness",
    "PoolCompatibilityKey",
    "ResolvedReusableExecutionBucket",
    "ResourceAllocation",
    "ReusableExecutionMemoryPlan",
    "ReusablePoolWorkspaceBudget",
    "StateInitialization",
    "StepResourceSlot",
    "StepResourceSlotKind",
    "TokensDemand",
    "align_up",
    "bind_runtime_limits",
    "build_memory_plan",
    "check_planning_ceilings",
    "compiler_resource_id",
    "derive_checkpoint_growth_ceilings",
    "derive_dynamic_pools",
    "derive_reusable_execution",
    "layout_set_fingerprint",
    "physical_allocation_quantum_bytes",
    "pool_id_for",
    "quantize_storage_bytes",
    "static_contiguous_profile",
    "tensor_layout_fingerprint",
    "weight_arena_resource_id",
    "workspace_base_id",
    "workspace_layout_fingerprint",
]
