"""``vnext-conformance run``: the conformance suites against a backend, through pytest."""

from __future__ import annotations

import argparse
import os
import random
import sys
from importlib import metadata, resources

import pytest

from harness.backends import parse_spec
from harness.cases import known_suites
from harness.cli.exits import Exit
from harness.options import pytest_argv

__all__ = ["add_run_arguments", "pytest_args", "run"]

_PLUGIN = "harness.plugin"


def _suites_dir() -> str:
    return str(resources.files("conformance") / "suites")


def _plugin_autoloaded() -> bool:
    """True when the pytest11 entry point will load the plugin by itself."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return any(ep.value == _PLUGIN for ep in metadata.entry_points(group="pytest11"))


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``run`` has besides the shared ones (``harness.options``)."""
    parser.add_argument(
        "--profile", choices=("ci", "dev", "fuzz"), default="ci", help="Hypothesis profile (default: ci)"
    )
    parser.add_argument("-n", dest="workers", type=int, default=0, help="pytest-xdist workers (default: 0, in process)")
    parser.add_argument("--junit-xml", default=None, help="write a JUnit XML report here")
    parser.add_argument("--seed", type=int, default=None, help="Hypothesis seed (dev and fuzz draw one when absent)")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")


def pytest_args(args: argparse.Namespace) -> list[str]:
    """The pytest command line ``run`` executes."""
    out = [_suites_dir(), "-p", "no:cacheprovider", f"--hypothesis-profile={args.profile}", "-o", "xfail_strict=true"]
    if not _plugin_autoloaded():
        out += ["-p", _PLUGIN]
    out += ["-rN"] if not args.verbose else ["-v", "-rN"]
    if args.workers:
        out += ["-n", str(args.workers)]
    seed = args.seed
    if seed is None and args.profile != "ci":
        seed = random.SystemRandom().randrange(2**32)
    if seed is not None:
        out.append(f"--hypothesis-seed={seed}")
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
    return int(pytest.main(pytest_args(args)))
