"""A template for an in-process Python backend (``--backend python:harness.examples.backend_template:make``).

Copy this file, rename the class, fill in the operations you implement and list them in
``describe``; each method receives the request's parameters (the scenario document as JSON, wire
bytes) and returns the result type, or raises the contract's ``VNextError`` variant for a
rejection. An operation you have not listed is never called: its cases are *not applicable*.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.identity import CONTRACT_LIMITS
from harness.protocol.description import BackendDescription, ContractIdentity, Implementation
from reference.errors import Serialization
from reference.versions import PlanSchemaVersion

__all__ = ["TemplateBackend", "make"]

Scenario = Mapping[str, Any]


class TemplateBackend:
    """Implements ``describe`` and ``build_plan`` (the latter as a stub to replace)."""

    def describe(self) -> BackendDescription:
        return BackendDescription(
            implementation=Implementation("my-backend", "0.1.0", "python"),
            contract=ContractIdentity("ferrum-interfaces", "0.12.2", "vnext", PlanSchemaVersion(8, 1)),
            operations=("build_plan", "describe"),
            limits=dict(CONTRACT_LIMITS),
        )

    def build_plan(self, scenario: Scenario) -> bytes:
        """``ExecutionPlan::build`` then ``to_json``: return the exact plan wire bytes."""
        raise Serialization("decode scenario", "this template does not plan yet: replace build_plan")


def make() -> TemplateBackend:
    return TemplateBackend()
