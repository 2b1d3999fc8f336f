"""Every lax backend of ``tests.lax.catalogue`` fails its ``ci`` conformance run; the reference passes them.

Each lax backend is served out of process over ``exec:`` and driven by ``vnext-conformance run --profile
ci`` through its suite selection; the reference is served the same way through the union of the
selections of each suite. The runs go to two worker processes (one per core) that import the suites once
and take the next run from one queue, the longest (the reference's) first. Prints the kill matrix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from tests.lax.backend import resolve
from tests.lax.catalogue import LAX
from tests.lax.drive import arguments, reference_jobs
from tests.runs import RunPool

#: Exit statuses of ``vnext-conformance run``: 0 passed, 1 failed.
PASSED: Final = 0
FAILED: Final = 1


def test_every_lax_backend_is_killed_and_the_reference_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    controls = reference_jobs()
    jobs = [*controls, *sorted(LAX)]
    with RunPool(2, tmp_path / "logs") as pool:
        done = pool.run_all({job: arguments(job, tmp_path / "cache" / job) for job in jobs})
    results = {job: run.status for job, run in done.items()}
    lines = [f"{'lax backend':<36} {'suite':<20} killed"]
    lines += [f"{name:<36} {LAX[name].suite:<20} {'yes' if results[name] == FAILED else 'NO'}" for name in sorted(LAX)]
    killed = sum(results[name] == FAILED for name in LAX)
    lines.append(f"killed {killed}/{len(LAX)}")
    report = "\n".join(lines)
    with capsys.disabled():
        print("\n" + report)
    failing = [job for job in controls if results[job] != PASSED]
    assert not failing, "the reference fails the selections of " + ", ".join(
        f"{job}:\n{done[job].output[-3000:]}" for job in failing
    )
    assert all(results[name] == FAILED for name in LAX), "a lax backend survives:\n" + report


def test_there_are_at_least_thirty_lax_backends_with_distinct_families() -> None:
    assert len(LAX) >= 30
    assert len({entry.family for entry in LAX.values()}) == len(LAX)


@pytest.mark.parametrize("name", sorted(LAX))
def test_every_patch_target_exists(name: str) -> None:
    for patch in LAX[name].patches:
        resolve(patch.target)
