"""Value bindings, canonical values and aliasing (spec 05 §4.1-§4.5).

* ``extract_exact_aliases`` — per output with ``MayAlias``/``MustAlias{t}``: an edge when
  the output storage equals input ``t``'s; ``MustAlias`` with distinct storage is rejected.
* ``validate_alias_liveness`` — an aliased input is an activation, not a state, not a
  program output, and this node is its final consumer.
* ``CanonicalValues`` — the first binding of a value fixes ``{tensor, usage, storage,
  weight}``; later bindings must agree (§4.3).
* ``validate_global_storage_aliasing`` — overlapping byte ranges of different values are
  legal only inside one exact-alias class with equal storage (§4.4).
* ``validate_semantic_coverage`` — every program input, weight, state and output is bound.
All failures are ``InvalidExecutionPlan``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from reference.catalog.operation import OperationDescriptor
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import MayAlias, MustAlias
from reference.errors import invalid_plan
from reference.ids import ProgramValueId, ResourceId
from reference.ints import checked_add
from reference.model.program import ModelProgram
from reference.plan.node import PlanExactAlias, PlanExactAliasKind
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.storage import ResolvedValueStorage
from reference.resolution.tensor_spec import ResolvedTensorSpec
from reference.resolution.usage import BufferUsage
from reference.resolution.weight_binding import ResolvedWeightBinding

__all__ = [
    "CanonicalValueBinding",
    "CanonicalValues",
    "extract_exact_aliases",
    "validate_alias_liveness",
    "validate_global_storage_aliasing",
    "validate_node_alias_edges",
    "validate_semantic_coverage",
]


def _alias_kind(policy: object) -> PlanExactAliasKind | None:
    if isinstance(policy, MustAlias):
        return PlanExactAliasKind.MUST_ALIAS
    if isinstance(policy, MayAlias):
        return PlanExactAliasKind.MAY_ALIAS
    return None


def extract_exact_aliases(
    operation: OperationDescriptor, values: Sequence[ResolvedValueBinding]
) -> tuple[PlanExactAlias, ...]:
    """§4.1: the first ``len(op.inputs)`` bindings are inputs, the rest outputs (ordinal ascending)."""
    split = len(operation.inputs)
    inputs, outputs = values[:split], values[split:]
    edges: list[PlanExactAlias] = []
    for ordinal, output in enumerate(outputs):
        kind = _alias_kind(output.alias)
        if kind is None:
            continue
        index = output.alias.tensor_index
        assert index is not None
        if index >= len(inputs):
            raise invalid_plan(  # rule: 05.4.1/alias_target_input_exists
                f"output `{output.value_id}` aliases absent input {index}"
            )
        target = inputs[index]
        if output.storage == target.storage:
            edges.append(PlanExactAlias(output.value_id, ordinal, target.value_id, index, kind))
        elif kind is PlanExactAliasKind.MUST_ALIAS:
            raise invalid_plan(  # rule: 05.4.1/must_alias_distinct_storage_rejected
                f"output `{output.value_id}` lost its mandatory alias proof with `{target.value_id}`"
            )
    return tuple(edges)


def validate_alias_liveness(
    program: ModelProgram,
    node_index: int,
    values: Sequence[ResolvedValueBinding],
    aliases: Iterable[PlanExactAlias],
    last_consumers: Mapping[ProgramValueId, int],
    program_outputs: frozenset[ProgramValueId],
) -> None:
    """§4.2: an overwritten input must be a dead, non-output, non-state activation."""
    for alias in aliases:
        source = next(
            (
                b
                for b in values
                if b.role is ResolvedValueRole.INPUT
                and b.ordinal == alias.input_ordinal
                and b.value_id == alias.input_value_id
            ),
            None,
        )
        if source is None:
            raise invalid_plan(  # rule: 05.4.2/aliased_input_binding_exists
                f"exact alias input `{alias.input_value_id}` is not bound"
            )
        value = alias.input_value_id
        if program.state_for_value(value) is not None:
            raise invalid_plan(  # rule: 05.4.2/aliased_state_rejected
                f"state `{value}` cannot be overwritten through an exact alias"
            )
        refusal = f"value `{value}` is overwritten before its final consumer or is a program output"
        if source.usage is not BufferUsage.ACTIVATIONS:
            raise invalid_plan(refusal)  # rule: 05.4.2/aliased_input_activation_usage
        if last_consumers.get(value) != node_index:
            raise invalid_plan(refusal)  # rule: 05.4.2/aliased_input_final_consumer
        if value in program_outputs:
            raise invalid_plan(refusal)  # rule: 05.4.2/aliased_input_not_program_output


@dataclass(frozen=True, slots=True)
class CanonicalValueBinding:
    """What every binding of one value must agree on (access/role/ordinal/alias excluded)."""

    tensor: ResolvedTensorSpec
    usage: BufferUsage
    storage: ResolvedValueStorage
    weight: ResolvedWeightBinding | None

    @classmethod
    def of(cls, binding: ResolvedValueBinding) -> CanonicalValueBinding:
        return cls(binding.tensor, binding.usage, binding.storage, binding.weight)


class CanonicalValues:
    """The canonical-value map threaded through the build (first occurrence wins)."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[ProgramValueId, CanonicalValueBinding] = {}

    def record(self, binding: ResolvedValueBinding) -> None:
        """§4.3: a later binding of the same value must have the same canonical binding."""
        canonical = CanonicalValueBinding.of(binding)
        seen = self._values.setdefault(binding.value_id, canonical)
        if seen != canonical:
            raise invalid_plan(  # rule: 05.4.3/cross_node_canonical_value
                f"value `{binding.value_id}` is bound with a different tensor, usage or storage"
            )

    def items(self) -> list[tuple[ProgramValueId, CanonicalValueBinding]]:
        """Value-id order."""
        return sorted(self._values.items())

    def __contains__(self, value: object) -> bool:
        return value in self._values


def validate_node_alias_edges(values: Sequence[ResolvedValueBinding], aliases: Sequence[PlanExactAlias]) -> None:
    """§4.4 step 1 for one node: edges ascending by output ordinal and backed by the bindings."""
    previous = -1
    for alias in aliases:
        if alias.output_ordinal <= previous:
            raise invalid_plan(  # rule: 05.4.4/alias_edges_consistent
                "exact aliases are not strictly increasing by output ordinal"
            )
        previous = alias.output_ordinal
        output = next(
            (
                b
                for b in values
                if b.role is ResolvedValueRole.OUTPUT
                and b.ordinal == alias.output_ordinal
                and b.value_id == alias.output_value_id
            ),
            None,
        )
        source = next(
            (
                b
                for b in values
                if b.role is ResolvedValueRole.INPUT
                and b.ordinal == alias.input_ordinal
                and b.value_id == alias.input_value_id
            ),
            None,
        )
        if output is None or source is None:
            raise invalid_plan(  # rule: 05.4.4/alias_edges_consistent
                "exact alias names a binding the node does not have"
            )
        if (
            _alias_kind(output.alias) is not alias.kind
            or output.alias.tensor_index != alias.input_ordinal
            or output.storage != source.storage
            or output.usage is not BufferUsage.ACTIVATIONS
            or source.usage is not BufferUsage.ACTIVATIONS
        ):
            raise invalid_plan(  # rule: 05.4.4/alias_edges_consistent
                f"exact alias of `{alias.output_value_id}` is not proven by its bindings"
            )


class _Classes:
    """Union-find over value ids; the representative is the smallest id."""

    def __init__(self) -> None:
        self.parent: dict[ProgramValueId, ProgramValueId] = {}

    def find(self, value: ProgramValueId) -> ProgramValueId:
        parent = self.parent.setdefault(value, value)
        if parent == value:
            return value
        root = self.find(parent)
        self.parent[value] = root
        return root

    def union(self, a: ProgramValueId, b: ProgramValueId) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            low, high = (ra, rb) if ra < rb else (rb, ra)
            self.parent[high] = low


def validate_global_storage_aliasing(
    node_values: Iterable[tuple[Sequence[ResolvedValueBinding], Sequence[PlanExactAlias]]],
    canonical: CanonicalValues,
) -> None:
    """§4.4: alias classes from every node's edges, then pairwise range checks per resource."""
    classes = _Classes()
    for values, aliases in node_values:
        validate_node_alias_edges(values, aliases)
        for alias in aliases:
            classes.union(alias.input_value_id, alias.output_value_id)
    recorded: dict[ResourceId, list[tuple[int, int, ProgramValueId, ResolvedValueStorage]]] = {}
    for value_id, binding in canonical.items():
        for component in binding.storage.components:
            start = component.offset_bytes
            end = checked_add(  # rule: 05.4.4/range_end_checked
                start, component.length_bytes, error=partial(invalid_plan, "value storage range overflows u64")
            )
            ranges = recorded.setdefault(component.resource_id, [])
            for prev_start, prev_end, prev_value, prev_storage in ranges:
                if prev_value == value_id or not (prev_start < end and start < prev_end):
                    continue
                if classes.find(prev_value) != classes.find(value_id) or prev_storage != binding.storage:
                    raise invalid_plan(  # rule: 05.4.4/undeclared_overlap_rejected
                        f"values `{prev_value}` and `{value_id}` overlap in `{component.resource_id}` "
                        "without an exact alias"
                    )
            ranges.append((start, end, value_id, binding.storage))


def validate_semantic_coverage(program: ModelProgram, bound: Iterable[ProgramValueId]) -> None:
    """§4.5: program inputs, weights, states and outputs must all be bound by some node."""
    seen = set(bound)
    required = [
        *program.inputs,
        *(w.value_id for w in program.weights),
        *(s.value_id for s in program.states),
        *program.outputs,
    ]
    missing = sorted({v for v in required if v not in seen})
    if missing:
        raise invalid_plan(  # rule: 05.4.5/program_input_bound, 05.4.5/program_weight_bound, 05.4.5/program_state_bound
            "program values are not bound by any node: " + ", ".join(v.value for v in missing)
        )
