"""Memory budgets (05 §7.9, §7.11, §7.15, §7.16) on every plan the backend accepts.

The backend's plan wire is decoded with the reference decoder (``decode_untrusted``:
typed parse and the memory plan's own validation), then each budget inequality
I1-I11 is checked on its own (case ids name it), including that the budget echoes
the scenario: device memory, policy capacity, reserve, sequences and tokens.
Metamorphic relations: acceptance is monotone in capacity and reserve; minima and
row counts do not depend on ``maximum_active_sequences`` while the ceiling grows
linearly with it; scratch reuse takes the peak under a total order and the sum for
independent nodes. The minimal capacity found by bisection with the backend equals
the reference's, and one byte less is ``invalid_execution_plan``. u64/u32 edges end
in the reference's typed error (or its plan), never in a crash. A zero-fill blocked
layout is fingerprinted by its class, without its padded dimensions (05 §7.2).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson
import pytest
from hypothesis import given, target
from hypothesis import strategies as st

from harness.bundles import Bundle
from harness.cases import exercise
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.protocol.operations import OPERATIONS
from harness.under_test import BackendUnderTest
from reference.api import (
    InvalidExecutionPlan,
    MemoryPlan,
    VNextError,
    decode_untrusted,
    fingerprint,
    policy_from_document,
)
from reference.api import memory_invariants as inv
from strategies.budget import (
    BASES,
    BLOCKED_INPUT_LAYOUT_CLASS,
    EDGE_KINDS,
    SCRATCH_ORDER,
    BudgetCase,
    align_up,
    base_scenario,
    blocked_input_scenario,
    budget_cases,
    edge_cases,
    scratch_cases,
    sequence_pairs,
    with_device_memory,
    with_estimates,
    with_policy,
)

pytestmark = pytest.mark.requires("build_plan")

SEED_DEVICE: Final = 1 << 20


# --------------------------------------------------------------------------- plumbing


@dataclass(frozen=True, slots=True)
class Built:
    """An accepted plan: its wire, decoded memory plan and scheduled-token ceiling."""

    wire: bytes
    memory: MemoryPlan
    maximum_scheduled_tokens: int


def _decode(wire: bytes) -> Built:
    try:
        plan = decode_untrusted(wire)
    except VNextError as exc:
        pytest.fail(f"the reference decoder rejects the backend's plan wire: {exc}")
    return Built(wire, plan.payload.memory, plan.payload.maximum_scheduled_tokens)


_BUILT: dict[tuple[str, str], Built | VNextError] = {}
_CACHE_LIMIT: Final = 4096


def _build(backend: BackendUnderTest, scenario: Mapping[str, Any]) -> Built | VNextError:
    """The decoded plan, or the backend's typed error (memoized per process: the ``ci`` profile
    draws the same scenarios for every inequality, and a build is deterministic)."""
    key = (backend.role, _scenario_key(scenario))
    if key not in _BUILT:
        try:
            result: Built | VNextError = _decode(backend.build_plan(scenario))
        except VNextError as exc:
            result = exc
        if len(_BUILT) >= _CACHE_LIMIT:
            _BUILT.clear()
        _BUILT[key] = result
    return _BUILT[key]


def _scenario_key(scenario: Mapping[str, Any]) -> str:
    """A digest of the document with sorted keys; never a judgement of it (a number out of every integer
    range, which the fast encoder refuses, is spelt by plain ``json``)."""
    try:
        text = b"orjson:" + orjson.dumps(scenario, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        text = b"json:" + json.dumps(scenario, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()


def _accepted(backend: BackendUnderTest, scenario: Mapping[str, Any]) -> bool:
    """Whether the backend builds the scenario (no decoding: bisection only needs the verdict)."""
    try:
        backend.build_plan(scenario)
    except VNextError:
        return False
    return True


def _need(oracle: BackendUnderTest, scenario: Mapping[str, Any]) -> int:
    """The reference's ``static + minimum_runnable`` for the scenario built with a roomy policy."""
    roomy = with_policy(with_device_memory(scenario, 1 << 40), capacity=1 << 40)
    built = _build(oracle, roomy)
    assert isinstance(built, Built), f"the reference rejects the roomy scenario: {built}"
    return built.memory.static_bytes + built.memory.minimum_runnable_request_bytes


def _bundle(case: str, scenario: Mapping[str, Any], oracle: BackendUnderTest) -> Callable[[], Bundle]:
    def make() -> Bundle:
        expect = oracle.outcome(OPERATIONS["build_plan"], {"scenario": scenario}).to_wire()
        return Bundle("build_plan", {"scenario": dict(scenario)}, expect, case)

    return make


# --------------------------------------------------------------------------- the inequalities


@dataclass(frozen=True, slots=True)
class Inputs:
    """What the scenario says the budget must echo."""

    device: int
    capacity: int
    reserve: int
    sequences: int
    tokens: int

    @classmethod
    def of(cls, scenario: Mapping[str, Any]) -> Inputs:
        policy = policy_from_document(scenario["policy"])
        return cls(
            scenario["catalog"]["device"]["total_memory_bytes"],
            policy.memory_capacity_bytes(),
            policy.memory_reserve_bytes(),
            policy.maximum_active_sequences(),
            policy.maximum_scheduled_tokens(),
        )


def i1(built: Built, inputs: Inputs) -> None:
    """I1 ``0 < policy_capacity <= device_capacity``, both as the scenario states them."""
    inv.check_i1_policy_capacity(built.memory)
    assert built.memory.device_capacity_bytes == inputs.device, "device capacity is not the catalog device's"
    assert built.memory.policy_capacity_bytes == inputs.capacity, "policy capacity is not the policy's"


def i2(built: Built, inputs: Inputs) -> None:
    """I2 ``reserve < policy_capacity``, the reserve being the policy's."""
    inv.check_i2_reserve_below_capacity(built.memory)
    assert built.memory.reserve_bytes == inputs.reserve, "reserve is not the policy's"


def i3(built: Built, inputs: Inputs) -> None:
    """I3 ``usable = policy_capacity - reserve`` (of the policy)."""
    inv.check_i3_usable_capacity(built.memory)
    assert built.memory.usable_capacity_bytes == inputs.capacity - inputs.reserve


def i4(built: Built, inputs: Inputs) -> None:
    """I4 ``static = sum(static rows) <= usable``."""
    inv.check_i4_static_fits(built.memory)


def i5(built: Built, inputs: Inputs) -> None:
    """I5 ``static + minimum_runnable <= usable`` (usable of the policy, not of the wire)."""
    inv.check_i5_minimum_runnable_fits(built.memory)
    memory = built.memory
    assert memory.static_bytes + memory.minimum_runnable_request_bytes <= inputs.capacity - inputs.reserve


def i6(built: Built, inputs: Inputs) -> None:
    """I6 ``minimum_runnable = request + sequence + step + invocation peak``, each summed over pools."""
    inv.check_i6_minimum_runnable_is_sum(built.memory)


def i7(built: Built, inputs: Inputs) -> None:
    """I7 per pool ``0 < min_resident = req+seq+step+inv <= max_resident = min(ceilings, usable - static)``."""
    inv.check_i7_pool_residency(built.memory)


def i8(built: Built, inputs: Inputs) -> None:
    """I8 ``theoretical_ceiling (u128) = static + sum(pool theoretical + reusable)``."""
    inv.check_i8_theoretical_ceiling(built.memory)


def i9(built: Built, inputs: Inputs) -> None:
    """I9 ``maximum_active_sequences >= 1`` and ``maximum_scheduled_tokens >= 1``, both the policy's."""
    inv.check_i9_scheduler_ceilings(built.memory, built.maximum_scheduled_tokens)
    assert built.memory.maximum_active_sequences == inputs.sequences
    assert built.maximum_scheduled_tokens == inputs.tokens


def i10(built: Built, inputs: Inputs) -> None:
    """I10 ``static rows + dynamic rows <= 65 536``."""
    inv.check_i10_row_limit(built.memory)


def i11(built: Built, inputs: Inputs) -> None:
    """I11 every dynamic descriptor's ``theoretical_maximum_instances == maximum_active_sequences``."""
    inv.check_i11_instances_follow_sequences(built.memory)
    assert all(d.theoretical_maximum_instances == inputs.sequences for d in built.memory.dynamic_descriptors)


INEQUALITIES: Final[Mapping[str, Callable[[Built, Inputs], None]]] = {
    "I1": i1,
    "I2": i2,
    "I3": i3,
    "I4": i4,
    "I5": i5,
    "I6": i6,
    "I7": i7,
    "I8": i8,
    "I9": i9,
    "I10": i10,
    "I11": i11,
}


#: The value rules of 05 §7.15 an inequality checks on an accepted plan (I1, I2, I4, I5 and I9 are rejection
#: rules: the scenario cells and the capacity gate's refusals check those).
VALUE_RULES: Final[Mapping[str, tuple[str, ...]]] = {
    "I3": ("05.7.15/i3_usable_is_capacity_minus_reserve",),
    "I6": ("05.7.15/i6_minimum_runnable_is_sum",),
    "I7": ("05.7.15/i7_pool_residency_bounds",),
    "I8": ("05.7.15/i8_ceiling_is_evidence",),
    "I10": ("05.7.15/i10_row_count_independent_of_mas",),
    "I11": ("05.7.15/i11_instances_follow_mas",),
}


def _check(name: str, built: Built, scenario: Mapping[str, Any]) -> None:
    exercise(*VALUE_RULES.get(name, ()))
    try:
        INEQUALITIES[name](built, Inputs.of(scenario))
    except InvalidExecutionPlan as exc:
        pytest.fail(f"{name} violated: {exc.reason}")


# --------------------------------------------------------------------------- seed plans


def _seed_scenarios() -> dict[str, Callable[[], dict[str, Any]]]:
    cases: dict[str, Callable[[], dict[str, Any]]] = {name: functools.partial(base_scenario, name) for name in BASES}
    cases["plan_fixture_policy_4096_256_4"] = lambda: with_policy(
        base_scenario("plan_fixture"), reserve=256, sequences=4
    )
    cases["plan_fixture_policy_511"] = lambda: with_policy(base_scenario("plan_fixture"), capacity=511)
    cases["plan_fixture_u32_sequences"] = lambda: with_policy(
        with_device_memory(base_scenario("plan_fixture"), 2**64 - 1), capacity=2**64 - 1, sequences=2**32 - 1
    )
    cases["plan_fixture_ceiling_over_u64"] = lambda: with_estimates(
        with_policy(base_scenario("plan_fixture"), tokens=2**59), scratch=16, behavior="token_scaled_scratch"
    )
    return cases


SEEDS: Final = _seed_scenarios()


@pytest.mark.parametrize("scenario_name", list(SEEDS))
@pytest.mark.parametrize("inequality", list(INEQUALITIES))
def test_inequality_holds_on_seed_plans(backend: BackendUnderTest, inequality: str, scenario_name: str) -> None:
    scenario = SEEDS[scenario_name]()
    _check(inequality, _decode(backend.build_plan(scenario)), scenario)


@pytest.mark.parametrize("inequality", list(INEQUALITIES))
@given(case=budget_cases())
def test_inequality_holds_on_generated_plans(
    backend: BackendUnderTest,
    oracle: BackendUnderTest,
    counterexamples: CounterexampleRecorder,
    inequality: str,
    case: BudgetCase,
) -> None:
    with counterexamples.on_failure(_bundle(f"memory_budget/{inequality}", case.scenario, oracle)):
        built = _build(backend, case.scenario)
        if isinstance(built, Built):
            memory = built.memory
            target(
                -float(memory.usable_capacity_bytes - memory.static_bytes - memory.minimum_runnable_request_bytes),
                label="bytes left in the budget",
            )
            _check(inequality, built, case.scenario)


def test_plan_fixture_worked_numbers(backend: BackendUnderTest) -> None:
    """05 §7.16: usable 3968, static 48, runnable 112, ceiling 384; (4096, 256, 4): usable 3840, ceiling 496."""
    m = _decode(backend.build_plan(base_scenario("plan_fixture"))).memory
    numbers = (m.usable_capacity_bytes, m.static_bytes, m.minimum_runnable_request_bytes, m.theoretical_ceiling_bytes)
    assert numbers == (3968, 48, 112, 384)
    assert (m.minimum_request_bytes, m.minimum_sequence_bytes, m.minimum_step_bytes) == (32, 16, 0)
    m = _decode(backend.build_plan(SEEDS["plan_fixture_policy_4096_256_4"]())).memory
    assert (m.usable_capacity_bytes, m.theoretical_ceiling_bytes) == (3840, 496)


@pytest.mark.rules("05.7.15/i8_ceiling_is_evidence")
def test_a_ceiling_over_usable_is_evidence_not_a_budget(backend: BackendUnderTest) -> None:
    """05 §7.16 / I8: policy(511) builds although its ceiling 384 exceeds usable 383."""
    m = _decode(backend.build_plan(SEEDS["plan_fixture_policy_511"]())).memory
    assert (m.usable_capacity_bytes, m.theoretical_ceiling_bytes) == (383, 384)


@pytest.mark.rules("05.7.15/i8_ceiling_is_evidence")
def test_a_ceiling_over_u64_round_trips(backend: BackendUnderTest) -> None:
    """I8: 16 bytes per token scratch with ``2^59`` scheduled tokens: the u128 ceiling
    ``48 + 3 * (16 + 16 + 16 + 2^63)`` exceeds ``u64::MAX`` and the plan still builds."""
    m = _decode(backend.build_plan(SEEDS["plan_fixture_ceiling_over_u64"]())).memory
    assert m.theoretical_ceiling_bytes > 2**64 - 1
    assert m.theoretical_ceiling_bytes == 48 + 3 * (16 + 16 + 16 + 2**63)
    assert (m.static_bytes, m.minimum_runnable_request_bytes) == (48, 32 + 16 + 16)


@pytest.mark.rules("05.7.16/fixture_capacity_above_device_rejected", "05.7.15/i1_policy_capacity_within_device")
def test_capacity_over_device_is_rejected(backend: BackendUnderTest) -> None:
    """I1 at build: policy capacity 1 MiB + 1 on a 1 MiB device."""
    with pytest.raises(InvalidExecutionPlan):
        backend.build_plan(with_policy(base_scenario("plan_fixture"), capacity=SEED_DEVICE + 1))


# --------------------------------------------------------------------------- layout fingerprints


@pytest.mark.rules("05.7.2/zero_fill_dimensions_not_hashed", "05.7.2/tensor_layout_class_fingerprint")
def test_a_zero_fill_layout_is_fingerprinted_by_its_class(backend: BackendUnderTest, oracle: BackendUnderTest) -> None:
    """05 §7.2: a resource's logical layout fingerprint is the set fingerprint of its bindings' layout classes;
    a zero-fill blocked layout's class keeps block, axis order and the padding kind, not the padded grid."""
    scenario = blocked_input_scenario()
    wire = backend.build_plan(scenario)
    assert wire == oracle.build_plan(scenario), "plan wire differs from the reference"
    (row,) = (d for d in _decode(wire).memory.dynamic_descriptors if d.base_resource_id.value == "resource.input.0")
    layout_set = sorted({fingerprint(BLOCKED_INPUT_LAYOUT_CLASS)})
    assert row.storage.logical_layout_fingerprint == fingerprint(layout_set)


# --------------------------------------------------------------------------- monotonicity


@given(case=budget_cases(), extra=st.integers(1, 8192))
def test_acceptance_is_monotone_in_capacity(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: BudgetCase,
    extra: int,
) -> None:  # fmt: skip
    larger = with_policy(case.scenario, capacity=case.knobs.capacity + extra)
    with counterexamples.on_failure(_bundle("memory_budget/monotone_capacity", larger, oracle)):
        if _accepted(backend, case.scenario):
            assert _accepted(backend, larger), f"accepted with capacity {case.knobs.capacity}, not with +{extra}"


@given(case=budget_cases(), fewer=st.integers(1, 4096))
def test_acceptance_is_monotone_in_reserve(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: BudgetCase,
    fewer: int,
) -> None:  # fmt: skip
    smaller = with_policy(case.scenario, reserve=max(0, case.knobs.reserve - fewer))
    with counterexamples.on_failure(_bundle("memory_budget/monotone_reserve", smaller, oracle)):
        if _accepted(backend, case.scenario):
            assert _accepted(backend, smaller), f"accepted with reserve {case.knobs.reserve}, not with less"


# --------------------------------------------------------------------------- sequences scaling


@pytest.mark.rules("05.7.15/i10_row_count_independent_of_mas", "05.7.15/i11_instances_follow_mas")
@given(pair=sequence_pairs())
def test_minima_and_rows_do_not_scale_with_sequences_but_the_ceiling_does(
    backend: BackendUnderTest, pair: tuple[BudgetCase, BudgetCase]
) -> None:
    first, second = pair
    a, b = (_build(backend, case.scenario) for case in pair)
    assert isinstance(a, Built) and isinstance(b, Built), f"roomy plans rejected: {a!r} / {b!r}"
    ma, mb = a.memory, b.memory
    sa, sb = first.knobs.sequences, second.knobs.sequences

    def minima(m: MemoryPlan) -> tuple[int, ...]:
        return (
            m.static_bytes,
            m.minimum_request_bytes,
            m.minimum_sequence_bytes,
            m.minimum_step_bytes,
            m.minimum_invocation_peak_bytes,
            m.minimum_runnable_request_bytes,
        )

    assert minima(ma) == minima(mb), "minima changed with maximum_active_sequences"
    assert (len(ma.static_allocations), len(ma.dynamic_descriptors), len(ma.dynamic_pools)) == (
        len(mb.static_allocations),
        len(mb.dynamic_descriptors),
        len(mb.dynamic_pools),
    ), "row counts changed with maximum_active_sequences"
    assert [d.theoretical_maximum_instances for d in ma.dynamic_descriptors] == [sa] * len(ma.dynamic_descriptors)
    assert [d.theoretical_maximum_instances for d in mb.dynamic_descriptors] == [sb] * len(mb.dynamic_descriptors)
    for pa, pb in zip(ma.dynamic_pools, mb.dynamic_pools, strict=True):
        assert pa.theoretical_ceiling_bytes * sb == pb.theoretical_ceiling_bytes * sa, "pool ceiling is not linear"
    assert (ma.theoretical_ceiling_bytes - ma.static_bytes) * sb == (
        mb.theoretical_ceiling_bytes - mb.static_bytes
    ) * sa


# --------------------------------------------------------------------------- scratch reuse


def _scratch_minima(memory: MemoryPlan) -> list[int]:
    return [d.minimum_request_bytes for d in memory.dynamic_descriptors if d.kind.tag == "scratch"]


def test_sequential_scratch_takes_the_peak_not_the_sum(backend: BackendUnderTest) -> None:
    """05 §7.9 SequentialScratchFamily: scratch 64 then 96 under total order -> peak 96 (sum 160)."""
    m = _decode(backend.build_plan(base_scenario("sequential_scratch"))).memory
    assert sorted(_scratch_minima(m)) == [64, 96]
    assert m.invocation_liveness_mode.value == "total_order_reuse"
    assert m.minimum_invocation_peak_bytes == 96
    assert (m.minimum_request_bytes, m.minimum_sequence_bytes, m.minimum_step_bytes) == (32, 16, 16)
    assert m.minimum_runnable_request_bytes == 160


@pytest.mark.parametrize(
    ("base", "mode", "peak"),
    [
        pytest.param("graph_state_chain", "total_order_reuse", 64, id="state_chain_total_order"),
        pytest.param("graph_state_read_only", "conservative_concurrent", 128, id="state_read_only_concurrent"),
    ],
)
def test_graph_scratch_liveness(backend: BackendUnderTest, base: str, mode: str, peak: int) -> None:
    """05 §7.16 derived: dependent nodes reuse scratch (peak 64), independent readers add up (64 + 64)."""
    m = _decode(backend.build_plan(base_scenario(base))).memory
    assert (m.invocation_liveness_mode.value, m.minimum_invocation_peak_bytes) == (mode, peak)


@given(case=scratch_cases())
def test_scratch_reuse_takes_the_peak_under_total_order_and_the_sum_otherwise(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: BudgetCase
) -> None:
    with counterexamples.on_failure(_bundle(f"memory_budget/scratch_reuse/{case.base}", case.scenario, oracle)):
        built = _build(backend, case.scenario)
        assert isinstance(built, Built), f"{case.label} rejected: {built}"
        m = built.memory
        sizes = [align_up(s) for s in case.scratch]
        assert sorted(_scratch_minima(m)) == sorted(sizes)
        total_order = SCRATCH_ORDER[case.base] == "total"
        expected = max(sizes) if total_order else sum(sizes)
        assert m.invocation_liveness_mode.value == ("total_order_reuse" if total_order else "conservative_concurrent")
        assert m.minimum_invocation_peak_bytes == expected, (
            f"invocation peak {m.minimum_invocation_peak_bytes}, expected {expected} for scratch {sizes}"
        )


# --------------------------------------------------------------------------- minimal capacity


def _bisect_minimal_capacity(backend: BackendUnderTest, scenario: Mapping[str, Any], reserve: int, high: int) -> int:
    """The smallest capacity in ``reserve+1..high`` the backend accepts (``high`` must be accepted)."""
    assert _accepted(backend, with_policy(scenario, capacity=high, reserve=reserve)), f"capacity {high} rejected"
    low = reserve  # capacity == reserve is never a valid policy: an exclusive lower bound
    while high - low > 1:
        middle = (low + high) // 2
        if _accepted(backend, with_policy(scenario, capacity=middle, reserve=reserve)):
            high = middle
        else:
            low = middle
    return high


def _check_minimal_capacity(
    backend: BackendUnderTest, oracle: BackendUnderTest, scenario: Mapping[str, Any], reserve: int
) -> None:
    """The backend's smallest accepted capacity is the reference's ``reserve + static + minimum runnable``.

    Acceptance is monotone in the capacity (``test_acceptance_is_monotone_in_capacity``), so accepting the
    expected capacity and refusing one byte less pins the minimum; only when either answer is wrong is the
    backend's own minimum searched for, to name it in the failure.
    """
    need = _need(oracle, scenario)
    expected = reserve + need
    at_minimum = with_policy(scenario, capacity=expected, reserve=reserve)
    below = with_policy(scenario, capacity=expected - 1, reserve=reserve)
    if not (_accepted(backend, at_minimum) and not _accepted(backend, below)):
        found = _bisect_minimal_capacity(backend, scenario, reserve, min(SEED_DEVICE, expected + need))
        assert found == expected, f"minimal capacity {found}, the reference's is {expected} (reserve {reserve})"
    with pytest.raises(InvalidExecutionPlan):
        backend.build_plan(below)


@pytest.mark.parametrize("reserve", [0, 128])
@pytest.mark.parametrize("base", list(BASES))
def test_minimal_capacity_of_seed_plans(
    backend: BackendUnderTest, oracle: BackendUnderTest, base: str, reserve: int
) -> None:
    _check_minimal_capacity(backend, oracle, base_scenario(base), reserve)


@given(case=budget_cases(max_sequences=4))
def test_minimal_capacity_of_generated_plans(
    backend: BackendUnderTest, oracle: BackendUnderTest, counterexamples: CounterexampleRecorder, case: BudgetCase
) -> None:
    with counterexamples.on_failure(_bundle("memory_budget/minimal_capacity", case.scenario, oracle)):
        _check_minimal_capacity(backend, oracle, case.scenario, case.knobs.reserve)


# --------------------------------------------------------------------------- u64 edges


@pytest.mark.parametrize("edge", list(EDGE_KINDS))
@given(data=st.data())
def test_numeric_edges_give_the_reference_outcome(
    backend: BackendUnderTest,
    oracle: BackendUnderTest,
    counterexamples: CounterexampleRecorder,
    edge: str,
    data: st.DataObject,
) -> None:
    case = data.draw(edge_cases(edges=(edge,)), label="edge case")
    with counterexamples.on_failure(_bundle(f"memory_budget/edge/{edge}", case.scenario, oracle)):
        want = _build(oracle, case.scenario)
        got = _build(backend, case.scenario)
        if isinstance(want, Built):
            assert isinstance(got, Built), f"{case.edge} {dict(case.values)}: backend error {got}, reference plan"
            assert got.wire == want.wire, "plan wire differs from the reference"
            for name in INEQUALITIES:
                _check(name, got, case.scenario)
        else:
            assert isinstance(got, VNextError), f"{case.edge} {dict(case.values)}: backend plan, reference {want}"
            assert got.kind == want.kind, f"{case.edge} {dict(case.values)}: kind {got.kind}, reference {want.kind}"
