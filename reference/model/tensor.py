"""Program tensors: ``ResolvedTensorLayout`` and ``ProgramTensorSpec`` (spec 02 §10.1, 04 §5.1-5.2).

``ProgramTensorSpec`` is unvalidated on construction and decode; ``validate(field)``
applies the ``ResolvedTensorSpec`` rules and raises a bare ``InvalidExecutionPlan``
whose reason starts with ``"<field> is invalid"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from reference.canonical import JsonValue
from reference.errors import InvalidExecutionPlan
from reference.ints import check_uints, checked_mul, checked_product, checked_round_up
from reference.model.element import ElementType
from reference.wire import WireObject, read_tagged_enum, read_uints

__all__ = [
    "BlockedLayout",
    "BlockedTensorPadding",
    "ContiguousLayout",
    "ProgramTensorSpec",
    "ResolvedTensorLayout",
    "StridedLayout",
    "TensorFailure",
    "decode_tensor_layout",
    "validate_resolved_tensor",
]


@dataclass(frozen=True, slots=True)
class BlockedTensorPadding:
    """``"exact"`` when ``physical_dimensions`` is None, else ``{"zero_fill": {...}}``."""

    physical_dimensions: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.physical_dimensions is not None:
            object.__setattr__(
                self, "physical_dimensions", check_uints(self.physical_dimensions, 64, "physical_dimensions")
            )

    def to_wire(self) -> JsonValue:
        if self.physical_dimensions is None:
            return "exact"
        return {"zero_fill": {"physical_dimensions": list(self.physical_dimensions)}}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str) -> BlockedTensorPadding:
        tag, content = read_tagged_enum(raw, ("exact",), ("zero_fill",), context=context, path=path)
        if tag == "exact":
            return cls(None)
        f = WireObject(
            content, ("physical_dimensions",), lenient=True, type_name="zero_fill", context=context, path=path
        )
        return cls(f.uints("physical_dimensions", 64))


@dataclass(frozen=True, slots=True)
class ContiguousLayout:
    """Dense row-major storage: ``"contiguous"``."""

    def to_wire(self) -> JsonValue:
        return "contiguous"


@dataclass(frozen=True, slots=True)
class StridedLayout:
    """``{"strided": {"byte_strides": [...]}}``."""

    byte_strides: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "byte_strides", check_uints(self.byte_strides, 64, "byte_strides"))

    def to_wire(self) -> JsonValue:
        return {"strided": {"byte_strides": list(self.byte_strides)}}


@dataclass(frozen=True, slots=True)
class BlockedLayout:
    """``{"blocked": {"block": [...], "axis_order": [...], "padding": ...}}``."""

    block: tuple[int, ...]
    axis_order: tuple[int, ...]
    padding: BlockedTensorPadding = BlockedTensorPadding()

    def __post_init__(self) -> None:
        object.__setattr__(self, "block", check_uints(self.block, 64, "block"))
        object.__setattr__(self, "axis_order", check_uints(self.axis_order, 32, "axis_order"))

    def to_wire(self) -> JsonValue:
        return {
            "blocked": {
                "block": list(self.block),
                "axis_order": list(self.axis_order),
                "padding": self.padding.to_wire(),
            }
        }


ResolvedTensorLayout = ContiguousLayout | StridedLayout | BlockedLayout


def decode_tensor_layout(raw: Any, context: str, path: str) -> ResolvedTensorLayout:
    """Decode a ``ResolvedTensorLayout`` (inner objects ignore unknown keys)."""
    tag, content = read_tagged_enum(raw, ("contiguous",), ("strided", "blocked"), context=context, path=path)
    if tag == "contiguous":
        return ContiguousLayout()
    if tag == "strided":
        f = WireObject(content, ("byte_strides",), lenient=True, type_name="strided", context=context, path=path)
        return StridedLayout(f.uints("byte_strides", 64))
    f = WireObject(
        content, ("block", "axis_order", "padding"), lenient=True, type_name="blocked", context=context, path=path
    )
    return BlockedLayout(
        read_uints(f.raw("block"), bits=64, context=context, path=f.at("block")),
        read_uints(f.raw("axis_order"), bits=32, context=context, path=f.at("axis_order")),
        f.nested("padding", BlockedTensorPadding.from_wire),
    )


def _is_permutation(order: tuple[int, ...], rank: int) -> bool:
    return len(order) == rank and sorted(order) == list(range(rank))


class TensorFailure(StrEnum):
    """Why a tensor breaks the ``ResolvedTensorSpec::new`` rules (04 §5.2); the value is the failure text."""

    DIMENSION_ZERO = "tensor dimensions must be non-zero"
    STRIDES = "strided layout needs one non-zero byte stride per dimension"
    BLOCK_EXTENTS = "blocked layout needs one non-zero block extent per dimension"
    AXIS_ORDER = "blocked layout axis_order must be a permutation of the tensor axes"
    EXACT_NOT_DIVISIBLE = "exact blocked layout needs dimensions divisible by the block"
    ZERO_FILL_RANK = "zero-fill physical dimensions must match the tensor rank"
    PADDED_OVERFLOW = "blocked padding overflows u64"
    ZERO_FILL_GRID = "zero-fill physical dimensions do not match the padded block grid"
    ZERO_FILL_NOT_PADDED = "zero-fill padding must enlarge at least one axis"
    BYTE_SIZE_OVERFLOW = "tensor byte size overflows u64"


def validate_resolved_tensor(
    dimensions: tuple[int, ...], element_type: ElementType, layout: ResolvedTensorLayout
) -> TensorFailure | None:
    """The ``ResolvedTensorSpec::new`` rules (04 §5.2), in order; the first failure (its text) or None."""
    rank = len(dimensions)
    if any(d == 0 for d in dimensions):
        return TensorFailure.DIMENSION_ZERO
    if isinstance(layout, StridedLayout):
        if len(layout.byte_strides) != rank or any(s == 0 for s in layout.byte_strides):
            return TensorFailure.STRIDES
    elif isinstance(layout, BlockedLayout):
        if len(layout.block) != rank or any(b == 0 for b in layout.block):
            return TensorFailure.BLOCK_EXTENTS
        if not _is_permutation(layout.axis_order, rank):
            return TensorFailure.AXIS_ORDER
        physical = layout.padding.physical_dimensions
        if physical is None:
            if any(d % b for d, b in zip(dimensions, layout.block, strict=True)):
                return TensorFailure.EXACT_NOT_DIVISIBLE
        else:
            if len(physical) != rank:
                return TensorFailure.ZERO_FILL_RANK
            padded: list[int] = []
            for d, b in zip(dimensions, layout.block, strict=True):
                rounded = checked_round_up(d, b)
                if rounded is None:
                    return TensorFailure.PADDED_OVERFLOW
                padded.append(rounded)
            expected = tuple(padded[axis] for axis in layout.axis_order)
            if physical != expected:
                return TensorFailure.ZERO_FILL_GRID
            if tuple(padded) == dimensions:
                return TensorFailure.ZERO_FILL_NOT_PADDED
    elements = checked_product(dimensions)
    if elements is None or checked_mul(elements, element_type.size_bytes) is None:
        return TensorFailure.BYTE_SIZE_OVERFLOW
    return None


@dataclass(frozen=True, slots=True)
class ProgramTensorSpec:
    """A program-level tensor: dimensions, element type, layout (unvalidated until ``validate``)."""

    dimensions: tuple[int, ...]
    element_type: ElementType
    layout: ResolvedTensorLayout = ContiguousLayout()

    def __post_init__(self) -> None:
        object.__setattr__(self, "dimensions", check_uints(self.dimensions, 64, "dimensions"))
        if not isinstance(self.element_type, ElementType):
            raise ValueError(f"element_type must be an ElementType, got {self.element_type!r}")

    def validate(self, field: str) -> None:
        """Raise bare ``InvalidExecutionPlan{reason="<field> is invalid: ..."}`` when not a valid resolved tensor."""
        failure = validate_resolved_tensor(self.dimensions, self.element_type, self.layout)
        if failure is not None:
            raise InvalidExecutionPlan(reason=f"{field} is invalid: {failure}")  # rule: 02.10.1/program_tensor_validate

    def byte_len(self) -> int:
        """``prod(dims) * size_bytes`` (layout ignored); overflow is ``InvalidExecutionPlan``."""
        elements = checked_product(self.dimensions)
        total = None if elements is None else checked_mul(elements, self.element_type.size_bytes)
        if total is None:
            raise InvalidExecutionPlan(  # rule: 02.10.1/program_tensor_byte_len_prevalidated
                reason="program tensor byte length overflows u64"
            )
        return total

    def to_wire(self) -> JsonValue:
        return {
            "dimensions": list(self.dimensions),
            "element_type": self.element_type.to_wire(),
            "layout": self.layout.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> ProgramTensorSpec:
        """Structural decode only (unknown keys ignored, no validation)."""
        f = WireObject(
            raw,
            ("dimensions", "element_type", "layout"),
            lenient=True,
            type_name="ProgramTensorSpec",
            context=context,
            path=path,
        )
        return cls(
            f.uints("dimensions", 64),
            ElementType.from_wire(f.raw("element_type"), context=context, path=f.at("element_type")),
            f.nested("layout", decode_tensor_layout),
        )
