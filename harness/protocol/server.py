"""The serving side of the protocol: one request line in, one reply line out.

``Server`` wraps an *implementation* (an object with ``describe()`` and one method per
operation it lists, named and shaped as in ``harness.protocol.operations``). ``handle`` is the
only path a request takes, whether it arrived on a pipe (``vnext-conformance serve``) or from
an in-process connection: the line is decoded strictly (``harness.protocol.envelope``), the
operation's declaration decodes its params, the implementation runs, and the result is encoded
by the declaration. Nothing an implementation raises escapes ``handle``.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO, Final, TextIO

from harness.protocol.codecs import ProtocolError
from harness.protocol.description import BackendDescription
from harness.protocol.envelope import (
    HANDSHAKE_ID,
    HANDSHAKE_OP,
    EnvelopeError,
    FailureCode,
    Request,
    clip,
    decode_request,
    encode_failure,
    encode_line,
)
from harness.protocol.handshake import HandshakeParams, HandshakeResult
from harness.protocol.operations import OPERATIONS, Operation
from harness.protocol.validation import SchemaCheck
from reference.api import OperationNotSupported
from reference.errors import VNextError

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "Server", "serve_stream"]

DEFAULT_MAX_REQUEST_BYTES: Final = 64 * 1024 * 1024
_TRACEBACK_LIMIT: Final = 8


class Server:
    """Serves one implementation; keeps the handshake state of one connection."""

    def __init__(
        self,
        implementation: Any,
        *,
        max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
        check: SchemaCheck | None = None,
        log: TextIO | None = None,
    ) -> None:
        self.implementation = implementation
        self.max_request_bytes = max_request_bytes
        self.check = check or SchemaCheck(enabled=False)
        self._log = log
        self._handshaken = False
        self._description: BackendDescription | None = None

    def description(self) -> BackendDescription:
        if self._description is None:
            description = self.implementation.describe()
            if not isinstance(description, BackendDescription):
                raise TypeError(f"describe() returned {type(description).__name__}, not BackendDescription")
            self._description = description
        return self._description

    def handle(self, line: bytes) -> bytes | None:
        """The reply line for one request line (``None`` for a blank line, which is ignored)."""
        if not line or line.isspace():  # blank: nothing but ASCII whitespace (no copy of a long line)
            return None
        if len(line) > self.max_request_bytes:
            return encode_failure(None, FailureCode.BAD_REQUEST, f"request line exceeds {self.max_request_bytes} bytes")
        try:
            request = decode_request(line)
        except EnvelopeError as exc:
            return encode_failure(exc.request_id, FailureCode.BAD_REQUEST, str(exc))
        try:
            if request.op == HANDSHAKE_OP:
                return self._handshake(request)
            if not self._handshaken:
                return encode_failure(
                    request.request_id, FailureCode.HANDSHAKE_REQUIRED, "the first request must be the handshake"
                )
            return self._dispatch(request)
        except Exception as exc:  # an implementation bug: report it, never crash the server
            self._report(exc)
            return encode_failure(request.request_id, FailureCode.INTERNAL, clip(f"{type(exc).__name__}: {exc}"))

    def _report(self, exc: BaseException) -> None:
        log = self._log if self._log is not None else sys.stderr
        text = "".join(traceback.format_exception(exc, limit=_TRACEBACK_LIMIT))
        log.write(clip(text, 8000) + "\n")
        log.flush()

    def _handshake(self, request: Request) -> bytes:
        try:
            params = HandshakeParams.decode(request)
        except ProtocolError as exc:
            return encode_failure(request.request_id, FailureCode.BAD_REQUEST, str(exc))
        if request.request_id != HANDSHAKE_ID:
            return encode_failure(
                request.request_id, FailureCode.BAD_REQUEST, f"the handshake id must be {HANDSHAKE_ID}"
            )
        if not params.compatible():
            return encode_failure(request.request_id, FailureCode.BAD_REQUEST, params.incompatibility())
        result = HandshakeResult(self.max_request_bytes, self.description())
        self._handshaken = True
        return encode_line({"id": request.request_id, "result": result.to_wire()})

    def _dispatch(self, request: Request) -> bytes:
        request_id = request.request_id
        declared = OPERATIONS.get(request.op)
        if declared is None:
            return encode_failure(
                request_id, FailureCode.NOT_IMPLEMENTED, f"unknown operation {clip(request.op, 80)!r}"
            )
        method = self._method(declared)
        if method is None:
            return encode_failure(
                request_id, FailureCode.NOT_IMPLEMENTED, f"operation {declared.name!r} is not implemented"
            )
        try:
            args = declared.decode_params(request)
            self.check.params(declared, args)
        except ProtocolError as exc:
            return encode_failure(request_id, FailureCode.BAD_REQUEST, str(exc))
        except VNextError as exc:
            return encode_line({"id": request_id, "error": exc.to_dict()})
        try:
            value = method(*args)
        except VNextError as exc:
            return encode_line({"id": request_id, "error": exc.to_dict()})
        except OperationNotSupported:
            return encode_failure(
                request_id, FailureCode.NOT_IMPLEMENTED, f"operation {declared.name!r} is not implemented"
            )
        try:
            result = declared.encode_result(value)
            self.check.result(declared, result)
        except ProtocolError as exc:
            return encode_failure(request_id, FailureCode.INTERNAL, f"unencodable result: {exc}")
        return encode_line({"id": request_id, "result": result})

    def _method(self, declared: Operation[Any]) -> Callable[..., Any] | None:
        """The implementation's method for an operation it lists, else ``None``."""
        if not self.description().supports(declared.name):
            return None
        method = getattr(self.implementation, declared.name, None)
        return method if callable(method) else None


def _skip_rest_of_line(stdin: BinaryIO) -> None:
    while True:
        chunk = stdin.readline(1 << 20)
        if not chunk or chunk.endswith(b"\n"):
            return


def serve_stream(server: Server, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Serve requests from ``stdin`` until end of input; the process exit status (0)."""
    limit = server.max_request_bytes
    while True:
        line = stdin.readline(limit + 1)
        if not line:
            return 0
        if len(line) > limit and not line.endswith(b"\n"):
            _skip_rest_of_line(stdin)
        reply = server.handle(line)
        if reply is not None:
            stdout.write(reply)
            stdout.flush()
