"""``EngineProviderDescriptor`` (spec 03 §9). Device/capability agreement is checked by the catalog."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference.canonical import is_canonical_sha256
from reference.catalog._common import identity_set_from_wire, identity_set_to_wire
from reference.errors import invalid_plan
from reference.ids import CapabilityId, DeviceId, ProviderId
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with

__all__ = ["EngineProviderDescriptor"]


@dataclass(frozen=True, slots=True)
class EngineProviderDescriptor:
    """Constructor rejects contract major 0 and a non-canonical implementation fingerprint."""

    provider_id: ProviderId
    contract_version: ContractVersion
    implementation_fingerprint: str
    device_id: DeviceId
    capabilities: frozenset[CapabilityId]

    def __post_init__(self) -> None:
        object.__setattr__(self, "capabilities", frozenset(self.capabilities))
        message = f"engine provider `{self.provider_id}` has an invalid version or implementation fingerprint"
        if self.contract_version.major == 0:
            raise invalid_plan(message)  # rule: 03.9/engine_major_zero
        if not is_canonical_sha256(self.implementation_fingerprint):
            raise invalid_plan(message)  # rule: 03.9/engine_fingerprint_format

    def to_wire(self) -> dict[str, Any]:
        return {
            "provider_id": self.provider_id.value,
            "contract_version": self.contract_version.to_wire(),
            "implementation_fingerprint": self.implementation_fingerprint,
            "device_id": self.device_id.value,
            "capabilities": identity_set_to_wire(self.capabilities),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode engine provider descriptor", path: str = "$"
    ) -> EngineProviderDescriptor:
        """deny_unknown_fields, then the constructor."""
        fields = ("provider_id", "contract_version", "implementation_fingerprint", "device_id", "capabilities")
        obj = WireObject(
            raw,
            fields,
            type_name="EngineProviderDescriptor",  # rule when 01.3.6/decode_unknown_field: 03.9/engine_deny_unknown
            context=context,
            path=path,
        )
        args = (
            obj.identity("provider_id", ProviderId),
            ContractVersion.from_wire(obj.raw("contract_version"), context=context),
            obj.string("implementation_fingerprint"),
            obj.identity("device_id", DeviceId),
            identity_set_from_wire(obj.raw("capabilities"), CapabilityId, context=context, path=obj.at("capabilities")),
        )
        return decode_with(lambda: cls(*args), context=context, path=path)
