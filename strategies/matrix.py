"""One deterministic example of a strategy: the cell of a rejection matrix.

A matrix runs every operator of a generator at least once per run, whatever the profile; the cell's
example is the first one Hypothesis generates for the strategy under a fixed seed (generation only, no
shrinking, no database), so it is the same on every run and every machine. Generated variants on top of
the matrix come from the suites' ``@given`` cases and scale with the profile.
"""

from __future__ import annotations

from typing import TypeVar

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

__all__ = ["matrix_example"]

T = TypeVar("T")

_CELL = settings(
    max_examples=1,
    derandomize=False,
    database=None,
    phases=[Phase.generate],
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def matrix_example(strategy: st.SearchStrategy[T]) -> T:
    """The first example ``strategy`` generates under the matrix seed."""
    found: list[T] = []

    @seed(0)
    @_CELL
    @given(strategy)
    def draw(value: T) -> None:
        if not found:
            found.append(value)

    draw()
    return found[0]
