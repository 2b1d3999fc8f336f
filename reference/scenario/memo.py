"""A bounded per-process memo of pure scenario computations, keyed by canonical bytes.

Building a scenario's trusted inputs or plan is a pure function of the scenario document (and a
section's contract object a pure function of that section), so a result computed once stands for
every later call whose key has byte-identical canonical JSON: the whole scenario by default, or
the part ``key`` selects (the family section for the prepared family, the catalog section for the
catalog). A contract
rejection (``VNextError``) is memoized too and raised again as the same error (kind, fields and
message, raised from the same place), so the first failure of a repeated call is the first failure of
the first call. Any
other exception is not memoized. A scenario with no canonical form (or a typed document) is
computed directly. The oldest entry is dropped beyond ``size`` entries. Inside ``computed_directly()``
every memo computes (and stores nothing), so a caller watching what a computation does sees all of it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, Generic, TypeVar

from reference.canonical import JsonValue, canonical_bytes
from reference.errors import VNextError
from reference.recomputation import computed_directly, memos_bypassed

__all__ = ["ScenarioMemo", "computed_directly"]

T = TypeVar("T")


class ScenarioMemo(Generic[T]):
    """``compute(scenario)`` memoized by the canonical bytes of ``key(scenario)`` (at most ``size`` entries).

    Without ``key`` the scenario itself is the key, when it is a mapping.
    """

    __slots__ = ("_compute", "_entries", "_key_of", "_size")

    def __init__(
        self, compute: Callable[[Any], T], size: int = 16, key: Callable[[Any], JsonValue] | None = None
    ) -> None:
        self._compute = compute
        self._size = size
        self._key_of = key
        self._entries: OrderedDict[bytes, tuple[T | None, VNextError | None, TracebackType | None]] = OrderedDict()

    def __call__(self, scenario: Any) -> T:
        if memos_bypassed():
            return self._compute(scenario)
        key = _key(scenario if self._key_of is None else self._key_of(scenario))
        if key is None:
            return self._compute(scenario)
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
            value, error, traceback = entry
            if error is not None:
                raise error.with_traceback(traceback)
            return value  # type: ignore[return-value]
        try:
            value = self._compute(scenario)
        except VNextError as exc:
            self._store(key, (None, exc, exc.__traceback__))
            raise
        self._store(key, (value, None, None))
        return value

    def _store(self, key: bytes, entry: tuple[T | None, VNextError | None, TracebackType | None]) -> None:
        self._entries[key] = entry
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()


def _key(scenario: Any) -> bytes | None:
    if not isinstance(scenario, Mapping):
        return None
    try:
        return canonical_bytes(dict(scenario), context="scenario memo key")
    except VNextError:
        return None
