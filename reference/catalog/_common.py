"""Shared helpers of the catalog package: blank text, enum and set decoding.

Not part of the public API. Every decode failure is ``Serialization`` with a JSON path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any, TypeVar

from reference.canonical import is_canonical_sha256
from reference.errors import Serialization
from reference.ids import Identity
from reference.ints import rust_trim
from reference.wire import read_list, read_tagged

__all__ = [
    "OrderedEnum",
    "identity_set_from_wire",
    "identity_set_to_wire",
    "is_blank",
    "read_struct_variant",
    "read_unit_or_tagged",
    "require_canonical_sha256",
]

E = TypeVar("E", bound="OrderedEnum")
IdT = TypeVar("IdT", bound=Identity)
T = TypeVar("T")


def is_blank(text: str) -> bool:
    """True iff ``text`` is empty after Rust trimming."""
    return rust_trim(text) == ""


def require_canonical_sha256(value: object) -> bool:
    """Alias of ``is_canonical_sha256`` kept for call-site readability."""
    return is_canonical_sha256(value)


#: Declaration index of every ``OrderedEnum`` member, by ``id`` (members live as long as their class).
_RANKS: dict[int, int] = {}
#: The wire strings of each ``OrderedEnum`` class, in declaration order.
_WIRE_VALUES: dict[type[Enum], tuple[str, ...]] = {}


class OrderedEnum(Enum):
    """A unit-variant enum whose wire form is its value and whose ``Ord`` is declaration order."""

    @property
    def rank(self) -> int:
        found = _RANKS.get(id(self))
        if found is None:
            for index, member in enumerate(type(self)):
                _RANKS[id(member)] = index
            found = _RANKS[id(self)]
        return found

    def __lt__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.rank >= other.rank

    def to_wire(self) -> str:
        return str(self._value_)

    @classmethod
    def from_wire(cls: type[E], raw: Any, *, context: str = "decode enum", path: str = "$") -> E:
        """A unit variant: its string, or ``{"variant": null}`` (accepted, never emitted)."""
        allowed = _WIRE_VALUES.get(cls)
        if allowed is None:
            allowed = _WIRE_VALUES[cls] = tuple(m.value for m in cls)
        tag, content = read_unit_or_tagged(raw, allowed, context=context, path=path)
        if content is not None:
            raise Serialization(  # rule: 01.5/enum_variant_shape
                context, f"{path}: unit variant `{tag}` takes no content"
            )
        return cls(tag)


def read_unit_or_tagged(raw: Any, allowed: Iterable[str], *, context: str, path: str) -> tuple[str, Any]:
    """An externally tagged enum value: ``"unit"`` or ``{"variant": content}``."""
    return read_tagged(raw, allowed, context=context, path=path)


def read_struct_variant(
    content: Any, fields: Iterable[str], *, variant: str, context: str, path: str
) -> dict[str, Any]:
    """The object of a struct variant; unknown keys are ignored (no deny_unknown_fields on enums)."""
    if not isinstance(content, dict):
        raise Serialization(  # rule: 01.5/struct_wrong_json_type
            context, f"{path}.{variant}: struct variant must be a JSON object"
        )
    for name in fields:
        if name not in content:
            raise Serialization(  # rule: 03.1/derived_struct_missing_field
                context, f"{path}.{variant}: missing field `{name}`"
            )
    return content


def identity_set_to_wire(values: Iterable[Identity]) -> list[str]:
    """A ``BTreeSet`` of identities: ascending, unique."""
    return [v.value for v in sorted(set(values))]


def identity_set_from_wire(raw: Any, cls: type[IdT], *, context: str, path: str) -> frozenset[IdT]:
    """A ``BTreeSet`` of identities: any order, duplicates collapse."""
    items = read_list(raw, context=context, path=path)
    return frozenset(cls.from_wire(item, context=context) for item in items)


def decode_list(raw: Any, item: Callable[[Any, str], T], *, context: str, path: str) -> list[T]:
    """A ``Vec`` decoded item by item with indexed paths."""
    items = read_list(raw, context=context, path=path)
    return [item(value, f"{path}[{index}]") for index, value in enumerate(items)]
