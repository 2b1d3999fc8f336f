"""Declarative family documents: decoding, generated families, hostile documents."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference.documents.family import DeclarativeFamily
from reference.errors import InvalidModelConfig, Serialization, UnknownWeightLayout, VNextError
from reference.model import layout_traversal
from reference.model.registration import TypedFamilyRegistration
from seeds.families import FIXTURE_PROFILE, seed_family_document

from .builders import box_partitions, composite_schema


def prepare(doc: Any, raw: Any = None) -> Any:
    family = DeclarativeFamily.from_document(doc)
    return TypedFamilyRegistration(family).prepare_with_profile({"width": 4} if raw is None else raw, FIXTURE_PROFILE)


def base() -> dict[str, Any]:
    return copy.deepcopy(seed_family_document("test"))


def test_documents_validate_against_the_schema() -> None:
    for name, params in [("test", {}), ("ordered_schema", {"reverse": True}), ("graph", {"scenario": "state_chain"})]:
        doc = seed_family_document(name, **params)
        schemas.validate("model/family_document.json", doc)
        family = DeclarativeFamily.from_document(doc)
        assert family.to_document() == json.loads(json.dumps(doc))


def test_document_round_trip_through_bytes() -> None:
    doc = base()
    family = DeclarativeFamily.from_json(json.dumps(doc).encode())
    assert DeclarativeFamily.from_document(family.to_document()).to_document() == family.to_document()


@st.composite
def generated_documents(draw: Any) -> dict[str, Any]:
    """A valid family: random composite weight, a chain of nodes, optional extra outputs."""
    shape, boxes = draw(box_partitions())
    doc = base()
    weight = composite_schema(shape, boxes).to_wire()
    weight["tensors"][0]["id"] = "weight.matrix"
    doc["weight_schema"] = weight
    program = doc["program"]
    program["weights"][0]["tensor"]["dimensions"] = list(shape)
    chain = draw(st.integers(1, 4))
    nodes = []
    previous = "value.input"
    for index in range(chain):
        output = "value.output" if index == chain - 1 else f"value.hidden.{index}"
        nodes.append(
            {
                "id": f"node.{index}",
                "operation_id": "operation.main",
                "required_version": {"major": 1, "minor": 0},
                "work": "fixed",
                "inputs": [previous, "value.weight", "value.state"],
                "outputs": [output],
                "attributes": {},
            }
        )
        previous = output
    program["blocks"][0]["nodes"] = nodes
    profile = doc["numerical_profiles"]["profiles"][0]
    profile["boundaries"] = {n["outputs"][0]: "f32" for n in nodes}
    return doc


@given(generated_documents())
def test_generated_families_prepare_and_round_trip(doc: dict[str, Any]) -> None:
    schemas.validate("model/family_document.json", doc)
    family = prepare(doc)
    again = prepare(json.loads(json.dumps(doc)))
    assert family == again and family.fingerprint() == again.fingerprint()
    schemas.validate("model/prepared_family.json", family.to_wire())


def edit(change: Any) -> dict[str, Any]:
    doc = base()
    change(doc)
    return doc


def nodes_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc["program"]["blocks"][0]["nodes"]


def add_node(doc: dict[str, Any], **node: Any) -> None:
    template = copy.deepcopy(nodes_of(doc)[0])
    template.update(node)
    nodes_of(doc).append(template)


HOSTILE: dict[str, tuple[Any, type[VNextError], str | None]] = {
    "cycle": (
        lambda d: (
            nodes_of(d)[0].__setitem__("inputs", ["value.later"]),
            add_node(d, id="node.later", inputs=["value.output"], outputs=["value.later"]),
        ),
        InvalidModelConfig,
        "program.nodes.inputs",
    ),
    "undefined value": (
        lambda d: nodes_of(d)[0].__setitem__("inputs", ["value.ghost"]),
        InvalidModelConfig,
        "program.nodes.inputs",
    ),
    "duplicate node": (lambda d: add_node(d, outputs=["value.other"]), InvalidModelConfig, "program.nodes.id"),
    "duplicate component": (
        lambda d: d["weight_schema"]["components"].append(copy.deepcopy(d["weight_schema"]["components"][0])),
        InvalidModelConfig,
        "weight_schema.components",
    ),
    "overlapping parts": (
        lambda d: d["weight_schema"]["tensors"][0].__setitem__(
            "physical_layout",
            {
                "composite": {
                    "parts": [
                        {
                            "layout": {"dense": {"component_id": "weight.component"}},
                            "logical_offsets": [0],
                            "extents": [4],
                        },
                        {
                            "layout": {"dense": {"component_id": "weight.component"}},
                            "logical_offsets": [0],
                            "extents": [4],
                        },
                    ]
                }
            },
        ),
        InvalidModelConfig,
        "weight_schema.tensors.weight.matrix.physical_layout",
    ),
    "u64 overflow": (
        lambda d: d["weight_schema"]["components"][0].__setitem__("dimensions", [2**63, 2**63]),
        InvalidModelConfig,
        "weight_schema.components.dimensions",
    ),
    "layout depth 17": (
        lambda d: d["weight_schema"]["tensors"][0].__setitem__("physical_layout", deep_layout(17)),
        InvalidModelConfig,
        "weight_schema.tensors.weight.matrix.physical_layout",
    ),
    "json depth 200": (
        lambda d: d["semantic_metadata"]["template"].__setitem__("x", deep_json(200)),
        Serialization,
        None,
    ),
    "unknown top key": (lambda d: d.__setitem__("extra", 1), Serialization, None),
    "bad identity": (lambda d: d.__setitem__("family_id", "has space"), Serialization, None),
    "negative dim": (
        lambda d: d["weight_schema"]["components"][0].__setitem__("dimensions", [-4]),
        Serialization,
        None,
    ),
    "float dim": (lambda d: d["weight_schema"]["components"][0].__setitem__("dimensions", [4.0]), Serialization, None),
    "no layout": (lambda d: d["weight_schema"].__setitem__("tensors", []), UnknownWeightLayout, None),
    "foreign profile": (
        lambda d: d["numerical_profiles"]["profiles"][0].__setitem__("family_id", "family.other"),
        InvalidModelConfig,
        "numerical_profile",
    ),
    "no ids": (lambda d: d.__setitem__("external_metadata_ids", []), InvalidModelConfig, "external_metadata_ids"),
    "undeclared selection": (
        lambda d: d.__setitem__("selected_external_metadata_id", "metadata.x"),
        InvalidModelConfig,
        "external_metadata_id",
    ),
    "bad metadata": (
        lambda d: d["semantic_metadata"]["template"].__setitem__("source_file", "../x"),
        InvalidModelConfig,
        "semantic_metadata",
    ),
    "invalid state tensor": (
        lambda d: d["program"]["states"][0]["tensor"].__setitem__("dimensions", [0]),
        InvalidModelConfig,
        "program.states.value_id",
    ),
    "program for another family": (
        lambda d: d["program"].__setitem__("family_id", "family.other"),
        InvalidModelConfig,
        "program.family_id",
    ),
    "config value missing": (lambda d: d["config"].__setitem__("value", {}), Serialization, None),
    "program version 0": (
        lambda d: nodes_of(d)[0].__setitem__("required_version", {"major": 0, "minor": 1}),
        InvalidModelConfig,
        "program.nodes.contract",
    ),
    "duplicate program output": (
        lambda d: d["program"].__setitem__("outputs", ["value.output", "value.output"]),
        InvalidModelConfig,
        "program.outputs",
    ),
    "specialization adds tensor": (
        lambda d: d.__setitem__(
            "specialized_weight_schemas",
            {
                "fixture.f32": {
                    **d["weight_schema"],
                    "tensors": [
                        *d["weight_schema"]["tensors"],
                        {**d["weight_schema"]["tensors"][0], "id": "weight.extra"},
                    ],
                }
            },
        ),
        InvalidModelConfig,
        "numerical_profile.weight_schema",
    ),
}


def deep_layout(depth: int) -> Any:
    layout: Any = {"dense": {"component_id": "weight.component"}}
    for _ in range(depth - 1):
        layout = {"composite": {"parts": [{"layout": layout, "logical_offsets": [0], "extents": [4]}]}}
    return layout


def deep_json(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_documents_are_rejected_with_typed_errors(name: str) -> None:
    change, kind, field = HOSTILE[name]
    doc = edit(change)
    with pytest.raises(kind) as info:
        prepare(doc)
    if field is not None:
        assert info.value.field == field  # type: ignore[attr-defined]


def test_huge_expert_stack_document_is_refused_by_the_bounded_budget_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """100,000 experts: the budget pass (02 §8.5) stops after MAX_PHYSICAL_WEIGHT_LAYOUT_NODES nodes, whatever the
    size, and no per-node validation runs before it."""
    doc = base()
    count = 100_000
    doc["weight_schema"]["tensors"][0]["dimensions"] = [count, 4]
    doc["weight_schema"]["tensors"][0]["physical_layout"] = {
        "expert_stack": {"experts": [{"dense": {"component_id": "weight.component"}}] * count, "expert_axis": 0}
    }
    visits: list[object] = []
    original = layout_traversal.layout_children
    monkeypatch.setattr(layout_traversal, "layout_children", lambda node: (visits.append(node), original(node))[1])
    with pytest.raises(InvalidModelConfig) as info:
        prepare(doc)
    assert info.value.field == "weight_schema.tensors.weight.matrix.physical_layout"
    assert "maximum nodes" in info.value.reason
    assert len(visits) <= layout_traversal.MAX_PHYSICAL_WEIGHT_LAYOUT_NODES + 1


def test_json_bytes_are_capped_and_strict() -> None:
    with pytest.raises(Serialization):
        DeclarativeFamily.from_json(b'{"a":1,"a":2}')
    with pytest.raises(Serialization):
        DeclarativeFamily.from_json(b" " * (16 * 1024 * 1024 + 1))


def test_document_config_parsing() -> None:
    doc = base()
    for raw, field in [
        ({"width": 5}, "width"),
        ({"width": "4"}, "config"),
        ({}, "config"),
        ({"width": 4, "z": 0}, "/z"),
    ]:
        with pytest.raises(InvalidModelConfig) as info:
            prepare(doc, raw)
        assert info.value.field == field
    graph = seed_family_document("graph", scenario="alias")
    for raw in ({"scenario": "state_chain"}, {"scenario": 1}):
        with pytest.raises(InvalidModelConfig) as info:
            prepare(graph, raw)
        assert info.value.field == "scenario"


def test_profile_specific_programs_and_specializations() -> None:
    doc = base()
    second = copy.deepcopy(doc["numerical_profiles"]["profiles"][0])
    second["id"] = "fixture.alt"
    second["boundaries"] = {"value.alt": "f32"}
    second["primary_activation"] = "value.alt"
    doc["numerical_profiles"]["profiles"].append(second)
    alt_program = copy.deepcopy(doc["program"])
    alt_program["blocks"][0]["nodes"][0]["outputs"] = ["value.alt"]
    alt_program["outputs"] = ["value.alt"]
    doc["programs_by_profile"] = {"fixture.alt": alt_program}
    family = TypedFamilyRegistration(DeclarativeFamily.from_document(doc))
    assert family.prepare_with_profile({"width": 4}, "fixture.alt").program.outputs[0].value == "value.alt"
    assert family.prepare_with_profile({"width": 4}, "fixture.f32").program.outputs[0].value == "value.output"
    schemas.validate("model/family_document.json", DeclarativeFamily.from_document(doc).to_document())
