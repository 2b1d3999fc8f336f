"""Estimates of every workspace shape through ``build_plan`` (04 §7-§10, 05 §7.5-§7.9).

Registry documents may declare the estimate an estimator answers with: its value alignment and
its scratch, persistent and binding workspaces, each with any size formula, alignment, scope,
reuse policy and storage. The estimator runs the formula and requirement constructors when it
answers, so their rules surface as ``InvalidExecutionPlan``; the resolution then applies the slot
and presence rules, and the memory plan derives dynamic descriptors from the formulas. The
backend's plan wire (or error) must equal the reference's. A version-2 scenario also resolves
nodes with distinct planning-registry instances, which the build must refuse (05 §3 step 4).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from seeds.catalogs import catalog_with_resources
from seeds.scenarios import plan_fixture_scenario, registries_scenario, sequential_scratch_scenario

CONTIGUOUS = {"accepted_profiles": [{"allocator": "linear_arena", "view": "contiguous"}]}


def _workspace(
    formula: dict[str, Any], scope: str, reuse: str, alignment: int = 16, storage: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "size_formula": formula,
        "alignment_bytes": alignment,
        "scope": scope,
        "reuse_policy": reuse,
        "storage": CONTIGUOUS if storage is None else storage,
    }


def _scratch(formula: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return _workspace(formula, kw.pop("scope", "invocation"), kw.pop("reuse", "overwrite_before_read"), **kw)


def _persistent(formula: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    formula = {"fixed": {"bytes": 32}} if formula is None else formula
    return _workspace(formula, kw.pop("scope", "plan"), kw.pop("reuse", "preserve"), **kw)


FIXED = {"fixed": {"bytes": 64}}
BUCKETS = {
    "bounded_shape_buckets": {
        "buckets": [
            {"maximum_sequences": 1, "maximum_tokens": 16, "maximum_pages": 1, "bytes": 64},
            {"maximum_sequences": 4, "maximum_tokens": 4096, "maximum_pages": 2, "bytes": 256},
        ]
    }
}


def _estimate(
    scratch: dict[str, Any] | None = None,
    persistent: dict[str, Any] | None = None,
    binding: dict[str, Any] | None = None,
    alignment: int = 16,
) -> dict[str, Any]:
    return {"value_alignment_bytes": alignment, "scratch": scratch, "persistent": persistent, "binding": binding}


def _scenario(estimate: dict[str, Any], resources: tuple[str, str, str] | None = None) -> dict[str, Any]:
    catalog = None if resources is None else catalog_with_resources(*resources)
    scenario = plan_fixture_scenario(0, catalog_value=catalog, scratch_bytes=0, persistent_bytes=0)
    for entry in scenario["registry"]["estimators"]:
        entry["estimate"] = copy.deepcopy(estimate)
    return scenario


def _same(backend: BackendUnderTest, oracle: Any, scenario: dict[str, Any]) -> dict[str, Any] | None:
    want = error_of(lambda: oracle.build_plan(scenario))
    if want is None:
        assert backend.build_plan(scenario) == oracle.build_plan(scenario), "plan wire differs from the reference"
        return None
    got = error_of(lambda: backend.build_plan(scenario))
    assert got == want, f"the backend answered {got}, the contract's error is {want}"
    return want


#: Accepted estimates: (estimate, operation resource presences or None for the seed's, rules).
ACCEPTED: dict[str, tuple[dict[str, Any], tuple[str, str, str] | None, tuple[str, ...]]] = {
    "fixed": (_estimate(_scratch(FIXED), _persistent()), None, ()),
    "tokens": (
        _estimate(_scratch({"tokens": {"bytes_per_token": 7}}), _persistent()),
        None,
        ("05.7.7/theoretical_maximum_shape",),
    ),
    "actual_sequences": (
        _estimate(_scratch({"actual_sequences": {"bytes_per_sequence": 24}}), _persistent()),
        None,
        ("04.7.1/bind_actual_sequences", "05.7.7/theoretical_maximum_shape", "05.7.7/resident_bytes"),
    ),
    "affine": (
        _estimate(
            _scratch({"affine": {"fixed_bytes": 8, "bytes_per_sequence": 16, "bytes_per_token": 2}}), _persistent()
        ),
        None,
        ("04.7.1/bind_affine", "05.7.7/theoretical_maximum_shape", "05.7.7/resident_bytes"),
    ),
    "pages": (
        _estimate(_scratch({"pages": {"bytes_per_page": 128, "maximum_pages": 3}}), _persistent()),
        None,
        ("04.7.1/bind_pages", "05.7.7/theoretical_maximum_shape"),
    ),
    "buckets": (
        _estimate(_scratch(BUCKETS), _persistent()),
        None,
        ("04.7.1/bind_buckets", "05.7.7/theoretical_maximum_shape"),
    ),
    "scratch_alignment_256": (_estimate(_scratch(FIXED, alignment=256), _persistent()), None, ()),
    "scratch_zero_before_use": (_estimate(_scratch(FIXED, reuse="zero_before_use"), _persistent()), None, ()),
    "value_alignment_64": (_estimate(_scratch(FIXED), _persistent(), alignment=64), None, ()),
    "persistent_request": (
        _estimate(_scratch(FIXED), _persistent({"tokens": {"bytes_per_token": 4}}, scope="request")),
        None,
        ("05.7.5/persistent_dynamic_scopes",),
    ),
    "persistent_sequence_buckets": (
        _estimate(
            _scratch(FIXED),
            _persistent(
                {
                    "bounded_shape_buckets": {
                        "buckets": [{"maximum_sequences": 1, "maximum_tokens": 8, "maximum_pages": 1, "bytes": 32}]
                    }
                },
                scope="sequence",
            ),
        ),
        None,
        ("05.7.5/persistent_dynamic_scopes", "04.7.1/sequence_scope_valid_formulas"),
    ),
    "persistent_sequence_affine_no_sequences": (
        _estimate(
            _scratch(FIXED),
            _persistent(
                {"affine": {"fixed_bytes": 8, "bytes_per_sequence": 0, "bytes_per_token": 4}}, scope="sequence"
            ),
        ),
        None,
        ("04.7.1/sequence_scope_valid_formulas",),
    ),
    "persistent_step": (
        _estimate(_scratch(FIXED), _persistent({"fixed": {"bytes": 48}}, scope="step")),
        None,
        ("05.7.5/persistent_dynamic_scopes",),
    ),
    "binding_workspace": (
        _estimate(_scratch(FIXED), _persistent(), binding=_scratch({"tokens": {"bytes_per_token": 3}})),
        ("required", "required", "required"),
        ("05.7.5/binding_descriptor", "05.7.9/binding_member_forces_concurrent", "04.9/step13g_binding_presence"),
    ),
    "optional_workspaces_absent": (
        _estimate(),
        ("optional", "optional", "optional"),
        ("04.9/step13g_persistent_presence",),
    ),
}


@pytest.mark.requires("build_plan")
@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_declared_estimates_build_the_reference_plan(backend: BackendUnderTest, oracle: Any, case: str) -> None:
    estimate, resources, rules = ACCEPTED[case]
    exercise(*rules)
    scenario = _scenario(estimate, resources)
    assert error_of(lambda: oracle.build_plan(scenario)) is None, "the reference refuses this estimate"
    _same(backend, oracle, scenario)


#: Refused estimates: (estimate, resource presences, rules); each must be InvalidExecutionPlan.
REFUSED: dict[str, tuple[dict[str, Any], tuple[str, str, str] | None, tuple[str, ...]]] = {
    "actual_sequences_zero": (
        _estimate(_scratch({"actual_sequences": {"bytes_per_sequence": 0}}), _persistent()),
        None,
        ("04.7.1/actual_sequences_nonzero",),
    ),
    "affine_no_coefficient": (
        _estimate(
            _scratch({"affine": {"fixed_bytes": 1, "bytes_per_sequence": 0, "bytes_per_token": 0}}), _persistent()
        ),
        None,
        ("04.7.1/affine_coefficient_nonzero",),
    ),
    "affine_overflow": (
        _estimate(
            _scratch({"affine": {"fixed_bytes": 2**63, "bytes_per_sequence": 2**63, "bytes_per_token": 1}}),
            _persistent(),
        ),
        None,
        ("04.7.1/affine_sum_fits_u64",),
    ),
    "pages_zero": (
        _estimate(_scratch({"pages": {"bytes_per_page": 0, "maximum_pages": 3}}), _persistent()),
        None,
        ("04.7.1/pages_nonzero",),
    ),
    "pages_overflow": (
        _estimate(_scratch({"pages": {"bytes_per_page": 2**63, "maximum_pages": 2}}), _persistent()),
        None,
        ("04.7.1/pages_product_fits_u64",),
    ),
    "no_buckets": (
        _estimate(_scratch({"bounded_shape_buckets": {"buckets": []}}), _persistent()),
        None,
        ("04.7.1/buckets_count_limit",),
    ),
    "65_buckets": (
        _estimate(
            _scratch(
                {
                    "bounded_shape_buckets": {
                        "buckets": [
                            {"maximum_sequences": 1, "maximum_tokens": i + 1, "maximum_pages": 1, "bytes": 64}
                            for i in range(65)
                        ]
                    }
                }
            ),
            _persistent(),
        ),
        None,
        ("04.7.1/buckets_count_limit",),
    ),
    "buckets_not_growing": (
        _estimate(
            _scratch(
                {
                    "bounded_shape_buckets": {
                        "buckets": [
                            {"maximum_sequences": 2, "maximum_tokens": 16, "maximum_pages": 1, "bytes": 64},
                            {"maximum_sequences": 1, "maximum_tokens": 32, "maximum_pages": 1, "bytes": 64},
                        ]
                    }
                }
            ),
            _persistent(),
        ),
        None,
        ("04.7.1/buckets_strictly_growing",),
    ),
    "buckets_bytes_shrink": (
        _estimate(
            _scratch(
                {
                    "bounded_shape_buckets": {
                        "buckets": [
                            {"maximum_sequences": 1, "maximum_tokens": 16, "maximum_pages": 1, "bytes": 64},
                            {"maximum_sequences": 1, "maximum_tokens": 32, "maximum_pages": 1, "bytes": 32},
                        ]
                    }
                }
            ),
            _persistent(),
        ),
        None,
        ("04.7.1/buckets_bytes_nondecreasing",),
    ),
    "bucket_zero_value": (
        _estimate(
            _scratch(
                {
                    "bounded_shape_buckets": {
                        "buckets": [{"maximum_sequences": 1, "maximum_tokens": 0, "maximum_pages": 1, "bytes": 64}]
                    }
                }
            ),
            _persistent(),
        ),
        None,
        ("04.7.1/shape_bucket_values_nonzero",),
    ),
    "alignment_not_power_of_two": (
        _estimate(_scratch(FIXED, alignment=24), _persistent()),
        None,
        ("04.7.2/alignment_power_of_two",),
    ),
    "plan_scope_not_fixed": (
        _estimate(_scratch(FIXED), _persistent({"tokens": {"bytes_per_token": 4}})),
        None,
        ("04.7.2/plan_scope_fixed",),
    ),
    "sequence_scope_actual_sequences": (
        _estimate(_scratch(FIXED), _persistent({"actual_sequences": {"bytes_per_sequence": 4}}, scope="sequence")),
        None,
        ("04.7.2/sequence_scope_formula", "04.7.1/sequence_scope_valid_formulas"),
    ),
    "scratch_preserve": (
        _estimate(_scratch(FIXED, reuse="preserve"), _persistent()),
        None,
        (
            "04.8.3/scratch_slot_rules",
            "04.10/derived_forged_workspace_rules",
            "04.7.2/reuse_policy_no_constructor_rule",
        ),
    ),
    "scratch_request_scope": (
        _estimate(_scratch(FIXED, scope="request"), _persistent()),
        None,
        ("04.8.3/scratch_slot_rules",),
    ),
    "persistent_invocation": (
        _estimate(_scratch(FIXED), _persistent(scope="invocation")),
        None,
        ("04.8.3/persistent_slot_rules", "04.10/derived_forged_workspace_rules"),
    ),
    "persistent_overwrite": (
        _estimate(_scratch(FIXED), _persistent(reuse="overwrite_before_read")),
        None,
        ("04.8.3/persistent_slot_rules",),
    ),
    "binding_zero_before_use": (
        _estimate(_scratch(FIXED), _persistent(), binding=_scratch(FIXED, reuse="zero_before_use")),
        ("required", "required", "required"),
        ("04.8.3/binding_slot_rules",),
    ),
    "binding_forbidden": (
        _estimate(_scratch(FIXED), _persistent(), binding=_scratch(FIXED)),
        None,
        ("04.9/step13g_binding_presence",),
    ),
    "binding_missing": (
        _estimate(_scratch(FIXED), _persistent()),
        ("required", "required", "required"),
        ("04.9/step13g_binding_presence",),
    ),
    "persistent_missing": (_estimate(_scratch(FIXED)), None, ("04.9/step13g_persistent_presence",)),
    "persistent_forbidden": (
        _estimate(_scratch(FIXED), _persistent()),
        ("required", "forbidden", "forbidden"),
        ("04.9/step13g_persistent_presence",),
    ),
    "value_alignment_8": (
        _estimate(_scratch(FIXED), _persistent(), alignment=8),
        None,
        ("04.10/derived_forged_workspace_rules",),
    ),
}


@pytest.mark.requires("build_plan")
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_estimates_are_the_reference_errors(backend: BackendUnderTest, oracle: Any, case: str) -> None:
    estimate, resources, rules = REFUSED[case]
    exercise(*rules)
    error = _same(backend, oracle, _scenario(estimate, resources))
    assert error is not None and error["kind"] == "invalid_execution_plan", error


@pytest.mark.requires("build_plan")
@pytest.mark.rules("04.9/step13h_workspace_storage_conflict")
def test_a_workspace_storage_the_device_lacks_is_refused_like_the_reference(
    backend: BackendUnderTest, oracle: Any
) -> None:
    paged = {"accepted_profiles": [{"allocator": "paged_pool", "view": "paged"}]}
    error = _same(backend, oracle, _scenario(_estimate(_scratch(FIXED, storage=paged), _persistent())))
    assert error is not None


@pytest.mark.requires("build_plan")
@pytest.mark.rules("05.3/step04_single_registry_authority")
def test_resolutions_of_distinct_registry_instances_are_refused(backend: BackendUnderTest, oracle: Any) -> None:
    base = sequential_scratch_scenario()
    one = registries_scenario(base, resolution_registries=[0, 0])
    assert backend.build_plan(one) == oracle.build_plan(base), "one registry instance must build the version-1 plan"
    two = registries_scenario(base, resolution_registries=[0, 1])
    error = _same(backend, oracle, two)
    assert error is not None and error["kind"] == "invalid_execution_plan"
