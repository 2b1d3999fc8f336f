"""Revalidation (05 §9.2-§9.3, 01 §3.6): round trips, hash material, hash/id/schema forgeries, other dependencies."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reference.canonical import canonical_bytes, sha256_hex
from reference.errors import PlanHashMismatch, UnsupportedPlanSchema, VNextError
from reference.plan.build import build_execution_plan
from reference.plan.decode import decode_untrusted
from reference.plan.revalidate import from_json_validated, revalidate, validate_against
from reference.recomputation import computed_directly
from reference.scenario.plan import build_scenario_plan, revalidate_scenario_wire, scenario_trusted_inputs
from reference.versions import PlanSchemaVersion
from seeds.catalogs import catalog_with_secondary_provider
from seeds.policies import policy, policy_with
from seeds.scenarios import (
    graph_scenario,
    plan_fixture_scenario,
    retention_scenario,
    sequential_scratch_scenario,
    weights_plan_scenario,
)

from .helpers import (
    SCENARIO_BUILDERS,
    built,
    encode,
    fresh_scenario,
    materializer_scenario,
    non_identity_weights_scenario,
    raises_kind,
    rehash_plan_json,
    scenario,
    trusted,
    wire_value,
)

EP = "invalid_execution_plan"
sha256s = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("name", sorted(SCENARIO_BUILDERS))
def test_build_decode_revalidate_round_trips_byte_identically(name: str) -> None:
    plan = built(name)
    wire = plan.to_json()
    inputs = trusted(name)
    restored = revalidate(
        decode_untrusted(wire),
        inputs.family,
        inputs.catalog,
        inputs.policy,
        inputs.resolutions,
        completion_retention=inputs.completion_retention,
        execution_weights=inputs.execution_weights,
    )
    assert restored == plan  # payload, hash, registry authority and trusted weights
    assert restored.to_json() == wire
    # Through the scenario (fresh trusted inputs, hence another registry authority): same bytes and hash.
    again = revalidate_scenario_wire(scenario(name), wire)
    assert again.plan_hash == plan.plan_hash
    assert again.to_json() == wire
    assert again.trusted_execution_weights() == inputs.execution_weights
    # Building again from the scenario is deterministic (05 §13).
    assert build_scenario_plan(fresh_scenario(name)).to_json() == wire


@pytest.mark.parametrize("chunk", range(4))
def test_resource_name_variants_round_trip(chunk: int) -> None:
    """Seed ``execution_plan_schema_round_trip_100_of_100``: variants 0..99 of ``plan_fixture``."""
    for variant in range(chunk * 25, chunk * 25 + 25):
        inputs = scenario_trusted_inputs(plan_fixture_scenario(variant))
        plan = inputs.build()
        wire = plan.to_json()
        restored = from_json_validated(wire, inputs.family, inputs.catalog, inputs.policy, inputs.resolutions)
        assert restored == plan
        assert restored.to_json() == wire
        assert f"resource.input.{variant}" in wire.decode()


def test_variants_have_distinct_hashes() -> None:
    hashes = {scenario_trusted_inputs(plan_fixture_scenario(v)).build().plan_hash for v in range(8)}
    assert len(hashes) == 8


# --------------------------------------------------------------------------- hash material (05 §8.2)


@pytest.mark.parametrize("name", sorted(SCENARIO_BUILDERS))
def test_plan_hash_is_the_canonical_payload_without_plan_id(name: str) -> None:
    value = wire_value(name)
    payload = value["payload"]
    digest = sha256_hex(canonical_bytes({k: v for k, v in payload.items() if k != "plan_id"}))
    assert value["plan_hash"] == digest
    assert payload["plan_id"] == "plan/sha256/" + digest
    assert list(value) == ["payload", "plan_hash"]


@pytest.mark.parametrize("name", sorted(SCENARIO_BUILDERS))
def test_rehashing_an_unmodified_wire_reproduces_the_plan_hash(name: str) -> None:
    value = wire_value(name)
    original = copy.deepcopy(value)
    rehash_plan_json(value)
    assert value["plan_hash"] == built(name).plan_hash.value
    assert value == original


# --------------------------------------------------------------------------- forged hash, id, schema


@given(forged=sha256s)
def test_only_the_plan_hash_replaced_is_a_mismatch(forged: str) -> None:
    plan = built("plan_fixture_0")
    assume(forged != plan.plan_hash.value)
    value = wire_value("plan_fixture_0")
    value["plan_hash"] = forged
    error = raises_kind(
        "plan_hash_mismatch", lambda: revalidate_scenario_wire(scenario("plan_fixture_0"), encode(value))
    )
    assert isinstance(error, PlanHashMismatch)
    assert (error.expected, error.actual) == (plan.plan_hash.value, forged)


@pytest.mark.parametrize("name", ["sequential_scratch", "retained_output", "same_schema_weights"])
def test_plan_hash_mismatch_reports_the_rebuilt_hash(name: str) -> None:
    value = wire_value(name)
    value["plan_hash"] = "0" * 64
    error = raises_kind("plan_hash_mismatch", lambda: revalidate_scenario_wire(scenario(name), encode(value)))
    assert error.to_dict()["expected"] == built(name).plan_hash.value
    assert error.to_dict()["actual"] == "0" * 64


@pytest.mark.parametrize("rehash_id", [False, True])
def test_only_the_plan_id_altered_is_an_invalid_plan(rehash_id: bool) -> None:
    value = wire_value("plan_fixture_0")
    value["payload"]["plan_id"] = "plan/sha256/" + "0" * 64 if rehash_id else "plan/forged"
    error = raises_kind(EP, lambda: revalidate_scenario_wire(scenario("plan_fixture_0"), encode(value)))
    assert "semantic rebuild" in error.to_dict()["reason"]


@pytest.mark.parametrize(("major", "minor"), [(9, 1), (7, 1), (8, 0), (8, 2), (3, 0), (2, 0)])
def test_other_schema_versions_even_rehashed_report_the_wire_numbers(major: int, minor: int) -> None:
    value = wire_value("graph_state_chain")
    value["payload"]["schema"] = {"major": major, "minor": minor}
    rehash_plan_json(value)
    error = raises_kind(
        "unsupported_plan_schema", lambda: revalidate_scenario_wire(scenario("graph_state_chain"), encode(value))
    )
    assert isinstance(error, UnsupportedPlanSchema)
    assert (error.expected_major, error.expected_minor, error.actual_major, error.actual_minor) == (8, 1, major, minor)


def test_revalidate_checks_the_schema_again_before_rebuilding() -> None:
    """Step 1 of §9.2 on an unvalidated plan whose schema is not 8.1 (reachable only by constructing it)."""
    unvalidated = decode_untrusted(built("plan_fixture_0").to_json())
    other = dataclasses.replace(unvalidated.payload, schema=PlanSchemaVersion(8, 2))
    forged = dataclasses.replace(unvalidated, payload=other)
    inputs = trusted("plan_fixture_0")
    # Even with dependencies that no longer build, the schema is reported first.
    error = raises_kind(
        "unsupported_plan_schema",
        lambda: revalidate(forged, inputs.family, inputs.catalog, policy(2 * 1024 * 1024), inputs.resolutions),
    )
    assert error.to_dict()["actual_minor"] == 2


# --------------------------------------------------------------------------- decode before the scenario


def test_decode_failures_do_not_depend_on_the_scenario() -> None:
    broken: dict[str, Any] = {"scenario_version": 99}
    value = wire_value("plan_fixture_0")
    value["payload"]["schema"] = {"major": 3, "minor": 0}
    raises_kind("unsupported_plan_schema", lambda: revalidate_scenario_wire(broken, encode(value)))
    error = raises_kind("serialization", lambda: revalidate_scenario_wire(broken, b"{"))
    assert error.to_dict()["context"] == "decode untrusted execution plan"
    # A well-formed wire with a broken scenario reports the scenario.
    error = raises_kind("serialization", lambda: revalidate_scenario_wire(broken, built("plan_fixture_0").to_json()))
    assert error.to_dict()["context"] == "decode scenario"


# --------------------------------------------------------------------------- other dependencies (05 §9.5)


def _reject_against(other: dict[str, Any], name: str = "plan_fixture_0") -> None:
    raises_kind(EP, lambda: revalidate_scenario_wire(other, built(name).to_json()))


def test_a_plan_is_rejected_against_another_policy() -> None:
    _reject_against(plan_fixture_scenario(0, policy_value=policy_with(4096, 256, 4)))
    _reject_against(plan_fixture_scenario(0, policy_value=policy(8192)))


def test_a_plan_is_rejected_against_another_catalog() -> None:
    _reject_against(plan_fixture_scenario(0, catalog_value=catalog_with_secondary_provider()))


def test_a_plan_is_rejected_against_another_family() -> None:
    _reject_against(sequential_scratch_scenario())
    raises_kind(EP, lambda: revalidate_scenario_wire(plan_fixture_scenario(0), built("sequential_scratch").to_json()))


def test_a_plan_is_rejected_against_other_resolutions_estimates_or_providers() -> None:
    _reject_against(plan_fixture_scenario(1))
    _reject_against(plan_fixture_scenario(0, scratch_bytes=96, persistent_bytes=48))
    secondary = plan_fixture_scenario(
        0, catalog_value=catalog_with_secondary_provider(), preferred_provider="provider.operation.secondary"
    )
    raises_kind(
        EP, lambda: revalidate_scenario_wire(plan_fixture_scenario(0), build_scenario_plan(secondary).to_json())
    )
    raises_kind(
        EP,
        lambda: revalidate_scenario_wire(
            plan_fixture_scenario(0, catalog_value=catalog_with_secondary_provider()),
            build_scenario_plan(secondary).to_json(),
        ),
    )


def test_graph_scenarios_reject_each_others_wires() -> None:
    raises_kind(
        EP, lambda: revalidate_scenario_wire(graph_scenario("state_read_only"), built("graph_state_chain").to_json())
    )
    raises_kind(
        EP, lambda: revalidate_scenario_wire(graph_scenario("alias", "may_alias_exact"), built("graph_alias").to_json())
    )


def test_dependencies_that_no_longer_build_report_the_build_error() -> None:
    too_big = plan_fixture_scenario(0, policy_value=policy(2 * 1024 * 1024))  # capacity > device (1 MiB)
    error = raises_kind(EP, lambda: revalidate_scenario_wire(too_big, built("plan_fixture_0").to_json()))
    assert "semantic rebuild" not in error.to_dict()["reason"]


# --------------------------------------------------------------------------- completion retention and weights


def test_a_retained_plan_revalidates_only_with_the_same_retention() -> None:
    wire = built("retained_output").to_json()
    assert revalidate_scenario_wire(scenario("retained_output"), wire).to_json() == wire
    raises_kind(EP, lambda: revalidate_scenario_wire(plan_fixture_scenario(0), wire))
    raises_kind(EP, lambda: revalidate_scenario_wire(scenario("retained_output"), built("plan_fixture_0").to_json()))
    value = json.loads(wire)
    value["payload"]["retained_completion_values"][0]["resource_id"] = "resource/forged-retained-output"
    rehash_plan_json(value)
    raises_kind(EP, lambda: revalidate_scenario_wire(scenario("retained_output"), encode(value)))


def test_a_non_identity_weight_plan_revalidates_only_with_the_same_trusted_selection() -> None:
    wire = built("same_schema_weights").to_json()
    assert json.loads(wire)["payload"]["execution_weights"]["materializer_id"] != "weight-materializer.identity"
    assert revalidate_scenario_wire(non_identity_weights_scenario(), wire).to_json() == wire
    # identity weights (the plain `revalidate`), another implementation fingerprint, or no catalog registration
    raises_kind(EP, lambda: revalidate_scenario_wire(plan_fixture_scenario(0), wire))
    raises_kind(EP, lambda: revalidate_scenario_wire(non_identity_weights_scenario("8"), wire))
    error = raises_kind(EP, lambda: revalidate_scenario_wire(non_identity_weights_scenario(augment=False), wire))
    assert "semantic rebuild" not in error.to_dict()["reason"]
    # and an identity wire is not accepted under the non-identity selection
    raises_kind(
        EP, lambda: revalidate_scenario_wire(non_identity_weights_scenario(), built("plan_fixture_0").to_json())
    )


@pytest.mark.parametrize("materializer", ["padded_dense", "derived_components"])
def test_non_identity_plans_revalidate_only_with_their_witness(materializer: str) -> None:
    """Seed 002's schema-changing materializers (decision D-04R-14): the same selection restores the plan;
    any drift of the selection, the catalog descriptor or the resolutions is refused."""
    name = f"{materializer}_weights"
    wire = built(name).to_json()
    payload = json.loads(wire)["payload"]
    assert (
        payload["execution_weights"]["schema"]
        != json.loads(built("plan_fixture_0").to_json())["payload"]["execution_weights"]["schema"]
    )
    assert revalidate_scenario_wire(weights_plan_scenario(materializer), wire).to_json() == wire
    drifted = {
        "identity weights, execution-schema bindings": {**weights_plan_scenario(materializer), "weights": None},
        "identity weights, family-schema bindings": {
            **weights_plan_scenario(materializer, bindings="family"),
            "weights": None,
        },
        "family-schema bindings": weights_plan_scenario(materializer, bindings="family"),
        "other implementation fingerprint": materializer_scenario(materializer, implementation_fingerprint="6" * 64),
        "no required capabilities": materializer_scenario(materializer, required_capabilities=[]),
        "approximate fidelity": materializer_scenario(materializer, fidelity="approximate"),
        "descriptor not in the catalog": {
            **weights_plan_scenario(materializer),
            "weights": {**weights_plan_scenario(materializer)["weights"], "augment_catalog": False},
        },
    }
    for label, other in drifted.items():
        with pytest.raises(VNextError) as info:
            revalidate_scenario_wire(other, wire)
        assert info.value.kind == EP, label


@pytest.mark.parametrize("materializer", ["padded_dense", "derived_components"])
@pytest.mark.parametrize(
    "path",
    [
        ("materializer_id",),
        ("materializer_implementation_fingerprint",),
        ("schema", "layout_id"),
        ("schema", "format_id"),
    ],
)
def test_forged_execution_weights_are_refused(materializer: str, path: tuple[str, ...]) -> None:
    name = f"{materializer}_weights"
    value = wire_value(name)
    target = value["payload"]["execution_weights"]
    for key in path[:-1]:
        target = target[key]
    if path[-1] not in target:
        pytest.fail(f"execution weights wire has no {path}")
    target[path[-1]] = target[path[-1]] + ".forged" if "id" in path[-1] else "0" * 64
    rehash_plan_json(value)
    with pytest.raises(VNextError) as info:
        revalidate_scenario_wire(scenario(name), encode(value))
    assert info.value.kind in (EP, "serialization")


def test_a_retained_intermediate_revalidates_only_with_its_retention() -> None:
    wire = built("retained_intermediate").to_json()
    assert revalidate_scenario_wire(retention_scenario("intermediate"), wire).to_json() == wire
    raises_kind(EP, lambda: revalidate_scenario_wire(sequential_scratch_scenario(), wire))


def test_a_forged_weight_plan_cannot_grant_authority() -> None:
    """Rewriting the wire's execution weights to the selected materializer's never yields a plan without it."""
    forged = wire_value("plan_fixture_0")
    forged["payload"]["execution_weights"] = wire_value("same_schema_weights")["payload"]["execution_weights"]
    rehash_plan_json(forged)
    decode_untrusted(encode(forged))  # well formed
    raises_kind(EP, lambda: revalidate_scenario_wire(plan_fixture_scenario(0), encode(forged)))


def test_revalidation_returns_the_rebuilt_plan_with_the_supplied_witness() -> None:
    inputs = trusted("same_schema_weights")
    restored = revalidate(
        decode_untrusted(built("same_schema_weights").to_json()),
        inputs.family,
        inputs.catalog,
        inputs.policy,
        inputs.resolutions,
        execution_weights=inputs.execution_weights,
    )
    assert restored.trusted_execution_weights() == inputs.execution_weights
    assert restored.registry_authority() == built("same_schema_weights").registry_authority()


# --------------------------------------------------------------------------- validate_against (05 §9.3)


def test_validate_against_accepts_its_own_inputs_and_rejects_others() -> None:
    inputs = trusted("plan_fixture_0")
    plan = built("plan_fixture_0")
    validate_against(plan, inputs.family, inputs.catalog, inputs.policy, inputs.resolutions)
    raises_kind(
        EP, lambda: validate_against(plan, inputs.family, inputs.catalog, policy_with(4096, 256, 4), inputs.resolutions)
    )
    raises_kind(
        EP,
        lambda: validate_against(
            plan,
            inputs.family,
            inputs.catalog,
            inputs.policy,
            inputs.resolutions,
            completion_retention=["value.output"],
        ),
    )
    # Resolutions from another registry instance (a fresh build, not the memoized one) carry another authority.
    with computed_directly():
        other = scenario_trusted_inputs(plan_fixture_scenario(0))
    assert other.resolutions[0].registry_authority != inputs.resolutions[0].registry_authority
    error = raises_kind(
        EP, lambda: validate_against(plan, inputs.family, inputs.catalog, inputs.policy, other.resolutions)
    )
    assert "registry" in error.to_dict()["reason"]
    # ... while revalidating a wire does not depend on the registry instance.
    assert (
        build_execution_plan(other.family, other.catalog, other.policy, other.resolutions).to_json() == plan.to_json()
    )
