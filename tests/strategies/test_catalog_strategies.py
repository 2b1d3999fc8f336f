"""Catalog strategies: drawn catalogs and documents are accepted, permutations keep the fingerprint,
every adversarial catalog document is refused with exactly its kind."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from conformance.reach.attribution import error_rules
from reference.catalog.storage import DynamicStorageProfile, DynamicStorageRequirement
from reference.catalog.tensor_contract import TensorContract
from reference.documents.catalog import catalog_from_document
from reference.errors import Serialization
from strategies.catalog import (
    CatalogDraft,
    catalogs,
    operation_descriptors,
    permuted_catalog_documents,
    tensor_contracts,
)
from strategies.catalog_rejections import CATALOG_OPERATORS, catalog_rejections
from strategies.storage import invalid_profile_wires, storage_profiles, storage_requirements

from .helpers import assert_rejected


@given(tensor_contracts())
def test_tensor_contracts_are_valid_and_round_trip(contract: TensorContract) -> None:
    contract.validate("test")
    assert TensorContract.from_wire(contract.to_wire()) == contract


@given(operation_descriptors())
def test_operation_descriptors_validate(operation: object) -> None:
    from reference.catalog.operation import OperationDescriptor

    assert isinstance(operation, OperationDescriptor)
    operation.validate()
    assert OperationDescriptor.from_wire(operation.to_wire()) == operation


@given(storage_profiles(), storage_requirements())
def test_storage_values_round_trip(profile: DynamicStorageProfile, requirement: DynamicStorageRequirement) -> None:
    assert DynamicStorageProfile.from_wire(profile.to_wire()) == profile
    assert DynamicStorageRequirement.from_wire(requirement.to_wire()) == requirement


@given(invalid_profile_wires())
def test_invalid_profile_wires_are_refused(wire: dict[str, object]) -> None:
    with pytest.raises(Serialization):
        DynamicStorageProfile.from_wire(wire)


@given(catalogs())
def test_catalog_documents_build_the_drawn_catalog(draft: CatalogDraft) -> None:
    schemas.validate("catalog/catalog_document.json", draft.document)
    built = catalog_from_document(draft.document)
    assert built == draft.catalog
    assert built.fingerprint() == draft.catalog.fingerprint()


@given(data=st.data(), draft=catalogs())
def test_permuted_documents_keep_the_fingerprint(data: st.DataObject, draft: CatalogDraft) -> None:
    permuted = data.draw(permuted_catalog_documents(draft.document))
    assert catalog_from_document(permuted).fingerprint() == draft.catalog.fingerprint()


@pytest.mark.parametrize("operator", list(CATALOG_OPERATORS))
@given(data=st.data())
def test_each_catalog_operator_is_refused(operator: str, data: st.DataObject) -> None:
    """Every drawn document of the operator is refused with its kind, at a site implementing the operator's
    catalogue rule (the rule the rejection matrix credits its case with)."""
    rejection = data.draw(catalog_rejections(operators=(operator,)))
    assert rejection.operator == operator
    error = assert_rejected(rejection, catalog_from_document)
    rule = CATALOG_OPERATORS[operator]
    assert rule is None or rule in error_rules(error), (operator, rule, error_rules(error))
