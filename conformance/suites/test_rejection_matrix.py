"""Rejection matrices: every operator of the catalog, family, policy, hostile-policy and node-resolution
rejection generators, once per run.

Each cell is one deterministic document broken by one operator (``strategies.matrix``: the same example on
every run), put into the ``plan_fixture`` scenario in place of its catalog, family or policy section. The
backend's ``build_plan`` must refuse it with the reference's error: the same kind and every field the
contract pins (``contract_errors.pinned``: all but the free-text ones), and the kind the operator's rule
names. A hostile custom policy (``strategies.policy.hostile_policies``, started from the base's own policy)
is either refused at the planner's prologue with the kind its rule names or trusted as reported: the
backend must then answer exactly as the reference does, the same plan bytes or the same pinned error. The
node-resolution matrix breaks the ``resolutions`` section of every base scenario by every operator that
applies to it (``strategies.resolution_rejections``). Generated variants of the catalog, family and hostile
policy operators run in ``differential`` and scale with the profile.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of, pinned
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from reference.api import VNextError
from seeds.scenarios import partitioned_storage_scenario
from strategies.budget import BASES, base_scenario, with_policy
from strategies.cases import Rejection
from strategies.catalog_rejections import CATALOG_OPERATORS, catalog_rejections
from strategies.matrix import matrix_example
from strategies.model_rejections import FAMILY_OPERATORS, family_rejections
from strategies.policy import HOSTILE_POLICY_OPERATORS, POLICY_OPERATORS, hostile_policies, policy_rejections
from strategies.resolution_rejections import RESOLUTION_OPERATORS, break_resolutions

pytestmark = pytest.mark.requires("build_plan")

BASE = "plan_fixture"


def _with_section(**sections: Any) -> dict[str, Any]:
    scenario = base_scenario(BASE)
    scenario.update(copy.deepcopy(sections))
    return scenario


def _family_section(case: Any) -> dict[str, Any]:
    assert isinstance(case, dict)
    return {"document": case["family"], "raw_config": case["config"], "numerical_profile": case["profile"]}


def _resolution_cells() -> list[tuple[str, str]]:
    return [
        (base, operator)
        for base in BASES
        for operator in RESOLUTION_OPERATORS
        if break_resolutions(base_scenario(base), operator) is not None
    ]


def _exercise(rule: str | None) -> None:
    """The operator's catalogue rule (``None``: it breaks only its document's format): its refusal is what the
    case compares (``tests/strategies`` keep each rule the one the reference's refusal implements)."""
    if rule is not None:
        exercise(rule)


def _check(backend: BackendUnderTest, oracle: BackendUnderTest, scenario: Mapping[str, Any], cell: Rejection) -> None:
    want = error_of(lambda: oracle.build_plan(scenario))
    assert want is not None, f"{cell.operator}: the reference builds a plan"
    assert want["kind"] == cell.expected_kind, f"{cell.operator}: the reference gives {want}, {cell.rule} says"
    for name, value in cell.fields.items():
        assert want.get(name) == value, f"{cell.operator}: the reference's {name} is {want.get(name)!r}, not {value!r}"
    got = error_of(lambda: backend.build_plan(scenario))
    assert got is not None, f"{cell.operator} ({cell.rule}): the backend builds a plan; the reference gives {want}"
    assert got == want, f"{cell.operator} ({cell.rule}): the backend gives {got}, the reference {want}"


@pytest.mark.parametrize("operator", list(CATALOG_OPERATORS))
def test_catalog_rejection_matrix(backend: BackendUnderTest, oracle: BackendUnderTest, operator: str) -> None:
    cell = matrix_example(catalog_rejections(operators=(operator,)))
    _exercise(CATALOG_OPERATORS[operator])
    _check(backend, oracle, _with_section(catalog=cell.document), cell)


@pytest.mark.parametrize("operator", sorted(FAMILY_OPERATORS))
def test_family_rejection_matrix(backend: BackendUnderTest, oracle: BackendUnderTest, operator: str) -> None:
    cell = matrix_example(family_rejections(operators=(operator,)))
    exercise(cell.rule)
    _check(backend, oracle, _with_section(family=_family_section(cell.document)), cell)


@pytest.mark.parametrize("operator", list(POLICY_OPERATORS))
def test_policy_rejection_matrix(backend: BackendUnderTest, oracle: BackendUnderTest, operator: str) -> None:
    cell = matrix_example(policy_rejections(operators=(operator,)))
    _exercise(POLICY_OPERATORS[operator])
    _check(backend, oracle, _with_section(policy=cell.document), cell)


def _hostile_cells() -> list[Any]:
    return [
        pytest.param(name, id=name, marks=[pytest.mark.rules(rule)] if rule is not None else [])
        for name, rule in HOSTILE_POLICY_OPERATORS.items()
    ]


def _answer(under: BackendUnderTest, scenario: Mapping[str, Any]) -> tuple[str, Any]:
    """``("plan", wire bytes)`` or ``("error", pinned fields)``."""
    try:
        return "plan", under.build_plan(scenario)
    except VNextError as exc:
        return "error", pinned(exc)


@pytest.mark.parametrize("hostility", _hostile_cells())
def test_hostile_policy_matrix(backend: BackendUnderTest, oracle: BackendUnderTest, hostility: str) -> None:
    base = base_scenario(BASE)
    honest = with_policy(base)["policy"]["fields"]
    device = base["catalog"]["device"]["total_memory_bytes"]
    hostile = matrix_example(hostile_policies(device_capacity=device, hostilities=(hostility,), fields=honest))
    scenario = _with_section(policy=hostile.document)
    want = _answer(oracle, scenario)
    if hostile.expected_kind is not None:
        assert want[0] == "error" and want[1]["kind"] == hostile.expected_kind, (
            f"{hostility}: the reference answers {want[1] if want[0] == 'error' else 'a plan'}; "
            f"{hostile.rule} says {hostile.expected_kind}"
        )
    got = _answer(backend, scenario)
    if want[0] == "plan":
        assert got[0] == "plan", (
            f"{hostility} ({hostile.rule}): the reference builds a plan; the backend gives {got[1]}"
        )
        assert got[1] == want[1], f"{hostility} ({hostile.rule}): the backend's plan wire differs from the reference's"
    else:
        assert got[0] == "error", (
            f"{hostility} ({hostile.rule}): the backend builds a plan; the reference gives {want[1]}"
        )
        assert got[1] == want[1], f"{hostility} ({hostile.rule}): the backend gives {got[1]}, the reference {want[1]}"


@pytest.mark.parametrize(("base", "operator"), _resolution_cells())
def test_resolution_rejection_matrix(
    backend: BackendUnderTest, oracle: BackendUnderTest, base: str, operator: str
) -> None:
    scenario = break_resolutions(base_scenario(base), operator)
    assert scenario is not None
    want = error_of(lambda: oracle.build_plan(scenario))
    assert want is not None, f"{base}/{operator}: the reference builds a plan"
    got = error_of(lambda: backend.build_plan(scenario))
    assert got is not None, f"{base}/{operator}: the backend builds a plan; the reference gives {want}"
    assert got == want, f"{base}/{operator}: the backend gives {got}, the reference {want}"


# --------------------------------------------------------------------------- joint provider/storage selection


@pytest.mark.requires("build_plan")
def test_nodes_sharing_a_resource_with_disjoint_storage_have_no_joint_selection(
    backend: BackendUnderTest, oracle: BackendUnderTest
) -> None:
    """05 §6.2: ``node.first`` can only bind its output paged, ``node.second`` its input contiguous; they share
    ``value.intermediate``'s resource, so no assignment of providers and profiles satisfies both."""
    scenario = partitioned_storage_scenario("capability.a", "capability.b")
    with pytest.raises(VNextError) as info:
        oracle.build_plan(scenario)
    raw = info.value.to_dict()
    assert raw["kind"] == "invalid_execution_plan" and "no compatible assignment" in raw["reason"], raw
    want = error_of(lambda: oracle.build_plan(scenario))
    got = error_of(lambda: backend.build_plan(scenario))
    assert got is not None, f"the backend builds a plan; the reference gives {want}"
    assert got == want, f"the backend gives {got}, the reference {want}"
