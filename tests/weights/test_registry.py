"""WeightMaterializerRegistry (05 §10.4) and the seed 002 selection tests."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.catalog.weight_materializer import WeightMaterializerDescriptor
from reference.ids import CapabilityId, WeightMaterializerId
from reference.versions import ContractVersion
from reference.weights import (
    IDENTITY_WEIGHT_MATERIALIZER_ID,
    MAX_NON_IDENTITY_WEIGHT_MATERIALIZERS,
    TrustedExecutionWeightPlan,
    WeightMaterializationFidelity,
    WeightMaterializerRegistry,
)
from seeds.weights import (
    COMPUTE,
    LOGICAL_MUTATION_ID,
    PADDED_DENSE_ID,
    PADDED_DENSE_LAYOUT_ID,
    LogicalMutationMaterializer,
    PaddedDenseMaterializer,
    descriptor,
)
from tests.weights.helpers import base_catalog, family, raises_kind, registry_and_catalog

IDENTITY = WeightMaterializerId(IDENTITY_WEIGHT_MATERIALIZER_ID)


def _numbered(count: int) -> list[PaddedDenseMaterializer]:
    return [PaddedDenseMaterializer(descriptor(f"weight-materializer.test.n{i}", "9")) for i in range(count)]


def test_identity_only_registry_holds_exactly_the_identity() -> None:
    registry = WeightMaterializerRegistry.identity_only()
    assert registry.ids() == (IDENTITY,)
    assert registry.descriptors() == {IDENTITY: WeightMaterializerDescriptor.identity()}
    # augmenting with identity only leaves the default catalog unchanged
    assert registry.augment_catalog(base_catalog()) == base_catalog()


def test_63_non_identity_entries_accepted_64_rejected() -> None:
    assert MAX_NON_IDENTITY_WEIGHT_MATERIALIZERS == 63
    registry = WeightMaterializerRegistry(_numbered(63))
    assert len(registry.descriptors()) == 64
    assert registry.ids()[0] == IDENTITY or IDENTITY in registry.ids()
    augmented = registry.augment_catalog(base_catalog())
    assert len(augmented.weight_materializers) == 64
    raises_kind("invalid_execution_plan", lambda: WeightMaterializerRegistry(_numbered(64)))


def test_length_is_checked_before_entries() -> None:
    """64 entries are refused even when every one of them is also invalid or duplicated."""
    bad = [
        PaddedDenseMaterializer(
            WeightMaterializerDescriptor(
                PADDED_DENSE_ID, ContractVersion(0, 0), "nope", WeightMaterializationFidelity.EXACT, frozenset()
            )
        )
    ] * 64
    error = raises_kind("invalid_execution_plan", lambda: WeightMaterializerRegistry(bad))
    assert "63" in error.to_dict()["reason"]


def test_duplicate_ids_rejected_including_the_identity_id() -> None:
    raises_kind(
        "invalid_execution_plan",
        lambda: WeightMaterializerRegistry(
            [PaddedDenseMaterializer(), PaddedDenseMaterializer.with_implementation_fingerprint("6")]
        ),
    )
    user_identity = PaddedDenseMaterializer(WeightMaterializerDescriptor.identity())
    raises_kind("invalid_execution_plan", lambda: WeightMaterializerRegistry([user_identity]))


def test_entries_are_structurally_validated() -> None:
    for version, fingerprint in (
        (ContractVersion(0, 1), "9" * 64),
        (ContractVersion(1, 0), "9" * 63),
        (ContractVersion(1, 0), "G" * 64),
    ):
        raw = WeightMaterializerDescriptor(
            PADDED_DENSE_ID, version, fingerprint, WeightMaterializationFidelity.EXACT, frozenset()
        )
        raises_kind(
            "invalid_execution_plan", lambda raw=raw: WeightMaterializerRegistry([PaddedDenseMaterializer(raw)])
        )
        raises_kind(
            "invalid_execution_plan",
            lambda raw=raw: WeightMaterializerDescriptor.new(
                raw.id, raw.version, raw.implementation_fingerprint, raw.fidelity, raw.required_capabilities
            ),
        )


@given(st.permutations(range(5)))
def test_descriptors_are_sorted_by_id_whatever_the_registration_order(order: list[int]) -> None:
    materializers = _numbered(5)
    registry = WeightMaterializerRegistry([materializers[i] for i in order])
    ids = list(registry.descriptors())
    assert ids == sorted(ids)
    assert (
        registry.augment_catalog(base_catalog()).fingerprint()
        == WeightMaterializerRegistry(materializers).augment_catalog(base_catalog()).fingerprint()
    )


def test_augment_catalog_changes_the_catalog_fingerprint_and_validates_capabilities() -> None:
    _, catalog = registry_and_catalog(PaddedDenseMaterializer())
    assert catalog.fingerprint() != base_catalog().fingerprint()
    assert catalog.weight_materializer(PADDED_DENSE_ID) == PaddedDenseMaterializer().descriptor()
    needy = PaddedDenseMaterializer(
        descriptor(PADDED_DENSE_ID, "9", capabilities=frozenset({COMPUTE, CapabilityId("capability.absent")}))
    )
    raises_kind("invalid_execution_plan", lambda: WeightMaterializerRegistry([needy]).augment_catalog(base_catalog()))


# --------------------------------------------------------------------------- select_exact


def test_select_identity_equals_the_identity_witness() -> None:
    registry = WeightMaterializerRegistry.identity_only()
    selected = registry.select_exact(family(), base_catalog(), IDENTITY)
    assert selected == TrustedExecutionWeightPlan.identity(family())
    assert selected.plan().schema() == family().weight_schema


def test_select_unregistered_id_rejected() -> None:
    registry, catalog = registry_and_catalog(PaddedDenseMaterializer())
    raises_kind(
        "invalid_execution_plan",
        lambda: registry.select_exact(family(), catalog, WeightMaterializerId("weight-materializer.none")),
    )


def test_select_requires_the_catalog_to_know_the_materializer() -> None:
    registry = WeightMaterializerRegistry([PaddedDenseMaterializer()])
    raises_kind("invalid_execution_plan", lambda: registry.select_exact(family(), base_catalog(), PADDED_DENSE_ID))


def test_select_rejects_a_catalog_descriptor_that_differs() -> None:
    registry = WeightMaterializerRegistry([PaddedDenseMaterializer()])
    for other in (
        PaddedDenseMaterializer.with_implementation_fingerprint("6"),
        PaddedDenseMaterializer(descriptor(PADDED_DENSE_ID, "9", capabilities=frozenset())),
        PaddedDenseMaterializer(descriptor(PADDED_DENSE_ID, "9", version=ContractVersion(1, 1))),
    ):
        catalog = WeightMaterializerRegistry([other]).augment_catalog(base_catalog())
        raises_kind(
            "invalid_execution_plan", lambda catalog=catalog: registry.select_exact(family(), catalog, PADDED_DENSE_ID)
        )


def test_select_rejects_approximate_fidelity_even_when_the_catalog_advertises_it() -> None:
    """Seed: approximate_materializer_is_not_authorized_by_capability_registration."""
    registry, catalog = registry_and_catalog(
        PaddedDenseMaterializer.with_fidelity("9", WeightMaterializationFidelity.APPROXIMATE)
    )
    advertised = catalog.weight_materializer(PADDED_DENSE_ID)
    assert advertised.fidelity is WeightMaterializationFidelity.APPROXIMATE
    assert advertised.to_wire()["fidelity"] == "approximate"
    error = raises_kind("invalid_execution_plan", lambda: registry.select_exact(family(), catalog, PADDED_DENSE_ID))
    assert "requires explicit numerical-quality approval" in error.to_dict()["reason"]


def test_select_rejects_missing_device_capabilities() -> None:
    """The catalog check would refuse such a map, so bypass it to reach the device check of select_exact."""
    needy = PaddedDenseMaterializer(
        descriptor(PADDED_DENSE_ID, "9", capabilities=frozenset({CapabilityId("capability.gpu")}))
    )
    registry = WeightMaterializerRegistry([needy])
    catalog = base_catalog()
    forged = object.__new__(type(catalog))
    for name in ("device", "operations", "providers", "engine_providers"):
        object.__setattr__(forged, name, getattr(catalog, name))
    object.__setattr__(
        forged, "weight_materializers", {**catalog.weight_materializers, PADDED_DENSE_ID: needy.descriptor()}
    )
    error = raises_kind("invalid_execution_plan", lambda: registry.select_exact(family(), forged, PADDED_DENSE_ID))
    assert "capabilities" in error.to_dict()["reason"]


def test_padded_dense_selection_changes_the_physical_schema_only() -> None:
    """Seed: trusted_materializer_changes_physical_plan_memory_and_wire_requires_its_witness (weight half)."""
    registry, catalog = registry_and_catalog(PaddedDenseMaterializer())
    trusted = registry.select_exact(family(), catalog, PADDED_DENSE_ID)
    plan = trusted.plan()
    assert plan.materializer_id() == PADDED_DENSE_ID
    assert plan.schema().layout_id == PADDED_DENSE_LAYOUT_ID
    assert plan.materializer_implementation_fingerprint() == "9" * 64
    assert plan.source_schema_fingerprint() == family().weight_schema.fingerprint()
    identity = TrustedExecutionWeightPlan.identity(family()).plan()
    extra = sum(c.physical_bytes() for c in plan.schema().components) - sum(
        c.physical_bytes() for c in identity.schema().components
    )
    assert extra == 16  # the seed's static_bytes + 16
    trusted.validate_against_catalog(family(), catalog)
    # the same witness against catalogs whose descriptor differs (fingerprint, capabilities, fidelity) is refused
    for other in (
        PaddedDenseMaterializer.with_implementation_fingerprint("6"),
        PaddedDenseMaterializer(descriptor(PADDED_DENSE_ID, "9", capabilities=frozenset())),
        PaddedDenseMaterializer.with_fidelity("9", WeightMaterializationFidelity.APPROXIMATE),
    ):
        mismatched = WeightMaterializerRegistry([other]).augment_catalog(base_catalog())
        raises_kind("invalid_execution_plan", lambda c=mismatched: trusted.validate_against_catalog(family(), c))
    # and against a catalog that does not know it at all
    raises_kind("invalid_execution_plan", lambda: trusted.validate_against_catalog(family(), base_catalog()))


def test_logical_mutation_is_refused_at_selection() -> None:
    """Seed: materializer_cannot_change_the_prepared_logical_weight_contract."""
    registry, catalog = registry_and_catalog(LogicalMutationMaterializer())
    error = raises_kind("invalid_execution_plan", lambda: registry.select_exact(family(), catalog, LOGICAL_MUTATION_ID))
    assert "changes the prepared family's logical tensor contract" in error.to_dict()["reason"]


def test_selection_normalizes_the_execution_schema() -> None:
    """A materializer returning components in reverse id order still yields the sorted schema."""
    from tests.weights.test_trusted import ReversingMaterializer

    registry, catalog = registry_and_catalog(ReversingMaterializer())
    from tests.weights.helpers import split

    trusted = registry.select_exact(split(), catalog, ReversingMaterializer.ID)
    ids = [c.id for c in trusted.plan().schema().components]
    assert ids == sorted(ids)
    assert trusted.plan().schema() == split().weight_schema
