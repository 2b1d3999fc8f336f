"""Backends for the fuzzing tests (``python:tests.harness.fuzz_backends:FACTORY``).

``make_budget_off_by_one``: the ``budget_off_by_one`` mutant (an exact fit is refused), describing
only the operations it implements, so a generated memory-budget case finds it at the boundary.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from harness.protocol.description import BackendDescription
from tests.broken import budget_off_by_one


class _Implemented:
    """A backend object whose ``describe`` lists only the operations it has methods for."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def describe(self) -> BackendDescription:
        base: BackendDescription = self._inner.describe()
        operations = tuple(name for name in base.operations if callable(getattr(self._inner, name, None)))
        return dataclasses.replace(base, operations=operations)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def make_budget_off_by_one() -> _Implemented:
    return _Implemented(budget_off_by_one.make())
