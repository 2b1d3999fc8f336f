"""``ExecutionPlan::build`` (``build_plan``) in the exact step order of spec 05 §3 and ``build_node`` §3.1.

Steps: policy (validate, non-zero sequences and tokens), one registry authority, the raw
capacity gate, the trusted execution weights against the catalog, provenance
fingerprints, resolutions by node id, joint provider/storage selection, producers and
last consumers, ``build_node`` per program node, leftovers, semantic coverage, global
storage aliasing, retained completion values, the memory plan, payload + hash + id, and
finally ``validate_internal``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.operation import OperationDescriptor
from reference.catalog.provider import OperationProviderDescriptor
from reference.collector import collector_paused
from reference.errors import IncompatibleOperationVersion, invalid_plan
from reference.ids import PLAN_ID_PLACEHOLDER, NodeId, OperationId, PlanId, ProgramValueId, plan_id_for_hash
from reference.model.prepared import PreparedModelFamily
from reference.model.program import ProgramNode
from reference.model.weight_schema import WeightSchema
from reference.plan.adapter import memory_plan_input
from reference.plan.aliasing import (
    CanonicalValueBinding,
    CanonicalValues,
    extract_exact_aliases,
    validate_alias_liveness,
    validate_global_storage_aliasing,
    validate_semantic_coverage,
)
from reference.plan.evidence import select_provider
from reference.plan.execution_plan import ExecutionPlan
from reference.plan.memory import build_memory_plan
from reference.plan.node import PlanNode
from reference.plan.payload import EXECUTION_PLAN_SCHEMA, ExecutionPlanPayload, plan_hash_of_material
from reference.plan.request import CompletionRetentionSpec, PlanBuildRequest
from reference.plan.retained import resolve_retained_values
from reference.plan.selection import RejectedProvider
from reference.plan.solver import node_candidates, solve, storage_rejection
from reference.plan.state import StateTracker, derive_state_effects, node_dependencies
from reference.plan.validate import validate_internal
from reference.plan.weights import check_binding_semantics
from reference.plan.work import derive_work_contract
from reference.policy.runtime_policy import RuntimePolicy, canonical_runtime_policy_fingerprint
from reference.policy.trust import PlannerPolicyView, check_capacity_gate, policy_for_resolution
from reference.resolution.binding import ResolvedValueBinding
from reference.resolution.estimate import estimator_input_fingerprint
from reference.resolution.node_resolution import PlanNodeResolution, validate_resource_contract
from reference.resolution.operation_bindings import validate_resolved_bindings
from reference.resolution.resource_plan import ProviderResourcePlan
from reference.resolution.semantic import node_weight_requirements, validate_program_bindings
from reference.weights.trusted import TrustedExecutionWeightPlan

__all__ = ["BuildContext", "build_execution_plan", "build_node", "build_plan"]


@dataclass(slots=True)
class BuildContext:
    """What ``build_node`` reads and threads from node to node."""

    family: PreparedModelFamily
    family_fingerprint: str
    catalog: CapabilityCatalog
    view: PlannerPolicyView
    schema: WeightSchema
    producers: Mapping[ProgramValueId, NodeId]
    last_consumers: Mapping[ProgramValueId, int]
    program_outputs: frozenset[ProgramValueId]
    tracker: StateTracker
    canonical: CanonicalValues
    bound: set[ProgramValueId]
    checked: dict[tuple[ProgramValueId, object], CanonicalValueBinding] = field(default_factory=dict)
    operation_fingerprints: dict[OperationId, str] = field(default_factory=dict)

    def check_semantics(self, binding: ResolvedValueBinding) -> None:
        """Step 9's semantic check, once per distinct (value, access, canonical binding)."""
        key = (binding.value_id, binding.access)
        canonical = CanonicalValueBinding.of(binding)
        if self.checked.get(key) != canonical:
            check_binding_semantics(self.family, self.schema, binding)
            self.checked[key] = canonical

    def operation_fingerprint(self, operation: OperationDescriptor) -> str:
        found = self.operation_fingerprints.get(operation.id)
        if found is None:
            found = self.operation_fingerprints[operation.id] = operation.fingerprint()
        return found


def build_node(
    ctx: BuildContext,
    index: int,
    node: ProgramNode,
    resolution: PlanNodeResolution,
    chosen: ProviderResourcePlan,
    rejection: RejectedProvider | None,
) -> PlanNode:
    """Spec 05 §3.1 steps 1-19 for one program node."""
    catalog, program = ctx.catalog, ctx.family.program
    operation = catalog.operation_for_node(node.id, node.operation_id)  # 1
    if not operation.version.satisfies(node.required_version):  # 2
        raise IncompatibleOperationVersion(  # rule: 05.3.1/step02_operation_version_prechecked
            node_id=node.id.value,
            operation_id=node.operation_id.value,
            required_major=node.required_version.major,
            required_minor=node.required_version.minor,
            available_major=operation.version.major,
            available_minor=operation.version.minor,
        )
    values = resolution.values()
    operation.validate_attributes(node.attributes)  # 3
    validate_resolved_bindings(operation, values)
    validate_program_bindings(node, values)  # 4
    aliases = extract_exact_aliases(operation, values)  # 5
    work = derive_work_contract(node, operation, values)  # 6
    validate_alias_liveness(program, index, values, aliases, ctx.last_consumers, ctx.program_outputs)  # 7
    effects = derive_state_effects(program, values)  # 8
    for binding in values:  # 9
        ctx.check_semantics(binding)
        ctx.canonical.record(binding)
        ctx.bound.add(binding.value_id)
    weight_formats, quantization_formats = node_weight_requirements(ctx.family, values)  # 10
    selection = select_provider(  # 11
        catalog,
        operation,
        node,
        resolution.required_capabilities(),
        resolution.preferred_provider(),
        chosen.provider_id,
        rejection,
        weight_formats,
        quantization_formats,
        ctx.view.execution_determinism,
    )
    selection.validate_evidence()
    chosen.validate_shape()  # 12
    if chosen.provider_id != selection.selected_provider:
        raise invalid_plan(  # rule: 05.3.1/step12_resource_plan_shape_and_provider
            f"node `{node.id}` resource plan belongs to another provider"
        )
    selected = _catalog_provider(catalog, node, chosen)  # 13
    validate_resource_contract(operation, chosen)  # 14
    _check_input_fingerprint(ctx, operation, node, resolution, chosen)  # 15
    state_deps = ctx.tracker.apply(node.id, effects)  # 16
    dependencies = node_dependencies(node, ctx.producers, state_deps)
    workspace_ids = {kind: chosen.workspace_resource_id(node.id, kind) for kind, _ in chosen.workspaces()}  # 17
    resources = sorted(  # 18
        {c.resource_id for b in values for c in b.storage.components} | set(workspace_ids.values())
    )
    return PlanNode(  # 19
        node.id,
        dependencies,
        node.operation_id,
        node.required_version,
        ctx.operation_fingerprint(operation),
        selected.provider_implementation_fingerprint,
        selected.execution_semantics,
        resolution.required_capabilities(),
        node.attributes,
        work,
        selection,
        chosen,
        values,
        aliases,
        effects,
        workspace_ids.get("scratch"),
        workspace_ids.get("binding"),
        workspace_ids.get("persistent"),
        tuple(resources),
    )


def _catalog_provider(
    catalog: CapabilityCatalog, node: ProgramNode, chosen: ProviderResourcePlan
) -> OperationProviderDescriptor:
    """Step 13: the selected catalog provider and the estimator identity it registered."""
    selected = next(
        (p for p in catalog.providers_for_node(node.id, node.operation_id) if p.provider_id == chosen.provider_id),
        None,
    )
    if selected is None:
        raise invalid_plan(  # rule: 05.3.1/step13_selected_provider_prechecked
            f"selected provider `{chosen.provider_id}` is not in the catalog for node `{node.id}`"
        )
    if (
        chosen.estimator_id != selected.resource_estimator_id
        or chosen.estimator_version != selected.resource_estimator_version
        or chosen.estimator_implementation_fingerprint != selected.resource_estimator_implementation_fingerprint
    ):
        raise invalid_plan(  # rule: 05.3.1/step13_estimator_identity_copied
            f"node `{node.id}` estimate does not come from the selected provider's estimator"
        )
    return selected


def _check_input_fingerprint(
    ctx: BuildContext,
    operation: OperationDescriptor,
    node: ProgramNode,
    resolution: PlanNodeResolution,
    chosen: ProviderResourcePlan,
) -> None:
    """Step 15: the estimate's input fingerprint is the one resolution computes for this provider."""
    values = resolution.values()
    weight_formats, quantization_formats = node_weight_requirements(ctx.family, values)
    expected = estimator_input_fingerprint(
        prepared_family_fingerprint=ctx.family_fingerprint,
        operation=operation,
        node_id=node.id,
        operation_id=node.operation_id,
        operation_version=node.required_version,
        attributes=node.attributes,
        provider_id=chosen.provider_id,
        values=values,
        required_capabilities=operation.provider.required_capabilities | resolution.required_capabilities(),
        required_weight_formats=weight_formats,
        required_quantization_formats=quantization_formats,
    )
    if chosen.estimator_input_fingerprint != expected:
        raise invalid_plan(  # rule: 05.3.1/step15_input_fingerprint_prechecked
            f"node `{node.id}` estimate input fingerprint differs from its resolution"
        )


def _index_resolutions(resolutions: Sequence[PlanNodeResolution]) -> dict[NodeId, PlanNodeResolution]:
    by_node: dict[NodeId, PlanNodeResolution] = {}
    for resolution in resolutions:
        if resolution.node_id() in by_node:
            raise invalid_plan(  # rule: 05.3/step08_duplicate_resolution_node
                f"node `{resolution.node_id()}` has two resolutions"
            )
        by_node[resolution.node_id()] = resolution
    return by_node


def build_plan(request: PlanBuildRequest) -> ExecutionPlan:
    """Spec 05 §3 steps 1-19."""
    family, catalog, policy = request.family, request.capabilities, request.policy
    device = catalog.device
    view = policy_for_resolution(policy)  # 1-3
    resolutions = request.node_resolutions
    if not resolutions:  # 4
        raise invalid_plan("execution plan has no node resolutions")  # rule: 05.3/step04_empty_request_prechecked
    authority = resolutions[0].registry_authority()
    if any(r.registry_authority() != authority for r in resolutions):
        raise invalid_plan(  # rule: 05.3/step04_single_registry_authority
            "node resolutions come from different operation registries"
        )
    check_capacity_gate(view, device.total_memory_bytes)  # 5
    trusted = request.trusted_weights()  # 6
    trusted.validate_against_catalog(family, catalog)
    weights = trusted.plan()
    schema = weights.schema()
    program = family.program
    family_fingerprint = family.fingerprint()  # 7
    program_fingerprint = program.fingerprint()
    catalog_fingerprint = catalog.fingerprint()
    policy_fingerprint = canonical_runtime_policy_fingerprint(policy)
    by_node = _index_resolutions(resolutions)  # 8
    program_nodes = program.nodes()  # 9
    candidate_sets = []  # 10
    for node in program_nodes:
        resolution = by_node.get(node.id)
        if resolution is None:
            raise invalid_plan(f"program node `{node.id}` has no resolution")  # rule: 05.3/step12_missing_resolution
        candidate_sets.append(node_candidates(catalog, view, node, resolution))
    chosen, profiles = solve([n.id for n in program_nodes], candidate_sets, view.dynamic_storage_profile_order)
    producers: dict[ProgramValueId, NodeId] = {}  # 11
    last_consumers: dict[ProgramValueId, int] = {}
    for index, node in enumerate(program_nodes):
        for value in node.outputs:
            producers[value] = node.id
        for value in node.inputs:
            last_consumers[value] = index
    ctx = BuildContext(
        family,
        family_fingerprint,
        catalog,
        view,
        schema,
        producers,
        last_consumers,
        frozenset(program.outputs),
        StateTracker(),
        CanonicalValues(),
        set(),
    )
    nodes: list[PlanNode] = []
    for index, node in enumerate(program_nodes):  # 12
        resolution = by_node.pop(node.id)
        rejection = storage_rejection(node, resolution, candidate_sets[index], chosen[index], profiles)
        nodes.append(build_node(ctx, index, node, resolution, chosen[index], rejection))
    if by_node:  # 13
        raise invalid_plan(  # rule: 05.3/step13_leftover_resolution
            f"resolution for `{sorted(by_node)[0]}` names no program node"
        )
    if len(chosen) != len(nodes):
        raise invalid_plan(  # rule: 05.3/step13_leftover_solver_output
            "joint selection produced resources for unknown nodes"
        )
    validate_semantic_coverage(program, ctx.bound)  # 14
    validate_global_storage_aliasing(((n.values, n.exact_aliases) for n in nodes), ctx.canonical)  # 15
    retained = resolve_retained_values(  # 16
        [(n.id, n.values) for n in nodes], request.completion_retention.values
    )
    memory = build_memory_plan(  # 17
        memory_plan_input(
            program,
            nodes,
            view,
            device.total_memory_bytes,
            profiles,
            frozenset(r.resource_id for r in retained),
        )
    )
    payload = ExecutionPlanPayload(  # 18
        EXECUTION_PLAN_SCHEMA,
        PlanId(PLAN_ID_PLACEHOLDER),
        family.family_id,
        device.id,
        device.runtime_implementation_fingerprint,
        family_fingerprint,
        program_fingerprint,
        catalog_fingerprint,
        view.version,
        policy_fingerprint,
        view.maximum_scheduled_tokens,
        weights,
        schema.format_id,
        tuple(schema.quantization_formats()),
        retained,
        tuple(nodes),
        memory,
    )
    wire = payload.to_wire()
    plan_hash, material = plan_hash_of_material(wire)
    plan_id = plan_id_for_hash(plan_hash)
    payload = payload.with_plan_id(plan_id)
    wire["plan_id"] = plan_id.value
    plan = ExecutionPlan._assemble(payload, wire, plan_hash, authority, trusted)
    validate_internal(plan, family, material)  # 19
    return plan


@collector_paused
def build_execution_plan(
    family: PreparedModelFamily,
    catalog: CapabilityCatalog,
    policy: RuntimePolicy,
    resolutions: Sequence[PlanNodeResolution],
    *,
    completion_retention: CompletionRetentionSpec | Iterable[str] = (),
    execution_weights: TrustedExecutionWeightPlan | None = None,
) -> ExecutionPlan:
    """The one door to a plan: ``PlanBuildRequest.new(...)``, then ``.with_execution_weights`` when
    weights are given, then ``.with_completion_retention`` when values are retained, then ``build_plan``."""
    request = PlanBuildRequest.new(family, catalog, policy, resolutions)
    if execution_weights is not None:
        request = request.with_execution_weights(execution_weights)
    spec = (
        completion_retention
        if isinstance(completion_retention, CompletionRetentionSpec)
        else CompletionRetentionSpec.of(completion_retention)
    )
    if spec.values:
        request = request.with_completion_retention(spec)
    return build_plan(request)
