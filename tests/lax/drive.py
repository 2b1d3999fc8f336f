"""The ``vnext-conformance run --profile ci`` commands of the lax backends and of their control runs.

A job is a lax backend of ``tests.lax.catalogue``, driven through its suite selection, or
``reference:<suite>``, the reference driven through the union of the selections of every lax backend of
that suite; each is served out of process over ``exec:`` and has its own cache directory.
``python -m tests.lax.drive DIRECTORY JOB ...`` runs jobs in this process, one after the other, and
prints one JSON object ``{job: exit status}``; the test hands them to ``tests.runs.RunPool``.
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import sys
from pathlib import Path

from harness.cli import main as cli
from tests.lax.catalogue import LAX

REFERENCE = "reference"


def _select(suite: str, select: str | None) -> str:
    return select or f"test_{suite}"


def reference_jobs() -> list[str]:
    """One control job per suite a lax backend is driven through."""
    return [f"{REFERENCE}:{suite}" for suite in sorted({entry.suite for entry in LAX.values()})]


def selection(job: str) -> tuple[str, str]:
    """The suite and the ``-k`` expression of a job."""
    reference, _, suite = job.partition(":")
    if reference != REFERENCE or not suite:
        entry = LAX[job]
        return entry.suite, _select(entry.suite, entry.selection)
    parts = sorted({f"({_select(suite, entry.selection)})" for entry in LAX.values() if entry.suite == suite})
    assert parts, f"no lax backend is driven through {suite}"
    return suite, " or ".join(parts)


def arguments(job: str, directory: Path) -> list[str]:
    """The ``vnext-conformance`` arguments of one job."""
    serve = [sys.executable, "-m", "harness.cli", "serve"]
    lax = job in LAX
    if lax:
        serve += ["--backend", f"python:tests.lax.catalogue:{job}"]
    suite, select = selection(job)
    out = ["run", "--profile", "ci", "--backend", f"exec:{shlex.join(serve)}", "--only", suite,
           "--cache-dir", str(directory)]  # fmt: skip
    if lax:
        out += ["--max-fail", "1"]
    return [*out, "--", "-k", select, "-q"]


def run(job: str, directory: Path) -> tuple[int, str]:
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        status = cli(arguments(job, directory / job))
    return status, output.getvalue()


def main(argv: list[str]) -> int:
    directory = Path(argv[0])
    results: dict[str, int] = {}
    for job in argv[1:]:
        status, output = run(job, directory)
        results[job] = status
        (directory / f"{job}.log").write_text(output, encoding="utf-8")
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
