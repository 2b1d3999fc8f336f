"""Re-sealed plan wires that each break one decode-time invariant (04 §8.3, 05 §7, §9.1 step 4, §9.5).

Every cell edits one place of the plan wire the reference built for a base scenario, re-seals it
(``rehash_plan_json``: a correct ``plan_id`` and ``plan_hash``, so neither hides the edit) and names
the decode-time rule the edit breaks. ``decode_untrusted`` runs the typed parse with every nested
validating decoder (``MemoryPlan.validate``, the descriptor's ``new``, the pool's ``validate_local``,
the reusable plan's ``validate_local``, the node's field decoders, its provider resource plan's
``validate_shape``), so the wire is refused as ``Serialization`` before any rebuild comparison.
``reason`` is a fragment of the reference's message: it proves the cell breaks the rule it names, not
an earlier one.

The edits are ``strategies.json_edits`` edits (re-deriving a pool's id from its compatibility key is an
``apply``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from reference import api
from reference.canonical import direct_bytes
from reference.plan.memory.identities import pool_id_for
from strategies.forged_wire import SERIALIZATION, PlanTarget, rehash_plan_json
from strategies.forgery import reference_targets
from strategies.json_edits import Edit, Step, apply_edits
from strategies.policy import reusable_bucket

__all__ = ["WIRE_CELLS", "WireCell", "forged_wire", "wire_targets"]


@dataclass(frozen=True, slots=True)
class WireCell:
    """Every edit applied to the ``target`` wire, re-sealed, must be refused with ``kind`` because of ``rule``."""

    name: str
    target: str
    edits: tuple[Edit, ...]
    rule: str
    reason: str
    kind: str = SERIALIZATION
    reseal: bool = True

    def __post_init__(self) -> None:
        if not self.edits:
            raise ValueError(f"{self.name}: no edit")


def _reusable_policy(target: PlanTarget, name: str) -> PlanTarget:
    """``target``'s scenario with a two-bucket reusable-execution policy and a checkpoint capacity."""
    scenario = copy.deepcopy(target.scenario)
    policy = scenario["policy"]
    fields = (
        {k: v for k, v in policy["wire"].items() if k != "fingerprint"}
        if policy["kind"] == "resolved"
        else policy["fields"]
    )
    fields["memory"]["checkpoint_capacity"] = {"maximum_retained_bytes": 4096}
    fields["reusable_execution"] = {
        "maximum_reusable_lanes": 2,
        "buckets": [reusable_bucket("class.a", 1, 4, 1), reusable_bucket("class.a", 2, 8, 1)],
    }
    scenario["policy"] = {"kind": "resolved_fields", "fields": fields}
    return PlanTarget(name, scenario, api.build_plan(scenario))


@cache
def wire_targets() -> dict[str, PlanTarget]:
    """The base plans: the kill matrix targets and two plans with reusable execution memory."""
    targets = {t.name: t for t in reference_targets()}
    targets["reusable_state_chain"] = _reusable_policy(targets["graph_state_chain"], "reusable_state_chain")
    targets["reusable_sequential"] = _reusable_policy(targets["sequential_scratch"], "reusable_sequential")
    return targets


def _rederive_pool_id(pool: Any) -> Any:
    """The pool with its id derived again from its compatibility key."""
    return {**pool, "pool_id": pool_id_for(pool["compatibility"]).value}


def forged_wire(cell: WireCell) -> tuple[PlanTarget, bytes]:
    """The base target and the edited (and, unless told otherwise, re-sealed) wire bytes of ``cell``."""
    target = wire_targets()[cell.target]
    forged = apply_edits(target.raw(), cell.edits)
    return target, direct_bytes(rehash_plan_json(forged) if cell.reseal else forged)


# --------------------------------------------------------------------------- the table

_M: Final = ("payload", "memory")
_DESC: Final = (*_M, "dynamic_descriptors")
_POOLS: Final = (*_M, "dynamic_pools")
_STATIC: Final = (*_M, "static_allocations")
_REUSE: Final = (*_M, "reusable_execution")
_NODE: Final = ("payload", "nodes", 0)
_RESOURCES: Final = (*_NODE, "provider_resources")
_INPUT: Final = {"base_resource_id": "resource.input.0"}
_STATE: Final = {"resource_ids": ["resource.graph.state"]}
_FOREIGN_ROW: Final = {"node_id": "node.main", "resource_ids": ["resource.input.0"]}
_BIG: Final = 1 << 63
_U64_MAX: Final = (1 << 64) - 1
#: ``plan_fixture``'s scratch workspace, and the pool id of its compatibility key with usage ``binding``.
_FIXTURE_SCRATCH: Final = "resource/scratch/sha256/156c9e0fd8841047d47063ba01ca00556f520b52929fcdd9dae642d580ed351e"
_BINDING_POOL: Final = "dynamic-pool/sha256/dc893161c84e05ee0e46a265d100c23e684f8b00ce7a7104f540212d86eb5b37"
#: ``sequential_scratch``'s two scratch workspaces (one per node), ascending.
_SEQUENTIAL_SCRATCH: Final = (
    "resource/scratch/sha256/2eac2ae82a833ff99adc7101ee75e9fac5b543305a5e53abde8fc24316c9c6f3",
    "resource/scratch/sha256/94c2365f2efa18de5b80ea8df90aa719ba8e3d3430a593bdd1bb0a71c3819c37",
)


def _c(name: str, target: str, rule: str, reason: str, *edits: Edit, reseal: bool = True) -> WireCell:
    return WireCell(name, target, edits, rule, reason, reseal=reseal)


def _sized(path: tuple[Step, ...], size: int) -> tuple[Edit, ...]:
    """A static row whose per-instance, stride and size bytes are all ``size``."""
    return tuple(
        Edit((*path, name), "set", size) for name in ("per_instance_bytes", "instance_stride_bytes", "size_bytes")
    )


#: Every cell, in a fixed order (05 §7.7-§7.14 rows as the decoder checks them, then §9.1 node fields).
WIRE_CELLS: Final[tuple[WireCell, ...]] = (
    # MemoryPlan.validate (05 §7.11)
    _c("memory_mas_zero", "plan_fixture", "05.7.11/mas_at_least_one",
       "memory: invalid_execution_plan: reason='maximum active sequences protocol ceiling must be non-zero",
       Edit((*_M, "maximum_active_sequences"), "set", 0)),
    _c("memory_device_capacity_zero", "plan_fixture", "05.7.11/capacities_consistent",
       "memory plan capacity or reserve is invalid", Edit((*_M, "device_capacity_bytes"), "set", 0)),
    _c("memory_static_bytes_off_by_one", "plan_fixture", "05.7.11/static_bytes_matches_rows",
       "static byte total is not core-derived", Edit((*_M, "static_bytes"), "add", 1)),
    _c("memory_static_total_overflows", "plan_fixture", "05.7.11/static_bytes_sum",
       "static allocation total overflows", *_sized((*_STATIC, 0), _BIG), *_sized((*_STATIC, 1), _BIG)),
    _c("memory_dynamic_capacity_underflows", "plan_fixture", "05.7.11/dynamic_capacity_underflow",
       "dynamic capacity underflows", *_sized((*_STATIC, 0), 4096), Edit((*_M, "static_bytes"), "set", 4096 + 32)),
    _c("memory_dynamic_id_duplicates_static", "plan_fixture", "05.7.11/static_row_ids_unique",
       "is duplicated", Edit((*_DESC, {"base_resource_id": "resource.state.0"}, "base_resource_id"), "set",
                             "resource.weight.0")),
    _c("memory_minimum_request_off_by_one", "plan_fixture", "05.7.11/stored_totals_derived",
       "dynamic minimum or theoretical ceiling is not core-derived", Edit((*_M, "minimum_request_bytes"), "add", 1)),
    # DynamicResourceDescriptor::new (05 §7.7)
    _c("descriptor_instances_zero", "plan_fixture", "05.7.7/instances_at_least_one",
       "dynamic_descriptors[0]: invalid_execution_plan: reason='maximum active sequences protocol ceiling",
       Edit((*_DESC, _INPUT, "theoretical_maximum_instances"), "set", 0)),
    _c("descriptor_alignment_not_power_of_two", "plan_fixture", "05.7.7/alignment_power_of_two",
       "invalid alignment or static lifetime", Edit((*_DESC, _INPUT, "alignment_bytes"), "set", 24)),
    _c("descriptor_value_with_weights_usage", "plan_fixture", "05.7.7/value_kind_not_weights",
       "kind, lifetime, usage, or element type is inconsistent", Edit((*_DESC, _INPUT, "usage"), "set", "weights")),
    _c("descriptor_zero_init_activation", "plan_fixture", "05.7.7/zero_init_sequence_state_only",
       "zero initialization requires semantic Sequence state backing",
       Edit((*_DESC, _INPUT, "initialization"), "set", "zero")),
    _c("descriptor_actual_sequences_bound", "plan_fixture", "05.7.7/actual_sequences_bound_equals_instances",
       "actual-sequence demand and descriptor instance ceilings differ",
       Edit((*_DESC, _INPUT, "demand"), "set",
            {"actual_sequences": {"bytes_per_sequence": 16, "maximum_sequences": 2}})),
    _c("descriptor_layout_fingerprint_invalid", "plan_fixture", "05.7.2/storage_contract_canonical_fingerprint",
       "logical layout fingerprint is invalid",
       Edit((*_DESC, _INPUT, "storage", "logical_layout_fingerprint"), "set", "00")),
    _c("descriptor_unit_kind_with_content", "plan_fixture", "05.7.1/allocation_kind_wire",
       "unit variant `value` takes no content", Edit((*_DESC, _INPUT, "kind"), "set", {"value": {}})),
    _c("descriptor_initialization_unknown", "plan_fixture", "05.7.1/state_initialization_spellings",
       "unknown state initialization", Edit((*_DESC, _INPUT, "initialization"), "set", "ones")),
    # validate_dynamic_pools / DynamicBackingPoolSpec.validate_local (05 §7.8-§7.9)
    _c("pool_dropped", "plan_fixture", "05.7.11/pools_derived_from_descriptors",
       "dynamic backing pool count is not derived from descriptors", Edit(_POOLS, "drop", 0)),
    _c("pool_member_dropped", "plan_fixture", "05.7.8/pools_group_equal_keys",
       "dynamic backing pool compatibility or membership is not core-derived",
       Edit((*_POOLS, 0, "resource_ids"), "drop", 1)),
    _c("pool_without_members", "plan_fixture", "05.7.8/pool_id_derived",
       "dynamic backing pool has no descriptor members",
       Edit((*_POOLS, 0, "compatibility", "alignment_bytes"), "set", 128),
       Edit((*_POOLS, 0), "apply", _rederive_pool_id)),
    _c("pool_request_minimum_overflows", "plan_fixture", "05.7.8/pool_request_and_sequence_minima",
       "pool request minimum overflows",
       Edit((*_DESC, _INPUT, "demand", "fixed", "bytes"), "set", _BIG),
       Edit((*_DESC, {"base_resource_id": "resource.output.0"}, "demand", "fixed", "bytes"), "set", _BIG)),
    _c("pool_step_slot_dropped", "sequential_scratch", "05.7.9/slot_kinds_and_order",
       "step resource slots do not cover exactly the pool's Step descriptors",
       Edit((*_POOLS, 0, "step_resource_slots"), "set", [])),
    _c("pool_dedicated_slot_with_two_members", "sequential_scratch", "05.7.8/slots_ascending_members_unique",
       "step resource slot kind or members are invalid",
       Edit((*_POOLS, 0, "step_resource_slots", 0, "resource_ids"), "set",
            ["resource.sequential.input", "resource.sequential.intermediate"])),
    _c("pool_wave_slot_with_one_member", "sequential_scratch", "05.7.8/slots_ascending_members_unique",
       "step resource slot kind or members are invalid",
       Edit((*_POOLS, 0, "step_resource_slots", 0, "kind"), "set", "ordered_single_fence_step_wave")),
    _c("pool_shared_slot_with_non_transient_member", "graph_state_chain", "05.7.9/shared_slot_only_reusable",
       "shared Step slot contains a non-transient activation resource",
       Edit((*_POOLS, 0, "step_resource_slots"), "set", [
           {"kind": "dedicated", "resource_ids": ["resource.graph.state-read.0"]},
           {"kind": "ordered_single_fence_step_wave",
            "resource_ids": ["resource.graph.state-rw.0", "resource.graph.state-rw.1"]}])),
    _c("pool_minimum_resident_off_by_one", "plan_fixture", "05.7.8/minimum_resident_is_sum",
       "dynamic backing pool identity, membership, or bounds are invalid",
       Edit((*_POOLS, 0, "provisioning", "minimum_resident_bytes"), "add", 1)),
    _c("pool_rows_without_invocation_mode", "plan_fixture", "05.7.8/liveness_mode_consistent",
       "non-invocation pool carries invocation liveness evidence",
       Edit((*_POOLS, 0, "invocation_liveness"), "set", [_FOREIGN_ROW])),
    _c("pool_liveness_without_invocation_members", "plan_fixture", "05.7.9/no_invocation_members",
       "pool without invocation resources carries liveness evidence",
       Edit((*_POOLS, 0, "invocation_liveness_mode"), "set", "total_order_reuse"),
       Edit((*_POOLS, 0, "invocation_liveness"), "set", [_FOREIGN_ROW]),
       Edit((*_POOLS, 0, "minimum_invocation_peak_bytes"), "set", 16),
       Edit((*_POOLS, 0, "provisioning", "minimum_resident_bytes"), "set", 48)),
    _c("pool_invocation_member_without_evidence", "plan_fixture", "05.7.9/invocation_rows",
       "invocation pool has no liveness evidence",
       Edit((*_DESC, {"base_resource_id": "resource.output.0"}, "lifetime"), "set", "invocation")),
    _c("pool_liveness_row_foreign_member", "plan_fixture", "05.7.9/invocation_rows",
       "pool invocation liveness rows are not canonical",
       Edit((*_POOLS, 2, "invocation_liveness", 0, "resource_ids"), "set", ["resource.input.0"])),
    _c("pool_liveness_row_dropped", "sequential_scratch", "05.7.9/invocation_rows",
       "pool invocation liveness does not cover every invocation resource",
       Edit((*_POOLS, 2, "invocation_liveness"), "drop", 1)),
    _c("pool_growth_without_policy", "graph_state_chain", "05.7.12/growth_needs_policy_on_decode",
       "checkpoint pool growth has no capacity policy",
       Edit((*_POOLS, _STATE, "checkpoint_growth_ceiling_bytes"), "set", 16),
       Edit((*_POOLS, _STATE, "provisioning", "maximum_resident_bytes"), "add", 16)),
    _c("pool_growth_not_the_cap", "reusable_state_chain", "05.7.12/growth_disagreement_rejected",
       "checkpoint pool growth differs from its State allocation quantum or cap",
       Edit((*_POOLS, _STATE, "checkpoint_growth_ceiling_bytes"), "set", 16),
       Edit((*_POOLS, _STATE, "provisioning", "maximum_resident_bytes"), "add", 16)),
    _c("pool_runnable_minimum_overflows", "plan_fixture", "05.7.8/minimum_resident_is_sum",
       "dynamic pool runnable minimum overflows",
       Edit((*_POOLS, 0, "minimum_request_bytes"), "set", _BIG),
       Edit((*_POOLS, 0, "minimum_sequence_bytes"), "set", _BIG)),
    _c("pool_combined_ceiling_overflows", "plan_fixture", "05.7.8/maximum_resident_within_ceiling",
       "dynamic pool combined ceiling overflows",
       Edit((*_POOLS, 0, "theoretical_ceiling_bytes"), "set", str((1 << 128) - 1)),
       Edit((*_POOLS, 0, "reusable_workspace_ceiling_bytes"), "set", 1)),
    _c("pool_step_minimum_overflows", "sequential_scratch", "05.7.11/checked_totals",
       "pool step minimum overflows",
       Edit((*_DESC, {"base_resource_id": "resource.sequential.input"}, "lifetime"), "set", "step"),
       Edit((*_DESC, {"base_resource_id": "resource.sequential.input"}, "demand"), "set", {"fixed": {"bytes": _BIG}}),
       Edit((*_DESC, {"base_resource_id": "resource.sequential.intermediate"}, "demand"), "set",
            {"fixed": {"bytes": _BIG}}),
       Edit((*_POOLS, 0, "step_resource_slots"), "set", [
           {"kind": "dedicated", "resource_ids": ["resource.sequential.input"]},
           {"kind": "dedicated", "resource_ids": ["resource.sequential.intermediate"]}])),
    _c("pool_binding_workspace_total_order", "plan_fixture", "05.7.9/liveness_references_limit",
       "a pool with binding workspaces cannot claim total-order reuse",
       Edit((*_DESC, {"base_resource_id": _FIXTURE_SCRATCH}, "usage"), "set", "binding"),
       Edit((*_DESC, {"base_resource_id": _FIXTURE_SCRATCH}, "kind"), "set", {"binding": {"node_id": "node.main"}}),
       Edit((*_DESC, {"base_resource_id": _FIXTURE_SCRATCH}, "pool_id"), "set", _BINDING_POOL),
       Edit((*_POOLS, 2, "compatibility", "usage"), "set", "binding"),
       Edit((*_POOLS, 2), "apply", _rederive_pool_id)),
    _c("pool_invocation_row_bytes_overflow", "sequential_scratch", "05.7.9/liveness_references_limit",
       "pool invocation row bytes overflows",
       *(Edit((*_DESC, {"base_resource_id": r}, "demand"), "set", {"fixed": {"bytes": _BIG}})
         for r in _SEQUENTIAL_SCRATCH),
       Edit((*_POOLS, 2, "invocation_liveness"), "set",
            [{"node_id": "node.first", "resource_ids": list(_SEQUENTIAL_SCRATCH)}])),
    # ReusableExecutionMemoryPlan (05 §7.14)
    _c("reusable_lanes_zero", "reusable_state_chain", "05.7.14/reusable_memory_wire",
       "invalid lane, executable, or bucket count", Edit((*_REUSE, "maximum_reusable_lanes"), "set", 0)),
    _c("reusable_buckets_swapped", "reusable_state_chain", "05.7.14/reusable_memory_wire",
       "reusable execution memory buckets are non-canonical", Edit((*_REUSE, "buckets"), "swap")),
    _c("reusable_budget_empty", "reusable_state_chain", "05.7.14/bucket_pool_budgets",
       "reusable pool workspace budget is empty",
       Edit((*_REUSE, "buckets", 0, "pool_budgets", 0, "step_bytes"), "set", 0),
       Edit((*_REUSE, "buckets", 0, "pool_budgets", 0, "invocation_bytes"), "set", 0)),
    _c("reusable_budget_overflows", "reusable_state_chain", "05.7.14/bucket_pool_budgets",
       "reusable pool workspace budget overflows",
       Edit((*_REUSE, "buckets", 0, "pool_budgets", 0, "step_bytes"), "set", _U64_MAX),
       Edit((*_REUSE, "buckets", 0, "pool_budgets", 0, "invocation_bytes"), "set", 1)),
    _c("reusable_budgets_duplicated", "reusable_state_chain", "05.7.14/bucket_pool_budgets",
       "resolved reusable bucket pool budgets are duplicate or non-canonical",
       Edit((*_REUSE, "buckets", 0, "pool_budgets"), "dup")),
    _c("reusable_budget_unknown_pool", "reusable_state_chain", "05.7.14/pool_reusable_ceilings",
       "reusable workspace ceiling references an unknown dynamic pool",
       Edit((*_REUSE, "buckets", 0, "pool_budgets", -1, "pool_id"), "set", "dynamic-pool/sha256/" + "f" * 64)),
    _c("reusable_lane_budget_overflows", "reusable_state_chain", "05.7.14/pool_reusable_ceilings",
       "reusable lane workspace budget overflows",
       Edit((*_REUSE, "maximum_reusable_lanes"), "set", (1 << 32) - 1),
       Edit((*_REUSE, "buckets", 0, "pool_budgets", 0, "step_bytes"), "set", 1 << 40)),
    _c("reusable_pool_ceiling_overflows", "reusable_state_chain", "05.7.14/pool_reusable_ceilings",
       "reusable pool workspace ceiling overflows",
       Edit((*_REUSE, "buckets", 0, "pool_budgets", 0, "step_bytes"), "set", 1 << 62),
       Edit((*_REUSE, "buckets", 1, "pool_budgets", 0, "step_bytes"), "set", 1 << 62)),
    # node and payload fields (05 §9.1 step 4)
    _c("node_capability_not_a_string", "plan_fixture", "05.9.1/step4_typed_parse",
       "expected an identity string", Edit((*_NODE, "required_capabilities"), "set", [5])),
    _c("node_capability_invalid_identity", "plan_fixture", "05.9.1/step4_typed_parse",
       "invalid identity", Edit((*_NODE, "required_capabilities"), "set", ["Not An Id!"])),
    _c("node_fixed_work_with_content", "plan_fixture", "05.9.1/step4_typed_parse",
       "unit variant `fixed` takes no content", Edit((*_NODE, "work"), "set", {"fixed": {}})),
    _c("node_attributes_not_an_object", "plan_fixture", "05.9.1/step4_typed_parse",
       "attributes: expected an object", Edit((*_NODE, "attributes"), "set", ["x"])),
    _c("node_attribute_invalid_id", "plan_fixture", "05.9.1/step4_typed_parse",
       "invalid attribute id", Edit((*_NODE, "attributes"), "set", {"Not An Id!": {"u64": 1}})),
    _c("quantization_format_not_a_string", "plan_fixture", "05.9.1/step4_typed_parse",
       "expected a quantization format id", Edit(("payload", "quantization_formats"), "set", [5])),
    _c("quantization_format_invalid_id", "plan_fixture", "05.9.1/step4_typed_parse",
       "invalid quantization format id", Edit(("payload", "quantization_formats"), "set", ["Not An Id!"])),
    # the node's provider resource plan (04 §7.1-§7.2, §8.3: decoded, then validate_shape)
    _c("resources_estimator_id_not_portable", "plan_fixture", "04.8.3/estimator_id_portable",
       "invalid estimator id", Edit((*_RESOURCES, "estimator_id"), "set", "resource estimator")),
    _c("resources_estimator_major_zero", "plan_fixture", "04.8.3/estimator_version_major_nonzero",
       "zero estimator major version", Edit((*_RESOURCES, "estimator_version", "major"), "set", 0)),
    _c("resources_implementation_fingerprint_uppercase", "plan_fixture", "04.8.3/fingerprints_canonical",
       "fingerprints must be canonical sha256",
       Edit((*_RESOURCES, "estimator_implementation_fingerprint"), "set", "E" * 64)),
    _c("resources_estimate_fingerprint_forged", "plan_fixture", "04.8.3/validate_shape_fingerprint",
       "estimate fingerprint does not match", Edit((*_RESOURCES, "estimate_fingerprint"), "set", "0" * 64)),
    _c("resources_formula_payload_unknown_member", "plan_fixture", "04.7.1/formula_payload_deny_unknown_fields",
       "unknown field `maximum_bytes`",
       Edit((*_RESOURCES, "scratch", "size_formula", "fixed", "maximum_bytes"), "set", 64)),
    _c("resources_workspace_unknown_member", "plan_fixture", "04.7.2/requirement_deny_unknown_fields",
       "unknown field `lifetime`", Edit((*_RESOURCES, "persistent", "lifetime"), "set", "plan")),
    # header (05 §9.1 step 2)
    _c("header_payload_not_an_object", "plan_fixture", "05.9.1/step2_header_shape",
       "$.payload: missing or not a JSON object", Edit((), "set", {"payload": [], "plan_hash": "0" * 64}),
       reseal=False),
    _c("header_schema_without_major", "plan_fixture", "05.9.1/step2_header_shape",
       "missing field `major`", Edit(("payload", "schema"), "delete", "major")),
)  # fmt: skip
