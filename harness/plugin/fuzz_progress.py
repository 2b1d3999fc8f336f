"""The live view of a fuzzing session: examples per second per suite, failures as found, rule coverage.

It extends the run's progress (``RunProgress``: cases per suite, on a terminal a ``rich`` table
redrawn in place, elsewhere a line every heartbeat) with what the workers' live files say
(``harness.fuzz.control``): examples so far per suite and their rate over the last
``RATE_WINDOW`` seconds, the time left, the failures found so far and the reachable rules exercised
so far (finished cases and the cases running now).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from rich.table import Table

from harness.fuzz.control import FuzzControl
from harness.plugin.progress import RunProgress

__all__ = ["RATE_WINDOW", "FuzzProgress", "LiveFigures"]

#: Seconds over which the live rates are measured.
RATE_WINDOW: Final = 10.0
_SHOWN_FAILURES: Final = 5


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


@dataclass(frozen=True, slots=True)
class LiveFigures:
    """One reading of the workers' live files."""

    examples: dict[str, int]
    rates: dict[str, float]
    rules: frozenset[str]
    running: int

    @property
    def total(self) -> int:
        return sum(self.examples.values())

    @property
    def rate(self) -> float:
        return sum(self.rates.values())


@dataclass
class FuzzProgress(RunProgress):
    """``RunProgress`` plus the live figures of a fuzzing session."""

    control: FuzzControl | None = None
    budget: float = 0.0
    """The session's time budget in seconds; it starts with the first generated case."""
    coverage: Callable[[Iterable[str]], tuple[int, int]] | None = None
    """``(exercised, reachable)`` rules, given the rules the running cases exercised so far."""
    found: list[tuple[str, str]] = field(default_factory=list)
    _samples: deque[tuple[float, dict[str, int]]] = field(default_factory=deque)

    # ------------------------------------------------------------ feeding

    def failure(self, case_id: str, where: str) -> None:
        """A failing case was reported (``where``: its counterexample bundle, or its message)."""
        with self._lock:
            self.found.append((case_id, where))
        if not self._is_live():
            self._line(f"failure found: {case_id}" + (f" ({where})" if where else ""))

    def read(self) -> LiveFigures:
        """The workers' live figures now, with rates against the oldest sample of the window."""
        snapshots = self.control.read_live() if self.control is not None else []
        examples: dict[str, int] = {}
        rules: set[str] = set()
        for snapshot in snapshots:
            for suite, count in snapshot.examples.items():
                examples[suite] = examples.get(suite, 0) + count
            rules.update(snapshot.rules)
        now = time.monotonic()
        with self._lock:
            self._samples.append((now, dict(examples)))
            while len(self._samples) > 2 and now - self._samples[1][0] >= RATE_WINDOW:
                self._samples.popleft()
            then, before = self._samples[0]
        span = now - then
        rates = {suite: (count - before.get(suite, 0)) / span if span > 0 else 0.0 for suite, count in examples.items()}
        running = sum(snapshot.running is not None for snapshot in snapshots)
        return LiveFigures(examples, rates, frozenset(rules), running)

    # ------------------------------------------------------------ showing

    def left(self) -> float:
        """Seconds of the budget left (all of it until the first generated case fixed the deadline)."""
        deadline = self.control.read_deadline() if self.control is not None else None
        return self.budget if deadline is None else max(0.0, deadline - time.time())

    def _coverage(self, figures: LiveFigures) -> str:
        if self.coverage is None:
            return ""
        exercised, reachable = self.coverage(figures.rules)
        return f"rules {exercised}/{reachable} exercised"

    def status_line(self) -> str:
        figures = self.read()
        done, expected, failed = self.totals()
        elapsed = time.monotonic() - self.started
        left = self.left()
        parts = [
            f"[{_clock(elapsed)}, {_clock(left)} left] {figures.total} examples ({figures.rate:.1f}/s)",
            f"{done}/{expected} cases done, {failed} failed",
        ]
        coverage = self._coverage(figures)
        if coverage:
            parts.append(coverage)
        busiest = sorted(figures.rates.items(), key=lambda item: (-item[1], item[0]))[:3]
        if busiest:
            parts.append(", ".join(f"{suite} {rate:.1f}/s" for suite, rate in busiest))
        return "; ".join(parts)

    def table(self) -> Table:
        figures = self.read()
        done, expected, failed = self.totals()
        elapsed = time.monotonic() - self.started
        left = self.left()
        title = (
            f"fuzzing [{_clock(elapsed)}, {_clock(left)} left]: {figures.total} examples "
            f"({figures.rate:.1f}/s, {self.workers} worker{'s' if self.workers != 1 else ''}), "
            f"{done}/{expected} cases done, {failed} failed"
        )
        coverage = self._coverage(figures)
        with self._lock:
            found = list(self.found)
            rows = sorted(self.suites.items())
        lines = [coverage] if coverage else []
        lines += [
            f"failure: {case_id}" + (f" -> {where}" if where else "") for case_id, where in found[-_SHOWN_FAILURES:]
        ]
        if len(found) > _SHOWN_FAILURES:
            lines.append(f"... {len(found) - _SHOWN_FAILURES} more failures")
        table = Table(title=title, title_justify="left", caption="\n".join(lines) or None, caption_justify="left")
        for column in ("suite", "cases", "examples", "examples/s", "failed"):
            table.add_column(column, justify="left" if column == "suite" else "right")
        for name, row in rows:
            table.add_row(
                name,
                f"{row.done}/{row.expected}" if row.expected else str(row.done),
                str(figures.examples.get(name, 0)),
                f"{figures.rates.get(name, 0.0):.1f}",
                str(row.failed) if row.failed else "",
            )
        return table
