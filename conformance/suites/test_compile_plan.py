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
from collections.abc import Callable
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from reference.api import VNextError, loads_strict, sha256_hex
from seeds.catalogs import (
    catalog,
    catalog_with_main_inputs,
    catalog_with_main_output,
    catalog_with_u8_range_weight,
    planning_document,
)
from seeds.scenarios import seed_scenario
from seeds.weights import split_schema
from strategies.policy import reusable_bucket

MAX_WIRE = 16 * 1024 * 1024
INPUT = {"dimensions": [4], "element_type": "f32", "layout": "contiguous"}


def _options(tensor_specs: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "tensor_specs": {"value.input": INPUT} if tensor_specs is None else tensor_specs,
        "required_capabilities": extra.get("required_capabilities", {}),
        "preferred_providers": extra.get("preferred_providers", {}),
    }


def _scenario(
    behavior: str = "correct",
    family: str = "test",
    catalog_value: Any = None,
    family_params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    cat = catalog() if catalog_value is None else catalog_value
    registry = planning_document(cat, 64, 32, behavior).to_wire()
    return seed_scenario(
        f"compile-{family}-{behavior}",
        family=family,
        family_params=family_params,
        catalog_value=cat,
        registry=registry,
    )


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
@pytest.mark.parametrize(
    ("behavior", "alignment", "weights"),
    [("correct", 16, "test"), ("arena_alignment64", 64, "test"), ("arena_alignment64", 64, "split")],
)
def test_the_compiled_plan_equals_the_reference_and_the_formulas(
    backend: BackendUnderTest, oracle: Any, behavior: str, alignment: int, weights: str
) -> None:
    """``split``: one weight of two f32 components, laid out in one arena (the second at a non-zero offset)."""
    if weights == "split":
        scenario = _scenario(behavior, "fixed_schema", family_params={"schema": split_schema()})
    else:
        scenario = _scenario(behavior)
    plan = _compiled(backend, oracle, scenario, _options())
    family = oracle.prepare_family(scenario).fingerprint
    arena = _compiler_id("weight-arena", family, '"f32"')
    assert arena.startswith("resource/weight-arena/sha256/")
    (node,) = plan["payload"]["nodes"]
    assert node["provider_resources"]["value_alignment_bytes"] == alignment
    storages = {v["value_id"]: v["storage"]["components"] for v in node["values"]}
    assert {c["resource_id"] for c in storages["value.weight"]} == {arena}
    assert len(storages["value.weight"]) == (2 if weights == "split" else 1)
    assert all(c["offset_bytes"] % alignment == 0 for c in storages["value.weight"])
    offsets = [c["offset_bytes"] for c in storages["value.weight"]]
    assert offsets == sorted(set(offsets)), "arena components are laid out in schema order without overlap"
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


@pytest.mark.requires("compile_plan")
@pytest.mark.rules("02.10.1/demand_minimum_bytes")
def test_a_state_storage_is_its_demands_minimum_bytes(backend: BackendUnderTest, oracle: Any) -> None:
    """02 §10.1: a state's storage holds ``minimum_bytes`` of its demand: the tensor's 4 bytes when fixed per scope,
    ``bytes_per_token`` (8) when token-scaled."""
    for demand, length in (("fixed_per_scope", 4), ({"token_scaled": {"bytes_per_token": 8, "maximum_tokens": 4}}, 8)):
        scenario = _scenario()
        document = scenario["family"]["document"]
        for states in (document["program"]["states"], document["numerical_profiles"]["profiles"][0]["states"]):
            states[0]["capacity_demand"] = demand
        plan = _compiled(backend, oracle, scenario, _options())
        (state,) = [value for value in _node_values(plan) if value["value_id"] == "value.state"]
        assert state["storage"]["components"][0]["length_bytes"] == length


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
    "non_power_of_two_alignment": ("invalid_alignment", _options(), ("04.8.3/value_alignment_power_of_two",)),
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


# --------------------------------------------------------------------------- one rule-breaking input per cell


def _catalog_scenario(cat: Any) -> dict[str, Any]:
    """``_scenario()`` over the seed catalog ``cat`` (its provider row follows its operation)."""
    return _scenario(catalog_value=cat)


U64_MAX = (1 << 64) - 1


def _overflowing_arena() -> dict[str, Any]:
    """The split family with u8 components of 2^63 - 1 and 2^63 bytes (one u8 weight of u64::MAX
    elements, which an operation input of range ``1..=u64::MAX`` accepts): the second component's
    offset aligns up to 2^63, so its arena end is 2^64."""
    scenario = _scenario(
        family="fixed_schema", catalog_value=catalog_with_u8_range_weight(), family_params={"schema": split_schema()}
    )
    document = scenario["family"]["document"]
    left, right = (1 << 63) - 1, 1 << 63
    schema = document["weight_schema"]
    for component, extent in zip(schema["components"], (left, right), strict=True):
        component["dimensions"] = [extent]
        component["encoding"] = {"dense": {"element_type": "u8"}}
    (tensor,) = schema["tensors"]
    tensor["dimensions"] = [U64_MAX]
    tensor["logical_element_type"] = "u8"
    first, second = tensor["physical_layout"]["composite"]["parts"]
    first["extents"] = [left]
    second["logical_offsets"] = [left]
    second["extents"] = [right]
    for entry in document["program"]["weights"]:
        entry["tensor"] = {"dimensions": [U64_MAX], "element_type": "u8", "layout": "contiguous"}
    return scenario


#: (scenario, options, the phrase the reference's reason carries, rules). Each breaks one compiler rule of
#: 05 §7.13 steps 0-1 (options against the program, concrete tensors, output inference); every one is
#: ``InvalidExecutionPlan``.
COMPILER_CELLS: dict[str, Callable[[], tuple[dict[str, Any], dict[str, Any], str, tuple[str, ...]]]] = {
    "input_dtype_off_contract": lambda: (
        _scenario(),
        _options({"value.input": {**INPUT, "element_type": "f16"}}),
        "rank or dtype differs from its operation contract",
        ("05.7.13/probe_pass",),
    ),
    "input_layout_off_contract": lambda: (
        _scenario(),
        _options({"value.input": {**INPUT, "layout": {"strided": {"byte_strides": [4]}}}}),
        "layout differs from its operation contract",
        ("05.7.13/probe_pass",),
    ),
    "explicit_weight_differs": lambda: (
        _scenario(),
        _options({"value.input": INPUT, "value.weight": {**INPUT, "element_type": "f16"}}),
        "explicit weight tensor `value.weight` differs from model semantics",
        (),
    ),
    "explicit_state_differs": lambda: (
        _scenario(),
        _options({"value.input": INPUT, "value.state": INPUT}),
        "explicit state tensor `value.state` differs from model semantics",
        (),
    ),
    "node_arity_differs": lambda: (
        _catalog_scenario(catalog_with_main_inputs(2)),
        _options(),
        "arity differs from operation `operation.main`",
        (),
    ),
    "output_dtype_ambiguous": lambda: (
        _catalog_scenario(catalog_with_main_output("several_dtypes")),
        _options(),
        "output dtype is ambiguous",
        (),
    ),
    "output_range_dimension_ambiguous": lambda: (
        _catalog_scenario(catalog_with_main_output("range_dimension")),
        _options(),
        "output dimension is ambiguous",
        (),
    ),
    "output_symbol_dimension_unbound": lambda: (
        _catalog_scenario(catalog_with_main_output("symbol_dimension")),
        _options(),
        "output dimension is ambiguous",
        (),
    ),
    "output_layout_ambiguous": lambda: (
        _catalog_scenario(catalog_with_main_output("several_layouts")),
        _options(),
        "output layout is ambiguous",
        (),
    ),
    "weight_arena_overflows_u64": lambda: (
        _overflowing_arena(),
        _options(),
        "weight arena byte range overflows u64",
        ("05.7.13/arena_layout",),
    ),
    "output_stride_symbol_unbound": lambda: (
        _catalog_scenario(catalog_with_main_output("stride_symbol")),
        _options(),
        "stride symbol is unresolved",
        (),
    ),
}


@pytest.mark.requires("compile_plan")
@pytest.mark.parametrize("cell", sorted(COMPILER_CELLS))
def test_compiler_rule_cells_match_the_reference(backend: BackendUnderTest, oracle: Any, cell: str) -> None:
    scenario, options, phrase, rules = COMPILER_CELLS[cell]()
    exercise(*rules)
    with pytest.raises(VNextError) as info:
        oracle.compile_plan(scenario, options)
    assert info.value.kind == "invalid_execution_plan", f"{cell}: the reference gives {info.value.to_dict()}"
    assert phrase in info.value.to_dict()["reason"], f"{cell}: the reference refuses for another reason"
    want = error_of(lambda: oracle.compile_plan(scenario, options))
    got = error_of(lambda: backend.compile_plan(scenario, options))
    assert got is not None, f"{cell}: the backend compiles a plan; the reference gives {want}"
    assert got == want, f"{cell}: the backend gives {got}, the reference {want}"


@pytest.mark.requires("compile_plan")
def test_a_several_dtype_output_compiles_with_an_explicit_tensor(backend: BackendUnderTest, oracle: Any) -> None:
    """The ambiguity of ``output_dtype_ambiguous`` is the compiler's only objection: an explicit tensor compiles."""
    scenario = _catalog_scenario(catalog_with_main_output("several_dtypes"))
    _compiled(backend, oracle, scenario, _options({"value.input": INPUT, "value.output": INPUT}))


# --------------------------------------------------------------------------- reusable program policies (04 §2.4)


def _decode(requests: int, tokens: int, per_sequence: int, class_id: str = "class.a") -> dict[str, Any]:
    shape = {
        "topology": "uniform_decode",
        "request_capacity": requests,
        "token_capacity": tokens,
        "query_tokens_per_sequence": per_sequence,
    }
    return {"class_id": class_id, "shape": shape}


def _prefill(processed: int, tokens: int, total: int) -> dict[str, Any]:
    shape = {
        "topology": "prefill",
        "tokens_processed": processed,
        "token_capacity": tokens,
        "total_prompt_tokens": total,
    }
    return {"class_id": "class.a", "shape": shape}


def _program_policy(**changes: Any) -> dict[str, Any]:
    policy = {
        "shape_semantics": "exact",
        "catalog_miss_policy": "eager_fallback",
        "catalog_lifetime": "startup_sealed",
        "warmup_passes": 1,
        "capture_passes": 1,
        "replay_validation_passes": 1,
        "programs": [_decode(1, 1, 1), _decode(2, 2, 1)],
    }
    return {**policy, **changes}


def _reusable(**changes: Any) -> dict[str, Any]:
    """A valid reusable-execution wire (one class, one bucket, two decode programs) with ``changes``."""
    policy = {
        "maximum_reusable_lanes": 1,
        "buckets": [reusable_bucket("class.a", 2, 8, 4)],
        "program_policy": _program_policy(),
    }
    return {**policy, **changes}


_OTHER_BUCKET_ID = reusable_bucket("class.a", 2, 8, 3)["bucket_id"]

#: (reusable-execution wire, the phrase the reference's message carries, rules): one 04 §2.4 rule broken each.
REUSABLE_CELLS: dict[str, tuple[dict[str, Any], str, tuple[str, ...]]] = {
    "class_id_not_portable": (
        _reusable(buckets=[{**reusable_bucket("class.a", 2, 8, 4), "class_id": "class a"}]),
        "class id is empty, too long, or non-portable",
        ("04.2.4/class_id_portable",),
    ),
    "capacity_dimension_zero": (
        _reusable(buckets=[reusable_bucket("class.a", 2, 8, 0)]),
        "capacity dimensions must be non-zero",
        ("04.2.4/capacity_dimensions_nonzero",),
    ),
    "bucket_id_not_derived": (
        _reusable(buckets=[{**reusable_bucket("class.a", 2, 8, 4), "bucket_id": _OTHER_BUCKET_ID}]),
        "bucket id is not derived from its class and capacity",
        ("04.2.4/bucket_id_derived",),
    ),
    "lanes_zero": (
        _reusable(maximum_reusable_lanes=0),
        "invalid lane or bucket count",
        ("04.2.4/lanes_nonzero",),
    ),
    "decode_shape_inconsistent": (
        _reusable(program_policy=_program_policy(programs=[_decode(2, 3, 1)])),
        "decode program shape is empty or internally inconsistent",
        ("04.2.4/program_policy_valid",),
    ),
    "prefill_beyond_prompt": (
        _reusable(program_policy=_program_policy(programs=[_prefill(0, 5, 4)])),
        "prefill program shape is empty or exceeds its prompt frontier",
        ("04.2.4/program_policy_valid",),
    ),
    "shape_without_topology": (
        _reusable(program_policy=_program_policy(programs=[{"class_id": "class.a", "shape": {"request_capacity": 1}}])),
        "program shape must be an object tagged by `topology`",
        ("04.2.4/program_policy_valid",),
    ),
    "warmup_passes_zero": (
        _reusable(program_policy=_program_policy(warmup_passes=0)),
        "invalid semantics, passes, or shape count",
        ("04.2.4/program_policy_valid",),
    ),
    "programs_not_ascending": (
        _reusable(program_policy=_program_policy(programs=[_decode(2, 2, 1), _decode(1, 1, 1)])),
        "program shapes are duplicate or non-canonical",
        ("04.2.4/program_policy_valid",),
    ),
    "shape_in_two_classes": (
        _reusable(
            buckets=[reusable_bucket("class.a", 2, 8, 4), reusable_bucket("class.b", 2, 8, 4)],
            program_policy=_program_policy(programs=[_decode(1, 1, 1), _decode(1, 1, 1, "class.b")]),
        ),
        "logical shape is assigned to multiple workspace classes",
        ("04.2.4/program_policy_valid",),
    ),
    "prefill_prefix_missing": (
        _reusable(program_policy=_program_policy(programs=[_prefill(2, 2, 4)])),
        "omits a prerequisite prefix shape",
        ("04.2.4/program_policy_valid",),
    ),
    "program_not_covered": (
        _reusable(program_policy=_program_policy(programs=[_decode(4, 4, 1)])),
        "has no covering workspace bucket in its class",
        ("04.2.4/program_shape_covered_by_bucket",),
    ),
    "buckets_not_monotonic": (
        _reusable(
            buckets=[reusable_bucket("class.a", 2, 8, 4), reusable_bucket("class.a", 1, 8, 4)], program_policy=None
        ),
        "not canonical monotonic class chains",
        ("04.2.4/buckets_canonical_class_chains",),
    ),
}


def _reusable_scenario(reusable: dict[str, Any] | None) -> dict[str, Any]:
    scenario = _scenario()
    fields = {k: v for k, v in scenario["policy"]["wire"].items() if k != "fingerprint"}
    fields["reusable_execution"] = copy.deepcopy(reusable)
    scenario["policy"] = {"kind": "resolved_fields", "fields": fields}
    return scenario


@pytest.mark.requires("compile_plan")
def test_a_reusable_program_policy_compiles_like_the_reference(backend: BackendUnderTest, oracle: Any) -> None:
    """The valid base of the reusable cells: the plan (and its reusable memory) equals the reference's."""
    _compiled(backend, oracle, _reusable_scenario(_reusable()), _options())


@pytest.mark.requires("compile_plan")
@pytest.mark.rules("04.3.2/row13_reusable_policy_validates")
@pytest.mark.parametrize("cell", sorted(REUSABLE_CELLS))
def test_reusable_policy_cells_match_the_reference(backend: BackendUnderTest, oracle: Any, cell: str) -> None:
    reusable, phrase, rules = REUSABLE_CELLS[cell]
    exercise(*rules)
    scenario = _reusable_scenario(reusable)
    with pytest.raises(VNextError) as info:
        oracle.compile_plan(scenario, _options())
    want = error_of(lambda: oracle.compile_plan(scenario, _options()))
    assert want == {"kind": "serialization", "context": "decode runtime policy document"}, f"{cell}: {want}"
    assert phrase in info.value.to_dict()["message"], f"{cell}: the reference refuses for another reason"
    got = error_of(lambda: backend.compile_plan(scenario, _options()))
    assert got is not None, f"{cell}: the backend compiles a plan; the reference gives {want}"
    assert got == want, f"{cell}: the backend gives {got}, the reference {want}"


def _requiring(major: int, minor: int) -> dict[str, Any]:
    """``_scenario()`` whose node (and numerical profile) require ``operation.main`` at ``major.minor``."""
    scenario = _scenario()
    document = scenario["family"]["document"]
    version = {"major": major, "minor": minor}
    document["program"]["blocks"][0]["nodes"][0]["required_version"] = version
    for profile in document["numerical_profiles"]["profiles"]:
        for entry in profile["operations"]:
            entry["version"] = dict(version)
    return scenario


@pytest.mark.requires("compile_plan")
@pytest.mark.rules(
    "01.6/incompatible_operation_version_fields",
    "03.11.4/node_operation_version_first",
    "04.9/step12_operation_version_mismatch_is_iov",
)
@pytest.mark.parametrize(("major", "minor"), [(1, 1), (2, 0)])
def test_a_node_requiring_a_newer_operation_is_refused_with_its_versions(
    backend: BackendUnderTest, oracle: Any, major: int, minor: int
) -> None:
    """The catalog's ``operation.main`` is 1.0: a node requiring 1.1 or 2.0 is IncompatibleOperationVersion."""
    scenario = _requiring(major, minor)
    want = error_of(lambda: oracle.compile_plan(scenario, _options()))
    assert want == {
        "kind": "incompatible_operation_version",
        "node_id": "node.main",
        "operation_id": "operation.main",
        "required_major": major,
        "required_minor": minor,
        "available_major": 1,
        "available_minor": 0,
    }
    got = error_of(lambda: backend.compile_plan(scenario, _options()))
    assert got == want, f"the backend gives {got}, the reference {want}"
