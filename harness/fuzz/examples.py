"""How many examples a generated case executes, and a search steered towards rule coverage.

``count_examples`` wraps a Hypothesis test's inner test once (``test.hypothesis.inner_test``, the
documented hook for custom execution). While a case runs, the wrapper counts each example in the
case's ``ExampleTally`` (``CURRENT_TALLY``): ``examples`` are the valid ones (an example that
``assume`` rejects is ``invalid``), ``failing`` the ones that raised. After a passing example it
reports the number of distinct rules that example exercised (``harness.cases.exercise``) to
``hypothesis.target``, so targeted search favours inputs that reach more rules.

The wrapper keeps the test's identity for Hypothesis: ``functools.wraps`` makes the database key
(a digest of the inner test's source and signature) the one of the unwrapped test, so runs with
and without it share database entries.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pytest
from hypothesis import target
from hypothesis.errors import UnsatisfiedAssumption

from harness.cases import CURRENT_RULES

__all__ = [
    "CURRENT_TALLY",
    "RULES_LABEL",
    "ExampleTally",
    "StopSearch",
    "count_examples",
    "is_generated",
]

#: The ``target`` label of the number of distinct rules one example exercised.
RULES_LABEL: Final = "rules exercised by one example"
_MARK: Final = "__vnext_counted__"


class StopSearch(KeyboardInterrupt):
    """Raised before an example when the search must end now (a stop was requested).

    A ``KeyboardInterrupt``, because Hypothesis ends a run on one without saving the example that
    was about to run as a failure; the fuzzing loop catches it.
    """


@dataclass
class ExampleTally:
    """The examples of one case; ``should_stop`` is asked before each example, ``on_example`` after it."""

    examples: int = 0
    invalid: int = 0
    failing: int = 0
    should_stop: Callable[[], bool] | None = None
    on_example: Callable[[ExampleTally], None] | None = None
    stop_blocked: bool = False
    """True while a failure is being shrunk: a stop then waits, so the shrunk example is kept."""

    def before(self) -> None:
        if self.should_stop is not None and not self.stop_blocked and self.should_stop():
            raise StopSearch("the search was asked to stop")

    def after(self) -> None:
        if self.on_example is not None:
            self.on_example(self)


CURRENT_TALLY: contextvars.ContextVar[ExampleTally | None] = contextvars.ContextVar("vnext_tally", default=None)


def is_generated(test: object) -> bool:
    """Whether ``test`` is a Hypothesis test (``@given``)."""
    return bool(getattr(test, "is_hypothesis_test", False)) and hasattr(test, "hypothesis")


def _rules_exercised_since(mark: int) -> int:
    checked = CURRENT_RULES.get()
    return len(set(checked.ids[mark:])) if checked is not None else 0


def count_examples(test: Any) -> None:
    """Wrap the inner test of the Hypothesis test ``test`` (once) so its examples are counted."""
    handle = test.hypothesis
    inner = handle.inner_test
    if getattr(inner, _MARK, False):
        return

    @functools.wraps(inner)
    def counted(*args: Any, **kwargs: Any) -> Any:
        tally = CURRENT_TALLY.get()
        if tally is None:
            return inner(*args, **kwargs)
        tally.before()
        checked = CURRENT_RULES.get()
        mark = len(checked.ids) if checked is not None else 0
        try:
            result = inner(*args, **kwargs)
        except UnsatisfiedAssumption:
            tally.invalid += 1
            raise
        except (KeyboardInterrupt, pytest.skip.Exception):
            raise
        except BaseException:
            tally.examples += 1
            tally.failing += 1
            tally.stop_blocked = True
            tally.after()
            raise
        tally.examples += 1
        exercised = _rules_exercised_since(mark)
        if exercised:
            target(float(exercised), label=RULES_LABEL)
        tally.after()
        return result

    setattr(counted, _MARK, True)
    handle.inner_test = counted
