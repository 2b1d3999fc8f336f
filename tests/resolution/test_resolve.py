"""``PlanNodeResolution.resolve`` (spec 04 §9-§10): seed behaviours, call counts, faults, preferences."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference.catalog import (
    CapabilityCatalog,
    OperationDescriptor,
    OperationProviderDescriptor,
    ProviderExecutionSemantics,
)
from reference.catalog.registry import OperationRuntimeRegistry
from reference.documents.estimators import EstimateBehavior, behavior_estimate
from reference.documents.registry import DeclaredOperationContract
from reference.ids import CapabilityId, NodeId, ProviderId, ResourceId, WeightId
from reference.model.element import ElementType
from reference.model.registration import TypedFamilyRegistration
from reference.resolution import (
    OperationResourceEstimate,
    OperationResourceEstimateRequest,
    PlanNodeResolution,
    PlanProviderRejectReason,
    ProviderResourcePlan,
    ProviderWorkspaceRequirement,
    ResolvedStorageComponent,
    ResolvedValueBinding,
    ResolvedValueStorage,
    resolution_input_fingerprint,
    validate_provider_resolution,
    workspace_base_id,
)
from reference.versions import ContractVersion
from seeds.catalogs import (
    catalog_with_memory_and_execution_semantics,
    catalog_with_secondary_provider,
    catalog_with_secondary_provider_storage,
    contiguous_storage_requirement,
    graph_catalog,
    operation,
    paged_storage_requirement,
    planning_document,
    sha,
)
from seeds.estimators import CallCounter, ReferenceEstimator
from seeds.families import FIXTURE_PROFILE, SequentialScratchFamily
from seeds.policies import adversarial_policy
from seeds.resolution import (
    TestPlanningRegistry,
    planning_entries,
    planning_registry,
    resolved_values,
    sequential_planning_registry,
    sequential_resolved_values,
    try_node_resolution,
)
from tests.resolution.helpers import family, raises_kind, seed_catalog, seed_policy

EP = "invalid_execution_plan"
REFERENCE = ProviderId("provider.operation.reference")
SECONDARY = ProviderId("provider.operation.secondary")


def resolve(
    planning: TestPlanningRegistry,
    *,
    catalog=None,  # type: ignore[no-untyped-def]
    policy=None,  # type: ignore[no-untyped-def]
    variant: int = 0,
    preferred: str | None = None,
) -> PlanNodeResolution:
    return try_node_resolution(
        family(), catalog or seed_catalog(), policy or seed_policy(), variant, planning, preferred
    )


def counts(planning: TestPlanningRegistry) -> tuple[int, int]:
    return (planning.contract_calls, planning.estimator_calls)


# --------------------------------------------------------------------------- seed behaviours


def test_plan_fixture_resolution() -> None:
    planning = planning_registry(seed_catalog(), 64, 32)
    resolution = resolve(planning)
    assert counts(planning) == (1, 1)
    (plan,) = resolution.provider_resource_candidates()
    assert plan.provider_id == REFERENCE and plan.value_alignment_bytes == 16
    assert plan.scratch is not None and plan.scratch.minimum_bytes() == 64
    assert plan.persistent is not None and plan.persistent.minimum_bytes() == 32
    assert plan.binding is None
    assert resolution.provider_resolution_rejections() == {}
    assert resolution.node_id() == NodeId("node.main") and resolution.preferred_provider() is None
    assert resolution.required_capabilities() == frozenset()
    assert resolution.registry_authority() == planning.registry.authority
    schemas.validate("resolution/node_resolution_evidence.json", resolution.evidence_wire())


@pytest.mark.parametrize(
    "behavior",
    [
        EstimateBehavior.WRONG_ESTIMATOR_ID,
        EstimateBehavior.WRONG_ESTIMATOR_VERSION,
        EstimateBehavior.WRONG_IMPLEMENTATION,
        EstimateBehavior.WRONG_INPUT,
        EstimateBehavior.INVALID_ALIGNMENT,
        EstimateBehavior.MISSING_SCRATCH,
    ],
)
def test_bad_estimates_abort_after_one_estimate(behavior: EstimateBehavior) -> None:
    planning = planning_registry(seed_catalog(), 64, 32, behavior)
    raises_kind(EP, lambda: resolve(planning))
    assert counts(planning) == (1, 1)


def test_bad_estimate_aborts_even_with_a_good_second_provider() -> None:
    catalog = catalog_with_secondary_provider()
    entries = planning_entries(catalog, 64, 32)
    first = entries.estimators[0]
    assert isinstance(first, ReferenceEstimator)
    entries.estimators[0] = dataclasses.replace(first, behavior=EstimateBehavior.WRONG_INPUT)
    planning = entries.build()
    raises_kind(EP, lambda: resolve(planning, catalog=catalog))
    assert counts(planning) == (1, 1)


def test_correct_and_arena_alignment_identical_on_seed_ids() -> None:
    correct = resolve(planning_registry(seed_catalog(), 64, 32, "correct"))
    arena = resolve(planning_registry(seed_catalog(), 64, 32, "arena_alignment64"))
    assert correct.provider_resource_candidates() == arena.provider_resource_candidates()


def _arena_values(alignment_offset: int = 0) -> list[ResolvedValueBinding]:
    values = resolved_values(0)
    weight = values[1]
    arena = ResourceId("resource/weight-arena/sha256/" + "ab" * 32)
    storage = ResolvedValueStorage.composite(
        [ResolvedStorageComponent(WeightId("weight.component"), arena, alignment_offset, 16, ElementType.F32)]
    )
    values[1] = dataclasses.replace(weight, storage=storage)
    return values


def test_arena_alignment64_with_arena_ids() -> None:
    def run(behavior: str) -> ProviderResourcePlan:
        planning = planning_registry(seed_catalog(), 64, 32, behavior)
        resolution = try_node_resolution(family(), seed_catalog(), seed_policy(), 0, planning, values=_arena_values())
        return resolution.provider_resource_candidates()[0]

    arena, correct = run("arena_alignment64"), run("correct")
    assert arena.value_alignment_bytes == 64 and correct.value_alignment_bytes == 16
    assert arena.estimate_fingerprint != correct.estimate_fingerprint
    assert arena.estimator_input_fingerprint == correct.estimator_input_fingerprint


def test_token_scaled_scratch() -> None:
    plan = resolve(planning_registry(seed_catalog(), 7, 32, "token_scaled_scratch")).provider_resource_candidates()[0]
    assert plan.scratch is not None
    assert plan.scratch.size_formula.to_wire() == {"tokens": {"bytes_per_token": 7}}
    assert plan.scratch.minimum_bytes() == 16


# --------------------------------------------------------------------------- policy and registry faults


@pytest.mark.parametrize("policy_args", [(0, 4096), (3, 0)])
def test_zero_limit_policies_call_nothing(policy_args: tuple[int, int]) -> None:
    planning = planning_registry(seed_catalog())
    raises_kind(EP, lambda: resolve(planning, policy=adversarial_policy(*policy_args)))
    assert counts(planning) == (0, 0)


def test_empty_profile_order_has_no_candidates() -> None:
    planning = planning_registry(seed_catalog())
    raises_kind(EP, lambda: resolve(planning, policy=adversarial_policy(3, 4096, ())))
    assert counts(planning) == (1, 0)


def test_adversarial_policy_resolves_like_the_resolved_policy() -> None:
    a = resolve(planning_registry(seed_catalog()), policy=adversarial_policy())
    b = resolve(planning_registry(seed_catalog()))
    assert a.provider_resource_candidates() == b.provider_resource_candidates()


def test_rejected_signature() -> None:
    entries = planning_entries(seed_catalog())
    entries.contracts[0] = DeclaredOperationContract(operation(), reject_signature=True)
    planning = entries.build()
    raises_kind(EP, lambda: resolve(planning))
    assert counts(planning) == (1, 0)


@pytest.mark.parametrize(
    "change",
    [
        {"resource_estimator_id": "resource-estimator.other"},
        {"resource_estimator_implementation_fingerprint": sha("9")},
        {"provider_implementation_fingerprint": sha("9")},
        {"resource_estimator_version": ContractVersion(1, 1)},
    ],
)
def test_estimator_registration_mismatch(change: dict[str, object]) -> None:
    entries = planning_entries(seed_catalog())
    first = entries.estimators[0]
    assert isinstance(first, ReferenceEstimator)
    entries.estimators[0] = dataclasses.replace(first, provider=dataclasses.replace(first.provider, **change))  # type: ignore[arg-type]
    planning = entries.build()
    raises_kind(EP, lambda: resolve(planning))
    assert counts(planning) == (1, 0)


def test_unregistered_compatible_provider_aborts() -> None:
    catalog = catalog_with_secondary_provider()
    entries = planning_entries(catalog)
    entries.estimators = [e for e in entries.estimators if e.descriptor().provider_id != SECONDARY]
    planning = entries.build()
    raises_kind(EP, lambda: resolve(planning, catalog=catalog))
    assert counts(planning) == (1, 1)


def _catalog_with(op: OperationDescriptor, provider_version: ContractVersion) -> CapabilityCatalog:
    """The seed catalog around ``op`` with its provider row at ``provider_version``."""
    row = seed_catalog().providers_for(operation().id)[0]
    row = dataclasses.replace(row, operation_fingerprint=op.fingerprint(), version=provider_version)
    base = seed_catalog()
    return CapabilityCatalog(base.device, [op], {op.id: [row]}, list(base.engine_providers.values()))


def test_contract_missing_or_different() -> None:
    resources = dataclasses.replace(operation().resources, minimum_value_alignment_bytes=32)
    other = _catalog_with(dataclasses.replace(operation(), resources=resources), ContractVersion(1, 0))
    planning = planning_registry(other)
    raises_kind(EP, lambda: resolve(planning))
    assert counts(planning) == (0, 0)
    graph_planning = planning_registry(graph_catalog(_no_alias()))
    raises_kind(EP, lambda: resolve(graph_planning))
    assert counts(graph_planning) == (0, 0)


def _no_alias():  # type: ignore[no-untyped-def]
    from reference.catalog import NoAlias

    return NoAlias()


def test_unknown_operation_is_unsupported_for_the_node() -> None:
    graph = graph_catalog(_no_alias())
    error = raises_kind("unsupported_operation", lambda: resolve(planning_registry(graph), catalog=graph))
    assert error.to_dict()["node_id"] == "node.main"


def test_operation_version_mismatch_is_incompatible_version() -> None:
    two = ContractVersion(2, 0)
    newer = dataclasses.replace(operation(), version=two)
    newer = dataclasses.replace(newer, provider=dataclasses.replace(newer.provider, minimum_version=two))
    catalog = _catalog_with(newer, two)
    planning = planning_registry(catalog)
    error = raises_kind("incompatible_operation_version", lambda: resolve(planning, catalog=catalog))
    assert error.to_dict()["node_id"] == "node.main" and error.to_dict()["available_major"] == 2
    assert counts(planning) == (1, 0)


def test_missing_capability_and_determinism_are_unsupported() -> None:
    planning = planning_registry(seed_catalog())
    error = raises_kind(
        "unsupported_operation",
        lambda: PlanNodeResolution.resolve(
            family(),
            seed_catalog(),
            seed_policy(),
            planning.planning(),
            NodeId("node.main"),
            resolved_values(0),
            [CapabilityId("capability.extra")],
        ),
    )
    assert error.to_dict()["node_id"] == "node.main" and "missing_capabilities" in error.to_dict()["reason"]
    assert counts(planning) == (1, 0)
    eager = catalog_with_memory_and_execution_semantics(1 << 20, ProviderExecutionSemantics.bitwise_eager_only())
    error = raises_kind("unsupported_operation", lambda: resolve(planning_registry(eager), catalog=eager))
    assert "insufficient_execution_determinism" in error.to_dict()["reason"]


# --------------------------------------------------------------------------- inputs


def test_input_shape_rejections() -> None:
    planning = planning_registry(seed_catalog())
    handle = planning.planning()

    def run(node: str, values: list[ResolvedValueBinding]) -> Callable[[], object]:
        return lambda: PlanNodeResolution.resolve(family(), seed_catalog(), seed_policy(), handle, NodeId(node), values)

    raises_kind(EP, run("node.main", []))
    raises_kind(EP, run("node.missing", resolved_values(0)))
    assert counts(planning) == (0, 0)


@given(st.permutations(range(4)))
def test_permuted_values_are_rejected(order: list[int]) -> None:
    values = resolved_values(0)
    permuted = [values[i] for i in order]
    planning = planning_registry(seed_catalog())
    if order == [0, 1, 2, 3]:
        assert resolve(planning).provider_resource_candidates()
    else:
        raises_kind(
            EP, lambda: try_node_resolution(family(), seed_catalog(), seed_policy(), 0, planning, values=permuted)
        )


def test_semantic_binding_rejections() -> None:
    values = resolved_values(0)
    from reference.resolution import BufferUsage

    bad_state = dataclasses.replace(values[2], usage=BufferUsage.ACTIVATIONS)
    bad_input = dataclasses.replace(values[0], usage=BufferUsage.STATE)
    for index, replacement in ((2, bad_state), (0, bad_input)):
        changed = list(values)
        changed[index] = replacement
        planning = planning_registry(seed_catalog())
        run = functools.partial(
            try_node_resolution, family(), seed_catalog(), seed_policy(), 0, planning, values=changed
        )
        raises_kind(EP, run)
        assert counts(planning) == (1, 0)


# --------------------------------------------------------------------------- preference and storage


def test_preferred_provider_is_recorded_never_filters() -> None:
    plain = resolve(planning_registry(seed_catalog()))
    for preferred in ("provider.operation.unregistered", "provider.operation.reference"):
        preferred_resolution = resolve(planning_registry(seed_catalog()), preferred=preferred)
        assert preferred_resolution.preferred_provider() == ProviderId(preferred)
        assert preferred_resolution.provider_resource_candidates() == plain.provider_resource_candidates()


def test_secondary_catalog_has_two_ascending_candidates() -> None:
    catalog = catalog_with_secondary_provider()
    planning = planning_registry(catalog)
    resolution = resolve(planning, catalog=catalog, preferred="provider.operation.secondary")
    assert [c.provider_id for c in resolution.provider_resource_candidates()] == [REFERENCE, SECONDARY]
    assert counts(planning) == (1, 2)


def test_paged_reference_storage_is_rejected_for_resolution() -> None:
    catalog = catalog_with_secondary_provider_storage(paged_storage_requirement(4096), contiguous_storage_requirement())
    planning = planning_registry(catalog)
    resolution = resolve(planning, catalog=catalog, preferred="provider.operation.reference")
    assert [c.provider_id for c in resolution.provider_resource_candidates()] == [SECONDARY]
    rejection = resolution.provider_resolution_rejections()[REFERENCE]
    assert rejection.to_wire() == {
        "storage_incompatible": {"resource_ids": ["resource.input.0", "resource.output.0", "resource.state.0"]}
    }
    assert counts(planning) == (1, 1)
    schemas.validate("resolution/provider_reject_reason.json", rejection.to_wire())
    assert PlanProviderRejectReason.from_wire(rejection.to_wire()) == rejection


def test_all_storage_incompatible_fails() -> None:
    paged = paged_storage_requirement(4096)
    catalog = catalog_with_secondary_provider_storage(paged, paged)
    planning = planning_registry(catalog)
    raises_kind(EP, lambda: resolve(planning, catalog=catalog))
    assert counts(planning) == (1, 0)


@dataclasses.dataclass(eq=False)
class ScriptedEstimator:
    """A seed estimator whose answer is post-processed by ``edit``."""

    provider: OperationProviderDescriptor
    calls: CallCounter
    edit: Callable[[OperationResourceEstimate], OperationResourceEstimate]

    def descriptor(self) -> OperationProviderDescriptor:
        return self.provider

    def estimate_resources(self, request: OperationResourceEstimateRequest) -> OperationResourceEstimate:
        self.calls.bump()
        return self.edit(behavior_estimate(self.provider, request, 64, 32, EstimateBehavior.CORRECT))


def _scripted(catalog, edits: dict[ProviderId, Callable[[OperationResourceEstimate], OperationResourceEstimate]]):  # type: ignore[no-untyped-def]
    entries = planning_entries(catalog)
    entries.estimators = [
        ScriptedEstimator(e.descriptor(), entries.estimator_calls, edits.get(e.descriptor().provider_id, lambda x: x))
        for e in entries.estimators
    ]
    return entries.build()


def _paged_scratch(estimate: OperationResourceEstimate) -> OperationResourceEstimate:
    assert estimate.scratch is not None
    return dataclasses.replace(
        estimate, scratch=dataclasses.replace(estimate.scratch, storage=paged_storage_requirement(4096))
    )


def test_workspace_storage_conflict_rejects_with_workspace_ids() -> None:
    catalog = catalog_with_secondary_provider()
    planning = _scripted(catalog, {REFERENCE: _paged_scratch})
    resolution = resolve(planning, catalog=catalog)
    assert [c.provider_id for c in resolution.provider_resource_candidates()] == [SECONDARY]
    (rid,) = resolution.provider_resolution_rejections()[REFERENCE].resource_ids
    assert rid.value.startswith("resource/scratch/sha256/")
    assert counts(planning) == (1, 2)


@pytest.mark.parametrize(
    "edit",
    [
        lambda e: dataclasses.replace(e, value_alignment_bytes=8),
        lambda e: dataclasses.replace(e, value_alignment_bytes=1),
        lambda e: dataclasses.replace(e, persistent=None),
        lambda e: e.with_binding(
            ProviderWorkspaceRequirement.new(8, 16, e.scratch.scope, e.scratch.reuse_policy, e.scratch.storage)
        ),
        lambda e: dataclasses.replace(
            e, scratch=dataclasses.replace(e.scratch, reuse_policy=e.persistent.reuse_policy)
        ),
        lambda e: dataclasses.replace(e, persistent=dataclasses.replace(e.persistent, scope=e.scratch.scope)),
    ],
)
def test_resource_contract_violations_abort(
    edit: Callable[[OperationResourceEstimate], OperationResourceEstimate],
) -> None:
    planning = _scripted(seed_catalog(), {REFERENCE: edit})
    raises_kind(EP, lambda: resolve(planning))
    assert counts(planning) == (1, 1)


def test_alignment_above_minimum_is_accepted() -> None:
    planning = _scripted(seed_catalog(), {REFERENCE: lambda e: dataclasses.replace(e, value_alignment_bytes=256)})
    assert resolve(planning).provider_resource_candidates()[0].value_alignment_bytes == 256


def test_estimator_errors_propagate() -> None:
    planning = sequential_planning_registry(seed_catalog())
    raises_kind(EP, lambda: resolve(planning))


# --------------------------------------------------------------------------- fingerprints and determinism


def test_input_fingerprint_recomputation_and_sensitivity() -> None:
    catalog = catalog_with_secondary_provider()
    resolution = resolve(planning_registry(catalog), catalog=catalog)
    node = family().program.node(NodeId("node.main"))
    assert node is not None
    op = catalog.operation(node.operation_id)
    fps = set()
    for plan in resolution.provider_resource_candidates():
        again = resolution_input_fingerprint(family(), op, node, plan.provider_id, resolution.values(), ())
        assert again == plan.estimator_input_fingerprint
        fps.add(again)
    assert len(fps) == 2  # provider id is material
    base = resolution_input_fingerprint(family(), op, node, REFERENCE, resolved_values(0), ())
    assert base != resolution_input_fingerprint(family(), op, node, REFERENCE, resolved_values(1), ())
    assert base != resolution_input_fingerprint(
        family(), op, node, REFERENCE, resolved_values(0), [CapabilityId("capability.extra")]
    )
    assert base == resolution_input_fingerprint(
        family(), op, node, REFERENCE, resolved_values(0), [CapabilityId("capability.compute")]
    )


def test_resolve_is_deterministic() -> None:
    catalog = catalog_with_secondary_provider_storage(paged_storage_requirement(4096), contiguous_storage_requirement())
    a = resolve(planning_registry(catalog), catalog=catalog)
    b = resolve(planning_registry(catalog), catalog=catalog)
    assert a.evidence_wire() == b.evidence_wire()


def test_declared_estimators_from_documents_match_reference() -> None:
    for behavior in ("correct", "token_scaled_scratch", "arena_alignment64"):
        doc = planning_document(seed_catalog(), 64, 32, behavior)
        registry, contracts = doc.build(seed_catalog())
        planning = TestPlanningRegistry(registry, list(contracts), CallCounter())
        declared = resolve(planning)
        reference = resolve(planning_registry(seed_catalog(), 64, 32, behavior))
        assert declared.provider_resource_candidates() == reference.provider_resource_candidates()
    bad = planning_document(seed_catalog(), 64, 32, "missing_scratch")
    registry, contracts = bad.build(seed_catalog())
    raises_kind(EP, lambda: resolve(TestPlanningRegistry(registry, list(contracts), CallCounter())))
    (estimator,) = registry.estimators_for(REFERENCE)
    assert getattr(estimator, "calls", None) == 1


def test_sequential_scratch_nodes() -> None:
    seq_family = TypedFamilyRegistration(SequentialScratchFamily()).prepare_with_profile({"width": 4}, FIXTURE_PROFILE)
    planning = sequential_planning_registry(seed_catalog())
    scratch = {}
    for node, values in (
        ("node.first", sequential_resolved_values("value.input", "resource.in", "value.intermediate", "resource.mid")),
        (
            "node.second",
            sequential_resolved_values("value.intermediate", "resource.mid", "value.output", "resource.out"),
        ),
    ):
        resolution = PlanNodeResolution.resolve(
            seq_family, seed_catalog(), seed_policy(), planning.planning(), NodeId(node), values
        )
        plan = resolution.provider_resource_candidates()[0]
        assert plan.scratch is not None and plan.persistent is not None
        scratch[node] = plan.scratch.minimum_bytes()
        assert plan.persistent.minimum_bytes() == 32
        assert plan.workspace_resource_id(NodeId(node), "scratch") == workspace_base_id(
            NodeId(node), "scratch", plan.estimate_fingerprint
        )
    assert scratch == {"node.first": 64, "node.second": 96}
    assert planning.estimator_calls == 2


def test_provider_resolution_invariants() -> None:
    plan = resolve(planning_registry(seed_catalog())).provider_resource_candidates()[0]
    storage = PlanProviderRejectReason.storage_incompatible([ResourceId("resource.b"), ResourceId("resource.a")])
    assert [r.value for r in storage.resource_ids] == ["resource.a", "resource.b"]
    raises_kind(EP, lambda: validate_provider_resolution([], {}))
    raises_kind(EP, lambda: validate_provider_resolution([plan, plan], {}))
    raises_kind(EP, lambda: validate_provider_resolution([plan], {REFERENCE: storage}))
    raises_kind(
        EP, lambda: validate_provider_resolution([plan], {SECONDARY: PlanProviderRejectReason.not_registered()})
    )
    raises_kind(
        EP, lambda: validate_provider_resolution([plan], {SECONDARY: PlanProviderRejectReason("storage_incompatible")})
    )
    raises_kind(EP, lambda: validate_provider_resolution([dataclasses.replace(plan, value_alignment_bytes=32)], {}))
    assert validate_provider_resolution([plan], {SECONDARY: storage}) == (plan,)
    assert OperationRuntimeRegistry  # registry type used by fixtures


def test_weight_binding_must_equal_the_schema_weight() -> None:
    from reference.ids import WeightLayoutId
    from reference.resolution import ResolvedWeightBinding

    values = resolved_values(0)
    weight = values[1].weight
    assert weight is not None
    other = ResolvedWeightBinding(
        weight.weight_id,
        weight.schema_format_id,
        WeightLayoutId("weight-layout.other"),
        weight.schema_version,
        weight.physical_layout,
        weight.components,
    )
    values[1] = dataclasses.replace(values[1], weight=other)
    planning = planning_registry(seed_catalog())
    run = functools.partial(try_node_resolution, family(), seed_catalog(), seed_policy(), 0, planning, values=values)
    raises_kind(EP, run)
    assert counts(planning) == (1, 0)
