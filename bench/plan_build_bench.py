"""Execution-plan build benchmark (issue [4/8]): linear programs of 250/500/1000/2000 nodes.

Each program is ``seeds.chain.ChainFamily(n)`` (a chain of ``operation.main``
nodes sharing one weight and one state) with generated resolutions against the seed
catalog. Resolutions are prepared outside the timed region; the timed region is
``build_execution_plan`` plus ``plan_hash`` and ``to_json``. Setup objects are frozen out
of the garbage collector (``gc.freeze``) so the timing measures the build, and the median
CPU time (``time.process_time``) of ``--repeat`` runs is reported. Decoding and revalidation
are timed by ``bench/plan_scale.py``.

Targets: ``t(2000) / t(1000) <= 2.2`` (no quadratic step) and a 1000-node build+hash < 1 s.
Run: ``python bench/plan_build_bench.py [--sizes 250,500,1000,2000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reference.plan.build import build_execution_plan
from seeds.chain import chain_case


def time_build(nodes: int, repeat: int) -> float:
    """Median CPU seconds of ``repeat`` builds (+hash, +to_json) of an ``nodes``-node chain."""
    case = chain_case(nodes)
    gc.collect()
    gc.freeze()
    times: list[float] = []
    try:
        for _ in range(repeat):
            start = time.process_time()
            plan = build_execution_plan(case.family, case.catalog, case.policy, case.resolutions)
            _ = plan.plan_hash
            plan.to_json()
            times.append(time.process_time() - start)
            del plan
            gc.collect()
    finally:
        gc.unfreeze()
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="250,500,1000,2000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    times: dict[int, float] = {}
    for nodes in sizes:
        times[nodes] = time_build(nodes, args.repeat)
        print(f"nodes={nodes:5d}  build+hash={times[nodes] * 1000:9.1f} CPU-ms")
    ok = True
    if 1000 in times and 2000 in times:
        ratio = times[2000] / times[1000]
        ok &= ratio <= 2.2
        print(f"ratio t(2000)/t(1000) = {ratio:.2f}  (target <= 2.2) {'OK' if ratio <= 2.2 else 'MISS'}")
    if 1000 in times:
        ok &= times[1000] < 1.0
        print(f"1000-node build+hash = {times[1000]:.3f} s  (target < 1 s) {'OK' if times[1000] < 1.0 else 'MISS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
