"""``vnext-conformance certificate diff OLD NEW``: what regressed between two conformance certificates.

Exit status 0 when nothing regressed, 1 when something did (a CI gate), 2 when a file is not an
intact certificate. A regression is a rule newly failing or no longer exercised, fewer examples
or passing cases in a suite, more failing cases, a worse verdict, a changed backend identity
(``describe`` or the program's sha256) or a changed contract; ``--allow KIND`` accepts one kind
(``--allow backend`` when comparing a new build of the backend with the last release).
"""

from __future__ import annotations

import argparse
import sys

from harness.certificate import REGRESSION_KINDS, CertificateError, diff_certificates, read_certificate, render_diff
from harness.cli.exits import Exit

__all__ = ["add_certificate_arguments", "certificate_diff"]


def add_certificate_arguments(parser: argparse.ArgumentParser, parser_class: type[argparse.ArgumentParser]) -> None:
    """``certificate diff OLD NEW [--allow KIND]``."""
    sub = parser.add_subparsers(dest="certificate_command", required=True, metavar="COMMAND", parser_class=parser_class)
    diff = sub.add_parser(
        "diff",
        help="print what regressed from OLD to NEW; exit 1 on a regression",
        description="print what regressed from OLD to NEW; exit 1 on a regression, 0 otherwise",
    )
    diff.add_argument("old", help="the certificate to compare against (the last release's)")
    diff.add_argument("new", help="the new certificate")
    diff.add_argument(
        "--allow",
        action="append",
        default=[],
        choices=REGRESSION_KINDS,
        metavar="KIND",
        help=f"accept changes of this kind (repeatable): {', '.join(REGRESSION_KINDS)}",
    )
    diff.set_defaults(func=certificate_diff)


def certificate_diff(args: argparse.Namespace) -> int:
    try:
        old, new = read_certificate(args.old), read_certificate(args.new)
    except CertificateError as exc:
        print(f"vnext-conformance certificate diff: {exc}", file=sys.stderr)
        return Exit.USAGE
    changes = diff_certificates(old, new, allow=args.allow)
    shown_old = f"{args.old} ({old['sha256'][:12]})"
    shown_new = f"{args.new} ({new['sha256'][:12]})"
    for line in render_diff(changes, old=shown_old, new=shown_new):
        print(line)
    return Exit.FAILED if any(change.regression for change in changes) else Exit.PASSED
