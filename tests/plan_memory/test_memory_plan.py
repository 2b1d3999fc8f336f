"""``MemoryPlan`` derivation, ``validate`` and wire (spec 05 §7.10-§7.14, §9.1, §9.5 memory rows)."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from reference.canonical import loads_strict
from reference.catalog.storage import DynamicStorageProfile
from reference.errors import InvalidExecutionPlan, Serialization
from reference.ids import NodeId, ResourceId
from reference.model.element import ElementType
from reference.model.state import StateCapacityDemand
from reference.plan.memory import (
    MAX_EXECUTION_PLAN_RESOURCE_ROWS,
    AllocationKind,
    BufferUsage,
    InvocationLivenessMode,
    MemoryNodeInput,
    MemoryPlan,
    MemoryWorkspaceInput,
    ResourceAllocation,
    StepResourceSlotKind,
    build_memory_plan,
)
from reference.plan.memory.liveness import NodeGraph
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.reusable import (
    ReusableExecutionBucketSpec,
    ReusableExecutionCapacity,
    ReusableExecutionClassId,
    ReusableExecutionPolicy,
)
from tests.plan_memory.fixtures import (
    IN,
    OUT,
    plan_fixture_input,
    plan_fixture_nodes,
    plan_input,
    sequential_scratch_nodes,
    state_spec,
    value,
    workspaces,
)

U64 = 2**64 - 1


def seed_plan(**kwargs: Any) -> MemoryPlan:
    return build_memory_plan(plan_fixture_input(0, **kwargs))


def test_round_trip_and_canonical_decode() -> None:
    plan = seed_plan()
    wire = plan.to_wire()
    assert list(wire)[:4] == [
        "device_capacity_bytes",
        "policy_capacity_bytes",
        "reserve_bytes",
        "usable_capacity_bytes",
    ]
    assert wire["reusable_execution"] is None and "checkpoint_capacity" not in wire
    assert wire["theoretical_ceiling_bytes"] == "384"
    assert MemoryPlan.from_wire(wire) == plan
    assert MemoryPlan.from_wire_canonical(wire) == plan


def _mutated(path: list[Any], new: Any = None, *, delete: bool = False) -> dict[str, Any]:
    wire = copy.deepcopy(seed_plan().to_wire())
    target = wire
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = new
    return wire


@pytest.mark.parametrize(
    ("path", "new"),
    [
        (["unknown"], 1),
        (["minimum_invocation_peak_bytes"], U64),
        (["static_bytes"], 1024),
        (["theoretical_ceiling_bytes"], 384),
        (["theoretical_ceiling_bytes"], "0384"),
        (["theoretical_ceiling_bytes"], "385"),
        (["usable_capacity_bytes"], 3967),
        (["maximum_active_sequences"], 0),
        (["policy_capacity_bytes"], 2**21),
        (["reserve_bytes"], 4096),
        (["dynamic_descriptors", 0, "alignment_bytes"], 3),
        (["dynamic_descriptors", 0, "usage"], "weights"),
        (["dynamic_descriptors", 0, "pool_id"], "dynamic-pool/sha256/" + "0" * 64),
        (["dynamic_descriptors", 0, "theoretical_maximum_instances"], 4),
        (["dynamic_pools", 0, "unknown"], 1),
        (["dynamic_pools", 0, "checkpoint_growth_ceiling_bytes"], 16),
        (["dynamic_pools", 0, "minimum_request_bytes"], 0),
        (["static_allocations", 0, "size_bytes"], 1024),
        (["static_allocations", 0, "lifetime"], "request"),
        (
            ["static_allocations", 1, "storage", "profile"],
            {
                "allocator": {"fixed_block_arena": {"block_bytes": 4096}},
                "view": {"paged_regions": {"block_bytes": 4096}},
            },
        ),
        (["invocation_liveness_mode"], "conservative_concurrent"),
        (["invocation_liveness"], []),
        (["checkpoint_capacity"], {"maximum_retained_bytes": 0}),
        (["checkpoint_capacity"], {"maximum_retained_bytes": 16, "x": 1}),
        (["reusable_execution"], {"maximum_reusable_lanes": 1}),
    ],
)
def test_wire_tamper_rejected(path: list[Any], new: Any) -> None:
    with pytest.raises(Serialization):
        MemoryPlan.from_wire(_mutated(path, new))


@pytest.mark.parametrize("field", ["static_allocations", "dynamic_descriptors", "dynamic_pools"])
def test_reversed_rows_rejected(field: str) -> None:
    wire = seed_plan().to_wire()
    wire[field] = list(reversed(wire[field]))
    with pytest.raises(Serialization):
        MemoryPlan.from_wire(wire)


def test_canonical_round_trip_rejections() -> None:
    wire = seed_plan().to_wire()
    missing_null = {k: v for k, v in wire.items() if k != "reusable_execution"}
    assert MemoryPlan.from_wire(missing_null) == seed_plan()  # standalone serde: missing Option is None
    with pytest.raises(Serialization):
        MemoryPlan.from_wire_canonical(missing_null)
    explicit_growth = copy.deepcopy(wire)
    explicit_growth["dynamic_pools"][0]["checkpoint_growth_ceiling_bytes"] = 0
    with pytest.raises(Serialization):
        MemoryPlan.from_wire_canonical(explicit_growth)
    lenient_row = copy.deepcopy(wire)
    lenient_row["static_allocations"][0]["note"] = "x"
    MemoryPlan.from_wire(lenient_row)
    with pytest.raises(Serialization):
        MemoryPlan.from_wire_canonical(lenient_row)
    floats = loads_strict(
        b'{"a": 16.0}', context="t"
    )  # a float where an integer is expected is refused by the typed decoder
    assert floats == {"a": 16.0}
    wire_float = {**wire, "static_bytes": 48.0}
    with pytest.raises(Serialization):
        MemoryPlan.from_wire(wire_float)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda p: dataclasses.replace(p, maximum_active_sequences=0),
        lambda p: dataclasses.replace(p, device_capacity_bytes=0),
        lambda p: dataclasses.replace(p, policy_capacity_bytes=0),
        lambda p: dataclasses.replace(p, reserve_bytes=p.policy_capacity_bytes),
        lambda p: dataclasses.replace(p, usable_capacity_bytes=p.usable_capacity_bytes - 1),
        lambda p: dataclasses.replace(p, static_allocations=p.static_allocations[::-1]),
        lambda p: dataclasses.replace(p, dynamic_descriptors=p.dynamic_descriptors[::-1]),
        lambda p: dataclasses.replace(p, dynamic_pools=p.dynamic_pools[::-1]),
        lambda p: dataclasses.replace(p, dynamic_pools=p.dynamic_pools[:-1]),
        lambda p: dataclasses.replace(p, static_bytes=p.static_bytes + 16),
        lambda p: dataclasses.replace(p, minimum_request_bytes=p.minimum_request_bytes + 1),
        lambda p: dataclasses.replace(p, minimum_runnable_request_bytes=p.minimum_runnable_request_bytes + 1),
        lambda p: dataclasses.replace(p, theoretical_ceiling_bytes=p.theoretical_ceiling_bytes + 1),
        lambda p: dataclasses.replace(p, invocation_liveness=()),
        lambda p: dataclasses.replace(p, invocation_liveness_mode=InvocationLivenessMode.CONSERVATIVE_CONCURRENT),
        lambda p: dataclasses.replace(p, policy_capacity_bytes=300, usable_capacity_bytes=172),
        lambda p: dataclasses.replace(
            p,
            static_allocations=(
                dataclasses.replace(p.static_allocations[0], instance_count=2),
                *p.static_allocations[1:],
            ),
        ),
        lambda p: dataclasses.replace(
            p,
            static_allocations=(
                dataclasses.replace(p.static_allocations[0], kind=AllocationKind.scratch(NodeId("node.main"))),
                *p.static_allocations[1:],
            ),
        ),
        lambda p: dataclasses.replace(
            p,
            static_allocations=(
                *p.static_allocations[:1],
                dataclasses.replace(p.static_allocations[1], usage=BufferUsage.SCRATCH),
            ),
        ),
        lambda p: dataclasses.replace(
            p,
            checkpoint_capacity=None,
            dynamic_pools=tuple(
                dataclasses.replace(pool, checkpoint_growth_ceiling_bytes=16)
                if pool.compatibility.usage is BufferUsage.STATE
                else pool
                for pool in p.dynamic_pools
            ),
        ),
    ],
)
def test_validate_rules(mutate: Any) -> None:
    plan = seed_plan()
    plan.validate()
    with pytest.raises(InvalidExecutionPlan):
        mutate(plan).validate()


def test_row_limit() -> None:
    plan = seed_plan()
    fp = plan.static_allocations[0].storage
    rows = tuple(
        ResourceAllocation.new(
            ResourceId(f"r.{i:06d}"), 1, 1, BufferUsage.WEIGHTS, ElementType.U8, AllocationKind.value(), fp
        )
        for i in range(MAX_EXECUTION_PLAN_RESOURCE_ROWS + 1)
    )
    with pytest.raises(InvalidExecutionPlan):
        dataclasses.replace(plan, static_allocations=rows).validate()
    with pytest.raises(InvalidExecutionPlan):
        MemoryPlan.from_core(
            device_capacity_bytes=2**40,
            policy_capacity_bytes=2**40,
            reserve_bytes=0,
            maximum_active_sequences=1,
            static_allocations=rows,
            dynamic_descriptors=(),
            graph=NodeGraph.of(()),
        )


def _bad_input(**node_changes: Any) -> Any:
    node = plan_fixture_nodes(0)[0]
    return plan_input((dataclasses.replace(node, **node_changes),))


def _misaligned() -> Any:
    return _bad_input(values=(value("value.input", IN, 0, "resource.input.0", program_input=True, offset=8),))


def _missing_profile() -> Any:
    inp = plan_fixture_input(0)
    profiles = dict(inp.selected_profiles)
    del profiles[ResourceId("resource.input.0")]
    return dataclasses.replace(inp, selected_profiles=profiles)


@pytest.mark.parametrize(
    "build",
    [
        lambda: plan_fixture_input(0, mas=0),
        lambda: plan_fixture_input(0, mst=0),
        lambda: plan_fixture_input(0, capacity=0),
        lambda: plan_fixture_input(0, reserve=4096),
        lambda: plan_fixture_input(0, capacity=287),
        lambda: plan_fixture_input(0, alignment=0),
        lambda: plan_fixture_input(0, alignment=3),
        _misaligned,
        lambda: _bad_input(values=(value("value.input", IN, 0, "resource.input.0", usage=BufferUsage.STATE),)),
        lambda: _bad_input(
            values=(
                value("value.a", IN, 0, "resource.shared", program_input=True),
                value("value.b", OUT, 0, "resource.shared"),
            )
        ),
        lambda: _bad_input(
            values=(
                value("value.a", IN, 0, "resource.shared", program_input=True),
                value("value.b", OUT, 0, "resource.shared", program_output=True, element=ElementType.I32),
            )
        ),
        lambda: _bad_input(values=(value("value.a", IN, 0, "resource.a", program_input=True, token_extent=3),)),
        lambda: _bad_input(values=(value("value.a", IN, 0, "resource.a", offset=16, token_extent=4),)),
        lambda: _bad_input(values=(value("value.a", IN, 0, "resource.a", token_extent=0),)),
        lambda: _bad_input(values=(value("value.a", IN, 0, "resource.a", 2**64 - 16, offset=16),)),
        lambda: _bad_input(
            values=(
                value(
                    "value.state",
                    IN,
                    0,
                    "resource.s",
                    16,
                    usage=BufferUsage.STATE,
                    state=state_spec(capacity=StateCapacityDemand.token_scaled(8, 4)),
                ),
            )
        ),
        lambda: _bad_input(
            workspaces=(
                MemoryWorkspaceInput("scratch", ResourceId("resource.ws"), {"fixed": {"bytes": 64}}, 16, "step"),
            )
        ),
        lambda: _bad_input(workspaces=workspaces("node.main", None, 32, persistent_scope="invocation")),
        lambda: _bad_input(
            workspaces=(
                MemoryWorkspaceInput(
                    "persistent", ResourceId("resource.p"), {"tokens": {"bytes_per_token": 4}}, 16, "plan"
                ),
            )
        ),
        lambda: _bad_input(dependencies=(NodeId("node.later"),)),
        lambda: _bad_input(dependencies=(NodeId("node.main"),)),
        _missing_profile,
    ],
)
def test_build_rejections(build: Any) -> None:
    with pytest.raises(InvalidExecutionPlan):
        build_memory_plan(build())


def test_token_projection_and_step_slot_sharing() -> None:
    """Token-scaled step activations with proven order share one slot; the peak is the larger member."""
    first = MemoryNodeInput(
        NodeId("node.a"),
        16,
        (
            value("value.in", IN, 0, "resource.in", program_input=True),
            value("value.mid.0", OUT, 0, "resource.mid.0", 32, token_extent=4),
        ),
    )
    second = MemoryNodeInput(
        NodeId("node.b"),
        16,
        (
            value("value.mid.0", IN, 0, "resource.mid.0", 32, token_extent=4),
            value("value.mid.1", OUT, 0, "resource.mid.1", 64, token_extent=4),
        ),
        dependencies=(NodeId("node.a"),),
    )
    third = MemoryNodeInput(
        NodeId("node.c"),
        16,
        (
            value("value.mid.1", IN, 0, "resource.mid.1", 64, token_extent=4),
            value("value.mid.2", OUT, 0, "resource.mid.2", 16, token_extent=4),
        ),
        dependencies=(NodeId("node.b"),),
    )
    fourth = MemoryNodeInput(
        NodeId("node.d"),
        16,
        (
            value("value.mid.2", IN, 0, "resource.mid.2", 16, token_extent=4),
            value("value.out", OUT, 0, "resource.out", program_output=True),
        ),
        dependencies=(NodeId("node.c"),),
    )
    plan = build_memory_plan(plan_input((first, second, third, fourth), capacity=2**20, mst=8))
    pool = next(p for p in plan.dynamic_pools if p.step_resource_slots)
    kinds = sorted((s.kind.value, [r.value for r in s.resource_ids]) for s in pool.step_resource_slots)
    # mid.0 [0,1] and mid.2 [2,3] are ordered without overlap; mid.1 [1,2] overlaps both.
    assert kinds == [
        ("dedicated", ["resource.mid.1"]),
        ("ordered_single_fence_step_wave", ["resource.mid.0", "resource.mid.2"]),
    ]
    by_id = {d.base_resource_id.value: d for d in plan.dynamic_descriptors}
    assert by_id["resource.mid.0"].to_wire()["demand"] == {"tokens": {"bytes_per_token": 8, "maximum_tokens": 8}}
    assert pool.minimum_step_bytes == 16 + 16  # each token-scaled minimum is one token, aligned to 16
    retained = build_memory_plan(
        plan_input(
            (first, second, third, fourth), capacity=2**20, mst=8, retained=frozenset({ResourceId("resource.mid.0")})
        )
    )
    slots = next(p for p in retained.dynamic_pools if p.step_resource_slots).step_resource_slots
    assert all(s.kind is StepResourceSlotKind.DEDICATED for s in slots)
    with pytest.raises(InvalidExecutionPlan):
        build_memory_plan(
            plan_input(
                (first, second, third, fourth), capacity=2**20, retained=frozenset({ResourceId("resource.nope")})
            )
        )


def test_paged_storage_quantizes_dynamic_rows() -> None:
    plan = build_memory_plan(plan_fixture_input(0, profile=DynamicStorageProfile.paged(4096), capacity=2**20))
    assert {d.minimum_request_bytes for d in plan.dynamic_descriptors} == {4096}
    persistent = next(a for a in plan.static_allocations if a.kind.tag == "persistent")
    assert persistent.size_bytes == 4096  # plan-scope persistent takes its selected (paged) profile
    weight = next(a for a in plan.static_allocations if a.kind.tag == "value")
    assert weight.size_bytes == 16 and weight.storage.profile == DynamicStorageProfile.linear_contiguous()
    with pytest.raises(InvalidExecutionPlan):
        build_memory_plan(plan_fixture_input(0, profile=DynamicStorageProfile.paged(4096)))  # 4096 policy is too small


def test_checkpoint_capacity_growth() -> None:
    state_id = ResourceId("resource.state.0")
    plan = seed_plan(checkpoint=CheckpointCapacityPolicy(100), checkpoint_resources=(state_id,))
    pool = next(p for p in plan.dynamic_pools if p.compatibility.usage is BufferUsage.STATE)
    assert pool.checkpoint_growth_ceiling_bytes == 96
    assert pool.provisioning.maximum_resident_bytes == 48 + 96
    assert plan.theoretical_ceiling_bytes == 384
    wire = plan.to_wire()
    assert wire["checkpoint_capacity"] == {"maximum_retained_bytes": 100}
    assert MemoryPlan.from_wire_canonical(wire) == plan
    recorded_only = seed_plan(checkpoint=CheckpointCapacityPolicy(100))
    assert recorded_only.checkpoint_capacity is not None
    assert all(p.checkpoint_growth_ceiling_bytes == 0 for p in recorded_only.dynamic_pools)
    assert (
        seed_plan(checkpoint=CheckpointCapacityPolicy(8), checkpoint_resources=(state_id,)).dynamic_pools
        == seed_plan().dynamic_pools
    )
    with pytest.raises(InvalidExecutionPlan):
        seed_plan(checkpoint=CheckpointCapacityPolicy(100), checkpoint_resources=(ResourceId("resource.input.0"),))
    tampered = copy.deepcopy(wire)
    state_pool = next(p for p in tampered["dynamic_pools"] if p["compatibility"]["usage"] == "state")
    state_pool["checkpoint_growth_ceiling_bytes"] = 80
    with pytest.raises(Serialization):
        MemoryPlan.from_wire(tampered)


def _bucket(sequences: int, tokens: int) -> ReusableExecutionBucketSpec:
    return ReusableExecutionBucketSpec.new(
        ReusableExecutionClassId("execution.test-token"), ReusableExecutionCapacity(sequences, tokens, 1)
    )


def test_reusable_execution() -> None:
    policy = ReusableExecutionPolicy.new(2, [_bucket(1, 1), _bucket(2, 4)])
    plan = build_memory_plan(plan_input(sequential_scratch_nodes(), capacity=16384, reusable=policy))
    assert plan.reusable_execution is not None
    assert plan.reusable_execution.maximum_device_executables == 2 * 2 * 2
    ceilings = plan.reusable_execution.pool_workspace_ceilings()
    scratch_pool = next(p for p in plan.dynamic_pools if p.compatibility.usage is BufferUsage.SCRATCH)
    assert ceilings[scratch_pool.pool_id] == (96 + 96) * 2  # max row per bucket x 2 buckets x 2 lanes
    assert scratch_pool.reusable_workspace_ceiling_bytes == 384
    step_pool = next(p for p in plan.dynamic_pools if p.step_resource_slots)
    assert ceilings[step_pool.pool_id] == (16 + 16) * 2
    assert plan.theoretical_ceiling_bytes == 752 + sum(ceilings.values())
    assert MemoryPlan.from_wire_canonical(plan.to_wire()) == plan
    wire = plan.to_wire()
    wire["reusable_execution"]["maximum_device_executables"] += 1
    MemoryPlan.from_wire(wire)  # locally valid; only a semantic rebuild notices the executable count
    wire["reusable_execution"]["buckets"].reverse()
    with pytest.raises(Serialization):
        MemoryPlan.from_wire(wire)


def test_u64_edges_are_typed() -> None:
    huge = 2**63
    with pytest.raises(InvalidExecutionPlan):
        build_memory_plan(plan_fixture_input(0, scratch=U64, capacity=U64, device=U64))
    with pytest.raises(InvalidExecutionPlan):
        build_memory_plan(
            plan_fixture_input(0, scratch={"tokens": {"bytes_per_token": huge}}, capacity=U64, device=U64)
        )
    plan = build_memory_plan(
        plan_fixture_input(
            0, scratch={"tokens": {"bytes_per_token": 2**32}}, mst=2**32 - 1, mas=2**32 - 1, capacity=U64, device=U64
        )
    )
    assert plan.theoretical_ceiling_bytes > U64  # u128 evidence
    assert MemoryPlan.from_wire(plan.to_wire()) == plan
