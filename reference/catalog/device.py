"""``DeviceClass`` and ``DeviceDescriptor`` (spec 03 §10).

Decoding is derived (unknown keys ignored, no validation); each storage profile
still validates itself and duplicates collapse. ``validate()`` raises one
``InvalidExecutionPlan`` for zero memory, no profiles, or a non-canonical
runtime fingerprint; class, ordinal and capabilities are never checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import is_canonical_sha256
from reference.catalog._common import OrderedEnum, identity_set_from_wire, identity_set_to_wire
from reference.catalog.storage import DynamicStorageProfile, profiles_from_wire
from reference.errors import invalid_plan
from reference.ids import CapabilityId, DeviceId
from reference.wire import WireObject

__all__ = ["DeviceClass", "DeviceDescriptor"]


class DeviceClass(OrderedEnum):
    HOST = "host"
    ACCELERATOR = "accelerator"
    REFERENCE = "reference"


#: The members of a ``DeviceDescriptor`` wire (serde keeps no others; unknown ones are skipped).
DEVICE_WIRE_FIELDS: Final = (
    "id",
    "class",
    "ordinal",
    "total_memory_bytes",
    "runtime_implementation_fingerprint",
    "capabilities",
    "dynamic_storage_profiles",
)


@dataclass(frozen=True, slots=True)
class DeviceDescriptor:
    """Public-field struct; call ``validate()`` (the catalog does)."""

    id: DeviceId
    device_class: DeviceClass
    ordinal: int
    total_memory_bytes: int
    runtime_implementation_fingerprint: str
    capabilities: frozenset[CapabilityId]
    dynamic_storage_profiles: frozenset[DynamicStorageProfile]

    def __post_init__(self) -> None:
        object.__setattr__(self, "capabilities", frozenset(self.capabilities))
        object.__setattr__(self, "dynamic_storage_profiles", frozenset(self.dynamic_storage_profiles))

    def validate(self) -> None:
        message = f"device `{self.id}` has invalid memory, storage profiles or runtime identity"
        if self.total_memory_bytes == 0:
            raise invalid_plan(message)  # rule: 03.10/device_zero_memory
        if not self.dynamic_storage_profiles:
            raise invalid_plan(message)  # rule: 03.10/device_no_profiles
        if not is_canonical_sha256(self.runtime_implementation_fingerprint):
            raise invalid_plan(message)  # rule: 03.10/device_runtime_fingerprint

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id.value,
            "class": self.device_class.to_wire(),
            "ordinal": self.ordinal,
            "total_memory_bytes": self.total_memory_bytes,
            "runtime_implementation_fingerprint": self.runtime_implementation_fingerprint,
            "capabilities": identity_set_to_wire(self.capabilities),
            "dynamic_storage_profiles": [p.to_wire() for p in sorted(self.dynamic_storage_profiles)],
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = "decode device descriptor", path: str = "$") -> DeviceDescriptor:
        obj = WireObject(
            raw, DEVICE_WIRE_FIELDS, type_name="DeviceDescriptor", context=context, path=path, lenient=True
        )
        return cls(
            obj.identity("id", DeviceId),
            DeviceClass.from_wire(obj.raw("class"), context=context, path=obj.at("class")),
            obj.u32("ordinal"),
            obj.u64("total_memory_bytes"),
            obj.string("runtime_implementation_fingerprint"),
            identity_set_from_wire(obj.raw("capabilities"), CapabilityId, context=context, path=obj.at("capabilities")),
            frozenset(
                profiles_from_wire(
                    obj.raw("dynamic_storage_profiles"), context=context, path=obj.at("dynamic_storage_profiles")
                )
            ),
        )
