"""Live progress of a conformance run: per-suite counts, elapsed time, ETA, the cases running now.

On a terminal a ``rich`` table is redrawn in place; elsewhere (CI logs, pipes) a plain line is
printed whenever a suite finishes and, between those, every ``heartbeat`` seconds, so a log is
never silent for long. Both write to a copy of the terminal's stream taken before pytest starts
capturing output, so they show while a long generated case runs.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO

from rich.console import Console
from rich.live import Live
from rich.table import Table

__all__ = ["RunProgress", "suites_of", "terminal_stream"]

_FAILING = frozenset({"failed", "error"})


def _dup_stderr() -> IO[str] | None:
    original = sys.__stderr__
    if original is None:
        return None
    try:
        return os.fdopen(os.dup(original.fileno()), "w", buffering=1, encoding="utf-8", errors="replace")
    except (AttributeError, OSError, ValueError):
        return None


#: stderr as it was when the plugin was imported (before pytest captures file descriptors).
_TERMINAL = _dup_stderr()


def terminal_stream() -> IO[str]:
    return _TERMINAL if _TERMINAL is not None else sys.stderr


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


@dataclass
class _Suite:
    expected: int = 0
    done: int = 0
    failed: int = 0
    not_applicable: int = 0
    seconds: float = 0.0
    finished_at: float | None = None


@dataclass
class RunProgress:
    """Counts of one run, fed by finished cases; renders itself live or as lines."""

    workers: int = 1
    heartbeat: float = 30.0
    live: bool | None = None
    stream: IO[str] = field(default_factory=terminal_stream)
    suites: dict[str, _Suite] = field(default_factory=dict)
    running: dict[str, float] = field(default_factory=dict)  # nodeid -> started at
    started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _live: Live | None = None
    _last_line: float = field(default_factory=time.monotonic)

    # ------------------------------------------------------------ feeding

    def expect(self, suites: Mapping[str, int]) -> None:
        with self._lock:
            for name, count in suites.items():
                self.suites.setdefault(name, _Suite()).expected = count

    def case_started(self, nodeid: str) -> None:
        with self._lock:
            self.running[nodeid] = time.monotonic()

    def case_finished(self, nodeid: str, suite: str, outcome: str, seconds: float) -> None:
        with self._lock:
            self.running.pop(nodeid, None)
            row = self.suites.setdefault(suite, _Suite())
            row.done += 1
            row.seconds += seconds
            row.failed += outcome in _FAILING
            row.not_applicable += outcome == "not_applicable"
            completed = row.expected and row.done == row.expected
            if completed:
                row.finished_at = time.monotonic()
        if completed and not self._is_live():
            self._line(
                f"{suite}: {row.done} cases, {row.failed} failed, {row.not_applicable} n/a in {row.seconds:.1f}s"
            )

    # ------------------------------------------------------------ figures

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def totals(self) -> tuple[int, int, int]:
        with self._lock:
            return (
                sum(row.done for row in self.suites.values()),
                sum(row.expected for row in self.suites.values()),
                sum(row.failed for row in self.suites.values()),
            )

    def eta(self) -> float | None:
        """Seconds left, from the rate so far (``None`` before any case finished)."""
        done, expected, _ = self.totals()
        elapsed = time.monotonic() - self.started
        if not done or expected <= done:
            return None if not done else 0.0
        return elapsed / done * (expected - done)

    def status_line(self) -> str:
        done, expected, failed = self.totals()
        if not expected and not done:
            return f"[{_clock(time.monotonic() - self.started)}] collecting the cases"
        share = f" ({100 * done // expected}%)" if expected else ""
        eta = self.eta()
        parts = [f"[{_clock(time.monotonic() - self.started)}] {done}/{expected} cases{share}, {failed} failed"]
        if eta is not None and done < expected:
            parts.append(f"ETA {_clock(eta)}")
        with self._lock:
            longest = sorted(self.running.items(), key=lambda item: item[1])[:2]
        now = time.monotonic()
        for nodeid, since in longest:
            parts.append(f"running {nodeid.rpartition('/')[2]} ({now - since:.0f}s)")
        return "; ".join(parts)

    def table(self) -> Table:
        table = Table(title=self.status_line(), title_justify="left", expand=False)
        for column in ("suite", "done", "failed", "n/a", "time"):
            table.add_column(column, justify="left" if column == "suite" else "right")
        with self._lock:
            rows = sorted(self.suites.items())
        for name, row in rows:
            table.add_row(
                name,
                f"{row.done}/{row.expected}" if row.expected else str(row.done),
                str(row.failed) if row.failed else "",
                str(row.not_applicable) if row.not_applicable else "",
                f"{row.seconds:.0f}s",
            )
        return table

    # ------------------------------------------------------------ showing

    def _is_live(self) -> bool:
        return self._live is not None

    def _line(self, text: str) -> None:
        self._last_line = time.monotonic()
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def start(self) -> None:
        live = self.live if self.live is not None else self.stream.isatty()
        if live:
            console = Console(file=self.stream, force_terminal=True)
            self._live = Live(get_renderable=self.table, console=console, refresh_per_second=2, transient=True)
            self._live.start()
            return
        self._thread = threading.Thread(target=self._beat, name="vnext-progress", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.heartbeat)):
            self.beat(time.monotonic())

    def beat(self, now: float) -> bool:
        """A status line when the last line is at least ``heartbeat`` seconds older than ``now``; whether one was."""
        if now - self._last_line < self.heartbeat:
            return False
        self._line(self.status_line())
        return True

    def stop(self) -> None:
        self._stop.set()
        if self._live is not None:
            self._live.stop()
            self._live = None
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None


def suites_of(nodeids: Iterable[str]) -> dict[str, int]:
    """Case counts per suite from conformance node ids (``.../test_<suite>.py::...``)."""
    out: dict[str, int] = {}
    for nodeid in nodeids:
        module = nodeid.partition("::")[0].rpartition("/")[2]
        if module.startswith("test_") and module.endswith(".py"):
            name = module[len("test_") : -len(".py")]
            out[name] = out.get(name, 0) + 1
    return out
