"""``TrustedExecutionWeightPlan``: the witness that a retained materializer produced a plan (05 §10.5-10.6).

It has no wire form and no public constructor: only
``WeightMaterializerRegistry.select_exact`` and ``identity(family)`` issue one,
so deserializing an ``ExecutionWeightPlan`` never yields authority. Equality
compares the plan and the descriptor only (not the implementation object).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.errors import InvalidExecutionPlan
from reference.model.prepared import PreparedModelFamily
from reference.model.weight_encoding import WeightComponentSpec
from reference.weights.materializer import IdentityWeightMaterializer, WeightMaterializer
from reference.weights.payload import WeightComponentPayload, WeightComponentSource
from reference.weights.plan import ExecutionWeightPlan

__all__ = ["TrustedExecutionWeightPlan"]

_AUTHORITY: Final = object()


@dataclass(frozen=True, slots=True, eq=False)
class TrustedExecutionWeightPlan:
    """``{plan, descriptor, materializer}``; build with ``identity(family)`` or a registry's ``select_exact``."""

    _plan: ExecutionWeightPlan
    _descriptor: WeightMaterializerDescriptor
    _materializer: WeightMaterializer = field(repr=False)
    _authority: object = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self._authority is not _AUTHORITY:
            raise TypeError("TrustedExecutionWeightPlan is issued only by identity() or a materializer registry")

    @classmethod
    def _issue(
        cls, plan: ExecutionWeightPlan, descriptor: WeightMaterializerDescriptor, materializer: WeightMaterializer
    ) -> TrustedExecutionWeightPlan:
        """Registry-internal (``pub(crate)`` upstream)."""
        return cls(plan, descriptor, materializer, _AUTHORITY)

    @classmethod
    def identity(cls, family: PreparedModelFamily) -> TrustedExecutionWeightPlan:
        """A fresh identity materializer; schema = the family's; identity sources."""
        materializer = IdentityWeightMaterializer()
        descriptor = materializer.descriptor()
        schema = family.weight_schema
        sources = materializer.component_sources(family, schema)
        plan = ExecutionWeightPlan.from_materializer(family, descriptor, schema, sources)
        return cls._issue(plan, descriptor, materializer)

    def plan(self) -> ExecutionWeightPlan:
        return self._plan

    def descriptor(self) -> WeightMaterializerDescriptor:
        return self._descriptor

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TrustedExecutionWeightPlan):
            return NotImplemented
        return self._plan == other._plan and self._descriptor == other._descriptor

    def __hash__(self) -> int:
        return hash((self._plan, self._descriptor))

    # ------------------------------------------------------------------ validation

    def _validate_runtime_authority(self) -> None:
        if self._materializer.descriptor() != self._descriptor:
            raise InvalidExecutionPlan(  # rule: 05.10.6/runtime_authority
                reason=(
                    f"weight materializer `{self._descriptor.id}` runtime authority differs from its trusted descriptor"
                )
            )

    def validate_against_catalog(self, family: PreparedModelFamily, catalog: CapabilityCatalog) -> None:
        """Runtime authority; the catalog's descriptor for the id exists and is equal; plan against materializer."""
        self._validate_runtime_authority()
        if catalog.weight_materializer(self._descriptor.id) != self._descriptor:
            raise InvalidExecutionPlan(  # rule: 05.10.6/validate_against_catalog
                reason=f"weight materializer `{self._descriptor.id}` differs from its capability catalog descriptor"
            )
        self._plan.validate_against_materializer(family, self._descriptor)

    def materialize_components(
        self,
        family: PreparedModelFamily,
        source: WeightComponentSource,
        execution_components: Sequence[WeightComponentSpec],
    ) -> list[WeightComponentPayload]:
        """Materialize one group sharing an ordered source list, checking every payload (05 §10.6)."""
        self._validate_runtime_authority()
        if not execution_components:
            raise InvalidExecutionPlan(  # rule: 05.10.6/materialize_group_lookup
                reason="weight materializer received an empty execution component group"
            )
        planned_by_id = {component.id: component for component in self._plan.schema().components}
        planned: list[WeightComponentSpec] = []
        for requested in execution_components:
            found = planned_by_id.get(requested.id)
            if found is None:
                raise InvalidExecutionPlan(
                    reason=f"execution component `{requested.id}` is absent from the trusted weight plan"
                )  # rule: 05.10.6/group_component_in_plan
            if found != requested:
                raise InvalidExecutionPlan(
                    reason=f"execution component `{requested.id}` differs from the trusted weight plan"
                )  # rule: 05.10.6/group_component_equals_plan
            planned.append(found)
        first = execution_components[0]
        sources = self._plan.component_sources()
        source_ids = sources.get(first.id)
        if source_ids is None:
            raise InvalidExecutionPlan(  # rule: 05.10.6/materialize_group_lookup
                reason=f"execution component `{first.id}` has no source mapping"
            )
        if any(sources.get(component.id) != source_ids for component in execution_components[1:]):
            raise InvalidExecutionPlan(  # rule: 05.10.6/materialize_group_lookup
                reason="grouped execution components do not share one ordered source mapping"
            )
        family_components = {component.id: component for component in family.weight_schema.components}
        source_components: list[WeightComponentSpec] = []
        for source_id in source_ids:
            source_component = family_components.get(source_id)
            if source_component is None:
                raise InvalidExecutionPlan(  # rule: 05.10.6/materialize_group_lookup
                    reason=f"execution component `{first.id}` references unknown source component `{source_id}`"
                )
            source_components.append(source_component)
        payloads = list(self._materializer.materialize_components(source, source_components, planned))
        if len(payloads) != len(planned):
            raise InvalidExecutionPlan(  # rule: 05.10.6/materialize_payload_order_and_id
                reason=(
                    f"weight materializer `{self._descriptor.id}` returned {len(payloads)} payloads "
                    f"for {len(planned)} execution components"
                )
            )
        for payload, component in zip(payloads, planned, strict=True):
            if (
                payload.component_id != component.id
                or payload.external_names != component.external_names
                or payload.dimensions != component.dimensions
                or payload.element_type is not component.physical_element_type()
                or payload.data.nbytes != component.physical_bytes()
            ):
                raise InvalidExecutionPlan(
                    reason=(  # rule: 05.10.6/materialize_payload_count, 05.10.6/materialize_payload_order_and_id
                        f"weight materializer `{self._descriptor.id}` returned invalid or reordered payload "
                        f"for execution component `{component.id}`"
                    )
                )
        return payloads
