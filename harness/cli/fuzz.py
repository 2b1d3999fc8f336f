"""``vnext-conformance fuzz``: a long generated search against one backend, over N local processes.

The default engine is this harness: a conformance run (pytest, with pytest-xdist for
``--workers``) of the generated cases only, under the ``fuzz`` profile, each case fuzzed in rounds
for its share of ``--max-time`` (``harness.plugin.fuzzing``). ``--engine hypofuzz`` hands the same
cases, options and example database to HypoFuzz instead, and reports what it found from the
database (``harness.fuzz.hypofuzz``).

Findings are kept in the example database (the cache directory's, plus ``--database`` ones) and,
for the harness engine, as counterexample bundles; both survive a stop by Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

import pytest

from harness.backends import parse_spec
from harness.cases import known_suites
from harness.cli.exits import Exit
from harness.cli.run import Observer, isolate, isolated_pytest_args, selection_problem
from harness.fuzz import hypofuzz
from harness.fuzz.database import DatabaseUnavailable, example_database, parse_database_url
from harness.options import pytest_argv

__all__ = ["DEFAULT_MAX_TIME", "add_fuzz_arguments", "fuzz", "fuzz_pytest_args"]

#: Seconds a fuzzing session runs unless ``--max-time`` says otherwise.
DEFAULT_MAX_TIME: Final = 3600.0
#: Seconds HypoFuzz's processes get to end after SIGINT, then after SIGTERM.
_HYPOFUZZ_GRACE: Final = 15.0


def _workers(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def add_fuzz_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``fuzz`` has besides the shared ones (``harness.options``)."""
    parser.epilog = (
        f"suites: {', '.join(known_suites())}\n"
        "exit status: 0 nothing found, 1 a case failed, 2 usage error, 3 backend unavailable, 4 interrupted"
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--workers",
        type=_workers,
        default=os.cpu_count() or 1,
        help="worker processes (pytest-xdist; 0: fuzz in this process; default: the number of CPUs)",
    )
    parser.add_argument(
        "--max-time",
        dest="fuzz_max_time",
        type=_seconds,
        default=DEFAULT_MAX_TIME,
        metavar="SECONDS",
        help=f"fuzz for this many seconds, shared out over the generated cases (default: {DEFAULT_MAX_TIME:g})",
    )
    parser.add_argument(
        "--engine",
        choices=("hypothesis", "hypofuzz"),
        default="hypothesis",
        help="hypothesis: this harness's rounds (default); hypofuzz: HypoFuzz (pip install "
        "'vnext-conformance[hypofuzz]')",
    )
    parser.add_argument("--junit-xml", default=None, help="write a JUnit XML report here")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")


def _session_args(args: argparse.Namespace) -> list[str]:
    """The suites, the fuzz profile and the shared options (with a session seed drawn if absent)."""
    if args.vnext_seed is None:
        args.vnext_seed = random.SystemRandom().randrange(2**32)
    return [*isolated_pytest_args(), "--hypothesis-profile=fuzz", *pytest_argv(vars(args), command="fuzz")]


def fuzz_pytest_args(args: argparse.Namespace) -> list[str]:
    """The pytest command line the harness engine runs."""
    out = _session_args(args)
    out += ["-rN"] if not args.verbose else ["-v", "-rN"]
    if args.workers:
        # one case at a time per worker: a stop or the end of the budget finds few cases queued
        out += ["-n", str(args.workers), "--dist", "load", "--maxschedchunk", "1"]
    out += ["--fuzz-time", repr(args.fuzz_max_time)]
    if args.junit_xml:
        out += ["--junit-xml", args.junit_xml, "-o", "junit_family=xunit2", "-o", "junit_suite_name=vnext-conformance"]
    return out + list(args.pytest_args)


def _problem(args: argparse.Namespace) -> str | None:
    try:
        parse_spec(args.vnext_backend)
    except ValueError as exc:
        return str(exc)
    problem = selection_problem(args)
    if problem:
        return problem
    try:
        urls = [parse_database_url(value) for value in args.vnext_database]
        example_database(None, urls, check=True)
    except DatabaseUnavailable as exc:
        return f"--database {exc}"
    except ValueError as exc:
        return f"--database: {exc}"
    return None


def fuzz(args: argparse.Namespace) -> int:
    problem = _problem(args)
    if problem:
        print(f"vnext-conformance fuzz: {problem}", file=sys.stderr)
        return Exit.USAGE
    dropped = isolate(os.environ)  # inherited by the workers
    for name in dropped:
        print(f"vnext-conformance: ignoring {name} from the environment (the run is isolated)", file=sys.stderr)
    if args.engine == "hypofuzz":
        return _hypofuzz(args)
    observer = Observer()
    status = int(pytest.main(fuzz_pytest_args(args), plugins=[observer]))
    return observer.exit(status)


# --------------------------------------------------------------------------- HypoFuzz


def _hypofuzz(args: argparse.Namespace) -> int:
    if not hypofuzz.installed():
        print(
            "vnext-conformance fuzz: HypoFuzz is not installed (pip install 'vnext-conformance[hypofuzz]')",
            file=sys.stderr,
        )
        return Exit.USAGE
    pytest_args = [*_session_args(args), "--hypofuzz-worker", *args.pytest_args]
    targets = hypofuzz.collect(pytest_args)
    if not targets:
        print("vnext-conformance fuzz: no generated case to fuzz with this selection", file=sys.stderr)
        return Exit.USAGE
    cache = Path(args.vnext_cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    log = cache / "hypofuzz.log"
    workers = max(args.workers, 1)
    print(
        f"vnext-conformance fuzz: HypoFuzz on {len(targets)} generated cases, {workers} process(es), "
        f"{args.fuzz_max_time:g}s (its output: {log})",
        file=sys.stderr,
    )
    command = [
        sys.executable, "-c", "from hypothesis.extra.cli import main; main()",
        "fuzz", "--no-dashboard", "-n", str(workers), "--", *pytest_args,
    ]  # fmt: skip
    started = time.monotonic()
    interrupted = _run_hypofuzz(command, log, args.fuzz_max_time)
    elapsed = time.monotonic() - started
    from hypothesis import settings as hypothesis_settings  # the profile the collection loaded

    profile = hypothesis_settings.default
    found = hypofuzz.outcomes(profile.database if profile is not None else None, targets)
    return _report(found, elapsed, interrupted)


def _run_hypofuzz(command: list[str], log: Path, budget: float) -> bool:
    """Run HypoFuzz in its own session for ``budget`` seconds; whether a signal cut it short."""
    stop: dict[str, Any] = {"signal": None}

    def on_signal(signum: int, frame: Any) -> None:
        stop["signal"] = signal.Signals(signum).name

    previous = {signum: signal.signal(signum, on_signal) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        with open(log, "wb") as out:
            child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            deadline = time.monotonic() + budget
            while child.poll() is None and stop["signal"] is None and time.monotonic() < deadline:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=0.5)
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
                if child.poll() is not None:
                    break
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signum)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=_HYPOFUZZ_GRACE)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)  # its workers, if any outlived it
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return stop["signal"] is not None


def _report(found: list[hypofuzz.TargetOutcome], elapsed: float, interrupted: bool) -> int:
    counts = Counter(outcome.status for outcome in found)
    examples = sum(outcome.examples for outcome in found)
    for outcome in found:
        if outcome.status != hypofuzz.NO_FAILURE:
            detail = f": {outcome.detail}" if outcome.detail else ""
            print(f"{outcome.status}: {outcome.nodeid}{detail}")
    print(
        f"HypoFuzz ran {len(found)} generated cases for {elapsed:.0f}s ({examples} examples reported): "
        f"{counts[hypofuzz.FAILED]} with a failure, {counts[hypofuzz.FATAL]} could not run, "
        f"{counts[hypofuzz.SKIPPED]} skipped (not applicable), {counts[hypofuzz.NO_FAILURE]} without a failure found"
        + ("; stopped by a signal" if interrupted else "")
    )
    if counts[hypofuzz.FAILED] or counts[hypofuzz.FATAL]:
        return Exit.FAILED
    return Exit.INTERRUPTED if interrupted else Exit.PASSED
