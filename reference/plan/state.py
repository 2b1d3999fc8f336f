"""State effects and dependency tracking (spec 05 §5.1-§5.2).

``derive_state_effects``: per program state (state-id order) the node's bindings of its
value give the access (``read`` / ``write`` / ``read_write``), the lifetime and the sorted
component resource ids. ``StateTracker`` adds read-after-write, write-after-read and
write-after-write dependencies; ``node_dependencies`` unions them with the producers of
the node's inputs and sorts by node id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from reference.catalog.tensor_contract import TensorAccess
from reference.errors import invalid_plan
from reference.ids import NodeId, ProgramValueId, StateId
from reference.model.program import ModelProgram, ProgramNode
from reference.plan._util import strictly_ascending
from reference.plan.memory.enums import AllocationLifetime
from reference.plan.node import PlanStateEffect
from reference.resolution.binding import ResolvedValueBinding

__all__ = ["StateTracker", "derive_state_effects", "node_dependencies"]


def derive_state_effects(program: ModelProgram, values: Sequence[ResolvedValueBinding]) -> tuple[PlanStateEffect, ...]:
    """One effect per program state the node binds, strictly ascending by state id."""
    effects: list[PlanStateEffect] = []
    for state in program.states:
        bindings = [b for b in values if b.value_id == state.value_id]
        if not bindings:
            continue
        reads = any(b.access in (TensorAccess.READ, TensorAccess.READ_WRITE) for b in bindings)
        writes = any(b.access in (TensorAccess.WRITE, TensorAccess.READ_WRITE) for b in bindings)
        access = TensorAccess.READ_WRITE if reads and writes else TensorAccess.READ if reads else TensorAccess.WRITE
        resources = tuple(sorted({c.resource_id for b in bindings for c in b.storage.components}))
        if not resources:
            raise invalid_plan(f"state `{state.id}` effect has no resources")  # rule: 05.5.1/effect_shape_invariants
        effects.append(
            PlanStateEffect(state.id, state.value_id, AllocationLifetime.from_state(state.lifetime), access, resources)
        )
    if not strictly_ascending([e.state_id for e in effects]):
        raise invalid_plan(  # rule: 05.5.1/effect_shape_invariants
            "state effects are not strictly ascending by state id"
        )
    return tuple(effects)


class StateTracker:
    """Per state: the last writer and the readers since that write."""

    __slots__ = ("_last_writer", "_readers")

    def __init__(self) -> None:
        self._last_writer: dict[StateId, NodeId] = {}
        self._readers: dict[StateId, set[NodeId]] = {}

    def apply(self, node_id: NodeId, effects: Iterable[PlanStateEffect]) -> set[NodeId]:
        """The state dependencies of ``node_id``; updates the tracker."""
        deps: set[NodeId] = set()
        for effect in effects:
            state = effect.state_id
            writer = self._last_writer.get(state)
            if writer is not None:
                deps.add(writer)
            readers = self._readers.setdefault(state, set())
            if effect.access is TensorAccess.READ:
                readers.add(node_id)
            else:
                deps |= readers
                readers.clear()
                self._last_writer[state] = node_id
        return deps


def node_dependencies(
    node: ProgramNode,
    producers: Mapping[ProgramValueId, NodeId],
    state_dependencies: Iterable[NodeId],
) -> tuple[NodeId, ...]:
    """Producers of the node's inputs plus its state dependencies, unique and sorted."""
    deps = {producers[v] for v in node.inputs if v in producers}
    deps.update(state_dependencies)
    return tuple(sorted(deps))
