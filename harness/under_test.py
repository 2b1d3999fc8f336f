"""``BackendUnderTest``: the ``backend`` fixture's view of a connected backend.

It gates every operation on the backend's declared operations (an undeclared
one ends the case as *not applicable*), records transport faults for the
report, and turns a declared-but-unimplemented operation into a failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.backend import (
    Backend,
    ExecuteResult,
    OperationNotSupported,
    PreparedFamily,
    Scenario,
    WeightPlanSelection,
)
from harness.cases import not_applicable
from harness.description import BackendDescription
from harness.faults import BackendFault

__all__ = ["BackendUnderTest", "CaseLog"]


@dataclass
class CaseLog:
    """Side data of the running case: faults met and counterexample bundles written."""

    faults: list[BackendFault] = field(default_factory=list)
    counterexamples: list[str] = field(default_factory=list)

    def reset(self) -> None:
        self.faults.clear()
        self.counterexamples.clear()


class BackendUnderTest:
    """A connected backend plus its description; implements ``Backend``."""

    def __init__(
        self,
        connector: Backend,
        description: BackendDescription,
        log: CaseLog,
        *,
        spec: str,
        role: str = "backend",
    ) -> None:
        self.connector = connector
        self.description = description
        self.log = log
        self.spec = spec
        self.role = role

    def supports(self, operation: str) -> bool:
        return self.description.supports(operation)

    def require(self, *operations: str) -> None:
        """End the case as *not applicable* unless every operation is declared."""
        missing = [op for op in operations if not self.supports(op)]
        if missing:
            name = self.description.implementation.name
            not_applicable(f"the {self.role} ({name}) does not implement {', '.join(missing)}")

    def _run(self, operation: str, *args: Any) -> Any:
        if operation != "describe":
            self.require(operation)
        try:
            return getattr(self.connector, operation)(*args)
        except BackendFault as fault:
            self.log.faults.append(fault)
            raise
        except OperationNotSupported:
            raise AssertionError(
                f"the {self.role} declares {operation!r} in describe but answered that it is not implemented"
            ) from None

    def describe(self) -> BackendDescription:
        result: BackendDescription = self._run("describe")
        return result

    def prepare_family(self, scenario: Scenario) -> PreparedFamily:
        result: PreparedFamily = self._run("prepare_family", scenario)
        return result

    def fingerprint_catalog(self, scenario: Scenario) -> str:
        result: str = self._run("fingerprint_catalog", scenario)
        return result

    def build_plan(self, scenario: Scenario) -> bytes:
        result: bytes = self._run("build_plan", scenario)
        return result

    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        result: str = self._run("revalidate", scenario, wire)
        return result

    def select_weight_plan(self, scenario: Scenario) -> WeightPlanSelection:
        result: WeightPlanSelection = self._run("select_weight_plan", scenario)
        return result

    def execute(self, scenario: Scenario, inputs: Mapping[str, bytes] | None = None, replays: int = 1) -> ExecuteResult:
        result: ExecuteResult = self._run("execute", scenario, inputs or {}, replays)
        return result

    def close(self) -> None:
        self.connector.close()
