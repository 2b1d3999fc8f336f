"""Broken backend: the memory planner ignores the policy's reserve (usable = full policy capacity).

Patch: ``MemoryPlan.from_core`` is called with ``reserve_bytes = 0``, so budgets are
checked against the whole capacity and the plan reports reserve 0. Caught by the
memory-budget suite (I2/I3 echo the policy's reserve; bisection finds a smaller
minimal capacity) and by the differential suite (wire bytes differ).
"""

from __future__ import annotations

from typing import Any

from reference.plan.memory.plan import MemoryPlan
from tests.broken.budget_patching import PatchedReference

_original = MemoryPlan.__dict__["from_core"].__func__


def _from_core_without_reserve(cls: type[MemoryPlan], /, **kwargs: Any) -> MemoryPlan:
    return _original(cls, **{**kwargs, "reserve_bytes": 0})  # type: ignore[no-any-return]


def make() -> PatchedReference:
    return PatchedReference("budget_ignores_reserve", MemoryPlan, "from_core", classmethod(_from_core_without_reserve))
