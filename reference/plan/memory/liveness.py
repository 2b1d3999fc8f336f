"""Step slots and invocation liveness (spec 05 §7.9).

* ``NodeGraph``: plan nodes in order with their ``dependencies`` and ``resources``;
  ``precedes(a, b)`` is the transitive completion order (DFS over dependencies from ``b``;
  a node never precedes itself). Dependencies must point to earlier nodes.
* Step slots: Step members sorted by ``(first_user, last_user, id)``; a reusable member
  (step, activations, value kind, ``tokens`` demand, not retained) joins the first slot
  whose members are all reusable and ordered without overlap with it, else opens a slot.
* Invocation liveness: one row per node using invocation members; ``total_order_reuse``
  iff no ``binding`` member and every consecutive row pair is completion-ordered; the
  peak is the largest row (total order) or the sum of rows (concurrent).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Final

from reference.errors import invalid_plan
from reference.ids import NodeId, ResourceId
from reference.ints import checked_add
from reference.plan.memory.demand import TokensDemand
from reference.plan.memory.descriptor import DynamicResourceDescriptor
from reference.plan.memory.enums import AllocationLifetime, BufferUsage, InvocationLivenessMode
from reference.plan.memory.pool import InvocationResourceLiveness, StepResourceSlot

__all__ = [
    "MAX_INVOCATION_LIVENESS_REFERENCES",
    "NodeGraph",
    "PlanNodeLiveness",
    "derive_pool_invocation_liveness",
    "derive_pool_step_slots",
    "is_reusable_step_activation",
    "summarize_pool_invocation_liveness",
    "validate_pool_liveness_rows",
]

MAX_INVOCATION_LIVENESS_REFERENCES: Final = 65_536


@dataclass(frozen=True, slots=True)
class PlanNodeLiveness:
    """What liveness reads from a plan node: its id, dependencies and resource closure."""

    node_id: NodeId
    dependencies: tuple[NodeId, ...] = ()
    resources: tuple[ResourceId, ...] = ()


@dataclass(frozen=True)
class NodeGraph:
    """Plan nodes in plan order, indexed for completion-order queries."""

    nodes: tuple[PlanNodeLiveness, ...]
    index: dict[NodeId, int] = field(init=False, repr=False, compare=False)
    users: dict[ResourceId, list[int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[NodeId, int] = {}
        users: dict[ResourceId, list[int]] = {}
        for position, node in enumerate(self.nodes):
            if node.node_id in index:
                raise invalid_plan(  # rule: 05.5.2/dependencies_precede
                    f"plan node `{node.node_id.value}` appears twice"
                )
            for dependency in node.dependencies:
                if index.get(dependency, position) >= position:
                    raise invalid_plan(  # rule: 05.5.2/dependencies_precede
                        f"plan node `{node.node_id.value}` depends on a node that does not precede it"
                    )
            index[node.node_id] = position
            for resource in set(node.resources):
                users.setdefault(resource, []).append(position)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "users", users)

    @classmethod
    def of(cls, nodes: Iterable[PlanNodeLiveness]) -> NodeGraph:
        return cls(tuple(nodes))

    def precedes(self, earlier: NodeId, later: NodeId) -> bool:
        """True iff ``earlier`` is a transitive dependency of ``later`` (never of itself)."""
        if earlier == later:
            return False
        floor = self.index[earlier]
        stack = [later]
        seen = {later}
        while stack:
            current = self.nodes[self.index[stack.pop()]]
            for dependency in current.dependencies:
                if dependency == earlier:
                    return True
                if dependency not in seen and self.index[dependency] > floor:
                    seen.add(dependency)
                    stack.append(dependency)
        return False

    def user_span(self, resource: ResourceId) -> tuple[int, int]:
        """Smallest and largest plan index whose ``resources`` contain ``resource``."""
        positions = self.users.get(resource)
        if not positions:
            raise invalid_plan(  # rule: 05.7.9/step_member_user_span
                f"step resource `{resource.value}` is not referenced by a plan node"
            )
        return positions[0], positions[-1]


def is_reusable_step_activation(descriptor: DynamicResourceDescriptor) -> bool:
    """Step lifetime, activations usage, value kind and a ``tokens`` demand."""
    return (
        descriptor.lifetime is AllocationLifetime.STEP
        and descriptor.usage is BufferUsage.ACTIVATIONS
        and descriptor.kind.is_value
        and isinstance(descriptor.demand, TokensDemand)
    )


@dataclass(slots=True)
class _Interval:
    resource_id: ResourceId
    first_user: int
    last_user: int
    reusable: bool


def derive_pool_step_slots(
    graph: NodeGraph, members: Sequence[DynamicResourceDescriptor], retained: frozenset[ResourceId] = frozenset()
) -> tuple[StepResourceSlot, ...]:
    """Greedy interval packing of the pool's Step members into slots (sorted by member lists)."""
    intervals = []
    for descriptor in members:
        if descriptor.lifetime is not AllocationLifetime.STEP:
            continue
        first, last = graph.user_span(descriptor.base_resource_id)
        reusable = is_reusable_step_activation(descriptor) and descriptor.base_resource_id not in retained
        intervals.append(_Interval(descriptor.base_resource_id, first, last, reusable))
    intervals.sort(key=lambda i: (i.first_user, i.last_user, i.resource_id))

    def ordered(a: _Interval, b: _Interval) -> bool:
        nodes = graph.nodes
        a_first = a.last_user < b.first_user and graph.precedes(nodes[a.last_user].node_id, nodes[b.first_user].node_id)
        b_first = b.last_user < a.first_user and graph.precedes(nodes[b.last_user].node_id, nodes[a.first_user].node_id)
        return a_first or b_first

    slots: list[list[_Interval]] = []
    for interval in intervals:
        target = None
        if interval.reusable:
            for slot in slots:
                if all(member.reusable and ordered(member, interval) for member in slot):
                    target = slot
                    break
        if target is None:
            slots.append([interval])
        else:
            target.append(interval)
    built = [
        StepResourceSlot.dedicated(slot[0].resource_id)
        if len(slot) == 1
        else StepResourceSlot.ordered_single_fence_wave(member.resource_id for member in slot)
        for slot in slots
    ]
    return tuple(sorted(built, key=lambda slot: slot.resource_ids))


def _row_bytes(row: InvocationResourceLiveness, by_id: Mapping[ResourceId, DynamicResourceDescriptor]) -> int:
    total = 0
    for resource in row.resource_ids:
        descriptor = by_id.get(resource)
        if descriptor is None:
            raise invalid_plan(  # rule: 05.7.9/liveness_row_members_known
                "pool liveness references an unknown descriptor"
            )
        total = checked_add(  # rule: 05.7.9/liveness_references_limit
            total, descriptor.minimum_request_bytes, error=partial(invalid_plan, "pool invocation row bytes overflows")
        )
    return total


def _peak(
    total_order: bool,
    rows: Iterable[InvocationResourceLiveness],
    by_id: Mapping[ResourceId, DynamicResourceDescriptor],
) -> int:
    sizes = [_row_bytes(row, by_id) for row in rows]
    if total_order:
        return max(sizes, default=0)
    peak = 0
    for size in sizes:
        peak = checked_add(  # rule: 05.7.9/liveness_references_limit
            peak, size, error=partial(invalid_plan, "pool concurrent invocation bytes overflows")
        )
    return peak


def derive_pool_invocation_liveness(
    graph: NodeGraph, members: Sequence[DynamicResourceDescriptor]
) -> tuple[InvocationLivenessMode, tuple[InvocationResourceLiveness, ...], int]:
    """``(mode, rows sorted by node id, peak bytes)`` for one pool's Invocation members."""
    invocation = {d.base_resource_id: d for d in members if d.lifetime is AllocationLifetime.INVOCATION}
    if not invocation:
        return InvocationLivenessMode.NO_INVOCATION_RESOURCES, (), 0
    rows: list[InvocationResourceLiveness] = []
    covered: set[ResourceId] = set()
    for node in graph.nodes:
        used = sorted({r for r in node.resources if r in invocation})
        if used:
            covered.update(used)
            rows.append(InvocationResourceLiveness(node.node_id, tuple(used)))
    if covered != set(invocation):
        raise invalid_plan(  # rule: 05.7.9/derived_liveness_covers_workspaces
            "pool node liveness does not cover every invocation resource"
        )
    has_binding = any(d.kind.tag == "binding" for d in invocation.values())
    total_order = not has_binding and all(graph.precedes(a.node_id, b.node_id) for a, b in itertools.pairwise(rows))
    peak = _peak(total_order, rows, invocation)
    mode = InvocationLivenessMode.TOTAL_ORDER_REUSE if total_order else InvocationLivenessMode.CONSERVATIVE_CONCURRENT
    return mode, tuple(sorted(rows, key=lambda row: row.node_id)), peak


def validate_pool_liveness_rows(
    mode: InvocationLivenessMode,
    rows: Sequence[InvocationResourceLiveness],
    invocation_ids: frozenset[ResourceId],
    descriptors: Mapping[ResourceId, DynamicResourceDescriptor],
) -> int:
    """Stored rows against the pool's Invocation members; returns the peak they imply.

    Rows must be sorted by node id, each a non-empty strictly ascending subset of the
    members, together covering them; ``total_order_reuse`` is impossible with a binding member.
    """
    if not invocation_ids:
        if mode is not InvocationLivenessMode.NO_INVOCATION_RESOURCES or rows:
            raise invalid_plan(  # rule: 05.7.9/liveness_references_limit
                "pool without invocation resources carries liveness evidence"
            )
        return 0
    if mode is InvocationLivenessMode.NO_INVOCATION_RESOURCES or not rows:
        raise invalid_plan("invocation pool has no liveness evidence")  # rule: 05.7.9/liveness_references_limit
    covered: set[ResourceId] = set()
    for previous, row in zip((None, *rows), rows, strict=False):
        ids = row.resource_ids
        if (
            (previous is not None and previous.node_id >= row.node_id)
            or not ids
            or any(a >= b for a, b in itertools.pairwise(ids))
            or not set(ids) <= invocation_ids
        ):
            raise invalid_plan(  # rule: 05.7.9/liveness_references_limit
                "pool invocation liveness rows are not canonical"
            )
        covered.update(ids)
    if covered != invocation_ids:
        raise invalid_plan(  # rule: 05.7.9/liveness_references_limit
            "pool invocation liveness does not cover every invocation resource"
        )
    total_order = mode is InvocationLivenessMode.TOTAL_ORDER_REUSE
    if total_order and any(descriptors[r].kind.tag == "binding" for r in invocation_ids):
        raise invalid_plan(  # rule: 05.7.9/liveness_references_limit
            "a pool with binding workspaces cannot claim total-order reuse"
        )
    return _peak(total_order, rows, descriptors)


def summarize_pool_invocation_liveness(
    pools: Iterable[tuple[InvocationLivenessMode, Sequence[InvocationResourceLiveness]]],
) -> tuple[InvocationLivenessMode, tuple[InvocationResourceLiveness, ...]]:
    """Plan-level mode and per-node union of rows across pools (sorted; <= 65 536 references)."""
    pools_list = list(pools)
    modes = [mode for mode, _ in pools_list]
    invocation_modes = [m for m in modes if m is not InvocationLivenessMode.NO_INVOCATION_RESOURCES]
    if not invocation_modes:
        mode = InvocationLivenessMode.NO_INVOCATION_RESOURCES
    elif all(m is InvocationLivenessMode.TOTAL_ORDER_REUSE for m in invocation_modes):
        mode = InvocationLivenessMode.TOTAL_ORDER_REUSE
    else:
        mode = InvocationLivenessMode.CONSERVATIVE_CONCURRENT
    per_node: dict[NodeId, set[ResourceId]] = {}
    for _, rows in pools_list:
        for row in rows:
            per_node.setdefault(row.node_id, set()).update(row.resource_ids)
    if sum(len(ids) for ids in per_node.values()) > MAX_INVOCATION_LIVENESS_REFERENCES:
        raise invalid_plan("invocation liveness references exceed 65536")  # rule: 05.7.9/liveness_references_limit
    summary = tuple(InvocationResourceLiveness(node, tuple(sorted(ids))) for node, ids in sorted(per_node.items()))
    return mode, summary
