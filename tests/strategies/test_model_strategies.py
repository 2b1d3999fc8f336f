"""Model strategies: every drawn schema validates, every program builds, every family prepares;
every adversarial family case is refused with exactly its kind and field, by the check its catalogue rule names."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from conformance.reach.attribution import error_rules
from conformance.rules import catalogue
from reference.documents.family import MAX_FAMILY_DOCUMENT_BYTES, DeclarativeFamily
from reference.errors import Serialization
from reference.model.weight_layout import StoredLayout
from strategies.json_values import malformed_json
from strategies.model import FamilyDraft, family_drafts, prepare_draft, program_tensor_specs, state_specs
from strategies.model_rejections import FAMILY_OPERATORS, build_family_case, family_rejections
from strategies.weights import LAYOUT_KINDS, weight_schemas

from .helpers import assert_rejected

_STORED = {"stored_contiguous": "ContiguousStorage", "stored_strided": "StridedStorage", "stored_tiled": "TiledStorage"}
_ROOT = {
    "dense": "DenseLayout",
    "composite": "CompositeLayout",
    "quantized": "QuantizedLayout",
    "quantized_block_grid": "QuantizedBlockGridLayout",
    "block_quantized": "BlockQuantizedLayout",
    "axis_reshape_permutation": "AxisReshapePermutationLayout",
    "indexed": "IndexedLayout",
    "expert_stack": "ExpertStackLayout",
}


@pytest.mark.parametrize("kind", LAYOUT_KINDS)
@given(data=st.data())
def test_each_layout_kind_is_generated_and_validates(kind: str, data: st.DataObject) -> None:
    schema = data.draw(weight_schemas(first_kind=kind))
    schema.validate("family.test")
    root = next(t for t in schema.tensors if t.id.value == "weight.t0").physical_layout
    if kind in _STORED:
        assert isinstance(root, StoredLayout) and type(root.component.storage).__name__ == _STORED[kind]
    else:
        assert type(root).__name__ == _ROOT[kind]


@given(weight_schemas())
def test_weight_schemas_validate_and_normalize_stably(schema: object) -> None:
    from reference.model.weight_schema import WeightSchema

    assert isinstance(schema, WeightSchema)
    schema.validate("family.test")
    normalized = schema.normalize()
    normalized.validate("family.test")
    assert normalized.normalize() == normalized
    assert WeightSchema.from_wire(schema.to_wire()) == schema


@given(program_tensor_specs(), state_specs("state.s", "value.s"))
def test_program_tensors_and_states_are_valid(tensor: object, state: object) -> None:
    from reference.model.state import StateSpec
    from reference.model.tensor import ProgramTensorSpec

    assert isinstance(tensor, ProgramTensorSpec) and isinstance(state, StateSpec)
    tensor.validate("test")
    assert StateSpec.from_wire(state.to_wire(), "test") == state


@given(family_drafts())
def test_family_drafts_prepare_and_match_the_document_schema(draft: FamilyDraft) -> None:
    schemas.validate("model/family_document.json", draft.document)
    prepared = prepare_draft(draft.document, draft.raw_config, draft.profile_id)
    assert prepared.weight_schema == draft.schema.normalize()
    assert prepared.program == draft.program.program
    assert prepared.numerical_profile.id.value == draft.profile_id
    for value in (*prepared.program.inputs, *prepared.program.node_outputs()):
        assert value in draft.program.value_types
    # the same document as bytes, through the strict decoder
    again = DeclarativeFamily.from_json(json.dumps(draft.document).encode())
    assert again.to_document() == DeclarativeFamily.from_document(draft.document).to_document()


@pytest.mark.parametrize("operator", sorted(FAMILY_OPERATORS))
@given(data=st.data())
def test_each_family_operator_applies_and_is_refused(operator: str, data: st.DataObject) -> None:
    rejection = data.draw(family_rejections(operators=(operator,)))
    assert rejection.operator == operator
    error = assert_rejected(rejection, build_family_case)
    rule = catalogue().by_id[rejection.rule]
    assert rule.kind == rejection.expected_kind, (operator, rule.id, rule.kind)
    assert rule.id in error_rules(error), f"{operator}: the refusal does not implement {rule.id}: {error}"


@given(data=st.data(), draft=family_drafts(max_tensors=1, max_nodes=2))
def test_malformed_family_document_bytes_are_serialization(data: st.DataObject, draft: FamilyDraft) -> None:
    case = data.draw(malformed_json(draft.document, max_bytes=MAX_FAMILY_DOCUMENT_BYTES))
    with pytest.raises(Serialization):
        DeclarativeFamily.from_json(case.data)
