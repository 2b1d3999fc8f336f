"""ModelProgram construction rules, wire decode, fingerprint, and program-vs-schema references."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference.canonical import direct_bytes, sha256_hex
from reference.errors import InvalidExecutionPlan, InvalidModelConfig, Serialization
from reference.ids import AttributeId, ModelFamilyId, NodeId, OperationId, ProgramValueId, StateId, WeightId
from reference.model.element import ElementType
from reference.model.program import (
    ModelProgram,
    ProgramBlock,
    ProgramCheckpointInputs,
    ProgramNode,
    ProgramNodeWorkSpec,
    WeightReference,
)
from reference.model.semantic_value import CanonicalRational, SemanticValue
from reference.model.state import (
    CheckpointContents,
    CheckpointInputDependency,
    StateCapacityDemand,
    StateCheckpointCapability,
    StateLifetime,
    StateSpec,
)
from reference.model.tensor import BlockedLayout, BlockedTensorPadding, ProgramTensorSpec, StridedLayout
from reference.versions import ContractVersion
from seeds.families import TestConfig, TestFamily, fixture_byte_state

F = ModelFamilyId("f")
V10 = ContractVersion(1, 0)


def v(name: str) -> ProgramValueId:
    return ProgramValueId(name)


def node(nid: str, inputs: list[str], outputs: list[str], **kw: Any) -> ProgramNode:
    return ProgramNode(
        NodeId(nid),
        OperationId(kw.pop("op", "op")),
        kw.pop("version", V10),
        kw.pop("work", ProgramNodeWorkSpec.fixed()),
        tuple(map(v, inputs)),
        tuple(map(v, outputs)),
        kw.pop("attributes", {}),
    )


def tensor(dims: tuple[int, ...] = (4,), dtype: ElementType = ElementType.F32, layout: Any = None) -> ProgramTensorSpec:
    return ProgramTensorSpec(dims, dtype) if layout is None else ProgramTensorSpec(dims, dtype, layout)


def state(sid: str, value: str, **kw: Any) -> StateSpec:
    return StateSpec(
        StateId(sid),
        v(value),
        kw.pop("tensor", tensor()),
        kw.pop("lifetime", StateLifetime.SEQUENCE),
        kw.pop("demand", StateCapacityDemand.fixed_per_scope()),
        **kw,
    )


def weight(wid: str, value: str, t: ProgramTensorSpec | None = None) -> WeightReference:
    return WeightReference(WeightId(wid), v(value), t or tensor())


def program(
    blocks: list[ProgramBlock] | None = None,
    inputs: list[str] | None = None,
    states: list[StateSpec] | None = None,
    weights: list[WeightReference] | None = None,
    outputs: list[str] | None = None,
) -> ModelProgram:
    return ModelProgram(
        F,
        tuple(map(v, ["x"] if inputs is None else inputs)),
        tuple(blocks if blocks is not None else [ProgramBlock("b", (node("n", ["x"], ["y"]),))]),
        tuple(states or ()),
        tuple(weights or ()),
        tuple(map(v, ["y"] if outputs is None else outputs)),
    )


def field_of(build: Any) -> str:
    with pytest.raises(InvalidModelConfig) as info:
        build()
    assert info.value.family_id == "f"
    return info.value.field


MINIMAL = (
    '{"family_id":"f","inputs":["x"],"blocks":[{"id":"b","nodes":[{"id":"n","operation_id":"op",'
    '"required_version":{"major":1,"minor":0},"work":"fixed","inputs":["x"],"outputs":["y"],"attributes":{}}]}],'
    '"states":[],"weights":[],"outputs":["y"]}'
)


def test_minimal_program_wire_and_fingerprint() -> None:
    minimal = program()
    assert direct_bytes(minimal.to_wire()) == MINIMAL.encode()
    assert minimal.fingerprint() == sha256_hex(MINIMAL.encode())
    assert ModelProgram.from_wire(minimal.to_wire()) == minimal
    schemas.validate("model/model_program.json", minimal.to_wire())


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: program(blocks=[]), "program.blocks"),
        (lambda: program(inputs=[]), "program.inputs"),
        (lambda: program(inputs=["x", "x"]), "program.inputs"),
        (lambda: program(states=[state("s", "x")]), "program.states.value_id"),
        (lambda: program(states=[state("s", "w", tensor=tensor((0,)))]), "program.states.value_id"),
        (
            lambda: program(states=[state("s", "w", demand=StateCapacityDemand.token_scaled(8, 2))]),
            "program.states.value_id",
        ),
        (lambda: program(states=[state("s", "a"), state("s", "b")]), "program.states.id"),
        (lambda: program(weights=[weight("w", "x")]), "program.weights"),
        (lambda: program(weights=[weight("w", "a"), weight("w", "b")]), "program.weights"),
        (lambda: program(states=[state("s", "a")], weights=[weight("w", "a")]), "program.weights"),
        (lambda: program(blocks=[ProgramBlock("", (node("n", ["x"], ["y"]),))]), "program.blocks.id"),
        (lambda: program(blocks=[ProgramBlock("b", ())]), "program.blocks.id"),
        (
            lambda: program(
                blocks=[ProgramBlock("b", (node("n", ["x"], ["y"]),)), ProgramBlock("b", (node("m", ["y"], ["z"]),))]
            ),
            "program.blocks.id",
        ),
        (
            lambda: program(blocks=[ProgramBlock("b", (node("n", ["x"], ["y"], version=ContractVersion(0, 9)),))]),
            "program.nodes.contract",
        ),
        (lambda: program(blocks=[ProgramBlock("b", (node("n", ["x"], []),))]), "program.nodes.contract"),
        (
            lambda: program(
                blocks=[ProgramBlock("b", (node("n", ["x"], ["y"]),)), ProgramBlock("c", (node("n", ["y"], ["z"]),))]
            ),
            "program.nodes.id",
        ),
        (
            lambda: program(blocks=[ProgramBlock("b", (node("n", ["z"], ["y"]), node("m", ["x"], ["z"])))]),
            "program.nodes.inputs",
        ),
        (lambda: program(blocks=[ProgramBlock("b", (node("n", ["y"], ["y"]),))]), "program.nodes.inputs"),
        (lambda: program(blocks=[ProgramBlock("b", (node("n", ["x"], ["x"]),))]), "program.nodes.outputs"),
        (lambda: program(blocks=[ProgramBlock("b", (node("n", ["x"], ["y", "y"]),))]), "program.nodes.outputs"),
        (
            lambda: program(blocks=[ProgramBlock("b", (node("n", ["x"], ["y"]), node("m", ["x"], ["y"])))]),
            "program.nodes.outputs",
        ),
        (
            lambda: program(states=[state("s", "s.v")], blocks=[ProgramBlock("b", (node("n", ["x"], ["s.v"]),))]),
            "program.nodes.outputs",
        ),
        (
            lambda: program(weights=[weight("w", "w.v")], blocks=[ProgramBlock("b", (node("n", ["x"], ["w.v"]),))]),
            "program.nodes.outputs",
        ),
        (lambda: program(outputs=[]), "program.outputs"),
        (lambda: program(outputs=["y", "y"]), "program.outputs"),
        (lambda: program(outputs=["nope"]), "program.outputs"),
        (
            lambda: program(
                blocks=[ProgramBlock("b", (node("n", ["x"], ["y"], work=ProgramNodeWorkSpec.tokens(v("q"), 0)),))]
            ),
            "program.nodes.work",
        ),
        (
            lambda: program(
                blocks=[ProgramBlock("b", (node("n", ["x", "x"], ["y"], work=ProgramNodeWorkSpec.tokens(v("x"), 0)),))]
            ),
            "program.nodes.work",
        ),
        (
            lambda: program(
                states=[state("s", "s.v")],
                blocks=[
                    ProgramBlock("b", (node("n", ["x", "s.v"], ["y"], work=ProgramNodeWorkSpec.tokens(v("s.v"), 0)),))
                ],
            ),
            "program.nodes.work",
        ),
        (
            lambda: program(
                weights=[weight("w", "w.v")],
                blocks=[
                    ProgramBlock("b", (node("n", ["x", "w.v"], ["y"], work=ProgramNodeWorkSpec.tokens(v("w.v"), 0)),))
                ],
            ),
            "program.nodes.work",
        ),
    ],
)
def test_program_rules(build: Any, field: str) -> None:
    assert field_of(build) == field


def test_accepted_shapes() -> None:
    program(outputs=["x"])
    program(blocks=[ProgramBlock("b", (node("n", ["x", "x"], ["y"]),))])
    program(blocks=[ProgramBlock("b", (node("n", ["x"], ["y"], work=ProgramNodeWorkSpec.tokens(v("y"), 7)),))])
    program(
        blocks=[ProgramBlock("b", (node("n", ["x"], ["y"]),)), ProgramBlock("c", (node("m", ["y"], ["z"]),))],
        outputs=["z", "x"],
    )


@pytest.mark.parametrize(
    "build",
    [
        lambda: program(
            states=[
                state(
                    "s",
                    "a",
                    lifetime=StateLifetime.REQUEST,
                    checkpoint=StateCheckpointCapability(
                        CheckpointContents.BOUNDARY_VALUE, CheckpointInputDependency.ENTIRE_TOKEN_INPUT
                    ),
                )
            ]
        ),
        lambda: program(weights=[weight("w", "a", tensor((0,)))]),
        lambda: program(
            blocks=[
                ProgramBlock("b", (node("n", ["x"], ["y"], attributes={AttributeId("a"): SemanticValue("text", "")}),))
            ]
        ),
        lambda: program(
            blocks=[
                ProgramBlock(
                    "b", (node("n", ["x"], ["y"], attributes={AttributeId("a"): SemanticValue("integers", ())}),)
                )
            ]
        ),
    ],
)
def test_bare_invalid_execution_plan_rules(build: Any) -> None:
    with pytest.raises(InvalidExecutionPlan):
        build()


@given(st.permutations(["s.c", "s.a", "s.b"]), st.permutations(["w.c", "w.a", "w.b"]))
def test_states_and_weights_are_sorted_and_reencoding_is_stable(state_ids: list[str], weight_ids: list[str]) -> None:
    built = program(states=[state(s, s + ".v") for s in state_ids], weights=[weight(w, w + ".v") for w in weight_ids])
    assert [s.id.value for s in built.states] == ["s.a", "s.b", "s.c"]
    assert [w.weight_id.value for w in built.weights] == ["w.a", "w.b", "w.c"]
    decoded = ModelProgram.from_wire(built.to_wire())
    assert direct_bytes(decoded.to_wire()) == direct_bytes(built.to_wire())


@pytest.mark.parametrize(
    "mutate",
    [
        lambda w: w.__setitem__("extra", 1),
        lambda w: w.__setitem__("outputs", ["y", "y"]),
        lambda w: w["blocks"][0]["nodes"][0].__setitem__("inputs", ["nope"]),
        lambda w: w.__setitem__("family_id", "bad id"),
        lambda w: w["blocks"][0]["nodes"][0]["required_version"].__setitem__("major", 70000),
        lambda w: w.__setitem__(
            "states",
            [
                {
                    "id": "s",
                    "value_id": "a",
                    "tensor": {"dimensions": [0], "element_type": "u8", "layout": "contiguous"},
                    "lifetime": "sequence",
                    "capacity_demand": "fixed_per_scope",
                    "initialization": "zero",
                }
            ],
        ),
    ],
)
def test_program_decode_rejections(mutate: Any) -> None:
    wire = program().to_wire()
    mutate(wire)
    with pytest.raises(Serialization):
        ModelProgram.from_wire(wire)


def test_unknown_node_keys_are_ignored() -> None:
    wire = program().to_wire()
    wire["blocks"][0]["nodes"][0]["note"] = 1
    wire["blocks"][0]["extra"] = 2
    assert ModelProgram.from_wire(wire) == program()


def test_attributes_and_work_wire() -> None:
    attrs = {
        AttributeId("z"): SemanticValue("rational", CanonicalRational(2, 4)),
        AttributeId("a"): SemanticValue("bool", True),
    }
    built = program(
        blocks=[
            ProgramBlock("b", (node("n", ["x"], ["y"], attributes=attrs, work=ProgramNodeWorkSpec.tokens(v("x"), 1)),))
        ]
    )
    wire = built.to_wire()
    node_wire = wire["blocks"][0]["nodes"][0]
    assert list(node_wire["attributes"]) == ["a", "z"]
    assert node_wire["attributes"]["z"] == {"rational": {"numerator": 1, "denominator": 2}}
    assert node_wire["work"] == {"tokens": {"value_id": "x", "axis": 1}}
    assert ModelProgram.from_wire(wire) == built
    schemas.validate("model/model_program.json", wire)


def test_checkpoint_inputs() -> None:
    base = program(inputs=["t", "c"], blocks=[ProgramBlock("b", (node("n", ["t", "c"], ["y"]),))])
    with_inputs = base.with_checkpoint_inputs(ProgramCheckpointInputs(v("t"), (v("c"),)))
    wire = with_inputs.to_wire()
    assert wire["checkpoint_inputs"] == {
        "contract_version": {"major": 1, "minor": 0},
        "token_input": "t",
        "conditioning_inputs": ["c"],
    }
    assert ModelProgram.from_wire(wire) == with_inputs
    with pytest.raises(InvalidExecutionPlan):
        base.with_checkpoint_inputs(ProgramCheckpointInputs(v("t")))
    for bad in (
        lambda: ProgramCheckpointInputs(v("t"), (v("t"),)),
        lambda: ProgramCheckpointInputs(v("t"), (v("c"), v("b"))),
        lambda: ProgramCheckpointInputs(v("t"), (v("c"),), (v("c"),)),
        lambda: ProgramCheckpointInputs(v("t"), contract_version=ContractVersion(1, 1)),
    ):
        with pytest.raises(InvalidExecutionPlan):
            bad()
    wire["checkpoint_inputs"]["output_only_inputs"] = []
    wire["checkpoint_inputs"]["conditioning_inputs"] = ["c", "c"]
    with pytest.raises(Serialization):
        ModelProgram.from_wire(wire)


def test_state_rules_and_wire() -> None:
    with pytest.raises(Serialization):
        StateCapacityDemand.from_wire({"token_scaled": {"bytes_per_token": 0, "maximum_tokens": 1}}, "ctx")
    with pytest.raises(Serialization):
        StateCapacityDemand.from_wire({"token_scaled": {"bytes_per_token": 1, "maximum_tokens": 1, "x": 1}}, "ctx")
    demand = StateCapacityDemand.token_scaled(16, 3)
    demand.validate(16)
    assert (demand.minimum_bytes(16), demand.theoretical_bytes(16)) == (16, 48)
    for bad in (
        StateCapacityDemand.token_scaled(15, 3),
        StateCapacityDemand.token_scaled(16, 0),
        StateCapacityDemand.token_scaled(2**63, 2),
    ):
        with pytest.raises(InvalidExecutionPlan):
            bad.validate(16)
    checkpointed = state(
        "s",
        "a",
        checkpoint=StateCheckpointCapability(
            CheckpointContents.PREFIX_POSITIONS, CheckpointInputDependency.EXACT_TOKEN_PREFIX
        ),
    )
    wire = checkpointed.to_wire()
    assert wire["checkpoint"]["completed_boundary"]["contract_version"] == {"major": 1, "minor": 0}
    assert StateSpec.from_wire(wire, "ctx") == checkpointed
    assert "checkpoint" not in state("s", "a").to_wire()
    wire["lifetime"] = "step"
    with pytest.raises(Serialization):
        StateSpec.from_wire(wire, "ctx")
    unknown = state("s", "a").to_wire()
    unknown["extra"] = 1
    with pytest.raises(Serialization):
        StateSpec.from_wire(unknown, "ctx")


@pytest.mark.parametrize(
    "spec",
    [
        ProgramTensorSpec((0,), ElementType.F32),
        ProgramTensorSpec((4,), ElementType.F32, StridedLayout((4, 4))),
        ProgramTensorSpec((4,), ElementType.F32, StridedLayout((0,))),
        ProgramTensorSpec((4, 4), ElementType.F32, BlockedLayout((2, 2), (0, 0))),
        ProgramTensorSpec((5, 4), ElementType.F32, BlockedLayout((2, 2), (0, 1))),
        ProgramTensorSpec((4, 4), ElementType.F32, BlockedLayout((2, 2), (0, 1), BlockedTensorPadding((4, 4)))),
        ProgramTensorSpec((5, 4), ElementType.F32, BlockedLayout((2, 2), (0, 1), BlockedTensorPadding((4, 6)))),
        ProgramTensorSpec((2**62, 4), ElementType.F32),
    ],
)
def test_program_tensor_validation(spec: ProgramTensorSpec) -> None:
    with pytest.raises(InvalidExecutionPlan) as info:
        spec.validate("field.x")
    assert info.value.reason.startswith("field.x is invalid")


def test_program_tensor_accepted_layouts() -> None:
    ProgramTensorSpec((), ElementType.F32).validate("scalar")
    ProgramTensorSpec((5, 4), ElementType.F32, BlockedLayout((2, 2), (1, 0), BlockedTensorPadding((4, 6)))).validate(
        "x"
    )
    ProgramTensorSpec((4, 4), ElementType.F32, BlockedLayout((2, 2), (1, 0))).validate("x")
    assert ProgramTensorSpec((3, 4), ElementType.F16).byte_len() == 24


# --------------------------------------------------------------------------- references into the schema


def test_family_program() -> None:
    family = TestFamily()
    config = TestConfig(4)
    schema = family.weight_schema(config)
    prog = family.semantic_program(config, family.numerical_profiles(config).profiles[0])
    schema.validate_program_references("family.synthetic", prog)
    assert prog.state_for_value(v("value.state")) == fixture_byte_state(4)
    assert prog.weight_for_value(v("value.weight")) is not None
    with pytest.raises(InvalidModelConfig) as info:
        schema.validate_program_references("family.other", prog)
    assert info.value.field == "program.family_id"


def reference_error(weights: list[WeightReference], schema_required: bool = True) -> str:
    family = TestFamily()
    config = TestConfig(4)
    schema = family.weight_schema(config)
    if not schema_required:
        schema = replace(schema, tensors=tuple(replace(t, required=False) for t in schema.tensors))
    prog = ModelProgram(
        ModelFamilyId("family.synthetic"),
        (v("value.input"),),
        (ProgramBlock("b", (node("n", ["value.input"], ["value.output"]),)),),
        (),
        tuple(weights),
        (v("value.output"),),
    )
    with pytest.raises(InvalidModelConfig) as info:
        schema.validate_program_references("family.synthetic", prog)
    return info.value.field


def test_program_weight_references() -> None:
    assert reference_error([weight("weight.unknown", "a"), weight("weight.matrix", "b")]) == "program.weights"
    assert reference_error([]) == "program.weights"
    assert reference_error([weight("weight.matrix", "b", tensor((8,)))]) == "program.weights.weight.matrix.tensor"
    assert reference_error([weight("weight.matrix", "b", tensor((4,), ElementType.F16))]) == (
        "program.weights.weight.matrix.tensor"
    )
    # layouts are not compared
    family = TestFamily()
    schema = family.weight_schema(TestConfig(4))
    prog = ModelProgram(
        ModelFamilyId("family.synthetic"),
        (v("i"),),
        (ProgramBlock("b", (node("n", ["i"], ["o"]),)),),
        (),
        (weight("weight.matrix", "w", tensor((4,), layout=StridedLayout((4,)))),),
        (v("o"),),
    )
    schema.validate_program_references("family.synthetic", prog)


def test_decode_defaults_pinned_by_decisions() -> None:
    # D-02-14: ProgramNode.attributes has no serde default, so it is required on decode.
    wire = program().to_wire()
    del wire["blocks"][0]["nodes"][0]["attributes"]
    with pytest.raises(Serialization):
        ModelProgram.from_wire(wire)
    # D-02-15: StateSpec.checkpoint defaults when absent, but an explicit null is not a capability.
    present = state("s", "a").to_wire()
    present["checkpoint"] = None
    with pytest.raises(Serialization):
        StateSpec.from_wire(present, "ctx")
    # D-02-21: a unit variant spelled {"variant": null} is accepted on standalone decode, never emitted.
    spelled = state("s", "a").to_wire()
    spelled["capacity_demand"] = {"fixed_per_scope": None}
    assert StateSpec.from_wire(spelled, "ctx").to_wire()["capacity_demand"] == "fixed_per_scope"
