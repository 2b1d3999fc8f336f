"""``ElementType`` as the model layer uses it (spec 03 §2).

Wire: snake_case unit strings. Ordering is the Rust declaration order
(bool < u8 < u32 < i8 < i32 < f16 < bf16 < f32), not alphabetical.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Final

from reference.errors import Serialization

__all__ = ["FLOAT_TYPES", "INDEX_TYPES", "NARROW_INDEX_TYPES", "SCALE_TYPES", "ElementType"]


class ElementType(Enum):
    """Tensor element type; ``value`` is the wire string."""

    BOOL = "bool"
    U8 = "u8"
    U32 = "u32"
    I8 = "i8"
    I32 = "i32"
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"

    @property
    def size_bytes(self) -> int:
        """Bytes per element: bool/u8/i8 = 1, f16/bf16 = 2, u32/i32/f32 = 4."""
        return _SIZES[self]

    @property
    def rank(self) -> int:
        """Declaration index (the derived ``Ord``)."""
        return _RANKS[self]

    def is_float(self) -> bool:
        return self in FLOAT_TYPES

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, ElementType):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, ElementType):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, ElementType):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, ElementType):
            return NotImplemented
        return self.rank >= other.rank

    def to_wire(self) -> str:
        return self._value_

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> ElementType:
        if isinstance(raw, str):
            for member in cls:
                if member.value == raw:
                    return member
        raise Serialization(  # rule: 03.2/element_type_unknown_rejected
            context, f"{path}: unknown element type {raw!r}"
        )


_SIZES: Final = {
    ElementType.BOOL: 1,
    ElementType.U8: 1,
    ElementType.U32: 4,
    ElementType.I8: 1,
    ElementType.I32: 4,
    ElementType.F16: 2,
    ElementType.BF16: 2,
    ElementType.F32: 4,
}
_RANKS: Final = {member: index for index, member in enumerate(ElementType)}

FLOAT_TYPES: Final = frozenset({ElementType.F16, ElementType.BF16, ElementType.F32})
#: scales components accept dense u8 as well as floats (spec 02 §8.6 3f, U3).
SCALE_TYPES: Final = frozenset({ElementType.U8, ElementType.F16, ElementType.BF16, ElementType.F32})
NARROW_INDEX_TYPES: Final = frozenset({ElementType.U8, ElementType.U32, ElementType.I8, ElementType.I32})
INDEX_TYPES: Final = frozenset({ElementType.U32, ElementType.I32})
