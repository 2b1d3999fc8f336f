"""Weight materializers and the execution weight plan (05 §10, seed 002).

* ``payload`` / ``sources``: validated component bytes and the in-memory weight source.
* ``component_sources``: execution-component -> ordered source-component maps.
* ``plan``: ``ExecutionWeightPlan`` (wire value + validation).
* ``materializer``: the ``WeightMaterializer`` protocol and the identity materializer.
* ``trusted``: ``TrustedExecutionWeightPlan``, the unforgeable witness.
* ``registry``: ``WeightMaterializerRegistry`` (identity + up to 63, ``select_exact``).
* ``document``: declarative materializers, registries and selections.

``WeightMaterializerDescriptor`` and ``WeightMaterializationFidelity`` live in
``reference.catalog.weight_materializer`` (the catalog stores them) and are
re-exported here.
"""

from reference.catalog.weight_materializer import (
    IDENTITY_WEIGHT_MATERIALIZER_ID,
    MAX_WEIGHT_MATERIALIZERS,
    WeightMaterializationFidelity,
    WeightMaterializerDescriptor,
)
from reference.weights.component_sources import (
    ComponentSources,
    component_sources_from_wire,
    component_sources_to_wire,
    identity_component_sources,
)
from reference.weights.materializer import IdentityWeightMaterializer, WeightMaterializer
from reference.weights.payload import WeightBytes, WeightComponentPayload, WeightComponentSource
from reference.weights.plan import ExecutionWeightPlan
from reference.weights.registry import MAX_NON_IDENTITY_WEIGHT_MATERIALIZERS, WeightMaterializerRegistry
from reference.weights.sources import InMemoryWeightSource
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = [
    "IDENTITY_WEIGHT_MATERIALIZER_ID",
    "MAX_NON_IDENTITY_WEIGHT_MATERIALIZERS",
    "MAX_WEIGHT_MATERIALIZERS",
    "ComponentSources",
    "ExecutionWeightPlan",
    "IdentityWeightMaterializer",
    "InMemoryWeightSource",
    "TrustedExecutionWeightPlan",
    "WeightBytes",
    "WeightComponentPayload",
    "WeightComponentSource",
    "WeightMaterializationFidelity",
    "WeightMaterializer",
    "WeightMaterializerDescriptor",
    "WeightMaterializerRegistry",
    "component_sources_from_wire",
    "component_sources_to_wire",
    "identity_component_sources",
]
