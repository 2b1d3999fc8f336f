"""Seed fixtures build and reproduce the spec 03 derived vectors exactly."""

from __future__ import annotations

import schemas
from reference.canonical import direct_bytes, fingerprint
from reference.catalog import (
    MayAlias,
    MustAlias,
    NoAlias,
    ProviderExecutionSemantics,
    ResolvedValueRole,
    WeightMaterializerDescriptor,
)
from reference.documents.catalog import catalog_to_document
from seeds.catalogs import (
    catalog,
    catalog_with_memory,
    catalog_with_memory_and_execution_semantics,
    catalog_with_secondary_provider,
    catalog_with_secondary_provider_storage,
    contiguous_storage_requirement,
    graph_catalog,
    operation,
    paged_storage_requirement,
)

OPERATION_BYTES = (
    b'{"id":"operation.main","version":{"major":1,"minor":0},"inputs":[{"dimensions":[{"exact":4}],"element_types":["f32"],'
    b'"layouts":["contiguous"],"access":"read","alias":"no_alias"},{"dimensions":[{"exact":4}],"element_types":["f32"],'
    b'"layouts":["contiguous"],"access":"read","alias":"no_alias"},{"dimensions":[{"exact":4}],"element_types":["u8"],'
    b'"layouts":["contiguous"],"access":"read","alias":"no_alias"}],"outputs":[{"dimensions":[{"exact":4}],'
    b'"element_types":["f32"],"layouts":["contiguous"],"access":"write","alias":"no_alias"}],"attributes":{"entries":{}},'
    b'"resources":{"minimum_value_alignment_bytes":16,"scratch":"required","binding":"forbidden","persistent":"required"},'
    b'"oracle":"exact","provider":{"minimum_version":{"major":1,"minor":0},"required_capabilities":["capability.compute"]},'
    b'"profile_phase":"decode"}'
)


def test_operation_bytes_and_fingerprint() -> None:
    assert direct_bytes(operation().to_wire()) == OPERATION_BYTES
    assert operation().fingerprint() == "bb37e50b2a8fd5346e6f32962c3753815c7beca8cbe6f20441b7ef2d58d9bdf2"


def test_catalog_fingerprint_vector() -> None:
    value = catalog()
    material = direct_bytes(value.to_wire())
    assert len(material) == 3174
    assert value.fingerprint() == "9354acce5aca132550d7808777b353a5ae1e4d208914c33fd1d3f1de328b193b"
    assert OPERATION_BYTES in material
    assert material.startswith(b'{"device":{"id":"device.reference.0","class":"reference","ordinal":0,')


def test_semantics_vectors() -> None:
    assert (
        ProviderExecutionSemantics.bitwise_eager_only().contract_fingerprint
        == "bd310dd799501048f0c7de845dd1d52750d76632c2a84e49d8857b89b09e1af4"
    )
    assert (
        ProviderExecutionSemantics.bitwise_eager_and_replay().contract_fingerprint
        == "c090a0186eb5c2db4101e7ceed1845a729cd2b84248622cdd65f8bde1b32b8bf"
    )


def test_identity_materializer_vectors() -> None:
    identity = WeightMaterializerDescriptor.identity()
    assert identity.implementation_fingerprint == fingerprint(
        {
            "id": "weight-materializer.identity",
            "version": {"major": 2, "minor": 0},
            "contract": "execution-weight-plan.identity.v2",
        }
    )
    assert identity.implementation_fingerprint == "8b4938b533e7cdc431f40951c3a532b4426cc526a65d22fdacfd0fe5bf02caae"
    assert identity.fingerprint() == "074500d1df7758b1e66cb360eb8c209524049c19d2d7e32a09eb4981be870304"


def test_seed_catalogs_build_and_validate_against_schema() -> None:
    built = [
        catalog(),
        catalog_with_memory(4096),
        catalog_with_memory_and_execution_semantics(1 << 20, ProviderExecutionSemantics.bitwise_eager_only()),
        catalog_with_secondary_provider(),
        catalog_with_secondary_provider_storage(contiguous_storage_requirement(), paged_storage_requirement(64)),
        catalog_with_secondary_provider_storage(paged_storage_requirement(16), contiguous_storage_requirement()),
        graph_catalog(NoAlias()),
        graph_catalog(MayAlias(0)),
        graph_catalog(MustAlias(0)),
    ]
    for value in built:
        schemas.validate("catalog/capability_catalog.json", value.to_wire())
        schemas.validate("catalog/catalog_document.json", catalog_to_document(value))
    assert len({value.fingerprint() for value in built}) == len(built)


def test_secondary_provider_fixture_shape() -> None:
    value = catalog_with_secondary_provider_storage(contiguous_storage_requirement(), paged_storage_requirement(64))
    reference, secondary = value.providers_for(operation().id)
    assert [p.provider_id.value for p in (reference, secondary)] == [
        "provider.operation.reference",
        "provider.operation.secondary",
    ]
    assert secondary.dynamic_storage_for(ResolvedValueRole.INPUT, 0) == paged_storage_requirement(64)
    assert reference.provider_implementation_fingerprint == "6" * 64
    assert secondary.resource_estimator_implementation_fingerprint == "f" * 64


def test_memory_and_semantics_are_hash_material() -> None:
    assert catalog_with_memory(1 << 20).fingerprint() == catalog().fingerprint()
    assert catalog_with_memory(1 << 21).fingerprint() != catalog().fingerprint()
    eager = catalog_with_memory_and_execution_semantics(1 << 20, ProviderExecutionSemantics.bitwise_eager_only())
    assert eager.fingerprint() != catalog().fingerprint()
