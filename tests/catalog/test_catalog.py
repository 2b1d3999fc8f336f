"""CapabilityCatalog construction checks, lookups, wire and fingerprint (spec 03 §11; properties 17-31, 34)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.catalog import (
    IDENTITY_WEIGHT_MATERIALIZER_ID,
    CapabilityCatalog,
    EngineProviderDescriptor,
    OperationDescriptor,
    OperationProviderDescriptor,
    ProviderRequirement,
    WeightMaterializationFidelity,
    WeightMaterializerDescriptor,
)
from reference.errors import Serialization
from reference.ids import CapabilityId, DeviceId, NodeId, OperationId, ProviderId, WeightMaterializerId
from reference.versions import ContractVersion
from seeds.catalogs import (
    COMPUTE,
    catalog,
    catalog_from_operations,
    catalog_with_secondary_provider,
    catalog_with_secondary_provider_storage,
    contiguous_storage_requirement,
    operation,
    paged_storage_requirement,
    seed_device,
    sha,
)

from .helpers import raises_kind, replace_op, replace_provider

OP_ID = OperationId("operation.main")
OTHER = CapabilityId("capability.other")


def _parts() -> tuple[
    Any, list[OperationDescriptor], dict[OperationId, list[OperationProviderDescriptor]], list[EngineProviderDescriptor]
]:
    base = catalog()
    return (
        base.device,
        list(base.operations.values()),
        {k: list(v) for k, v in base.providers.items()},
        list(base.engine_providers.values()),
    )


def _with_provider(**changes: Any) -> CapabilityCatalog:
    device, ops, providers, engines = _parts()
    providers[OP_ID] = [replace_provider(providers[OP_ID][0], **changes)]
    return CapabilityCatalog(device, ops, providers, engines)


def test_duplicates_and_empties() -> None:
    device, ops, providers, engines = _parts()
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, ops + ops, providers, engines))
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, ops, providers, engines + engines))
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, [], {}, engines))
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, ops, {}, engines))
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, ops, providers, []))
    raises_kind(
        "invalid_execution_plan",
        lambda: CapabilityCatalog(dataclasses.replace(device, total_memory_bytes=0), ops, providers, engines),
    )


def test_key_sets_must_match() -> None:
    device, ops, providers, engines = _parts()
    extra = dict(providers)
    extra[OperationId("operation.ghost")] = providers[OP_ID]
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, ops, extra, engines))
    second = replace_op(ops[0], id=OperationId("operation.second"))
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, [*ops, second], providers, engines))
    err = raises_kind("unsupported_operation", lambda: CapabilityCatalog(device, ops, {OP_ID: []}, engines))
    assert err.to_dict()["node_id"] is None and err.to_dict()["device_id"] == "device.reference.0"


def test_provider_fingerprint_of_other_descriptor_rejected() -> None:
    other = replace_op(operation(), profile_phase=replace_op(operation()).profile_phase.__class__("prefill"))
    err = raises_kind("unsupported_operation", lambda: _with_provider(operation_fingerprint=other.fingerprint()))
    assert err.to_dict()["operation_id"] == "operation.main"


@pytest.mark.parametrize(
    "changes",
    [
        {"device_id": DeviceId("device.other")},
        {"version": ContractVersion(2, 0)},
        {"capabilities": frozenset({COMPUTE, OTHER})},
        {"capabilities": frozenset()},
        {"operation_id": OperationId("operation.other")},
    ],
)
def test_provider_checks_unsupported(changes: dict[str, Any]) -> None:
    raises_kind("unsupported_operation", lambda: _with_provider(**changes))


def test_provider_lower_minor_rejected() -> None:
    device, ops, providers, engines = _parts()
    op = replace_op(
        ops[0], version=ContractVersion(1, 2), provider=ProviderRequirement(ContractVersion(1, 1), frozenset({COMPUTE}))
    )
    row = replace_provider(providers[OP_ID][0], operation_fingerprint=op.fingerprint(), version=ContractVersion(1, 1))
    raises_kind("unsupported_operation", lambda: CapabilityCatalog(device, [op], {OP_ID: [row]}, engines))
    ok = replace_provider(row, version=ContractVersion(1, 2))
    CapabilityCatalog(device, [op], {OP_ID: [ok]}, engines)


def test_operation_capability_checked_before_providers() -> None:
    device, ops, providers, engines = _parts()
    op = replace_op(ops[0], provider=ProviderRequirement(ContractVersion(1, 0), frozenset({COMPUTE, OTHER})))
    err = raises_kind("unsupported_operation", lambda: CapabilityCatalog(device, [op], providers, engines))
    assert "operation requires" in err.message


def test_duplicate_provider_ids() -> None:
    device, ops, providers, engines = _parts()
    row = providers[OP_ID][0]
    raises_kind(
        "unsupported_operation",
        lambda: CapabilityCatalog(
            device, ops, {OP_ID: [row, replace_provider(row, version=ContractVersion(1, 1))]}, engines
        ),
    )
    second = replace_op(ops[0], id=OperationId("operation.second"))
    row2 = replace_provider(row, operation_id=second.id, operation_fingerprint=second.fingerprint())
    CapabilityCatalog(device, [*ops, second], {OP_ID: [row], second.id: [row2]}, engines)


def test_engine_checks() -> None:
    device, ops, providers, engines = _parts()
    for changes in ({"device_id": DeviceId("device.other")}, {"capabilities": frozenset({COMPUTE, OTHER})}):
        bad = dataclasses.replace(engines[0], **changes)
        raises_kind("invalid_execution_plan", lambda b=bad: CapabilityCatalog(device, ops, providers, [b]))


def _chain(length: int, head_first: bool) -> list[OperationDescriptor]:
    """``length`` operations where each references the next; ids sort head-first or tail-first."""
    from reference.catalog import OracleSpec

    names = [f"operation.c{(i if head_first else length - 1 - i):03d}" for i in range(length)]
    ops = []
    for i, name in enumerate(names):
        oracle = (
            OracleSpec.reference_operation(OperationId(names[i + 1]), ContractVersion(1, 0))
            if i + 1 < length
            else OracleSpec.exact()
        )
        ops.append(replace_op(operation(), id=OperationId(name), oracle=oracle))
    return ops


def test_reference_oracle_depth() -> None:
    raises_kind("invalid_execution_plan", lambda: catalog_from_operations(_chain(65, head_first=True)))
    catalog_from_operations(_chain(65, head_first=False))
    catalog_from_operations(_chain(64, head_first=True))
    catalog_from_operations(_chain(64, head_first=False))


def test_reference_oracle_structure() -> None:
    from reference.catalog import OracleSpec

    target = replace_op(operation(), id=OperationId("operation.target"))

    def ref(to: str, version: ContractVersion | None = None, **changes: Any) -> OperationDescriptor:
        oracle = OracleSpec.reference_operation(OperationId(to), version or ContractVersion(1, 0))
        return replace_op(operation(), oracle=oracle, **changes)

    catalog_from_operations([ref("operation.target"), target])
    raises_kind("invalid_execution_plan", lambda: catalog_from_operations([ref("operation.missing"), target]))
    raises_kind(
        "invalid_execution_plan",
        lambda: catalog_from_operations([ref("operation.target", ContractVersion(1, 1)), target]),
    )
    raises_kind(
        "invalid_execution_plan",
        lambda: catalog_from_operations([ref("operation.target", inputs=operation().inputs[:2]), target]),
    )
    raises_kind("invalid_execution_plan", lambda: catalog_from_operations([ref("operation.main")]))
    a = ref("operation.target")
    b = replace_op(target, oracle=OracleSpec.reference_operation(OperationId("operation.main"), ContractVersion(1, 0)))
    raises_kind("invalid_execution_plan", lambda: catalog_from_operations([a, b]))


def _many_operations(count: int) -> CapabilityCatalog:
    base = operation()
    ops = [replace_op(base, id=OperationId(f"operation.n{i:05d}")) for i in range(count)]
    return catalog_from_operations(ops)


@pytest.mark.slow
def test_operation_row_limit() -> None:
    assert len(_many_operations(4096).operations) == 4096
    raises_kind("invalid_execution_plan", lambda: _many_operations(4097))


@pytest.mark.slow
def test_provider_and_engine_row_limits() -> None:
    device, ops, providers, engines = _parts()
    row = providers[OP_ID][0]
    rows = [replace_provider(row, provider_id=ProviderId(f"provider.p{i:05d}")) for i in range(16385)]
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, ops, {OP_ID: rows}, engines))
    assert len(CapabilityCatalog(device, ops, {OP_ID: rows[:16384]}, engines).providers[OP_ID]) == 16384
    many = [dataclasses.replace(engines[0], provider_id=ProviderId(f"provider.e{i:05d}")) for i in range(4097)]
    raises_kind("invalid_execution_plan", lambda: CapabilityCatalog(device, ops, providers, many))
    CapabilityCatalog(device, ops, providers, many[:4096])


def test_bindings_need_not_cover_ordinals_or_device_profiles() -> None:
    device, ops, providers, engines = _parts()
    row = providers[OP_ID][0]
    partial = replace_provider(row, dynamic_storage_bindings=row.dynamic_storage_bindings[:1])
    CapabilityCatalog(device, ops, {OP_ID: [partial]}, engines)
    catalog_with_secondary_provider_storage(contiguous_storage_requirement(), paged_storage_requirement(64))


@given(st.permutations([0, 1]))
def test_provider_order_irrelevant(order: list[int]) -> None:
    base = catalog_with_secondary_provider()
    device, ops, engines = base.device, list(base.operations.values()), list(base.engine_providers.values())
    rows = [base.providers[OP_ID][i] for i in order]
    rebuilt = CapabilityCatalog(device, ops, {OP_ID: rows}, engines)
    assert rebuilt == base and rebuilt.fingerprint() == base.fingerprint()
    wire = base.to_wire()
    wire["providers"]["operation.main"] = [wire["providers"]["operation.main"][i] for i in order]
    assert CapabilityCatalog.from_wire(wire).fingerprint() == base.fingerprint()


def test_wire_round_trip_and_defaults() -> None:
    base = catalog()
    assert CapabilityCatalog.from_wire(base.to_wire()) == base
    with pytest.raises(Serialization):
        CapabilityCatalog.from_wire({**base.to_wire(), "extra": 1})
    wire = base.to_wire()
    del wire["weight_materializers"]
    assert CapabilityCatalog.from_wire(wire).fingerprint() == base.fingerprint()
    with pytest.raises(Serialization):
        CapabilityCatalog.from_wire({**base.to_wire(), "weight_materializers": None})
    bad = base.to_wire()
    bad["operations"] = {"operation.alias": bad["operations"]["operation.main"]}
    bad["providers"] = {"operation.alias": bad["providers"]["operation.main"]}
    with pytest.raises(Serialization):
        CapabilityCatalog.from_wire(bad)
    bad = base.to_wire()
    bad["engine_providers"] = {"provider.engine.alias": bad["engine_providers"]["provider.engine.reference"]}
    with pytest.raises(Serialization):
        CapabilityCatalog.from_wire(bad)


def _fingerprint_variants() -> dict[str, CapabilityCatalog]:
    device, ops, providers, engines = _parts()
    row = providers[OP_ID][0]

    def with_row(**changes: Any) -> CapabilityCatalog:
        return CapabilityCatalog(device, ops, {OP_ID: [replace_provider(row, **changes)]}, engines)

    approx = WeightMaterializerDescriptor.new(
        WeightMaterializerId("weight-materializer.approx"),
        ContractVersion(1, 0),
        sha("3"),
        WeightMaterializationFidelity.APPROXIMATE,
        frozenset(),
    )
    base = catalog()
    return {
        "provider-impl": with_row(provider_implementation_fingerprint=sha("0")),
        "estimator-id": with_row(resource_estimator_id="resource-estimator.other"),
        "estimator-fp": with_row(resource_estimator_implementation_fingerprint=sha("1")),
        "binding": with_row(dynamic_storage_bindings=row.dynamic_storage_bindings[:2]),
        "device-ordinal": CapabilityCatalog(dataclasses.replace(device, ordinal=1), ops, providers, engines),
        "device-runtime": CapabilityCatalog(
            dataclasses.replace(device, runtime_implementation_fingerprint=sha("c")), ops, providers, engines
        ),
        "engine": CapabilityCatalog(
            device, ops, providers, [dataclasses.replace(engines[0], implementation_fingerprint=sha("9"))]
        ),
        "materializers": base.with_weight_materializer_descriptors({**base.weight_materializers, approx.id: approx}),
    }


@pytest.mark.parametrize("name", list(_fingerprint_variants()))
def test_fingerprint_changes_with_material(name: str) -> None:
    assert _fingerprint_variants()[name].fingerprint() != catalog().fingerprint()


def _identity() -> WeightMaterializerDescriptor:
    return WeightMaterializerDescriptor.identity()


def _mat(name: str, **changes: Any) -> WeightMaterializerDescriptor:
    base = WeightMaterializerDescriptor(
        WeightMaterializerId(name), ContractVersion(1, 0), sha("4"), WeightMaterializationFidelity.EXACT, frozenset()
    )
    return dataclasses.replace(base, **changes)


def test_materializer_map_rules() -> None:
    base = catalog()
    ident = _identity()
    good = {ident.id: ident, WeightMaterializerId("weight-materializer.x"): _mat("weight-materializer.x")}
    assert set(base.with_weight_materializer_descriptors(good).weight_materializers) == set(good)
    too_many = {ident.id: ident} | {WeightMaterializerId(f"wm.{i:02d}"): _mat(f"wm.{i:02d}") for i in range(64)}
    cases = [
        {},
        too_many,
        {ident.id: ident, WeightMaterializerId("wm.key"): _mat("wm.other")},
        {ident.id: ident, WeightMaterializerId("wm.a"): _mat("wm.a", version=ContractVersion(0, 1))},
        {ident.id: ident, WeightMaterializerId("wm.a"): _mat("wm.a", implementation_fingerprint="X" * 64)},
        {ident.id: ident, WeightMaterializerId("wm.a"): _mat("wm.a", required_capabilities=frozenset({OTHER}))},
        {WeightMaterializerId("wm.a"): _mat("wm.a")},
        {ident.id: dataclasses.replace(ident, implementation_fingerprint=sha("0"))},
        {ident.id: dataclasses.replace(ident, version=ContractVersion(2, 1))},
        {ident.id: dataclasses.replace(ident, fidelity=WeightMaterializationFidelity.APPROXIMATE)},
        {ident.id: dataclasses.replace(ident, required_capabilities=frozenset({COMPUTE}))},
    ]
    for materializers in cases:
        raises_kind("invalid_execution_plan", lambda m=materializers: base.with_weight_materializer_descriptors(m))
    exactly_64 = dict(list(too_many.items())[:64])
    assert len(base.with_weight_materializer_descriptors(exactly_64).weight_materializers) == 64


def test_materializer_map_replaces_not_merges() -> None:
    base = catalog()
    ident = _identity()
    first = base.with_weight_materializer_descriptors({ident.id: ident, WeightMaterializerId("wm.a"): _mat("wm.a")})
    second = first.with_weight_materializer_descriptors({ident.id: ident, WeightMaterializerId("wm.b"): _mat("wm.b")})
    assert [k.value for k in second.weight_materializers] == ["weight-materializer.identity", "wm.b"]
    assert second.operations == base.operations
    wire = second.to_wire()
    assert CapabilityCatalog.from_wire(wire) == second
    wire["weight_materializers"]["wm.b"]["version"] = {"major": 0, "minor": 0}
    with pytest.raises(Serialization):
        CapabilityCatalog.from_wire(wire)
    assert IDENTITY_WEIGHT_MATERIALIZER_ID in base.to_wire()["weight_materializers"]


def test_lookups() -> None:
    base = catalog()
    missing = OperationId("operation.none")
    err = raises_kind("unsupported_operation", lambda: base.operation(missing))
    assert err.to_dict()["node_id"] is None
    raises_kind("unsupported_operation", lambda: base.providers_for(missing))
    err = raises_kind("unsupported_operation", lambda: base.operation_for_node(NodeId("node.main"), missing))
    assert err.to_dict()["node_id"] == "node.main"
    err = raises_kind("unsupported_operation", lambda: base.providers_for_node(NodeId("node.x"), missing))
    assert err.to_dict()["node_id"] == "node.x"
    assert base.operation_for_node(NodeId("node.main"), OP_ID) == operation()
    engine_id = ProviderId("provider.engine.reference")
    assert base.engine_provider(engine_id, ContractVersion(1, 0)).provider_id == engine_id
    raises_kind(
        "invalid_execution_plan", lambda: base.engine_provider(ProviderId("provider.none"), ContractVersion(1, 0))
    )
    raises_kind("invalid_execution_plan", lambda: base.engine_provider(engine_id, ContractVersion(1, 1)))
    raises_kind("invalid_execution_plan", lambda: base.engine_provider(engine_id, ContractVersion(2, 0)))
    assert base.weight_materializer(WeightMaterializerId(IDENTITY_WEIGHT_MATERIALIZER_ID)) == _identity()
    raises_kind("invalid_execution_plan", lambda: base.weight_materializer(WeightMaterializerId("wm.none")))


def test_construction_is_order_independent_for_operations() -> None:
    second = replace_op(operation(), id=OperationId("operation.aaa"))
    forward = catalog_from_operations([operation(), second])
    device, ops, providers, engines = (
        forward.device,
        list(forward.operations.values()),
        dict(forward.providers),
        list(forward.engine_providers.values()),
    )
    backward = CapabilityCatalog(device, list(reversed(ops)), providers, engines)
    assert backward.fingerprint() == forward.fingerprint()
    assert list(forward.to_wire()["operations"]) == ["operation.aaa", "operation.main"]
    _ = seed_device
