"""Capability catalogs, operation contracts, providers, dynamic storage and the operation runtime registry (spec 03)."""

from reference.catalog.attributes import AttributeConstraint, AttributeSchema, AttributeSpec, AttributeValueKind
from reference.catalog.catalog import (
    MAX_ENGINE_PROVIDER_ROWS,
    MAX_OPERATION_CATALOG_ROWS,
    MAX_OPERATION_PROVIDER_ROWS,
    CapabilityCatalog,
)
from reference.catalog.compatibility import (
    CompatibilityReason,
    ProviderCompatibilityReport,
    ProviderCompatibilityRequest,
    ProviderRejection,
)
from reference.catalog.device import DeviceClass, DeviceDescriptor
from reference.catalog.element_type import ElementType
from reference.catalog.engine import EngineProviderDescriptor
from reference.catalog.execution_semantics import (
    ProviderExecutionRepeatability,
    ProviderExecutionSemantics,
    ProviderReplayEquivalence,
)
from reference.catalog.operation import OperationDescriptor, ProfilePhase, ProviderRequirement
from reference.catalog.oracle import OracleSpec
from reference.catalog.oracle_graph import MAX_REFERENCE_ORACLE_DEPTH
from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.registry import (
    OperationContract,
    OperationPlanningHandle,
    OperationResourceEstimator,
    OperationRuntimeRegistry,
    PlanningAuthority,
)
from reference.catalog.resources import ResourcePresenceRequirement, ResourceRequirements
from reference.catalog.storage import (
    DynamicStorageAllocator,
    DynamicStorageProfile,
    DynamicStorageRequirement,
    DynamicStorageView,
    ProviderStorageBindingRequirement,
    ResolvedValueRole,
)
from reference.catalog.tensor_contract import (
    AliasPolicy,
    BlockedLayout,
    ContiguousLayout,
    DimensionConstraint,
    ExactBytesStride,
    ExactDimension,
    LayoutConstraint,
    MayAlias,
    MustAlias,
    NoAlias,
    RangeDimension,
    StrideConstraint,
    StridedLayout,
    SymbolDimension,
    SymbolStride,
    TensorAccess,
    TensorContract,
)
from reference.catalog.weight_materializer import (
    IDENTITY_WEIGHT_MATERIALIZER_ID,
    MAX_WEIGHT_MATERIALIZERS,
    WeightMaterializationFidelity,
    WeightMaterializerDescriptor,
    validate_weight_materializer_descriptors,
)
from reference.model.semantic_value import CanonicalRational, SemanticValue

__all__ = [
    "IDENTITY_WEIGHT_MATERIALIZER_ID",
    "MAX_ENGINE_PROVIDER_ROWS",
    "MAX_OPERATION_CATALOG_ROWS",
    "MAX_OPERATION_PROVIDER_ROWS",
    "MAX_REFERENCE_ORACLE_DEPTH",
    "MAX_WEIGHT_MATERIALIZERS",
    "AliasPolicy",
    "AttributeConstraint",
    "AttributeSchema",
    "AttributeSpec",
    "AttributeValueKind",
    "BlockedLayout",
    "CanonicalRational",
    "CapabilityCatalog",
    "CompatibilityReason",
    "ContiguousLayout",
    "DeviceClass",
    "DeviceDescriptor",
    "DimensionConstraint",
    "DynamicStorageAllocator",
    "DynamicStorageProfile",
    "DynamicStorageRequirement",
    "DynamicStorageView",
    "ElementType",
    "EngineProviderDescriptor",
    "ExactBytesStride",
    "ExactDimension",
    "LayoutConstraint",
    "MayAlias",
    "MustAlias",
    "NoAlias",
    "OperationContract",
    "OperationDescriptor",
    "OperationPlanningHandle",
    "OperationProviderDescriptor",
    "OperationResourceEstimator",
    "OperationRuntimeRegistry",
    "OracleSpec",
    "PlanningAuthority",
    "ProfilePhase",
    "ProviderCompatibilityReport",
    "ProviderCompatibilityRequest",
    "ProviderExecutionRepeatability",
    "ProviderExecutionSemantics",
    "ProviderRejection",
    "ProviderReplayEquivalence",
    "ProviderRequirement",
    "ProviderStorageBindingRequirement",
    "RangeDimension",
    "ResolvedValueRole",
    "ResourcePresenceRequirement",
    "ResourceRequirements",
    "SemanticValue",
    "StrideConstraint",
    "StridedLayout",
    "SymbolDimension",
    "SymbolStride",
    "TensorAccess",
    "TensorContract",
    "WeightMaterializationFidelity",
    "WeightMaterializerDescriptor",
    "validate_weight_materializer_descriptors",
]
