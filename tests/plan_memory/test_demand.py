"""``DynamicResourceDemand`` and ``bind_runtime_limits`` (spec 04 §7.1, spec 05 §7.5, §7.7)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import InvalidExecutionPlan, Serialization
from reference.ints import U32_MAX, U64_MAX
from reference.plan.memory import (
    DynamicResourceDemand,
    DynamicResourceShape,
    DynamicResourceShapeBucket,
    bind_runtime_limits,
)

SHAPE = DynamicResourceShape(4, 12, 0)  # resource_work([3, 3, 3, 3])


def test_upstream_evaluations() -> None:
    assert DynamicResourceDemand.fixed(13).evaluate_shape_bytes(SHAPE) == 13
    assert DynamicResourceDemand.actual_sequences(7, 8).evaluate_shape_bytes(SHAPE) == 28
    assert DynamicResourceDemand.tokens(3, 32).evaluate_shape_bytes(SHAPE) == 36
    assert DynamicResourceDemand.affine(5, 7, 8, 3, 32).evaluate_shape_bytes(SHAPE) == 69
    with pytest.raises(InvalidExecutionPlan):
        DynamicResourceDemand.pages(11, 8).evaluate_shape_bytes(SHAPE)  # zero pages -> zero bytes
    buckets = DynamicResourceDemand.bounded_shape_buckets(
        [DynamicResourceShapeBucket(1, 8, 2, 64), DynamicResourceShapeBucket(4, 32, 8, 128)]
    )
    assert buckets.evaluate_shape_bytes(SHAPE) == 128
    with pytest.raises(InvalidExecutionPlan):
        buckets.evaluate_shape_bytes(DynamicResourceShape(5, 12, 0))


@pytest.mark.parametrize(
    "build",
    [
        lambda: DynamicResourceDemand.fixed(0),
        lambda: DynamicResourceDemand.actual_sequences(0, 3),
        lambda: DynamicResourceDemand.actual_sequences(7, 0),
        lambda: DynamicResourceDemand.actual_sequences(U64_MAX, 2),
        lambda: DynamicResourceDemand.tokens(0, 1),
        lambda: DynamicResourceDemand.tokens(1, 0),
        lambda: DynamicResourceDemand.tokens(2**33, 2**32),
        lambda: DynamicResourceDemand.affine(1, 0, 3, 0, 3),
        lambda: DynamicResourceDemand.affine(1, 1, 0, 1, 1),
        lambda: DynamicResourceDemand.affine(U64_MAX, 1, 1, 0, 1),
        lambda: DynamicResourceDemand.pages(0, 1),
        lambda: DynamicResourceDemand.pages(1, 0),
        lambda: DynamicResourceDemand.pages(2**40, 2**40),
        lambda: DynamicResourceDemand.bounded_shape_buckets([]),
        lambda: DynamicResourceDemand.bounded_shape_buckets(
            [DynamicResourceShapeBucket(1, 8, 2, 64), DynamicResourceShapeBucket(1, 8, 2, 64)]
        ),
        lambda: DynamicResourceDemand.bounded_shape_buckets(
            [DynamicResourceShapeBucket(1, 8, 2, 64), DynamicResourceShapeBucket(2, 4, 2, 64)]
        ),
        lambda: DynamicResourceDemand.bounded_shape_buckets(
            [DynamicResourceShapeBucket(1, 8, 2, 64), DynamicResourceShapeBucket(2, 8, 2, 32)]
        ),
        lambda: DynamicResourceDemand.bounded_shape_buckets(
            [DynamicResourceShapeBucket(1, i + 1, 1, 1) for i in range(65)]
        ),
        lambda: DynamicResourceShapeBucket(0, 1, 1, 1),
        lambda: DynamicResourceShape.new(1, 0, 1),
    ],
)
def test_invalid_demands_are_typed(build: Any) -> None:
    with pytest.raises(InvalidExecutionPlan):
        build()


def test_bounded_variants_refuse_larger_shapes() -> None:
    with pytest.raises(InvalidExecutionPlan):
        DynamicResourceDemand.actual_sequences(7, 3).evaluate_shape_bytes(DynamicResourceShape(4, 1, 1))
    with pytest.raises(InvalidExecutionPlan):
        DynamicResourceDemand.tokens(7, 3).evaluate_shape_bytes(DynamicResourceShape(1, 4, 1))
    with pytest.raises(InvalidExecutionPlan):
        DynamicResourceDemand.pages(7, 3).evaluate_shape_bytes(DynamicResourceShape(1, 1, 4))
    with pytest.raises(InvalidExecutionPlan):
        DynamicResourceDemand.affine(0, 1, 3, 1, 3).evaluate_shape_bytes(DynamicResourceShape(1, 4, 1))


def test_theoretical_maximum_shapes() -> None:
    assert DynamicResourceDemand.fixed(1).theoretical_maximum_shape() == DynamicResourceShape(1, 1, 1)
    assert DynamicResourceDemand.actual_sequences(1, 5).theoretical_maximum_shape() == DynamicResourceShape(5, 1, 1)
    assert DynamicResourceDemand.tokens(1, 9).theoretical_maximum_shape() == DynamicResourceShape(1, 9, 1)
    assert DynamicResourceDemand.pages(1, 7).theoretical_maximum_shape() == DynamicResourceShape(1, 1, 7)
    assert DynamicResourceDemand.affine(0, 1, 5, 1, 9).theoretical_maximum_shape() == DynamicResourceShape(5, 9, 1)
    buckets = DynamicResourceDemand.bounded_shape_buckets(
        [DynamicResourceShapeBucket(1, 8, 2, 64), DynamicResourceShapeBucket(4, 32, 8, 128)]
    )
    assert buckets.theoretical_maximum_shape() == DynamicResourceShape(4, 32, 8)


demands = st.one_of(
    st.builds(DynamicResourceDemand.fixed, st.integers(1, U64_MAX)),
    st.builds(DynamicResourceDemand.actual_sequences, st.integers(1, 2**20), st.integers(1, U32_MAX)),
    st.builds(DynamicResourceDemand.tokens, st.integers(1, 2**20), st.integers(1, 2**40)),
    st.builds(DynamicResourceDemand.pages, st.integers(1, 2**20), st.integers(1, 2**40)),
    st.builds(
        DynamicResourceDemand.affine,
        st.integers(0, 2**20),
        st.integers(1, 2**20),
        st.integers(1, 2**20),
        st.integers(0, 2**20),
        st.integers(1, 2**20),
    ),
)


@given(demands)
def test_wire_round_trip_and_maximum_evaluates(demand: DynamicResourceDemand) -> None:
    assert DynamicResourceDemand.from_wire(demand.to_wire()) == demand
    assert demand.evaluate_shape_bytes(demand.theoretical_maximum_shape()) >= demand.evaluate_shape_bytes(
        demand.minimum_shape()
    )


@pytest.mark.parametrize(
    "raw",
    [
        {"fixed": {"bytes": 0}},
        {"fixed": {"bytes": 4, "extra": 1}},
        {"tokens": {"bytes_per_token": 1}},
        {"tokens": {"bytes_per_token": 1, "maximum_tokens": -1}},
        {"actual_sequences": {"bytes_per_sequence": 1, "maximum_sequences": 2**32}},
        {"fixed": {"bytes": 4}, "tokens": {"bytes_per_token": 1, "maximum_tokens": 1}},
        {"fixed": {"bytes": 4.0}},
        "fixed",
        {"linear": {"bytes": 4}},
    ],
)
def test_wire_rejections(raw: Any) -> None:
    with pytest.raises(Serialization):
        DynamicResourceDemand.from_wire(raw)


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ({"fixed": {"bytes": 64}}, {"fixed": {"bytes": 64}}),
        (
            {"actual_sequences": {"bytes_per_sequence": 7}},
            {"actual_sequences": {"bytes_per_sequence": 7, "maximum_sequences": 3}},
        ),
        ({"tokens": {"bytes_per_token": 7}}, {"tokens": {"bytes_per_token": 7, "maximum_tokens": 32}}),
        (
            {"affine": {"fixed_bytes": 5, "bytes_per_sequence": 7, "bytes_per_token": 3}},
            {
                "affine": {
                    "fixed_bytes": 5,
                    "bytes_per_sequence": 7,
                    "maximum_sequences": 3,
                    "bytes_per_token": 3,
                    "maximum_tokens": 32,
                }
            },
        ),
        ({"pages": {"bytes_per_page": 11, "maximum_pages": 8}}, {"pages": {"bytes_per_page": 11, "maximum_pages": 8}}),
        (
            {
                "bounded_shape_buckets": {
                    "buckets": [{"maximum_sequences": 1, "maximum_tokens": 8, "maximum_pages": 2, "bytes": 64}]
                }
            },
            {
                "bounded_shape_buckets": {
                    "buckets": [{"maximum_sequences": 1, "maximum_tokens": 8, "maximum_pages": 2, "bytes": 64}]
                }
            },
        ),
    ],
)
def test_bind_runtime_limits(formula: Any, expected: Any) -> None:
    assert bind_runtime_limits(formula, 3, 32).to_wire() == expected


def test_bind_runtime_limits_failures() -> None:
    with pytest.raises(InvalidExecutionPlan):
        bind_runtime_limits({"tokens": {"bytes_per_token": 2**40}}, 3, 2**30)  # product overflows u64
    with pytest.raises(InvalidExecutionPlan):
        bind_runtime_limits({"actual_sequences": {"bytes_per_sequence": 7}}, 0, 1)
    with pytest.raises(InvalidExecutionPlan):
        bind_runtime_limits({"affine": {"fixed_bytes": 1, "bytes_per_sequence": 0, "bytes_per_token": 0}}, 1, 1)
    with pytest.raises(InvalidExecutionPlan):
        bind_runtime_limits({"fixed": {"bytes": 0}}, 1, 1)
    with pytest.raises(Serialization):
        bind_runtime_limits({"tokens": {"bytes_per_token": 7, "maximum_tokens": 9}}, 1, 1)
    with pytest.raises(ValueError):
        bind_runtime_limits({"fixed": {"bytes": 1}}, 2**32, 1)


@given(st.integers(1, 2**32), st.integers(1, U32_MAX), st.integers(1, U64_MAX))
def test_token_binding_overflow_is_typed(bpt: int, mas: int, mst: int) -> None:
    formula = {"tokens": {"bytes_per_token": bpt}}
    if bpt * mst > U64_MAX:
        with pytest.raises(InvalidExecutionPlan):
            bind_runtime_limits(formula, mas, mst)
    else:
        demand = bind_runtime_limits(formula, mas, mst)
        assert demand.evaluate_shape_bytes(demand.theoretical_maximum_shape()) == bpt * mst
