"""Declarative weight materializers, registries and selections (schemas/weights/)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference.documents.weights import (
    WeightMaterializerDocument,
    WeightMaterializerRegistryDocument,
    WeightSelectionDocument,
    weight_plan_selection,
)
from reference.errors import Serialization
from reference.ids import WeightId, WeightMaterializerId
from reference.weights import InMemoryWeightSource, TrustedExecutionWeightPlan, WeightMaterializerRegistry
from seeds.weight_sources import ZeroWeightSource
from seeds.weights import (
    DERIVED_ID,
    LOGICAL_MUTATION_ID,
    PADDED_DENSE_ID,
    SEED_MATERIALIZER_NAMES,
    descriptor,
    seed_materializer,
    seed_materializer_document,
)
from tests.weights.helpers import base_catalog, family, raises_kind, split

FAMILY_OF = {"padded_dense": family, "logical_mutation": family, "derived_components": split}
ID_OF = {"padded_dense": PADDED_DENSE_ID, "logical_mutation": LOGICAL_MUTATION_ID, "derived_components": DERIVED_ID}
LO, HI = "weight.execution.lo", "weight.execution.hi"


def _registry_doc(*docs: dict[str, Any]) -> dict[str, Any]:
    return {"materializers": list(docs)}


def _selection(materializer_id: str, *docs: dict[str, Any], augment: bool = True) -> dict[str, Any]:
    return {"registry": _registry_doc(*docs), "materializer_id": materializer_id, "augment_catalog": augment}


def splitting_document(fault: str | None = None, lo: int = 1, hi: int = 2) -> dict[str, Any]:
    """TestFamily's component split into two halves filled with ``lo`` / ``hi``, sharing one source list."""
    half = {
        "id": HI,
        "role": "values",
        "external_names": ["hi.bin"],
        "dimensions": [2],
        "encoding": {"dense": {"element_type": "f32"}},
        "required": True,
    }
    return {
        "descriptor": descriptor("weight-materializer.test.splitting", "1").to_wire(),
        "execution_schema": {
            "edits": [
                {"rename_component": {"from": "weight.component", "to": LO}},
                {"set_component": {"id": LO, "dimensions": [2], "external_names": ["lo.bin"]}},
                {"add_component": half},
                {
                    "set_tensor": {
                        "id": "weight.matrix",
                        "physical_layout": {
                            "composite": {
                                "parts": [
                                    {"layout": {"dense": {"component_id": LO}}, "logical_offsets": [0], "extents": [2]},
                                    {"layout": {"dense": {"component_id": HI}}, "logical_offsets": [2], "extents": [2]},
                                ]
                            }
                        },
                    }
                },
            ]
        },
        "component_sources": {LO: ["weight.component"], HI: ["weight.component"]},
        "materialize": {"fill": {LO: lo, HI: hi}},
        "fault": fault,
    }


def merging_document() -> dict[str, Any]:
    """split_family's two components concatenated into one derived component."""
    merged = {
        "id": "weight.merged",
        "role": "values",
        "external_names": ["left.bin", "right.bin"],
        "dimensions": [4],
        "encoding": {"dense": {"element_type": "f32"}},
        "required": True,
    }
    return {
        "descriptor": descriptor("weight-materializer.test.merging", "2").to_wire(),
        "execution_schema": {
            "edits": [
                {"remove_component": "weight.component.left"},
                {"remove_component": "weight.component.right"},
                {"add_component": merged},
                {
                    "set_tensor": {
                        "id": "weight.matrix",
                        "physical_layout": {"dense": {"component_id": "weight.merged"}},
                    }
                },
            ]
        },
        "component_sources": {"weight.merged": ["weight.component.left", "weight.component.right"]},
        "materialize": "concat",
    }


# --------------------------------------------------------------------------- seed documents


@pytest.mark.parametrize("name", SEED_MATERIALIZER_NAMES)
def test_seed_documents_are_schema_valid_and_round_trip(name: str) -> None:
    wire = seed_materializer_document(name)
    schemas.validate("weights/materializer_document.json", wire)
    assert WeightMaterializerDocument.from_wire(wire).to_wire() == wire


@pytest.mark.parametrize("name", ["padded_dense", "derived_components"])
def test_documents_select_and_materialize_like_the_python_materializers(name: str) -> None:
    fam = FAMILY_OF[name]()
    python = WeightMaterializerRegistry([seed_materializer(name)])
    declared = WeightMaterializerRegistryDocument.from_wire(_registry_doc(seed_materializer_document(name))).build()
    assert python.descriptors() == declared.descriptors()
    catalog = python.augment_catalog(base_catalog())
    assert catalog == declared.augment_catalog(base_catalog())
    a = python.select_exact(fam, catalog, ID_OF[name])
    b = declared.select_exact(fam, catalog, ID_OF[name])
    assert a == b and a.plan().to_json_bytes() == b.plan().to_json_bytes()
    arrays = {c.id.value: np.arange(c.dimensions[0], dtype=np.float32) + 7 for c in fam.weight_schema.components}
    for component in a.plan().schema().components:
        pa = a.materialize_components(fam, InMemoryWeightSource.from_arrays(arrays), [component])
        pb = b.materialize_components(fam, InMemoryWeightSource.from_arrays(arrays), [component])
        assert pa == pb


def test_logical_mutation_document_is_refused_like_the_seed() -> None:
    declared = WeightMaterializerRegistryDocument.from_wire(
        _registry_doc(seed_materializer_document("logical_mutation"))
    ).build()
    error = raises_kind(
        "invalid_execution_plan",
        lambda: declared.select_exact(family(), declared.augment_catalog(base_catalog()), LOGICAL_MUTATION_ID),
    )
    assert "logical tensor contract" in error.to_dict()["reason"]


# --------------------------------------------------------------------------- selection documents


def test_selection_document_selects_against_the_augmented_catalog() -> None:
    raw = _selection(PADDED_DENSE_ID.value, seed_materializer_document("padded_dense"))
    schemas.validate("weights/selection.json", raw)
    doc = WeightSelectionDocument.from_wire(raw)
    assert doc.to_wire() == raw
    selection = doc.select(family(), base_catalog())
    assert selection.catalog.weight_materializer(PADDED_DENSE_ID) == selection.trusted.descriptor()
    selection.trusted.validate_against_catalog(family(), selection.catalog)
    wire, fingerprint = weight_plan_selection(selection.trusted)
    assert wire == selection.trusted.plan().to_json_bytes()
    assert fingerprint == selection.trusted.plan().fingerprint()
    schemas.validate("weights/execution_weight_plan.json", selection.trusted.plan().to_wire())
    not_augmented = WeightSelectionDocument.from_wire(
        _selection(PADDED_DENSE_ID.value, seed_materializer_document("padded_dense"), augment=False)
    )
    raises_kind("invalid_execution_plan", lambda: not_augmented.select(family(), base_catalog()))


def test_identity_selection_with_an_empty_registry() -> None:
    doc = WeightSelectionDocument.from_wire(_selection("weight-materializer.identity", augment=False))
    selection = doc.select(family(), base_catalog())
    assert selection.trusted == TrustedExecutionWeightPlan.identity(family())
    assert selection.catalog == base_catalog()


def test_registry_document_limits_keep_their_contract_kind() -> None:
    def numbered(i: int) -> dict[str, Any]:
        doc = seed_materializer_document("padded_dense")
        doc["descriptor"]["id"] = f"weight-materializer.test.n{i}"
        return doc

    ok = WeightMaterializerRegistryDocument.from_wire(_registry_doc(*(numbered(i) for i in range(63))))
    assert len(ok.build().descriptors()) == 64
    too_many = WeightMaterializerRegistryDocument.from_wire(_registry_doc(*(numbered(i) for i in range(64))))
    raises_kind("invalid_execution_plan", too_many.build)
    duplicate = WeightMaterializerRegistryDocument.from_wire(_registry_doc(numbered(1), numbered(1)))
    raises_kind("invalid_execution_plan", duplicate.build)
    identity = seed_materializer_document("padded_dense")
    identity["descriptor"] = descriptor("weight-materializer.identity", "9").to_wire()
    raises_kind("invalid_execution_plan", WeightMaterializerRegistryDocument.from_wire(_registry_doc(identity)).build)
    unversioned = seed_materializer_document("padded_dense")
    unversioned["descriptor"]["version"] = {"major": 0, "minor": 3}
    schemas.validate("weights/materializer_registry.json", _registry_doc(unversioned))  # shape is fine
    raises_kind(
        "invalid_execution_plan", WeightMaterializerRegistryDocument.from_wire(_registry_doc(unversioned)).build
    )


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        target: Any = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return apply


@pytest.mark.parametrize(
    "tamper",
    [
        _set(["extra"], 1),
        _set(["execution_schema", "extra"], 1),
        _set(["execution_schema", "edits", 0], {"set_nothing": 1}),
        _set(["execution_schema", "edits", 0], {"set_layout_id": "bad id!"}),
        _set(["execution_schema", "edits", 0], {"set_layout_id": "a", "set_format_id": "b"}),
        _set(["execution_schema", "edits", 1, "set_component", "colour"], "red"),
        _set(["execution_schema", "edits", 1, "set_component", "dimensions"], [-1]),
        _set(["execution_schema", "edits", 2, "set_tensor", "logical_element_type"], "f64"),
        _set(["execution_schema", "edits", 2, "set_tensor", "physical_layout"], {"nope": {}}),
        _set(["materialize"], "copy"),
        _set(["materialize"], {"fill": {"weight.component": 256}}),
        _set(["materialize"], {"fill": []}),
        _set(["materialize"], {"reject": 1}),
        _set(["fault"], "explode"),
        _set(["component_sources"], {"weight.component": "weight.component"}),
        _set(["descriptor", "fidelity"], "lossy"),
        _set(["descriptor", "extra"], 1),
    ],
)
def test_malformed_documents_are_serialization_errors(tamper: Callable[[dict[str, Any]], None]) -> None:
    doc = copy.deepcopy(seed_materializer_document("padded_dense"))
    tamper(doc)
    with pytest.raises(Serialization):
        WeightMaterializerDocument.from_wire(doc)
    with pytest.raises(Serialization):
        WeightSelectionDocument.from_wire(_selection(PADDED_DENSE_ID.value, doc))


def test_selection_document_shape_errors() -> None:
    for raw in (
        {},
        {"registry": {"materializers": []}, "materializer_id": "x"},
        {"registry": [], "materializer_id": "x", "augment_catalog": True},
    ):
        with pytest.raises(Serialization):
            WeightSelectionDocument.from_wire(raw)


def test_edits_naming_absent_items_fail_at_selection() -> None:
    for edit in (
        {"set_component": {"id": "weight.absent", "dimensions": [8]}},
        {"set_tensor": {"id": "weight.absent", "dimensions": [8]}},
        {"rename_component": {"from": "weight.absent", "to": "weight.other"}},
        {"remove_component": "weight.absent"},
    ):
        doc = seed_materializer_document("padded_dense")
        doc["execution_schema"]["edits"] = [edit]
        selection = WeightSelectionDocument.from_wire(_selection(PADDED_DENSE_ID.value, doc))
        error = raises_kind("invalid_execution_plan", lambda s=selection: s.select(family(), base_catalog()))
        assert "absent" in error.to_dict()["reason"]


def test_replace_schema_edit_and_set_version() -> None:
    doc = seed_materializer_document("padded_dense")
    doc["execution_schema"]["edits"] = [{"replace_schema": family().weight_schema.to_wire()}]
    doc["materialize"] = "identity"
    trusted = (
        WeightSelectionDocument.from_wire(_selection(PADDED_DENSE_ID.value, doc))
        .select(family(), base_catalog())
        .trusted
    )
    assert trusted.plan().schema() == family().weight_schema
    assert trusted.plan() != TrustedExecutionWeightPlan.identity(family()).plan()
    (payload,) = trusted.materialize_components(family(), ZeroWeightSource(), list(trusted.plan().schema().components))
    assert payload.to_bytes() == bytes(16)
    doc["execution_schema"]["edits"] = [{"set_version": {"major": 3, "minor": 0}}]
    trusted = (
        WeightSelectionDocument.from_wire(_selection(PADDED_DENSE_ID.value, doc))
        .select(family(), base_catalog())
        .trusted
    )
    assert trusted.plan().schema().version.major == 3


# --------------------------------------------------------------------------- materialize rules and faults


def _select(doc: dict[str, Any], fam: Any = None) -> TrustedExecutionWeightPlan:
    wire_id = doc["descriptor"]["id"]
    return WeightSelectionDocument.from_wire(_selection(wire_id, doc)).select(fam or family(), base_catalog()).trusted


def test_concat_rule_preserves_source_order() -> None:
    trusted = _select(merging_document(), split())
    assert dict(trusted.plan().component_sources()) == {
        WeightId("weight.merged"): (WeightId("weight.component.left"), WeightId("weight.component.right"))
    }
    left = np.array([1, 2], dtype=np.float32)
    right = np.array([3, 4], dtype=np.float32)
    source = InMemoryWeightSource.from_arrays({"weight.component.left": left, "weight.component.right": right})
    (payload,) = trusted.materialize_components(split(), source, list(trusted.plan().schema().components))
    assert payload.to_bytes() == left.tobytes() + right.tobytes()
    assert payload.source_files == ("model.safetensors", "model.safetensors")


@given(st.integers(0, 255), st.integers(0, 255))
def test_fill_rule_writes_the_declared_bytes(lo: int, hi: int) -> None:
    trusted = _select(splitting_document(lo=lo, hi=hi))
    group = sorted(trusted.plan().schema().components, key=lambda c: c.id.value != LO)
    payloads = trusted.materialize_components(family(), ZeroWeightSource(), group)
    assert [p.to_bytes() for p in payloads] == [bytes([lo]) * 8, bytes([hi]) * 8]


@pytest.mark.parametrize("fault", ["drop_last", "duplicate_first", "reverse", "source_payload"])
def test_faulty_documents_are_caught_by_the_payload_checks(fault: str) -> None:
    trusted = _select(splitting_document(fault))
    group = list(trusted.plan().schema().components)
    error = raises_kind(
        "invalid_execution_plan", lambda: trusted.materialize_components(family(), ZeroWeightSource(), group)
    )
    assert "payload" in error.to_dict()["reason"]


def test_reject_rule_and_zero_pad_arity() -> None:
    doc = seed_materializer_document("padded_dense")
    doc["materialize"] = {"reject": "no bytes today"}
    trusted = _select(doc)
    error = raises_kind(
        "invalid_execution_plan",
        lambda: trusted.materialize_components(family(), ZeroWeightSource(), list(trusted.plan().schema().components)),
    )
    assert error.to_dict()["reason"] == "no bytes today"
    merging = merging_document()
    merging["materialize"] = "zero_pad"
    trusted = _select(merging, split())
    raises_kind(
        "invalid_execution_plan",
        lambda: trusted.materialize_components(split(), ZeroWeightSource(), list(trusted.plan().schema().components)),
    )


def test_declared_identity_rule_refuses_transformed_components() -> None:
    doc = seed_materializer_document("padded_dense")
    doc["materialize"] = "identity"
    trusted = _select(doc)
    raises_kind(
        "invalid_execution_plan",
        lambda: trusted.materialize_components(family(), ZeroWeightSource(), list(trusted.plan().schema().components)),
    )


def test_selection_id_must_be_registered() -> None:
    doc = WeightSelectionDocument.from_wire(
        _selection("weight-materializer.none", seed_materializer_document("padded_dense"))
    )
    raises_kind("invalid_execution_plan", lambda: doc.select(family(), base_catalog()))
    assert doc.materializer_id == WeightMaterializerId("weight-materializer.none")
