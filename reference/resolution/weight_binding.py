"""``ResolvedWeightBinding`` (spec 04 §5.5, 02 §8.10): the physical weight contract a binding carries.

Structure is validated by the constructor and the decoder (``InvalidExecutionPlan``;
decode failures are ``Serialization``): layout budget, non-zero schema major,
components non-empty and strictly ascending by id, component ids equal to the
ids the layout references, every component with non-empty non-zero dimensions
and a computable byte size. ``from_schema`` and ``validate_logical_contract``
re-check a one-tensor schema (decision D-04R-2).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.errors import InvalidExecutionPlan, VNextError
from reference.ids import QuantizationFormatId, WeightFormatId, WeightId, WeightLayoutId
from reference.model.element import ElementType
from reference.model.layout_traversal import (
    LAYOUT_DEPTH_FAILURE,
    layout_budget_failure,
    physical_component_id_set,
)
from reference.model.weight_encoding import (
    WeightComponentRole,
    WeightComponentSpec,
    WeightEncoding,
    decode_weight_encoding,
    dense_element_type,
    quantization_format_id,
)
from reference.model.weight_layout import PhysicalWeightLayout, decode_physical_layout
from reference.model.weight_schema import WeightSchema, WeightTensorSpec
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with, read_enum, read_uint

__all__ = ["RESOLVED_WEIGHT_FAMILY_ID", "ResolvedWeightBinding", "ResolvedWeightComponentLayout"]

#: Family id used when a resolved binding is re-validated as a one-tensor schema.
RESOLVED_WEIGHT_FAMILY_ID: Final = "family.resolved-weight-binding"


@dataclass(frozen=True, slots=True)
class ResolvedWeightComponentLayout:
    """Provider-visible identity of one weight component (no source file names)."""

    component_id: WeightId
    role: WeightComponentRole
    physical_dimensions: tuple[int, ...]
    encoding: WeightEncoding

    def __post_init__(self) -> None:
        object.__setattr__(self, "physical_dimensions", tuple(self.physical_dimensions))

    def as_component_spec(self) -> WeightComponentSpec:
        return WeightComponentSpec(
            self.component_id,
            self.role,
            (f"resolved.{self.component_id.value}",),
            self.physical_dimensions,
            self.encoding,
            True,
        )

    def physical_bytes(self) -> int:
        """Stored bytes of the encoding over ``physical_dimensions`` (overflow: ``InvalidExecutionPlan``)."""
        return self.as_component_spec().physical_bytes()

    def physical_element_type(self) -> ElementType:
        """The dense element type, else ``u8``."""
        return dense_element_type(self.encoding) or ElementType.U8

    @classmethod
    def of(cls, component: WeightComponentSpec) -> ResolvedWeightComponentLayout:
        return cls(component.id, component.role, component.dimensions, component.encoding)

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "component_id": self.component_id.value,
            "role": self.role.value,
            "physical_dimensions": list(self.physical_dimensions),
            "encoding": self.encoding.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode resolved weight component", path: str = "$"
    ) -> ResolvedWeightComponentLayout:
        """Derived decode: unknown keys are ignored."""
        fields = ("component_id", "role", "physical_dimensions", "encoding")
        obj = WireObject(
            raw, fields, type_name="ResolvedWeightComponentLayout", context=context, path=path, lenient=True
        )
        role = read_enum(obj.raw("role"), [r.value for r in WeightComponentRole], context=context, path=obj.at("role"))
        dims = tuple(
            read_uint(d, bits=64, context=context, path=f"{obj.at('physical_dimensions')}[{i}]")
            for i, d in enumerate(obj.array("physical_dimensions"))
        )
        return cls(
            obj.identity("component_id", WeightId),
            WeightComponentRole(role),
            dims,
            decode_weight_encoding(obj.raw("encoding"), context, obj.at("encoding")),
        )


@dataclass(frozen=True, slots=True, init=False)
class ResolvedWeightBinding:
    """``weight_id``, schema format (wire ``format_id``), layout id, schema version, layout tree, components."""

    weight_id: WeightId
    schema_format_id: WeightFormatId
    layout_id: WeightLayoutId
    schema_version: ContractVersion
    physical_layout: PhysicalWeightLayout
    components: tuple[ResolvedWeightComponentLayout, ...]

    def __init__(
        self,
        weight_id: WeightId,
        schema_format_id: WeightFormatId,
        layout_id: WeightLayoutId,
        schema_version: ContractVersion,
        physical_layout: PhysicalWeightLayout,
        components: Iterable[ResolvedWeightComponentLayout],
    ) -> None:
        object.__setattr__(self, "weight_id", weight_id)
        object.__setattr__(self, "schema_format_id", schema_format_id)
        object.__setattr__(self, "layout_id", layout_id)
        object.__setattr__(self, "schema_version", schema_version)
        object.__setattr__(self, "physical_layout", physical_layout)
        object.__setattr__(self, "components", tuple(components))
        self._validate_structure()

    def _invalid(self, detail: str) -> InvalidExecutionPlan:
        return InvalidExecutionPlan(reason=f"resolved weight `{self.weight_id}` {detail}")

    def _validate_structure(self) -> None:
        failure = layout_budget_failure(self.physical_layout)
        if failure == LAYOUT_DEPTH_FAILURE:
            raise self._invalid(f"layout: {failure}")  # rule: 04.5.5/layout_depth_limit
        if failure is not None:
            raise self._invalid(f"layout: {failure}")  # rule: 04.5.5/layout_nodes_limit
        # One combined check upstream: every failure below has the same error.
        identity = "physical identity is invalid or non-canonical"
        if self.schema_version.major == 0:
            raise self._invalid(identity)  # rule: 04.5.5/schema_major_nonzero
        if not self.components:
            raise self._invalid(identity)  # rule: 04.5.5/components_nonempty
        ids = [c.component_id for c in self.components]
        if not all(a < b for a, b in itertools.pairwise(ids)):
            raise self._invalid(identity)  # rule: 04.5.5/components_strictly_ascending
        if set(ids) != set(physical_component_id_set(self.physical_layout)):
            raise self._invalid(identity)  # rule: 04.5.5/component_ids_match_layout
        if any(not c.physical_dimensions or 0 in c.physical_dimensions for c in self.components):
            raise self._invalid(identity)  # rule: 04.5.5/component_dimensions_nonzero
        for component in self.components:
            try:
                component.physical_bytes()
            except (InvalidExecutionPlan, ValueError) as exc:
                raise self._invalid(  # rule: 04.5.5/component_byte_size_computable
                    f"component `{component.component_id}` has no byte size: {exc}"
                ) from None

    # ------------------------------------------------------------------ queries

    def component(self, component_id: WeightId) -> ResolvedWeightComponentLayout | None:
        return next((c for c in self.components if c.component_id == component_id), None)

    def quantization_formats(self) -> frozenset[QuantizationFormatId]:
        """Format ids of the quantized and block-quantized components."""
        return frozenset(f for f in (quantization_format_id(c.encoding) for c in self.components) if f is not None)

    def as_schema(self, dimensions: tuple[int, ...], element_type: ElementType) -> WeightSchema:
        """The one-tensor schema this binding describes for a logical shape and dtype."""
        tensor = WeightTensorSpec(self.weight_id, dimensions, element_type, self.physical_layout, True)
        return WeightSchema(
            self.schema_format_id,
            self.layout_id,
            self.schema_version,
            tuple(c.as_component_spec() for c in self.components),
            (tensor,),
        )

    def validate_logical_contract(self, dimensions: tuple[int, ...], element_type: ElementType) -> None:
        """The layout must describe exactly this logical shape and dtype (one-tensor schema validation)."""
        try:
            self.as_schema(tuple(dimensions), element_type).validate(RESOLVED_WEIGHT_FAMILY_ID)
        except (VNextError, ValueError) as exc:
            if isinstance(exc, InvalidExecutionPlan):
                raise
            raise self._invalid(  # rule: 04.5.6/weight_logical_contract
                f"does not describe the logical tensor: {exc}"
            ) from None

    @classmethod
    def from_schema(cls, schema: WeightSchema, weight_id: WeightId) -> ResolvedWeightBinding:
        """Copy one tensor of ``schema``: identity, layout, its components sorted by id; then re-validate."""
        tensor = schema.tensor(weight_id)
        if tensor is None:
            raise InvalidExecutionPlan(  # rule: 04.5.5/from_schema_weight_known
                reason=f"unknown logical weight `{weight_id}`"
            )
        components = sorted(
            (ResolvedWeightComponentLayout.of(c) for c in schema.physical_component_refs(weight_id)),
            key=lambda c: c.component_id,
        )
        binding = cls(weight_id, schema.format_id, schema.layout_id, schema.version, tensor.physical_layout, components)
        binding.validate_logical_contract(tensor.dimensions, tensor.logical_element_type)
        return binding

    # ------------------------------------------------------------------ wire

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "weight_id": self.weight_id.value,
            "format_id": self.schema_format_id.value,
            "layout_id": self.layout_id.value,
            "schema_version": self.schema_version.to_wire(),
            "physical_layout": self.physical_layout.to_wire(),
            "components": [c.to_wire() for c in self.components],
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode resolved weight binding", path: str = "$"
    ) -> ResolvedWeightBinding:
        """deny_unknown_fields, then the structural checks."""
        fields = ("weight_id", "format_id", "layout_id", "schema_version", "physical_layout", "components")
        obj = WireObject(raw, fields, type_name="ResolvedWeightBinding", context=context, path=path)
        components = [
            ResolvedWeightComponentLayout.from_wire(c, context=context, path=f"{obj.at('components')}[{i}]")
            for i, c in enumerate(obj.array("components"))
        ]
        args = (
            obj.identity("weight_id", WeightId),
            obj.identity("format_id", WeightFormatId),
            obj.identity("layout_id", WeightLayoutId),
            ContractVersion.from_wire(obj.raw("schema_version"), context=context),
            decode_physical_layout(obj.raw("physical_layout"), context, obj.at("physical_layout")),
            components,
        )
        return decode_with(lambda: cls(*args), context=context, path=path)
