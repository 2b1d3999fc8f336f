"""Targeted scenario cells: the weight schema's own checks (02 §8.2, §8.5, §8.6, §8.11).

``WeightSchema.validate`` runs one ordered list (02 §8.6): the schema's identity and lists, the budget pass
of every tensor's layout tree, each component's checks 3a-3f before the next component's, each tensor's
shape, then the layout validator, then unreferenced required components. A limit of the budget pass is a
pair of cells: the tree one step past it is refused by the budget pass, the tree exactly at it passes the
budget pass and is refused by a later check that names another field (a component with a zero dimension,
step 3a), so a backend off by one on either side answers another field. An order cell breaks two checks
whose errors differ in kind or field; the reference's answer names the check that comes first. The
program's weight references are checked after the schema (02 §8.11), in their own order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from strategies.json_edits import Edit
from strategies.scenario_cells.cell import ScenarioCell
from strategies.scenario_cells.encodings import block_quantized, dense, dense_affine, quantized

__all__ = ["CELLS"]

_EP: Final = "invalid_execution_plan"
_IMC: Final = "invalid_model_config"
_UWL: Final = "unknown_weight_layout"
_DOC: Final = ("family", "document")
_SCHEMA: Final = (*_DOC, "weight_schema")
_COMPONENTS: Final = (*_SCHEMA, "components")
_TENSORS: Final = (*_SCHEMA, "tensors")
_LAYOUT: Final = (*_TENSORS, 0, "physical_layout")
_WEIGHT_REFERENCE: Final = (*_DOC, "program", "weights", {"weight_id": "weight.matrix"})
_FAMILY: Final = {"family_id": "family.synthetic"}
_LAYOUT_ID: Final = {**_FAMILY, "layout_id": "weight-layout.dense"}
_AT_COMPONENTS: Final = {**_FAMILY, "field": "weight_schema.components"}
_AT_ENCODING: Final = {**_FAMILY, "field": "weight_schema.components.encoding"}
_AT_DIMENSIONS: Final = {**_FAMILY, "field": "weight_schema.components.dimensions"}
_AT_TENSORS: Final = {**_FAMILY, "field": "weight_schema.tensors"}
_AT_LAYOUT: Final = {**_FAMILY, "field": "weight_schema.tensors.weight.matrix.physical_layout"}
_AT_WEIGHTS: Final = {**_FAMILY, "field": "program.weights"}
#: An element count past u64 (02 §8.3: a failing ``physical_bytes`` is step 3e).
_OVERFLOWING: Final = (2**63, 4)
#: The reasons of the budget pass (02 §8.5) and of the step-3a check a tree within the budget meets next.
_DEPTH: Final = "physical weight layout exceeds maximum depth 16"
_NODES: Final = "physical weight layout exceeds maximum nodes 4096"
_ZERO_DIMENSION: Final = "component `weight.zero` has a zero dimension"
_DENSE: Final = {"dense": {"component_id": "weight.component"}}
#: A block-grid node: one node and two direct bindings, 3 of the budget's count (02 §8.5 ``direct``).
_EXACT: Final = {"component_id": "weight.component", "storage": {"contiguous": {"padding": "exact"}}}
_BLOCK_GRID: Final = {
    "quantized_block_grid": {"packed_values": _EXACT, "packed_dimensions": [4], "scales": _EXACT, "block_axes": [0, 1]}
}


def _component(role: str, encoding: Any, dimensions: tuple[int, ...] = (4,), name: str = "extra",
               external_names: list[str] | None = None) -> dict[str, Any]:  # fmt: skip
    """An unreferenced, optional weight component (its own checks run before any tensor's)."""
    names = [f"{name}.bin"] if external_names is None else external_names
    return {"id": f"weight.{name}", "role": role, "external_names": names, "dimensions": list(dimensions),
            "encoding": encoding, "required": False}  # fmt: skip


#: A component refused by step 3a, appended after the schema's own: what a tree within the budget meets next.
_ZERO_COMPONENT: Final = Edit(_COMPONENTS, "append", _component("values", dense("f32"), (4, 0), name="zero"))


def _appended(*components: dict[str, Any]) -> tuple[Edit, ...]:
    return tuple(Edit(_COMPONENTS, "append", component) for component in components)


def _cell(
    name: str, rule: str, kind: str, reason: str, edits: tuple[Edit, ...], fields: dict[str, Any]
) -> ScenarioCell:
    return ScenarioCell(name, rule, kind, reason, edits=edits, fields=fields)


# --------------------------------------------------------------------------- layout trees for the budget pass


def _nested(count: int) -> Callable[[Any], Any]:
    """The ``[4]`` tensor's layout wrapped in ``count`` single-part composites: depth ``count + 1``."""

    def wrap(layout: Any) -> Any:
        for _ in range(count):
            layout = {"composite": {"parts": [{"layout": layout, "logical_offsets": [0], "extents": [4]}]}}
        return layout

    return wrap


def _composite(dense: int, block_grids: int = 0) -> Callable[[Any], Any]:
    """A root composite over ``dense`` dense parts then ``block_grids`` block-grid parts: the budget pass counts
    1 + 2 per dense part + 3 per block-grid part, and never meets its push test (fewer than 4095 parts)."""

    def build(_: Any) -> Any:
        layouts = [_DENSE] * dense + [_BLOCK_GRID] * block_grids
        parts = [{"layout": layout, "logical_offsets": [0], "extents": [4]} for layout in layouts]
        return {"composite": {"parts": parts}}

    return build


def _experts(count: int) -> Callable[[Any], Any]:
    """An expert stack of ``count`` dense experts: 1 + 2 per expert in the budget pass (decision D-02-18)."""

    def build(_: Any) -> Any:
        return {"expert_stack": {"experts": [_DENSE] * count, "expert_axis": 0}}

    return build


def _budget_cells(name: str, rule: str, within: Callable[[Any], Any], past: Callable[[Any], Any],
                  reason: str) -> tuple[ScenarioCell, ScenarioCell]:  # fmt: skip
    """The tree at the limit (passes the budget pass, refused at step 3a) and the tree one step past it."""
    within_edits = (Edit(_LAYOUT, "apply", within), _ZERO_COMPONENT)
    past_edits = (Edit(_LAYOUT, "apply", past), _ZERO_COMPONENT)
    return (
        _cell(f"{name}_within_budget", rule, _IMC, _ZERO_DIMENSION, within_edits, _AT_COMPONENTS),
        _cell(f"{name}_over_budget", rule, _IMC, reason, past_edits, _AT_LAYOUT),
    )


# --------------------------------------------------------------------------- the program's weight references

#: The fixture's weight reference with another element type than its tensor (02 §8.11 step 4).
_REFERENCE_RETYPED: Final = Edit((*_WEIGHT_REFERENCE, "tensor", "element_type"), "set", "f16")
_UNKNOWN_REFERENCE: Final = {"weight_id": "weight.absent", "value_id": "value.absent",
                             "tensor": {"dimensions": [4], "element_type": "f32", "layout": "contiguous"}}  # fmt: skip
_REQUIRED_TENSOR: Final = {"id": "weight.unreferenced", "dimensions": [4], "logical_element_type": "f32",
                           "physical_layout": {"dense": {"component_id": "weight.unreferenced"}},
                           "required": True}  # fmt: skip


CELLS: Final[tuple[ScenarioCell, ...]] = (
    # 02.8.6 step 1: the schema's identity and lists
    _cell(
        "weight_schema_no_components",
        "02.8.6/no_components",
        _UWL,
        "weight-layout.dense",
        (Edit(_COMPONENTS, "set", []),),
        _LAYOUT_ID,
    ),
    # 02.8.5: the budget pass, each limit from both sides
    *_budget_cells("layout_16_deep", "02.8.5/budget_depth_16", _nested(15), _nested(16), _DEPTH),
    *_budget_cells("composite_4096_nodes", "02.8.5/budget_nodes_4096", _composite(2046, 1), _composite(2048), _NODES),
    *_budget_cells("expert_stack_2047", "02.8.5/budget_expert_boundary", _experts(2047), _experts(2048), _NODES),
    # 02.8.6 step 3a: a component's shape and names
    _cell(
        "component_external_names_empty",
        "02.8.6/empty_external_names",
        _IMC,
        "component `weight.extra` is duplicated or empty",
        _appended(_component("values", dense("f32"), external_names=[])),
        _AT_COMPONENTS,
    ),
    _cell(
        "component_dimensions_empty",
        "02.8.6/empty_component_dimensions",
        _IMC,
        "component `weight.extra` is duplicated or empty",
        _appended(_component("values", dense("f32"), ())),
        _AT_COMPONENTS,
    ),
    _cell(
        "component_external_name_blank",
        "02.8.6/blank_external_name",
        _IMC,
        "is blank or duplicated",
        _appended(_component("values", dense("f32"), external_names=["\u3000\t "])),
        _AT_COMPONENTS,
    ),
    # 02.8.2 / 02.8.6 step 3b: a quantization spec's own checks, raised bare
    _cell(
        "quantization_spec_error_not_wrapped",
        "02.8.6/quantization_spec_checked_bare",
        _EP,
        "bits_per_weight must be in 1..=8",
        _appended(_component("packed_values", quantized(bits_per_weight=0))),
        {},
    ),
    _cell(
        "block2d_group_not_power_of_two",
        "02.8.2/block2d_powers_of_two",
        _EP,
        "group sizes must be non-zero powers of two",
        _appended(_component("packed_values", quantized(grouping={"kind": "block2d", "block_shape": [4, 3]}))),
        {},
    ),
    _cell(
        "block_bytes_per_block_zero",
        "02.8.2/block_bytes_per_block_positive",
        _EP,
        "needs non-zero values and bytes per block",
        _appended(_component("packed_values", block_quantized(bytes_per_block=0))),
        {},
    ),
    # 02.8.6 step 3f: the encodings a role accepts
    _cell(
        "indices_role_float",
        "02.8.6/role_indices_encoding",
        _IMC,
        "role indices does not accept its encoding",
        _appended(_component("indices", dense("f32"))),
        _AT_ENCODING,
    ),
    _cell(
        "permutation_role_half",
        "02.8.6/role_permutation_encoding",
        _IMC,
        "role permutation does not accept its encoding",
        _appended(_component("permutation", dense("f16"))),
        _AT_ENCODING,
    ),
    _cell(
        "packed_values_role_dense",
        "02.8.6/role_packed_values_encoding",
        _IMC,
        "role packed_values does not accept its encoding",
        _appended(_component("packed_values", dense("u8"))),
        _AT_ENCODING,
    ),
    # 02.8.6 steps 3a-3f: one component's checks in order, each component's before the next one's
    _cell(
        "component_shape_before_spec",
        "02.8.6/component_checks_in_order",
        _IMC,
        "component `weight.extra` has a zero dimension",
        _appended(_component("packed_values", quantized(bits_per_weight=0), (4, 0))),
        _AT_COMPONENTS,
    ),
    _cell(
        "component_spec_before_abi",
        "02.8.6/component_checks_in_order",
        _EP,
        "bits_per_weight must be in 1..=8",
        _appended(
            _component("packed_values", quantized()),
            _component("packed_values", quantized(bits_per_weight=0), name="extra2"),
        ),
        {},
    ),
    _cell(
        "component_dense_affine_before_bytes",
        "02.8.6/component_checks_in_order",
        _IMC,
        "dense_affine needs role values and a float type",
        _appended(_component("scales", dense_affine("f32"), _OVERFLOWING)),
        _AT_ENCODING,
    ),
    _cell(
        "component_bytes_before_role",
        "02.8.6/component_checks_in_order",
        _IMC,
        "element count overflows u64",
        _appended(_component("zero_points", dense("f32"), _OVERFLOWING)),
        _AT_DIMENSIONS,
    ),
    _cell(
        "component_checks_before_next_component",
        "02.8.6/component_checks_in_order",
        _IMC,
        "role zero_points does not accept its encoding",
        _appended(_component("zero_points", dense("f32")), _component("values", dense("f32"), (4, 0), name="zero")),
        _AT_ENCODING,
    ),
    # 02.8.6 step 4a: a tensor's id and shape
    _cell(
        "tensor_id_duplicate",
        "02.8.6/duplicate_tensor_id",
        _IMC,
        "tensor `weight.matrix` is duplicated",
        (Edit(_TENSORS, "dup"),),
        _AT_TENSORS,
    ),
    _cell(
        "tensor_dimensions_empty",
        "02.8.6/empty_tensor_dimensions",
        _IMC,
        "tensor `weight.matrix` is duplicated or has empty/zero dimensions",
        (Edit((*_TENSORS, 0, "dimensions"), "set", []),),
        _AT_TENSORS,
    ),
    # 02.8.11: unknown references, then unreferenced required tensors, then each reference's shape
    _cell(
        "references_unknown_before_shape",
        "02.8.11/refs_order",
        _IMC,
        "program references unknown weight `weight.absent`",
        (Edit((*_DOC, "program", "weights"), "append", _UNKNOWN_REFERENCE), _REFERENCE_RETYPED),
        _AT_WEIGHTS,
    ),
    _cell(
        "references_required_before_shape",
        "02.8.11/refs_order",
        _IMC,
        "required weight `weight.unreferenced` is not referenced by the program",
        (
            Edit(_COMPONENTS, "append", {**_component("values", dense("f32"), name="unreferenced"), "required": True}),
            Edit(_TENSORS, "append", _REQUIRED_TENSOR),
            _REFERENCE_RETYPED,
        ),
        _AT_WEIGHTS,
    ),
)
