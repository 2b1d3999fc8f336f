"""Properties of the memory planner over generated programs (spec 05 §7.15, §13)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from hypothesis import assume, given
from hypothesis import strategies as st

from reference.catalog.storage import DynamicStorageProfile
from reference.errors import InvalidExecutionPlan
from reference.ids import NodeId
from reference.model.element import ElementType
from reference.plan.memory import (
    BufferUsage,
    InvocationLivenessMode,
    MemoryNodeInput,
    MemoryPlan,
    MemoryPlanInput,
    build_memory_plan,
)
from reference.plan.memory.invariants import INVARIANTS, check_budget_invariants
from tests.plan_memory.fixtures import IN, OUT, plan_input, state_spec, value, workspaces

U64 = 2**64 - 1


@dataclass(frozen=True)
class Program:
    nodes: tuple[MemoryNodeInput, ...]
    chained: bool
    scratch: tuple[int, ...]


@st.composite
def programs(draw: st.DrawFn) -> Program:
    count = draw(st.integers(1, 4))
    chained = draw(st.booleans())
    alignment = draw(st.sampled_from([16, 32, 64]))
    scratch = tuple(draw(st.integers(1, 300)) for _ in range(count))
    with_state = draw(st.booleans())
    token_formula = draw(st.booleans())
    nodes = []
    for i in range(count):
        name = f"node.{i}"
        last = i == count - 1
        source = "value.input" if i == 0 or not chained else f"value.mid.{i - 1}"
        source_resource = "resource.input" if i == 0 or not chained else f"resource.mid.{i - 1}"
        out_value = f"value.mid.{i}" if chained and not last else f"value.out.{i}"
        out_resource = f"resource.mid.{i}" if chained and not last else f"resource.out.{i}"
        length = draw(st.sampled_from([16, 32, 48]))
        values = [
            value(source, IN, 0, source_resource, 16, program_input=source == "value.input"),
            value("value.weight", IN, 1, "resource.weight", 16, usage=BufferUsage.WEIGHTS, weight=True),
        ]
        if with_state:
            values.append(
                value(
                    "value.state",
                    IN,
                    2,
                    "resource.state",
                    4,
                    element=ElementType.U8,
                    usage=BufferUsage.STATE,
                    state=state_spec(),
                )
            )
        values.append(value(out_value, OUT, 0, out_resource, length, program_output=out_value.startswith("value.out")))
        formula: dict[str, object] | int = {"tokens": {"bytes_per_token": scratch[i]}} if token_formula else scratch[i]
        persistent = draw(st.one_of(st.none(), st.integers(1, 128)))
        deps = (NodeId(f"node.{i - 1}"),) if chained and i > 0 else ()
        nodes.append(
            MemoryNodeInput(NodeId(name), alignment, tuple(values), workspaces(name, formula, persistent), deps)
        )
    return Program(tuple(nodes), chained, scratch)


def _try(inp: MemoryPlanInput) -> MemoryPlan | None:
    try:
        return build_memory_plan(inp)
    except InvalidExecutionPlan:
        return None


sequences = st.integers(1, 64)
tokens = st.integers(1, 4096)
profiles = st.sampled_from([DynamicStorageProfile.linear_contiguous(), DynamicStorageProfile.paged(256)])


@given(programs(), st.integers(1, 1 << 16), st.integers(0, 4096), sequences, tokens, profiles)
def test_accepted_plans_satisfy_every_invariant(
    program: Program, capacity: int, reserve: int, mas: int, mst: int, profile: DynamicStorageProfile
) -> None:
    plan = _try(plan_input(program.nodes, capacity=capacity, reserve=reserve, mas=mas, mst=mst, profile=profile))
    assume(plan is not None)
    assert plan is not None
    check_budget_invariants(plan, mst)
    assert MemoryPlan.from_wire_canonical(plan.to_wire()) == plan
    members = sorted(r for pool in plan.dynamic_pools for r in pool.resource_ids)
    assert members == [d.base_resource_id for d in plan.dynamic_descriptors]
    for descriptor in plan.dynamic_descriptors:
        assert descriptor.pool_id == descriptor.compatibility.pool_id()
    for pool in plan.dynamic_pools:
        if any(d.kind.tag == "binding" for d in plan.dynamic_descriptors if d.base_resource_id in pool.resource_ids):
            assert pool.invocation_liveness_mode is InvocationLivenessMode.CONSERVATIVE_CONCURRENT


@given(programs(), st.integers(1, 8192), st.integers(0, 512), st.integers(1, 4096), sequences)
def test_acceptance_is_monotone_in_capacity_and_reserve(
    program: Program, capacity: int, reserve: int, extra: int, mas: int
) -> None:
    assume(reserve < capacity)
    base = plan_input(program.nodes, capacity=capacity, reserve=reserve, mas=mas)
    if _try(base) is None:
        return
    assert _try(dataclasses.replace(base, policy_capacity_bytes=capacity + extra)) is not None
    assert _try(dataclasses.replace(base, reserve_bytes=max(0, reserve - extra))) is not None


@given(programs(), st.integers(0, 512), sequences)
def test_smallest_capacity_is_exact(program: Program, reserve: int, mas: int) -> None:
    roomy = build_memory_plan(plan_input(program.nodes, capacity=1 << 30, reserve=reserve, mas=mas, device=1 << 30))
    smallest = reserve + roomy.static_bytes + roomy.minimum_runnable_request_bytes
    tight = build_memory_plan(plan_input(program.nodes, capacity=smallest, reserve=reserve, mas=mas, device=1 << 30))
    assert tight.usable_capacity_bytes == tight.static_bytes + tight.minimum_runnable_request_bytes
    try:
        build_memory_plan(plan_input(program.nodes, capacity=smallest - 1, reserve=reserve, mas=mas, device=1 << 30))
    except InvalidExecutionPlan:
        pass
    else:
        raise AssertionError("one byte less than static + minimum runnable must be rejected")


@given(programs(), st.integers(2, 2**32 - 1), tokens)
def test_minima_and_rows_independent_of_sequences_ceiling_linear(program: Program, mas: int, mst: int) -> None:
    one = build_memory_plan(plan_input(program.nodes, capacity=U64, device=U64, mas=1, mst=mst))
    many = build_memory_plan(plan_input(program.nodes, capacity=U64, device=U64, mas=mas, mst=mst))
    minima = lambda p: (  # noqa: E731
        p.static_bytes,
        p.minimum_request_bytes,
        p.minimum_sequence_bytes,
        p.minimum_step_bytes,
        p.minimum_invocation_peak_bytes,
        p.minimum_runnable_request_bytes,
    )
    assert minima(one) == minima(many)
    assert (len(one.static_allocations), len(one.dynamic_descriptors)) == (
        len(many.static_allocations),
        len(many.dynamic_descriptors),
    )
    assert many.theoretical_ceiling_bytes - many.static_bytes == mas * (
        one.theoretical_ceiling_bytes - one.static_bytes
    )


@given(programs())
def test_scratch_reuse_takes_peak_under_total_order_and_sum_otherwise(program: Program) -> None:
    plan = build_memory_plan(plan_input(program.nodes, capacity=1 << 30, device=1 << 30, mst=1))
    pool = next(p for p in plan.dynamic_pools if p.compatibility.usage is BufferUsage.SCRATCH)
    sizes = [-(-s // 16) * 16 for s in program.scratch]
    if program.chained or len(sizes) == 1:
        assert pool.invocation_liveness_mode is InvocationLivenessMode.TOTAL_ORDER_REUSE
        assert pool.minimum_invocation_peak_bytes == max(sizes)
    else:
        assert pool.invocation_liveness_mode is InvocationLivenessMode.CONSERVATIVE_CONCURRENT
        assert pool.minimum_invocation_peak_bytes == sum(sizes)


@given(programs(), st.integers(0, U64), st.integers(0, U64), st.integers(0, 2**32 - 1), st.integers(0, U64))
def test_u64_edges_never_crash(program: Program, capacity: int, reserve: int, mas: int, mst: int) -> None:
    try:
        plan = build_memory_plan(
            plan_input(program.nodes, capacity=capacity, reserve=reserve, mas=mas, mst=mst, device=U64)
        )
    except InvalidExecutionPlan:
        return
    check_budget_invariants(plan, mst)


def test_invariant_checks_detect_violations() -> None:
    from tests.plan_memory.fixtures import plan_fixture_input

    plan = build_memory_plan(plan_fixture_input(0))
    broken = [
        dataclasses.replace(plan, policy_capacity_bytes=plan.device_capacity_bytes + 1),
        dataclasses.replace(plan, reserve_bytes=plan.policy_capacity_bytes),
        dataclasses.replace(plan, usable_capacity_bytes=1),
        dataclasses.replace(plan, static_bytes=plan.static_bytes + 1),
        dataclasses.replace(plan, usable_capacity_bytes=100, reserve_bytes=3996),
        dataclasses.replace(plan, minimum_runnable_request_bytes=1),
        dataclasses.replace(
            plan,
            dynamic_pools=(
                dataclasses.replace(
                    plan.dynamic_pools[0],
                    provisioning=dataclasses.replace(plan.dynamic_pools[0].provisioning, minimum_resident_bytes=1),
                ),
                *plan.dynamic_pools[1:],
            ),
        ),
        dataclasses.replace(plan, theoretical_ceiling_bytes=1),
        dataclasses.replace(plan, maximum_active_sequences=0),
        dataclasses.replace(plan, static_allocations=plan.static_allocations * 40_000),
        dataclasses.replace(plan, maximum_active_sequences=4),
    ]
    for check, bad in zip(INVARIANTS, broken, strict=True):
        check(plan)
        try:
            check(bad)
        except InvalidExecutionPlan:
            continue
        raise AssertionError(f"{check.__name__} did not detect its violation")
