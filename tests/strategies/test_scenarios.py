"""The scenario strategies: valid by construction, respellings keep the wire, semantic changes move the hash."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from conformance.golden import load
from reference import api
from reference.canonical import direct_bytes
from reference.catalog.storage import DynamicStorageProfile
from reference.errors import VNextError
from reference.scenario.document import ScenarioDocument
from seeds.scenarios import plan_fixture_scenario
from strategies.respellings import RESPELLINGS, respelled, reverse_shuffler
from strategies.scenarios import (
    ACCEPTED_BEHAVIORS,
    WEIGHT_PLANS,
    PlanFixtureParams,
    ScenarioCase,
    chain_cases,
    container_format_cases,
    graph_cases,
    plan_fixture_case,
    plan_fixture_cases,
    planning_policies,
    rich_fixture_case,
    scenario_cases,
    sequential_scratch_cases,
    weights_case,
    weights_cases,
)
from strategies.semantic_changes import SEMANTIC_CHANGES, semantically_changed

SHAPES = {
    "plan_fixture": plan_fixture_cases(),
    "chain": chain_cases(max_nodes=5),
    "graph": graph_cases(),
    "sequential_scratch": sequential_scratch_cases(),
    "weights": weights_cases(),
}


def _hash(scenario: dict[str, object]) -> str:
    value: str = json.loads(api.build_plan(scenario))["plan_hash"]
    return value


@pytest.mark.parametrize("shape", sorted(SHAPES))
@given(data=st.data())
def test_every_shape_is_a_valid_scenario_the_reference_builds(shape: str, data: st.DataObject) -> None:
    case: ScenarioCase = data.draw(SHAPES[shape])
    assert case.shape == shape
    schemas.validate("scenario.json", case.scenario)
    ScenarioDocument.from_wire(case.scenario)
    wire = api.build_plan(case.scenario)
    assert json.loads(wire)["payload"]["schema"] == {"major": 8, "minor": 1}
    assert case.label.startswith(shape + "(")


@given(policy=planning_policies())
def test_planning_policies_fit_the_seed_devices(policy: dict[str, object]) -> None:
    fields = policy["fields"]
    assert isinstance(fields, dict)
    memory = fields["memory"]
    assert 1 << 16 <= memory["capacity_bytes"] <= 1 << 20
    assert 0 <= memory["reserve_bytes"] <= 4096
    assert DynamicStorageProfile.linear_contiguous().to_wire() in memory["dynamic_storage_profile_order"]
    assert fields["reusable_execution"] is None


@given(case=scenario_cases(), operator=st.sampled_from(sorted(RESPELLINGS)), data=st.data())
def test_every_respelling_keeps_the_wire(case: ScenarioCase, operator: str, data: st.DataObject) -> None:
    respelling = respelled(data.draw, case.scenario, operator)
    assert respelling.original is case.scenario
    assert api.build_plan(respelling.scenario) == api.build_plan(case.scenario), operator


@given(case=scenario_cases(), operator=st.sampled_from(sorted(SEMANTIC_CHANGES)))
def test_every_applicable_semantic_change_builds_and_moves_the_hash(case: ScenarioCase, operator: str) -> None:
    before = copy.deepcopy(case.scenario)
    change = semantically_changed(case.scenario, operator)
    assert case.scenario == before, "a semantic change mutated its input"
    if change is None:
        assert operator == "policy_profile_order" or (operator == "weights" and case.scenario["weights"] is None)
        return
    assert _hash(change.scenario) != _hash(case.scenario), (operator, change.input)


def test_the_rich_base_admits_every_operator_and_changes_input_bytes() -> None:
    base = rich_fixture_case().scenario
    for operator, (_, rewrite) in RESPELLINGS.items():
        rewritten = rewrite(copy.deepcopy(base), reverse_shuffler)
        if operator not in ("resolution_order", "completion_retention_order"):
            assert direct_bytes(rewritten) != direct_bytes(base), operator
    for operator in SEMANTIC_CHANGES:
        if operator != "weights":  # the rich base selects no materializer (its golden vector predates them)
            assert semantically_changed(base, operator) is not None, operator


@pytest.mark.parametrize("kind", WEIGHT_PLANS)
def test_weight_plans_build_with_their_weights(kind: str) -> None:
    case = weights_case(kind)
    payload = json.loads(api.build_plan(case.scenario))["payload"]
    materializer = payload["execution_weights"]["materializer_id"]
    if kind == "mixed_gptq_dense":
        assert materializer == "weight-materializer.identity"
        assert payload["weight_format"] == "weight-format.safetensors.mixed-gptq"
        assert semantically_changed(case.scenario, "weights") is None
    else:
        assert materializer != "weight-materializer.identity"
        change = semantically_changed(case.scenario, "weights")
        assert change is not None and _hash(change.scenario) != _hash(case.scenario)


@given(case=container_format_cases(quantized=True))
def test_quantized_container_bindings_are_refused_by_the_dense_only_provider(case: ScenarioCase) -> None:
    with pytest.raises(VNextError) as info:
        api.build_plan(case.scenario)
    assert info.value.kind == "unsupported_operation"
    assert case.params["quantized"] is True


def test_default_params_are_the_seed_plan_fixture() -> None:
    golden = {v["name"]: v["plan_hash"] for v in load()["vectors"]}
    assert _hash(plan_fixture_case(PlanFixtureParams()).scenario) == _hash(plan_fixture_scenario(0))
    assert _hash(plan_fixture_scenario(0)) == golden["plan_fixture_0"]


@pytest.mark.parametrize("behavior", ACCEPTED_BEHAVIORS)
def test_accepted_behaviors_build_and_a_rejected_one_does_not(behavior: str) -> None:
    api.build_plan(plan_fixture_case(PlanFixtureParams(behavior=behavior)).scenario)
    with pytest.raises(VNextError) as info:
        api.build_plan(plan_fixture_case(PlanFixtureParams(behavior="wrong_input")).scenario)
    assert info.value.kind == "invalid_execution_plan"


def test_reverse_sources_is_semantic_but_reverse_is_not() -> None:
    """02 §12.1: external-name order is semantic; component/tensor/part order is normalized."""
    plain = plan_fixture_case(PlanFixtureParams(family="ordered_schema")).scenario
    sources = plan_fixture_case(PlanFixtureParams(family="ordered_schema", reverse_sources=True)).scenario
    assert _hash(plain) != _hash(sources)
    reordered = RESPELLINGS["weight_schema_order"][1](copy.deepcopy(plain), reverse_shuffler)
    assert reordered["family"]["document"]["weight_schema"] != plain["family"]["document"]["weight_schema"]
    assert _hash(reordered) == _hash(plain)
