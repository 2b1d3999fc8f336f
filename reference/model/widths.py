"""Rust integer-width checks for constructor arguments (programming errors raise ValueError)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["check_bool", "check_i64", "check_u8", "check_u16", "check_u32", "check_u64", "u32s", "u64s"]


def _check(value: Any, low: int, high: int, what: str, name: str) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{name} must be a {what}, got {value!r}")
    return value


def check_u8(value: Any, name: str) -> int:
    return _check(value, 0, 2**8 - 1, "u8", name)


def check_u16(value: Any, name: str) -> int:
    return _check(value, 0, 2**16 - 1, "u16", name)


def check_u32(value: Any, name: str) -> int:
    return _check(value, 0, 2**32 - 1, "u32", name)


def check_u64(value: Any, name: str) -> int:
    return _check(value, 0, 2**64 - 1, "u64", name)


def check_i64(value: Any, name: str) -> int:
    return _check(value, -(2**63), 2**63 - 1, "i64", name)


def check_bool(value: Any, name: str) -> bool:
    if type(value) is not bool:
        raise ValueError(f"{name} must be a bool, got {value!r}")
    return value


def u64s(values: Iterable[Any], name: str) -> tuple[int, ...]:
    """A tuple of u64 values (accepts any iterable, e.g. a list)."""
    return tuple(check_u64(v, name) for v in values)


def u32s(values: Iterable[Any], name: str) -> tuple[int, ...]:
    return tuple(check_u32(v, name) for v in values)
