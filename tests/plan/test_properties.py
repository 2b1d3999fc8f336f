"""Property tests of the build (spec 05 §13): budgets, determinism, scaling with sequences, order."""

from __future__ import annotations

import functools

from hypothesis import given
from hypothesis import strategies as st

from reference.plan import ExecutionPlan, build_execution_plan
from reference.plan.memory.invariants import check_budget_invariants
from reference.policy.runtime_policy import RuntimePolicy
from seeds.catalogs import catalog
from seeds.chain import chain_case
from seeds.policies import policy_with, policy_with_tokens
from seeds.resolution import TestPlanningRegistry, planning_registry, resolved_values
from tests.plan.helpers import family, raises_kind, resolve

MIB = 1 << 20


@functools.cache
def _registry(scratch: int, persistent: int) -> TestPlanningRegistry:
    return planning_registry(catalog(), scratch, persistent)


CATALOG = catalog()


def _build(scratch: int, persistent: int, pol: RuntimePolicy) -> ExecutionPlan:
    registry = _registry(scratch, persistent)
    resolution = resolve(family(), CATALOG, pol, registry, "node.main", resolved_values(0))
    return build_execution_plan(family(), CATALOG, pol, [resolution])


def _needed(scratch: int, persistent: int, mas: int) -> int:
    memory = _build(scratch, persistent, policy_with(MIB, 0, mas)).memory
    return memory.static_bytes + memory.minimum_runnable_request_bytes


def _builds(scratch: int, persistent: int, capacity: int, reserve: int, mas: int) -> bool:
    try:
        _build(scratch, persistent, policy_with(capacity, reserve, mas))
    except Exception as exc:
        assert getattr(exc, "kind", None) == "invalid_execution_plan", exc
        return False
    return True


def test_bisection_finds_the_minimal_capacity() -> None:
    low, high = 129, MIB  # low fails (usable 1), high builds
    assert not _builds(64, 32, low, 128, 3) and _builds(64, 32, high, 128, 3)
    while high - low > 1:
        middle = (low + high) // 2
        if _builds(64, 32, middle, 128, 3):
            high = middle
        else:
            low = middle
    assert high == 128 + 48 + 112
    raises_kind("invalid_execution_plan", lambda: _build(64, 32, policy_with(high - 1, 128, 3)))


@given(
    scratch=st.integers(1, 4096),
    persistent=st.integers(1, 4096),
    mas=st.integers(1, 64),
    reserve=st.integers(0, 4096),
    extra=st.integers(0, 1 << 16),
)
def test_budget_boundary_and_monotonicity(scratch: int, persistent: int, mas: int, reserve: int, extra: int) -> None:
    needed = _needed(scratch, persistent, mas)
    minimal = reserve + needed
    assert _builds(scratch, persistent, minimal, reserve, mas)
    assert not _builds(scratch, persistent, minimal - 1, reserve, mas)
    bigger = min(minimal + extra, MIB)
    assert _builds(scratch, persistent, bigger, reserve, mas)
    assert _builds(scratch, persistent, bigger, max(0, reserve - extra), mas)
    if reserve + extra < bigger:
        assert _builds(scratch, persistent, bigger, reserve + extra, mas) == (reserve + extra + needed <= bigger)


@given(
    scratch=st.integers(1, 1 << 12),
    persistent=st.integers(1, 1 << 12),
    mas=st.integers(1, 1 << 10),
    tokens=st.integers(1, 1 << 20),
    capacity=st.integers(1 << 14, MIB),
    reserve=st.integers(0, 1 << 13),
)
def test_every_built_plan_satisfies_i1_to_i11(
    scratch: int, persistent: int, mas: int, tokens: int, capacity: int, reserve: int
) -> None:
    plan = _build(scratch, persistent, policy_with_tokens(capacity, reserve, mas, tokens))
    memory = plan.memory
    check_budget_invariants(memory, plan.payload.maximum_scheduled_tokens)
    assert memory.static_bytes + memory.minimum_runnable_request_bytes <= memory.usable_capacity_bytes
    assert all(d.theoretical_maximum_instances == mas for d in memory.dynamic_descriptors)
    assert plan.plan_id.value == "plan/sha256/" + plan.plan_hash.value


@given(mas=st.sampled_from([1, 2, 32, 1000, 0xFFFFFFFF]))
def test_rows_and_minima_are_independent_of_sequences_and_ceiling_is_linear(mas: int) -> None:
    base = _build(64, 32, policy_with(4096, 128, 1)).memory
    memory = _build(64, 32, policy_with(4096, 128, mas)).memory
    assert memory.resource_row_count == base.resource_row_count == 6
    assert memory.minimum_runnable_request_bytes == base.minimum_runnable_request_bytes
    dynamic = base.theoretical_ceiling_bytes - base.static_bytes
    assert memory.theoretical_ceiling_bytes == memory.static_bytes + mas * dynamic


@given(st.integers(1, 12))
def test_chain_plans_are_topological_and_deterministic(length: int) -> None:
    case = chain_case(length)
    plan = build_execution_plan(case.family, case.catalog, case.policy, case.resolutions)
    again = build_execution_plan(case.family, case.catalog, case.policy, case.resolutions)
    assert plan.to_json() == again.to_json()
    seen: set[str] = set()
    for node in plan.nodes:
        assert node.id.value not in {d.value for d in node.dependencies}
        assert all(d.value in seen for d in node.dependencies)
        seen.add(node.id.value)
    assert plan.memory.invocation_liveness_mode.value == "total_order_reuse"
    assert plan.memory.minimum_invocation_peak_bytes == 64
