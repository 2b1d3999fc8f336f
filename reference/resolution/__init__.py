"""Node resolution and resource estimation (spec 04 §5-§10).

Resolved values (tensor spec, storage, weight binding, value binding), work
shapes, provider workspace formulas and requirements, the estimator request /
raw estimate / trusted ``ProviderResourcePlan``, rejection reasons,
``PlanNodeResolution.resolve`` and the seed's reference estimators.
"""

from reference.resolution.binding import ResolvedValueBinding, validate_resolved_weight_storage
from reference.resolution.estimate import (
    ESTIMATOR_INPUT_FINGERPRINT_CONTEXT,
    OperationResourceEstimate,
    OperationResourceEstimateRequest,
    estimator_input_fingerprint,
    estimator_input_material,
)
from reference.resolution.execution_weights import ExecutionWeightSchemaSource, ExecutionWeightWitness
from reference.resolution.formula import (
    MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS,
    ActualSequencesFormula,
    AffineFormula,
    BoundedShapeBucketsFormula,
    DynamicResourceShapeBucket,
    FixedFormula,
    PagesFormula,
    ProviderWorkspaceSizeFormula,
    TokensFormula,
)
from reference.resolution.node_resolution import (
    PlanNodeResolution,
    profile_available,
    resolution_input_fingerprint,
    validate_provider_resolution,
    validate_resource_contract,
)
from reference.resolution.operation_bindings import validate_resolved_bindings
from reference.resolution.rejection import PlanProviderRejectReason
from reference.resolution.resource_plan import (
    ESTIMATE_FINGERPRINT_CONTEXT,
    WORKSPACE_KINDS,
    ProviderResourcePlan,
    workspace_base_id,
)
from reference.resolution.semantic import (
    node_weight_requirements,
    validate_program_bindings,
    validate_semantic_binding,
)
from reference.resolution.storage import ResolvedStorageComponent, ResolvedValueStorage, storages_overlap
from reference.resolution.tensor_spec import (
    BlockedLayout,
    BlockedTensorPadding,
    ContiguousLayout,
    ResolvedTensorLayout,
    ResolvedTensorSpec,
    StridedLayout,
    tensor_layout_class,
    tensor_layout_fingerprint,
)
from reference.resolution.usage import BufferUsage
from reference.resolution.weight_binding import ResolvedWeightBinding, ResolvedWeightComponentLayout
from reference.resolution.work import ResourceWorkShape, TokenSpanWork, WorkShape
from reference.resolution.workspace import (
    ProviderWorkspaceRequirement,
    ProviderWorkspaceReusePolicy,
    ProviderWorkspaceScope,
    align_up,
)

__all__ = [
    "ESTIMATE_FINGERPRINT_CONTEXT",
    "ESTIMATOR_INPUT_FINGERPRINT_CONTEXT",
    "MAX_PROVIDER_WORKSPACE_SHAPE_BUCKETS",
    "WORKSPACE_KINDS",
    "ActualSequencesFormula",
    "AffineFormula",
    "BlockedLayout",
    "BlockedTensorPadding",
    "BoundedShapeBucketsFormula",
    "BufferUsage",
    "ContiguousLayout",
    "DynamicResourceShapeBucket",
    "ExecutionWeightSchemaSource",
    "ExecutionWeightWitness",
    "FixedFormula",
    "OperationResourceEstimate",
    "OperationResourceEstimateRequest",
    "PagesFormula",
    "PlanNodeResolution",
    "PlanProviderRejectReason",
    "ProviderResourcePlan",
    "ProviderWorkspaceRequirement",
    "ProviderWorkspaceReusePolicy",
    "ProviderWorkspaceScope",
    "ProviderWorkspaceSizeFormula",
    "ResolvedStorageComponent",
    "ResolvedTensorLayout",
    "ResolvedTensorSpec",
    "ResolvedValueBinding",
    "ResolvedValueStorage",
    "ResolvedWeightBinding",
    "ResolvedWeightComponentLayout",
    "ResourceWorkShape",
    "StridedLayout",
    "TokenSpanWork",
    "TokensFormula",
    "WorkShape",
    "align_up",
    "estimator_input_fingerprint",
    "estimator_input_material",
    "node_weight_requirements",
    "profile_available",
    "resolution_input_fingerprint",
    "storages_overlap",
    "tensor_layout_class",
    "tensor_layout_fingerprint",
    "validate_program_bindings",
    "validate_provider_resolution",
    "validate_resolved_bindings",
    "validate_resolved_weight_storage",
    "validate_resource_contract",
    "validate_semantic_binding",
    "workspace_base_id",
]
