"""GraphFamily scenarios (spec 05 §5.3): aliasing, alias liveness and state dependencies."""

from __future__ import annotations

import pytest

from reference.catalog.tensor_contract import MayAlias, MustAlias, TensorAccess
from tests.plan.helpers import graph_plan, raises_kind, rehash_plan_json, single, wire


def test_state_chain_dependencies_and_effects() -> None:
    plan = graph_plan("state_chain")
    assert [n.id.value for n in plan.nodes] == [
        "node.state-read.0",
        "node.state-rw.0",
        "node.state-rw.1",
        "node.state-read.1",
    ]
    assert [[d.value for d in n.dependencies] for n in plan.nodes] == [
        [],
        ["node.state-read.0"],
        ["node.state-rw.0"],
        ["node.state-rw.1"],
    ]
    assert [[e.access for e in n.state_effects] for n in plan.nodes] == [
        [TensorAccess.READ],
        [TensorAccess.READ_WRITE],
        [TensorAccess.READ_WRITE],
        [TensorAccess.READ],
    ]
    effect = plan.nodes[0].state_effects[0]
    assert effect.to_wire() == {
        "state_id": "state.cache",
        "state_value_id": "value.state",
        "lifetime": "sequence",
        "access": "read",
        "resource_ids": ["resource.graph.state"],
    }
    memory = plan.memory
    assert (memory.static_bytes, memory.minimum_runnable_request_bytes, memory.theoretical_ceiling_bytes) == (
        144,
        176,
        1248,
    )
    assert memory.invocation_liveness_mode.value == "total_order_reuse"
    assert memory.minimum_invocation_peak_bytes == 64


def test_state_read_only_is_independent() -> None:
    plan = graph_plan("state_read_only")
    assert [n.dependencies for n in plan.nodes] == [(), ()]
    assert [[e.access for e in n.state_effects] for n in plan.nodes] == [[TensorAccess.READ], [TensorAccess.READ]]
    memory = plan.memory
    assert (memory.static_bytes, memory.minimum_runnable_request_bytes, memory.theoretical_ceiling_bytes) == (
        80,
        208,
        704,
    )
    assert memory.invocation_liveness_mode.value == "conservative_concurrent"
    assert memory.minimum_invocation_peak_bytes == 128


def test_must_alias_exact_target() -> None:
    plan = graph_plan("alias", MustAlias(0), single("resource.graph.input.0"))
    (alias,) = plan.nodes[0].exact_aliases
    assert alias.to_wire() == {
        "output_value_id": "value.alias",
        "output_ordinal": 0,
        "input_value_id": "value.input.0",
        "input_ordinal": 0,
        "kind": "must_alias",
    }
    rows = [d for d in plan.memory.dynamic_descriptors if d.base_resource_id.value == "resource.graph.input.0"]
    assert len(rows) == 1 and rows[0].lifetime.value == "request"
    memory = plan.memory
    assert (memory.static_bytes, memory.minimum_runnable_request_bytes, memory.theoretical_ceiling_bytes) == (
        48,
        96,
        336,
    )


def test_may_alias_variants() -> None:
    assert graph_plan("alias", MayAlias(0)).nodes[0].exact_aliases == ()
    (alias,) = graph_plan("alias", MayAlias(0), single("resource.graph.input.0")).nodes[0].exact_aliases
    assert alias.kind.value == "may_alias"


@pytest.mark.parametrize(
    ("policy_", "storage"),
    [
        (MayAlias(0), single("resource.graph.input.0", 8)),
        (MayAlias(0), single("resource.graph.input.1")),
        (MustAlias(0), None),
    ],
    ids=["may_partial", "may_wrong_input", "must_distinct"],
)
def test_alias_rejections(policy_: MayAlias | MustAlias, storage: object) -> None:
    raises_kind("invalid_execution_plan", lambda: graph_plan("alias", policy_, storage))  # type: ignore[arg-type]


def test_alias_late_consumer_rejected() -> None:
    raises_kind(
        "invalid_execution_plan",
        lambda: graph_plan("alias_late_consumer", MustAlias(0), single("resource.graph.input.0")),
    )


def test_alias_terminal_intermediate_safety() -> None:
    """U3: either one shared row with one lifetime, or InvalidExecutionPlan; never two overlapping rows."""
    raises_kind(
        "invalid_execution_plan",
        lambda: graph_plan("alias_terminal_intermediate", MustAlias(0), single("resource.graph.intermediate")),
    )


@pytest.mark.parametrize(
    ("scenario", "mutate"),
    [
        ("alias", lambda w: w["payload"]["nodes"][0].__setitem__("exact_aliases", [])),
        ("state_chain", lambda w: w["payload"]["nodes"][1]["state_effects"][0].__setitem__("access", "read")),
        ("state_chain", lambda w: w["payload"]["nodes"][2].__setitem__("dependencies", [])),
    ],
    ids=["alias_cleared", "state_access", "dependencies_cleared"],
)
def test_rehashed_mutations_differ_from_the_rebuilt_payload(scenario: str, mutate: object) -> None:
    args = (MustAlias(0), single("resource.graph.input.0")) if scenario == "alias" else ()
    plan = graph_plan(scenario, *args)  # type: ignore[arg-type]
    forged = wire(plan)
    mutate(forged)  # type: ignore[operator]
    rehash_plan_json(forged)
    rebuilt = graph_plan(scenario, *args)  # type: ignore[arg-type]
    assert forged["payload"] != rebuilt.payload_wire()
    assert forged["plan_hash"] != rebuilt.plan_hash.value
