"""``CapabilityCatalog::new`` registers exactly the identity materializer (05 U9; decision D-03-14)."""

from __future__ import annotations

from reference.catalog.tensor_contract import MustAlias
from reference.catalog.weight_materializer import IDENTITY_WEIGHT_MATERIALIZER_ID, WeightMaterializerDescriptor
from reference.ids import WeightMaterializerId
from reference.weights import TrustedExecutionWeightPlan
from seeds.catalogs import catalog, catalog_with_secondary_provider, graph_catalog
from seeds.weights import synthetic_family

IDENTITY_DESCRIPTOR_FP = "074500d1df7758b1e66cb360eb8c209524049c19d2d7e32a09eb4981be870304"


def test_new_catalog_holds_only_the_identity_materializer() -> None:
    identity = WeightMaterializerDescriptor.identity()
    assert identity.fingerprint() == IDENTITY_DESCRIPTOR_FP
    for cat in (catalog(), catalog_with_secondary_provider(), graph_catalog(MustAlias(0))):
        assert dict(cat.weight_materializers) == {WeightMaterializerId(IDENTITY_WEIGHT_MATERIALIZER_ID): identity}
    # which is what lets a plan's step 6 validate the identity witness against any new catalog
    TrustedExecutionWeightPlan.identity(synthetic_family()).validate_against_catalog(synthetic_family(), catalog())
