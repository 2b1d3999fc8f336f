"""Estimates and provider resource plans (spec 04 §8): identity checks, slot rules, fingerprints."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

import schemas
from reference.canonical import fingerprint
from reference.catalog import DynamicStorageRequirement, OperationProviderDescriptor
from reference.errors import Serialization
from reference.ids import NodeId
from reference.plan.memory import bind_runtime_limits
from reference.recomputation import computed_directly
from reference.resolution import (
    OperationResourceEstimate,
    ProviderResourcePlan,
    ProviderWorkspaceRequirement,
    ProviderWorkspaceReusePolicy,
    ProviderWorkspaceScope,
    ProviderWorkspaceSizeFormula,
    workspace_base_id,
)
from reference.versions import ContractVersion
from seeds.catalogs import sha
from seeds.resolution import planning_registry, resolved_values, try_node_resolution
from tests.resolution.helpers import family, raises_kind, seed_catalog, seed_policy

EP = "invalid_execution_plan"
S = ProviderWorkspaceScope
P = ProviderWorkspaceReusePolicy
CONTIGUOUS = DynamicStorageRequirement.contiguous()
INPUT = "a" * 64


def descriptor() -> OperationProviderDescriptor:
    """The seed's ``provider.operation.reference`` row."""
    return next(iter(seed_catalog().providers.values()))[0]


def ws(scope: S, reuse: P, bytes_: int = 64) -> ProviderWorkspaceRequirement:
    return ProviderWorkspaceRequirement.new(bytes_, 16, scope, reuse, CONTIGUOUS)


def estimate(**changes: object) -> OperationResourceEstimate:
    base = OperationResourceEstimate(
        "resource-estimator.reference",
        ContractVersion(1, 0),
        sha("e"),
        INPUT,
        16,
        ws(S.INVOCATION, P.OVERWRITE_BEFORE_READ),
        ws(S.PLAN, P.PRESERVE, 32),
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_workspace_base_id_vector_and_recipe() -> None:
    got = workspace_base_id(NodeId("node.main"), "scratch", "e" * 64)
    assert got.value == "resource/scratch/sha256/ba55a0138e1fdb4f3858c72e05a7f8e1839fd54b45f2e09a610fca020b272b73"
    for kind in ("scratch", "binding", "persistent"):
        digest = hashlib.sha256(f"{kind}\x00node.x\x00{'f' * 64}".encode()).hexdigest()
        assert workspace_base_id(NodeId("node.x"), kind, "f" * 64).value == f"resource/{kind}/sha256/{digest}"
    raises_kind(EP, lambda: workspace_base_id(NodeId("node.x"), "scratch", "F" * 64))
    raises_kind(EP, lambda: workspace_base_id(NodeId("node.x"), "scratch", "f" * 63))
    raises_kind(EP, lambda: workspace_base_id(NodeId("node.x"), "weights", "f" * 64))


def test_from_provider_output_accepts_and_stamps() -> None:
    plan = ProviderResourcePlan.from_provider_output(descriptor(), INPUT, estimate())
    plan.validate_shape()
    material = {k: v for k, v in plan.to_wire().items() if k != "estimate_fingerprint"}
    assert plan.estimate_fingerprint == fingerprint(material)
    assert plan.binding is None and plan.to_wire()["binding"] is None
    assert ProviderResourcePlan.from_wire(plan.to_wire()) == plan
    schemas.validate("resolution/provider_resource_plan.json", plan.to_wire())


@pytest.mark.parametrize(
    "changes",
    [
        {"estimator_id": "resource-estimator.wrong"},
        {"estimator_version": ContractVersion(2, 0)},
        {"estimator_version": ContractVersion(1, 1)},
        {"estimator_implementation_fingerprint": sha("0")},
        {"claimed_input_fingerprint": sha("1")},
        {"value_alignment_bytes": 3},
        {"value_alignment_bytes": 0},
        {"scratch": ws(S.PLAN, P.PRESERVE)},
        {"scratch": ws(S.INVOCATION, P.PRESERVE)},
        {"scratch": ws(S.STEP, P.OVERWRITE_BEFORE_READ)},
        {"persistent": ws(S.INVOCATION, P.PRESERVE)},
        {"persistent": ws(S.PLAN, P.ZERO_BEFORE_USE)},
        {"binding": ws(S.INVOCATION, P.ZERO_BEFORE_USE)},
        {"binding": ws(S.SEQUENCE, P.OVERWRITE_BEFORE_READ)},
    ],
)
def test_from_provider_output_rejections(changes: dict[str, object]) -> None:
    raises_kind(EP, lambda: ProviderResourcePlan.from_provider_output(descriptor(), INPUT, estimate(**changes)))


def test_with_binding_and_optional_workspaces() -> None:
    binding = ProviderWorkspaceRequirement.from_formula(
        ProviderWorkspaceSizeFormula.tokens(4), 16, S.INVOCATION, P.OVERWRITE_BEFORE_READ, CONTIGUOUS
    )
    plan = ProviderResourcePlan.from_provider_output(descriptor(), INPUT, estimate().with_binding(binding))
    assert plan.binding == binding and [k for k, _ in plan.workspaces()] == ["scratch", "binding", "persistent"]
    bare = ProviderResourcePlan.from_provider_output(descriptor(), INPUT, estimate(scratch=None, persistent=None))
    assert bare.workspaces() == () and bare.estimate_fingerprint != plan.estimate_fingerprint


def test_any_field_change_breaks_validate_shape() -> None:
    plan = ProviderResourcePlan.from_provider_output(descriptor(), INPUT, estimate())
    changes = {
        "provider_id": type(plan.provider_id)("provider.operation.other"),
        "estimator_id": "resource-estimator.other",
        "estimator_version": ContractVersion(1, 1),
        "estimator_implementation_fingerprint": sha("9"),
        "estimator_input_fingerprint": sha("8"),
        "estimate_fingerprint": sha("7"),
        "value_alignment_bytes": 32,
        "scratch": ws(S.INVOCATION, P.OVERWRITE_BEFORE_READ, 128),
        "binding": ws(S.INVOCATION, P.OVERWRITE_BEFORE_READ),
        "persistent": None,
    }
    for name, value in changes.items():
        forged = dataclasses.replace(plan, **{name: value})
        raises_kind(EP, forged.validate_shape)
        with pytest.raises(Serialization):
            ProviderResourcePlan.from_wire(forged.to_wire())
    with pytest.raises(Serialization):
        ProviderResourcePlan.from_wire({**plan.to_wire(), "extra": 1})


def test_estimate_fingerprint_is_policy_independent() -> None:
    from seeds.policies import policy_with_tokens

    def plan_for(tokens: int) -> ProviderResourcePlan:
        reg = planning_registry(seed_catalog(), 7, 32, "token_scaled_scratch")
        resolution = try_node_resolution(family(), seed_catalog(), policy_with_tokens(4096, 128, 3, tokens), 0, reg)
        return resolution.provider_resource_candidates()[0]

    small, large = plan_for(32), plan_for(4096)
    assert small == large
    assert small.scratch is not None and small.scratch.minimum_bytes() == 16
    assert small.scratch.size_formula == ProviderWorkspaceSizeFormula.tokens(7)
    demand_small = bind_runtime_limits(small.scratch.size_formula.to_wire(), 3, 32)
    demand_large = bind_runtime_limits(small.scratch.size_formula.to_wire(), 3, 4096)
    assert demand_small != demand_large
    assert resolved_values(0) == list(
        try_node_resolution(family(), seed_catalog(), seed_policy(), 0, planning_registry(seed_catalog())).values()
    )


def test_a_valid_shape_is_remembered_by_identity_and_checked_afresh_when_computed_directly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = ProviderResourcePlan.from_provider_output(descriptor(), INPUT, estimate())
    recomputed: list[object] = []
    real = ProviderResourcePlan.compute_estimate_fingerprint

    def counted(self: ProviderResourcePlan) -> str:
        recomputed.append(self)
        return real(self)

    monkeypatch.setattr(ProviderResourcePlan, "compute_estimate_fingerprint", counted)
    plan.validate_shape()
    plan.validate_shape()
    assert recomputed == [plan]  # checked once, then remembered
    with computed_directly():
        plan.validate_shape()
    assert recomputed[-1] is plan
    equal = dataclasses.replace(plan)  # another object: checked on its own
    equal.validate_shape()
    assert recomputed[-1] is equal
    forged = dataclasses.replace(plan, estimate_fingerprint=sha("7"))
    for _ in range(2):  # a refusal is never remembered
        raises_kind(EP, forged.validate_shape)
