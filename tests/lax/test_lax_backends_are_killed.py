"""Every lax backend of ``tests.lax.catalogue`` fails its ``ci`` conformance run; the reference passes it.

Each lax backend is served out of process over ``exec:`` and driven by ``vnext-conformance run --profile
ci`` through its suite selection; the reference is served the same way through the union of them. The runs
go through ``tests.lax.drive`` in two processes (one per core), so the suites are imported twice, not once
per run. Prints the kill matrix.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

import pytest

from tests.lax.backend import resolve
from tests.lax.catalogue import LAX
from tests.lax.drive import REFERENCE

ROOT: Final = Path(__file__).resolve().parents[2]
#: Exit statuses of ``vnext-conformance run``: 0 passed, 1 failed.
PASSED: Final = 0
FAILED: Final = 1


def _drive(jobs: list[str], directory: Path) -> dict[str, int]:
    directory.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "tests.lax.drive", str(directory), *jobs]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=3600, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    results: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


def test_every_lax_backend_is_killed_and_the_reference_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = [REFERENCE, *sorted(LAX)]
    halves = [jobs[0::2], jobs[1::2]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        parts = list(pool.map(lambda half: _drive(half[1], tmp_path / f"part{half[0]}"), enumerate(halves)))
    results = {job: status for part in parts for job, status in part.items()}
    lines = [f"{'lax backend':<36} {'suite':<20} killed"]
    lines += [f"{name:<36} {LAX[name].suite:<20} {'yes' if results[name] == FAILED else 'NO'}" for name in sorted(LAX)]
    killed = sum(results[name] == FAILED for name in LAX)
    lines.append(f"killed {killed}/{len(LAX)}")
    report = "\n".join(lines)
    with capsys.disabled():
        print("\n" + report)
    assert results[REFERENCE] == PASSED, "the reference fails the union of the selections"
    assert all(results[name] == FAILED for name in LAX), "a lax backend survives:\n" + report


def test_there_are_at_least_thirty_lax_backends_with_distinct_families() -> None:
    assert len(LAX) >= 30
    assert len({entry.family for entry in LAX.values()}) == len(LAX)


@pytest.mark.parametrize("name", sorted(LAX))
def test_every_patch_target_exists(name: str) -> None:
    for patch in LAX[name].patches:
        resolve(patch.target)
