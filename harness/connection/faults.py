"""Backend faults: the backend misbehaved at the transport level (not a contract error).

A fault is a value (``Fault``), recorded by the connection and carried into the reports as a
structured record; ``BackendFault`` is the exception that carries one out of a call. A fault
fails the case that hit it; the connection recovers (restart, bounded) so the run goes on.
Contract errors are ``VNextError``; an operation the backend does not implement is
``OperationNotSupported``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

__all__ = ["BackendFault", "Fault", "FaultKind"]


class FaultKind(enum.StrEnum):
    """Every fault kind (harness/PROTOCOL.md §6)."""

    SPAWN_FAILED = "spawn_failed"
    HANDSHAKE_FAILED = "handshake_failed"
    PROTOCOL_MISMATCH = "protocol_mismatch"
    CRASH = "crash"
    TIMEOUT = "timeout"
    OVERSIZED_REPLY = "oversized_reply"
    MALFORMED_REPLY = "malformed_reply"
    WRONG_REPLY_ID = "wrong_reply_id"
    UNEXPECTED_REPLY = "unexpected_reply"
    REQUEST_TOO_LARGE = "request_too_large"
    BACKEND_FAILURE = "backend_failure"
    IDENTITY_CHANGED = "identity_changed"
    RESTART_LIMIT = "restart_limit"
    UNAVAILABLE = "unavailable"

    @property
    def meaning(self) -> str:
        return _MEANINGS[self]

    @property
    def ends_backend(self) -> bool:
        """True when the backend cannot serve any later call of this run."""
        return self in _FINAL


_MEANINGS = {
    FaultKind.SPAWN_FAILED: "the backend command could not be started",
    FaultKind.HANDSHAKE_FAILED: "the backend exited, hung or answered wrongly during the handshake",
    FaultKind.PROTOCOL_MISMATCH: "the backend speaks an incompatible protocol major version",
    FaultKind.CRASH: "the backend exited or closed stdout while a request was pending",
    FaultKind.TIMEOUT: "no reply within the per-call time budget; the backend was killed",
    FaultKind.OVERSIZED_REPLY: "a reply line exceeded the reply byte cap; the backend was killed",
    FaultKind.MALFORMED_REPLY: "a reply was not a valid protocol message for the request",
    FaultKind.WRONG_REPLY_ID: "a reply carried another request id than the pending request",
    FaultKind.UNEXPECTED_REPLY: "the backend wrote a reply line nobody asked for (a second reply to a request)",
    FaultKind.REQUEST_TOO_LARGE: "the request exceeds the harness's or the backend's request byte cap",
    FaultKind.BACKEND_FAILURE: "the backend reported an internal failure instead of a result or contract error",
    FaultKind.IDENTITY_CHANGED: "a restarted backend described itself differently",
    FaultKind.RESTART_LIMIT: "the backend needed a restart but the restart budget is spent",
    FaultKind.UNAVAILABLE: "the backend could not be connected earlier in this run",
}
_FINAL = frozenset(
    {
        FaultKind.SPAWN_FAILED,
        FaultKind.HANDSHAKE_FAILED,
        FaultKind.PROTOCOL_MISMATCH,
        FaultKind.IDENTITY_CHANGED,
        FaultKind.RESTART_LIMIT,
        FaultKind.UNAVAILABLE,
    }
)


@dataclass(frozen=True, slots=True)
class Fault:
    """One transport-level failure, as observed by the connection."""

    kind: FaultKind
    detail: str
    operation: str | None = None
    request_id: int | None = None
    exit_code: int | None = None
    stderr_tail: str = ""

    def __str__(self) -> str:
        where = f" during {self.operation}" if self.operation else ""
        rid = f" (request {self.request_id})" if self.request_id is not None else ""
        code = f"; exit code {self.exit_code}" if self.exit_code is not None else ""
        return f"backend fault [{self.kind.value}]{where}{rid}: {self.detail}{code}"

    def to_wire(self) -> dict[str, Any]:
        """The fault as a report record (schemas/protocol/report.json ``$defs/fault``)."""
        return {
            "kind": self.kind.value,
            "detail": self.detail,
            "operation": self.operation,
            "request_id": self.request_id,
            "exit_code": self.exit_code,
        }

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> Fault:
        return cls(
            FaultKind(raw["kind"]),
            str(raw["detail"]),
            raw.get("operation"),
            raw.get("request_id"),
            raw.get("exit_code"),
        )


class BackendFault(Exception):
    """Raised out of a call that met ``fault``."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(str(fault))
        self.fault = fault

    @property
    def kind(self) -> FaultKind:
        return self.fault.kind

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.fault,))
