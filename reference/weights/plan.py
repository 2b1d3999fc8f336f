"""``ExecutionWeightPlan``: the physical weight contract carried by a plan as ``execution_weights`` (05 §10.7).

A plain value: constructing or decoding one validates nothing (upstream's
derived deserializer); ``validate_structure``, ``validate_against_family`` and
``validate_against_materializer`` check it, each failure ``InvalidExecutionPlan``
unless the weight schema's own validation names another kind. Owning a plan
grants no authority: only a ``TrustedExecutionWeightPlan`` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from reference.canonical import JsonValue, direct_bytes, fingerprint, is_canonical_sha256
from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.errors import InvalidExecutionPlan
from reference.ids import ModelFamilyId, QuantizationFormatId, WeightId, WeightMaterializerId
from reference.model.prepared import PreparedModelFamily
from reference.model.weight_schema import WeightSchema
from reference.versions import ContractVersion
from reference.weights.component_sources import (
    ComponentSources,
    component_sources_from_wire,
    component_sources_to_wire,
    freeze_component_sources,
    identity_component_sources,
)
from reference.wire import WireObject

__all__ = ["EXECUTION_WEIGHT_PLAN_FIELDS", "ExecutionWeightPlan"]

EXECUTION_WEIGHT_PLAN_FIELDS: Final = (
    "source_schema_fingerprint",
    "materializer_id",
    "materializer_version",
    "materializer_implementation_fingerprint",
    "component_sources",
    "schema",
)
DECODE_CONTEXT: Final = "decode execution weight plan"


class ExecutionWeightPlan:
    """Source-schema fingerprint, materializer provenance, component-source map and execution schema."""

    __slots__ = (
        "_component_sources",
        "_materializer_id",
        "_materializer_implementation_fingerprint",
        "_materializer_version",
        "_schema",
        "_source_schema_fingerprint",
    )
    _source_schema_fingerprint: str
    _materializer_id: WeightMaterializerId
    _materializer_version: ContractVersion
    _materializer_implementation_fingerprint: str
    _component_sources: ComponentSources
    _schema: WeightSchema

    def __init__(
        self,
        source_schema_fingerprint: str,
        materializer_id: WeightMaterializerId,
        materializer_version: ContractVersion,
        materializer_implementation_fingerprint: str,
        component_sources: Mapping[WeightId, Sequence[WeightId]],
        schema: WeightSchema,
    ) -> None:
        """A plain, unvalidated value (what deserialization yields)."""
        if not isinstance(source_schema_fingerprint, str) or not isinstance(
            materializer_implementation_fingerprint, str
        ):
            raise TypeError("fingerprints are strings")
        if not isinstance(materializer_id, WeightMaterializerId) or not isinstance(
            materializer_version, ContractVersion
        ):
            raise TypeError("materializer id / version have the wrong type")
        if not isinstance(schema, WeightSchema):
            raise TypeError("schema must be a WeightSchema")
        values = {
            "_source_schema_fingerprint": source_schema_fingerprint,
            "_materializer_id": materializer_id,
            "_materializer_version": materializer_version,
            "_materializer_implementation_fingerprint": materializer_implementation_fingerprint,
            "_component_sources": freeze_component_sources(component_sources),
            "_schema": schema,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ExecutionWeightPlan is immutable")

    # ------------------------------------------------------------------ constructors

    @classmethod
    def identity(cls, family: PreparedModelFamily) -> ExecutionWeightPlan:
        """The identity plan: the family's own schema, ``{id: [id]}`` sources, identity provenance."""
        descriptor = WeightMaterializerDescriptor.identity()
        schema = family.weight_schema
        return cls.from_materializer(family, descriptor, schema, identity_component_sources(family, schema))

    @classmethod
    def from_materializer(
        cls,
        family: PreparedModelFamily,
        descriptor: WeightMaterializerDescriptor,
        schema: WeightSchema,
        component_sources: Mapping[WeightId, Sequence[WeightId]],
    ) -> ExecutionWeightPlan:
        """Source fingerprint from the family, provenance from ``descriptor``, then
        ``validate_against_materializer``."""
        plan = cls(
            family.weight_schema.fingerprint(),
            descriptor.id,
            descriptor.version,
            descriptor.implementation_fingerprint,
            component_sources,
            schema,
        )
        plan.validate_against_materializer(family, descriptor)
        return plan

    # ------------------------------------------------------------------ accessors

    def source_schema_fingerprint(self) -> str:
        return self._source_schema_fingerprint

    def materializer_id(self) -> WeightMaterializerId:
        return self._materializer_id

    def materializer_version(self) -> ContractVersion:
        return self._materializer_version

    def materializer_implementation_fingerprint(self) -> str:
        return self._materializer_implementation_fingerprint

    def component_sources(self) -> ComponentSources:
        return self._component_sources

    def schema(self) -> WeightSchema:
        return self._schema

    def quantization_formats(self) -> tuple[QuantizationFormatId, ...]:
        """Sorted quantization format ids of the execution schema (what the plan payload lists)."""
        return self._schema.quantization_formats()

    # ------------------------------------------------------------------ wire and fingerprint

    def to_wire(self) -> dict[str, JsonValue]:
        """Fields in declaration order; ``component_sources`` keys sorted."""
        return {
            "source_schema_fingerprint": self._source_schema_fingerprint,
            "materializer_id": self._materializer_id.to_wire(),
            "materializer_version": self._materializer_version.to_wire(),
            "materializer_implementation_fingerprint": self._materializer_implementation_fingerprint,
            "component_sources": component_sources_to_wire(self._component_sources),
            "schema": self._schema.to_wire(),
        }

    def to_json_bytes(self) -> bytes:
        """``serde_json::to_vec``: compact, declaration order."""
        return direct_bytes(self.to_wire(), context="serialize execution weight plan", trusted=True)

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = DECODE_CONTEXT, path: str = "$") -> ExecutionWeightPlan:
        """deny_unknown_fields; structural only (no validation), failures ``Serialization``."""
        obj = WireObject(  # rule when 01.3.6/decode_unknown_field: 05.10.7/weight_plan_decode_deny_unknown
            raw, EXECUTION_WEIGHT_PLAN_FIELDS, type_name="ExecutionWeightPlan", context=context, path=path
        )
        return cls(
            obj.string("source_schema_fingerprint"),
            obj.identity("materializer_id", WeightMaterializerId),
            ContractVersion.from_wire(obj.raw("materializer_version"), context=context),
            obj.string("materializer_implementation_fingerprint"),
            component_sources_from_wire(obj.raw("component_sources"), context, obj.at("component_sources")),
            WeightSchema.from_wire(obj.raw("schema"), context, obj.at("schema")),
        )

    def fingerprint(self) -> str:
        """Canonical (sorted-key) fingerprint of the whole plan."""
        return fingerprint(self.to_wire(), context="fingerprint execution weight plan", trusted=True)

    # ------------------------------------------------------------------ validation

    def validate_structure(self, family_id: ModelFamilyId | str) -> None:
        """Provenance well-formed, schema valid, source map keyed exactly by execution components, lists
        non-empty and duplicate-free."""
        if (
            not is_canonical_sha256(self._source_schema_fingerprint)
            or not is_canonical_sha256(self._materializer_implementation_fingerprint)
            or self._materializer_version.major == 0
        ):
            raise InvalidExecutionPlan(  # rule: 05.10.7/structure_provenance
                reason="execution weight plan provenance is invalid"
            )
        self._schema.validate(family_id.value if isinstance(family_id, ModelFamilyId) else family_id)
        execution_ids = {component.id for component in self._schema.components}
        if execution_ids != set(self._component_sources) or any(
            not ids or len(set(ids)) != len(ids) for ids in self._component_sources.values()
        ):
            raise InvalidExecutionPlan(  # rule: 05.10.7/structure_source_map_keys
                reason="execution weight component source map is incomplete or contains duplicate sources"
            )

    def validate_against_family(self, family: PreparedModelFamily) -> None:
        """Structure; source schema fingerprint; known and covering sources; unchanged logical tensors."""
        self.validate_structure(family.family_id)
        source_schema = family.weight_schema
        if self._source_schema_fingerprint != source_schema.fingerprint():
            raise InvalidExecutionPlan(  # rule: 05.10.7/family_source_fingerprint
                reason="execution weight plan source schema differs from its prepared family"
            )
        source_components = {component.id: component for component in source_schema.components}
        referenced: set[WeightId] = set()
        for execution_id, source_ids in self._component_sources.items():
            for source_id in source_ids:
                if source_id not in source_components:
                    raise InvalidExecutionPlan(  # rule: 05.10.7/family_sources_exist
                        reason=f"execution component `{execution_id}` references unknown source component `{source_id}`"
                    )
                referenced.add(source_id)
        for component_id in sorted(source_components):
            if source_components[component_id].required and component_id not in referenced:
                raise InvalidExecutionPlan(  # rule: 05.10.7/family_required_components_referenced
                    reason=f"required source component `{component_id}` is not represented in the execution weight plan"
                )
        source_tensors = {tensor.id: tensor for tensor in source_schema.tensors}
        execution_tensors = {tensor.id: tensor for tensor in self._schema.tensors}
        if len(source_tensors) != len(execution_tensors) or any(
            (execution := execution_tensors.get(tensor_id)) is None
            or source.dimensions != execution.dimensions
            or source.logical_element_type is not execution.logical_element_type
            or source.required != execution.required
            for tensor_id, source in source_tensors.items()
        ):
            raise InvalidExecutionPlan(
                reason="execution weight schema changes the prepared family's logical tensor contract"
            )  # rule: 05.10.7/family_source_fingerprint, 05.10.7/family_logical_tensors_unchanged

    def validate_against_materializer(
        self, family: PreparedModelFamily, descriptor: WeightMaterializerDescriptor
    ) -> None:
        """Against the family, then id, version and implementation fingerprint equal to ``descriptor``'s."""
        self.validate_against_family(family)
        if (
            self._materializer_id != descriptor.id
            or self._materializer_version != descriptor.version
            or self._materializer_implementation_fingerprint != descriptor.implementation_fingerprint
        ):
            raise InvalidExecutionPlan(  # rule: 05.10.7/materializer_provenance_equal
                reason="execution weight plan differs from its trusted materializer descriptor"
            )

    # ------------------------------------------------------------------ value semantics

    def _key(self) -> tuple[Any, ...]:
        return (
            self._source_schema_fingerprint,
            self._materializer_id,
            self._materializer_version,
            self._materializer_implementation_fingerprint,
            tuple(self._component_sources.items()),
            self._schema,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExecutionWeightPlan):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"ExecutionWeightPlan(materializer_id={self._materializer_id!r}, "
            f"materializer_version={self._materializer_version}, "
            f"components={[c.id.value for c in self._schema.components]})"
        )

    def replace(self, **changes: Any) -> ExecutionWeightPlan:
        """A copy with some fields replaced (an unvalidated value, like a tampered wire)."""
        values: dict[str, Any] = {name: getattr(self, f"_{name}") for name in EXECUTION_WEIGHT_PLAN_FIELDS}
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"unknown ExecutionWeightPlan fields {sorted(unknown)}")
        values.update(changes)
        return ExecutionWeightPlan(**values)
