"""Plan wire, hash material and plan id (spec 05 §8), determinism and typed decoding of the parts."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference.plan.execution_plan as execution_plan_module
from reference.canonical import canonical_bytes, direct_bytes
from reference.errors import Serialization
from reference.plan import EXECUTION_PLAN_SCHEMA, ExecutionPlanPayload, PlanNode
from reference.plan.node import PLAN_NODE_FIELDS
from reference.plan.payload import PAYLOAD_FIELDS
from schemas import validate
from tests.plan.helpers import plan_fixture, raises_kind, rehash_plan_json, wire

PLAN = plan_fixture(0)


def test_plan_fixture_builds_deterministically() -> None:
    again = plan_fixture(0)
    assert again.to_json() == PLAN.to_json()
    assert again.plan_hash == PLAN.plan_hash


def test_hundred_resource_name_variants_build_and_differ() -> None:
    hashes = {plan_fixture(v).plan_hash for v in range(100)}
    assert len(hashes) == 100


def test_plan_hash_and_id_derivation() -> None:
    value = wire(PLAN)
    assert list(value) == ["payload", "plan_hash"]
    payload = value["payload"]
    assert list(payload) == list(PAYLOAD_FIELDS)
    material = {k: v for k, v in payload.items() if k != "plan_id"}
    digest = hashlib.sha256(
        json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()
    assert digest == PLAN.plan_hash.value == value["plan_hash"]
    assert payload["plan_id"] == f"plan/sha256/{digest}" == PLAN.plan_id.value
    assert payload["schema"] == EXECUTION_PLAN_SCHEMA.to_wire() == {"major": 8, "minor": 1}


def test_rehash_reproduces_the_hash_of_an_unmodified_wire() -> None:
    value = wire(PLAN)
    rehash_plan_json(value)
    assert value == wire(PLAN)


def test_to_json_is_direct_bytes_in_declaration_order() -> None:
    value = wire(PLAN)
    assert PLAN.to_json() == direct_bytes(value)
    assert list(value["payload"]["nodes"][0]) == list(PLAN_NODE_FIELDS)


@given(st.randoms(use_true_random=False))
def test_hash_is_invariant_to_key_order(rng: random.Random) -> None:
    def shuffle(value: object) -> object:
        if isinstance(value, dict):
            items = list(value.items())
            rng.shuffle(items)
            return {k: shuffle(v) for k, v in items}
        if isinstance(value, list):
            return [shuffle(v) for v in value]
        return value

    material = {k: v for k, v in wire(PLAN)["payload"].items() if k != "plan_id"}
    assert hashlib.sha256(canonical_bytes(shuffle(material))).hexdigest() == PLAN.plan_hash.value  # type: ignore[arg-type]


def test_hash_changes_with_any_value_change() -> None:
    value = wire(PLAN)
    value["payload"]["memory"]["static_bytes"] += 1
    rehash_plan_json(value)
    assert value["plan_hash"] != PLAN.plan_hash.value


def test_null_options_are_present_and_growth_is_absent() -> None:
    payload = wire(PLAN)["payload"]
    node = payload["nodes"][0]
    assert node["selection"]["requested_provider"] is None
    assert node["binding_resource"] is None and node["provider_resources"]["binding"] is None
    assert payload["memory"]["reusable_execution"] is None
    assert "checkpoint_capacity" not in payload["memory"]
    assert all("checkpoint_growth_ceiling_bytes" not in pool for pool in payload["memory"]["dynamic_pools"])
    assert payload["retained_completion_values"] == []


def test_node_wire_matches_the_seed_example() -> None:
    node = wire(PLAN)["payload"]["nodes"][0]
    assert node["id"] == "node.main" and node["dependencies"] == []
    assert node["operation_version"] == {"major": 1, "minor": 0}
    assert node["provider_implementation_fingerprint"] == "f" * 64
    assert node["required_capabilities"] == [] and node["attributes"] == {} and node["work"] == "fixed"
    assert node["selection"] == {
        "requested_provider": None,
        "selected_provider": "provider.operation.reference",
        "selection_reason": "canonical_compatible",
        "rejected_providers": [],
    }
    resources = node["provider_resources"]
    assert resources["estimator_id"] == "resource-estimator.reference"
    assert resources["value_alignment_bytes"] == 16
    assert resources["scratch"]["scope"] == "invocation" and resources["persistent"]["scope"] == "plan"
    assert node["scratch_resource"].startswith("resource/scratch/sha256/")
    assert node["persistent_resource"].startswith("resource/persistent/sha256/")
    assert node["resources"] == sorted(node["resources"])
    assert node["resources"][:4] == ["resource.input.0", "resource.output.0", "resource.state.0", "resource.weight.0"]
    assert node["state_effects"][0]["resource_ids"] == ["resource.state.0"]


def test_plan_nodes_and_payload_round_trip_through_from_wire() -> None:
    payload = wire(PLAN)["payload"]
    node = PlanNode.from_wire(payload["nodes"][0], context="test")
    assert node == PLAN.nodes[0] and node.to_wire() == payload["nodes"][0]
    decoded = ExecutionPlanPayload.from_wire(payload, context="test")
    assert decoded == PLAN.payload and decoded.to_wire() == payload


def test_from_wire_rejects_unknown_and_missing_fields() -> None:
    payload = wire(PLAN)["payload"]
    for target in (
        payload,
        payload["nodes"][0],
        payload["nodes"][0]["selection"],
        payload["nodes"][0]["state_effects"][0],
    ):
        target["surprise"] = 1
        raises_kind("serialization", lambda: ExecutionPlanPayload.from_wire(payload, context="test"))
        del target["surprise"]
    del payload["nodes"][0]["binding_resource"]
    raises_kind("serialization", lambda: ExecutionPlanPayload.from_wire(payload, context="test"))


def test_to_json_over_the_limit_is_a_serialization_error(monkeypatch: object) -> None:
    plan = plan_fixture(1)
    size = len(PLAN.to_json())
    monkeypatch.setattr(execution_plan_module, "MAX_EXECUTION_PLAN_WIRE_BYTES", size - 1)  # type: ignore[attr-defined]
    error = raises_kind("serialization", plan.to_json)
    assert isinstance(error, Serialization) and error.context == "serialize execution plan"
    monkeypatch.setattr(execution_plan_module, "MAX_EXECUTION_PLAN_WIRE_BYTES", size)  # type: ignore[attr-defined]
    assert len(plan.to_json()) == size


def test_wire_validates_against_the_schema() -> None:
    validate("plan/execution_plan.json", wire(PLAN))


def test_payload_wire_is_a_fresh_copy() -> None:
    first = PLAN.payload_wire()
    first["nodes"].clear()
    assert PLAN.payload_wire()["nodes"]


def test_schema_rejects_unknown_keys_and_a_wrong_schema_version() -> None:
    import jsonschema

    value = wire(PLAN)
    value["payload"]["nodes"][0]["surprise"] = True
    with pytest.raises(jsonschema.ValidationError):
        validate("plan/execution_plan.json", value)
    value = wire(PLAN)
    value["payload"]["schema"]["minor"] = 0
    with pytest.raises(jsonschema.ValidationError):
        validate("plan/execution_plan.json", value)
