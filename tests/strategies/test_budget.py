"""``strategies.budget``: the knobs change exactly what they name, and the drawn cases mean what they say."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference import api
from reference.errors import VNextError
from reference.ints import U64_MAX
from strategies.budget import (
    BASES,
    BEHAVIOR_OUTCOMES,
    EDGE_KINDS,
    NODE_IDS,
    REGISTRY_FAULTS,
    SCRATCH_ORDER,
    U32_MAX,
    BudgetCase,
    EdgeCase,
    Knobs,
    align_up,
    base_scenario,
    budget_cases,
    edge_cases,
    estimator_cases,
    make_budget_case,
    policy_knobs,
    registry_fault,
    scratch_cases,
    sequence_pairs,
    with_device_memory,
    with_estimates,
    with_policy,
)


def _outcome(scenario: dict[str, Any]) -> dict[str, Any] | str:
    """The memory section of the reference's plan, or its error kind."""
    try:
        memory: dict[str, Any] = json.loads(api.build_plan(scenario))["payload"]["memory"]
    except VNextError as exc:
        return exc.kind
    return memory


def _need(base: str, scratch: list[int], persistent: int) -> int:
    memory = _outcome(make_budget_case(base, Knobs(1 << 20, 0, 3, 4096), scratch, persistent).scenario)
    assert isinstance(memory, dict)
    return int(memory["static_bytes"]) + int(memory["minimum_runnable_request_bytes"])


def test_align_up() -> None:
    assert [align_up(v) for v in (1, 16, 17, 64, 65)] == [16, 16, 32, 64, 80]
    assert align_up(5, 4) == 8


@pytest.mark.parametrize("base", BASES)
def test_bases_build_and_respelling_the_policy_keeps_the_plan(base: str) -> None:
    """A ``resolved`` seed policy respelled as ``resolved_fields`` builds the same plan bytes."""
    scenario = base_scenario(base)
    assert scenario["policy"]["kind"] == "resolved"
    respelled = with_policy(scenario)
    assert respelled["policy"]["kind"] == "resolved_fields"
    assert api.build_plan(respelled) == api.build_plan(scenario)
    assert base_scenario(base) == scenario, "base_scenario must hand out copies"


@given(
    base=st.sampled_from(BASES),
    capacity=st.integers(1, U64_MAX),
    reserve=st.integers(0, U64_MAX),
    sequences=st.integers(1, U32_MAX),
    tokens=st.integers(1, U64_MAX),
)
def test_with_policy_sets_exactly_the_four_numbers(
    base: str, capacity: int, reserve: int, sequences: int, tokens: int
) -> None:
    scenario = base_scenario(base)
    changed = with_policy(scenario, capacity=capacity, reserve=reserve, sequences=sequences, tokens=tokens)
    assert policy_knobs(changed) == Knobs(capacity, reserve, sequences, tokens)
    assert {k: v for k, v in changed.items() if k != "policy"} == {k: v for k, v in scenario.items() if k != "policy"}
    fields = changed["policy"]["fields"]
    original = dict(scenario["policy"]["wire"])
    original.pop("fingerprint")
    assert fields["policy_id"] == original["policy_id"] and fields["version"] == original["version"]
    assert scenario == base_scenario(base), "with_policy must not mutate its input"


def test_with_device_memory_and_estimates_touch_only_their_section() -> None:
    scenario = base_scenario("graph_state_chain")
    device = with_device_memory(scenario, 12345)
    assert device["catalog"]["device"]["total_memory_bytes"] == 12345
    assert {k: v for k, v in device.items() if k != "catalog"} == {k: v for k, v in scenario.items() if k != "catalog"}
    estimates = with_estimates(scenario, persistent=7, scratch_by_node={"node.b": 2, "node.a": 1})
    for spec in estimates["registry"]["estimators"]:
        assert spec["persistent_bytes"] == 7
        assert list(spec["scratch_bytes_by_node"]) == ["node.a", "node.b"]
    switched = with_estimates(estimates, scratch=9, behavior="missing_scratch")
    for spec in switched["registry"]["estimators"]:
        assert (spec["scratch_bytes"], spec["behavior"]) == (9, "missing_scratch")
        assert "scratch_bytes_by_node" not in spec
    assert scenario == base_scenario("graph_state_chain")


@given(case=budget_cases())
def test_budget_cases_fit_iff_usable_covers_the_need(case: BudgetCase) -> None:
    """Capacity stays within the seed device, so only ``static + minimum_runnable <= usable`` decides (I5)."""
    assert policy_knobs(case.scenario) == case.knobs
    assert 0 <= case.knobs.reserve < case.knobs.capacity <= 1 << 20
    need = _need(case.base, list(case.scratch), case.persistent)
    outcome = _outcome(case.scenario)
    if case.knobs.capacity - case.knobs.reserve >= need:
        assert isinstance(outcome, dict), f"{case.label}: need {need}, refused with {outcome}"
        assert outcome["static_bytes"] + outcome["minimum_runnable_request_bytes"] == need
    else:
        assert outcome == "invalid_execution_plan", f"{case.label}: need {need}, got {outcome}"


@given(case=scratch_cases())
def test_scratch_cases_give_each_node_its_scratch(case: BudgetCase) -> None:
    memory = _outcome(case.scenario)
    assert isinstance(memory, dict), memory
    scratch = [d for d in memory["dynamic_descriptors"] if isinstance(d["kind"], dict) and "scratch" in d["kind"]]
    by_node = {d["kind"]["scratch"]["node_id"]: d["demand"]["fixed"]["bytes"] for d in scratch}
    assert by_node == dict(zip(NODE_IDS[case.base], case.scratch, strict=True))
    sizes = [align_up(s) for s in case.scratch]
    peak = max(sizes) if SCRATCH_ORDER[case.base] == "total" else sum(sizes)
    assert memory["minimum_invocation_peak_bytes"] == peak


@given(pair=sequence_pairs())
def test_sequence_pairs_differ_only_in_sequences(pair: tuple[BudgetCase, BudgetCase]) -> None:
    first, second = pair
    assert first.base == second.base and first.scratch == second.scratch
    assert (first.knobs.capacity, first.knobs.reserve, first.knobs.tokens) == (
        second.knobs.capacity,
        second.knobs.reserve,
        second.knobs.tokens,
    )
    for case in pair:
        memory = _outcome(case.scenario)
        assert isinstance(memory, dict) and memory["maximum_active_sequences"] == case.knobs.sequences


@pytest.mark.parametrize("edge", EDGE_KINDS)
@given(data=st.data())
def test_edge_cases_sit_at_their_edge_and_end_typed(edge: str, data: st.DataObject) -> None:
    case: EdgeCase = data.draw(edge_cases(edges=(edge,)))
    assert case.edge == edge
    values = case.values
    if "capacity" in values and edge not in ("capacity_over_device", "capacity_negative"):
        assert values["capacity"] > U64_MAX // 2
    if edge == "capacity_negative":
        assert values["capacity"] < 0
    if edge == "reserve_at_capacity":
        assert values["capacity"] <= values["reserve"] <= U64_MAX
    if edge == "reserve_just_below_capacity":
        assert values["reserve"] < values["capacity"]
    if edge == "sequences_over_u32":
        assert values["sequences"] > U32_MAX
    with contextlib.suppress(VNextError):  # a typed error is a clean outcome; anything else fails
        api.build_plan(case.scenario)


@pytest.mark.parametrize(
    ("edge", "kind"),
    [
        ("capacity_negative", "serialization"),
        ("sequences_over_u32", "serialization"),
        ("reserve_at_capacity", "invalid_resolved_model_plan"),
        ("capacity_over_device", "invalid_execution_plan"),
        ("scratch_at_u64_max", "invalid_execution_plan"),
        ("persistent_at_u64_max", "invalid_execution_plan"),
        ("token_scratch_overflow", "invalid_execution_plan"),
        ("zero_scratch", "invalid_execution_plan"),
    ],
)
@given(data=st.data())
def test_edges_that_always_fail_fail_with_their_kind(edge: str, kind: str, data: st.DataObject) -> None:
    case: EdgeCase = data.draw(edge_cases(edges=(edge,)))
    assert _outcome(case.scenario) == kind


@given(case=estimator_cases(bases=BASES))
def test_estimator_cases_meet_the_documented_outcome(case: tuple[str, str, int, dict[str, Any]]) -> None:
    base, behavior, _, scenario = case
    outcome = _outcome(scenario)
    expected = BEHAVIOR_OUTCOMES[behavior]
    if expected is None:
        assert isinstance(outcome, dict), f"{behavior} on {base}: {outcome}"
    else:
        assert outcome == expected


@pytest.mark.parametrize("base", ("plan_fixture", "graph_state_chain"))
@pytest.mark.parametrize("fault", REGISTRY_FAULTS)
def test_registry_faults_are_refused(fault: str, base: str) -> None:
    scenario = registry_fault(base, fault)
    assert scenario["registry"] != base_scenario(base)["registry"]
    assert isinstance(_outcome(scenario), str)


def test_unknown_registry_fault_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown registry fault"):
        registry_fault("plan_fixture", "nope")
