"""Operation contracts, resource estimators and ``OperationRuntimeRegistry`` (spec 03 §12).

``OperationRuntimeRegistry(contracts, providers)`` checks, first failure wins
(all ``InvalidExecutionPlan``): non-empty lists; each contract's descriptor
validates and ids are unique; each provider has a contract, the contract's
fingerprint, and a globally unique provider id. It then mints a process-local
authority token (monotonic from 1) that never reaches a wire or a hash.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.device import DeviceDescriptor
from reference.catalog.engine import EngineProviderDescriptor
from reference.catalog.operation import OperationDescriptor
from reference.catalog.provider import OperationProviderDescriptor
from reference.catalog.tensor_contract import TensorContract
from reference.errors import invalid_plan
from reference.ids import OperationId, ProviderId
from reference.ints import U64_MAX

__all__ = [
    "OperationContract",
    "OperationPlanningHandle",
    "OperationResourceEstimator",
    "OperationRuntimeRegistry",
    "PlanningAuthority",
]


@runtime_checkable
class OperationContract(Protocol):
    """The typed signature of one operation."""

    def descriptor(self) -> OperationDescriptor: ...

    def validate_signature(self, inputs: Sequence[TensorContract], outputs: Sequence[TensorContract]) -> None:
        """Raise a ``VNextError`` (``InvalidExecutionPlan``) to refuse the signature."""
        ...


@runtime_checkable
class OperationResourceEstimator(Protocol):
    """A provider's estimator; request/estimate types belong to spec 04."""

    def descriptor(self) -> OperationProviderDescriptor: ...

    def estimate_resources(self, request: Any) -> Any: ...


@dataclass(frozen=True, slots=True)
class PlanningAuthority:
    """A process-local registry token (u64 >= 1). Never serialized, never hashed."""

    token: int


_TOKENS = itertools.count(1)
_TOKEN_LOCK: Final = threading.Lock()


def _mint_authority() -> PlanningAuthority:
    with _TOKEN_LOCK:
        token = next(_TOKENS)
    if token > U64_MAX:
        raise invalid_plan(  # rule: 03.12.3/authority_tokens_exhausted
            "operation planning authority tokens are exhausted"
        )
    return PlanningAuthority(token)


class OperationRuntimeRegistry:
    """Registered contracts (one per operation) and providers (globally unique ids)."""

    __slots__ = ("_authority", "_contracts", "_providers")

    def __init__(self, contracts: Sequence[OperationContract], providers: Sequence[OperationResourceEstimator]) -> None:
        empty = "operation runtime registry needs at least one contract and one provider"
        if not contracts:
            raise invalid_plan(empty)  # rule: 03.12.3/registry_no_contracts
        if not providers:
            raise invalid_plan(empty)  # rule: 03.12.3/registry_no_providers
        by_operation: dict[OperationId, OperationContract] = {}
        for contract in contracts:
            descriptor = contract.descriptor()
            descriptor.validate()
            if descriptor.id in by_operation:
                raise invalid_plan(  # rule: 03.12.3/registry_duplicate_contract
                    f"duplicate operation contract `{descriptor.id}`"
                )
            by_operation[descriptor.id] = contract
        by_provider: dict[ProviderId, OperationResourceEstimator] = {}
        for provider in providers:
            descriptor_p = provider.descriptor()
            owner = by_operation.get(descriptor_p.operation_id)
            if owner is None:
                raise invalid_plan(  # rule: 03.12.3/registry_provider_without_contract
                    f"provider `{descriptor_p.provider_id}` has no operation contract `{descriptor_p.operation_id}`"
                )
            if descriptor_p.operation_fingerprint != owner.descriptor().fingerprint():
                raise invalid_plan(  # rule: 03.12.3/registry_provider_fingerprint_from_catalog
                    f"provider `{descriptor_p.provider_id}` does not match its operation contract fingerprint"
                )
            if descriptor_p.provider_id in by_provider:
                raise invalid_plan(  # rule: 03.12.3/registry_duplicate_provider_global
                    f"duplicate operation provider `{descriptor_p.provider_id}`"
                )
            by_provider[descriptor_p.provider_id] = provider
        self._contracts: Mapping[OperationId, OperationContract] = dict(sorted(by_operation.items()))
        self._providers: Mapping[ProviderId, OperationResourceEstimator] = dict(sorted(by_provider.items()))
        self._authority = _mint_authority()

    @property
    def authority(self) -> PlanningAuthority:
        return self._authority

    def contracts_for(self, operation_id: OperationId) -> list[OperationContract]:
        """``[contract]`` or ``[]``."""
        found = self._contracts.get(operation_id)
        return [] if found is None else [found]

    def estimators_for(self, provider_id: ProviderId) -> list[OperationResourceEstimator]:
        """``[provider]`` or ``[]``."""
        found = self._providers.get(provider_id)
        return [] if found is None else [found]

    def provider_ids(self) -> list[ProviderId]:
        return list(self._providers)

    def capability_catalog(
        self, device: DeviceDescriptor, engines: Sequence[EngineProviderDescriptor]
    ) -> CapabilityCatalog:
        """Operations in id order; every contract gets a (possibly empty) provider list; then the catalog."""
        operations = [c.descriptor() for c in self._contracts.values()]
        providers: dict[OperationId, list[OperationProviderDescriptor]] = {op.id: [] for op in operations}
        for provider in self._providers.values():
            providers[provider.descriptor().operation_id].append(provider.descriptor())
        return CapabilityCatalog(device, operations, providers, engines)

    def planning(self) -> OperationPlanningHandle:
        return OperationPlanningHandle(self, self._authority)

    def bind(
        self,
        plan_authority: PlanningAuthority | None,
        provider_id: ProviderId,
        resolved_descriptor: OperationProviderDescriptor,
        provider_implementation_fingerprint: str,
    ) -> OperationResourceEstimator:
        """Bind one plan node's selected provider; every mismatch is ``InvalidExecutionPlan``."""
        if plan_authority != self._authority:
            raise invalid_plan(  # rule: 03.12.3/bind_authority
                "plan was not resolved by this operation runtime registry"
            )
        provider = self._providers.get(provider_id)
        if provider is None:
            raise invalid_plan(  # rule: 03.12.3/bind_provider_registered
                f"selected provider `{provider_id}` is not registered"
            )
        registered = provider.descriptor()
        if registered != resolved_descriptor or registered.provider_id != provider_id:
            raise invalid_plan(  # rule: 03.12.3/bind_descriptor_equal
                f"selected provider `{provider_id}` differs from the resolved catalog descriptor"
            )
        if registered.provider_implementation_fingerprint != provider_implementation_fingerprint:
            raise invalid_plan(  # rule: 03.12.3/bind_implementation_fingerprint
                f"selected provider `{provider_id}` implementation fingerprint differs from the plan"
            )
        return provider

    def bind_plan(
        self,
        plan_authority: PlanningAuthority | None,
        selections: Sequence[tuple[ProviderId, OperationProviderDescriptor, str]],
    ) -> list[OperationResourceEstimator]:
        """``bind`` for every node; a plan with no nodes is refused."""
        if not selections:
            raise invalid_plan("cannot bind a plan with no nodes")  # rule: 03.12.3/bind_plan_zero_nodes
        return [self.bind(plan_authority, *selection) for selection in selections]


@dataclass(frozen=True, slots=True)
class OperationPlanningHandle:
    """A registry view plus its authority token; resolution accepts only this."""

    registry: OperationRuntimeRegistry
    authority: PlanningAuthority

    def contracts_for(self, operation_id: OperationId) -> list[OperationContract]:
        return self.registry.contracts_for(operation_id)

    def estimators_for(self, provider_id: ProviderId) -> list[OperationResourceEstimator]:
        return self.registry.estimators_for(provider_id)
