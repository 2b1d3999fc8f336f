"""Targeted scenario cells: catalog checks (see ``strategies.scenario_cells``).

The catalog document is decoded before anything else reads it, so a check of a decoded part (a tensor
contract, an attribute schema, an enum's shape) answers ``serialization`` with the check's own reason;
the descriptor, oracle-graph and materializer checks of ``CapabilityCatalog::new`` keep their kinds; the
attribute values of a program node meet the operation's schema when the node resolves, which needs the
provider rows to carry the fingerprint of the edited operation.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Final

from reference.catalog.operation import OperationDescriptor
from reference.errors import VNextError
from strategies.budget import base_scenario
from strategies.json_edits import Edit
from strategies.scenario_cells.cell import ScenarioCell

__all__ = ["CELLS"]

_EP: Final = "invalid_execution_plan"
_SER: Final = "serialization"
_OP: Final = ("catalog", "operations", {"id": "operation.main"})
_IN0: Final = (*_OP, "inputs", 0)
_OUT0: Final = (*_OP, "outputs", 0)
_PROFILE0: Final = ("catalog", "device", "dynamic_storage_profiles", 0)
_NODE: Final = ("family", "document", "program", "blocks", 0, "nodes", {"id": "node.main"})
_IDENTITY: Final = ("catalog", "weight_materializers", "weight-materializer.identity")

_UNSIGNED: Final = {"value_kind": "unsigned", "required": True,
                    "constraint": {"unsigned_range": {"minimum": 1, "maximum": 8}}}  # fmt: skip
_INVERTED: Final = {"unsigned_range": {"minimum": 9, "maximum": 8}}
_TEXT: Final = {"value_kind": "text", "required": False, "constraint": {"text_choices": {"values": ["a", "b"]}}}


def _refit(scenario: dict[str, Any]) -> dict[str, Any]:
    """Every provider row carries the fingerprint of its (edited) operation, where it has one (an operation
    the catalog refuses is refused before any provider row is read)."""
    catalog = scenario["catalog"]
    for operation in catalog["operations"]:
        try:
            fingerprint = OperationDescriptor.from_wire(operation).fingerprint()
        except VNextError:
            continue
        for row in catalog["providers"].get(operation["id"], []):
            row["operation_fingerprint"] = fingerprint
    return scenario


def _attributes(entries: dict[str, Any], values: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The main operation declares ``entries`` and the main node carries ``values``."""

    def make() -> dict[str, Any]:
        scenario = base_scenario("plan_fixture")
        scenario["catalog"]["operations"][0]["attributes"] = {"entries": copy.deepcopy(entries)}
        scenario["family"]["document"]["program"]["blocks"][0]["nodes"][0]["attributes"] = copy.deepcopy(values)
        return _refit(scenario)

    return make


def _main_copy(operation_id: str, oracle: Any) -> dict[str, Any]:
    operation: dict[str, Any] = copy.deepcopy(base_scenario("plan_fixture")["catalog"]["operations"][0])
    operation["id"] = operation_id
    operation["oracle"] = oracle
    return operation


def _reference(operation_id: str, major: int = 1) -> dict[str, Any]:
    return {"reference_operation": {"operation_id": operation_id, "version": {"major": major, "minor": 0}}}


def _with_operations(extra: list[dict[str, Any]], main_oracle: Any = None) -> dict[str, Any]:
    """The plan fixture with ``extra`` operations (each with an empty provider list: the oracle graph is
    checked before the provider lists) and, when given, the main operation's oracle."""
    scenario = base_scenario("plan_fixture")
    catalog = scenario["catalog"]
    for operation in extra:
        catalog["operations"].append(operation)
        catalog["providers"][operation["id"]] = []
    if main_oracle is not None:
        catalog["operations"][0]["oracle"] = main_oracle
    return scenario


def _oracle_version() -> dict[str, Any]:
    return _with_operations([_main_copy("operation.oracle", "exact")], _reference("operation.oracle", 2))


def _oracle_signature() -> dict[str, Any]:
    target = _main_copy("operation.oracle", "exact")
    target["inputs"] = target["inputs"][:2]
    return _with_operations([target], _reference("operation.oracle"))


def _oracle_depth() -> dict[str, Any]:
    """A 65-operation reference chain: the walk from its head marks 64 and meets a 65th."""
    chain = [
        _main_copy(f"operation.chain.{i:02d}", _reference(f"operation.chain.{i + 1:02d}") if i < 64 else "exact")
        for i in range(65)
    ]
    return _with_operations(chain)


def _catalog_cell(name: str, rule: str, kind: str, reason: str, *edits: Edit) -> ScenarioCell:
    return ScenarioCell(name, rule, kind, reason, edits=edits)


CELLS: Final[tuple[ScenarioCell, ...]] = (
    # 03.3.2: tensor contract checks (decoded: serialization)
    _catalog_cell("tensor_range_inverted", "03.3.2/range_inverted", _SER, "has an inverted range",
                  Edit((*_IN0, "dimensions", 0), "set", {"range": {"minimum": 5, "maximum": 4}})),
    _catalog_cell("tensor_blank_symbol", "03.3.2/blank_symbol", _SER, "has a blank symbol",
                  Edit((*_IN0, "dimensions", 0), "set", {"symbol": "  "})),
    _catalog_cell("tensor_strided_rank", "03.3.2/strided_rank", _SER, "has an invalid strided layout",
                  Edit((*_IN0, "layouts"), "set", [{"strided": {"strides": []}}])),
    _catalog_cell("tensor_blocked_rank", "03.3.2/blocked_rank", _SER, "has an invalid blocked layout",
                  Edit((*_IN0, "layouts"), "set", [{"blocked": {"block": [], "axis_order": []}}])),
    # 01.5: enum shapes at catalog paths
    _catalog_cell("enum_stride_without_content", "01.5/enum_variant_shape", _SER, "variant `exact_bytes` needs content",
                  Edit((*_IN0, "layouts"), "set", [{"strided": {"strides": [{"exact_bytes": None}]}}])),
    _catalog_cell("enum_contiguous_layout_with_content", "01.5/enum_variant_shape", _SER,
                  "unit variant `contiguous` takes no content", Edit((*_IN0, "layouts"), "set", [{"contiguous": 1}])),
    _catalog_cell("enum_strided_layout_without_content", "01.5/enum_variant_shape", _SER,
                  "variant `strided` needs content", Edit((*_IN0, "layouts"), "set", [{"strided": None}])),
    _catalog_cell("enum_no_alias_with_content", "01.5/enum_variant_shape", _SER,
                  "unit variant `no_alias` takes no content", Edit((*_IN0, "alias"), "set", {"no_alias": 1})),
    _catalog_cell("enum_access_with_content", "01.5/enum_variant_shape", _SER,
                  "unit variant `read` takes no content", Edit((*_IN0, "access"), "set", {"read": 1})),
    _catalog_cell("enum_element_type_with_content", "01.5/enum_variant_shape", _SER,
                  "unit variant `f32` takes no content", Edit((*_IN0, "element_types"), "set", [{"f32": 1}])),
    _catalog_cell("enum_exact_oracle_with_content", "01.5/enum_variant_shape", _SER,
                  "unit variant `exact` takes no content", Edit((*_OP, "oracle"), "set", {"exact": 1})),
    _catalog_cell("enum_tolerance_oracle_without_content", "01.5/enum_variant_shape", _SER,
                  "variant `absolute_tolerance` needs content",
                  Edit((*_OP, "oracle"), "set", {"absolute_tolerance": None})),
    _catalog_cell("enum_linear_arena_with_content", "01.5/enum_variant_shape", _SER,
                  "unit variant `linear_arena` takes no content",
                  Edit((*_PROFILE0, "allocator"), "set", {"linear_arena": 1})),
    _catalog_cell("enum_contiguous_view_with_content", "01.5/enum_variant_shape", _SER,
                  "unit variant `contiguous` takes no content", Edit((*_PROFILE0, "view"), "set", {"contiguous": 1})),
    # 03.5.3: operation descriptor checks
    _catalog_cell("operation_output_not_writable", "03.5.3/output_not_writable", _EP, "output 0 is not writable",
                  Edit((*_OUT0, "access"), "set", "read")),
    _catalog_cell("operation_negative_tolerance", "03.5.3/negative_tolerance", _EP, "has a negative oracle tolerance",
                  Edit((*_OP, "oracle"), "set",
                       {"absolute_tolerance": {"tolerance": {"numerator": -1, "denominator": 2}}})),
    _catalog_cell("operation_tolerance_bool_output", "03.5.3/tolerance_bool_output", _EP,
                  "applies numeric oracle tolerance to a possible boolean output",
                  Edit((*_OP, "oracle"), "set",
                       {"absolute_tolerance": {"tolerance": {"numerator": 1, "denominator": 2}}}),
                  Edit((*_OUT0, "element_types"), "set", ["bool", "f32"])),
    _catalog_cell("operation_provider_major_mismatch", "03.5.3/provider_major_mismatch", _EP,
                  "version and provider minimum version have incompatible majors",
                  Edit((*_OP, "provider", "minimum_version"), "set", {"major": 2, "minor": 0})),
    # 03.11.3: the reference-oracle graph
    ScenarioCell("oracle_target_version", "03.11.3/oracle_target_version", _EP,
                 "references an incompatible oracle version", make=_oracle_version),
    ScenarioCell("oracle_target_signature", "03.11.3/oracle_target_signature", _EP,
                 "with a different signature", make=_oracle_signature),
    ScenarioCell("oracle_depth_64", "03.11.3/oracle_depth_64", _EP, "exceeds depth 64", make=_oracle_depth),
    # 03.11.6: the identity materializer
    _catalog_cell("materializer_identity_tampered", "03.11.6/identity_tampered", _EP,
                  "must contain the canonical identity weight materializer",
                  Edit((*_IDENTITY, "implementation_fingerprint"), "set", "1" * 64)),
    # 03.11.4: a node's operation absent from the catalog (declared by the family's profile)
    _catalog_cell("node_operation_not_in_catalog", "03.11.4/node_lookup_sets_node_id", "unsupported_operation",
                  "operation is not registered in the capability catalog",
                  Edit((*_NODE, "operation_id"), "set", "operation.absent"),
                  Edit(("family", "document", "numerical_profiles", "profiles", 0, "operations", 0, "operation_id"),
                       "set", "operation.absent")),
    # 03.4: attribute schema pairs (decoded: serialization) and constraint shapes
    ScenarioCell("attribute_pair_bool_integer_range", "03.4/pair_bool_equals", _SER,
                 "has an incompatible or invalid constraint",
                 make=_attributes({"attr.flag": {"value_kind": "bool", "required": False,
                                                 "constraint": {"integer_range": {"minimum": 1, "maximum": 8}}}}, {})),
    ScenarioCell("attribute_pair_unsigned_integer_range", "03.4/pair_integer_range", _SER,
                 "has an incompatible or invalid constraint",
                 make=_attributes({"attr.width": {**_UNSIGNED,
                                                  "constraint": {"integer_range": {"minimum": 1, "maximum": 8}}}}, {})),
    ScenarioCell("attribute_pair_unsigned_inverted", "03.4/pair_unsigned_range", _SER,
                 "has an incompatible or invalid constraint",
                 make=_attributes({"attr.width": {**_UNSIGNED, "constraint": _INVERTED}}, {})),
    ScenarioCell("enum_constraint_none_with_content", "01.5/enum_variant_shape", _SER,
                 "unit variant `none` takes no content",
                 make=_attributes({"attr.width": {**_UNSIGNED, "constraint": {"none": 1}}}, {})),
    ScenarioCell("enum_constraint_range_without_content", "01.5/enum_variant_shape", _SER,
                 "variant `unsigned_range` needs content",
                 make=_attributes({"attr.width": {**_UNSIGNED, "constraint": {"unsigned_range": None}}}, {})),
    # 03.4: a program node's attribute values against the operation's schema
    ScenarioCell("attribute_value_unknown_key", "03.4/values_unknown_key", _EP, "contains unknown attribute",
                 make=_attributes({"attr.width": _UNSIGNED}, {"attr.other": {"unsigned": 4}})),
    ScenarioCell("attribute_value_wrong_kind", "03.4/values_wrong_kind", _EP, "has the wrong value kind",
                 make=_attributes({"attr.width": _UNSIGNED}, {"attr.width": {"integer": 4}})),
    ScenarioCell("attribute_value_out_of_range", "03.4/values_range_inclusive", _EP,
                 "violates its declared constraint",
                 make=_attributes({"attr.width": _UNSIGNED}, {"attr.width": {"unsigned": 9}})),
    ScenarioCell("attribute_value_not_a_choice", "03.4/values_text_choices", _EP,
                 "violates its declared constraint",
                 make=_attributes({"attr.mode": _TEXT}, {"attr.mode": {"text": "c"}})),
    ScenarioCell("attribute_value_missing_required", "03.4/values_missing_required", _EP,
                 "is missing required attribute `attr.width`",
                 make=_attributes({"attr.width": _UNSIGNED, "attr.mode": _TEXT}, {"attr.mode": {"text": "a"}})),
)  # fmt: skip
