"""``FuzzSession``: the hooks of ``vnext-conformance fuzz``, in the controller and in every worker.

A fuzzing session is a conformance run (``ConformanceRun`` still labels, gates, records and
reports every case) that keeps only the generated cases and runs each in rounds
(``harness.fuzz.rounds``) for its share of the time budget: the time left split over the cases
not started yet. The time budget starts with the first generated case (``FuzzControl.claim_deadline``),
so worker start-up and collection do not count. The controller fixes the session seed and a control directory
(``harness.fuzz.control``) and hands them to the xdist workers; workers write their live counts
there, and the controller's live display (``FuzzProgress``) reads them.

Stopping: the first SIGINT or SIGTERM asks for a stop (the control directory's ``stop`` file, for
the workers a signal sent to the controller alone never reaches): each running case ends after its
current example, unless it is shrinking a failure, which it finishes so the counterexample is kept;
cases not started yet are skipped as *not run*; the reports say ``complete: false`` and the
certificate is written. A second signal, or ``STOP_GRACE`` seconds without an end, stops at once as
a plain run does. Everything found is kept either way: Hypothesis writes a failing example to the
database as soon as it is found, and the shrunk one is written as a bundle.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import secrets
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import settings as hypothesis_settings

from harness.fuzz.control import LIVE_INTERVAL, FuzzControl, LiveSnapshot
from harness.fuzz.examples import ExampleTally, is_generated
from harness.fuzz.rounds import run_rounds, share_of
from harness.plugin.fuzz_progress import FuzzProgress
from harness.plugin.records import CASE_ID
from harness.plugin.run import FUZZ_FACTS, ConformanceRun, _interrupt
from harness.plugin.selection import CASE
from harness.rules import RuleStatus

__all__ = ["NOT_RUN", "STOP_GRACE", "FuzzSession"]

#: Seconds a requested stop may take before the session is stopped at once.
STOP_GRACE: Final = 60.0
#: The start of the skip reason of a case the session did not run.
NOT_RUN: Final = "not run: "
_WORKER_INPUT: Final = "vnext_fuzz"


class FuzzSession:
    """Hooks of one fuzzing session in one process (see the module docstring)."""

    def __init__(self, config: pytest.Config, run: ConformanceRun) -> None:
        self.config = config
        self.run = run
        handed = getattr(config, "workerinput", {}).get(_WORKER_INPUT)
        if handed is not None:  # an xdist worker: the controller decided
            self.control = FuzzControl(Path(handed["control"]))
            self.budget = float(handed["budget"])
            self.seed = int(handed["seed"])
            self.worker = str(config.workerinput["workerid"])  # type: ignore[attr-defined]
            self.workers = int(config.workerinput.get("workercount", 1))  # type: ignore[attr-defined]
            self.controller = False
        else:
            settings = run.settings
            assert settings.fuzz_time is not None
            self.budget = settings.fuzz_time
            self.seed = settings.seed if settings.seed is not None else random.SystemRandom().randrange(2**32)
            token = f"session-{os.getpid()}-{secrets.token_hex(4)}"
            self.control = FuzzControl(settings.cache_dir / "fuzz" / token)
            self.worker = "main"
            self.workers = run.workers()
            self.controller = True
        self.cases = 0
        self.started = 0
        self.done_examples: Counter[str] = Counter()
        self.rounds: Counter[str] = Counter()
        self.endings: Counter[str] = Counter()
        self.not_run = 0
        self.stop_signal: str | None = None
        self._last_live = 0.0
        self._running: tuple[str, str] | None = None  # (nodeid, suite)
        self._timer: threading.Timer | None = None
        self._install_signals()

    # ------------------------------------------------------------ signals

    def _install_signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: Any) -> None:
        name = signal.Signals(signum).name
        if self.control.stop_requested() or self.stop_signal is not None:
            if self.controller:
                _interrupt(signum, frame)  # ends the workers and raises KeyboardInterrupt
            raise KeyboardInterrupt(f"signal {name}")
        self.request_stop(name)

    def request_stop(self, why: str) -> None:
        """Ask every process of the session to stop (after the examples running now)."""
        self.stop_signal = why
        self.control.request_stop()
        if self.controller:
            self.run.stop("interrupted", f"stopped by {why}; the cases that were running ended after their example")
            self._timer = threading.Timer(STOP_GRACE, self._force_stop)
            self._timer.daemon = True
            self._timer.start()

    def _force_stop(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(os.getpid(), signal.SIGINT)

    # ------------------------------------------------------------ controller

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_WORKER_INPUT] = {
            "control": str(self.control.directory),
            "budget": self.budget,
            "seed": self.seed,
        }

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Keep only the generated cases (the others have nothing to search)."""
        keep = [item for item in items if is_generated(getattr(item, "obj", None))]
        dropped = [item for item in items if not is_generated(getattr(item, "obj", None))]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
        self.cases = len(keep)

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.cases = len(ids)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if not self.controller:
            return
        self.control.write_started(0)
        progress = FuzzProgress(
            workers=self.workers,
            heartbeat=self.run.settings.heartbeat,
            control=self.control,
            budget=self.budget,
            coverage=self._coverage,
        )
        self.run.progress = progress
        progress.start()

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        if self.controller:
            self.started += 1
            self.control.write_started(self.started)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.controller or report.when != "call":
            return
        case_id = next((str(value) for name, value in report.user_properties if name == CASE_ID), report.nodeid)
        if report.failed and isinstance(self.run.progress, FuzzProgress):
            where = next((str(v) for n, v in report.user_properties if n == "vnext_counterexample"), "")
            self.run.progress.failure(case_id, where)
        if (
            report.skipped
            and isinstance(report.longrepr, tuple)
            and str(report.longrepr[2]).startswith(f"Skipped: {NOT_RUN}")
        ):
            self.not_run += 1

    def _coverage(self, running: Iterable[str]) -> tuple[int, int]:
        """Reachable rules exercised by the finished cases or, so far, by the running ones."""
        catalogue = self.run.catalogue()
        if catalogue is None:
            return 0, 0
        reachable = catalogue.reachable()
        live = set(running)
        exercised = sum(
            rule.id in live or self.run.tally.status(rule) in (RuleStatus.PASSED, RuleStatus.FAILED)
            for rule in reachable
        )
        return exercised, len(reachable)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if not self.controller:
            return
        if self.not_run and self.run.stopped is None:
            self.run.stop("budget", f"the time budget was spent before {self.not_run} generated cases started")
        self.config.stash[FUZZ_FACTS] = {
            "cases": self.cases,
            "not_run": self.not_run,
            "stop_signal": self.stop_signal,
        }

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if not self.controller or not isinstance(self.run.progress, FuzzProgress):
            return
        progress = self.run.progress
        terminalreporter.section("vnext-conformance fuzzing", sep="-")
        total = seconds = 0.0
        for suite, row in sorted(progress.suites.items()):
            examples = self.run.examples_by_suite.get(suite, 0)
            total, seconds = total + examples, seconds + row.seconds
            rate = examples / row.seconds if row.seconds > 0 else 0.0
            terminalreporter.write_line(
                f"{suite}: {row.done} cases, {examples} examples in {row.seconds:.0f} worker-seconds "
                f"({rate:.1f} examples/s per worker), {row.failed} failed"
            )
        rate = total / seconds if seconds > 0 else 0.0
        terminalreporter.write_line(
            f"total: {int(total)} examples, {rate:.1f} examples/s per worker, {self.workers} worker(s), "
            f"session seed {self.seed}"
        )
        if self.not_run:
            terminalreporter.write_line(f"{self.not_run} generated cases did not run (budget spent or stopped)")

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.controller:
            self.control.remove()

    # ------------------------------------------------------------ running a generated case

    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Any:
        original = pyfuncitem.obj
        info = pyfuncitem.stash.get(CASE, None)
        tally = self.run.examples
        if not is_generated(original) or info is None or tally is None:
            return (yield)
        case_id, suite = info
        now = time.time()
        if self.control.stop_requested():
            pytest.skip(f"{NOT_RUN}the fuzzing session was stopped before this case started")
        deadline = self.control.claim_deadline(now + self.budget)
        if now >= deadline:
            pytest.skip(f"{NOT_RUN}the time budget was spent before this case started")
        started = max(self.control.read_started() - 1, 0)
        share = share_of(deadline=deadline, now=now, cases=self.cases, started=started, workers=self.workers)
        end = min(deadline, now + share)
        tally.should_stop = self.control.stop_requested
        tally.on_example = self._live
        self._running = (pyfuncitem.nodeid, suite)
        profile = hypothesis_settings.default
        maximum = profile.max_examples if profile is not None else 1000

        @functools.wraps(original)
        def rounds(**kwargs: Any) -> None:
            result = run_rounds(
                lambda: original(**kwargs),
                original,
                case_id=case_id,
                base_seed=self.seed,
                end=end,
                tally=tally,
                maximum=maximum,
                stop=self.control.stop_requested,
            )
            self.rounds[suite] += result.rounds
            self.endings[result.ended] += 1

        pyfuncitem.obj = rounds
        try:
            return (yield)
        finally:
            pyfuncitem.obj = original
            self.done_examples[suite] += tally.examples
            self._running = None
            self._write_live(tally)

    def _live(self, tally: ExampleTally) -> None:
        now = time.monotonic()
        if now - self._last_live >= LIVE_INTERVAL:
            self._write_live(tally)

    def _write_live(self, tally: ExampleTally | None) -> None:
        self._last_live = time.monotonic()
        examples = Counter(self.done_examples)
        running = None
        if self._running is not None and tally is not None:
            running = self._running[0]
            examples[self._running[1]] += tally.examples
        checked = self.run.checked_rules()
        self.control.write_live(
            LiveSnapshot(
                worker=self.worker,
                examples=dict(examples),
                running=running,
                rules=tuple(checked) if running is not None else (),
                written_at=time.time(),
            )
        )
