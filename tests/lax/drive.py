"""Run ``vnext-conformance run --profile ci`` once per job, in one process, and print the exit statuses.

``python -m tests.lax.drive DIRECTORY NAME[@SUITE] ...``: ``NAME`` is a lax backend of
``tests.lax.catalogue`` or ``reference``; each is served out of process over ``exec:`` and driven
through the entry's suite selection (``@SUITE`` runs the reference through that lax backend's suite
selection). The conformance runs share this process, so the suites are imported once; each has its own
cache directory under ``DIRECTORY``. Prints one JSON object ``{job: exit status}``.
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


def arguments(name: str, suite: str, select: str | None, directory: Path) -> list[str]:
    """The ``vnext-conformance`` arguments of one job."""
    serve = [sys.executable, "-m", "harness.cli", "serve"]
    if name != "reference":
        serve += ["--backend", f"python:tests.lax.catalogue:{name}"]
    out = ["run", "--profile", "ci", "--backend", f"exec:{shlex.join(serve)}", "--only", suite,
           "--cache-dir", str(directory), "--max-fail", "1"]  # fmt: skip
    if select:
        out += ["--", "-k", select, "-q"]
    return out


def run(job: str, directory: Path) -> tuple[int, str]:
    name, _, of = job.partition("@")
    entry = LAX[of or name]
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        status = cli(arguments(name, entry.suite, entry.selection, directory / job.replace("@", "-")))
    return status, output.getvalue()


def main(argv: list[str]) -> int:
    directory = Path(argv[0])
    results: dict[str, int] = {}
    for job in argv[1:]:
        status, output = run(job, directory)
        results[job] = status
        (directory / f"{job.replace('@', '-')}.log").write_text(output, encoding="utf-8")
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
