"""Run ``vnext-conformance run --profile ci`` once per job, in one process, and print the exit statuses.

``python -m tests.lax.drive DIRECTORY JOB ...``: a ``JOB`` is a lax backend of ``tests.lax.catalogue``,
driven through its suite selection, or ``reference``, the reference driven through the union of every lax
backend's selection; each is served out of process over ``exec:``. The conformance runs share this
process, so the suites are imported once; each has its own cache directory under ``DIRECTORY``. Prints
one JSON object ``{job: exit status}``.
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


def selection(job: str) -> tuple[list[str], str]:
    """The suites and the ``-k`` expression of a job."""
    if job != REFERENCE:
        entry = LAX[job]
        return [entry.suite], entry.selection or f"test_{entry.suite}"
    suites = sorted({entry.suite for entry in LAX.values()})
    parts = sorted({f"({entry.selection or f'test_{entry.suite}'})" for entry in LAX.values()})
    return suites, " or ".join(parts)


def arguments(job: str, directory: Path) -> list[str]:
    """The ``vnext-conformance`` arguments of one job."""
    serve = [sys.executable, "-m", "harness.cli", "serve"]
    if job != REFERENCE:
        serve += ["--backend", f"python:tests.lax.catalogue:{job}"]
    suites, select = selection(job)
    out = ["run", "--profile", "ci", "--backend", f"exec:{shlex.join(serve)}", "--only", ",".join(suites),
           "--cache-dir", str(directory)]  # fmt: skip
    if job != REFERENCE:
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
