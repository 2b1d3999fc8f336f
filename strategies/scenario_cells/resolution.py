"""Targeted scenario cells: resolution checks (see ``strategies.scenario_cells``).

Node resolutions (04 §5, §9) are edited in the scenario's ``resolutions`` section: a binding valid by
itself but wrong against its operation contract or its program value, or a tensor, storage or weight
binding whose constructor check sits behind the decoder's. Estimate checks (04 §7) come from an
estimator of ``registry.estimators`` that declares its estimate.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from reference.catalog.tensor_contract import RangeDimension
from reference.documents.catalog import catalog_to_document
from seeds.catalogs import catalog_with_operation, operation
from strategies.budget import base_scenario
from strategies.json_edits import Edit, apply_edits
from strategies.scenario_cells.cell import ScenarioCell

_U64_MAX: Final = (1 << 64) - 1
_SERIAL: Final = "serialization"
_PLAN: Final = "invalid_execution_plan"


def _value(value_id: str, *rest: Any) -> tuple[Any, ...]:
    """The path of a member of the ``value_id`` binding of the first node resolution."""
    return ("resolutions", 0, "values", {"value_id": value_id}, *rest)


def _contiguous_storage() -> dict[str, Any]:
    return {"accepted_profiles": [{"allocator": "linear_arena", "view": "contiguous"}]}


def _estimate(scratch_formula: dict[str, Any], *, scratch_alignment: int = 16) -> dict[str, Any]:
    """A declared estimate: ``scratch_formula`` invocation scratch and a fixed plan-scoped persistent."""
    return {
        "value_alignment_bytes": 16,
        "scratch": {
            "size_formula": scratch_formula,
            "alignment_bytes": scratch_alignment,
            "scope": "invocation",
            "reuse_policy": "overwrite_before_read",
            "storage": _contiguous_storage(),
        },
        "persistent": {
            "size_formula": {"fixed": {"bytes": 32}},
            "alignment_bytes": 16,
            "scope": "plan",
            "reuse_policy": "preserve",
            "storage": _contiguous_storage(),
        },
        "binding": None,
    }


def _declared(estimate: dict[str, Any]) -> tuple[Edit, ...]:
    """The first estimator answers with ``estimate`` (no scratch or persistent bytes of its own)."""
    at = ("registry", "estimators", 0)
    return (
        Edit((*at, "scratch_bytes"), "set", 0),
        Edit((*at, "persistent_bytes"), "set", 0),
        Edit((*at, "estimate"), "set", estimate),
    )


def _extra_component(component_id: str) -> Any:
    """Give a storage a second component ``component_id`` on its own resource; the first keeps its
    identity (an anonymous first component is named ``component.first``, as composite storage needs)."""

    def edit(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first = {**components[0], "component_id": components[0]["component_id"] or "component.first"}
        return [first, {**first, "component_id": component_id, "resource_id": "resource.extra"}]

    return edit


def _weight_shorter_than_program() -> dict[str, Any]:
    """The plan fixture whose operation takes a weight of 1..=8 elements, bound as 2 elements (program: 4)."""
    base = operation()
    inputs = list(base.inputs)
    inputs[1] = dataclasses.replace(inputs[1], dimensions=(RangeDimension(1, 8),))
    scenario = base_scenario("plan_fixture")
    scenario["catalog"] = catalog_to_document(catalog_with_operation(dataclasses.replace(base, inputs=tuple(inputs))))
    edited: dict[str, Any] = apply_edits(
        scenario,
        (
            Edit(_value("value.weight", "tensor", "dimensions"), "set", [2]),
            Edit(_value("value.weight", "weight", "components", 0, "physical_dimensions"), "set", [2]),
            Edit(_value("value.weight", "storage", "components", 0, "length_bytes"), "set", 8),
        ),
    )
    return edited


def _nested_layout(depth: int) -> dict[str, Any]:
    """A weight layout of ``depth`` composite levels around the dense layout of ``weight.component``."""
    layout: dict[str, Any] = {"dense": {"component_id": "weight.component"}}
    for _ in range(depth):
        layout = {"composite": {"parts": [{"layout": layout, "logical_offsets": [0], "extents": [4]}]}}
    return layout


def _outputs_overlap() -> dict[str, Any]:
    """The plan fixture's node with a second output (operation, program node and profile boundaries) whose
    binding has the first output's storage."""
    base = operation()
    scenario = base_scenario("plan_fixture")
    scenario["catalog"] = catalog_to_document(
        catalog_with_operation(dataclasses.replace(base, outputs=(*base.outputs, base.outputs[0])))
    )
    node = ("family", "document", "program", "blocks", 0, "nodes", 0, "outputs")

    def second_output(values: list[dict[str, Any]]) -> list[dict[str, Any]]:
        output = next(v for v in values if v["role"] == "output")
        return [*values, {**output, "value_id": "value.output.second", "ordinal": 1}]

    edited: dict[str, Any] = apply_edits(
        scenario,
        (
            Edit(node, "append", "value.output.second"),
            Edit(
                ("family", "document", "numerical_profiles", "profiles", 0, "boundaries", "value.output.second"),
                "set",
                "f32",
            ),
            Edit(("resolutions", 0, "values"), "apply", second_output),
        ),
    )
    return edited


CELLS: Final[tuple[ScenarioCell, ...]] = (
    # 04 §7.1: a token formula with zero bytes per token, built when the estimator answers.
    ScenarioCell(
        "estimate_tokens_zero",
        "04.7.1/tokens_nonzero",
        _PLAN,
        "bytes_per_token must be non-zero",
        edits=_declared(_estimate({"tokens": {"bytes_per_token": 0}})),
    ),
    # 04 §5.2: the strided extent overflows u64 in its product, then in its sum.
    ScenarioCell(
        "tensor_strided_extent_product_overflow",
        "04.5.2/zero_fill_padded_overflow",
        _SERIAL,
        "resolved tensor storage size overflows u64",
        edits=(
            Edit(_value("value.input", "tensor", "dimensions"), "set", [3]),
            Edit(_value("value.input", "tensor", "layout"), "set", {"strided": {"byte_strides": [1 << 63]}}),
        ),
    ),
    ScenarioCell(
        "tensor_strided_extent_sum_overflow",
        "04.5.2/zero_fill_padded_overflow",
        _SERIAL,
        "resolved tensor storage size overflows u64",
        edits=(
            Edit(_value("value.input", "tensor", "dimensions"), "set", [2]),
            Edit(_value("value.input", "tensor", "layout"), "set", {"strided": {"byte_strides": [_U64_MAX]}}),
        ),
    ),
    # 04 §5.2: a zero-fill padded block grid whose element count (u8), then byte count (f32), overflows.
    ScenarioCell(
        "tensor_padded_grid_elements_overflow",
        "04.5.2/zero_fill_padded_overflow",
        _SERIAL,
        "resolved tensor storage size overflows u64",
        edits=(
            Edit(_value("value.state", "tensor", "dimensions"), "set", [(1 << 32) - 1, (1 << 32) - 1]),
            Edit(
                _value("value.state", "tensor", "layout"),
                "set",
                {
                    "blocked": {
                        "block": [1 << 32, 1 << 32],
                        "axis_order": [0, 1],
                        "padding": {"zero_fill": {"physical_dimensions": [1 << 32, 1 << 32]}},
                    }
                },
            ),
        ),
    ),
    ScenarioCell(
        "tensor_padded_grid_bytes_overflow",
        "04.5.2/zero_fill_padded_overflow",
        _SERIAL,
        "resolved tensor storage size overflows u64",
        edits=(
            Edit(_value("value.input", "tensor", "dimensions"), "set", [(1 << 31) - 1, (1 << 31) - 1]),
            Edit(
                _value("value.input", "tensor", "layout"),
                "set",
                {
                    "blocked": {
                        "block": [1 << 31, 1 << 31],
                        "axis_order": [0, 1],
                        "padding": {"zero_fill": {"physical_dimensions": [1 << 31, 1 << 31]}},
                    }
                },
            ),
        ),
    ),
    # 04 §5.6: composite storage on a non-weight value; a weight's storage with a component too many;
    # a resolved weight layout on an activation.
    ScenarioCell(
        "binding_activation_composite_storage",
        "04.5.6/non_weights_storage_covers_tensor",
        _SERIAL,
        "only a weight value may use composite physical storage",
        edits=(Edit(_value("value.input", "storage", "components"), "apply", _extra_component("component.second")),),
    ),
    ScenarioCell(
        "binding_weight_storage_component_extra",
        "04.5.6/weight_storage_component_count",
        _SERIAL,
        "resolved weight storage component count differs from its layout contract",
        edits=(Edit(_value("value.weight", "storage", "components"), "apply", _extra_component("weight.other")),),
    ),
    ScenarioCell(
        "binding_activation_carries_weight_layout",
        "04.5.6/weight_logical_contract",
        _SERIAL,
        "non-weight value carries a resolved weight layout contract",
        edits=(
            Edit(
                _value("value.input", "weight"),
                "set",
                {
                    "weight_id": "weight.matrix",
                    "format_id": "weight-format.dense",
                    "layout_id": "weight-layout.dense",
                    "schema_version": {"major": 1, "minor": 0},
                    "physical_layout": {"dense": {"component_id": "weight.component"}},
                    "components": [
                        {
                            "component_id": "weight.component",
                            "role": "values",
                            "physical_dimensions": [4],
                            "encoding": {"dense": {"element_type": "f32"}},
                        }
                    ],
                },
            ),
        ),
    ),
    # 04 §5.7: bindings valid one by one, wrong against the operation contract.
    ScenarioCell(
        "binding_dimension_not_exact",
        "04.5.7/exact_dimension",
        _PLAN,
        "resolved tensor violates a dimension constraint",
        edits=(Edit(_value("value.input", "tensor", "dimensions"), "set", [2]),),
    ),
    ScenarioCell(
        "binding_layout_not_allowed",
        "04.5.7/rank_equal",
        _PLAN,
        "resolved tensor layout is incompatible",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", {"strided": {"byte_strides": [4]}}),),
    ),
    ScenarioCell(
        "binding_output_repeats_input_value",
        "04.5.7/repeated_value_read_only_inputs",
        _PLAN,
        "repeats a value outside identical read-only input slots",
        edits=(Edit(_value("value.output", "value_id"), "set", "value.input"),),
    ),
    ScenarioCell(
        "binding_access_differs_from_contract",
        "04.5.7/access_equals_contract",
        _PLAN,
        "binding access or alias differs from its contract",
        edits=(Edit(_value("value.input", "access"), "set", "read_write"),),
    ),
    ScenarioCell(
        "binding_inputs_share_storage",
        "04.5.7/repeated_value_read_only_inputs",
        _PLAN,
        "shares input storage between different or writable values",
        edits=(Edit(_value("value.state", "storage", "components", 0, "resource_id"), "set", "resource.input.0"),),
    ),
    ScenarioCell(
        "binding_no_alias_output_overlaps_input",
        "04.5.7/no_alias_output_overlap",
        _PLAN,
        "aliases despite a no-alias contract",
        edits=(Edit(_value("value.output", "storage", "components", 0, "resource_id"), "set", "resource.input.0"),),
    ),
    # 04 §9 step 8: a value bound with another usage than its program role.
    ScenarioCell(
        "semantic_weight_as_activation",
        "04.9/step08_weight_usage_and_access",
        _PLAN,
        "must be a read-only weights binding",
        edits=(
            Edit(_value("value.weight", "usage"), "set", "activations"),
            Edit(_value("value.weight", "weight"), "set", None),
            Edit(_value("value.weight", "storage", "components", 0, "component_id"), "set", None),
        ),
    ),
    ScenarioCell(
        "semantic_state_as_activation",
        "04.9/step08_state_usage_and_tensor",
        _PLAN,
        "must bind its state tensor with usage state",
        edits=(Edit(_value("value.state", "usage"), "set", "activations"),),
    ),
    ScenarioCell(
        "semantic_activation_as_state",
        "04.9/step08_other_values_activations",
        _PLAN,
        "must use activations storage",
        edits=(Edit(_value("value.input", "usage"), "set", "state"),),
    ),
    # 04 §2.2: a zero checkpoint capacity on the policy wire (the NonZeroU64 type refuses it).
    ScenarioCell(
        "policy_checkpoint_capacity_zero",
        "04.2.2/checkpoint_capacity_zero_rejected_on_wire",
        _SERIAL,
        "maximum_retained_bytes: expected a non-zero u64",
        edits=(Edit(("policy", "wire", "memory", "checkpoint_capacity"), "set", {"maximum_retained_bytes": 0}),),
    ),
    # 04 §9 step 3: a policy whose scheduled-token limit is zero (its serde form carries any numbers).
    ScenarioCell(
        "policy_zero_scheduled_tokens",
        "04.9/step03_zero_scheduled_tokens",
        _PLAN,
        "maximum_scheduled_tokens must be non-zero",
        edits=(
            Edit(
                ("policy",),
                "set",
                {
                    "kind": "adversarial",
                    "serde": {
                        "maximum_active_sequences": 3,
                        "maximum_scheduled_tokens": 0,
                        "dynamic_storage_profile_order": [{"allocator": "linear_arena", "view": "contiguous"}],
                    },
                },
            ),
        ),
    ),
    # 04 §9 step 7: the registry declares the other operations' contracts and estimators, not the node's.
    ScenarioCell(
        "registry_contract_missing",
        "04.9/step07_exactly_one_contract",
        _PLAN,
        "needs exactly one registered contract",
        base="graph_alias",
        edits=(Edit(("registry", "contracts"), "drop", 0), Edit(("registry", "estimators"), "drop", 0)),
    ),
    # 04 §5.5: a weight component whose physical byte size overflows u64.
    ScenarioCell(
        "weight_component_bytes_overflow",
        "04.5.5/component_byte_size_computable",
        _SERIAL,
        "has no byte size",
        edits=(
            Edit(
                _value("value.weight", "weight", "components", 0, "physical_dimensions"), "set", [1 << 32, 1 << 32, 2]
            ),
        ),
    ),
    # 04 §9 step 8: a weight binding the operation contract accepts, with another shape than the program's.
    ScenarioCell(
        "semantic_weight_tensor_differs_from_program",
        "04.9/step08_weight_tensor_equals_program",
        _PLAN,
        "tensor differs from the program",
        make=_weight_shorter_than_program,
    ),
    # 04 §5.5: a resolved weight layout deeper than the layout budget (16 levels).
    ScenarioCell(
        "weight_layout_too_deep",
        "04.5.5/component_ids_match_layout",
        _SERIAL,
        "physical weight layout exceeds maximum depth",
        edits=(Edit(_value("value.weight", "weight", "physical_layout"), "set", _nested_layout(17)),),
    ),
    # 04 §5.7: two no-alias outputs on one byte range.
    ScenarioCell(
        "binding_outputs_overlap",
        "04.5.7/no_alias_output_overlap",
        _PLAN,
        "output resources overlap",
        make=_outputs_overlap,
    ),
)
