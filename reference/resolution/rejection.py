"""``PlanProviderRejectReason`` (spec 04 §9.1): why a provider is not a candidate for a node.

Externally tagged, snake_case: ``"not_registered"`` |
``{"incompatible": [<ProviderCompatibilityRejectReason>...]}`` |
``{"storage_incompatible": {"resource_ids": [...]}}``. Only
``storage_incompatible`` is produced by resolution (non-empty, strictly ascending ids).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue
from reference.catalog._common import identity_set_from_wire, read_struct_variant
from reference.catalog.compatibility import CompatibilityReason
from reference.catalog.execution_semantics import ProviderExecutionSemantics
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import CapabilityId, Identity, QuantizationFormatId, ResourceId, WeightFormatId
from reference.policy.enums import ExecutionDeterminismRequirement
from reference.versions import ContractVersion
from reference.wire import read_list, read_tagged

__all__ = [
    "COMPATIBILITY_REASON_KINDS",
    "PlanProviderRejectReason",
    "compatibility_reason_from_wire",
]

COMPATIBILITY_REASON_KINDS: Final = (
    "operation_version_mismatch",
    "provider_version_mismatch",
    "missing_capabilities",
    "unsupported_weight_formats",
    "unsupported_quantization_formats",
    "insufficient_execution_determinism",
)
_KINDS: Final = ("not_registered", "incompatible", "storage_incompatible")


@dataclass(frozen=True, slots=True)
class PlanProviderRejectReason:
    """``kind`` is the variant; ``reasons`` for ``incompatible``, ``resource_ids`` for ``storage_incompatible``."""

    kind: str
    reasons: tuple[CompatibilityReason, ...] = ()
    resource_ids: tuple[ResourceId, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown provider rejection kind {self.kind!r}")

    @classmethod
    def not_registered(cls) -> PlanProviderRejectReason:
        return cls("not_registered")

    @classmethod
    def incompatible(cls, reasons: Iterable[CompatibilityReason]) -> PlanProviderRejectReason:
        return cls("incompatible", reasons=tuple(reasons))

    @classmethod
    def storage_incompatible(cls, resource_ids: Iterable[ResourceId]) -> PlanProviderRejectReason:
        """Sorted, de-duplicated ids."""
        return cls("storage_incompatible", resource_ids=tuple(sorted(set(resource_ids))))

    def is_resolution_local(self) -> bool:
        """A ``storage_incompatible`` rejection with non-empty, strictly ascending ids."""
        return (
            self.kind == "storage_incompatible"
            and bool(self.resource_ids)
            and all(a < b for a, b in itertools.pairwise(self.resource_ids))
        )

    def require_resolution_local(self) -> None:
        if not self.is_resolution_local():
            raise InvalidExecutionPlan(  # rule: 04.9/step15_from_provider_resolution
                reason="node resolution rejections must be non-empty storage_incompatible lists"
            )

    def to_wire(self) -> JsonValue:
        if self.kind == "not_registered":
            return "not_registered"
        if self.kind == "incompatible":
            return {"incompatible": [r.to_wire() for r in self.reasons]}
        return {"storage_incompatible": {"resource_ids": [r.value for r in self.resource_ids]}}

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode provider rejection reason", path: str = "$"
    ) -> PlanProviderRejectReason:
        tag, content = read_tagged(raw, _KINDS, context=context, path=path)
        at = f"{path}.{tag}"
        if tag == "not_registered":
            if content is not None:
                raise Serialization(  # rule: 01.5/enum_variant_shape
                    context, f"{path}: unit variant `not_registered` takes no content"
                )
            return cls.not_registered()
        if tag == "incompatible":
            items = read_list(content, context=context, path=at)
            return cls.incompatible(
                compatibility_reason_from_wire(item, context=context, path=f"{at}[{i}]") for i, item in enumerate(items)
            )
        obj = read_struct_variant(content, ("resource_ids",), variant=tag, context=context, path=path)
        items = read_list(obj["resource_ids"], context=context, path=f"{at}.resource_ids")
        return cls("storage_incompatible", resource_ids=tuple(ResourceId.from_wire(i, context=context) for i in items))


def compatibility_reason_from_wire(raw: Any, *, context: str, path: str) -> CompatibilityReason:
    """Decode one ``ProviderCompatibilityRejectReason``."""

    tag, content = read_tagged(raw, COMPATIBILITY_REASON_KINDS, context=context, path=path)
    at = f"{path}.{tag}"
    if tag in ("operation_version_mismatch", "provider_version_mismatch"):
        obj = read_struct_variant(content, ("required", "available"), variant=tag, context=context, path=path)
        return CompatibilityReason(
            tag,
            ContractVersion.from_wire(obj["required"], context=context),
            ContractVersion.from_wire(obj["available"], context=context),
        )
    if tag == "insufficient_execution_determinism":
        obj = read_struct_variant(content, ("required", "available"), variant=tag, context=context, path=path)
        return CompatibilityReason(
            tag,
            determinism=ExecutionDeterminismRequirement.from_wire(
                obj["required"], context=context, path=f"{at}.required"
            ),
            semantics=ProviderExecutionSemantics.from_wire(obj["available"], context=context, path=f"{at}.available"),
        )
    field = "capabilities" if tag == "missing_capabilities" else "formats"
    id_type: type[Identity] = {
        "missing_capabilities": CapabilityId,
        "unsupported_weight_formats": WeightFormatId,
        "unsupported_quantization_formats": QuantizationFormatId,
    }[tag]
    obj = read_struct_variant(content, (field,), variant=tag, context=context, path=path)
    ids = identity_set_from_wire(obj[field], id_type, context=context, path=f"{at}.{field}")
    return CompatibilityReason(tag, identities=tuple(sorted(ids)))
