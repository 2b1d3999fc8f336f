"""``BackendUnderTest``: the suites' view of a connected backend.

It gates every operation on the backend's declared operations (an undeclared one ends the
case as *not applicable*, naming what is missing) and turns a declared-but-unimplemented
operation into a failure. Faults are recorded by the connection itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.cases import backend_asked, not_applicable
from harness.connection.client import Client
from harness.outcome import Outcome
from harness.protocol.description import BackendDescription
from harness.protocol.operations import Operation, Operations
from reference.api import OperationNotSupported

__all__ = ["BACKEND_ROLE", "BackendUnderTest"]

#: The role of the backend under test (the oracle has another).
BACKEND_ROLE = "backend"

FreshFactory = Callable[[Mapping[str, str]], Client]


class BackendUnderTest(Operations):
    """A connected backend plus its description."""

    def __init__(
        self,
        client: Client,
        description: BackendDescription,
        *,
        spec: str,
        role: str = BACKEND_ROLE,
        fresh: FreshFactory | None = None,
    ) -> None:
        self.client = client
        self.description = description
        self.spec = spec
        self.role = role
        self._fresh = fresh

    def supports(self, operation: str) -> bool:
        return self.description.supports(operation)

    def require(self, *operations: str) -> None:
        """End the case as *not applicable* unless every operation is declared."""
        missing = [op for op in operations if not self.supports(op)]
        if missing:
            name = self.description.implementation.name
            not_applicable(f"the {self.role} ({name}) does not implement {', '.join(missing)}", missing=missing)

    def _gate(self, operation: Operation[Any]) -> None:
        if not operation.mandatory:
            self.require(operation.name)

    def _unimplemented(self, operation: Operation[Any]) -> AssertionError:
        return AssertionError(
            f"the {self.role} declares {operation.name!r} in describe but answered that it is not implemented"
        )

    def _asked(self, operation: Operation[Any]) -> None:
        if self.role == BACKEND_ROLE:
            backend_asked(operation.name)

    def call(self, operation: Operation[Any], args: tuple[Any, ...]) -> Any:
        self._gate(operation)
        self._asked(operation)
        try:
            return self.client.call(operation, args)
        except OperationNotSupported:
            raise self._unimplemented(operation) from None

    def outcome(self, operation: Operation[Any], params: dict[str, Any]) -> Outcome:
        """The outcome of sending protocol ``params`` as they are (gated like a call)."""
        self._gate(operation)
        self._asked(operation)
        try:
            return self.client.outcome(operation, params)
        except OperationNotSupported:
            raise self._unimplemented(operation) from None

    def fresh(self, environment: Mapping[str, str]) -> Client:
        """The same backend in a fresh process whose environment has ``environment`` changed."""
        if self._fresh is None:
            not_applicable(f"the {self.role} cannot be started in a fresh process")
        return self._fresh(environment)

    def close(self) -> None:
        self.client.close()
