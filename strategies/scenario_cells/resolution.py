"""Targeted scenario cells: resolution checks (see ``strategies.scenario_cells``).

Node resolutions (04 §5, §9) are edited in the scenario's ``resolutions`` section: a binding valid by
itself but wrong against its operation contract or its program value, or a tensor, storage or weight
binding whose constructor check sits behind the decoder's. Estimate checks (04 §7) come from an
estimator of ``registry.estimators`` that declares its estimate. Runtime-policy checks (04 §2-§3)
edit the ``policy`` section's resolved wire, one member at a time.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from reference.catalog.tensor_contract import RangeDimension, StridedLayout, SymbolDimension, SymbolStride
from reference.documents.catalog import catalog_to_document
from seeds.catalogs import catalog_with_operation, catalog_with_secondary_provider, operation
from seeds.scenarios import graph_scenario, plan_fixture_scenario
from strategies.budget import base_scenario
from strategies.json_edits import Edit, apply_edits
from strategies.scenario_cells.cell import ScenarioCell

_U64_MAX: Final = (1 << 64) - 1
_SERIAL: Final = "serialization"
_PLAN: Final = "invalid_execution_plan"
_RMP: Final = "invalid_resolved_model_plan"
_POLICY: Final = ("policy", "wire")
_WEIGHT: Final = ("resolutions", 0, "values", {"value_id": "value.weight"}, "weight")
_NODE: Final = ("family", "document", "program", "blocks", 0, "nodes", 0)


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


def _blocked(block: list[int], axis_order: list[int], padding: Any = "exact") -> dict[str, Any]:
    return {"blocked": {"block": block, "axis_order": axis_order, "padding": padding}}


def _zero_fill(physical: list[int]) -> dict[str, Any]:
    return {"zero_fill": {"physical_dimensions": physical}}


def _contract_changed(index: int, **changes: Any) -> dict[str, Any]:
    """The plan fixture whose operation's input ``index`` contract has ``changes`` (the provider row follows)."""
    base = operation()
    inputs = list(base.inputs)
    inputs[index] = dataclasses.replace(inputs[index], **changes)
    scenario = base_scenario("plan_fixture")
    scenario["catalog"] = catalog_to_document(catalog_with_operation(dataclasses.replace(base, inputs=tuple(inputs))))
    return scenario


def _input_outside_range() -> dict[str, Any]:
    """``value.input`` (4 elements) against an input contract of 1..=2 elements."""
    return _contract_changed(0, dimensions=(RangeDimension(1, 2),))


def _symbol_bound_twice() -> dict[str, Any]:
    """The two f32 inputs share the symbol ``n``: ``value.input`` binds it to 4, ``value.weight`` to 2."""
    base = operation()
    inputs = [dataclasses.replace(c, dimensions=(SymbolDimension("n"),)) for c in base.inputs[:2]]
    scenario = base_scenario("plan_fixture")
    scenario["catalog"] = catalog_to_document(
        catalog_with_operation(dataclasses.replace(base, inputs=(*inputs, base.inputs[2])))
    )
    edited: dict[str, Any] = apply_edits(scenario, (Edit(_value("value.input", "tensor", "dimensions"), "set", [2]),))
    return edited


def _contiguous_against_strided() -> dict[str, Any]:
    """``value.input`` contiguous against an input contract that allows only a strided layout."""
    return _contract_changed(0, layouts=(StridedLayout((SymbolStride("row"),)),))


def _secondary_estimate_forged() -> dict[str, Any]:
    """Two compatible providers: the reference's estimate is correct, the secondary's claims another input."""
    scenario = plan_fixture_scenario(name="secondary", catalog_value=catalog_with_secondary_provider())
    edited: dict[str, Any] = apply_edits(
        scenario,
        (Edit(("registry", "estimators", {"provider_id": "provider.operation.secondary"}, "behavior"), "set",
              "wrong_input"),),
    )  # fmt: skip
    return edited


def _resolved_fields(**memory_and_admission: Any) -> Any:
    """The resolved policy wire as a ``resolved_fields`` document, its memory and admission members replaced."""

    def edit(policy: dict[str, Any]) -> dict[str, Any]:
        fields = {key: value for key, value in policy["wire"].items() if key != "fingerprint"}
        for name, value in memory_and_admission.items():
            section, _, member = name.partition("__")
            fields[section] = {**fields[section], member: value}
        return {"kind": "resolved_fields", "fields": fields}

    return edit


def _many_parts(count: int) -> dict[str, Any]:
    """A composite weight layout of ``count`` dense parts over ``weight.component``."""
    part = {"layout": {"dense": {"component_id": "weight.component"}}, "logical_offsets": [0], "extents": [4]}
    return {"composite": {"parts": [part] * count}}


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
        "04.5.6/non_weights_single_component",
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
        "04.5.6/non_weights_without_weight_binding",
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
        "04.5.7/layout_strided",
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
        "04.5.7/input_storage_sharing",
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
        "04.5.5/layout_depth_limit",
        _SERIAL,
        "physical weight layout exceeds maximum depth",
        edits=(Edit(_value("value.weight", "weight", "physical_layout"), "set", _nested_layout(17)),),
    ),
    # 04 §5.7: two no-alias outputs on one byte range.
    ScenarioCell(
        "binding_outputs_overlap",
        "04.5.7/outputs_do_not_overlap",
        _PLAN,
        "output resources overlap",
        make=_outputs_overlap,
    ),
    # 04 §2: the policy enums decode exactly their spellings (the attention policy in kebab-case).
    ScenarioCell(
        "policy_scheduling_unknown",
        "04.2/scheduling_discipline_spellings",
        _SERIAL,
        "unknown variant",
        edits=(Edit((*_POLICY, "scheduling"), "set", "round_robin"),),
    ),
    ScenarioCell(
        "policy_fit_policy_unknown",
        "04.2/admission_fit_policy_spellings",
        _SERIAL,
        "unknown variant",
        edits=(Edit((*_POLICY, "admission", "sequence_fit_policy"), "set", "full_input"),),
    ),
    ScenarioCell(
        "policy_attention_snake_case",
        "04.2/attention_policy_kebab_case",
        _SERIAL,
        "unknown variant",
        edits=(Edit((*_POLICY, "attention_execution"), "set", "native_adaptive"),),
    ),
    ScenarioCell(
        "policy_determinism_unknown",
        "04.2/determinism_requirement_spellings",
        _SERIAL,
        "unknown variant",
        edits=(Edit((*_POLICY, "execution_determinism"), "set", "bitwise_same_device"),),
    ),
    # 04 §2.1-§2.3: required memory and admission members; the checkpoint capacity denies unknown members.
    ScenarioCell(
        "policy_memory_reserve_missing",
        "04.2.1/memory_policy_required_fields",
        _SERIAL,
        "missing field `reserve_bytes`",
        edits=(Edit((*_POLICY, "memory"), "delete", "reserve_bytes"),),
    ),
    ScenarioCell(
        "policy_checkpoint_capacity_unknown_member",
        "04.2.2/checkpoint_capacity_deny_unknown_fields",
        _SERIAL,
        "unknown field `maximum_checkpoints`",
        edits=(
            Edit(
                (*_POLICY, "memory", "checkpoint_capacity"),
                "set",
                {"maximum_retained_bytes": 4096, "maximum_checkpoints": 1},
            ),
        ),
    ),
    ScenarioCell(
        "policy_admission_allow_defer_missing",
        "04.2.3/admission_policy_required_fields",
        _SERIAL,
        "missing field `allow_defer`",
        edits=(Edit((*_POLICY, "admission"), "delete", "allow_defer"),),
    ),
    # 04 §3.1: the decoder runs new() (its error becomes a serde error); the wire fingerprint is only compared.
    ScenarioCell(
        "policy_wire_new_refuses",
        "04.3.1/new_error_is_serde_error",
        _SERIAL,
        "maximum active sequences must be non-zero",
        edits=(Edit((*_POLICY, "memory", "maximum_active_sequences"), "set", 0),),
    ),
    ScenarioCell(
        "policy_wire_fingerprint_malformed",
        "04.3.1/fingerprint_not_format_checked",
        _SERIAL,
        "fingerprint mismatch",
        edits=(Edit((*_POLICY, "fingerprint"), "set", "not-a-sha256"),),
    ),
    # 04 §3.2: capacity 0 (row 4) and queue depth 0 (row 9): the memory row answers.
    ScenarioCell(
        "policy_first_failing_row",
        "04.3.2/first_failing_row_wins",
        _RMP,
        "memory capacity must be non-zero",
        edits=(
            Edit(
                ("policy",),
                "apply",
                _resolved_fields(memory__capacity_bytes=0, memory__reserve_bytes=0, admission__maximum_queue_depth=0),
            ),
        ),
        fields={"field": "runtime_policy.memory"},
    ),
    # 04 §5.2: blocked layouts of value.input (4 elements) wrong one way each; a byte size past u64.
    ScenarioCell(
        "tensor_blocked_without_block",
        "04.5.2/blocked_block_count_and_nonzero",
        _SERIAL,
        "one non-zero block extent per dimension",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", _blocked([], [0])),),
    ),
    ScenarioCell(
        "tensor_blocked_axis_order_not_permutation",
        "04.5.2/blocked_axis_order_permutation",
        _SERIAL,
        "axis_order must be a permutation",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", _blocked([2], [1])),),
    ),
    ScenarioCell(
        "tensor_blocked_exact_not_divisible",
        "04.5.2/blocked_exact_divisible",
        _SERIAL,
        "dimensions divisible by the block",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", _blocked([3], [0])),),
    ),
    ScenarioCell(
        "tensor_zero_fill_rank",
        "04.5.2/zero_fill_physical_rank",
        _SERIAL,
        "must match the tensor rank",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", _blocked([3], [0], _zero_fill([]))),),
    ),
    ScenarioCell(
        "tensor_zero_fill_padded_overflow",
        "04.5.2/zero_fill_padded_overflow",
        _SERIAL,
        "blocked padding overflows u64",
        edits=(
            Edit(_value("value.input", "tensor", "dimensions"), "set", [_U64_MAX]),
            Edit(_value("value.input", "tensor", "layout"), "set", _blocked([2], [0], _zero_fill([2]))),
        ),
    ),
    ScenarioCell(
        "tensor_zero_fill_off_grid",
        "04.5.2/zero_fill_physical_matches_grid",
        _SERIAL,
        "do not match the padded block grid",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", _blocked([3], [0], _zero_fill([5]))),),
    ),
    ScenarioCell(
        "tensor_zero_fill_without_padding",
        "04.5.2/zero_fill_padding_real",
        _SERIAL,
        "must enlarge at least one axis",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", _blocked([2], [0], _zero_fill([4]))),),
    ),
    ScenarioCell(
        "tensor_byte_size_overflow",
        "04.5.2/byte_size_fits_u64",
        _SERIAL,
        "tensor byte size overflows u64",
        edits=(Edit(_value("value.input", "tensor", "dimensions"), "set", [1 << 63]),),
    ),
    ScenarioCell(
        "tensor_strided_without_strides",
        "04.5.2/strided_stride_count_and_nonzero",
        _SERIAL,
        "one non-zero byte stride per dimension",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", {"strided": {"byte_strides": []}}),),
    ),
    # 04 §5.3: storage components empty, past u64 or off the element grid.
    ScenarioCell(
        "storage_component_empty",
        "04.5.3/length_nonzero",
        _SERIAL,
        "empty, misaligned or overflows u64",
        edits=(Edit(_value("value.input", "storage", "components", 0, "length_bytes"), "set", 0),),
    ),
    ScenarioCell(
        "storage_component_end_past_u64",
        "04.5.3/end_fits_u64",
        _SERIAL,
        "empty, misaligned or overflows u64",
        edits=(Edit(_value("value.input", "storage", "components", 0, "offset_bytes"), "set", _U64_MAX - 3),),
    ),
    ScenarioCell(
        "storage_component_offset_off_grid",
        "04.5.3/offset_multiple_of_element",
        _SERIAL,
        "empty, misaligned or overflows u64",
        edits=(Edit(_value("value.input", "storage", "components", 0, "offset_bytes"), "set", 2),),
    ),
    ScenarioCell(
        "storage_component_length_off_grid",
        "04.5.3/length_multiple_of_element",
        _SERIAL,
        "empty, misaligned or overflows u64",
        edits=(Edit(_value("value.input", "storage", "components", 0, "length_bytes"), "set", 18),),
    ),
    # 04 §5.5: a resolved weight layout past the node budget; physical identities wrong one way each.
    ScenarioCell(
        "weight_layout_too_many_nodes",
        "04.5.5/layout_nodes_limit",
        _SERIAL,
        "physical weight layout exceeds maximum nodes",
        edits=(Edit((*_WEIGHT, "physical_layout"), "set", _many_parts(4097)),),
    ),
    ScenarioCell(
        "weight_schema_major_zero",
        "04.5.5/schema_major_nonzero",
        _SERIAL,
        "physical identity is invalid or non-canonical",
        edits=(Edit((*_WEIGHT, "schema_version", "major"), "set", 0),),
    ),
    ScenarioCell(
        "weight_components_empty",
        "04.5.5/components_nonempty",
        _SERIAL,
        "physical identity is invalid or non-canonical",
        edits=(Edit((*_WEIGHT, "components"), "set", []),),
    ),
    ScenarioCell(
        "weight_components_repeated",
        "04.5.5/components_strictly_ascending",
        _SERIAL,
        "physical identity is invalid or non-canonical",
        edits=(Edit((*_WEIGHT, "components"), "dup"),),
    ),
    ScenarioCell(
        "weight_component_not_in_layout",
        "04.5.5/component_ids_match_layout",
        _SERIAL,
        "physical identity is invalid or non-canonical",
        edits=(Edit((*_WEIGHT, "components", 0, "component_id"), "set", "weight.other"),),
    ),
    ScenarioCell(
        "weight_component_dimension_zero",
        "04.5.5/component_dimensions_nonzero",
        _SERIAL,
        "physical identity is invalid or non-canonical",
        edits=(Edit((*_WEIGHT, "components", 0, "physical_dimensions"), "set", [0]),),
    ),
    # 04 §5.6: each ResolvedValueBinding check broken alone.
    ScenarioCell(
        "binding_input_write_access",
        "04.5.6/input_access_readable",
        _SERIAL,
        "role, access, and alias policy are inconsistent",
        edits=(Edit(_value("value.input", "access"), "set", "write"),),
    ),
    ScenarioCell(
        "binding_output_read_access",
        "04.5.6/output_access_writable",
        _SERIAL,
        "role, access, and alias policy are inconsistent",
        edits=(Edit(_value("value.output", "access"), "set", "read"),),
    ),
    ScenarioCell(
        "binding_input_may_alias",
        "04.5.6/input_alias_no_alias",
        _SERIAL,
        "role, access, and alias policy are inconsistent",
        edits=(Edit(_value("value.input", "alias"), "set", {"may_alias": {"tensor_index": 0}}),),
    ),
    ScenarioCell(
        "binding_anonymous_storage_dtype",
        "04.5.6/anonymous_component_dtype",
        _SERIAL,
        "dtype differs from its logical tensor dtype",
        edits=(Edit(_value("value.input", "storage", "components", 0, "element_type"), "set", "i32"),),
    ),
    ScenarioCell(
        "binding_activation_storage_short",
        "04.5.6/non_weights_storage_covers_tensor",
        _SERIAL,
        "smaller than its tensor span",
        edits=(Edit(_value("value.input", "storage", "components", 0, "length_bytes"), "set", 8),),
    ),
    ScenarioCell(
        "binding_weights_without_layout",
        "04.5.6/weights_need_weight_binding",
        _SERIAL,
        "lacks its resolved physical layout contract",
        edits=(Edit(_value("value.weight", "weight"), "set", None),),
    ),
    ScenarioCell(
        "binding_weight_layout_other_shape",
        "04.5.6/weight_logical_contract",
        _SERIAL,
        "does not describe the logical tensor",
        edits=(
            Edit((*_WEIGHT, "components", 0, "physical_dimensions"), "set", [8]),
            Edit(_value("value.weight", "storage", "components", 0, "length_bytes"), "set", 32),
        ),
    ),
    ScenarioCell(
        "binding_weight_storage_unknown_component",
        "04.5.6/weight_storage_component_identity",
        _SERIAL,
        "contains unknown component",
        edits=(Edit(_value("value.weight", "storage", "components", 0, "component_id"), "set", "weight.other"),),
    ),
    ScenarioCell(
        "binding_weight_storage_length",
        "04.5.6/weight_storage_component_size_dtype",
        _SERIAL,
        "differs from its layout",
        edits=(Edit(_value("value.weight", "storage", "components", 0, "length_bytes"), "set", 32),),
    ),
    ScenarioCell(
        "binding_weight_storage_dtype",
        "04.5.6/weight_storage_component_size_dtype",
        _SERIAL,
        "differs from its layout",
        edits=(Edit(_value("value.weight", "storage", "components", 0, "element_type"), "set", "i32"),),
    ),
    # 04 §5.7: bindings valid one by one, wrong against the operation contract.
    ScenarioCell(
        "binding_rank_differs",
        "04.5.7/rank_equal",
        _PLAN,
        "rank or element type is incompatible",
        edits=(Edit(_value("value.input", "tensor", "dimensions"), "set", [4, 1]),),
    ),
    ScenarioCell(
        "binding_dtype_outside_contract",
        "04.5.7/dtype_in_contract_set",
        _PLAN,
        "rank or element type is incompatible",
        edits=(
            Edit(_value("value.input", "tensor", "element_type"), "set", "i32"),
            Edit(_value("value.input", "storage", "components", 0, "element_type"), "set", "i32"),
        ),
    ),
    ScenarioCell(
        "binding_dimension_outside_range",
        "04.5.7/range_dimension",
        _PLAN,
        "violates a dimension constraint",
        make=_input_outside_range,
    ),
    ScenarioCell(
        "binding_symbol_bound_twice",
        "04.5.7/symbol_dimension_binding",
        _PLAN,
        "violates a dimension constraint",
        make=_symbol_bound_twice,
    ),
    ScenarioCell(
        "binding_contiguous_not_allowed",
        "04.5.7/layout_contiguous",
        _PLAN,
        "resolved tensor layout is incompatible",
        make=_contiguous_against_strided,
    ),
    ScenarioCell(
        "binding_blocked_not_allowed",
        "04.5.7/layout_blocked",
        _PLAN,
        "resolved tensor layout is incompatible",
        edits=(Edit(_value("value.input", "tensor", "layout"), "set", _blocked([2], [0])),),
    ),
    ScenarioCell(
        "binding_alias_differs_from_contract",
        "04.5.7/alias_equals_contract",
        _PLAN,
        "binding access or alias differs from its contract",
        edits=(Edit(_value("value.output", "alias"), "set", {"may_alias": {"tensor_index": 0}}),),
    ),
    ScenarioCell(
        "binding_may_alias_output_on_another_input",
        "04.5.7/may_alias_output",
        _PLAN,
        "partially aliases or aliases the wrong input",
        make=lambda: graph_scenario("alias", "may_alias_wrong_input"),
    ),
    ScenarioCell(
        "binding_must_alias_output_elsewhere",
        "04.5.7/must_alias_output",
        _PLAN,
        "does not exactly alias its declared input",
        base="graph_alias",
        edits=(
            Edit(
                ("resolutions", 0, "values", {"value_id": "value.alias"}, "storage", "components", 0, "resource_id"),
                "set",
                "resource.graph.alias",
            ),
        ),
    ),
    # 04 §9: node resolution steps a scenario reaches only through resolve.
    ScenarioCell(
        "resolve_values_empty",
        "04.9/step04_values_nonempty",
        _PLAN,
        "has no value bindings",
        edits=(Edit(("resolutions", 0, "values"), "set", []),),
    ),
    ScenarioCell(
        "resolve_node_not_in_program",
        "04.9/step05_node_in_program",
        _PLAN,
        "is not in the model program",
        edits=(Edit(("resolutions", 0, "node_id"), "set", "node.absent"),),
    ),
    ScenarioCell(
        "resolve_operation_unknown",
        "04.9/step06_operation_known",
        "unsupported_operation",
        "operation.absent",
        edits=(
            Edit((*_NODE, "operation_id"), "set", "operation.absent"),
            Edit(
                ("family", "document", "numerical_profiles", "profiles", 0, "operations", 0, "operation_id"),
                "set",
                "operation.absent",
            ),
        ),
        fields={"node_id": "node.main", "operation_id": "operation.absent"},
    ),
    ScenarioCell(
        "resolve_node_attribute_undeclared",
        "04.9/step08_validate_attributes",
        _PLAN,
        "contains unknown attribute",
        edits=(Edit((*_NODE, "attributes"), "set", {"attribute.undeclared": {"unsigned": 1}}),),
    ),
    ScenarioCell(
        "resolve_output_against_operation",
        "04.9/step08_validate_resolved_bindings",
        _PLAN,
        "violates a dimension constraint",
        edits=(Edit(_value("value.output", "tensor", "dimensions"), "set", [2]),),
    ),
    ScenarioCell(
        "resolve_second_provider_estimate_forged",
        "04.9/bad_estimate_aborts_even_with_other_providers",
        _PLAN,
        "estimate does not match its registration or input",
        make=_secondary_estimate_forged,
    ),
)
