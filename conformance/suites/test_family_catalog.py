"""Prepared families and catalog fingerprints (02 §6-§7, 03 §11.5) agree with the reference.

For every seed family the backend's prepared-family fingerprint and wire equal
the reference's; TestFamily's fingerprint is pinned to the contract vector;
OrderedSchemaFamily's normalized schema makes its fingerprint independent of
component, tensor and composite-part order but not of external-name order;
family documents carrying each value form, and each layout worked example of
02 §8.7, prepare to the reference's wire;
invalid configs are rejected with the reference's ``invalid_model_config`` (the
field TestFamily or the raw-config-consumed check names). Catalog
fingerprints equal the reference's and are independent of provider-list order;
a catalog spelling every wire form of its enums and constraints (unreduced
rationals and unsorted profiles included) fingerprints like the reference on
every device class, and the reference-oracle depth is counted along walks from
the roots in ascending id.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.suites.contract_errors import error_of, pinned
from harness.cases import exercise
from harness.under_test import BackendUnderTest
from reference.api import VNextError
from seeds.catalogs import (
    DEVICE_CLASSES,
    catalog,
    catalog_of_every_wire_form,
    catalog_with_memory,
    catalog_with_secondary_provider,
    reference_oracle_chain,
)
from seeds.scenarios import seed_scenario
from strategies.budget import base_scenario
from strategies.json_edits import Edit, apply_edits
from strategies.scenario_cells.weight_encodings import ACCEPTED_LAYOUTS
from strategies.scenario_cells.weight_layouts import TILED_WORKED_EXAMPLE

TEST_FAMILY_FINGERPRINT = "f4b3f9f643e98e9e3b3a8b613c20d0eea9a926d0dcc07f0a8a012b94ec4fa908"
SEED_CATALOG_FINGERPRINT = "9354acce5aca132550d7808777b353a5ae1e4d208914c33fd1d3f1de328b193b"

FAMILIES = [
    pytest.param("test", {}, id="test"),
    pytest.param("ordered_schema", {}, id="ordered_schema"),
    pytest.param("sequential_scratch", {}, id="sequential_scratch"),
    *[
        pytest.param("graph", {"scenario": s}, id=f"graph_{s}")
        for s in (
            "alias",
            "alias_late_consumer",
            "alias_terminal_intermediate",
            "state_chain",
            "state_read_only",
        )
    ],
]


@pytest.mark.requires("prepare_family")
@pytest.mark.parametrize(("family", "params"), FAMILIES)
def test_prepared_family_equals_reference(
    backend: BackendUnderTest, oracle: Any, family: str, params: dict[str, Any]
) -> None:
    scenario = seed_scenario(f"family-{family}", family=family, family_params=params)
    got = backend.prepare_family(scenario)
    want = oracle.prepare_family(scenario)
    assert got.fingerprint == want.fingerprint
    assert got.wire == want.wire, "prepared family wire bytes differ from the reference"


_DOC = ("family", "document")
_PROGRAM = (*_DOC, "program")
_PROFILE = (*_DOC, "numerical_profiles", "profiles", 0)
_NODE = (*_PROGRAM, "blocks", 0, "nodes", 0)
_COMPONENTS = (*_DOC, "weight_schema", "components")
_TENSORS = (*_DOC, "weight_schema", "tensors")
_V1 = {"major": 1, "minor": 0}
#: One float per branch of serde_json's float text (01 §3.2): integral, point inside, small, exponent, sign.
_FLOATS = [1.0, 100.0, 1e15, 123456.789, 0.00001, 0.000123, 1e16, 1e20, 1.5e-7, 5e-324, 1.7976931348623157e308,
           -2.5, -0.0, -1e-7]  # fmt: skip
_ATTRIBUTES = {
    "attr.bool": {"bool": True},
    "attr.integer": {"integer": -3},
    "attr.integers": {"integers": [1, -2]},
    "attr.rational": {"rational": {"numerator": -6, "denominator": 4}},
    "attr.text": {"text": "t"},
    "attr.unsigned": {"unsigned": 2**64 - 1},
    "attr.zero": {"rational": {"numerator": 0, "denominator": 7}},
}
_CHECKPOINT = {"completed_boundary": {"contract_version": _V1, "contents": "boundary_value",
                                      "input_dependency": "entire_token_input"}}  # fmt: skip


def _state(state_id: str, value_id: str, lifetime: str, initialization: str) -> dict[str, Any]:
    return {"id": state_id, "value_id": value_id, "tensor": {"dimensions": [4], "element_type": "u8",
            "layout": "contiguous"}, "lifetime": lifetime, "capacity_demand": "fixed_per_scope",
            "initialization": initialization}  # fmt: skip


def _in_program_and_profile(path: tuple[Any, ...], op: str, arg: Any) -> tuple[Edit, Edit]:
    """The same edit of the program's states and the profile's (02 §9.2: they must stay equal)."""
    return Edit((*_PROGRAM, "states", *path), op, arg), Edit((*_PROFILE, "states", *path), op, arg)


def _quantized(format_id: str, grouping: dict[str, Any]) -> dict[str, Any]:
    return {"quantized": {"format_id": format_id, "bits_per_weight": 4, "grouping": grouping, "packing": "linear",
                          "scale_type": "f16", "zero_point_type": None}}  # fmt: skip


def _packed(name: str, encoding: dict[str, Any]) -> dict[str, Any]:
    """An optional, unreferenced packed component (a schema may carry one)."""
    return {"id": f"weight.{name}", "role": "packed_values", "external_names": [f"{name}.bin"], "dimensions": [4, 4],
            "encoding": encoding, "required": False}  # fmt: skip


def _stored_component(name: str, role: str, element_type: str, dimensions: list[int]) -> dict[str, Any]:
    """An optional dense component of ``role``."""
    return {"id": f"weight.{name}", "role": role, "external_names": [f"{name}.bin"], "dimensions": dimensions,
            "encoding": {"dense": {"element_type": element_type}}, "required": False}  # fmt: skip


def _optional_tensor(name: str, dimensions: list[int], layout: dict[str, Any]) -> dict[str, Any]:
    """An optional f32 tensor the program does not reference (02 §8.11: it may stay unreferenced)."""
    return {"id": f"weight.{name}", "dimensions": dimensions, "logical_element_type": "f32", "physical_layout": layout,
            "required": False}  # fmt: skip


def _binding(name: str, padding: Any = "exact") -> dict[str, Any]:
    return {"component_id": f"weight.{name}", "storage": {"contiguous": {"padding": padding}}}


def _grouped(name: str, grouping: dict[str, Any], scales: list[int]) -> tuple[Edit, ...]:
    """An optional [4, 8] tensor quantized along axis 1 with ``grouping`` (4 bits: 16 packed bytes): its scales
    are [4, 8 / resolved group size] (02 §8.2 ``resolved_size``, §8.7)."""
    packed = {**_packed(f"{name}-packed", _quantized(f"quantization-format.{name}", grouping)), "dimensions": [16]}
    packing = {"packed_values": _binding(f"{name}-packed"), "packed_dimensions": [16]}
    layout = {"quantized": {**packing, "scales": _binding(f"{name}-scales"), "group_axis": 1, "group_padding": "exact"}}
    return (
        Edit(_COMPONENTS, "append", packed),
        Edit(_COMPONENTS, "append", _stored_component(f"{name}-scales", "scales", "f16", scales)),
        Edit(_TENSORS, "append", _optional_tensor(name, [4, 8], layout)),
    )


#: A contiguous binding of the ``[8]`` component ``weight.padded`` to a ``[4]`` tensor, zero-filled to ``[8]``.
_ZERO_FILLED = _binding("padded", {"zero_fill": {"padded_dimensions": [8]}})

#: One optional component per weight component role, each with an encoding its role accepts (02 §8.2, §8.6 3f).
_ROLE_COMPONENTS = (
    _stored_component("role-values", "values", "f32", [4]),
    _packed("role-packed-values", _quantized("quantization-format.roles", {"kind": "fixed", "size": 4})),
    _stored_component("role-scales", "scales", "f16", [4]),
    _stored_component("role-zero-points", "zero_points", "u8", [4]),
    _stored_component("role-indices", "indices", "u32", [4]),
    _stored_component("role-permutation", "permutation", "i32", [4]),
    _stored_component("role-codebook", "codebook", "f32", [4]),
    _stored_component("role-metadata", "metadata", "u8", [4]),
)


#: Family documents whose prepared wire carries each value form of 01-02: name -> (edits of the plan fixture, the
#: rules the prepared wire's bytes then check).
WIRE_FORMS: dict[str, tuple[tuple[Edit, ...], tuple[str, ...]]] = {
    "float_config": (
        (
            Edit((*_DOC, "config", "fields"), "append", {"name": "floats", "type": "json"}),
            Edit((*_DOC, "config", "value", "floats"), "set", _FLOATS),
            Edit(("family", "raw_config", "floats"), "set", _FLOATS),
        ),
        (
            "01.3.2/float_rule1_integral",
            "01.3.2/float_rule2_point_inside",
            "01.3.2/float_rule3_small",
            "01.3.2/float_rule4_exponent",
            "01.3.2/float_rule5_sign",
        ),
    ),
    "semantic_values": (
        (Edit((*_NODE, "attributes"), "set", _ATTRIBUTES),),
        ("02.10.1/semantic_value_wire", "02.10.1/rational_reduced", "01.5/rational_wire_shape"),
    ),
    "checkpoint_inputs_without_output_only": (
        (
            Edit(
                (*_PROGRAM, "checkpoint_inputs"),
                "set",
                {
                    "contract_version": _V1,
                    "token_input": "value.input",
                    "conditioning_inputs": [],
                    "output_only_inputs": [],
                },
            ),
        ),
        ("02.10.1/checkpoint_output_only_omitted",),
    ),
    "checkpoint_inputs_with_output_only": (
        (
            Edit((*_PROGRAM, "inputs"), "append", "value.side"),
            Edit(
                (*_PROGRAM, "checkpoint_inputs"),
                "set",
                {
                    "contract_version": _V1,
                    "token_input": "value.input",
                    "conditioning_inputs": [],
                    "output_only_inputs": ["value.side"],
                },
            ),
        ),
        ("02.10.1/checkpoint_output_only_omitted",),
    ),
    "state_forms": (
        (
            *_in_program_and_profile((0, "checkpoint"), "set", _CHECKPOINT),
            *_in_program_and_profile((), "append", _state("state.request", "value.request", "request", "none")),
            *_in_program_and_profile((), "append", _state("state.step", "value.step", "step", "zero")),
        ),
        ("02.10.1/state_enums", "02.10.1/checkpoint_capability_wire"),
    ),
    "token_collisions": (
        (
            Edit(
                (*_DOC, "semantic_metadata", "special_tokens", "collision_policy", "allowed"),
                "set",
                [{"first": "stop", "second": "eos"}, {"first": "pad", "second": "bos"}],
            ),
        ),
        ("02.11.1/special_token_role_order", "02.11.1/collision_ordered"),
    ),
    "quantization_groupings": (
        tuple(
            Edit((*_DOC, "weight_schema", "components"), "append", component)
            for component in (
                _packed("fixed", _quantized("quantization-format.fixed", {"kind": "fixed", "size": 4})),
                _packed("whole", _quantized("quantization-format.whole", {"kind": "whole_axis"})),
                _packed("block", _quantized("quantization-format.block", {"kind": "block2d", "block_shape": [2, 2]})),
            )
        ),
        ("02.1/quantization_grouping_internally_tagged",),
    ),
    "component_roles": (
        tuple(Edit(_COMPONENTS, "append", component) for component in _ROLE_COMPONENTS),
        ("02.8.2/component_roles",),
    ),
    "storage_paddings": (
        (
            Edit(_COMPONENTS, "append", _stored_component("padded", "values", "f32", [8])),
            Edit(_COMPONENTS, "append", _stored_component("exact", "values", "f32", [4])),
            Edit(_TENSORS, "append", _optional_tensor("padded", [4], {"stored": {"component": _ZERO_FILLED}})),
            Edit(_TENSORS, "append", _optional_tensor("exact", [4], {"stored": {"component": _binding("exact")}})),
        ),
        ("02.8.5/padding_wire",),
    ),
    "group_quantized_layouts": (
        (
            *_grouped("grouped-fixed", {"kind": "fixed", "size": 4}, [4, 2]),
            *_grouped("grouped-whole", {"kind": "whole_axis"}, [4, 1]),
        ),
        ("02.8.2/resolved_group_size",),
    ),
    "tiled_storage": (TILED_WORKED_EXAMPLE, ("02.8.7/tiled_worked_example",)),
    # 02 §8.7: the layout validator's worked examples and the shapes it hands to bindings and children
    **ACCEPTED_LAYOUTS,
}


@pytest.mark.requires("prepare_family")
@pytest.mark.parametrize("form", sorted(WIRE_FORMS))
def test_prepared_family_wire_forms_equal_reference(backend: BackendUnderTest, oracle: Any, form: str) -> None:
    """A family document carrying one group of value forms prepares to the reference's exact wire bytes."""
    edits, rules = WIRE_FORMS[form]
    exercise(*rules)
    scenario = apply_edits(base_scenario("plan_fixture"), edits)
    want = oracle.prepare_family(scenario)
    got = backend.prepare_family(scenario)
    assert got.wire == want.wire, f"{form}: prepared family wire bytes differ from the reference"
    assert got.fingerprint == want.fingerprint


@pytest.mark.requires("prepare_family")
def test_test_family_fingerprint_vector(backend: BackendUnderTest) -> None:
    assert backend.prepare_family(seed_scenario("family-test")).fingerprint == TEST_FAMILY_FINGERPRINT


@pytest.mark.requires("prepare_family")
def test_ordered_schema_fingerprint_ignores_declared_order(backend: BackendUnderTest) -> None:
    base = backend.prepare_family(seed_scenario("ordered", family="ordered_schema")).fingerprint
    reversed_ = backend.prepare_family(
        seed_scenario("ordered-rev", family="ordered_schema", family_params={"reverse": True})
    ).fingerprint
    assert reversed_ == base, "reordering components/tensors/parts changed the prepared family fingerprint"
    sources = backend.prepare_family(
        seed_scenario("ordered-src", family="ordered_schema", family_params={"reverse_sources": True})
    ).fingerprint
    assert sources != base, "reversing external-name order must change the fingerprint"


#: Raw configs TestFamily refuses, with the field its error names (02 §12: a serde error is ``config``, a width
#: other than 4 is ``width``; an unread key is refused by the raw-config-consumed check at its path, 02 §5.2).
INVALID_CONFIGS = [
    pytest.param({"width": 5}, "width", id="raw_config0"),
    pytest.param({"width": 4, "extra": 1}, "/extra", id="raw_config1"),
    pytest.param({}, "config", id="raw_config2"),
    pytest.param([], "config", id="raw_config3"),
    pytest.param({"width": "4"}, "config", id="raw_config4"),
]


@pytest.mark.requires("prepare_family")
@pytest.mark.parametrize(("raw_config", "field"), INVALID_CONFIGS)
def test_invalid_config_is_rejected_like_the_reference(
    backend: BackendUnderTest, oracle: Any, raw_config: Any, field: str
) -> None:
    if field in ("config", "width"):
        exercise("02.12/test_family_width_config")
    scenario = seed_scenario("bad-config")
    scenario["family"]["raw_config"] = raw_config
    want = error_of(lambda: oracle.prepare_family(scenario))
    assert want == {"kind": "invalid_model_config", "family_id": "family.synthetic", "field": field}, want
    assert error_of(lambda: backend.prepare_family(scenario)) == want


CATALOGS = [
    pytest.param(catalog, id="catalog"),
    pytest.param(lambda: catalog_with_memory(4096), id="catalog_with_memory_4096"),
    pytest.param(catalog_with_secondary_provider, id="catalog_with_secondary_provider"),
]


@pytest.mark.requires("fingerprint_catalog")
@pytest.mark.parametrize("make", CATALOGS)
def test_catalog_fingerprint_equals_reference(backend: BackendUnderTest, oracle: Any, make: Any) -> None:
    scenario = seed_scenario("catalog", catalog_value=make())
    assert backend.fingerprint_catalog(scenario) == oracle.fingerprint_catalog(scenario)


@pytest.mark.requires("fingerprint_catalog")
def test_seed_catalog_fingerprint_vector(backend: BackendUnderTest) -> None:
    assert backend.fingerprint_catalog(seed_scenario("catalog")) == SEED_CATALOG_FINGERPRINT


@pytest.mark.requires("fingerprint_catalog")
def test_catalog_fingerprint_ignores_provider_list_order(backend: BackendUnderTest) -> None:
    scenario = seed_scenario("catalog", catalog_value=catalog_with_secondary_provider())
    permuted = copy.deepcopy(scenario)
    for rows in permuted["catalog"]["providers"].values():
        rows.reverse()
    assert backend.fingerprint_catalog(permuted) == backend.fingerprint_catalog(scenario)


@pytest.mark.requires("fingerprint_catalog")
def test_catalog_fingerprint_changes_with_device_memory(backend: BackendUnderTest) -> None:
    a = backend.fingerprint_catalog(seed_scenario("a", catalog_value=catalog_with_memory(4096)))
    b = backend.fingerprint_catalog(seed_scenario("b", catalog_value=catalog_with_memory(4097)))
    assert a != b


def _unreduced(value: Any) -> Any:
    """``value`` with every rational ``n/d`` spelled ``2n/2d``."""
    if isinstance(value, dict):
        if set(value) == {"numerator", "denominator"}:
            return {"numerator": 2 * value["numerator"], "denominator": 2 * value["denominator"]}
        return {key: _unreduced(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unreduced(item) for item in value]
    return value


def _every_wire_form(device_class: str) -> dict[str, Any]:
    """The catalog of every wire form on a ``device_class`` device, its profiles listed in descending order and
    its operations' rationals unreduced: decoding sorts the one (03 §6.2) and reduces the other (03 §4)."""
    scenario = seed_scenario("catalog-wire-forms", catalog_value=catalog_of_every_wire_form(device_class))
    document = scenario["catalog"]
    document["device"]["dynamic_storage_profiles"].reverse()
    document["operations"] = _unreduced(document["operations"])
    return scenario


@pytest.mark.requires("fingerprint_catalog")
@pytest.mark.rules(
    "03.3.1/tensor_access_wire", "03.5.1/profile_phase_values", "03.6.1/value_role_order", "03.10/device_class_values"
)
@pytest.mark.parametrize("device_class", DEVICE_CLASSES)
def test_every_catalog_wire_form_fingerprints_like_the_reference(
    backend: BackendUnderTest, oracle: Any, device_class: str
) -> None:
    """Every ``TensorAccess``, ``ProfilePhase``, ``OracleSpec``, ``AttributeConstraint`` and stride form, both
    execution-semantics presets, input and output bindings, five storage profiles and each ``DeviceClass``."""
    scenario = _every_wire_form(device_class)
    want = oracle.fingerprint_catalog(scenario)
    assert want == catalog_of_every_wire_form(device_class).fingerprint(), "the reference did not canonicalize"
    assert backend.fingerprint_catalog(scenario) == want


def _renamed(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every string (and object key) of ``names`` replaced."""
    if isinstance(value, dict):
        return {names.get(key, key): _renamed(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, names) for item in value]
    return names.get(value, value) if isinstance(value, str) else value


@pytest.mark.requires("fingerprint_catalog")
@pytest.mark.rules("03.11.3/oracle_depth_walk_order")
def test_reference_oracle_depth_is_counted_from_the_first_root(backend: BackendUnderTest, oracle: Any) -> None:
    """A 65-operation chain whose tail has the least id is accepted (each walk from a root in ascending id meets
    visited operations after one step); the same chain with its ids reversed, head first, is refused: the walk
    from its head marks 64 operations and meets a 65th (03 §11.3 pass 2)."""
    accepted = seed_scenario("oracle-chain", catalog_value=reference_oracle_chain(65))
    assert backend.fingerprint_catalog(accepted) == oracle.fingerprint_catalog(accepted)
    names = {f"operation.chain.{index:02d}": f"operation.chain.{64 - index:02d}" for index in range(65)}
    refused = {**accepted, "catalog": _renamed(accepted["catalog"], names)}
    with pytest.raises(VNextError) as info:
        oracle.fingerprint_catalog(refused)
    assert "exceeds depth 64" in info.value.message, info.value
    want = pinned(info.value)
    with pytest.raises(VNextError) as answer:
        backend.fingerprint_catalog(refused)
    assert pinned(answer.value) == want
