"""Rust integer widths and checked arithmetic, with one error policy.

Error policy: a helper here never chooses a contract error. Each either
answers (a ``bool``, or ``None`` where Rust's ``checked_*`` returns ``None``)
or, when its caller passes ``error``, raises ``error()``; the caller passes
the ``VNextError`` its rule names, so every site keeps its contract kind and
fields. The ``check_*`` argument checks stand in for Rust's type system: a
value the Rust parameter cannot hold is a programming error, never a contract
outcome: ``RustTypeError`` (a ``TypeError`` and a ``ValueError``) for a value
of the wrong type (``bool`` is not an int here), ``ValueError`` for an int out
of range. Decode boundaries turn both into ``Serialization``
(``reference.wire.decode_with``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, TypeGuard, overload

__all__ = [
    "I64_MAX",
    "I64_MIN",
    "U8_MAX",
    "U16_MAX",
    "U32_MAX",
    "U64_MAX",
    "U128_MAX",
    "USIZE_MAX",
    "ErrorFactory",
    "RustTypeError",
    "ceil_div",
    "check_bool",
    "check_i64",
    "check_uint",
    "check_uints",
    "checked_add",
    "checked_align_up",
    "checked_mul",
    "checked_product",
    "checked_round_up",
    "checked_sub",
    "checked_sum",
    "fits_i64",
    "fits_uint",
    "is_power_of_two",
    "rust_trim",
]

U8_MAX: Final = 2**8 - 1
U16_MAX: Final = 2**16 - 1
U32_MAX: Final = 2**32 - 1
U64_MAX: Final = 2**64 - 1
U128_MAX: Final = 2**128 - 1
#: The contract's ``usize`` is 64 bits wide.
USIZE_MAX: Final = U64_MAX
I64_MIN: Final = -(2**63)
I64_MAX: Final = 2**63 - 1

ErrorFactory = Callable[[], Exception]
"""Builds the error a failed checked operation raises (the caller's contract error)."""


# --------------------------------------------------------------------------- widths


class RustTypeError(TypeError, ValueError):
    """An argument of a type the Rust parameter cannot have (a bool or a non-int for an integer, a
    non-bool for a bool): a ``TypeError`` that is also a ``ValueError``, the class of every bad
    argument value."""


def fits_uint(value: object, bits: int) -> TypeGuard[int]:
    """Whether ``value`` is an int (not a bool) that Rust's ``u{bits}`` holds."""
    return type(value) is int and 0 <= value <= (1 << bits) - 1


def fits_i64(value: object) -> TypeGuard[int]:
    """Whether ``value`` is an int (not a bool) that Rust's ``i64`` holds."""
    return type(value) is int and I64_MIN <= value <= I64_MAX


def check_uint(value: Any, bits: int, name: str) -> int:
    """``value`` when Rust's ``u{bits}`` holds it; ``RustTypeError`` / ``ValueError`` otherwise."""
    if type(value) is not int:
        raise RustTypeError(f"{name} must be a u{bits} int, got {type(value).__name__}")
    if not 0 <= value <= (1 << bits) - 1:
        raise ValueError(f"{name} must be a u{bits}, got {value}")
    return value


def check_uints(values: Iterable[Any], bits: int, name: str) -> tuple[int, ...]:
    """``check_uint`` on every item of any iterable; the items as a tuple."""
    return tuple(check_uint(value, bits, name) for value in values)


def check_i64(value: Any, name: str) -> int:
    """``value`` when Rust's ``i64`` holds it; ``RustTypeError`` / ``ValueError`` otherwise."""
    if type(value) is not int:
        raise RustTypeError(f"{name} must be an i64 int, got {type(value).__name__}")
    if not I64_MIN <= value <= I64_MAX:
        raise ValueError(f"{name} must be an i64, got {value}")
    return value


def check_bool(value: Any, name: str) -> bool:
    """``value`` when it is a bool; ``RustTypeError`` otherwise."""
    if type(value) is not bool:
        raise RustTypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


# --------------------------------------------------------------------------- checked arithmetic


def _fail(error: ErrorFactory | None) -> None:
    if error is not None:
        raise error()


@overload
def checked_add(a: int, b: int, *, limit: int = ...) -> int | None: ...
@overload
def checked_add(a: int, b: int, *, limit: int = ..., error: ErrorFactory) -> int: ...
def checked_add(a: int, b: int, *, limit: int = U64_MAX, error: ErrorFactory | None = None) -> int | None:
    """``a + b`` within ``limit`` (u64 unless told)."""
    total = a + b
    if total <= limit:
        return total
    _fail(error)
    return None


@overload
def checked_sub(a: int, b: int) -> int | None: ...
@overload
def checked_sub(a: int, b: int, *, error: ErrorFactory) -> int: ...
def checked_sub(a: int, b: int, *, error: ErrorFactory | None = None) -> int | None:
    """``a - b`` for unsigned values (``None`` below zero)."""
    if b <= a:
        return a - b
    _fail(error)
    return None


@overload
def checked_mul(a: int, b: int, *, limit: int = ...) -> int | None: ...
@overload
def checked_mul(a: int, b: int, *, limit: int = ..., error: ErrorFactory) -> int: ...
def checked_mul(a: int, b: int, *, limit: int = U64_MAX, error: ErrorFactory | None = None) -> int | None:
    """``a * b`` within ``limit`` (u64 unless told)."""
    product = a * b
    if product <= limit:
        return product
    _fail(error)
    return None


@overload
def checked_sum(values: Iterable[int], *, limit: int = ...) -> int | None: ...
@overload
def checked_sum(values: Iterable[int], *, limit: int = ..., error: ErrorFactory) -> int: ...
def checked_sum(values: Iterable[int], *, limit: int = U64_MAX, error: ErrorFactory | None = None) -> int | None:
    """The sum, failing at the first partial sum over ``limit`` (the empty sum is 0)."""
    total = 0
    for value in values:
        total += value
        if total > limit:
            _fail(error)
            return None
    return total


@overload
def checked_product(values: Iterable[int], *, limit: int = ...) -> int | None: ...
@overload
def checked_product(values: Iterable[int], *, limit: int = ..., error: ErrorFactory) -> int: ...
def checked_product(values: Iterable[int], *, limit: int = U64_MAX, error: ErrorFactory | None = None) -> int | None:
    """The product, failing at the first partial product over ``limit`` (the empty product is 1)."""
    product = 1
    for value in values:
        product *= value
        if product > limit:
            _fail(error)
            return None
    return product


def is_power_of_two(value: int) -> bool:
    """``u64::is_power_of_two``: 0 is not, 1 is, ``2**63`` is the largest."""
    return 0 < value <= U64_MAX and value & (value - 1) == 0


@overload
def checked_align_up(value: int, alignment: int) -> int | None: ...
@overload
def checked_align_up(value: int, alignment: int, *, error: ErrorFactory) -> int: ...
def checked_align_up(value: int, alignment: int, *, error: ErrorFactory | None = None) -> int | None:
    """``value`` rounded up to a multiple of ``alignment``; fails when ``alignment`` is not a
    non-zero power of two or the checked u64 add ``value + alignment - 1`` overflows."""
    if is_power_of_two(alignment):
        bumped = value + alignment - 1
        if bumped <= U64_MAX:
            return bumped & ~(alignment - 1)
    _fail(error)
    return None


def checked_round_up(extent: int, multiple: int) -> int | None:
    """``ceil(extent / multiple) * multiple``; ``None`` when either is 0 or ``extent + multiple - 1`` overflows u64."""
    if extent == 0 or multiple == 0 or extent + multiple - 1 > U64_MAX:
        return None
    return ((extent + multiple - 1) // multiple) * multiple


def ceil_div(a: int, b: int) -> int:
    """Ceiling division of a non-negative ``a`` by a positive ``b``."""
    return -(-a // b)


# --------------------------------------------------------------------------- text

# Rust's ``char::is_whitespace`` (Unicode White_Space); Python's ``str.strip()`` also strips U+001C..U+001F.
_RUST_WHITESPACE: Final = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u0085\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def rust_trim(text: str) -> str:
    """``str::trim`` with Rust's whitespace set."""
    return text.strip(_RUST_WHITESPACE)
