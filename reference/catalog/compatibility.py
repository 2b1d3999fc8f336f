"""Provider compatibility (spec 03 §11.4): the catalog half of node resolution.

``CapabilityCatalog.provider_compatibility(request)`` classifies every provider of an
operation (sorted order) as compatible or rejected with these reasons in the fixed
order of §11.4; the report must satisfy its shape rules. ``require_compatible``
and ``require_compatible_for_node`` turn an empty compatible list into the
contract's error.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from reference.catalog._common import identity_set_from_wire, identity_set_to_wire
from reference.catalog.execution_semantics import ExecutionDeterminismRequirement, ProviderExecutionSemantics
from reference.errors import IncompatibleOperationVersion, UnsupportedOperation, invalid_plan
from reference.ids import (
    CapabilityId,
    DeviceId,
    Identity,
    NodeId,
    OperationId,
    ProviderId,
    QuantizationFormatId,
    WeightFormatId,
)
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with

__all__ = [
    "CompatibilityReason",
    "ProviderCompatibilityReport",
    "ProviderCompatibilityRequest",
    "ProviderRejection",
]


@dataclass(frozen=True, slots=True)
class ProviderCompatibilityRequest:
    """What resolution asks of an operation's providers; ``required_version.major`` must be non-zero."""

    operation_id: OperationId
    required_version: ContractVersion
    required_capabilities: frozenset[CapabilityId]
    required_weight_formats: frozenset[WeightFormatId]
    required_quantization_formats: frozenset[QuantizationFormatId]
    execution_determinism: ExecutionDeterminismRequirement

    def __post_init__(self) -> None:
        if self.required_version.major == 0:
            raise invalid_plan(  # rule: 04.9/step10_required_version_major_nonzero
                f"compatibility request for `{self.operation_id}` has a zero major version"
            )

    def to_wire(self) -> dict[str, Any]:
        return {
            "operation_id": self.operation_id.value,
            "required_version": self.required_version.to_wire(),
            "required_capabilities": identity_set_to_wire(self.required_capabilities),
            "required_weight_formats": identity_set_to_wire(self.required_weight_formats),
            "required_quantization_formats": identity_set_to_wire(self.required_quantization_formats),
            "execution_determinism": self.execution_determinism.to_wire(),
        }

    @classmethod
    def from_wire(
        cls, raw: Any, *, context: str = "decode provider compatibility request", path: str = "$"
    ) -> ProviderCompatibilityRequest:
        fields = (
            "operation_id",
            "required_version",
            "required_capabilities",
            "required_weight_formats",
            "required_quantization_formats",
            "execution_determinism",
        )
        obj = WireObject(raw, fields, type_name="ProviderCompatibilityRequest", context=context, path=path)
        args = (
            obj.identity("operation_id", OperationId),
            ContractVersion.from_wire(obj.raw("required_version"), context=context),
            identity_set_from_wire(
                obj.raw("required_capabilities"), CapabilityId, context=context, path=obj.at("required_capabilities")
            ),
            identity_set_from_wire(
                obj.raw("required_weight_formats"),
                WeightFormatId,
                context=context,
                path=obj.at("required_weight_formats"),
            ),
            identity_set_from_wire(
                obj.raw("required_quantization_formats"),
                QuantizationFormatId,
                context=context,
                path=obj.at("required_quantization_formats"),
            ),
            ExecutionDeterminismRequirement.from_wire(
                obj.raw("execution_determinism"), context=context, path=obj.at("execution_determinism")
            ),
        )
        return decode_with(lambda: cls(*args), context=context, path=path)


@dataclass(frozen=True, slots=True)
class CompatibilityReason:
    """One rejection reason. ``kind`` is the snake_case variant; fields depend on it."""

    kind: str
    required: ContractVersion | None = None
    available: ContractVersion | None = None
    identities: tuple[Identity, ...] = ()
    determinism: ExecutionDeterminismRequirement | None = None
    semantics: ProviderExecutionSemantics | None = None

    def to_wire(self) -> dict[str, Any]:
        if self.kind in ("operation_version_mismatch", "provider_version_mismatch"):
            assert self.required is not None and self.available is not None
            body: dict[str, Any] = {"required": self.required.to_wire(), "available": self.available.to_wire()}
        elif self.kind == "missing_capabilities":
            body = {"capabilities": identity_set_to_wire(self.identities)}
        elif self.kind == "insufficient_execution_determinism":
            assert self.determinism is not None and self.semantics is not None
            body = {"required": self.determinism.to_wire(), "available": self.semantics.to_wire()}
        else:
            body = {"formats": identity_set_to_wire(self.identities)}
        return {self.kind: body}


@dataclass(frozen=True, slots=True)
class ProviderRejection:
    provider_id: ProviderId
    reasons: tuple[CompatibilityReason, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"provider_id": self.provider_id.value, "reasons": [r.to_wire() for r in self.reasons]}


@dataclass(frozen=True, slots=True)
class ProviderCompatibilityReport:
    """Sorted, disjoint, not-both-empty id lists; every rejection has a reason."""

    request: ProviderCompatibilityRequest
    compatible_provider_ids: tuple[ProviderId, ...]
    rejected: tuple[ProviderRejection, ...] = field(default=())

    def __post_init__(self) -> None:
        compatible = list(self.compatible_provider_ids)
        rejected = [r.provider_id for r in self.rejected]
        strictly_ascending = all(a < b for a, b in itertools.pairwise(compatible)) and all(
            a < b for a, b in itertools.pairwise(rejected)
        )
        if (
            not strictly_ascending
            or set(compatible) & set(rejected)
            or not (compatible or rejected)
            or any(not r.reasons for r in self.rejected)
        ):
            raise invalid_plan(  # rule: 03.11.4/report_shape_built_from_catalog
                "provider compatibility report has an invalid shape"
            )

    def to_wire(self) -> dict[str, Any]:
        return {
            "request": self.request.to_wire(),
            "compatible_provider_ids": [p.value for p in self.compatible_provider_ids],
            "rejected": [r.to_wire() for r in self.rejected],
        }

    def require_compatible(self, device_id: DeviceId) -> tuple[ProviderId, ...]:
        """No compatible provider -> ``UnsupportedOperation{node_id: None}`` naming the rejections."""
        if not self.compatible_provider_ids:
            raise UnsupportedOperation(  # rule: 03.11.4/require_compatible_node_less
                node_id=None,
                operation_id=self.request.operation_id.value,
                device_id=device_id.value,
                reason=json.dumps([r.to_wire() for r in self.rejected], separators=(",", ":")),
            )
        return self.compatible_provider_ids

    def _incompatible(self, node_id: NodeId, chosen: CompatibilityReason) -> IncompatibleOperationVersion:
        assert chosen.required is not None and chosen.available is not None
        return IncompatibleOperationVersion(
            node_id=node_id.value,
            operation_id=self.request.operation_id.value,
            required_major=chosen.required.major,
            required_minor=chosen.required.minor,
            available_major=chosen.available.major,
            available_minor=chosen.available.minor,
        )

    def require_compatible_for_node(self, device_id: DeviceId, node_id: NodeId) -> tuple[ProviderId, ...]:
        """Prefer an operation-version mismatch, then the greatest provider version if all carry one."""
        if self.compatible_provider_ids:
            return self.compatible_provider_ids
        chosen: CompatibilityReason | None = None
        for rejection in self.rejected:
            chosen = next((r for r in rejection.reasons if r.kind == "operation_version_mismatch"), None)
            if chosen is not None:
                break
        if chosen is not None:
            raise self._incompatible(
                node_id, chosen
            )  # rule: 03.11.4/node_operation_version_first, 04.9/step12_operation_version_mismatch_is_iov
        provider_mismatches = [
            next((r for r in rejection.reasons if r.kind == "provider_version_mismatch"), None)
            for rejection in self.rejected
        ]
        if provider_mismatches and all(r is not None for r in provider_mismatches):
            for reason in provider_mismatches:
                assert reason is not None and reason.available is not None
                if chosen is None or (reason.available.major, reason.available.minor) >= (
                    chosen.available.major,  # type: ignore[union-attr]
                    chosen.available.minor,  # type: ignore[union-attr]
                ):
                    chosen = reason
        if chosen is not None:
            raise self._incompatible(
                node_id, chosen
            )  # rule: 03.11.4/node_greatest_provider_version, 04.9/step12_all_provider_version_mismatch_is_iov
        raise UnsupportedOperation(  # rule: 04.9/step12_otherwise_unsupported, 03.11.4/node_otherwise_unsupported
            node_id=node_id.value,
            operation_id=self.request.operation_id.value,
            device_id=device_id.value,
            reason=json.dumps([r.to_wire() for r in self.rejected], separators=(",", ":")),
        )
