"""The ``WeightMaterializer`` protocol and the identity materializer (05 §10.3, seed 002).

A materializer is trusted code: invoked once while a plan is compiled, it
derives the whole execution schema from the prepared family and the device
(no allocation, no request state); at static initialization the same object
turns source components into exactly the execution components recorded in the
plan. Implementations subclass ``WeightMaterializer`` to inherit the defaults:
``component_sources`` = the identity map (derived components must override it)
and ``materialize_components`` = ``materialize_component`` over the group, in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from reference.catalog.device import DeviceDescriptor
from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.errors import InvalidExecutionPlan
from reference.ids import WeightId
from reference.model.prepared import PreparedModelFamily
from reference.model.weight_encoding import WeightComponentSpec
from reference.model.weight_schema import WeightSchema
from reference.weights.component_sources import identity_component_sources
from reference.weights.payload import WeightComponentPayload, WeightComponentSource

__all__ = ["IdentityWeightMaterializer", "WeightMaterializer"]


class WeightMaterializer(Protocol):
    """Trusted authority for one physical weight transformation."""

    def descriptor(self) -> WeightMaterializerDescriptor:
        """The capability identity this implementation answers for."""
        ...

    def execution_schema(self, family: PreparedModelFamily, device: DeviceDescriptor) -> WeightSchema:
        """The complete physical schema providers, memory planning and initialization consume."""
        ...

    def component_sources(
        self, family: PreparedModelFamily, execution_schema: WeightSchema
    ) -> Mapping[WeightId, Sequence[WeightId]]:
        """Ordered source ids per execution component; default: same-id only."""
        return identity_component_sources(family, execution_schema)

    def materialize_component(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        execution_component: WeightComponentSpec,
    ) -> WeightComponentPayload:
        """Bytes of one execution component from its ordered source components (cold path)."""
        ...

    def materialize_components(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        execution_components: Sequence[WeightComponentSpec],
    ) -> list[WeightComponentPayload]:
        """One payload per execution component sharing one ordered source set, in the same order."""
        return [self.materialize_component(source, source_components, c) for c in execution_components]


class IdentityWeightMaterializer(WeightMaterializer):
    """Execution schema = the family's; each component is lent unchanged from the source."""

    __slots__ = ("_descriptor",)

    def __init__(self) -> None:
        self._descriptor = WeightMaterializerDescriptor.identity()

    def descriptor(self) -> WeightMaterializerDescriptor:
        return self._descriptor

    def execution_schema(self, family: PreparedModelFamily, device: DeviceDescriptor) -> WeightSchema:
        del device
        return family.weight_schema

    def materialize_component(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        execution_component: WeightComponentSpec,
    ) -> WeightComponentPayload:
        """Exactly one source component, equal to the execution component; returns the source payload."""
        if len(source_components) != 1:
            raise InvalidExecutionPlan(  # rule: 05.10.3/identity_materialize
                reason="identity weight materializer requires exactly one source component"
            )
        (source_component,) = source_components
        if source_component != execution_component:
            raise InvalidExecutionPlan(  # rule: 05.10.3/identity_materialize
                reason=f"identity weight materializer cannot transform component `{execution_component.id}`"
            )
        return source.component(source_component)
