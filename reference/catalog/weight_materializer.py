"""Weight-materializer descriptors held by a catalog (spec 03 §11.6, seed 002).

``WeightMaterializerDescriptor`` decodes without validation (derived serde,
deny_unknown_fields); ``new`` and catalog entry validate it. The catalog map
must hold 1..=64 entries, keys equal ids, every descriptor structurally valid
and within the device capabilities, and the exact canonical identity entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import fingerprint, is_canonical_sha256
from reference.catalog._common import OrderedEnum, identity_set_from_wire, identity_set_to_wire
from reference.catalog.device import DeviceDescriptor
from reference.errors import invalid_plan
from reference.ids import CapabilityId, WeightMaterializerId
from reference.versions import ContractVersion
from reference.wire import WireObject

__all__ = [
    "IDENTITY_WEIGHT_MATERIALIZER_ID",
    "MAX_WEIGHT_MATERIALIZERS",
    "WeightMaterializationFidelity",
    "WeightMaterializerDescriptor",
    "identity_materializer_map",
    "validate_weight_materializer_descriptors",
]

IDENTITY_WEIGHT_MATERIALIZER_ID: Final = "weight-materializer.identity"
IDENTITY_MATERIALIZER_VERSION: Final = ContractVersion(2, 0)
IDENTITY_MATERIALIZER_CONTRACT: Final = "execution-weight-plan.identity.v2"
MAX_WEIGHT_MATERIALIZERS: Final = 64


class WeightMaterializationFidelity(OrderedEnum):
    EXACT = "exact"
    APPROXIMATE = "approximate"


def identity_materializer_fingerprint() -> str:
    """Canonical fingerprint of ``{id, version 2.0, contract}``."""
    return fingerprint(
        {
            "id": IDENTITY_WEIGHT_MATERIALIZER_ID,
            "version": IDENTITY_MATERIALIZER_VERSION.to_wire(),
            "contract": IDENTITY_MATERIALIZER_CONTRACT,
        },
        context="fingerprint identity weight materializer",
    )


@dataclass(frozen=True, slots=True)
class WeightMaterializerDescriptor:
    """Plain value (derived decode does not validate); use ``new`` for a checked value."""

    id: WeightMaterializerId
    version: ContractVersion
    implementation_fingerprint: str
    fidelity: WeightMaterializationFidelity
    required_capabilities: frozenset[CapabilityId]

    def __post_init__(self) -> None:
        object.__setattr__(self, "required_capabilities", frozenset(self.required_capabilities))

    @classmethod
    def new(
        cls,
        id: WeightMaterializerId,
        version: ContractVersion,
        implementation_fingerprint: str,
        fidelity: WeightMaterializationFidelity,
        required_capabilities: frozenset[CapabilityId] | set[CapabilityId],
    ) -> WeightMaterializerDescriptor:
        """Construct and ``validate_structure``."""
        descriptor = cls(id, version, implementation_fingerprint, fidelity, frozenset(required_capabilities))
        descriptor.validate_structure()
        return descriptor

    @classmethod
    def identity(cls) -> WeightMaterializerDescriptor:
        """The canonical identity descriptor (version 2.0, exact, no capabilities)."""
        return cls.new(
            WeightMaterializerId(IDENTITY_WEIGHT_MATERIALIZER_ID),
            IDENTITY_MATERIALIZER_VERSION,
            identity_materializer_fingerprint(),
            WeightMaterializationFidelity.EXACT,
            frozenset(),
        )

    def validate_structure(self) -> None:
        """Major != 0 and a canonical implementation fingerprint."""
        message = f"weight materializer descriptor `{self.id}` has invalid version or implementation identity"
        if self.version.major == 0:
            raise invalid_plan(message)  # rule: 05.10.2/descriptor_version_major_nonzero
        if not is_canonical_sha256(self.implementation_fingerprint):
            raise invalid_plan(message)  # rule: 05.10.2/descriptor_fingerprint_canonical

    def validate_for_device(self, device: DeviceDescriptor) -> None:
        """Structure, then ``required_capabilities`` within the device's."""
        self.validate_structure()
        if not self.required_capabilities <= device.capabilities:
            raise invalid_plan(  # rule: 05.10.2/validate_for_device
                f"weight materializer `{self.id}` requires capabilities absent from device `{device.id}`"
            )

    def fingerprint(self) -> str:
        """Canonical (sorted-key) JSON fingerprint."""
        return fingerprint(self.to_wire(), context="fingerprint weight materializer descriptor")

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id.value,
            "version": self.version.to_wire(),
            "implementation_fingerprint": self.implementation_fingerprint,
            "fidelity": self.fidelity.to_wire(),
            "required_capabilities": identity_set_to_wire(self.required_capabilities),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode weight materializer descriptor", path: str = "$"
    ) -> WeightMaterializerDescriptor:
        """deny_unknown_fields; no validation (it happens on entry to a catalog or registry)."""
        fields = ("id", "version", "implementation_fingerprint", "fidelity", "required_capabilities")
        obj = WireObject(
            raw,
            fields,
            # rule when 01.3.6/decode_unknown_field: 03.11.6/descriptor_deny_unknown
            type_name="WeightMaterializerDescriptor",
            context=context,
            path=path,
        )
        return cls(
            obj.identity("id", WeightMaterializerId),
            ContractVersion.from_wire(obj.raw("version"), context=context),
            obj.string("implementation_fingerprint"),
            WeightMaterializationFidelity.from_wire(obj.raw("fidelity"), context=context, path=obj.at("fidelity")),
            identity_set_from_wire(
                obj.raw("required_capabilities"), CapabilityId, context=context, path=obj.at("required_capabilities")
            ),
        )


def identity_materializer_map() -> dict[WeightMaterializerId, WeightMaterializerDescriptor]:
    """The default catalog map: identity only."""
    identity = WeightMaterializerDescriptor.identity()
    return {identity.id: identity}


def validate_weight_materializer_descriptors(
    device: DeviceDescriptor, descriptors: Mapping[WeightMaterializerId, WeightMaterializerDescriptor]
) -> None:
    """§11.6: size 1..=64, then per key (ascending) key==id and device fit, then the exact identity entry."""
    size_message = f"catalog must contain between 1 and {MAX_WEIGHT_MATERIALIZERS} weight materializers"
    if not descriptors:
        raise invalid_plan(size_message)  # rule: 03.11.6/map_empty
    if len(descriptors) > MAX_WEIGHT_MATERIALIZERS:
        raise invalid_plan(size_message)  # rule: 03.11.6/map_over_64, 03.11.1/max_weight_materializers
    for key in sorted(descriptors):
        descriptor = descriptors[key]
        if key != descriptor.id:
            raise invalid_plan(  # rule: 03.11.6/key_not_id
                f"weight materializer key `{key}` does not match descriptor id `{descriptor.id}`"
            )
        descriptor.validate_for_device(  # rule when 05.10.2/validate_for_device: 03.11.6/capabilities_beyond_device
            # rule when 05.10.2/descriptor_version_major_nonzero: 03.11.6/version_major_zero
            device  # rule when 05.10.2/descriptor_fingerprint_canonical: 03.11.6/implementation_fingerprint
        )
    identity = descriptors.get(WeightMaterializerId(IDENTITY_WEIGHT_MATERIALIZER_ID))
    canonical = "catalog must contain the canonical identity weight materializer"
    if identity is None:
        raise invalid_plan(canonical)  # rule: 03.11.6/identity_missing
    if identity != WeightMaterializerDescriptor.identity():
        raise invalid_plan(canonical)  # rule: 03.11.6/identity_tampered
