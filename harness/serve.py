"""``vnext-conformance serve``: any in-process backend served over the JSON-lines protocol.

Reads one request per line from ``stdin`` and writes one reply per line to
``stdout``; end of input ends the server. The first request must be the
handshake. Contract errors are ``error`` replies; anything else that goes
wrong is a ``failure`` reply, and the server keeps serving.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any, BinaryIO

from harness import operations
from harness.backend import Backend, OperationNotSupported
from harness.contract import PROTOCOL_VERSION
from harness.protocol import (
    HANDSHAKE_OP,
    RequestError,
    encode_failure,
    encode_line,
    parse_request,
    protocol_compatible,
)
from reference.errors import VNextError

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "serve"]

DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024


def _handshake(backend: Backend, request_id: int, params: dict[str, Any], max_request_bytes: int) -> tuple[bytes, bool]:
    """The handshake reply, and whether the handshake succeeded."""
    if not protocol_compatible(params.get("protocol")):
        return encode_failure(
            request_id,
            "bad_request",
            f"unsupported protocol {params.get('protocol')!r}; this server speaks {PROTOCOL_VERSION}",
        ), False
    description = backend.describe()
    result = {
        "protocol": PROTOCOL_VERSION.to_wire(),
        "max_request_bytes": max_request_bytes,
        "backend": description.to_wire(),
    }
    return encode_line({"id": request_id, "result": result}), True


def _dispatch(backend: Backend, request_id: int, op: str, params: dict[str, Any]) -> bytes:
    if op not in operations.OPERATION_SPECS:
        return encode_failure(request_id, "not_implemented", f"unknown operation {op!r}")
    try:
        args = operations.decode_params(op, params)
    except operations.ProtocolError as exc:
        return encode_failure(request_id, "bad_request", str(exc))
    try:
        value = operations.invoke(backend, op, args)
    except VNextError as exc:
        return encode_line({"id": request_id, "error": exc.to_dict()})
    except OperationNotSupported:
        return encode_failure(request_id, "not_implemented", f"operation {op!r} is not implemented")
    try:
        return encode_line({"id": request_id, "result": operations.encode_result(op, value)})
    except operations.ProtocolError as exc:
        return encode_failure(request_id, "internal", f"backend returned an unencodable result: {exc}")


def _discard_line(stdin: BinaryIO) -> None:
    while True:
        chunk = stdin.readline(1 << 20)
        if not chunk or chunk.endswith(b"\n"):
            return


def serve(
    backend: Backend,
    stdin: BinaryIO,
    stdout: BinaryIO,
    *,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    log: Any = None,
) -> int:
    """Serve requests until end of input; return the process exit status (0)."""
    log = sys.stderr if log is None else log
    handshaken = False
    while True:
        line = stdin.readline(max_request_bytes + 1)
        if not line:
            return 0
        if len(line) > max_request_bytes:
            if not line.endswith(b"\n"):
                _discard_line(stdin)
            reply = encode_failure(None, "bad_request", f"request line exceeds {max_request_bytes} bytes")
        elif not line.strip():
            continue
        else:
            try:
                request_id, op, params = parse_request(line)
            except RequestError as exc:
                reply = encode_failure(exc.request_id, exc.code, str(exc))
            else:
                try:
                    if op == HANDSHAKE_OP:
                        reply, handshaken = _handshake(backend, request_id, params, max_request_bytes)
                    elif not handshaken:
                        reply = encode_failure(
                            request_id, "handshake_required", "the first request must be the handshake"
                        )
                    else:
                        reply = _dispatch(backend, request_id, op, params)
                except Exception as exc:
                    traceback.print_exc(file=log)
                    reply = encode_failure(request_id, "internal", f"{type(exc).__name__}: {exc}")
        stdout.write(reply)
        stdout.flush()
