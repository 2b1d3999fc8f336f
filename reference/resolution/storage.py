"""``ResolvedStorageComponent`` and ``ResolvedValueStorage`` (spec 04 §5.3-5.4).

Storage is normalised, never rejected for order: components sort by
``(component_id, resource_id, offset_bytes)`` with ``None`` first. All
failures are ``InvalidExecutionPlan``; decoding failures are ``Serialization``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from reference.canonical import JsonValue
from reference.errors import InvalidExecutionPlan, invalid_plan
from reference.ids import ResourceId, WeightId
from reference.ints import U64_MAX, checked_sum, fits_uint
from reference.model.element import ElementType
from reference.wire import WireObject, decode_with

__all__ = ["ResolvedStorageComponent", "ResolvedValueStorage", "ranges_overlap", "storages_overlap"]


def _u64(value: Any, name: str) -> int:
    if not fits_uint(value, 64):
        raise InvalidExecutionPlan(reason=f"{name} {value!r} is not a u64")  # rule: 04.5.3/range_numbers_fixed_width
    return value


def _invalid_component() -> InvalidExecutionPlan:
    """The one error of ``ResolvedStorageComponent::new`` (a single combined check upstream)."""
    return InvalidExecutionPlan(reason="resolved storage component is empty, misaligned or overflows u64")


@dataclass(frozen=True, slots=True)
class ResolvedStorageComponent:
    """One byte range of one resource; ``component_id`` names a weight component (else ``None``)."""

    component_id: WeightId | None
    resource_id: ResourceId
    offset_bytes: int
    length_bytes: int
    element_type: ElementType

    def __post_init__(self) -> None:
        _u64(self.offset_bytes, "offset_bytes")
        _u64(self.length_bytes, "length_bytes")
        size = self.element_type.size_bytes
        if self.length_bytes == 0:
            raise _invalid_component()  # rule: 04.5.3/length_nonzero
        if self.offset_bytes + self.length_bytes > U64_MAX:
            raise _invalid_component()  # rule: 04.5.3/end_fits_u64
        if self.offset_bytes % size:
            raise _invalid_component()  # rule: 04.5.3/offset_multiple_of_element
        if self.length_bytes % size:
            raise _invalid_component()  # rule: 04.5.3/length_multiple_of_element

    @property
    def end_bytes(self) -> int:
        return self.offset_bytes + self.length_bytes

    def sort_key(self) -> tuple[int, str, str, int]:
        cid = self.component_id
        return (0 if cid is None else 1, "" if cid is None else cid.value, self.resource_id.value, self.offset_bytes)

    def overlaps(self, other: ResolvedStorageComponent) -> bool:
        """Same resource and intersecting half-open byte ranges."""
        return self.resource_id == other.resource_id and ranges_overlap(
            self.offset_bytes, self.length_bytes, other.offset_bytes, other.length_bytes
        )

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "component_id": None if self.component_id is None else self.component_id.value,
            "resource_id": self.resource_id.value,
            "offset_bytes": self.offset_bytes,
            "length_bytes": self.length_bytes,
            "element_type": self.element_type.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode resolved storage component", path: str = "$"
    ) -> ResolvedStorageComponent:
        fields = ("component_id", "resource_id", "offset_bytes", "length_bytes", "element_type")
        obj = WireObject(raw, fields, type_name="ResolvedStorageComponent", context=context, path=path)
        component_id = None if obj.raw("component_id") is None else obj.identity("component_id", WeightId)
        resource_id = obj.identity("resource_id", ResourceId)
        offset, length = obj.u64("offset_bytes"), obj.u64("length_bytes")
        element_type = ElementType.from_wire(obj.raw("element_type"), context=context, path=obj.at("element_type"))
        return decode_with(
            lambda: cls(component_id, resource_id, offset, length, element_type), context=context, path=path
        )


def ranges_overlap(a_offset: int, a_length: int, b_offset: int, b_length: int) -> bool:
    """Half-open ``[offset, offset + length)`` ranges intersect."""
    return a_offset < b_offset + b_length and b_offset < a_offset + a_length


@dataclass(frozen=True, slots=True, init=False)
class ResolvedValueStorage:
    """The physical components backing one value, in canonical order."""

    components: tuple[ResolvedStorageComponent, ...]

    def __init__(self, components: Iterable[ResolvedStorageComponent]) -> None:
        """The internal ``new``: non-empty; several components all carry ids; sorted; unique ids; no overlap."""
        items = list(components)
        if not items:
            raise InvalidExecutionPlan(reason="resolved value storage is empty")  # rule: 04.5.4/storage_nonempty
        if len(items) > 1 and any(c.component_id is None for c in items):
            raise InvalidExecutionPlan(  # rule: 04.5.4/multi_component_needs_ids
                reason="multi-component value storage requires physical component identities"
            )
        items.sort(key=ResolvedStorageComponent.sort_key)
        seen: set[WeightId] = set()
        for index, component in enumerate(items):
            if component.component_id is not None:
                if component.component_id in seen:
                    raise InvalidExecutionPlan(  # rule: 04.5.4/duplicate_component_id_rejected
                        reason="resolved value storage has duplicate components"
                    )
                seen.add(component.component_id)
            if any(previous.overlaps(component) for previous in items[:index]):
                raise InvalidExecutionPlan(  # rule: 04.5.4/overlap_in_resource_rejected
                    reason="resolved value storage components overlap in one resource"
                )
        object.__setattr__(self, "components", tuple(items))

    @classmethod
    def single(
        cls, resource_id: ResourceId, offset_bytes: int, length_bytes: int, element_type: ElementType
    ) -> ResolvedValueStorage:
        """One anonymous component."""
        return cls([ResolvedStorageComponent(None, resource_id, offset_bytes, length_bytes, element_type)])

    @classmethod
    def composite(cls, components: Iterable[ResolvedStorageComponent]) -> ResolvedValueStorage:
        """Every component must name its weight component."""
        items = list(components)
        if any(c.component_id is None for c in items):
            raise InvalidExecutionPlan(  # rule: 04.5.4/composite_needs_ids
                reason="composite value storage requires a physical component identity"
            )
        return cls(items)

    def resource_ids(self) -> frozenset[ResourceId]:
        return frozenset(c.resource_id for c in self.components)

    def sorted_resource_ids(self) -> tuple[ResourceId, ...]:
        return tuple(sorted(self.resource_ids()))

    def total_physical_bytes(self) -> int:
        return checked_sum(  # rule: 04.5.4/total_physical_bytes_checked
            (c.length_bytes for c in self.components),
            error=partial(invalid_plan, "resolved storage byte count overflows u64"),
        )

    def overlaps(self, other: ResolvedValueStorage) -> bool:
        return storages_overlap(self, other)

    def to_wire(self) -> dict[str, JsonValue]:
        return {"components": [c.to_wire() for c in self.components]}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode resolved value storage", path: str = "$"
    ) -> ResolvedValueStorage:
        """deny_unknown_fields, then ``new`` (order is normalised, not rejected)."""
        obj = WireObject(raw, ("components",), type_name="ResolvedValueStorage", context=context, path=path)
        items = [
            ResolvedStorageComponent.from_wire(c, context=context, path=f"{obj.at('components')}[{i}]")
            for i, c in enumerate(obj.array("components"))
        ]
        return decode_with(lambda: cls(items), context=context, path=path)


def storages_overlap(left: ResolvedValueStorage, right: ResolvedValueStorage) -> bool:
    """Some component pair shares a resource and intersecting byte ranges."""
    return any(a.overlaps(b) for a in left.components for b in right.components)
