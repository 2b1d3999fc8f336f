"""The physical weight layout tree (spec 02 §8.5) and its structural passes.

Variants are frozen dataclasses; ``PhysicalWeightLayout`` is their union. This
module also holds the budget pass (depth <= 16, nodes <= 4096, exact traversal
rules), ``physical_component_ids`` and the layout part of ``normalize``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Final

from reference.canonical import JsonValue
from reference.errors import Serialization
from reference.ids import WeightId
from reference.ints import check_uint, check_uints
from reference.wire import WireObject, read_list, read_tagged_enum, read_uint, read_uints

__all__ = [
    "MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH",
    "MAX_PHYSICAL_WEIGHT_LAYOUT_NODES",
    "AxisReshapePermutationLayout",
    "AxisWeightComponent",
    "BlockQuantizedLayout",
    "CompositeLayout",
    "CompositeWeightPart",
    "ContiguousStorage",
    "DenseLayout",
    "ExpertStackLayout",
    "IndexedLayout",
    "PhysicalStorageLayout",
    "PhysicalWeightComponentBinding",
    "PhysicalWeightLayout",
    "PhysicalWeightPadding",
    "QuantizedBlockGridLayout",
    "QuantizedLayout",
    "StoredLayout",
    "StridedStorage",
    "TiledStorage",
    "decode_physical_layout",
    "layout_bindings",
    "layout_budget_failure",
    "layout_children",
    "normalize_layout",
    "physical_component_id_set",
]

MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH: Final = 16
MAX_PHYSICAL_WEIGHT_LAYOUT_NODES: Final = 4096


@dataclass(frozen=True, slots=True)
class PhysicalWeightPadding:
    """``"exact"`` when ``padded_dimensions`` is None, else ``{"zero_fill": {"padded_dimensions": [...]}}``."""

    padded_dimensions: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.padded_dimensions is not None:
            object.__setattr__(self, "padded_dimensions", check_uints(self.padded_dimensions, 64, "padded_dimensions"))

    def to_wire(self) -> JsonValue:
        if self.padded_dimensions is None:
            return "exact"
        return {"zero_fill": {"padded_dimensions": list(self.padded_dimensions)}}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> PhysicalWeightPadding:
        tag, content = read_tagged_enum(raw, ("exact",), ("zero_fill",), context=context, path=path)
        if tag == "exact":
            return cls()
        f = WireObject(content, ("padded_dimensions",), lenient=True, type_name="zero_fill", context=context, path=path)
        return cls(f.uints("padded_dimensions", 64))


EXACT: Final = PhysicalWeightPadding()


@dataclass(frozen=True, slots=True)
class ContiguousStorage:
    padding: PhysicalWeightPadding = EXACT

    def to_wire(self) -> JsonValue:
        return {"contiguous": {"padding": self.padding.to_wire()}}


@dataclass(frozen=True, slots=True)
class StridedStorage:
    """Strides are in the component's storage unit."""

    strides_in_elements: tuple[int, ...]
    padding: PhysicalWeightPadding = EXACT

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "strides_in_elements", check_uints(self.strides_in_elements, 64, "strides_in_elements")
        )

    def to_wire(self) -> JsonValue:
        return {"strided": {"strides_in_elements": list(self.strides_in_elements), "padding": self.padding.to_wire()}}


@dataclass(frozen=True, slots=True)
class TiledStorage:
    """``axis_order[j]`` is the semantic axis of physical tile-grid axis j."""

    tile_shape: tuple[int, ...]
    axis_order: tuple[int, ...]
    tile_strides_in_elements: tuple[int, ...]
    padding: PhysicalWeightPadding = EXACT

    def __post_init__(self) -> None:
        object.__setattr__(self, "tile_shape", check_uints(self.tile_shape, 64, "tile_shape"))
        object.__setattr__(self, "axis_order", check_uints(self.axis_order, 32, "axis_order"))
        object.__setattr__(
            self, "tile_strides_in_elements", check_uints(self.tile_strides_in_elements, 64, "tile_strides_in_elements")
        )

    def to_wire(self) -> JsonValue:
        return {
            "tiled": {
                "tile_shape": list(self.tile_shape),
                "axis_order": list(self.axis_order),
                "tile_strides_in_elements": list(self.tile_strides_in_elements),
                "padding": self.padding.to_wire(),
            }
        }


PhysicalStorageLayout = ContiguousStorage | StridedStorage | TiledStorage


def decode_storage(raw: Any, context: str, path: str) -> PhysicalStorageLayout:
    tag, content = read_tagged_enum(raw, (), ("contiguous", "strided", "tiled"), context=context, path=path)
    inner = f"{path}.{tag}"
    if tag == "contiguous":
        f = WireObject(content, ("padding",), lenient=True, type_name="contiguous", context=context, path=inner)
        return ContiguousStorage(f.nested("padding", PhysicalWeightPadding.from_wire))
    if tag == "strided":
        f = WireObject(
            content, ("strides_in_elements", "padding"), lenient=True, type_name="strided", context=context, path=inner
        )
        return StridedStorage(f.uints("strides_in_elements", 64), f.nested("padding", PhysicalWeightPadding.from_wire))
    f = WireObject(
        content,
        ("tile_shape", "axis_order", "tile_strides_in_elements", "padding"),
        lenient=True,
        type_name="tiled",
        context=context,
        path=inner,
    )
    return TiledStorage(
        f.uints("tile_shape", 64),
        f.uints("axis_order", 32),
        f.uints("tile_strides_in_elements", 64),
        f.nested("padding", PhysicalWeightPadding.from_wire),
    )


@dataclass(frozen=True, slots=True)
class PhysicalWeightComponentBinding:
    """A component bound with an explicit storage geometry."""

    component_id: WeightId
    storage: PhysicalStorageLayout = ContiguousStorage()

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
            raise Serialization(context, f"{f.at('block_axes')}: expected an array of exactly 2 axes")
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


# --------------------------------------------------------------------------- structural passes


def layout_children(layout: PhysicalWeightLayout) -> tuple[PhysicalWeightLayout, ...]:
    """Child layouts in list order (composite parts, ``values``, experts)."""
    if isinstance(layout, CompositeLayout):
        return tuple(part.layout for part in layout.parts)
    if isinstance(layout, AxisReshapePermutationLayout | IndexedLayout):
        return (layout.values,)
    if isinstance(layout, ExpertStackLayout):
        return layout.experts
    return ()


def layout_bindings(layout: PhysicalWeightLayout) -> Iterator[WeightId]:
    """Component ids bound directly by this node (not its children)."""
    if isinstance(layout, DenseLayout):
        yield layout.component_id
    elif isinstance(layout, StoredLayout):
        yield layout.component.component_id
    elif isinstance(layout, QuantizedLayout):
        yield layout.packed_values.component_id
        yield layout.scales.component_id
        if layout.zero_points is not None:
            yield layout.zero_points.component_id
        if layout.axis_indices is not None:
            yield layout.axis_indices.component.component_id
        if layout.permutation is not None:
            yield layout.permutation.component.component_id
        if layout.codebook is not None:
            yield layout.codebook.component_id
    elif isinstance(layout, QuantizedBlockGridLayout):
        yield layout.packed_values.component_id
        yield layout.scales.component_id
    elif isinstance(layout, BlockQuantizedLayout):
        yield layout.blocks.component_id
    elif isinstance(layout, IndexedLayout):
        yield layout.indices.component.component_id


def _direct(layout: PhysicalWeightLayout) -> int:
    if isinstance(layout, DenseLayout | StoredLayout | BlockQuantizedLayout | IndexedLayout):
        return 1
    if isinstance(layout, QuantizedLayout):
        optional = (layout.zero_points, layout.axis_indices, layout.permutation, layout.codebook)
        return 2 + sum(1 for item in optional if item is not None)
    if isinstance(layout, QuantizedBlockGridLayout):
        return 2
    return 0


def layout_budget_failure(root: PhysicalWeightLayout) -> str | None:
    """The budget pass: None when within depth 16 / 4096 nodes, else the failure text."""
    stack: list[tuple[PhysicalWeightLayout, int]] = [(root, 1)]
    visited = 0
    while stack:
        node, depth = stack.pop()
        if depth > MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH:
            return f"physical weight layout exceeds maximum depth {MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH}"
        visited += 1 + _direct(node)
        if visited > MAX_PHYSICAL_WEIGHT_LAYOUT_NODES:
            return f"physical weight layout exceeds maximum nodes {MAX_PHYSICAL_WEIGHT_LAYOUT_NODES}"
        for child in layout_children(node):
            if visited + len(stack) >= MAX_PHYSICAL_WEIGHT_LAYOUT_NODES:
                return f"physical weight layout exceeds maximum nodes {MAX_PHYSICAL_WEIGHT_LAYOUT_NODES}"
            stack.append((child, depth + 1))
    return None


def physical_component_id_set(root: PhysicalWeightLayout) -> frozenset[WeightId]:
    """Every component id bound anywhere in the tree (call after the budget pass)."""
    found: set[WeightId] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        found.update(layout_bindings(node))
        stack.extend(layout_children(node))
    return frozenset(found)


def normalize_layout(layout: PhysicalWeightLayout) -> PhysicalWeightLayout:
    """Sort composite parts by (offsets, extents) recursively; expert order is kept."""
    if isinstance(layout, CompositeLayout):
        parts = [replace(part, layout=normalize_layout(part.layout)) for part in layout.parts]
        parts.sort(key=lambda part: (part.logical_offsets, part.extents))
        return CompositeLayout(tuple(parts))
    if isinstance(layout, AxisReshapePermutationLayout | IndexedLayout):
        return replace(layout, values=normalize_layout(layout.values))
    if isinstance(layout, ExpertStackLayout):
        return replace(layout, experts=tuple(normalize_layout(e) for e in layout.experts))
    return layout
