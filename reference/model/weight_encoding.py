"""Weight components: roles, encodings, quantization specs, physical bytes (spec 02 §8.2-8.3).

Weight schema types ignore unknown keys on decode and are not validated on
decode (``WeightSchema.validate`` does that), except ``block_shape`` entries of
``block2d`` grouping, which must be non-zero u32.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from reference.canonical import JsonValue
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import QuantizationFormatId, WeightId
from reference.ints import check_bool, check_uint, check_uints, checked_mul, checked_product, fits_uint
from reference.model.element import FLOAT_TYPES, NARROW_INDEX_TYPES, ElementType
from reference.model.semantic_value import CanonicalRational
from reference.wire import WireObject, read_enum, read_list, read_str, read_tagged_enum, read_uint

__all__ = [
    "BlockQuantizationSpec",
    "Dense",
    "DenseAffine",
    "PhysicalWeightComponentRef",
    "Quantized",
    "BlockQuantized",
    "QuantizationGrouping",
    "QuantizationPacking",
    "QuantizationSpec",
    "WeightComponentRole",
    "WeightComponentSpec",
    "WeightEncoding",
    "decode_weight_encoding",
]


class WeightComponentRole(Enum):
    VALUES = "values"
    PACKED_VALUES = "packed_values"
    SCALES = "scales"
    ZERO_POINTS = "zero_points"
    INDICES = "indices"
    PERMUTATION = "permutation"
    CODEBOOK = "codebook"
    METADATA = "metadata"


class QuantizationPacking(Enum):
    """Informational; never validated against anything."""

    LINEAR = "linear"
    INTERLEAVED = "interleaved"
    TILED = "tiled"


def _power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


@dataclass(frozen=True, slots=True)
class QuantizationGrouping:
    """Internally tagged on ``kind``: ``fixed{size}``, ``whole_axis``, ``block2d{block_shape}``."""

    kind: str
    size: int | None = None
    block_shape: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.kind == "fixed":
            check_uint(self.size, 32, "size")
            if self.block_shape is not None:
                raise ValueError("fixed grouping has no block_shape")
        elif self.kind == "whole_axis":
            if self.size is not None or self.block_shape is not None:
                raise ValueError("whole_axis grouping has no fields")
        elif self.kind == "block2d":
            shape = tuple(self.block_shape or ())
            if len(shape) != 2 or not all(fits_uint(v, 32) and v > 0 for v in shape):
                raise ValueError("block2d block_shape must be two non-zero u32 values")
            object.__setattr__(self, "block_shape", (shape[0], shape[1]))
        else:
            raise ValueError(f"unknown grouping kind {self.kind!r}")

    @classmethod
    def fixed(cls, size: int) -> QuantizationGrouping:
        return cls("fixed", size=size)

    @classmethod
    def whole_axis(cls) -> QuantizationGrouping:
        return cls("whole_axis")

    @classmethod
    def block2d(cls, rows: int, cols: int) -> QuantizationGrouping:
        return cls("block2d", block_shape=(rows, cols))

    def resolved_size(self, axis_extent: int) -> int:
        """fixed -> size; whole_axis -> axis extent; block2d -> 0."""
        if self.kind == "fixed":
            assert self.size is not None
            return self.size
        if self.kind == "whole_axis":
            return axis_extent
        return 0

    def is_valid(self) -> bool:
        if self.kind == "fixed":
            return self.size is not None and _power_of_two(self.size)
        if self.kind == "block2d":
            assert self.block_shape is not None
            return all(_power_of_two(v) for v in self.block_shape)
        return True

    def to_wire(self) -> JsonValue:
        if self.kind == "fixed":
            return {"kind": "fixed", "size": self.size}
        if self.kind == "whole_axis":
            return {"kind": "whole_axis"}
        assert self.block_shape is not None
        return {"kind": "block2d", "block_shape": list(self.block_shape)}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> QuantizationGrouping:
        if not isinstance(raw, dict) or "kind" not in raw:
            raise Serialization(  # rule: 01.5/enum_variant_shape
                context, f"{path}: quantization grouping needs a `kind` tag"
            )
        kind = read_enum(raw["kind"], ("fixed", "whole_axis", "block2d"), context=context, path=f"{path}.kind")
        if kind == "fixed":
            f = WireObject(raw, ("size",), lenient=True, type_name="fixed", context=context, path=path)
            return cls("fixed", size=f.u32("size"))
        if kind == "whole_axis":
            return cls("whole_axis")
        f = WireObject(raw, ("block_shape",), lenient=True, type_name="block2d", context=context, path=path)
        shape = read_list(f.raw("block_shape"), context=context, path=f.at("block_shape"))
        if len(shape) != 2:
            raise Serialization(  # rule: 02.8.2/block2d_zero_entry_decode_error
                context, f"{f.at('block_shape')}: expected an array of 2 non-zero u32"
            )
        values = [
            read_uint(v, bits=32, context=context, path=f"{f.at('block_shape')}[{i}]") for i, v in enumerate(shape)
        ]
        if 0 in values:
            raise Serialization(  # rule: 02.8.2/block2d_zero_entry_decode_error
                context, f"{f.at('block_shape')}: block extents must be non-zero"
            )
        return cls("block2d", block_shape=(values[0], values[1]))


@dataclass(frozen=True, slots=True)
class QuantizationSpec:
    """Separate-scale group quantization: bits, grouping, packing, scale and zero-point types."""

    format_id: QuantizationFormatId
    bits_per_weight: int
    grouping: QuantizationGrouping
    packing: QuantizationPacking
    scale_type: ElementType
    zero_point_type: ElementType | None = None

    def __post_init__(self) -> None:
        check_uint(self.bits_per_weight, 8, "bits_per_weight")

    def validate(self) -> None:
        """bits 1..=8, valid grouping, float scale type, integer zero-point type (bare ``InvalidExecutionPlan``)."""
        if not 1 <= self.bits_per_weight <= 8:
            raise InvalidExecutionPlan(  # rule: 02.8.2/bits_per_weight_range
                reason="quantization bits_per_weight must be in 1..=8"
            )
        if not self.grouping.is_valid():
            if self.grouping.kind == "block2d":
                raise InvalidExecutionPlan(  # rule: 02.8.2/block2d_powers_of_two
                    reason="quantization group sizes must be non-zero powers of two"
                )
            raise InvalidExecutionPlan(  # rule: 02.8.2/fixed_group_power_of_two
                reason="quantization group sizes must be non-zero powers of two"
            )
        if self.scale_type not in FLOAT_TYPES:
            raise InvalidExecutionPlan(  # rule: 02.8.2/scale_type_float
                reason="quantization scale type must be f16, bf16 or f32"
            )
        if self.zero_point_type is not None and self.zero_point_type not in NARROW_INDEX_TYPES:
            raise InvalidExecutionPlan(  # rule: 02.8.2/zero_point_type_integer
                reason="quantization zero-point type must be u8, u32, i8 or i32"
            )

    def to_wire(self) -> JsonValue:
        return {
            "format_id": self.format_id.to_wire(),
            "bits_per_weight": self.bits_per_weight,
            "grouping": self.grouping.to_wire(),
            "packing": self.packing.value,
            "scale_type": self.scale_type.to_wire(),
            "zero_point_type": None if self.zero_point_type is None else self.zero_point_type.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> QuantizationSpec:
        f = WireObject(
            raw,
            ("format_id", "bits_per_weight", "grouping", "packing", "scale_type"),
            ("zero_point_type",),
            lenient=True,
            type_name="QuantizationSpec",
            context=context,
            path=path,
        )
        return cls(
            f.identity("format_id", QuantizationFormatId),
            f.u8("bits_per_weight"),
            f.nested("grouping", QuantizationGrouping.from_wire),
            QuantizationPacking(
                read_enum(
                    f.raw("packing"), [p.value for p in QuantizationPacking], context=context, path=f.at("packing")
                )
            ),
            ElementType.from_wire(f.raw("scale_type"), context=context, path=f.at("scale_type")),
            f.optional("zero_point_type", lambda r, c, p: ElementType.from_wire(r, context=c, path=p)),
        )


@dataclass(frozen=True, slots=True)
class BlockQuantizationSpec:
    """Self-contained blocks (GGUF style): logical values and bytes per block."""

    format_id: QuantizationFormatId
    logical_values_per_block: int
    bytes_per_block: int

    def __post_init__(self) -> None:
        check_uint(self.logical_values_per_block, 64, "logical_values_per_block")
        check_uint(self.bytes_per_block, 64, "bytes_per_block")

    def validate(self) -> None:
        if self.logical_values_per_block == 0:
            raise InvalidExecutionPlan(  # rule: 02.8.2/block_values_per_block_positive
                reason="block quantization needs non-zero values and bytes per block"
            )
        if self.bytes_per_block == 0:
            raise InvalidExecutionPlan(  # rule: 02.8.2/block_bytes_per_block_positive
                reason="block quantization needs non-zero values and bytes per block"
            )

    def to_wire(self) -> JsonValue:
        return {
            "format_id": self.format_id.to_wire(),
            "logical_values_per_block": self.logical_values_per_block,
            "bytes_per_block": self.bytes_per_block,
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> BlockQuantizationSpec:
        f = WireObject(
            raw,
            ("format_id", "logical_values_per_block", "bytes_per_block"),
            lenient=True,
            type_name="BlockQuantizationSpec",
            context=context,
            path=path,
        )
        return cls(
            f.identity("format_id", QuantizationFormatId), f.u64("logical_values_per_block"), f.u64("bytes_per_block")
        )


@dataclass(frozen=True, slots=True)
class Dense:
    element_type: ElementType

    def to_wire(self) -> JsonValue:
        return {"dense": {"element_type": self.element_type.to_wire()}}


@dataclass(frozen=True, slots=True)
class DenseAffine:
    """``logical = physical * scale + bias``."""

    element_type: ElementType
    scale: CanonicalRational
    bias: CanonicalRational

    def to_wire(self) -> JsonValue:
        return {
            "dense_affine": {
                "element_type": self.element_type.to_wire(),
                "scale": self.scale.to_wire(),
                "bias": self.bias.to_wire(),
            }
        }


@dataclass(frozen=True, slots=True)
class Quantized:
    spec: QuantizationSpec

    def to_wire(self) -> JsonValue:
        return {"quantized": self.spec.to_wire()}


@dataclass(frozen=True, slots=True)
class BlockQuantized:
    spec: BlockQuantizationSpec

    def to_wire(self) -> JsonValue:
        return {"block_quantized": self.spec.to_wire()}


WeightEncoding = Dense | DenseAffine | Quantized | BlockQuantized


def decode_weight_encoding(raw: Any, context: str, path: str = "$") -> WeightEncoding:
    tag, content = read_tagged_enum(
        raw, (), ("dense", "dense_affine", "quantized", "block_quantized"), context=context, path=path
    )
    inner = f"{path}.{tag}"
    if tag == "dense":
        f = WireObject(content, ("element_type",), lenient=True, type_name="dense", context=context, path=inner)
        return Dense(ElementType.from_wire(f.raw("element_type"), context=context, path=f.at("element_type")))
    if tag == "dense_affine":
        f = WireObject(
            content,
            ("element_type", "scale", "bias"),
            lenient=True,
            type_name="dense_affine",
            context=context,
            path=inner,
        )
        return DenseAffine(
            ElementType.from_wire(f.raw("element_type"), context=context, path=f.at("element_type")),
            f.nested("scale", CanonicalRational.from_wire),
            f.nested("bias", CanonicalRational.from_wire),
        )
    if tag == "quantized":
        return Quantized(QuantizationSpec.from_wire(content, context, inner))
    return BlockQuantized(BlockQuantizationSpec.from_wire(content, context, inner))


def dense_element_type(encoding: WeightEncoding) -> ElementType | None:
    """The element type of dense / dense_affine encodings, else None."""
    if isinstance(encoding, Dense | DenseAffine):
        return encoding.element_type
    return None


def quantization_format_id(encoding: WeightEncoding) -> QuantizationFormatId | None:
    if isinstance(encoding, Quantized | BlockQuantized):
        return encoding.spec.format_id
    return None


@dataclass(frozen=True, slots=True)
class WeightComponentSpec:
    """One stored blob: role, ordered external names (stacking order is semantic), raw dims, encoding."""

    id: WeightId
    role: WeightComponentRole
    external_names: tuple[str, ...]
    dimensions: tuple[int, ...]
    encoding: WeightEncoding
    required: bool = True

    def __post_init__(self) -> None:
        names = tuple(self.external_names)
        if not all(isinstance(n, str) for n in names):
            raise ValueError("external_names must be strings")
        object.__setattr__(self, "external_names", names)
        object.__setattr__(self, "dimensions", check_uints(self.dimensions, 64, "dimensions"))
        check_bool(self.required, "required")

    def dense_element_type(self) -> ElementType | None:
        return dense_element_type(self.encoding)

    def physical_element_type(self) -> ElementType:
        """The dense element type, else ``u8``."""
        return dense_element_type(self.encoding) or ElementType.U8

    def physical_bytes(self) -> int:
        """Exact stored bytes per encoding (spec 02 §8.3); overflow is ``InvalidExecutionPlan``."""
        elements = checked_product(self.dimensions)
        if elements is None:
            raise InvalidExecutionPlan(  # rule: 02.8.3/physical_bytes_overflow
                reason=f"weight component `{self.id}` element count overflows u64"
            )
        encoding = self.encoding
        if isinstance(encoding, Dense | DenseAffine):
            total = checked_mul(elements, encoding.element_type.size_bytes)
        elif isinstance(encoding, Quantized):
            total = elements
        else:
            encoding.spec.validate()
            total = checked_mul(elements, encoding.spec.bytes_per_block)
        if total is None:
            raise InvalidExecutionPlan(  # rule: 02.8.3/physical_bytes_overflow
                reason=f"weight component `{self.id}` byte size overflows u64"
            )
        return total

    def to_wire(self) -> JsonValue:
        return {
            "id": self.id.to_wire(),
            "role": self.role.value,
            "external_names": list(self.external_names),
            "dimensions": list(self.dimensions),
            "encoding": self.encoding.to_wire(),
            "required": self.required,
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> WeightComponentSpec:
        f = WireObject(
            raw,
            ("id", "role", "external_names", "dimensions", "encoding", "required"),
            lenient=True,
            type_name="WeightComponentSpec",
            context=context,
            path=path,
        )
        names = f.array("external_names")
        return cls(
            f.identity("id", WeightId),
            WeightComponentRole(
                read_enum(f.raw("role"), [r.value for r in WeightComponentRole], context=context, path=f.at("role"))
            ),
            tuple(read_str(n, context=context, path=f"{f.at('external_names')}[{i}]") for i, n in enumerate(names)),
            f.uints("dimensions", 64),
            f.nested("encoding", decode_weight_encoding),
            f.boolean("required"),
        )


@dataclass(frozen=True, slots=True)
class PhysicalWeightComponentRef:
    """``{component_id, physical_dimensions, resource_bytes, element_type}`` for resource planning."""

    component_id: WeightId
    physical_dimensions: tuple[int, ...]
    resource_bytes: int
    element_type: ElementType

    @classmethod
    def of(cls, component: WeightComponentSpec) -> PhysicalWeightComponentRef:
        return cls(component.id, component.dimensions, component.physical_bytes(), component.physical_element_type())

    def to_wire(self) -> JsonValue:
        return {
            "component_id": self.component_id.to_wire(),
            "physical_dimensions": list(self.physical_dimensions),
            "resource_bytes": self.resource_bytes,
            "element_type": self.element_type.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> PhysicalWeightComponentRef:
        f = WireObject(
            raw,
            ("component_id", "physical_dimensions", "resource_bytes", "element_type"),
            lenient=True,
            type_name="PhysicalWeightComponentRef",
            context=context,
            path=path,
        )
        return cls(
            f.identity("component_id", WeightId),
            f.uints("physical_dimensions", 64),
            f.u64("resource_bytes"),
            ElementType.from_wire(f.raw("element_type"), context=context, path=f.at("element_type")),
        )


__all__ += ["dense_element_type", "quantization_format_id"]
