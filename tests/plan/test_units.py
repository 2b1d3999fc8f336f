"""Unit tests of the build helpers: exact aliases, liveness, canonical values, effects, work contracts."""

from __future__ import annotations

import pytest

from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import MayAlias, MustAlias, TensorAccess
from reference.ids import NodeId, ProgramValueId
from reference.plan import PlanExactAlias, PlanExactAliasKind, PlanStateEffect
from reference.plan.aliasing import (
    CanonicalValues,
    extract_exact_aliases,
    validate_alias_liveness,
    validate_global_storage_aliasing,
)
from reference.plan.memory import AllocationLifetime
from reference.plan.state import StateTracker, derive_state_effects
from reference.resolution.usage import BufferUsage
from seeds.catalogs import graph_operation
from tests.plan.helpers import graph_binding, graph_family, raises_kind, single

EP = "invalid_execution_plan"
IN, OUT = ResolvedValueRole.INPUT, ResolvedValueRole.OUTPUT


def _values(output_storage: object, alias: object) -> list[object]:
    return [
        graph_binding("value.input.0", IN, 0, TensorAccess.READ, single("resource.a")),
        graph_binding("value.input.1", IN, 1, TensorAccess.READ, single("resource.b")),
        graph_binding("value.weight", IN, 2, TensorAccess.READ, single("resource.w")),
        graph_binding("value.alias", OUT, 0, TensorAccess.WRITE, output_storage, alias=alias),  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize(
    ("alias", "storage", "expected"),
    [
        (MustAlias(0), "resource.a", PlanExactAliasKind.MUST_ALIAS),
        (MayAlias(0), "resource.a", PlanExactAliasKind.MAY_ALIAS),
        (MayAlias(0), "resource.c", None),
    ],
)
def test_extract_exact_aliases(alias: object, storage: str, expected: PlanExactAliasKind | None) -> None:
    operation = graph_operation("operation.graph.alias", None, alias)  # type: ignore[arg-type]
    edges = extract_exact_aliases(operation, _values(single(storage), alias))  # type: ignore[arg-type]
    assert [e.kind for e in edges] == ([] if expected is None else [expected])


def test_must_alias_with_distinct_storage_and_absent_input() -> None:
    operation = graph_operation("operation.graph.alias", None, MustAlias(0))
    raises_kind(EP, lambda: extract_exact_aliases(operation, _values(single("resource.c"), MustAlias(0))))  # type: ignore[arg-type]
    operation = graph_operation("operation.graph.alias", None, MustAlias(7))
    raises_kind(EP, lambda: extract_exact_aliases(operation, _values(single("resource.a"), MustAlias(7))))  # type: ignore[arg-type]


def test_alias_liveness_rules() -> None:
    program = graph_family("alias").program
    values = _values(single("resource.a"), MustAlias(0))
    edge = PlanExactAlias(
        ProgramValueId("value.alias"), 0, ProgramValueId("value.input.0"), 0, PlanExactAliasKind.MUST_ALIAS
    )
    last = {ProgramValueId("value.input.0"): 0}
    validate_alias_liveness(program, 0, values, [edge], last, frozenset())  # type: ignore[arg-type]
    raises_kind(
        EP,
        lambda: validate_alias_liveness(program, 0, values, [edge], {ProgramValueId("value.input.0"): 1}, frozenset()),
    )  # type: ignore[arg-type]
    raises_kind(
        EP,
        lambda: validate_alias_liveness(program, 0, values, [edge], last, frozenset({ProgramValueId("value.input.0")})),
    )  # type: ignore[arg-type]
    state_program = graph_family("state_chain").program
    state_edge = PlanExactAlias(
        ProgramValueId("value.alias"), 0, ProgramValueId("value.state"), 0, PlanExactAliasKind.MUST_ALIAS
    )
    state_values = [graph_binding("value.state", IN, 0, TensorAccess.READ, single("resource.a"), BufferUsage.STATE)]
    raises_kind(
        EP,
        lambda: validate_alias_liveness(
            state_program, 0, state_values, [state_edge], {ProgramValueId("value.state"): 0}, frozenset()
        ),
    )  # type: ignore[arg-type]


def test_canonical_values_and_global_aliasing() -> None:
    values = CanonicalValues()
    first = graph_binding("value.x", OUT, 0, TensorAccess.WRITE, single("resource.r"))
    values.record(first)
    values.record(graph_binding("value.x", IN, 3, TensorAccess.READ, single("resource.r")))
    raises_kind(EP, lambda: values.record(graph_binding("value.x", IN, 0, TensorAccess.READ, single("resource.s"))))
    values.record(graph_binding("value.y", OUT, 0, TensorAccess.WRITE, single("resource.r", 16)))
    validate_global_storage_aliasing([], values)
    values.record(graph_binding("value.z", OUT, 0, TensorAccess.WRITE, single("resource.r", 8)))
    raises_kind(EP, lambda: validate_global_storage_aliasing([], values))


def test_state_tracker_raw_war_waw() -> None:
    tracker = StateTracker()

    def effect(access: TensorAccess) -> list[PlanStateEffect]:
        from reference.ids import ResourceId, StateId

        return [
            PlanStateEffect(
                StateId("state.s"), ProgramValueId("value.s"), AllocationLifetime.SEQUENCE, access, (ResourceId("r"),)
            )
        ]

    a, b, c, d, e = (NodeId(f"node.{x}") for x in "abcde")
    assert tracker.apply(a, effect(TensorAccess.READ)) == set()
    assert tracker.apply(b, effect(TensorAccess.READ)) == set()
    assert tracker.apply(c, effect(TensorAccess.WRITE)) == {a, b}
    assert tracker.apply(d, effect(TensorAccess.READ)) == {c}
    assert tracker.apply(e, effect(TensorAccess.READ_WRITE)) == {c, d}


def test_derive_state_effects_access() -> None:
    program = graph_family("state_chain").program
    rw = [graph_binding("value.state", IN, 0, TensorAccess.READ_WRITE, single("resource.s"), BufferUsage.STATE)]
    (effect,) = derive_state_effects(program, rw)  # type: ignore[arg-type]
    assert effect.access is TensorAccess.READ_WRITE and effect.lifetime is AllocationLifetime.SEQUENCE
    assert derive_state_effects(program, []) == ()
