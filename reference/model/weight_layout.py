"""The physical weight layout tree (spec 02 §8.5): its variants and their structural decode.

Variants are frozen dataclasses; ``PhysicalWeightLayout`` is their union. The storage geometry of
a bound component is ``reference.model.weight_storage``; walking the tree (the budget pass,
bound component ids, ``normalize``) is ``reference.model.layout_traversal``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.errors import Serialization
from reference.ids import WeightId
from reference.ints import check_uint, check_uints
from reference.model.weight_storage import (
    CONTIGUOUS,
    EXACT,
    PhysicalStorageLayout,
    PhysicalWeightPadding,
    decode_storage,
)
from reference.wire import WireObject, read_list, read_tagged_enum, read_uint, read_uints

__all__ = [
    "AxisReshapePermutationLayout",
    "AxisWeightComponent",
    "BlockQuantizedLayout",
    "CompositeLayout",
    "CompositeWeightPart",
    "DenseLayout",
    "ExpertStackLayout",
    "IndexedLayout",
    "PhysicalWeightComponentBinding",
    "PhysicalWeightLayout",
    "QuantizedBlockGridLayout",
    "QuantizedLayout",
    "StoredLayout",
    "decode_physical_layout",
]


@dataclass(frozen=True, slots=True)
class PhysicalWeightComponentBinding:
    """A component bound with an explicit storage geometry."""

    component_id: WeightId
    storage: PhysicalStorageLayout = CONTIGUOUS

    def to_wire(self) -> JsonValue:
        return {"component_id": self.component_id.to_wire(), "storage": self.storage.to_wire()}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> PhysicalWeightComponentBinding:
        f = WireObject(
            raw,
            ("component_id", "storage"),
            lenient=True,
            type_name="PhysicalWeightComponentBinding",
            context=context,
            path=path,
        )
        return cls(f.identity("component_id", WeightId), f.nested("storage", decode_storage))


@dataclass(frozen=True, slots=True)
class AxisWeightComponent:
    component: PhysicalWeightComponentBinding
    axis: int

    def __post_init__(self) -> None:
        check_uint(self.axis, 32, "axis")

    def to_wire(self) -> JsonValue:
        return {"component": self.component.to_wire(), "axis": self.axis}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> AxisWeightComponent:
        f = WireObject(
            raw, ("component", "axis"), lenient=True, type_name="AxisWeightComponent", context=context, path=path
        )
        return cls(f.nested("component", PhysicalWeightComponentBinding.from_wire), f.u32("axis"))


@dataclass(frozen=True, slots=True)
class DenseLayout:
    """Exact contiguous dense values of one component."""

    component_id: WeightId

    def to_wire(self) -> JsonValue:
        return {"dense": {"component_id": self.component_id.to_wire()}}


@dataclass(frozen=True, slots=True)
class StoredLayout:
    """Dense values with explicit contiguous/strided/tiled geometry."""

    component: PhysicalWeightComponentBinding

    def to_wire(self) -> JsonValue:
        return {"stored": {"component": self.component.to_wire()}}


@dataclass(frozen=True, slots=True)
class CompositeWeightPart:
    """A box of the tensor at ``logical_offsets`` with ``extents``, laid out by ``layout``."""

    layout: PhysicalWeightLayout
    logical_offsets: tuple[int, ...]
    extents: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "logical_offsets", check_uints(self.logical_offsets, 64, "logical_offsets"))
        object.__setattr__(self, "extents", check_uints(self.extents, 64, "extents"))

    def to_wire(self) -> JsonValue:
        return {
            "layout": self.layout.to_wire(),
            "logical_offsets": list(self.logical_offsets),
            "extents": list(self.extents),
        }


@dataclass(frozen=True, slots=True)
class CompositeLayout:
    """A tensor assembled from disjoint boxes that tile it exactly."""

    parts: tuple[CompositeWeightPart, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(self.parts))

    def to_wire(self) -> JsonValue:
        return {"composite": {"parts": [part.to_wire() for part in self.parts]}}


@dataclass(frozen=True, slots=True)
class QuantizedLayout:
    """Separate-scale group quantization."""

    packed_values: PhysicalWeightComponentBinding
    packed_dimensions: tuple[int, ...]
    scales: PhysicalWeightComponentBinding
    zero_points: PhysicalWeightComponentBinding | None = None
    zero_point_packed_dimensions: tuple[int, ...] | None = None
    axis_indices: AxisWeightComponent | None = None
    permutation: AxisWeightComponent | None = None
    codebook: PhysicalWeightComponentBinding | None = None
    group_axis: int = 0
    group_padding: PhysicalWeightPadding = EXACT

    def __post_init__(self) -> None:
        object.__setattr__(self, "packed_dimensions", check_uints(self.packed_dimensions, 64, "packed_dimensions"))
        if self.zero_point_packed_dimensions is not None:
            object.__setattr__(
                self,
                "zero_point_packed_dimensions",
                check_uints(self.zero_point_packed_dimensions, 64, "zero_point_packed_dimensions"),
            )
        check_uint(self.group_axis, 32, "group_axis")

    def to_wire(self) -> JsonValue:
        def opt(value: PhysicalWeightComponentBinding | AxisWeightComponent | None) -> JsonValue:
            return None if value is None else value.to_wire()

        zd = self.zero_point_packed_dimensions
        return {
            "quantized": {
                "packed_values": self.packed_values.to_wire(),
                "packed_dimensions": list(self.packed_dimensions),
                "scales": self.scales.to_wire(),
                "zero_points": opt(self.zero_points),
                "zero_point_packed_dimensions": None if zd is None else list(zd),
                "axis_indices": opt(self.axis_indices),
                "permutation": opt(self.permutation),
                "codebook": opt(self.codebook),
                "group_axis": self.group_axis,
                "group_padding": self.group_padding.to_wire(),
            }
        }


@dataclass(frozen=True, slots=True)
class QuantizedBlockGridLayout:
    """2-D block-grid quantization over ``block_axes``."""

    packed_values: PhysicalWeightComponentBinding
    packed_dimensions: tuple[int, ...]
    scales: PhysicalWeightComponentBinding
    block_axes: tuple[int, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "packed_dimensions", check_uints(self.packed_dimensions, 64, "packed_dimensions"))
        axes = check_uints(self.block_axes, 32, "block_axes")
        if len(axes) != 2:
            raise ValueError("block_axes must hold exactly two axes")
        object.__setattr__(self, "block_axes", (axes[0], axes[1]))

    def to_wire(self) -> JsonValue:
        return {
            "quantized_block_grid": {
                "packed_values": self.packed_values.to_wire(),
                "packed_dimensions": list(self.packed_dimensions),
                "scales": self.scales.to_wire(),
                "block_axes": list(self.block_axes),
            }
        }


@dataclass(frozen=True, slots=True)
class BlockQuantizedLayout:
    """Self-contained quantized blocks along ``block_axis``."""

    blocks: PhysicalWeightComponentBinding
    block_axis: int
    block_padding: PhysicalWeightPadding = EXACT

    def __post_init__(self) -> None:
        check_uint(self.block_axis, 32, "block_axis")

    def to_wire(self) -> JsonValue:
        return {
            "block_quantized": {
                "blocks": self.blocks.to_wire(),
                "block_axis": self.block_axis,
                "block_padding": self.block_padding.to_wire(),
            }
        }


@dataclass(frozen=True, slots=True)
class AxisReshapePermutationLayout:
    """A sub-range of one axis stored reshaped and permuted."""

    values: PhysicalWeightLayout
    axis: int
    logical_offset: int
    extent: int
    reshape: tuple[int, ...]
    stored_axis_order: tuple[int, ...]

    def __post_init__(self) -> None:
        check_uint(self.axis, 32, "axis")
        check_uint(self.logical_offset, 64, "logical_offset")
        check_uint(self.extent, 64, "extent")
        object.__setattr__(self, "reshape", check_uints(self.reshape, 64, "reshape"))
        object.__setattr__(self, "stored_axis_order", check_uints(self.stored_axis_order, 32, "stored_axis_order"))

    def to_wire(self) -> JsonValue:
        return {
            "axis_reshape_permutation": {
                "values": self.values.to_wire(),
                "axis": self.axis,
                "logical_offset": self.logical_offset,
                "extent": self.extent,
                "reshape": list(self.reshape),
                "stored_axis_order": list(self.stored_axis_order),
            }
        }


@dataclass(frozen=True, slots=True)
class IndexedLayout:
    """A gather along ``indices.axis`` from a source of ``source_axis_extent`` rows."""

    indices: AxisWeightComponent
    values: PhysicalWeightLayout
    source_axis_extent: int

    def __post_init__(self) -> None:
        check_uint(self.source_axis_extent, 64, "source_axis_extent")

    def to_wire(self) -> JsonValue:
        return {
            "indexed": {
                "indices": self.indices.to_wire(),
                "values": self.values.to_wire(),
                "source_axis_extent": self.source_axis_extent,
            }
        }


@dataclass(frozen=True, slots=True)
class ExpertStackLayout:
    """One child per expert; list position is the expert index (never reordered)."""

    experts: tuple[PhysicalWeightLayout, ...]
    expert_axis: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "experts", tuple(self.experts))
        check_uint(self.expert_axis, 32, "expert_axis")

    def to_wire(self) -> JsonValue:
        return {"expert_stack": {"experts": [e.to_wire() for e in self.experts], "expert_axis": self.expert_axis}}


PhysicalWeightLayout = (
    DenseLayout
    | StoredLayout
    | CompositeLayout
    | QuantizedLayout
    | QuantizedBlockGridLayout
    | BlockQuantizedLayout
    | AxisReshapePermutationLayout
    | IndexedLayout
    | ExpertStackLayout
)

_VARIANTS: Final = (
    "dense",
    "stored",
    "composite",
    "quantized",
    "quantized_block_grid",
    "block_quantized",
    "axis_reshape_permutation",
    "indexed",
    "expert_stack",
)


def _binding(raw: Any, context: str, path: str) -> PhysicalWeightComponentBinding:
    return PhysicalWeightComponentBinding.from_wire(raw, context, path)


def _axis(raw: Any, context: str, path: str) -> AxisWeightComponent:
    return AxisWeightComponent.from_wire(raw, context, path)


def _part(raw: Any, context: str, path: str) -> CompositeWeightPart:
    f = WireObject(
        raw,
        ("layout", "logical_offsets", "extents"),
        lenient=True,
        type_name="CompositeWeightPart",
        context=context,
        path=path,
    )
    return CompositeWeightPart(
        f.nested("layout", decode_physical_layout), f.uints("logical_offsets", 64), f.uints("extents", 64)
    )


def decode_physical_layout(raw: Any, context: str, path: str = "$") -> PhysicalWeightLayout:
    """Structural decode of a layout tree (unknown keys ignored, no validation)."""
    tag, content = read_tagged_enum(raw, (), _VARIANTS, context=context, path=path)
    inner = f"{path}.{tag}"

    def fields(required: tuple[str, ...], optional: tuple[str, ...] = ()) -> WireObject:
        return WireObject(content, required, optional, lenient=True, type_name=tag, context=context, path=inner)

    if tag == "dense":
        f = fields(("component_id",))
        return DenseLayout(f.identity("component_id", WeightId))
    if tag == "stored":
        f = fields(("component",))
        return StoredLayout(f.nested("component", _binding))
    if tag == "composite":
        f = fields(("parts",))
        return CompositeLayout(f.items("parts", _part))
    if tag == "quantized":
        f = fields(
            ("packed_values", "packed_dimensions", "scales", "group_axis", "group_padding"),
            ("zero_points", "zero_point_packed_dimensions", "axis_indices", "permutation", "codebook"),
        )
        return QuantizedLayout(
            f.nested("packed_values", _binding),
            f.uints("packed_dimensions", 64),
            f.nested("scales", _binding),
            f.optional("zero_points", _binding),
            f.uints("zero_point_packed_dimensions", 64) if f.has("zero_point_packed_dimensions") else None,
            f.optional("axis_indices", _axis),
            f.optional("permutation", _axis),
            f.optional("codebook", _binding),
            f.u32("group_axis"),
            f.nested("group_padding", PhysicalWeightPadding.from_wire),
        )
    if tag == "quantized_block_grid":
        f = fields(("packed_values", "packed_dimensions", "scales", "block_axes"))
        axes = read_list(f.raw("block_axes"), context=context, path=f.at("block_axes"))
        if len(axes) != 2:
            raise Serialization(  # rule: 02.1/fixed_arrays_exact_length
                context, f"{f.at('block_axes')}: expected an array of exactly 2 axes"
            )
        a0, a1 = (read_uint(v, bits=32, context=context, path=f.at("block_axes")) for v in axes)
        return QuantizedBlockGridLayout(
            f.nested("packed_values", _binding),
            f.uints("packed_dimensions", 64),
            f.nested("scales", _binding),
            (a0, a1),
        )
    if tag == "block_quantized":
        f = fields(("blocks", "block_axis", "block_padding"))
        return BlockQuantizedLayout(
            f.nested("blocks", _binding),
            f.u32("block_axis"),
            f.nested("block_padding", PhysicalWeightPadding.from_wire),
        )
    if tag == "axis_reshape_permutation":
        f = fields(("values", "axis", "logical_offset", "extent", "reshape", "stored_axis_order"))
        return AxisReshapePermutationLayout(
            f.nested("values", decode_physical_layout),
            f.u32("axis"),
            f.u64("logical_offset"),
            f.u64("extent"),
            f.uints("reshape", 64),
            read_uints(f.raw("stored_axis_order"), bits=32, context=context, path=f.at("stored_axis_order")),
        )
    if tag == "indexed":
        f = fields(("indices", "values", "source_axis_extent"))
        return IndexedLayout(
            f.nested("indices", _axis), f.nested("values", decode_physical_layout), f.u64("source_axis_extent")
        )
    f = fields(("experts", "expert_axis"))
    return ExpertStackLayout(f.items("experts", decode_physical_layout), f.u32("expert_axis"))
