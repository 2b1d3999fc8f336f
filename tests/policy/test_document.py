"""Declarative policy documents and the policy JSON schemas."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from hypothesis import given

import schemas
from reference.catalog.storage import DynamicStorageProfile
from reference.documents.custom_policy import AdversarialRuntimePolicy, DeclaredRuntimePolicy, ReportedPolicyValues
from reference.documents.policy import policy_from_document, policy_to_document, reported_from_wire, reported_to_wire
from reference.errors import InvalidExecutionPlan, InvalidResolvedModelPlan, Serialization, UnknownModelFamily
from reference.policy import AttentionExecutionPolicy, ResolvedRuntimePolicy, canonical_runtime_policy_fingerprint
from reference.policy.trust import policy_for_resolution
from seeds.policies import adversarial_policy, policy
from tests.policy.helpers import build, expected_failure
from tests.policy.strategies import LINEAR, policy_fields, reusable_wires
from tests.policy.test_custom_and_trust import reported

DOC = "policy/document.json"


def round_trip(doc: dict[str, Any]) -> Any:
    schemas.validate(DOC, doc)
    return policy_from_document(doc)


def test_resolved_document_round_trip() -> None:
    doc = policy_to_document(policy(4096))
    assert doc == {"kind": "resolved", "wire": policy(4096).to_wire()}
    assert round_trip(doc) == policy(4096)
    schemas.validate("policy/resolved_runtime_policy.json", doc["wire"])


@given(policy_fields(valid=True))
def test_generated_policies_validate_against_schemas(fields: dict[str, Any]) -> None:
    p = build(fields)
    doc = policy_to_document(p)
    assert round_trip(doc) == p
    schemas.validate("policy/resolved_runtime_policy.json", p.to_wire())


@given(reusable_wires())
def test_reusable_wires_match_component_schema(wire: dict[str, Any]) -> None:
    ref = {"$ref": "urn:vnext-conformance:schema:policy/components.json#/$defs/reusable_execution_policy"}
    validator = jsonschema.Draft202012Validator(ref, registry=schemas.registry())
    validator.validate(wire)
    assert not validator.is_valid({**wire, "maximum_reusable_lanes": 0})
    assert not validator.is_valid({**wire, "buckets": []})


def test_declared_document_matches_schema() -> None:
    doc = policy_to_document(DeclaredRuntimePolicy(None, reported()))
    schemas.validate(DOC, doc)
    assert doc["serialized"] is None


@given(policy_fields())
def test_resolved_fields_document_raises_contract_errors(fields: dict[str, Any]) -> None:
    doc = {"kind": "resolved_fields", "fields": fields}
    schemas.validate(DOC, doc)
    expected = expected_failure(fields)
    if expected is None:
        assert policy_from_document(doc) == build(fields)
    else:
        with pytest.raises(InvalidResolvedModelPlan) as info:
            policy_from_document(doc)
        assert info.value.field == expected


def test_resolved_fields_document_reusable_row13() -> None:
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    fields["reusable_execution"] = {"maximum_reusable_lanes": 1, "buckets": []}
    # An empty bucket list is refused by the reusable decoder (a Serialization at the document boundary).
    with pytest.raises(Serialization):
        policy_from_document({"kind": "resolved_fields", "fields": fields})
    del fields["reusable_execution"]
    assert policy_from_document({"kind": "resolved_fields", "fields": fields}) == policy(4096)


def test_adversarial_document() -> None:
    p = adversarial_policy(0, 4096)
    doc = policy_to_document(p)
    assert doc == {"kind": "adversarial", "serde": p.to_wire()}
    back = round_trip(doc)
    assert isinstance(back, AdversarialRuntimePolicy) and back == p
    schemas.validate("policy/adversarial_runtime_policy.json", p.to_wire())
    with pytest.raises(InvalidExecutionPlan):
        policy_for_resolution(back)


def test_declared_document_disagreeing_values_round_trip() -> None:
    declared = DeclaredRuntimePolicy(
        {"maximum_active_sequences": 3, "note": "serialized says 3"},
        reported(maximum_active_sequences=0, attention_execution_policy=AttentionExecutionPolicy.AUTO),
        UnknownModelFamily(family_id="family.none"),
    )
    doc = policy_to_document(declared)
    back = round_trip(doc)
    assert back == declared
    assert canonical_runtime_policy_fingerprint(DeclaredRuntimePolicy(back.to_wire(), back.reported)) == (
        canonical_runtime_policy_fingerprint(DeclaredRuntimePolicy(declared.to_wire(), declared.reported))
    )
    with pytest.raises(UnknownModelFamily):
        back.validate()


def test_any_custom_policy_is_captured_as_declared() -> None:
    class Custom(AdversarialRuntimePolicy):
        __slots__ = ()

        def memory_reserve_bytes(self) -> int:
            return 7

    profile = DynamicStorageProfile.linear_contiguous()
    doc = policy_to_document(Custom(2, 9, (profile,)))
    assert doc["kind"] == "declared"
    assert doc["serialized"] == {
        "maximum_active_sequences": 2,
        "maximum_scheduled_tokens": 9,
        "dynamic_storage_profile_order": [LINEAR],
    }
    assert doc["reported"]["memory_reserve_bytes"] == 7
    assert doc["validate_error"] is None
    back = round_trip(doc)
    assert back.memory_reserve_bytes() == 7
    assert canonical_runtime_policy_fingerprint(back) == canonical_runtime_policy_fingerprint(Custom(2, 9, (profile,)))


def test_reported_values_wire_round_trip() -> None:
    values = reported(dynamic_storage_profile_order=(DynamicStorageProfile.paged(16), DynamicStorageProfile.paged(16)))
    assert reported_from_wire(reported_to_wire(values)) == values
    assert isinstance(values, ReportedPolicyValues)


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"kind": "mystery"},
        {"kind": "resolved"},
        {"kind": "resolved", "wire": {}, "extra": 1},
        {"kind": "adversarial", "serde": {"maximum_active_sequences": -1}},
        {"kind": "declared", "serialized": {}, "reported": {}, "validate_error": None},
        {"kind": "declared", "serialized": {}, "validate_error": {"kind": "nope"}},
    ],
)
def test_malformed_documents_rejected(doc: Any) -> None:
    with pytest.raises(Serialization):
        policy_from_document(doc)
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate(DOC, doc)


def test_declared_document_bad_error_object() -> None:
    doc = policy_to_document(DeclaredRuntimePolicy({}, reported()))
    doc["validate_error"] = {"kind": "nope"}
    with pytest.raises(Serialization):
        policy_from_document(doc)


def test_tampered_resolved_document_rejected() -> None:
    doc = policy_to_document(policy(4096))
    tampered = copy.deepcopy(doc)
    tampered["wire"]["memory"]["capacity_bytes"] = 8192
    schemas.validate(DOC, tampered)  # the schema cannot see fingerprints
    with pytest.raises(Serialization):
        policy_from_document(tampered)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("attention_execution",), "auto"),
        (("attention_execution",), "native_adaptive"),
        (("version", "major"), 0),
        (
            ("memory", "dynamic_storage_profile_order"),
            [{"allocator": "linear_arena", "view": {"paged_regions": {"block_bytes": 16}}}],
        ),
        (
            ("memory", "dynamic_storage_profile_order"),
            [{"allocator": {"fixed_block_arena": {"block_bytes": 3}}, "view": "contiguous"}],
        ),
        (("memory", "checkpoint_capacity"), {"maximum_retained_bytes": 0}),
        (("memory", "capacity_bytes"), 2**64),
        (("fingerprint",), "ABC"),
        (("extra",), 1),
    ],
)
def test_schema_rejects_what_producers_never_emit(path: tuple[str, ...], value: Any) -> None:
    wire = policy(4096).to_wire()
    node: Any = wire
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate("policy/resolved_runtime_policy.json", wire)
    with pytest.raises(Serialization):
        ResolvedRuntimePolicy.from_wire(wire)
