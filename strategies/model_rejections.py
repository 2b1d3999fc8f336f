"""Adversarial family cases: one named operator breaks one spec 02 rule of a valid family draft.

A *family case* is the triple a harness sends: ``{"family": <family document>,
"config": <raw config>, "profile": <numerical profile id>}``; ``build_family_case``
is what the reference does with it. ``family_rejections()`` draws a
``Rejection`` over such a case with the exact error kind (and ``field`` for
``invalid_model_config``) that the first failing rule produces, and that rule's
catalogue id (``Rejection.rule``), which the rejection matrix declares.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Final

from hypothesis import strategies as st

from reference.canonical import JsonValue
from reference.model.prepared import PreparedModelFamily
from strategies._reuse import reusable
from strategies.cases import SERIALIZATION, Rejection
from strategies.model import FamilyDraft, family_drafts, prepare_draft

__all__ = ["FAMILY_OPERATORS", "OPERATOR_NEEDS", "build_family_case", "family_case", "family_rejections"]

_IMC: Final = "invalid_model_config"
_EP: Final = "invalid_execution_plan"
_UWL: Final = "unknown_weight_layout"

Case = dict[str, Any]
Operator = Callable[[st.DrawFn, Case], tuple[str, str, str | None] | None]


def family_case(draft: FamilyDraft) -> Case:
    """The harness triple of a draft."""
    return {"family": copy.deepcopy(draft.document), "config": copy.deepcopy(draft.raw_config),
            "profile": draft.profile_id}  # fmt: skip


def build_family_case(case: JsonValue) -> PreparedModelFamily:
    """Decode the family document, define with the raw config, prepare with the profile."""
    return prepare_draft(case["family"], case["config"], case["profile"])


# Each operator mutates ``case`` in place and returns (rule, kind, field) or None when it does not apply; ``rule`` is
# the catalogue id (``conformance/rules``) of the check the broken case meets.


def _unknown_top_level_field(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["unexpected"] = draw(st.sampled_from((None, 0, "x")))
    return "01.3.6/decode_unknown_field", SERIALIZATION, None


def _document_version(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["document_version"] = draw(st.sampled_from((0, 2, "1")))
    return "01.5/document_format_refused", SERIALIZATION, None


def _config_type_unknown(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["config"]["fields"].append({"name": "zz_field", "type": draw(st.sampled_from(("u128", "float")))})
    return "01.5/enum_variant_shape", SERIALIZATION, None


def _program_unknown_field(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["program"]["unexpected"] = []
    return "02.1/deny_unknown_model_program", SERIALIZATION, None


def _no_external_ids(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["external_metadata_ids"] = []
    return "02.6.1/empty_external_metadata_ids", _IMC, "external_metadata_ids"


def _undeclared_external(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["selected_external_metadata_id"] = "metadata.undeclared"
    case["family"]["external_metadata_ids"] = [
        i for i in case["family"]["external_metadata_ids"] if i != "metadata.undeclared"
    ] or ["metadata.declared"]
    return "02.6.1/selected_external_id_undeclared", _IMC, "external_metadata_id"


def _config_unconsumed_key(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["config"]["zz_unconsumed"] = draw(st.sampled_from((0, "x", True)))
    return "02.5.2/raw_key_missing_in_typed", _IMC, "/zz_unconsumed"


def _config_value_differs(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["config"]["fields"].append({"name": "zz_check", "type": "u64"})
    case["family"]["config"]["value"]["zz_check"] = 1
    case["config"]["zz_check"] = draw(st.sampled_from([0, 2, 2**64 - 1]))
    return "02.6.1/parse_config_error", _IMC, "zz_check"


def _config_missing_field(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["config"]["fields"].append({"name": "zz_required", "type": "u64"})
    case["family"]["config"]["value"]["zz_required"] = 1
    case["config"].pop("zz_required", None)
    field = case["family"]["config"]["parse_error_field"]
    return "02.6.1/parse_config_error", _IMC, field


def _weight_version_zero(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["weight_schema"]["version"] = {"major": 0, "minor": draw(st.integers(0, 3))}
    return "02.8.6/version_major_zero", _UWL, None


def _weight_no_tensors(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["weight_schema"]["tensors"] = []
    return "02.8.6/no_tensors", _UWL, None


def _extra_component(case: Case, *, name: str, dims: list[int], required: bool) -> None:
    case["family"]["weight_schema"]["components"].append(
        {
            "id": f"weight.extra{len(case['family']['weight_schema']['components'])}",
            "role": "values",
            "external_names": [name],
            "dimensions": dims,
            "encoding": {"dense": {"element_type": "f32"}},
            "required": required,
        }
    )


def _duplicate_external_name(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    first = case["family"]["weight_schema"]["components"][0]["external_names"][0]
    _extra_component(case, name=first, dims=[1], required=False)
    return "02.8.6/duplicate_external_name", _IMC, "weight_schema.components"


def _component_zero_dimension(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    _extra_component(case, name="blob/zero.bin", dims=[draw(st.integers(1, 3)), 0], required=False)
    return "02.8.6/zero_component_dimension", _IMC, "weight_schema.components"


def _unreferenced_required_component(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    _extra_component(case, name="blob/orphan.bin", dims=[draw(st.integers(1, 4))], required=True)
    return "02.8.6/required_component_unreferenced", _IMC, "weight_schema.components"


def _tensor_grown(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    tensor = case["family"]["weight_schema"]["tensors"][0]
    tensor["dimensions"][0] += 8  # >= 8 more elements: even packed byte counts must change
    return (
        "02.8.7/layout_errors_field",
        _IMC,
        (f"weight_schema.tensors.{tensor['id']}.physical_layout"),
    )


def _tensor_zero_dimension(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    tensor = case["family"]["weight_schema"]["tensors"][0]
    tensor["dimensions"][draw(st.integers(0, len(tensor["dimensions"]) - 1))] = 0
    return "02.8.6/zero_tensor_dimension", _IMC, "weight_schema.tensors"


def _layout_too_deep(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    tensor = case["family"]["weight_schema"]["tensors"][0]
    layout = tensor["physical_layout"]
    for _ in range(draw(st.integers(16, 18))):
        layout = {"composite": {"parts": [{"layout": layout, "logical_offsets": [0] * len(tensor["dimensions"]),
                                           "extents": list(tensor["dimensions"])}]}}  # fmt: skip
    tensor["physical_layout"] = layout
    return "02.8.5/budget_depth_16", _IMC, f"weight_schema.tensors.{tensor['id']}.physical_layout"


def _quantization_bits_zero(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None] | None:
    for component in case["family"]["weight_schema"]["components"]:
        if "quantized" in component["encoding"]:
            component["encoding"]["quantized"]["bits_per_weight"] = draw(st.sampled_from((0, 9)))
            return "02.8.2/bits_per_weight_range", _EP, None
    return None


def _nodes(case: Case) -> list[dict[str, Any]]:
    return [node for block in case["family"]["program"]["blocks"] for node in block["nodes"]]


def _append_node(case: Case, node: dict[str, Any]) -> None:
    case["family"]["program"]["blocks"][-1]["nodes"].append(node)


def _node_like(case: Case, **changes: Any) -> dict[str, Any]:
    first = _nodes(case)[0]
    node = {"id": "node.extra", "operation_id": first["operation_id"], "required_version": first["required_version"],
            "work": "fixed", "inputs": [], "outputs": ["value.extra"], "attributes": {}}  # fmt: skip
    node.update(changes)
    return node


def _undefined_input(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    _nodes(case)[0]["inputs"].append("value.undefined")
    return "02.10.3/node_input_undefined", _IMC, "program.nodes.inputs"


def _duplicate_producer(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    _append_node(case, _node_like(case, outputs=[case["family"]["program"]["inputs"][0]]))
    return "02.10.3/node_output_multiple_producers", _IMC, "program.nodes.outputs"


def _duplicate_node_id(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    _append_node(case, _node_like(case, id=_nodes(case)[0]["id"]))
    return "02.10.3/node_id_duplicate", _IMC, "program.nodes.id"


def _node_version_zero(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    _append_node(case, _node_like(case, required_version={"major": 0, "minor": 1}))
    return "02.10.3/node_contract", _IMC, "program.nodes.contract"


def _no_blocks(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["program"]["blocks"] = []
    return "02.10.3/blocks_empty", _IMC, "program.blocks"


def _undefined_output(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["program"]["outputs"].append("value.nowhere")
    return "02.10.3/outputs_invalid", _IMC, "program.outputs"


def _unknown_weight(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["program"]["weights"].append(
        {"weight_id": "weight.absent", "value_id": "value.absent",
         "tensor": {"dimensions": [1], "element_type": "f32", "layout": "contiguous"}}
    )  # fmt: skip
    return "02.8.11/refs_unknown_tensor", _IMC, "program.weights"


def _weight_type_mismatch(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None] | None:
    weights = case["family"]["program"]["weights"]
    if not weights:
        return None
    reference = weights[0]
    current = reference["tensor"]["element_type"]
    reference["tensor"]["element_type"] = "u8" if current != "u8" else "i8"
    return (
        "02.8.11/refs_shape_dtype",
        _IMC,
        (f"program.weights.{reference['weight_id']}.tensor"),
    )


def _required_weight_unreferenced(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None] | None:
    required = {t["id"] for t in case["family"]["weight_schema"]["tensors"] if t["required"]}
    weights = case["family"]["program"]["weights"]
    removable = [w for w in weights if w["weight_id"] in required]
    if not removable:
        return None
    weights.remove(removable[0])
    for node in _nodes(case):  # nodes stop reading the value, so the program itself stays valid
        node["inputs"] = [v for v in node["inputs"] if v != removable[0]["value_id"]]
    return "02.8.11/refs_required_unreferenced", _IMC, "program.weights"


def _selected_profile(case: Case) -> dict[str, Any]:
    profiles = case["family"]["numerical_profiles"]["profiles"]
    return next(p for p in profiles if p["id"] == case["profile"])


def _profile_extra_boundary(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    _selected_profile(case)["boundaries"][case["family"]["program"]["inputs"][0]] = "f32"
    return "02.9.2/boundaries_equal_node_outputs", _IMC, "numerical_profile"


def _profile_operation_version(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    operation = _selected_profile(case)["operations"][0]
    operation["version"] = {"major": operation["version"]["major"], "minor": operation["version"]["minor"] + 1}
    return "02.9.2/node_version_exact", _IMC, "numerical_profile"


def _profile_primary_not_boundary(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    _selected_profile(case)["primary_activation"] = "value.not-a-boundary"
    return "02.9.2/primary_activation_missing", _IMC, "numerical_profile"


def _auto_preference_unknown(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["family"]["numerical_profiles"]["auto_preference"].append("profile.absent")
    return "02.9.3/auto_preference_undeclared", _IMC, "numerical_profile"


def _unknown_profile(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    case["profile"] = "profile.absent"
    return "02.6.2/unknown_profile", _IMC, "numerical_profile"


#: Broken template source files (01 §1.4 clean relative paths) with the clause each breaks.
_SOURCE_FILES: Final = {
    "/abs/template.json": "02.11.3/source_file_absolute",
    "a/../b": "02.11.3/source_file_dotdot_segment",
    "": "02.11.3/source_file_empty",
    "a\\b": "02.11.3/source_file_backslash",
}


def _metadata(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None]:
    metadata = case["family"]["semantic_metadata"]
    broken = draw(st.sampled_from(("template", "source", "sha", "eos")))
    if broken == "template":
        metadata["template"]["template"] = ""
        rule = "02.11.3/template_empty"
    elif broken == "source":
        source = draw(st.sampled_from(tuple(_SOURCE_FILES)))
        metadata["template"]["source_file"] = source
        rule = _SOURCE_FILES[source]
    elif broken == "sha":
        metadata["template"]["sha256"] = draw(st.sampled_from(["C" * 64, "c" * 63, "not-a-digest"]))
        rule = "02.11.3/template_sha_not_canonical"
    else:
        metadata["special_tokens"]["eos_token_ids"] = []
        rule = "02.11.3/eos_empty"
    return rule, _IMC, "semantic_metadata"


def _state_checkpoint_lifetime(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None] | None:
    states = case["family"]["program"]["states"]
    if not states:
        return None
    states[0]["lifetime"] = draw(st.sampled_from(("request", "step")))
    states[0]["checkpoint"] = {"completed_boundary": {"contract_version": {"major": 1, "minor": 0},
                                                      "contents": "boundary_value",
                                                      "input_dependency": "entire_token_input"}}  # fmt: skip
    return "02.10.1/checkpoint_requires_sequence", _EP, None


def _state_zero_dimension(draw: st.DrawFn, case: Case) -> tuple[str, str, str | None] | None:
    states = case["family"]["program"]["states"]
    if not states:
        return None
    states[0]["tensor"]["dimensions"][0] = 0
    return "02.10.3/state_invalid_tensor", _IMC, "program.states.value_id"


#: Every operator by name (sorted draws keep shrinking stable).
FAMILY_OPERATORS: Final[dict[str, Operator]] = {
    "auto_preference_unknown": _auto_preference_unknown,
    "component_zero_dimension": _component_zero_dimension,
    "config_missing_field": _config_missing_field,
    "config_type_unknown": _config_type_unknown,
    "config_unconsumed_key": _config_unconsumed_key,
    "config_value_differs": _config_value_differs,
    "document_version": _document_version,
    "duplicate_external_name": _duplicate_external_name,
    "duplicate_node_id": _duplicate_node_id,
    "duplicate_producer": _duplicate_producer,
    "layout_too_deep": _layout_too_deep,
    "metadata": _metadata,
    "no_blocks": _no_blocks,
    "no_external_ids": _no_external_ids,
    "node_version_zero": _node_version_zero,
    "profile_extra_boundary": _profile_extra_boundary,
    "profile_operation_version": _profile_operation_version,
    "profile_primary_not_boundary": _profile_primary_not_boundary,
    "program_unknown_field": _program_unknown_field,
    "quantization_bits_zero": _quantization_bits_zero,
    "required_weight_unreferenced": _required_weight_unreferenced,
    "state_checkpoint_lifetime": _state_checkpoint_lifetime,
    "state_zero_dimension": _state_zero_dimension,
    "tensor_grown": _tensor_grown,
    "tensor_zero_dimension": _tensor_zero_dimension,
    "undeclared_external": _undeclared_external,
    "unreferenced_required_component": _unreferenced_required_component,
    "undefined_input": _undefined_input,
    "undefined_output": _undefined_output,
    "unknown_profile": _unknown_profile,
    "unknown_top_level_field": _unknown_top_level_field,
    "unknown_weight": _unknown_weight,
    "weight_no_tensors": _weight_no_tensors,
    "weight_type_mismatch": _weight_type_mismatch,
    "weight_version_zero": _weight_version_zero,
}


#: Draft parameters under which an operator always applies (used when operators are chosen explicitly).
OPERATOR_NEEDS: Final[dict[str, dict[str, Any]]] = {
    "quantization_bits_zero": {"first_kind": "quantized"},
    "required_weight_unreferenced": {"first_required": True},
    "weight_type_mismatch": {"first_required": True},
    "state_checkpoint_lifetime": {"min_states": 1},
    "state_zero_dimension": {"min_states": 1},
}


@reusable
@st.composite
def family_rejections(draw: st.DrawFn, operators: tuple[str, ...] | None = None) -> Rejection:
    """A family case broken by one operator: drawn uniformly, falling back (in name order) to the next
    operator that applies to the drawn draft. With one explicit operator its draft needs are honoured."""
    names = sorted(operators if operators is not None else FAMILY_OPERATORS)
    needs: dict[str, Any] = {}
    if operators is not None:
        for name in names:
            needs.update(OPERATOR_NEEDS.get(name, {}))
    original = family_case(draw(family_drafts(**needs)))
    start = draw(st.integers(0, len(names) - 1))
    for name in names[start:] + names[:start]:
        case = copy.deepcopy(original)
        outcome = FAMILY_OPERATORS[name](draw, case)
        if outcome is not None:
            rule, kind, field = outcome
            fields: dict[str, JsonValue] = {} if field is None else {"field": field}
            return Rejection(name, rule, kind, case, original, fields)
    raise AssertionError("no family operator applies")  # unreachable: most operators always apply
