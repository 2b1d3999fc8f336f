"""``exec:COMMAND ...``: an out-of-process backend speaking the JSON-lines protocol.

The connector owns one child process at a time. It performs the handshake,
sends one request line per call and waits for the matching reply within the
per-call time budget. A crash, hang, oversized or unreadable reply kills the
child and raises ``BackendFault`` for that call only; the next call restarts
the child, at most ``max_restarts`` times per connector. A failed handshake
makes the backend unavailable for the rest of the run (it would fail again).
The child's stderr is captured continuously (``StderrLog``).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from harness import operations
from harness.backend import ExecuteResult, OperationNotSupported, PreparedFamily, Scenario, WeightPlanSelection
from harness.contract import CONTRACT_IDENTITY, PROTOCOL_VERSION, SUITE_NAME, suite_version
from harness.description import BackendDescription
from harness.faults import BackendFault
from harness.protocol import (
    HANDSHAKE_ID,
    HANDSHAKE_OP,
    Reply,
    ReplyError,
    encode_request,
    parse_reply,
    protocol_compatible,
)
from reference.errors import Serialization

__all__ = ["ExecBackend", "ExecOptions", "StderrLog"]

_MIB: Final = 1024 * 1024
_READ_CHUNK: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class ExecOptions:
    """Budgets and caps of the exec connector (all configurable from the CLI)."""

    call_timeout: float = 60.0
    handshake_timeout: float = 30.0
    max_restarts: int = 3
    max_reply_bytes: int = 64 * _MIB
    max_request_bytes: int = 64 * _MIB
    stderr_keep_bytes: int = 1 * _MIB
    env: Mapping[str, str] | None = None
    cwd: str | None = None

    def __post_init__(self) -> None:
        if self.call_timeout <= 0 or self.handshake_timeout <= 0:
            raise ValueError("time budgets must be positive")
        if self.max_restarts < 0:
            raise ValueError("max_restarts must be >= 0")
        if self.max_reply_bytes < 1024 or self.max_request_bytes < 1024:
            raise ValueError("byte caps must be at least 1024")


class StderrLog:
    """The child's stderr: total size and the last ``keep`` bytes, read by a thread."""

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._lock = threading.Lock()
        self._buffer = bytearray()
        self._total = 0

    def append(self, chunk: bytes) -> None:
        with self._lock:
            self._buffer += chunk
            self._total += len(chunk)
            if len(self._buffer) > self._keep:
                del self._buffer[: len(self._buffer) - self._keep]

    def mark(self) -> int:
        """A position; ``since(mark)`` returns what arrived after it."""
        with self._lock:
            return self._total

    def since(self, mark: int) -> str:
        with self._lock:
            new = self._total - mark
            if new <= 0:
                return ""
            data = bytes(self._buffer[-new:]) if new <= len(self._buffer) else b"[...]" + bytes(self._buffer)
        return data.decode("utf-8", errors="replace")

    def tail(self, limit: int = 4096) -> str:
        with self._lock:
            data = bytes(self._buffer[-limit:])
        return data.decode("utf-8", errors="replace")


def _drain_stderr(stream: Any, log: StderrLog) -> None:
    fd = stream.fileno()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        log.append(chunk)


class _Child:
    """One running child process and its pipes."""

    def __init__(self, argv: Sequence[str], options: ExecOptions, log: StderrLog) -> None:
        env = dict(os.environ if options.env is None else options.env)
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=options.cwd,
            start_new_session=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self.fd_in = self.proc.stdin.fileno()
        self.fd_out = self.proc.stdout.fileno()
        os.set_blocking(self.fd_in, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd_out, selectors.EVENT_READ)
        self.buffer = bytearray()
        self.stderr_thread = threading.Thread(
            target=_drain_stderr, args=(self.proc.stderr, log), name="vnext-backend-stderr", daemon=True
        )
        self.stderr_thread.start()
        self._finalizer = weakref.finalize(self, _kill, self.proc)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> int | None:
        """Kill the child (and its process group); return its exit code."""
        _kill(self.proc)
        self._close_pipes()
        return self.proc.returncode

    def shutdown(self, grace: float = 2.0) -> int | None:
        """Close stdin (the protocol's exit request), wait ``grace`` seconds, then kill."""
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            _kill(self.proc)
        self._close_pipes()
        return self.proc.returncode

    def wait_exit(self, grace: float) -> int | None:
        try:
            return self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            return None

    def _close_pipes(self) -> None:
        self.stderr_thread.join(timeout=1.0)
        with contextlib.suppress(Exception):
            self.selector.close()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._finalizer.detach()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            with contextlib.suppress(OSError):
                proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5.0)


class _Exchange(Exception):
    """Internal: the exchange failed; ``kind`` is the fault kind, ``kill`` whether to drop the child."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


class ExecBackend:
    """The exec connector; implements ``Backend`` over the JSON-lines protocol."""

    def __init__(self, argv: Sequence[str] | str, options: ExecOptions | None = None) -> None:
        self.argv: list[str] = shlex.split(argv) if isinstance(argv, str) else list(argv)
        if not self.argv:
            raise ValueError("exec backend needs a command")
        self.options = options or ExecOptions()
        self.stderr = StderrLog(self.options.stderr_keep_bytes)
        #: Every fault observed, in order (the report lists them).
        self.faults: list[BackendFault] = []
        self.restarts = 0
        self._spawns = 0
        self._child: _Child | None = None
        self._next_id = HANDSHAKE_ID + 1
        self._identity: BackendDescription | None = None
        self._backend_max_request: int | None = None
        self._broken: BackendFault | None = None

    # ----------------------------------------------------------------- Backend

    def connect(self) -> BackendDescription:
        """Start the child (if needed) and return the description from its handshake."""
        self._ensure_child(operation=HANDSHAKE_OP)
        assert self._identity is not None
        return self._identity

    @property
    def handshake_description(self) -> BackendDescription | None:
        return self._identity

    def describe(self) -> BackendDescription:
        result: BackendDescription = self._call("describe")
        return result

    def prepare_family(self, scenario: Scenario) -> PreparedFamily:
        result: PreparedFamily = self._call("prepare_family", scenario)
        return result

    def fingerprint_catalog(self, scenario: Scenario) -> str:
        result: str = self._call("fingerprint_catalog", scenario)
        return result

    def build_plan(self, scenario: Scenario) -> bytes:
        result: bytes = self._call("build_plan", scenario)
        return result

    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        result: str = self._call("revalidate", scenario, wire)
        return result

    def select_weight_plan(self, scenario: Scenario) -> WeightPlanSelection:
        result: WeightPlanSelection = self._call("select_weight_plan", scenario)
        return result

    def execute(self, scenario: Scenario, inputs: Mapping[str, bytes] | None = None, replays: int = 1) -> ExecuteResult:
        result: ExecuteResult = self._call("execute", scenario, inputs or {}, replays)
        return result

    def close(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.shutdown()

    # ----------------------------------------------------------------- internals

    def _fault(
        self,
        kind: str,
        detail: str,
        *,
        operation: str | None,
        request_id: int | None = None,
        exit_code: int | None = None,
    ) -> BackendFault:
        fault = BackendFault(
            kind,
            detail,
            operation=operation,
            request_id=request_id,
            exit_code=exit_code,
            stderr_tail=self.stderr.tail(),
        )
        self.faults.append(fault)
        return fault

    def _drop_child(self, *, wait: float = 0.0) -> int | None:
        child, self._child = self._child, None
        if child is None:
            return None
        code = child.wait_exit(wait) if wait else None
        killed = child.kill()
        return code if code is not None else killed

    def _ensure_child(self, *, operation: str) -> _Child:
        if self._broken is not None:
            raise self._fault("unavailable", f"backend is unavailable: {self._broken}", operation=operation)
        if self._child is not None and self._child.alive():
            return self._child
        if self._child is not None:
            self._drop_child()
        if self._spawns > 0:
            if self.restarts >= self.options.max_restarts:
                raise self._fault(
                    "restart_limit",
                    f"the backend needs a restart but all {self.options.max_restarts} restarts are used",
                    operation=operation,
                )
            self.restarts += 1
        self._spawns += 1
        try:
            self._child = _Child(self.argv, self.options, self.stderr)
        except OSError as exc:
            self._broken = self._fault("spawn_failed", f"cannot start {self.argv!r}: {exc}", operation=operation)
            raise self._broken from None
        self._handshake(self._child)
        return self._child

    def _handshake(self, child: _Child) -> None:
        params = {
            "protocol": PROTOCOL_VERSION.to_wire(),
            "suite": {"name": SUITE_NAME, "version": suite_version()},
            "contract": dict(CONTRACT_IDENTITY),
        }
        line = encode_request(HANDSHAKE_ID, HANDSHAKE_OP, params)
        kind = "handshake_failed"
        try:
            reply = self._exchange(child, line, self.options.handshake_timeout)
            if reply.request_id != HANDSHAKE_ID:
                raise _Exchange(kind, f"handshake reply has id {reply.request_id!r}, expected {HANDSHAKE_ID}")
            if reply.kind != "result":
                raise _Exchange(kind, f"handshake answered with {reply.kind}: {reply.body}")
            body = reply.body
            if set(body) != {"protocol", "max_request_bytes", "backend"}:
                raise _Exchange(
                    kind, f"handshake result must have protocol, max_request_bytes, backend; got {sorted(body)}"
                )
            if not protocol_compatible(body["protocol"]):
                kind = "protocol_mismatch"
                raise _Exchange(
                    kind, f"backend speaks protocol {body['protocol']!r}; this harness speaks {PROTOCOL_VERSION}"
                )
            limit = body["max_request_bytes"]
            if limit is not None and (type(limit) is not int or limit < 1024 or limit > 2**64 - 1):
                raise _Exchange(kind, f"max_request_bytes must be null or an integer >= 1024, got {limit!r}")
            try:
                description = BackendDescription.from_wire(body["backend"])
            except Serialization as exc:
                raise _Exchange(kind, f"handshake backend description is malformed: {exc.message_text}") from None
        except _Exchange as exc:
            code = self._drop_child(wait=0.2)
            self._broken = self._fault(
                kind if kind == "protocol_mismatch" else "handshake_failed",
                f"{exc.detail}",
                operation=HANDSHAKE_OP,
                request_id=HANDSHAKE_ID,
                exit_code=code,
            )
            raise self._broken from None
        if self._identity is not None and description != self._identity:
            self._drop_child()
            self._broken = self._fault(
                "identity_changed", "the restarted backend describes itself differently", operation=HANDSHAKE_OP
            )
            raise self._broken
        self._identity = description
        self._backend_max_request = limit

    def _call(self, operation: str, *args: Any) -> Any:
        params = operations.encode_params(operation, *args)
        child = self._ensure_child(operation=operation)
        request_id = self._next_id
        self._next_id += 1
        line = encode_request(request_id, operation, params)
        cap = self.options.max_request_bytes
        if self._backend_max_request is not None:
            cap = min(cap, self._backend_max_request)
        if len(line) > cap:
            raise self._fault(
                "request_too_large",
                f"request of {len(line)} bytes exceeds the cap of {cap} bytes",
                operation=operation,
                request_id=request_id,
            )
        try:
            reply = self._exchange(child, line, self.options.call_timeout)
        except _Exchange as exc:
            code = self._drop_child(wait=0.2 if exc.kind == "crash" else 0.0)
            detail = f"{exc.detail}; the backend was killed" if exc.kind == "timeout" else exc.detail
            raise self._fault(exc.kind, detail, operation=operation, request_id=request_id, exit_code=code) from None
        if reply.request_id != request_id and not (reply.request_id is None and reply.kind == "failure"):
            self._drop_child()
            raise self._fault(
                "wrong_reply_id",
                f"reply id {reply.request_id!r} does not match request id {request_id}",
                operation=operation,
                request_id=request_id,
            )
        if reply.kind == "failure":
            code_text, message = reply.body["code"], reply.body["message"]
            if code_text == "not_implemented":
                raise OperationNotSupported(operation)
            raise self._fault("backend_failure", f"{code_text}: {message}", operation=operation, request_id=request_id)
        if reply.kind == "error":
            try:
                error = reply.error()
            except ReplyError as exc:
                raise self._fault("malformed_reply", str(exc), operation=operation, request_id=request_id) from None
            raise error
        try:
            return operations.decode_result(operation, reply.body)
        except operations.ProtocolError as exc:
            raise self._fault("malformed_reply", str(exc), operation=operation, request_id=request_id) from None

    def _exchange(self, child: _Child, line: bytes, timeout: float) -> Reply:
        """Write ``line``, read one reply line within ``timeout``; ``_Exchange`` on any failure."""
        raw = self._roundtrip(child, line, timeout)
        try:
            return parse_reply(raw)
        except ReplyError as exc:
            raise _Exchange("malformed_reply", f"{exc}; reply starts {bytes(raw[:120])!r}") from None

    def _roundtrip(self, child: _Child, line: bytes, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        pending = memoryview(line)
        try:
            pending = pending[os.write(child.fd_in, pending) :]
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError):
            raise _Exchange("crash", "the backend closed its stdin (it has exited)") from None
        selector = child.selector
        if pending:
            selector.register(child.fd_in, selectors.EVENT_WRITE)
        cap = self.options.max_reply_bytes
        buffer = child.buffer
        scan_from = 0
        try:
            while True:
                newline = buffer.find(b"\n", scan_from)
                if newline >= 0:
                    if newline > cap:
                        raise _Exchange(
                            "oversized_reply", f"reply line of {newline} bytes exceeds the cap of {cap} bytes"
                        )
                    reply = bytes(buffer[:newline])
                    del buffer[: newline + 1]
                    return reply
                scan_from = len(buffer)
                if len(buffer) > cap:
                    raise _Exchange("oversized_reply", f"reply exceeds the cap of {cap} bytes without ending")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _Exchange("timeout", f"no reply within the time budget of {timeout:g}s")
                for key, _mask in selector.select(remaining):
                    if key.fd == child.fd_out:
                        chunk = os.read(child.fd_out, _READ_CHUNK)
                        if not chunk:
                            raise _Exchange("crash", "the backend closed stdout (it has exited) before replying")
                        buffer += chunk
                    elif pending:
                        try:
                            pending = pending[os.write(child.fd_in, pending) :]
                        except BlockingIOError:
                            continue
                        except (BrokenPipeError, ConnectionResetError):
                            raise _Exchange("crash", "the backend closed its stdin (it has exited)") from None
                        if not pending:
                            selector.unregister(child.fd_in)
        finally:
            if pending:
                with contextlib.suppress(KeyError, ValueError):
                    selector.unregister(child.fd_in)
