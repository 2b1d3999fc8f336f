"""Hooks the plugin asks of the suites it runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from harness.rules import RuleCatalogue
from reference.api import VNextError

__all__ = ["VnextHooks"]


class VnextHooks:
    @pytest.hookspec(firstresult=True)
    def pytest_vnext_rule_catalogue(self, config: pytest.Config) -> RuleCatalogue | None:
        """The rule catalogue the collected cases declare their rules against."""

    @pytest.hookspec(firstresult=True)
    def pytest_vnext_corpus_paths(self, config: pytest.Config) -> list[Path] | None:
        """The corpus bundle files the run replays (the certificate's corpus digest covers them)."""

    @pytest.hookspec(firstresult=True)
    def pytest_vnext_error_rules(self, config: pytest.Config) -> Callable[[VNextError], Sequence[str]] | None:
        """The rules a contract error the reference raised implements (from its raise site), so a case the
        oracle refused an input in is credited with the rules of that refusal."""
