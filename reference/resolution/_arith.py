"""Checked u64 arithmetic for resolution and estimation (spec 04 §0): overflow is ``InvalidExecutionPlan``."""

from __future__ import annotations

from collections.abc import Iterable

from reference.errors import InvalidExecutionPlan
from reference.wire import U64_MAX

__all__ = ["align_up", "add_u64", "is_power_of_two", "mul_u64", "product_u64", "sum_u64"]


def is_power_of_two(value: int) -> bool:
    """``u64::is_power_of_two`` (0 is not)."""
    return 0 < value <= U64_MAX and value & (value - 1) == 0


def add_u64(a: int, b: int, what: str) -> int:
    """``a + b`` or ``InvalidExecutionPlan`` when it exceeds u64."""
    total = a + b
    if total > U64_MAX:
        raise InvalidExecutionPlan(reason=f"{what} overflows u64")
    return total


def mul_u64(a: int, b: int, what: str) -> int:
    """``a * b`` or ``InvalidExecutionPlan`` when it exceeds u64."""
    product = a * b
    if product > U64_MAX:
        raise InvalidExecutionPlan(reason=f"{what} overflows u64")
    return product


def sum_u64(values: Iterable[int], what: str) -> int:
    total = 0
    for value in values:
        total = add_u64(total, value, what)
    return total


def product_u64(values: Iterable[int], what: str) -> int:
    product = 1
    for value in values:
        product = mul_u64(product, value, what)
    return product


def align_up(value: int, alignment: int) -> int:
    """Round ``value`` up to a non-zero power-of-two ``alignment``; the add ``value + a - 1`` is checked."""
    if not is_power_of_two(alignment):
        raise InvalidExecutionPlan(reason=f"alignment {alignment} is not a non-zero power of two")
    bumped = add_u64(value, alignment - 1, "aligned byte count")
    return bumped & ~(alignment - 1)
