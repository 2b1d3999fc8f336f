"""Benchmark: canonical encode + sha256 against orjson and stdlib baselines.

Run: ``python bench/canonical_bench.py [--size-mb 1] [--repeat 30]``. Prints the
median time of each method and the ratios, measured in one run on one payload.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import orjson

from reference.canonical import canonical_bytes, fingerprint


def payload(target_bytes: int, seed: int = 7) -> dict[str, Any]:
    """A nested plan-like document of roughly ``target_bytes`` canonical bytes."""
    rng = random.Random(seed)
    nodes: list[dict[str, Any]] = []
    doc: dict[str, Any] = {"schema": {"minor": 1, "major": 8}, "nodes": nodes, "memory": {}}
    i = 0
    while len(orjson.dumps(doc)) < target_bytes:
        for _ in range(50):
            nodes.append(
                {
                    "node_id": f"node.{i}",
                    "provider_id": "provider.operation.reference",
                    "values": [
                        {"value_id": f"value.{i}.{j}", "bytes": rng.randrange(2**40), "note": "é\u0001/ü"}
                        for j in range(4)
                    ],
                    "attrs": {f"k{rng.randrange(1000)}": rng.randrange(2**63) for _ in range(6)},
                    "fingerprint": hashlib.sha256(str(i).encode()).hexdigest(),
                    "ok": True,
                    "none": None,
                }
            )
            i += 1
    return doc


def measure(fn: Callable[[], str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mb", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    doc = payload(int(args.size_mb * 1024 * 1024))
    size = len(canonical_bytes(doc))
    baseline_bytes = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    stdlib_bytes = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    assert canonical_bytes(doc) == baseline_bytes == stdlib_bytes, "byte forms disagree"

    methods: dict[str, Callable[[], str]] = {
        "reference fingerprint": lambda: fingerprint(doc),
        "reference fingerprint, trusted": lambda: fingerprint(doc, trusted=True),
        "orjson sorted + sha256": lambda: hashlib.sha256(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)).hexdigest(),
        "stdlib json sorted + sha256": lambda: hashlib.sha256(
            json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
        ).hexdigest(),
    }
    results = {name: measure(fn, args.repeat) for name, fn in methods.items()}
    base = results["orjson sorted + sha256"]
    print(f"payload: {size} canonical bytes, {len(doc['nodes'])} nodes, median of {args.repeat} runs")
    for name, seconds in results.items():
        print(f"  {name:<30} {seconds * 1000:8.2f} ms   {seconds / base:5.2f}x orjson")
    checked = results["reference fingerprint"] / base
    trusted = results["reference fingerprint, trusted"] / base
    print(f"reference (typed to_wire values, trusted) / orjson = {trusted:.2f} (target <= 1.5)")
    print(f"reference (arbitrary values, plain-JSON scan) / orjson = {checked:.2f}")


if __name__ == "__main__":
    main()
