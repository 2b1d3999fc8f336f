"""Checked unsigned arithmetic for the memory plan: overflow is ``InvalidExecutionPlan``, never a wrap."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from reference.errors import InvalidExecutionPlan

__all__ = ["U32_MAX", "U64_MAX", "U128_MAX", "add", "ep", "mul", "require_uint", "sub", "total"]

U32_MAX: Final = 2**32 - 1
U64_MAX: Final = 2**64 - 1
U128_MAX: Final = 2**128 - 1


def ep(reason: str) -> InvalidExecutionPlan:
    """The ``InvalidExecutionPlan`` every memory rule raises."""
    return InvalidExecutionPlan(reason=reason)


def add(a: int, b: int, what: str, *, limit: int = U64_MAX) -> int:
    """``a + b`` within ``limit`` (u64 unless told), else ``InvalidExecutionPlan``."""
    result = a + b
    if result > limit:
        raise ep(f"{what} overflows")
    return result


def mul(a: int, b: int, what: str, *, limit: int = U64_MAX) -> int:
    result = a * b
    if result > limit:
        raise ep(f"{what} overflows")
    return result


def sub(a: int, b: int, what: str) -> int:
    """``a - b`` for unsigned values; underflow is ``InvalidExecutionPlan``."""
    if b > a:
        raise ep(f"{what} underflows")
    return a - b


def total(values: Iterable[int], what: str, *, limit: int = U64_MAX) -> int:
    """Checked sum, failing at the first partial sum over ``limit``."""
    acc = 0
    for value in values:
        acc = add(acc, value, what, limit=limit)
    return acc


def require_uint(value: Any, bits: int, name: str) -> int:
    """A Rust ``u{bits}`` argument; anything else is a programming error (``TypeError``/``ValueError``)."""
    if type(value) is not int:
        raise TypeError(f"{name} must be a u{bits} int, got {type(value).__name__}")
    if not 0 <= value <= 2**bits - 1:
        raise ValueError(f"{name} must be a u{bits}, got {value}")
    return value
