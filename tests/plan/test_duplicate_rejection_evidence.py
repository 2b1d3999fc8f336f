"""A storage-rejected preferred provider that the build finds incompatible (05 U8; decision D-05P-14).

Resolution records only ``storage_incompatible`` rejections. When the build's compatibility
report (recomputed against its catalog) also rejects that provider, the provider would carry
two pieces of rejection evidence: the build refuses it with ``invalid_execution_plan``.
"""

from __future__ import annotations

import copy

from reference.catalog.catalog import CapabilityCatalog
from reference.documents.catalog import catalog_from_document, catalog_to_document
from reference.ids import CapabilityId, NodeId, ProviderId
from reference.plan import build_execution_plan
from reference.resolution import PlanNodeResolution
from seeds.catalogs import (
    catalog_with_secondary_provider_storage,
    contiguous_storage_requirement,
    paged_storage_requirement,
)
from seeds.policies import policy
from seeds.resolution import planning_registry, resolved_values
from tests.plan.helpers import family, raises_kind

EXTRA = "capability.extra"
REFERENCE = "provider.operation.reference"


def _catalogs() -> tuple[CapabilityCatalog, CapabilityCatalog]:
    """(resolution catalog: both providers offer ``capability.extra``, build catalog: only the secondary)."""
    base = catalog_with_secondary_provider_storage(paged_storage_requirement(4096), contiguous_storage_requirement())
    document = catalog_to_document(base)
    document["device"]["capabilities"] = sorted([*document["device"]["capabilities"], EXTRA])
    for row in document["providers"]["operation.main"]:
        row["capabilities"] = sorted([*row["capabilities"], EXTRA])
    narrowed = copy.deepcopy(document)
    for row in narrowed["providers"]["operation.main"]:
        if row["provider_id"] == REFERENCE:
            row["capabilities"] = [c for c in row["capabilities"] if c != EXTRA]
    return catalog_from_document(document), catalog_from_document(narrowed)


def test_storage_rejected_preferred_that_became_incompatible_is_rejected() -> None:
    resolving, building = _catalogs()
    registry = planning_registry(resolving, 64, 32)
    resolution = PlanNodeResolution.resolve(
        family(),
        resolving,
        policy(4096),
        registry.planning(),
        NodeId("node.main"),
        resolved_values(0),
        [CapabilityId(EXTRA)],
        ProviderId(REFERENCE),
    )
    assert set(resolution.provider_resolution_rejections()) == {ProviderId(REFERENCE)}
    plan = build_execution_plan(family(), resolving, policy(4096), [resolution])
    assert plan.nodes[0].selection.to_wire()["selection_reason"] == "fallback_from_preferred"
    error = raises_kind(
        "invalid_execution_plan",
        lambda: build_execution_plan(family(), building, policy(4096), [resolution]),
    )
    assert "duplicate rejection evidence" in error.to_dict()["reason"]
