"""Weight materializer selection (seed 002, 05 §10) through the backend interface.

``select_weight_plan`` returns the selected ``ExecutionWeightPlan``'s wire and
canonical fingerprint. The identity plan and the seed's padded-dense and
derived-component selections must equal the reference byte for byte; the
seed's rejections (logically mutating materializer, approximate fidelity,
unregistered id, descriptor not in the catalog, duplicate registration, more
than 63 extra materializers, missing device capability) must be rejected with
the reference's error kind.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from harness.under_test import BackendUnderTest
from reference.api import VNextError, fingerprint, loads_strict
from seeds.scenarios import seed_scenario
from seeds.weights import seed_materializer_document, split_schema

IDENTITY_DESCRIPTOR = {
    "id": "weight-materializer.identity",
    "version": {"major": 2, "minor": 0},
    "implementation_fingerprint": "8b4938b533e7cdc431f40951c3a532b4426cc526a65d22fdacfd0fe5bf02caae",
}


def _selection(*names: str, select: str, augment: bool = True) -> dict[str, Any]:
    return {
        "registry": {"materializers": [seed_materializer_document(n) for n in names]},
        "materializer_id": select,
        "augment_catalog": augment,
    }


def _kind(call: Any) -> str | None:
    try:
        call()
    except VNextError as exc:
        return exc.kind
    return None


PADDED = "weight-materializer.test.padded-dense"
MUTATION = "weight-materializer.test.logical-mutation"
DERIVED = "weight-materializer.test.derived-components"

ACCEPTED = [
    pytest.param(seed_scenario("identity"), id="identity"),
    pytest.param(seed_scenario("padded", weights=_selection("padded_dense", select=PADDED)), id="padded_dense"),
    pytest.param(
        seed_scenario(
            "derived",
            family="fixed_schema",
            family_params={"schema": split_schema()},
            weights=_selection("derived_components", select=DERIVED),
        ),
        id="derived_components",
    ),
]


@pytest.mark.requires("select_weight_plan")
@pytest.mark.parametrize("scenario", ACCEPTED)
def test_selection_equals_reference(backend: BackendUnderTest, oracle: Any, scenario: dict[str, Any]) -> None:
    got = backend.select_weight_plan(scenario)
    want = oracle.select_weight_plan(scenario)
    assert got.wire == want.wire, "execution weight plan wire differs from the reference"
    assert got.fingerprint == want.fingerprint
    assert fingerprint(loads_strict(got.wire, context="conformance")) == got.fingerprint


@pytest.mark.requires("select_weight_plan")
def test_identity_plan_carries_the_identity_materializer(backend: BackendUnderTest) -> None:
    plan = loads_strict(backend.select_weight_plan(seed_scenario("identity")).wire, context="conformance")
    assert plan["materializer_id"] == IDENTITY_DESCRIPTOR["id"]
    assert plan["materializer_version"] == IDENTITY_DESCRIPTOR["version"]
    assert plan["materializer_implementation_fingerprint"] == IDENTITY_DESCRIPTOR["implementation_fingerprint"]
    assert all(sources == [cid] for cid, sources in plan["component_sources"].items())


def _rejections() -> list[Any]:
    base = seed_scenario("reject")
    approximate = _selection("padded_dense", select=PADDED)
    approximate["registry"]["materializers"][0]["descriptor"]["fidelity"] = "approximate"
    capability = _selection("padded_dense", select=PADDED)
    capability["registry"]["materializers"][0]["descriptor"]["required_capabilities"] = ["capability.missing"]
    duplicate = _selection("padded_dense", "padded_dense", select=PADDED)
    too_many = _selection(select=PADDED)
    entry = seed_materializer_document("padded_dense")
    for i in range(64):
        item = copy.deepcopy(entry)
        item["descriptor"]["id"] = f"weight-materializer.extra.{i}"
        too_many["registry"]["materializers"].append(item)
    cases = {
        "logical_mutation": _selection("logical_mutation", select=MUTATION),
        "approximate_fidelity": approximate,
        "unregistered": _selection("padded_dense", select="weight-materializer.unknown"),
        "not_in_catalog": _selection("padded_dense", select=PADDED, augment=False),
        "duplicate_registration": duplicate,
        "registry_over_63": too_many,
        "missing_device_capability": capability,
    }
    return [pytest.param({**base, "weights": sel}, id=name) for name, sel in cases.items()]


@pytest.mark.requires("select_weight_plan")
@pytest.mark.parametrize("scenario", _rejections())
def test_rejections_match_reference(backend: BackendUnderTest, oracle: Any, scenario: dict[str, Any]) -> None:
    want = _kind(lambda: oracle.select_weight_plan(scenario))
    assert want == "invalid_execution_plan", "seed 002 rejects every one of these with InvalidExecutionPlan"
    assert _kind(lambda: backend.select_weight_plan(scenario)) == want
