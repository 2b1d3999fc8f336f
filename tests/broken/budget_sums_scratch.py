"""Broken backend: invocation scratch is summed over nodes even under a total order.

Patch: the pool invocation peak (``liveness._peak``) always takes the concurrent sum,
so SequentialScratch needs 160 invocation bytes instead of 96 (05 §7.9). Caught by
the memory-budget suite (scratch reuse, the seed numbers, the reference decoder
re-deriving the peak) and the differential suite.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reference.plan.memory import liveness
from tests.broken.budget_patching import PatchedReference

_original = liveness._peak


def _always_sum(total_order: bool, rows: Iterable[Any], by_id: Mapping[Any, Any]) -> int:
    return _original(False, rows, by_id)


def make() -> PatchedReference:
    return PatchedReference("budget_sums_scratch", liveness, "_peak", _always_sum)
