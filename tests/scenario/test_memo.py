"""``ScenarioMemo``: results and contract rejections memoized by the scenario's canonical bytes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference.canonical import fingerprint
from reference.errors import InvalidExecutionPlan, VNextError, invalid_plan
from reference.plan.memory.storage import workspace_layout_fingerprint
from reference.recomputation import ValidByIdentity, computed_directly, remembered
from reference.scenario.document import ScenarioDocument
from reference.scenario.memo import ScenarioMemo
from reference.scenario.plan import ScenarioTrustedInputs, _trusted_inputs, build_scenario_plan, scenario_trusted_inputs
from reference.scenario.resolve import scenario_resolutions
from reference.scenario.sections import scenario_catalog, scenario_family, scenario_policy, scenario_weights
from seeds.scenarios import sequential_scratch_scenario
from strategies.budget import policy_knobs, with_policy


class Counting:
    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[Any] = []
        self.fail_on = fail_on

    def __call__(self, scenario: Any) -> tuple[str, ...]:
        self.calls.append(scenario)
        if self.fail_on is not None and self.fail_on in scenario:
            raise invalid_plan(f"refused {self.fail_on} #{len(self.calls)}")
        if "bug" in scenario:
            raise RuntimeError(f"bug #{len(self.calls)}")
        return tuple(sorted(scenario))


def test_equal_canonical_json_is_one_computation() -> None:
    compute = Counting()
    memo = ScenarioMemo(compute)
    first = memo({"b": 1, "a": [1, 2]})
    assert memo({"a": [1, 2], "b": 1}) is first
    assert len(compute.calls) == 1
    assert memo({"a": [1, 3], "b": 1}) == first and len(compute.calls) == 2


def test_a_rejection_is_memoized_as_the_same_error() -> None:
    compute = Counting(fail_on="bad")
    memo = ScenarioMemo(compute)
    with pytest.raises(InvalidExecutionPlan) as first:
        memo({"bad": 1})
    with pytest.raises(InvalidExecutionPlan) as second:
        memo({"bad": 1})
    assert len(compute.calls) == 1
    assert second.value.to_dict() == first.value.to_dict()
    assert "#1" in str(second.value)


def test_other_exceptions_and_non_json_scenarios_are_not_memoized() -> None:
    compute = Counting()
    memo = ScenarioMemo(compute)
    for expected in ("bug #1", "bug #2"):
        with pytest.raises(RuntimeError, match=expected):
            memo({"bug": 1})
    memo({"a": (1, 2)})
    memo({"a": (1, 2)})
    memo(["not", "a", "mapping"])
    assert len(compute.calls) == 5


def test_a_key_function_selects_the_part_that_keys_the_result() -> None:
    compute = Counting()
    memo = ScenarioMemo(compute, key=lambda scenario: scenario["section"])
    first = memo({"section": {"x": 1}, "other": 1})
    assert memo({"other": 2, "section": {"x": 1}}) is first
    assert len(compute.calls) == 1
    memo({"section": {"x": 2}, "other": 1})
    assert len(compute.calls) == 2


def test_the_memo_is_bounded_and_drops_the_oldest() -> None:
    compute = Counting()
    memo = ScenarioMemo(compute, size=2)
    memo({"a": 1})
    memo({"b": 1})
    memo({"a": 1})  # refreshed
    memo({"c": 1})  # drops b
    memo({"a": 1})
    memo({"b": 1})
    assert [sorted(c) for c in compute.calls] == [["a"], ["b"], ["c"], ["b"]]


def test_scenario_plans_are_memoized_and_equal_a_fresh_build() -> None:
    scenario = sequential_scratch_scenario()
    plan = build_scenario_plan(scenario)
    assert build_scenario_plan(copy.deepcopy(scenario)) is plan
    assert scenario_trusted_inputs(copy.deepcopy(scenario)) is scenario_trusted_inputs(scenario)
    assert _trusted_inputs(scenario).build().to_json() == plan.to_json()
    broken = {**scenario, "catalog": {"not": "a catalog"}}
    errors = []
    for _ in range(2):
        with pytest.raises(VNextError) as caught:
            build_scenario_plan(broken)
        errors.append(caught.value.to_dict())
    assert errors[0] == errors[1]


def _unmemoized(scenario: dict[str, Any]) -> ScenarioTrustedInputs:
    doc = ScenarioDocument.from_wire(scenario)
    family, catalog, policy = scenario_family(doc), scenario_catalog(doc), scenario_policy(doc)
    catalog, weights = scenario_weights(doc, family, catalog)
    resolutions = scenario_resolutions(doc, family, catalog, policy, execution_weights=weights)
    retention = _trusted_inputs(scenario).completion_retention
    return ScenarioTrustedInputs(family, catalog, policy, resolutions, retention, weights)


def test_scenarios_differing_in_their_policy_share_the_family_and_catalog_and_build_the_same_plans() -> None:
    scenario = sequential_scratch_scenario()
    other = with_policy(scenario, capacity=policy_knobs(scenario).capacity + 4096)
    first, second = _trusted_inputs(scenario), _trusted_inputs(other)
    assert second.family is first.family and second.catalog is first.catalog
    assert second.policy != first.policy
    for each in (scenario, other):
        assert _trusted_inputs(each).build().to_json() == _unmemoized(each).build().to_json()


def test_scenarios_differing_only_in_policy_values_resolution_does_not_read_share_the_resolutions() -> None:
    scenario = sequential_scratch_scenario()
    knobs = policy_knobs(scenario)
    first = _trusted_inputs(scenario)
    for other in (
        with_policy(scenario, capacity=knobs.capacity + 8192),
        with_policy(scenario, tokens=knobs.tokens + 1),
    ):
        inputs = _trusted_inputs(other)
        assert inputs.resolutions is first.resolutions
        assert inputs.build().to_json() == _unmemoized(other).build().to_json()


def test_a_policy_resolution_refuses_is_refused_as_without_the_memo() -> None:
    scenario = sequential_scratch_scenario()
    _trusted_inputs(scenario)
    refused = with_policy(scenario, sequences=0)
    errors = []
    for compute in (_trusted_inputs, _unmemoized):
        with pytest.raises(VNextError) as caught:
            compute(refused)
        errors.append(caught.value.to_dict())
    assert errors[0] == errors[1] and errors[0]["kind"] == "invalid_resolved_model_plan"


def test_another_determinism_requirement_is_resolved_again() -> None:
    scenario = sequential_scratch_scenario()
    first = _trusted_inputs(scenario)
    fields = copy.deepcopy(with_policy(scenario)["policy"])
    found = [node for node in _walk(fields) if "execution_determinism" in node]
    assert found, "the seed policy names its determinism requirement"
    assert found[0]["execution_determinism"] == "bitwise_same_runtime_with_replay"
    found[0]["execution_determinism"] = "bitwise_same_runtime"
    other = {**scenario, "policy": fields}
    inputs = _trusted_inputs(other)
    assert inputs.resolutions is not first.resolutions
    assert inputs.build().to_json() == _unmemoized(other).build().to_json()


def _walk(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        return [node, *(found for value in node.values() for found in _walk(value))]
    if isinstance(node, list):
        return [found for item in node for found in _walk(item)]
    return []


def test_a_remembered_function_computes_once_per_arguments_and_afresh_inside_computed_directly() -> None:
    calls: list[tuple[str, int]] = []

    @remembered
    def square(label: str, value: int) -> int:
        calls.append((label, value))
        return value * value

    assert square("a", 3) == square("a", 3) == 9 and calls == [("a", 3)]
    assert square("a", True) == 1 and calls == [("a", 3), ("a", True)]  # another type, another entry
    with computed_directly():
        assert square("a", 3) == 9
    assert calls == [("a", 3), ("a", True), ("a", 3)]


def test_the_workspace_layout_fingerprint_is_the_fingerprint_of_its_class_name() -> None:
    assert workspace_layout_fingerprint() == fingerprint("opaque_bytes_v1", context="test")
    with computed_directly():
        assert workspace_layout_fingerprint() == fingerprint("opaque_bytes_v1", context="test")


def test_values_found_valid_are_known_by_identity_only_and_not_inside_computed_directly() -> None:
    verdicts = ValidByIdentity(2)
    first, second = (1, 2), ("a",)
    assert not verdicts.known(first, second)
    verdicts.add(first, second)
    assert verdicts.known(first, second)
    assert not verdicts.known(second, first)
    assert not verdicts.known(tuple(item for item in first), second)  # an equal but other object
    with computed_directly():
        assert not verdicts.known(first, second)
        verdicts.add(second)
    assert not verdicts.known(second)
    verdicts.add(second)
    verdicts.add(first)  # a third entry drops the oldest
    assert not verdicts.known(first, second) and verdicts.known(second) and verdicts.known(first)


def test_resolved_bindings_found_valid_are_not_checked_again_unless_computed_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reference.resolution import operation_bindings

    doc = ScenarioDocument.from_wire(sequential_scratch_scenario())
    inputs = scenario_trusted_inputs(doc)
    resolution = inputs.resolutions[0]
    node = inputs.family.program.node(resolution.node_id())
    assert node is not None
    operation = inputs.catalog.operation_for_node(node.id, node.operation_id)
    checked: list[object] = []
    real = type(operation).validate

    def counted(self: object) -> None:
        checked.append(self)
        real(self)  # type: ignore[arg-type]

    monkeypatch.setattr(type(operation), "validate", counted)
    monkeypatch.setattr(operation_bindings, "_VALID_PAIRS", ValidByIdentity(8))
    values = resolution.values()
    operation_bindings.validate_resolved_bindings(operation, values)
    operation_bindings.validate_resolved_bindings(operation, values)
    assert checked == [operation]
    operation_bindings.validate_resolved_bindings(operation, list(values))  # a list is never remembered
    with computed_directly():
        operation_bindings.validate_resolved_bindings(operation, values)
    assert checked == [operation] * 3
