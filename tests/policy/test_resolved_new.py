"""``ResolvedRuntimePolicy::new``: the fifteen rows of spec 04 §3.2, in order."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.reach.attribution import error_rules
from reference.catalog.storage import DynamicStorageProfile
from reference.errors import InvalidExecutionPlan, InvalidResolvedModelPlan
from reference.policy import (
    ResolvedRuntimePolicy,
    ReusableExecutionBucketSpec,
    ReusableExecutionCapacity,
    ReusableExecutionClassId,
    ReusableExecutionPolicy,
    ReusableExecutionProgramPolicy,
    ReusableExecutionProgramSpec,
)
from reference.policy.reusable import UniformDecodeShape
from seeds.policies import policy, policy_with, policy_with_tokens
from tests.policy.helpers import build, expected_failure
from tests.policy.strategies import LINEAR, U32_MAX, U64_MAX, fixed, paged, policy_fields

U64 = U64_MAX


def base() -> dict[str, Any]:
    return copy.deepcopy(
        {
            "policy_id": "runtime-policy.test",
            "version": {"major": 1, "minor": 0},
            "scheduling": "first_ready",
            "memory": {
                "capacity_bytes": 4096,
                "reserve_bytes": 128,
                "maximum_active_sequences": 3,
                "dynamic_storage_profile_order": [LINEAR],
            },
            "admission": {
                "maximum_queue_depth": 8,
                "maximum_scheduled_tokens": 4096,
                "sequence_fit_policy": "immediate_only",
                "allow_defer": True,
                "cancellation_check_interval_steps": 1,
            },
            "attention_execution": "portable",
            "execution_determinism": "bitwise_same_runtime_with_replay",
            "reusable_execution": None,
        }
    )


def assert_rmp(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidResolvedModelPlan) as info:
        build(fields)
    assert info.value.kind == "invalid_resolved_model_plan"
    assert info.value.field == field


@given(policy_fields())
def test_new_accepts_iff_rows_hold_and_first_failing_row_names_the_field(fields: dict[str, Any]) -> None:
    expected = expected_failure(fields)
    if expected is None:
        built = build(fields)
        assert built.policy_id() == fields["policy_id"]
    else:
        assert_rmp(fields, expected)


@given(policy_fields(valid=True))
def test_valid_fields_always_build(fields: dict[str, Any]) -> None:
    built = build(fields)
    assert built.maximum_active_sequences() == fields["memory"]["maximum_active_sequences"]
    assert built.maximum_scheduled_tokens() == fields["admission"]["maximum_scheduled_tokens"]


# ----------------------------------------------------------------------- one negative test per row


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda f: f.update(policy_id=""), "runtime_policy.policy_id"),  # row 1
        (lambda f: f.update(policy_id="p" * 161), "runtime_policy.policy_id"),  # row 1
        (lambda f: f.update(policy_id="runtime policy"), "runtime_policy.policy_id"),  # row 2
        (lambda f: f.update(policy_id="policy\u00e9"), "runtime_policy.policy_id"),  # row 2 (non-ASCII)
        (lambda f: f.update(version={"major": 0, "minor": 7}), "runtime_policy.version"),  # row 3
        (lambda f: f["memory"].update(capacity_bytes=0, reserve_bytes=0), "runtime_policy.memory"),  # row 4
        (lambda f: f["memory"].update(reserve_bytes=4096), "runtime_policy.memory"),  # row 5 (equal)
        (lambda f: f["memory"].update(reserve_bytes=5000), "runtime_policy.memory"),  # row 5 (greater)
        (lambda f: f["memory"].update(maximum_active_sequences=0), "runtime_policy.memory"),  # row 6
        (lambda f: f["memory"].update(dynamic_storage_profile_order=[]), "runtime_policy.memory"),  # row 7
        (
            lambda f: f["memory"].update(dynamic_storage_profile_order=[paged(16), LINEAR, paged(16)]),
            "runtime_policy.memory",
        ),  # row 8
        (lambda f: f["admission"].update(maximum_queue_depth=0), "runtime_policy.admission"),  # row 9
        (lambda f: f["admission"].update(maximum_scheduled_tokens=0), "runtime_policy.admission"),  # row 10
        (lambda f: f["admission"].update(cancellation_check_interval_steps=0), "runtime_policy.admission"),  # row 11
        (lambda f: f.update(attention_execution="auto"), "runtime_policy.attention_execution"),  # row 12
    ],
)
def test_each_row_rejects_with_its_field(mutate: Any, field: str) -> None:
    fields = base()
    mutate(fields)
    assert_rmp(fields, field)


_ROW1 = ("must contain between 1 and 160 bytes", ("04.3.2/row01_policy_id_length", "01.1.4/policy_id_length"))
_ROW2 = ("contains a non-portable character", ("04.3.2/row02_policy_id_portable_bytes", "01.1.4/policy_id_charset"))


@pytest.mark.parametrize(
    ("policy_id", "reason", "rules"), [("", *_ROW1), (" " * 161, *_ROW1), ("runtime policy", *_ROW2)]
)
def test_policy_id_rows_raise_at_their_own_sites(policy_id: str, reason: str, rules: tuple[str, ...]) -> None:
    """Row 1 (length, checked first) and row 2 (portable bytes) are refused at one site each, with the same error."""
    fields = base()
    fields["policy_id"] = policy_id
    with pytest.raises(InvalidResolvedModelPlan) as info:
        build(fields)
    assert (info.value.field, info.value.reason) == ("runtime_policy.policy_id", reason)
    assert error_rules(info.value) == rules


def test_policy_id_boundaries() -> None:
    for good in ("p", "p" * 160, "A-z_0.9:/x"):
        fields = base()
        fields["policy_id"] = good
        assert build(fields).policy_id() == good


def test_first_failing_row_wins() -> None:
    fields = base()
    fields["version"]["major"] = 0
    fields["memory"]["capacity_bytes"] = 0
    fields["attention_execution"] = "auto"
    assert_rmp(fields, "runtime_policy.version")
    fields["version"]["major"] = 1
    assert_rmp(fields, "runtime_policy.memory")
    fields["memory"]["capacity_bytes"] = 4096
    assert_rmp(fields, "runtime_policy.attention_execution")


def test_reserve_boundary() -> None:
    fields = base()
    fields["memory"]["reserve_bytes"] = 4095
    assert build(fields).memory_reserve_bytes() == 4095
    fields["memory"]["reserve_bytes"] = 4096
    assert_rmp(fields, "runtime_policy.memory")


def test_extreme_values_are_valid() -> None:
    fields = base()
    fields["memory"].update(capacity_bytes=U64, reserve_bytes=1, maximum_active_sequences=U32_MAX)
    built = build(fields)
    assert built.memory_capacity_bytes() == U64
    assert built.maximum_active_sequences() == U32_MAX


def test_things_not_checked_by_new() -> None:
    """Capacity above any device, unusual scheduling/fit/determinism, deferral off: all accepted."""
    fields = base()
    fields["memory"]["capacity_bytes"] = U64
    fields["memory"]["dynamic_storage_profile_order"] = [paged(2**63)]
    fields["scheduling"] = "deadline"
    fields["admission"].update(sequence_fit_policy="full_input_must_fit", allow_defer=False)
    fields["execution_determinism"] = "bitwise_same_runtime"
    fields["memory"]["checkpoint_capacity"] = {"maximum_retained_bytes": 1}
    assert build(fields).checkpoint_capacity_policy() is not None


@pytest.mark.parametrize("profiles", [[LINEAR, fixed(16), paged(16)], [paged(16), fixed(16), LINEAR]])
def test_distinct_profiles_in_any_order_accepted(profiles: list[Any]) -> None:
    fields = base()
    fields["memory"]["dynamic_storage_profile_order"] = profiles
    order = build(fields).dynamic_storage_profile_order()
    assert [p.to_wire() for p in order] == profiles


# ----------------------------------------------------------------------- rows 13-15 (reusable)


def _bucket(class_id: str, seqs: int, tokens: int, pages: int = 1) -> ReusableExecutionBucketSpec:
    return ReusableExecutionBucketSpec.new(
        ReusableExecutionClassId(class_id), ReusableExecutionCapacity(seqs, tokens, pages)
    )


def _with_reusable(reusable: ReusableExecutionPolicy) -> Any:
    fields = base()
    fields["reusable_execution"] = reusable.to_wire()
    return fields


def test_row14_bucket_sequences_and_tokens_bounded_by_policy() -> None:
    assert build(_with_reusable(ReusableExecutionPolicy.new(1, [_bucket("c", 3, 4096)]))).reusable_execution()
    assert_rmp(
        _with_reusable(ReusableExecutionPolicy.new(1, [_bucket("c", 4, 1)])), "runtime_policy.reusable_execution"
    )
    assert_rmp(
        _with_reusable(ReusableExecutionPolicy.new(1, [_bucket("c", 1, 4097)])), "runtime_policy.reusable_execution"
    )


def test_program_policy_within_ceilings_accepted() -> None:
    cls = ReusableExecutionClassId("c")
    programs = [ReusableExecutionProgramSpec(cls, UniformDecodeShape.new(3, 2))]
    ok = ReusableExecutionPolicy.new(1, [_bucket("c", 3, 4096)]).with_program_policy(
        ReusableExecutionProgramPolicy.exact_startup_sealed(1, 1, 1, programs)
    )
    assert build(_with_reusable(ok)).reusable_execution() == ok


def test_program_policy_beyond_sequence_ceiling_rejected() -> None:
    """Row 15 is implied by rows 13-14 (a program needs a covering bucket, buckets are bounded),
    so an over-wide program always surfaces with the same field (decision D-04-9)."""
    cls = ReusableExecutionClassId("c")
    programs = [ReusableExecutionProgramSpec(cls, UniformDecodeShape.new(8, 1))]
    reusable = ReusableExecutionPolicy.new(1, [_bucket("c", 8, 4096)]).with_program_policy(
        ReusableExecutionProgramPolicy.exact_startup_sealed(1, 1, 1, programs)
    )
    fields = _with_reusable(reusable)
    assert_rmp(fields, "runtime_policy.reusable_execution")
    fields["memory"]["maximum_active_sequences"] = 8
    assert build(fields).reusable_execution() == reusable


def test_row13_invalid_reusable_is_invalid_execution_plan() -> None:
    reusable = ReusableExecutionPolicy.new(1, [_bucket("c", 1, 1)])
    object.__setattr__(reusable, "maximum_reusable_lanes", 0)  # corrupt after construction
    good = policy(4096)
    with pytest.raises(InvalidExecutionPlan):
        ResolvedRuntimePolicy.new(
            good.policy_id(), good.version(), good.scheduling(), good.memory(), good.admission(),
            good.attention_execution(), good.execution_determinism(), reusable,
        )  # fmt: skip


# ----------------------------------------------------------------------- seed helpers


def test_seed_policy_helpers() -> None:
    p = policy(4096)
    assert p.policy_id() == "runtime-policy.test"
    assert (p.memory_capacity_bytes(), p.memory_reserve_bytes(), p.maximum_active_sequences()) == (4096, 128, 3)
    assert p.maximum_scheduled_tokens() == 4096
    assert p.version().to_wire() == {"major": 1, "minor": 0}
    assert p.reusable_execution_policy() is None and p.checkpoint_capacity_policy() is None
    assert policy_with_tokens(4096, 128, 3, 4096) == p
    assert policy_with(4096, 128, 3) == p
    assert policy(4097) != p


@pytest.mark.parametrize(
    ("args", "field"), [((4096, 4096, 3), "runtime_policy.memory"), ((4096, 128, 0), "runtime_policy.memory")]
)
def test_seed_policy_with_failures(args: tuple[int, int, int], field: str) -> None:
    with pytest.raises(InvalidResolvedModelPlan) as info:
        policy_with(*args)
    assert info.value.field == field


def test_policy_with_tokens_zero_tokens_rejected() -> None:
    with pytest.raises(InvalidResolvedModelPlan) as info:
        policy_with_tokens(4096, 128, 3, 0)
    assert info.value.field == "runtime_policy.admission"


@given(st.integers(1, U64), st.integers(0, U64))
def test_seed_policy_accepts_iff_reserve_below_capacity(capacity: int, reserve: int) -> None:
    if reserve < capacity:
        assert policy_with(capacity, reserve, 3).memory_reserve_bytes() == reserve
    else:
        with pytest.raises(InvalidResolvedModelPlan):
            policy_with(capacity, reserve, 3)


def test_profile_duplicate_detection_is_exact() -> None:
    """fixed(16)/contiguous and paged(16) share a block size but are different profiles."""
    fields = base()
    fields["memory"]["dynamic_storage_profile_order"] = [fixed(16), paged(16)]
    assert len(build(fields).dynamic_storage_profile_order()) == 2
    assert DynamicStorageProfile.from_wire(fixed(16)) != DynamicStorageProfile.from_wire(paged(16))


def test_new_refuses_wrong_python_types() -> None:
    p = policy(4096)
    with pytest.raises(TypeError):
        ResolvedRuntimePolicy.new(
            5, p.version(), p.scheduling(), p.memory(), p.admission(),  # type: ignore[arg-type]
            p.attention_execution(), p.execution_determinism(), None,
        )  # fmt: skip
    with pytest.raises(TypeError):
        ResolvedRuntimePolicy.new(
            p.policy_id(), p.version(), p.scheduling(), p.memory(), p.admission(),
            "portable", p.execution_determinism(), None,  # type: ignore[arg-type]
        )  # fmt: skip
