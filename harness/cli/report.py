"""``vnext-conformance report``: the Markdown, HTML and badge reports of a finished run, from its JSON-lines report."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.cli.exits import Exit
from harness.reports import files
from harness.reports.badge import render_badge
from harness.reports.html import render_html
from harness.reports.markdown import render_markdown
from harness.reports.result import RunResult

__all__ = ["add_report_arguments", "render_reports"]


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("report", help="a JSON-lines report (--report-json of a run)")
    parser.add_argument("--md", default=None, help="write the Markdown summary here ('-': stdout)")
    parser.add_argument("--html", default=None, help="write the HTML report here")
    parser.add_argument("--badge", default=None, help="write the shields.io endpoint badge here")


def render_reports(args: argparse.Namespace) -> int:
    try:
        result = RunResult.read(args.report, validate=True)
    except OSError as exc:
        print(f"vnext-conformance report: cannot read {args.report}: {exc.strerror or exc}", file=sys.stderr)
        return Exit.USAGE
    except (ValueError, KeyError) as exc:
        print(f"vnext-conformance report: {args.report} is not a JSON-lines report: {exc}", file=sys.stderr)
        return Exit.USAGE
    if args.md == "-" or not (args.md or args.html or args.badge):
        sys.stdout.write(render_markdown(result))
    elif args.md:
        files.write_text(Path(args.md), render_markdown(result))
    if args.html:
        files.write_text(Path(args.html), render_html(result))
    if args.badge:
        files.write_text(Path(args.badge), json.dumps(render_badge(result), indent=2) + "\n")
    return Exit.PASSED if result.verdict() == "passed" else Exit.FAILED
