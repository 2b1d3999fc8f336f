"""Targeted scenario cells: family checks (see ``strategies.scenario_cells``).

The scenario's outer shape is decoded first (``decode scenario``), then the family document (``decode model
family document``: a decoded part's own check answers ``serialization`` with its reason), then the family is
defined and prepared (02 §6), which runs the typed checks of the config, the weight schema's components, the
numerical profiles and the program with their own kinds. A declared runtime policy carries an error object,
decoded as the error-object rules of 01 §6 say.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any, Final

from strategies.budget import base_scenario
from strategies.json_edits import Edit
from strategies.scenario_cells.cell import ScenarioCell
from strategies.scenario_cells.encodings import block_quantized, dense_affine, quantized

__all__ = ["CELLS"]

_SER: Final = "serialization"
_EP: Final = "invalid_execution_plan"
_IMC: Final = "invalid_model_config"
_DOC: Final = ("family", "document")
_SCHEMA: Final = (*_DOC, "weight_schema")
_COMPONENTS: Final = (*_SCHEMA, "components")
_PROFILES: Final = (*_DOC, "numerical_profiles")
_PROFILE: Final = (*_PROFILES, "profiles", 0)
_PROFILE_STATE: Final = (*_PROFILE, "states", 0)
_PROGRAM: Final = (*_DOC, "program")
_NODE: Final = (*_PROGRAM, "blocks", 0, "nodes", {"id": "node.main"})
_STATE: Final = (*_PROGRAM, "states", 0)
_WEIGHT: Final = (*_PROGRAM, "weights", 0)
_COLLISIONS: Final = (*_DOC, "semantic_metadata", "special_tokens", "collision_policy")
_V1: Final = {"major": 1, "minor": 0}
_ONE: Final = {"numerator": 1, "denominator": 1}
_COMPLETED: Final = {"contract_version": _V1, "contents": "prefix_positions", "input_dependency": "exact_token_prefix"}
_COMPLETED_BOUNDARY: Final = {"completed_boundary": _COMPLETED}
_SCENARIO: Final = {"context": "decode scenario"}
_DOCUMENT: Final = {"context": "decode model family document"}
_POLICY_DOCUMENT: Final = {"context": "decode runtime policy document"}
_FAMILY: Final = {"family_id": "family.synthetic"}
_SCENARIO_CAP: Final = 16 * 1024 * 1024
_EMPTY_ESTIMATE: Final = {"value_alignment_bytes": 16, "scratch": None, "persistent": None, "binding": None}


def _component(role: str, encoding: Any, dimensions: tuple[int, ...] = (4,), name: str = "extra") -> dict[str, Any]:
    """An unreferenced, optional weight component (its own checks run before any tensor's)."""
    return {"id": f"weight.{name}", "role": role, "external_names": [f"{name}.bin"], "dimensions": list(dimensions),
            "encoding": encoding, "required": False}  # fmt: skip


def _checkpoint_inputs(**changes: Any) -> dict[str, Any]:
    return {"contract_version": dict(_V1), "token_input": "value.input", "conditioning_inputs": [], **changes}


def _oversized() -> dict[str, Any]:
    """The plan fixture whose name pads its JSON text past the scenario size cap."""
    scenario = base_scenario("plan_fixture")
    scenario["name"] = "x" * _SCENARIO_CAP
    return scenario


def _declared_policy(validate_error: Any) -> Callable[[], dict[str, Any]]:
    """The plan fixture with its policy captured as a declared policy whose ``validate_error`` is given."""

    def make() -> dict[str, Any]:
        scenario = base_scenario("plan_fixture")
        wire = dict(scenario["policy"]["wire"])
        memory, admission = wire["memory"], wire["admission"]
        reported = {
            "version": wire["version"],
            "memory_capacity_bytes": memory["capacity_bytes"],
            "memory_reserve_bytes": memory["reserve_bytes"],
            "maximum_active_sequences": memory["maximum_active_sequences"],
            "maximum_scheduled_tokens": admission["maximum_scheduled_tokens"],
            "attention_execution_policy": wire["attention_execution"],
            "execution_determinism_requirement": wire["execution_determinism"],
            "dynamic_storage_profile_order": memory["dynamic_storage_profile_order"],
            "reusable_execution_policy": None,
            "checkpoint_capacity_policy": None,
        }
        wire.pop("fingerprint", None)
        scenario["policy"] = {"kind": "declared", "serialized": wire, "reported": reported,
                              "validate_error": validate_error}  # fmt: skip
        return scenario

    return make


def _specialized(edit: Callable[[dict[str, Any]], None]) -> Callable[[], dict[str, Any]]:
    """The plan fixture whose profile specializes the weight schema into a copy ``edit`` changes."""

    def make() -> dict[str, Any]:
        scenario = base_scenario("plan_fixture")
        document = scenario["family"]["document"]
        schema = copy.deepcopy(document["weight_schema"])
        edit(schema)
        document["specialized_weight_schemas"] = {"fixture.f32": schema}
        return scenario

    return make


def _add_tensor(schema: dict[str, Any]) -> None:
    schema["tensors"].append({**schema["tensors"][0], "id": "weight.added"})


def _nested_composites(count: int) -> Callable[[Any], Any]:
    """A layout wrapped in ``count`` single-part composites covering the whole ``[4]`` tensor."""

    def wrap(layout: Any) -> Any:
        for _ in range(count):
            layout = {"composite": {"parts": [{"layout": layout, "logical_offsets": [0], "extents": [4]}]}}
        return layout

    return wrap


def _retype_tensor(schema: dict[str, Any]) -> None:
    schema["tensors"][0]["logical_element_type"] = "f16"


def _rename_external(schema: dict[str, Any]) -> None:
    schema["components"][0]["external_names"] = ["other.bin"]


def _cell(name: str, rule: str, kind: str, reason: str, *edits: Edit, **fields: Any) -> ScenarioCell:
    return ScenarioCell(name, rule, kind, reason, edits=edits, fields=fields)


def _metadata_cell(name: str, rule: str, reason: str, path: tuple[str, ...], value: Any) -> ScenarioCell:
    """The family's semantic metadata with the value at ``path`` replaced (02 §11.3, checked by define)."""
    edit = Edit((*_DOC, "semantic_metadata", *path), "set", value)
    return ScenarioCell(name, rule, _IMC, reason, edits=(edit,), fields={**_FAMILY, "field": "semantic_metadata"})


def _source_file_cell(name: str, rule: str, source_file: str) -> ScenarioCell:
    """A template source file that breaks one clause of the clean-relative-path rule (02 §11.3, 01 §1.4)."""
    return _metadata_cell(
        name, rule, "source_file must be a clean relative path", ("template", "source_file"), source_file
    )


def _profile_cell(
    name: str, rule: str, kind: str, reason: str, *edits: Edit, family: str = "family.synthetic"
) -> ScenarioCell:
    """The family's numerical profiles edited (02 §9, checked by define's ``FamilyNumericalProfiles::new``);
    an ``invalid_model_config`` names ``family`` (the profile's or the family's, as the rule says)."""
    fields = {_IMC: {"family_id": family, "field": "numerical_profile"}, _SER: _DOCUMENT}.get(kind, {})
    return ScenarioCell(name, rule, kind, reason, edits=edits, fields=fields)


def _component_cell(name: str, rule: str, kind: str, reason: str, *components: dict[str, Any]) -> ScenarioCell:
    edits = tuple(Edit(_COMPONENTS, "append", component) for component in components)
    fields = {_EP: {}, _SER: _DOCUMENT}.get(kind, {**_FAMILY, "field": "weight_schema.components.encoding"})
    return ScenarioCell(name, rule, kind, reason, edits=edits, fields=fields)


CELLS: Final[tuple[ScenarioCell, ...]] = (
    # 01.5 / 01.3.6: the scenario's outer shape
    _cell(
        "scenario_registries_per_resolution",
        "01.5/document_format_refused",
        _SER,
        "$.resolution_registries: 2 entries for 1 resolutions",
        Edit(("scenario_version",), "set", 2),
        Edit(("family_registry",), "set", []),
        Edit(("resolution_registries",), "set", [0, 0]),
        **_SCENARIO,
    ),
    _cell(
        "scenario_retention_not_string",
        "01.5/struct_wrong_json_type",
        _SER,
        "$.completion_retention[0]: expected a string",
        Edit(("completion_retention",), "set", [1]),
        **_SCENARIO,
    ),
    ScenarioCell(
        "scenario_over_size_cap",
        "01.3.6/decode_size_cap",
        _SER,
        "exceeds limit 16777216",
        make=_oversized,
        fields=_SCENARIO,
    ),
    # 01.2: contract versions in the family document decode as two u16 fields
    _cell(
        "contract_version_negative",
        "01.2/contract_version_negative",
        _SER,
        "major must be an integer in 0..=65535, got -1",
        Edit((*_PROFILE, "operations", 0, "version", "major"), "set", -1),
        **_DOCUMENT,
    ),
    _cell(
        "contract_version_float",
        "01.2/contract_version_float",
        _SER,
        "minor must be an integer in 0..=65535, got 0.0",
        Edit((*_NODE, "required_version", "minor"), "set", 0.0),
        **_DOCUMENT,
    ),
    # 01.5: the family document's optional maps
    _cell(
        "programs_by_profile_not_object",
        "01.5/struct_wrong_json_type",
        _SER,
        "expected an object keyed by profile",
        Edit((*_DOC, "programs_by_profile"), "set", []),
        **_DOCUMENT,
    ),
    # 02.5.2: the raw config against the typed config
    _cell(
        "raw_config_array_form",
        "02.5.2/config_must_be_objects",
        _IMC,
        "config must be a JSON object",
        Edit(("family", "raw_config"), "set", [4]),
        **_FAMILY,
        field="config",
    ),
    _cell(
        "raw_config_extra_value_changed",
        "02.5.2/scalar_value_changed",
        _IMC,
        "value changed during parsing",
        Edit(("family", "raw_config", "extra"), "set", 1),
        Edit((*_DOC, "config", "value", "extra"), "set", 2),
        **_FAMILY,
        field="/extra",
    ),
    _cell(
        "raw_config_array_element_changed",
        "02.5.2/arrays_equal_length_elementwise",
        _IMC,
        "value changed during parsing",
        Edit(("family", "raw_config", "extra"), "set", [1, 2]),
        Edit((*_DOC, "config", "value", "extra"), "set", [1, 3]),
        **_FAMILY,
        field="/extra/1",
    ),
    _cell(
        "raw_config_array_element_key_dropped",
        "02.5.2/arrays_equal_length_elementwise",
        _IMC,
        "key was not consumed by the family",
        Edit(("family", "raw_config", "extra"), "set", [{"a": 1}, {"a": 1, "b": 2}]),
        Edit((*_DOC, "config", "value", "extra"), "set", [{"a": 1}, {"a": 1}]),
        **_FAMILY,
        field="/extra/1/b",
    ),
    _cell(
        "raw_config_array_length_changed",
        "02.5.2/arrays_length_differ_at_array_path",
        _IMC,
        "value changed during parsing",
        Edit(("family", "raw_config", "extra"), "set", [1, 2]),
        Edit((*_DOC, "config", "value", "extra"), "set", [1, 2, 3]),
        **_FAMILY,
        field="/extra",
    ),
    _cell(
        "raw_config_first_path_ascending",
        "02.5.2/first_offending_path_ascending",
        _IMC,
        "key was not consumed by the family",
        Edit(("family", "raw_config", "zz_unread"), "set", 1),
        Edit(("family", "raw_config", "aa_unread"), "set", 1),
        **_FAMILY,
        field="/aa_unread",
    ),
    # 01.6: the error object a declared policy carries
    ScenarioCell(
        "declared_error_not_object",
        "01.6/error_object_decode",
        _SER,
        "error object must be a JSON object",
        make=_declared_policy(5),
        fields=_POLICY_DOCUMENT,
    ),
    ScenarioCell(
        "declared_serialization_error_fields",
        "01.6/error_object_decode",
        _SER,
        "serialization error needs exactly kind, context, message",
        make=_declared_policy({"kind": "serialization", "context": "x"}),
        fields=_POLICY_DOCUMENT,
    ),
    ScenarioCell(
        "declared_serialization_error_types",
        "01.6/error_object_decode",
        _SER,
        "context and message must be strings",
        make=_declared_policy({"kind": "serialization", "context": 1, "message": "m"}),
        fields=_POLICY_DOCUMENT,
    ),
    ScenarioCell(
        "declared_error_missing_field",
        "01.6/error_object_decode",
        _SER,
        "missing fields ['reason']",
        make=_declared_policy({"kind": "invalid_execution_plan"}),
        fields=_POLICY_DOCUMENT,
    ),
    ScenarioCell(
        "declared_error_field_type",
        "01.6/error_object_decode",
        _SER,
        "reason must be string",
        make=_declared_policy({"kind": "invalid_execution_plan", "reason": 5}),
        fields=_POLICY_DOCUMENT,
    ),
    # 02.9.2: a profile against itself and against the program
    _cell(
        "profile_multiplication_not_float",
        "02.9.2/multiplication_type_not_float",
        _IMC,
        "arithmetic types must be float",
        Edit((*_PROFILE, "operations", 0, "multiplication_type"), "set", "u8"),
        **_FAMILY,
        field="numerical_profile",
    ),
    _cell(
        "profile_accumulation_not_float",
        "02.9.2/accumulation_type_not_float",
        _IMC,
        "arithmetic types must be float",
        Edit((*_PROFILE, "operations", 0, "accumulation_type"), "set", "i32"),
        **_FAMILY,
        field="numerical_profile",
    ),
    _cell(
        "profile_operation_unused",
        "02.9.2/operation_unused",
        _IMC,
        "profile declares operations no node uses",
        Edit(
            (*_PROFILE, "operations"),
            "append",
            {
                "operation_id": "operation.zzz",
                "version": dict(_V1),
                "multiplication_type": None,
                "accumulation_type": None,
            },
        ),
        **_FAMILY,
        field="numerical_profile",
    ),
    # 02.9.1 / 02.1: the profile's own decode
    _profile_cell(
        "profile_kv_storage_field",
        "02.9.1/profile_no_kv_storage",
        _SER,
        "unknown field `kv_storage` in NumericalExecutionProfile",
        Edit((*_PROFILE, "kv_storage"), "set", "paged"),
    ),
    _profile_cell(
        "profile_operation_unknown_field",
        "02.1/deny_unknown_numerical_operation_contract",
        _SER,
        "unknown field `precision` in NumericalOperationContract",
        Edit((*_PROFILE, "operations", 0, "precision"), "set", "f32"),
    ),
    # 02.9.2: NumericalExecutionProfile::validate, one check after another
    _profile_cell(
        "profile_no_operations",
        "02.9.2/profile_no_operations",
        _IMC,
        "at least one operation",
        Edit((*_PROFILE, "operations"), "set", []),
    ),
    _profile_cell(
        "profile_primary_missing",
        "02.9.2/primary_activation_missing",
        _IMC,
        "primary activation must be a float boundary",
        Edit((*_PROFILE, "primary_activation"), "set", "value.input"),
    ),
    _profile_cell(
        "profile_primary_not_float",
        "02.9.2/primary_activation_not_float",
        _IMC,
        "primary activation must be a float boundary",
        Edit((*_PROFILE, "boundaries", "value.output"), "set", "i32"),
    ),
    _profile_cell(
        "profile_operation_version_zero",
        "02.9.2/operation_version_major_zero",
        _IMC,
        "is duplicated or has version 0.x",
        Edit((*_PROFILE, "operations", 0, "version"), "set", {"major": 0, "minor": 1}),
    ),
    _profile_cell(
        "profile_state_value_id_duplicate",
        "02.9.2/duplicate_state_value_id",
        _IMC,
        "state `state.other` is duplicated",
        Edit((*_PROFILE, "states"), "dup"),
        Edit((*_PROFILE, "states", 1, "id"), "set", "state.other"),
    ),
    _profile_cell(
        "profile_state_tensor_zero_dimension",
        "02.9.2/state_tensor_bare",
        _EP,
        "numerical_profile.states.tensor is invalid: tensor dimensions must be non-zero",
        Edit((*_PROFILE_STATE, "tensor", "dimensions"), "set", [0]),
    ),
    _profile_cell(
        "profile_state_demand_below_tensor",
        "02.9.2/state_demand_bare",
        _EP,
        "bytes_per_token is below the tensor size",
        Edit(
            (*_PROFILE_STATE, "capacity_demand"), "set", {"token_scaled": {"bytes_per_token": 2, "maximum_tokens": 4}}
        ),
    ),
    _profile_cell(
        "profile_primary_before_state_tensor",
        "02.9.2/profile_validate_order",
        _IMC,
        "primary activation must be a float boundary",
        Edit((*_PROFILE, "primary_activation"), "set", "value.input"),
        Edit((*_PROFILE_STATE, "tensor", "dimensions"), "set", [0]),
    ),
    _profile_cell(
        "profile_operation_before_state_demand",
        "02.9.2/profile_validate_order",
        _IMC,
        "is duplicated or has version 0.x",
        Edit((*_PROFILE, "operations"), "dup"),
        Edit(
            (*_PROFILE_STATE, "capacity_demand"), "set", {"token_scaled": {"bytes_per_token": 2, "maximum_tokens": 4}}
        ),
    ),
    # 02.9.3: FamilyNumericalProfiles::new, in order (a profile's own error keeps the profile's family id)
    _profile_cell(
        "profiles_empty",
        "02.9.3/profiles_empty",
        _IMC,
        "at least one profile",
        Edit((*_PROFILES, "profiles"), "set", []),
    ),
    _profile_cell(
        "profile_id_duplicate",
        "02.9.3/duplicate_profile_id",
        _IMC,
        "profile `fixture.f32` belongs to another family or is duplicated",
        Edit((*_PROFILES, "profiles"), "dup"),
    ),
    _profile_cell(
        "auto_preference_duplicate",
        "02.9.3/auto_preference_duplicate",
        _IMC,
        "auto preference must list declared profiles once each",
        Edit((*_PROFILES, "auto_preference"), "dup"),
    ),
    _profile_cell(
        "foreign_profile_error_propagates",
        "02.9.3/profile_validate_propagates",
        _IMC,
        "numerical profile needs a non-zero major version",
        Edit((*_PROFILE, "family_id"), "set", "family.other"),
        Edit((*_PROFILE, "version", "major"), "set", 0),
        family="family.other",
    ),
    _profile_cell(
        "profiles_version_before_profiles",
        "02.9.3/profiles_new_order",
        _IMC,
        "family numerical profiles need a non-zero major version",
        Edit((*_PROFILES, "version", "major"), "set", 0),
        Edit((*_PROFILE, "family_id"), "set", "family.other"),
        Edit((*_PROFILE, "version", "major"), "set", 0),
    ),
    _profile_cell(
        "profiles_validated_before_preference",
        "02.9.3/profiles_new_order",
        _IMC,
        "numerical profile needs a non-zero major version",
        Edit((*_PROFILE, "family_id"), "set", "family.other"),
        Edit((*_PROFILE, "version", "major"), "set", 0),
        Edit((*_PROFILES, "auto_preference"), "append", "fixture.absent"),
        family="family.other",
    ),
    _cell(
        "profile_unknown",
        "02.6.2/unknown_profile",
        _IMC,
        "unknown numerical profile `fixture.other`",
        Edit(("family", "numerical_profile"), "set", "fixture.other"),
        **_FAMILY,
        field="numerical_profile",
    ),
    # 02.10.1: the program's checkpoint inputs
    _cell(
        "checkpoint_inputs_version",
        "02.10.1/checkpoint_inputs_version",
        _SER,
        "checkpoint input contract must be",
        Edit((*_PROGRAM, "checkpoint_inputs"), "set", _checkpoint_inputs(contract_version={"major": 2, "minor": 0})),
        **_DOCUMENT,
    ),
    _cell(
        "checkpoint_inputs_descending",
        "02.10.1/checkpoint_inputs_ascending",
        _SER,
        "must be strictly ascending",
        Edit((*_PROGRAM, "checkpoint_inputs"), "set", _checkpoint_inputs(conditioning_inputs=["value.b", "value.a"])),
        **_DOCUMENT,
    ),
    _cell(
        "checkpoint_token_conditioning",
        "02.10.1/checkpoint_token_not_conditioning",
        _SER,
        "token input must not be a conditioning input",
        Edit((*_PROGRAM, "checkpoint_inputs"), "set", _checkpoint_inputs(conditioning_inputs=["value.input"])),
        **_DOCUMENT,
    ),
    _cell(
        "checkpoint_output_only_overlap",
        "02.10.1/checkpoint_output_only_disjoint",
        _SER,
        "output-only inputs must be disjoint",
        Edit((*_PROGRAM, "checkpoint_inputs"), "set", _checkpoint_inputs(output_only_inputs=["value.input"])),
        **_DOCUMENT,
    ),
    _cell(
        "checkpoint_inputs_partition",
        "02.10.1/checkpoint_inputs_cover_program_inputs",
        _EP,
        "checkpoint inputs must partition the program inputs",
        Edit((*_PROGRAM, "checkpoint_inputs"), "set", _checkpoint_inputs(token_input="value.other")),
    ),
    # 02.10.1: token-scaled state demands (decoded with a one-byte tensor)
    _cell(
        "state_bytes_per_token_below_tensor",
        "02.10.1/token_scaled_bytes_per_token",
        _SER,
        "bytes_per_token is below the tensor size",
        Edit((*_STATE, "capacity_demand"), "set", {"token_scaled": {"bytes_per_token": 0, "maximum_tokens": 4}}),
        **_DOCUMENT,
    ),
    _cell(
        "state_maximum_tokens_zero",
        "02.10.1/token_scaled_maximum_tokens",
        _SER,
        "maximum_tokens must be non-zero",
        Edit((*_STATE, "capacity_demand"), "set", {"token_scaled": {"bytes_per_token": 8, "maximum_tokens": 0}}),
        **_DOCUMENT,
    ),
    _cell(
        "state_capacity_overflow",
        "02.10.1/token_scaled_overflow",
        _SER,
        "state capacity overflows u64",
        Edit((*_STATE, "capacity_demand"), "set", {"token_scaled": {"bytes_per_token": 2**63, "maximum_tokens": 4}}),
        **_DOCUMENT,
    ),
    # 02.10.3 / 01.1.4: ModelProgram::new, rule by rule (states and weights before blocks, inputs before outputs)
    _cell(
        "program_inputs_duplicate",
        "02.10.3/inputs_duplicate",
        _IMC,
        "program inputs must be non-empty and unique",
        Edit((*_PROGRAM, "inputs"), "dup"),
        **_FAMILY,
        field="program.inputs",
    ),
    _cell(
        "state_checkpoint_before_tensor",
        "02.10.3/state_checkpoint_lifetime_bare",
        _EP,
        "state checkpoints require sequence lifetime",
        Edit((*_STATE, "lifetime"), "set", "request"),
        Edit((*_STATE, "checkpoint"), "set", _COMPLETED_BOUNDARY),
        Edit((*_STATE, "tensor", "dimensions"), "set", [0]),
    ),
    _cell(
        "program_state_demand_below_tensor",
        "02.10.3/state_invalid_demand",
        _IMC,
        "bytes_per_token is below the tensor size",
        Edit((*_STATE, "capacity_demand"), "set", {"token_scaled": {"bytes_per_token": 2, "maximum_tokens": 4}}),
        **_FAMILY,
        field="program.states.value_id",
    ),
    _cell(
        "weight_tensor_zero_dimension",
        "02.10.3/weight_tensor_bare",
        _EP,
        "program.weights.tensor is invalid: tensor dimensions must be non-zero",
        Edit((*_WEIGHT, "tensor", "dimensions"), "set", [0]),
    ),
    _cell(
        "weight_duplicate_before_tensor",
        "02.10.3/weight_tensor_bare",
        _IMC,
        "weight `weight.matrix` is duplicated or redefines a value",
        Edit((*_PROGRAM, "weights"), "dup"),
        Edit((*_PROGRAM, "weights", 1, "tensor", "dimensions"), "set", [0]),
        **_FAMILY,
        field="program.weights",
    ),
    _cell(
        "block_id_empty",
        "01.1.4/program_block_id_non_empty_unique",
        _IMC,
        "block '' is empty, unnamed or duplicated",
        Edit((*_PROGRAM, "blocks", 0, "id"), "set", ""),
        **_FAMILY,
        field="program.blocks.id",
    ),
    _cell(
        "block_id_duplicate",
        "01.1.4/program_block_id_non_empty_unique",
        _IMC,
        "block 'block.main' is empty, unnamed or duplicated",
        Edit((*_PROGRAM, "blocks"), "dup"),
        **_FAMILY,
        field="program.blocks.id",
    ),
    _cell(
        "block_without_nodes",
        "02.10.3/block_id_empty_nodes_duplicate",
        _IMC,
        "block 'block.tail' is empty, unnamed or duplicated",
        Edit((*_PROGRAM, "blocks"), "append", {"id": "block.tail", "nodes": []}),
        **_FAMILY,
        field="program.blocks.id",
    ),
    _cell(
        "node_reads_own_output",
        "02.10.3/node_reads_own_output",
        _IMC,
        "node `node.main` reads undefined value `value.output`",
        Edit((*_NODE, "inputs"), "append", "value.output"),
        **_FAMILY,
        field="program.nodes.inputs",
    ),
    # 02.1 / 02.10.1: the program's and its states' strict decoders
    _cell(
        "program_unknown_field",
        "02.1/deny_unknown_model_program",
        _SER,
        "unknown field `entry` in ModelProgram",
        Edit((*_PROGRAM, "entry"), "set", "node.main"),
        **_DOCUMENT,
    ),
    _cell(
        "checkpoint_inputs_unknown_field",
        "02.1/deny_unknown_program_checkpoint_inputs",
        _SER,
        "unknown field `state_inputs` in ProgramCheckpointInputs",
        Edit((*_PROGRAM, "checkpoint_inputs"), "set", _checkpoint_inputs(state_inputs=[])),
        **_DOCUMENT,
    ),
    _cell(
        "state_unknown_field",
        "02.1/deny_unknown_state_spec",
        _SER,
        "unknown field `dtype` in StateSpec",
        Edit((*_STATE, "dtype"), "set", "u8"),
        **_DOCUMENT,
    ),
    _cell(
        "state_demand_unknown_field",
        "02.1/deny_unknown_state_capacity_demand",
        _SER,
        "unknown field `minimum_tokens` in token_scaled",
        Edit(
            (*_STATE, "capacity_demand"),
            "set",
            {"token_scaled": {"bytes_per_token": 8, "maximum_tokens": 4, "minimum_tokens": 1}},
        ),
        **_DOCUMENT,
    ),
    _cell(
        "state_checkpoint_unknown_field",
        "02.1/deny_unknown_state_checkpoint_contract",
        _SER,
        "unknown field `retention` in StateCheckpointContract",
        Edit((*_STATE, "checkpoint"), "set", {"completed_boundary": {**_COMPLETED, "retention": "all"}}),
        **_DOCUMENT,
    ),
    _cell(
        "state_checkpoint_null",
        "02.10.1/state_checkpoint_null_rejected",
        _SER,
        "checkpoint: expected an enum",
        Edit((*_STATE, "checkpoint"), "set", None),
        **_DOCUMENT,
    ),
    _cell(
        "state_demand_maximum_tokens_zero",
        "02.10.1/demand_decode_validates_t1",
        _SER,
        "maximum_tokens must be non-zero",
        Edit((*_STATE, "capacity_demand"), "set", {"token_scaled": {"bytes_per_token": 1, "maximum_tokens": 0}}),
        **_DOCUMENT,
    ),
    # 02.1: semantic values and special-token collisions decode strictly
    _cell(
        "rational_unknown_field",
        "02.1/deny_unknown_canonical_rational",
        _SER,
        "unknown field `exact` in CanonicalRational",
        Edit(
            (*_NODE, "attributes"), "set", {"attr.x": {"rational": {"numerator": 1, "denominator": 2, "exact": True}}}
        ),
        **_DOCUMENT,
    ),
    _cell(
        "collision_unknown_field",
        "02.1/deny_unknown_special_token_collision",
        _SER,
        "unknown field `token_id` in SpecialTokenCollision",
        Edit((*_COLLISIONS, "allowed"), "set", [{"first": "bos", "second": "eos", "token_id": 2}]),
        **_DOCUMENT,
    ),
    _cell(
        "collision_policy_unknown_field",
        "02.1/deny_unknown_special_token_collision_policy",
        _SER,
        "unknown field `mode` in SpecialTokenCollisionPolicy",
        Edit((*_COLLISIONS, "mode"), "set", "allow"),
        **_DOCUMENT,
    ),
    # 02.10.3: program structure checks behind the blocks
    _cell(
        "state_id_duplicate",
        "02.10.3/state_id_duplicate_after_blocks",
        _IMC,
        "state `state.cache` is duplicated",
        Edit((*_PROGRAM, "states"), "dup"),
        Edit((*_PROGRAM, "states", 1, "value_id"), "set", "value.state2"),
        **_FAMILY,
        field="program.states.id",
    ),
    _cell(
        "node_work_value_is_weight",
        "02.10.3/node_work_value",
        _IMC,
        "token work value is invalid",
        Edit((*_NODE, "work"), "set", {"tokens": {"value_id": "value.weight", "axis": 0}}),
        **_FAMILY,
        field="program.nodes.work",
    ),
    # 02.8.2: quantization specs of components
    _component_cell(
        "grouping_without_kind",
        "01.5/enum_variant_shape",
        _SER,
        "quantization grouping needs a `kind`",
        _component("packed_values", quantized(grouping={"size": 4})),
    ),
    _component_cell(
        "block2d_shape_length",
        "02.8.2/block2d_zero_entry_decode_error",
        _SER,
        "expected an array of 2 non-zero u32",
        _component("packed_values", quantized(grouping={"kind": "block2d", "block_shape": [4]})),
    ),
    _component_cell(
        "block2d_shape_zero",
        "02.8.2/block2d_zero_entry_decode_error",
        _SER,
        "block extents must be non-zero",
        _component("packed_values", quantized(grouping={"kind": "block2d", "block_shape": [4, 0]})),
    ),
    _component_cell(
        "fixed_group_not_power_of_two",
        "02.8.2/fixed_group_power_of_two",
        _EP,
        "group sizes must be non-zero powers of two",
        _component("packed_values", quantized(grouping={"kind": "fixed", "size": 3})),
    ),
    _component_cell(
        "scale_type_integer",
        "02.8.2/scale_type_float",
        _EP,
        "scale type must be f16, bf16 or f32",
        _component("packed_values", quantized(scale_type="u8")),
    ),
    _component_cell(
        "zero_point_type_float",
        "02.8.2/zero_point_type_integer",
        _EP,
        "zero-point type must be u8, u32, i8 or i32",
        _component("packed_values", quantized(zero_point_type="f32")),
    ),
    _component_cell(
        "block_values_per_block_zero",
        "02.8.2/block_values_per_block_positive",
        _EP,
        "needs non-zero values and bytes per block",
        _component("packed_values", block_quantized(logical_values_per_block=0)),
    ),
    # 02.8.6: component checks of the weight schema
    _component_cell(
        "quantization_abi_conflict",
        "02.8.6/conflicting_quantization_abi",
        _IMC,
        "has conflicting physical ABIs",
        _component("packed_values", quantized()),
        _component("packed_values", quantized(bits_per_weight=3), name="extra2"),
    ),
    _component_cell(
        "dense_affine_scales_role",
        "02.8.6/dense_affine_role_values",
        _IMC,
        "dense_affine needs role values and a float type",
        _component("scales", dense_affine("f32")),
    ),
    _component_cell(
        "dense_affine_integer_type",
        "02.8.6/dense_affine_float_type",
        _IMC,
        "dense_affine needs role values and a float type",
        _component("values", dense_affine("u8")),
    ),
    _cell(
        "component_bytes_overflow",
        "02.8.6/component_bytes_overflow",
        _IMC,
        "element count overflows u64",
        Edit(_COMPONENTS, "append", _component("values", {"dense": {"element_type": "f32"}}, (2**63, 4))),
        **_FAMILY,
        field="weight_schema.components.dimensions",
    ),
    _component_cell(
        "scales_role_quantized",
        "02.8.6/role_scales_encoding",
        _IMC,
        "role scales does not accept its encoding",
        _component("scales", quantized()),
    ),
    _component_cell(
        "zero_points_role_float",
        "02.8.6/role_zero_points_encoding",
        _IMC,
        "role zero_points does not accept its encoding",
        _component("zero_points", {"dense": {"element_type": "f32"}}),
    ),
    # 02.10.1: semantic attribute values of a program node
    _cell(
        "attribute_text_empty",
        "02.10.1/semantic_text_non_empty",
        _EP,
        "text attribute value must not be empty",
        Edit((*_NODE, "attributes"), "set", {"attr.x": {"text": ""}}),
    ),
    _cell(
        "attribute_integers_empty",
        "02.10.1/semantic_integers_non_empty",
        _EP,
        "integer list attribute value must not be empty",
        Edit((*_NODE, "attributes"), "set", {"attr.x": {"integers": []}}),
    ),
    _cell(
        "attribute_rational_zero_denominator",
        "02.10.1/rational_zero_denominator",
        _SER,
        "rational denominator must be non-zero",
        Edit((*_NODE, "attributes"), "set", {"attr.x": {"rational": {"numerator": 1, "denominator": 0}}}),
        **_DOCUMENT,
    ),
    _cell(
        "attribute_unknown_variant",
        "01.5/enum_variant_shape",
        _SER,
        "unknown variant 'bogus'",
        Edit((*_NODE, "attributes"), "set", {"attr.x": {"bogus": 1}}),
        **_DOCUMENT,
    ),
    _cell(
        "node_work_unknown_variant",
        "01.5/enum_variant_shape",
        _SER,
        "work: unknown variant 'bogus'",
        Edit((*_NODE, "work"), "set", {"bogus": {}}),
        **_DOCUMENT,
    ),
    # 02.10.1: a state's checkpoint contract
    _cell(
        "state_checkpoint_contract_version",
        "02.10.1/checkpoint_contract_version",
        _SER,
        "state checkpoint contract must be 1.0",
        Edit(
            (*_STATE, "checkpoint"),
            "set",
            {
                "completed_boundary": {
                    "contract_version": {"major": 2, "minor": 0},
                    "contents": "prefix_positions",
                    "input_dependency": "exact_token_prefix",
                }
            },
        ),
        **_DOCUMENT,
    ),
    # 02.11.3 / 01.1.4 / 02.6.1: define validates the semantic metadata, one check after another
    _metadata_cell(
        "template_empty", "02.11.3/template_empty", "template must not be empty", ("template", "template"), ""
    ),
    _source_file_cell("source_file_empty", "02.11.3/source_file_empty", ""),
    _source_file_cell("source_file_absolute", "02.11.3/source_file_absolute", "/templates/chat.json"),
    _source_file_cell("source_file_backslash", "02.11.3/source_file_backslash", "templates\\chat.json"),
    _source_file_cell("source_file_double_slash", "02.11.3/source_file_empty_segment", "templates//chat.json"),
    _source_file_cell("source_file_trailing_slash", "02.11.3/source_file_empty_segment", "templates/"),
    _source_file_cell("source_file_dot_segment", "02.11.3/source_file_dot_segment", "./template.json"),
    _source_file_cell("source_file_dotdot_segment", "02.11.3/source_file_dotdot_segment", "templates/../template.json"),
    _metadata_cell(
        "template_sha_uppercase",
        "02.11.3/template_sha_not_canonical",
        "sha256 must be 64 lowercase hex",
        ("template", "sha256"),
        "C" * 64,
    ),
    _metadata_cell(
        "eos_token_ids_empty", "02.11.3/eos_empty", "at least one eos token id", ("special_tokens", "eos_token_ids"), []
    ),
    # 02.11.1: special-token collisions
    _cell(
        "collision_equal_roles",
        "02.11.1/collision_equal_roles",
        _SER,
        "needs two distinct roles",
        Edit(
            (*_DOC, "semantic_metadata", "special_tokens", "collision_policy", "allowed"),
            "set",
            [{"first": "bos", "second": "bos"}],
        ),
        **_DOCUMENT,
    ),
    # 02.1 / 01.5: weight schema decoding
    _cell(
        "block_grid_axes_length",
        "02.1/fixed_arrays_exact_length",
        _SER,
        "expected an array of exactly 2 axes",
        Edit(
            (*_SCHEMA, "tensors", 0, "physical_layout"),
            "set",
            {
                "quantized_block_grid": {
                    "packed_values": {"component_id": "weight.component"},
                    "packed_dimensions": [4],
                    "scales": {"component_id": "weight.component"},
                    "block_axes": [0],
                }
            },
        ),
        **_DOCUMENT,
    ),
    _cell(
        "rational_numerator_string",
        "01.5/struct_wrong_json_type",
        _SER,
        "numerator: expected i64, got '1'",
        Edit(
            _COMPONENTS,
            "append",
            _component(
                "values",
                {
                    "dense_affine": {
                        "element_type": "f32",
                        "scale": {"numerator": "1", "denominator": 1},
                        "bias": dict(_ONE),
                    }
                },
            ),
        ),
        **_DOCUMENT,
    ),
    # 02.6.2: specialized weight schemas may change only logical element types
    ScenarioCell(
        "specialization_adds_tensor",
        "02.6.2/specialization_changes_physical",
        _IMC,
        "specialization added `weight.added`",
        make=_specialized(_add_tensor),
        fields={**_FAMILY, "field": "numerical_profile.weight_schema"},
    ),
    ScenarioCell(
        "specialization_changes_component",
        "02.6.2/specialization_changes_physical",
        _IMC,
        "specialization changed the physical weight schema",
        make=_specialized(_rename_external),
        fields={**_FAMILY, "field": "numerical_profile.weight_schema"},
    ),
    ScenarioCell(
        "specialization_breaks_layout_binding",
        "02.6.2/specialized_schema_revalidated",
        _IMC,
        "has the wrong element type for role values",
        make=_specialized(_retype_tensor),
        fields={**_FAMILY, "field": "weight_schema.tensors.weight.matrix.physical_layout"},
    ),
    # 02.12: a fixed schema whose tensor layout nests 17 deep (16 composites over the dense leaf)
    ScenarioCell(
        "layout_17_deep",
        "02.12/fixed_schema_17_deep_rejected",
        _IMC,
        "physical weight layout exceeds maximum depth 16",
        edits=(Edit((*_SCHEMA, "tensors", 0, "physical_layout"), "apply", _nested_composites(16)),),
        fields={**_FAMILY, "field": "weight_schema.tensors.weight.matrix.physical_layout"},
    ),
    # 01.5: other documents of the scenario (decoded before the family is read)
    _cell(
        "catalog_materializers_not_object",
        "01.5/struct_wrong_json_type",
        _SER,
        "$.weight_materializers: expected a JSON object",
        Edit(("catalog", "weight_materializers"), "set", []),
        context="decode catalog document",
    ),
    _cell(
        "catalog_oracle_unknown_variant",
        "01.5/enum_variant_shape",
        _SER,
        "oracle: unknown variant 'bogus'",
        Edit(("catalog", "operations", 0, "oracle"), "set", {"bogus": {}}),
        context="decode catalog document",
    ),
    _cell(
        "policy_buckets_capped",
        "01.5/decoded_array_capped",
        _SER,
        "66 items exceed the limit 65",
        Edit(("policy", "wire", "reusable_execution"), "set", {"maximum_reusable_lanes": 1, "buckets": [0] * 66}),
        **_POLICY_DOCUMENT,
    ),
    ScenarioCell(
        "compile_tensor_specs_not_object",
        "01.5/struct_wrong_json_type",
        _SER,
        "$.tensor_specs: expected a JSON object",
        make=functools.partial(base_scenario, "plan_fixture"),
        operation="compile_plan",
        options={"tensor_specs": [], "required_capabilities": {}, "preferred_providers": {}},
        fields={"context": "decode compile options"},
    ),
    # 01.5: a validating constructor's argument errors at a decode boundary (the planning registry document)
    _cell(
        "estimator_shaping_behavior_with_estimate",
        "01.5/validating_wire_constructor_errors_are_serialization",
        _SER,
        "shapes the estimate; it cannot declare one",
        Edit(("registry", "estimators", 0, "behavior"), "set", "missing_scratch"),
        Edit(("registry", "estimators", 0, "estimate"), "set", _EMPTY_ESTIMATE),
        **_SCENARIO,
    ),
    _cell(
        "estimator_estimate_with_bytes",
        "01.5/validating_wire_constructor_errors_are_serialization",
        _SER,
        "an estimator with a declared estimate has no scratch or persistent bytes",
        Edit(("registry", "estimators", 0, "estimate"), "set", _EMPTY_ESTIMATE),
        **_SCENARIO,
    ),
)
