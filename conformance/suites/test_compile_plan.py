"""The program plan compiler (05 §7.13) through ``compile_plan``.

The compiler gives every program input and node output an activation storage, every state a
state storage, lays the referenced weight components out in one arena per physical element type
(probe pass, then at most 65 rounds of the alignment fixed point) and builds the plan from its own
node resolutions. The backend's plan wire must equal the reference's byte for byte; the compiler's
resource ids, arena offsets and arena rows are checked against the contract's formulas; option and
alignment failures must be the reference's errors.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from reference.api import VNextError, loads_strict, sha256_hex
from seeds.catalogs import catalog, planning_document
from seeds.scenarios import seed_scenario

MAX_WIRE = 16 * 1024 * 1024
INPUT = {"dimensions": [4], "element_type": "f32", "layout": "contiguous"}


def _options(tensor_specs: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "tensor_specs": {"value.input": INPUT} if tensor_specs is None else tensor_specs,
        "required_capabilities": extra.get("required_capabilities", {}),
        "preferred_providers": extra.get("preferred_providers", {}),
    }


def _scenario(behavior: str = "correct", family: str = "test") -> dict[str, Any]:
    cat = catalog()
    registry = planning_document(cat, 64, 32, behavior).to_wire()
    return seed_scenario(f"compile-{family}-{behavior}", family=family, catalog_value=cat, registry=registry)


def _compiler_id(kind: str, family_fingerprint: str, semantic: str) -> str:
    """05 §7.3: ``resource/<kind>/sha256/hex(sha256(kind \\0 family fingerprint \\0 semantic))``."""
    digest = sha256_hex(f"{kind}\0{family_fingerprint}\0{semantic}".encode())
    return f"resource/{kind}/sha256/{digest}"


def _compiled(
    backend: BackendUnderTest, oracle: Any, scenario: dict[str, Any], options: dict[str, Any]
) -> dict[str, Any]:
    got = backend.compile_plan(scenario, options)
    want = oracle.compile_plan(scenario, options)
    assert got == want, "the compiled plan wire differs from the reference"
    plan: dict[str, Any] = loads_strict(got, context="conformance: decode compiled plan", max_bytes=MAX_WIRE)
    return plan


def _node_values(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [value for node in plan["payload"]["nodes"] for value in node["values"]]


def _static_rows(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["resource_id"]: row for row in plan["payload"]["memory"]["static_allocations"]}


@pytest.mark.requires("compile_plan")
@pytest.mark.rules(
    "01.1.5/weight_arena_id_prefix",
    "05.7.3/compiler_resource_ids",
    "05.7.13/probe_pass",
    "05.7.13/arena_layout",
    "05.7.13/arena_static_rows",
    "05.7.13/other_storages",
    "05.7.13/arena_alignment64_result",
)
@pytest.mark.parametrize(("behavior", "alignment"), [("correct", 16), ("arena_alignment64", 64)])
def test_the_compiled_plan_equals_the_reference_and_the_formulas(
    backend: BackendUnderTest, oracle: Any, behavior: str, alignment: int
) -> None:
    scenario = _scenario(behavior)
    plan = _compiled(backend, oracle, scenario, _options())
    family = oracle.prepare_family(scenario).fingerprint
    arena = _compiler_id("weight-arena", family, '"f32"')
    assert arena.startswith("resource/weight-arena/sha256/")
    (node,) = plan["payload"]["nodes"]
    assert node["provider_resources"]["value_alignment_bytes"] == alignment
    storages = {v["value_id"]: v["storage"]["components"] for v in node["values"]}
    assert [c["resource_id"] for c in storages["value.weight"]] == [arena]
    assert all(c["offset_bytes"] % alignment == 0 for c in storages["value.weight"])
    assert storages["value.input"][0]["resource_id"] == _compiler_id("activation", family, "value.input")
    assert storages["value.output"][0]["resource_id"] == _compiler_id("activation", family, "value.output")
    assert storages["value.state"][0]["resource_id"] == _compiler_id("state", family, "state.cache")
    row = _static_rows(plan)[arena]
    end = max(c["offset_bytes"] + c["length_bytes"] for c in storages["value.weight"])
    assert row["size_bytes"] == -(-end // alignment) * alignment


@pytest.mark.requires("compile_plan")
@pytest.mark.rules("05.7.13/other_storages", "05.7.3/compiler_resource_ids")
def test_a_two_node_program_compiles_like_the_reference(backend: BackendUnderTest, oracle: Any) -> None:
    scenario = _scenario(family="sequential_scratch")
    plan = _compiled(backend, oracle, scenario, _options())
    family = oracle.prepare_family(scenario).fingerprint
    intermediate = {
        v["storage"]["components"][0]["resource_id"]
        for v in _node_values(plan)
        if v["value_id"] == "value.intermediate"
    }
    assert intermediate == {_compiler_id("activation", family, "value.intermediate")}


REJECTIONS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "missing_input_spec": ("correct", _options({}), ("05.7.13/input_tensor_specs_required",)),
    "unknown_value": (
        "correct",
        _options({"value.input": INPUT, "value.unknown": INPUT}),
        ("05.7.13/input_tensor_specs_required",),
    ),
    "unknown_node": ("correct", _options(preferred_providers={"node.none": "provider.none"}), ()),
    "input_shape_off_contract": (
        "correct",
        _options({"value.input": {**INPUT, "dimensions": [5]}}),
        ("05.7.13/probe_pass",),
    ),
    "non_power_of_two_alignment": ("invalid_alignment", _options(), ("05.7.13/probe_alignment_power_of_two",)),
    "missing_capability": ("correct", _options(required_capabilities={"node.main": ["capability.missing"]}), ()),
}


@pytest.mark.requires("compile_plan")
@pytest.mark.parametrize("case", sorted(REJECTIONS))
def test_rejections_match_the_reference(backend: BackendUnderTest, oracle: Any, case: str) -> None:
    behavior, options, rules = REJECTIONS[case]
    exercise(*rules)
    scenario = _scenario(behavior)
    want = error_of(lambda: oracle.compile_plan(scenario, options))
    assert want is not None, "the reference compiles this"
    got = error_of(lambda: backend.compile_plan(scenario, options))
    assert got == want, f"the backend answered {got}, the contract's error is {want}"


@pytest.mark.requires("compile_plan")
@pytest.mark.rules("05.7.13/input_tensor_specs_required")
def test_a_missing_input_spec_names_the_capacity_rule(backend: BackendUnderTest) -> None:
    with pytest.raises(VNextError) as info:
        backend.compile_plan(_scenario(), _options({}))
    error = info.value.to_dict()
    assert error["kind"] == "invalid_execution_plan"
    assert "every program input requires an explicit canonical tensor capacity" in error["reason"]


@pytest.mark.requires("compile_plan")
@pytest.mark.parametrize(
    "options",
    [
        pytest.param([], id="not_an_object"),
        pytest.param({"tensor_specs": {}}, id="missing_keys"),
        pytest.param({**_options(), "extra": 1}, id="unknown_key"),
        pytest.param(_options({"bad id": INPUT}), id="bad_value_id"),
        pytest.param(_options(required_capabilities={"node.main": "capability"}), id="capabilities_not_a_list"),
    ],
)
def test_malformed_options_are_a_decode_error_before_the_scenario(
    backend: BackendUnderTest, oracle: Any, options: Any
) -> None:
    broken = copy.deepcopy(_scenario())
    broken["scenario_version"] = 99
    want = error_of(lambda: oracle.compile_plan(broken, options))
    assert want == {"kind": "serialization", "context": "decode compile options"}
    assert error_of(lambda: backend.compile_plan(broken, options)) == want
