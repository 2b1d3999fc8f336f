"""``CounterexampleRecorder``: writes the scenario bundle of a failing generated case (the final, shrunk one)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import currently_in_test_context
from hypothesis.control import current_build_context

from harness.bundles import Bundle, write_bundle

__all__ = ["CounterexampleRecorder"]


def _final_example() -> bool:
    if not currently_in_test_context():
        return True
    return bool(current_build_context().is_final)


class CounterexampleRecorder:
    """Bundles written during the current case are listed in ``written``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.written: list[str] = []

    def reset(self) -> None:
        self.written.clear()

    @contextlib.contextmanager
    def on_failure(self, bundle: Bundle | Callable[[], Bundle]) -> Iterator[None]:
        """Run the block; if it fails on a final example, write ``bundle`` and re-raise."""
        try:
            yield
        except (pytest.skip.Exception, pytest.xfail.Exception, KeyboardInterrupt):
            raise
        except BaseException:
            if _final_example():
                with contextlib.suppress(Exception):
                    made = bundle() if callable(bundle) else bundle
                    self.written.append(str(write_bundle(self.directory, made)))
            raise
