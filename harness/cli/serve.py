"""``vnext-conformance serve``: an in-process backend (the reference by default) over stdin/stdout."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from harness.backends import BackendLoadError, implementation, parse_spec
from harness.cli.exits import Exit
from harness.cli.parsing import UsageParser
from harness.options import add_to_parser
from harness.protocol.server import Server, serve_stream
from harness.protocol.validation import SchemaCheck

__all__ = ["SERVE_HELP", "serve", "serve_main", "serve_parser"]

SERVE_HELP = "serve a backend over the JSON-lines protocol on stdin/stdout"


def serve_parser() -> argparse.ArgumentParser:
    """The ``serve`` command's own parser (the same options as ``vnext-conformance serve`` in the full one)."""
    parser = UsageParser(prog="vnext-conformance serve", description=SERVE_HELP)
    add_to_parser(parser, "serve")
    return parser


def serve_main(argv: Sequence[str]) -> int:
    """``vnext-conformance serve ARGS`` without importing the rest of the command line."""
    return serve(serve_parser().parse_args(argv))


def serve(args: argparse.Namespace) -> int:
    try:
        spec = parse_spec(args.vnext_backend)
        if not spec.in_process:
            print("vnext-conformance serve: --backend must be an in-process backend", file=sys.stderr)
            return Exit.USAGE
        target = implementation(spec)
    except (ValueError, BackendLoadError) as exc:
        print(f"vnext-conformance serve: {exc}", file=sys.stderr)
        return Exit.USAGE
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # Only protocol lines may reach stdout; anything the backend prints goes to stderr.
    sys.stdout = sys.stderr
    server = Server(
        target,
        max_request_bytes=args.vnext_max_request_bytes,
        check=SchemaCheck(enabled=args.vnext_validate_protocol),
    )
    return serve_stream(server, stdin, stdout)
