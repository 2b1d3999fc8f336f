"""Exit statuses of every ``vnext-conformance`` command (documented in the README)."""

from __future__ import annotations

import enum

__all__ = ["Exit", "PytestStatus", "run_exit"]


class PytestStatus(enum.IntEnum):
    """pytest's exit statuses (``pytest.ExitCode``, stable public values), without importing pytest."""

    OK = 0
    TESTS_FAILED = 1
    INTERRUPTED = 2
    INTERNAL_ERROR = 3
    USAGE_ERROR = 4
    NO_TESTS_COLLECTED = 5


class Exit(enum.IntEnum):
    """One status per way a command ends."""

    PASSED = 0
    """every required case passed; a replayed bundle matched; a wire's hash is consistent."""
    FAILED = 1
    """a case failed; a bundle mismatched; an input the contract refuses (the plan commands); an inconsistent wire."""
    USAGE = 2
    """a bad option, backend spec, missing file or module, unknown suite or case id."""
    UNAVAILABLE = 3
    """the backend could not be started or connected (spawn, handshake, restart limit)."""
    INTERRUPTED = 4
    """the run was interrupted (SIGINT, SIGTERM); the reports say ``complete: false``."""


def run_exit(pytest_status: int, *, unavailable: bool, stopped: str | None, failed: bool) -> Exit:
    """The status a ``run`` or ``fuzz`` ends with, from pytest's and the run's state (``stopped``: the kind of
    a stop the run made itself; recorded in the report footer too)."""
    if unavailable:
        return Exit.UNAVAILABLE
    if stopped == "interrupted":  # a signal asked a fuzzing session to stop
        return Exit.FAILED if failed else Exit.INTERRUPTED
    if stopped is not None:  # a deliberate stop: max-fail, time budget
        return Exit.FAILED if failed else Exit.PASSED
    if pytest_status == PytestStatus.INTERRUPTED:
        return Exit.INTERRUPTED
    if pytest_status in (PytestStatus.USAGE_ERROR, PytestStatus.NO_TESTS_COLLECTED):
        return Exit.USAGE
    return Exit.PASSED if pytest_status == PytestStatus.OK else Exit.FAILED
