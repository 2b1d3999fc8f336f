"""The ``vnext-conformance`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import resources

__all__ = ["main"]


def _suites_dir() -> str:
    return str(resources.files("conformance") / "suites")


def _cmd_run(args: argparse.Namespace) -> int:
    import pytest

    pytest_args = [_suites_dir(), "-q", "-p", "no:cacheprovider", f"--hypothesis-profile={args.profile}"]
    if args.workers:
        pytest_args += ["-n", str(args.workers)]
    if args.junit_xml:
        pytest_args += ["--junit-xml", args.junit_xml]
    return int(pytest.main(pytest_args))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vnext-conformance", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the conformance suites against a backend")
    run.add_argument("--profile", choices=("ci", "dev", "fuzz"), default="ci")
    run.add_argument("-n", dest="workers", type=int, default=0, help="pytest-xdist workers")
    run.add_argument("--junit-xml", default=None)
    run.add_argument("--report-json", default=None)
    run.set_defaults(func=_cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
