"""Exit statuses of every ``vnext-conformance`` command (documented in the README)."""

from __future__ import annotations

import enum

__all__ = ["Exit"]


class Exit(enum.IntEnum):
    """One status per way a command ends."""

    PASSED = 0
    """every required case passed; a replayed bundle matched; a wire's hash is consistent."""
    FAILED = 1
    """a case failed; a bundle mismatched; a contract rejection (build, revalidate); an inconsistent wire."""
    USAGE = 2
    """a bad option, backend spec, missing file or module, unknown suite or case id."""
    UNAVAILABLE = 3
    """the backend could not be started or connected (spawn, handshake, restart limit)."""
    INTERRUPTED = 4
    """the run was interrupted (SIGINT, SIGTERM); the reports say ``complete: false``."""
