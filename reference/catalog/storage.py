"""Dynamic storage (spec 03 §6): allocator x view profiles, requirements and provider slot bindings.

``DynamicStorageProfile`` accepts exactly the §6.2 rows (power-of-two block
sizes per ``u64::is_power_of_two``), else ``InvalidExecutionPlan``.
``DynamicStorageRequirement`` sorts and de-duplicates on construction, and its
wire decoder rejects any list that is not already in that canonical form.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import total_ordering
from typing import Any

from reference.catalog._common import OrderedEnum, read_struct_variant, read_unit_or_tagged
from reference.errors import Serialization, invalid_plan
from reference.ints import fits_uint, is_power_of_two
from reference.wire import WireObject, decode_with, read_list, read_uint

__all__ = [
    "DynamicStorageAllocator",
    "DynamicStorageProfile",
    "DynamicStorageRequirement",
    "DynamicStorageView",
    "ProviderStorageBindingRequirement",
    "ResolvedValueRole",
]


@dataclass(frozen=True, slots=True)
class DynamicStorageAllocator:
    """``"linear_arena"`` | ``{"fixed_block_arena": {"block_bytes": b}}``."""

    block_bytes: int | None = None

    @classmethod
    def linear_arena(cls) -> DynamicStorageAllocator:
        return cls(None)

    @classmethod
    def fixed_block_arena(cls, block_bytes: int) -> DynamicStorageAllocator:
        return cls(block_bytes)

    @property
    def is_linear(self) -> bool:
        return self.block_bytes is None

    def sort_key(self) -> tuple[int, int]:
        return (0, 0) if self.block_bytes is None else (1, self.block_bytes)

    def to_wire(self) -> Any:
        return "linear_arena" if self.block_bytes is None else {"fixed_block_arena": {"block_bytes": self.block_bytes}}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode storage allocator", path: str = "$"
    ) -> DynamicStorageAllocator:
        tag, content = read_unit_or_tagged(raw, ("linear_arena", "fixed_block_arena"), context=context, path=path)
        if tag == "linear_arena":
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `linear_arena` takes no content"
                )
            return cls.linear_arena()
        obj = read_struct_variant(content, ("block_bytes",), variant=tag, context=context, path=path)
        return cls.fixed_block_arena(
            read_uint(obj["block_bytes"], bits=64, context=context, path=f"{path}.{tag}.block_bytes")
        )


@dataclass(frozen=True, slots=True)
class DynamicStorageView:
    """``"contiguous"`` | ``{"paged_regions": {"block_bytes": b}}``."""

    block_bytes: int | None = None

    @classmethod
    def contiguous(cls) -> DynamicStorageView:
        return cls(None)

    @classmethod
    def paged_regions(cls, block_bytes: int) -> DynamicStorageView:
        return cls(block_bytes)

    @property
    def is_contiguous(self) -> bool:
        return self.block_bytes is None

    def sort_key(self) -> tuple[int, int]:
        return (0, 0) if self.block_bytes is None else (1, self.block_bytes)

    def to_wire(self) -> Any:
        return "contiguous" if self.block_bytes is None else {"paged_regions": {"block_bytes": self.block_bytes}}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode storage view", path: str = "$") -> DynamicStorageView:
        tag, content = read_unit_or_tagged(raw, ("contiguous", "paged_regions"), context=context, path=path)
        if tag == "contiguous":
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `contiguous` takes no content"
                )
            return cls.contiguous()
        obj = read_struct_variant(content, ("block_bytes",), variant=tag, context=context, path=path)
        return cls.paged_regions(
            read_uint(obj["block_bytes"], bits=64, context=context, path=f"{path}.{tag}.block_bytes")
        )


@total_ordering
@dataclass(frozen=True, slots=True, eq=True)
class DynamicStorageProfile:
    """An accepted allocator x view pair; ``Ord`` compares allocator, then view."""

    allocator: DynamicStorageAllocator
    view: DynamicStorageView

    def __post_init__(self) -> None:
        a, v = self.allocator.block_bytes, self.view.block_bytes
        if a is None:
            ok = v is None
        elif v is None:
            ok = is_power_of_two(a)
        else:
            ok = is_power_of_two(a) and a == v
        if ok:
            return
        message = "dynamic storage allocator and view are incompatible"
        if a is None:
            raise invalid_plan(message)  # rule: 03.6.2/linear_paged_never
        if a == 0 or v == 0:
            raise invalid_plan(message)  # rule: 03.6.2/block_bytes_zero
        if v is None:
            raise invalid_plan(message)  # rule: 03.6.2/fixed_contiguous_power_of_two
        if a != v:
            raise invalid_plan(message)  # rule: 03.6.2/fixed_paged_equal_power_of_two
        raise invalid_plan(message)  # rule: 03.6.2/fixed_paged_equal_power_of_two, 03.14/paged_profile_power_of_two

    @classmethod
    def linear_contiguous(cls) -> DynamicStorageProfile:
        return cls(DynamicStorageAllocator.linear_arena(), DynamicStorageView.contiguous())

    @classmethod
    def paged(cls, block_bytes: int) -> DynamicStorageProfile:
        return cls(
            DynamicStorageAllocator.fixed_block_arena(block_bytes), DynamicStorageView.paged_regions(block_bytes)
        )

    def sort_key(self) -> tuple[tuple[int, int], tuple[int, int]]:
        return (self.allocator.sort_key(), self.view.sort_key())

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, DynamicStorageProfile):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def to_wire(self) -> dict[str, Any]:
        return {"allocator": self.allocator.to_wire(), "view": self.view.to_wire()}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode dynamic storage profile", path: str = "$"
    ) -> DynamicStorageProfile:
        """deny_unknown_fields, then the constructor."""
        obj = WireObject(
            raw,
            ("allocator", "view"),
            type_name="DynamicStorageProfile",  # rule when 01.3.6/decode_unknown_field: 03.6.1/profile_deny_unknown
            context=context,
            path=path,
        )
        allocator = DynamicStorageAllocator.from_wire(obj.raw("allocator"), context=context, path=obj.at("allocator"))
        view = DynamicStorageView.from_wire(obj.raw("view"), context=context, path=obj.at("view"))
        return decode_with(lambda: cls(allocator, view), context=context, path=path)


def profiles_from_wire(raw: Any, *, context: str, path: str) -> list[DynamicStorageProfile]:
    """A list of profiles as given (each validated)."""
    items = read_list(raw, context=context, path=path)
    return [DynamicStorageProfile.from_wire(item, context=context, path=f"{path}[{i}]") for i, item in enumerate(items)]


@dataclass(frozen=True, slots=True, init=False)
class DynamicStorageRequirement:
    """Profiles a binding accepts: sorted, unique, non-empty."""

    accepted_profiles: tuple[DynamicStorageProfile, ...]

    def __init__(self, profiles: Iterable[DynamicStorageProfile]) -> None:
        canonical = tuple(sorted(set(profiles)))
        if not canonical:
            raise invalid_plan(  # rule: 03.6.3/requirement_new_empty
                "dynamic storage requirement must accept at least one profile"
            )
        object.__setattr__(self, "accepted_profiles", canonical)

    @classmethod
    def contiguous(cls) -> DynamicStorageRequirement:
        """``[LinearArena/Contiguous]``."""
        return cls([DynamicStorageProfile.linear_contiguous()])

    def accepts(self, profile: DynamicStorageProfile) -> bool:
        return profile in self.accepted_profiles

    def to_wire(self) -> dict[str, Any]:
        return {"accepted_profiles": [p.to_wire() for p in self.accepted_profiles]}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode dynamic storage requirement", path: str = "$"
    ) -> DynamicStorageRequirement:
        """deny_unknown_fields; the list must already be sorted, unique and non-empty."""
        obj = WireObject(
            raw,
            ("accepted_profiles",),
            # rule when 01.3.6/decode_unknown_field: 03.6.1/requirement_deny_unknown
            type_name="DynamicStorageRequirement",
            context=context,
            path=path,
        )
        profiles = profiles_from_wire(
            obj.raw("accepted_profiles"),
            # rule when 01.5/validating_wire_constructor_errors_are_serialization: 03.6.3/requirement_wire_profiles_validated  # noqa: E501
            context=context,
            path=obj.at("accepted_profiles"),
        )
        requirement = decode_with(
            # rule when 01.5/validating_wire_constructor_errors_are_serialization: 03.6.3/requirement_wire_empty
            lambda: cls(profiles),
            context=context,
            path=path,
        )
        if list(requirement.accepted_profiles) != profiles:
            message = f"{obj.at('accepted_profiles')}: profiles must be sorted and unique"
            if len(set(profiles)) != len(profiles):
                raise Serialization(context, message)  # rule: 03.6.3/requirement_wire_duplicates
            raise Serialization(context, message)  # rule: 03.6.3/requirement_wire_unsorted
        return requirement


class ResolvedValueRole(OrderedEnum):
    """``input`` < ``output``. Shared with node resolution (spec 04 §5)."""

    INPUT = "input"
    OUTPUT = "output"


@dataclass(frozen=True, slots=True)
class ProviderStorageBindingRequirement:
    """The storage a provider accepts at one ``(role, ordinal)`` slot; infallible constructor."""

    role: ResolvedValueRole
    ordinal: int
    storage: DynamicStorageRequirement

    def __post_init__(self) -> None:
        if not fits_uint(self.ordinal, 32):
            raise TypeError(f"ordinal must be a u32, got {self.ordinal!r}")

    @property
    def slot(self) -> tuple[ResolvedValueRole, int]:
        return (self.role, self.ordinal)

    def slot_key(self) -> tuple[int, int]:
        return (self.role.rank, self.ordinal)

    def to_wire(self) -> dict[str, Any]:
        return {"role": self.role.to_wire(), "ordinal": self.ordinal, "storage": self.storage.to_wire()}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode provider storage binding requirement", path: str = "$"
    ) -> ProviderStorageBindingRequirement:
        obj = WireObject(
            raw,
            ("role", "ordinal", "storage"),
            type_name="ProviderStorageBindingRequirement",
            context=context,
            path=path,
        )
        return cls(
            ResolvedValueRole.from_wire(obj.raw("role"), context=context, path=obj.at("role")),
            obj.u32("ordinal"),
            DynamicStorageRequirement.from_wire(obj.raw("storage"), context=context, path=obj.at("storage")),
        )
