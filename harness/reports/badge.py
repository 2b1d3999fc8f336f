"""A badge of the run in the shields.io endpoint format (``--badge``)."""

from __future__ import annotations

from typing import Any

from harness.reports.result import RunResult

__all__ = ["render_badge"]

_COLORS = {"passed": "brightgreen", "failed": "red", "unavailable": "lightgrey", "incomplete": "yellow"}


def render_badge(result: RunResult) -> dict[str, Any]:
    """``{"schemaVersion": 1, "label", "message", "color"}`` for https://shields.io/badges/endpoint-badge."""
    verdict = result.verdict()
    applicable = result.passed + len(result.failures)
    if verdict == "unavailable":
        message = "backend unavailable"
    else:
        message = f"{result.passed}/{applicable} passed" if applicable else "no applicable case"
        if verdict == "incomplete":
            message += " (incomplete)"
    return {"schemaVersion": 1, "label": "vnext conformance", "message": message, "color": _COLORS[verdict]}
