"""The backend interface every connector presents to the conformance suites.

Each planning operation takes a scenario document (an opaque JSON object) and
returns its typed result, or raises:

* a ``VNextError`` -- the contract's typed error (``{"kind", ...fields, "message"}``);
* ``OperationNotSupported`` -- the backend does not implement the operation
  (suites needing it are reported *not applicable*);
* ``BackendFault`` -- a transport-level failure (crash, hang, bad reply...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from harness.description import BackendDescription
from reference.api import OperationNotSupported, PreparedFamily, Scenario, WeightPlanSelection
from reference.runtime.result import ExecuteResult

__all__ = [
    "Backend",
    "ExecuteResult",
    "OperationNotSupported",
    "PreparedFamily",
    "Scenario",
    "WeightPlanSelection",
]


@runtime_checkable
class Backend(Protocol):
    """A vnext planning implementation under test."""

    def describe(self) -> BackendDescription:
        """Implementation name/version/language, contract identity, supported operations, limits."""
        ...

    def prepare_family(self, scenario: Scenario) -> PreparedFamily:
        """Prepare the scenario's model family: prepared-family wire bytes and fingerprint."""
        ...

    def fingerprint_catalog(self, scenario: Scenario) -> str:
        """The capability catalog fingerprint (64 lowercase hex)."""
        ...

    def build_plan(self, scenario: Scenario) -> bytes:
        """Build the execution plan: the exact wire bytes ``to_json`` writes."""
        ...

    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        """Decode ``wire`` untrusted, revalidate it against the scenario; the plan hash."""
        ...

    def select_weight_plan(self, scenario: Scenario) -> WeightPlanSelection:
        """Select an exact weight materializer: execution weight plan wire and fingerprint."""
        ...

    def execute(self, scenario: Scenario, inputs: Mapping[str, bytes] | None = None, replays: int = 1) -> ExecuteResult:
        """Optional: run the scenario's plan on the backend's device runtime ``replays`` times."""
        ...

    def close(self) -> None:
        """Release resources (processes, files). Idempotent."""
        ...
