"""Targeted scenario cells: the layout validator's encoded and indirect layouts (02 §8.7).

Each cell adds to the plan fixture's weight schema one optional tensor laid out by one layout kind, with the
components it binds (a separate-scale quantized tensor, a block-grid one, self-contained blocks, an axis
reshape-permutation, an indexed gather, an expert stack), valid as a whole (``LAYOUTS``), then breaks exactly
one check of that kind. The schema's own checks (components, encodings, roles) all pass, so the layout
validator is the first to refuse, with ``invalid_model_config`` naming the tensor's ``physical_layout``.
Checks a kind makes through a shared binding (a component's dimensions against the shape the kind computes,
its element type against the type the kind needs) are met by a component whose dimensions or type are off.

``ACCEPTED_LAYOUTS`` are the worked examples and the values the rejection cells cannot show: each valid
layout is prepared to the reference's wire (``family_catalog``), with the rules its acceptance checks.
"""

from __future__ import annotations

from typing import Any, Final

from strategies.json_edits import Edit
from strategies.scenario_cells.cell import ScenarioCell

__all__ = ["ACCEPTED_LAYOUTS", "CELLS", "LAYOUTS"]

_IMC: Final = "invalid_model_config"
_SCHEMA: Final = ("family", "document", "weight_schema")
_COMPONENTS: Final = (*_SCHEMA, "components")
_TENSORS: Final = (*_SCHEMA, "tensors")
_U64_MAX: Final = 2**64 - 1
_SHAPE_MISMATCH: Final = "dimensions do not match the contiguous shape"


def _binding(component_id: str) -> dict[str, Any]:
    return {"component_id": component_id, "storage": {"contiguous": {"padding": "exact"}}}


def _dense(component_id: str, role: str, dimensions: list[int], element_type: str) -> dict[str, Any]:
    return {"id": component_id, "role": role, "external_names": [f"{component_id}.bin"], "dimensions": dimensions,
            "encoding": {"dense": {"element_type": element_type}}, "required": False}  # fmt: skip


def _packed(component_id: str, dimensions: list[int], encoding: dict[str, Any]) -> dict[str, Any]:
    return {"id": component_id, "role": "packed_values", "external_names": [f"{component_id}.bin"],
            "dimensions": dimensions, "encoding": encoding, "required": False}  # fmt: skip


def _quantized(format_id: str, grouping: dict[str, Any], zero_point_type: str | None) -> dict[str, Any]:
    return {"quantized": {"format_id": format_id, "bits_per_weight": 4, "grouping": grouping, "packing": "linear",
                          "scale_type": "f16", "zero_point_type": zero_point_type}}  # fmt: skip


_FIXED4: Final = {"kind": "fixed", "size": 4}
_Q4: Final = _quantized("quantization-format.q4", _FIXED4, "u8")
_Q4_PACKED_ZEROS: Final = _quantized("quantization-format.q4x", _FIXED4, "u8")
_GRID: Final = _quantized("quantization-format.grid", {"kind": "block2d", "block_shape": [2, 4]}, None)
_BLOCKS: Final = {"block_quantized": {"format_id": "quantization-format.q8-256", "logical_values_per_block": 256,
                                      "bytes_per_block": 272}}  # fmt: skip


def _tensor(tensor_id: str, dimensions: list[int], element_type: str, layout: dict[str, Any]) -> dict[str, Any]:
    return {"id": tensor_id, "dimensions": dimensions, "logical_element_type": element_type,
            "physical_layout": layout, "required": False}  # fmt: skip


#: Each layout kind's valid tensor: (its tensor id, the components it binds, the tensor).
_KINDS: Final[dict[str, tuple[str, tuple[dict[str, Any], ...], dict[str, Any]]]] = {
    # 02 §8.7's worked example: S=[8,8] f16 grouped by 4 on axis 1; packed [4,8] (32 B), scales [8,2] f16 (32 B),
    # zero points [8,2] u8 (16 B), axis indices [8] i32 (32 B): 112 B
    "quantized": (
        "weight.q",
        (
            _packed("weight.q.packed", [4, 8], _Q4),
            _dense("weight.q.scales", "scales", [8, 2], "f16"),
            _dense("weight.q.zeros", "zero_points", [8, 2], "u8"),
            _dense("weight.q.indices", "indices", [8], "i32"),
        ),
        _tensor(
            "weight.q",
            [8, 8],
            "f16",
            {
                "quantized": {
                    "packed_values": _binding("weight.q.packed"),
                    "packed_dimensions": [4, 8],
                    "scales": _binding("weight.q.scales"),
                    "zero_points": _binding("weight.q.zeros"),
                    "zero_point_packed_dimensions": None,
                    "axis_indices": {"component": _binding("weight.q.indices"), "axis": 1},
                    "permutation": None,
                    "codebook": None,
                    "group_axis": 1,
                    "group_padding": "exact",
                }
            },
        ),
    ),
    # S=[8,6] f16 grouped by 4 on axis 1, zero-filled to [8,8]: packed 32 B, scales [8,2] f16, zero points packed
    # into ceil(16 x 4 / 8) = 8 B, a [6] u32 permutation and a [2^4] f16 codebook
    "quantized_extended": (
        "weight.qx",
        (
            _packed("weight.qx.packed", [32], _Q4_PACKED_ZEROS),
            _dense("weight.qx.scales", "scales", [8, 2], "f16"),
            _dense("weight.qx.zeros", "zero_points", [8], "u8"),
            _dense("weight.qx.permutation", "permutation", [6], "u32"),
            _dense("weight.qx.codebook", "codebook", [16], "f16"),
        ),
        _tensor(
            "weight.qx",
            [8, 6],
            "f16",
            {
                "quantized": {
                    "packed_values": _binding("weight.qx.packed"),
                    "packed_dimensions": [32],
                    "scales": _binding("weight.qx.scales"),
                    "zero_points": _binding("weight.qx.zeros"),
                    "zero_point_packed_dimensions": [8],
                    "axis_indices": None,
                    "permutation": {"component": _binding("weight.qx.permutation"), "axis": 1},
                    "codebook": _binding("weight.qx.codebook"),
                    "group_axis": 1,
                    "group_padding": {"zero_fill": {"padded_dimensions": [8, 8]}},
                }
            },
        ),
    ),
    # S=[4,6] f16 in 2x4 blocks over axes (0, 1): packed ceil(24 x 4 / 8) = 12 B, scales [ceil(4/2), ceil(6/4)]
    "block_grid": (
        "weight.bg",
        (_packed("weight.bg.packed", [12], _GRID), _dense("weight.bg.scales", "scales", [2, 2], "f16")),
        _tensor(
            "weight.bg",
            [4, 6],
            "f16",
            {
                "quantized_block_grid": {
                    "packed_values": _binding("weight.bg.packed"),
                    "packed_dimensions": [12],
                    "scales": _binding("weight.bg.scales"),
                    "block_axes": [0, 1],
                }
            },
        ),
    ),
    # 02 §8.7's worked example: S=[2,300] zero-filled to [2,512] in blocks of 256 binds a [2,2] component
    "block_quantized": (
        "weight.bq",
        (_packed("weight.bq.blocks", [2, 2], _BLOCKS),),
        _tensor(
            "weight.bq",
            [2, 300],
            "f16",
            {
                "block_quantized": {
                    "blocks": _binding("weight.bq.blocks"),
                    "block_axis": 1,
                    "block_padding": {"zero_fill": {"padded_dimensions": [2, 512]}},
                }
            },
        ),
    ),
    # S=[4,8] f32 whose range [2, 6) of axis 1 is stored as [2,2] transposed; the values cover the whole S
    "reshape": (
        "weight.rp",
        (_dense("weight.rp.values", "values", [4, 8], "f32"),),
        _tensor(
            "weight.rp",
            [4, 8],
            "f32",
            {
                "axis_reshape_permutation": {
                    "values": {"dense": {"component_id": "weight.rp.values"}},
                    "axis": 1,
                    "logical_offset": 2,
                    "extent": 4,
                    "reshape": [2, 2],
                    "stored_axis_order": [1, 0],
                }
            },
        ),
    ),
    # S=[4,6] f32 gathered on axis 0 by [4] u8 indices from a [10,6] source
    "indexed": (
        "weight.ix",
        (_dense("weight.ix.indices", "indices", [4], "u8"), _dense("weight.ix.values", "values", [10, 6], "f32")),
        _tensor(
            "weight.ix",
            [4, 6],
            "f32",
            {
                "indexed": {
                    "indices": {"component": _binding("weight.ix.indices"), "axis": 0},
                    "values": {"dense": {"component_id": "weight.ix.values"}},
                    "source_axis_extent": 10,
                }
            },
        ),
    ),
    # S=[2,4] f32 stacked on axis 0 from two [4] experts
    "expert": (
        "weight.ex",
        (_dense("weight.ex.0", "values", [4], "f32"), _dense("weight.ex.1", "values", [4], "f32")),
        _tensor(
            "weight.ex",
            [2, 4],
            "f32",
            {
                "expert_stack": {
                    "experts": [{"dense": {"component_id": "weight.ex.0"}}, {"dense": {"component_id": "weight.ex.1"}}],
                    "expert_axis": 0,
                }
            },
        ),
    ),
}

#: Each layout kind's valid tensor and components, as edits of the plan fixture.
LAYOUTS: Final[dict[str, tuple[Edit, ...]]] = {
    kind: (*(Edit(_COMPONENTS, "append", component) for component in components), Edit(_TENSORS, "append", tensor))
    for kind, (_, components, tensor) in _KINDS.items()
}


def _component(component_id: str, *steps: str | int) -> tuple[str | int | dict[str, str], ...]:
    return (*_COMPONENTS, {"id": component_id}, *steps)


def _layout(kind: str, *steps: str | int) -> tuple[str | int | dict[str, str], ...]:
    """The path of the kind's layout (``steps`` below its variant's object)."""
    tensor_id, _, tensor = _KINDS[kind]
    variant = next(iter(tensor["physical_layout"]))
    return (*_TENSORS, {"id": tensor_id}, "physical_layout", variant, *steps)


def _tensor_field(kind: str, name: str) -> tuple[str | dict[str, str], ...]:
    return (*_TENSORS, {"id": _KINDS[kind][0]}, name)


def _cell(name: str, rule: str, kind: str, reason: str, *edits: Edit) -> ScenarioCell:
    """``kind``'s valid layout broken by ``edits``: refused naming the kind's tensor's ``physical_layout``."""
    field = f"weight_schema.tensors.{_KINDS[kind][0]}.physical_layout"
    return ScenarioCell(
        name,
        rule,
        _IMC,
        reason,
        edits=(*LAYOUTS[kind], *edits),
        fields={"family_id": "family.synthetic", "field": field},
    )


_Q: Final = "quantized"
_QX: Final = "quantized_extended"
_BG: Final = "block_grid"
_BQ: Final = "block_quantized"
_RP: Final = "reshape"
_IX: Final = "indexed"
_EX: Final = "expert"
_R: Final = "02.8.7/"

CELLS: Final[tuple[ScenarioCell, ...]] = (
    # quantized (separate scales)
    _cell(
        "quantized_integer_logical",
        f"{_R}quantized_float_logical",
        _Q,
        "quantized tensors need a float logical type",
        Edit(_tensor_field(_Q, "logical_element_type"), "set", "i32"),
    ),
    _cell(
        "quantized_group_axis_out_of_range",
        f"{_R}quantized_group_axis",
        _Q,
        "group axis out of range",
        Edit(_layout(_Q, "group_axis"), "set", 2),
    ),
    _cell(
        "quantized_packed_block_quantized",
        f"{_R}quantized_packed_component",
        _Q,
        "quantized layout needs a quantized packed component",
        Edit(_component("weight.q.packed", "encoding"), "set", _BLOCKS),
    ),
    _cell(
        "quantized_packed_unknown",
        f"{_R}quantized_packed_component",
        _Q,
        "quantized layout needs a quantized packed component",
        Edit(_layout(_Q, "packed_values", "component_id"), "set", "weight.q.nowhere"),
    ),
    _cell(
        "quantized_block2d_grouping",
        f"{_R}quantized_block2d_rejected",
        _Q,
        "quantized layout needs a one-axis grouping",
        Edit(
            _component("weight.q.packed", "encoding", "quantized", "grouping"),
            "set",
            {"kind": "block2d", "block_shape": [2, 2]},
        ),
    ),
    _cell(
        "quantized_packed_bytes_short",
        f"{_R}quantized_packed_byte_count",
        _Q,
        "packed dimensions do not hold exactly the packed bytes",
        Edit(_layout(_Q, "packed_dimensions"), "set", [4, 4]),
    ),
    _cell(
        "quantized_packed_bits_overflow",
        f"{_R}quantized_packed_byte_count",
        _Q,
        "packed bit count overflows u64",
        Edit(_tensor_field(_Q, "dimensions"), "set", [2**60, 8]),
    ),
    _cell(
        "quantized_packed_shape_transposed",
        f"{_R}quantized_packed_shape_equals_component",
        _Q,
        f"component `weight.q.packed` {_SHAPE_MISMATCH}",
        Edit(_layout(_Q, "packed_dimensions"), "set", [2, 16]),
    ),
    _cell(
        "quantized_scales_shape",
        f"{_R}quantized_scales_shape_dtype",
        _Q,
        f"component `weight.q.scales` {_SHAPE_MISMATCH}",
        Edit(_component("weight.q.scales", "dimensions"), "set", [2, 8]),
    ),
    _cell(
        "quantized_scales_type",
        f"{_R}quantized_scales_shape_dtype",
        _Q,
        "component `weight.q.scales` has the wrong element type for role scales",
        Edit(_component("weight.q.scales", "encoding", "dense", "element_type"), "set", "bf16"),
    ),
    _cell(
        "quantized_zero_points_shape",
        f"{_R}quantized_zero_points_unpacked",
        _Q,
        f"component `weight.q.zeros` {_SHAPE_MISMATCH}",
        Edit(_component("weight.q.zeros", "dimensions"), "set", [2, 8]),
    ),
    _cell(
        "quantized_zero_points_type",
        f"{_R}quantized_zero_points_unpacked",
        _Q,
        "component `weight.q.zeros` has the wrong element type for role zero_points",
        Edit(_component("weight.q.zeros", "encoding", "dense", "element_type"), "set", "i8"),
    ),
    _cell(
        "quantized_packed_zero_points_bytes",
        f"{_R}quantized_zero_points_packed",
        _QX,
        "packed zero points do not hold exactly the packed zero-point bytes",
        Edit(_component("weight.qx.zeros", "dimensions"), "set", [16]),
        Edit(_layout(_QX, "zero_point_packed_dimensions"), "set", [16]),
    ),
    _cell(
        "quantized_packed_zero_points_shape",
        f"{_R}quantized_zero_points_packed",
        _QX,
        f"component `weight.qx.zeros` {_SHAPE_MISMATCH}",
        Edit(_layout(_QX, "zero_point_packed_dimensions"), "set", [2, 4]),
    ),
    _cell(
        "quantized_zero_points_missing",
        f"{_R}quantized_zero_points_presence",
        _Q,
        "zero points must be present exactly when the spec declares a zero-point type",
        Edit(_layout(_Q, "zero_points"), "set", None),
    ),
    _cell(
        "quantized_zero_points_undeclared",
        f"{_R}quantized_zero_points_presence",
        _Q,
        "zero points must be present exactly when the spec declares a zero-point type",
        Edit(_component("weight.q.packed", "encoding", "quantized", "zero_point_type"), "set", None),
    ),
    _cell(
        "quantized_zero_point_dimensions_alone",
        f"{_R}quantized_zero_points_presence",
        _QX,
        "zero points must be present exactly when the spec declares a zero-point type",
        Edit(_layout(_QX, "zero_points"), "set", None),
    ),
    _cell(
        "quantized_axis_indices_axis",
        f"{_R}quantized_axis_indices",
        _Q,
        "indices component must index axis 1",
        Edit(_layout(_Q, "axis_indices", "axis"), "set", 0),
    ),
    _cell(
        "quantized_axis_indices_shape",
        f"{_R}quantized_axis_indices",
        _Q,
        f"component `weight.q.indices` {_SHAPE_MISMATCH}",
        Edit(_component("weight.q.indices", "dimensions"), "set", [4]),
    ),
    _cell(
        "quantized_permutation_narrow_type",
        f"{_R}quantized_permutation",
        _QX,
        "component `weight.qx.permutation` has the wrong element type for role permutation",
        Edit(_component("weight.qx.permutation", "encoding", "dense", "element_type"), "set", "u8"),
    ),
    _cell(
        "quantized_permutation_axis",
        f"{_R}quantized_permutation",
        _QX,
        "permutation component must index axis 1",
        Edit(_layout(_QX, "permutation", "axis"), "set", 0),
    ),
    _cell(
        "quantized_codebook_shape",
        f"{_R}quantized_codebook",
        _QX,
        f"component `weight.qx.codebook` {_SHAPE_MISMATCH}",
        Edit(_component("weight.qx.codebook", "dimensions"), "set", [8]),
    ),
    _cell(
        "quantized_codebook_type",
        f"{_R}quantized_codebook",
        _QX,
        "component `weight.qx.codebook` has the wrong element type for role codebook",
        Edit(_component("weight.qx.codebook", "encoding", "dense", "element_type"), "set", "f32"),
    ),
    # quantized_block_grid
    _cell(
        "block_grid_integer_logical",
        f"{_R}block_grid_float_logical",
        _BG,
        "block-grid quantized tensors need a float logical type",
        Edit(_tensor_field(_BG, "logical_element_type"), "set", "u8"),
    ),
    _cell(
        "block_grid_axes_descending",
        f"{_R}block_grid_axes",
        _BG,
        "block axes must be increasing and in range",
        Edit(_layout(_BG, "block_axes"), "set", [1, 0]),
    ),
    _cell(
        "block_grid_axis_out_of_range",
        f"{_R}block_grid_axes",
        _BG,
        "block axes must be increasing and in range",
        Edit(_layout(_BG, "block_axes"), "set", [0, 2]),
    ),
    _cell(
        "block_grid_fixed_grouping",
        f"{_R}block_grid_block2d_component",
        _BG,
        "block-grid layout needs a quantized component with block2d grouping",
        Edit(_component("weight.bg.packed", "encoding", "quantized", "grouping"), "set", _FIXED4),
    ),
    _cell(
        "block_grid_zero_point_type",
        f"{_R}block_grid_no_zero_points",
        _BG,
        "block-grid quantization has no zero points",
        Edit(_component("weight.bg.packed", "encoding", "quantized", "zero_point_type"), "set", "u8"),
    ),
    _cell(
        "block_grid_packed_dimensions_empty",
        f"{_R}block_grid_packed_dims",
        _BG,
        "block-grid packed dimensions are invalid",
        Edit(_layout(_BG, "packed_dimensions"), "set", []),
    ),
    _cell(
        "block_grid_packed_bytes_short",
        f"{_R}block_grid_packed_dims",
        _BG,
        "block-grid packed dimensions do not hold exactly the packed bytes",
        Edit(_layout(_BG, "packed_dimensions"), "set", [6]),
    ),
    _cell(
        "block_grid_scales_rounded_down",
        f"{_R}block_grid_scales",
        _BG,
        f"component `weight.bg.scales` {_SHAPE_MISMATCH}",
        Edit(_component("weight.bg.scales", "dimensions"), "set", [2, 1]),
    ),
    _cell(
        "block_grid_scales_type",
        f"{_R}block_grid_scales",
        _BG,
        "component `weight.bg.scales` has the wrong element type for role scales",
        Edit(_component("weight.bg.scales", "encoding", "dense", "element_type"), "set", "f32"),
    ),
    # block_quantized (self-contained blocks)
    _cell(
        "block_quantized_integer_logical",
        f"{_R}block_quantized_float_logical",
        _BQ,
        "block quantized tensors need a float logical type",
        Edit(_tensor_field(_BQ, "logical_element_type"), "set", "i8"),
    ),
    _cell(
        "block_quantized_axis_out_of_range",
        f"{_R}block_quantized_axis",
        _BQ,
        "block axis out of range",
        Edit(_layout(_BQ, "block_axis"), "set", 2),
    ),
    _cell(
        "block_quantized_separate_scale_component",
        f"{_R}block_quantized_component",
        _BQ,
        "block quantized layout needs a block_quantized component",
        Edit(_component("weight.bq.blocks", "encoding"), "set", _Q4),
    ),
    _cell(
        "block_quantized_grid_undivided",
        f"{_R}block_quantized_grid_dims",
        _BQ,
        f"component `weight.bq.blocks` {_SHAPE_MISMATCH}",
        Edit(_component("weight.bq.blocks", "dimensions"), "set", [2, 512]),
    ),
    _cell(
        "block_quantized_padding_not_minimal",
        f"{_R}block_quantized_example_rejected",
        _BQ,
        "zero-fill group padding must be the unique minimal group padding",
        Edit(_layout(_BQ, "block_padding", "zero_fill", "padded_dimensions"), "set", [2, 768]),
    ),
    # axis_reshape_permutation
    _cell(
        "reshape_axis_out_of_range",
        f"{_R}reshape_axis_extent",
        _RP,
        "reshape axis out of range or zero extent",
        Edit(_layout(_RP, "axis"), "set", 2),
    ),
    _cell(
        "reshape_zero_extent",
        f"{_R}reshape_axis_extent",
        _RP,
        "reshape axis out of range or zero extent",
        Edit(_layout(_RP, "extent"), "set", 0),
    ),
    _cell(
        "reshape_range_past_axis",
        f"{_R}reshape_bounds",
        _RP,
        "reshaped range is out of bounds",
        Edit(_layout(_RP, "logical_offset"), "set", 6),
    ),
    _cell(
        "reshape_range_end_overflows",
        f"{_R}reshape_bounds",
        _RP,
        "reshaped range is out of bounds",
        Edit(_layout(_RP, "logical_offset"), "set", _U64_MAX),
    ),
    _cell(
        "reshape_one_axis",
        f"{_R}reshape_shape",
        _RP,
        "reshape must have >= 2 non-zero axes whose product is the extent",
        Edit(_layout(_RP, "reshape"), "set", [4]),
        Edit(_layout(_RP, "stored_axis_order"), "set", [0]),
    ),
    _cell(
        "reshape_product_not_extent",
        f"{_R}reshape_shape",
        _RP,
        "reshape must have >= 2 non-zero axes whose product is the extent",
        Edit(_layout(_RP, "reshape"), "set", [2, 3]),
    ),
    _cell(
        "reshape_order_entry_out_of_range",
        f"{_R}reshape_order_permutation",
        _RP,
        "stored axis order must be a permutation of the reshape axes",
        Edit(_layout(_RP, "stored_axis_order"), "set", [2, 0]),
    ),
    _cell(
        "reshape_order_repeated",
        f"{_R}reshape_order_permutation",
        _RP,
        "stored axis order must be a permutation of the reshape axes",
        Edit(_layout(_RP, "stored_axis_order"), "set", [1, 1]),
    ),
    _cell(
        "reshape_order_identity",
        f"{_R}reshape_not_identity",
        _RP,
        "stored axis order is an identity permutation",
        Edit(_layout(_RP, "stored_axis_order"), "set", [0, 1]),
    ),
    _cell(
        "reshape_order_identity_past_unit_axes",
        f"{_R}reshape_not_identity",
        _RP,
        "stored axis order is an identity permutation",
        Edit(_layout(_RP, "reshape"), "set", [1, 2, 2]),
        Edit(_layout(_RP, "stored_axis_order"), "set", [1, 0, 2]),
    ),
    _cell(
        "reshape_values_range_shape",
        f"{_R}reshape_values_full_shape",
        _RP,
        f"component `weight.rp.values` {_SHAPE_MISMATCH}",
        Edit(_component("weight.rp.values", "dimensions"), "set", [4, 4]),
    ),
    # indexed
    _cell(
        "indexed_axis_out_of_range",
        f"{_R}indexed_axis_source_extent",
        _IX,
        "indexed layout needs an in-range axis and a non-zero source extent",
        Edit(_layout(_IX, "indices", "axis"), "set", 2),
    ),
    _cell(
        "indexed_zero_source_extent",
        f"{_R}indexed_axis_source_extent",
        _IX,
        "indexed layout needs an in-range axis and a non-zero source extent",
        Edit(_layout(_IX, "source_axis_extent"), "set", 0),
    ),
    _cell(
        "indexed_indices_shape",
        f"{_R}indexed_indices_narrow",
        _IX,
        f"component `weight.ix.indices` {_SHAPE_MISMATCH}",
        Edit(_component("weight.ix.indices", "dimensions"), "set", [6]),
    ),
    _cell(
        "indexed_values_tensor_shape",
        f"{_R}indexed_values_shape",
        _IX,
        f"component `weight.ix.values` {_SHAPE_MISMATCH}",
        Edit(_component("weight.ix.values", "dimensions"), "set", [4, 6]),
    ),
    _cell(
        "indexed_source_shape_overflows",
        f"{_R}indexed_values_shape",
        _IX,
        "layout shape must be non-empty, non-zero and within u64",
        Edit(_layout(_IX, "source_axis_extent"), "set", _U64_MAX),
    ),
    # expert_stack
    _cell(
        "expert_axis_out_of_range",
        f"{_R}expert_axis",
        _EX,
        "expert axis out of range",
        Edit(_layout(_EX, "expert_axis"), "set", 2),
    ),
    _cell(
        "expert_count_short",
        f"{_R}expert_count",
        _EX,
        "expert stack needs exactly one layout per expert",
        Edit(_layout(_EX, "experts"), "drop", 1),
    ),
    _cell(
        "expert_list_empty",
        f"{_R}expert_count",
        _EX,
        "expert stack needs exactly one layout per expert",
        Edit(_layout(_EX, "experts"), "set", []),
    ),
    _cell(
        "expert_rank_one",
        f"{_R}expert_rank_two",
        _EX,
        "expert stack needs a tensor of rank >= 2",
        Edit(_tensor_field(_EX, "dimensions"), "set", [2]),
    ),
)

#: Valid layouts and the rule each one's acceptance checks (a worked example, the shape a child or a binding is
#: validated with, the narrow index types): name -> (edits of the plan fixture, rules).
ACCEPTED_LAYOUTS: Final[dict[str, tuple[tuple[Edit, ...], tuple[str, ...]]]] = {
    "layout_quantized_worked_example": (LAYOUTS[_Q], (f"{_R}quantized_worked_example",)),
    "layout_block_quantized_worked_example": (LAYOUTS[_BQ], (f"{_R}block_quantized_example_accepted",)),
    "layout_reshape_values_full_shape": (LAYOUTS[_RP], (f"{_R}reshape_values_full_shape",)),
    "layout_indexed_narrow_indices": (LAYOUTS[_IX], (f"{_R}indexed_indices_narrow",)),
    "layout_expert_stack": (LAYOUTS[_EX], (f"{_R}expert_child_shape",)),
}
