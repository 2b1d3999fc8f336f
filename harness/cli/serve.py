"""``vnext-conformance serve``: an in-process backend (the reference by default) over stdin/stdout."""

from __future__ import annotations

import argparse
import sys

from harness.backends import BackendLoadError, implementation, parse_spec
from harness.cli.exits import Exit
from harness.protocol.server import Server, serve_stream
from harness.protocol.validation import SchemaCheck

__all__ = ["serve"]


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
