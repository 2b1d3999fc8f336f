"""Rust integer widths for constructor arguments.

A value Rust could not hold (bool, non-int, negative, too wide) is a
programming error, not a contract outcome: ``TypeError`` / ``ValueError``
(turned into ``Serialization`` at decode boundaries by ``decode_with``).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["U32_MAX", "U64_MAX", "check_bool", "check_uint"]

U32_MAX: Final = 2**32 - 1
U64_MAX: Final = 2**64 - 1


def check_uint(value: Any, bits: int, owner: str, name: str) -> int:
    """Return ``value`` if it is an int in ``0..2**bits``."""
    if type(value) is not int:
        raise TypeError(f"{owner}.{name} must be a u{bits} int, got {type(value).__name__}")
    if not 0 <= value <= 2**bits - 1:
        raise ValueError(f"{owner}.{name} must be a u{bits}, got {value}")
    return value


def check_bool(value: Any, owner: str, name: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{owner}.{name} must be a bool, got {type(value).__name__}")
    return value
