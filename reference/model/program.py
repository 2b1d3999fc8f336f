"""``ModelProgram``: single-assignment blocks of nodes over inputs, states and weights (spec 02 §10).

``ModelProgram(...)`` runs every rule of ``ModelProgram::new`` in the documented
order (errors ``InvalidModelConfig{field="program.*"}`` or bare
``InvalidExecutionPlan``), then stores ``states`` sorted by id and ``weights``
sorted by weight id. ``UnvalidatedProgram`` is the structural decode used by
documents, so a hostile program is rejected by the constructor with a typed error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from reference.canonical import JsonValue, direct_fingerprint
from reference.errors import InvalidExecutionPlan, InvalidModelConfig, Serialization
from reference.ids import AttributeId, ModelFamilyId, NodeId, OperationId, ProgramValueId, StateId, WeightId
from reference.ints import check_uint
from reference.model.semantic_value import SemanticValue
from reference.model.state import STATE_CHECKPOINT_CONTRACT_VERSION, StateSpec
from reference.model.tensor import ProgramTensorSpec
from reference.versions import ContractVersion
from reference.wire import WireObject, decode_with, read_identity, read_list, read_tagged_enum

__all__ = [
    "ModelProgram",
    "ProgramBlock",
    "ProgramCheckpointInputs",
    "ProgramNode",
    "ProgramNodeWorkSpec",
    "UnvalidatedProgram",
    "WeightReference",
]

_FIXED: Final = "fixed"


@dataclass(frozen=True, slots=True)
class WeightReference:
    """Binds schema tensor ``weight_id`` to program value ``value_id`` with a program tensor spec."""

    weight_id: WeightId
    value_id: ProgramValueId
    tensor: ProgramTensorSpec

    def to_wire(self) -> JsonValue:
        return {
            "weight_id": self.weight_id.to_wire(),
            "value_id": self.value_id.to_wire(),
            "tensor": self.tensor.to_wire(),
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> WeightReference:
        f = WireObject(
            raw,
            ("weight_id", "value_id", "tensor"),
            lenient=True,
            type_name="WeightReference",
            context=context,
            path=path,
        )
        return cls(
            f.identity("weight_id", WeightId),
            f.identity("value_id", ProgramValueId),
            f.nested("tensor", ProgramTensorSpec.from_wire),
        )


@dataclass(frozen=True, slots=True)
class ProgramNodeWorkSpec:
    """``"fixed"`` (``value_id`` None) or ``{"tokens": {"value_id", "axis"}}``."""

    value_id: ProgramValueId | None = None
    axis: int = 0

    def __post_init__(self) -> None:
        check_uint(self.axis, 32, "axis")

    @classmethod
    def fixed(cls) -> ProgramNodeWorkSpec:
        return cls()

    @classmethod
    def tokens(cls, value_id: ProgramValueId, axis: int) -> ProgramNodeWorkSpec:
        return cls(value_id, axis)

    def to_wire(self) -> JsonValue:
        if self.value_id is None:
            return _FIXED
        return {"tokens": {"value_id": self.value_id.to_wire(), "axis": self.axis}}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> ProgramNodeWorkSpec:
        tag, content = read_tagged_enum(raw, (_FIXED,), ("tokens",), context=context, path=path)
        if tag == _FIXED:
            return cls()
        f = WireObject(
            content, ("value_id", "axis"), lenient=True, type_name="tokens", context=context, path=f"{path}.tokens"
        )
        return cls(f.identity("value_id", ProgramValueId), f.u32("axis"))


def _frozen_map(items: Mapping[AttributeId, SemanticValue]) -> Mapping[AttributeId, SemanticValue]:
    return MappingProxyType({key: items[key] for key in sorted(items)})


@dataclass(frozen=True, slots=True)
class ProgramNode:
    """One operation invocation: inputs and outputs are program value ids, in operand order."""

    id: NodeId
    operation_id: OperationId
    required_version: ContractVersion
    work: ProgramNodeWorkSpec
    inputs: tuple[ProgramValueId, ...]
    outputs: tuple[ProgramValueId, ...]
    attributes: Mapping[AttributeId, SemanticValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "outputs", tuple(self.outputs))
        object.__setattr__(self, "attributes", _frozen_map(self.attributes))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProgramNode):
            return NotImplemented
        return bool(self.to_wire() == other.to_wire())

    def __hash__(self) -> int:
        return hash((self.id, self.operation_id, self.inputs, self.outputs))

    def to_wire(self) -> JsonValue:
        return {
            "id": self.id.to_wire(),
            "operation_id": self.operation_id.to_wire(),
            "required_version": self.required_version.to_wire(),
            "work": self.work.to_wire(),
            "inputs": [v.to_wire() for v in self.inputs],
            "outputs": [v.to_wire() for v in self.outputs],
            "attributes": {key.value: value.to_wire() for key, value in self.attributes.items()},
        }

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> ProgramNode:
        f = WireObject(
            raw,
            ("id", "operation_id", "required_version", "work", "inputs", "outputs", "attributes"),
            lenient=True,
            type_name="ProgramNode",
            context=context,
            path=path,
        )
        attributes_raw = f.raw("attributes")
        if not isinstance(attributes_raw, dict):
            raise Serialization(  # rule: 02.10.1/node_attributes_required
                context, f"{f.at('attributes')}: expected an object"
            )
        attributes = {
            read_identity(
                key, AttributeId, context=context, path=f"{f.at('attributes')}.{key}"
            ): SemanticValue.from_wire(value, context, f"{f.at('attributes')}.{key}")
            for key, value in attributes_raw.items()
        }
        return cls(
            f.identity("id", NodeId),
            f.identity("operation_id", OperationId),
            f.version("required_version"),
            f.nested("work", ProgramNodeWorkSpec.from_wire),
            _values(f.raw("inputs"), context, f.at("inputs")),
            _values(f.raw("outputs"), context, f.at("outputs")),
            attributes,
        )


def _values(raw: Any, context: str, path: str) -> tuple[ProgramValueId, ...]:
    items = read_list(raw, context=context, path=path)
    return tuple(read_identity(v, ProgramValueId, context=context, path=f"{path}[{i}]") for i, v in enumerate(items))


@dataclass(frozen=True, slots=True)
class ProgramBlock:
    """A named, ordered group of nodes; ``id`` is a plain string (non-empty, unique)."""

    id: str
    nodes: tuple[ProgramNode, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.id, str):
            raise ValueError("block id must be a str")
        object.__setattr__(self, "nodes", tuple(self.nodes))

    def to_wire(self) -> JsonValue:
        return {"id": self.id, "nodes": [n.to_wire() for n in self.nodes]}

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> ProgramBlock:
        f = WireObject(raw, ("id", "nodes"), lenient=True, type_name="ProgramBlock", context=context, path=path)
        return cls(f.string("id"), f.items("nodes", ProgramNode.from_wire))


@dataclass(frozen=True, slots=True)
class ProgramCheckpointInputs:
    """Checkpoint input roles: a token input, conditioning inputs and output-only inputs (sets)."""

    token_input: ProgramValueId
    conditioning_inputs: tuple[ProgramValueId, ...] = ()
    output_only_inputs: tuple[ProgramValueId, ...] = ()
    contract_version: ContractVersion = STATE_CHECKPOINT_CONTRACT_VERSION

    def __post_init__(self) -> None:
        conditioning = tuple(self.conditioning_inputs)
        output_only = tuple(self.output_only_inputs)
        object.__setattr__(self, "conditioning_inputs", conditioning)
        object.__setattr__(self, "output_only_inputs", output_only)
        if self.contract_version != STATE_CHECKPOINT_CONTRACT_VERSION:
            raise InvalidExecutionPlan(  # rule: 02.10.1/checkpoint_inputs_version
                reason="checkpoint input contract must be 1.0"
            )
        for values in (conditioning, output_only):
            if any(values[i] >= values[i + 1] for i in range(len(values) - 1)):
                raise InvalidExecutionPlan(  # rule: 02.10.1/checkpoint_inputs_ascending
                    reason="checkpoint input sets must be strictly ascending"
                )
        if self.token_input in conditioning:
            raise InvalidExecutionPlan(  # rule: 02.10.1/checkpoint_token_not_conditioning
                reason="token input must not be a conditioning input"
            )
        if self.token_input in output_only or set(conditioning) & set(output_only):
            raise InvalidExecutionPlan(  # rule: 02.10.1/checkpoint_output_only_disjoint
                reason="output-only inputs must be disjoint from token and conditioning inputs"
            )

    def all_inputs(self) -> frozenset[ProgramValueId]:
        return frozenset((self.token_input, *self.conditioning_inputs, *self.output_only_inputs))

    def to_wire(self) -> JsonValue:
        out: dict[str, JsonValue] = {
            "contract_version": self.contract_version.to_wire(),
            "token_input": self.token_input.to_wire(),
            "conditioning_inputs": [v.to_wire() for v in self.conditioning_inputs],
        }
        if self.output_only_inputs:
            out["output_only_inputs"] = [v.to_wire() for v in self.output_only_inputs]
        return out

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$") -> ProgramCheckpointInputs:
        f = WireObject(  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_program_checkpoint_inputs
            raw,
            ("contract_version", "token_input", "conditioning_inputs"),
            ("output_only_inputs",),
            type_name="ProgramCheckpointInputs",
            context=context,
            path=path,
        )
        version = f.version("contract_version")
        token = f.identity("token_input", ProgramValueId)
        conditioning = _values(f.raw("conditioning_inputs"), context, f.at("conditioning_inputs"))
        output_only = (
            _values(f.raw("output_only_inputs"), context, f.at("output_only_inputs"))
            if "output_only_inputs" in f
            else ()
        )
        return decode_with(
            lambda: cls(token, conditioning, output_only, version), context=context, path=path, argument_errors=False
        )


def _program_error(family_id: str, field_name: str, reason: str) -> InvalidModelConfig:
    return InvalidModelConfig(family_id=family_id, field=field_name, reason=reason)


@dataclass(frozen=True, slots=True, eq=False)
class ModelProgram:
    """A validated program; construction enforces every rule of spec 02 §10.3."""

    family_id: ModelFamilyId
    inputs: tuple[ProgramValueId, ...]
    blocks: tuple[ProgramBlock, ...]
    states: tuple[StateSpec, ...]
    weights: tuple[WeightReference, ...]
    outputs: tuple[ProgramValueId, ...]
    checkpoint_inputs: ProgramCheckpointInputs | None = None
    _nodes_by_id: dict[NodeId, ProgramNode] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("inputs", "blocks", "states", "weights", "outputs"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        self._validate()
        object.__setattr__(self, "states", tuple(sorted(self.states, key=lambda s: s.id)))
        object.__setattr__(self, "weights", tuple(sorted(self.weights, key=lambda w: w.weight_id)))
        if self.checkpoint_inputs is not None and self.checkpoint_inputs.all_inputs() != frozenset(self.inputs):
            raise InvalidExecutionPlan(  # rule: 02.10.1/checkpoint_inputs_cover_program_inputs
                reason="checkpoint inputs must partition the program inputs exactly"
            )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ModelProgram):
            return NotImplemented
        return bool(self.to_wire() == other.to_wire())

    def __hash__(self) -> int:
        return hash(self.fingerprint())

    def _validate(self) -> None:
        fid = self.family_id.value
        if not self.blocks:
            raise _program_error(  # rule: 02.10.3/blocks_empty
                fid, "program.blocks", "program needs at least one block"
            )
        inputs_reason = "program inputs must be non-empty and unique"
        if not self.inputs:
            raise _program_error(fid, "program.inputs", inputs_reason)  # rule: 02.10.3/inputs_empty
        if len(set(self.inputs)) != len(self.inputs):
            raise _program_error(fid, "program.inputs", inputs_reason)  # rule: 02.10.3/inputs_duplicate
        known: set[ProgramValueId] = set(self.inputs)
        for state in self.states:
            state.checkpoint.validate_lifetime(state.lifetime)
            try:
                state.tensor.validate("program.states.tensor")
            except InvalidExecutionPlan as exc:
                raise _program_error(  # rule: 02.10.3/state_invalid_tensor
                    fid, "program.states.value_id", exc.reason
                ) from None
            try:
                state.capacity_demand.validate(state.tensor.byte_len())
            except InvalidExecutionPlan as exc:
                raise _program_error(  # rule: 02.10.3/state_invalid_demand
                    fid, "program.states.value_id", exc.reason
                ) from None
            if state.value_id in known:
                raise _program_error(  # rule: 02.10.3/state_value_redefined
                    fid, "program.states.value_id", f"value `{state.value_id}` is already defined"
                )
            known.add(state.value_id)
        weight_ids: set[WeightId] = set()
        for weight in self.weights:
            if weight.weight_id in weight_ids or weight.value_id in known:
                raise _program_error(  # rule: 02.10.3/weight_duplicate_or_redefined
                    fid, "program.weights", f"weight `{weight.weight_id}` is duplicated or redefines a value"
                )
            weight_ids.add(weight.weight_id)
            weight.tensor.validate("program.weights.tensor")
            known.add(weight.value_id)
        bound = {s.value_id for s in self.states} | {w.value_id for w in self.weights}
        block_ids: set[str] = set()
        node_ids: set[NodeId] = set()
        for block in self.blocks:
            block_reason = f"block {block.id!r} is empty, unnamed or duplicated"
            if not block.id:
                raise _program_error(
                    fid,
                    "program.blocks.id",
                    block_reason,
                )  # rule: 02.10.3/block_id_empty_nodes_duplicate, 01.1.4/program_block_id_non_empty_unique
            if not block.nodes:
                raise _program_error(  # rule: 02.10.3/block_id_empty_nodes_duplicate
                    fid, "program.blocks.id", block_reason
                )
            if block.id in block_ids:
                raise _program_error(
                    fid,
                    "program.blocks.id",
                    block_reason,
                )  # rule: 02.10.3/block_id_empty_nodes_duplicate, 01.1.4/program_block_id_non_empty_unique
            block_ids.add(block.id)
            for node in block.nodes:
                self._validate_node(fid, node, known, node_ids, bound)
        state_ids: set[StateId] = set()
        for state in self.states:
            if state.id in state_ids:
                raise _program_error(  # rule: 02.10.3/state_id_duplicate_after_blocks
                    fid, "program.states.id", f"state `{state.id}` is duplicated"
                )
            state_ids.add(state.id)
        if (
            not self.outputs
            or len(set(self.outputs)) != len(self.outputs)
            or any(output not in known for output in self.outputs)
        ):
            raise _program_error(  # rule: 02.10.3/outputs_invalid
                fid, "program.outputs", "program outputs must be non-empty, unique and defined"
            )

    @staticmethod
    def _validate_node(
        fid: str,
        node: ProgramNode,
        known: set[ProgramValueId],
        node_ids: set[NodeId],
        bound: set[ProgramValueId],
    ) -> None:
        if node.required_version.major == 0 or not node.outputs:
            raise _program_error(  # rule: 02.10.3/node_contract
                fid, "program.nodes.contract", f"node `{node.id}` has version 0.x or no outputs"
            )
        for attribute in node.attributes.values():
            attribute.validate(  # rule when 02.10.1/semantic_text_non_empty: 02.10.3/node_attribute_bare
            )  # rule when 02.10.1/semantic_integers_non_empty: 02.10.3/node_attribute_bare
        if node.id in node_ids:
            raise _program_error(  # rule: 02.10.3/node_id_duplicate
                fid, "program.nodes.id", f"node `{node.id}` is duplicated"
            )
        node_ids.add(node.id)
        token_value = node.work.value_id
        if token_value is not None:
            operands = node.inputs + node.outputs
            if operands.count(token_value) != 1 or token_value in bound:
                raise _program_error(  # rule: 02.10.3/node_work_value
                    fid, "program.nodes.work", f"node `{node.id}` token work value is invalid"
                )
        for value in node.inputs:
            if value not in known:
                raise _program_error(  # rule: 02.10.3/node_input_undefined
                    fid, "program.nodes.inputs", f"node `{node.id}` reads undefined value `{value}`"
                )
        for value in node.outputs:
            if value in known:
                raise _program_error(  # rule: 02.10.3/node_output_multiple_producers
                    fid, "program.nodes.outputs", f"value `{value}` has multiple producers"
                )
            known.add(value)

    # ------------------------------------------------------------------ queries

    def nodes(self) -> tuple[ProgramNode, ...]:
        """Every node, block order then node order (the plan node order)."""
        return tuple(node for block in self.blocks for node in block.nodes)

    def node(self, node_id: NodeId) -> ProgramNode | None:
        """The node with ``node_id`` (ids are unique in a valid program); indexed on first use."""
        if not self._nodes_by_id:
            self._nodes_by_id.update((n.id, n) for n in self.nodes())
        return self._nodes_by_id.get(node_id)

    def state(self, state_id: StateId) -> StateSpec | None:
        return next((s for s in self.states if s.id == state_id), None)

    def state_for_value(self, value_id: ProgramValueId) -> StateSpec | None:
        return next((s for s in self.states if s.value_id == value_id), None)

    def weight_for_value(self, value_id: ProgramValueId) -> WeightReference | None:
        return next((w for w in self.weights if w.value_id == value_id), None)

    def node_outputs(self) -> frozenset[ProgramValueId]:
        return frozenset(v for node in self.nodes() for v in node.outputs)

    def with_checkpoint_inputs(self, checkpoint_inputs: ProgramCheckpointInputs) -> ModelProgram:
        """The same program carrying checkpoint inputs; they must cover exactly the program inputs."""
        return ModelProgram(
            self.family_id, self.inputs, self.blocks, self.states, self.weights, self.outputs, checkpoint_inputs
        )

    # ------------------------------------------------------------------ wire and hash

    def to_wire(self) -> JsonValue:
        out: dict[str, JsonValue] = {
            "family_id": self.family_id.to_wire(),
            "inputs": [v.to_wire() for v in self.inputs],
            "blocks": [b.to_wire() for b in self.blocks],
            "states": [s.to_wire() for s in self.states],
            "weights": [w.to_wire() for w in self.weights],
            "outputs": [v.to_wire() for v in self.outputs],
        }
        if self.checkpoint_inputs is not None:
            out["checkpoint_inputs"] = self.checkpoint_inputs.to_wire()
        return out

    def fingerprint(self) -> str:
        """sha256 of the declaration-order JSON."""
        return direct_fingerprint(self.to_wire(), context="serialize model program")

    @classmethod
    def from_wire(cls, raw: Any, context: str = "decode model program", path: str = "$") -> ModelProgram:
        """Strict decode that runs the constructor; any contract error becomes ``Serialization``."""
        parts = UnvalidatedProgram.from_wire(raw, context, path)
        return decode_with(parts.build, context=context, path=path, argument_errors=False)


@dataclass(frozen=True, slots=True)
class UnvalidatedProgram:
    """The structural fields of a program wire, before ``ModelProgram`` validation."""

    family_id: ModelFamilyId
    inputs: tuple[ProgramValueId, ...]
    blocks: tuple[ProgramBlock, ...]
    states: tuple[StateSpec, ...]
    weights: tuple[WeightReference, ...]
    outputs: tuple[ProgramValueId, ...]
    checkpoint_inputs: ProgramCheckpointInputs | None = None

    def build(self) -> ModelProgram:
        """Run ``ModelProgram::new`` (then ``with_checkpoint_inputs`` when present)."""
        program = ModelProgram(self.family_id, self.inputs, self.blocks, self.states, self.weights, self.outputs)
        if self.checkpoint_inputs is not None:
            program = program.with_checkpoint_inputs(self.checkpoint_inputs)
        return program

    def to_wire(self) -> JsonValue:
        out: dict[str, JsonValue] = {
            "family_id": self.family_id.to_wire(),
            "inputs": [v.to_wire() for v in self.inputs],
            "blocks": [b.to_wire() for b in self.blocks],
            "states": [s.to_wire() for s in self.states],
            "weights": [w.to_wire() for w in self.weights],
            "outputs": [v.to_wire() for v in self.outputs],
        }
        if self.checkpoint_inputs is not None:
            out["checkpoint_inputs"] = self.checkpoint_inputs.to_wire()
        return out

    @classmethod
    def from_wire(cls, raw: Any, context: str, path: str = "$", *, validate_states: bool = True) -> UnvalidatedProgram:
        """Structural decode (deny_unknown_fields); states are decode-validated unless ``validate_states`` is false."""
        f = WireObject(  # rule when 01.3.6/decode_unknown_field: 02.1/deny_unknown_model_program
            raw,
            ("family_id", "inputs", "blocks", "states", "weights", "outputs"),
            ("checkpoint_inputs",),
            type_name="ModelProgram",
            context=context,
            path=path,
        )
        checkpoint = f.optional("checkpoint_inputs", ProgramCheckpointInputs.from_wire)
        state_decoder = StateSpec.from_wire if validate_states else StateSpec.decode_parts
        return cls(
            f.identity("family_id", ModelFamilyId),
            _values(f.raw("inputs"), context, f.at("inputs")),
            f.items("blocks", ProgramBlock.from_wire),
            f.items("states", state_decoder),
            f.items("weights", WeightReference.from_wire),
            _values(f.raw("outputs"), context, f.at("outputs")),
            checkpoint,
        )
