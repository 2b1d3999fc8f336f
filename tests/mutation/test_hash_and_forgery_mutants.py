"""Proof that the hash-stability and forged-plan suites can fail: each broken backend of
``tests/broken/{hash,revalidate,decode}_*.py`` is served out of process and driven by the
harness CLI over ``exec:`` on a few selected cases; the run must fail for every mutant and
pass for the reference with the same selection. The runs share two worker processes
(``tests.runs``) that import the suites once. Prints the mutation score (killed/total).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.runs import RunPool

ROOT = Path(__file__).resolve().parents[2]
#: The control run's name (no mutant module has it).
REFERENCE = "reference"

#: mutant module -> (suite, selected case ids that must catch it)
MUTANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "hash_direct_bytes": (
        "hash_stability",
        ("hash_stability/test_golden_vector[plan_fixture_0]", "hash_stability/test_the_harness_recomputes_every_hash"),
    ),
    "hash_ignores_policy": (
        "hash_stability",
        ("hash_stability/test_sensitivity_matrix[rich_fixture]", "hash_stability/test_golden_vector[rich_fixture]"),
    ),
    "revalidate_hash_only": (
        "forged_plans",
        ("forged_plans/test_kill_matrix", "forged_plans/test_forgery_is_rejected[mutate_leaf_rehashed]"),
    ),
    "decode_unknown_fields": (
        "forged_plans",
        ("forged_plans/test_kill_matrix", "forged_plans/test_forgery_is_rejected[unknown_field]"),
    ),
}


def _arguments(serve_backend: str, suites: set[str], cases: set[str], tmp: Path) -> list[str]:
    serve = f"{sys.executable} -m harness.cli serve" + (f" --backend {serve_backend}" if serve_backend else "")
    argv = ["run", "--profile", "ci", "--backend", f"exec:{serve}"]
    argv += ["--counterexample-dir", str(tmp / "counterexamples")]
    for suite in sorted(suites):
        argv += ["--only", suite]
    for case in sorted(cases):
        argv += ["--case", case]
    return argv


def test_every_hash_and_forgery_mutant_is_killed(tmp_path: Path) -> None:
    started = time.monotonic()
    jobs = {name: ({suite}, set(cases)) for name, (suite, cases) in MUTANTS.items()}
    reference_suites = {suite for suite, _ in MUTANTS.values()}
    reference_cases = {case for _, cases in MUTANTS.values() for case in cases}
    commands = {REFERENCE: _arguments("", reference_suites, reference_cases, tmp_path / REFERENCE)}
    commands |= {
        name: _arguments(f"python:tests.broken.{name}:make", suites, cases, tmp_path / name)
        for name, (suites, cases) in jobs.items()
    }
    with RunPool(2, tmp_path / "logs") as pool:
        done = pool.run_all(commands)
    control = done.pop(REFERENCE)
    results = done
    assert control.status == 0, f"the reference fails the selected cases:\n{control.output[-4000:]}"
    assert "failed" not in control.output.strip().splitlines()[-1], control.output[-2000:]
    survivors = [name for name, run in results.items() if run.status == 0]
    for name, run in results.items():
        assert run.status in (0, 1), f"{name}: the run did not complete (exit {run.status}):\n{run.output[-3000:]}"
    killed = len(results) - len(survivors)
    elapsed = time.monotonic() - started
    print(f"\nhash/forgery mutation score: {killed}/{len(results)} killed ({elapsed:.1f}s); survivors: {survivors}")
    assert not survivors, f"mutants not caught: {survivors}"


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_modules_follow_the_naming_rule(name: str) -> None:
    assert name.split("_", maxsplit=1)[0] in ("hash", "revalidate", "decode")
    assert (ROOT / "tests" / "broken" / f"{name}.py").is_file()
