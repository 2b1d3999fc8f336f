"""The model layer (spec 02): family providers, registration, preparation, weight schemas,
numerical profiles, programs and semantic metadata. One module per concept:

* ``element`` ElementType; ``tensor`` ProgramTensorSpec / ResolvedTensorLayout;
  ``semantic_value`` CanonicalRational / SemanticValue; ``state`` StateSpec and parts.
* ``weight_encoding`` components and encodings; ``weight_storage`` a bound component's
  storage geometry; ``weight_layout`` the physical layout tree; ``layout_traversal`` its
  traversal and budget pass; ``layout_validation`` the layout validator;
  ``weight_schema`` WeightTensorSpec / WeightSchema.
* ``program`` ModelProgram; ``numerical`` profiles; ``metadata`` semantic metadata.
* ``config`` config identity; ``provider`` the provider ABC; ``registration``
  TypedFamilyRegistration / ModelFamilyDefinition; ``registry`` resolution;
  ``prepared`` PreparedModelFamily; ``revalidate`` an untrusted prepared family against a
  registry. Family documents (``DeclarativeFamily``) live in ``reference.documents.family``.
"""

from __future__ import annotations

from reference.model.element import ElementType
from reference.model.layout_traversal import MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH, MAX_PHYSICAL_WEIGHT_LAYOUT_NODES
from reference.model.metadata import (
    ModelSemanticMetadata,
    SpecialTokenCollision,
    SpecialTokenCollisionPolicy,
    SpecialTokenMetadata,
    SpecialTokenRole,
    TemplateMetadata,
    TokenizerDescriptor,
    validate_metadata,
)
from reference.model.numerical import (
    FamilyNumericalProfiles,
    NumericalExecutionPolicy,
    NumericalExecutionProfile,
    NumericalOperationContract,
)
from reference.model.prepared import (
    MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES,
    PREPARED_MODEL_FAMILY_WIRE_VERSION,
    PreparedModelFamily,
    UnvalidatedPreparedModelFamily,
)
from reference.model.program import (
    ModelProgram,
    ProgramBlock,
    ProgramCheckpointInputs,
    ProgramNode,
    ProgramNodeWorkSpec,
    WeightReference,
)
from reference.model.provider import ModelFamilyProvider
from reference.model.registration import ModelFamilyDefinition, TypedFamilyRegistration
from reference.model.registry import (
    ModelFamilyRegistration,
    ModelFamilyRegistry,
    StaticFamilyRegistry,
    resolve,
    resolve_external,
)
from reference.model.semantic_value import CanonicalRational, SemanticValue
from reference.model.state import (
    StateCapacityDemand,
    StateCheckpointCapability,
    StateInitialization,
    StateLifetime,
    StateSpec,
)
from reference.model.tensor import ProgramTensorSpec, ResolvedTensorLayout
from reference.model.weight_encoding import (
    PhysicalWeightComponentRef,
    QuantizationGrouping,
    QuantizationSpec,
    WeightComponentRole,
    WeightComponentSpec,
    WeightEncoding,
)
from reference.model.weight_layout import PhysicalWeightLayout
from reference.model.weight_schema import WeightSchema, WeightTensorSpec, physical_component_ids

__all__ = [
    "MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH",
    "MAX_PHYSICAL_WEIGHT_LAYOUT_NODES",
    "MAX_PREPARED_MODEL_FAMILY_WIRE_BYTES",
    "PREPARED_MODEL_FAMILY_WIRE_VERSION",
    "CanonicalRational",
    "ElementType",
    "FamilyNumericalProfiles",
    "ModelFamilyDefinition",
    "ModelFamilyProvider",
    "ModelFamilyRegistration",
    "ModelFamilyRegistry",
    "ModelProgram",
    "ModelSemanticMetadata",
    "NumericalExecutionPolicy",
    "NumericalExecutionProfile",
    "NumericalOperationContract",
    "PhysicalWeightComponentRef",
    "PhysicalWeightLayout",
    "PreparedModelFamily",
    "ProgramBlock",
    "ProgramCheckpointInputs",
    "ProgramNode",
    "ProgramNodeWorkSpec",
    "ProgramTensorSpec",
    "QuantizationGrouping",
    "QuantizationSpec",
    "ResolvedTensorLayout",
    "SemanticValue",
    "SpecialTokenCollision",
    "SpecialTokenCollisionPolicy",
    "SpecialTokenMetadata",
    "SpecialTokenRole",
    "StateCapacityDemand",
    "StateCheckpointCapability",
    "StateInitialization",
    "StateLifetime",
    "StateSpec",
    "StaticFamilyRegistry",
    "TemplateMetadata",
    "TokenizerDescriptor",
    "TypedFamilyRegistration",
    "UnvalidatedPreparedModelFamily",
    "WeightComponentRole",
    "WeightComponentSpec",
    "WeightEncoding",
    "WeightReference",
    "WeightSchema",
    "WeightTensorSpec",
    "physical_component_ids",
    "resolve",
    "resolve_external",
    "validate_metadata",
]
