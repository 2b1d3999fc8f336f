"""Targeted scenario cells: the physical layout validator (02 §8.7; see ``strategies.scenario_cells``).

Each cell appends to the plan fixture's weight schema one optional tensor, ``weight.laid``, with the components
its layout binds, and breaks exactly one check of the layout validator: the same layout with that one check
satisfied is accepted (``ACCEPTED`` holds the valid layouts the cells start from). Every failure of the
validator is the same ``invalid_model_config`` naming the tensor's layout field, so an input that broke two
checks would not tell a backend missing one of them from the reference; one broken check does.

The schema's earlier steps stay satisfied: every component is valid on its own (02 §8.6 step 3), the layout
is within the depth and node budget (step 2), and the plan fixture's own tensor is validated first and passes.
"""

from __future__ import annotations

from typing import Any, Final

from strategies.json_edits import Edit
from strategies.scenario_cells.cell import ScenarioCell

__all__ = ["ACCEPTED", "CELLS", "TILED_WORKED_EXAMPLE"]

_IMC: Final = "invalid_model_config"
_SCHEMA: Final = ("family", "document", "weight_schema")
_TENSOR: Final = "weight.laid"
_FIELDS: Final = {"family_id": "family.synthetic", "field": f"weight_schema.tensors.{_TENSOR}.physical_layout"}
_EXACT: Final = "exact"
_U64: Final = 2**64
_SHAPE_OK: Final = "layout shape must be non-empty, non-zero and within u64"
_ZERO_FILL: Final = "zero-fill padding must strictly enlarge the logical shape without shrinking any axis"
_TILED: Final = "tiled storage needs rank-sized tile shape, axis order permutation and tile strides"
_PART: Final = "has a rank mismatch or a zero extent"
_MINIMAL_GROUP: Final = "zero-fill group padding must be the unique minimal group padding"

Json = dict[str, Any]
Laid = tuple[list[int], str, Json, tuple[Json, ...]]
"""One tensor's dimensions, logical element type and layout, with the components the layout binds."""


# --------------------------------------------------------------------------- components


def _component(name: str, role: str, dimensions: list[int], encoding: Json) -> Json:
    return {"id": f"weight.{name}", "role": role, "external_names": [f"laid/{name}.bin"], "dimensions": dimensions,
            "encoding": encoding, "required": False}  # fmt: skip


def _dense(name: str, dimensions: list[int], element_type: str = "f32", role: str = "values") -> Json:
    return _component(name, role, dimensions, {"dense": {"element_type": element_type}})


def _blocks(name: str, dimensions: list[int], per_block: int = 256, bytes_per_block: int = 144) -> Json:
    spec = {"format_id": "quantization-format.laid-blocks", "logical_values_per_block": per_block,
            "bytes_per_block": bytes_per_block}  # fmt: skip
    return _component(name, "packed_values", dimensions, {"block_quantized": spec})


def _packed(name: str, dimensions: list[int]) -> Json:
    spec = {"format_id": "quantization-format.laid-q4", "bits_per_weight": 4, "grouping": {"kind": "fixed", "size": 4},
            "packing": "linear", "scale_type": "f16", "zero_point_type": None}  # fmt: skip
    return _component(name, "packed_values", dimensions, {"quantized": spec})


# --------------------------------------------------------------------------- bindings and layouts


def _padding(padded: list[int] | None) -> Any:
    return _EXACT if padded is None else {"zero_fill": {"padded_dimensions": padded}}


def _contiguous(padded: list[int] | None = None) -> Json:
    return {"contiguous": {"padding": _padding(padded)}}


def _strided(strides: list[int], padded: list[int] | None = None) -> Json:
    return {"strided": {"strides_in_elements": strides, "padding": _padding(padded)}}


def _tiled(tile: list[int], order: list[int], strides: list[int], padded: list[int] | None = None) -> Json:
    return {"tiled": {"tile_shape": tile, "axis_order": order, "tile_strides_in_elements": strides,
                      "padding": _padding(padded)}}  # fmt: skip


def _bind(name: str, storage: Json | None = None) -> Json:
    return {"component_id": f"weight.{name}", "storage": storage or _contiguous()}


def _dense_layout(name: str) -> Json:
    return {"dense": {"component_id": f"weight.{name}"}}


def _stored(name: str, storage: Json) -> Json:
    return {"stored": {"component": _bind(name, storage)}}


def _part(layout: Json, offsets: list[int], extents: list[int]) -> Json:
    return {"layout": layout, "logical_offsets": offsets, "extents": extents}


def _composite(*parts: Json) -> Json:
    return {"composite": {"parts": list(parts)}}


def _block_quantized(padded: list[int] | None = None) -> Json:
    return {"block_quantized": {"blocks": _bind("blocks"), "block_axis": 1, "block_padding": _padding(padded)}}


def _quantized(axis_indices: Json | None = None, permutation: Json | None = None) -> Json:
    """02 §8.7's worked example without zero points: S=[8,8], group axis 1, fixed groups of 4, 4 bits."""
    return {"quantized": {"packed_values": _bind("packed"), "packed_dimensions": [4, 8], "scales": _bind("scales"),
                          "zero_points": None, "zero_point_packed_dimensions": None, "axis_indices": axis_indices,
                          "permutation": permutation, "codebook": None, "group_axis": 1,
                          "group_padding": _EXACT}}  # fmt: skip


def _axis(name: str, axis: int) -> Json:
    return {"component": _bind(name), "axis": axis}


_QUANTIZED_COMPONENTS: Final = (_packed("packed", [4, 8]), _dense("scales", [8, 2], "f16", "scales"))


def _laid(laid: Laid) -> tuple[Edit, ...]:
    """The plan fixture's weight schema with the components and the optional tensor ``weight.laid`` appended."""
    dimensions, element_type, layout, components = laid
    tensor = {"id": _TENSOR, "dimensions": dimensions, "logical_element_type": element_type,
              "physical_layout": layout, "required": False}  # fmt: skip
    return (
        *(Edit((*_SCHEMA, "components"), "append", component) for component in components),
        Edit((*_SCHEMA, "tensors"), "append", tensor),
    )


def _tiled_example(
    dimensions: list[int] | None = None,
    tile: list[int] | None = None,
    order: list[int] | None = None,
    strides: list[int] | None = None,
    padded: list[int] | None = None,
    raw: list[int] | None = None,
) -> Laid:
    """02 §8.7's tiled worked example (logical [4,6], raw [6,4], tile [2,3], order [1,0], strides [12,6]), with
    the given parts changed."""
    storage = _tiled(tile or [2, 3], order or [1, 0], strides or [12, 6], padded)
    return dimensions or [4, 6], "f32", _stored("tiles", storage), (_dense("tiles", raw or [6, 4]),)


#: The tiled worked example of 02 §8.7 on the plan fixture: accepted, span 6 -> 12 -> 24 = the raw [6,4].
TILED_WORKED_EXAMPLE: Final = _laid(_tiled_example())

#: The valid layouts the cells break, each accepted as it stands (checked by the project's tests).
ACCEPTED: Final[dict[str, Laid]] = {
    "dense": ([4], "f32", _dense_layout("values"), (_dense("values", [4]),)),
    "zero_filled": ([4, 4], "f32", _stored("values", _contiguous([4, 8])), (_dense("values", [4, 8]),)),
    "strided_worked_example": ([2, 3], "f32", _stored("values", _strided([4, 1], [2, 4])), (_dense("values", [8]),)),
    "strided_unpadded": ([2, 3], "f32", _stored("values", _strided([1, 2])), (_dense("values", [6]),)),
    "tiled_worked_example": _tiled_example(),
    "tiled_zero_filled": _tiled_example([3, 6], padded=[4, 6], strides=[6, 12], raw=[24]),
    "block_quantized_exact": ([2, 512], "f32", _block_quantized(), (_blocks("blocks", [2, 2]),)),
    "block_quantized_zero_filled": ([2, 300], "f32", _block_quantized([2, 512]), (_blocks("blocks", [2, 2]),)),
    "quantized_axis_components": (
        [8, 8],
        "f16",
        _quantized(_axis("gather", 1), _axis("order", 1)),
        (*_QUANTIZED_COMPONENTS, _dense("gather", [8], "i32", "indices"), _dense("order", [8], "u32", "permutation")),
    ),
    "composite": (
        [4],
        "f32",
        _composite(_part(_dense_layout("low"), [0], [2]), _part(_dense_layout("high"), [2], [2])),
        (_dense("low", [2]), _dense("high", [2])),
    ),
}


def _cell(name: str, rule: str, reason: str, laid: Laid) -> ScenarioCell:
    return ScenarioCell(name, rule, _IMC, reason, edits=_laid(laid), fields=_FIELDS)


CELLS: Final[tuple[ScenarioCell, ...]] = (
    # every layout node's semantic shape: [2^32, 2^32] overflows u64 (an indexed layout whose gathered source
    # [1, 2^32] and indices [2^32] both fit, so nothing else of the tree fails)
    _cell(
        "layout_shape_overflows",
        "02.8.7/shape_ok",
        _SHAPE_OK,
        (
            [2**32, 2**32],
            "f32",
            {"indexed": {"indices": _axis("gather", 0), "values": _dense_layout("rows"), "source_axis_extent": 1}},
            (_dense("gather", [2**32], "u32", "indices"), _dense("rows", [1, 2**32])),
        ),
    ),
    # bind: the component exists, has the binding's role, and is bound once in the whole schema
    _cell(
        "binding_unknown_component",
        "02.8.7/bind_unknown_component",
        "unknown component `weight.nowhere`",
        ([4], "f32", _dense_layout("nowhere"), ()),
    ),
    _cell(
        "binding_role_mismatch",
        "02.8.7/bind_role_mismatch",
        "has role scales, expected values",
        ([4], "f32", _dense_layout("values"), (_dense("values", [4], role="scales"),)),
    ),
    _cell(
        "binding_component_bound_twice",
        "02.8.7/bind_referenced_twice",
        "`weight.component` is referenced more than once",
        ([4], "f32", _dense_layout("component"), ()),
    ),
    # dense / stored: the component's element type is the tensor's logical type
    _cell(
        "dense_element_type_differs",
        "02.8.7/dense_dtype_equals_logical",
        "has the wrong element type for role values",
        ([4], "f32", _dense_layout("values"), (_dense("values", [4], "f16"),)),
    ),
    # contiguous storage: the component's dimensions are the (padded) shape
    _cell(
        "contiguous_dimensions_differ",
        "02.8.7/contiguous_dims_equal",
        "dimensions do not match the contiguous shape",
        ([4], "f32", _dense_layout("values"), (_dense("values", [2, 2]),)),
    ),
    # zero-fill padding: the semantic rank, no axis shrunk, the shape strictly enlarged
    _cell(
        "zero_fill_rank_differs",
        "02.8.7/zero_fill_rank",
        _ZERO_FILL,
        ([4], "f32", _stored("values", _contiguous([8, 1])), (_dense("values", [8, 1]),)),
    ),
    _cell(
        "zero_fill_shrinks_an_axis",
        "02.8.7/zero_fill_not_smaller",
        _ZERO_FILL,
        ([4, 4], "f32", _stored("values", _contiguous([2, 8])), (_dense("values", [2, 8]),)),
    ),
    _cell(
        "zero_fill_equals_the_shape",
        "02.8.7/zero_fill_strictly_enlarges",
        _ZERO_FILL,
        ([4], "f32", _stored("values", _contiguous([4])), (_dense("values", [4]),)),
    ),
    # strided storage (the worked example [2,3] zero-filled to [2,4], strides [4,1], spans 8)
    _cell(
        "strided_span_short_of_raw",
        "02.8.7/strided_span_equals_raw",
        "strided storage of `weight.values` does not span exactly its raw elements",
        ([2, 3], "f32", _stored("values", _strided([4, 1], [2, 4])), (_dense("values", [9]),)),
    ),
    _cell(
        "strided_strides_overlap",
        "02.8.7/span_rejects_overlap",
        "strided storage of `weight.values` does not span exactly its raw elements",
        ([2, 3], "f32", _stored("values", _strided([1, 1])), (_dense("values", [4]),)),
    ),
    _cell(
        "strided_strides_length_differs",
        "02.8.7/span_rejects_malformed",
        "strided storage of `weight.values` does not span exactly its raw elements",
        ([2, 3], "f32", _stored("values", _strided([4, 1, 1], [2, 4])), (_dense("values", [8]),)),
    ),
    # tiled storage, each a change of the worked example
    _cell("tiled_tile_rank_differs", "02.8.7/tiled_tile_rank", _TILED, _tiled_example(tile=[2, 3, 1])),
    _cell("tiled_axis_order_repeats", "02.8.7/tiled_axis_order_permutation", _TILED, _tiled_example(order=[1, 1])),
    _cell("tiled_strides_rank_differs", "02.8.7/tiled_strides_rank", _TILED, _tiled_example(strides=[12, 6, 1])),
    _cell(
        "tiled_tile_not_dividing",
        "02.8.7/tiled_exact_multiple",
        "exact tiled storage needs every axis to be a multiple of its tile",
        _tiled_example(tile=[3, 3], strides=[9, 18], raw=[18]),
    ),
    _cell(
        "tiled_padding_not_minimal",
        "02.8.7/tiled_zero_fill_minimal",
        "zero-fill tile padding must be the unique minimal tile padding",
        _tiled_example([3, 6], padded=[6, 6], strides=[6, 12], raw=[36]),
    ),
    _cell(
        "tiled_span_short_of_raw",
        "02.8.7/tiled_span_equals_raw",
        "tiled storage of `weight.tiles` does not span exactly its raw elements",
        _tiled_example(raw=[6, 5]),
    ),
    # group padding, met through block_quantized (256 values per block along axis 1)
    _cell(
        "group_axis_not_a_multiple",
        "02.8.7/grouped_exact_multiple",
        "exact grouping needs the axis to be a multiple of the group",
        ([2, 300], "f32", _block_quantized(), (_blocks("blocks", [2, 1]),)),
    ),
    _cell(
        "group_zero_fill_of_a_multiple",
        "02.8.7/grouped_zero_fill_enlarges",
        "zero-fill group padding must enlarge the grouped axis",
        ([2, 512], "f32", _block_quantized([2, 512]), (_blocks("blocks", [2, 2]),)),
    ),
    _cell(
        "group_zero_fill_pads_another_axis",
        "02.8.7/grouped_zero_fill_minimal",
        _MINIMAL_GROUP,
        ([2, 300], "f32", _block_quantized([4, 512]), (_blocks("blocks", [4, 2]),)),
    ),
    _cell(
        "group_zero_fill_rank_differs",
        "02.8.7/grouped_zero_fill_minimal",
        "zero-fill group padding rank mismatch",
        ([2, 300], "f32", _block_quantized([2, 512, 1]), (_blocks("blocks", [2, 2, 1]),)),
    ),
    # round_up(2^64 - 1, 3) overflows its checked add, though 3 divides 2^64 - 1
    _cell(
        "group_round_up_overflows",
        "02.8.7/grouped_not_computable",
        "group padding is not computable",
        (
            [1, _U64 - 1],
            "f32",
            _block_quantized(),
            (_blocks("blocks", [1, (_U64 - 1) // 3], per_block=3, bytes_per_block=1),),
        ),
    ),
    # axis components of a quantized layout index its group axis; a permutation is u32 or i32
    _cell(
        "axis_indices_on_another_axis",
        "02.8.7/axis_component_axis",
        "indices component must index axis 1",
        (
            [8, 8],
            "f16",
            _quantized(_axis("gather", 0)),
            (*_QUANTIZED_COMPONENTS, _dense("gather", [8], "i32", "indices")),
        ),
    ),
    _cell(
        "permutation_narrow_type",
        "02.8.7/axis_component_wide_dtype",
        "has the wrong element type for role permutation",
        (
            [8, 8],
            "f16",
            _quantized(permutation=_axis("order", 1)),
            (*_QUANTIZED_COMPONENTS, _dense("order", [8], "u8", "permutation")),
        ),
    ),
    # composite: parts of the tensor's rank, in bounds, disjoint, covering it exactly
    _cell(
        "composite_part_rank_differs",
        "02.8.7/composite_part_rank",
        f"composite part 0 {_PART}",
        ([4], "f32", _composite(_part(_dense_layout("values"), [0, 0], [4, 1])), (_dense("values", [4, 1]),)),
    ),
    _cell(
        "composite_part_out_of_bounds",
        "02.8.7/composite_out_of_bounds",
        "composite part 0 is out of bounds",
        ([4], "f32", _composite(_part(_dense_layout("values"), [1], [4])), (_dense("values", [4]),)),
    ),
    _cell(
        "composite_parts_overlap",
        "02.8.7/composite_overlap",
        "composite part 1 overlaps an earlier part",
        (
            [4],
            "f32",
            _composite(_part(_dense_layout("low"), [0], [2]), _part(_dense_layout("high"), [1], [2])),
            (_dense("low", [2]), _dense("high", [2])),
        ),
    ),
    _cell(
        "composite_parts_leave_a_gap",
        "02.8.7/composite_exact_cover",
        "composite parts do not cover the tensor exactly",
        ([4], "f32", _composite(_part(_dense_layout("low"), [0], [2])), (_dense("low", [2]),)),
    ),
)
