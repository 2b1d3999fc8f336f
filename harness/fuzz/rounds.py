"""One generated case fuzzed in rounds of Hypothesis runs until its share of the time budget is spent.

A round is one ordinary Hypothesis run of the case with its own seed
(``round_seed(base, case id, index)``) and ``max_examples`` sized so the round lasts about
``ROUND_SECONDS`` at the rate the previous round measured (``next_round_size``), capped by the
profile's ``max_examples`` and by the time left. Every round reads and writes the example
database, so each round (and every other worker and machine sharing the database) replays the
failures and the targeted-search front found before it. The rounds of a case end when its share
is spent, when a round runs fewer examples than asked (the search space is exhausted), when a stop
is requested (``StopSearch``), or when a round fails: the failure is then shrunk and reported as
the case's outcome, as in a run.

The per-round settings and seed are set on the test object the way ``@settings`` and ``@seed``
set them (``_hypothesis_internal_use_settings``, ``_hypothesis_internal_use_seed``) and restored
afterwards; ``@seed`` itself would switch the database off.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import settings as hypothesis_settings

from harness.fuzz.examples import ExampleTally, StopSearch

__all__ = [
    "FIRST_ROUND",
    "MIN_ROUND",
    "ROUND_SECONDS",
    "RoundsResult",
    "next_round_size",
    "round_seed",
    "round_settings",
    "run_rounds",
    "seed_test",
    "share_of",
]

#: The length one round aims at, in seconds: short enough that a stop or the end of a share waits
#: little, long enough that a round's fixed costs (database replay, health checks) stay small.
ROUND_SECONDS: Final = 20.0
#: Examples of a case's first round (its rate is unknown), and the fewest of any round.
FIRST_ROUND: Final = 25
MIN_ROUND: Final = 10


def round_seed(base_seed: int, case_id: str, index: int) -> int:
    """The seed of round ``index`` of ``case_id``: the first 8 bytes of ``sha256("base:case:index")``."""
    digest = hashlib.sha256(f"{base_seed}:{case_id}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def share_of(*, deadline: float, now: float, cases: int, started: int, workers: int) -> float:
    """Seconds for the next case: the time left split evenly over the cases not yet started.

    ``cases`` is the number of generated cases of the run, ``started`` how many had started before
    this one, ``workers`` how many run at once. Never more than the time left, never negative.
    """
    left = max(0.0, deadline - now)
    waiting = max(cases - started, 1)
    return min(left, left * workers / max(waiting, workers))


def next_round_size(ran: int, seconds: float, left: float, *, maximum: int) -> int:
    """Examples of the next round: ``ROUND_SECONDS`` (or the ``left`` seconds) at the last round's rate."""
    rate = ran / max(seconds, 1e-3)
    wanted = rate * min(ROUND_SECONDS, max(left, 0.0))
    return max(MIN_ROUND, min(maximum, math.floor(wanted)))


def seed_test(test: Any, seed: int) -> None:
    """Seed every run of the Hypothesis test ``test`` with ``seed``, keeping its example database.

    (``--hypothesis-seed`` and ``@seed`` would both switch the database off.)
    """
    test._hypothesis_internal_use_seed = seed


@contextlib.contextmanager
def round_settings(test: Any, *, max_examples: int, seed: int) -> Iterator[None]:
    """Run ``test`` (a Hypothesis test) with ``max_examples`` and ``seed`` inside the block."""
    original_settings = test._hypothesis_internal_use_settings
    original_seed = test._hypothesis_internal_use_seed
    test._hypothesis_internal_use_settings = hypothesis_settings(original_settings, max_examples=max_examples)
    test._hypothesis_internal_use_seed = seed
    try:
        yield
    finally:
        test._hypothesis_internal_use_settings = original_settings
        test._hypothesis_internal_use_seed = original_seed


@dataclass(frozen=True, slots=True)
class RoundsResult:
    """How a case's rounds ended: ``time`` (share spent), ``exhausted``, ``stopped``."""

    rounds: int
    ended: str


def run_rounds(
    call: Callable[[], object],
    test: Any,
    *,
    case_id: str,
    base_seed: int,
    end: float,
    tally: ExampleTally,
    maximum: int,
    stop: Callable[[], bool],
    clock: Callable[[], float] = time.time,
) -> RoundsResult:
    """Call ``call`` (one Hypothesis run of ``test``) in rounds until ``end`` (a ``clock`` time).

    A failure propagates out of the round that found it (after Hypothesis shrank it).
    """
    size = max(MIN_ROUND, min(FIRST_ROUND, maximum))
    index = 0
    while True:
        started, before = clock(), tally.examples
        with round_settings(test, max_examples=size, seed=round_seed(base_seed, case_id, index)):
            try:
                call()
            except StopSearch:
                return RoundsResult(index + 1, "stopped")
        index += 1
        ran = tally.examples - before
        now = clock()
        if stop():
            return RoundsResult(index, "stopped")
        if ran < size:
            return RoundsResult(index, "exhausted")
        if now >= end:
            return RoundsResult(index, "time")
        size = next_round_size(ran, now - started, end - now, maximum=maximum)
