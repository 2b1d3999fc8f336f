"""``build_memory_plan`` — the pure memory planner (spec 05 §7.4, §7.5, §7.11).

Order: ceilings (``mas``, ``mst`` non-zero) and the raw capacity gate (``0 < cap <= dev``,
``res < cap``); the node graph (dependencies must precede); value resources node by node,
binding by binding, component by component (alignment, end, token projection, demand,
initialization, merge per resource); then every resource ascending becomes a static row
(program weights) or a dynamic descriptor (selected profile, layout-set fingerprint);
then each node's workspaces; finally ``MemoryPlan.from_core``. Every failure is
``InvalidExecutionPlan``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from reference.catalog.storage import DynamicStorageProfile
from reference.errors import invalid_plan
from reference.ids import ResourceId
from reference.ints import checked_add
from reference.model.element import ElementType
from reference.model.state import StateInitialization
from reference.plan.memory.allocation import ResourceAllocation
from reference.plan.memory.demand import DynamicResourceDemand, FixedDemand, bind_runtime_limits
from reference.plan.memory.descriptor import DynamicResourceDescriptor
from reference.plan.memory.enums import AllocationKind, AllocationLifetime, BufferUsage
from reference.plan.memory.inputs import MemoryNodeInput, MemoryPlanInput, MemoryValueInput, MemoryWorkspaceInput
from reference.plan.memory.liveness import NodeGraph
from reference.plan.memory.plan import MemoryPlan
from reference.plan.memory.storage import (
    DynamicStorageContract,
    layout_set_fingerprint,
    static_contiguous_profile,
    workspace_layout_fingerprint,
)

__all__ = ["build_memory_plan", "check_planning_ceilings"]


@dataclass(frozen=True, slots=True)
class _Demand:
    """A value resource's demand: plan-static, fixed per lifetime, or token-scaled."""

    kind: str
    lifetime: AllocationLifetime = AllocationLifetime.PLAN
    bytes_per_token: int = 0
    maximum_tokens: int = 0


_STATIC = _Demand("static")


@dataclass(slots=True)
class _ValueResource:
    end: int
    alignment: int
    usage: BufferUsage
    element_type: ElementType
    demand: _Demand
    initialization: StateInitialization
    layouts: set[str] = field(default_factory=set)


def check_planning_ceilings(inp: MemoryPlanInput) -> None:
    """I9 and the raw capacity gate: ``mas, mst >= 1``; ``0 < cap <= dev``; ``res < cap``."""
    if inp.maximum_active_sequences == 0:
        raise invalid_plan(  # rule: 05.7.15/planning_ceilings_prechecked
            "maximum active sequences must be non-zero"
        )
    if inp.maximum_scheduled_tokens == 0:
        raise invalid_plan(  # rule: 05.7.15/planning_ceilings_prechecked
            "maximum scheduled tokens must be non-zero"
        )
    cap, res, dev = inp.policy_capacity_bytes, inp.reserve_bytes, inp.device_capacity_bytes
    if not (0 < cap <= dev and res < cap):
        raise invalid_plan(  # rule: 05.7.15/planning_ceilings_prechecked
            "policy memory capacity must be non-zero, within device memory, and above the reserve"
        )


def _value_demand(value: MemoryValueInput, end: int, extent: int | None, length: int, mst: int) -> _Demand:
    if value.is_weight:
        return _STATIC
    state = value.state
    if state is None:
        if value.usage is not BufferUsage.ACTIVATIONS:
            raise invalid_plan(  # rule: 05.7.4/non_state_must_be_activation
                f"value `{value.value_id.value}` is not an activation, weight or state"
            )
        lifetime = (
            AllocationLifetime.REQUEST if value.is_program_input or value.is_program_output else AllocationLifetime.STEP
        )
        if extent is None:
            return _Demand("fixed", lifetime)
        bytes_per_token = length // extent
        if bytes_per_token == 0:
            raise invalid_plan(  # rule: 05.7.4/token_scaled_zero_rejected
                f"token projection of `{value.value_id.value}` has zero bytes per token"
            )
        maximum = extent if lifetime is AllocationLifetime.REQUEST else mst
        return _Demand("tokens", lifetime, bytes_per_token, maximum)
    lifetime = AllocationLifetime.from_state(state.lifetime)
    state.capacity_demand.validate(state.tensor.byte_len())
    demand = state.capacity_demand
    if demand.bytes_per_token is None or demand.maximum_tokens is None:
        return _Demand("fixed", lifetime)
    if demand.bytes_per_token < end:
        raise invalid_plan(  # rule: 05.7.4/token_scaled_state_bytes_per_token_covers_end
            f"token-scaled state `{state.id.value}` bytes per token is below its storage end"
        )
    return _Demand("tokens", lifetime, demand.bytes_per_token, demand.maximum_tokens)


def _accumulate_values(nodes: tuple[MemoryNodeInput, ...], mst: int) -> dict[ResourceId, _ValueResource]:
    resources: dict[ResourceId, _ValueResource] = {}
    for node in nodes:
        alignment = node.value_alignment_bytes
        if alignment == 0:
            raise invalid_plan(  # rule: 05.7.4/value_alignment_prechecked
                f"node `{node.node_id.value}` has a zero value alignment"
            )
        for value in node.values:
            for component in value.components:
                offset, length = component.offset_bytes, component.length_bytes
                if offset % alignment != 0:
                    raise invalid_plan(  # rule: 05.7.4/component_offset_aligned
                        f"value `{value.value_id.value}` is not aligned to {alignment} bytes"
                    )
                end = checked_add(  # rule: 05.7.4/value_end_prechecked
                    offset, length, error=partial(invalid_plan, "value storage end overflows")
                )
                extent = value.token_extent
                if extent is not None and (extent == 0 or offset != 0 or length % extent != 0):
                    raise invalid_plan(  # rule: 05.7.4/token_projection_tiles_storage
                        f"token projection of `{value.value_id.value}` does not tile its storage"
                    )
                demand = _value_demand(value, end, extent, length, mst)
                init = value.state.initialization if value.state is not None else StateInitialization.NONE
                seen = resources.get(component.resource_id)
                if seen is None:
                    resources[component.resource_id] = _ValueResource(
                        end, alignment, value.usage, component.element_type, demand, init, {value.layout_fingerprint}
                    )
                    continue
                if (seen.usage, seen.element_type, seen.demand, seen.initialization) != (
                    value.usage,
                    component.element_type,
                    demand,
                    init,
                ):
                    raise invalid_plan(  # rule: 05.7.4/merge_conflict_rejected
                        f"resource `{component.resource_id.value}` has conflicting usage, dtype, lifetime or demand"
                    )
                seen.end = max(seen.end, end)
                seen.alignment = max(seen.alignment, alignment)
                seen.layouts.add(value.layout_fingerprint)
    return resources


def _profile(inp: MemoryPlanInput, resource: ResourceId) -> DynamicStorageProfile:
    profile = inp.selected_profiles.get(resource)
    if profile is None:
        raise invalid_plan(  # rule: 05.7.4/selected_profile_required
            f"dynamic resource `{resource.value}` has no selected storage profile"
        )
    return profile


def _workspace_rows(
    inp: MemoryPlanInput, node: MemoryNodeInput, workspace: MemoryWorkspaceInput
) -> ResourceAllocation | DynamicResourceDescriptor:
    mas, mst = inp.maximum_active_sequences, inp.maximum_scheduled_tokens
    contract = DynamicStorageContract(_profile(inp, workspace.resource_id), workspace_layout_fingerprint())
    kind = AllocationKind.workspace(workspace.kind, node.node_id)
    if workspace.kind in ("scratch", "binding"):
        if workspace.scope != "invocation":
            raise invalid_plan(  # rule: 05.7.5/scratch_scope_invocation, 05.7.5/persistent_invocation_rejected
                f"{workspace.kind} workspace of `{node.node_id.value}` must have invocation scope"
            )
        usage = BufferUsage.SCRATCH if workspace.kind == "scratch" else BufferUsage.BINDING
        lifetime = AllocationLifetime.INVOCATION
    elif workspace.scope == "plan":
        demand = bind_runtime_limits(workspace.size_formula, mas, mst)
        if not isinstance(demand, FixedDemand):
            raise invalid_plan(  # rule: 05.7.5/persistent_plan_scope_not_fixed
                f"plan-scope persistent workspace of `{node.node_id.value}` must be fixed"
            )
        return ResourceAllocation.new(
            workspace.resource_id, demand.bytes, workspace.alignment_bytes, BufferUsage.PERSISTENT,
            ElementType.U8, kind, contract,
        )  # fmt: skip
    elif workspace.scope == "invocation":
        raise invalid_plan(  # rule: 05.7.5/persistent_invocation_rejected
            f"persistent workspace of `{node.node_id.value}` cannot have invocation scope"
        )
    else:
        usage, lifetime = BufferUsage.PERSISTENT, AllocationLifetime(workspace.scope)
    return DynamicResourceDescriptor.new(
        workspace.resource_id,
        bind_runtime_limits(workspace.size_formula, mas, mst),
        workspace.alignment_bytes,
        usage,
        ElementType.U8,
        lifetime,
        kind,
        contract,
        StateInitialization.NONE,
        mas,
    )


def build_memory_plan(inp: MemoryPlanInput) -> MemoryPlan:
    """Derive the complete, validated ``MemoryPlan`` for ``inp``."""
    check_planning_ceilings(inp)
    graph = NodeGraph.of(node.liveness() for node in inp.nodes)
    statics: list[ResourceAllocation] = []
    dynamics: list[DynamicResourceDescriptor] = []
    mas = inp.maximum_active_sequences
    for resource_id, res in sorted(_accumulate_values(inp.nodes, inp.maximum_scheduled_tokens).items()):
        layout = layout_set_fingerprint(res.layouts)
        if res.demand.kind == "static":
            contract = DynamicStorageContract(static_contiguous_profile(), layout)
            statics.append(
                ResourceAllocation.new(
                    resource_id, res.end, res.alignment, res.usage, res.element_type, AllocationKind.value(), contract
                )
            )
            continue
        lifetime = res.demand.lifetime
        demand: DynamicResourceDemand = (
            DynamicResourceDemand.fixed(res.end)
            if res.demand.kind == "fixed"
            else DynamicResourceDemand.tokens(res.demand.bytes_per_token, res.demand.maximum_tokens)
        )
        dynamics.append(
            DynamicResourceDescriptor.new(
                resource_id,
                demand,
                res.alignment,
                res.usage,
                res.element_type,
                lifetime,
                AllocationKind.value(),
                DynamicStorageContract(_profile(inp, resource_id), layout),
                res.initialization,
                mas,
            )
        )
    for node in inp.nodes:
        for workspace in node.workspaces:
            row = _workspace_rows(inp, node, workspace)
            (statics if isinstance(row, ResourceAllocation) else dynamics).append(row)  # type: ignore[arg-type]
    return MemoryPlan.from_core(
        device_capacity_bytes=inp.device_capacity_bytes,
        policy_capacity_bytes=inp.policy_capacity_bytes,
        reserve_bytes=inp.reserve_bytes,
        maximum_active_sequences=mas,
        static_allocations=statics,
        dynamic_descriptors=dynamics,
        graph=graph,
        reusable_execution_policy=inp.reusable_execution,
        retained_resources=inp.retained_resources,
        checkpoint_capacity=inp.checkpoint_capacity,
        checkpoint_resources=inp.checkpoint_resources,
    )
