"""``Client``: the typed operations over one ``Connection``.

A result is decoded by the operation's declaration; an ``error`` reply is raised as the
contract's ``VNextError``; ``failure`` ``not_implemented`` is ``OperationNotSupported``; any
other failure, a malformed error object or a result of the wrong shape is a ``BackendFault``.
"""

from __future__ import annotations

from typing import Any

from harness.connection.base import Connection
from harness.connection.faults import FaultKind
from harness.outcome import Outcome, error_fields
from harness.protocol.codecs import ProtocolError
from harness.protocol.description import BackendDescription
from harness.protocol.envelope import EnvelopeError, FailureCode, Reply
from harness.protocol.operations import Operation, Operations
from harness.protocol.validation import SchemaCheck
from reference.api import OperationNotSupported
from reference.errors import VNextError

__all__ = ["Client"]


class Client(Operations):
    """Sends each operation over ``connection``."""

    def __init__(self, connection: Connection, *, check: SchemaCheck | None = None) -> None:
        self.connection = connection
        self.check = check or SchemaCheck(enabled=False)

    def open(self) -> BackendDescription:
        """Connect (handshake); the backend's description."""
        return self.connection.open()

    def call(self, operation: Operation[Any], args: tuple[Any, ...]) -> Any:
        return self._interpret(operation, self.send(operation, operation.encode_params(args)))

    def send(self, operation: Operation[Any], params: dict[str, Any]) -> Reply:
        """Send protocol ``params`` as they are (a bundle's, for instance); the raw reply."""
        self.check.params_object(operation, params)
        return self.connection.request(operation.name, params)

    def outcome(self, operation: Operation[Any], params: dict[str, Any]) -> Outcome:
        """The outcome of protocol ``params``: the result object (shape checked) or the error's fields."""
        reply = self.send(operation, params)
        try:
            self._interpret(operation, reply)
        except VNextError as error:
            return Outcome("error", error_fields(error))
        return Outcome("result", reply.body)

    def _interpret(self, operation: Operation[Any], reply: Reply) -> Any:
        if reply.kind == "result":
            try:
                self.check.result(operation, reply.body)
                return operation.decode_result(reply.body)
            except ProtocolError as exc:
                raise self.connection.fault(
                    FaultKind.MALFORMED_REPLY, str(exc), operation=operation.name, request_id=reply.request_id
                ) from None
        if reply.kind == "error":
            try:
                error = reply.error()
            except EnvelopeError as exc:
                raise self.connection.fault(
                    FaultKind.MALFORMED_REPLY, str(exc), operation=operation.name, request_id=reply.request_id
                ) from None
            raise error
        code, message = reply.failure()
        if code == FailureCode.NOT_IMPLEMENTED:
            raise OperationNotSupported(operation.name)
        raise self.connection.fault(
            FaultKind.BACKEND_FAILURE, f"{code}: {message}", operation=operation.name, request_id=reply.request_id
        )

    def close(self) -> None:
        self.connection.close()
