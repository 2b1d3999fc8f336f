"""``Connection``: a message-level channel to one backend, whatever carries the lines.

Every connection takes the same path: it writes a request line with the protocol's encoder,
its transport returns the reply line, and the line is decoded and matched to the request here.
Only the transport differs: a function call into a ``Server`` in this process
(``harness.connection.inprocess``) or a pipe to a child process (``harness.connection.exec``).
Transport failures, malformed replies and replies to the wrong request become ``Fault`` values,
recorded on the connection and raised as ``BackendFault``.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any, Final

from harness.connection.faults import BackendFault, Fault, FaultKind
from harness.connection.stderr import StderrLog
from harness.identity import CONTRACT_IDENTITY, SUITE_NAME, suite_version
from harness.protocol.codecs import ProtocolError
from harness.protocol.description import BackendDescription
from harness.protocol.envelope import (
    HANDSHAKE_ID,
    HANDSHAKE_OP,
    EnvelopeError,
    Reply,
    clip,
    decode_reply,
    encode_request,
)
from harness.protocol.handshake import PROTOCOL_VERSION, HandshakeParams, HandshakeResult, ProtocolMismatch

__all__ = ["Connection", "TransportError", "handshake_line"]

_REPLY_PREVIEW: Final = 120


class TransportError(Exception):
    """A transport could not carry an exchange; ``kind`` is the fault it amounts to."""

    def __init__(self, kind: FaultKind, detail: str, *, first_line: bytes | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        #: For ``UNEXPECTED_REPLY``: the first of the lines read in reply (it may answer an earlier request).
        self.first_line = first_line


def handshake_line() -> bytes:
    """The harness's handshake request line (id 0)."""
    params = HandshakeParams(
        PROTOCOL_VERSION.to_wire(), {"name": SUITE_NAME, "version": suite_version()}, dict(CONTRACT_IDENTITY)
    )
    return encode_request(HANDSHAKE_ID, HANDSHAKE_OP, params.to_wire())


class Connection(abc.ABC):
    """A backend reached by request and reply lines."""

    #: The backend's stderr when it has one of its own (a child process).
    stderr: StderrLog | None = None

    def __init__(self, spec: str, *, max_request_bytes: int) -> None:
        self.spec = spec
        self.max_request_bytes = max_request_bytes
        #: Every fault observed, in order.
        self.faults: list[Fault] = []
        self._next_id = HANDSHAKE_ID + 1
        self._description: BackendDescription | None = None
        self._backend_request_cap: int | None = None
        self._unavailable: Fault | None = None
        #: The last request answered: (operation, request id); a later line with its id is a second reply.
        self._answered: tuple[str, int] | None = None

    # ----------------------------------------------------------------- transport hooks

    @abc.abstractmethod
    def _start(self, *, operation: str) -> None:
        """Make the transport ready to carry lines (spawn a child...); ``BackendFault`` when it cannot."""

    @abc.abstractmethod
    def _exchange(self, line: bytes, *, operation: str, request_id: int) -> bytes:
        """Carry one request line, return the reply line (without its newline); ``TransportError`` on failure."""

    @abc.abstractmethod
    def _discard(self) -> int | None:
        """The transport is out of step (a reply it cannot trust): drop it; the exit code if known."""

    @abc.abstractmethod
    def serve_command(self) -> list[str]:
        """An argv that serves this same backend over stdin/stdout in a fresh process."""

    def close(self) -> None:  # noqa: B027 - a transport without resources keeps this no-op
        """Release the transport. Idempotent."""

    # ----------------------------------------------------------------- faults

    def stderr_tail(self) -> str:
        return self.stderr.tail() if self.stderr is not None else ""

    def fault(
        self,
        kind: FaultKind,
        detail: str,
        *,
        operation: str | None = None,
        request_id: int | None = None,
        exit_code: int | None = None,
    ) -> BackendFault:
        """Record a fault and return the exception that carries it."""
        fault = Fault(kind, clip(detail, 2000), operation, request_id, exit_code, self.stderr_tail())
        self.faults.append(fault)
        if kind.ends_backend and self._unavailable is None:
            self._unavailable = fault
        return BackendFault(fault)

    def _check_available(self, operation: str) -> None:
        if self._unavailable is not None:
            raise self.fault(
                FaultKind.UNAVAILABLE, f"the backend is unavailable: {self._unavailable}", operation=operation
            )

    # ----------------------------------------------------------------- handshake

    def open(self) -> BackendDescription:
        """Connect (handshake) if not yet connected; the backend's description."""
        self._check_available(HANDSHAKE_OP)
        if self._description is None or self._needs_start():
            self._start(operation=HANDSHAKE_OP)
            self._handshake()
        assert self._description is not None
        return self._description

    def _needs_start(self) -> bool:
        """True when the transport must be started again before the next line (a child died)."""
        return False

    @property
    def description(self) -> BackendDescription | None:
        """The description from the last handshake, if any."""
        return self._description

    def _handshake(self) -> None:
        self._answered = None  # a new backend process answered nothing yet
        try:
            raw = self._exchange(handshake_line(), operation=HANDSHAKE_OP, request_id=HANDSHAKE_ID)
        except TransportError as failure:
            code = self._discard()
            raise self._handshake_fault(FaultKind.HANDSHAKE_FAILED, failure.detail, code) from None
        try:
            reply = decode_reply(raw)
            if reply.request_id != HANDSHAKE_ID:
                raise ProtocolError(f"handshake reply has id {reply.request_id!r}, expected {HANDSHAKE_ID}")
            if reply.kind != "result":
                raise ProtocolError(f"handshake answered with {reply.kind}: {clip(repr(reply.body))}")
            result = HandshakeResult.from_wire(reply.body)
        except ProtocolMismatch as exc:
            raise self._handshake_fault(FaultKind.PROTOCOL_MISMATCH, str(exc), self._discard()) from None
        except (EnvelopeError, ProtocolError) as exc:
            detail = f"{exc}; reply starts {raw[:_REPLY_PREVIEW]!r}"
            raise self._handshake_fault(FaultKind.HANDSHAKE_FAILED, detail, self._discard()) from None
        if self._description is not None and result.backend != self._description:
            self._discard()
            raise self.fault(
                FaultKind.IDENTITY_CHANGED,
                "the restarted backend describes itself differently",
                operation=HANDSHAKE_OP,
                request_id=HANDSHAKE_ID,
            )
        self._description = result.backend
        self._backend_request_cap = result.max_request_bytes

    def _handshake_fault(self, kind: FaultKind, detail: str, exit_code: int | None) -> BackendFault:
        return self.fault(kind, detail, operation=HANDSHAKE_OP, request_id=HANDSHAKE_ID, exit_code=exit_code)

    # ----------------------------------------------------------------- requests

    def _second_reply(self, line: bytes | None, request_id: int) -> tuple[str, int] | None:
        """The earlier request ``line`` answers (a second reply to it), if it carries that request's id."""
        answered = self._answered
        if line is None or answered is None or answered[1] == request_id:
            return None
        try:
            reply = decode_reply(line)
        except EnvelopeError:
            return None
        return answered if reply.request_id == answered[1] else None

    def _blame_second_reply(self, earlier: tuple[str, int]) -> None:
        """Record the second reply against the request it answers; the transport is out of step: drop it."""
        self._discard()
        self._answered = None
        self.fault(
            FaultKind.UNEXPECTED_REPLY,
            f"the backend replied a second time to request {earlier[1]} ({earlier[0]})",
            operation=earlier[0],
            request_id=earlier[1],
        )

    def request(self, operation: str, params: Mapping[str, Any]) -> Reply:
        """Send one request and return its reply (result, error or failure); ``BackendFault`` otherwise.

        A line answering the previous request again is blamed on that request; this one is then sent once
        more, to a restarted backend.
        """
        try:
            return self._request(operation, params)
        except _SecondReply as second:
            self._blame_second_reply(second.earlier)
        return self._request(operation, params)

    def _request(self, operation: str, params: Mapping[str, Any]) -> Reply:
        self.open()
        request_id = self._next_id
        self._next_id += 1
        line = encode_request(request_id, operation, params)
        cap = self.max_request_bytes
        if self._backend_request_cap is not None:
            cap = min(cap, self._backend_request_cap)
        if len(line) > cap:
            raise self.fault(
                FaultKind.REQUEST_TOO_LARGE,
                f"request of {len(line)} bytes exceeds the cap of {cap} bytes",
                operation=operation,
                request_id=request_id,
            )
        try:
            raw = self._exchange(line, operation=operation, request_id=request_id)
        except TransportError as failure:
            earlier = self._second_reply(failure.first_line, request_id)
            if earlier is not None:
                raise _SecondReply(earlier) from None
            code = self._discard()
            detail = (
                f"{failure.detail}; the backend was killed" if failure.kind is FaultKind.TIMEOUT else failure.detail
            )
            raise self.fault(failure.kind, detail, operation=operation, request_id=request_id, exit_code=code) from None
        try:
            reply = decode_reply(raw)
        except EnvelopeError as exc:
            code = self._discard()
            raise self.fault(
                FaultKind.MALFORMED_REPLY,
                f"{exc}; reply starts {raw[:_REPLY_PREVIEW]!r}",
                operation=operation,
                request_id=request_id,
                exit_code=code,
            ) from None
        if reply.request_id != request_id and not (reply.request_id is None and reply.kind == "failure"):
            answered = self._answered
            if answered is not None and reply.request_id == answered[1]:
                raise _SecondReply(answered)
            self._discard()
            raise self.fault(
                FaultKind.WRONG_REPLY_ID,
                f"reply id {reply.request_id!r} does not match request id {request_id}",
                operation=operation,
                request_id=request_id,
            )
        self._answered = (operation, request_id)
        return reply


class _SecondReply(Exception):
    """A reply line answered ``earlier`` (an already answered request) a second time."""

    def __init__(self, earlier: tuple[str, int]) -> None:
        super().__init__(earlier)
        self.earlier = earlier
