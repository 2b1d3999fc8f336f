"""``ResolvedTensorSpec`` (spec 04 §5.1-5.2): a concrete tensor with its storage layout.

The layout variants (``ContiguousLayout``, ``StridedLayout``, ``BlockedLayout`` with
``BlockedTensorPadding``) are the model layer's ``ResolvedTensorLayout`` types;
the validation rules are shared with ``ProgramTensorSpec.validate``. Every
failure is ``InvalidExecutionPlan``; decoding failures are ``Serialization``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

from reference.canonical import JsonValue, fingerprint
from reference.errors import InvalidExecutionPlan, invalid_plan
from reference.ints import checked_add, checked_mul, checked_product, fits_uint
from reference.model.element import ElementType
from reference.model.tensor import (
    BlockedLayout,
    BlockedTensorPadding,
    ContiguousLayout,
    ProgramTensorSpec,
    ResolvedTensorLayout,
    StridedLayout,
    TensorFailure,
    decode_tensor_layout,
    validate_resolved_tensor,
)
from reference.wire import WireObject, decode_with, read_uint

__all__ = [
    "TENSOR_LAYOUT_FINGERPRINT_CONTEXT",
    "BlockedLayout",
    "BlockedTensorPadding",
    "ContiguousLayout",
    "ResolvedTensorLayout",
    "ResolvedTensorSpec",
    "StridedLayout",
    "tensor_layout_class",
    "tensor_layout_fingerprint",
]

TENSOR_LAYOUT_FINGERPRINT_CONTEXT: Final = "fingerprint tensor storage layout class"
_CONTIGUOUS: Final = ContiguousLayout()


def _invalid_tensor(failure: TensorFailure) -> InvalidExecutionPlan:
    return InvalidExecutionPlan(reason=f"resolved tensor is invalid: {failure}")


def _raise_tensor_failure(failure: TensorFailure | None) -> None:
    """Raise the ``ResolvedTensorSpec::new`` failure ``validate_resolved_tensor`` found, one site per rule."""
    if failure is None:
        return
    if failure is TensorFailure.DIMENSION_ZERO:
        raise _invalid_tensor(failure)  # rule: 04.5.2/dimension_nonzero
    if failure is TensorFailure.STRIDES:
        raise _invalid_tensor(failure)  # rule: 04.5.2/strided_stride_count_and_nonzero
    if failure is TensorFailure.BLOCK_EXTENTS:
        raise _invalid_tensor(failure)  # rule: 04.5.2/blocked_block_count_and_nonzero
    if failure is TensorFailure.AXIS_ORDER:
        raise _invalid_tensor(failure)  # rule: 04.5.2/blocked_axis_order_permutation
    if failure is TensorFailure.EXACT_NOT_DIVISIBLE:
        raise _invalid_tensor(failure)  # rule: 04.5.2/blocked_exact_divisible
    if failure is TensorFailure.ZERO_FILL_RANK:
        raise _invalid_tensor(failure)  # rule: 04.5.2/zero_fill_physical_rank
    if failure is TensorFailure.PADDED_OVERFLOW:
        raise _invalid_tensor(failure)  # rule: 04.5.2/zero_fill_padded_overflow
    if failure is TensorFailure.ZERO_FILL_GRID:
        raise _invalid_tensor(failure)  # rule: 04.5.2/zero_fill_physical_matches_grid
    if failure is TensorFailure.ZERO_FILL_NOT_PADDED:
        raise _invalid_tensor(failure)  # rule: 04.5.2/zero_fill_padding_real
    raise _invalid_tensor(failure)  # rule: 04.5.2/byte_size_fits_u64


@dataclass(frozen=True, slots=True, init=False)
class ResolvedTensorSpec:
    """Dimensions (scalar when empty), element type and a validated layout."""

    dimensions: tuple[int, ...]
    element_type: ElementType
    layout: ResolvedTensorLayout

    def __init__(
        self,
        dimensions: Iterable[int],
        element_type: ElementType,
        layout: ResolvedTensorLayout = _CONTIGUOUS,
    ) -> None:
        dims = tuple(dimensions)
        for extent in dims:
            if not fits_uint(extent, 64):
                raise InvalidExecutionPlan(  # rule: 04.5.2/dimensions_fixed_width
                    reason=f"tensor dimension {extent!r} is not a u64"
                )
        if not isinstance(element_type, ElementType):
            raise TypeError(f"element_type must be an ElementType, got {element_type!r}")
        if not isinstance(layout, ContiguousLayout | StridedLayout | BlockedLayout):
            raise TypeError(f"layout must be a ResolvedTensorLayout, got {layout!r}")
        _raise_tensor_failure(validate_resolved_tensor(dims, element_type, layout))
        object.__setattr__(self, "dimensions", dims)
        object.__setattr__(self, "element_type", element_type)
        object.__setattr__(self, "layout", layout)

    @classmethod
    def from_program(cls, tensor: ProgramTensorSpec) -> ResolvedTensorSpec:
        return cls(tensor.dimensions, tensor.element_type, tensor.layout)

    def matches_program(self, tensor: ProgramTensorSpec) -> bool:
        """Equal dimensions, element type and layout."""
        return (
            self.dimensions == tensor.dimensions
            and self.element_type is tensor.element_type
            and self.layout == tensor.layout
        )

    def minimum_storage_bytes(self) -> int:
        """Bytes the layout spans: dense product, padded block grid, or the strided extent (checked)."""
        size = self.element_type.size_bytes
        layout = self.layout
        overflow = partial(invalid_plan, "resolved tensor storage size overflows u64")
        if isinstance(layout, StridedLayout):
            total = size
            for extent, stride in zip(self.dimensions, layout.byte_strides, strict=True):
                total = checked_add(  # rule: 04.5.2/zero_fill_padded_overflow
                    total,
                    checked_mul(extent - 1, stride, error=overflow),  # rule: 04.5.2/zero_fill_padded_overflow
                    error=overflow,
                )
            return total
        if isinstance(layout, BlockedLayout) and layout.padding.physical_dimensions is not None:
            return checked_mul(  # rule: 04.5.2/zero_fill_padded_overflow
                checked_product(  # rule: 04.5.2/zero_fill_padded_overflow
                    layout.padding.physical_dimensions, error=overflow
                ),
                size,
                error=overflow,
            )
        return checked_mul(  # rule: 04.5.2/zero_fill_padded_overflow
            checked_product(self.dimensions, error=overflow),  # rule: 04.5.2/zero_fill_padded_overflow
            size,
            error=overflow,
        )

    def layout_fingerprint(self) -> str:
        return tensor_layout_fingerprint(self.layout)

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "dimensions": list(self.dimensions),
            "element_type": self.element_type.to_wire(),
            "layout": self.layout.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode resolved tensor spec", path: str = "$"
    ) -> ResolvedTensorSpec:
        """deny_unknown_fields, then the constructor."""
        obj = WireObject(
            raw, ("dimensions", "element_type", "layout"), type_name="ResolvedTensorSpec", context=context, path=path
        )
        dims = tuple(
            read_uint(d, bits=64, context=context, path=f"{obj.at('dimensions')}[{i}]")
            for i, d in enumerate(obj.array("dimensions"))
        )
        element_type = ElementType.from_wire(obj.raw("element_type"), context=context, path=obj.at("element_type"))
        layout = decode_with(
            lambda: decode_tensor_layout(obj.raw("layout"), context, obj.at("layout")), context=context, path=path
        )
        return decode_with(lambda: cls(dims, element_type, layout), context=context, path=path)


def tensor_layout_class(layout: ResolvedTensorLayout) -> JsonValue:
    """The layout *class*: the layout's wire form with zero-fill padding reduced to ``"zero_fill"``."""
    if isinstance(layout, BlockedLayout):
        padding = "exact" if layout.padding.physical_dimensions is None else "zero_fill"
        return {"blocked": {"block": list(layout.block), "axis_order": list(layout.axis_order), "padding": padding}}
    return layout.to_wire()


def tensor_layout_fingerprint(layout: ResolvedTensorLayout) -> str:
    """Canonical fingerprint of the layout class (spec 05 §7.2)."""
    return fingerprint(tensor_layout_class(layout), context=TENSOR_LAYOUT_FINGERPRINT_CONTEXT)
