"""Checked u64 arithmetic: overflow is a validation failure, never a wrap (spec 02 §1)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["U64_MAX", "checked_add", "checked_mul", "checked_product", "ceil_div", "round_up", "rust_trim"]

U64_MAX: Final = 2**64 - 1


def checked_add(a: int, b: int) -> int | None:
    """``a + b`` or None when it exceeds u64."""
    total = a + b
    return total if total <= U64_MAX else None


def checked_mul(a: int, b: int) -> int | None:
    """``a * b`` or None when it exceeds u64."""
    product = a * b
    return product if product <= U64_MAX else None


def checked_product(values: Iterable[int]) -> int | None:
    """Checked product starting at 1 (the empty product is 1); None on overflow."""
    product = 1
    for value in values:
        product *= value
        if product > U64_MAX:
            return None
    return product


def ceil_div(a: int, b: int) -> int:
    """Ceiling division of non-negative ``a`` by positive ``b``."""
    return -(-a // b)


def round_up(extent: int, multiple: int) -> int | None:
    """``ceil(extent / multiple) * multiple``; None when either is 0 or the add overflows."""
    if extent == 0 or multiple == 0:
        return None
    if checked_add(extent, multiple - 1) is None:
        return None
    return ((extent + multiple - 1) // multiple) * multiple


# Rust's ``char::is_whitespace`` (Unicode White_Space); Python's strip() differs.
_RUST_WHITESPACE: Final = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def rust_trim(text: str) -> str:
    """``str::trim`` with Rust's whitespace set."""
    return text.strip(_RUST_WHITESPACE)
