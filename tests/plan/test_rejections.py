"""Every build-step rejection of spec 05 §2-§4 with its error kind."""

from __future__ import annotations

import pytest

from reference.catalog.storage import ResolvedValueRole
from reference.catalog.tensor_contract import TensorAccess
from reference.ids import ProgramValueId
from reference.model.element import ElementType
from reference.plan import CompletionRetentionSpec, PlanBuildRequest, build_execution_plan
from reference.plan.aliasing import validate_semantic_coverage
from reference.resolution.usage import BufferUsage
from reference.weights.trusted import TrustedExecutionWeightPlan
from seeds.catalogs import catalog, catalog_with_memory
from seeds.policies import adversarial_policy, policy
from seeds.resolution import binding, planning_registry, resolved_values, sequential_resolved_values
from tests.plan.helpers import family, graph_family, raises_kind, resolve, sequential_family

EP = "invalid_execution_plan"


def _fixture_resolution(pol: object = None, cat: object = None) -> object:
    cat = cat or catalog()
    pol = pol or policy(4096)
    return resolve(family(), cat, pol, planning_registry(cat), "node.main", resolved_values(0))  # type: ignore[arg-type]


def test_request_rejections() -> None:
    cat, pol = catalog(), policy(4096)
    raises_kind(EP, lambda: PlanBuildRequest.new(family(), cat, pol, []))
    request = PlanBuildRequest.new(family(), cat, pol, [_fixture_resolution()])  # type: ignore[list-item]
    raises_kind(EP, lambda: request.with_completion_retention(CompletionRetentionSpec.of(["value.input"])))
    other = TrustedExecutionWeightPlan.identity(graph_family("alias"))
    raises_kind(EP, lambda: request.with_execution_weights(other))


def test_zero_sequences_or_tokens_are_rejected() -> None:
    resolution = _fixture_resolution()
    for pol in (adversarial_policy(0, 4096), adversarial_policy(3, 0)):
        raises_kind(EP, lambda: build_execution_plan(family(), catalog(), pol, [resolution]))  # type: ignore[list-item]  # noqa: B023


def test_capacity_gate() -> None:
    resolution = _fixture_resolution()
    small = catalog_with_memory(1 << 19)
    raises_kind(EP, lambda: build_execution_plan(family(), small, adversarial_policy(), [resolution]))  # type: ignore[list-item]


def test_mixed_registry_authorities_are_rejected() -> None:
    cat, pol = catalog(), policy(4096)
    fam = sequential_family()
    first = resolve(
        fam, cat, pol, planning_registry(cat), "node.first",
        sequential_resolved_values("value.input", "resource.in", "value.intermediate", "resource.mid"),
    )  # fmt: skip
    second = resolve(
        fam, cat, pol, planning_registry(cat), "node.second",
        sequential_resolved_values("value.intermediate", "resource.mid", "value.output", "resource.out"),
    )  # fmt: skip
    raises_kind(EP, lambda: build_execution_plan(fam, cat, pol, [first, second]))


def _sequential(first_out: str, second_in: str, second_out: str = "resource.out") -> list[object]:
    cat, pol = catalog(), policy(4096)
    planning = planning_registry(cat)
    fam = sequential_family()
    return [
        resolve(fam, cat, pol, planning, "node.first",
                sequential_resolved_values("value.input", "resource.in", "value.intermediate", first_out)),
        resolve(fam, cat, pol, planning, "node.second",
                sequential_resolved_values("value.intermediate", second_in, "value.output", second_out)),
    ]  # fmt: skip


def test_sequential_builds_when_consistent() -> None:
    plan = build_execution_plan(
        sequential_family(), catalog(), policy(4096), _sequential("resource.mid", "resource.mid")
    )  # type: ignore[arg-type]
    assert [n.id.value for n in plan.nodes] == ["node.first", "node.second"]


def test_duplicate_missing_and_leftover_resolutions() -> None:
    cat, pol = catalog(), policy(4096)
    first, second = _sequential("resource.mid", "resource.mid")
    raises_kind(EP, lambda: build_execution_plan(sequential_family(), cat, pol, [first, first, second]))  # type: ignore[list-item]
    raises_kind(EP, lambda: build_execution_plan(sequential_family(), cat, pol, [first]))  # type: ignore[list-item]
    planning = planning_registry(cat)
    main = resolve(family(), cat, pol, planning, "node.main", resolved_values(0))
    stray = resolve(
        sequential_family(), cat, pol, planning, "node.first",
        sequential_resolved_values("value.input", "resource.in", "value.intermediate", "resource.mid"),
    )  # fmt: skip
    raises_kind(EP, lambda: build_execution_plan(family(), cat, pol, [main, stray]))


def test_cross_node_value_mismatch_is_rejected() -> None:
    resolutions = _sequential("resource.mid", "resource.elsewhere")
    raises_kind(EP, lambda: build_execution_plan(sequential_family(), catalog(), policy(4096), resolutions))  # type: ignore[arg-type]


def test_undeclared_overlap_between_values_is_rejected() -> None:
    resolutions = _sequential("resource.mid", "resource.mid", "resource.in")
    raises_kind(EP, lambda: build_execution_plan(sequential_family(), catalog(), policy(4096), resolutions))  # type: ignore[arg-type]


def test_minimum_runnable_over_usable_is_rejected() -> None:
    raises_kind(EP, lambda: build_execution_plan(family(), catalog(), policy(160), [_fixture_resolution(policy(160))]))  # type: ignore[list-item]


def test_semantic_coverage_lists_missing_values() -> None:
    program = family().program
    validate_semantic_coverage(
        program, [ProgramValueId(v) for v in ("value.input", "value.weight", "value.state", "value.output")]
    )
    error = raises_kind(EP, lambda: validate_semantic_coverage(program, [ProgramValueId("value.input")]))
    assert "value.output" in error.to_dict()["reason"]


def test_retained_completion_value_is_recorded() -> None:
    cat, pol = catalog(), policy(4096)
    plan = build_execution_plan(family(), cat, pol, [_fixture_resolution()], completion_retention=["value.output"])  # type: ignore[list-item]
    (retained,) = plan.payload.retained_completion_values
    assert retained.to_wire() == {
        "value_id": "value.output",
        "producer_node_id": "node.main",
        "output_ordinal": 0,
        "resource_id": "resource.output.0",
        "logical_offset_bytes": 0,
        "tensor": {"dimensions": [4], "element_type": "f32", "layout": "contiguous"},
    }
    assert plan.plan_hash != build_execution_plan(family(), cat, pol, [_fixture_resolution()]).plan_hash  # type: ignore[list-item]


def test_retained_value_overwritten_later_is_rejected() -> None:
    from reference.plan.retained import resolve_retained_values

    out = binding(
        "value.mid",
        ResolvedValueRole.OUTPUT,
        0,
        ElementType.F32,
        TensorAccess.WRITE,
        BufferUsage.ACTIVATIONS,
        "resource.r",
    )
    later = binding(
        "value.late",
        ResolvedValueRole.OUTPUT,
        0,
        ElementType.F32,
        TensorAccess.WRITE,
        BufferUsage.ACTIVATIONS,
        "resource.r",
    )
    from reference.ids import NodeId

    nodes = [(NodeId("node.a"), [out]), (NodeId("node.b"), [later])]
    raises_kind(EP, lambda: resolve_retained_values(nodes, [ProgramValueId("value.mid")]))
    (kept,) = resolve_retained_values(nodes[:1], [ProgramValueId("value.mid")])
    assert kept.resource_id.value == "resource.r"
    raises_kind(EP, lambda: resolve_retained_values(nodes, [ProgramValueId("value.absent")]))


def test_checkpoint_policy_is_recorded_without_growth() -> None:
    """D-05P-6: no authenticated checkpoint layout is derived, so no pool grows."""
    from reference.policy.enums import AttentionExecutionPolicy, ExecutionDeterminismRequirement
    from reference.policy.memory import CheckpointCapacityPolicy, RuntimeMemoryPolicy
    from reference.policy.resolved import ResolvedRuntimePolicy
    from reference.versions import ContractVersion

    base = policy(4096)
    memory_policy = RuntimeMemoryPolicy(
        4096, 128, 3, base.dynamic_storage_profile_order(), CheckpointCapacityPolicy(4096)
    )
    pol = ResolvedRuntimePolicy.new(
        "runtime-policy.test",
        ContractVersion(1, 0),
        base.scheduling(),
        memory_policy,
        base.admission(),
        AttentionExecutionPolicy.PORTABLE,
        ExecutionDeterminismRequirement.BITWISE_SAME_RUNTIME_WITH_REPLAY,
        None,
    )
    plan = build_execution_plan(family(), catalog(), pol, [_fixture_resolution(pol)])  # type: ignore[list-item]
    memory = plan.memory
    assert memory.checkpoint_capacity == CheckpointCapacityPolicy(4096)
    assert all(p.checkpoint_growth_ceiling_bytes == 0 for p in memory.dynamic_pools)
    assert plan.payload_wire()["memory"]["checkpoint_capacity"] == {"maximum_retained_bytes": 4096}


@pytest.mark.parametrize(
    ("behavior", "builds"),
    [
        ("correct", True),
        ("arena_alignment64", True),
        ("token_scaled_scratch", True),
        ("wrong_estimator_id", False),
        ("wrong_estimator_version", False),
        ("wrong_implementation", False),
        ("wrong_input", False),
        ("invalid_alignment", False),
        ("missing_scratch", False),
    ],
)
def test_every_estimate_behavior_through_the_build(behavior: str, builds: bool) -> None:
    cat, pol = catalog(), policy(4096)

    def run() -> object:
        planning = planning_registry(cat, 64, 32, behavior)
        resolution = resolve(family(), cat, pol, planning, "node.main", resolved_values(0))
        return build_execution_plan(family(), cat, pol, [resolution])

    if builds:
        assert run() is not None
    else:
        raises_kind(EP, run)


@pytest.mark.parametrize(("scratch", "persistent"), [(2**64 - 1, 32), (64, 2**64 - 1), (2**63, 2**63)])
def test_u64_overflow_edges_are_typed(scratch: int, persistent: int) -> None:
    cat, pol = catalog(), policy(4096)

    def run() -> object:
        planning = planning_registry(cat, scratch, persistent)
        resolution = resolve(family(), cat, pol, planning, "node.main", resolved_values(0))
        return build_execution_plan(family(), cat, pol, [resolution])

    raises_kind(EP, run)
