"""Differential planning: on generated scenarios the backend and the reference agree.

Agreement means: both build a plan with the same wire bytes, or both refuse with the
same error kind. Scenarios come from every family of generator: valid seed-shaped
scenarios (``strategies.scenarios``: seed 002 materializer plans and container-format
bindings among them), budget variations and estimator behaviours
(``strategies.budget``), numeric edges, hostile custom policies and budget-boundary
policies (``strategies.policy``), and catalog / family documents a contract rule
refuses (``strategies.catalog``, ``strategies.model_rejections``). A fixed table of accepted
variants of the plan fixture (a custom or reusable-execution policy, a lenient member) runs on
every profile, each showing one contract value in its plan. A disagreement is written as a
replayable ``build_plan`` bundle whose expectation is the reference's outcome.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.bundles import Bundle
from harness.cases import exercise
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.protocol.operations import OPERATIONS
from harness.under_test import BackendUnderTest
from reference.api import VNextError
from strategies.budget import (
    BASES,
    BudgetCase,
    EdgeCase,
    base_scenario,
    budget_cases,
    edge_cases,
    estimator_cases,
    with_policy,
)
from strategies.cases import Rejection
from strategies.catalog_rejections import catalog_rejections
from strategies.json_edits import Edit, apply_edits
from strategies.model_rejections import family_rejections
from strategies.policy import (
    ACCEPTED_POLICY_VARIANTS,
    BoundaryPolicy,
    HostilePolicy,
    boundary_policies,
    hostile_policies,
)
from strategies.scenarios import ScenarioCase, container_format_cases, scenario_cases

pytestmark = pytest.mark.requires("build_plan")

SEED_DEVICE: Final = 1 << 20
#: Per base: the reference's ``static + minimum_runnable`` bytes (plan_fixture: 48 + 112, 05 §7.16).
_NEEDS: dict[str, int] = {}


def _outcome(backend: BackendUnderTest, scenario: Mapping[str, Any]) -> bytes | VNextError:
    try:
        return backend.build_plan(scenario)
    except VNextError as exc:
        return exc


def _text(outcome: bytes | VNextError) -> str:
    return f"error {outcome.kind}" if isinstance(outcome, VNextError) else f"a plan ({len(outcome)} bytes)"


def _agree(
    backend: BackendUnderTest,
    oracle: BackendUnderTest,
    counterexamples: CounterexampleRecorder,
    case: str,
    scenario: Mapping[str, Any],
    label: str,
) -> bytes | VNextError:
    """Assert agreement; the reference's outcome."""
    want = _outcome(oracle, scenario)

    def bundle() -> Bundle:
        expect = oracle.outcome(OPERATIONS["build_plan"], {"scenario": scenario}).to_wire()
        return Bundle("build_plan", {"scenario": dict(scenario)}, expect, case, note=label)

    with counterexamples.on_failure(bundle):
        got = _outcome(backend, scenario)
        what = f"{label}: backend gives {_text(got)}, the reference {_text(want)}"
        if isinstance(want, VNextError):
            assert isinstance(got, VNextError) and got.kind == want.kind, what
        else:
            assert not isinstance(got, VNextError), what
            assert got == want, f"{label}: plan wire differs from the reference"
    return want


def _need(oracle: BackendUnderTest, base: str) -> int:
    """The reference's ``static + minimum_runnable`` for a base (roomy policy)."""
    if base not in _NEEDS:
        wire = oracle.build_plan(with_policy(base_scenario(base), capacity=SEED_DEVICE))
        memory = json.loads(wire)["payload"]["memory"]
        _NEEDS[base] = memory["static_bytes"] + memory["minimum_runnable_request_bytes"]
    return _NEEDS[base]


def _with_section(base: str, **sections: Any) -> dict[str, Any]:
    scenario = base_scenario(base)
    scenario.update(copy.deepcopy(sections))
    return scenario


# --------------------------------------------------------------------------- valid generators


@given(case=scenario_cases())
def test_seed_shaped_scenarios_agree(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: ScenarioCase
) -> None:
    _agree(backend, oracle, counterexamples, "differential/seed_shaped", case.scenario, case.label)


@given(case=st.booleans().flatmap(lambda quantized: container_format_cases(quantized=quantized)))
def test_container_format_bindings_agree(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: ScenarioCase
) -> None:
    """Dense bindings in a container format build; quantized ones need their formats (04 §9 step 9)."""
    _agree(backend, oracle, counterexamples, "differential/container_format", case.scenario, case.label)


@given(case=budget_cases())
def test_budget_variations_agree(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: BudgetCase
) -> None:
    _agree(backend, oracle, counterexamples, "differential/budget", case.scenario, case.label)


@given(case=estimator_cases(bases=BASES))
def test_estimator_behaviours_agree(
    backend: BackendUnderTest,
    oracle: BackendUnderTest,
    counterexamples: CounterexampleRecorder,
    case: tuple[str, str, int, dict[str, Any]],
) -> None:
    base, behavior, scratch, scenario = case
    _agree(backend, oracle, counterexamples, "differential/estimator", scenario, f"{base}({behavior}, {scratch})")


@given(case=edge_cases())
def test_numeric_edges_agree(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: EdgeCase
) -> None:
    _agree(backend, oracle, counterexamples, "differential/edge", case.scenario, f"{case.edge}{dict(case.values)}")


# --------------------------------------------------------------------------- fixed accepted variants

#: ``plan_fixture`` variants the contract accepts, each showing one value in its plan: (edits, rules checked).
ACCEPTED_VARIANTS: Final[dict[str, tuple[tuple[Edit, ...], tuple[str, ...]]]] = {
    **{
        name: ((Edit(("policy",), "set", document),), rules)
        for name, (document, rules) in ACCEPTED_POLICY_VARIANTS.items()
    },
    # 04 §5.5: resolved weight component entries derive Deserialize without deny_unknown_fields.
    "weight_component_unknown_member": (
        (
            Edit(
                ("resolutions", 0, "values", {"value_id": "value.weight"}, "weight", "components", 0, "packing"),
                "set",
                "row_major",
            ),
        ),
        ("04.5.5/component_layout_unknown_keys_ignored",),
    ),
}


@pytest.mark.parametrize("variant", sorted(ACCEPTED_VARIANTS))
def test_accepted_variants_build_the_reference_plan(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, variant: str
) -> None:
    edits, rules = ACCEPTED_VARIANTS[variant]
    exercise(*rules)
    scenario = apply_edits(base_scenario("plan_fixture"), edits)
    want = _agree(backend, oracle, counterexamples, "differential/accepted_variant", scenario, variant)
    assert not isinstance(want, VNextError), f"{variant}: the reference refuses it: {want}"


# --------------------------------------------------------------------------- adversarial generators


@given(base=st.sampled_from(BASES), hostile=hostile_policies(device_capacity=SEED_DEVICE))
def test_hostile_policies_agree(
    backend: BackendUnderTest,
    oracle: BackendUnderTest,
    counterexamples: CounterexampleRecorder,
    base: str,
    hostile: HostilePolicy,
) -> None:
    scenario = _with_section(base, policy=hostile.document)
    want = _agree(backend, oracle, counterexamples, "differential/hostile_policy", scenario, hostile.hostility)
    if hostile.expected_kind is not None:
        assert isinstance(want, VNextError) and want.kind == hostile.expected_kind, (
            f"{hostile.hostility}: the reference gives {_text(want)}, "
            f"the rule ({hostile.rule}) says {hostile.expected_kind}"
        )


@given(base=st.sampled_from(BASES), data=st.data())
def test_budget_boundary_policies_agree(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, base: str,
    data: st.DataObject,
) -> None:  # fmt: skip
    boundary: BoundaryPolicy = data.draw(
        boundary_policies(_need(oracle, base), device_capacity=SEED_DEVICE), label="boundary policy"
    )
    scenario = _with_section(base, policy=boundary.document)
    label = f"{base}(need={boundary.need}, margin={boundary.margin})"
    _agree(backend, oracle, counterexamples, "differential/budget_boundary", scenario, label)


@given(rejection=catalog_rejections())
def test_catalog_rejections_agree(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, rejection: Rejection
) -> None:
    scenario = _with_section("plan_fixture", catalog=rejection.document)
    want = _agree(backend, oracle, counterexamples, "differential/catalog_rejection", scenario, rejection.operator)
    assert isinstance(want, VNextError) and want.kind == rejection.expected_kind, (
        f"{rejection.operator}: the reference gives {_text(want)}, {rejection.rule} says {rejection.expected_kind}"
    )


@given(rejection=family_rejections())
def test_family_rejections_agree(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, rejection: Rejection
) -> None:
    case = rejection.document
    assert isinstance(case, dict)
    family = {"document": case["family"], "raw_config": case["config"], "numerical_profile": case["profile"]}
    scenario = _with_section("plan_fixture", family=family)
    want = _agree(backend, oracle, counterexamples, "differential/family_rejection", scenario, rejection.operator)
    assert isinstance(want, VNextError), f"{rejection.operator}: the reference builds a plan"
