"""Automatic garbage collection paused for the duration of one large, acyclic allocation burst.

Building, decoding or revalidating a plan allocates a few hundred objects per node and frees
almost nothing until it returns; the collector's automatic passes over that growing heap cost
more than the work itself and grow faster than the plan (each full pass rescans everything
alive). The objects are reclaimed by reference counting either way, and the rare cycle (a
caught exception's traceback) waits for the first pass after the burst. No outcome depends on
it: only when unreachable cycles are reclaimed.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["collector_paused"]

P = ParamSpec("P")
R = TypeVar("R")


def collector_paused(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run with automatic collection off (a no-op when it is already off, e.g. nested)."""

    @functools.wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()

    return paused
