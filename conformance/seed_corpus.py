"""The seed planning cases of the checked-in corpus, as named ``build_plan`` bundles.

``python -m conformance.seed_corpus --write`` regenerates ``conformance/corpus/seed_*.json``
from ``seeds/scenarios.py``; each bundle pins the reference's outcome
(the exact plan wire, or the error kind). ``--check`` (and the project's tests)
fail when a checked-in seed file differs from what the fixtures and the
reference produce now.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from conformance.corpus import corpus_dir
from harness.backends import DEFAULT_SPEC, connect
from harness.bundles import Bundle
from harness.outcome import Outcome
from harness.protocol.operations import OPERATIONS
from reference.api import ESTIMATE_BEHAVIORS

__all__ = ["SEED_PREFIX", "seed_bundles", "seed_cases"]

SEED_PREFIX: Final = "seed_"

GRAPH_SCENARIOS: Final = (
    "alias",
    "alias_late_consumer",
    "alias_terminal_intermediate",
    "state_chain",
    "state_read_only",
)


def seed_cases() -> dict[str, tuple[Callable[[], dict[str, Any]], str]]:
    """``file stem -> (scenario builder, note)`` for every seed case."""
    from seeds.policies import policy_with
    from seeds.scenarios import (
        GRAPH_ALIAS_VARIANTS,
        container_format_scenario,
        graph_scenario,
        paged_storage_scenario,
        plan_fixture_scenario,
        retention_scenario,
        sequential_scratch_scenario,
        weights_plan_scenario,
    )

    cases: dict[str, tuple[Callable[[], dict[str, Any]], str]] = {
        "seed_plan_fixture_0": (lambda: plan_fixture_scenario(0), "05 §7.16 plan_fixture(0): static 48, runnable 112"),
        "seed_plan_fixture_policy_4096_256_4": (
            lambda: plan_fixture_scenario(
                0, name="plan_fixture_policy_4096_256_4", policy_value=policy_with(4096, 256, 4)
            ),
            "05 §7.16 policy_with(4096, 256, 4): usable 3840, ceiling 496",
        ),
        "seed_sequential_scratch": (sequential_scratch_scenario, "05 §7.9 invocation peak 96, runnable 160"),
        "seed_paged_storage": (paged_storage_scenario, "04 §9.2 preferred provider loses on storage; fallback"),
    }
    for scenario in GRAPH_SCENARIOS:
        cases[f"seed_graph_{scenario}"] = (
            lambda scenario=scenario: graph_scenario(scenario),  # type: ignore[misc]
            f"05 §5.3 GraphFamily {scenario}",
        )
    for variant in GRAPH_ALIAS_VARIANTS:
        if variant != "must_alias_exact":
            cases[f"seed_graph_alias_{variant}"] = (
                lambda variant=variant: graph_scenario("alias", variant),  # type: ignore[misc]
                f"05 §5.3 GraphFamily alias, {variant}",
            )
    cases |= {
        "seed_weights_padded_dense_plan": (
            lambda: weights_plan_scenario("padded_dense"),
            "05 §10 seed 002 padded-dense: weight row 32, static 64 = identity 48 + 16 (D-04R-14)",
        ),
        "seed_weights_padded_dense_family_bindings": (
            lambda: weights_plan_scenario("padded_dense", bindings="family"),
            "05 §10 padded-dense selected, bindings for the family schema: invalid_execution_plan (D-04R-14)",
        ),
        "seed_weights_derived_components_plan": (
            lambda: weights_plan_scenario("derived_components"),
            "05 §10 seed 002 derived-components: weight.execution.left/right, static 64 (D-04R-14)",
        ),
        "seed_container_mixed_gptq_dense": (
            lambda: container_format_scenario("mixed_gptq_dense"),
            "04 §9 step 9: a dense binding in a mixed-gptq container requires no weight format (D-04R-15)",
        ),
        "seed_container_quantized_unsupported": (
            lambda: container_format_scenario("quantized_unsupported"),
            "04 §9 step 9: a block-quantized binding requires its formats: unsupported_operation (D-04R-15)",
        ),
        "seed_retention_output": (
            lambda: retention_scenario("output"),
            "05 §7.10 retained value.output keeps its request-lifetime fixed descriptor (D-05M-12)",
        ),
        "seed_retention_intermediate": (
            lambda: retention_scenario("intermediate"),
            "05 §7.10 retained step intermediate value.intermediate (D-05M-12)",
        ),
    }
    for behavior in ESTIMATE_BEHAVIORS:
        cases[f"seed_estimate_{behavior}"] = (
            lambda behavior=behavior: plan_fixture_scenario(0, name=f"estimate_{behavior}", behavior=behavior),  # type: ignore[misc]
            f"04 §10 EstimateBehavior {behavior}",
        )
    return cases


def _pinned(outcome: Outcome) -> dict[str, Any]:
    if outcome.kind == "result":
        return {"result": outcome.value}
    return {"error": {"kind": outcome.value["kind"]}}


def seed_bundles() -> dict[str, Bundle]:
    """Every seed case with the reference's outcome pinned."""
    backend = connect(DEFAULT_SPEC)
    build_plan = OPERATIONS["build_plan"]
    out = {}
    try:
        for stem, (build, note) in seed_cases().items():
            params = build_plan.encode_params((build(),))
            out[stem] = Bundle("build_plan", params, _pinned(backend.outcome(build_plan, params)), case=stem, note=note)
    finally:
        backend.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite conformance/corpus/seed_*.json")
    mode.add_argument("--check", action="store_true", help="exit 1 when a seed file is stale or missing")
    args = parser.parse_args(argv)
    directory = corpus_dir()
    bundles = seed_bundles()
    stale = []
    for stem, bundle in bundles.items():
        path = Path(directory) / f"{stem}.json"
        data = bundle.canonical()
        if args.write:
            path.write_bytes(data)
        elif not path.exists() or path.read_bytes() != data:
            stale.append(path.name)
    extra = sorted(p.name for p in Path(directory).glob(f"{SEED_PREFIX}*.json") if p.stem not in bundles)
    if args.write:
        for name in extra:
            (Path(directory) / name).unlink()
        print(f"wrote {len(bundles)} seed bundles to {directory}")
        return 0
    for name in stale + extra:
        print(f"stale: {name}", file=sys.stderr)
    return 1 if stale or extra else 0


if __name__ == "__main__":
    sys.exit(main())
