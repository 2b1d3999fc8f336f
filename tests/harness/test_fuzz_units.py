"""The pure parts of fuzzing: database URLs, the read-only fallback, budget shares, round sizes and seeds,
the control files, and the HypoFuzz report's exit status (HypoFuzz itself is not needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, MultiplexedDatabase, ReadOnlyDatabase

from harness.cli.exits import Exit
from harness.cli.fuzz import _report
from harness.fuzz import hypofuzz
from harness.fuzz.control import FuzzControl, LiveSnapshot
from harness.fuzz.database import DatabaseKind, DatabaseUrl, example_database, parse_database_url
from harness.fuzz.examples import ExampleTally, StopSearch
from harness.fuzz.rounds import MIN_ROUND, ROUND_SECONDS, next_round_size, round_seed, run_rounds, share_of


@pytest.mark.parametrize(
    ("text", "kind", "location"),
    [
        ("redis://localhost:6379/0", DatabaseKind.REDIS, "redis://localhost:6379/0"),
        ("rediss://user:secret@cache.example:6380/2", DatabaseKind.REDIS, "rediss://user:secret@cache.example:6380/2"),
        ("dir:/srv/examples", DatabaseKind.DIRECTORY, "/srv/examples"),
        ("shared/examples", DatabaseKind.DIRECTORY, "shared/examples"),
        ("C:relative", DatabaseKind.DIRECTORY, "C:relative"),
    ],
)
def test_database_urls(text: str, kind: DatabaseKind, location: str) -> None:
    assert parse_database_url(text) == DatabaseUrl(kind, location)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty"),
        ("redis://", "needs a host"),
        ("redis://host:notaport/0", "bad port"),
        ("redis://host:6379/zero", "whole number"),
        ("dir:", "needs a path"),
        ("s3://bucket/examples", "unknown database URL scheme"),
    ],
)
def test_bad_database_urls_are_refused(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_database_url(text)


def test_a_redis_url_is_shown_without_its_password() -> None:
    url = parse_database_url("redis://user:secret@cache.example:6380/2")
    assert url.redacted == "redis://cache.example:6380/2"
    assert "secret" not in url.redacted


def test_the_run_database_multiplexes_its_own_with_the_shared_ones_read_only(tmp_path: Path) -> None:
    shared = parse_database_url(str(tmp_path / "shared"))
    assert isinstance(example_database(tmp_path / "own"), DirectoryBasedExampleDatabase)
    assert example_database(None) is None
    database = example_database(tmp_path / "own", [shared], read_only=True)
    assert isinstance(database, MultiplexedDatabase)
    own, reader = database._wrapped
    assert isinstance(own, DirectoryBasedExampleDatabase)
    assert isinstance(reader, ReadOnlyDatabase)
    DirectoryBasedExampleDatabase(shared.location).save(b"key", b"found elsewhere")
    database.save(b"key", b"found here")
    assert set(database.fetch(b"key")) == {b"found elsewhere", b"found here"}
    assert set(DirectoryBasedExampleDatabase(shared.location).fetch(b"key")) == {b"found elsewhere"}


@given(
    left=st.floats(0, 10_000),
    cases=st.integers(1, 500),
    started=st.integers(0, 500),
    workers=st.integers(1, 16),
)
def test_a_share_is_never_more_than_the_time_left_and_splits_it_evenly(
    left: float, cases: int, started: int, workers: int
) -> None:
    deadline = 1000.0 + left
    left = deadline - 1000.0  # what is left, as the clock sees it
    share = share_of(deadline=deadline, now=1000.0, cases=cases, started=started, workers=workers)
    assert 0.0 <= share <= left
    waiting = max(cases - started, 1)
    if waiting >= workers:
        assert share == pytest.approx(left * workers / waiting)
    else:
        assert share == pytest.approx(left)


def test_a_share_is_zero_past_the_deadline() -> None:
    assert share_of(deadline=10.0, now=20.0, cases=5, started=0, workers=2) == 0.0


@given(ran=st.integers(0, 10_000), seconds=st.floats(0, 1000), left=st.floats(-10, 1000), maximum=st.integers(10, 5000))
def test_a_round_is_sized_to_the_measured_rate_within_its_bounds(
    ran: int, seconds: float, left: float, maximum: int
) -> None:
    size = next_round_size(ran, seconds, left, maximum=maximum)
    assert MIN_ROUND <= size <= max(MIN_ROUND, maximum)
    wanted = ran / max(seconds, 1e-3) * min(ROUND_SECONDS, max(left, 0.0))
    if MIN_ROUND <= wanted <= maximum:
        assert size == int(wanted)


def test_round_seeds_are_a_pure_function_of_the_session_seed_case_and_round() -> None:
    assert round_seed(7, "memory_budget/x", 0) == round_seed(7, "memory_budget/x", 0)
    seeds = {round_seed(7, "memory_budget/x", i) for i in range(50)}
    assert len(seeds) == 50
    assert round_seed(8, "memory_budget/x", 0) != round_seed(7, "memory_budget/x", 0)
    assert round_seed(7, "memory_budget/y", 0) != round_seed(7, "memory_budget/x", 0)
    assert 0 <= round_seed(7, "memory_budget/x", 3) < 2**64


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _Test:
    _hypothesis_internal_use_settings = None
    _hypothesis_internal_use_seed = None


def test_rounds_end_when_the_share_is_spent_exhausted_or_stopped() -> None:
    from hypothesis import settings

    clock, tally, test = _Clock(), ExampleTally(), _Test()
    test._hypothesis_internal_use_settings = settings(max_examples=100)  # type: ignore[assignment]
    seen: list[tuple[int, int | None]] = []

    def one_round(examples_per_second: float = 10.0) -> None:
        size = test._hypothesis_internal_use_settings.max_examples  # type: ignore[attr-defined]
        seen.append((size, test._hypothesis_internal_use_seed))
        tally.examples += size
        clock.now += size / examples_per_second

    result = run_rounds(one_round, test, case_id="c", base_seed=1, end=60.0, tally=tally, maximum=500,
                        stop=lambda: False, clock=clock)  # fmt: skip
    assert result.ended == "time"
    assert clock.now >= 60.0
    assert [seed for _, seed in seen] == [round_seed(1, "c", i) for i in range(len(seen))]
    assert test._hypothesis_internal_use_seed is None  # restored
    assert test._hypothesis_internal_use_settings.max_examples == 100  # type: ignore[attr-defined]

    def short_round() -> None:
        tally.examples += 3  # fewer than asked: the search space is exhausted

    assert run_rounds(short_round, test, case_id="c", base_seed=1, end=1e9, tally=tally, maximum=500,
                      stop=lambda: False, clock=clock).ended == "exhausted"  # fmt: skip

    def stopped_round() -> None:
        raise StopSearch("stop")

    stopped = run_rounds(stopped_round, test, case_id="c", base_seed=1, end=1e9, tally=tally, maximum=500,
                         stop=lambda: False, clock=clock)  # fmt: skip
    assert (stopped.rounds, stopped.ended) == (1, "stopped")


def test_a_stop_waits_while_a_failure_is_shrunk() -> None:
    tally = ExampleTally(should_stop=lambda: True)
    with pytest.raises(StopSearch):
        tally.before()
    tally.stop_blocked = True
    tally.before()  # no stop: the shrunk failure must be kept


def test_control_files_round_trip_and_the_first_deadline_wins(tmp_path: Path) -> None:
    control = FuzzControl(tmp_path / "session")
    assert not control.stop_requested()
    assert control.read_deadline() is None
    assert control.claim_deadline(100.0) == 100.0
    assert control.claim_deadline(200.0) == 100.0
    assert FuzzControl(tmp_path / "session").read_deadline() == 100.0
    control.write_started(3)
    assert FuzzControl(tmp_path / "session").read_started() == 3
    snapshot = LiveSnapshot("gw0", {"memory_budget": 5}, "test_x", ("a", "b"), 1.5)
    control.write_live(snapshot)
    assert control.read_live() == [LiveSnapshot("gw0", {"memory_budget": 5}, "test_x", ("a", "b"), 1.5)]
    (tmp_path / "session" / "live-gw1.json").write_bytes(b"{not json")
    assert [s.worker for s in control.read_live()] == ["gw0"]  # a torn file is skipped
    other = FuzzControl(tmp_path / "session")
    control.request_stop()
    assert other.stop_requested()
    control.remove()
    assert not (tmp_path / "session").exists()


@pytest.mark.parametrize(
    ("statuses", "interrupted", "status"),
    [
        ([hypofuzz.NO_FAILURE, hypofuzz.SKIPPED], False, Exit.PASSED),
        ([hypofuzz.NO_FAILURE], True, Exit.INTERRUPTED),
        ([hypofuzz.NO_FAILURE, hypofuzz.FAILED], True, Exit.FAILED),
        ([hypofuzz.FATAL], False, Exit.FAILED),
    ],
)
def test_the_hypofuzz_report_says_what_happened(
    statuses: list[str], interrupted: bool, status: int, capsys: pytest.CaptureFixture[str]
) -> None:
    found = [hypofuzz.TargetOutcome(f"t{i}", value, "why", 4) for i, value in enumerate(statuses)]
    assert _report(found, 12.0, interrupted) == status
    out = capsys.readouterr().out
    assert f"HypoFuzz ran {len(statuses)} generated cases" in out
    assert f"({4 * len(statuses)} examples reported)" in out
    assert "Found a failing input for every test" not in out
    assert ("stopped by a signal" in out) == interrupted
