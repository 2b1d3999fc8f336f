"""Broken backend: I5 uses ``<`` instead of ``<=`` (an exact fit is refused).

Patch: after ``MemoryPlan.from_core`` derives a plan, ``static + minimum_runnable ==
usable`` is rejected as over budget, so the minimal capacity is one byte too high.
Caught by the memory-budget bisection and the differential suite (budget-boundary policies).
"""

from __future__ import annotations

from typing import Any

from reference.errors import InvalidExecutionPlan
from reference.plan.memory.plan import MemoryPlan
from tests.broken.budget_patching import PatchedReference

_original = MemoryPlan.__dict__["from_core"].__func__


def _from_core_strict(cls: type[MemoryPlan], /, **kwargs: Any) -> MemoryPlan:
    plan: MemoryPlan = _original(cls, **kwargs)
    if plan.static_bytes + plan.minimum_runnable_request_bytes >= plan.usable_capacity_bytes:
        raise InvalidExecutionPlan(reason="minimum runnable plan does not fit strictly below usable capacity")
    return plan


def make() -> PatchedReference:
    return PatchedReference("budget_off_by_one", MemoryPlan, "from_core", classmethod(_from_core_strict))
