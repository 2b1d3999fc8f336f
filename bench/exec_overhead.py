"""Per-call overhead of the exec connector against in-process calls on the same cases.

Usage::

    python bench/exec_overhead.py [--backend python:MODULE:FACTORY] [--calls N] [--min-ratio 0.5]

Runs every case twice: in process (the ``--backend`` object itself) and over
``exec:<python> -m harness.cli serve --backend <same>``. Cases: ``describe``
(pure protocol overhead) and every corpus bundle whose operation the backend
implements (real planning work). Prints calls/s for both and the ratio
exec/in-process, and the throughput ratio of running the whole corpus once (one call
per case). With ``--min-ratio`` the exit status is 1 when that corpus ratio (the
target: exec >= 0.5x in-process) falls below it;
``describe`` alone is reported but not held to the target, as it does no work.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.corpus import corpus_paths
from harness.backends import connect
from harness.bundles import load_bundle
from harness.connection.client import Client
from harness.connection.exec import ExecConnection, ExecOptions
from harness.protocol.operations import OPERATIONS
from reference.api import OperationNotSupported
from reference.errors import VNextError


def _rate(call: Callable[[], object], calls: int) -> float:
    with contextlib.suppress(VNextError):
        call()  # warm up
    start = time.perf_counter()
    for _ in range(calls):
        with contextlib.suppress(VNextError):
            call()
    return calls / (time.perf_counter() - start)


def _caller(backend: Client, op: str, params: dict[str, object]) -> Callable[[], object]:
    declared = OPERATIONS[op]
    return lambda: backend.outcome(declared, params)


def _cases(backend: Client) -> list[tuple[str, str, dict[str, object]]]:
    declared = set(backend.describe().operations)
    out: list[tuple[str, str, dict[str, object]]] = [("describe", "describe", {})]
    for path in corpus_paths():
        bundle = load_bundle(path)
        if bundle.operation in declared:
            out.append((path.stem[:12], bundle.operation, bundle.params))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="python:harness.backends.reference:make")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--min-ratio", type=float, default=None)
    args = parser.parse_args(argv)
    local = connect(args.backend)
    remote = Client(
        ExecConnection([sys.executable, "-m", "harness.cli", "serve", "--backend", args.backend], ExecOptions())
    )
    remote.open()
    planning: list[float] = []
    seconds_local = seconds_remote = 0.0
    print(f"{'case':<14}{'operation':<22}{'in-process/s':>14}{'exec/s':>12}{'ratio':>8}{'exec us/call':>14}")
    try:
        for name, op, params in _cases(local):
            try:
                a = _rate(_caller(local, op, params), args.calls)
                b = _rate(_caller(remote, op, params), args.calls)
            except OperationNotSupported:
                continue
            ratio = b / a
            if op != "describe":
                planning.append(ratio)
                seconds_local += 1 / a
                seconds_remote += 1 / b
            print(f"{name:<14}{op:<22}{a:>14.0f}{b:>12.0f}{ratio:>8.2f}{1e6 / b:>14.1f}")
    finally:
        remote.close()
        local.close()
    if planning:
        worst = min(planning)
        overall = seconds_local / seconds_remote
        print(f"planning cases: worst single-case exec/in-process ratio {worst:.2f}")
        print(f"the whole corpus once (one call per case): exec/in-process throughput {overall:.2f} (target >= 0.5)")
        if args.min_ratio is not None and overall < args.min_ratio:
            return 1
    else:
        print("no planning cases: the backend implements no operation the corpus exercises yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
