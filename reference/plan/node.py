"""Plan node types and their wire form (spec 05 §8.3), fields in Rust declaration order.

``PlanExactAlias``, ``PlanStateEffect``, ``NodeTokenBindingProjection``,
``NodeWorkContract`` (``"fixed"`` | ``{"tokens": {source, projections}}``) and ``PlanNode``.
Every ``from_wire`` is deny_unknown_fields and raises ``Serialization``; nested validating
types (resolved bindings, the provider resource plan) re-run their checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from reference.canonical import JsonValue
from reference.catalog._common import OrderedEnum
from reference.catalog.execution_semantics import ProviderExecutionSemantics
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import TensorAccess
from reference.errors import Serialization
from reference.ids import AttributeId, CapabilityId, NodeId, OperationId, ProgramValueId, ResourceId, StateId
from reference.model.semantic_value import SemanticValue
from reference.plan.memory.enums import AllocationLifetime
from reference.plan.selection import ProviderSelection
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.resource_plan import ProviderResourcePlan
from reference.versions import ContractVersion
from reference.wire import WireObject, read_list, read_tagged

__all__ = [
    "PLAN_NODE_FIELDS",
    "NodeTokenBindingProjection",
    "NodeWorkContract",
    "PlanExactAlias",
    "PlanExactAliasKind",
    "PlanNode",
    "PlanStateEffect",
]


def _ids(raw: Any, cls: Any, *, context: str, path: str) -> tuple[Any, ...]:
    items = read_list(raw, context=context, path=path)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                context, f"{path}[{i}]: expected an identity string"
            )
        try:
            out.append(cls(item))
        except Exception as exc:  # identity constructors raise VNextError / ValueError
            raise Serialization(  # rule: 01.3.6/decode_invalid_identity, 01.1.1/identity_decode_validates
                context, f"{path}[{i}]: invalid identity {item!r}: {exc}"
            ) from None
    return tuple(out)


class PlanExactAliasKind(OrderedEnum):
    MAY_ALIAS = "may_alias"
    MUST_ALIAS = "must_alias"


@dataclass(frozen=True, slots=True)
class PlanExactAlias:
    """Proven exact storage equality of an output with its declared input."""

    output_value_id: ProgramValueId
    output_ordinal: int
    input_value_id: ProgramValueId
    input_ordinal: int
    kind: PlanExactAliasKind

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "output_value_id": self.output_value_id.value,
            "output_ordinal": self.output_ordinal,
            "input_value_id": self.input_value_id.value,
            "input_ordinal": self.input_ordinal,
            "kind": self.kind.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> PlanExactAlias:
        fields = ("output_value_id", "output_ordinal", "input_value_id", "input_ordinal", "kind")
        obj = WireObject(raw, fields, type_name="PlanExactAlias", context=context, path=path)
        return cls(
            obj.identity("output_value_id", ProgramValueId),
            obj.u32("output_ordinal"),
            obj.identity("input_value_id", ProgramValueId),
            obj.u32("input_ordinal"),
            PlanExactAliasKind.from_wire(obj.raw("kind"), context=context, path=obj.at("kind")),
        )


@dataclass(frozen=True, slots=True)
class PlanStateEffect:
    """How one node touches one program state."""

    state_id: StateId
    state_value_id: ProgramValueId
    lifetime: AllocationLifetime
    access: TensorAccess
    resource_ids: tuple[ResourceId, ...]

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "state_id": self.state_id.value,
            "state_value_id": self.state_value_id.value,
            "lifetime": self.lifetime.to_wire(),
            "access": self.access.to_wire(),
            "resource_ids": [r.value for r in self.resource_ids],
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> PlanStateEffect:
        fields = ("state_id", "state_value_id", "lifetime", "access", "resource_ids")
        obj = WireObject(raw, fields, type_name="PlanStateEffect", context=context, path=path)
        return cls(
            obj.identity("state_id", StateId),
            obj.identity("state_value_id", ProgramValueId),
            AllocationLifetime.from_wire(obj.raw("lifetime"), context=context, path=obj.at("lifetime")),
            TensorAccess.from_wire(obj.raw("access"), context=context, path=obj.at("access")),
            _ids(obj.raw("resource_ids"), ResourceId, context=context, path=obj.at("resource_ids")),
        )


@dataclass(frozen=True, slots=True, order=True)
class NodeTokenBindingProjection:
    """One binding axis that advances with the packed token work; derived ``Ord`` = field order."""

    value_id: ProgramValueId
    role: ResolvedValueRole
    ordinal: int
    axis: int
    rank: int
    canonical_extent: int

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "value_id": self.value_id.value,
            "role": self.role.to_wire(),
            "ordinal": self.ordinal,
            "axis": self.axis,
            "rank": self.rank,
            "canonical_extent": self.canonical_extent,
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> NodeTokenBindingProjection:
        fields = ("value_id", "role", "ordinal", "axis", "rank", "canonical_extent")
        obj = WireObject(raw, fields, type_name="NodeTokenBindingProjection", context=context, path=path)
        return cls(
            obj.identity("value_id", ProgramValueId),
            ResolvedValueRole.from_wire(obj.raw("role"), context=context, path=obj.at("role")),
            obj.u32("ordinal"),
            obj.u32("axis"),
            obj.u32("rank"),
            obj.u64("canonical_extent"),
        )


@dataclass(frozen=True, slots=True)
class NodeWorkContract:
    """``fixed`` (no source) or ``tokens`` with a source projection and the sorted projections."""

    source: NodeTokenBindingProjection | None = None
    projections: tuple[NodeTokenBindingProjection, ...] = ()

    @classmethod
    def fixed(cls) -> NodeWorkContract:
        return cls()

    @property
    def is_fixed(self) -> bool:
        return self.source is None

    def token_projection(self, role: ResolvedValueRole, ordinal: int) -> NodeTokenBindingProjection | None:
        return next((p for p in self.projections if p.role is role and p.ordinal == ordinal), None)

    def to_wire(self) -> JsonValue:
        if self.source is None:
            return "fixed"
        return {"tokens": {"source": self.source.to_wire(), "projections": [p.to_wire() for p in self.projections]}}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> NodeWorkContract:
        tag, content = read_tagged(raw, ("fixed", "tokens"), context=context, path=path)
        if tag == "fixed":
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `fixed` takes no content"
                )
            return cls.fixed()
        obj = WireObject(content, ("source", "projections"), type_name="tokens", context=context, path=f"{path}.tokens")
        items = obj.array("projections")
        return cls(
            NodeTokenBindingProjection.from_wire(obj.raw("source"), context=context, path=obj.at("source")),
            tuple(
                NodeTokenBindingProjection.from_wire(p, context=context, path=f"{obj.at('projections')}[{i}]")
                for i, p in enumerate(items)
            ),
        )


PLAN_NODE_FIELDS: Final = (
    "id",
    "dependencies",
    "operation_id",
    "operation_version",
    "operation_fingerprint",
    "provider_implementation_fingerprint",
    "provider_execution_semantics",
    "required_capabilities",
    "attributes",
    "work",
    "selection",
    "provider_resources",
    "values",
    "exact_aliases",
    "state_effects",
    "scratch_resource",
    "binding_resource",
    "persistent_resource",
    "resources",
)


@dataclass(frozen=True, slots=True, eq=False)
class PlanNode:
    """One executable node of the plan (built only by ``build_plan`` (``ExecutionPlan::build``) or decoded)."""

    id: NodeId
    dependencies: tuple[NodeId, ...]
    operation_id: OperationId
    operation_version: ContractVersion
    operation_fingerprint: str
    provider_implementation_fingerprint: str
    provider_execution_semantics: ProviderExecutionSemantics
    required_capabilities: frozenset[CapabilityId]
    attributes: Mapping[AttributeId, SemanticValue]
    work: NodeWorkContract
    selection: ProviderSelection
    provider_resources: ProviderResourcePlan
    values: tuple[ResolvedValueBinding, ...]
    exact_aliases: tuple[PlanExactAlias, ...]
    state_effects: tuple[PlanStateEffect, ...]
    scratch_resource: ResourceId | None
    binding_resource: ResourceId | None
    persistent_resource: ResourceId | None
    resources: tuple[ResourceId, ...]

    def __post_init__(self) -> None:
        for name in ("dependencies", "values", "exact_aliases", "state_effects", "resources"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "required_capabilities", frozenset(self.required_capabilities))
        object.__setattr__(self, "attributes", MappingProxyType(dict(sorted(self.attributes.items()))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanNode):
            return NotImplemented
        return self.to_wire() == other.to_wire()

    def __hash__(self) -> int:
        return hash(self.id)

    def workspace_resources(self) -> tuple[tuple[str, ResourceId | None], ...]:
        return (
            ("scratch", self.scratch_resource),
            ("binding", self.binding_resource),
            ("persistent", self.persistent_resource),
        )

    def to_wire(self) -> dict[str, JsonValue]:
        """Declaration order."""

        def opt(resource: ResourceId | None) -> JsonValue:
            return None if resource is None else resource.value

        return {
            "id": self.id.value,
            "dependencies": [d.value for d in self.dependencies],
            "operation_id": self.operation_id.value,
            "operation_version": self.operation_version.to_wire(),
            "operation_fingerprint": self.operation_fingerprint,
            "provider_implementation_fingerprint": self.provider_implementation_fingerprint,
            "provider_execution_semantics": self.provider_execution_semantics.to_wire(),
            "required_capabilities": [c.value for c in sorted(self.required_capabilities)],
            "attributes": {k.value: v.to_wire() for k, v in self.attributes.items()},
            "work": self.work.to_wire(),
            "selection": self.selection.to_wire(),
            "provider_resources": self.provider_resources.to_wire(),
            "values": [v.to_wire() for v in self.values],
            "exact_aliases": [a.to_wire() for a in self.exact_aliases],
            "state_effects": [e.to_wire() for e in self.state_effects],
            "scratch_resource": opt(self.scratch_resource),
            "binding_resource": opt(self.binding_resource),
            "persistent_resource": opt(self.persistent_resource),
            "resources": [r.value for r in self.resources],
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> PlanNode:
        """deny_unknown_fields; nested bindings and the resource plan re-run their own checks."""
        obj = WireObject(raw, PLAN_NODE_FIELDS, type_name="PlanNode", context=context, path=path)
        attributes_raw = obj.raw("attributes")
        if not isinstance(attributes_raw, dict):
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                context, f"{obj.at('attributes')}: expected an object"
            )
        attributes: dict[AttributeId, SemanticValue] = {}
        for key, value in attributes_raw.items():
            try:
                attribute = AttributeId(key)
            except Exception as exc:
                raise Serialization(  # rule: 01.3.6/decode_invalid_identity
                    context, f"{obj.at('attributes')}: invalid attribute id {key!r}: {exc}"
                ) from None
            attributes[attribute] = SemanticValue.from_wire(value, context, f"{obj.at('attributes')}.{key}")

        def opt(name: str) -> ResourceId | None:
            return None if obj.raw(name) is None else obj.identity(name, ResourceId)

        values = [
            ResolvedValueBinding.from_wire(v, context=context, path=f"{obj.at('values')}[{i}]")
            for i, v in enumerate(obj.array("values"))
        ]
        return cls(
            obj.identity("id", NodeId),
            _ids(obj.raw("dependencies"), NodeId, context=context, path=obj.at("dependencies")),
            obj.identity("operation_id", OperationId),
            ContractVersion.from_wire(obj.raw("operation_version"), context=context),
            obj.string("operation_fingerprint"),
            obj.string("provider_implementation_fingerprint"),
            ProviderExecutionSemantics.from_wire(
                obj.raw("provider_execution_semantics"), context=context, path=obj.at("provider_execution_semantics")
            ),
            frozenset(
                _ids(
                    obj.raw("required_capabilities"),
                    CapabilityId,
                    context=context,
                    path=obj.at("required_capabilities"),
                )
            ),
            attributes,
            NodeWorkContract.from_wire(obj.raw("work"), context=context, path=obj.at("work")),
            ProviderSelection.from_wire(obj.raw("selection"), context=context, path=obj.at("selection")),
            ProviderResourcePlan.from_wire(
                obj.raw("provider_resources"), context=context, path=obj.at("provider_resources")
            ),
            tuple(values),
            tuple(
                PlanExactAlias.from_wire(a, context=context, path=f"{obj.at('exact_aliases')}[{i}]")
                for i, a in enumerate(obj.array("exact_aliases"))
            ),
            tuple(
                PlanStateEffect.from_wire(e, context=context, path=f"{obj.at('state_effects')}[{i}]")
                for i, e in enumerate(obj.array("state_effects"))
            ),
            opt("scratch_resource"),
            opt("binding_resource"),
            opt("persistent_resource"),
            _ids(obj.raw("resources"), ResourceId, context=context, path=obj.at("resources")),
        )
