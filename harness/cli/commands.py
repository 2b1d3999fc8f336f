"""The ``vnext-conformance`` command line: every command's parser and its dispatch.

Every command ends with one of the statuses of ``harness.cli.exits.Exit`` (0 passed, 1 failed,
2 usage error, 3 backend unavailable, 4 interrupted) and reports a problem in one line on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from harness.cli.certificate import add_certificate_arguments
from harness.cli.describe import describe
from harness.cli.exits import Exit
from harness.cli.fuzz import add_fuzz_arguments, fuzz
from harness.cli.parsing import UsageParser
from harness.cli.plans import build, hash_wire, revalidate, wire_hash_report
from harness.cli.replay import replay
from harness.cli.report import add_report_arguments, render_reports
from harness.cli.rules import RULES_HELP, add_rules_arguments, rules
from harness.cli.run import add_run_arguments, list_cases, pytest_args, run
from harness.cli.serve import SERVE_HELP, serve
from harness.identity import suite_version
from harness.options import add_to_parser

__all__ = ["Exit", "build_parser", "main", "pytest_args", "wire_hash_report"]

_DESCRIPTION = """\
Conformance suites and harness for the ferrum vnext planning contract.

Commands:
  run         run the conformance suites against a backend (pytest underneath)
  fuzz        fuzz a backend with the generated cases for a time budget, over N processes
  certificate compare conformance certificates: certificate diff OLD NEW (exit 1 on a regression)
  list        print the case ids a run would run (with the same --only/--skip/--case)
  rules       list the contract rules; per backend (--backend) and per run (--report, --require-exercised)
  serve       serve a backend (the reference by default) over the JSON-lines protocol
  replay      replay scenario bundles (counterexamples, corpus files) against a backend
  describe    print a backend's describe result
  report      render Markdown, HTML and badge reports from a run's JSON-lines report
  build       build a scenario's execution plan with the reference and print its exact wire
  revalidate  decode a plan wire untrusted and revalidate it against a scenario
  hash        recompute a plan wire's hash and check plan_hash and plan_id

Exit status: 0 passed, 1 failed, 2 usage error, 3 backend unavailable, 4 interrupted.
"""


def _command(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    name: str,
    help_text: str,
    handler: Callable[[argparse.Namespace], int],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    add_to_parser(parser, name)
    parser.set_defaults(func=handler)
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(
        prog="vnext-conformance", description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {suite_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=UsageParser)
    add_run_arguments(_command(sub, "run", "run the conformance suites against a backend", run))
    add_fuzz_arguments(
        _command(sub, "fuzz", "fuzz a backend with the generated cases for a time budget, over N processes", fuzz)
    )
    certificate = sub.add_parser(
        "certificate",
        help="compare conformance certificates",
        description="compare conformance certificates (written at the end of every run and fuzz)",
    )
    add_certificate_arguments(certificate, UsageParser)
    _command(sub, "list", "print the case ids a run with the same --only/--skip/--case would run", list_cases)
    add_rules_arguments(_command(sub, "rules", RULES_HELP, rules))
    _command(sub, "serve", SERVE_HELP, serve)
    _command(sub, "replay", "replay scenario bundles against a backend", replay).add_argument(
        "files", nargs="+", help="bundle files"
    )
    _command(sub, "describe", "print a backend's describe result", describe)
    add_report_arguments(
        _command(sub, "report", "render Markdown, HTML and badge reports from a JSON-lines report", render_reports)
    )
    built = _command(sub, "build", "build a scenario's execution plan and print its exact wire", build)
    built.add_argument("--scenario", required=True, help="scenario document (JSON)")
    checked = _command(
        sub, "revalidate", "decode a plan wire untrusted and revalidate it against a scenario", revalidate
    )
    checked.add_argument("--scenario", required=True, help="scenario document (JSON)")
    checked.add_argument("--plan", required=True, help="execution plan wire (JSON)")
    hashed = _command(sub, "hash", "recompute a plan wire's hash and check plan_hash and plan_id", hash_wire)
    hashed.add_argument("--plan", required=True, help="execution plan wire (JSON)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("vnext-conformance: interrupted", file=sys.stderr)
        return Exit.INTERRUPTED
