"""``ProgramPlanCompiler.compile`` (spec 05 §7.13): program -> resolutions -> execution plan.

0. Options: known nodes and values; every retained completion value a node output;
   an explicit tensor for every program input. Then the trusted execution weights:
   the identity plan, or ``registry.select_exact`` of the required materializer
   (``compile_with_weight_materializers``).
1. Concrete tensors: explicit input specs, weights and states from the program,
   node outputs inferred from the operation contracts (exact / degenerate range /
   bound symbol dimensions, one dtype, one layout).
2. Probe pass: each referenced execution-schema component on its own
   ``resource/weight-probe/...`` at offset 0; resolve every node; ``A`` = the largest
   candidate value alignment.
3. Up to 65 rounds: lay the components out in execution-schema order in one arena per
   physical dtype (``resource/weight-arena/...``, offsets aligned to ``max(A, dtype size)``),
   resolve, stop when the observed alignment is ``<= A`` else raise ``A``.
4. Build the plan with the final resolutions, the trusted weights and the retention.
Weight bindings, arenas and static rows follow the execution schema (decision D-04R-14);
resource ids hash the prepared family's fingerprint.
Other storages: program inputs and node outputs get ``resource/activation/...`` (a
``MustAlias`` output reuses its input's storage), states ``resource/state/...`` sized
``align_up(capacity minimum, dtype size)``. Failures are ``InvalidExecutionPlan``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.registry import OperationPlanningHandle
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import (
    BlockedLayout as BlockedConstraint,
)
from reference.catalog.tensor_contract import (
    ContiguousLayout as ContiguousConstraint,
)
from reference.catalog.tensor_contract import (
    ExactBytesStride,
    ExactDimension,
    LayoutConstraint,
    MustAlias,
    NoAlias,
    RangeDimension,
    SymbolDimension,
    SymbolStride,
    TensorContract,
)
from reference.catalog.tensor_contract import (
    StridedLayout as StridedConstraint,
)
from reference.errors import invalid_plan
from reference.ids import CapabilityId, NodeId, ProgramValueId, ProviderId, ResourceId, WeightId, WeightMaterializerId
from reference.ints import U64_MAX
from reference.model.element import ElementType
from reference.model.prepared import PreparedModelFamily
from reference.model.tensor import (
    BlockedLayout,
    BlockedTensorPadding,
    ContiguousLayout,
    ProgramTensorSpec,
    StridedLayout,
)
from reference.model.weight_encoding import WeightComponentSpec
from reference.model.weight_schema import WeightSchema
from reference.plan.build import build_execution_plan
from reference.plan.execution_plan import ExecutionPlan
from reference.plan.memory import compiler_resource_id
from reference.plan.request import CompletionRetentionSpec
from reference.policy.runtime_policy import RuntimePolicy
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.node_resolution import PlanNodeResolution
from reference.resolution.storage import ResolvedStorageComponent, ResolvedValueStorage
from reference.resolution.tensor_spec import ResolvedTensorSpec
from reference.resolution.usage import BufferUsage
from reference.resolution.weight_binding import ResolvedWeightBinding
from reference.resolution.workspace import align_up
from reference.weights.registry import WeightMaterializerRegistry
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = ["MAX_ALIGNMENT_ROUNDS", "ProgramPlanCompilation", "ProgramPlanCompileOptions", "ProgramPlanCompiler"]

#: ``0..=u64::BITS`` rounds of the alignment fixed point.
MAX_ALIGNMENT_ROUNDS: Final = 65


@dataclass(frozen=True)
class ProgramPlanCompileOptions:
    """Explicit tensors (every program input), per-node extra capabilities and preferred providers,
    retained completion values (node outputs) and the required weight materializer (``None``: identity)."""

    tensor_specs: Mapping[ProgramValueId, ProgramTensorSpec]
    required_capabilities: Mapping[NodeId, frozenset[CapabilityId]] = field(default_factory=dict)
    preferred_providers: Mapping[NodeId, ProviderId] = field(default_factory=dict)
    completion_retention: frozenset[ProgramValueId] = frozenset()
    weight_materializer: WeightMaterializerId | None = None


@dataclass(frozen=True)
class ProgramPlanCompilation:
    """The plan, the resolutions it was built from, the concrete tensors, the alignment rounds and the
    retention the plan was built with (its trusted weights are ``plan.trusted_execution_weights()``)."""

    plan: ExecutionPlan
    node_resolutions: tuple[PlanNodeResolution, ...]
    value_tensors: Mapping[ProgramValueId, ResolvedTensorSpec]
    value_alignment_bytes: int
    rounds: int
    completion_retention: CompletionRetentionSpec = field(default_factory=CompletionRetentionSpec)


@dataclass(frozen=True, slots=True)
class _Location:
    resource_id: ResourceId
    offset_bytes: int
    length_bytes: int
    element_type: ElementType


class _Symbols:
    def __init__(self) -> None:
        self.dimensions: dict[str, int] = {}
        self.strides: dict[str, int] = {}

    @staticmethod
    def bind(table: dict[str, int], name: str, value: int) -> bool:
        if value == 0:
            return False
        return table.setdefault(name, value) == value


def _layout_matches(constraints: Sequence[LayoutConstraint], tensor: ResolvedTensorSpec, symbols: _Symbols) -> bool:
    layout = tensor.layout
    for constraint in constraints:
        strides = dict(symbols.strides)
        if isinstance(constraint, ContiguousConstraint):
            ok = isinstance(layout, ContiguousLayout)
        elif isinstance(constraint, StridedConstraint):
            ok = isinstance(layout, StridedLayout) and len(layout.byte_strides) == len(constraint.strides)
            if ok:
                assert isinstance(layout, StridedLayout)
                for rule, stride in zip(constraint.strides, layout.byte_strides, strict=True):
                    if isinstance(rule, ExactBytesStride):
                        ok = ok and rule.value == stride
                    elif isinstance(rule, SymbolStride):
                        ok = ok and _Symbols.bind(strides, rule.name, stride)
        elif isinstance(constraint, BlockedConstraint):
            ok = (
                isinstance(layout, BlockedLayout)
                and layout.block == constraint.block
                and layout.axis_order == constraint.axis_order
            )
        else:
            ok = False
        if ok:
            symbols.strides = strides
            return True
    return False


def _unify(contract: TensorContract, tensor: ResolvedTensorSpec, symbols: _Symbols, what: str) -> None:
    if tensor.element_type not in contract.element_types or len(contract.dimensions) != len(tensor.dimensions):
        raise invalid_plan(  # rule: 05.7.13/tensor_unification
            f"{what} rank or dtype differs from its operation contract"
        )
    for constraint, extent in zip(contract.dimensions, tensor.dimensions, strict=True):
        if isinstance(constraint, ExactDimension):
            ok = constraint.value == extent
        elif isinstance(constraint, RangeDimension):
            ok = constraint.minimum <= extent <= constraint.maximum
        else:
            assert isinstance(constraint, SymbolDimension)
            ok = _Symbols.bind(symbols.dimensions, constraint.name, extent)
        if not ok:
            raise invalid_plan(  # rule: 05.7.13/tensor_unification
                f"{what} dimension {extent} violates its operation contract"
            )
    if not _layout_matches(contract.layouts, tensor, symbols):
        raise invalid_plan(f"{what} layout differs from its operation contract")  # rule: 05.7.13/tensor_unification


def _infer(contract: TensorContract, symbols: _Symbols, node_id: NodeId) -> ResolvedTensorSpec:
    if len(contract.element_types) != 1:
        raise invalid_plan(  # rule: 05.7.13/tensor_unification
            f"node `{node_id}` output dtype is ambiguous; provide an explicit tensor"
        )
    (element_type,) = contract.element_types
    dims: list[int] = []
    for constraint in contract.dimensions:
        if isinstance(constraint, ExactDimension):
            dims.append(constraint.value)
        elif isinstance(constraint, RangeDimension) and constraint.minimum == constraint.maximum:
            dims.append(constraint.minimum)
        elif isinstance(constraint, SymbolDimension) and constraint.name in symbols.dimensions:
            dims.append(symbols.dimensions[constraint.name])
        else:
            raise invalid_plan(  # rule: 05.7.13/tensor_unification
                f"node `{node_id}` output dimension is ambiguous; provide an explicit tensor"
            )
    if len(contract.layouts) != 1:
        raise invalid_plan(  # rule: 05.7.13/tensor_unification
            f"node `{node_id}` output layout is ambiguous; provide an explicit tensor"
        )
    (layout,) = contract.layouts
    if isinstance(layout, ContiguousConstraint):
        return ResolvedTensorSpec(dims, element_type, ContiguousLayout())
    if isinstance(layout, StridedConstraint):
        strides = []
        for rule in layout.strides:
            if isinstance(rule, ExactBytesStride):
                strides.append(rule.value)
            elif isinstance(rule, SymbolStride) and rule.name in symbols.strides:
                strides.append(symbols.strides[rule.name])
            else:
                raise invalid_plan(f"node `{node_id}` stride symbol is unresolved")  # rule: 05.7.13/tensor_unification
        return ResolvedTensorSpec(dims, element_type, StridedLayout(tuple(strides)))
    assert isinstance(layout, BlockedConstraint)
    block, order = layout.block, layout.axis_order
    if all(extent % b == 0 for extent, b in zip(dims, block, strict=False)):
        padding = BlockedTensorPadding()
    else:
        padding = BlockedTensorPadding(tuple(align_up(dims[a], block[a]) for a in order))
    return ResolvedTensorSpec(dims, element_type, BlockedLayout(block, order, padding))


def _value_tensors(
    family: PreparedModelFamily, catalog: CapabilityCatalog, options: ProgramPlanCompileOptions
) -> dict[ProgramValueId, ResolvedTensorSpec]:
    program = family.program
    nodes = program.nodes()
    node_ids = {n.id for n in nodes}
    if any(n not in node_ids for n in (*options.required_capabilities, *options.preferred_providers)):
        raise invalid_plan(  # rule: 05.7.13/compile_options_consistent
            "program compile options reference an unknown node"
        )
    known = {*program.inputs, *(s.value_id for s in program.states), *(w.value_id for w in program.weights)}
    known |= {v for n in nodes for v in n.outputs}
    if any(v not in known for v in options.tensor_specs):
        raise invalid_plan(  # rule: 05.7.13/compile_options_consistent
            "program compile options contain an unknown semantic value"
        )
    produced = {v for n in nodes for v in n.outputs}
    if any(v not in produced for v in options.completion_retention):
        raise invalid_plan(  # rule: 05.7.13/compile_retention_absent
            "completion retention must reference a semantic node output"
        )
    if any(v not in options.tensor_specs for v in program.inputs):
        raise invalid_plan(  # rule: 05.7.13/input_tensor_specs_required
            "every program input requires an explicit canonical tensor capacity"
        )
    tensors = {v: ResolvedTensorSpec.from_program(t) for v, t in options.tensor_specs.items()}
    for value, spec, kind in (
        *((w.value_id, w.tensor, "weight") for w in program.weights),
        *((s.value_id, s.tensor, "state") for s in program.states),
    ):
        tensor = ResolvedTensorSpec.from_program(spec)
        if tensors.setdefault(value, tensor) != tensor:
            raise invalid_plan(  # rule: 05.7.13/compile_options_consistent
                f"explicit {kind} tensor `{value}` differs from model semantics"
            )
    for node in nodes:
        operation = catalog.operation_for_node(node.id, node.operation_id)
        if len(node.inputs) != len(operation.inputs) or len(node.outputs) != len(operation.outputs):
            raise invalid_plan(  # rule: 05.7.13/node_values_resolved
                f"node `{node.id}` arity differs from operation `{operation.id}`"
            )
        symbols = _Symbols()
        for ordinal, (value, contract) in enumerate(zip(node.inputs, operation.inputs, strict=True)):
            known_tensor = tensors.get(value)
            if known_tensor is None:
                raise invalid_plan(  # rule: 05.7.13/node_input_tensor_prechecked
                    f"node `{node.id}` input `{value}` has no concrete tensor"
                )
            _unify(contract, known_tensor, symbols, f"node `{node.id}` input[{ordinal}] `{value}`")
        for ordinal, (value, contract) in enumerate(zip(node.outputs, operation.outputs, strict=True)):
            if value in tensors:
                _unify(contract, tensors[value], symbols, f"node `{node.id}` output[{ordinal}] `{value}`")
        for value, contract in zip(node.outputs, operation.outputs, strict=True):
            if value not in tensors:
                tensors[value] = _infer(contract, symbols, node.id)
    if any(v not in tensors for v in program.outputs):
        raise invalid_plan(  # rule: 05.7.13/program_outputs_prechecked
            "program compilation did not resolve every semantic output"
        )
    return tensors


def _referenced_components(family: PreparedModelFamily, schema: WeightSchema) -> list[WeightComponentSpec]:
    """The execution-schema components the program's weights bind, in schema order."""
    referenced = {c.id for w in family.program.weights for c in schema.physical_component_refs(w.weight_id)}
    return [c for c in schema.components if c.id in referenced]


def _probe_locations(family: PreparedModelFamily, schema: WeightSchema, fingerprint: str) -> dict[WeightId, _Location]:
    return {
        c.id: _Location(
            compiler_resource_id("weight-probe", fingerprint, c.id.value),
            0,
            c.physical_bytes(),
            c.physical_element_type(),
        )
        for c in _referenced_components(family, schema)
    }


def _arena_locations(
    family: PreparedModelFamily, schema: WeightSchema, fingerprint: str, alignment: int
) -> dict[WeightId, _Location]:
    next_offset: dict[ElementType, int] = {}
    out: dict[WeightId, _Location] = {}
    for component in _referenced_components(family, schema):
        element = component.physical_element_type()
        offset = align_up(next_offset.get(element, 0), max(alignment, element.size_bytes))
        length = component.physical_bytes()
        if offset + length > U64_MAX:
            raise invalid_plan("weight arena byte range overflows u64")  # rule: 05.7.13/arena_range_checked
        next_offset[element] = offset + length
        resource = compiler_resource_id("weight-arena", fingerprint, f'"{element.value}"')
        out[component.id] = _Location(resource, offset, length, element)
    return out


def _storages(
    family: PreparedModelFamily,
    schema: WeightSchema,
    catalog: CapabilityCatalog,
    tensors: Mapping[ProgramValueId, ResolvedTensorSpec],
    locations: Mapping[WeightId, _Location],
    fingerprint: str,
) -> dict[ProgramValueId, ResolvedValueStorage]:
    program = family.program

    def activation(value: ProgramValueId) -> ResolvedValueStorage:
        tensor = tensors[value]
        return ResolvedValueStorage.single(
            compiler_resource_id("activation", fingerprint, value.value),
            0,
            tensor.minimum_storage_bytes(),
            tensor.element_type,
        )

    storages = {value: activation(value) for value in program.inputs}
    for weight in program.weights:
        components = []
        for component in schema.physical_component_refs(weight.weight_id):
            where = locations.get(component.id)
            if where is None:
                raise invalid_plan(  # rule: 05.7.13/weight_location_prechecked
                    f"weight component `{component.id}` has no physical location"
                )
            components.append(
                ResolvedStorageComponent(
                    component.id, where.resource_id, where.offset_bytes, where.length_bytes, where.element_type
                )
            )
        storages[weight.value_id] = ResolvedValueStorage.composite(components)
    for state in program.states:
        tensor = tensors[state.value_id]
        size = align_up(
            state.capacity_demand.minimum_bytes(tensor.minimum_storage_bytes()), tensor.element_type.size_bytes
        )
        storages[state.value_id] = ResolvedValueStorage.single(
            compiler_resource_id("state", fingerprint, state.id.value), 0, size, tensor.element_type
        )
    for node in program.nodes():
        operation = catalog.operation_for_node(node.id, node.operation_id)
        for value, contract in zip(node.outputs, operation.outputs, strict=True):
            if isinstance(contract.alias, MustAlias):
                index = contract.alias.index
                if index >= len(node.inputs) or node.inputs[index] not in storages:
                    raise invalid_plan(  # rule: 05.7.13/alias_input_prechecked
                        f"node `{node.id}` aliases an absent input"
                    )
                storages[value] = storages[node.inputs[index]]
            else:
                storages[value] = activation(value)
    return storages


def _resolve_nodes(
    family: PreparedModelFamily,
    trusted: TrustedExecutionWeightPlan,
    catalog: CapabilityCatalog,
    policy: RuntimePolicy,
    planning: OperationPlanningHandle,
    options: ProgramPlanCompileOptions,
    tensors: Mapping[ProgramValueId, ResolvedTensorSpec],
    storages: Mapping[ProgramValueId, ResolvedValueStorage],
) -> list[PlanNodeResolution]:
    program = family.program
    schema = trusted.plan().schema()
    weights = {w.value_id for w in program.weights}
    states = {s.value_id for s in program.states}
    out = []
    for node in program.nodes():
        operation = catalog.operation_for_node(node.id, node.operation_id)
        values = []
        for role, operands, contracts in (
            (ResolvedValueRole.INPUT, node.inputs, operation.inputs),
            (ResolvedValueRole.OUTPUT, node.outputs, operation.outputs),
        ):
            for ordinal, (value, contract) in enumerate(zip(operands, contracts, strict=True)):
                usage = (
                    BufferUsage.WEIGHTS
                    if value in weights
                    else BufferUsage.STATE
                    if value in states
                    else BufferUsage.ACTIVATIONS
                )
                weight = None
                if usage is BufferUsage.WEIGHTS:
                    reference = program.weight_for_value(value)
                    assert reference is not None
                    weight = ResolvedWeightBinding.from_schema(schema, reference.weight_id)
                values.append(
                    ResolvedValueBinding(
                        value,
                        role,
                        ordinal,
                        tensors[value],
                        contract.access,
                        NoAlias() if role is ResolvedValueRole.INPUT else contract.alias,
                        usage,
                        weight,
                        storages[value],
                    )
                )
        out.append(
            PlanNodeResolution.resolve(
                family,
                catalog,
                policy,
                planning,
                node.id,
                values,
                options.required_capabilities.get(node.id, frozenset()),
                options.preferred_providers.get(node.id),
                execution_weights=trusted,
            )
        )
    return out


def _maximum_alignment(resolutions: Sequence[PlanNodeResolution]) -> int:
    alignments = [c.value_alignment_bytes for r in resolutions for c in r.provider_resource_candidates()]
    if not alignments:
        raise invalid_plan(  # rule: 05.7.13/probe_alignment_power_of_two
            "program has no provider value-alignment evidence"
        )
    alignment = max(alignments)
    if alignment <= 0 or alignment & (alignment - 1):
        raise invalid_plan(  # rule: 05.7.13/probe_alignment_power_of_two
            "provider value-alignment evidence is not a power of two"
        )
    return alignment


class ProgramPlanCompiler:
    """Backend-neutral compiler from a prepared family's program to an execution plan."""

    @staticmethod
    def compile(
        family: PreparedModelFamily,
        catalog: CapabilityCatalog,
        policy: RuntimePolicy,
        planning: OperationPlanningHandle,
        options: ProgramPlanCompileOptions,
    ) -> ProgramPlanCompilation:
        """``compile_with_weight_materializers`` with the identity-only materializer registry."""
        return ProgramPlanCompiler.compile_with_weight_materializers(
            family, catalog, policy, planning, WeightMaterializerRegistry.identity_only(), options
        )

    @staticmethod
    def compile_with_weight_materializers(
        family: PreparedModelFamily,
        catalog: CapabilityCatalog,
        policy: RuntimePolicy,
        planning: OperationPlanningHandle,
        materializers: WeightMaterializerRegistry,
        options: ProgramPlanCompileOptions,
    ) -> ProgramPlanCompilation:
        """Options, trusted weights, probe, alignment fixed point (at most 65 rounds), then
        ``build_execution_plan`` with the trusted weights and the retention."""
        tensors = _value_tensors(family, catalog, options)
        trusted = (
            TrustedExecutionWeightPlan.identity(family)
            if options.weight_materializer is None
            else materializers.select_exact(family, catalog, options.weight_materializer)
        )
        schema = trusted.plan().schema()
        retention = CompletionRetentionSpec(frozenset(options.completion_retention))
        fingerprint = family.fingerprint()

        def resolve(locations: Mapping[WeightId, _Location]) -> list[PlanNodeResolution]:
            storages = _storages(family, schema, catalog, tensors, locations, fingerprint)
            return _resolve_nodes(family, trusted, catalog, policy, planning, options, tensors, storages)

        alignment = _maximum_alignment(resolve(_probe_locations(family, schema, fingerprint)))
        final: list[PlanNodeResolution] | None = None
        rounds = 0
        for _ in range(MAX_ALIGNMENT_ROUNDS):
            rounds += 1
            resolutions = resolve(_arena_locations(family, schema, fingerprint, alignment))
            observed = _maximum_alignment(resolutions)
            if observed <= alignment:
                final = resolutions
                break
            alignment = observed
        if final is None:
            raise invalid_plan(  # rule: 05.7.13/fixed_point_65_rounds
                "provider value alignment did not reach a bounded monotonic fixed point"
            )
        plan = build_execution_plan(
            family, catalog, policy, final, completion_retention=retention, execution_weights=trusted
        )
        return ProgramPlanCompilation(plan, tuple(final), tensors, alignment, rounds, retention)
