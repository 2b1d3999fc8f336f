"""``StderrLog``: a child's stderr, drained continuously by a thread, keeping only its tail."""

from __future__ import annotations

import os
import threading

__all__ = ["StderrLog", "drain"]


class StderrLog:
    """Total size and the last ``keep`` bytes of a stream."""

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


def drain(fd: int, log: StderrLog) -> None:
    """Read ``fd`` into ``log`` until end of file (run on a thread)."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        log.append(chunk)
