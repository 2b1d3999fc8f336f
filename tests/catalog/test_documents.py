"""Declarative catalog and registry documents (schemas validate reference output; hostile documents rejected)."""

from __future__ import annotations

import copy

import pytest
from jsonschema import ValidationError

import schemas
from reference.catalog import NoAlias
from reference.catalog.operation import OperationDescriptor
from reference.documents.catalog import catalog_from_document, catalog_to_document
from reference.documents.registry import ESTIMATE_BEHAVIORS, RegistryDocument
from reference.errors import Serialization
from seeds.catalogs import catalog, catalog_with_secondary_provider, graph_catalog, planning_document

from .helpers import raises_kind


def test_catalog_document_round_trip() -> None:
    for value in (catalog(), catalog_with_secondary_provider(), graph_catalog(NoAlias())):
        doc = catalog_to_document(value)
        schemas.validate("catalog/catalog_document.json", doc)
        assert catalog_from_document(doc) == value
        del doc["weight_materializers"]
        assert catalog_from_document(doc).fingerprint() == value.fingerprint()


def test_document_keeps_contract_error_kinds() -> None:
    doc = catalog_to_document(catalog())
    dup = {**doc, "operations": doc["operations"] * 2}
    raises_kind("invalid_execution_plan", lambda: catalog_from_document(dup))
    with pytest.raises(ValidationError):
        schemas.validate("catalog/catalog_document.json", {**doc, "engine_providers": []})
    bad = copy.deepcopy(doc)
    bad["providers"]["operation.main"][0]["device_id"] = "device.other"
    raises_kind("unsupported_operation", lambda: catalog_from_document(bad))
    with pytest.raises(Serialization):
        catalog_from_document({**doc, "extra": 1})


def test_hostile_documents_are_refused_before_per_row_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A catalog over its row limit is refused at step d of 03 §11.2, before any operation is validated."""
    doc = catalog_to_document(catalog())
    op = doc["operations"][0]
    many = {**doc, "operations": [{**op, "id": f"operation.h{i:05d}"} for i in range(4097)]}
    many["providers"] = {o["id"]: doc["providers"]["operation.main"] for o in many["operations"]}
    validated: list[object] = []
    original = OperationDescriptor.validate
    monkeypatch.setattr(OperationDescriptor, "validate", lambda self: (validated.append(self), original(self))[1])
    error = raises_kind("invalid_execution_plan", lambda: catalog_from_document(many))
    assert "row limits" in error.reason and validated == []
    overflow = copy.deepcopy(doc)
    overflow["device"]["total_memory_bytes"] = 2**64
    with pytest.raises(Serialization):
        catalog_from_document(overflow)
    with pytest.raises(ValidationError):
        schemas.validate("catalog/catalog_document.json", overflow)


def test_registry_document_round_trip_and_schema() -> None:
    doc = planning_document(catalog(), 64, 32, "token_scaled_scratch")
    wire = doc.to_wire()
    schemas.validate("catalog/registry_document.json", wire)
    assert RegistryDocument.from_wire(wire) == doc
    assert doc.estimators[0].scratch_formula == "tokens"
    seq = {
        **wire,
        "estimators": [
            {
                **wire["estimators"][0],
                "behavior": "correct",
                "scratch_bytes_by_node": {"node.first": 64, "node.second": 96},
            }
        ],
    }
    schemas.validate("catalog/registry_document.json", seq)
    assert dict(RegistryDocument.from_wire(seq).estimators[0].scratch_bytes_by_node) != {}
    assert len(ESTIMATE_BEHAVIORS) == 9
    for bad in (
        {**wire, "x": 1},
        {**wire, "estimators": [{**wire["estimators"][0], "behavior": "bogus"}]},
        {**wire, "estimators": [{**wire["estimators"][0], "scratch_bytes": -1}]},
        {**wire, "contracts": [{"operation_id": "operation.main"}]},
    ):
        with pytest.raises(Serialization):
            RegistryDocument.from_wire(bad)


def test_registry_document_reject_signature_and_unknown_provider() -> None:
    wire = planning_document(catalog()).to_wire()
    wire["contracts"][0]["reject_signature"] = True
    registry, contracts = RegistryDocument.from_wire(wire).build(catalog())
    op = catalog().operations[contracts[0].descriptor().id]
    raises_kind("invalid_execution_plan", lambda: contracts[0].validate_signature(op.inputs, op.outputs))
    assert registry.contracts_for(op.id) == [contracts[0]]
    wire["estimators"][0]["provider_id"] = "provider.none"
    with pytest.raises(Serialization):
        RegistryDocument.from_wire(wire).build(catalog())
