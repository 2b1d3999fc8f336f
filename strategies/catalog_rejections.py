"""Catalog documents the reference refuses (spec 03 §11.2): a valid drawn document mutated by one
named operator (``CATALOG_OPERATORS``, each with the catalogue rule its refusal implements), with the error
kind the contract names."""

from __future__ import annotations

from typing import Any, Final

from hypothesis import strategies as st

from reference.canonical import JsonValue
from reference.catalog.catalog import CapabilityCatalog
from reference.documents.catalog import catalog_from_document
from strategies._reuse import reusable
from strategies.cases import SERIALIZATION, Rejection, get_at, replaced, updated
from strategies.catalog import catalogs

__all__ = ["CATALOG_OPERATORS", "build_catalog_document", "catalog_rejections"]

_EP: Final = "invalid_execution_plan"
_UNSUP: Final = "unsupported_operation"


def _rejection(operator: str, rule: str, kind: str, document: JsonValue, original: JsonValue) -> Rejection:
    return Rejection(operator, rule, kind, document, original)


@reusable
@st.composite
def catalog_rejections(draw: st.DrawFn, operators: tuple[str, ...] | None = None) -> Rejection:
    """A catalog document ``catalog_from_document`` refuses, with the kind the contract names (§11.2).

    ``operators`` restricts the choice to those names (see ``CATALOG_OPERATORS``).
    """
    draft = draw(catalogs(max_operations=2))
    doc = draft.document
    first_key = next(iter(doc["providers"]))
    first_op = next(i for i, op in enumerate(doc["operations"]) if op["id"] == first_key)
    op_path = ("operations", first_op)
    row_path = ("providers", first_key, 0)
    row = get_at(doc, row_path)
    other_sha = "0" * 64 if row["operation_fingerprint"] != "0" * 64 else "1" * 64
    version = get_at(doc, (*op_path, "version"))

    def with_list(path: tuple[Any, ...], extra: Any) -> JsonValue:
        return replaced(doc, path, [*get_at(doc, path), extra])

    table: dict[str, Any] = {
        "duplicate_operation": lambda: _rejection(
            "duplicate_operation", "03 §11.2 new: duplicate operation ids", _EP,
            with_list(("operations",), get_at(doc, op_path)), doc),
        "duplicate_engine": lambda: _rejection(
            "duplicate_engine", "03 §11.2 new: duplicate engine provider ids", _EP,
            with_list(("engine_providers",), doc["engine_providers"][0]), doc),
        "device_memory_zero": lambda: _rejection(
            "device_memory_zero", "03 §10 / §11.2 a: device memory must be non-zero", _EP,
            updated(doc, ("device",), total_memory_bytes=0), doc),
        "device_no_profiles": lambda: _rejection(
            "device_no_profiles", "03 §10 / §11.2 a: a device offers at least one storage profile", _EP,
            updated(doc, ("device",), dynamic_storage_profiles=[]), doc),
        "device_fingerprint_uppercase": lambda: _rejection(
            "device_fingerprint_uppercase", "03 §10: runtime fingerprint is canonical lowercase sha256", _EP,
            updated(doc, ("device",), runtime_implementation_fingerprint="A" * 64), doc),
        "operation_major_zero": lambda: _rejection(
            "operation_major_zero", "03 §5.3: operation major version must be non-zero", _EP,
            replaced(doc, (*op_path, "version"), {"major": 0, "minor": version["minor"]}), doc),
        "operation_capability_missing": lambda: _rejection(
            "operation_capability_missing", "03 §11.2 f: the device must have the operation's capabilities", _UNSUP,
            replaced(doc, (*op_path, "provider", "required_capabilities"), ["capability.absent"]), doc),
        "operation_alignment_not_power_of_two": lambda: _rejection(
            "operation_alignment_not_power_of_two", "03 §5.3: value alignment is a power of two", _EP,
            replaced(doc, (*op_path, "resources", "minimum_value_alignment_bytes"), 3), doc),
        "operation_no_outputs": lambda: _rejection(
            "operation_no_outputs", "03 §5.3: an operation has outputs", _EP,
            replaced(doc, (*op_path, "outputs"), []), doc),
        "operation_input_writes": lambda: _rejection(
            "operation_input_writes", "03 §5.3: inputs are read or read_write", _EP,
            replaced(doc, (*op_path, "inputs"), [_write_contract()]), doc),
        "operation_alias_out_of_range": lambda: _rejection(
            "operation_alias_out_of_range", "03 §5.3: an output aliases an existing input", _EP,
            replaced(doc, (*op_path, "outputs"), [_aliasing_contract(len(get_at(doc, (*op_path, "inputs"))))]), doc),
        "operation_oracle_missing_reference": lambda: _rejection(
            "operation_oracle_missing_reference", "03 §11.3 pass 1: a reference oracle exists", _EP,
            replaced(doc, (*op_path, "oracle"), {"reference_operation": {
                "operation_id": "operation.absent", "version": {"major": 1, "minor": 0}}}),
            doc),
        "operation_oracle_self_cycle": lambda: _rejection(
            "operation_oracle_self_cycle", "03 §11.3 pass 2: reference oracles are acyclic", _EP,
            replaced(doc, (*op_path, "oracle"),
                     {"reference_operation": {"operation_id": first_key, "version": {"major": version["major"],
                                                                                      "minor": 0}}}),
            doc),
        "operations_and_providers_differ": lambda: _rejection(
            "operations_and_providers_differ", "03 §11.2 e: operations and provider entries have the same keys", _EP,
            replaced(doc, ("providers",), {**doc["providers"], "operation.orphan": doc["providers"][first_key]}),
            doc),
        "provider_fingerprint_mismatch": lambda: _rejection(
            "provider_fingerprint_mismatch", "03 §11.2 h: provider carries the operation fingerprint", _UNSUP,
            updated(doc, row_path, operation_fingerprint=other_sha), doc),
        "provider_other_device": lambda: _rejection(
            "provider_other_device", "03 §11.2 h: provider targets the catalog device", _UNSUP,
            updated(doc, row_path, device_id="device.other"), doc),
        "provider_major_mismatch": lambda: _rejection(
            "provider_major_mismatch", "03 §11.2 h: provider version satisfies the operation", _UNSUP,
            updated(doc, row_path, version={"major": row["version"]["major"] + 1, "minor": 0}), doc),
        "provider_capability_beyond_device": lambda: _rejection(
            "provider_capability_beyond_device", "03 §11.2 h: provider capabilities within the device", _UNSUP,
            updated(doc, row_path, capabilities=sorted([*row["capabilities"], "capability.absent"])), doc),
        "provider_listed_twice": lambda: _rejection(
            "provider_listed_twice", "03 §11.2 h: a provider id appears once per operation", _UNSUP,
            with_list(("providers", first_key), row), doc),
        "provider_no_bindings": lambda: _rejection(
            "provider_no_bindings", "03 §8 constructor (decoded: Serialization): at least one storage binding",
            SERIALIZATION, updated(doc, row_path, dynamic_storage_bindings=[]), doc),
        "provider_unknown_field": lambda: _rejection(
            "provider_unknown_field", "03 §8: provider wire denies unknown fields (incl. 0.12.x checkpoint)",
            SERIALIZATION, updated(doc, row_path, checkpoint=None), doc),
        "engine_other_device": lambda: _rejection(
            "engine_other_device", "03 §11.2 i: engine targets the catalog device", _EP,
            replaced(doc, ("engine_providers", 0, "device_id"), "device.other"), doc),
        "engine_capability_beyond_device": lambda: _rejection(
            "engine_capability_beyond_device", "03 §11.2 i: engine capabilities within the device", _EP,
            replaced(doc, ("engine_providers", 0, "capabilities"), ["capability.absent"]), doc),
        "engine_major_zero": lambda: _rejection(
            "engine_major_zero", "03 §9 constructor (decoded: Serialization): contract major non-zero", SERIALIZATION,
            replaced(doc, ("engine_providers", 0, "contract_version"), {"major": 0, "minor": 1}), doc),
        "materializers_without_identity": lambda: _rejection(
            "materializers_without_identity", "03 §11.6: the materializer map holds 1 to 64 entries", _EP,
            replaced(doc, ("weight_materializers",), {}), doc),
        "unknown_top_level_field": lambda: _rejection(
            "unknown_top_level_field", "catalog documents deny unknown fields", SERIALIZATION,
            updated(doc, (), unknown=[]), doc),
        "invalid_storage_profile": lambda: _rejection(
            "invalid_storage_profile", "03 §6.2 (decoded: Serialization): block sizes are powers of two",
            SERIALIZATION,
            replaced(doc, ("device", "dynamic_storage_profiles"),
                     [{"allocator": {"fixed_block_arena": {"block_bytes": 3}}, "view": "contiguous"}]),
            doc),
    }  # fmt: skip
    rejection: Rejection = table[draw(st.sampled_from(sorted(operators or table)))]()
    return rejection


def _write_contract() -> JsonValue:
    return {
        "dimensions": [{"exact": 4}],
        "element_types": ["f32"],
        "layouts": ["contiguous"],
        "access": "write",
        "alias": "no_alias",
    }


def _aliasing_contract(inputs: int) -> JsonValue:
    return {
        "dimensions": [{"exact": 4}],
        "element_types": ["f32"],
        "layouts": ["contiguous"],
        "access": "write",
        "alias": {"must_alias": {"tensor_index": inputs}},
    }


def build_catalog_document(document: JsonValue) -> CapabilityCatalog:
    """The reference's decode-and-construct of a catalog document (what ``catalogs()`` promises to pass)."""
    return catalog_from_document(document)


#: Every catalog rejection operator, with the catalogue rule the reference's refusal of it implements (``None``: the
#: operator breaks no contract rule of its own, only the catalog document's format; the refusal is still compared
#: with the reference's).
CATALOG_OPERATORS: Final[dict[str, str | None]] = {
    "device_fingerprint_uppercase": "03.10/device_runtime_fingerprint",
    "device_memory_zero": "03.10/device_zero_memory",
    "device_no_profiles": "03.10/device_no_profiles",
    "duplicate_engine": "03.11.2/duplicate_engine_id",
    "duplicate_operation": "03.11.2/duplicate_operation_id",
    "engine_capability_beyond_device": "03.11.2/engine_capabilities",
    "engine_major_zero": "03.9/engine_major_zero",
    "engine_other_device": "03.11.2/engine_device",
    "invalid_storage_profile": "03.6.2/fixed_contiguous_power_of_two",
    "materializers_without_identity": "03.11.6/map_empty",
    "operation_alias_out_of_range": "03.5.3/output_alias_out_of_range",
    "operation_alignment_not_power_of_two": "03.5.3/alignment_not_power_of_two",
    "operation_capability_missing": "03.11.2/operation_capabilities_device",
    "operation_input_writes": "03.5.3/input_not_readable",
    "operation_major_zero": "03.5.3/version_major_zero",
    "operation_no_outputs": "03.5.3/no_outputs",
    "operation_oracle_missing_reference": "03.11.3/oracle_target_missing",
    "operation_oracle_self_cycle": "03.11.3/oracle_self_reference_cycle",
    "operations_and_providers_differ": "03.11.2/provider_entry_without_operation",
    "provider_capability_beyond_device": "03.11.2/provider_capabilities",
    "provider_fingerprint_mismatch": "03.11.2/provider_operation_fingerprint",
    "provider_listed_twice": "03.11.2/duplicate_provider_in_list",
    "provider_major_mismatch": "03.11.2/provider_version_satisfies",
    "provider_no_bindings": "03.8.2/no_bindings",
    "provider_other_device": "03.11.2/provider_device",
    "provider_unknown_field": "03.8.3/provider_deny_unknown",
    "unknown_top_level_field": None,
}
