"""``target()`` for strategies that may be drawn outside a test or twice in one test."""

from __future__ import annotations

import contextlib

from hypothesis import target
from hypothesis.errors import InvalidArgument

__all__ = ["guide"]


def guide(observation: float, label: str) -> None:
    """Report ``observation`` to Hypothesis' targeted search; a no-op where ``target`` is not allowed
    (outside a test, or when the same label was already reported by another draw of this test case)."""
    with contextlib.suppress(InvalidArgument):
        target(observation, label=label)
