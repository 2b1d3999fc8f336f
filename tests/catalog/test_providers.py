"""Execution semantics, provider, engine and device descriptors (spec 03 §7-10; properties 12-16)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.catalog import (
    DeviceClass,
    DeviceDescriptor,
    DynamicStorageRequirement,
    EngineProviderDescriptor,
    OperationProviderDescriptor,
    ProviderExecutionSemantics,
    ProviderStorageBindingRequirement,
    ResolvedValueRole,
)
from reference.errors import Serialization
from reference.ids import CapabilityId, DeviceId, ProviderId
from reference.versions import ContractVersion
from seeds.catalogs import catalog, paged_storage_requirement, seed_device, sha

from .helpers import raises_kind, replace_provider

REPLAY = ProviderExecutionSemantics.bitwise_eager_and_replay()


def _provider() -> OperationProviderDescriptor:
    return catalog().providers_for(next(iter(catalog().operations)))[0]


def test_semantics_wire_round_trip() -> None:
    for value in (REPLAY, ProviderExecutionSemantics.bitwise_eager_only()):
        assert ProviderExecutionSemantics.from_wire(value.to_wire()) == value
        assert list(value.to_wire()) == [
            "contract_version",
            "contract_fingerprint",
            "repeatability",
            "replay_equivalence",
        ]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda w: w.update(contract_fingerprint=ProviderExecutionSemantics.bitwise_eager_only().contract_fingerprint),
        lambda w: w.update(contract_fingerprint=w["contract_fingerprint"].upper()),
        lambda w: w.update(contract_fingerprint=w["contract_fingerprint"][:63]),
        lambda w: w.update(contract_version={"major": 1, "minor": 1}),
        lambda w: w.update(contract_version={"major": 2, "minor": 0}),
        lambda w: w.update(extra=1),
        lambda w: w.pop("repeatability"),
        lambda w: w.update(replay_equivalence="ineligible"),
    ],
)
def test_semantics_tampering_rejected(mutate: Any) -> None:
    wire = REPLAY.to_wire()
    mutate(wire)
    with pytest.raises(Serialization):
        ProviderExecutionSemantics.from_wire(wire)


NON_CANONICAL = ["a" * 63, "a" * 65, "A" * 64, "g" * 64, "a" * 63 + "\u0661"]


@pytest.mark.parametrize(
    "changes",
    [
        {"version": ContractVersion(0, 5)},
        {"resource_estimator_version": ContractVersion(0, 1)},
        {"dynamic_storage_bindings": ()},
    ]
    + [{"operation_fingerprint": bad} for bad in NON_CANONICAL]
    + [{"provider_implementation_fingerprint": bad} for bad in NON_CANONICAL]
    + [{"resource_estimator_implementation_fingerprint": bad} for bad in NON_CANONICAL]
    + [{"resource_estimator_id": bad} for bad in ["", "e" * 161, "resource estimator", "estimator@1", "é"]],
)
def test_provider_constructor_rejections(changes: dict[str, Any]) -> None:
    raises_kind("invalid_execution_plan", lambda: replace_provider(_provider(), **changes))


def test_estimator_id_edges_and_duplicate_slot() -> None:
    replace_provider(_provider(), resource_estimator_id="e" * 160)
    replace_provider(_provider(), resource_estimator_id="a-Z_0.9:/x")
    dup = (*_provider().dynamic_storage_bindings, _provider().dynamic_storage_bindings[0])
    raises_kind("invalid_execution_plan", lambda: replace_provider(_provider(), dynamic_storage_bindings=dup))
    same_slot_other_storage = (
        ProviderStorageBindingRequirement(ResolvedValueRole.INPUT, 0, DynamicStorageRequirement.contiguous()),
        ProviderStorageBindingRequirement(ResolvedValueRole.INPUT, 0, paged_storage_requirement(64)),
    )
    raises_kind(
        "invalid_execution_plan",
        lambda: replace_provider(_provider(), dynamic_storage_bindings=same_slot_other_storage),
    )


@given(st.permutations(range(4)))
def test_provider_binding_order_independent(order: list[int]) -> None:
    base = _provider()
    shuffled = tuple(base.dynamic_storage_bindings[i] for i in order)
    rebuilt = replace_provider(base, dynamic_storage_bindings=shuffled)
    assert rebuilt == base
    assert rebuilt.to_wire() == base.to_wire()


def test_provider_wire() -> None:
    base = _provider()
    wire = base.to_wire()
    assert OperationProviderDescriptor.from_wire(wire) == base
    unsorted = copy.deepcopy(wire)
    unsorted["dynamic_storage_bindings"].reverse()
    with pytest.raises(Serialization):
        OperationProviderDescriptor.from_wire(unsorted)
    for extra in ({"extra": 1}, {"checkpoint": None}, {"checkpoint": "unsupported"}):
        with pytest.raises(Serialization):
            OperationProviderDescriptor.from_wire({**wire, **extra})
    with pytest.raises(Serialization):
        OperationProviderDescriptor.from_wire({**wire, "resource_estimator_id": "bad id"})
    assert "checkpoint" not in wire


def test_dynamic_storage_for() -> None:
    base = _provider()
    assert base.dynamic_storage_for(ResolvedValueRole.OUTPUT, 0) == DynamicStorageRequirement.contiguous()
    assert base.dynamic_storage_for(ResolvedValueRole.OUTPUT, 1) is None
    assert base.dynamic_storage_for(ResolvedValueRole.INPUT, 3) is None


def _engine(**changes: Any) -> EngineProviderDescriptor:
    args: dict[str, Any] = {
        "provider_id": ProviderId("provider.engine.x"),
        "contract_version": ContractVersion(1, 0),
        "implementation_fingerprint": sha("8"),
        "device_id": DeviceId("device.reference.0"),
        "capabilities": frozenset({CapabilityId("capability.compute")}),
    }
    args.update(changes)
    return EngineProviderDescriptor(**args)


def test_engine_rules() -> None:
    engine = _engine()
    assert EngineProviderDescriptor.from_wire(engine.to_wire()) == engine
    raises_kind("invalid_execution_plan", lambda: _engine(contract_version=ContractVersion(0, 1)))
    for bad in NON_CANONICAL:
        raises_kind("invalid_execution_plan", lambda b=bad: _engine(implementation_fingerprint=b))
    with pytest.raises(Serialization):
        EngineProviderDescriptor.from_wire({**engine.to_wire(), "extra": 1})
    with pytest.raises(Serialization):
        EngineProviderDescriptor.from_wire({**engine.to_wire(), "implementation_fingerprint": "x"})


def test_device_rules() -> None:
    device = seed_device()
    device.validate()
    import dataclasses

    for changes in (
        {"total_memory_bytes": 0},
        {"dynamic_storage_profiles": frozenset()},
        {"runtime_implementation_fingerprint": "D" * 64},
    ):
        raises_kind("invalid_execution_plan", dataclasses.replace(device, **changes).validate)
    for changes in ({"device_class": DeviceClass.HOST}, {"ordinal": 2**32 - 1}, {"capabilities": frozenset()}):
        dataclasses.replace(device, **changes).validate()
    wire = device.to_wire()
    assert list(wire)[:2] == ["id", "class"]
    assert DeviceDescriptor.from_wire({**wire, "unknown": 1}) == device
    wire["dynamic_storage_profiles"] = wire["dynamic_storage_profiles"] * 2
    assert DeviceDescriptor.from_wire(wire) == device
    bad = device.to_wire()
    bad["total_memory_bytes"] = 0
    raises_kind("invalid_execution_plan", DeviceDescriptor.from_wire(bad).validate)
    bad["dynamic_storage_profiles"] = [{"allocator": {"fixed_block_arena": {"block_bytes": 3}}, "view": "contiguous"}]
    with pytest.raises(Serialization):
        DeviceDescriptor.from_wire(bad)
