"""Model-layer strategies (spec 02): element types, program tensors, states, programs as DAGs,
numerical profiles, semantic metadata and whole family documents.

``family_drafts()`` is the entry point: a family document (the JSON the harness
sends) plus the raw config and profile to prepare it with, the typed program
and schema, and the tensor type of every program value (so scenario strategies
can build matching catalogs and input tensor specs). Every draft prepares:
``TypedFamilyRegistration(DeclarativeFamily.from_document(doc)).prepare_with_profile(raw, profile)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import strategies as st

from reference.canonical import JsonValue
from reference.documents.family import FAMILY_DOCUMENT_VERSION, DeclarativeFamily
from reference.ids import (
    AttributeId,
    ModelFamilyId,
    NodeId,
    NumericalProfileId,
    OperationId,
    ProgramValueId,
    StateId,
)
from reference.model.element import FLOAT_TYPES, ElementType
from reference.model.metadata import (
    ModelSemanticMetadata,
    SpecialTokenCollision,
    SpecialTokenCollisionPolicy,
    SpecialTokenMetadata,
    SpecialTokenRole,
    TemplateMetadata,
)
from reference.model.numerical import NumericalExecutionProfile, NumericalOperationContract
from reference.model.prepared import PreparedModelFamily
from reference.model.program import (
    ModelProgram,
    ProgramBlock,
    ProgramCheckpointInputs,
    ProgramNode,
    ProgramNodeWorkSpec,
    WeightReference,
)
from reference.model.registration import TypedFamilyRegistration
from reference.model.semantic_value import CanonicalRational, SemanticValue
from reference.model.state import (
    CheckpointContents,
    CheckpointInputDependency,
    StateCapacityDemand,
    StateCheckpointCapability,
    StateInitialization,
    StateLifetime,
    StateSpec,
)
from reference.model.tensor import (
    BlockedLayout,
    BlockedTensorPadding,
    ContiguousLayout,
    ProgramTensorSpec,
    ResolvedTensorLayout,
    StridedLayout,
)
from reference.model.weight_schema import WeightSchema
from reference.versions import ContractVersion
from strategies._reuse import reusable
from strategies.ids import hex_digests, id_strings
from strategies.json_values import json_values
from strategies.weights import shapes, weight_schemas

__all__ = [
    "FamilyDraft",
    "ProgramDraft",
    "ValueType",
    "element_types",
    "family_drafts",
    "metadata",
    "prepare_draft",
    "program_drafts",
    "program_tensor_specs",
    "semantic_values",
    "state_specs",
]

_ALL_TYPES: Final = list(ElementType)
_FLOATS: Final = sorted(FLOAT_TYPES)


@dataclass(frozen=True, slots=True)
class ValueType:
    """The tensor a program value carries: dimensions and element type (contiguous)."""

    dimensions: tuple[int, ...]
    element_type: ElementType

    def tensor(self) -> ProgramTensorSpec:
        return ProgramTensorSpec(self.dimensions, self.element_type, ContiguousLayout())


@dataclass(frozen=True, slots=True)
class ProgramDraft:
    """A valid program, the type of each of its values, and its operations at their versions."""

    program: ModelProgram
    value_types: Mapping[ProgramValueId, ValueType]
    operation_versions: Mapping[OperationId, ContractVersion]


@dataclass(frozen=True, slots=True)
class FamilyDraft:
    """A family document that prepares with ``raw_config`` under ``profile_id``."""

    document: dict[str, JsonValue]
    raw_config: dict[str, JsonValue]
    profile_id: str
    schema: WeightSchema
    program: ProgramDraft


def element_types(*, floats_only: bool = False) -> st.SearchStrategy[ElementType]:
    return st.sampled_from(_FLOATS if floats_only else _ALL_TYPES)


# --------------------------------------------------------------------------- tensors and states


def _tensor_layouts(dims: tuple[int, ...]) -> st.SearchStrategy[ResolvedTensorLayout]:
    """Contiguous, strided (non-zero strides) or blocked layouts valid for ``dims`` (04 §5.2)."""
    rank = len(dims)
    options: list[st.SearchStrategy[ResolvedTensorLayout]] = [
        st.just(ContiguousLayout()),
        st.lists(st.integers(1, 64), min_size=rank, max_size=rank).map(lambda s: StridedLayout(tuple(s))),
    ]
    if rank:

        @reusable
        @st.composite
        def blocked(draw: st.DrawFn) -> BlockedLayout:
            block = tuple(draw(st.integers(1, d)) for d in dims)
            order = tuple(draw(st.permutations(list(range(rank)))))
            padded = tuple(-(-d // b) * b for d, b in zip(dims, block, strict=True))
            if padded == dims:
                return BlockedLayout(block, order, BlockedTensorPadding())
            return BlockedLayout(block, order, BlockedTensorPadding(tuple(padded[axis] for axis in order)))

        options.append(blocked())
    return st.one_of(options)


@reusable
@st.composite
def program_tensor_specs(
    draw: st.DrawFn, *, dims: tuple[int, ...] | None = None, element_type: ElementType | None = None
) -> ProgramTensorSpec:
    """A program tensor that ``validate`` accepts (non-zero dims, valid layout)."""
    chosen = dims if dims is not None else draw(shapes())
    dtype = element_type if element_type is not None else draw(element_types())
    return ProgramTensorSpec(chosen, dtype, draw(_tensor_layouts(chosen)))


@reusable
@st.composite
def state_specs(draw: st.DrawFn, state_id: str, value_id: str) -> StateSpec:
    """A valid state: capacity demand consistent with the tensor bytes, checkpoints only for sequences."""
    tensor = draw(program_tensor_specs(dims=draw(shapes(max_rank=2, max_extent=4))))
    lifetime = draw(st.sampled_from(tuple(StateLifetime)))
    tensor_bytes = tensor.byte_len()
    demand = draw(
        st.one_of(
            st.just(StateCapacityDemand.fixed_per_scope()),
            st.tuples(st.integers(0, 16), st.integers(1, 8)).map(
                lambda p: StateCapacityDemand.token_scaled(tensor_bytes + p[0], p[1])
            ),
        )
    )
    checkpoint = StateCheckpointCapability()
    if lifetime is StateLifetime.SEQUENCE and draw(st.booleans()):
        checkpoint = StateCheckpointCapability(
            draw(st.sampled_from(tuple(CheckpointContents))), draw(st.sampled_from(tuple(CheckpointInputDependency)))
        )
    return StateSpec(
        StateId(state_id),
        ProgramValueId(value_id),
        tensor,
        lifetime,
        demand,
        draw(st.sampled_from(tuple(StateInitialization))),
        checkpoint,
    )


def semantic_values() -> st.SearchStrategy[SemanticValue]:
    """Attribute values that ``SemanticValue.validate`` accepts (non-empty text and lists)."""
    return st.one_of(
        st.booleans().map(lambda v: SemanticValue("bool", v)),
        st.integers(-(2**63), 2**63 - 1).map(lambda v: SemanticValue("integer", v)),
        st.integers(0, 2**64 - 1).map(lambda v: SemanticValue("unsigned", v)),
        st.tuples(st.integers(-9, 9), st.integers(1, 9)).map(
            lambda p: SemanticValue("rational", CanonicalRational(p[0], p[1]))
        ),
        st.text(alphabet="abcmean", min_size=1, max_size=4).map(lambda v: SemanticValue("text", v)),
        st.lists(st.integers(-4, 4), min_size=1, max_size=3).map(lambda v: SemanticValue("integers", tuple(v))),
    )


# --------------------------------------------------------------------------- programs


@reusable
@st.composite
def program_drafts(
    draw: st.DrawFn,
    schema: WeightSchema,
    *,
    family_id: str = "family.generated",
    max_nodes: int = 4,
    attributes: bool = False,
    min_states: int = 0,
) -> ProgramDraft:
    """A valid program DAG over ``schema``: inputs, states, weight references, single-assignment nodes.

    Every required schema tensor is referenced with its exact dims and dtype; node inputs read
    only already-defined values; token work names exactly one non-state, non-weight operand.
    """
    types: dict[ProgramValueId, ValueType] = {}
    inputs = [ProgramValueId(f"value.in{i}") for i in range(draw(st.integers(1, 2)))]
    for value in inputs:
        types[value] = ValueType(draw(shapes(max_rank=2, max_extent=4)), draw(element_types()))
    states = [draw(state_specs(f"state.s{i}", f"value.state{i}")) for i in range(draw(st.integers(min_states, 2)))]
    for state in states:
        types[state.value_id] = ValueType(state.tensor.dimensions, state.tensor.element_type)
    weights = []
    for index, tensor in enumerate(schema.tensors):
        if tensor.required or draw(st.booleans()):
            value = ProgramValueId(f"value.w{index}")
            types[value] = ValueType(tensor.dimensions, tensor.logical_element_type)
            weights.append(WeightReference(tensor.id, value, types[value].tensor()))
    bound = {s.value_id for s in states} | {w.value_id for w in weights}
    known = list(types)
    operation_versions: dict[OperationId, ContractVersion] = {}
    node_count = draw(st.integers(1, max_nodes))
    nodes: list[ProgramNode] = []
    for index in range(node_count):
        operation = OperationId(f"operation.op{draw(st.integers(0, min(index, 2)))}")
        version = operation_versions.setdefault(operation, ContractVersion(1, draw(st.integers(0, 2))))
        operands = draw(st.lists(st.sampled_from(known), max_size=3, unique=True))
        outputs = [ProgramValueId(f"value.n{index}.o{k}") for k in range(draw(st.integers(1, 2)))]
        for k, value in enumerate(outputs):
            # The first node's first output is a float so every profile has a float primary activation.
            dtype = draw(element_types(floats_only=index == 0 and k == 0))
            types[value] = ValueType(draw(shapes(max_rank=2, max_extent=4)), dtype)
        work = ProgramNodeWorkSpec.fixed()
        token_candidates = [v for v in [*operands, *outputs] if v not in bound]
        tokens: bool = draw(st.booleans())
        if token_candidates and tokens:
            work = ProgramNodeWorkSpec.tokens(draw(st.sampled_from(token_candidates)), draw(st.integers(0, 1)))
        node_attributes: dict[AttributeId, SemanticValue] = {}
        if attributes:
            for name in draw(st.lists(st.sampled_from(("attr.axis", "attr.mode")), unique=True)):
                node_attributes[AttributeId(name)] = draw(semantic_values())
        nodes.append(ProgramNode(NodeId(f"node.n{index}"), operation, version, work, tuple(operands),
                                 tuple(outputs), node_attributes))  # fmt: skip
        known.extend(outputs)
    split = draw(st.integers(1, len(nodes)))
    blocks = [ProgramBlock("block.main", tuple(nodes[:split]))]
    if split < len(nodes):
        blocks.append(ProgramBlock("block.tail", tuple(nodes[split:])))
    produced = [v for node in nodes for v in node.outputs]
    outputs = draw(st.lists(st.sampled_from(produced), min_size=1, max_size=2, unique=True))
    checkpoint = None
    if draw(st.booleans()):
        ordered: list[ProgramValueId] = draw(st.permutations(inputs))
        token, rest = ordered[0], ordered[1:]
        conditioning = sorted(v for v in rest if draw(st.booleans()))
        output_only = sorted(v for v in rest if v not in conditioning)
        checkpoint = ProgramCheckpointInputs(token, tuple(conditioning), tuple(output_only))
    program = ModelProgram(ModelFamilyId(family_id), tuple(inputs), tuple(blocks), tuple(states), tuple(weights),
                           tuple(outputs), checkpoint)  # fmt: skip
    return ProgramDraft(program, types, operation_versions)


# --------------------------------------------------------------------------- profiles and metadata


@reusable
@st.composite
def _profiles(draw: st.DrawFn, program: ProgramDraft) -> list[NumericalExecutionProfile]:
    """1..2 profiles consistent with ``program`` (ops at their versions, boundaries = node outputs)."""
    prog = program.program
    outputs = sorted({v for node in prog.nodes() for v in node.outputs})
    profiles = []
    for index in range(draw(st.integers(1, 2))):
        boundaries = {v: program.value_types[v].element_type for v in outputs}
        primary = draw(st.sampled_from([v for v in outputs if boundaries[v] in FLOAT_TYPES]))
        operations = [
            NumericalOperationContract(
                op,
                version,
                draw(st.one_of(st.none(), element_types(floats_only=True))),
                draw(st.one_of(st.none(), element_types(floats_only=True))),
            )
            for op, version in sorted(program.operation_versions.items())
        ]
        profiles.append(
            NumericalExecutionProfile(
                NumericalProfileId(f"profile.p{index}"),
                ContractVersion(1, draw(st.integers(0, 1))),
                prog.family_id,
                primary,
                boundaries,
                prog.states,
                tuple(draw(st.permutations(operations))),
            )
        )
    return profiles


@reusable
@st.composite
def metadata(draw: st.DrawFn) -> ModelSemanticMetadata:
    """Semantic metadata ``validate_metadata`` accepts."""
    roles = list(SpecialTokenRole)
    pairs = [(a, b) for i, a in enumerate(roles) for b in roles[i + 1 :]]
    allowed = [SpecialTokenCollision(a, b) for a, b in draw(st.lists(st.sampled_from(pairs), max_size=2, unique=True))]
    token = st.integers(0, 2**32 - 1)
    return ModelSemanticMetadata(
        TemplateMetadata(
            draw(st.sampled_from(["{{ messages }}", "{% for m in messages %}{{ m }}{% endfor %}"])),
            draw(st.sampled_from(("template.json", "tokenizer/chat_template.jinja"))),
            draw(hex_digests()),
        ),
        SpecialTokenMetadata(
            draw(st.one_of(st.none(), token)),
            tuple(draw(st.lists(token, min_size=1, max_size=3))),
            draw(st.one_of(st.none(), token)),
            SpecialTokenCollisionPolicy(tuple(allowed)),
        ),
    )


_CONFIG_VALUES: Final[dict[str, st.SearchStrategy[Any]]] = {
    "u64": st.one_of(st.integers(0, 64), st.just(2**64 - 1)),
    "i64": st.integers(-(2**63), 2**63 - 1),
    "string": st.text(alphabet="abc-", max_size=6),
    "bool": st.booleans(),
    "f64": st.sampled_from((0.5, 1e-05, -2.25, 3.0)),
    "json": json_values(max_leaves=4),
}


@reusable
@st.composite
def _config(draw: st.DrawFn) -> tuple[list[tuple[str, str]], dict[str, JsonValue], dict[str, JsonValue]]:
    """Config fields, the typed value (fields plus explicit defaults) and the raw config."""
    names = draw(st.lists(st.sampled_from(("width", "depth", "name", "flag", "scale", "extra")), unique=True,
                          max_size=3))  # fmt: skip
    fields = [(name, draw(st.sampled_from(sorted(_CONFIG_VALUES)))) for name in names]
    raw = {name: draw(_CONFIG_VALUES[kind]) for name, kind in fields}
    value = dict(raw)
    if draw(st.booleans()):
        value["default_only"] = draw(st.integers(0, 8))
    return fields, value, raw


@reusable
@st.composite
def family_drafts(
    draw: st.DrawFn,
    *,
    max_tensors: int = 2,
    max_nodes: int = 4,
    first_kind: str | None = None,
    first_required: bool | None = None,
    min_states: int = 0,
) -> FamilyDraft:
    """A valid family document (structure per ``reference.documents.family``) and how to prepare it.

    ``first_kind`` / ``first_required`` are passed to ``weight_schemas``; ``min_states`` to ``program_drafts``.
    """
    family_id = draw(id_strings("family"))
    schema = draw(weight_schemas(max_tensors=max_tensors, first_kind=first_kind, first_required=first_required))
    program = draw(program_drafts(schema, family_id=family_id, max_nodes=max_nodes, min_states=min_states))
    profiles = draw(_profiles(program))
    externals = draw(st.lists(id_strings("metadata"), min_size=1, max_size=3, unique=True))
    fields, value, raw = draw(_config())
    preference = draw(st.permutations([p.id.value for p in profiles]))
    preference = preference[: draw(st.integers(1, len(preference)))]
    document: dict[str, JsonValue] = {
        "document_version": FAMILY_DOCUMENT_VERSION,
        "family_id": family_id,
        "external_metadata_ids": sorted(externals),
        "selected_external_metadata_id": draw(st.sampled_from(externals)),
        "config": {
            "fields": [{"name": name, "type": kind} for name, kind in fields],
            "parse_error_field": "config",
            "value": value,
        },
        "weight_schema": schema.to_wire(),
        "numerical_profiles": {
            "version": {"major": 1, "minor": 0},
            "profiles": [p.to_wire() for p in profiles],
            "auto_preference": list(preference),
        },
        "program": program.program.to_wire(),
        "semantic_metadata": draw(metadata()).to_wire(),
    }
    profile_id = draw(st.sampled_from([p.id.value for p in profiles]))
    return FamilyDraft(document, raw, profile_id, schema, program)


def prepare_draft(document: JsonValue, raw_config: JsonValue, profile_id: str) -> PreparedModelFamily:
    """What every valid draft must survive: decode the document, define, prepare with the profile."""
    family = DeclarativeFamily.from_document(document)
    return TypedFamilyRegistration(family).prepare_with_profile(raw_config, profile_id)
