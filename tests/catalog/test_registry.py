"""OperationRuntimeRegistry, contracts and the planning handle (spec 03 §12; properties 37-38)."""

from __future__ import annotations

from reference.catalog import OperationContract, OperationResourceEstimator, OperationRuntimeRegistry, PlanningAuthority
from reference.documents.registry import DeclaredEstimator, DeclaredOperationContract, EstimatorSpec
from reference.ids import OperationId, ProviderId
from reference.versions import ContractVersion
from seeds.catalogs import catalog, catalog_with_secondary_provider, operation, planning_document, seed_device

from .helpers import raises_kind, replace_op, replace_provider

OP = OperationId("operation.main")


def _parts() -> tuple[list[DeclaredOperationContract], list[DeclaredEstimator]]:
    base = catalog_with_secondary_provider()
    contracts = [DeclaredOperationContract(op) for op in base.operations.values()]
    estimators = [DeclaredEstimator(p, EstimatorSpec(p.provider_id)) for p in base.providers[OP]]
    return contracts, estimators


def test_seed_registry_builds_and_protocols() -> None:
    registry, contracts = planning_document(catalog()).build(catalog())
    assert isinstance(contracts[0], OperationContract)
    (estimator,) = registry.estimators_for(ProviderId("provider.operation.reference"))
    assert isinstance(estimator, OperationResourceEstimator)
    assert registry.contracts_for(OP) == [contracts[0]]
    assert registry.contracts_for(OperationId("operation.none")) == []
    assert registry.estimators_for(ProviderId("provider.none")) == []
    assert registry.authority.token >= 1


def test_registry_faults() -> None:
    contracts, estimators = _parts()
    raises_kind("invalid_execution_plan", lambda: OperationRuntimeRegistry([], estimators))
    raises_kind("invalid_execution_plan", lambda: OperationRuntimeRegistry(contracts, []))
    bad = DeclaredOperationContract(replace_op(operation(), outputs=()))
    raises_kind("invalid_execution_plan", lambda: OperationRuntimeRegistry([bad], estimators))
    raises_kind("invalid_execution_plan", lambda: OperationRuntimeRegistry(contracts + contracts, estimators))
    orphan = DeclaredEstimator(
        replace_provider(estimators[0].provider, operation_id=OperationId("operation.other")), estimators[0].spec
    )
    raises_kind("invalid_execution_plan", lambda: OperationRuntimeRegistry(contracts, [orphan]))
    other_fp = replace_op(operation(), version=ContractVersion(1, 1)).fingerprint()
    mismatched = DeclaredEstimator(
        replace_provider(estimators[0].provider, operation_fingerprint=other_fp), estimators[0].spec
    )
    raises_kind("invalid_execution_plan", lambda: OperationRuntimeRegistry(contracts, [mismatched]))
    raises_kind("invalid_execution_plan", lambda: OperationRuntimeRegistry(contracts, [estimators[0], estimators[0]]))


def test_same_provider_id_across_operations_rejected_globally() -> None:
    second = replace_op(operation(), id=OperationId("operation.second"))
    _, estimators = _parts()
    row = estimators[0].provider
    row2 = replace_provider(row, operation_id=second.id, operation_fingerprint=second.fingerprint())
    contracts = [DeclaredOperationContract(operation()), DeclaredOperationContract(second)]
    raises_kind(
        "invalid_execution_plan",
        lambda: OperationRuntimeRegistry(contracts, [estimators[0], DeclaredEstimator(row2, estimators[0].spec)]),
    )


def test_reject_signature_flag_and_call_counting() -> None:
    contract = DeclaredOperationContract(operation(), reject_signature=True)
    raises_kind("invalid_execution_plan", lambda: contract.validate_signature(operation().inputs, operation().outputs))
    ok = DeclaredOperationContract(operation())
    ok.validate_signature(operation().inputs, operation().outputs)
    raises_kind("invalid_execution_plan", lambda: ok.validate_signature(operation().inputs[:2], operation().outputs))
    assert (contract.calls, ok.calls) == (1, 2)


def test_authority_tokens_distinct_and_binding() -> None:
    doc = planning_document(catalog())
    a, _ = doc.build(catalog())
    b, _ = doc.build(catalog())
    assert a.authority != b.authority and b.authority.token > a.authority.token
    handle = a.planning()
    assert handle.authority == a.authority and handle.contracts_for(OP) == a.contracts_for(OP)
    row = catalog().providers[OP][0]
    impl = row.provider_implementation_fingerprint
    assert a.bind(handle.authority, row.provider_id, row, impl).descriptor() == row
    raises_kind("invalid_execution_plan", lambda: b.bind(handle.authority, row.provider_id, row, impl))
    raises_kind("invalid_execution_plan", lambda: a.bind(None, row.provider_id, row, impl))
    raises_kind("invalid_execution_plan", lambda: a.bind(handle.authority, ProviderId("provider.none"), row, impl))
    changed = replace_provider(row, resource_estimator_id="resource-estimator.other")
    raises_kind("invalid_execution_plan", lambda: a.bind(handle.authority, row.provider_id, changed, impl))
    raises_kind("invalid_execution_plan", lambda: a.bind(handle.authority, row.provider_id, row, "0" * 64))
    raises_kind("invalid_execution_plan", lambda: a.bind_plan(handle.authority, []))
    assert len(a.bind_plan(handle.authority, [(row.provider_id, row, impl)])) == 1
    assert PlanningAuthority(a.authority.token) == a.authority


def test_capability_catalog_from_registry() -> None:
    registry, _ = planning_document(catalog()).build(catalog())
    engines = list(catalog().engine_providers.values())
    assert registry.capability_catalog(seed_device(), engines) == catalog()
    second = replace_op(operation(), id=OperationId("operation.lonely"))
    contracts, estimators = _parts()
    lonely = OperationRuntimeRegistry([*contracts, DeclaredOperationContract(second)], estimators)
    raises_kind("unsupported_operation", lambda: lonely.capability_catalog(seed_device(), engines))


def test_declared_estimator_plumbing() -> None:
    _, estimators = _parts()
    est = estimators[0]
    assert DeclaredEstimator.reference(est.provider, est.spec).estimate is not None
    wired = DeclaredEstimator(est.provider, est.spec, lambda self, request: (self.spec.behavior, request))
    assert wired.estimate_resources(7) == ("correct", 7)
    assert wired.calls == 1
