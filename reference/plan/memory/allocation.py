"""Static rows: ``ResourceAllocation`` and its ``BufferRequest`` (spec 05 §7.6, spec 03 §13.1).

A static row lives for the whole plan (lifetime ``plan``), one instance, stride = size =
``quantize(per_instance_bytes, alignment, profile)``. The wire is a plain derived struct:
unknown keys are ignored by ``from_wire`` and nothing is validated there; ``MemoryPlan``
validation (and the plan's canonical round trip) is what rejects a bad row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.catalog.element_type import element_type_from_wire
from reference.errors import invalid_plan
from reference.ids import ResourceId
from reference.ints import check_uint, is_power_of_two
from reference.model.element import ElementType
from reference.plan.memory.enums import AllocationKind, AllocationLifetime, BufferUsage
from reference.plan.memory.storage import DynamicStorageContract, quantize_storage_bytes
from reference.wire import WireObject

__all__ = ["BufferRequest", "ResourceAllocation"]


@dataclass(frozen=True, slots=True)
class BufferRequest:
    """What a runtime must allocate for one static row: size > 0, power-of-two alignment."""

    resource_id: ResourceId
    size_bytes: int
    alignment_bytes: int
    usage: BufferUsage
    element_type: ElementType

    def __post_init__(self) -> None:
        check_uint(self.size_bytes, 64, "BufferRequest.size_bytes")
        check_uint(self.alignment_bytes, 64, "BufferRequest.alignment_bytes")
        if self.size_bytes == 0 or not is_power_of_two(self.alignment_bytes):
            raise invalid_plan(  # rule: 03.13.1/buffer_request_size, 03.13.1/buffer_request_alignment
                "buffer request size must be non-zero and alignment a power of two"
            )

    def to_wire(self) -> dict[str, Any]:
        return {
            "resource_id": self.resource_id.value,
            "size_bytes": self.size_bytes,
            "alignment_bytes": self.alignment_bytes,
            "usage": self.usage.to_wire(),
            "element_type": self.element_type.to_wire(),
        }


_FIELDS = (
    "resource_id",
    "per_instance_bytes",
    "instance_stride_bytes",
    "instance_count",
    "size_bytes",
    "alignment_bytes",
    "usage",
    "element_type",
    "lifetime",
    "kind",
    "storage",
)


@dataclass(frozen=True, slots=True)
class ResourceAllocation:
    """One plan-static row (weights arena, plan-scope persistent workspace, ...)."""

    resource_id: ResourceId
    per_instance_bytes: int
    instance_stride_bytes: int
    instance_count: int
    size_bytes: int
    alignment_bytes: int
    usage: BufferUsage
    element_type: ElementType
    lifetime: AllocationLifetime
    kind: AllocationKind
    storage: DynamicStorageContract

    def __post_init__(self) -> None:
        for name in ("per_instance_bytes", "instance_stride_bytes", "size_bytes", "alignment_bytes"):
            check_uint(getattr(self, name), 64, f"ResourceAllocation.{name}")
        check_uint(self.instance_count, 32, "ResourceAllocation.instance_count")

    @classmethod
    def new(
        cls,
        resource_id: ResourceId,
        per_instance_bytes: int,
        alignment_bytes: int,
        usage: BufferUsage,
        element_type: ElementType,
        kind: AllocationKind,
        storage: DynamicStorageContract,
    ) -> ResourceAllocation:
        """``per_instance > 0``, power-of-two alignment; one instance, quantized stride, lifetime plan."""
        check_uint(per_instance_bytes, 64, "per_instance_bytes")
        check_uint(alignment_bytes, 64, "alignment_bytes")
        if per_instance_bytes == 0 or not is_power_of_two(alignment_bytes):
            raise invalid_plan(  # rule: 05.7.6/allocation_new_rules
                "static resource allocation size or alignment is invalid"
            )
        stride = quantize_storage_bytes(per_instance_bytes, alignment_bytes, storage.profile)
        return cls(
            resource_id,
            per_instance_bytes,
            stride,
            1,
            stride,
            alignment_bytes,
            usage,
            element_type,
            AllocationLifetime.PLAN,
            kind,
            storage,
        )

    def buffer_request(self) -> BufferRequest:
        return BufferRequest(self.resource_id, self.size_bytes, self.alignment_bytes, self.usage, self.element_type)

    def to_wire(self) -> dict[str, Any]:
        return {
            "resource_id": self.resource_id.value,
            "per_instance_bytes": self.per_instance_bytes,
            "instance_stride_bytes": self.instance_stride_bytes,
            "instance_count": self.instance_count,
            "size_bytes": self.size_bytes,
            "alignment_bytes": self.alignment_bytes,
            "usage": self.usage.to_wire(),
            "element_type": self.element_type.to_wire(),
            "lifetime": self.lifetime.to_wire(),
            "kind": self.kind.to_wire(),
            "storage": self.storage.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode resource allocation", path: str = "$") -> ResourceAllocation:
        """Derived decode: every field typed, unknown keys ignored, no semantic validation."""
        obj = WireObject(raw, _FIELDS, type_name="ResourceAllocation", context=context, path=path, lenient=True)
        return cls(
            obj.identity("resource_id", ResourceId),
            obj.u64("per_instance_bytes"),
            obj.u64("instance_stride_bytes"),
            obj.u32("instance_count"),
            obj.u64("size_bytes"),
            obj.u64("alignment_bytes"),
            BufferUsage.from_wire(obj.raw("usage"), context=context, path=obj.at("usage")),
            element_type_from_wire(obj.raw("element_type"), context=context, path=obj.at("element_type")),
            AllocationLifetime.from_wire(obj.raw("lifetime"), context=context, path=obj.at("lifetime")),
            AllocationKind.from_wire(obj.raw("kind"), context=context, path=obj.at("kind")),
            DynamicStorageContract.from_wire(obj.raw("storage"), context=context, path=obj.at("storage")),
        )
