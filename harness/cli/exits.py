"""Exit statuses of every ``vnext-conformance`` command (documented in the README)."""

from __future__ import annotations

from harness.reports.exits import Exit

__all__ = ["Exit"]
