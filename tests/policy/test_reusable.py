"""Reusable-execution policy (spec 04 §2.4): bucket ids, ordering, limits, program policies."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import fingerprint
from reference.errors import InvalidExecutionPlan, Serialization
from reference.policy.reusable import (
    MAX_REUSABLE_EXECUTION_BUCKETS,
    MAX_REUSABLE_EXECUTION_PROGRAM_SHAPES,
    PrefillShape,
    ReusableExecutionBucketSpec,
    ReusableExecutionCapacity,
    ReusableExecutionCatalogLifetime,
    ReusableExecutionClassId,
    ReusableExecutionPolicy,
    ReusableExecutionProgramPolicy,
    ReusableExecutionProgramSpec,
    UniformDecodeShape,
    derive_bucket_id,
)
from seeds.policies import policy
from tests.policy.helpers import build
from tests.policy.strategies import bucket, reusable_wires

CTX = "test reusable"


def cap(s: int, t: int, p: int = 1) -> ReusableExecutionCapacity:
    return ReusableExecutionCapacity(s, t, p)


def b(cls: str, s: int, t: int, p: int = 1) -> ReusableExecutionBucketSpec:
    return ReusableExecutionBucketSpec.new(ReusableExecutionClassId(cls), cap(s, t, p))


def test_bucket_id_recipe() -> None:
    spec = b("execution.test-token", 1, 1, 1)
    material = {
        "domain": "ferrum.runtime-vnext.reusable-execution-bucket.v1",
        "class_id": "execution.test-token",
        "capacity": {"maximum_sequences": 1, "maximum_tokens": 1, "maximum_pages": 1},
    }
    assert spec.bucket_id == "reusable-bucket/sha256/" + fingerprint(material)
    assert spec.to_wire() == bucket("execution.test-token", 1, 1, 1)


@given(st.integers(1, 2**32 - 1), st.integers(1, 2**64 - 1), st.integers(1, 2**64 - 1))
def test_bucket_id_changes_with_every_capacity_dimension(s: int, t: int, p: int) -> None:
    cls = ReusableExecutionClassId("c")
    ids = {
        derive_bucket_id(cls, cap(s, t, p)),
        derive_bucket_id(cls, cap(s + 1 if s < 2**32 - 1 else s - 1, t, p)),
        derive_bucket_id(cls, cap(s, t + 1 if t < 2**64 - 1 else t - 1, p)),
        derive_bucket_id(cls, cap(s, t, p + 1 if p < 2**64 - 1 else p - 1)),
        derive_bucket_id(ReusableExecutionClassId("d"), cap(s, t, p)),
    }
    assert len(ids) == 5


@pytest.mark.parametrize("dims", [(0, 1, 1), (1, 0, 1), (1, 1, 0)])
def test_capacity_dimensions_non_zero(dims: tuple[int, int, int]) -> None:
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionCapacity(*dims)


@pytest.mark.parametrize("value", ["", "x" * 161, "a b", "caf\u00e9"])
def test_class_id_rules(value: str) -> None:
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionClassId(value)
    assert ReusableExecutionClassId("x" * 160).value == "x" * 160


def test_forged_bucket_id_rejected() -> None:
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionBucketSpec("reusable-bucket/sha256/" + "0" * 64, ReusableExecutionClassId("c"), cap(1, 1))
    wire = bucket("c", 1, 1, 1)
    wire["capacity"]["maximum_pages"] = 2
    with pytest.raises(Serialization):
        ReusableExecutionBucketSpec.from_wire(wire, context=CTX)


def test_policy_counts() -> None:
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionPolicy.new(0, [b("c", 1, 1)])
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionPolicy.new(1, [])
    many = [b("c", 1, i + 1) for i in range(MAX_REUSABLE_EXECUTION_BUCKETS)]
    assert len(ReusableExecutionPolicy.new(1, many).buckets) == MAX_REUSABLE_EXECUTION_BUCKETS
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionPolicy.new(1, [*many, b("c", 1, 1000)])


def test_new_sorts_and_constructor_requires_canonical_order() -> None:
    buckets = [b("z", 1, 1), b("a", 2, 2), b("a", 1, 1)]
    policy = ReusableExecutionPolicy.new(1, buckets)
    assert [(x.class_id.value, x.capacity.maximum_sequences) for x in policy.buckets] == [("a", 1), ("a", 2), ("z", 1)]
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionPolicy(1, tuple(buckets))


@pytest.mark.parametrize(
    "chain",
    [
        [(1, 1, 1), (1, 1, 1)],  # equal
        [(2, 2, 2), (1, 3, 3)],  # decreasing sequences
        [(1, 3, 1), (2, 2, 2)],  # decreasing tokens despite sorted order
    ],
)
def test_class_chains_must_strictly_extend(chain: list[tuple[int, int, int]]) -> None:
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionPolicy.new(1, [b("c", *dims) for dims in chain])


@given(reusable_wires())
def test_wire_round_trip(wire: dict[str, Any]) -> None:
    policy = ReusableExecutionPolicy.from_wire(wire, context=CTX)
    assert policy.to_wire() == wire
    assert "program_policy" not in wire
    assert ReusableExecutionPolicy.from_wire({**wire, "program_policy": None}, context=CTX) == policy


@given(reusable_wires())
def test_wire_rejects_unknown_keys_and_unsorted(wire: dict[str, Any]) -> None:
    with pytest.raises(Serialization):
        ReusableExecutionPolicy.from_wire({**wire, "extra": 1}, context=CTX)
    if len(wire["buckets"]) > 1:
        shuffled = copy.deepcopy(wire)
        shuffled["buckets"].reverse()
        with pytest.raises(Serialization):
            ReusableExecutionPolicy.from_wire(shuffled, context=CTX)


def test_covering_bucket_is_first_in_class() -> None:
    policy = ReusableExecutionPolicy.new(1, [b("c", 1, 4), b("c", 2, 8), b("d", 4, 64)])
    cls = ReusableExecutionClassId("c")
    assert policy.smallest_covering_bucket(cls, 1, 3, 0) == policy.buckets[0]
    assert policy.smallest_covering_bucket(cls, 2, 3, 0) == policy.buckets[1]
    assert policy.smallest_covering_bucket(cls, 3, 3, 0) is None
    assert policy.smallest_covering_bucket(cls, 0, 3, 0) is None
    assert policy.startup_capture_case_count() == 3


# ----------------------------------------------------------------------- program shapes and policies


def test_uniform_decode_shape_rules() -> None:
    assert UniformDecodeShape.new(3, 2).token_capacity == 6
    for args in [(0, 0, 1), (1, 1, 0), (2, 5, 2)]:
        with pytest.raises(InvalidExecutionPlan):
            UniformDecodeShape(*args)


def test_prefill_shape_rules() -> None:
    assert PrefillShape(0, 4, 4).request_capacity_value() == 1
    for args in [(0, 0, 4), (0, 4, 0), (1, 4, 4), (2**64 - 1, 1, 2**64 - 1)]:
        with pytest.raises(InvalidExecutionPlan):
            PrefillShape(*args)


def _spec(cls: str, shape: Any) -> ReusableExecutionProgramSpec:
    return ReusableExecutionProgramSpec(ReusableExecutionClassId(cls), shape)


def test_startup_sealed_adds_prefill_prefix_and_sorts() -> None:
    policy = ReusableExecutionProgramPolicy.exact_startup_sealed(1, 1, 1, [_spec("c", PrefillShape(4, 4, 8))])
    assert [s.shape for s in policy.programs] == [PrefillShape(0, 4, 8), PrefillShape(4, 4, 8)]
    on_demand = ReusableExecutionProgramPolicy.exact_on_demand([_spec("c", UniformDecodeShape.new(1, 1))])
    assert on_demand.catalog_lifetime is ReusableExecutionCatalogLifetime.ON_DEMAND_BOUNDED
    assert (on_demand.warmup_passes, on_demand.capture_passes, on_demand.replay_validation_passes) == (1, 1, 0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"warmup_passes": 0},
        {"capture_passes": 0},
        {"replay_validation_passes": 0},
        {"shape_semantics": "padded"},
        {"catalog_miss_policy": "fail"},
        {"catalog_lifetime": ReusableExecutionCatalogLifetime.ON_DEMAND_BOUNDED},  # needs (1, 1, 0)
        {"programs": ()},
    ],
)
def test_program_policy_rules(kwargs: dict[str, Any]) -> None:
    args: dict[str, Any] = {
        "shape_semantics": "exact",
        "catalog_miss_policy": "eager_fallback",
        "catalog_lifetime": ReusableExecutionCatalogLifetime.STARTUP_SEALED,
        "warmup_passes": 2,
        "capture_passes": 1,
        "replay_validation_passes": 1,
        "programs": (_spec("c", UniformDecodeShape.new(1, 1)),),
    }
    ReusableExecutionProgramPolicy(**args)
    args.update(kwargs)
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionProgramPolicy(**args)


def test_program_policy_order_classes_and_prefix() -> None:
    one = _spec("c", UniformDecodeShape.new(1, 1))
    two = _spec("c", UniformDecodeShape.new(2, 1))
    base = ("exact", "eager_fallback", ReusableExecutionCatalogLifetime.STARTUP_SEALED, 1, 1, 1)
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionProgramPolicy(*base, (two, one))  # unsorted
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionProgramPolicy(*base, (one, one))  # duplicate
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionProgramPolicy(*base, (one, _spec("d", UniformDecodeShape.new(1, 1))))  # shape in two classes
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionProgramPolicy(*base, (_spec("c", PrefillShape(4, 4, 8)),))  # missing prefix
    too_many = tuple(
        _spec("c", UniformDecodeShape.new(1, q)) for q in range(1, MAX_REUSABLE_EXECUTION_PROGRAM_SHAPES + 2)
    )
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionProgramPolicy(*base, too_many)


def test_programs_need_a_covering_bucket_in_their_class() -> None:
    programs = ReusableExecutionProgramPolicy.exact_startup_sealed(1, 1, 1, [_spec("c", UniformDecodeShape.new(2, 2))])
    ReusableExecutionPolicy.new(1, [b("c", 2, 4)]).with_program_policy(programs)
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionPolicy.new(1, [b("c", 1, 4)]).with_program_policy(programs)
    with pytest.raises(InvalidExecutionPlan):
        ReusableExecutionPolicy.new(1, [b("d", 2, 4)]).with_program_policy(programs)


def test_program_policy_wire_round_trip_and_tagging() -> None:
    programs = ReusableExecutionProgramPolicy.exact_startup_sealed(
        2, 1, 1, [_spec("c", UniformDecodeShape.new(2, 2)), _spec("c", PrefillShape(2, 2, 4))]
    )
    policy = ReusableExecutionPolicy.new(2, [b("c", 2, 4)]).with_program_policy(programs)
    wire = policy.to_wire()
    assert wire["program_policy"]["programs"][0]["shape"]["topology"] == "uniform_decode"
    assert ReusableExecutionPolicy.from_wire(wire, context=CTX) == policy
    assert policy.startup_capture_case_count() == 3
    bad = copy.deepcopy(wire)
    bad["program_policy"]["programs"][0]["shape"]["extra"] = 1
    with pytest.raises(Serialization):
        ReusableExecutionPolicy.from_wire(bad, context=CTX)
    bad = copy.deepcopy(wire)
    bad["program_policy"]["programs"][0]["shape"]["topology"] = "decode"
    with pytest.raises(Serialization):
        ReusableExecutionPolicy.from_wire(bad, context=CTX)
    bad = copy.deepcopy(wire)
    bad["program_policy"]["programs"][0]["shape"]["token_capacity"] = 5
    with pytest.raises(Serialization):
        ReusableExecutionPolicy.from_wire(bad, context=CTX)


@given(reusable_wires(), st.randoms(use_true_random=False))
def test_new_is_independent_of_bucket_construction_order(wire: dict[str, Any], rnd: Any) -> None:
    canonical = ReusableExecutionPolicy.from_wire(wire, context=CTX)
    shuffled = list(canonical.buckets)
    rnd.shuffle(shuffled)
    rebuilt = ReusableExecutionPolicy.new(canonical.maximum_reusable_lanes, shuffled)
    assert rebuilt == canonical
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    fields["memory"]["maximum_active_sequences"] = 64
    fields["admission"]["maximum_scheduled_tokens"] = 10**6
    fields["reusable_execution"] = rebuilt.to_wire()
    with_reusable = build(fields)
    fields["reusable_execution"] = None
    assert with_reusable.fingerprint_str() != build(fields).fingerprint_str()
