"""Plans built with non-identity weight materializers (05 §3, §10; decision D-04R-14).

Resolution and the build check weight bindings against the same schema: the trusted
execution weight plan's (the family's under the identity plan). Seed 002's padded-dense
materializer pads ``weight.component`` to ``[8]`` f32, so its static weight row is 32
bytes and the plan's static bytes are the identity plan's + 16; the derived-components
materializer renames the split family's components to ``weight.execution.left/right``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from reference.catalog.catalog import CapabilityCatalog
from reference.ids import NodeId, WeightId
from reference.model.prepared import PreparedModelFamily
from reference.plan import ExecutionPlan, build_execution_plan
from reference.resolution import PlanNodeResolution, ResolvedValueBinding
from reference.resolution.usage import BufferUsage
from reference.weights import TrustedExecutionWeightPlan, WeightMaterializer, WeightMaterializerRegistry
from seeds.catalogs import catalog
from seeds.policies import policy
from seeds.resolution import planning_registry, resolved_values, schema_weight_binding
from seeds.weights import (
    DERIVED_ID,
    PADDED_DENSE_ID,
    DerivedComponentMaterializer,
    PaddedDenseMaterializer,
    split_family,
    synthetic_family,
)
from tests.plan.helpers import raises_kind

EP = "invalid_execution_plan"


@dataclasses.dataclass(frozen=True)
class Setup:
    """A family, its materializer registry, the augmented catalog and the selected trusted plan."""

    family: PreparedModelFamily
    registry: WeightMaterializerRegistry
    catalog: CapabilityCatalog
    trusted: TrustedExecutionWeightPlan

    def values(self, schema_of: str = "execution") -> list[ResolvedValueBinding]:
        """``resolved_values(0)`` with the weight written for the ``execution`` or the ``family`` schema."""
        schema = self.trusted.plan().schema() if schema_of == "execution" else self.family.weight_schema
        values = resolved_values(0)
        values[1] = schema_weight_binding(schema, "resource.weight.0")
        return values


MATERIALIZERS: dict[str, tuple[Callable[[], PreparedModelFamily], Callable[[], WeightMaterializer], Any]] = {
    "padded_dense": (synthetic_family, PaddedDenseMaterializer, PADDED_DENSE_ID),
    "derived_components": (split_family, DerivedComponentMaterializer, DERIVED_ID),
}


def setup(name: str) -> Setup:
    make_family, make_materializer, materializer_id = MATERIALIZERS[name]
    family = make_family()
    registry = WeightMaterializerRegistry([make_materializer()])
    cat = registry.augment_catalog(catalog())
    return Setup(family, registry, cat, registry.select_exact(family, cat, materializer_id))


def resolve(
    s: Setup, values: list[ResolvedValueBinding], weights: TrustedExecutionWeightPlan | None, cat: Any = None
) -> PlanNodeResolution:
    planning = planning_registry(s.catalog if cat is None else cat, 64, 32)
    return PlanNodeResolution.resolve(
        s.family,
        s.catalog if cat is None else cat,
        policy(4096),
        planning.planning(),
        NodeId("node.main"),
        values,
        execution_weights=weights,
    )


def build(s: Setup, resolution: PlanNodeResolution, weights: TrustedExecutionWeightPlan | None) -> ExecutionPlan:
    return build_execution_plan(s.family, s.catalog, policy(4096), [resolution], execution_weights=weights)


def identity_plan(s: Setup) -> ExecutionPlan:
    return build(s, resolve(s, s.values("family"), None), None)


@pytest.mark.parametrize("name", sorted(MATERIALIZERS))
def test_resolution_checks_weights_against_the_execution_schema(name: str) -> None:
    s = setup(name)
    resolve(s, s.values("execution"), s.trusted)  # the execution schema's bindings resolve with the witness
    raises_kind(EP, lambda: resolve(s, s.values("execution"), None))  # ... and not against the family schema
    raises_kind(EP, lambda: resolve(s, s.values("family"), s.trusted))  # family bindings fail with the witness
    resolve(s, s.values("family"), None)  # the identity default is the family schema


@pytest.mark.parametrize("name", sorted(MATERIALIZERS))
def test_the_build_refuses_resolutions_made_for_another_schema(name: str) -> None:
    s = setup(name)
    raises_kind(EP, lambda: build(s, resolve(s, s.values("family"), None), s.trusted))
    raises_kind(EP, lambda: build(s, resolve(s, s.values("execution"), s.trusted), None))


@pytest.mark.parametrize(
    "drift",
    ["catalog_without_descriptor", "other_implementation_fingerprint"],
)
def test_a_drifted_weight_witness_fails_before_any_contract_call(drift: str) -> None:
    s = setup("padded_dense")
    if drift == "catalog_without_descriptor":
        cat = catalog()
    else:
        cat = WeightMaterializerRegistry(
            [PaddedDenseMaterializer.with_implementation_fingerprint("6")]
        ).augment_catalog(catalog())
    planning = planning_registry(cat, 64, 32)
    raises_kind(
        EP,
        lambda: PlanNodeResolution.resolve(
            s.family,
            cat,
            policy(4096),
            planning.planning(),
            NodeId("node.main"),
            s.values("execution"),
            execution_weights=s.trusted,
        ),
    )
    assert planning.contract_calls == 0 and planning.estimator_calls == 0


def test_padded_dense_plan_static_bytes_are_the_identity_plan_plus_16() -> None:
    s = setup("padded_dense")
    plan = build(s, resolve(s, s.values("execution"), s.trusted), s.trusted)
    identity = identity_plan(s)
    assert identity.memory.static_bytes == 48
    assert plan.memory.static_bytes == identity.memory.static_bytes + 16 == 64
    (row,) = [a for a in plan.memory.static_allocations if a.resource_id.value == "resource.weight.0"]
    assert row.size_bytes == 32 and row.usage is BufferUsage.WEIGHTS
    payload = plan.payload.to_wire()
    assert payload["execution_weights"]["materializer_id"] == PADDED_DENSE_ID.value
    assert payload["execution_weights"]["schema"]["layout_id"] == "weight-layout.test.padded-dense"
    assert plan.trusted_execution_weights() == s.trusted


def test_derived_components_plan_binds_the_execution_components() -> None:
    s = setup("derived_components")
    plan = build(s, resolve(s, s.values("execution"), s.trusted), s.trusted)
    (weight,) = [b for b in plan.nodes[0].values if b.usage is BufferUsage.WEIGHTS]
    assert [c.component_id for c in weight.storage.components] == [
        WeightId("weight.execution.left"),
        WeightId("weight.execution.right"),
    ]
    assert [(c.offset_bytes, c.length_bytes) for c in weight.storage.components] == [(0, 8), (16, 8)]
    (row,) = [a for a in plan.memory.static_allocations if a.resource_id.value == "resource.weight.0"]
    assert row.size_bytes == 32  # the components' end (24) rounded to the alignment
    assert plan.memory.static_bytes == 64


def test_the_payload_weight_format_comes_from_the_execution_schema() -> None:
    s = setup("padded_dense")
    plan = build(s, resolve(s, s.values("execution"), s.trusted), s.trusted)
    schema = s.trusted.plan().schema()
    assert plan.payload.to_wire()["weight_format"] == schema.format_id.value
    assert plan.payload.to_wire()["quantization_formats"] == sorted(f.value for f in schema.quantization_formats())
