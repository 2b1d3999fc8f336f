"""Declared estimates in registry documents (decision H-21): shape at decode, constructors at estimate time."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import schemas
from reference import api
from reference.documents.registry import RegistryDocument
from reference.documents.workspace_estimate import EstimateDocument
from reference.errors import InvalidExecutionPlan, Serialization
from seeds.scenarios import plan_fixture_scenario

CONTIGUOUS = {"accepted_profiles": [{"allocator": "linear_arena", "view": "contiguous"}]}


def _workspace(
    formula: dict[str, Any], scope: str = "invocation", reuse: str = "overwrite_before_read"
) -> dict[str, Any]:
    return {
        "size_formula": formula,
        "alignment_bytes": 16,
        "scope": scope,
        "reuse_policy": reuse,
        "storage": CONTIGUOUS,
    }


ESTIMATE = {
    "value_alignment_bytes": 16,
    "scratch": _workspace({"fixed": {"bytes": 64}}),
    "persistent": _workspace({"fixed": {"bytes": 32}}, "plan", "preserve"),
    "binding": None,
}


def _scenario(estimate: Any, **entry: Any) -> dict[str, Any]:
    scenario = plan_fixture_scenario(0, scratch_bytes=0, persistent_bytes=0)
    for item in scenario["registry"]["estimators"]:
        item["estimate"] = copy.deepcopy(estimate)
        item.update(entry)
    return scenario


def test_a_declared_estimate_equal_to_the_behaviour_builds_the_same_plan() -> None:
    assert api.build_plan(_scenario(ESTIMATE)) == api.build_plan(plan_fixture_scenario(0))


def test_documents_round_trip_and_match_the_schema() -> None:
    scenario = _scenario(ESTIMATE)
    schemas.validate("scenario.json", scenario)
    doc = RegistryDocument.from_wire(scenario["registry"])
    assert doc.to_wire() == scenario["registry"]
    plain = plan_fixture_scenario(0)["registry"]
    assert RegistryDocument.from_wire(plain).to_wire() == plain and "estimate" not in str(plain)


@pytest.mark.parametrize(
    ("formula", "variant"),
    [
        ({"fixed": {"bytes": 0}}, "fixed"),
        ({"actual_sequences": {"bytes_per_sequence": 0}}, "actual_sequences"),
        ({"affine": {"fixed_bytes": 1, "bytes_per_sequence": 0, "bytes_per_token": 0}}, "affine"),
        ({"pages": {"bytes_per_page": 1, "maximum_pages": 0}}, "pages"),
        ({"bounded_shape_buckets": {"buckets": []}}, "bounded_shape_buckets"),
    ],
)
def test_invalid_numbers_decode_and_fail_in_the_constructor(formula: dict[str, Any], variant: str) -> None:
    estimate = EstimateDocument.from_wire({**ESTIMATE, "scratch": _workspace(formula)}, "c", "$")
    assert estimate.scratch is not None and estimate.scratch.size_formula.variant == variant
    with pytest.raises(InvalidExecutionPlan):
        estimate.workspaces()
    with pytest.raises(InvalidExecutionPlan):
        api.build_plan(_scenario({**ESTIMATE, "scratch": _workspace(formula)}))


@pytest.mark.parametrize(
    "estimate",
    [
        None,
        {**ESTIMATE, "extra": 1},
        {**ESTIMATE, "scratch": _workspace({"linear": {"bytes": 1}})},
        {**ESTIMATE, "scratch": _workspace({"fixed": {"bytes": -1}})},
        {**ESTIMATE, "scratch": _workspace({"fixed": {"bytes": 1, "x": 2}})},
        {**ESTIMATE, "scratch": {**_workspace({"fixed": {"bytes": 1}}), "scope": "forever"}},
        {**ESTIMATE, "scratch": {**_workspace({"fixed": {"bytes": 1}}), "storage": {"accepted_profiles": []}}},
        {key: value for key, value in ESTIMATE.items() if key != "binding"},
    ],
)
def test_shape_errors_are_serialization_of_the_scenario(estimate: Any) -> None:
    with pytest.raises(Serialization) as info:
        api.build_plan(_scenario(estimate))
    assert info.value.context == "decode scenario"


@pytest.mark.parametrize(
    "entry",
    [
        {"behavior": "missing_scratch"},
        {"behavior": "arena_alignment64"},
        {"scratch_bytes": 1},
        {"scratch_bytes_by_node": {"node.main": 1}},
    ],
)
def test_an_estimate_excludes_the_shaping_behaviours_and_byte_counts(entry: dict[str, Any]) -> None:
    with pytest.raises(Serialization):
        api.build_plan(_scenario(ESTIMATE, **entry))


def test_identity_behaviours_still_forge_with_a_declared_estimate() -> None:
    with pytest.raises(InvalidExecutionPlan):
        api.build_plan(_scenario(ESTIMATE, behavior="wrong_estimator_id"))
