"""Adapter from plan nodes to the pure memory planner's typed input (spec 05 §7.4-§7.5).

One ``MemoryNodeInput`` per plan node in plan order (see ``reference.plan.memory.inputs``
for the adapter contract): bindings with their program role (weight, input, output,
state) and token extent, the chosen plan's workspaces with their base ids, and the
node's dependencies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reference.catalog.storage import DynamicStorageProfile
from reference.ids import ResourceId
from reference.model.program import ModelProgram
from reference.plan.memory import (
    MemoryNodeInput,
    MemoryPlanInput,
    MemoryStorageComponent,
    MemoryValueInput,
    MemoryWorkspaceInput,
)
from reference.plan.node import PlanNode
from reference.policy.trust import PlannerPolicyView
from reference.resolution.tensor_spec import tensor_layout_fingerprint

__all__ = ["ProgramIndex", "memory_node_input", "memory_plan_input"]


class ProgramIndex:
    """Program value roles by value id (built once per plan)."""

    def __init__(self, program: ModelProgram) -> None:
        self.weights = {w.value_id for w in program.weights}
        self.states = {s.value_id: s for s in program.states}
        self.inputs = frozenset(program.inputs)
        self.outputs = frozenset(program.outputs)


def memory_node_input(index: ProgramIndex, node: PlanNode) -> MemoryNodeInput:
    """The memory planner's view of one plan node."""
    layouts: dict[object, str] = {}
    values = []
    for binding in node.values:
        layout = binding.tensor.layout
        fingerprint = layouts.get(layout)
        if fingerprint is None:
            fingerprint = layouts[layout] = tensor_layout_fingerprint(layout)
        projection = node.work.token_projection(binding.role, binding.ordinal)
        values.append(
            MemoryValueInput(
                binding.value_id,
                binding.role,
                binding.ordinal,
                binding.usage,
                fingerprint,
                tuple(
                    MemoryStorageComponent(c.resource_id, c.offset_bytes, c.length_bytes, c.element_type)
                    for c in binding.storage.components
                ),
                is_weight=binding.value_id in index.weights,
                is_program_input=binding.value_id in index.inputs,
                is_program_output=binding.value_id in index.outputs,
                state=index.states.get(binding.value_id),
                token_extent=None if projection is None else projection.canonical_extent,
            )
        )
    plan = node.provider_resources
    ids = dict(node.workspace_resources())
    workspaces = []
    for kind, requirement in plan.workspaces():
        resource = ids[kind]
        assert resource is not None
        workspaces.append(
            MemoryWorkspaceInput(
                kind,
                resource,
                requirement.size_formula.to_wire(),
                requirement.alignment_bytes,
                requirement.scope.to_wire(),
            )
        )
    return MemoryNodeInput(node.id, plan.value_alignment_bytes, tuple(values), tuple(workspaces), node.dependencies)


def memory_plan_input(
    program: ModelProgram,
    nodes: Sequence[PlanNode],
    view: PlannerPolicyView,
    device_capacity_bytes: int,
    profiles: Mapping[ResourceId, DynamicStorageProfile],
    retained_resources: frozenset[ResourceId],
) -> MemoryPlanInput:
    """The whole memory-planner input; no checkpoint layout is derived (decision D-05P-6)."""
    index = ProgramIndex(program)
    return MemoryPlanInput(
        device_capacity_bytes,
        view.memory_capacity_bytes,
        view.memory_reserve_bytes,
        view.maximum_active_sequences,
        view.maximum_scheduled_tokens,
        tuple(memory_node_input(index, node) for node in nodes),
        profiles,
        view.reusable_execution,
        retained_resources,
        view.checkpoint_capacity,
        None,
    )
