"""Small shared helpers of the plan builder: the one error constructor and order checks."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from reference.errors import InvalidExecutionPlan

__all__ = ["invalid", "strictly_ascending"]


def invalid(reason: str) -> InvalidExecutionPlan:
    """``InvalidExecutionPlan{reason}`` (upstream ``invalid_plan``)."""
    return InvalidExecutionPlan(reason=reason)


def strictly_ascending(items: Sequence[Any]) -> bool:
    """Every element is smaller than the next (sorted and unique)."""
    return all(a < b for a, b in itertools.pairwise(items))
