"""Forgery operators over execution-plan wires (05 §8-§9, 01 "Forged plans", seed ``rehash_plan_json``).

``OPERATORS`` names every operator: the structural ones (``strategies.forgery_operators``) and
one per malformed-JSON class (``strategies.malformed_wires``); the values they work on are
``strategies.forged_wire``. An operator returns ``None`` when it does not apply to the target
(e.g. no array it may reorder).

The chooser abstracts every choice, so one operator serves Hypothesis (``forgeries``,
shrinking towards the first path / smallest change) and the deterministic kill matrix
(``forge_seeded``). Operator families:

* leaf mutation (with or without re-sealing the hash as a forger would);
* unknown fields at any depth; non-canonical respellings (integer as float, u128
  with a leading zero or as a number, reordered arrays, dropped ``null`` keys, an
  explicit default growth of 0);
* plan schema changes; broken hashes (case, other hex, truncation); changed ``plan_id``;
* replay of a plan against a semantically different scenario;
* oversize, and every malformed-JSON class of ``strategies.json_values``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

from hypothesis import strategies as st

from reference import api
from seeds.scenarios import paged_storage_scenario
from strategies._reuse import reusable
from strategies.forged_wire import (
    INVALID_PLAN,
    MAX_WIRE,
    Chooser,
    DrawChooser,
    Forgery,
    ForgeryOperator,
    PlanTarget,
    SeededChooser,
    rehash_plan_json,
)
from strategies.forgery_operators import BASE_OPERATORS, ORDERED_ARRAYS, SET_ARRAYS
from strategies.malformed_wires import MALFORMED_OPERATORS
from strategies.scenarios import (
    PlanFixtureParams,
    ScenarioCase,
    chain_case,
    graph_case,
    plan_fixture_case,
    rich_fixture_case,
    sequential_scratch_case,
    weights_case,
)

__all__ = [
    "INVALID_PLAN",
    "MALFORMED_OPERATORS",
    "MAX_WIRE",
    "OPERATORS",
    "ORDERED_ARRAYS",
    "SET_ARRAYS",
    "Chooser",
    "DrawChooser",
    "Forgery",
    "ForgeryOperator",
    "PlanTarget",
    "SeededChooser",
    "forge_seeded",
    "forgeries",
    "plan_target",
    "rehash_plan_json",
    "reference_targets",
]

#: Every operator by name.
OPERATORS: Final[dict[str, ForgeryOperator]] = {op.name: op for op in (*BASE_OPERATORS, *MALFORMED_OPERATORS)}


# --------------------------------------------------------------------------- entry points


def forge_seeded(operator: str, target: PlanTarget, seed: int = 0) -> Forgery | None:
    """One deterministic forgery (the kill matrix cell ``operator x target``)."""
    return OPERATORS[operator].forge(SeededChooser(seed), target)


@reusable
@st.composite
def forgeries(draw: st.DrawFn, targets: Sequence[PlanTarget], operator: str | None = None) -> Forgery:
    """A forgery of a drawn target by ``operator`` (or a drawn one). When the drawn operator does not
    apply to the drawn target, the next target (then the next operator) is tried, in order."""
    names = sorted(OPERATORS)
    chooser = DrawChooser(draw)
    start_op = names.index(operator) if operator is not None else chooser.below(len(names))
    candidates = [operator] if operator is not None else [names[(start_op + k) % len(names)] for k in range(len(names))]
    start = chooser.below(len(targets))
    for name in candidates:
        assert name is not None
        for offset in range(len(targets)):
            forged = OPERATORS[name].forge(chooser, targets[(start + offset) % len(targets)])
            if forged is not None:
                return forged
    raise ValueError(f"operator {operator!r} applies to none of the targets")


def plan_target(case: ScenarioCase, name: str | None = None) -> PlanTarget:
    """The reference's plan of ``case`` as a forgery target."""
    return PlanTarget(name or case.shape, case.scenario, api.build_plan(case.scenario))


@cache
def reference_targets() -> tuple[PlanTarget, ...]:
    """The fixed targets of the kill matrix (one per seed shape, plans built with seed 002's schema-changing
    materializers and a dense container binding; built once per process)."""
    cases = {
        "plan_fixture": plan_fixture_case(PlanFixtureParams()),
        "rich_fixture": rich_fixture_case(),
        "paged_storage": ScenarioCase("plan_fixture", {"storage": "paged"}, paged_storage_scenario()),
        "fallback_unregistered": plan_fixture_case(
            PlanFixtureParams(providers="secondary", preferred_provider="provider.operation.unregistered")
        ),
        "sequential_scratch": sequential_scratch_case(),
        "graph_state_chain": graph_case("state_chain", "must_alias_exact"),
        "chain_3_retained": chain_case(3, retention=("value.chain.00000", "value.chain.00001")),
        "padded_dense_weights": weights_case("padded_dense"),
        "derived_components_weights": weights_case("derived_components", retention=("value.output",)),
        "mixed_gptq_container": weights_case("mixed_gptq_dense"),
    }
    return tuple(plan_target(case, name) for name, case in cases.items())
