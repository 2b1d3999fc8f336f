"""Tensor contracts (spec 03 §3): dimension/stride/layout constraints, access, alias, ``TensorContract``.

``TensorContract`` sorts and de-duplicates its layouts (normalised, never
rejected) and then runs ``validate("tensor_contract")``; every failure is
``InvalidExecutionPlan``. Access/alias meaning, alias index range and symbol
consistency are checked elsewhere (``OperationDescriptor.validate``, 04).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from reference.catalog._common import OrderedEnum, is_blank, read_struct_variant, read_unit_or_tagged
from reference.catalog.element_type import ElementType, element_types_from_wire, element_types_to_wire
from reference.errors import Serialization, invalid_plan
from reference.wire import WireObject, decode_with, read_list, read_str, read_uint

__all__ = [
    "AliasPolicy",
    "BlockedLayout",
    "ContiguousLayout",
    "DimensionConstraint",
    "ExactBytesStride",
    "ExactDimension",
    "LayoutConstraint",
    "MayAlias",
    "MustAlias",
    "NoAlias",
    "RangeDimension",
    "StrideConstraint",
    "StridedLayout",
    "SymbolDimension",
    "SymbolStride",
    "TensorAccess",
    "TensorContract",
]


# --------------------------------------------------------------------------- dimensions


class DimensionConstraint:
    """``Exact(u64)`` | ``Symbol(String)`` | ``Range{minimum, maximum}``."""

    __slots__ = ()
    RANK: ClassVar[int] = -1

    def sort_key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def to_wire(self) -> Any:
        raise NotImplementedError

    @staticmethod
    def from_wire(raw: Any, *, context: str = "decode dimension constraint", path: str = "$") -> DimensionConstraint:
        tag, content = read_unit_or_tagged(raw, ("exact", "symbol", "range"), context=context, path=path)
        at = f"{path}.{tag}"
        if content is None:
            raise Serialization(context, f"{path}: variant `{tag}` needs content")  # rule: 01.5/enum_variant_shape
        if tag == "exact":
            return ExactDimension(read_uint(content, bits=64, context=context, path=at))
        if tag == "symbol":
            return SymbolDimension(read_str(content, context=context, path=at))
        obj = read_struct_variant(content, ("minimum", "maximum"), variant=tag, context=context, path=path)
        return RangeDimension(
            read_uint(obj["minimum"], bits=64, context=context, path=f"{at}.minimum"),
            read_uint(obj["maximum"], bits=64, context=context, path=f"{at}.maximum"),
        )


@dataclass(frozen=True, slots=True)
class ExactDimension(DimensionConstraint):
    """``{"exact": n}``."""

    value: int
    RANK: ClassVar[int] = 0

    def sort_key(self) -> tuple[Any, ...]:
        return (0, self.value)

    def to_wire(self) -> Any:
        return {"exact": self.value}


@dataclass(frozen=True, slots=True)
class SymbolDimension(DimensionConstraint):
    """``{"symbol": "tokens"}``."""

    name: str
    RANK: ClassVar[int] = 1

    def sort_key(self) -> tuple[Any, ...]:
        return (1, self.name)

    def to_wire(self) -> Any:
        return {"symbol": self.name}


@dataclass(frozen=True, slots=True)
class RangeDimension(DimensionConstraint):
    """``{"range": {"minimum": a, "maximum": b}}`` (inclusive)."""

    minimum: int
    maximum: int
    RANK: ClassVar[int] = 2

    def sort_key(self) -> tuple[Any, ...]:
        return (2, self.minimum, self.maximum)

    def to_wire(self) -> Any:
        return {"range": {"minimum": self.minimum, "maximum": self.maximum}}


# --------------------------------------------------------------------------- strides


class StrideConstraint:
    """``ExactBytes(u64)`` | ``Symbol(String)``; ``ExactBytes`` orders first."""

    __slots__ = ()

    def sort_key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def to_wire(self) -> Any:
        raise NotImplementedError

    @staticmethod
    def from_wire(raw: Any, *, context: str = "decode stride constraint", path: str = "$") -> StrideConstraint:
        tag, content = read_unit_or_tagged(raw, ("exact_bytes", "symbol"), context=context, path=path)
        at = f"{path}.{tag}"
        if content is None:
            raise Serialization(context, f"{path}: variant `{tag}` needs content")  # rule: 01.5/enum_variant_shape
        if tag == "exact_bytes":
            return ExactBytesStride(read_uint(content, bits=64, context=context, path=at))
        return SymbolStride(read_str(content, context=context, path=at))


@dataclass(frozen=True, slots=True)
class ExactBytesStride(StrideConstraint):
    """``{"exact_bytes": n}``."""

    value: int

    def sort_key(self) -> tuple[Any, ...]:
        return (0, self.value, "")

    def to_wire(self) -> Any:
        return {"exact_bytes": self.value}


@dataclass(frozen=True, slots=True)
class SymbolStride(StrideConstraint):
    """``{"symbol": "row"}``."""

    name: str

    def sort_key(self) -> tuple[Any, ...]:
        return (1, 0, self.name)

    def to_wire(self) -> Any:
        return {"symbol": self.name}


# --------------------------------------------------------------------------- layouts


class LayoutConstraint:
    """``Contiguous`` < ``Strided{strides}`` < ``Blocked{block, axis_order}`` (derived ``Ord``)."""

    __slots__ = ()

    def sort_key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def to_wire(self) -> Any:
        raise NotImplementedError

    @staticmethod
    def from_wire(raw: Any, *, context: str = "decode layout constraint", path: str = "$") -> LayoutConstraint:
        tag, content = read_unit_or_tagged(raw, ("contiguous", "strided", "blocked"), context=context, path=path)
        if tag == "contiguous":
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `contiguous` takes no content"
                )
            return ContiguousLayout()
        if content is None:
            raise Serialization(context, f"{path}: variant `{tag}` needs content")  # rule: 01.5/enum_variant_shape
        at = f"{path}.{tag}"
        if tag == "strided":
            obj = read_struct_variant(content, ("strides",), variant=tag, context=context, path=path)
            items = read_list(obj["strides"], context=context, path=f"{at}.strides")
            return StridedLayout(
                tuple(
                    StrideConstraint.from_wire(s, context=context, path=f"{at}.strides[{i}]")
                    for i, s in enumerate(items)
                )
            )
        obj = read_struct_variant(content, ("block", "axis_order"), variant=tag, context=context, path=path)
        block = read_list(obj["block"], context=context, path=f"{at}.block")
        axes = read_list(obj["axis_order"], context=context, path=f"{at}.axis_order")
        return BlockedLayout(
            tuple(read_uint(b, bits=64, context=context, path=f"{at}.block[{i}]") for i, b in enumerate(block)),
            tuple(read_uint(a, bits=32, context=context, path=f"{at}.axis_order[{i}]") for i, a in enumerate(axes)),
        )


@dataclass(frozen=True, slots=True)
class ContiguousLayout(LayoutConstraint):
    """``"contiguous"``."""

    def sort_key(self) -> tuple[Any, ...]:
        return (0,)

    def to_wire(self) -> Any:
        return "contiguous"


@dataclass(frozen=True, slots=True)
class StridedLayout(LayoutConstraint):
    """``{"strided": {"strides": [...]}}``; one stride per dimension."""

    strides: tuple[StrideConstraint, ...]

    def sort_key(self) -> tuple[Any, ...]:
        return (1, tuple(s.sort_key() for s in self.strides))

    def to_wire(self) -> Any:
        return {"strided": {"strides": [s.to_wire() for s in self.strides]}}


@dataclass(frozen=True, slots=True)
class BlockedLayout(LayoutConstraint):
    """``{"blocked": {"block": [...], "axis_order": [...]}}``."""

    block: tuple[int, ...]
    axis_order: tuple[int, ...]

    def sort_key(self) -> tuple[Any, ...]:
        return (2, self.block, self.axis_order)

    def to_wire(self) -> Any:
        return {"blocked": {"block": list(self.block), "axis_order": list(self.axis_order)}}


# --------------------------------------------------------------------------- access and alias


class TensorAccess(OrderedEnum):
    """``read`` | ``write`` | ``read_write``."""

    READ = "read"
    WRITE = "write"
    READ_WRITE = "read_write"


class AliasPolicy:
    """``NoAlias`` | ``MayAlias{tensor_index}`` | ``MustAlias{tensor_index}``."""

    __slots__ = ()

    def to_wire(self) -> Any:
        raise NotImplementedError

    @property
    def tensor_index(self) -> int | None:
        return None

    @staticmethod
    def from_wire(raw: Any, *, context: str = "decode alias policy", path: str = "$") -> AliasPolicy:
        tag, content = read_unit_or_tagged(raw, ("no_alias", "may_alias", "must_alias"), context=context, path=path)
        if tag == "no_alias":
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `no_alias` takes no content"
                )
            return NoAlias()
        if content is None:
            raise Serialization(context, f"{path}: variant `{tag}` needs content")  # rule: 01.5/enum_variant_shape
        obj = read_struct_variant(content, ("tensor_index",), variant=tag, context=context, path=path)
        index = read_uint(obj["tensor_index"], bits=32, context=context, path=f"{path}.{tag}.tensor_index")
        return MayAlias(index) if tag == "may_alias" else MustAlias(index)


@dataclass(frozen=True, slots=True)
class NoAlias(AliasPolicy):
    """``"no_alias"``."""

    def to_wire(self) -> Any:
        return "no_alias"


@dataclass(frozen=True, slots=True)
class MayAlias(AliasPolicy):
    """``{"may_alias": {"tensor_index": i}}``."""

    index: int

    @property
    def tensor_index(self) -> int | None:
        return self.index

    def to_wire(self) -> Any:
        return {"may_alias": {"tensor_index": self.index}}


@dataclass(frozen=True, slots=True)
class MustAlias(AliasPolicy):
    """``{"must_alias": {"tensor_index": i}}``."""

    index: int

    @property
    def tensor_index(self) -> int | None:
        return self.index

    def to_wire(self) -> Any:
        return {"must_alias": {"tensor_index": self.index}}


# --------------------------------------------------------------------------- contract


def canonical_layouts(layouts: Iterable[LayoutConstraint]) -> tuple[LayoutConstraint, ...]:
    """Sort by the derived ``Ord`` of §3.1 and drop exact duplicates."""
    out: list[LayoutConstraint] = []
    for layout in sorted(layouts, key=lambda item: item.sort_key()):
        if not out or out[-1] != layout:
            out.append(layout)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class TensorContract:
    """One operation tensor slot. Construction canonicalises ``layouts`` then validates."""

    dimensions: tuple[DimensionConstraint, ...]
    element_types: frozenset[ElementType]
    layouts: tuple[LayoutConstraint, ...]
    access: TensorAccess
    alias: AliasPolicy

    def __post_init__(self) -> None:
        object.__setattr__(self, "dimensions", tuple(self.dimensions))
        object.__setattr__(self, "element_types", frozenset(self.element_types))
        object.__setattr__(self, "layouts", canonical_layouts(self.layouts))
        self.validate("tensor_contract")

    @property
    def rank(self) -> int:
        return len(self.dimensions)

    def validate(self, field: str) -> None:
        """§3.2 checks in order; the first failure raises ``InvalidExecutionPlan``."""
        if not self.element_types:
            raise invalid_plan(f"{field} must declare at least one element type")  # rule: 03.3.2/element_types_empty
        if not self.layouts:
            raise invalid_plan(f"{field} must declare at least one layout")  # rule: 03.3.2/layouts_empty
        for index, dim in enumerate(self.dimensions):
            if isinstance(dim, ExactDimension) and dim.value == 0:
                raise invalid_plan(f"{field}.dimensions[{index}] admits a zero extent")  # rule: 03.3.2/exact_zero
            if isinstance(dim, RangeDimension) and dim.minimum == 0:
                raise invalid_plan(  # rule: 03.3.2/range_minimum_zero
                    f"{field}.dimensions[{index}] admits a zero extent"
                )
            if isinstance(dim, RangeDimension) and dim.minimum > dim.maximum:
                raise invalid_plan(f"{field}.dimensions[{index}] has an inverted range")  # rule: 03.3.2/range_inverted
            if isinstance(dim, SymbolDimension) and is_blank(dim.name):
                raise invalid_plan(f"{field}.dimensions[{index}] has a blank symbol")  # rule: 03.3.2/blank_symbol
        rank = self.rank
        for layout in self.layouts:
            if isinstance(layout, StridedLayout):
                if len(layout.strides) != rank:
                    raise invalid_plan(f"{field} has an invalid strided layout")  # rule: 03.3.2/strided_rank
                for stride in layout.strides:
                    if isinstance(stride, ExactBytesStride) and stride.value == 0:
                        raise invalid_plan(  # rule: 03.3.2/strided_zero_stride
                            f"{field} has an invalid strided layout"
                        )
                    if isinstance(stride, SymbolStride) and is_blank(stride.name):
                        raise invalid_plan(  # rule: 03.3.2/strided_blank_symbol
                            f"{field} has an invalid strided layout"
                        )
            elif isinstance(layout, BlockedLayout):
                if len(layout.block) != rank:
                    raise invalid_plan(f"{field} has an invalid blocked layout")  # rule: 03.3.2/blocked_rank
                if any(extent == 0 for extent in layout.block):
                    raise invalid_plan(  # rule: 03.3.2/blocked_zero_extent
                        f"{field} has an invalid blocked layout"
                    )
                if len(layout.axis_order) != rank or set(layout.axis_order) != set(range(rank)):
                    raise invalid_plan(  # rule: 03.3.2/blocked_axis_order
                        f"{field} has an invalid blocked layout"
                    )

    def to_wire(self) -> dict[str, Any]:
        return {
            "dimensions": [d.to_wire() for d in self.dimensions],
            "element_types": element_types_to_wire(self.element_types),
            "layouts": [layout.to_wire() for layout in self.layouts],
            "access": self.access.to_wire(),
            "alias": self.alias.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode tensor contract", path: str = "$") -> TensorContract:
        """deny_unknown_fields, then the constructor (layouts are normalised, not rejected)."""
        fields = ("dimensions", "element_types", "layouts", "access", "alias")
        obj = WireObject(
            raw,
            fields,
            type_name="TensorContract",  # rule when 01.3.6/decode_unknown_field: 03.3.2/tensor_contract_deny_unknown
            context=context,
            path=path,
        )
        dims = tuple(
            DimensionConstraint.from_wire(d, context=context, path=f"{obj.at('dimensions')}[{i}]")
            for i, d in enumerate(obj.array("dimensions"))
        )
        element_types = element_types_from_wire(obj.raw("element_types"), context=context, path=obj.at("element_types"))
        layouts = tuple(
            LayoutConstraint.from_wire(item, context=context, path=f"{obj.at('layouts')}[{i}]")
            for i, item in enumerate(obj.array("layouts"))
        )
        access = TensorAccess.from_wire(obj.raw("access"), context=context, path=obj.at("access"))
        alias = AliasPolicy.from_wire(obj.raw("alias"), context=context, path=obj.at("alias"))
        return decode_with(lambda: cls(dims, element_types, layouts, access, alias), context=context, path=path)
