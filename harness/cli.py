"""The ``vnext-conformance`` command line.

* ``run``: run the conformance suites against a backend (pytest underneath);
* ``serve``: serve a backend (the reference by default) over the JSON-lines protocol;
* ``replay``: replay scenario bundles (counterexamples or corpus files) against a backend;
* ``describe``: print a backend's ``describe`` result;
* ``build``: build a scenario's execution plan with the reference and print its exact wire;
* ``revalidate``: decode a plan wire untrusted and revalidate it against a scenario (``{"plan_hash"}``);
* ``hash``: recompute a plan wire's hash independently and say whether ``plan_hash``/``plan_id`` match.

``build`` and ``revalidate`` print the typed error object ``{"kind": ...}`` on stdout and exit 1
on a contract rejection; ``hash`` exits 1 when the wire is inconsistent; usage errors exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from importlib import metadata, resources
from typing import Any

__all__ = ["build_parser", "main", "wire_hash_report"]

_MIB = 1024 * 1024
_PLUGIN = "harness.pytest_plugin"


def _suites_dir() -> str:
    return str(resources.files("conformance") / "suites")


def _plugin_autoloaded() -> bool:
    """True when the pytest11 entry point will load the plugin by itself."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return any(ep.value == _PLUGIN for ep in metadata.entry_points(group="pytest11"))


def _add_exec_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("exec connector")
    group.add_argument("--call-timeout", type=float, default=60.0, help="seconds allowed per call (default 60)")
    group.add_argument("--handshake-timeout", type=float, default=30.0, help="seconds allowed for the handshake")
    group.add_argument("--max-restarts", type=int, default=3, help="restarts allowed after crashes/hangs (default 3)")
    group.add_argument("--max-reply-bytes", type=int, default=64 * _MIB, help="reply line cap in bytes (64 MiB)")
    group.add_argument("--max-request-bytes", type=int, default=64 * _MIB, help="request line cap in bytes (64 MiB)")


def _exec_options(args: argparse.Namespace) -> Any:
    from harness.backends import ExecOptions

    return ExecOptions(
        call_timeout=args.call_timeout,
        handshake_timeout=args.handshake_timeout,
        max_restarts=args.max_restarts,
        max_reply_bytes=args.max_reply_bytes,
        max_request_bytes=args.max_request_bytes,
    )


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
    out += ["--backend", args.backend]
    if args.junit_xml:
        out += ["--junit-xml", args.junit_xml, "-o", "junit_family=xunit2", "-o", "junit_suite_name=vnext-conformance"]
    if args.report_json:
        out += ["--report-json", args.report_json]
    if args.expectations:
        out += ["--expectations", args.expectations]
    if args.today:
        out += ["--expectations-today", args.today]
    for name in args.only:
        out += ["--only-suite", name]
    for name in args.skip:
        out += ["--skip-suite", name]
    for case in args.case:
        out += ["--case", case]
    out += ["--counterexample-dir", args.counterexample_dir]
    out += [
        "--call-timeout",
        str(args.call_timeout),
        "--handshake-timeout",
        str(args.handshake_timeout),
        "--max-restarts",
        str(args.max_restarts),
        "--max-reply-bytes",
        str(args.max_reply_bytes),
        "--max-request-bytes",
        str(args.max_request_bytes),
    ]
    return out + list(args.pytest_args)


def _cmd_run(args: argparse.Namespace) -> int:
    import pytest

    from harness.backends import parse_spec
    from harness.cases import known_suites

    try:
        parse_spec(args.backend)
    except ValueError as exc:
        print(f"vnext-conformance: {exc}", file=sys.stderr)
        return 2
    unknown = sorted(set(args.only + args.skip) - set(known_suites()))
    if unknown:
        print(f"vnext-conformance: unknown suite(s) {unknown}; known: {known_suites()}", file=sys.stderr)
        return 2
    return int(pytest.main(pytest_args(args)))


def _cmd_serve(args: argparse.Namespace) -> int:
    from harness.backends import connect, parse_spec
    from harness.serve import serve

    spec = parse_spec(args.backend)
    if spec.kind == "exec":
        print("vnext-conformance serve: --backend must be an in-process backend", file=sys.stderr)
        return 2
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # Only protocol lines may reach stdout; anything the backend prints goes to stderr.
    sys.stdout = sys.stderr
    backend = connect(spec)
    try:
        return serve(backend, stdin, stdout, max_request_bytes=args.max_request_bytes)
    finally:
        backend.close()


def _cmd_replay(args: argparse.Namespace) -> int:
    from harness.backend import OperationNotSupported
    from harness.backends import ReferenceBackend, connect
    from harness.bundles import BundleMismatch, check_bundle, load_bundle
    from harness.faults import BackendFault
    from reference.errors import Serialization

    backend = connect(args.backend, _exec_options(args))
    oracle = ReferenceBackend()
    failed = 0
    try:
        declared: frozenset[str] | None = None
        for path in args.files:
            try:
                bundle = load_bundle(path)
                if declared is None:
                    declared = frozenset(backend.describe().operations)
                if bundle.operation not in declared:
                    raise OperationNotSupported(bundle.operation)
                outcome = check_bundle(backend, oracle, bundle)
            except BundleMismatch as exc:
                failed += 1
                print(f"FAIL {path}: {exc}")
            except OperationNotSupported as exc:
                print(f"N/A  {path}: {exc}")
            except (BackendFault, Serialization, OSError) as exc:
                failed += 1
                print(f"FAIL {path}: {exc}")
            else:
                print(f"PASS {path}: {outcome.describe()}")
    finally:
        backend.close()
    return 1 if failed else 0


def _cmd_describe(args: argparse.Namespace) -> int:
    from harness.backends import ExecBackend, connect
    from harness.faults import BackendFault

    backend = connect(args.backend, _exec_options(args))
    try:
        description = backend.connect() if isinstance(backend, ExecBackend) else backend.describe()
    except BackendFault as exc:
        print(f"vnext-conformance: {exc}", file=sys.stderr)
        return 1
    finally:
        backend.close()
    print(json.dumps(description.to_wire(), indent=2))
    return 0


def _read_input(path: str) -> bytes | None:
    """A command's input file, or ``None`` (reported on stderr) when it cannot be read: a usage error."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        print(f"vnext-conformance: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return None


def _print_json(value: Any) -> None:
    print(json.dumps(value, sort_keys=False, separators=(",", ":"), ensure_ascii=False))


def _scenario_value(data: bytes) -> Any:
    from reference.canonical import loads_strict
    from reference.scenario.document import MAX_SCENARIO_BYTES, SCENARIO_CONTEXT

    return loads_strict(data, context=SCENARIO_CONTEXT, max_bytes=MAX_SCENARIO_BYTES)


def _cmd_build(args: argparse.Namespace) -> int:
    from reference.api import build_plan
    from reference.errors import VNextError

    data = _read_input(args.scenario)
    if data is None:
        return 2
    try:
        wire = build_plan(_scenario_value(data))
    except VNextError as exc:
        _print_json(exc.to_dict())
        return 1
    sys.stdout.flush()
    sys.stdout.buffer.write(wire)
    sys.stdout.buffer.flush()
    return 0


def _cmd_revalidate(args: argparse.Namespace) -> int:
    from reference.api import revalidate
    from reference.errors import VNextError
    from reference.plan.decode import decode_untrusted

    scenario, wire = _read_input(args.scenario), _read_input(args.plan)
    if scenario is None or wire is None:
        return 2
    try:
        # The wire is decoded before the scenario is read (reference/api.py): a
        # decode-stage rejection never depends on the scenario file.
        decode_untrusted(wire)
        plan_hash = revalidate(_scenario_value(scenario), wire)
    except VNextError as exc:
        _print_json(exc.to_dict())
        return 1
    _print_json({"plan_hash": plan_hash})
    return 0


HASH_CONTEXT = "hash execution plan wire"


def wire_hash_report(data: bytes) -> dict[str, Any]:
    """Recompute a wire's plan hash independently of any typed decoder (01 §3.6, 05 §8.2).

    ``plan_hash`` = sha256 of the canonical bytes of ``payload`` without ``plan_id``;
    the report says whether the wire's ``plan_hash`` and ``payload.plan_id`` match it.
    A wire that is not strict JSON ``{"payload": {...}, ...}`` is ``Serialization``.
    """
    from reference.canonical import canonical_bytes, loads_strict, sha256_hex
    from reference.errors import Serialization
    from reference.plan.payload import MAX_EXECUTION_PLAN_WIRE_BYTES

    raw = loads_strict(data, context=HASH_CONTEXT, max_bytes=MAX_EXECUTION_PLAN_WIRE_BYTES)
    if not isinstance(raw, dict) or not isinstance(raw.get("payload"), dict):
        raise Serialization(HASH_CONTEXT, "$.payload: missing or not a JSON object")
    payload = raw["payload"]
    digest = sha256_hex(canonical_bytes({k: v for k, v in payload.items() if k != "plan_id"}, context=HASH_CONTEXT))
    carried_hash, carried_id = raw.get("plan_hash"), payload.get("plan_id")
    return {
        "plan_hash": digest,
        "wire_plan_hash": carried_hash,
        "wire_plan_id": carried_id,
        "plan_hash_matches": carried_hash == digest,
        "plan_id_matches": carried_id == "plan/sha256/" + digest,
    }


def _cmd_hash(args: argparse.Namespace) -> int:
    from reference.errors import VNextError

    data = _read_input(args.plan)
    if data is None:
        return 2
    try:
        report = wire_hash_report(data)
    except VNextError as exc:
        _print_json(exc.to_dict())
        return 1
    _print_json(report)
    return 0 if report["plan_hash_matches"] and report["plan_id_matches"] else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vnext-conformance", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run the conformance suites against a backend")
    run.add_argument("--backend", default="reference", help="reference | python:MODULE:FACTORY | exec:COMMAND ...")
    run.add_argument("--profile", choices=("ci", "dev", "fuzz"), default="ci", help="Hypothesis profile")
    run.add_argument("-n", dest="workers", type=int, default=0, help="pytest-xdist workers (0: in process)")
    run.add_argument("--junit-xml", default=None, help="write a JUnit XML report here")
    run.add_argument("--report-json", default=None, help="write the JSON-lines report here")
    run.add_argument("--expectations", default=None, help="expectation manifest for this backend")
    run.add_argument("--today", default=None, help=argparse.SUPPRESS)
    run.add_argument("--only", action="append", default=[], help="run only this suite (repeatable)")
    run.add_argument("--skip", action="append", default=[], help="skip this suite (repeatable)")
    run.add_argument("--case", action="append", default=[], help="run only this case id (repeatable)")
    run.add_argument("--seed", type=int, default=None, help="Hypothesis seed (dev/fuzz draw one when absent)")
    run.add_argument("--counterexample-dir", default=".vnext-counterexamples", help="where failing cases are written")
    run.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    run.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    _add_exec_options(run)
    run.set_defaults(func=_cmd_run)

    serve = sub.add_parser("serve", help="serve a backend over the JSON-lines protocol on stdin/stdout")
    serve.add_argument("--backend", default="reference", help="reference | python:MODULE:FACTORY")
    serve.add_argument("--max-request-bytes", type=int, default=64 * _MIB)
    serve.set_defaults(func=_cmd_serve)

    replay = sub.add_parser("replay", help="replay scenario bundles against a backend")
    replay.add_argument("files", nargs="+", help="bundle files")
    replay.add_argument("--backend", default="reference")
    _add_exec_options(replay)
    replay.set_defaults(func=_cmd_replay)

    describe = sub.add_parser("describe", help="print a backend's describe result")
    describe.add_argument("--backend", default="reference")
    _add_exec_options(describe)
    describe.set_defaults(func=_cmd_describe)

    build = sub.add_parser("build", help="build a scenario's execution plan and print its exact wire")
    build.add_argument("--scenario", required=True, help="scenario document (JSON)")
    build.set_defaults(func=_cmd_build)

    revalidate = sub.add_parser("revalidate", help="decode a plan wire untrusted and revalidate it against a scenario")
    revalidate.add_argument("--scenario", required=True, help="scenario document (JSON)")
    revalidate.add_argument("--plan", required=True, help="execution plan wire (JSON)")
    revalidate.set_defaults(func=_cmd_revalidate)

    hash_ = sub.add_parser("hash", help="recompute a plan wire's hash and check plan_hash and plan_id")
    hash_.add_argument("--plan", required=True, help="execution plan wire (JSON)")
    hash_.set_defaults(func=_cmd_hash)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
