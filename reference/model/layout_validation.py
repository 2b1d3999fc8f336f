"""The physical layout validator of ``WeightSchema.validate`` step 4b (spec 02 §8.7).

Every failure is ``InvalidModelConfig{field="weight_schema.tensors.<id>.physical_layout"}``.
A component may be bound at most once across the whole schema (``referenced``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import NoReturn

import numpy as np

from reference.errors import InvalidModelConfig
from reference.ids import WeightId
from reference.ints import ceil_div, checked_add, checked_mul, checked_product, checked_round_up
from reference.model.element import FLOAT_TYPES, INDEX_TYPES, NARROW_INDEX_TYPES, ElementType
from reference.model.layout_traversal import MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH, MAX_PHYSICAL_WEIGHT_LAYOUT_NODES
from reference.model.weight_encoding import (
    BlockQuantized,
    Quantized,
    WeightComponentRole,
    WeightComponentSpec,
    dense_element_type,
)
from reference.model.weight_layout import (
    AxisReshapePermutationLayout,
    AxisWeightComponent,
    BlockQuantizedLayout,
    CompositeLayout,
    DenseLayout,
    ExpertStackLayout,
    IndexedLayout,
    PhysicalWeightComponentBinding,
    PhysicalWeightLayout,
    QuantizedBlockGridLayout,
    QuantizedLayout,
    StoredLayout,
)
from reference.model.weight_storage import (
    ContiguousStorage,
    PhysicalStorageLayout,
    PhysicalWeightPadding,
    StridedStorage,
    TiledStorage,
)

__all__ = ["LayoutValidator", "SpanFault", "storage_span"]

Shape = tuple[int, ...]


class SpanFault(enum.Enum):
    """Why a strided walk has no span."""

    MALFORMED = "malformed"  # empty dims, a length mismatch, a zero extent, stride or base, or an overflow
    OVERLAP = "overlap"  # a stride smaller than the span so far: two indices alias one storage unit


def storage_span(dims: Shape, strides: Shape, base: int) -> int | SpanFault:
    """Extent in storage units of a strided walk, or why it has none."""
    if not dims or len(strides) != len(dims) or 0 in dims or 0 in strides or base == 0:
        return SpanFault.MALFORMED
    pairs = sorted(((e, t) for e, t in zip(dims, strides, strict=True) if e > 1), key=lambda pair: pair[1])
    span = base
    for extent, stride in pairs:
        if stride < span:
            return SpanFault.OVERLAP
        step = checked_mul(extent - 1, stride)
        total = None if step is None else checked_add(span, step)
        if total is None:
            return SpanFault.MALFORMED
        span = total
    return span


def _shape_ok(shape: Shape) -> bool:
    return bool(shape) and 0 not in shape and checked_product(shape) is not None


def _wrong_type(component: WeightComponentSpec, role: WeightComponentRole) -> str:
    return f"component `{component.id}` has the wrong element type for role {role.value}"


class LayoutValidator:
    """Validates one tensor's layout tree; ``referenced`` is shared by all tensors of the schema."""

    def __init__(
        self,
        family_id: str,
        tensor_id: WeightId,
        components: Mapping[WeightId, WeightComponentSpec],
        referenced: set[WeightId],
    ) -> None:
        self.family_id = family_id
        self.field = f"weight_schema.tensors.{tensor_id}.physical_layout"
        self.components = components
        self.referenced = referenced
        self.counter = 0

    def error(self, reason: str) -> InvalidModelConfig:
        """This tensor's layout failure, raised where the check it fails is made."""
        return InvalidModelConfig(family_id=self.family_id, field=self.field, reason=reason)

    def fail(self, reason: str) -> NoReturn:
        raise self.error(reason)  # rule: 02.8.7/layout_errors_field

    def visit(self, depth: int) -> None:
        if depth > MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH:
            raise self.error(  # rule: 02.8.7/visit_depth, 02.8.7/layout_errors_field
                f"physical weight layout exceeds maximum depth {MAX_PHYSICAL_WEIGHT_LAYOUT_DEPTH}"
            )
        self.counter += 1
        if self.counter > MAX_PHYSICAL_WEIGHT_LAYOUT_NODES:
            raise self.error(  # rule: 02.8.7/visit_nodes, 02.8.7/layout_errors_field
                f"physical weight layout exceeds maximum nodes {MAX_PHYSICAL_WEIGHT_LAYOUT_NODES}"
            )

    # ------------------------------------------------------------------ geometry helpers

    def resolve_padding(self, shape: Shape, padding: PhysicalWeightPadding) -> Shape:
        padded = padding.padded_dimensions
        if padded is None:
            return shape
        reason = "zero-fill padding must strictly enlarge the logical shape without shrinking any axis"
        if len(padded) != len(shape):
            raise self.error(reason)  # rule: 02.8.7/zero_fill_rank, 02.8.7/layout_errors_field
        if 0 in padded:
            raise self.error(reason)  # rule: 02.8.7/zero_fill_no_zero, 02.8.7/layout_errors_field
        if any(p < s for p, s in zip(padded, shape, strict=True)):
            raise self.error(reason)  # rule: 02.8.7/zero_fill_not_smaller, 02.8.7/layout_errors_field
        if padded == shape:
            raise self.error(reason)  # rule: 02.8.7/zero_fill_strictly_enlarges, 02.8.7/layout_errors_field
        if checked_product(padded) is None:
            raise self.error(reason)  # rule: 02.8.7/zero_fill_product_fits, 02.8.7/layout_errors_field
        return padded

    def grouped(self, shape: Shape, padding: PhysicalWeightPadding, axis: int, group: int) -> Shape:
        rounded = checked_round_up(shape[axis], group)
        if rounded is None:
            raise self.error(  # rule: 02.8.7/grouped_not_computable, 02.8.7/layout_errors_field
                "group padding is not computable"
            )
        padded = padding.padded_dimensions
        if padded is None:
            if rounded != shape[axis]:
                raise self.error(  # rule: 02.8.7/grouped_exact_multiple, 02.8.7/layout_errors_field
                    "exact grouping needs the axis to be a multiple of the group"
                )
            return shape
        if rounded == shape[axis]:
            raise self.error(  # rule: 02.8.7/grouped_zero_fill_enlarges, 02.8.7/layout_errors_field
                "zero-fill group padding must enlarge the grouped axis"
            )
        if len(padded) != len(shape):
            raise self.error(  # rule: 02.8.7/grouped_zero_fill_minimal, 02.8.7/layout_errors_field
                "zero-fill group padding rank mismatch"
            )
        for index, (p, s) in enumerate(zip(padded, shape, strict=True)):
            expected = rounded if index == axis else s
            if p != expected:
                raise self.error(  # rule: 02.8.7/grouped_zero_fill_minimal, 02.8.7/layout_errors_field
                    "zero-fill group padding must be the unique minimal group padding"
                )
        if checked_product(padded) is None:
            raise self.error(  # rule: 02.8.7/grouped_zero_fill_minimal, 02.8.7/layout_errors_field
                "zero-fill group padding overflows u64"
            )
        return padded

    def span(self, component: WeightComponentSpec, storage: str, dims: Shape, strides: Shape, base: int) -> int:
        """``storage_span``, failing for a walk that has none."""
        span = storage_span(dims, strides, base)
        reason = f"{storage} storage of `{component.id}` does not span exactly its raw elements"
        if span is SpanFault.MALFORMED:
            raise self.error(reason)  # rule: 02.8.7/span_rejects_malformed, 02.8.7/layout_errors_field
        if span is SpanFault.OVERLAP:
            raise self.error(reason)  # rule: 02.8.7/span_rejects_overlap, 02.8.7/layout_errors_field
        return span

    def storage_check(self, component: WeightComponentSpec, shape: Shape, storage: PhysicalStorageLayout) -> None:
        if not _shape_ok(shape):
            raise self.error(  # rule: 02.8.7/shape_ok, 02.8.7/layout_errors_field
                "semantic shape must be non-empty, non-zero and within u64"
            )
        raw = checked_product(component.dimensions)
        if raw is None:
            self.fail("component element count overflows u64")
        if isinstance(storage, ContiguousStorage):
            if component.dimensions != self.resolve_padding(shape, storage.padding):
                raise self.error(  # rule: 02.8.7/contiguous_dims_equal, 02.8.7/layout_errors_field
                    f"component `{component.id}` dimensions do not match the contiguous shape"
                )
        elif isinstance(storage, StridedStorage):
            padded = self.resolve_padding(shape, storage.padding)
            if self.span(component, "strided", padded, storage.strides_in_elements, 1) != raw:
                raise self.error(  # rule: 02.8.7/strided_span_equals_raw, 02.8.7/layout_errors_field
                    f"strided storage of `{component.id}` does not span exactly its raw elements"
                )
        else:
            self.tiled_check(component, shape, storage, raw)

    def tiled_check(self, component: WeightComponentSpec, shape: Shape, storage: TiledStorage, raw: int) -> None:
        rank = len(shape)
        tile = storage.tile_shape
        reason = "tiled storage needs rank-sized tile shape, axis order permutation and tile strides"
        if len(tile) != rank or 0 in tile:
            raise self.error(reason)  # rule: 02.8.7/tiled_tile_rank, 02.8.7/layout_errors_field
        if sorted(storage.axis_order) != list(range(rank)):
            raise self.error(reason)  # rule: 02.8.7/tiled_axis_order_permutation, 02.8.7/layout_errors_field
        if len(storage.tile_strides_in_elements) != rank:
            raise self.error(reason)  # rule: 02.8.7/tiled_strides_rank, 02.8.7/layout_errors_field
        padded = self.resolve_padding(shape, storage.padding)
        minimal: list[int] = []
        for extent, size in zip(shape, tile, strict=True):
            rounded = checked_round_up(extent, size)
            if rounded is None:
                self.fail("tile padding is not computable")
            minimal.append(rounded)
        if storage.padding.padded_dimensions is None:
            if tuple(minimal) != shape:
                raise self.error(  # rule: 02.8.7/tiled_exact_multiple, 02.8.7/layout_errors_field
                    "exact tiled storage needs every axis to be a multiple of its tile"
                )
        elif padded != tuple(minimal):
            raise self.error(  # rule: 02.8.7/tiled_zero_fill_minimal, 02.8.7/layout_errors_field
                "zero-fill tile padding must be the unique minimal tile padding"
            )
        grid = [p // t for p, t in zip(padded, tile, strict=True)]
        physical_grid = tuple(grid[axis] for axis in storage.axis_order)
        tile_elements = checked_product(tile)
        if tile_elements is None:
            self.fail("tile element count overflows u64")
        if self.span(component, "tiled", physical_grid, storage.tile_strides_in_elements, tile_elements) != raw:
            raise self.error(  # rule: 02.8.7/tiled_span_equals_raw, 02.8.7/layout_errors_field
                f"tiled storage of `{component.id}` does not span exactly its raw elements"
            )

    # ------------------------------------------------------------------ bindings

    def bind(
        self, binding: PhysicalWeightComponentBinding, shape: Shape, role: WeightComponentRole, depth: int
    ) -> WeightComponentSpec:
        self.visit(depth)
        component = self.components.get(binding.component_id)
        if component is None:
            raise self.error(  # rule: 02.8.7/bind_unknown_component, 02.8.7/layout_errors_field
                f"unknown component `{binding.component_id}`"
            )
        if component.role is not role:
            raise self.error(  # rule: 02.8.7/bind_role_mismatch, 02.8.7/layout_errors_field
                f"component `{component.id}` has role {component.role.value}, expected {role.value}"
            )
        self.storage_check(component, shape, binding.storage)
        if component.id in self.referenced:
            raise self.error(  # rule: 02.8.7/bind_referenced_twice, 02.8.7/layout_errors_field
                f"component `{component.id}` is referenced more than once"
            )
        self.referenced.add(component.id)
        return component

    def bind_dtype(
        self,
        binding: PhysicalWeightComponentBinding,
        shape: Shape,
        role: WeightComponentRole,
        depth: int,
        allowed: frozenset[ElementType],
    ) -> WeightComponentSpec:
        component = self.bind(binding, shape, role, depth)
        if dense_element_type(component.encoding) not in allowed:
            self.fail(f"component `{component.id}` has the wrong element type for role {role.value}")
        return component

    def axis_component(
        self,
        axis_component: AxisWeightComponent,
        shape: Shape,
        expected_axis: int,
        role: WeightComponentRole,
        narrow: bool,
        depth: int,
    ) -> None:
        if axis_component.axis != expected_axis:
            raise self.error(  # rule: 02.8.7/axis_component_axis, 02.8.7/layout_errors_field
                f"{role.value} component must index axis {expected_axis}"
            )
        component = self.bind(axis_component.component, (shape[expected_axis],), role, depth)
        element_type = dense_element_type(component.encoding)
        if narrow and element_type not in NARROW_INDEX_TYPES:
            raise self.error(  # rule: 02.8.7/axis_component_narrow_dtype, 02.8.7/layout_errors_field
                _wrong_type(component, role)
            )
        if not narrow and element_type not in INDEX_TYPES:
            raise self.error(  # rule: 02.8.7/axis_component_wide_dtype, 02.8.7/layout_errors_field
                _wrong_type(component, role)
            )

    # ------------------------------------------------------------------ the tree

    def validate(self, layout: PhysicalWeightLayout, shape: Shape, dtype: ElementType, depth: int = 1) -> None:
        self.visit(depth)
        if not _shape_ok(shape):
            raise self.error(  # rule: 02.8.7/shape_ok, 02.8.7/layout_errors_field
                "layout shape must be non-empty, non-zero and within u64"
            )
        values = WeightComponentRole.VALUES
        if isinstance(layout, DenseLayout | StoredLayout):
            binding = (
                PhysicalWeightComponentBinding(layout.component_id, ContiguousStorage())
                if isinstance(layout, DenseLayout)
                else layout.component
            )
            bound = self.bind(binding, shape, values, depth)
            if dense_element_type(bound.encoding) != dtype:
                raise self.error(  # rule: 02.8.7/dense_dtype_equals_logical, 02.8.7/layout_errors_field
                    _wrong_type(bound, values)
                )
        elif isinstance(layout, CompositeLayout):
            self.composite(layout, shape, dtype, depth)
        elif isinstance(layout, QuantizedLayout):
            self.quantized(layout, shape, dtype, depth)
        elif isinstance(layout, QuantizedBlockGridLayout):
            self.block_grid(layout, shape, dtype, depth)
        elif isinstance(layout, BlockQuantizedLayout):
            self.block_quantized(layout, shape, dtype, depth)
        elif isinstance(layout, AxisReshapePermutationLayout):
            self.reshape_permutation(layout, shape, dtype, depth)
        elif isinstance(layout, IndexedLayout):
            self.indexed(layout, shape, dtype, depth)
        else:
            self.expert_stack(layout, shape, dtype, depth)

    def composite(self, layout: CompositeLayout, shape: Shape, dtype: ElementType, depth: int) -> None:
        parts = layout.parts
        if not parts:
            raise self.error(  # rule: 02.8.7/composite_non_empty, 02.8.7/layout_errors_field
                "composite layout needs at least one part"
            )
        rank = len(shape)
        total = checked_product(shape)
        assert total is not None
        starts = np.zeros((len(parts), rank), dtype=np.uint64)
        ends = np.zeros((len(parts), rank), dtype=np.uint64)
        covered = 0
        for index, part in enumerate(parts):
            reason = f"composite part {index} has a rank mismatch or a zero extent"
            if len(part.logical_offsets) != rank or len(part.extents) != rank:
                raise self.error(reason)  # rule: 02.8.7/composite_part_rank, 02.8.7/layout_errors_field
            if 0 in part.extents:
                raise self.error(reason)  # rule: 02.8.7/composite_zero_extent, 02.8.7/layout_errors_field
            part_end: list[int] = []
            for axis, (offset, extent) in enumerate(zip(part.logical_offsets, part.extents, strict=True)):
                end = checked_add(offset, extent)
                if end is None or end > shape[axis]:
                    raise self.error(  # rule: 02.8.7/composite_out_of_bounds, 02.8.7/layout_errors_field
                        f"composite part {index} is out of bounds"
                    )
                part_end.append(end)
            start_row = np.array(part.logical_offsets, dtype=np.uint64)
            end_row = np.array(part_end, dtype=np.uint64)
            if index and bool(np.any(np.all((start_row < ends[:index]) & (starts[:index] < end_row), axis=1))):
                raise self.error(  # rule: 02.8.7/composite_overlap, 02.8.7/layout_errors_field
                    f"composite part {index} overlaps an earlier part"
                )
            starts[index] = start_row
            ends[index] = end_row
            volume = checked_product(part.extents)
            covered_next = None if volume is None else checked_add(covered, volume)
            if covered_next is None:
                self.fail("composite covered volume overflows u64")
            covered = covered_next
            self.validate(part.layout, part.extents, dtype, depth + 1)
        if covered != total:
            raise self.error(  # rule: 02.8.7/composite_exact_cover, 02.8.7/layout_errors_field
                "composite parts do not cover the tensor exactly"
            )

    def quantized(self, layout: QuantizedLayout, shape: Shape, dtype: ElementType, depth: int) -> None:
        if dtype not in FLOAT_TYPES:
            raise self.error(  # rule: 02.8.7/quantized_float_logical, 02.8.7/layout_errors_field
                "quantized tensors need a float logical type"
            )
        axis = layout.group_axis
        if axis >= len(shape):
            raise self.error(  # rule: 02.8.7/quantized_group_axis, 02.8.7/layout_errors_field
                "group axis out of range"
            )
        packed = self.components.get(layout.packed_values.component_id)
        if packed is None or not isinstance(packed.encoding, Quantized):
            raise self.error(  # rule: 02.8.7/quantized_packed_component, 02.8.7/layout_errors_field
                "quantized layout needs a quantized packed component"
            )
        spec = packed.encoding.spec
        group = spec.grouping.resolved_size(shape[axis])
        if group == 0:
            raise self.error(  # rule: 02.8.7/quantized_block2d_rejected, 02.8.7/layout_errors_field
                "quantized layout needs a one-axis grouping"
            )
        grouped = self.grouped(shape, layout.group_padding, axis, group)
        grouped_elements = checked_product(grouped)
        bits = None if grouped_elements is None else checked_mul(grouped_elements, spec.bits_per_weight)
        if bits is None:
            raise self.error(  # rule: 02.8.7/quantized_packed_byte_count, 02.8.7/layout_errors_field
                "packed bit count overflows u64"
            )
        packed_bytes = ceil_div(bits, 8)
        if checked_product(layout.packed_dimensions) != packed_bytes:
            raise self.error(  # rule: 02.8.7/quantized_packed_byte_count, 02.8.7/layout_errors_field
                "packed dimensions do not hold exactly the packed bytes"
            )
        self.bind(layout.packed_values, layout.packed_dimensions, WeightComponentRole.PACKED_VALUES, depth)
        scale_shape = list(grouped)
        scale_shape[axis] //= group
        scales = tuple(scale_shape)
        self.bind_dtype(layout.scales, scales, WeightComponentRole.SCALES, depth, frozenset({spec.scale_type}))
        zero_type, zero_points, zero_dims = (
            spec.zero_point_type,
            layout.zero_points,
            layout.zero_point_packed_dimensions,
        )
        if zero_type is not None and zero_points is not None:
            allowed = frozenset({zero_type})
            if zero_dims is not None:
                component = self.bind_dtype(zero_points, zero_dims, WeightComponentRole.ZERO_POINTS, depth, allowed)
                scale_elements = checked_product(scales)
                zero_bits = None if scale_elements is None else checked_mul(scale_elements, spec.bits_per_weight)
                if zero_bits is None or component.physical_bytes() != ceil_div(zero_bits, 8):
                    raise self.error(  # rule: 02.8.7/quantized_zero_points_packed, 02.8.7/layout_errors_field
                        "packed zero points do not hold exactly the packed zero-point bytes"
                    )
            else:
                self.bind_dtype(zero_points, scales, WeightComponentRole.ZERO_POINTS, depth, allowed)
        elif zero_type is not None or zero_points is not None or zero_dims is not None:
            raise self.error(  # rule: 02.8.7/quantized_zero_points_presence, 02.8.7/layout_errors_field
                "zero points must be present exactly when the spec declares a zero-point type"
            )
        if layout.axis_indices is not None:
            self.axis_component(layout.axis_indices, shape, axis, WeightComponentRole.INDICES, True, depth)
        if layout.permutation is not None:
            self.axis_component(layout.permutation, shape, axis, WeightComponentRole.PERMUTATION, False, depth)
        if layout.codebook is not None:
            self.bind_dtype(
                layout.codebook, (2**spec.bits_per_weight,), WeightComponentRole.CODEBOOK, depth, frozenset({dtype})
            )

    def block_grid(self, layout: QuantizedBlockGridLayout, shape: Shape, dtype: ElementType, depth: int) -> None:
        if dtype not in FLOAT_TYPES:
            raise self.error(  # rule: 02.8.7/block_grid_float_logical, 02.8.7/layout_errors_field
                "block-grid quantized tensors need a float logical type"
            )
        first, second = layout.block_axes
        if not first < second < len(shape):
            raise self.error(  # rule: 02.8.7/block_grid_axes, 02.8.7/layout_errors_field
                "block axes must be increasing and in range"
            )
        packed = self.components.get(layout.packed_values.component_id)
        if (
            packed is None
            or not isinstance(packed.encoding, Quantized)
            or packed.encoding.spec.grouping.block_shape is None
        ):
            raise self.error(  # rule: 02.8.7/block_grid_block2d_component, 02.8.7/layout_errors_field
                "block-grid layout needs a quantized component with block2d grouping"
            )
        spec = packed.encoding.spec
        if spec.zero_point_type is not None:
            raise self.error(  # rule: 02.8.7/block_grid_no_zero_points, 02.8.7/layout_errors_field
                "block-grid quantization has no zero points"
            )
        elements = checked_product(shape)
        bits = None if elements is None else checked_mul(elements, spec.bits_per_weight)
        if bits is None or not layout.packed_dimensions:
            raise self.error(  # rule: 02.8.7/block_grid_packed_dims, 02.8.7/layout_errors_field
                "block-grid packed dimensions are invalid"
            )
        if checked_product(layout.packed_dimensions) != ceil_div(bits, 8):
            raise self.error(  # rule: 02.8.7/block_grid_packed_dims, 02.8.7/layout_errors_field
                "block-grid packed dimensions do not hold exactly the packed bytes"
            )
        self.bind(layout.packed_values, layout.packed_dimensions, WeightComponentRole.PACKED_VALUES, depth)
        assert spec.grouping.block_shape is not None
        scale_shape = list(shape)
        for axis, block in zip((first, second), spec.grouping.block_shape, strict=True):
            scale_shape[axis] = ceil_div(shape[axis], block)
        self.bind_dtype(
            layout.scales, tuple(scale_shape), WeightComponentRole.SCALES, depth, frozenset({spec.scale_type})
        )

    def reshape_permutation(
        self, layout: AxisReshapePermutationLayout, shape: Shape, dtype: ElementType, depth: int
    ) -> None:
        axis, reshape, order = layout.axis, layout.reshape, layout.stored_axis_order
        if axis >= len(shape) or layout.extent == 0:
            raise self.error(  # rule: 02.8.7/reshape_axis_extent, 02.8.7/layout_errors_field
                "reshape axis out of range or zero extent"
            )
        end = checked_add(layout.logical_offset, layout.extent)
        if end is None or end > shape[axis]:
            raise self.error(  # rule: 02.8.7/reshape_bounds, 02.8.7/layout_errors_field
                "reshaped range is out of bounds"
            )
        if len(reshape) < 2 or 0 in reshape or checked_product(reshape) != layout.extent:
            raise self.error(  # rule: 02.8.7/reshape_shape, 02.8.7/layout_errors_field
                "reshape must have >= 2 non-zero axes whose product is the extent"
            )
        if sorted(order) != list(range(len(reshape))):
            raise self.error(  # rule: 02.8.7/reshape_order_permutation, 02.8.7/layout_errors_field
                "stored axis order must be a permutation of the reshape axes"
            )
        moved = [entry for entry in order if reshape[entry] > 1]
        if moved == [index for index, extent in enumerate(reshape) if extent > 1]:
            raise self.error(  # rule: 02.8.7/reshape_not_identity, 02.8.7/layout_errors_field
                "stored axis order is an identity permutation"
            )
        self.validate(layout.values, shape, dtype, depth + 1)

    def block_quantized(self, layout: BlockQuantizedLayout, shape: Shape, dtype: ElementType, depth: int) -> None:
        if dtype not in FLOAT_TYPES:
            raise self.error(  # rule: 02.8.7/block_quantized_float_logical, 02.8.7/layout_errors_field
                "block quantized tensors need a float logical type"
            )
        if layout.block_axis >= len(shape):
            raise self.error(  # rule: 02.8.7/block_quantized_axis, 02.8.7/layout_errors_field
                "block axis out of range"
            )
        component = self.components.get(layout.blocks.component_id)
        if component is None or not isinstance(component.encoding, BlockQuantized):
            raise self.error(  # rule: 02.8.7/block_quantized_component, 02.8.7/layout_errors_field
                "block quantized layout needs a block_quantized component"
            )
        per_block = component.encoding.spec.logical_values_per_block
        padded = list(self.grouped(shape, layout.block_padding, layout.block_axis, per_block))
        padded[layout.block_axis] //= per_block
        self.bind(layout.blocks, tuple(padded), WeightComponentRole.PACKED_VALUES, depth)

    def indexed(self, layout: IndexedLayout, shape: Shape, dtype: ElementType, depth: int) -> None:
        axis = layout.indices.axis
        if axis >= len(shape) or layout.source_axis_extent == 0:
            raise self.error(  # rule: 02.8.7/indexed_axis_source_extent, 02.8.7/layout_errors_field
                "indexed layout needs an in-range axis and a non-zero source extent"
            )
        self.axis_component(layout.indices, shape, axis, WeightComponentRole.INDICES, True, depth)
        source = list(shape)
        source[axis] = layout.source_axis_extent
        self.validate(layout.values, tuple(source), dtype, depth + 1)

    def expert_stack(self, layout: ExpertStackLayout, shape: Shape, dtype: ElementType, depth: int) -> None:
        axis = layout.expert_axis
        if axis >= len(shape):
            raise self.error(  # rule: 02.8.7/expert_axis, 02.8.7/layout_errors_field
                "expert axis out of range"
            )
        if not layout.experts or len(layout.experts) != shape[axis]:
            raise self.error(  # rule: 02.8.7/expert_count, 02.8.7/layout_errors_field
                "expert stack needs exactly one layout per expert"
            )
        expert_shape = shape[:axis] + shape[axis + 1 :]
        if not expert_shape:
            raise self.error(  # rule: 02.8.7/expert_rank_two, 02.8.7/layout_errors_field
                "expert stack needs a tensor of rank >= 2"
            )
        for expert in layout.experts:
            self.validate(expert, expert_shape, dtype, depth + 1)
