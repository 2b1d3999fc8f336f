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
from reference.documents.catalog import catalog_to_document
from reference.errors import VNextError
from reference.ids import WeightFormatId, WeightId, WeightLayoutId
from reference.model.element import ElementType
from reference.model.weight_encoding import Dense, WeightComponentRole, WeightComponentSpec
from reference.model.weight_layout import DenseLayout
from reference.model.weight_schema import WeightSchema, WeightTensorSpec
from reference.versions import ContractVersion
from seeds.catalogs import catalog_with_u8_range_weight
from seeds.scenarios import weight_schema_scenario
from strategies.budget import base_scenario, with_device_memory, with_policy
from strategies.json_edits import Edit
from strategies.scenario_cells.cell import ScenarioCell

__all__ = ["CELLS"]

_EP: Final = "invalid_execution_plan"
_U64_MAX: Final = (1 << 64) - 1
_SER: Final = "serialization"
_OP: Final = ("catalog", "operations", {"id": "operation.main"})
_IN0: Final = (*_OP, "inputs", 0)
_OUT0: Final = (*_OP, "outputs", 0)
_PROFILE0: Final = ("catalog", "device", "dynamic_storage_profiles", 0)
_NODE: Final = ("family", "document", "program", "blocks", 0, "nodes", {"id": "node.main"})
_IDENTITY: Final = ("catalog", "weight_materializers", "weight-materializer.identity")
_ROW: Final = ("catalog", "providers", "operation.main", 0)
_ENGINE: Final = ("catalog", "engine_providers", 0)
_REGISTERED: Final = ("weights", "registry", "materializers", 0, "descriptor")
#: ``ProviderExecutionSemantics::bitwise_eager_only()``'s fingerprint (03 §7.2), on a wire claiming replay.
_EAGER_ONLY_FINGERPRINT: Final = "bd310dd799501048f0c7de845dd1d52750d76632c2a84e49d8857b89b09e1af4"
_PAIR: Final = "has an incompatible or invalid constraint"
_VIOLATES: Final = "violates its declared constraint"
_PROFILE: Final = "dynamic storage allocator and view are incompatible"
_LINEAR_CONTIGUOUS: Final = {"allocator": "linear_arena", "view": "contiguous"}
_PROVIDER: Final = "operation provider `provider.operation.reference` has an invalid identity or storage binding"
_MATERIALIZER: Final = "has invalid version or implementation identity"
_ROWS: Final = "capability catalog is empty or exceeds its row limits"

_UNSIGNED: Final = {"value_kind": "unsigned", "required": True,
                    "constraint": {"unsigned_range": {"minimum": 1, "maximum": 8}}}  # fmt: skip
_INVERTED: Final = {"unsigned_range": {"minimum": 9, "maximum": 8}}
_TEXT: Final = {"value_kind": "text", "required": False, "constraint": {"text_choices": {"values": ["a", "b"]}}}
_BOOL: Final = {"value_kind": "bool", "required": True, "constraint": {"bool_equals": True}}
_RATIONAL: Final = {"value_kind": "rational", "required": False, "constraint": {"rational_range": {
    "minimum": {"numerator": 0, "denominator": 1}, "maximum": {"numerator": 1, "denominator": 2}}}}  # fmt: skip
_INTEGERS: Final = {"value_kind": "integers", "required": False,
                    "constraint": {"integer_list_length": {"minimum": 1, "maximum": 2}}}  # fmt: skip


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


def _oracle_two_cycle() -> dict[str, Any]:
    """``operation.main`` and a copy name each other as their reference oracles."""
    return _with_operations(
        [_main_copy("operation.oracle", _reference("operation.main"))], _reference("operation.oracle")
    )


def _oracle_depth() -> dict[str, Any]:
    """A 65-operation reference chain: the walk from its head marks 64 and meets a 65th."""
    chain = [
        _main_copy(f"operation.chain.{i:02d}", _reference(f"operation.chain.{i + 1:02d}") if i < 64 else "exact")
        for i in range(65)
    ]
    return _with_operations(chain)


def _rational(numerator: int, denominator: int) -> dict[str, int]:
    return {"numerator": numerator, "denominator": denominator}


def _fba(block_bytes: int) -> dict[str, Any]:
    return {"fixed_block_arena": {"block_bytes": block_bytes}}


def _paged(block_bytes: int) -> dict[str, Any]:
    return {"paged_regions": {"block_bytes": block_bytes}}


def _schema_with_unknown_field() -> dict[str, Any]:
    scenario = base_scenario("plan_fixture")
    scenario["catalog"]["operations"][0]["attributes"] = {"entries": {}, "extra": 1}
    return scenario


def _extra_materializer(**changes: Any) -> Edit:
    """A second catalog materializer, ``weight-materializer.extra``, valid but for ``changes``."""
    descriptor = {
        "id": "weight-materializer.extra",
        "version": {"major": 1, "minor": 0},
        "implementation_fingerprint": "9" * 64,
        "fidelity": "exact",
        "required_capabilities": [],
        **changes,
    }
    return Edit(("catalog", "weight_materializers", "weight-materializer.extra"), "set", descriptor)


def _many_materializers() -> dict[str, Any]:
    """The identity materializer and 64 more: 65 entries in the catalog's map."""
    scenario = base_scenario("plan_fixture")
    entries = scenario["catalog"]["weight_materializers"]
    for index in range(64):
        entries[f"weight-materializer.extra.{index:02d}"] = {
            "id": f"weight-materializer.extra.{index:02d}",
            "version": {"major": 1, "minor": 0},
            "implementation_fingerprint": "9" * 64,
            "fidelity": "exact",
            "required_capabilities": [],
        }
    return scenario


def _many_rows(section: str, count: int) -> Callable[[], dict[str, Any]]:
    """The plan fixture whose catalog lists ``count`` rows of one section, each with its own id: operations
    (without inputs), engines, or provider rows of ``operation.main`` (one binding, short ids). Step d counts rows
    before anything looks at what they hold, so only their decoding matters; the rows are small to keep the
    document under the scenario size cap and cheap to decode."""

    def make() -> dict[str, Any]:
        scenario = base_scenario("plan_fixture")
        catalog = scenario["catalog"]
        if section == "providers":
            row = catalog["providers"]["operation.main"][0]
            small = {
                **row,
                "operation_id": "o",
                "device_id": "d",
                "resource_estimator_id": "e",
                "capabilities": [],
                "accepted_weight_formats": [],
                "dynamic_storage_bindings": row["dynamic_storage_bindings"][:1],
            }
            catalog["providers"]["operation.main"] = [{**small, "provider_id": f"p.{i}"} for i in range(count)]
        elif section == "operations":
            operation = {**catalog["operations"][0], "inputs": []}
            catalog["operations"] = [{**operation, "id": f"o.{i}"} for i in range(count)]
        else:
            engine = catalog["engine_providers"][0]
            catalog["engine_providers"] = [{**engine, "provider_id": f"p.{i}"} for i in range(count)]
        return scenario

    return make


def _operations_validated_in_id_order() -> dict[str, Any]:
    """``operation.main`` (listed first) requires a capability the device lacks (step f3: unsupported_operation);
    ``operation.aaa`` (listed after it, first in ascending id order) has no outputs (step f2: invalid_execution_plan).
    Both have provider entries, so steps d and e pass."""
    scenario = base_scenario("plan_fixture")
    catalog = scenario["catalog"]
    catalog["operations"].append({**_main_copy("operation.aaa", "exact"), "outputs": []})
    catalog["providers"]["operation.aaa"] = []
    catalog["operations"][0]["provider"]["required_capabilities"] = ["capability.absent"]
    return scenario


def _weight_beyond_host_memory() -> dict[str, Any]:
    """The plan fixture whose one weight is a dense u8 component of 2^63 bytes (an operation weight input of
    range ``1..=u64::MAX`` accepts it) on a device and policy of u64::MAX bytes: the plan builds, and the
    component is larger than any host can hold, so executing it must fail before any weight is uploaded."""
    extent = 1 << 63
    weight = WeightId("weight.component")
    schema = WeightSchema(
        WeightFormatId("weight-format.dense"),
        WeightLayoutId("weight-layout.huge"),
        ContractVersion(1, 0),
        (WeightComponentSpec(weight, WeightComponentRole.VALUES, ("weight.bin",), (extent,), Dense(ElementType.U8)),),
        (WeightTensorSpec(WeightId("weight.matrix"), (extent,), ElementType.U8, DenseLayout(weight)),),
    )
    scenario = weight_schema_scenario("weight-beyond-host-memory", schema, None)
    scenario["catalog"] = catalog_to_document(catalog_with_u8_range_weight())
    for entry in scenario["family"]["document"]["program"]["weights"]:
        entry["tensor"] = {"dimensions": [extent], "element_type": "u8", "layout": "contiguous"}
    return with_policy(with_device_memory(scenario, _U64_MAX), capacity=_U64_MAX, reserve=128)


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
    _catalog_cell("tensor_range_minimum_zero", "03.3.2/range_minimum_zero", _SER, "admits a zero extent",
                  Edit((*_IN0, "dimensions", 0), "set", {"range": {"minimum": 0, "maximum": 4}})),
    _catalog_cell("tensor_strided_zero_stride", "03.3.2/strided_zero_stride", _SER, "has an invalid strided layout",
                  Edit((*_IN0, "layouts"), "set", [{"strided": {"strides": [{"exact_bytes": 0}]}}])),
    _catalog_cell("tensor_strided_blank_symbol", "03.3.2/strided_blank_symbol", _SER,
                  "has an invalid strided layout",
                  Edit((*_IN0, "layouts"), "set", [{"strided": {"strides": [{"symbol": "\u3000"}]}}])),
    _catalog_cell("tensor_blocked_zero_extent", "03.3.2/blocked_zero_extent", _SER, "has an invalid blocked layout",
                  Edit((*_IN0, "layouts"), "set", [{"blocked": {"block": [0], "axis_order": [0]}}])),
    _catalog_cell("tensor_blocked_axis_order", "03.3.2/blocked_axis_order", _SER, "has an invalid blocked layout",
                  Edit((*_IN0, "layouts"), "set", [{"blocked": {"block": [4], "axis_order": [1]}}])),
    _catalog_cell("tensor_contract_unknown_field", "03.3.2/tensor_contract_deny_unknown", _SER,
                  "unknown field `extra` in TensorContract", Edit((*_IN0, "extra"), "set", 1)),
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
    # 03.5.1-03.5.2: operation descriptor parts, and a descriptor decoded without validation (the catalog
    # validates it, with its own kind)
    _catalog_cell("operation_resources_unknown_field", "03.5.1/resource_requirements_strict", _SER,
                  "unknown field `extra` in ResourceRequirements", Edit((*_OP, "resources", "extra"), "set", 1)),
    _catalog_cell("operation_resources_missing_field", "03.5.1/resource_requirements_strict", _SER,
                  "missing field `persistent` in ResourceRequirements",
                  Edit((*_OP, "resources"), "delete", "persistent")),
    _catalog_cell("operation_decoded_unvalidated", "03.5.2/descriptor_decode_not_validated", _EP,
                  "has an unstable zero major version", Edit((*_OP, "version"), "set", {"major": 0, "minor": 1})),
    # 03.5.3: operation descriptor checks
    _catalog_cell("operation_input_aliased", "03.5.3/input_aliased", _EP,
                  "input 0 has invalid access or alias semantics",
                  Edit((*_IN0, "alias"), "set", {"may_alias": {"tensor_index": 1}})),
    _catalog_cell("operation_alignment_zero", "03.5.3/alignment_zero", _EP, "has invalid resource requirements",
                  Edit((*_OP, "resources", "minimum_value_alignment_bytes"), "set", 0)),
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
    # 03.6: storage profiles (decoded: serialization) and binding requirements
    _catalog_cell("profile_unknown_field", "03.6.1/profile_deny_unknown", _SER,
                  "unknown field `extra` in DynamicStorageProfile", Edit((*_PROFILE0, "extra"), "set", 1)),
    _catalog_cell("profile_linear_paged", "03.6.2/linear_paged_never", _SER, _PROFILE,
                  Edit((*_PROFILE0, "view"), "set", _paged(64))),
    _catalog_cell("profile_block_bytes_zero", "03.6.2/block_bytes_zero", _SER, _PROFILE,
                  Edit((*_PROFILE0, "allocator"), "set", _fba(0))),
    _catalog_cell("profile_paged_sizes_differ", "03.6.2/fixed_paged_equal_power_of_two", _SER, _PROFILE,
                  Edit((*_PROFILE0, "allocator"), "set", _fba(64)), Edit((*_PROFILE0, "view"), "set", _paged(128))),
    _catalog_cell("profile_paged_not_a_power_of_two", "03.14/paged_profile_power_of_two", _SER, _PROFILE,
                  Edit((*_PROFILE0, "allocator"), "set", _fba(48)), Edit((*_PROFILE0, "view"), "set", _paged(48))),
    _catalog_cell("requirement_unsorted_profiles", "03.6.3/requirement_wire_unsorted", _SER,
                  "profiles must be sorted and unique",
                  Edit((*_ROW, "dynamic_storage_bindings", 0, "storage", "accepted_profiles"), "set",
                       [{"allocator": _fba(16), "view": "contiguous"}, _LINEAR_CONTIGUOUS])),
    _catalog_cell("requirement_unknown_field", "03.6.1/requirement_deny_unknown", _SER,
                  "unknown field `extra` in DynamicStorageRequirement",
                  Edit((*_ROW, "dynamic_storage_bindings", 0, "storage", "extra"), "set", 1)),
    _catalog_cell("requirement_duplicate_profiles", "03.6.3/requirement_wire_duplicates", _SER,
                  "profiles must be sorted and unique",
                  Edit((*_ROW, "dynamic_storage_bindings", 0, "storage", "accepted_profiles"), "dup")),
    _catalog_cell("requirement_no_profiles", "03.6.3/requirement_wire_empty", _SER,
                  "dynamic storage requirement must accept at least one profile",
                  Edit((*_ROW, "dynamic_storage_bindings", 0, "storage", "accepted_profiles"), "set", [])),
    _catalog_cell("requirement_invalid_profile", "03.6.3/requirement_wire_profiles_validated", _SER, _PROFILE,
                  Edit((*_ROW, "dynamic_storage_bindings", 0, "storage", "accepted_profiles"), "set",
                       [{"allocator": _fba(3), "view": "contiguous"}])),
    # 03.7.3: provider execution semantics
    _catalog_cell("semantics_unknown_field", "03.7.3/semantics_deny_unknown", _SER,
                  "unknown field `extra` in ProviderExecutionSemantics",
                  Edit((*_ROW, "execution_semantics", "extra"), "set", 1)),
    _catalog_cell("semantics_missing_field", "03.7.3/semantics_deny_unknown", _SER,
                  "missing field `repeatability` in ProviderExecutionSemantics",
                  Edit((*_ROW, "execution_semantics"), "delete", "repeatability")),
    _catalog_cell("semantics_fingerprint_of_the_other_preset", "03.7.3/semantics_fingerprint_recomputed", _SER,
                  "fingerprint does not match the semantics",
                  Edit((*_ROW, "execution_semantics", "contract_fingerprint"), "set", _EAGER_ONLY_FINGERPRINT)),
    # 03.8: operation provider descriptors (decoded: serialization)
    _catalog_cell("provider_version_major_zero", "03.8.2/version_major_zero", _SER, _PROVIDER,
                  Edit((*_ROW, "version"), "set", {"major": 0, "minor": 1})),
    _catalog_cell("provider_operation_fingerprint_uppercase", "03.8.2/operation_fingerprint_format", _SER,
                  _PROVIDER, Edit((*_ROW, "operation_fingerprint"), "apply", str.upper)),
    _catalog_cell("provider_implementation_fingerprint_short", "03.8.2/implementation_fingerprint_format", _SER,
                  _PROVIDER, Edit((*_ROW, "provider_implementation_fingerprint"), "set", "f" * 63)),
    _catalog_cell("provider_estimator_id_empty", "03.8.2/estimator_id_empty", _SER, _PROVIDER,
                  Edit((*_ROW, "resource_estimator_id"), "set", "")),
    _catalog_cell("provider_estimator_id_161_bytes", "03.8.2/estimator_id_too_long", _SER, _PROVIDER,
                  Edit((*_ROW, "resource_estimator_id"), "set", "e" * 161)),
    _catalog_cell("provider_estimator_id_charset", "03.8.2/estimator_id_charset", _SER, _PROVIDER,
                  Edit((*_ROW, "resource_estimator_id"), "set", "resource-estimator@reference")),
    _catalog_cell("provider_estimator_major_zero", "03.8.2/estimator_version_major_zero", _SER, _PROVIDER,
                  Edit((*_ROW, "resource_estimator_version"), "set", {"major": 0, "minor": 1})),
    _catalog_cell("provider_estimator_fingerprint_not_hex", "03.8.2/estimator_fingerprint_format", _SER, _PROVIDER,
                  Edit((*_ROW, "resource_estimator_implementation_fingerprint"), "set", "g" * 64)),
    _catalog_cell("provider_duplicate_slot", "03.8.2/duplicate_slot", _SER, _PROVIDER,
                  Edit((*_ROW, "dynamic_storage_bindings"), "dup")),
    _catalog_cell("provider_unknown_field", "03.8.3/provider_deny_unknown", _SER,
                  "unknown field `extra` in OperationProviderDescriptor", Edit((*_ROW, "extra"), "set", 1)),
    _catalog_cell("provider_checkpoint_null", "03.8.4/checkpoint_null_rejected", _SER,
                  "unknown field `checkpoint` in OperationProviderDescriptor",
                  Edit((*_ROW, "checkpoint"), "set", None)),
    # 03.9: engine provider descriptors
    _catalog_cell("engine_fingerprint_uppercase", "03.9/engine_fingerprint_format", _SER,
                  "has an invalid version or implementation fingerprint",
                  Edit((*_ENGINE, "implementation_fingerprint"), "set", "A" * 64)),
    _catalog_cell("engine_unknown_field", "03.9/engine_deny_unknown", _SER,
                  "unknown field `extra` in EngineProviderDescriptor", Edit((*_ENGINE, "extra"), "set", 1)),
    # 03.11.1: row limits (step d counts before it reads)
    ScenarioCell("catalog_engine_rows_over_limit", "03.11.1/max_engine_rows", _EP, _ROWS,
                 make=_many_rows("engine_providers", 4097), operation="fingerprint_catalog"),
    ScenarioCell("catalog_operation_rows_over_limit", "03.11.1/max_operation_rows", _EP, _ROWS,
                 make=_many_rows("operations", 4097), operation="fingerprint_catalog"),
    ScenarioCell("catalog_provider_rows_over_limit", "03.11.1/max_provider_rows", _EP, _ROWS,
                 make=_many_rows("providers", 16385), operation="fingerprint_catalog"),
    # 03.11.2: CapabilityCatalog::new and from_maps (an order cell breaks a later check of another kind too)
    _catalog_cell("catalog_providers_empty", "03.11.2/providers_empty", _EP, _ROWS,
                  Edit(("catalog", "providers"), "set", {})),
    _catalog_cell("catalog_engines_empty", "03.11.2/engines_empty", _EP, _ROWS,
                  Edit(("catalog", "engine_providers"), "set", [])),
    _catalog_cell("catalog_duplicate_operation_before_from_maps", "03.11.2/new_order", _EP,
                  "duplicate operation `operation.main`", Edit(("catalog", "operations"), "dup"),
                  Edit((*_ROW, "device_id"), "set", "device.other")),
    _catalog_cell("catalog_duplicate_engine_before_from_maps", "03.11.2/new_order", _EP,
                  "duplicate engine provider `provider.engine.reference`", Edit(("catalog", "engine_providers"), "dup"),
                  Edit((*_ROW, "device_id"), "set", "device.other")),
    _catalog_cell("catalog_device_validated_first", "03.11.2/device_validate_first", _EP,
                  "has invalid memory, storage profiles or runtime identity",
                  Edit(("catalog", "device", "total_memory_bytes"), "set", 0),
                  Edit((*_OP, "provider", "required_capabilities"), "set", ["capability.absent"])),
    ScenarioCell("catalog_operations_validated_in_id_order", "03.11.2/operation_validate_in_catalog", _EP,
                 "operation `operation.aaa` has no outputs", make=_operations_validated_in_id_order),
    # 03.1, 01.5: the catalog document's integers are exact-width unsigned integers
    _catalog_cell("catalog_u32_ordinal_past_u32", "03.1/integers_exact_width", _SER,
                  "$.device.ordinal: expected u32, got 4294967296",
                  Edit(("catalog", "device", "ordinal"), "set", 1 << 32)),
    _catalog_cell("catalog_u64_memory_boolean", "01.5/unsigned_rejects_bool", _SER,
                  "$.device.total_memory_bytes: expected u64, got True",
                  Edit(("catalog", "device", "total_memory_bytes"), "set", True)),
    # 03.11.3: the reference-oracle graph
    ScenarioCell("oracle_target_version", "03.11.3/oracle_target_version", _EP,
                 "references an incompatible oracle version", make=_oracle_version),
    ScenarioCell("oracle_target_signature", "03.11.3/oracle_target_signature", _EP,
                 "with a different signature", make=_oracle_signature),
    ScenarioCell("oracle_depth_64", "03.11.3/oracle_depth_64", _EP, "exceeds depth 64", make=_oracle_depth),
    ScenarioCell("oracle_two_cycle", "03.11.3/oracle_two_cycle", _EP, "reference oracle cycle through operation",
                 make=_oracle_two_cycle),
    # 03.11.6: the catalog's materializer map
    _catalog_cell("materializer_identity_tampered", "03.11.6/identity_tampered", _EP,
                  "must contain the canonical identity weight materializer",
                  Edit((*_IDENTITY, "implementation_fingerprint"), "set", "1" * 64)),
    _catalog_cell("materializer_identity_missing", "03.11.6/identity_missing", _EP,
                  "must contain the canonical identity weight materializer",
                  Edit(("catalog", "weight_materializers"), "delete", "weight-materializer.identity"),
                  _extra_materializer()),
    _catalog_cell("materializer_unknown_field", "03.11.6/descriptor_deny_unknown", _SER,
                  "unknown field `extra` in WeightMaterializerDescriptor", Edit((*_IDENTITY, "extra"), "set", 1)),
    _catalog_cell("materializer_major_zero", "03.11.6/version_major_zero", _EP, _MATERIALIZER,
                  _extra_materializer(version={"major": 0, "minor": 1})),
    _catalog_cell("materializer_fingerprint_uppercase", "03.11.6/implementation_fingerprint", _EP, _MATERIALIZER,
                  _extra_materializer(implementation_fingerprint="A" * 64)),
    _catalog_cell("materializer_capability_beyond_device", "03.11.6/capabilities_beyond_device", _EP,
                  "requires capabilities absent from device",
                  _extra_materializer(required_capabilities=["capability.absent"])),
    ScenarioCell("materializers_65", "03.11.1/max_weight_materializers", _EP,
                 "catalog must contain between 1 and 64 weight materializers", make=_many_materializers),
    # 03.11.6: the materializer registry of the weight selection
    ScenarioCell("registry_entry_major_zero", "03.11.6/registry_entry_structure", _EP, _MATERIALIZER,
                 base="weights_padded_dense", edits=(Edit((*_REGISTERED, "version"), "set", {"major": 0, "minor": 1}),),
                 operation="select_weight_plan"),
    ScenarioCell("registry_entry_with_the_identity_id", "03.11.6/registry_identity_is_duplicate", _EP,
                 "duplicate weight materializer `weight-materializer.identity`", base="weights_padded_dense",
                 edits=(Edit((*_REGISTERED, "id"), "set", "weight-materializer.identity"),),
                 operation="select_weight_plan"),
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
    ScenarioCell("attribute_pair_text_no_choices", "03.4/pair_text_choices", _SER, _PAIR,
                 make=_attributes({"attr.mode": {**_TEXT, "constraint": {"text_choices": {"values": []}}}}, {})),
    ScenarioCell("attribute_pair_integers_inverted", "03.4/pair_integer_list_length", _SER, _PAIR,
                 make=_attributes({"attr.shape": {**_INTEGERS, "constraint": {
                     "integer_list_length": {"minimum": 3, "maximum": 2}}}}, {})),
    ScenarioCell("attribute_pair_rational_inverted", "03.4/pair_rational_range", _SER, _PAIR,
                 make=_attributes({"attr.ratio": {**_RATIONAL, "constraint": {
                     "rational_range": {"minimum": _rational(1, 2), "maximum": _rational(1, 3)}}}}, {})),
    ScenarioCell("attribute_constraint_rational_zero_denominator", "03.4/rational_zero_denominator", _SER,
                 "rational denominator must be non-zero",
                 make=_attributes({"attr.ratio": {**_RATIONAL, "constraint": {
                     "rational_range": {"minimum": _rational(1, 0), "maximum": _rational(1, 1)}}}}, {})),
    _catalog_cell("oracle_tolerance_zero_denominator", "03.4/rational_zero_denominator", _SER,
                  "rational denominator must be non-zero",
                  Edit((*_OP, "oracle"), "set", {"relative_tolerance": {"tolerance": _rational(1, 0)}})),
    _catalog_cell("attribute_spec_unknown_field", "03.4/attribute_spec_deny_unknown", _SER,
                  "unknown field `extra` in AttributeSpec",
                  Edit((*_OP, "attributes"), "set", {"entries": {"attr.width": {**_UNSIGNED, "extra": 1}}})),
    ScenarioCell("attribute_schema_unknown_field", "03.4/attribute_schema_deny_unknown", _SER,
                 "unknown field `extra` in AttributeSchema", make=_schema_with_unknown_field),
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
    ScenarioCell("attribute_value_bool_differs", "03.4/values_bool_equals", _EP, _VIOLATES,
                 make=_attributes({"attr.flag": _BOOL}, {"attr.flag": {"bool": False}})),
    ScenarioCell("attribute_value_rational_above", "03.4/values_rational_range", _EP, _VIOLATES,
                 make=_attributes({"attr.ratio": _RATIONAL}, {"attr.ratio": {"rational": _rational(3, 4)}})),
    ScenarioCell("attribute_value_list_too_long", "03.4/values_list_length", _EP, _VIOLATES,
                 make=_attributes({"attr.shape": _INTEGERS}, {"attr.shape": {"integers": [1, 2, 3]}})),
    # 03.13.2: execution failing on the runtime side of a valid plan
    ScenarioCell("execute_weight_beyond_host_memory", "03.13.2/execute_runtime_failure", _EP,
                 "exceeds the host address space", make=_weight_beyond_host_memory, operation="execute"),
)  # fmt: skip
