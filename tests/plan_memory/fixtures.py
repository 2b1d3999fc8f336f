"""Memory-planner inputs mirroring the seed 000 planning fixtures (spec 05 §7.9, §7.16, §5.3).

Each builder returns a ``MemoryPlanInput`` with what the plan builder would adapt from the
seed plan: the program's bindings, the estimator's workspaces and the contiguous profile
selected for every dynamic resource.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference.catalog.storage import DynamicStorageProfile, ResolvedValueRole
from reference.ids import NodeId, ProgramValueId, ResourceId, StateId
from reference.model.element import ElementType
from reference.model.state import StateCapacityDemand, StateInitialization, StateLifetime, StateSpec
from reference.model.tensor import ProgramTensorSpec
from reference.plan.memory import (
    BufferUsage,
    MemoryNodeInput,
    MemoryPlanInput,
    MemoryStorageComponent,
    MemoryValueInput,
    MemoryWorkspaceInput,
    tensor_layout_fingerprint,
    workspace_base_id,
)
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.reusable import ReusableExecutionPolicy

CONTIGUOUS = tensor_layout_fingerprint("contiguous")
VALUE_FP_SET = "5ecd2941f2c44570bcee3178feaccaeb79f4eb49c6d9a01a0cf61df170fee566"
LINEAR = DynamicStorageProfile.linear_contiguous()
MIB = 1 << 20
ESTIMATE = "3" * 64


def state_spec(
    lifetime: StateLifetime = StateLifetime.SEQUENCE,
    element: ElementType = ElementType.U8,
    capacity: StateCapacityDemand | None = None,
    initialization: StateInitialization = StateInitialization.ZERO,
) -> StateSpec:
    return StateSpec(
        StateId("state.cache"),
        ProgramValueId("value.state"),
        ProgramTensorSpec((4,), element),
        lifetime,
        capacity or StateCapacityDemand.fixed_per_scope(),
        initialization,
    )


def value(
    value_id: str,
    role: ResolvedValueRole,
    ordinal: int,
    resource: str,
    length: int = 16,
    *,
    element: ElementType = ElementType.F32,
    usage: BufferUsage = BufferUsage.ACTIVATIONS,
    offset: int = 0,
    weight: bool = False,
    program_input: bool = False,
    program_output: bool = False,
    state: StateSpec | None = None,
    token_extent: int | None = None,
    layout: str = CONTIGUOUS,
) -> MemoryValueInput:
    return MemoryValueInput(
        ProgramValueId(value_id),
        role,
        ordinal,
        usage,
        layout,
        (MemoryStorageComponent(ResourceId(resource), offset, length, element),),
        is_weight=weight,
        is_program_input=program_input,
        is_program_output=program_output,
        state=state,
        token_extent=token_extent,
    )


IN, OUT = ResolvedValueRole.INPUT, ResolvedValueRole.OUTPUT


def workspaces(
    node: str,
    scratch: int | dict[str, object] | None = 64,
    persistent: int | None = 32,
    *,
    estimate: str = ESTIMATE,
    binding: dict[str, object] | None = None,
    persistent_scope: str = "plan",
) -> tuple[MemoryWorkspaceInput, ...]:
    """The estimator's workspaces: scratch (invocation, align 16), persistent (plan, align 16)."""
    out = []
    node_id = NodeId(node)
    if scratch is not None:
        formula = {"fixed": {"bytes": scratch}} if isinstance(scratch, int) else scratch
        out.append(
            MemoryWorkspaceInput("scratch", workspace_base_id(node_id, "scratch", estimate), formula, 16, "invocation")
        )
    if binding is not None:
        out.append(
            MemoryWorkspaceInput("binding", workspace_base_id(node_id, "binding", estimate), binding, 16, "invocation")
        )
    if persistent is not None:
        out.append(
            MemoryWorkspaceInput(
                "persistent",
                workspace_base_id(node_id, "persistent", estimate),
                {"fixed": {"bytes": persistent}},
                16,
                persistent_scope,
            )
        )
    return tuple(out)


def plan_input(
    nodes: Sequence[MemoryNodeInput],
    *,
    capacity: int = 4096,
    reserve: int = 128,
    mas: int = 3,
    mst: int = 4096,
    device: int = MIB,
    profile: DynamicStorageProfile = LINEAR,
    profiles: dict[ResourceId, DynamicStorageProfile] | None = None,
    reusable: ReusableExecutionPolicy | None = None,
    retained: frozenset[ResourceId] = frozenset(),
    checkpoint: CheckpointCapacityPolicy | None = None,
    checkpoint_resources: tuple[ResourceId, ...] | None = None,
) -> MemoryPlanInput:
    """Select ``profile`` for every resource (weights are static and ignore it)."""
    selected = {r: profile for node in nodes for r in node.resources}
    selected.update(profiles or {})
    return MemoryPlanInput(
        device,
        capacity,
        reserve,
        mas,
        mst,
        tuple(nodes),
        selected,
        reusable,
        retained,
        checkpoint,
        checkpoint_resources,
    )


def plan_fixture_nodes(
    variant: int = 0,
    *,
    scratch: int | dict[str, object] | None = 64,
    persistent: int | None = 32,
    state: StateSpec | None = None,
    alignment: int = 16,
) -> tuple[MemoryNodeInput, ...]:
    """``plan_fixture(v)``: one node ``node.main`` with input, weight, state and output bindings."""
    v = variant
    values = (
        value("value.input", IN, 0, f"resource.input.{v}", program_input=True),
        value("value.weight", IN, 1, f"resource.weight.{v}", usage=BufferUsage.WEIGHTS, weight=True),
        value(
            "value.state",
            IN,
            2,
            f"resource.state.{v}",
            4,
            element=ElementType.U8,
            usage=BufferUsage.STATE,
            state=state or state_spec(),
        ),
        value("value.output", OUT, 0, f"resource.output.{v}", program_output=True),
    )
    return (MemoryNodeInput(NodeId("node.main"), alignment, values, workspaces("node.main", scratch, persistent)),)


def plan_fixture_input(variant: int = 0, **kwargs: object) -> MemoryPlanInput:
    """``plan_fixture(v)`` under ``policy(4096)`` (capacity 4096, reserve 128, mas 3, mst 4096)."""
    node_kwargs = {k: kwargs.pop(k) for k in ("scratch", "persistent", "state", "alignment") if k in kwargs}
    return plan_input(plan_fixture_nodes(variant, **node_kwargs), **kwargs)  # type: ignore[arg-type]


def sequential_scratch_nodes(*, second_depends: bool = True) -> tuple[MemoryNodeInput, ...]:
    """``SequentialScratchFamily``: node.first (scratch 64) then node.second (scratch 96)."""
    shared = (
        value("value.weight", IN, 1, "resource.weight", usage=BufferUsage.WEIGHTS, weight=True),
        value(
            "value.state",
            IN,
            2,
            "resource.state",
            4,
            element=ElementType.U8,
            usage=BufferUsage.STATE,
            state=state_spec(),
        ),
    )
    first = MemoryNodeInput(
        NodeId("node.first"),
        16,
        (
            value("value.input", IN, 0, "resource.input", program_input=True),
            *shared,
            value("value.intermediate", OUT, 0, "resource.intermediate"),
        ),
        workspaces("node.first", 64, 32),
    )
    second = MemoryNodeInput(
        NodeId("node.second"),
        16,
        (
            value("value.intermediate", IN, 0, "resource.intermediate"),
            *shared,
            value("value.output", OUT, 0, "resource.output", program_output=True),
        ),
        workspaces("node.second", 96, 32),
        (NodeId("node.first"),) if second_depends else (),
    )
    return first, second


def graph_alias_nodes() -> tuple[MemoryNodeInput, ...]:
    """GraphFamily ``alias`` with MustAlias onto ``resource.graph.input.0`` (exact target)."""
    values = (
        value("value.input.0", IN, 0, "resource.graph.input.0", program_input=True),
        value("value.input.1", IN, 1, "resource.graph.input.1", program_input=True),
        value("value.weight", IN, 2, "resource.graph.weight", usage=BufferUsage.WEIGHTS, weight=True),
        value("value.alias", OUT, 0, "resource.graph.input.0", program_output=True),
    )
    return (MemoryNodeInput(NodeId("node.alias"), 16, values, workspaces("node.alias")),)


def graph_state_nodes(chain: bool) -> tuple[MemoryNodeInput, ...]:
    """GraphFamily ``state_chain`` (read, rw, rw, read; RAW/WAR/WAW chain) or ``state_read_only`` (two reads)."""
    graph_state = state_spec(element=ElementType.F32)
    names = (
        ["node.state-read.0", "node.state-rw.0", "node.state-rw.1", "node.state-read.1"]
        if chain
        else ["node.state-read.0", "node.state-read.1"]
    )
    nodes = []
    for index, name in enumerate(names):
        out_value = "value." + name.removeprefix("node.")
        values = (
            value("value.state", IN, 0, "resource.graph.state", usage=BufferUsage.STATE, state=graph_state),
            value("value.input.0", IN, 1, "resource.graph.input.0", program_input=True),
            value("value.input.1", IN, 2, "resource.graph.input.1", program_input=True),
            value("value.weight", IN, 3, "resource.graph.weight", usage=BufferUsage.WEIGHTS, weight=True),
            value(out_value, OUT, 0, f"resource.graph.{out_value}", program_output=index == len(names) - 1),
        )
        deps = (NodeId(names[index - 1]),) if chain and index > 0 else ()
        nodes.append(MemoryNodeInput(NodeId(name), 16, values, workspaces(name), deps))
    return tuple(nodes)
