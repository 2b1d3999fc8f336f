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
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import TypeVar

__all__ = ["ValidByIdentity", "computed_directly", "memos_bypassed", "remembered"]

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


class ValidByIdentity:
    """Immutable values (or tuples of them) a check found valid, remembered by identity: a value valid once is
    valid. Each is held while listed, so its id cannot be reused; the oldest is dropped beyond ``entries``.
    Inside ``computed_directly()`` nothing is read or remembered, so the check runs."""

    __slots__ = ("_entries", "_listed")

    def __init__(self, entries: int) -> None:
        self._entries = entries
        self._listed: OrderedDict[tuple[int, ...], tuple[object, ...]] = OrderedDict()

    def known(self, *values: object) -> bool:
        """Whether exactly these objects were found valid together."""
        if _DIRECT.get():
            return False
        held = self._listed.get(tuple(map(id, values)))
        return held is not None and all(a is b for a, b in zip(held, values, strict=True))

    def add(self, *values: object) -> None:
        """Remember that these objects passed the check."""
        if _DIRECT.get():
            return
        self._listed[tuple(map(id, values))] = values
        if len(self._listed) > self._entries:
            self._listed.popitem(last=False)
