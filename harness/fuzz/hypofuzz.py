"""HypoFuzz as an optional engine: which suites' tests it fuzzes and what it found, read from the database.

HypoFuzz (``pip install 'vnext-conformance[hypofuzz]'``) runs the generated cases with its own
coverage-guided scheduler, in its own worker processes, through pytest and this suite's plugin
(so ``--backend`` and the other options apply). It ends only when stopped, and its own final line
("Found a failing input for every test!") is printed whenever its workers have nothing left to
do, whatever the reason: a case that is *not applicable* to the backend is recorded by HypoFuzz
as a failure of a skip exception, a case whose fixtures fail as a fatal failure. So
``vnext-conformance fuzz --engine hypofuzz`` reads the outcome of every case from the example
database instead (``outcomes``) and says what really happened.

HypoFuzz is imported lazily (``installed``), so nothing here needs it unless it is used.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["FAILED", "FATAL", "NO_FAILURE", "SKIPPED", "Target", "TargetOutcome", "collect", "installed", "outcomes"]

FAILED: Final = "failed"
SKIPPED: Final = "skipped"
FATAL: Final = "could not run"
NO_FAILURE: Final = "no failure found"
#: How a skip (a *not applicable* case) shows in a HypoFuzz failure record.
_SKIP_MARKS: Final = ("Skipped", "NotApplicable", "not applicable: ")


def installed() -> bool:
    return importlib.util.find_spec("hypofuzz") is not None


@dataclass(frozen=True, slots=True)
class Target:
    """A test HypoFuzz fuzzes: its pytest node id and its example database key."""

    nodeid: str
    database_key: bytes


@dataclass(frozen=True, slots=True)
class TargetOutcome:
    """What the database says of one target: ``status`` is one of the module's outcome constants."""

    nodeid: str
    status: str
    detail: str = ""
    examples: int = 0


def collect(pytest_args: Sequence[str]) -> list[Target]:
    """The tests HypoFuzz would fuzz with ``pytest_args`` (collected in this process)."""
    collection: Any = importlib.import_module("hypofuzz.collection")
    result = collection.collect_tests(list(pytest_args))
    return [Target(str(target.nodeid), bytes(target.database_key)) for target in result.fuzz_targets]


def _last_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _examples(database: Any, key: bytes) -> int:
    """Valid and failing examples HypoFuzz ran, from each worker's latest report."""
    latest: dict[str, Any] = {}
    for report in database.reports.fetch(key):
        current = latest.get(report.worker_uuid)
        if current is None or report.elapsed_time > current.elapsed_time:
            latest[report.worker_uuid] = report
    total = 0
    for report in latest.values():
        for status, count in report.status_counts.items():
            if getattr(status, "name", str(status)) in ("VALID", "INTERESTING"):
                total += int(count)
    return total


def outcomes(example_database: Any, targets: Iterable[Target]) -> list[TargetOutcome]:
    """The outcome of every target, read from HypoFuzz's records in ``example_database``."""
    database_module: Any = importlib.import_module("hypofuzz.database")
    database = database_module.HypofuzzDatabase(example_database)
    states = (database_module.FailureState.SHRUNK, database_module.FailureState.UNSHRUNK)
    found: list[TargetOutcome] = []
    for target in targets:
        key = target.database_key
        examples = _examples(database, key)
        fatal = database.fatal_failures.fetch(key)
        if fatal is not None:
            found.append(TargetOutcome(target.nodeid, FATAL, _last_line(fatal.traceback), examples))
            continue
        failures: list[str] = []
        skips: list[str] = []
        for state in states:
            for choices in database.failures(state=state).fetch(key):
                observation = database.failure_observations(state=state).fetch(key, choices)
                text = "" if observation is None else f"{observation.status_reason}\n{observation.metadata.traceback}"
                (skips if any(mark in text for mark in _SKIP_MARKS) else failures).append(_last_line(text))
        if failures:
            found.append(TargetOutcome(target.nodeid, FAILED, failures[0], examples))
        elif skips:
            found.append(TargetOutcome(target.nodeid, SKIPPED, skips[0], examples))
        else:
            found.append(TargetOutcome(target.nodeid, NO_FAILURE, "", examples))
    return found
