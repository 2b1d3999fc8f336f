"""Every memo of a pure computation in the reference can be told to compute instead of remembering.

The reference remembers results of pure functions (a scenario's plan, a wire's decode, the plan a
wire was written from); a remembered result equals a fresh one. Inside ``computed_directly()`` every
such memo computes its value and stores nothing, so a caller watching what a computation does (the
functions it runs) sees all of it, whatever ran before.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Hashable, Iterator
from typing import TypeVar

__all__ = ["computed_directly", "memos_bypassed", "remembered"]

T = TypeVar("T")

_DIRECT: contextvars.ContextVar[bool] = contextvars.ContextVar("reference_memos_bypassed", default=False)


@contextlib.contextmanager
def computed_directly() -> Iterator[None]:
    """Every memo called inside computes its value instead of reading or filling its store."""
    token = _DIRECT.set(True)
    try:
        yield
    finally:
        _DIRECT.reset(token)


def memos_bypassed() -> bool:
    """Whether the caller runs inside ``computed_directly()``."""
    return _DIRECT.get()


def remembered(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` (pure, hashable arguments) remembered per argument tuple; computed afresh inside
    ``computed_directly()``."""
    remembering = functools.lru_cache(maxsize=256, typed=True)(function)

    @functools.wraps(function)
    def call(*args: Hashable) -> T:
        if _DIRECT.get():
            return function(*args)
        return remembering(*args)

    return call
