"""``vnext-conformance describe``: a backend's self-description."""

from __future__ import annotations

import argparse
import json
import sys

from harness.backends import BackendLoadError, open_connection
from harness.cli.exits import Exit
from harness.connection.faults import BackendFault
from harness.options import exec_options
from harness.protocol.description import BackendDescription
from harness.protocol.validation import SchemaCheck

__all__ = ["describe", "describe_backend"]


def describe_backend(args: argparse.Namespace, command: str) -> BackendDescription | Exit:
    """The ``describe`` result of ``--backend``, through the connection a run opens.

    A spec that names nothing loadable is a usage error; a backend that cannot be started or connected is
    unavailable, reported with one banner line and the tail of its stderr. Either way the problem is printed
    on stderr (prefixed ``vnext-conformance COMMAND``) and its exit status returned instead."""
    try:
        connection = open_connection(
            args.vnext_backend,
            exec_options(lambda dest: getattr(args, dest)),
            check=SchemaCheck(enabled=args.vnext_validate_protocol),
        )
    except (ValueError, BackendLoadError) as exc:
        print(f"vnext-conformance {command}: {exc}", file=sys.stderr)
        return Exit.USAGE
    try:
        return connection.open()
    except BackendFault as exc:
        print(f"vnext-conformance {command}: {exc}", file=sys.stderr)
        tail = connection.stderr_tail().strip()
        if tail:
            print("backend stderr (last lines):\n" + "\n".join(tail.splitlines()[-20:]), file=sys.stderr)
        return Exit.UNAVAILABLE
    finally:
        connection.close()


def describe(args: argparse.Namespace) -> int:
    description = describe_backend(args, "describe")
    if isinstance(description, Exit):
        return description
    print(json.dumps(description.to_wire(), indent=2))
    return Exit.PASSED
