"""Re-sealed plan wires that each break one invariant of the plan wire's decoding or revalidation (01 §3.3,
§3.6, §5; 05 §7, §9).

Every cell edits one place of the plan wire the reference built for a base scenario, re-seals it
(``rehash_plan_json``: a correct ``plan_id`` and ``plan_hash``, so neither hides the edit) and names
the rule the edit breaks. Most cells break a decode-time invariant: ``decode_untrusted`` runs the strict
JSON reader, the header and schema checks, the typed parse with every nested validating decoder
(``MemoryPlan.validate``, the descriptor's ``new``, the pool's ``validate_local``, the reusable plan's
``validate_local``, the node's field decoders, its provider resource plan's ``validate_shape``) and the
canonical round trip, so the wire is refused as
``Serialization`` (or ``UnsupportedPlanSchema``) before any rebuild comparison. The others reach
revalidation: a payload or hash that differs from the semantic rebuild, or a wire replayed against other
trusted inputs (``against``: another base's scenario; ``scenario_edits``: the base scenario changed), where
the rebuild itself may fail. ``reason`` is a fragment of the reference's message: it proves the cell breaks
the rule it names, not an earlier one; ``also`` names the further catalogue rules the same answer checks.
Some of the cells of kind ``invalid_execution_plan`` that are not replayed hold a value the decoder derives
exactly as the contract does (a checkpoint growth rounded to the state's quantum and clamped, a tampered
executable count): the decoder accepts them and only the rebuild comparison refuses them, so a decoder
deriving another value answers ``Serialization``.

The edits are ``strategies.json_edits`` edits (re-deriving a pool's id from its compatibility key is an
``apply``); ``raw`` writes raw JSON bytes at a path after sealing (what no JSON value spells: a repeated key,
``-0``, ``NaN``, a lone surrogate escape, invalid UTF-8, an integral float).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from reference import api
from reference.canonical import direct_bytes
from reference.plan.memory.identities import pool_id_for
from seeds.catalogs import (
    catalog_with_capability_partitioned_storage,
    contiguous_storage_profile,
    paged_storage_profile,
)
from seeds.scenarios import plan_fixture_scenario
from strategies.budget import with_policy
from strategies.cases import JsonPath
from strategies.forged_wire import (
    INVALID_PLAN,
    MISMATCH,
    SERIALIZATION,
    UNSUPPORTED,
    PlanTarget,
    rehash_plan_json,
    with_raw_bytes,
)
from strategies.forgery import reference_targets
from strategies.json_edits import Edit, Step, apply_edits
from strategies.policy import reusable_bucket
from strategies.scenarios import chain_case, graph_case

__all__ = ["WIRE_CELLS", "RawText", "WireCell", "forged_wire", "oversized_plan_scenario", "wire_targets"]

#: The raw JSON bytes written in place of the value at a path (the function gets that value).
RawText = Callable[[Any], bytes]


@dataclass(frozen=True, slots=True)
class WireCell:
    """The ``target`` wire with every edit applied (re-sealed unless ``reseal`` is false, then ``raw`` written),
    revalidated against the target's scenario (or ``against``'s, changed by ``scenario_edits``), must be refused
    with ``kind`` because of ``rule``; ``also``: further catalogue rules that refusal checks."""

    name: str
    target: str
    edits: tuple[Edit, ...]
    rule: str
    reason: str
    kind: str = SERIALIZATION
    reseal: bool = True
    raw: tuple[tuple[JsonPath, RawText], ...] = ()
    against: str | None = None
    scenario_edits: tuple[Edit, ...] = ()
    also: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not (self.edits or self.raw or self.against or self.scenario_edits):
            raise ValueError(f"{self.name}: no edit")

    @property
    def rules(self) -> tuple[str, ...]:
        """``rule`` and ``also``."""
        return (self.rule, *self.also)


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


def _checkpoint_policy(scenario: dict[str, Any], name: str, retained: int) -> PlanTarget:
    """``scenario`` (a copy) whose policy retains up to ``retained`` checkpoint bytes per sequence."""
    scenario = copy.deepcopy(scenario)
    policy = scenario["policy"]
    fields = (
        {k: v for k, v in policy["wire"].items() if k != "fingerprint"}
        if policy["kind"] == "resolved"
        else policy["fields"]
    )
    fields["memory"]["checkpoint_capacity"] = {"maximum_retained_bytes": retained}
    scenario["policy"] = {"kind": "resolved_fields", "fields": fields}
    return PlanTarget(name, scenario, api.build_plan(scenario))


def _paged_state_fixture() -> dict[str, Any]:
    """``plan_fixture`` whose provider binds paged(4096) storage only, the policy ordering paged before
    contiguous (capacity 1 MiB): the state (and the activations) live in a fixed-block arena of 4096-byte
    blocks at alignment 16, so their physical allocation quantum is the block, not the alignment."""
    catalog = catalog_with_capability_partitioned_storage(4096)
    scenario = plan_fixture_scenario(
        name="paged_state", catalog_value=catalog, preferred_provider="provider.operation.reference"
    )
    scenario = with_policy(scenario, capacity=1 << 20)
    order = [paged_storage_profile(4096).to_wire(), contiguous_storage_profile().to_wire()]
    scenario["policy"]["fields"]["memory"]["dynamic_storage_profile_order"] = order
    return scenario


@cache
def wire_targets() -> dict[str, PlanTarget]:
    """The base plans: the kill matrix targets, two plans with reusable execution memory and three with a
    checkpoint capacity (a cap that is not a multiple of the state's quantum, one past the dynamic capacity,
    and a paged state)."""
    targets = {t.name: t for t in reference_targets()}
    targets["reusable_state_chain"] = _reusable_policy(targets["graph_state_chain"], "reusable_state_chain")
    targets["reusable_sequential"] = _reusable_policy(targets["sequential_scratch"], "reusable_sequential")
    chain = targets["graph_state_chain"].scenario
    targets["checkpoint_state_chain"] = _checkpoint_policy(chain, "checkpoint_state_chain", 4100)
    targets["checkpoint_state_chain_unbounded"] = _checkpoint_policy(
        chain, "checkpoint_state_chain_unbounded", _U64_MAX
    )
    targets["checkpoint_paged_state"] = _checkpoint_policy(_paged_state_fixture(), "checkpoint_paged_state", 10000)
    alias = graph_case("alias", "must_alias_exact").scenario
    targets["graph_alias"] = PlanTarget("graph_alias", alias, api.build_plan(alias))
    return targets


def _rederive_pool_id(pool: Any) -> Any:
    """The pool with its id derived again from its compatibility key."""
    return {**pool, "pool_id": pool_id_for(pool["compatibility"]).value}


def _grow_state_pool(growth: int) -> Any:
    """An ``apply`` of the memory plan: its state pool's checkpoint growth set to ``growth`` and its maximum
    resident bytes raised by it (05 §7.12: ``min(theoretical + reusable + growth, usable - static)``);
    nothing else changes, as the decoder re-derives it."""

    def grow(memory: Any) -> Any:
        dynamic_capacity = memory["usable_capacity_bytes"] - memory["static_bytes"]
        pools = []
        for pool in memory["dynamic_pools"]:
            if pool["compatibility"]["usage"] == "state":
                ceiling = int(pool["theoretical_ceiling_bytes"]) + pool["reusable_workspace_ceiling_bytes"] + growth
                provisioning = {**pool["provisioning"], "maximum_resident_bytes": min(ceiling, dynamic_capacity)}
                fields = list(pool.items())
                at = [key for key, _ in fields].index("provisioning")
                fields.insert(at, ("checkpoint_growth_ceiling_bytes", growth))
                pool = {**dict(fields), "provisioning": provisioning}
            pools.append(pool)
        return {**memory, "dynamic_pools": pools}

    return grow


def oversized_plan_scenario(rejected: int = 40, nodes: int = 28, capabilities: int = 100) -> dict[str, Any]:
    """A chain whose plan wire is larger than the scenario by about ``rejected`` times: every node resolution
    requires ``capabilities`` long capability ids that only the selected provider has, and ``rejected`` more
    providers of the operation lack them all, so each node's selection evidence lists every one of them with
    every missing capability (05 §6.3). The defaults write some 18.7 MB of plan (over the 16 MiB ``to_json``
    cap) from a 0.6 MB scenario; two rejected providers write about 1 MB."""
    scenario = chain_case(nodes).scenario
    required = [f"capability.required.{index:04d}." + "x" * 135 for index in range(capabilities)]
    for resolution in scenario["resolutions"]:
        resolution["required_capabilities"] = sorted({*resolution.get("required_capabilities", []), *required})
    catalog = scenario["catalog"]
    catalog["device"]["capabilities"] = sorted({*catalog["device"]["capabilities"], *required})
    for rows in catalog["providers"].values():
        lacking = copy.deepcopy(rows[0])
        rows[0]["capabilities"] = sorted({*rows[0]["capabilities"], *required})
        rows.extend(
            {**copy.deepcopy(lacking), "provider_id": f"provider.operation.lacking.{index:03d}"}
            for index in range(rejected)
        )
    return scenario


def _uppercase_digest(pool_id: str) -> str:
    """The pool id with its sha256 digest in upper case (the prefix kept)."""
    prefix, _, digest = pool_id.rpartition("/")
    return f"{prefix}/{digest.upper()}"


def forged_wire(cell: WireCell) -> tuple[PlanTarget, bytes]:
    """The base target (its scenario the one ``cell`` revalidates against) and the edited (and, unless told
    otherwise, re-sealed) wire bytes of ``cell``."""
    targets = wire_targets()
    target = targets[cell.target]
    forged = apply_edits(target.raw(), cell.edits)
    sealed = rehash_plan_json(forged) if cell.reseal else forged
    wire = with_raw_bytes(sealed, cell.raw) if cell.raw else direct_bytes(sealed)
    if cell.against is None and not cell.scenario_edits:
        return target, wire
    scenario = targets[cell.against].scenario if cell.against is not None else target.scenario
    return PlanTarget(target.name, apply_edits(scenario, cell.scenario_edits), target.wire), wire


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
_WEIGHT_VALUE: Final = (*_NODE, "values", {"value_id": "value.weight"})
_NOTE: Final = (*_NODE, "attributes", "attribute.note")
_SCHEMA: Final = ("payload", "schema")
_TOKENS: Final = ("payload", "maximum_scheduled_tokens")
_PAGED_4096: Final = {
    "allocator": {"fixed_block_arena": {"block_bytes": 4096}},
    "view": {"paged_regions": {"block_bytes": 4096}},
}
_DIFFERS: Final = "untrusted plan differs from a semantic rebuild"
_BIG: Final = 1 << 63
_U64_MAX: Final = (1 << 64) - 1
#: ``plan_fixture``'s scratch workspace, and the pool id of its compatibility key with usage ``binding``.
_FIXTURE_SCRATCH: Final = "resource/scratch/sha256/156c9e0fd8841047d47063ba01ca00556f520b52929fcdd9dae642d580ed351e"
_BINDING_POOL: Final = "dynamic-pool/sha256/dc893161c84e05ee0e46a265d100c23e684f8b00ce7a7104f540212d86eb5b37"
#: ``plan_fixture``'s state pool.
_STATE_POOL: Final = "dynamic-pool/sha256/769a2f421a62ddb2fb51ff238c1798841dd8c9e9fb0fdce9b62e56fd78a2ae48"
#: A fixed-block arena of 16-byte blocks: a 16-byte row keeps its stride there.
_BLOCK_16: Final = {"allocator": {"fixed_block_arena": {"block_bytes": 16}}, "view": "contiguous"}
#: ``sequential_scratch``'s two scratch workspaces (one per node), ascending.
_SEQUENTIAL_SCRATCH: Final = (
    "resource/scratch/sha256/2eac2ae82a833ff99adc7101ee75e9fac5b543305a5e53abde8fc24316c9c6f3",
    "resource/scratch/sha256/94c2365f2efa18de5b80ea8df90aa719ba8e3d3430a593bdd1bb0a71c3819c37",
)


def _c(
    name: str,
    target: str,
    rule: str,
    reason: str,
    *edits: Edit,
    kind: str = SERIALIZATION,
    reseal: bool = True,
    raw: tuple[tuple[JsonPath, RawText], ...] = (),
    against: str | None = None,
    scenario_edits: tuple[Edit, ...] = (),
    also: tuple[str, ...] = (),
) -> WireCell:
    return WireCell(name, target, edits, rule, reason, kind, reseal, raw, against, scenario_edits, also)


def _text(text: str | bytes) -> RawText:
    """These raw bytes, whatever the value."""
    data = text.encode("utf-8") if isinstance(text, str) else text

    def write(_value: Any) -> bytes:
        return data

    return write


def _repeated(key: str) -> RawText:
    """The object with its member ``key`` written twice in a row, the same value both times."""

    def write(value: Any) -> bytes:
        members: list[bytes] = []
        for name, item in value.items():
            member = direct_bytes(name) + b":" + direct_bytes(item)
            members.extend([member, member] if name == key else [member])
        return b"{" + b",".join(members) + b"}"

    return write


def _integral_float(value: Any) -> bytes:
    """The integer written as a float (``4096.0``)."""
    return f"{value}.0".encode()


def _leading_zero(value: Any) -> Any:
    return "0" + value


def _uppercase(value: Any) -> Any:
    return value.upper()


def _truncated(value: Any) -> Any:
    return value[:63]


def _policy_memory(**changes: Any) -> Callable[[Any], Any]:
    """A scenario policy section as ``resolved_fields`` with its memory fields changed."""

    def change(policy: Any) -> Any:
        fields = (
            {k: v for k, v in policy["wire"].items() if k != "fingerprint"}
            if policy["kind"] == "resolved"
            else policy["fields"]
        )
        fields = copy.deepcopy(fields)
        fields["memory"].update(changes)
        return {"kind": "resolved_fields", "fields": fields}

    return change


def _sized(path: tuple[Step, ...], size: int) -> tuple[Edit, ...]:
    """A static row whose per-instance, stride and size bytes are all ``size``."""
    return tuple(
        Edit((*path, name), "set", size) for name in ("per_instance_bytes", "instance_stride_bytes", "size_bytes")
    )


_OVER_DEVICE: Final = (Edit(("policy",), "apply", _policy_memory(capacity_bytes=2 << 20)),)
_NO_SEQUENCES: Final = (Edit(("policy",), "apply", _policy_memory(maximum_active_sequences=0)),)


#: Every cell, in a fixed order (05 §7.7-§7.14 rows as the decoder checks them, §9.1 node fields and header, the
#: strict JSON reader, the schema, the typed parse and round trip, then revalidation and replays).
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
    _c("memory_static_rows_reversed", "plan_fixture", "05.7.11/rows_strictly_ascending",
       "memory plan resource rows are not canonical", Edit(_STATIC, "swap")),
    _c("memory_static_row_two_instances", "plan_fixture", "05.7.11/static_row_stride_size",
       "static resource `resource.weight.0` is duplicate or invalid", Edit((*_STATIC, 0, "instance_count"), "set", 2)),
    _c("memory_static_value_row_in_a_block_arena", "plan_fixture", "05.7.11/static_value_row_profile",
       "static resource `resource.weight.0` is duplicate or invalid",
       Edit((*_STATIC, 0, "storage", "profile"), "set", _BLOCK_16)),
    _c("memory_static_persistent_row_of_activations", "plan_fixture", "05.7.11/static_persistent_row",
       "is duplicate or invalid", Edit((*_STATIC, 1, "usage"), "set", "activations")),
    _c("memory_static_scratch_row", "plan_fixture", "05.7.11/scratch_binding_never_static",
       "is duplicate or invalid", Edit((*_STATIC, 1, "kind"), "set", {"scratch": {"node_id": "node.main"}})),
    _c("memory_liveness_mode_not_the_pools_summary", "plan_fixture", "05.7.11/liveness_summary_derived",
       "global invocation liveness is not derived from per-pool evidence",
       Edit((*_M, "invocation_liveness_mode"), "set", "conservative_concurrent")),
    _c("memory_minimum_runnable_over_usable", "plan_fixture", "05.7.11/minimum_runnable_within_usable",
       "dynamic minimum or theoretical ceiling is not core-derived",
       Edit((*_M, "policy_capacity_bytes"), "set", 128 + 159), Edit((*_M, "usable_capacity_bytes"), "set", 159),
       Edit((*_POOLS, 2, "provisioning", "maximum_resident_bytes"), "set", 159 - 48)),
    _c("memory_ceiling_with_a_leading_zero", "plan_fixture", "05.7.8/canonical_u128",
       "u128 evidence must be a canonical unsigned decimal string",
       Edit((*_M, "theoretical_ceiling_bytes"), "set", "0384")),
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
    _c("descriptor_pool_id_of_another_pool", "plan_fixture", "05.7.7/descriptor_decoder_reruns_new",
       "dynamic resource pool id is not core-derived from compatibility",
       Edit((*_DESC, _INPUT, "pool_id"), "set", _STATE_POOL)),
    _c("descriptor_pool_id_malformed", "plan_fixture", "05.7.8/pool_id_format",
       "dynamic backing pool id must be dynamic-pool/sha256/<lowercase sha256>",
       Edit((*_DESC, _INPUT, "pool_id"), "set", "dynamic-pool/sha256/" + "A" * 64)),
    _c("descriptor_lifetime_plan", "plan_fixture", "05.7.7/lifetime_not_plan",
       "invalid alignment or static lifetime", Edit((*_DESC, _INPUT, "lifetime"), "set", "plan")),
    _c("descriptor_initialization_scratch_kind", "plan_fixture", "05.7.7/initialization_scratch_never_dynamic",
       "kind, lifetime, usage, or element type is inconsistent",
       Edit((*_DESC, _INPUT, "kind"), "set", "initialization_scratch")),
    _c("descriptor_scratch_with_step_lifetime", "plan_fixture", "05.7.7/scratch_kind_consistency",
       "kind, lifetime, usage, or element type is inconsistent",
       Edit((*_DESC, {"base_resource_id": _FIXTURE_SCRATCH}, "lifetime"), "set", "step")),
    _c("descriptor_binding_kind_with_scratch_usage", "plan_fixture", "05.7.7/binding_kind_consistency",
       "kind, lifetime, usage, or element type is inconsistent",
       Edit((*_DESC, {"base_resource_id": _FIXTURE_SCRATCH}, "kind"), "set", {"binding": {"node_id": "node.main"}})),
    _c("descriptor_persistent_kind_of_activations", "plan_fixture", "05.7.7/persistent_kind_consistency",
       "kind, lifetime, usage, or element type is inconsistent",
       Edit((*_DESC, _INPUT, "kind"), "set", {"persistent": {"node_id": "node.main"}})),
    _c("descriptor_demand_zero_bytes", "plan_fixture", "05.7.7/demand_valid",
       "dynamic resource formula is zero, overflowing, or non-canonical",
       Edit((*_DESC, _INPUT, "demand", "fixed", "bytes"), "set", 0)),
    _c("descriptor_request_bytes_overflow_when_aligned", "plan_fixture", "05.7.7/request_sizes_evaluate",
       "aligned byte count overflows u64", Edit((*_DESC, _INPUT, "demand", "fixed", "bytes"), "set", _U64_MAX)),
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
    _c("pool_growth_not_the_cap", "reusable_state_chain", "05.9.5/checkpoint_growth_removed_or_cap_changed",
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
    _c("pool_compatibility_version_2", "plan_fixture", "05.7.8/pool_key_wire_and_validation",
       "dynamic pool compatibility key is invalid",
       Edit((*_POOLS, 0, "compatibility", "version"), "set", {"major": 2, "minor": 0})),
    _c("pool_members_descending", "plan_fixture", "05.7.8/pool_members_ascending",
       "dynamic backing pool identity, membership, or bounds are invalid", Edit((*_POOLS, 0, "resource_ids"), "swap")),
    _c("pool_growth_of_an_activation_pool", "plan_fixture", "05.7.8/growth_only_for_state_pools",
       "dynamic backing pool identity, membership, or bounds are invalid",
       Edit((*_POOLS, 0, "checkpoint_growth_ceiling_bytes"), "set", 16)),
    # a decoded growth equal to the policy's cap rounded down to the state's quantum passes decoding; the plan
    # then differs from its rebuild (the reference derives no checkpoint layout, D-05P-6): a decoder computing
    # another growth refuses the wire at decoding instead (serialization)
    WireCell("pool_growth_cap_rounded_down_to_the_alignment", "checkpoint_state_chain",
             (Edit(_M, "apply", _grow_state_pool(4096)),), "05.7.12/growth_rounded_to_quantum",
             "differs from a semantic rebuild", INVALID_PLAN),
    WireCell("pool_growth_cap_rounded_down_to_the_block", "checkpoint_paged_state",
             (Edit(_M, "apply", _grow_state_pool(8192)),), "05.7.2/physical_allocation_quantum",
             "differs from a semantic rebuild", INVALID_PLAN),
    WireCell("pool_growth_clamped_to_the_dynamic_capacity", "checkpoint_state_chain_unbounded",
             (Edit(_M, "apply", _grow_state_pool(_U64_MAX - 15)),), "05.7.12/growth_raises_only_maximum_resident",
             "differs from a semantic rebuild", INVALID_PLAN),
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
    _c("reusable_executables_zero", "reusable_state_chain", "05.7.11/reusable_plan_locally_valid",
       "invalid lane, executable, or bucket count", Edit((*_REUSE, "maximum_device_executables"), "set", 0)),
    WireCell("reusable_executables_plus_one", "reusable_state_chain",
             (Edit((*_REUSE, "maximum_device_executables"), "add", 1),), "05.7.14/executables_tamper_rejected",
             "differs from a semantic rebuild", INVALID_PLAN),
    # the execution weight plan (05 §10.7)
    _c("weight_plan_unknown_field", "plan_fixture", "05.10.7/weight_plan_decode_deny_unknown",
       "unknown field `extra` in ExecutionWeightPlan", Edit(("payload", "execution_weights", "extra"), "set", 1)),
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
    # 01 §1.3: a pool id off its exact form
    _c("pool_id_uppercase_digest", "plan_fixture", "01.1.3/dynamic_backing_pool_id_exact_form",
       "dynamic backing pool id must be dynamic-pool/sha256/<lowercase sha256>",
       Edit((*_POOLS, 0, "pool_id"), "apply", _uppercase_digest)),
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
    _c("header_duplicate_payload", "plan_fixture", "01.3.6/decode_duplicate_header_key",
       "duplicate key 'payload'", raw=(((), _repeated("payload")),), also=("05.9.1/step2_duplicate_header_keys",)),
    _c("header_duplicate_schema", "plan_fixture", "01.3.6/decode_duplicate_header_key",
       "duplicate key 'schema'", raw=((("payload",), _repeated("schema")),),
       also=("05.9.1/step2_duplicate_header_keys",)),
    _c("header_schema_major_out_of_range", "plan_fixture", "05.9.1/step2_header_numbers",
       "expected u16, got 65536", Edit((*_SCHEMA, "major"), "set", 65536)),
    _c("header_schema_major_as_float", "plan_fixture", "05.9.1/step2_header_numbers",
       "expected u16, got 9.0", raw=(((*_SCHEMA, "major"), _text("9.0")),)),
    _c("header_ignores_unknown_schema_key", "plan_fixture", "05.9.1/step2_header_ignores_other_keys",
       "actual_major=9", Edit(_SCHEMA, "set", {"major": 9, "minor": 1, "note": 0}), kind=UNSUPPORTED),
    # strict JSON reader (01 §3.3, 05 §9.1 step 2): what a lax reader would take changes the outcome
    _c("strict_minus_zero_in_contract_version", "plan_fixture", "01.2/contract_version_minus_zero",
       "-0 is a float in serde_json", raw=((("payload", "policy_version", "minor"), _text("-0")),),
       also=("01.3.3/decode_minus_zero_integer_field",)),
    _c("strict_minus_zero_integer_field", "plan_fixture", "01.3.3/decode_minus_zero_integer_field",
       "-0 is a float in serde_json", raw=(((*_M, "minimum_step_bytes"), _text("-0")),)),
    _c("strict_nan_before_the_schema", "plan_fixture", "01.3.3/decode_nan_infinity",
       "NaN is not JSON", Edit((*_SCHEMA, "major"), "set", 9), raw=((_TOKENS, _text("NaN")),),
       also=("05.9.1/decode_step_order", "01.3.6/revalidation_order")),
    _c("strict_infinity_before_the_schema", "plan_fixture", "01.3.3/decode_nan_infinity",
       "-Infinity is not JSON", Edit((*_SCHEMA, "minor"), "set", 0),
       raw=(((*_M, "device_capacity_bytes"), _text("-Infinity")),),
       also=("05.9.1/decode_step_order", "01.3.6/revalidation_order")),
    _c("strict_lone_surrogate_in_attribute_text", "plan_fixture", "01.3.3/decode_lone_surrogate",
       "lone surrogate", Edit((*_NODE, "attributes"), "set", {"attribute.note": {"text": "x"}}),
       raw=(((*_NOTE, "text"), _text('"a\\ud800"')),)),
    _c("strict_invalid_utf8_in_attribute_text", "plan_fixture", "01.3.3/decode_invalid_utf8",
       "invalid UTF-8", Edit((*_NODE, "attributes"), "set", {"attribute.note": {"text": "x"}}),
       raw=(((*_NOTE, "text"), _text(b'"a\xff"')),)),
    _c("strict_duplicate_struct_field", "plan_fixture", "01.3.3/decode_duplicate_known_field",
       "duplicate key 'work'", raw=((_NODE, _repeated("work")),), also=("05.9.1/duplicate_nested_keys",)),
    # plan schema (05 §9.1 step 3): exactly 8.1, before any nested validation
    _c("schema_minor_above", "plan_fixture", "01.2/plan_schema_exact_equality",
       "actual_minor=2", Edit((*_SCHEMA, "minor"), "set", 2), kind=UNSUPPORTED,
       also=("05.9.5/schema_tamper_even_after_rehash",)),
    _c("schema_major_above", "plan_fixture", "05.9.5/schema_tamper_even_after_rehash",
       "actual_major=9", Edit((*_SCHEMA, "major"), "set", 9), kind=UNSUPPORTED),
    _c("schema_minor_below_unsealed", "plan_fixture", "05.9.5/schema_tamper_even_after_rehash",
       "actual_minor=0", Edit((*_SCHEMA, "minor"), "set", 0), kind=UNSUPPORTED, reseal=False),
    _c("schema_legacy_with_stripped_weight_binding", "plan_fixture", "05.9.1/step3_precedes_nested_validation",
       "actual_major=3", Edit(_SCHEMA, "set", {"major": 3, "minor": 0}), Edit((*_WEIGHT_VALUE, "weight"), "set", None),
       kind=UNSUPPORTED,
       also=("05.9.5/schema_tamper_even_after_rehash", "05.9.1/decode_step_order", "01.3.6/revalidation_order")),
    # typed parse and canonical round trip (05 §9.1 steps 4-5, 01 §5 rule 7)
    _c("stripped_weight_binding", "plan_fixture", "05.9.5/stripped_weight_binding",
       "weight value lacks its resolved physical layout contract", Edit((*_WEIGHT_VALUE, "weight"), "set", None)),
    _c("wire_unknown_top_level_key", "plan_fixture", "05.8.1/plan_wire_unknown_top_level_key",
       "unknown field `note` in ExecutionPlan", Edit(("note",), "set", 0)),
    _c("plan_hash_uppercase", "plan_fixture", "01.1.3/plan_hash_decode_rejects_non_canonical",
       "plan hash must be a lowercase SHA256", Edit(("plan_hash",), "apply", _uppercase), reseal=False,
       also=("05.8.1/plan_hash_canonical_on_decode",)),
    _c("plan_hash_63_characters", "plan_fixture", "01.1.3/plan_hash_decode_rejects_non_canonical",
       "plan hash must be a lowercase SHA256", Edit(("plan_hash",), "apply", _truncated), reseal=False,
       also=("05.8.1/plan_hash_canonical_on_decode",)),
    _c("contract_version_extra_key", "plan_fixture", "01.2/contract_version_extra_keys_rejected_in_reserialized_wires",
       "round trip differs", Edit(("payload", "policy_version", "note"), "set", 0),
       also=("05.9.1/step5_round_trip_unknown_nested_key", "01.5/reserialization_rejects_unknown_nested_key")),
    _c("static_row_unknown_key", "plan_fixture", "05.9.1/step5_round_trip_unknown_nested_key",
       "round trip differs", Edit((*_STATIC, 0, "note"), "set", 0),
       also=("01.5/reserialization_rejects_unknown_nested_key",)),
    _c("reusable_execution_omitted", "plan_fixture", "05.9.1/step5_round_trip_omitted_option_key",
       "round trip differs", Edit(_M, "delete", "reusable_execution"),
       also=("01.5/reserialization_rejects_omitted_option", "01.3.6/decode_reserialization_differs")),
    _c("binding_resource_omitted", "plan_fixture", "05.9.1/step5_round_trip_omitted_option_key",
       "missing field `binding_resource`", Edit(_NODE, "delete", "binding_resource"),
       also=("01.5/reserialization_rejects_omitted_option",)),
    _c("explicit_zero_checkpoint_growth", "plan_fixture", "05.9.1/step5_round_trip_explicit_skipped_default",
       "round trip differs", Edit((*_POOLS, 0, "checkpoint_growth_ceiling_bytes"), "set", 0),
       also=("01.5/reserialization_rejects_non_canonical_value",)),
    _c("required_capabilities_unsorted", "rich_fixture", "05.9.1/step5_round_trip_unsorted_set_array",
       "round trip differs", Edit((*_NODE, "required_capabilities"), "swap"),
       also=("01.5/reserialization_rejects_non_canonical_value",)),
    _c("required_capabilities_duplicated", "rich_fixture", "05.9.1/step5_round_trip_unsorted_set_array",
       "round trip differs", Edit((*_NODE, "required_capabilities"), "dup"),
       also=("01.5/reserialization_rejects_non_canonical_value",)),
    _c("integer_written_as_float", "plan_fixture", "05.9.1/step5_round_trip_float_number",
       "expected u64, got 4096.0", raw=((_TOKENS, _integral_float),),
       also=("01.5/reserialization_rejects_non_canonical_value",)),
    _c("u128_with_a_leading_zero", "plan_fixture", "05.9.1/step5_round_trip_non_canonical_u128",
       "u128 evidence must be a canonical unsigned decimal string",
       Edit((*_M, "theoretical_ceiling_bytes"), "apply", _leading_zero),
       also=("01.5/reserialization_rejects_non_canonical_value",)),
    _c("work_wrong_enum_spelling", "plan_fixture", "05.9.5/wrong_enum_spelling",
       "unknown variant 'Fixed'", Edit((*_NODE, "work"), "set", "Fixed")),
    _c("operation_id_missing", "plan_fixture", "05.9.5/missing_required_field",
       "missing field `operation_id`", Edit(_NODE, "delete", "operation_id")),
    _c("persistent_row_paged_profile", "plan_fixture", "05.9.5/persistent_row_paged_profile",
       "static resource `resource/persistent/", Edit((*_STATIC, {"usage": "persistent"}, "storage", "profile"), "set",
                                                     _PAGED_4096)),
    _c("static_row_size_1024", "plan_fixture", "05.9.5/static_size_1024",
       "static resource `resource.weight.0` is duplicate or invalid", Edit((*_STATIC, 0, "size_bytes"), "set", 1024)),
    # revalidation (05 §9.2 steps 3-4): the payload against the rebuild's, then the hash
    _c("plan_id_changed", "plan_fixture", "01.3.6/only_plan_id_changed", _DIFFERS,
       Edit(("payload", "plan_id"), "set", "plan/sha256/" + "0" * 64), kind=INVALID_PLAN, reseal=False,
       also=("05.9.5/plan_id_only_changed", "05.9.1/decode_ignores_hash_and_plan_id")),
    _c("plan_hash_other_hex", "plan_fixture", "05.9.5/plan_hash_only_changed", "plan_hash_mismatch",
       Edit(("plan_hash",), "set", "0" * 64), kind=MISMATCH, reseal=False,
       also=("01.3.6/only_plan_hash_changed", "05.9.1/decode_ignores_hash_and_plan_id")),
    _c("payload_value_changed_rehashed", "plan_fixture", "01.3.6/rehashed_tamper_is_invalid_plan", _DIFFERS,
       Edit(_TOKENS, "add", 1), kind=INVALID_PLAN,
       also=("05.8.2/rehashed_forgery_still_rejected", "05.9.5/payload_value_changed",
             "05.9.2/revalidate_payload_before_hash", "01.3.6/revalidation_order")),
    _c("payload_value_changed_unsealed", "plan_fixture", "01.3.6/unrehashed_tamper_is_invalid_plan", _DIFFERS,
       Edit(_TOKENS, "add", 1), kind=INVALID_PLAN, reseal=False, also=("05.9.5/payload_value_changed",)),
    _c("alias_exact_aliases_cleared", "graph_alias", "05.5.3/mutation_clear_exact_aliases", _DIFFERS,
       Edit((*_NODE, "exact_aliases"), "set", []), kind=INVALID_PLAN),
    _c("state_chain_access_read", "graph_state_chain", "05.5.3/mutation_state_access_read", _DIFFERS,
       Edit(("payload", "nodes", 1, "state_effects", 0, "access"), "set", "read"), kind=INVALID_PLAN),
    _c("state_chain_dependencies_cleared", "graph_state_chain", "05.5.3/mutation_clear_dependencies", _DIFFERS,
       Edit(("payload", "nodes", 2, "dependencies"), "set", []), kind=INVALID_PLAN),
    # replays against other trusted inputs (05 §9.2 steps 2-3, §9.5)
    _c("replay_against_another_provider", "fallback_unregistered", "05.9.5/other_resolution_set", _DIFFERS,
       against="plan_fixture", kind=INVALID_PLAN),
    _c("replay_retained_plan_without_retention", "chain_3_retained", "05.9.2/revalidate_matching_variant", _DIFFERS,
       scenario_edits=(Edit(("completion_retention",), "set", []),), kind=INVALID_PLAN),
    _c("replay_weights_plan_with_identity_weights", "padded_dense_weights", "05.9.2/revalidate_matching_variant",
       "component storage differs from schema", scenario_edits=(Edit(("weights",), "set", None),), kind=INVALID_PLAN),
    _c("rebuild_policy_capacity_over_device", "plan_fixture", "05.9.5/dependencies_no_longer_build",
       "runtime policy memory capacity exceeds the device memory", scenario_edits=_OVER_DEVICE, kind=INVALID_PLAN,
       also=("05.9.2/revalidate_rebuild_errors_propagate", "01.3.6/revalidate_build_error_propagates")),
    _c("rebuild_zero_active_sequences", "plan_fixture", "05.9.5/dependencies_no_longer_build",
       "maximum active sequences must be non-zero", scenario_edits=_NO_SEQUENCES, kind="invalid_resolved_model_plan",
       also=("05.9.2/revalidate_rebuild_errors_propagate", "01.3.6/revalidate_build_error_propagates")),
    _c("rebuild_failure_before_the_payload_comparison", "plan_fixture", "01.3.6/revalidate_build_error_propagates",
       "maximum active sequences must be non-zero", Edit(_TOKENS, "add", 1), scenario_edits=_NO_SEQUENCES,
       kind="invalid_resolved_model_plan", also=("01.3.6/revalidation_order",)),
    _c("decode_failure_before_the_rebuild", "plan_fixture", "01.3.6/revalidation_order",
       "unknown field `note` in ExecutionPlan", Edit(("note",), "set", 0), scenario_edits=_NO_SEQUENCES),
)  # fmt: skip
