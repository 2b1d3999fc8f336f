"""``PlanNodeResolution.resolve`` (spec 04 §9): candidates and rejections for one program node.

Resolution validates a node's bindings, asks the catalog which providers are
compatible, drops providers whose storage the device/policy cannot offer
(``storage_incompatible``), and runs each remaining provider's estimator into a
validated ``ProviderResourcePlan``. It never selects a provider and never
computes memory. The first failure aborts; nothing is recorded.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.compatibility import ProviderCompatibilityRequest
from reference.catalog.operation import OperationDescriptor
from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.registry import OperationPlanningHandle, OperationResourceEstimator, PlanningAuthority
from reference.catalog.resources import ResourcePresenceRequirement
from reference.catalog.storage import DynamicStorageRequirement
from reference.errors import InvalidExecutionPlan
from reference.ids import CapabilityId, NodeId, ProviderId, ResourceId
from reference.model.prepared import PreparedModelFamily
from reference.model.program import ProgramNode
from reference.policy.runtime_policy import RuntimePolicy
from reference.policy.trust import PlannerPolicyView, first_available_profile, policy_for_resolution
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.estimate import (
    OperationResourceEstimate,
    OperationResourceEstimateRequest,
    estimator_input_fingerprint,
)
from reference.resolution.execution_weights import ExecutionWeightWitness
from reference.resolution.operation_bindings import validate_resolved_bindings
from reference.resolution.rejection import PlanProviderRejectReason
from reference.resolution.resource_plan import ProviderResourcePlan, workspace_base_id
from reference.resolution.semantic import (
    node_weight_requirements,
    validate_program_bindings,
    validate_semantic_binding,
)
from reference.resolution.usage import BufferUsage

__all__ = [
    "PlanNodeResolution",
    "profile_available",
    "resolution_input_fingerprint",
    "validate_provider_resolution",
    "validate_resource_contract",
]

_TOKEN: Final = object()


def profile_available(
    view: PlannerPolicyView, catalog: CapabilityCatalog, requirement: DynamicStorageRequirement
) -> bool:
    """Some profile in the policy order is offered by the device and accepted by ``requirement``."""
    return (
        first_available_profile(
            view.dynamic_storage_profile_order, catalog.device.dynamic_storage_profiles, requirement.accepts
        )
        is not None
    )


def resolution_input_fingerprint(
    family: PreparedModelFamily,
    operation: OperationDescriptor,
    node: ProgramNode,
    provider_id: ProviderId,
    values: Sequence[ResolvedValueBinding],
    required_capabilities: Iterable[CapabilityId],
) -> str:
    """The estimator input fingerprint resolution computes for ``provider_id`` (caller capabilities, not unioned)."""
    weight_formats, quantization_formats = node_weight_requirements(family, values)
    return estimator_input_fingerprint(
        prepared_family_fingerprint=family.fingerprint(),
        operation=operation,
        node_id=node.id,
        operation_id=node.operation_id,
        operation_version=node.required_version,
        attributes=node.attributes,
        provider_id=provider_id,
        values=values,
        required_capabilities=set(operation.provider.required_capabilities) | set(required_capabilities),
        required_weight_formats=weight_formats,
        required_quantization_formats=quantization_formats,
    )


def validate_resource_contract(operation: OperationDescriptor, plan: ProviderResourcePlan) -> None:
    """Value alignment is a multiple of (so at least) the operation minimum; workspace presence as required."""
    resources = operation.resources
    minimum = resources.minimum_value_alignment_bytes
    alignment = plan.value_alignment_bytes
    # One combined alignment check upstream (both failures have the same error), then one check per workspace.
    misaligned = f"provider `{plan.provider_id}` value alignment {alignment} violates the operation minimum {minimum}"
    if alignment < minimum:
        raise InvalidExecutionPlan(reason=misaligned)  # rule: 04.9/step13g_alignment_at_least_operation_minimum
    if alignment % minimum:
        raise InvalidExecutionPlan(reason=misaligned)  # rule: 04.9/step13g_alignment_multiple_of_minimum
    if not resources.scratch.accepts(plan.scratch is not None):
        raise _presence_error(plan, "scratch", resources.scratch)  # rule: 04.9/step13g_scratch_presence
    if not resources.binding.accepts(plan.binding is not None):
        raise _presence_error(plan, "binding", resources.binding)  # rule: 04.9/step13g_binding_presence
    if not resources.persistent.accepts(plan.persistent is not None):
        raise _presence_error(plan, "persistent", resources.persistent)  # rule: 04.9/step13g_persistent_presence


def _presence_error(
    plan: ProviderResourcePlan, kind: str, presence: ResourcePresenceRequirement
) -> InvalidExecutionPlan:
    return InvalidExecutionPlan(
        reason=f"provider `{plan.provider_id}` {kind} workspace violates the operation's {presence.value} rule"
    )


def validate_provider_resolution(
    candidates: Iterable[ProviderResourcePlan], rejections: Mapping[ProviderId, PlanProviderRejectReason]
) -> tuple[ProviderResourcePlan, ...]:
    """``from_provider_resolution``: sorted unique non-empty candidates, each ``validate_shape``d; rejections
    disjoint from candidates and all resolution-local ``storage_incompatible``."""
    ordered = tuple(sorted(candidates, key=lambda plan: plan.provider_id))
    if not ordered:
        raise InvalidExecutionPlan(  # rule: 04.9/step15_from_provider_resolution
            reason="node resolution has no provider candidates"
        )
    if any(a.provider_id == b.provider_id for a, b in itertools.pairwise(ordered)):
        raise InvalidExecutionPlan(  # rule: 04.9/step15_from_provider_resolution
            reason="node resolution has duplicate provider candidates"
        )
    for plan in ordered:
        plan.validate_shape()
        if plan.provider_id in rejections:
            raise InvalidExecutionPlan(  # rule: 04.9/step15_from_provider_resolution
                reason=f"provider `{plan.provider_id}` is both a candidate and rejected"
            )
    for rejection in rejections.values():
        rejection.require_resolution_local()
    return ordered


class PlanNodeResolution:
    """The resolved evidence for one node; built only by ``resolve`` (no wire form)."""

    __slots__ = (
        "_authority",
        "_candidates",
        "_node_id",
        "_preferred_provider",
        "_rejections",
        "_required_capabilities",
        "_values",
    )

    def __init__(
        self,
        token: object,
        authority: PlanningAuthority,
        node_id: NodeId,
        values: tuple[ResolvedValueBinding, ...],
        required_capabilities: frozenset[CapabilityId],
        preferred_provider: ProviderId | None,
        candidates: tuple[ProviderResourcePlan, ...],
        rejections: Mapping[ProviderId, PlanProviderRejectReason],
    ) -> None:
        if token is not _TOKEN:
            raise TypeError("PlanNodeResolution is built by PlanNodeResolution.resolve")
        self._authority = authority
        self._node_id = node_id
        self._values = values
        self._required_capabilities = required_capabilities
        self._preferred_provider = preferred_provider
        self._candidates = candidates
        self._rejections: Mapping[ProviderId, PlanProviderRejectReason] = MappingProxyType(
            dict(sorted(rejections.items()))
        )

    # ------------------------------------------------------------------ accessors

    def registry_authority(self) -> PlanningAuthority:
        return self._authority

    def node_id(self) -> NodeId:
        return self._node_id

    def values(self) -> tuple[ResolvedValueBinding, ...]:
        """The caller's bindings, unchanged and in caller order."""
        return self._values

    def required_capabilities(self) -> frozenset[CapabilityId]:
        """The caller's extra capabilities (not unioned with the operation's)."""
        return self._required_capabilities

    def preferred_provider(self) -> ProviderId | None:
        """Verbatim and unvalidated."""
        return self._preferred_provider

    def provider_resource_candidates(self) -> tuple[ProviderResourcePlan, ...]:
        """Strictly ascending by provider id."""
        return self._candidates

    def provider_resolution_rejections(self) -> Mapping[ProviderId, PlanProviderRejectReason]:
        """``storage_incompatible`` rejections keyed (ascending) by provider id."""
        return self._rejections

    def candidate(self, provider_id: ProviderId) -> ProviderResourcePlan | None:
        return next((c for c in self._candidates if c.provider_id == provider_id), None)

    def evidence_wire(self) -> dict[str, object]:
        """A JSON view for reports and tests (not a contract wire form)."""
        return {
            "node_id": self._node_id.value,
            "values": [v.to_wire() for v in self._values],
            "required_capabilities": sorted(c.value for c in self._required_capabilities),
            "preferred_provider": None if self._preferred_provider is None else self._preferred_provider.value,
            "provider_resource_candidates": [c.to_wire() for c in self._candidates],
            "provider_resolution_rejections": {k.value: v.to_wire() for k, v in self._rejections.items()},
        }

    # ------------------------------------------------------------------ resolve

    @classmethod
    def resolve(
        cls,
        family: PreparedModelFamily,
        catalog: CapabilityCatalog,
        policy: RuntimePolicy,
        registry: OperationPlanningHandle,
        node_id: NodeId,
        values: Sequence[ResolvedValueBinding],
        required_capabilities: Iterable[CapabilityId] = (),
        preferred_provider: ProviderId | None = None,
        *,
        execution_weights: ExecutionWeightWitness | None = None,
    ) -> PlanNodeResolution:
        """Spec 04 §9 steps 1-16, in order. Weight bindings are checked against ``execution_weights``'
        execution schema (validated against the catalog right after the policy); ``None`` is the identity
        plan, whose schema is the family's (decision D-04R-14)."""
        view = policy_for_resolution(policy)  # steps 1-3
        if execution_weights is None:
            weight_schema = family.weight_schema
        else:
            execution_weights.validate_against_catalog(family, catalog)
            weight_schema = execution_weights.plan().schema()
        bindings = tuple(values)
        extra_capabilities = frozenset(required_capabilities)
        if not bindings:
            raise InvalidExecutionPlan(  # rule: 04.9/step04_values_nonempty
                reason=f"node `{node_id}` resolution has no value bindings"
            )
        node = family.program.node(node_id)
        if node is None:
            raise InvalidExecutionPlan(  # rule: 04.9/step05_node_in_program
                reason=f"node `{node_id}` is not in the model program"
            )
        operation = catalog.operation_for_node(
            # rule when 03.11.4/node_lookup_sets_node_id: 04.9/step06_operation_known
            node.id,
            node.operation_id,
        )
        _check_contract(registry, operation)
        operation.validate_attributes(node.attributes)
        validate_resolved_bindings(operation, bindings)
        validate_program_bindings(node, bindings)
        for binding in bindings:
            validate_semantic_binding(family, binding, weight_schema)
        weight_formats, quantization_formats = node_weight_requirements(family, bindings)
        request = ProviderCompatibilityRequest(
            node.operation_id,
            node.required_version,
            operation.provider.required_capabilities | extra_capabilities,
            weight_formats,
            quantization_formats,
            view.execution_determinism,
        )
        report = catalog.provider_compatibility(request)
        compatible = report.require_compatible_for_node(catalog.device.id, node.id)
        descriptors = {p.provider_id: p for p in catalog.providers_for(node.operation_id)}
        family_fingerprint = family.fingerprint()
        candidates: list[ProviderResourcePlan] = []
        rejections: dict[ProviderId, PlanProviderRejectReason] = {}
        for provider_id in compatible:
            descriptor = descriptors.get(provider_id)
            if descriptor is None:
                raise InvalidExecutionPlan(  # rule: 04.9/step13a_compatible_descriptor_present
                    reason=f"compatible provider `{provider_id}` is not in the catalog"
                )
            conflicts = _value_storage_conflicts(view, catalog, descriptor, bindings)
            if conflicts:
                rejections[provider_id] = PlanProviderRejectReason.storage_incompatible(conflicts)
                continue
            estimator = _registered_estimator(registry, descriptor)
            input_fingerprint = estimator_input_fingerprint(
                prepared_family_fingerprint=family_fingerprint,
                operation=operation,
                node_id=node.id,
                operation_id=node.operation_id,
                operation_version=node.required_version,
                attributes=node.attributes,
                provider_id=provider_id,
                values=bindings,
                required_capabilities=request.required_capabilities,
                required_weight_formats=weight_formats,
                required_quantization_formats=quantization_formats,
            )
            estimate_request = OperationResourceEstimateRequest(
                node.id, operation, bindings, node.attributes, input_fingerprint
            )
            estimate = estimator.estimate_resources(estimate_request)
            if not isinstance(estimate, OperationResourceEstimate):
                raise InvalidExecutionPlan(  # rule: 04.9/step13e_estimate_type
                    reason=f"provider `{provider_id}` estimator returned no resource estimate"
                )
            plan = ProviderResourcePlan.from_provider_output(descriptor, input_fingerprint, estimate)
            validate_resource_contract(operation, plan)
            workspace_conflicts = [
                workspace_base_id(node.id, kind, plan.estimate_fingerprint)
                for kind, requirement in plan.workspaces()
                if not profile_available(view, catalog, requirement.storage)
            ]
            if workspace_conflicts:
                rejections[provider_id] = PlanProviderRejectReason.storage_incompatible(workspace_conflicts)
                continue
            candidates.append(plan)
        if not candidates:
            no_candidates = f"node `{node.id}` has no provider with available storage"
            if not view.dynamic_storage_profile_order:
                raise InvalidExecutionPlan(  # rule: 04.9/step14_no_candidates, 04.4.1/empty_profile_order_fails_resolution, 03.6.4/storage_incompatible_dropped  # noqa: E501
                    reason=no_candidates
                )
            raise InvalidExecutionPlan(  # rule: 04.9/step14_no_candidates, 03.6.4/storage_incompatible_dropped
                reason=no_candidates
            )
        ordered = validate_provider_resolution(candidates, rejections)
        return cls(
            _TOKEN,
            registry.authority,
            node.id,
            bindings,
            extra_capabilities,
            preferred_provider,
            ordered,
            rejections,
        )


def _check_contract(registry: OperationPlanningHandle, operation: OperationDescriptor) -> None:
    """Step 7: exactly one registered contract, equal to the catalog descriptor; one signature call."""
    contracts = registry.contracts_for(operation.id)
    if len(contracts) != 1:
        raise InvalidExecutionPlan(  # rule: 04.9/step07_exactly_one_contract, 03.12.1/exactly_one_contract
            reason=f"operation `{operation.id}` needs exactly one registered contract"
        )
    contract = contracts[0]
    if contract.descriptor() != operation:
        raise InvalidExecutionPlan(  # rule: 04.9/step07_contract_descriptor_equals_catalog
            reason=f"operation `{operation.id}` contract differs from the catalog descriptor"
        )
    contract.validate_signature(operation.inputs, operation.outputs)


def _value_storage_conflicts(
    view: PlannerPolicyView,
    catalog: CapabilityCatalog,
    descriptor: OperationProviderDescriptor,
    bindings: Sequence[ResolvedValueBinding],
) -> set[ResourceId]:
    """Resource ids of every non-weight binding whose slot requirement is missing or unavailable."""
    conflicts: set[ResourceId] = set()
    for binding in bindings:
        if binding.usage is BufferUsage.WEIGHTS:
            continue
        requirement = descriptor.dynamic_storage_for(binding.role, binding.ordinal)
        if requirement is None or not profile_available(view, catalog, requirement):
            conflicts |= binding.storage.resource_ids()
    return conflicts


def _registered_estimator(
    registry: OperationPlanningHandle, descriptor: OperationProviderDescriptor
) -> OperationResourceEstimator:
    """Step 13d: exactly one registered estimator whose descriptor equals the catalog's."""
    estimators = registry.estimators_for(descriptor.provider_id)
    # One combined check upstream: both failures have the same error.
    differs = f"provider `{descriptor.provider_id}` estimator registration differs from the catalog"
    if len(estimators) != 1:
        raise InvalidExecutionPlan(reason=differs)  # rule: 04.9/step13d_exactly_one_estimator
    if estimators[0].descriptor() != descriptor:
        raise InvalidExecutionPlan(reason=differs)  # rule: 04.9/step13d_estimator_descriptor_equals_catalog
    return estimators[0]
