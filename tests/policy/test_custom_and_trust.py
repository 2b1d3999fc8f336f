"""Custom policies and the planner trust table (spec 04 §4, §4.1; 05 §3 steps 1-5)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import fingerprint
from reference.catalog.storage import DynamicStorageProfile
from reference.documents.custom_policy import DeclaredRuntimePolicy, ReportedPolicyValues
from reference.errors import InvalidExecutionPlan, InvalidResolvedModelPlan, UnknownModelFamily
from reference.policy import (
    AttentionExecutionPolicy,
    ExecutionDeterminismRequirement,
    RuntimePolicy,
    canonical_runtime_policy_fingerprint,
    policy_for_build,
    policy_for_resolution,
    read_policy,
)
from reference.policy.trust import check_capacity_gate, first_available_profile, profile_rank
from reference.versions import ContractVersion
from seeds.policies import AdversarialRuntimePolicy, adversarial_policy, contiguous_storage_profile, policy

ADVERSARIAL_VECTOR = "ae6d39b5a5e50521814baa22c869d2196d46ce414c94c678ec161c98ce2d15ec"
DEVICE = 1 << 20
LINEAR = DynamicStorageProfile.linear_contiguous()
PAGED = DynamicStorageProfile.paged(4096)


def reported(**overrides: Any) -> ReportedPolicyValues:
    values: dict[str, Any] = {
        "version": ContractVersion(1, 0),
        "memory_capacity_bytes": 4096,
        "memory_reserve_bytes": 128,
        "maximum_active_sequences": 3,
        "maximum_scheduled_tokens": 4096,
        "attention_execution_policy": AttentionExecutionPolicy.PORTABLE,
        "execution_determinism_requirement": ExecutionDeterminismRequirement.BITWISE_SAME_RUNTIME_WITH_REPLAY,
        "dynamic_storage_profile_order": (LINEAR,),
        "reusable_execution_policy": None,
        "checkpoint_capacity_policy": None,
    }
    values.update(overrides)
    return ReportedPolicyValues(**values)


def test_adversarial_seed_shape_and_vector() -> None:
    p = adversarial_policy(3, 4096)
    assert p.to_wire() == {
        "maximum_active_sequences": 3,
        "maximum_scheduled_tokens": 4096,
        "dynamic_storage_profile_order": [{"allocator": "linear_arena", "view": "contiguous"}],
    }
    assert canonical_runtime_policy_fingerprint(p) == ADVERSARIAL_VECTOR
    assert (p.memory_capacity_bytes(), p.memory_reserve_bytes()) == (1 << 20, 128)
    assert p.version() == ContractVersion(1, 0)
    assert p.attention_execution_policy() is AttentionExecutionPolicy.PORTABLE
    assert p.execution_determinism_requirement() is ExecutionDeterminismRequirement.BITWISE_SAME_RUNTIME_WITH_REPLAY
    assert p.reusable_execution_policy() is None
    assert p.checkpoint_capacity_policy() is None  # provided default
    p.validate()
    assert isinstance(p, RuntimePolicy) and isinstance(policy(4096), RuntimePolicy)


def test_adversarial_wire_round_trip_and_lenient_decode() -> None:
    p = adversarial_policy(0, 7, (PAGED, LINEAR, PAGED))
    assert AdversarialRuntimePolicy.from_wire(p.to_wire()) == p
    assert AdversarialRuntimePolicy.from_wire({**p.to_wire(), "ignored": True}) == p


def test_custom_fingerprint_ignores_method_constants() -> None:
    class Roomier(AdversarialRuntimePolicy):
        __slots__ = ()

        def memory_capacity_bytes(self) -> int:
            return 1 << 30

        def version(self) -> ContractVersion:
            return ContractVersion(9, 9)

        def attention_execution_policy(self) -> AttentionExecutionPolicy:
            return AttentionExecutionPolicy.AUTO

    roomier = Roomier(3, 4096, (contiguous_storage_profile(),))
    assert canonical_runtime_policy_fingerprint(roomier) == ADVERSARIAL_VECTOR


@given(st.integers(0, 2**32 - 1), st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_declared_fingerprint_depends_only_on_serialized(mas: int, capacity: int, tokens: int) -> None:
    serialized = {"anything": [1, "two"], "n": mas}
    a = DeclaredRuntimePolicy(serialized, reported())
    b = DeclaredRuntimePolicy(
        serialized,
        reported(maximum_active_sequences=mas, memory_capacity_bytes=capacity, maximum_scheduled_tokens=tokens),
    )
    assert canonical_runtime_policy_fingerprint(a) == canonical_runtime_policy_fingerprint(b) == fingerprint(serialized)
    c = DeclaredRuntimePolicy({**serialized, "n": mas + 1}, reported())
    assert canonical_runtime_policy_fingerprint(c) != canonical_runtime_policy_fingerprint(a)


def test_validate_error_propagates_everywhere() -> None:
    error = UnknownModelFamily(family_id="family.x")
    p = DeclaredRuntimePolicy({}, reported(), error)
    for call in (
        lambda: canonical_runtime_policy_fingerprint(p),
        lambda: policy_for_resolution(p),
        lambda: policy_for_build(p, DEVICE),
    ):
        with pytest.raises(UnknownModelFamily):
            call()


def test_validate_runs_before_limit_checks() -> None:
    error = InvalidResolvedModelPlan(field="runtime_policy.memory", reason="declared")
    p = DeclaredRuntimePolicy({}, reported(maximum_active_sequences=0), error)
    with pytest.raises(InvalidResolvedModelPlan):
        policy_for_resolution(p)


@pytest.mark.parametrize(("mas", "mst"), [(0, 4096), (3, 0), (0, 0)])
def test_zero_sequences_or_tokens_rejected_by_resolution_and_build(mas: int, mst: int) -> None:
    p = adversarial_policy(mas, mst)
    with pytest.raises(InvalidExecutionPlan):
        policy_for_resolution(p)
    with pytest.raises(InvalidExecutionPlan):
        policy_for_build(p, DEVICE)


def test_resolution_does_not_check_capacity_but_build_does() -> None:
    for values in (
        reported(memory_capacity_bytes=0, memory_reserve_bytes=0),
        reported(memory_capacity_bytes=DEVICE + 1),
        reported(memory_reserve_bytes=4096),
    ):
        p = DeclaredRuntimePolicy({}, values)
        view = policy_for_resolution(p)
        assert view.policy_fingerprint is None
        with pytest.raises(InvalidExecutionPlan):
            policy_for_build(p, DEVICE)


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_capacity_gate_accepts_iff_inequalities_hold(capacity: int, reserve: int, device: int) -> None:
    p = DeclaredRuntimePolicy({}, reported(memory_capacity_bytes=capacity, memory_reserve_bytes=reserve))
    ok = 0 < capacity <= device and reserve < capacity
    if ok:
        view = policy_for_build(p, device)
        assert view.usable_capacity_bytes == capacity - reserve
    else:
        with pytest.raises(InvalidExecutionPlan):
            policy_for_build(p, device)


def test_capacity_gate_boundaries_with_seed_policies() -> None:
    policy_for_build(policy(DEVICE), DEVICE)
    with pytest.raises(InvalidExecutionPlan):
        policy_for_build(policy(DEVICE + 1), DEVICE)
    assert policy_for_build(adversarial_policy(), DEVICE).memory_capacity_bytes == DEVICE
    with pytest.raises(InvalidExecutionPlan):
        policy_for_build(adversarial_policy(), DEVICE - 1)
    with pytest.raises(ValueError):
        check_capacity_gate(read_policy(policy(4096)), -1)


def test_build_view_carries_payload_fingerprint() -> None:
    view = policy_for_build(policy(4096), DEVICE)
    assert view.policy_fingerprint == "e3c11a21a1188971e66a08c1421d7dfa0c6e1adf8c18fff0e4d70e981550c255"
    assert view.maximum_active_sequences == 3 and view.maximum_scheduled_tokens == 4096
    assert view.usable_capacity_bytes == 3968


def test_trusted_as_given_empty_or_duplicate_order_and_unresolved_attention() -> None:
    """Order, attention and reusable policy are not re-checked by the trust helpers (D-04-5)."""
    for values in (
        reported(dynamic_storage_profile_order=()),
        reported(dynamic_storage_profile_order=(PAGED, LINEAR, PAGED)),
        reported(attention_execution_policy=AttentionExecutionPolicy.AUTO),
    ):
        view = policy_for_build(DeclaredRuntimePolicy({}, values), DEVICE)
        assert view.dynamic_storage_profile_order == values.dynamic_storage_profile_order


def test_reported_values_may_disagree_with_serialized_form() -> None:
    p = DeclaredRuntimePolicy({"maximum_active_sequences": 0}, reported(maximum_active_sequences=3))
    assert policy_for_resolution(p).maximum_active_sequences == 3


class _Counting(AdversarialRuntimePolicy):
    """Answers differ on every call: the view must read each member exactly once."""

    __slots__ = ()
    calls: dict[str, int] = {}  # noqa: RUF012 - test-local counter

    def maximum_active_sequences(self) -> int:
        n = self.calls.get("mas", 0)
        self.calls["mas"] = n + 1
        return 3 if n == 0 else 0

    def memory_capacity_bytes(self) -> int:
        n = self.calls.get("cap", 0)
        self.calls["cap"] = n + 1
        return 4096 if n == 0 else 2**64 - 1


def test_view_reads_each_member_once() -> None:
    _Counting.calls.clear()
    view = policy_for_build(_Counting(3, 4096, (LINEAR,)), DEVICE)
    assert _Counting.calls == {"mas": 1, "cap": 1}
    assert view.maximum_active_sequences == 3 and view.memory_capacity_bytes == 4096


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("maximum_active_sequences", 2**32),
        ("maximum_scheduled_tokens", -1),
        ("memory_capacity_bytes", True),
        ("version", (1, 0)),
        ("attention_execution_policy", "portable"),
        ("reusable_execution_policy", {}),
    ],
)
def test_member_results_outside_rust_types_are_refused(member: str, value: Any) -> None:
    class Broken(AdversarialRuntimePolicy):
        __slots__ = ()

    setattr(Broken, member, lambda self: value)
    with pytest.raises((TypeError, ValueError)):
        read_policy(Broken(3, 4096, (LINEAR,)))


def test_profile_rank_and_availability() -> None:
    fixed = DynamicStorageProfile.from_wire(
        {"allocator": {"fixed_block_arena": {"block_bytes": 64}}, "view": "contiguous"}
    )
    order = (PAGED, LINEAR, PAGED)
    assert profile_rank(order, PAGED) == 0 and profile_rank(order, LINEAR) == 1
    assert profile_rank(order, fixed) is None
    assert first_available_profile(order, [LINEAR, PAGED], lambda p: True) == PAGED
    assert first_available_profile(order, [LINEAR], lambda p: True) == LINEAR
    assert first_available_profile(order, [LINEAR, PAGED], lambda p: p == LINEAR) == LINEAR
    assert first_available_profile(order, [fixed], lambda p: True) is None
    assert first_available_profile((), [LINEAR], lambda p: True) is None


def test_declared_policy_refuses_non_json_serialized_form() -> None:
    from reference.errors import Serialization

    with pytest.raises(Serialization):
        DeclaredRuntimePolicy({"x": object()}, reported())
    with pytest.raises(TypeError):
        DeclaredRuntimePolicy({}, reported(), ValueError("x"))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        reported(maximum_active_sequences=2**32)
