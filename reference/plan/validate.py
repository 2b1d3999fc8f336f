"""``validate_internal`` (spec 05 §9.4): the end-of-build self check of an execution plan.

In order: schema, hash recomputation (``PlanHashMismatch``), derived plan id, provenance,
execution weights, retained values, ``MemoryPlan.validate``, pools re-derived from the
descriptors *and* the nodes, every node (resource plan shape, selection evidence, work
contract, dependencies, effects, resource closure, workspace rows equal to the estimate),
cross-node canonical values and finally global storage aliasing.
"""

from __future__ import annotations

from reference.canonical import is_canonical_sha256, sha256_hex
from reference.errors import PlanHashMismatch, UnsupportedPlanSchema, invalid_plan
from reference.ids import NodeId, PlanHash, ResourceId, plan_id_for_hash
from reference.model.prepared import PreparedModelFamily
from reference.plan._util import strictly_ascending
from reference.plan.aliasing import CanonicalValues, validate_global_storage_aliasing
from reference.plan.execution_plan import ExecutionPlan
from reference.plan.memory import (
    AllocationKind,
    AllocationLifetime,
    BufferUsage,
    DynamicResourceDescriptor,
    NodeGraph,
    PlanNodeLiveness,
    ResourceAllocation,
    bind_runtime_limits,
    derive_dynamic_pools,
    workspace_layout_fingerprint,
)
from reference.plan.node import PlanNode
from reference.plan.payload import EXECUTION_PLAN_SCHEMA
from reference.plan.retained import resolve_retained_values
from reference.plan.state import derive_state_effects
from reference.plan.work import validate_work_contract
from reference.resolution.resource_plan import workspace_base_id
from reference.resolution.workspace import ProviderWorkspaceRequirement

__all__ = ["validate_internal"]

_WORKSPACE_USAGE = {"scratch": BufferUsage.SCRATCH, "binding": BufferUsage.BINDING}


def validate_internal(plan: ExecutionPlan, family: PreparedModelFamily, material: bytes) -> None:
    """Every §9.4 rule; the first failure raises.

    ``material`` is what the builder encoded from the plan's payload wire for its hash (the canonical bytes
    without ``plan_id``; encoding that unchanged value again gives the same bytes): the hash is recomputed
    from it.
    """
    payload = plan.payload
    if payload.schema != EXECUTION_PLAN_SCHEMA:
        raise UnsupportedPlanSchema(  # rule: 05.9.4/schema_and_hash
            expected_major=EXECUTION_PLAN_SCHEMA.major,
            expected_minor=EXECUTION_PLAN_SCHEMA.minor,
            actual_major=payload.schema.major,
            actual_minor=payload.schema.minor,
        )
    recomputed = PlanHash(sha256_hex(material))
    if recomputed != plan.plan_hash:
        raise PlanHashMismatch(expected=recomputed.value, actual=plan.plan_hash.value)  # rule: 05.9.4/schema_and_hash
    if payload.plan_id != plan_id_for_hash(recomputed):
        raise invalid_plan("plan id is not derived from the plan hash")  # rule: 01.3.6/self_check_plan_id_derived
    if not payload.nodes:
        raise invalid_plan("execution plan has no nodes")  # rule: 05.9.4/provenance
    if not all(
        is_canonical_sha256(fp)
        for fp in (
            payload.device_runtime_implementation_fingerprint,
            payload.prepared_family_fingerprint,
            payload.program_fingerprint,
            payload.capability_catalog_fingerprint,
            payload.policy_fingerprint,
        )
    ):
        raise invalid_plan("execution plan provenance fingerprints must be canonical sha256")  # rule: 05.9.4/provenance
    if payload.maximum_scheduled_tokens == 0:
        raise invalid_plan("execution plan maximum scheduled tokens must be non-zero")  # rule: 05.9.4/provenance
    weights = payload.execution_weights
    weights.validate_structure(payload.family_id)
    if weights != plan.trusted_execution_weights().plan():
        raise invalid_plan(  # rule: 05.9.4/execution_weights
            "execution plan weights differ from the trusted execution weight plan"
        )
    schema = weights.schema()
    if payload.weight_format != schema.format_id or payload.quantization_formats != tuple(
        schema.quantization_formats()
    ):
        raise invalid_plan(  # rule: 05.9.4/execution_weights
            "execution plan weight formats differ from the execution weight schema"
        )
    nodes = payload.nodes
    retained = resolve_retained_values(
        [(n.id, n.values) for n in nodes], (r.value_id for r in payload.retained_completion_values)
    )
    if retained != payload.retained_completion_values:
        raise invalid_plan(  # rule: 05.9.4/retained_values
            "retained completion values are not derived from the plan nodes"
        )
    memory = payload.memory
    memory.validate()
    _validate_pools(plan)
    statics = {a.resource_id: a for a in memory.static_allocations}
    dynamics = {d.base_resource_id: d for d in memory.dynamic_descriptors}
    positions: dict[NodeId, int] = {}
    canonical = CanonicalValues()
    for index, node in enumerate(nodes):
        _validate_node(plan, family, node, index, positions, statics, dynamics)
        positions[node.id] = index
        for binding in node.values:
            canonical.record(binding)
    validate_global_storage_aliasing(((n.values, n.exact_aliases) for n in nodes), canonical)


def _validate_pools(plan: ExecutionPlan) -> None:
    memory = plan.memory
    graph = NodeGraph.of(PlanNodeLiveness(n.id, n.dependencies, n.resources) for n in plan.nodes)
    reusable = memory.reusable_execution.pool_workspace_ceilings() if memory.reusable_execution is not None else None
    growth = {
        p.pool_id: p.checkpoint_growth_ceiling_bytes for p in memory.dynamic_pools if p.checkpoint_growth_ceiling_bytes
    }
    derived = derive_dynamic_pools(
        memory.dynamic_descriptors,
        graph,
        memory.usable_capacity_bytes - memory.static_bytes,
        reusable_ceilings=reusable,
        retained=frozenset(r.resource_id for r in plan.payload.retained_completion_values),
        growth_ceilings=growth,
    )
    if tuple(derived) != tuple(memory.dynamic_pools):
        raise invalid_plan(  # rule: 05.9.4/memory_and_pools
            "dynamic pools are not derived from the descriptors and the plan nodes"
        )


def _validate_node(
    plan: ExecutionPlan,
    family: PreparedModelFamily,
    node: PlanNode,
    index: int,
    positions: dict[NodeId, int],
    statics: dict[ResourceId, ResourceAllocation],
    dynamics: dict[ResourceId, DynamicResourceDescriptor],
) -> None:
    resources = node.provider_resources
    resources.validate_shape()
    node.selection.validate_evidence()
    validate_work_contract(node.work)
    if node.id in positions:
        raise invalid_plan(f"plan node `{node.id}` appears twice")  # rule: 05.9.4/per_node
    if not is_canonical_sha256(node.provider_implementation_fingerprint):
        raise invalid_plan(  # rule: 05.9.4/per_node
            f"plan node `{node.id}` provider implementation fingerprint is not canonical"
        )
    if not strictly_ascending(node.dependencies) or any(positions.get(d, index) >= index for d in node.dependencies):
        raise invalid_plan(  # rule: 05.9.4/per_node
            f"plan node `{node.id}` dependencies are unsorted, duplicated or not earlier nodes"
        )
    if not strictly_ascending([e.state_id for e in node.state_effects]):
        raise invalid_plan(  # rule: 05.9.4/per_node
            f"plan node `{node.id}` state effects are not sorted"
        )
    if not strictly_ascending(node.resources) or any(r not in statics and r not in dynamics for r in node.resources):
        raise invalid_plan(  # rule: 05.9.4/per_node
            f"plan node `{node.id}` resources are unsorted or not memory rows"
        )
    if resources.provider_id != node.selection.selected_provider:
        raise invalid_plan(  # rule: 05.9.4/per_node
            f"plan node `{node.id}` resources belong to another provider"
        )
    expected_ids = {
        kind: workspace_base_id(node.id, kind, resources.estimate_fingerprint) for kind, _ in resources.workspaces()
    }
    closure = {c.resource_id for b in node.values for c in b.storage.components} | set(expected_ids.values())
    if tuple(sorted(closure)) != node.resources:
        raise invalid_plan(  # rule: 05.9.4/per_node
            f"plan node `{node.id}` resources are not its binding and workspace closure"
        )
    effects = derive_state_effects(family.program, node.values)
    if effects != node.state_effects:
        raise invalid_plan(  # rule: 05.9.4/per_node
            f"plan node `{node.id}` state effects are not derived from its bindings"
        )
    for effect in effects:
        if effect.lifetime not in (AllocationLifetime.REQUEST, AllocationLifetime.SEQUENCE, AllocationLifetime.STEP):
            raise invalid_plan(  # rule: 05.9.4/per_node
                f"state effect of `{effect.state_id}` has an invalid lifetime"
            )
        for state_resource in effect.resource_ids:
            row = dynamics.get(state_resource)
            if row is None or row.lifetime is not effect.lifetime:
                raise invalid_plan(  # rule: 05.9.4/per_node
                    f"state effect resource `{state_resource}` is not a dynamic row with the state lifetime"
                )
    requirements = dict(resources.workspaces())
    for kind, resource in node.workspace_resources():
        if (resource is None) != (kind not in requirements) or (
            resource is not None and resource != expected_ids[kind]
        ):
            raise invalid_plan(  # rule: 05.9.4/per_node, 05.7.5/workspace_id_estimate_mismatch
                f"plan node `{node.id}` {kind} workspace id does not match its estimate"
            )
        if resource is not None:
            _validate_workspace_row(plan, node, kind, resource, requirements[kind], statics, dynamics)


def _validate_workspace_row(
    plan: ExecutionPlan,
    node: PlanNode,
    kind: str,
    resource: ResourceId,
    requirement: ProviderWorkspaceRequirement,
    statics: dict[ResourceId, ResourceAllocation],
    dynamics: dict[ResourceId, DynamicResourceDescriptor],
) -> None:
    memory = plan.memory
    mas, mst = memory.maximum_active_sequences, plan.payload.maximum_scheduled_tokens
    expected_kind = AllocationKind.workspace(kind, node.id)
    scope = requirement.scope.to_wire()
    if kind == "persistent" and scope == "plan":
        row = statics.get(resource)
        if (
            row is None
            or row.per_instance_bytes != requirement.fixed_bytes()
            or row.alignment_bytes != requirement.alignment_bytes
            or row.usage is not BufferUsage.PERSISTENT
            or not requirement.storage.accepts(row.storage.profile)
            or row.storage.logical_layout_fingerprint != workspace_layout_fingerprint()
            or row.kind != expected_kind
        ):
            raise invalid_plan(  # rule: 05.9.4/workspace_rows
                f"persistent workspace row of `{node.id}` differs from its estimate"
            )
        return
    descriptor = dynamics.get(resource)
    usage = _WORKSPACE_USAGE.get(kind, BufferUsage.PERSISTENT)
    lifetime = AllocationLifetime.INVOCATION if kind in _WORKSPACE_USAGE else AllocationLifetime(scope)
    if (
        descriptor is None
        or descriptor.demand != bind_runtime_limits(requirement.size_formula.to_wire(), mas, mst)
        or descriptor.alignment_bytes != requirement.alignment_bytes
        or descriptor.usage is not usage
        or descriptor.lifetime is not lifetime
        or descriptor.theoretical_maximum_instances != mas
        or descriptor.kind != expected_kind
        or not requirement.storage.accepts(descriptor.storage.profile)
        or descriptor.storage.logical_layout_fingerprint != workspace_layout_fingerprint()
    ):
        raise invalid_plan(  # rule: 05.9.4/workspace_rows
            f"{kind} workspace row of `{node.id}` differs from its estimate"
        )
