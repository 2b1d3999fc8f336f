"""``RuntimeMemoryPolicy`` and ``CheckpointCapacityPolicy`` (spec 04 §2.1, §2.2).

``RuntimeMemoryPolicy`` is a plain struct: only Rust widths are checked here,
its rules run inside ``ResolvedRuntimePolicy`` (§3.2 rows 4-8). Its decoder
ignores unknown keys; ``checkpoint_capacity`` may be missing or null and is
omitted from the wire when absent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from reference.canonical import JsonValue
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ints import check_uint
from reference.policy.storage import StorageProfile, decode_storage_profile
from reference.wire import WireObject, read_list

__all__ = ["CheckpointCapacityPolicy", "RuntimeMemoryPolicy"]


@dataclass(frozen=True, slots=True)
class CheckpointCapacityPolicy:
    """``maximum_retained_bytes`` is a non-zero u64 (``0`` -> InvalidExecutionPlan)."""

    maximum_retained_bytes: int

    def __post_init__(self) -> None:
        check_uint(self.maximum_retained_bytes, 64, "CheckpointCapacityPolicy.maximum_retained_bytes")
        if self.maximum_retained_bytes == 0:
            raise InvalidExecutionPlan(  # rule: 04.2.2/checkpoint_capacity_new_zero
                reason="checkpoint capacity maximum_retained_bytes must be non-zero"
            )

    def to_wire(self) -> dict[str, JsonValue]:
        return {"maximum_retained_bytes": self.maximum_retained_bytes}

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> CheckpointCapacityPolicy:
        """deny_unknown_fields; ``0`` is refused by the NonZeroU64 type (``Serialization``)."""
        obj = WireObject(
            raw,
            ("maximum_retained_bytes",),
            # rule when 01.3.6/decode_unknown_field: 04.2.2/checkpoint_capacity_deny_unknown_fields
            type_name="CheckpointCapacityPolicy",
            context=context,
            path=path,
        )
        value = obj.u64("maximum_retained_bytes")
        if value == 0:
            raise Serialization(  # rule: 04.2.2/checkpoint_capacity_zero_rejected_on_wire
                context, f"{obj.at('maximum_retained_bytes')}: expected a non-zero u64"
            )
        return cls(value)


@dataclass(frozen=True, slots=True)
class RuntimeMemoryPolicy:
    """Memory ceiling, reserve, sequence ceiling and the ordered storage-profile allowlist."""

    capacity_bytes: int
    reserve_bytes: int
    maximum_active_sequences: int
    dynamic_storage_profile_order: tuple[StorageProfile, ...]
    checkpoint_capacity: CheckpointCapacityPolicy | None = None

    def __post_init__(self) -> None:
        check_uint(self.capacity_bytes, 64, "RuntimeMemoryPolicy.capacity_bytes")
        check_uint(self.reserve_bytes, 64, "RuntimeMemoryPolicy.reserve_bytes")
        check_uint(self.maximum_active_sequences, 32, "RuntimeMemoryPolicy.maximum_active_sequences")
        object.__setattr__(self, "dynamic_storage_profile_order", tuple(self.dynamic_storage_profile_order))
        if self.checkpoint_capacity is not None and not isinstance(self.checkpoint_capacity, CheckpointCapacityPolicy):
            raise TypeError("RuntimeMemoryPolicy.checkpoint_capacity must be a CheckpointCapacityPolicy or None")

    @classmethod
    def of(
        cls,
        capacity_bytes: int,
        reserve_bytes: int,
        maximum_active_sequences: int,
        profiles: Iterable[StorageProfile],
        checkpoint_capacity: CheckpointCapacityPolicy | None = None,
    ) -> RuntimeMemoryPolicy:
        return cls(capacity_bytes, reserve_bytes, maximum_active_sequences, tuple(profiles), checkpoint_capacity)

    def to_wire(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {
            "capacity_bytes": self.capacity_bytes,
            "reserve_bytes": self.reserve_bytes,
            "maximum_active_sequences": self.maximum_active_sequences,
            "dynamic_storage_profile_order": [profile.to_wire() for profile in self.dynamic_storage_profile_order],
        }
        if self.checkpoint_capacity is not None:
            out["checkpoint_capacity"] = self.checkpoint_capacity.to_wire()
        return out

    @classmethod
    def from_wire(cls, raw: Any, *, context: str, path: str = "$") -> RuntimeMemoryPolicy:
        """Unknown keys are ignored; the four non-optional fields are required."""
        obj = WireObject(
            raw,
            ("capacity_bytes", "reserve_bytes", "maximum_active_sequences", "dynamic_storage_profile_order"),
            # rule when 03.1/derived_struct_missing_field: 04.2.1/memory_policy_required_fields
            type_name="RuntimeMemoryPolicy",
            context=context,
            path=path,
            lenient=True,
        )
        capacity, reserve, sequences = (
            obj.u64("capacity_bytes"),
            obj.u64("reserve_bytes"),
            obj.u32("maximum_active_sequences"),
        )
        order_path = obj.at("dynamic_storage_profile_order")
        profiles = tuple(
            decode_storage_profile(item, context=context, path=f"{order_path}[{i}]")
            for i, item in enumerate(
                read_list(obj.raw("dynamic_storage_profile_order"), context=context, path=order_path)
            )
        )
        checkpoint_raw = raw.get("checkpoint_capacity")
        checkpoint = (
            None
            if checkpoint_raw is None
            else CheckpointCapacityPolicy.from_wire(checkpoint_raw, context=context, path=obj.at("checkpoint_capacity"))
        )
        return cls(capacity, reserve, sequences, profiles, checkpoint)
