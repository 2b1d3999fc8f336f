"""``vnext-conformance run``: the conformance suites against a backend, through pytest."""

from __future__ import annotations

import argparse
import difflib
import os
import random
import sys
from collections.abc import MutableMapping
from importlib import resources

import pytest

from harness.backends import parse_spec
from harness.cases import case_id_for, known_suites
from harness.cli.exits import Exit
from harness.identity import RUN_PLUGIN_NAME
from harness.options import pytest_argv
from harness.reports.exits import run_exit

__all__ = [
    "Observer",
    "add_run_arguments",
    "collect_case_ids",
    "isolate",
    "isolated_pytest_args",
    "list_cases",
    "pytest_args",
    "run",
    "selection_problem",
]

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
    parser.epilog = (
        f"suites: {', '.join(known_suites())}\n"
        "exit status: 0 passed, 1 failed, 2 usage error, 3 backend unavailable, 4 interrupted"
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--profile", choices=("ci", "dev", "fuzz"), default="ci", help="Hypothesis profile (default: ci)"
    )
    parser.add_argument("-n", dest="workers", type=int, default=0, help="pytest-xdist workers (default: 0, in process)")
    parser.add_argument("--junit-xml", default=None, help="write a JUnit XML report here")
    parser.add_argument(
        "-x", "--exitfirst", action="store_true", help="stop after the first failed case (--max-fail 1)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")


def isolated_pytest_args() -> list[str]:
    """The installed suites with their own configuration and exactly the plugins a run needs."""
    suites = _suites_dir()
    out = [suites, "-c", os.path.join(suites, "pytest.ini"), "--rootdir", suites, "--confcutdir", suites]
    for plugin in _PLUGINS:
        out += ["-p", plugin]
    return out


def pytest_args(args: argparse.Namespace) -> list[str]:
    """The pytest command line ``run`` executes: the installed suites with their own configuration only."""
    out = isolated_pytest_args()
    out.append(f"--hypothesis-profile={args.profile}")
    out += ["-rN"] if not args.verbose else ["-v", "-rN"]
    if args.workers:
        out += ["-n", str(args.workers)]
    if args.vnext_seed is None and args.profile != "ci":
        args.vnext_seed = random.SystemRandom().randrange(2**32)
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
    problem = selection_problem(args)
    if problem:
        print(f"vnext-conformance: {problem}", file=sys.stderr)
        return Exit.USAGE
    dropped = isolate(os.environ)  # inherited by the xdist workers
    for name in dropped:
        print(f"vnext-conformance: ignoring {name} from the environment (the run is isolated)", file=sys.stderr)
    observer = Observer()
    status = int(pytest.main(pytest_args(args), plugins=[observer]))
    return observer.exit(status)


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    return f"; did you mean {', '.join(close)}?" if close else ""


def selection_problem(args: argparse.Namespace) -> str | None:
    """Why ``--only``/``--skip``/``--case`` select nothing that exists (with close matches), else ``None``."""
    suites = known_suites()
    names = [name.strip() for value in args.vnext_only + args.vnext_skip for name in value.split(",") if name.strip()]
    for name in names:
        if name not in suites:
            return f"unknown suite {name!r}{_suggest(name, suites)} (suites: {', '.join(suites)})"
    if args.vnext_cases:
        ids = collect_case_ids([])
        for case in args.vnext_cases:
            if case not in ids:
                return f"unknown case id {case!r}{_suggest(case, ids)} (vnext-conformance list prints them)"
    return None


class _Collector:
    """Keeps the selected conformance case ids of a collect-only session."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            name = case_id_for(item)
            if name is not None:
                self.ids.append(name)


def collect_case_ids(selection: list[str]) -> list[str]:
    """The case ids a run with the ``selection`` pytest arguments would run (collected, nothing run)."""
    isolate(os.environ)
    collector = _Collector()
    argv = [*isolated_pytest_args(), "--collect-only", "-p", "no:terminal", *selection]
    status = pytest.main(argv, plugins=[collector])
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        raise RuntimeError(f"collecting the conformance cases failed (pytest exit {int(status)})")
    return collector.ids


def list_cases(args: argparse.Namespace) -> int:
    """``vnext-conformance list``: the case ids of a run with the same selection, one per line."""
    problem = selection_problem(args)
    if problem:
        print(f"vnext-conformance: {problem}", file=sys.stderr)
        return Exit.USAGE
    selection = pytest_argv(vars(args), command="list")
    for case_id in collect_case_ids(selection):
        print(case_id)
    return Exit.PASSED


class Observer:
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
        return run_exit(status, unavailable=self.unavailable, stopped=self.stopped, failed=self.failed)
