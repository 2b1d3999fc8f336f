"""Provider selection evidence for one node (spec 05 §6.3 ``select_provider``).

The compatibility report is recomputed from the operation's and the resolution's
capabilities and the node's weight requirements; the solver's provider must be
compatible. Rejections: every report rejection as ``incompatible``, ``not_registered``
for an unknown preferred provider, and the solver's storage rejection (no provider twice).
A fallback needs evidence for the preferred provider. Rejections sort by provider id.
"""

from __future__ import annotations

from collections.abc import Iterable

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.compatibility import ProviderCompatibilityRequest
from reference.catalog.operation import OperationDescriptor
from reference.errors import invalid_plan
from reference.ids import CapabilityId, ProviderId, QuantizationFormatId, WeightFormatId
from reference.model.program import ProgramNode
from reference.plan.selection import ProviderSelection, ProviderSelectionReason, RejectedProvider
from reference.policy.enums import ExecutionDeterminismRequirement
from reference.resolution.rejection import PlanProviderRejectReason

__all__ = ["select_provider"]


def select_provider(
    catalog: CapabilityCatalog,
    operation: OperationDescriptor,
    node: ProgramNode,
    required_capabilities: Iterable[CapabilityId],
    preferred: ProviderId | None,
    selected: ProviderId,
    storage_rejection: RejectedProvider | None,
    weight_formats: frozenset[WeightFormatId],
    quantization_formats: frozenset[QuantizationFormatId],
    determinism: ExecutionDeterminismRequirement,
) -> ProviderSelection:
    """The node's ``ProviderSelection`` (checked with ``validate_evidence`` by the caller)."""
    request = ProviderCompatibilityRequest(
        node.operation_id,
        node.required_version,
        operation.provider.required_capabilities | frozenset(required_capabilities),
        weight_formats,
        quantization_formats,
        determinism,
    )
    report = catalog.provider_compatibility(request)
    compatible = report.require_compatible_for_node(catalog.device.id, node.id)
    if selected not in compatible:
        raise invalid_plan(  # rule: 05.6.3/selected_provider_prechecked
            f"selected provider `{selected}` is not compatible with node `{node.id}`"
        )
    if preferred is None:
        reason = ProviderSelectionReason.CANONICAL_COMPATIBLE
    elif preferred == selected:
        reason = ProviderSelectionReason.PREFERRED_COMPATIBLE
    else:
        reason = ProviderSelectionReason.FALLBACK_FROM_PREFERRED
    rejected: dict[ProviderId, RejectedProvider] = {
        r.provider_id: RejectedProvider(r.provider_id, PlanProviderRejectReason.incompatible(r.reasons))
        for r in report.rejected
    }
    registered = {p.provider_id for p in catalog.providers_for_node(node.id, node.operation_id)}
    if preferred is not None and preferred not in registered:
        rejected[preferred] = RejectedProvider(preferred, PlanProviderRejectReason.not_registered())
    if storage_rejection is not None:
        if storage_rejection.provider_id in rejected:
            raise invalid_plan(  # rule: 05.6.3/storage_rejection_distinct
                f"provider `{storage_rejection.provider_id}` has duplicate rejection evidence"
            )
        rejected[storage_rejection.provider_id] = storage_rejection
    if reason is ProviderSelectionReason.FALLBACK_FROM_PREFERRED and preferred not in rejected:
        raise invalid_plan(  # rule: 05.6.3/fallback_needs_evidence
            f"node `{node.id}` fell back from `{preferred}` without rejection evidence"
        )
    return ProviderSelection(preferred, selected, reason, tuple(rejected[k] for k in sorted(rejected)))
