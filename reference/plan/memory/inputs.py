"""Typed input of the pure memory planner (spec 05 §7.4, §7.5).

Adapter contract for the plan builder — one ``MemoryNodeInput`` per program node, in plan
order, built from the node, its resolution and its chosen ``ProviderResourcePlan``:

* ``node_id``; ``dependencies`` (the node's §5.2 dependency list; every id must name an
  earlier node); ``value_alignment_bytes`` = ``PR.value_alignment_bytes``.
* ``values``: one ``MemoryValueInput`` per resolved binding, in binding order: value id,
  role, ordinal, usage, ``layout_fingerprint`` = ``tensor_layout_fingerprint(binding.tensor
  .layout wire)``, every storage component (resource id, offset, length, element type),
  whether the value is a program weight / program input / program output, the program
  ``StateSpec`` when the value is a state, and ``token_extent`` = the canonical extent of the
  node's token projection for this (role, ordinal) (``tokens`` work only, else ``None``).
* ``workspaces``: for each present workspace of ``PR`` (scratch, binding, persistent): its
  kind, ``workspace_base_id(node, kind, PR.estimate_fingerprint)``, the size formula WIRE,
  its alignment and its scope wire string.
* ``resources`` is derived: the sorted unique component resource ids plus workspace ids (§4.7).

``MemoryPlanInput`` adds the device/policy numbers, the joint solver's selected profile per
dynamic resource id, the reusable-execution policy, the retained completion resources and
the checkpoint capacity policy with the checkpointed state resources (or ``None``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from reference.catalog.storage import DynamicStorageProfile, ResolvedValueRole
from reference.ids import NodeId, ProgramValueId, ResourceId
from reference.ints import check_uint
from reference.model.element import ElementType
from reference.model.state import StateSpec
from reference.plan.memory.enums import BufferUsage
from reference.plan.memory.identities import WORKSPACE_KINDS
from reference.plan.memory.liveness import PlanNodeLiveness
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.reusable import ReusableExecutionPolicy

__all__ = [
    "WORKSPACE_SCOPES",
    "MemoryNodeInput",
    "MemoryPlanInput",
    "MemoryStorageComponent",
    "MemoryValueInput",
    "MemoryWorkspaceInput",
]

WORKSPACE_SCOPES: Final = ("plan", "request", "sequence", "step", "invocation")


@dataclass(frozen=True, slots=True)
class MemoryStorageComponent:
    """One byte range of a binding's storage."""

    resource_id: ResourceId
    offset_bytes: int
    length_bytes: int
    element_type: ElementType

    def __post_init__(self) -> None:
        check_uint(self.offset_bytes, 64, "offset_bytes")
        check_uint(self.length_bytes, 64, "length_bytes")


@dataclass(frozen=True, slots=True)
class MemoryValueInput:
    """What the memory plan needs from one resolved value binding."""

    value_id: ProgramValueId
    role: ResolvedValueRole
    ordinal: int
    usage: BufferUsage
    layout_fingerprint: str
    components: tuple[MemoryStorageComponent, ...]
    is_weight: bool = False
    is_program_input: bool = False
    is_program_output: bool = False
    state: StateSpec | None = None
    token_extent: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "components", tuple(self.components))
        check_uint(self.ordinal, 32, "ordinal")
        if self.token_extent is not None:
            check_uint(self.token_extent, 64, "token_extent")


@dataclass(frozen=True, slots=True)
class MemoryWorkspaceInput:
    """One provider workspace of the chosen resource plan."""

    kind: str
    resource_id: ResourceId
    size_formula: Any
    alignment_bytes: int
    scope: str

    def __post_init__(self) -> None:
        if self.kind not in WORKSPACE_KINDS:
            raise ValueError(f"unknown workspace kind {self.kind!r}")
        if self.scope not in WORKSPACE_SCOPES:
            raise ValueError(f"unknown workspace scope {self.scope!r}")
        check_uint(self.alignment_bytes, 64, "alignment_bytes")


@dataclass(frozen=True, slots=True)
class MemoryNodeInput:
    """One plan node as the memory planner sees it."""

    node_id: NodeId
    value_alignment_bytes: int
    values: tuple[MemoryValueInput, ...] = ()
    workspaces: tuple[MemoryWorkspaceInput, ...] = ()
    dependencies: tuple[NodeId, ...] = ()

    def __post_init__(self) -> None:
        for name in ("values", "workspaces", "dependencies"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        check_uint(self.value_alignment_bytes, 64, "value_alignment_bytes")

    @property
    def resources(self) -> tuple[ResourceId, ...]:
        """Sorted unique closure: component resource ids plus workspace ids (§4.7)."""
        ids = {c.resource_id for v in self.values for c in v.components}
        ids.update(w.resource_id for w in self.workspaces)
        return tuple(sorted(ids))

    def liveness(self) -> PlanNodeLiveness:
        return PlanNodeLiveness(self.node_id, tuple(sorted(set(self.dependencies))), self.resources)


@dataclass(frozen=True)
class MemoryPlanInput:
    """Everything ``build_memory_plan`` reads."""

    device_capacity_bytes: int
    policy_capacity_bytes: int
    reserve_bytes: int
    maximum_active_sequences: int
    maximum_scheduled_tokens: int
    nodes: tuple[MemoryNodeInput, ...]
    selected_profiles: Mapping[ResourceId, DynamicStorageProfile] = field(default_factory=dict)
    reusable_execution: ReusableExecutionPolicy | None = None
    retained_resources: frozenset[ResourceId] = frozenset()
    checkpoint_capacity: CheckpointCapacityPolicy | None = None
    checkpoint_resources: tuple[ResourceId, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes", tuple(self.nodes))
        object.__setattr__(self, "selected_profiles", dict(self.selected_profiles))
        object.__setattr__(self, "retained_resources", frozenset(self.retained_resources))
        for name in ("device_capacity_bytes", "policy_capacity_bytes", "reserve_bytes", "maximum_scheduled_tokens"):
            check_uint(getattr(self, name), 64, name)
        check_uint(self.maximum_active_sequences, 32, "maximum_active_sequences")
