"""OperationDescriptor validate/fingerprint/wire (spec 03 §5; properties 5-8)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import canonical_bytes, direct_bytes, sha256_hex
from reference.catalog import (
    AttributeConstraint,
    AttributeSchema,
    AttributeSpec,
    CanonicalRational,
    ElementType,
    MayAlias,
    MustAlias,
    OperationDescriptor,
    OracleSpec,
    ProfilePhase,
    ProviderRequirement,
    ResourcePresenceRequirement,
    ResourceRequirements,
    TensorAccess,
)
from reference.errors import Serialization
from reference.ids import AttributeId, CapabilityId, OperationId
from reference.versions import ContractVersion
from seeds.catalogs import operation

from .helpers import contract, raises_kind, replace_op

P = ResourcePresenceRequirement


def _resources(align: int) -> ResourceRequirements:
    return ResourceRequirements(align, P.REQUIRED, P.FORBIDDEN, P.REQUIRED)


BAD = {
    "major0": {"version": ContractVersion(0, 1), "provider": ProviderRequirement(ContractVersion(0, 1), frozenset())},
    "no-outputs": {"outputs": ()},
    "write-only-input": {"inputs": (contract(access=TensorAccess.WRITE),)},
    "aliased-input": {"inputs": (contract(alias=MayAlias(0)),)},
    "read-only-output": {"outputs": (contract(access=TensorAccess.READ),)},
    "alias-out-of-range": {"outputs": (contract(access=TensorAccess.WRITE, alias=MustAlias(3)),)},
    "align0": {"resources": _resources(0)},
    "align3": {"resources": _resources(3)},
    "align24": {"resources": _resources(24)},
    "negative-tolerance": {"oracle": OracleSpec.absolute_tolerance(CanonicalRational(-1, 10))},
    "bool-tolerance": {
        "oracle": OracleSpec.relative_tolerance(CanonicalRational(1, 10)),
        "outputs": (contract(ElementType.BOOL, TensorAccess.WRITE),),
    },
    "provider-major0": {"provider": ProviderRequirement(ContractVersion(0, 0), frozenset())},
    "major-mismatch": {"provider": ProviderRequirement(ContractVersion(2, 0), frozenset())},
}


@pytest.mark.parametrize("name", list(BAD))
def test_validate_rejections(name: str) -> None:
    bad = replace_op(operation(), **BAD[name])
    raises_kind("invalid_execution_plan", bad.validate)
    raises_kind("invalid_execution_plan", bad.fingerprint)


def test_validate_acceptances() -> None:
    op = operation()
    for changes in (
        {"inputs": ()},
        {"inputs": (contract(access=TensorAccess.READ_WRITE),)},
        {"outputs": (contract(access=TensorAccess.READ_WRITE, alias=MustAlias(2)),)},
        {"oracle": OracleSpec.absolute_tolerance(CanonicalRational(0, 5))},
        {"oracle": OracleSpec.operation_defined(), "outputs": (contract(ElementType.BOOL, TensorAccess.WRITE),)},
        {"version": ContractVersion(1, 9), "provider": ProviderRequirement(ContractVersion(1, 0), frozenset())},
        {"resources": ResourceRequirements(2**63, P.OPTIONAL, P.OPTIONAL, P.OPTIONAL)},
    ):
        replace_op(op, **changes).validate()


def test_negative_tolerance_wins_over_bool_output() -> None:
    bad = replace_op(
        operation(),
        oracle=OracleSpec.absolute_tolerance(CanonicalRational(-1, 2)),
        outputs=(contract(ElementType.BOOL, TensorAccess.WRITE),),
    )
    err = raises_kind("invalid_execution_plan", bad.validate)
    assert "negative" in err.message


def test_fingerprint_uses_struct_order_not_sorted_keys() -> None:
    op = operation()
    assert op.fingerprint() == sha256_hex(direct_bytes(op.to_wire()))
    assert op.fingerprint() != sha256_hex(canonical_bytes(op.to_wire()))
    assert list(op.to_wire()) == [
        "id",
        "version",
        "inputs",
        "outputs",
        "attributes",
        "resources",
        "oracle",
        "provider",
        "profile_phase",
    ]


MUTATIONS: dict[str, dict[str, Any]] = {
    "id": {"id": OperationId("operation.other")},
    "version": {"version": ContractVersion(1, 1)},
    "inputs": {"inputs": operation().inputs[:2]},
    "outputs": {"outputs": (contract(ElementType.F16, TensorAccess.WRITE),)},
    "attributes": {
        "attributes": AttributeSchema({AttributeId("a"): AttributeSpec("bool", False, AttributeConstraint.none())})
    },
    "resources": {"resources": _resources(32)},
    "oracle": {"oracle": OracleSpec.operation_defined()},
    "provider": {"provider": ProviderRequirement(ContractVersion(1, 0), frozenset({CapabilityId("capability.other")}))},
    "profile_phase": {"profile_phase": ProfilePhase.PREFILL},
}


@pytest.mark.parametrize("field", list(MUTATIONS))
def test_every_field_is_hash_material(field: str) -> None:
    assert replace_op(operation(), **MUTATIONS[field]).fingerprint() != operation().fingerprint()


def test_wire_round_trip_and_unknown_keys() -> None:
    wire = operation().to_wire()
    assert OperationDescriptor.from_wire(wire) == operation()
    extra = {**wire, "future_field": [1, 2]}
    assert OperationDescriptor.from_wire(extra).fingerprint() == operation().fingerprint()
    for path in (("resources",), ("inputs", 0)):
        bad = copy.deepcopy(wire)
        target: Any = bad
        for key in path:
            target = target[key]
        target["unknown"] = 1
        with pytest.raises(Serialization):
            OperationDescriptor.from_wire(bad)


def test_decode_does_not_validate() -> None:
    wire = operation().to_wire()
    wire["outputs"] = []
    decoded = OperationDescriptor.from_wire(wire)
    raises_kind("invalid_execution_plan", decoded.validate)


@given(st.sampled_from([16.0, -16, True, 2**64, "16"]))
def test_u64_fields_reject_non_integers(bad: object) -> None:
    wire = operation().to_wire()
    wire["resources"]["minimum_value_alignment_bytes"] = bad
    with pytest.raises(Serialization):
        OperationDescriptor.from_wire(wire)


@pytest.mark.parametrize("bad", [1.0, -1, 65536, False])
def test_u16_version_fields_reject(bad: object) -> None:
    wire = operation().to_wire()
    wire["version"]["minor"] = bad
    with pytest.raises(Serialization):
        OperationDescriptor.from_wire(wire)


@pytest.mark.parametrize(
    "oracle",
    [
        OracleSpec.exact(),
        OracleSpec.operation_defined(),
        OracleSpec.absolute_tolerance(CanonicalRational(1, 8)),
        OracleSpec.relative_tolerance(CanonicalRational(3, 7)),
        OracleSpec.reference_operation(OperationId("operation.ref"), ContractVersion(1, 2)),
    ],
)
def test_oracle_wire_round_trip(oracle: OracleSpec) -> None:
    assert OracleSpec.from_wire(oracle.to_wire()) == oracle


def test_validate_attributes_delegates() -> None:
    from reference.catalog import SemanticValue

    op = replace_op(
        operation(),
        attributes=AttributeSchema(
            {AttributeId("a"): AttributeSpec("bool", True, AttributeConstraint.bool_equals(True))}
        ),
    )
    op.validate_attributes({AttributeId("a"): SemanticValue("bool", True)})
    raises_kind("invalid_execution_plan", lambda: op.validate_attributes({}))
