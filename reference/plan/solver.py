"""Joint provider / storage selection (spec 05 §6.1-§6.2).

``node_candidates`` turns a node's resolution candidates into solver candidates: the
catalog provider must exist; every non-weight binding and every present workspace maps
its resource ids to the profiles (policy order, offered by the device, accepted by the
requirement) it allows; an empty or conflicting intersection silently drops the
candidate. Candidates sort preferred first, then by provider id.

``solve`` joins nodes that can mention a common resource (union-find), then runs a
dynamic programme per component: the frontier is keyed by the merged constraint map and
a collision keeps the partial that precedes (preferred flags, then provider ids). The
final choice minimises ``(preferred flags, profile penalty, provider ids)`` where each
resource takes the first policy profile it allows. ``storage_rejections`` records
``storage_incompatible`` evidence for a lost preference.

Resources never mentioned again are retired from the frontier key as soon as their last
mentioning node is processed (their rank folded into the key's penalty), which keeps the
programme linear on long chains without changing its result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.storage import DynamicStorageProfile, DynamicStorageRequirement
from reference.errors import invalid_plan
from reference.ids import NodeId, ProviderId, ResourceId
from reference.model.program import ProgramNode
from reference.plan.selection import RejectedProvider
from reference.policy.trust import PlannerPolicyView
from reference.resolution.node_resolution import PlanNodeResolution
from reference.resolution.rejection import PlanProviderRejectReason
from reference.resolution.resource_plan import ProviderResourcePlan, workspace_base_id
from reference.resolution.usage import BufferUsage

__all__ = ["JointCandidate", "JointSelection", "node_candidates", "solve", "storage_incompatible_resource_ids"]

Constraints = dict[ResourceId, frozenset[DynamicStorageProfile]]


@dataclass(frozen=True, slots=True)
class JointCandidate:
    """One provider plan of one node with the profiles it allows per resource."""

    plan: ProviderResourcePlan
    allowed: Mapping[ResourceId, frozenset[DynamicStorageProfile]]
    is_preferred: bool

    @property
    def provider_id(self) -> ProviderId:
        return self.plan.provider_id


@dataclass(frozen=True, slots=True)
class JointSelection:
    """Per node (plan order) the chosen plan, per resource the selected profile, lost preferences."""

    node_resources: tuple[ProviderResourcePlan, ...]
    resource_profiles: Mapping[ResourceId, DynamicStorageProfile]
    storage_rejections: Mapping[NodeId, RejectedProvider] = field(default_factory=dict)


def _merge(constraints: Constraints, resource: ResourceId, accepted: frozenset[DynamicStorageProfile]) -> bool:
    if not accepted:
        return False
    existing = constraints.get(resource)
    merged = accepted if existing is None else existing & accepted
    if not merged:
        return False
    constraints[resource] = merged
    return True


def node_candidates(
    catalog: CapabilityCatalog, view: PlannerPolicyView, node: ProgramNode, resolution: PlanNodeResolution
) -> list[JointCandidate]:
    """§6.1 for one program node; no compatible candidate left -> ``InvalidExecutionPlan``."""
    providers = {p.provider_id: p for p in catalog.providers_for_node(node.id, node.operation_id)}
    order = view.dynamic_storage_profile_order
    offered = catalog.device.dynamic_storage_profiles
    cache: dict[DynamicStorageRequirement, frozenset[DynamicStorageProfile]] = {}

    def accepted(requirement: DynamicStorageRequirement) -> frozenset[DynamicStorageProfile]:
        found = cache.get(requirement)
        if found is None:
            found = frozenset(p for p in order if p in offered and requirement.accepts(p))
            cache[requirement] = found
        return found

    preferred = resolution.preferred_provider()
    out: list[JointCandidate] = []
    for plan in resolution.provider_resource_candidates():
        provider = providers.get(plan.provider_id)
        if provider is None:
            raise invalid_plan(  # rule: 05.6.1/candidate_provider_prechecked
                f"candidate provider `{plan.provider_id}` is not registered for node `{node.id}`"
            )
        constraints: Constraints = {}
        compatible = True
        for binding in resolution.values():
            if binding.usage is BufferUsage.WEIGHTS:
                continue
            requirement = provider.dynamic_storage_for(binding.role, binding.ordinal)
            if requirement is None:
                compatible = False
                break
            allowed = accepted(requirement)
            if not all(_merge(constraints, c.resource_id, allowed) for c in binding.storage.components):
                compatible = False
                break
        if compatible:
            for kind, workspace in plan.workspaces():
                resource = workspace_base_id(node.id, kind, plan.estimate_fingerprint)
                if not _merge(constraints, resource, accepted(workspace.storage)):
                    compatible = False
                    break
        if compatible:
            out.append(JointCandidate(plan, dict(constraints), preferred == plan.provider_id))
    out.sort(key=lambda c: (not c.is_preferred, c.provider_id))
    if not out:
        raise invalid_plan(  # rule: 05.6.1/no_candidate_left, 05.6.1/candidate_provider_in_catalog
            f"node `{node.id}` has no provider candidate with compatible storage"
        )
    return out


# --------------------------------------------------------------------------- solver


@dataclass(slots=True)
class _Partial:
    """A persistent (linked) partial selection of one component."""

    parent: _Partial | None
    candidate: JointCandidate | None
    active: Constraints
    penalty: tuple[int, ...]
    retired: tuple[tuple[ResourceId, DynamicStorageProfile], ...] = ()

    def chain(self) -> list[_Partial]:
        out: list[_Partial] = []
        node: _Partial | None = self
        while node is not None and node.candidate is not None:
            out.append(node)
            node = node.parent
        out.reverse()
        return out

    def precedence(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """``compare_preferred`` (true first, then shorter) and the provider-id sequence."""
        steps = self.chain()
        flags = tuple(0 if s.candidate is not None and s.candidate.is_preferred else 1 for s in steps)
        ids = tuple(s.candidate.provider_id.value for s in steps if s.candidate is not None)
        return flags, ids


def _components(candidate_sets: Sequence[Sequence[JointCandidate]]) -> list[list[int]]:
    parent = list(range(len(candidate_sets)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict[ResourceId, int] = {}
    for index, candidates in enumerate(candidate_sets):
        for resource in sorted({r for c in candidates for r in c.allowed}):
            previous = owner.get(resource)
            owner[resource] = index
            if previous is not None:
                a, b = find(previous), find(index)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for index in range(len(candidate_sets)):
        groups.setdefault(find(index), []).append(index)
    return sorted(groups.values(), key=lambda nodes: nodes[0])


def _solve_component(
    nodes: Sequence[int],
    candidate_sets: Sequence[Sequence[JointCandidate]],
    order: Sequence[DynamicStorageProfile],
) -> list[_Partial]:
    last_mention: dict[ResourceId, int] = {}
    for position, index in enumerate(nodes):
        for candidate in candidate_sets[index]:
            for resource in candidate.allowed:
                last_mention[resource] = position
    rank_cache: dict[frozenset[DynamicStorageProfile], tuple[int, DynamicStorageProfile]] = {}

    def rank(allowed: frozenset[DynamicStorageProfile]) -> tuple[int, DynamicStorageProfile]:
        found = rank_cache.get(allowed)
        if found is None:
            found = next((i, p) for i, p in enumerate(order) if p in allowed)
            rank_cache[allowed] = found
        return found

    width = len(order) - 1
    frontier: dict[object, _Partial] = {(): _Partial(None, None, {}, (0,) * width)}
    for position, index in enumerate(nodes):
        following: dict[object, _Partial] = {}
        for partial in frontier.values():
            for candidate in candidate_sets[index]:
                active = dict(partial.active)
                if not all(_merge(active, r, allowed) for r, allowed in candidate.allowed.items()):
                    continue
                penalty = list(partial.penalty)
                retired: list[tuple[ResourceId, DynamicStorageProfile]] = []
                for resource in sorted(r for r in active if last_mention[r] == position):
                    profile_rank, profile = rank(active.pop(resource))
                    if profile_rank:
                        penalty[width - profile_rank] += 1
                    retired.append((resource, profile))
                extended = _Partial(partial, candidate, active, tuple(penalty), tuple(retired))
                key = (tuple(sorted(active.items(), key=lambda item: item[0])), extended.penalty)
                kept = following.get(key)
                if kept is None or extended.precedence() < kept.precedence():
                    following[key] = extended
        if not following:
            raise invalid_plan(  # rule: 05.6.2/no_joint_assignment
                "joint provider/storage selection has no compatible assignment"
            )
        frontier = following
    best = min(frontier.values(), key=lambda p: (p.precedence()[0], p.penalty, p.precedence()[1]))
    return best.chain()


def solve(
    node_ids: Sequence[NodeId],
    candidate_sets: Sequence[Sequence[JointCandidate]],
    order: Sequence[DynamicStorageProfile],
) -> tuple[list[ProviderResourcePlan], dict[ResourceId, DynamicStorageProfile]]:
    """§6.2: the chosen plan per node (same order) and the selected profile per resource."""
    if not candidate_sets or any(not c for c in candidate_sets) or not order:
        raise invalid_plan(  # rule: 05.6.2/solver_empty_inputs
            "joint provider/storage selection has an empty candidate set or profile order"
        )
    chosen: list[ProviderResourcePlan | None] = [None] * len(candidate_sets)
    profiles: dict[ResourceId, DynamicStorageProfile] = {}
    for component in _components(candidate_sets):
        component_resources: set[ResourceId] = set()
        steps = _solve_component(component, candidate_sets, order)
        for index, step in zip(component, steps, strict=True):
            assert step.candidate is not None
            if chosen[index] is not None:
                raise invalid_plan(  # rule: 05.6.2/component_overlap_or_assignment
                    f"node `{node_ids[index]}` was assigned twice"
                )
            chosen[index] = step.candidate.plan
            for resource, profile in step.retired:
                if resource in profiles or resource in component_resources:
                    raise invalid_plan(  # rule: 05.6.2/component_overlap_or_assignment
                        f"resource `{resource}` is shared by two selection components"
                    )
                component_resources.add(resource)
                profiles[resource] = profile
    if any(plan is None for plan in chosen):
        raise invalid_plan(  # rule: 05.6.2/component_overlap_or_assignment
            "joint provider/storage selection left a node unassigned"
        )
    return [plan for plan in chosen if plan is not None], profiles


def storage_incompatible_resource_ids(
    candidate: JointCandidate, selected: Mapping[ResourceId, DynamicStorageProfile]
) -> tuple[ResourceId, ...]:
    """Ids the candidate constrains whose selected profile it does not allow (sorted)."""
    return tuple(sorted(r for r, allowed in candidate.allowed.items() if r in selected and selected[r] not in allowed))


def storage_rejection(
    node: ProgramNode,
    resolution: PlanNodeResolution,
    candidates: Sequence[JointCandidate],
    chosen: ProviderResourcePlan,
    selected: Mapping[ResourceId, DynamicStorageProfile],
) -> RejectedProvider | None:
    """§6.2 storage rejections: evidence for a preferred provider the solver did not choose."""
    preferred = resolution.preferred_provider()
    if preferred is None or preferred == chosen.provider_id:
        return None
    candidate = next((c for c in candidates if c.provider_id == preferred), None)
    if candidate is not None:
        ids = storage_incompatible_resource_ids(candidate, selected)
        if not ids:
            raise invalid_plan(  # rule: 05.6.2/lost_preference_without_conflict
                f"node `{node.id}` lost its preferred provider without a storage conflict"
            )
        return RejectedProvider(preferred, PlanProviderRejectReason.storage_incompatible(ids))
    reason = resolution.provider_resolution_rejections().get(preferred)
    return None if reason is None else RejectedProvider(preferred, reason)


__all__ += ["storage_rejection"]
