"""``vnext-conformance replay``: scenario bundles (counterexamples, corpus files) against a backend."""

from __future__ import annotations

import argparse
import sys

from harness.backends import DEFAULT_SPEC, BackendLoadError, connect
from harness.bundles import BundleMismatch, check_bundle, load_bundle
from harness.cli.exits import Exit
from harness.connection.faults import BackendFault
from harness.options import exec_options
from harness.protocol.validation import SchemaCheck
from reference.api import OperationNotSupported
from reference.errors import Serialization

__all__ = ["replay"]


def replay(args: argparse.Namespace) -> int:
    check = SchemaCheck(enabled=args.vnext_validate_protocol)
    try:
        backend = connect(args.vnext_backend, exec_options(lambda dest: getattr(args, dest)), check=check)
    except (ValueError, BackendLoadError) as exc:
        print(f"vnext-conformance replay: {exc}", file=sys.stderr)
        return Exit.USAGE
    bundles = []
    for path in args.files:
        try:
            bundles.append((path, load_bundle(path)))
        except OSError as exc:
            print(f"vnext-conformance replay: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
            return Exit.USAGE
        except Serialization as exc:
            print(f"vnext-conformance replay: {path} is not a scenario bundle: {exc.message}", file=sys.stderr)
            return Exit.USAGE
    oracle = connect(DEFAULT_SPEC, check=check)
    failed = 0
    try:
        try:
            declared = frozenset(backend.open().operations)
        except BackendFault as exc:
            print(f"vnext-conformance replay: {exc}", file=sys.stderr)
            return Exit.UNAVAILABLE
        for path, bundle in bundles:
            try:
                if bundle.operation not in declared:
                    raise OperationNotSupported(bundle.operation)
                outcome = check_bundle(backend, oracle, bundle)
            except BundleMismatch as exc:
                failed += 1
                print(f"FAIL {path}: {exc}")
            except OperationNotSupported as exc:
                print(f"N/A  {path}: {exc}")
            except BackendFault as exc:
                failed += 1
                print(f"FAIL {path}: {exc}")
            else:
                print(f"PASS {path}: {outcome.describe()}")
    finally:
        backend.close()
        oracle.close()
    return Exit.FAILED if failed else Exit.PASSED
