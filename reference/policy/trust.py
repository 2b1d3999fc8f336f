"""What the planner trusts and re-checks for any ``RuntimePolicy`` (spec 04 §4.1, 05 §3 steps 1-5).

A policy is read exactly once into a ``PlannerPolicyView``: later layers use
the view, never the policy's methods again, so a policy whose methods change
their answers cannot make planning inconsistent. Method results that Rust
could not return (wrong type or width) are refused with ``TypeError``
(decision D-04-7).

* ``policy_for_resolution``: ``validate()``; zero sequences / zero tokens ->
  ``InvalidExecutionPlan`` (before any contract or estimator call).
* ``policy_for_build``: the same, then the capacity gate against the device
  memory (``0 < capacity <= device``, ``reserve < capacity``); the registry
  authority check (05 §3 step 4) sits between the two and belongs to the plan
  builder, so the gate is also exposed alone as ``check_capacity_gate``.
* Nothing else is re-checked: the profile order is trusted as given
  (duplicates allowed, empty order only fails later for lack of candidates or
  in the joint solver), attention policy and reusable policy are not re-validated
  (decision D-04-5), the determinism requirement is used as a provider filter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from reference.errors import InvalidExecutionPlan
from reference.ints import check_uint
from reference.policy.enums import AttentionExecutionPolicy, ExecutionDeterminismRequirement
from reference.policy.memory import CheckpointCapacityPolicy
from reference.policy.reusable import ReusableExecutionPolicy
from reference.policy.runtime_policy import RuntimePolicy, canonical_runtime_policy_fingerprint
from reference.policy.storage import StorageProfile, profile_key
from reference.versions import ContractVersion

__all__ = [
    "PlannerPolicyView",
    "check_capacity_gate",
    "first_available_profile",
    "policy_for_build",
    "policy_for_resolution",
    "profile_rank",
    "read_policy",
]


@dataclass(frozen=True, slots=True)
class PlannerPolicyView:
    """One consistent snapshot of a policy's method results, width-checked."""

    version: ContractVersion
    memory_capacity_bytes: int
    memory_reserve_bytes: int
    maximum_active_sequences: int
    maximum_scheduled_tokens: int
    attention_execution: AttentionExecutionPolicy
    execution_determinism: ExecutionDeterminismRequirement
    dynamic_storage_profile_order: tuple[StorageProfile, ...]
    reusable_execution: ReusableExecutionPolicy | None
    checkpoint_capacity: CheckpointCapacityPolicy | None
    #: ``canonical_runtime_policy_fingerprint`` (build only; resolution never reads the serde form).
    policy_fingerprint: str | None

    @property
    def usable_capacity_bytes(self) -> int:
        """``capacity - reserve``; meaningful only after the capacity gate."""
        return self.memory_capacity_bytes - self.memory_reserve_bytes


def _typed(value: Any, expected: type | tuple[type, ...], name: str) -> Any:
    if not isinstance(value, expected):
        raise TypeError(f"RuntimePolicy.{name}() returned {type(value).__name__}")
    return value


def read_policy(policy: RuntimePolicy, *, with_fingerprint: bool = False) -> PlannerPolicyView:
    """``validate()`` (errors propagate), then read every member once.

    With ``with_fingerprint`` the serde form is also hashed (``validate`` runs again, as in Rust's build).
    """
    policy.validate()
    order = tuple(policy.dynamic_storage_profile_order())
    for profile in order:
        _typed(profile, StorageProfile, "dynamic_storage_profile_order")
    return PlannerPolicyView(
        version=_typed(policy.version(), ContractVersion, "version"),
        memory_capacity_bytes=check_uint(policy.memory_capacity_bytes(), 64, "RuntimePolicy.memory_capacity_bytes"),
        memory_reserve_bytes=check_uint(policy.memory_reserve_bytes(), 64, "RuntimePolicy.memory_reserve_bytes"),
        maximum_active_sequences=check_uint(
            policy.maximum_active_sequences(), 32, "RuntimePolicy.maximum_active_sequences"
        ),
        maximum_scheduled_tokens=check_uint(
            policy.maximum_scheduled_tokens(), 64, "RuntimePolicy.maximum_scheduled_tokens"
        ),
        attention_execution=_typed(
            policy.attention_execution_policy(), AttentionExecutionPolicy, "attention_execution_policy"
        ),
        execution_determinism=_typed(
            policy.execution_determinism_requirement(),
            ExecutionDeterminismRequirement,
            "execution_determinism_requirement",
        ),
        dynamic_storage_profile_order=order,
        reusable_execution=_typed(
            policy.reusable_execution_policy(), (ReusableExecutionPolicy, type(None)), "reusable_execution_policy"
        ),
        checkpoint_capacity=_typed(
            policy.checkpoint_capacity_policy(), (CheckpointCapacityPolicy, type(None)), "checkpoint_capacity_policy"
        ),
        policy_fingerprint=canonical_runtime_policy_fingerprint(policy) if with_fingerprint else None,
    )


def _check_limits(view: PlannerPolicyView) -> PlannerPolicyView:
    if view.maximum_active_sequences == 0:
        raise InvalidExecutionPlan(
            reason="runtime policy maximum_active_sequences must be non-zero"
        )  # rule: 04.9/step02_zero_active_sequences, 05.3/step02_zero_active_sequences, 05.7.15/i9_scheduler_ceilings
    if view.maximum_scheduled_tokens == 0:
        raise InvalidExecutionPlan(
            reason="runtime policy maximum_scheduled_tokens must be non-zero"
        )  # rule: 04.9/step03_zero_scheduled_tokens, 05.3/step03_zero_scheduled_tokens, 05.7.15/i9_scheduler_ceilings
    return view


def policy_for_resolution(policy: RuntimePolicy) -> PlannerPolicyView:
    """``PlanNodeResolution::resolve`` prologue: validate, then reject zero sequences or tokens."""
    return _check_limits(read_policy(policy))


def check_capacity_gate(view: PlannerPolicyView, device_total_memory_bytes: int) -> PlannerPolicyView:
    """05 §3 step 5: reject unless ``0 < capacity <= device`` and ``reserve < capacity``."""
    device = check_uint(device_total_memory_bytes, 64, "DeviceDescriptor.total_memory_bytes")
    capacity, reserve = view.memory_capacity_bytes, view.memory_reserve_bytes
    if capacity == 0:
        raise InvalidExecutionPlan(  # rule: 05.3/step05_capacity_nonzero, 05.7.15/i1_policy_capacity_within_device
            reason="runtime policy memory capacity must be non-zero"
        )
    if capacity > device:
        raise InvalidExecutionPlan(
            reason="runtime policy memory capacity exceeds the device memory"
        )  # rule: 05.3/step05_capacity_within_device, 05.7.15/i1_policy_capacity_within_device
    if reserve >= capacity:
        raise InvalidExecutionPlan(  # rule: 05.3/step05_reserve_below_capacity, 05.7.15/i2_reserve_below_capacity
            reason="runtime policy memory reserve must be smaller than its capacity"
        )
    return view


def policy_for_build(policy: RuntimePolicy, device_total_memory_bytes: int) -> PlannerPolicyView:
    """``ExecutionPlan::build`` steps 1-3 and 5 for callers without a registry-authority step."""
    return check_capacity_gate(_check_limits(read_policy(policy, with_fingerprint=True)), device_total_memory_bytes)


def profile_rank(order: Sequence[StorageProfile], profile: StorageProfile) -> int | None:
    """Index of the first occurrence of ``profile`` in the policy order (joint-solver rank)."""
    key = profile_key(profile)
    for index, candidate in enumerate(order):
        if profile_key(candidate) == key:
            return index
    return None


def first_available_profile(
    order: Sequence[StorageProfile],
    offered: Iterable[StorageProfile],
    accepts: Callable[[StorageProfile], bool],
) -> StorageProfile | None:
    """The first profile in policy order that the device offers and the requirement accepts.

    A requirement is *available* iff this is not ``None`` (spec 03 §6.4); an
    empty order makes every requirement unavailable.
    """
    offered_keys = {profile_key(profile) for profile in offered}
    for profile in order:
        if profile_key(profile) in offered_keys and accepts(profile):
            return profile
    return None
