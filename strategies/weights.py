"""Weight-schema strategies (spec 02 §8): every encoding and every physical layout variant.

``weight_schemas()`` draws a ``WeightSchema`` that ``validate`` accepts: each
tensor gets a layout tree (dense, stored contiguous/strided/tiled with exact or
zero-fill padding, composite box partitions, separate-scale quantized with
optional zero points / indices / permutation / codebook, block-grid,
self-contained blocks, axis reshape-permutation, indexed, expert stacks) and
exactly the components that tree binds, each bound once. Geometry is computed,
never filtered, so examples shrink to a single small dense tensor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from hypothesis import strategies as st

from reference.ids import QuantizationFormatId, WeightFormatId, WeightId, WeightLayoutId
from reference.model.element import FLOAT_TYPES, INDEX_TYPES, NARROW_INDEX_TYPES, ElementType
from reference.model.semantic_value import CanonicalRational
from reference.model.weight_encoding import (
    BlockQuantizationSpec,
    BlockQuantized,
    Dense,
    DenseAffine,
    QuantizationGrouping,
    QuantizationPacking,
    QuantizationSpec,
    Quantized,
    WeightComponentRole,
    WeightComponentSpec,
    WeightEncoding,
)
from reference.model.weight_layout import (
    AxisReshapePermutationLayout,
    AxisWeightComponent,
    BlockQuantizedLayout,
    CompositeLayout,
    CompositeWeightPart,
    DenseLayout,
    ExpertStackLayout,
    IndexedLayout,
    PhysicalWeightComponentBinding,
    PhysicalWeightLayout,
    QuantizedBlockGridLayout,
    QuantizedLayout,
    StoredLayout,
)
from reference.model.weight_schema import WeightSchema, WeightTensorSpec
from reference.model.weight_storage import (
    ContiguousStorage,
    PhysicalStorageLayout,
    PhysicalWeightPadding,
    StridedStorage,
    TiledStorage,
)
from reference.versions import ContractVersion
from strategies._reuse import reusable

__all__ = [
    "CONTAINER_FORMATS",
    "DENSE_LAYOUT_KINDS",
    "LAYOUT_KINDS",
    "QUANTIZED_LAYOUT_KINDS",
    "box_partitions",
    "container_weight_schemas",
    "shapes",
    "weight_schemas",
]

#: Every ``PhysicalWeightLayout`` variant a schema strategy can produce (stored is split by storage kind).
LAYOUT_KINDS: Final = (
    "dense",
    "stored_contiguous",
    "stored_strided",
    "stored_tiled",
    "composite",
    "quantized",
    "quantized_block_grid",
    "block_quantized",
    "axis_reshape_permutation",
    "indexed",
    "expert_stack",
)
#: Root layouts whose every component is dense (a dense-only tree when drawn with ``dense_only``).
DENSE_LAYOUT_KINDS: Final = (
    "dense",
    "stored_contiguous",
    "stored_strided",
    "stored_tiled",
    "composite",
    "indexed",
    "axis_reshape_permutation",
)
#: Root layouts with quantized or block-quantized components (rank-1 shapes).
QUANTIZED_LAYOUT_KINDS: Final = ("quantized", "block_quantized")
#: Container weight formats a checkpoint may carry dense bindings in (04 §9 step 9, decision D-04R-15).
CONTAINER_FORMATS: Final = (
    "weight-format.safetensors.mixed-gptq",
    "weight-format.gguf.mixed",
    "weight-format.dense",
)
_MAX_TREE_DEPTH: Final = 3
_FLOATS: Final = sorted(FLOAT_TYPES)
_ALL_TYPES: Final = list(ElementType)

Shape = tuple[int, ...]


def shapes(max_rank: int = 3, max_extent: int = 8) -> st.SearchStrategy[Shape]:
    """Non-empty shapes of small non-zero extents."""
    return st.lists(st.integers(1, max_extent), min_size=1, max_size=max_rank).map(tuple)


def _with(values: Shape, axis: int, value: int) -> Shape:
    out = list(values)
    out[axis] = value
    return tuple(out)


@reusable
@st.composite
def box_partitions(draw: st.DrawFn, shape: Shape, max_cuts: int = 3) -> list[tuple[Shape, Shape]]:
    """An exact partition of ``shape`` into boxes (offsets, extents) by guillotine cuts."""
    boxes: list[tuple[Shape, Shape]] = [((0,) * len(shape), shape)]
    for _ in range(draw(st.integers(0, max_cuts))):
        index = draw(st.integers(0, len(boxes) - 1))
        offsets, extents = boxes[index]
        cuttable = [axis for axis, extent in enumerate(extents) if extent >= 2]
        if not cuttable:
            continue
        axis = draw(st.sampled_from(cuttable))
        cut = draw(st.integers(1, extents[axis] - 1))
        boxes[index] = (offsets, _with(extents, axis, cut))
        boxes.append((_with(offsets, axis, offsets[axis] + cut), _with(extents, axis, extents[axis] - cut)))
    return boxes


@dataclass
class _Builder:
    """Mints component ids, external names and quantization format ids; collects components."""

    components: list[WeightComponentSpec] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)

    def add(
        self, role: WeightComponentRole, dims: Sequence[int], encoding: WeightEncoding, *, required: bool = True
    ) -> WeightId:
        index = len(self.components)
        component_id = WeightId(f"weight.c{index}")
        self.components.append(
            WeightComponentSpec(component_id, role, (f"blob/c{index}.bin",), tuple(dims), encoding, required)
        )
        return component_id

    def quant_format(self) -> QuantizationFormatId:
        return QuantizationFormatId(f"quant.q{len(self.components)}")


def _dense_encoding(draw: st.DrawFn, dtype: ElementType) -> WeightEncoding:
    if dtype in FLOAT_TYPES and draw(st.booleans()):
        rational = st.tuples(st.integers(-4, 4), st.integers(1, 4)).map(lambda p: CanonicalRational(p[0], p[1]))
        return DenseAffine(dtype, draw(rational), draw(rational))
    return Dense(dtype)


def _row_major_strides(extents: Sequence[int], order: Sequence[int], base: int) -> tuple[int, ...]:
    """Strides of a dense walk whose innermost axis is ``order[-1]``; ``base`` elements per step."""
    strides = [0] * len(extents)
    step = base
    for axis in reversed(order):
        strides[axis] = step
        step *= extents[axis]
    return tuple(strides)


def _zero_fill(draw: st.DrawFn, shape: Shape) -> Shape:
    grow = draw(st.lists(st.integers(0, 2), min_size=len(shape), max_size=len(shape)))
    if not any(grow):
        grow[draw(st.integers(0, len(shape) - 1))] = 1
    return tuple(s + g for s, g in zip(shape, grow, strict=True))


@reusable
@st.composite
def _storage(draw: st.DrawFn, shape: Shape, kind: str) -> tuple[PhysicalStorageLayout, Shape]:
    """A storage geometry for ``shape`` and the component dimensions it spans exactly."""
    rank = len(shape)
    if kind == "stored_tiled":
        tile = tuple(draw(st.integers(1, min(extent, 4))) for extent in shape)
        minimal = tuple(math.ceil(s / t) * t for s, t in zip(shape, tile, strict=True))
        padding = PhysicalWeightPadding(None if minimal == shape else minimal)
        grid = [m // t for m, t in zip(minimal, tile, strict=True)]
        order = tuple(draw(st.permutations(list(range(rank)))))
        physical_grid = [grid[axis] for axis in order]
        strides = _row_major_strides(physical_grid, list(range(rank)), math.prod(tile))
        return TiledStorage(tile, order, strides, padding), (math.prod(minimal),)
    padded = _zero_fill(draw, shape) if draw(st.booleans()) else shape
    padding = PhysicalWeightPadding(None if padded == shape else padded)
    if kind == "stored_contiguous":
        return ContiguousStorage(padding), padded
    walk = list(draw(st.permutations(list(range(rank)))))
    strides = _row_major_strides(padded, walk, 1)
    return StridedStorage(strides, padding), tuple(padded[axis] for axis in walk)


def _layout_kinds(shape: Shape, dtype: ElementType, depth: int, dense_only: bool = False) -> list[str]:
    kinds = ["dense", "stored_contiguous", "stored_strided", "stored_tiled"]
    nested = depth < _MAX_TREE_DEPTH
    if nested:
        kinds += ["composite", "indexed"]
        if len(shape) >= 2 and any(extent <= 3 for extent in shape):
            kinds.append("expert_stack")
        if any(extent >= 4 for extent in shape):
            kinds.append("axis_reshape_permutation")
    if dtype in FLOAT_TYPES and not dense_only:
        kinds += ["quantized", "block_quantized"]
        if len(shape) >= 2:
            kinds.append("quantized_block_grid")
    return kinds


@reusable
@st.composite
def _physical_layout(
    draw: st.DrawFn,
    builder: _Builder,
    shape: Shape,
    dtype: ElementType,
    depth: int = 1,
    kind: str | None = None,
    dense_only: bool = False,
) -> PhysicalWeightLayout:
    kinds = _layout_kinds(shape, dtype, depth, dense_only)
    if kind not in kinds:
        kind = draw(st.sampled_from(kinds))
    builder.kinds.add(kind)
    rank = len(shape)
    values = WeightComponentRole.VALUES
    if kind == "dense":
        return DenseLayout(builder.add(values, shape, _dense_encoding(draw, dtype)))
    if kind.startswith("stored_"):
        storage, dims = draw(_storage(shape, kind))
        component = builder.add(values, dims, _dense_encoding(draw, dtype))
        return StoredLayout(PhysicalWeightComponentBinding(component, storage))
    if kind == "composite":
        parts = [
            CompositeWeightPart(
                draw(_physical_layout(builder, extents, dtype, depth + 1, dense_only=dense_only)), offsets, extents
            )
            for offsets, extents in draw(box_partitions(shape))
        ]
        return CompositeLayout(tuple(draw(st.permutations(parts))))
    if kind == "indexed":
        axis = draw(st.integers(0, rank - 1))
        indices = builder.add(WeightComponentRole.INDICES, (shape[axis],), Dense(draw(st.sampled_from(
            sorted(NARROW_INDEX_TYPES)))))  # fmt: skip
        source = draw(st.integers(1, 4))
        inner = draw(_physical_layout(builder, _with(shape, axis, source), dtype, depth + 1, dense_only=dense_only))
        return IndexedLayout(AxisWeightComponent(PhysicalWeightComponentBinding(indices), axis), inner, source)
    if kind == "expert_stack":
        axis = draw(st.sampled_from([a for a, extent in enumerate(shape) if extent <= 3]))
        expert_shape = shape[:axis] + shape[axis + 1 :]
        experts = tuple(
            draw(_physical_layout(builder, expert_shape, dtype, depth + 1, dense_only=dense_only))
            for _ in range(shape[axis])
        )
        return ExpertStackLayout(experts, axis)
    if kind == "axis_reshape_permutation":
        axis = draw(st.sampled_from([a for a, extent in enumerate(shape) if extent >= 4]))
        first = draw(st.integers(2, shape[axis] // 2))
        second = draw(st.integers(2, shape[axis] // first))
        offset = draw(st.integers(0, shape[axis] - first * second))
        inner = draw(_physical_layout(builder, shape, dtype, depth + 1, dense_only=dense_only))
        return AxisReshapePermutationLayout(inner, axis, offset, first * second, (first, second), (1, 0))
    if kind == "quantized":
        return draw(_quantized(builder, shape, dtype))
    if kind == "quantized_block_grid":
        return draw(_block_grid(builder, shape))
    return draw(_block_quantized(builder, shape))


@reusable
@st.composite
def _quantized(draw: st.DrawFn, builder: _Builder, shape: Shape, dtype: ElementType) -> QuantizedLayout:
    rank = len(shape)
    axis = draw(st.integers(0, rank - 1))
    bits = draw(st.integers(1, 8))
    whole = draw(st.booleans())
    group = shape[axis] if whole else draw(st.sampled_from((1, 2, 4, 8)))
    grouping = QuantizationGrouping.whole_axis() if whole else QuantizationGrouping.fixed(group)
    rounded = math.ceil(shape[axis] / group) * group
    grouped = _with(shape, axis, rounded)
    padding = PhysicalWeightPadding(None if rounded == shape[axis] else grouped)
    zero_type = draw(st.one_of(st.none(), st.sampled_from(sorted(NARROW_INDEX_TYPES))))
    scale_type = draw(st.sampled_from(_FLOATS))
    spec = QuantizationSpec(
        builder.quant_format(), bits, grouping, draw(st.sampled_from(tuple(QuantizationPacking))), scale_type, zero_type
    )
    packed_dims = (math.ceil(math.prod(grouped) * bits / 8),)
    packed = builder.add(WeightComponentRole.PACKED_VALUES, packed_dims, Quantized(spec))
    scale_shape = _with(grouped, axis, rounded // group)
    scales = builder.add(WeightComponentRole.SCALES, scale_shape, Dense(scale_type))
    zero_points = zero_dims = None
    if zero_type is not None:
        packed_zero = zero_type in (ElementType.U8, ElementType.I8) and draw(st.booleans())
        if packed_zero:
            zero_dims = (math.ceil(math.prod(scale_shape) * bits / 8),)
            zero_points = builder.add(WeightComponentRole.ZERO_POINTS, zero_dims, Dense(zero_type))
        else:
            zero_points = builder.add(WeightComponentRole.ZERO_POINTS, scale_shape, Dense(zero_type))
    axis_indices = permutation = codebook = None
    if draw(st.booleans()):
        index_type = draw(st.sampled_from(sorted(NARROW_INDEX_TYPES)))
        axis_indices = AxisWeightComponent(
            PhysicalWeightComponentBinding(builder.add(WeightComponentRole.INDICES, (shape[axis],), Dense(index_type))),
            axis,
        )
    if draw(st.booleans()):
        index_type = draw(st.sampled_from(sorted(INDEX_TYPES)))
        permutation = AxisWeightComponent(
            PhysicalWeightComponentBinding(
                builder.add(WeightComponentRole.PERMUTATION, (shape[axis],), Dense(index_type))
            ),
            axis,
        )
    if draw(st.booleans()):
        codebook = PhysicalWeightComponentBinding(builder.add(WeightComponentRole.CODEBOOK, (2**bits,), Dense(dtype)))
    return QuantizedLayout(
        PhysicalWeightComponentBinding(packed),
        packed_dims,
        PhysicalWeightComponentBinding(scales),
        None if zero_points is None else PhysicalWeightComponentBinding(zero_points),
        zero_dims,
        axis_indices,
        permutation,
        codebook,
        axis,
        padding,
    )


@reusable
@st.composite
def _block_grid(draw: st.DrawFn, builder: _Builder, shape: Shape) -> QuantizedBlockGridLayout:
    first, second = sorted(draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=2, unique=True)))
    rows, cols = draw(st.sampled_from((1, 2, 4))), draw(st.sampled_from((1, 2, 4)))
    bits = draw(st.integers(1, 8))
    scale_type = draw(st.sampled_from(_FLOATS))
    spec = QuantizationSpec(
        builder.quant_format(),
        bits,
        QuantizationGrouping.block2d(rows, cols),
        draw(st.sampled_from(tuple(QuantizationPacking))),
        scale_type,
        None,
    )
    packed_dims = (math.ceil(math.prod(shape) * bits / 8),)
    packed = builder.add(WeightComponentRole.PACKED_VALUES, packed_dims, Quantized(spec))
    scale_shape = _with(_with(shape, first, math.ceil(shape[first] / rows)), second, math.ceil(shape[second] / cols))
    scales = builder.add(WeightComponentRole.SCALES, scale_shape, Dense(scale_type))
    return QuantizedBlockGridLayout(
        PhysicalWeightComponentBinding(packed), packed_dims, PhysicalWeightComponentBinding(scales), (first, second)
    )


@reusable
@st.composite
def _block_quantized(draw: st.DrawFn, builder: _Builder, shape: Shape) -> BlockQuantizedLayout:
    axis = draw(st.integers(0, len(shape) - 1))
    per_block = draw(st.sampled_from((1, 2, 3, 4, 32)))
    rounded = math.ceil(shape[axis] / per_block) * per_block
    padding = PhysicalWeightPadding(None if rounded == shape[axis] else _with(shape, axis, rounded))
    spec = BlockQuantizationSpec(builder.quant_format(), per_block, draw(st.integers(1, 18)))
    blocks = builder.add(
        WeightComponentRole.PACKED_VALUES, _with(shape, axis, rounded // per_block), BlockQuantized(spec)
    )
    return BlockQuantizedLayout(PhysicalWeightComponentBinding(blocks), axis, padding)


def _forced_shape(kind: str) -> st.SearchStrategy[Shape]:
    """Shapes on which ``kind`` is always possible (rank >= 2, extents >= 4; one small axis for experts)."""
    large = st.lists(st.integers(4, 8), min_size=1, max_size=2)
    first = st.integers(1, 3) if kind == "expert_stack" else st.integers(4, 8)
    return st.tuples(first, large).map(lambda pair: (pair[0], *pair[1]))


@reusable
@st.composite
def weight_schemas(
    draw: st.DrawFn,
    *,
    max_tensors: int = 3,
    tensor_shapes: st.SearchStrategy[Shape] | None = None,
    shuffle: bool = True,
    first_kind: str | None = None,
    first_required: bool | None = None,
) -> WeightSchema:
    """A schema ``WeightSchema.validate`` accepts (optionally listed in a non-normalized order).

    Tensors ``weight.t<i>``; components ``weight.c<n>`` named ``blob/c<n>.bin``; extra
    non-required components may stay unreferenced. ``first_kind`` (one of ``LAYOUT_KINDS``)
    forces the root layout of ``weight.t0`` where its shape allows it (float dtype, rank 2
    and extents >= 4 are then drawn); ``first_required`` pins its ``required`` flag.
    """
    builder = _Builder()
    tensors = []
    for index in range(draw(st.integers(1, max_tensors))):
        forced = first_kind if index == 0 else None
        shape = draw(_forced_shape(forced) if forced else (tensor_shapes or shapes()))
        dtype = draw(st.sampled_from(_FLOATS if forced else _ALL_TYPES))
        layout = draw(_physical_layout(builder, shape, dtype, kind=forced))
        required = first_required if index == 0 and first_required is not None else draw(st.booleans())
        tensors.append(WeightTensorSpec(WeightId(f"weight.t{index}"), shape, dtype, layout, required))
    for _ in range(draw(st.integers(0, 1))):
        builder.add(WeightComponentRole.METADATA, (draw(st.integers(1, 4)),), Dense(ElementType.U8), required=False)
    components = builder.components
    if shuffle:
        components = list(draw(st.permutations(components)))
        tensors = list(draw(st.permutations(tensors)))
    return WeightSchema(
        WeightFormatId(draw(st.sampled_from(("weight-format.dense", "weight-format.test")))),
        WeightLayoutId("weight-layout.generated"),
        ContractVersion(draw(st.integers(1, 2)), draw(st.integers(0, 3))),
        tuple(components),
        tuple(tensors),
    )


@reusable
@st.composite
def container_weight_schemas(
    draw: st.DrawFn, *, quantized: bool = False, tensor_id: str = "weight.matrix", shape: Shape = (4,)
) -> WeightSchema:
    """A one-tensor f32 schema for ``tensor_id`` labelled with a container format (``CONTAINER_FORMATS``).

    ``quantized=False``: a dense-only layout tree (every component dense), which a dense-only provider
    accepts whatever the container format (decision D-04R-15); ``quantized=True``: a quantized or
    block-quantized root, which requires the container format and its quantization formats.
    """
    builder = _Builder()
    kinds = QUANTIZED_LAYOUT_KINDS if quantized else DENSE_LAYOUT_KINDS
    kind = draw(st.sampled_from(kinds))
    layout = draw(_physical_layout(builder, shape, ElementType.F32, kind=kind, dense_only=not quantized))
    tensor = WeightTensorSpec(WeightId(tensor_id), shape, ElementType.F32, layout, True)
    return WeightSchema(
        WeightFormatId(draw(st.sampled_from(CONTAINER_FORMATS))),
        WeightLayoutId("weight-layout.container.generated"),
        ContractVersion(1, 0),
        tuple(draw(st.permutations(builder.components))),
        (tensor,),
    )
