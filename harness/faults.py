"""``BackendFault``: the backend misbehaved at the transport level (not a contract error).

A fault fails the case that hit it; the connector recovers (restart, bounded)
so the run keeps going. Contract errors are ``VNextError``; an operation the
backend does not implement is ``OperationNotSupported``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = ["FAULT_KINDS", "BackendFault"]

#: Every fault kind, with what it means.
FAULT_KINDS: Final = {
    "spawn_failed": "the backend command could not be started",
    "handshake_failed": "the backend exited, hung or answered wrongly during the handshake",
    "protocol_mismatch": "the backend speaks an incompatible protocol major version",
    "crash": "the backend exited or closed stdout while a request was pending",
    "timeout": "no reply within the per-call time budget; the backend was killed",
    "oversized_reply": "a reply line exceeded the reply byte cap; the backend was killed",
    "malformed_reply": "a reply was not a valid protocol message for the request",
    "wrong_reply_id": "a reply carried another request id than the pending request",
    "request_too_large": "the request exceeds the harness's or the backend's request byte cap",
    "backend_failure": "the backend reported an internal failure instead of a result or contract error",
    "identity_changed": "a restarted backend described itself differently",
    "restart_limit": "the backend needed a restart but the restart budget is spent",
    "unavailable": "the backend could not be connected earlier in this run",
}


@dataclass(frozen=True, eq=False)
class BackendFault(Exception):
    """A transport-level failure: ``kind`` is one of ``FAULT_KINDS``."""

    kind: str
    detail: str
    operation: str | None = None
    request_id: int | None = None
    exit_code: int | None = None
    stderr_tail: str = ""

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}")
        Exception.__init__(self, str(self))

    def __str__(self) -> str:
        where = f" during {self.operation}" if self.operation else ""
        rid = f" (request {self.request_id})" if self.request_id is not None else ""
        code = f"; exit code {self.exit_code}" if self.exit_code is not None else ""
        return f"backend fault [{self.kind}]{where}{rid}: {self.detail}{code}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.kind, self.detail, self.operation, self.request_id, self.exit_code, self.stderr_tail),
        )

    def to_dict(self) -> dict[str, Any]:
        """The fault as a report record field."""
        return {
            "kind": self.kind,
            "detail": self.detail,
            "operation": self.operation,
            "request_id": self.request_id,
            "exit_code": self.exit_code,
        }
