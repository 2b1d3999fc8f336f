"""The budget, estimator and differential suites catch the broken backends of ``tests/broken``.

Each mutant is served out of process (``serve --backend python:tests.broken.<m>:make``)
and driven over ``exec:`` with a short case selection of the relevant suites; every
selected run must fail for the mutant and pass for the reference served the same
way. The runs share two worker processes (``tests.runs``) that import the suites once.
The kill matrix and the mutation score (killed mutants / mutants) are printed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

import pytest

from tests.runs import RunPool

#: Case selections (pytest ``-k``) per suite: short, and each relevant to some mutant.
SELECTIONS: Final = {
    "memory_budget": "seed_plans or minimal_capacity_of_seed or sequential_scratch_takes or worked_numbers",
    "estimators": "behavior_outcome or preference or selection_evidence",
    "differential": "budget_boundary or estimator_behaviours",
}
#: Mutant -> the suites whose selection must fail on it.
MUTANTS: Final = {
    "budget_ignores_reserve": ("memory_budget",),
    "budget_sums_scratch": ("memory_budget", "estimators"),
    "budget_off_by_one": ("memory_budget",),  # the differential's boundary cases find it only by sampling
    "resolve_trusts_estimator": ("estimators", "differential"),
}


def _arguments(backend: str | None, suite: str, counterexample_dir: Path) -> list[str]:
    """``vnext-conformance run`` over ``exec:`` (``backend`` None: the reference)."""
    serve = f"{sys.executable} -m harness.cli serve"
    if backend is not None:
        serve += f" --backend python:tests.broken.{backend}:make"
    return [
        "run", "--backend", f"exec:{serve}", "--profile", "ci", "-n", "0",
        "--only", suite, "--counterexample-dir", str(counterexample_dir), "--", "-k", SELECTIONS[suite], "-q",
    ]  # fmt: skip


def test_every_mutant_is_caught_and_the_reference_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jobs = [(None, suite) for suite in SELECTIONS] + [(m, s) for m, suites in MUTANTS.items() for s in suites]
    commands = {f"{m}-{s}": _arguments(m, s, tmp_path / f"{m}-{s}") for m, s in jobs}
    with RunPool(2, tmp_path / "logs") as pool:
        done = pool.run_all(commands)
    results = {(m, s): done[f"{m}-{s}"].status for m, s in jobs}
    killed = {m for m, suites in MUTANTS.items() if all(results[(m, s)] != 0 for s in suites)}
    lines = ["mutation matrix (x = the suite's selection fails on the mutant, . = it passes, blank = not run):"]
    lines.append(f"  {'mutant':<26}" + "".join(f"{s:>15}" for s in SELECTIONS))
    for mutant, suites in MUTANTS.items():
        cells = [("x" if results[(mutant, s)] != 0 else ".") if s in suites else "" for s in SELECTIONS]
        lines.append(f"  {mutant:<26}" + "".join(f"{c:>15}" for c in cells))
    lines.append(f"  {'reference':<26}" + "".join(f"{'x' if results[(None, s)] else '.':>15}" for s in SELECTIONS))
    lines.append(f"mutation score: {len(killed)}/{len(MUTANTS)} = {len(killed) / len(MUTANTS):.2f}")
    report = "\n".join(lines)
    with capsys.disabled():
        print("\n" + report)
    assert all(results[(None, s)] == 0 for s in SELECTIONS), "the reference fails a selection:\n" + report
    assert killed == set(MUTANTS), "a mutant survives:\n" + report
