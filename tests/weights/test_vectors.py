"""Identity materializer vectors (01 §3.5, 03 §11.6, 05 §10.2) and the identity weight plan."""

from __future__ import annotations

import hashlib

from reference.canonical import canonical_bytes, direct_fingerprint
from reference.weights import (
    ExecutionWeightPlan,
    IdentityWeightMaterializer,
    TrustedExecutionWeightPlan,
    WeightMaterializationFidelity,
    WeightMaterializerDescriptor,
)
from tests.weights.helpers import family, split

IMPLEMENTATION_FP = "8b4938b533e7cdc431f40951c3a532b4426cc526a65d22fdacfd0fe5bf02caae"
DESCRIPTOR_FP = "074500d1df7758b1e66cb360eb8c209524049c19d2d7e32a09eb4981be870304"


def test_identity_implementation_fingerprint() -> None:
    material = (
        b'{"contract":"execution-weight-plan.identity.v2","id":"weight-materializer.identity",'
        b'"version":{"major":2,"minor":0}}'
    )
    assert hashlib.sha256(material).hexdigest() == IMPLEMENTATION_FP
    assert WeightMaterializerDescriptor.identity().implementation_fingerprint == IMPLEMENTATION_FP


def test_identity_descriptor_fingerprint_and_bytes() -> None:
    identity = WeightMaterializerDescriptor.identity()
    expected = (
        '{"fidelity":"exact","id":"weight-materializer.identity","implementation_fingerprint":"'
        + IMPLEMENTATION_FP
        + '","required_capabilities":[],"version":{"major":2,"minor":0}}'
    ).encode()
    assert canonical_bytes(identity.to_wire()) == expected
    assert identity.fingerprint() == DESCRIPTOR_FP == hashlib.sha256(expected).hexdigest()
    assert identity.fidelity is WeightMaterializationFidelity.EXACT
    assert IdentityWeightMaterializer().descriptor() == identity


def test_identity_plan_provenance_and_schema() -> None:
    for fam in (family(), split()):
        plan = ExecutionWeightPlan.identity(fam)
        assert plan.materializer_id().value == "weight-materializer.identity"
        assert plan.materializer_version().to_wire() == {"major": 2, "minor": 0}
        assert plan.materializer_implementation_fingerprint() == IMPLEMENTATION_FP
        assert plan.schema() == fam.weight_schema
        assert plan.source_schema_fingerprint() == fam.weight_schema.fingerprint()
        assert dict(plan.component_sources()) == {c.id: (c.id,) for c in fam.weight_schema.components}
        assert TrustedExecutionWeightPlan.identity(fam).plan() == plan


def test_source_schema_fingerprint_is_direct_over_the_normalized_schema() -> None:
    """Decision D-05W-1: the model layer's WeightSchema fingerprint (declaration order, already normalized)."""
    schema = split().weight_schema
    assert schema == schema.normalize()
    assert ExecutionWeightPlan.identity(split()).source_schema_fingerprint() == direct_fingerprint(schema.to_wire())


def test_identity_plan_wire_bytes_of_the_seed_family() -> None:
    plan = ExecutionWeightPlan.identity(family())
    wire = plan.to_json_bytes()
    assert wire.startswith(b'{"source_schema_fingerprint":"')
    assert (
        b'"materializer_id":"weight-materializer.identity","materializer_version":{"major":2,"minor":0},'
        b'"materializer_implementation_fingerprint":"' + IMPLEMENTATION_FP.encode() + b'",'
        b'"component_sources":{"weight.component":["weight.component"]},"schema":{"format_id":"weight-format.dense"'
    ) in wire
    assert plan.fingerprint() == hashlib.sha256(canonical_bytes(plan.to_wire())).hexdigest()
