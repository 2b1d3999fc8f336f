"""``exec:COMMAND ...``: a backend in a child process, reached over its stdin and stdout.

The connection owns one child at a time. It starts it in a session of its own (so the whole
process group can be ended) through a small launcher that ties the child's life to the
harness (``PR_SET_PDEATHSIG``), performs the handshake, then carries one request line per call
and waits for the matching reply within the per-call time budget. While it waits it also
watches the child's exit, so a backend that dies (even one whose descendants keep stdout open)
is reported at once. A crash, hang, oversized or unreadable reply, or a second reply to one
request ends the child (and every process still holding its pipes) and fails that call only;
the next call starts a new child, at most ``max_restarts`` times. A failed handshake makes the
backend unavailable for the rest of the run. The child's stderr is drained continuously.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from harness.connection.base import Connection, TransportError
from harness.connection.faults import FaultKind
from harness.connection.stderr import StderrLog, drain

__all__ = ["ExecConnection", "ExecOptions"]

_MIB: Final = 1024 * 1024
_READ_CHUNK: Final = 1 << 20
_EXIT_GRACE: Final = 2.0
#: Sets the parent-death signal, then becomes the backend (argv[1:]).
_LAUNCHER: Final = (
    "import ctypes,os,signal,sys\n"
    "try: ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)\n"
    "except Exception: pass\n"
    "if os.getppid() == 1: os._exit(70)\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


@dataclass(frozen=True, slots=True)
class ExecOptions:
    """Budgets and caps of the exec connection."""

    call_timeout: float = 60.0
    handshake_timeout: float = 30.0
    max_restarts: int = 3
    max_reply_bytes: int = 64 * _MIB
    max_request_bytes: int = 64 * _MIB
    stderr_keep_bytes: int = 1 * _MIB
    env: Mapping[str, str] | None = field(default=None, compare=False)
    cwd: str | None = None

    def __post_init__(self) -> None:
        if self.call_timeout <= 0 or self.handshake_timeout <= 0:
            raise ValueError("time budgets must be positive")
        if self.max_restarts < 0:
            raise ValueError("max_restarts must be >= 0")
        if self.max_reply_bytes < 1024 or self.max_request_bytes < 1024:
            raise ValueError("byte caps must be at least 1024")


def _pipe_holders(inodes: set[int]) -> list[int]:
    """Pids (other than ours) holding any pipe of ``inodes`` open, from ``/proc``."""
    wanted = {f"pipe:[{inode}]" for inode in inodes}
    holders: list[int] = []
    proc = Path("/proc")
    if not wanted or not proc.is_dir():
        return holders
    me = os.getpid()
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in wanted:
                        holders.append(int(entry.name))
                        break
    return holders


def _end_group(proc: subprocess.Popen[bytes], inodes: set[int]) -> None:
    """SIGKILL the child's process group (even after the leader exited) and every pipe holder; reap."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in _pipe_holders(inodes):
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5.0)


class _Child:
    """One running child process and its pipes."""

    def __init__(self, argv: Sequence[str], options: ExecOptions, log: StderrLog) -> None:
        env = dict(os.environ if options.env is None else options.env)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _LAUNCHER, *argv],
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
        self.inodes = {os.fstat(fd).st_ino for fd in (self.fd_in, self.fd_out, self.proc.stderr.fileno())}
        os.set_blocking(self.fd_in, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd_out, selectors.EVENT_READ)
        self.exit_fd: int | None = None
        with contextlib.suppress(OSError, AttributeError):
            self.exit_fd = os.pidfd_open(self.proc.pid)
            self.selector.register(self.exit_fd, selectors.EVENT_READ)
        self.buffer = bytearray()
        self.stderr_thread = threading.Thread(
            target=drain, args=(self.proc.stderr.fileno(), log), name="vnext-backend-stderr", daemon=True
        )
        self.stderr_thread.start()
        self._finalizer = weakref.finalize(self, _end_group, self.proc, set(self.inodes))

    def alive(self) -> bool:
        return self.proc.poll() is None

    def pending_output(self) -> bool:
        """True when the child has written something nobody asked for."""
        if self.buffer:
            return True
        ready = [key for key, _ in self.selector.select(0) if key.fd == self.fd_out]
        if not ready:
            return False
        with contextlib.suppress(OSError):
            chunk = os.read(self.fd_out, _READ_CHUNK)
            self.buffer += chunk
            return bool(chunk)
        return False

    def end(self, *, grace: float = 0.0) -> int | None:
        """End the child: after ``grace`` seconds of waiting for its own exit, kill its group; its exit code."""
        if grace:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=grace)
        _end_group(self.proc, self.inodes)
        self._release()
        return self.proc.returncode

    def shutdown(self) -> int | None:
        """Close stdin (the protocol's request to exit), wait the grace period, then end the group."""
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        return self.end(grace=_EXIT_GRACE)

    def _release(self) -> None:
        self.stderr_thread.join(timeout=1.0)
        with contextlib.suppress(Exception):
            self.selector.close()
        if self.exit_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.exit_fd)
            self.exit_fd = None
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._finalizer.detach()


class ExecConnection(Connection):
    """The exec connection; see the module docstring."""

    def __init__(self, argv: Sequence[str], options: ExecOptions | None = None, *, spec: str = "") -> None:
        self.argv = list(argv)
        if not self.argv:
            raise ValueError("exec backend needs a command")
        self.options = options or ExecOptions()
        super().__init__(spec or "exec:" + " ".join(self.argv), max_request_bytes=self.options.max_request_bytes)
        self.log = StderrLog(self.options.stderr_keep_bytes)
        self.stderr = self.log
        self.restarts = 0
        self._spawns = 0
        self._child: _Child | None = None
        self._last: tuple[str, int] | None = None

    def serve_command(self) -> list[str]:
        return list(self.argv)

    def _resolve(self) -> str | None:
        program = self.argv[0]
        env = os.environ if self.options.env is None else self.options.env
        if os.sep in program:
            path = Path(self.options.cwd or ".") / program
            return str(path) if os.access(path, os.X_OK) and path.is_file() else None
        return shutil.which(program, path=env.get("PATH"))

    def _needs_start(self) -> bool:
        return self._child is None or not self._child.alive()

    def _start(self, *, operation: str) -> None:
        if self._child is not None:
            self._discard()
        if self._spawns > 0:
            if self.restarts >= self.options.max_restarts:
                raise self.fault(
                    FaultKind.RESTART_LIMIT,
                    f"the backend needs a restart but all {self.options.max_restarts} restarts are used",
                    operation=operation,
                )
            self.restarts += 1
        self._spawns += 1
        self._last = None
        program = self._resolve()
        if program is None:
            raise self.fault(
                FaultKind.SPAWN_FAILED,
                f"cannot start {self.argv!r}: no executable {self.argv[0]!r}",
                operation=operation,
            )
        try:
            self._child = _Child([program, *self.argv[1:]], self.options, self.log)
        except OSError as exc:
            raise self.fault(
                FaultKind.SPAWN_FAILED, f"cannot start {self.argv!r}: {exc}", operation=operation
            ) from None

    def _discard(self) -> int | None:
        child, self._child = self._child, None
        return child.end(grace=0.2) if child is not None else None

    def close(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.shutdown()

    def _exchange(self, line: bytes, *, operation: str, request_id: int) -> bytes:
        child = self._child
        assert child is not None
        if request_id != 0 and self._last is not None and child.pending_output():
            # A late second reply to the previous request: blame that request, restart, go on.
            last_op, last_id = self._last
            self._discard()
            self.fault(
                FaultKind.UNEXPECTED_REPLY,
                f"the backend wrote another line after its reply to request {last_id} ({last_op})",
                operation=last_op,
                request_id=last_id,
            )
            self.open()
            child = self._child
            assert child is not None
        self._last = (operation, request_id)
        timeout = self.options.handshake_timeout if request_id == 0 else self.options.call_timeout
        reply = self._roundtrip(child, line, timeout)
        if child.pending_output():
            raise TransportError(
                FaultKind.UNEXPECTED_REPLY,
                "the backend wrote more than one line in reply to one request",
                first_line=reply,
            )
        return reply

    def _roundtrip(self, child: _Child, line: bytes, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        pending = memoryview(line)
        try:
            pending = pending[os.write(child.fd_in, pending) :]
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError):
            raise TransportError(FaultKind.CRASH, "the backend closed its stdin (it has exited)") from None
        selector = child.selector
        if pending:
            selector.register(child.fd_in, selectors.EVENT_WRITE)
        cap = self.options.max_reply_bytes
        buffer = child.buffer
        scan_from = 0
        exited = False
        try:
            while True:
                newline = buffer.find(b"\n", scan_from)
                if newline >= 0:
                    if newline > cap:
                        raise TransportError(
                            FaultKind.OVERSIZED_REPLY, f"reply line of {newline} bytes exceeds the cap of {cap} bytes"
                        )
                    reply = bytes(buffer[:newline])
                    del buffer[: newline + 1]
                    return reply
                scan_from = len(buffer)
                if len(buffer) > cap:
                    raise TransportError(
                        FaultKind.OVERSIZED_REPLY, f"reply exceeds the cap of {cap} bytes without ending"
                    )
                if exited:
                    code = child.proc.poll()
                    raise TransportError(FaultKind.CRASH, f"the backend exited (status {code}) before replying")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TransportError(FaultKind.TIMEOUT, f"no reply within the time budget of {timeout:g}s")
                for key, _mask in selector.select(remaining):
                    if key.fd == child.fd_out:
                        chunk = os.read(child.fd_out, _READ_CHUNK)
                        if not chunk:
                            raise TransportError(
                                FaultKind.CRASH, "the backend closed stdout (it has exited) before replying"
                            )
                        buffer += chunk
                    elif key.fd == child.exit_fd:
                        selector.unregister(child.exit_fd)
                        exited = True
                        while self._read_more(child):
                            pass
                    elif pending:
                        try:
                            pending = pending[os.write(child.fd_in, pending) :]
                        except BlockingIOError:
                            continue
                        except (BrokenPipeError, ConnectionResetError):
                            raise TransportError(
                                FaultKind.CRASH, "the backend closed its stdin (it has exited)"
                            ) from None
                        if not pending:
                            selector.unregister(child.fd_in)
        finally:
            if pending:
                with contextlib.suppress(KeyError, ValueError):
                    selector.unregister(child.fd_in)

    @staticmethod
    def _read_more(child: _Child) -> bool:
        """Read what the exited child left in its stdout pipe; False once nothing more is there."""
        ready = [key for key, _ in child.selector.select(0) if key.fd == child.fd_out]
        if not ready:
            return False
        chunk = os.read(child.fd_out, _READ_CHUNK)
        child.buffer += chunk
        return bool(chunk)
