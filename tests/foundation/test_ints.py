"""``reference.ints``: Rust widths, checked arithmetic and its one error policy."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.errors import InvalidExecutionPlan, invalid_plan
from reference.ints import (
    I64_MAX,
    I64_MIN,
    U32_MAX,
    U64_MAX,
    U128_MAX,
    RustTypeError,
    ceil_div,
    check_bool,
    check_i64,
    check_uint,
    check_uints,
    checked_add,
    checked_align_up,
    checked_mul,
    checked_product,
    checked_round_up,
    checked_sub,
    checked_sum,
    fits_i64,
    fits_uint,
    is_power_of_two,
    rust_trim,
)

U64 = st.integers(0, U64_MAX)
BOOM = partial(invalid_plan, "boom")


def test_widths() -> None:
    assert (U32_MAX, U64_MAX, U128_MAX) == (2**32 - 1, 2**64 - 1, 2**128 - 1)
    assert (I64_MIN, I64_MAX) == (-(2**63), 2**63 - 1)


@given(st.integers(-(2**130), 2**130), st.sampled_from([8, 16, 32, 64, 128]))
def test_fits_uint_is_the_rust_range(value: int, bits: int) -> None:
    assert fits_uint(value, bits) == (0 <= value < 2**bits)
    assert fits_i64(value) == (-(2**63) <= value < 2**63)


@pytest.mark.parametrize("value", [True, False, 1.0, "1", None])
def test_non_integers_never_fit_and_are_rust_type_errors(value: Any) -> None:
    assert not fits_uint(value, 64) and not fits_i64(value)
    for check in (lambda: check_uint(value, 64, "x"), lambda: check_i64(value, "x")):
        with pytest.raises(RustTypeError) as info:
            check()
        assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)


def test_argument_checks() -> None:
    assert check_uint(U32_MAX, 32, "x") == U32_MAX
    assert check_uints([1, 2], 8, "x") == (1, 2)
    assert check_i64(I64_MIN, "x") == I64_MIN
    assert check_bool(True, "x") is True
    for call in (
        lambda: check_uint(U32_MAX + 1, 32, "x"),
        lambda: check_uint(-1, 8, "x"),
        lambda: check_i64(2**63, "x"),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert not isinstance(info.value, TypeError)
    with pytest.raises(RustTypeError):
        check_bool(1, "x")
    with pytest.raises(ValueError, match="x must be a u8"):
        check_uints([1, 256], 8, "x")


@given(U64, U64)
def test_checked_add_mul_sub(a: int, b: int) -> None:
    assert checked_add(a, b) == (a + b if a + b <= U64_MAX else None)
    assert checked_mul(a, b) == (a * b if a * b <= U64_MAX else None)
    assert checked_sub(a, b) == (a - b if b <= a else None)
    assert checked_add(a, b, limit=U128_MAX) == a + b


@given(st.lists(U64, max_size=6))
def test_checked_sum_and_product_fail_at_the_first_partial_result(values: list[int]) -> None:
    partial_sums = [sum(values[: i + 1]) for i in range(len(values))]
    partial_products = [1]
    for value in values:
        partial_products.append(partial_products[-1] * value)
    assert checked_sum(values) == (None if any(s > U64_MAX for s in partial_sums) else sum(values))
    expected = None if any(p > U64_MAX for p in partial_products) else partial_products[-1]
    assert checked_product(values) == expected


def test_a_caller_error_replaces_none() -> None:
    for call in (
        lambda: checked_add(U64_MAX, 1, error=BOOM),
        lambda: checked_mul(2**32, 2**32, error=BOOM),
        lambda: checked_sub(0, 1, error=BOOM),
        lambda: checked_sum([U64_MAX, 1], error=BOOM),
        lambda: checked_product([2**63, 2], error=BOOM),
        lambda: checked_align_up(U64_MAX, 2, error=BOOM),
        lambda: checked_align_up(1, 3, error=BOOM),
    ):
        with pytest.raises(InvalidExecutionPlan) as info:
            call()
        assert info.value.reason == "boom"
    assert checked_add(1, 2, error=BOOM) == 3


@given(U64, st.integers(0, 63))
def test_checked_align_up(value: int, shift: int) -> None:
    alignment = 1 << shift
    result = checked_align_up(value, alignment)
    if value + alignment - 1 > U64_MAX:
        assert result is None
    else:
        assert result is not None and result % alignment == 0 and value <= result < value + alignment


@pytest.mark.parametrize("alignment", [0, 3, 12, 2**64])
def test_align_up_needs_a_u64_power_of_two(alignment: int) -> None:
    assert not is_power_of_two(alignment)
    assert checked_align_up(1, alignment) is None


def test_round_up_and_ceil_div() -> None:
    assert checked_round_up(5, 4) == 8 and checked_round_up(8, 4) == 8
    assert checked_round_up(0, 4) is None and checked_round_up(4, 0) is None
    assert checked_round_up(U64_MAX, 2) is None
    assert ceil_div(0, 8) == 0 and ceil_div(9, 8) == 2


def test_rust_trim_strips_unicode_white_space_only() -> None:
    assert rust_trim("\u3000 a\u2028\t") == "a"
    assert rust_trim("\x1ca\x1f") == "\x1ca\x1f"  # Python's strip() would remove these
