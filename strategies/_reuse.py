"""One strategy object per factory and arguments, as Hypothesis keeps its own built-in strategies.

A strategy is a description: drawing from an equal description makes the same choices, so a factory
called again with equal (hashable) arguments can hand back the object it built before. What that saves
is Hypothesis' per-object work at the first draw (validation and the emptiness analysis), which a
composite building its inner strategies afresh on every draw pays on every draw.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from hypothesis.strategies import SearchStrategy

__all__ = ["reusable"]

P = ParamSpec("P")
T = TypeVar("T")

#: Distinct argument tuples kept per factory.
_KEPT = 256


def reusable(factory: Callable[P, SearchStrategy[T]]) -> Callable[P, SearchStrategy[T]]:
    """``factory`` remembering its strategy per argument tuple (arguments of other types apart); called
    with an unhashable argument it builds a new strategy, as before."""
    remembered = functools.lru_cache(maxsize=_KEPT, typed=True)(factory)

    @functools.wraps(factory)
    def made(*args: P.args, **kwargs: P.kwargs) -> SearchStrategy[T]:
        try:
            return remembered(*args, **kwargs)  # type: ignore[arg-type]
        except TypeError as exc:
            if "unhashable" not in str(exc):
                raise
            return factory(*args, **kwargs)

    made.cache_clear = remembered.cache_clear  # type: ignore[attr-defined]
    return made
