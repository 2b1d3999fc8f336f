"""``vnext-conformance run``: the conformance suites against a backend, through pytest."""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import MutableMapping
from importlib import resources

import pytest

from harness.backends import parse_spec
from harness.cases import known_suites
from harness.cli.exits import Exit
from harness.identity import RUN_PLUGIN_NAME
from harness.options import pytest_argv

__all__ = ["add_run_arguments", "pytest_args", "run"]

_PLUGIN = "harness.plugin"


#: The only pytest plugins a conformance run loads (plugin autoload is off, see ``isolate``).
_PLUGINS = ("xdist.plugin", "_hypothesis_pytestplugin", _PLUGIN)
#: Environment variables that would let the surroundings change what pytest runs.
_FOREIGN_ENVIRONMENT = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")


def _suites_dir() -> str:
    return str(resources.files("conformance") / "suites")


def isolate(environment: MutableMapping[str, str]) -> list[str]:
    """Make ``environment`` one in which pytest loads nothing of its surroundings; what was dropped."""
    dropped = [name for name in _FOREIGN_ENVIRONMENT if environment.pop(name, None) is not None]
    environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return dropped


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``run`` has besides the shared ones (``harness.options``)."""
    parser.add_argument(
        "--profile", choices=("ci", "dev", "fuzz"), default="ci", help="Hypothesis profile (default: ci)"
    )
    parser.add_argument("-n", dest="workers", type=int, default=0, help="pytest-xdist workers (default: 0, in process)")
    parser.add_argument("--junit-xml", default=None, help="write a JUnit XML report here")
    parser.add_argument("--seed", type=int, default=None, help="Hypothesis seed (dev and fuzz draw one when absent)")
    parser.add_argument(
        "-x", "--exitfirst", action="store_true", help="stop after the first failed case (--max-fail 1)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")


def pytest_args(args: argparse.Namespace) -> list[str]:
    """The pytest command line ``run`` executes: the installed suites with their own configuration only."""
    suites = _suites_dir()
    out = [suites, "-c", os.path.join(suites, "pytest.ini"), "--rootdir", suites, "--confcutdir", suites]
    for plugin in _PLUGINS:
        out += ["-p", plugin]
    out.append(f"--hypothesis-profile={args.profile}")
    out += ["-rN"] if not args.verbose else ["-v", "-rN"]
    if args.workers:
        out += ["-n", str(args.workers)]
    seed = args.seed
    if seed is None and args.profile != "ci":
        seed = random.SystemRandom().randrange(2**32)
    if seed is not None:
        out.append(f"--hypothesis-seed={seed}")
    if args.exitfirst and not args.vnext_max_fail:
        args.vnext_max_fail = 1
    if args.junit_xml:
        out += ["--junit-xml", args.junit_xml, "-o", "junit_family=xunit2", "-o", "junit_suite_name=vnext-conformance"]
    out += pytest_argv(vars(args))
    return out + list(args.pytest_args)


def run(args: argparse.Namespace) -> int:
    try:
        parse_spec(args.vnext_backend)
    except ValueError as exc:
        print(f"vnext-conformance: {exc}", file=sys.stderr)
        return Exit.USAGE
    suites = known_suites()
    names = [name.strip() for value in args.vnext_only + args.vnext_skip for name in value.split(",") if name.strip()]
    unknown = sorted(set(names) - set(suites))
    if unknown:
        print(f"vnext-conformance: unknown suite(s) {unknown}; known: {suites}", file=sys.stderr)
        return Exit.USAGE
    dropped = isolate(os.environ)  # inherited by the xdist workers
    for name in dropped:
        print(f"vnext-conformance: ignoring {name} from the environment (the run is isolated)", file=sys.stderr)
    observer = _Observer()
    status = int(pytest.main(pytest_args(args), plugins=[observer]))
    return observer.exit(status)


class _Observer:
    """Reads the run's state at its end, to choose the exit status."""

    def __init__(self) -> None:
        self.unavailable = False
        self.stopped: str | None = None
        self.failed = False

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        run = session.config.pluginmanager.get_plugin(RUN_PLUGIN_NAME)
        self.unavailable = bool(getattr(run, "unavailable", None))
        stopped = getattr(run, "stopped", None)
        self.stopped = stopped[0] if stopped else None
        self.failed = bool(getattr(run, "failures", None))

    def exit(self, status: int) -> int:
        if self.unavailable:
            return Exit.UNAVAILABLE
        if self.stopped is not None:  # a deliberate stop: max-fail, time budget
            return Exit.FAILED if self.failed else Exit.PASSED
        if status == pytest.ExitCode.INTERRUPTED:
            return Exit.INTERRUPTED
        if status in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.NO_TESTS_COLLECTED):
            return Exit.USAGE
        return Exit.PASSED if status == pytest.ExitCode.OK else Exit.FAILED
