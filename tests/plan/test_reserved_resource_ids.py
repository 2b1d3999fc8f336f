"""Caller resource ids that look derived (01 §1.5 UNRESOLVED 6; decision D-05P-13).

No prefix is reserved: a caller may bind values on ``resource/<kind>/sha256/<hex>`` ids
(the seed estimator even reacts to ``resource/weight-arena/...``). A collision with a
core-derived row is refused by the memory plan's one-row-per-id rule.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import TensorAccess
from reference.ids import NodeId
from reference.model.element import ElementType
from reference.plan import build_execution_plan
from reference.resolution.usage import BufferUsage
from seeds.catalogs import catalog
from seeds.policies import policy
from seeds.resolution import (
    binding,
    planning_registry,
    schema_weight_binding,
    sequential_planning_registry,
    sequential_resolved_values,
)
from tests.plan.helpers import family, raises_kind, resolve, sequential_family

DERIVED_KINDS = ("weight-arena", "weight-probe", "state", "activation", "scratch", "persistent", "binding")
derived_ids = st.builds(
    lambda kind, digest: f"resource/{kind}/sha256/{digest}",
    st.sampled_from(DERIVED_KINDS),
    st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
)


@given(st.lists(derived_ids, min_size=4, max_size=4, unique=True))
def test_caller_ids_with_derived_prefixes_are_accepted(resources: list[str]) -> None:
    inp, out, read = ResolvedValueRole.INPUT, ResolvedValueRole.OUTPUT, TensorAccess.READ
    values = [
        binding("value.input", inp, 0, ElementType.F32, read, BufferUsage.ACTIVATIONS, resources[0]),
        schema_weight_binding(family().weight_schema, resources[1]),
        binding("value.state", inp, 2, ElementType.U8, read, BufferUsage.STATE, resources[2]),
        binding("value.output", out, 0, ElementType.F32, TensorAccess.WRITE, BufferUsage.ACTIVATIONS, resources[3]),
    ]
    cat = catalog()
    resolution = resolve(family(), cat, policy(4096), planning_registry(cat, 64, 32), "node.main", values)
    plan = build_execution_plan(family(), cat, policy(4096), [resolution])
    bound = {c.resource_id.value for b in plan.nodes[0].values for c in b.storage.components}
    assert bound == set(resources)


def test_a_binding_on_another_nodes_workspace_id_is_rejected() -> None:
    cat = catalog()
    registry = sequential_planning_registry(cat)
    first = resolve(
        sequential_family(),
        cat,
        policy(4096),
        registry,
        "node.first",
        sequential_resolved_values(
            "value.input", "resource.sequential.input", "value.intermediate", "resource.sequential.intermediate"
        ),
    )
    (candidate,) = first.provider_resource_candidates()
    scratch = candidate.workspace_resource_id(NodeId("node.first"), "scratch")
    assert scratch.value.startswith("resource/scratch/sha256/")
    second = resolve(
        sequential_family(),
        cat,
        policy(4096),
        registry,
        "node.second",
        sequential_resolved_values(
            "value.intermediate", "resource.sequential.intermediate", "value.output", scratch.value
        ),
    )
    error = raises_kind(
        "invalid_execution_plan", lambda: build_execution_plan(sequential_family(), cat, policy(4096), [first, second])
    )
    assert "not canonical" in error.to_dict()["reason"]
