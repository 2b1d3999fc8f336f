"""Golden plan-hash vectors: scenario -> expected plan hash, pinned to ferrum-interfaces 0.12.2 / plan schema 8.1.

``plan_hashes.json`` holds, for each named seed-shaped scenario, the scenario document,
the plan hash and the sha256 / length of the exact wire bytes the reference writes. The
file is generated and checked by ``python -m conformance.golden --write | --check``; the
``hash_stability`` suite checks every backend against it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, Final

from reference.api import sha256_hex

__all__ = ["GOLDEN_FILE", "GOLDEN_VERSION", "check", "expected_contract", "generate", "golden_path", "load", "write"]

GOLDEN_FILE: Final = "plan_hashes.json"
GOLDEN_VERSION: Final = 1


def golden_path() -> Path:
    return Path(str(resources.files("conformance") / "golden" / GOLDEN_FILE))


def expected_contract() -> dict[str, Any]:
    """The contract identity the vectors are pinned to (the harness's)."""
    from harness.identity import CONTRACT_IDENTITY

    return json.loads(json.dumps(dict(CONTRACT_IDENTITY)))  # type: ignore[no-any-return]


def _scenarios() -> dict[str, Callable[[], dict[str, Any]]]:
    from seeds.scenarios import (
        container_format_scenario,
        paged_storage_scenario,
        plan_fixture_scenario,
        retention_scenario,
        weights_plan_scenario,
    )
    from strategies.scenarios import (
        BUILDABLE_GRAPHS,
        PlanFixtureParams,
        chain_case,
        plan_fixture_case,
        rich_fixture_case,
        sequential_scratch_case,
    )

    named: dict[str, Callable[[], dict[str, Any]]] = {
        "plan_fixture_0": lambda: plan_fixture_scenario(0),
        "plan_fixture_1": lambda: plan_fixture_scenario(1),
        "plan_fixture_arena_alignment64": lambda: plan_fixture_scenario(0, behavior="arena_alignment64"),
        "plan_fixture_token_scaled_scratch": lambda: plan_fixture_scenario(0, behavior="token_scaled_scratch"),
        "plan_fixture_preferred_reference": lambda: plan_fixture_scenario(
            0, preferred_provider="provider.operation.reference"
        ),
        "plan_fixture_preferred_unregistered": lambda: plan_fixture_scenario(
            0, preferred_provider="provider.operation.unregistered"
        ),
        "ordered_schema_reverse_sources": lambda: (
            plan_fixture_case(PlanFixtureParams(family="ordered_schema", reverse_sources=True)).scenario
        ),
        "rich_fixture": lambda: rich_fixture_case().scenario,
        "paged_storage": paged_storage_scenario,
        "sequential_scratch": lambda: sequential_scratch_case().scenario,
        "chain_1": lambda: chain_case(1).scenario,
        "chain_5_retained": lambda: chain_case(5, retention=("value.chain.00001", "value.output")).scenario,
        "weights_padded_dense": lambda: weights_plan_scenario("padded_dense"),
        "weights_derived_components": lambda: weights_plan_scenario("derived_components"),
        "container_mixed_gptq_dense": lambda: container_format_scenario("mixed_gptq_dense"),
        "retention_output": lambda: retention_scenario("output"),
        "retention_intermediate": lambda: retention_scenario("intermediate"),
    }
    for scenario, variant in BUILDABLE_GRAPHS:
        named[f"graph_{scenario}_{variant}"] = _graph(scenario, variant)
    return named


def _graph(scenario: str, variant: str) -> Callable[[], dict[str, Any]]:
    from strategies.scenarios import graph_case

    return lambda: graph_case(scenario, variant).scenario


def generate() -> dict[str, Any]:
    """The golden document as the reference computes it now."""
    from reference import api

    vectors = []
    for name, build in sorted(_scenarios().items()):
        scenario = build()
        wire = api.build_plan(scenario)
        vectors.append(
            {
                "name": name,
                "plan_hash": json.loads(wire)["plan_hash"],
                "wire_sha256": sha256_hex(wire),
                "wire_bytes": len(wire),
                "scenario": scenario,
            }
        )
    return {
        "golden_version": GOLDEN_VERSION,
        "contract": expected_contract(),
        "generator": "python -m conformance.golden --write",
        "vectors": vectors,
    }


def _text(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def load(path: Path | None = None) -> dict[str, Any]:
    """The checked-in golden document."""
    loaded: dict[str, Any] = json.loads((path or golden_path()).read_text(encoding="utf-8"))
    return loaded


def write(path: Path | None = None) -> Path:
    target = path or golden_path()
    target.write_text(_text(generate()), encoding="utf-8")
    return target


def check(path: Path | None = None) -> list[str]:
    """Differences between the checked-in file and a fresh generation (empty: up to date)."""
    problems: list[str] = []
    target = path or golden_path()
    if not target.is_file():
        return [f"{target} does not exist; run python -m conformance.golden --write"]
    stored, fresh = load(target), generate()
    if stored.get("contract") != fresh["contract"]:
        problems.append(f"contract pin {stored.get('contract')} != {fresh['contract']}")
    old = {v["name"]: v for v in stored.get("vectors", [])}
    new = {v["name"]: v for v in fresh["vectors"]}
    for name in sorted(set(old) | set(new)):
        if name not in old or name not in new:
            problems.append(f"vector {name}: {'missing from the file' if name not in old else 'no longer generated'}")
            continue
        for key in ("plan_hash", "wire_sha256", "wire_bytes", "scenario"):
            if old[name][key] != new[name][key]:
                problems.append(f"vector {name}: {key} changed")
    return problems
