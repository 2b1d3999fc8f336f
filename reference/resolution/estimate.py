"""Estimation inputs and raw outputs (spec 04 §8.1-8.3).

* ``estimator_input_fingerprint(...)`` — the canonical fingerprint of the §8.2
  material; policy fields are deliberately absent.
* ``OperationResourceEstimateRequest`` — built by resolution only (checks: operation
  ``validate``, attributes, resolved bindings, canonical input fingerprint).
* ``OperationResourceEstimate`` — an estimator's untrusted answer; no validation
  (``ProviderResourcePlan.from_provider_output`` does that).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from reference.canonical import JsonValue, fingerprint, is_canonical_sha256
from reference.catalog.operation import OperationDescriptor
from reference.errors import InvalidExecutionPlan
from reference.ids import (
    AttributeId,
    CapabilityId,
    NodeId,
    OperationId,
    ProviderId,
    QuantizationFormatId,
    WeightFormatId,
)
from reference.model.semantic_value import SemanticValue
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.operation_bindings import validate_resolved_bindings
from reference.resolution.workspace import ProviderWorkspaceRequirement
from reference.versions import ContractVersion

__all__ = [
    "ESTIMATOR_INPUT_FINGERPRINT_CONTEXT",
    "OperationResourceEstimate",
    "OperationResourceEstimateRequest",
    "estimator_input_fingerprint",
    "estimator_input_material",
]

ESTIMATOR_INPUT_FINGERPRINT_CONTEXT: Final = "fingerprint provider resource estimator input"


def _sorted_ids(values: Iterable[CapabilityId | WeightFormatId | QuantizationFormatId]) -> list[JsonValue]:
    return [v.value for v in sorted(set(values))]


def estimator_input_material(
    *,
    prepared_family_fingerprint: str,
    operation: OperationDescriptor,
    node_id: NodeId,
    operation_id: OperationId,
    operation_version: ContractVersion,
    attributes: Mapping[AttributeId, SemanticValue],
    provider_id: ProviderId,
    values: Sequence[ResolvedValueBinding],
    required_capabilities: Iterable[CapabilityId],
    required_weight_formats: Iterable[WeightFormatId],
    required_quantization_formats: Iterable[QuantizationFormatId],
) -> dict[str, JsonValue]:
    """The §8.2 object. ``operation_version`` is the program node's required version;
    ``required_capabilities`` must already be the union of operation and caller capabilities."""
    return {
        "prepared_family_fingerprint": prepared_family_fingerprint,
        "operation_fingerprint": operation.fingerprint(),
        "node_id": node_id.value,
        "operation_id": operation_id.value,
        "operation_version": operation_version.to_wire(),
        "attributes": {key.value: value.to_wire() for key, value in sorted(attributes.items())},
        "provider_id": provider_id.value,
        "values": [v.to_wire() for v in values],
        "required_capabilities": _sorted_ids(required_capabilities),
        "required_weight_formats": _sorted_ids(required_weight_formats),
        "required_quantization_formats": _sorted_ids(required_quantization_formats),
    }


def estimator_input_fingerprint(
    *,
    prepared_family_fingerprint: str,
    operation: OperationDescriptor,
    node_id: NodeId,
    operation_id: OperationId,
    operation_version: ContractVersion,
    attributes: Mapping[AttributeId, SemanticValue],
    provider_id: ProviderId,
    values: Sequence[ResolvedValueBinding],
    required_capabilities: Iterable[CapabilityId],
    required_weight_formats: Iterable[WeightFormatId],
    required_quantization_formats: Iterable[QuantizationFormatId],
) -> str:
    """Canonical sha256 of ``estimator_input_material(...)``."""
    material = estimator_input_material(
        prepared_family_fingerprint=prepared_family_fingerprint,
        operation=operation,
        node_id=node_id,
        operation_id=operation_id,
        operation_version=operation_version,
        attributes=attributes,
        provider_id=provider_id,
        values=values,
        required_capabilities=required_capabilities,
        required_weight_formats=required_weight_formats,
        required_quantization_formats=required_quantization_formats,
    )
    return fingerprint(material, context=ESTIMATOR_INPUT_FINGERPRINT_CONTEXT, trusted=True)


@dataclass(frozen=True, slots=True, init=False)
class OperationResourceEstimateRequest:
    """What an estimator sees: node, catalog operation, bindings (caller order), attributes, input fingerprint."""

    node_id: NodeId
    operation: OperationDescriptor
    values: tuple[ResolvedValueBinding, ...]
    attributes: Mapping[AttributeId, SemanticValue]
    input_fingerprint: str

    def __init__(
        self,
        node_id: NodeId,
        operation: OperationDescriptor,
        values: Sequence[ResolvedValueBinding],
        attributes: Mapping[AttributeId, SemanticValue],
        input_fingerprint: str,
    ) -> None:
        operation.validate()
        operation.validate_attributes(attributes)
        validate_resolved_bindings(operation, values)
        if not is_canonical_sha256(input_fingerprint):
            raise InvalidExecutionPlan(  # rule: 04.8.1/estimate_request_constructor_checks
                reason="estimator input fingerprint is not a canonical sha256"
            )
        object.__setattr__(self, "node_id", node_id)
        object.__setattr__(self, "operation", operation)
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "attributes", dict(attributes))
        object.__setattr__(self, "input_fingerprint", input_fingerprint)


@dataclass(frozen=True, slots=True)
class OperationResourceEstimate:
    """An estimator's raw claim: identity, claimed input, value alignment and workspaces (unvalidated)."""

    estimator_id: str
    estimator_version: ContractVersion
    estimator_implementation_fingerprint: str
    claimed_input_fingerprint: str
    value_alignment_bytes: int
    scratch: ProviderWorkspaceRequirement | None
    persistent: ProviderWorkspaceRequirement | None
    binding: ProviderWorkspaceRequirement | None = field(default=None)

    def with_binding(self, requirement: ProviderWorkspaceRequirement) -> OperationResourceEstimate:
        """The same estimate with a binding workspace."""
        return replace(self, binding=requirement)
