"""An in-process backend (``reference``, ``python:MODULE:FACTORY``) reached through a ``Server``.

The request line is handed to the server's ``handle`` and its reply line read back, so an
in-process backend takes exactly the path an ``exec:`` backend's lines take (the same encoder,
strict decoder, declarations and matching); only the pipe is missing.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Final

from harness.connection.base import Connection, TransportError
from harness.connection.faults import FaultKind
from harness.protocol.server import Server

__all__ = ["InProcessConnection"]

_MIB: Final = 1024 * 1024


class InProcessConnection(Connection):
    """Lines to and from a ``Server`` in this process."""

    def __init__(
        self, spec: str, server: Server, *, max_reply_bytes: int = 64 * _MIB, serve_args: Sequence[str]
    ) -> None:
        super().__init__(spec, max_request_bytes=server.max_request_bytes)
        self.server = server
        self.max_reply_bytes = max_reply_bytes
        self._serve_args = list(serve_args)

    def serve_command(self) -> list[str]:
        return [sys.executable, "-m", "harness", "serve", *self._serve_args]

    def _start(self, *, operation: str) -> None:
        return None

    def _discard(self) -> int | None:
        return None

    def _exchange(self, line: bytes, *, operation: str, request_id: int) -> bytes:
        reply = self.server.handle(line)
        if reply is None:
            raise TransportError(FaultKind.CRASH, "the server gave no reply")
        if len(reply) > self.max_reply_bytes:
            raise TransportError(
                FaultKind.OVERSIZED_REPLY, f"reply line of {len(reply)} bytes exceeds the cap of {self.max_reply_bytes}"
            )
        return reply[:-1] if reply.endswith(b"\n") else reply
