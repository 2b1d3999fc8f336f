"""Shared builders for the execution-plan tests (seed 000 shapes)."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from reference.canonical import canonical_bytes
from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import AliasPolicy, NoAlias, TensorAccess
from reference.errors import VNextError
from reference.ids import NodeId, ProgramValueId, ProviderId, ResourceId, WeightId
from reference.model.element import ElementType
from reference.model.prepared import PreparedModelFamily
from reference.model.registration import TypedFamilyRegistration
from reference.plan import ExecutionPlan, build_execution_plan
from reference.policy.runtime_policy import RuntimePolicy
from reference.resolution import (
    PlanNodeResolution,
    ResolvedStorageComponent,
    ResolvedTensorSpec,
    ResolvedValueBinding,
    ResolvedValueStorage,
    ResolvedWeightBinding,
)
from reference.resolution.usage import BufferUsage
from seeds.catalogs import catalog, graph_catalog
from seeds.families import GraphFamily, SequentialScratchFamily, TestRegistry
from seeds.policies import policy
from seeds.resolution import TestPlanningRegistry, planning_registry, resolved_values


def raises_kind(kind: str, fn: Callable[[], Any]) -> VNextError:
    """Run ``fn`` and assert it raises the contract error ``kind``."""
    with pytest.raises(VNextError) as info:
        fn()
    assert info.value.kind == kind, info.value
    return info.value


@functools.cache
def family() -> PreparedModelFamily:
    return TestRegistry().prepare()


def resolve(
    fam: PreparedModelFamily,
    cat: CapabilityCatalog,
    pol: RuntimePolicy,
    planning: TestPlanningRegistry,
    node_id: str,
    values: Sequence[ResolvedValueBinding],
    preferred: str | None = None,
) -> PlanNodeResolution:
    return PlanNodeResolution.resolve(
        fam,
        cat,
        pol,
        planning.planning(),
        NodeId(node_id),
        list(values),
        (),
        None if preferred is None else ProviderId(preferred),
    )


def plan_fixture(
    variant: int = 0, pol: RuntimePolicy | None = None, cat: CapabilityCatalog | None = None
) -> ExecutionPlan:
    """Seed ``plan_fixture(v)`` (optionally with another policy or catalog)."""
    fam, cat = family(), cat or catalog()
    pol = pol or policy(4096)
    planning = planning_registry(cat, 64, 32)
    resolution = resolve(fam, cat, pol, planning, "node.main", resolved_values(variant))
    return build_execution_plan(fam, cat, pol, [resolution])


def rehash_plan_json(value: dict[str, Any]) -> None:
    """Seed ``rehash_plan_json``: drop plan_id, hash the canonical payload, write back id and hash."""
    payload = value["payload"]
    payload.pop("plan_id")
    digest = hashlib.sha256(canonical_bytes(payload)).hexdigest()
    payload["plan_id"] = f"plan/sha256/{digest}"
    value["plan_hash"] = digest


def wire(plan: ExecutionPlan) -> dict[str, Any]:
    value = json.loads(plan.to_json())
    assert isinstance(value, dict)
    return value


# --------------------------------------------------------------------------- SequentialScratchFamily


@functools.cache
def sequential_family() -> PreparedModelFamily:
    return TypedFamilyRegistration(SequentialScratchFamily()).prepare_with_profile({"width": 4}, "fixture.f32")


# --------------------------------------------------------------------------- GraphFamily


def graph_family(scenario: str) -> PreparedModelFamily:
    return TypedFamilyRegistration(GraphFamily()).prepare_with_profile({"scenario": scenario}, "fixture.f32")


def _f32() -> ResolvedTensorSpec:
    return ResolvedTensorSpec((4,), ElementType.F32)


def single(resource: str, offset: int = 0) -> ResolvedValueStorage:
    return ResolvedValueStorage.single(ResourceId(resource), offset, 16, ElementType.F32)


def graph_binding(
    value: str,
    role: ResolvedValueRole,
    ordinal: int,
    access: TensorAccess,
    storage: ResolvedValueStorage,
    usage: BufferUsage = BufferUsage.ACTIVATIONS,
    alias: AliasPolicy | None = None,
) -> ResolvedValueBinding:
    return ResolvedValueBinding(
        ProgramValueId(value), role, ordinal, _f32(), access, alias or NoAlias(), usage, None, storage
    )


def graph_weight(fam: PreparedModelFamily, ordinal: int) -> ResolvedValueBinding:
    storage = ResolvedValueStorage.composite(
        [
            ResolvedStorageComponent(
                WeightId("weight.component"), ResourceId("resource.graph.weight"), 0, 16, ElementType.F32
            )
        ]
    )
    return ResolvedValueBinding(
        ProgramValueId("value.weight"),
        ResolvedValueRole.INPUT,
        ordinal,
        _f32(),
        TensorAccess.READ,
        NoAlias(),
        BufferUsage.WEIGHTS,
        ResolvedWeightBinding.from_schema(fam.weight_schema, WeightId("weight.matrix")),
        storage,
    )


def graph_node_values(
    fam: PreparedModelFamily,
    node_id: str,
    output_storage: ResolvedValueStorage | None = None,
    alias: AliasPolicy | None = None,
) -> list[ResolvedValueBinding]:
    """Bindings of one GraphFamily node in program order (state first for state operations)."""
    node = fam.program.node(NodeId(node_id))
    assert node is not None
    values: list[ResolvedValueBinding] = []
    inp = ResolvedValueRole.INPUT
    for ordinal, value_id in enumerate(node.inputs):
        name = value_id.value
        if name == "value.weight":
            values.append(graph_weight(fam, ordinal))
        elif name == "value.state":
            access = TensorAccess.READ_WRITE if "state-rw" in node.operation_id.value else TensorAccess.READ
            values.append(graph_binding(name, inp, ordinal, access, single("resource.graph.state"), BufferUsage.STATE))
        elif name.startswith("value.input."):
            values.append(graph_binding(name, inp, ordinal, TensorAccess.READ, single(f"resource.graph.{name[6:]}")))
        else:
            values.append(graph_binding(name, inp, ordinal, TensorAccess.READ, single(f"resource.graph.{name[6:]}")))
    output = node.outputs[0].value
    storage = output_storage or single(f"resource.graph.{output[6:]}")
    values.append(graph_binding(output, ResolvedValueRole.OUTPUT, 0, TensorAccess.WRITE, storage, alias=alias))
    return values


def graph_plan(
    scenario: str,
    alias: AliasPolicy | None = None,
    alias_storage: ResolvedValueStorage | None = None,
    pol: RuntimePolicy | None = None,
) -> ExecutionPlan:
    """Build a GraphFamily scenario; ``alias`` / ``alias_storage`` configure ``node.alias``'s output."""
    fam = graph_family(scenario)
    alias_policy = alias or NoAlias()
    cat = graph_catalog(alias_policy)
    pol = pol or policy(16384)
    planning = planning_registry(cat, 64, 32)
    resolutions = []
    for node in fam.program.nodes():
        is_alias = node.id.value == "node.alias"
        values = graph_node_values(
            fam,
            node.id.value,
            alias_storage if is_alias else None,
            alias_policy if is_alias else None,
        )
        resolutions.append(resolve(fam, cat, pol, planning, node.id.value, values))
    return build_execution_plan(fam, cat, pol, resolutions)
