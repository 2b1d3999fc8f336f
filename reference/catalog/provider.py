"""``OperationProviderDescriptor`` (spec 03 §8): one implementation of one operation on one device.

The constructor stable-sorts the storage bindings by ``(role, ordinal)`` and
then runs one combined check (``InvalidExecutionPlan``): version major 0,
non-canonical fingerprints, a bad estimator id (1..=160 bytes of
``A-Za-z0-9._-:/``), estimator major 0, no bindings, a duplicate slot. Matching
against the operation, device and capabilities is the catalog's job.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from reference.canonical import is_canonical_sha256
from reference.catalog._common import identity_set_from_wire, identity_set_to_wire
from reference.catalog.execution_semantics import ProviderExecutionSemantics
from reference.catalog.storage import DynamicStorageRequirement, ProviderStorageBindingRequirement, ResolvedValueRole
from reference.errors import Serialization, invalid_plan
from reference.ids import (
    IDENTITY_MAX_BYTES,
    CapabilityId,
    DeviceId,
    OperationId,
    ProviderId,
    QuantizationFormatId,
    WeightFormatId,
    check_portable_string,
)
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with

__all__ = ["OperationProviderDescriptor"]

_FIELDS = (
    "provider_id",
    "operation_id",
    "operation_fingerprint",
    "provider_implementation_fingerprint",
    "execution_semantics",
    "version",
    "device_id",
    "capabilities",
    "accepted_weight_formats",
    "accepted_quantization_formats",
    "dynamic_storage_bindings",
    "resource_estimator_id",
    "resource_estimator_version",
    "resource_estimator_implementation_fingerprint",
)


@dataclass(frozen=True, slots=True)
class OperationProviderDescriptor:
    """Positional arguments follow the seed's ``OperationProviderDescriptor::new`` order."""

    provider_id: ProviderId
    operation_id: OperationId
    operation_fingerprint: str
    provider_implementation_fingerprint: str
    execution_semantics: ProviderExecutionSemantics
    version: ContractVersion
    device_id: DeviceId
    capabilities: frozenset[CapabilityId]
    accepted_weight_formats: frozenset[WeightFormatId]
    accepted_quantization_formats: frozenset[QuantizationFormatId]
    dynamic_storage_bindings: tuple[ProviderStorageBindingRequirement, ...]
    resource_estimator_id: str
    resource_estimator_version: ContractVersion
    resource_estimator_implementation_fingerprint: str

    def __post_init__(self) -> None:
        bindings = tuple(sorted(self.dynamic_storage_bindings, key=lambda b: b.slot_key()))
        object.__setattr__(self, "dynamic_storage_bindings", bindings)
        object.__setattr__(self, "capabilities", frozenset(self.capabilities))
        object.__setattr__(self, "accepted_weight_formats", frozenset(self.accepted_weight_formats))
        object.__setattr__(self, "accepted_quantization_formats", frozenset(self.accepted_quantization_formats))
        slots = [b.slot for b in bindings]
        message = f"operation provider `{self.provider_id}` has an invalid identity or storage binding"
        if self.version.major == 0:
            raise invalid_plan(message)  # rule: 03.8.2/version_major_zero
        if not is_canonical_sha256(self.operation_fingerprint):
            raise invalid_plan(message)  # rule: 03.8.2/operation_fingerprint_format
        if not is_canonical_sha256(self.provider_implementation_fingerprint):
            raise invalid_plan(message)  # rule: 03.8.2/implementation_fingerprint_format
        estimator_id = self.resource_estimator_id
        if not isinstance(estimator_id, str):
            raise invalid_plan(message)  # rule: 03.8.2/estimator_id_charset
        if not estimator_id:
            raise invalid_plan(message)  # rule: 03.8.2/estimator_id_empty
        if len(estimator_id.encode("utf-8", "surrogatepass")) > IDENTITY_MAX_BYTES:
            raise invalid_plan(message)  # rule: 03.8.2/estimator_id_too_long
        if check_portable_string(estimator_id) is not None:
            raise invalid_plan(message)  # rule: 03.8.2/estimator_id_charset
        if self.resource_estimator_version.major == 0:
            raise invalid_plan(message)  # rule: 03.8.2/estimator_version_major_zero
        if not is_canonical_sha256(self.resource_estimator_implementation_fingerprint):
            raise invalid_plan(message)  # rule: 03.8.2/estimator_fingerprint_format
        if not bindings:
            raise invalid_plan(message)  # rule: 03.8.2/no_bindings
        if len(set(slots)) != len(slots):
            raise invalid_plan(message)  # rule: 03.8.2/duplicate_slot

    def dynamic_storage_for(self, role: ResolvedValueRole, ordinal: int) -> DynamicStorageRequirement | None:
        """The requirement declared for ``(role, ordinal)``, or None."""
        for binding in self.dynamic_storage_bindings:
            if binding.role is role and binding.ordinal == ordinal:
                return binding.storage
        return None

    def sort_key(self) -> tuple[str, int, int]:
        """Catalog list order: ``(provider_id, version)``."""
        return (self.provider_id.value, self.version.major, self.version.minor)

    def to_wire(self) -> dict[str, Any]:
        """Struct order. The 0.12.x ``checkpoint`` key is omitted (unsupported; decision D-03-4)."""
        return {
            "provider_id": self.provider_id.value,
            "operation_id": self.operation_id.value,
            "operation_fingerprint": self.operation_fingerprint,
            "provider_implementation_fingerprint": self.provider_implementation_fingerprint,
            "execution_semantics": self.execution_semantics.to_wire(),
            "version": self.version.to_wire(),
            "device_id": self.device_id.value,
            "capabilities": identity_set_to_wire(self.capabilities),
            "accepted_weight_formats": identity_set_to_wire(self.accepted_weight_formats),
            "accepted_quantization_formats": identity_set_to_wire(self.accepted_quantization_formats),
            "dynamic_storage_bindings": [b.to_wire() for b in self.dynamic_storage_bindings],
            "resource_estimator_id": self.resource_estimator_id,
            "resource_estimator_version": self.resource_estimator_version.to_wire(),
            "resource_estimator_implementation_fingerprint": self.resource_estimator_implementation_fingerprint,
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode operation provider descriptor", path: str = "$"
    ) -> OperationProviderDescriptor:
        """deny_unknown_fields (a ``checkpoint`` key is refused), the constructor, then canonical binding order."""
        obj = WireObject(
            raw,
            _FIELDS,
            # rule when 01.3.6/decode_unknown_field: 03.8.3/provider_deny_unknown
            type_name="OperationProviderDescriptor",
            context=context,
            path=path,
        )
        bindings_path = obj.at("dynamic_storage_bindings")
        bindings = tuple(
            ProviderStorageBindingRequirement.from_wire(b, context=context, path=f"{bindings_path}[{i}]")
            for i, b in enumerate(obj.array("dynamic_storage_bindings"))
        )
        args = (
            obj.identity("provider_id", ProviderId),
            obj.identity("operation_id", OperationId),
            obj.string("operation_fingerprint"),
            obj.string("provider_implementation_fingerprint"),
            ProviderExecutionSemantics.from_wire(
                obj.raw("execution_semantics"), context=context, path=obj.at("execution_semantics")
            ),
            ContractVersion.from_wire(obj.raw("version"), context=context),
            obj.identity("device_id", DeviceId),
            identity_set_from_wire(obj.raw("capabilities"), CapabilityId, context=context, path=obj.at("capabilities")),
            identity_set_from_wire(
                obj.raw("accepted_weight_formats"),
                WeightFormatId,
                context=context,
                path=obj.at("accepted_weight_formats"),
            ),
            identity_set_from_wire(
                obj.raw("accepted_quantization_formats"),
                QuantizationFormatId,
                context=context,
                path=obj.at("accepted_quantization_formats"),
            ),
            bindings,
            obj.string("resource_estimator_id"),
            ContractVersion.from_wire(obj.raw("resource_estimator_version"), context=context),
            obj.string("resource_estimator_implementation_fingerprint"),
        )
        descriptor = decode_with(lambda: cls(*args), context=context, path=path)
        if descriptor.dynamic_storage_bindings != bindings:
            raise Serialization(  # rule: 03.8.3/provider_wire_bindings_canonical
                context, f"{bindings_path}: bindings are not in canonical (role, ordinal) order"
            )
        return descriptor


def sorted_providers(providers: Iterable[OperationProviderDescriptor]) -> list[OperationProviderDescriptor]:
    """Stable sort by ``(provider_id, version)``."""
    return sorted(providers, key=lambda p: p.sort_key())
