"""Declarative weight materializers: JSON documents naming a registry and a selection (schemas/weights/).

A materializer document fixes a descriptor, how the execution schema derives
from the family's schema (ordered edits), an optional explicit component-source
map (absent = the identity default) and how bytes are materialized. Out-of-process
backends read the same documents, so a scenario can name a registry of
materializers and a selection without shipping code. Decoding checks shapes only
(``Serialization``); registry and selection rules keep their contract kinds.

Materialize rules: ``identity`` (the identity materializer's rule), ``zero_pad``
(one source, bytes copied then zero-padded or truncated to the execution size),
``concat`` (source bytes concatenated in order; must be exactly the execution
size), ``{"fill": {id: byte}}`` (every source read, then the component filled
with that byte), ``{"reject": reason}``. ``fault`` perturbs the returned group
(``drop_last``, ``duplicate_first``, ``reverse``, ``source_payload``) for
adversarial scenarios.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Final

from reference.canonical import JsonValue
from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.device import DeviceDescriptor
from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import WeightFormatId, WeightId, WeightLayoutId, WeightMaterializerId
from reference.model.element import ElementType
from reference.model.prepared import PreparedModelFamily
from reference.model.weight_encoding import WeightComponentRole, WeightComponentSpec, decode_weight_encoding
from reference.model.weight_layout import PhysicalWeightLayout, decode_physical_layout
from reference.model.weight_schema import WeightSchema, WeightTensorSpec
from reference.versions import ContractVersion
from reference.weights.component_sources import (
    ComponentSources,
    component_sources_from_wire,
    component_sources_to_wire,
    identity_component_sources,
)
from reference.weights.materializer import WeightMaterializer
from reference.weights.payload import WeightComponentPayload, WeightComponentSource
from reference.weights.registry import WeightMaterializerRegistry
from reference.weights.sources import host_length
from reference.weights.trusted import TrustedExecutionWeightPlan
from reference.wire import WireObject, read_enum, read_list, read_str, read_tagged, read_uint

__all__ = [
    "DOCUMENT_CONTEXT",
    "MAX_REGISTRY_DOCUMENT_ENTRIES",
    "DeclaredWeightMaterializer",
    "MaterializeFault",
    "MaterializeRule",
    "SchemaEdit",
    "WeightMaterializerDocument",
    "WeightMaterializerRegistryDocument",
    "WeightSelection",
    "WeightSelectionDocument",
    "apply_schema_edits",
    "weight_plan_selection",
]

DOCUMENT_CONTEXT: Final = "decode weight materializer document"
#: Decode-work bound only; the registry itself refuses 64 or more entries (InvalidExecutionPlan).
MAX_REGISTRY_DOCUMENT_ENTRIES: Final = 4096
_EDIT_TAGS: Final = (
    "set_format_id",
    "set_layout_id",
    "set_version",
    "set_component",
    "set_tensor",
    "rename_component",
    "add_component",
    "remove_component",
    "replace_schema",
)


def _fail(reason: str) -> InvalidExecutionPlan:
    return InvalidExecutionPlan(reason=reason)


# --------------------------------------------------------------------------- schema edits


@dataclass(frozen=True, slots=True)
class SchemaEdit:
    """One edit: ``tag`` is the wire key, ``value`` its decoded content, ``raw`` the wire content."""

    tag: str
    raw: JsonValue

    def to_wire(self) -> JsonValue:
        return {self.tag: self.raw}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str) -> SchemaEdit:
        tag, content = read_tagged(raw, _EDIT_TAGS, context=context, path=path)
        edit = cls(tag, content)
        edit._decode(context, f"{path}.{tag}")  # shape check now, application later
        return edit

    def _decode(self, context: str, path: str) -> Any:
        raw = self.raw
        if self.tag == "set_format_id":
            return WeightFormatId.from_wire(raw, context=context)
        if self.tag == "set_layout_id":
            return WeightLayoutId.from_wire(raw, context=context)
        if self.tag == "set_version":
            return ContractVersion.from_wire(raw, context=context)
        if self.tag == "remove_component":
            return WeightId.from_wire(raw, context=context)
        if self.tag == "add_component":
            return WeightComponentSpec.from_wire(raw, context, path)
        if self.tag == "replace_schema":
            return WeightSchema.from_wire(raw, context, path)
        if self.tag == "rename_component":
            obj = WireObject(raw, ("from", "to"), type_name="rename_component", context=context, path=path)
            return obj.identity("from", WeightId), obj.identity("to", WeightId)
        if self.tag == "set_component":
            return _component_changes(raw, context, path)
        return _tensor_changes(raw, context, path)

    def apply(self, schema: WeightSchema) -> WeightSchema:
        """Apply to ``schema``; an edit naming an absent component/tensor is ``InvalidExecutionPlan``."""
        value = self._decode(DOCUMENT_CONTEXT, "$")
        if self.tag == "set_format_id":
            return replace(schema, format_id=value)
        if self.tag == "set_layout_id":
            return replace(schema, layout_id=value)
        if self.tag == "set_version":
            return replace(schema, version=value)
        if self.tag == "replace_schema":
            assert isinstance(value, WeightSchema)
            return value
        if self.tag == "add_component":
            return replace(schema, components=(*schema.components, value))
        if self.tag == "remove_component":
            _index(schema.components, value, "component")
            return replace(schema, components=tuple(c for c in schema.components if c.id != value))
        if self.tag == "rename_component":
            return _rename(schema, *value)
        if self.tag == "set_component":
            component_id, changes = value
            i = _index(schema.components, component_id, "component")
            components = list(schema.components)
            components[i] = replace(components[i], **changes)
            return replace(schema, components=tuple(components))
        tensor_id, changes = value
        i = _index(schema.tensors, tensor_id, "tensor")
        tensors = list(schema.tensors)
        tensors[i] = replace(tensors[i], **changes)
        return replace(schema, tensors=tuple(tensors))


def _index(items: Sequence[WeightComponentSpec | WeightTensorSpec], item_id: WeightId, what: str) -> int:
    for i, item in enumerate(items):
        if item.id == item_id:
            return i
    raise _fail(  # rule: 05.10.6/declared_materializer_refuses
        f"weight materializer edit names absent {what} `{item_id}`"
    )


def _optional(raw: dict[str, Any], name: str, read: Callable[[Any, str], Any], path: str) -> dict[str, Any]:
    return {} if name not in raw else {name: read(raw[name], f"{path}.{name}")}


def _u64_list(raw: Any, context: str, path: str) -> tuple[int, ...]:
    return tuple(
        read_uint(v, bits=64, context=context, path=f"{path}[{i}]")
        for i, v in enumerate(read_list(raw, context=context, path=path))
    )


def _bool(raw: Any, context: str, path: str) -> bool:
    if not isinstance(raw, bool):
        raise Serialization(context, f"{path}: expected a boolean")  # rule: 01.5/struct_wrong_json_type
    return raw


def _component_changes(raw: Any, context: str, path: str) -> tuple[WeightId, dict[str, Any]]:
    fields = ("id", "role", "external_names", "dimensions", "encoding", "required")
    obj = WireObject(raw, ("id",), type_name="set_component", context=context, path=path, lenient=True)
    unknown = [k for k in raw if k not in fields]
    if unknown:
        raise Serialization(  # rule: 01.3.6/decode_unknown_field
            context, f"{path}: unknown field `{unknown[0]}` in set_component"
        )
    changes: dict[str, Any] = {}
    changes |= _optional(
        raw,
        "role",
        lambda v, p: WeightComponentRole(read_enum(v, [r.value for r in WeightComponentRole], context=context, path=p)),
        path,
    )
    changes |= _optional(
        raw,
        "external_names",
        lambda v, p: tuple(
            read_str(n, context=context, path=f"{p}[{i}]") for i, n in enumerate(read_list(v, context=context, path=p))
        ),
        path,
    )
    changes |= _optional(raw, "dimensions", lambda v, p: _u64_list(v, context, p), path)
    changes |= _optional(raw, "encoding", lambda v, p: decode_weight_encoding(v, context, p), path)
    changes |= _optional(raw, "required", lambda v, p: _bool(v, context, p), path)
    return obj.identity("id", WeightId), changes


def _tensor_changes(raw: Any, context: str, path: str) -> tuple[WeightId, dict[str, Any]]:
    fields = ("id", "dimensions", "logical_element_type", "physical_layout", "required")
    obj = WireObject(raw, ("id",), type_name="set_tensor", context=context, path=path, lenient=True)
    unknown = [k for k in raw if k not in fields]
    if unknown:
        raise Serialization(  # rule: 01.3.6/decode_unknown_field
            context, f"{path}: unknown field `{unknown[0]}` in set_tensor"
        )
    changes: dict[str, Any] = {}
    changes |= _optional(raw, "dimensions", lambda v, p: _u64_list(v, context, p), path)
    changes |= _optional(
        raw, "logical_element_type", lambda v, p: ElementType.from_wire(v, context=context, path=p), path
    )
    changes |= _optional(raw, "physical_layout", lambda v, p: decode_physical_layout(v, context, p), path)
    changes |= _optional(raw, "required", lambda v, p: _bool(v, context, p), path)
    return obj.identity("id", WeightId), changes


def _rebind(raw: JsonValue, old: str, new: str) -> JsonValue:
    if isinstance(raw, dict):
        return {k: (new if k == "component_id" and v == old else _rebind(v, old, new)) for k, v in raw.items()}
    if isinstance(raw, list):
        return [_rebind(v, old, new) for v in raw]
    return raw


def _rename(schema: WeightSchema, old: WeightId, new: WeightId) -> WeightSchema:
    """Rename a component and every layout binding that names it."""
    i = _index(schema.components, old, "component")
    components = list(schema.components)
    components[i] = replace(components[i], id=new)
    tensors = []
    for tensor in schema.tensors:
        wire = _rebind(tensor.physical_layout.to_wire(), old.value, new.value)
        layout: PhysicalWeightLayout = decode_physical_layout(wire, DOCUMENT_CONTEXT, "$")
        tensors.append(replace(tensor, physical_layout=layout))
    return replace(schema, components=tuple(components), tensors=tuple(tensors))


def apply_schema_edits(schema: WeightSchema, edits: Sequence[SchemaEdit]) -> WeightSchema:
    """Apply ``edits`` in order (no normalization; ``select_exact`` normalizes)."""
    for edit in edits:
        schema = edit.apply(schema)
    return schema


# --------------------------------------------------------------------------- materialize rules


class MaterializeFault(Enum):
    """Adversarial perturbations of a materialized group."""

    DROP_LAST = "drop_last"
    DUPLICATE_FIRST = "duplicate_first"
    REVERSE = "reverse"
    SOURCE_PAYLOAD = "source_payload"


@dataclass(frozen=True, slots=True)
class MaterializeRule:
    """``kind`` in identity / zero_pad / concat / fill / reject; ``fill`` bytes or ``reason`` as needed."""

    kind: str
    fill: Mapping[WeightId, int] | None = None
    reason: str | None = None

    def to_wire(self) -> JsonValue:
        if self.kind == "fill":
            assert self.fill is not None
            return {"fill": {k.value: self.fill[k] for k in sorted(self.fill)}}
        if self.kind == "reject":
            return {"reject": self.reason}
        return self.kind

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str) -> MaterializeRule:
        if isinstance(raw, str):
            return cls(read_enum(raw, ("identity", "zero_pad", "concat"), context=context, path=path))
        tag, content = read_tagged(raw, ("fill", "reject"), context=context, path=path)
        if tag == "reject":
            return cls("reject", reason=read_str(content, context=context, path=f"{path}.reject"))
        if not isinstance(content, dict):
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                context, f"{path}.fill: expected an object of component id -> byte"
            )
        fill = {
            WeightId.from_wire(k, context=context): read_uint(v, bits=8, context=context, path=f"{path}.fill.{k}")
            for k, v in content.items()
        }
        return cls("fill", fill=fill)

    def materialize(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        component: WeightComponentSpec,
    ) -> WeightComponentPayload:
        if self.kind == "reject":
            raise _fail(  # rule: 05.10.6/declared_materializer_refuses
                self.reason or "declared weight materializer refuses to initialize weights"
            )
        if self.kind == "identity":
            if len(source_components) != 1:
                raise _fail(  # rule: 05.10.6/declared_materializer_refuses
                    "identity weight materializer requires exactly one source component"
                )
            if source_components[0] != component:
                raise _fail(  # rule: 05.10.6/declared_materializer_refuses
                    f"identity weight materializer cannot transform component `{component.id}`"
                )
            return source.component(source_components[0])
        if self.kind == "zero_pad" and len(source_components) != 1:
            raise _fail(  # rule: 05.10.6/declared_materializer_refuses
                "zero-pad weight materializer requires one source component"
            )
        payloads = [source.component(s) for s in source_components]
        length = host_length(component)
        files = [f for p in payloads for f in p.source_files]
        if self.kind == "fill":
            assert self.fill is not None
            byte = self.fill.get(component.id)
            if byte is None:
                raise _fail(  # rule: 05.10.6/declared_materializer_refuses
                    f"unexpected derived execution component `{component.id}`"
                )
            data = bytes([byte]) * length
        else:
            joined = b"".join(p.to_bytes() for p in payloads)
            if self.kind == "concat" and len(joined) != length:
                raise _fail(  # rule: 05.10.6/declared_materializer_refuses
                    f"concatenated sources of `{component.id}` do not fill the execution component"
                )
            data = joined[:length].ljust(length, b"\0")
        return WeightComponentPayload.from_ordered_sources(
            component, component.external_names, files, component.dimensions, component.physical_element_type(), data
        )


# --------------------------------------------------------------------------- the materializer document


@dataclass(frozen=True, slots=True)
class WeightMaterializerDocument:
    """Descriptor, schema edits, optional explicit sources, materialize rule and optional fault."""

    descriptor: WeightMaterializerDescriptor
    edits: tuple[SchemaEdit, ...]
    component_sources: ComponentSources | None
    materialize: MaterializeRule
    fault: MaterializeFault | None = None

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "descriptor": self.descriptor.to_wire(),
            "execution_schema": {"edits": [e.to_wire() for e in self.edits]},
            "component_sources": None
            if self.component_sources is None
            else component_sources_to_wire(self.component_sources),
            "materialize": self.materialize.to_wire(),
            "fault": None if self.fault is None else self.fault.value,
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = DOCUMENT_CONTEXT, path: str = "$") -> WeightMaterializerDocument:
        names = ("descriptor", "execution_schema", "component_sources", "materialize", "fault")
        if not isinstance(raw, dict):
            raise Serialization(  # rule: 01.5/struct_wrong_json_type
                context, f"{path}: materializer document must be a JSON object"
            )
        raw = {"component_sources": None, "fault": None, **raw}
        obj = WireObject(raw, names, type_name="WeightMaterializerDocument", context=context, path=path)
        schema_obj = WireObject(
            obj.raw("execution_schema"),
            ("edits",),
            type_name="execution_schema",
            context=context,
            path=obj.at("execution_schema"),
        )
        edits = tuple(
            SchemaEdit.from_wire(e, context, f"{schema_obj.at('edits')}[{i}]")
            for i, e in enumerate(schema_obj.array("edits"))
        )
        sources = obj.optional("component_sources", component_sources_from_wire)
        fault = obj.optional(
            "fault",
            lambda v, c, p: MaterializeFault(read_enum(v, [f.value for f in MaterializeFault], context=c, path=p)),
        )
        return cls(
            WeightMaterializerDescriptor.from_wire(obj.raw("descriptor"), context=context, path=obj.at("descriptor")),
            edits,
            sources,
            MaterializeRule.from_wire(obj.raw("materialize"), context, obj.at("materialize")),
            fault,
        )

    def build(self) -> DeclaredWeightMaterializer:
        return DeclaredWeightMaterializer(self)


class DeclaredWeightMaterializer(WeightMaterializer):
    """A ``WeightMaterializer`` that follows one ``WeightMaterializerDocument``."""

    __slots__ = ("document",)

    def __init__(self, document: WeightMaterializerDocument) -> None:
        self.document = document

    def descriptor(self) -> WeightMaterializerDescriptor:
        return self.document.descriptor

    def execution_schema(self, family: PreparedModelFamily, device: DeviceDescriptor) -> WeightSchema:
        del device
        return apply_schema_edits(family.weight_schema, self.document.edits)

    def component_sources(
        self, family: PreparedModelFamily, execution_schema: WeightSchema
    ) -> Mapping[WeightId, Sequence[WeightId]]:
        declared = self.document.component_sources
        return identity_component_sources(family, execution_schema) if declared is None else declared

    def materialize_component(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        execution_component: WeightComponentSpec,
    ) -> WeightComponentPayload:
        return self.document.materialize.materialize(source, source_components, execution_component)

    def materialize_components(
        self,
        source: WeightComponentSource,
        source_components: Sequence[WeightComponentSpec],
        execution_components: Sequence[WeightComponentSpec],
    ) -> list[WeightComponentPayload]:
        fault = self.document.fault
        if fault is MaterializeFault.SOURCE_PAYLOAD:
            return [source.component(source_components[0]) for _ in execution_components]
        payloads = [self.materialize_component(source, source_components, c) for c in execution_components]
        if fault is MaterializeFault.DROP_LAST:
            return payloads[:-1]
        if fault is MaterializeFault.DUPLICATE_FIRST:
            return [*payloads, payloads[0]]
        if fault is MaterializeFault.REVERSE:
            return payloads[::-1]
        return payloads


# --------------------------------------------------------------------------- registry and selection documents


@dataclass(frozen=True, slots=True)
class WeightMaterializerRegistryDocument:
    """``{"materializers": [...]}`` in registration order (the identity is implicit)."""

    materializers: tuple[WeightMaterializerDocument, ...] = ()

    def to_wire(self) -> dict[str, JsonValue]:
        return {"materializers": [m.to_wire() for m in self.materializers]}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = DOCUMENT_CONTEXT, path: str = "$"
    ) -> WeightMaterializerRegistryDocument:
        obj = WireObject(raw, ("materializers",), type_name="WeightMaterializerRegistry", context=context, path=path)
        items = obj.array("materializers", max_items=MAX_REGISTRY_DOCUMENT_ENTRIES)
        return cls(
            tuple(
                WeightMaterializerDocument.from_wire(m, context=context, path=f"{obj.at('materializers')}[{i}]")
                for i, m in enumerate(items)
            )
        )

    def build(self) -> WeightMaterializerRegistry:
        """The registry (its rules raise ``InvalidExecutionPlan``)."""
        return WeightMaterializerRegistry([m.build() for m in self.materializers])


@dataclass(frozen=True, slots=True)
class WeightSelection:
    """The catalog the plan is built against and the trusted weight plan selected for it."""

    catalog: CapabilityCatalog
    trusted: TrustedExecutionWeightPlan
    registry: WeightMaterializerRegistry


@dataclass(frozen=True, slots=True)
class WeightSelectionDocument:
    """``{"registry", "materializer_id", "augment_catalog"}``: which materializer a scenario selects."""

    registry: WeightMaterializerRegistryDocument
    materializer_id: WeightMaterializerId
    augment_catalog: bool = True

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "registry": self.registry.to_wire(),
            "materializer_id": self.materializer_id.value,
            "augment_catalog": self.augment_catalog,
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = DOCUMENT_CONTEXT, path: str = "$") -> WeightSelectionDocument:
        names = ("registry", "materializer_id", "augment_catalog")
        obj = WireObject(raw, names, type_name="WeightSelection", context=context, path=path)
        return cls(
            WeightMaterializerRegistryDocument.from_wire(obj.raw("registry"), context=context, path=obj.at("registry")),
            obj.identity("materializer_id", WeightMaterializerId),
            obj.boolean("augment_catalog"),
        )

    def select(self, family: PreparedModelFamily, catalog: CapabilityCatalog) -> WeightSelection:
        """Build the registry, optionally augment ``catalog`` with it, then ``select_exact``."""
        registry = self.registry.build()
        target = registry.augment_catalog(catalog) if self.augment_catalog else catalog
        return WeightSelection(target, registry.select_exact(family, target, self.materializer_id), registry)


def weight_plan_selection(trusted: TrustedExecutionWeightPlan) -> tuple[bytes, str]:
    """The selected plan's exact wire bytes (``serde_json::to_vec``) and its canonical fingerprint."""
    plan = trusted.plan()
    return plan.to_json_bytes(), plan.fingerprint()
