"""Provider selection evidence and the joint provider/storage solver (spec 05 §6)."""

from __future__ import annotations

import itertools

import pytest

from reference.catalog.storage import DynamicStorageProfile
from reference.ids import NodeId, ProviderId, ResourceId
from reference.plan import ProviderSelection, ProviderSelectionReason, RejectedProvider, build_execution_plan
from reference.plan.solver import JointCandidate, solve, storage_incompatible_resource_ids
from reference.resolution.rejection import PlanProviderRejectReason
from seeds.catalogs import (
    catalog_with_secondary_provider,
    catalog_with_secondary_provider_storage,
    contiguous_storage_requirement,
    paged_storage_requirement,
)
from seeds.policies import policy
from seeds.resolution import planning_registry, resolved_values
from tests.plan.helpers import family, raises_kind, resolve

SECONDARY = "provider.operation.secondary"
REFERENCE = "provider.operation.reference"


def _build(cat: object, preferred: str | None) -> object:
    pol = policy(4096)
    planning = planning_registry(cat, 64, 32)  # type: ignore[arg-type]
    resolution = resolve(family(), cat, pol, planning, "node.main", resolved_values(0), preferred)  # type: ignore[arg-type]
    return build_execution_plan(family(), cat, pol, [resolution])  # type: ignore[arg-type]


def test_no_preference_selects_the_smallest_compatible_id() -> None:
    selection = _build(catalog_with_secondary_provider(), None).nodes[0].selection  # type: ignore[attr-defined]
    assert selection.selection_reason is ProviderSelectionReason.CANONICAL_COMPATIBLE
    assert selection.selected_provider.value == REFERENCE and selection.rejected_providers == ()


def test_preferred_compatible_provider_wins() -> None:
    selection = _build(catalog_with_secondary_provider(), SECONDARY).nodes[0].selection  # type: ignore[attr-defined]
    assert selection.to_wire() == {
        "requested_provider": SECONDARY,
        "selected_provider": SECONDARY,
        "selection_reason": "preferred_compatible",
        "rejected_providers": [],
    }


def test_preferred_storage_incompatible_falls_back_with_evidence() -> None:
    cat = catalog_with_secondary_provider_storage(paged_storage_requirement(4096), contiguous_storage_requirement())
    plan = _build(cat, REFERENCE)
    selection = plan.nodes[0].selection  # type: ignore[attr-defined]
    assert selection.to_wire() == {
        "requested_provider": REFERENCE,
        "selected_provider": SECONDARY,
        "selection_reason": "fallback_from_preferred",
        "rejected_providers": [
            {
                "provider_id": REFERENCE,
                "reasons": {
                    "storage_incompatible": {
                        "resource_ids": ["resource.input.0", "resource.output.0", "resource.state.0"]
                    }
                },
            }
        ],
    }
    assert plan.nodes[0].provider_resources.provider_id.value == SECONDARY  # type: ignore[attr-defined]


def test_unregistered_preferred_provider_is_not_registered_evidence() -> None:
    selection = _build(catalog_with_secondary_provider(), "provider.operation.missing").nodes[0].selection  # type: ignore[attr-defined]
    assert selection.selection_reason is ProviderSelectionReason.FALLBACK_FROM_PREFERRED
    assert selection.selected_provider.value == REFERENCE
    assert [r.to_wire() for r in selection.rejected_providers] == [
        {"provider_id": "provider.operation.missing", "reasons": "not_registered"}
    ]


def _selection(**changes: object) -> ProviderSelection:
    base: dict[str, object] = {
        "requested_provider": None,
        "selected_provider": ProviderId("provider.b"),
        "selection_reason": ProviderSelectionReason.CANONICAL_COMPATIBLE,
        "rejected_providers": (),
    }
    base.update(changes)
    return ProviderSelection(**base)  # type: ignore[arg-type]


def _rejected(name: str, reason: PlanProviderRejectReason | None = None) -> RejectedProvider:
    return RejectedProvider(ProviderId(name), reason or PlanProviderRejectReason.not_registered())


@pytest.mark.parametrize(
    "changes",
    [
        {"rejected_providers": (_rejected("provider.c"), _rejected("provider.a"))},
        {"rejected_providers": (_rejected("provider.b"),)},
        {"rejected_providers": (_rejected("provider.a", PlanProviderRejectReason("storage_incompatible")),)},
        {"selection_reason": ProviderSelectionReason.PREFERRED_COMPATIBLE},
        {"requested_provider": ProviderId("provider.b")},
        {
            "requested_provider": ProviderId("provider.a"),
            "selection_reason": ProviderSelectionReason.PREFERRED_COMPATIBLE,
        },
        {
            "requested_provider": ProviderId("provider.a"),
            "selection_reason": ProviderSelectionReason.FALLBACK_FROM_PREFERRED,
        },
        {
            "requested_provider": ProviderId("provider.b"),
            "selection_reason": ProviderSelectionReason.FALLBACK_FROM_PREFERRED,
            "rejected_providers": (_rejected("provider.b"),),
        },
    ],
)
def test_selection_evidence_rejections(changes: dict[str, object]) -> None:
    raises_kind("invalid_execution_plan", _selection(**changes).validate_evidence)


def test_selection_evidence_accepts_the_three_valid_shapes() -> None:
    _selection().validate_evidence()
    _selection(
        requested_provider=ProviderId("provider.b"), selection_reason=ProviderSelectionReason.PREFERRED_COMPATIBLE
    ).validate_evidence()
    _selection(
        requested_provider=ProviderId("provider.a"),
        selection_reason=ProviderSelectionReason.FALLBACK_FROM_PREFERRED,
        rejected_providers=(_rejected("provider.a"),),
    ).validate_evidence()


# --------------------------------------------------------------------------- solver

LINEAR = DynamicStorageProfile.linear_contiguous()
PAGED = DynamicStorageProfile.paged(4096)
ORDER = (LINEAR, PAGED)


def _plans() -> dict[str, object]:
    pol = policy(4096)
    cat = catalog_with_secondary_provider()
    planning = planning_registry(cat, 64, 32)
    resolution = resolve(family(), cat, pol, planning, "node.main", resolved_values(0))
    return {c.provider_id.value: c for c in resolution.provider_resource_candidates()}


PLANS = _plans()


def _candidate(
    provider: str, allowed: dict[str, frozenset[DynamicStorageProfile]], preferred: bool = False
) -> JointCandidate:
    return JointCandidate(PLANS[provider], {ResourceId(k): v for k, v in allowed.items()}, preferred)  # type: ignore[arg-type]


BOTH = frozenset(ORDER)


def test_solver_prefers_preferred_then_profile_rank_then_ids() -> None:
    nodes = [NodeId("node.a"), NodeId("node.b")]
    a = [_candidate(REFERENCE, {"r": BOTH}), _candidate(SECONDARY, {"r": frozenset({PAGED})})]
    b = [_candidate(REFERENCE, {"r": frozenset({PAGED})}), _candidate(SECONDARY, {"r": BOTH})]
    chosen, profiles = solve(nodes, [a, b], ORDER)
    assert [p.provider_id.value for p in chosen] == [REFERENCE, SECONDARY]
    assert profiles[ResourceId("r")] == LINEAR
    b_pref = [_candidate(REFERENCE, {"r": frozenset({PAGED})}, True), _candidate(SECONDARY, {"r": BOTH})]
    chosen, profiles = solve(nodes, [a, sorted(b_pref, key=lambda c: not c.is_preferred)], ORDER)
    assert [p.provider_id.value for p in chosen] == [REFERENCE, REFERENCE]
    assert profiles[ResourceId("r")] == PAGED


def test_solver_result_is_independent_of_candidate_input_order() -> None:
    nodes = [NodeId("node.a"), NodeId("node.b"), NodeId("node.c")]
    sets = [
        [_candidate(REFERENCE, {"r": BOTH, "s": BOTH}), _candidate(SECONDARY, {"r": frozenset({PAGED})})],
        [_candidate(REFERENCE, {"s": frozenset({PAGED})}), _candidate(SECONDARY, {"s": BOTH, "t": BOTH})],
        [_candidate(REFERENCE, {"u": BOTH}), _candidate(SECONDARY, {"u": frozenset({PAGED})})],
    ]
    expected = solve(nodes, sets, ORDER)
    for permutation in itertools.product(*(list(itertools.permutations(s)) for s in sets)):
        ordered = [sorted(p, key=lambda c: (not c.is_preferred, c.provider_id)) for p in permutation]
        assert solve(nodes, ordered, ORDER) == expected


def test_solver_rejections() -> None:
    nodes = [NodeId("node.a")]
    raises_kind("invalid_execution_plan", lambda: solve([], [], ORDER))
    raises_kind("invalid_execution_plan", lambda: solve(nodes, [[]], ORDER))
    raises_kind("invalid_execution_plan", lambda: solve(nodes, [[_candidate(REFERENCE, {"r": BOTH})]], ()))
    conflicting = [
        [_candidate(REFERENCE, {"r": frozenset({LINEAR})})],
        [_candidate(REFERENCE, {"r": frozenset({PAGED})})],
    ]
    raises_kind("invalid_execution_plan", lambda: solve(nodes * 2, conflicting, ORDER))


def test_storage_incompatible_ids_ignore_unselected_resources() -> None:
    candidate = _candidate(REFERENCE, {"r": frozenset({PAGED}), "s": BOTH, "z": frozenset({PAGED})})
    selected = {ResourceId("r"): LINEAR, ResourceId("s"): LINEAR}
    assert storage_incompatible_resource_ids(candidate, selected) == (ResourceId("r"),)
