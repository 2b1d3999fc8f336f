"""The storage geometry of one bound weight component (spec 02 §8.5): padding and the
contiguous, strided and tiled storage layouts, with their structural decode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.ints import check_uints
from reference.wire import WireObject, read_tagged_enum

__all__ = [
    "CONTIGUOUS",
    "EXACT",
    "ContiguousStorage",
    "PhysicalStorageLayout",
    "PhysicalWeightPadding",
    "StridedStorage",
    "TiledStorage",
    "decode_storage",
]


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
#: Contiguous storage with exact padding, the default geometry of a bound component.
CONTIGUOUS: Final = ContiguousStorage()


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
