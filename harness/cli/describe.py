"""``vnext-conformance describe``: a backend's self-description."""

from __future__ import annotations

import argparse
import json
import sys

from harness.backends import BackendLoadError, open_connection
from harness.cli.exits import Exit
from harness.connection.faults import BackendFault
from harness.options import exec_options
from harness.protocol.validation import SchemaCheck

__all__ = ["describe"]


def describe(args: argparse.Namespace) -> int:
    try:
        connection = open_connection(
            args.vnext_backend,
            exec_options(lambda dest: getattr(args, dest)),
            check=SchemaCheck(enabled=args.vnext_validate_protocol),
        )
    except (ValueError, BackendLoadError) as exc:
        print(f"vnext-conformance describe: {exc}", file=sys.stderr)
        return Exit.USAGE
    try:
        description = connection.open()
    except BackendFault as exc:
        print(f"vnext-conformance describe: {exc}", file=sys.stderr)
        tail = connection.stderr_tail().strip()
        if tail:
            print("backend stderr (last lines):\n" + "\n".join(tail.splitlines()[-20:]), file=sys.stderr)
        return Exit.UNAVAILABLE
    finally:
        connection.close()
    print(json.dumps(description.to_wire(), indent=2))
    return Exit.PASSED
