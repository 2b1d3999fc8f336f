"""Plan scale benchmark: a chain plan built, hashed, written, decoded and revalidated, in CPU seconds.

Each size ``n`` is ``seeds.chain.chain_case(n)`` (prepared outside the timed region). One round
times, with ``time.process_time`` (CPU seconds, so a loaded machine does not distort it):

* ``build``: ``build_execution_plan``; ``to_json``: the plan wire bytes; ``hash``:
  ``plan_hash`` and the default ``fingerprint`` of the payload's JSON value;
* ``decode``: the five steps of ``decode_untrusted`` on those bytes, as for a wire the process
  never wrote (no memo); ``revalidate``: ``revalidate`` of that decoded plan against the same
  trusted inputs (a full rebuild and comparison).

``total`` is their sum: the cold path. ``recognised`` is ``decode_untrusted`` of the bytes the
plan's ``to_json`` just wrote (a wire byte-identical to one the reference wrote is that plan);
``validated`` is ``from_json_validated`` (decode + revalidate in one call, the oracle's path for a
backend's wire and a scenario: rebuild, then an exact byte comparison) and ``oracle_total`` is
build + to_json + hash + validated. Both are measured with the garbage collector on (default thresholds, no
freeze, unless ``--gc-freeze``: then the harness's tuning, ``harness.collector``). The
fingerprint ratio compares the default ``fingerprint()`` of the 1000-node payload wire with
the peer (orjson sorted keys + sha256), interleaved in one run.

``--against REV`` also runs the same rounds on the tree of git revision ``REV`` (exported to a
temporary directory), interleaved round by round with this tree, and prints the ratios.

Goals (issue [4/8]): 1000-node total <= 1.5 CPU-s; t(2000)/t(1000) <= 2.1;
fingerprint <= 1.3x the peer.
Run: ``python bench/plan_scale.py [--sizes 1000,2000] [--rounds 3] [--against main]``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the repository root holds the bench package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.trees import ROOT, export

STAGES = ("build", "to_json", "hash", "decode", "revalidate")


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.process_time()
    value = fn()
    return value, time.process_time() - start


def one_round(nodes: int, gc_freeze: bool) -> dict[str, float]:
    """CPU seconds per stage for one ``nodes``-node chain (set-up untimed).

    ``gc_freeze``: the harness's collector tuning (``harness.collector``: set-up frozen,
    thresholds raised), as a conformance run applies it; otherwise CPython's defaults.
    """
    from reference.canonical import fingerprint
    from reference.plan import decode as decode_module
    from reference.plan.build import build_execution_plan
    from reference.plan.decode import decode_untrusted
    from reference.plan.revalidate import from_json_validated, revalidate
    from seeds.chain import chain_case

    case = chain_case(nodes)
    gc.collect()
    if gc_freeze:
        _tune_collector()
    args = (case.family, case.catalog, case.policy, case.resolutions)
    out: dict[str, float] = {}
    plan, out["build"] = _timed(lambda: build_execution_plan(*args))
    data, out["to_json"] = _timed(plan.to_json)
    wire = json.loads(data)["payload"]
    _, out["hash"] = _timed(lambda: (plan.plan_hash, fingerprint(wire)))
    parse = getattr(decode_module, "_decode", decode_untrusted)  # a revision without the memo: the public door
    unvalidated, out["decode"] = _timed(lambda: parse(data))
    _, out["recognised"] = _timed(lambda: decode_untrusted(data))
    rebuilt, out["revalidate"] = _timed(lambda: revalidate(unvalidated, *args))
    validated, out["validated"] = _timed(lambda: from_json_validated(data, *args))
    assert rebuilt.plan_hash == plan.plan_hash == validated.plan_hash
    out["total"] = sum(out[s] for s in STAGES)
    out["oracle_total"] = out["build"] + out["to_json"] + out["hash"] + out["validated"]
    if gc_freeze:
        gc.unfreeze()
    return out


def _tune_collector() -> None:
    try:
        from harness.collector import freeze_setup, tune_collector
    except ImportError:  # a revision without the tuning: freeze only
        gc.freeze()
        return
    tune_collector()
    freeze_setup()


def fingerprint_ratio(nodes: int, repeat: int) -> dict[str, float]:
    """Median CPU seconds of ``fingerprint`` and of orjson sorted + sha256 on a real plan payload."""
    import orjson

    from reference.canonical import fingerprint
    from reference.plan.build import build_execution_plan
    from seeds.chain import chain_case

    case = chain_case(nodes)
    wire = build_execution_plan(case.family, case.catalog, case.policy, case.resolutions).payload_wire()

    def peer() -> str:
        return hashlib.sha256(orjson.dumps(wire, option=orjson.OPT_SORT_KEYS)).hexdigest()

    assert fingerprint(wire) == peer()
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(repeat):
        ours.append(_timed(lambda: fingerprint(wire))[1])
        theirs.append(_timed(peer)[1])
    return {"fingerprint": statistics.median(ours), "peer": statistics.median(theirs)}


def child(argv: list[str]) -> int:
    """One measurement in this process, printed as JSON (used for the interleaved A/B runs)."""
    kind, size, flag = argv[0], int(argv[1]), argv[2] == "1"
    sys.path.insert(0, str(Path.cwd()))
    result = one_round(size, flag) if kind == "round" else fingerprint_ratio(size, 15)
    print(json.dumps(result))
    return 0


def _run(tree: Path, kind: str, size: int, flag: bool) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "plan_scale.py"), "--child", kind, str(size), "1" if flag else "0"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        return child(argv[1:])
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,2000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--gc-freeze", action="store_true", help="the harness's collector tuning (freeze the set-up, thresholds)"
    )
    parser.add_argument("--against", default=None, help="a git revision to compare with, interleaved")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this": ROOT}
        if args.against:
            trees[args.against] = export(args.against, Path(tmp))
        results: dict[str, dict[int, list[dict[str, float]]]] = {name: {n: [] for n in sizes} for name in trees}
        fps: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                for n in sizes:
                    results[name][n].append(_run(tree, "round", n, args.gc_freeze))
        for name, tree in trees.items():
            fps[name].append(_run(tree, "fingerprint", 1000, False))
    ok = True
    medians: dict[str, dict[int, dict[str, float]]] = {}
    for name in trees:
        medians[name] = {}
        print(f"== tree {name} (median of {args.rounds} rounds, CPU seconds, gc freeze={args.gc_freeze})")
        for n in sizes:
            med = {
                k: statistics.median(r[k] for r in results[name][n])
                for k in (*STAGES, "total", "recognised", "validated", "oracle_total")
            }
            medians[name][n] = med
            stages = "  ".join(f"{s}={med[s]:.3f}" for s in STAGES)
            print(f"nodes={n:5d}  total={med['total']:.3f}  {stages}")
            print(
                f"             recognised={med['recognised']:.3f}  validated={med['validated']:.3f}"
                f"  oracle_total={med['oracle_total']:.3f}"
            )
        if 1000 in sizes and 2000 in sizes:
            ratio = medians[name][2000]["total"] / medians[name][1000]["total"]
            print(f"t(2000)/t(1000) = {ratio:.2f}  (goal <= 2.1)")
            ok &= name != "this" or ratio <= 2.1
        if 1000 in sizes:
            total = medians[name][1000]["total"]
            oracle = medians[name][1000]["oracle_total"]
            print(f"1000-node total = {total:.3f} CPU-s cold, {oracle:.3f} on the oracle's path  (goal <= 1.5)")
            ok &= name != "this" or total <= 1.5
        fp = fps[name][0]
        fp_ratio = fp["fingerprint"] / fp["peer"]
        print(
            f"fingerprint(1000-node payload) = {fp['fingerprint'] * 1000:.1f} ms, peer {fp['peer'] * 1000:.1f} ms,"
            f" ratio {fp_ratio:.2f}  (goal <= 1.3)"
        )
        ok &= name != "this" or fp_ratio <= 1.3
    if args.against:
        print(f"== this / {args.against}")
        for n in sizes:
            ratios = "  ".join(
                f"{k}={medians['this'][n][k] / medians[args.against][n][k]:.2f}"
                for k in (*STAGES, "total", "recognised", "validated", "oracle_total")
            )
            print(f"nodes={n:5d}  {ratios}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
