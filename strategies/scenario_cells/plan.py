"""Targeted scenario cells: plan checks (see ``strategies.scenario_cells``).

Each cell passes the family, catalog and node-resolution checks (04 §9) and breaks one check that only the
plan build (05 §3-§7) makes: the capacity gate (§3 step 5), the completion retention, the token work contract
of a node (§4.6), alias liveness (§4.2), the global storage aliasing and the semantic coverage of the program
(§4.4-§4.5), the retained values (§7.10), the memory budget (§7.11, §7.15); and the seed's GraphFamily alias
scenarios the sheet expects refused (§5.3).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Final

from reference.catalog.catalog import CapabilityCatalog
from reference.catalog.resources import ResourcePresenceRequirement, ResourceRequirements
from reference.catalog.tensor_contract import MustAlias, SymbolDimension
from reference.documents.catalog import catalog_from_document, catalog_to_document
from seeds.catalogs import (
    catalog_with_operation,
    catalog_with_secondary_provider_storage,
    contiguous_storage_profile,
    contiguous_storage_requirement,
    operation,
    paged_storage_profile,
    paged_storage_requirement,
    planning_document,
)
from seeds.scenarios import graph_scenario, plan_fixture_scenario
from strategies.budget import base_scenario, with_device_memory, with_policy
from strategies.json_edits import Edit, apply_edits
from strategies.policy import reusable_bucket
from strategies.scenario_cells.cell import ScenarioCell

__all__ = ["CELLS"]

INVALID_PLAN: Final = "invalid_execution_plan"

_PROGRAM: Final = ("family", "document", "program")
_MAIN_WORK: Final = (*_PROGRAM, "blocks", 0, "nodes", 0, "work")
_INPUT_BINDING: Final = ("resolutions", 0, "values", {"value_id": "value.input"})
_N: Final = SymbolDimension("n")


def _edited(document: dict[str, Any], edits: Sequence[Edit]) -> dict[str, Any]:
    """``apply_edits`` typed for a scenario document."""
    edited: dict[str, Any] = apply_edits(document, edits)
    return edited


def _token_work(value_id: str = "value.input", axis: int = 0) -> Edit:
    """``node.main``'s work counted in tokens along ``axis`` of ``value_id``."""
    return Edit(_MAIN_WORK, "set", {"tokens": {"value_id": value_id, "axis": axis}})


def _symbolic_main(inputs: Sequence[tuple[Any, ...] | None], output: tuple[Any, ...]) -> dict[str, Any]:
    """``plan_fixture`` whose ``operation.main`` contract has the given input dimensions (``None``: the
    seed's ``exact(4)``) and output dimensions; the catalog and its planning registry are rebuilt from it."""
    base = operation()
    contracts = tuple(
        contract if dims is None else dataclasses.replace(contract, dimensions=dims)
        for contract, dims in zip(base.inputs, inputs, strict=True)
    )
    outputs = (dataclasses.replace(base.outputs[0], dimensions=output),)
    cat = catalog_with_operation(dataclasses.replace(base, inputs=contracts, outputs=outputs))
    scenario = base_scenario("plan_fixture")
    scenario["catalog"] = catalog_to_document(cat)
    scenario["registry"] = planning_document(cat).to_wire()
    return scenario


def _state_on_token_axis() -> dict[str, Any]:
    """The state input shares the token symbol ``n`` with the token source: a state projection."""
    return _edited(_symbolic_main(((_N,), None, (_N,)), (_N,)), (_token_work(),))


def _token_symbol_twice() -> dict[str, Any]:
    """The token source's contract is ``[n, n]`` (a 4x4 input): the symbol on two axes of one binding."""
    return _edited(
        _symbolic_main(((_N, _N), None, None), (_N,)),
        (
            _token_work(),
            Edit((*_INPUT_BINDING, "tensor", "dimensions"), "set", [4, 4]),
            Edit((*_INPUT_BINDING, "storage", "components", 0, "length_bytes"), "set", 64),
        ),
    )


def _second_output_storage(resource_id: str) -> Edit:
    return Edit(
        (
            "resolutions",
            {"node_id": "node.second"},
            "values",
            {"value_id": "value.output"},
            "storage",
            "components",
            0,
            "resource_id",
        ),
        "set",
        resource_id,
    )


def _state_overwritten_through_alias() -> dict[str, Any]:
    """``graph_state_chain`` whose ``operation.graph.state-rw`` output must alias its state input 0, each
    ``state-rw`` node writing its output into the state's storage: an exact alias overwriting a state."""
    scenario = base_scenario("graph_state_chain")
    cat = catalog_from_document(scenario["catalog"])
    operations = [
        dataclasses.replace(op, outputs=(dataclasses.replace(op.outputs[0], alias=MustAlias(0)),))
        if op.id.value == "operation.graph.state-rw"
        else op
        for op in cat.operations.values()
    ]
    by_id = {op.id: op for op in operations}
    providers = {
        op_id: [dataclasses.replace(p, operation_fingerprint=by_id[op_id].fingerprint()) for p in entries]
        for op_id, entries in cat.providers.items()
    }
    cat = CapabilityCatalog(cat.device, operations, providers, list(cat.engine_providers.values()))
    scenario["catalog"] = catalog_to_document(cat)
    scenario["registry"] = planning_document(cat, 64, 32).to_wire()
    edits = []
    for index in (0, 1):
        output = (
            "resolutions",
            {"node_id": f"node.state-rw.{index}"},
            "values",
            {"value_id": f"value.state-rw.{index}"},
        )
        edits += [
            Edit((*output, "alias"), "set", {"must_alias": {"tensor_index": 0}}),
            Edit((*output, "storage", "components", 0, "resource_id"), "set", "resource.graph.state"),
        ]
    return _edited(scenario, edits)


def _retained_then_overwritten() -> dict[str, Any]:
    """The graph family's producer then exact-alias pair (the alias node overwrites the producer's output
    in place), retaining the producer's output."""
    scenario = graph_scenario("alias_terminal_intermediate")
    scenario["completion_retention"] = ["value.intermediate"]
    return scenario


def _token_source_at_an_offset() -> dict[str, Any]:
    """A token projection (``[n]`` input, token work on it) whose storage starts at byte 16, not 0."""
    return _edited(
        _symbolic_main(((_N,), None, None), (_N,)),
        (_token_work(), Edit((*_INPUT_BINDING, "storage", "components", 0, "offset_bytes"), "set", 16)),
    )


_TOKEN_SCALED_STATE: Final = {"token_scaled": {"bytes_per_token": 4, "maximum_tokens": 8}}


def _split_storage_provider(*, secondary: bool, preferred: str | None) -> dict[str, Any]:
    """``plan_fixture`` whose output shares ``resource.input.0`` with the input (bytes 16..32, no overlap) and
    whose reference provider binds input 0 paged(4096) only and the output contiguous only; the device and
    the policy order offer both profiles. Resolution accepts the provider (each binding's profile is
    available), but its merged constraint on the shared resource is empty, so 05 §6.1 drops it. With
    ``secondary`` a contiguous-only second provider remains."""
    cat = catalog_with_secondary_provider_storage(contiguous_storage_requirement(), contiguous_storage_requirement())
    ((operation_id, providers),) = cat.providers.items()
    reference = providers[0]
    bindings = list(reference.dynamic_storage_bindings)
    bindings[0] = dataclasses.replace(bindings[0], storage=paged_storage_requirement(4096))
    reference = dataclasses.replace(reference, dynamic_storage_bindings=tuple(bindings))
    device = dataclasses.replace(
        cat.device, dynamic_storage_profiles=cat.device.dynamic_storage_profiles | {paged_storage_profile(4096)}
    )
    cat = CapabilityCatalog(
        device,
        list(cat.operations.values()),
        {operation_id: [reference, providers[1]] if secondary else [reference]},
        list(cat.engine_providers.values()),
    )
    scenario = with_policy(plan_fixture_scenario(name="split_storage", catalog_value=cat, preferred_provider=preferred))
    order = [contiguous_storage_profile().to_wire(), paged_storage_profile(4096).to_wire()]
    output = ("resolutions", 0, "values", {"value_id": "value.output"}, "storage", "components", 0)
    return _edited(
        scenario,
        (
            Edit(("policy", "fields", "memory", "dynamic_storage_profile_order"), "set", order),
            Edit((*output, "resource_id"), "set", "resource.input.0"),
            Edit((*output, "offset_bytes"), "set", 16),
        ),
    )


_MATERIALIZER: Final = ("weights", "registry", "materializers", 0)
_LEFT_FROM_BOTH: Final = Edit(
    (*_MATERIALIZER, "component_sources"),
    "set",
    {
        "weight.execution.left": ["weight.component.left", "weight.component.right"],
        "weight.execution.right": ["weight.component.right"],
    },
)


def _materialize(rule: Any, *edits: Edit) -> tuple[Edit, ...]:
    """The derived-components materializer with materialize rule ``rule`` (and further edits)."""
    return (Edit((*_MATERIALIZER, "materialize"), "set", rule), *edits)


_U64_MAX: Final = (1 << 64) - 1


def _huge_device(lengths: dict[str, int], persistent: int | None = None) -> dict[str, Any]:
    """``plan_fixture`` on a device and policy of u64::MAX bytes (reserve 128), with the given binding storage
    lengths (and persistent workspace bytes): every pool fits the dynamic capacity, their sum does not fit u64."""
    scenario = with_policy(with_device_memory(base_scenario("plan_fixture"), _U64_MAX), capacity=_U64_MAX, reserve=128)
    edits = [
        Edit(("resolutions", 0, "values", {"value_id": v}, "storage", "components", 0, "length_bytes"), "set", n)
        for v, n in lengths.items()
    ]
    if persistent is not None:
        edits.append(Edit(("registry", "estimators", 0, "persistent_bytes"), "set", persistent))
    return _edited(scenario, edits)


def _state_lifetime(lifetime: str) -> tuple[Edit, ...]:
    """The family's state (program and profile) with ``lifetime`` and no initialization."""
    profile_state = ("family", "document", "numerical_profiles", "profiles", 0, "states", 0)
    return tuple(
        Edit((*state, name), "set", value)
        for state in ((*_PROGRAM, "states", 0), profile_state)
        for name, value in (("lifetime", lifetime), ("initialization", "none"))
    )


def _two_step_pools() -> dict[str, Any]:
    """``sequential_scratch`` on a u64::MAX device with a Step state: the intermediate activation and the
    state (two Step pools) of 2^63 bytes each."""
    scenario = with_policy(
        with_device_memory(base_scenario("sequential_scratch"), _U64_MAX), capacity=_U64_MAX, reserve=128
    )
    lengths = [
        Edit(
            (
                "resolutions",
                {"node_id": node},
                "values",
                {"value_id": value},
                "storage",
                "components",
                0,
                "length_bytes",
            ),
            "set",
            1 << 63,
        )
        for node in ("node.first", "node.second")
        for value in ("value.intermediate", "value.state")
    ]
    return _edited(scenario, (*lengths, *_state_lifetime("step")))


_CONTIGUOUS_STORAGE: Final = {"accepted_profiles": [{"allocator": "linear_arena", "view": "contiguous"}]}


def _workspace(size: int, scope: str, reuse: str) -> dict[str, Any]:
    """A declared workspace of ``size`` fixed bytes (16-aligned, contiguous storage)."""
    return {
        "size_formula": {"fixed": {"bytes": size}},
        "alignment_bytes": 16,
        "scope": scope,
        "reuse_policy": reuse,
        "storage": _CONTIGUOUS_STORAGE,
    }


def _declared_estimate(scratch: int, persistent: tuple[int, str], binding: int | None = None) -> Edit:
    """The reference provider's estimator answering a declared estimate (scratch, persistent with its scope,
    optional binding workspace)."""
    estimate = {
        "value_alignment_bytes": 16,
        "scratch": _workspace(scratch, "invocation", "overwrite_before_read"),
        "persistent": _workspace(persistent[0], persistent[1], "preserve"),
        "binding": None if binding is None else _workspace(binding, "invocation", "overwrite_before_read"),
    }
    spec = {
        "provider_id": "provider.operation.reference",
        "behavior": "correct",
        "scratch_bytes": 0,
        "persistent_bytes": 0,
        "estimate": estimate,
    }
    return Edit(("registry", "estimators", 0), "set", spec)


def _two_sequence_pools() -> dict[str, Any]:
    """A Sequence-scoped persistent workspace of 2^63 bytes beside a 2^63-byte Sequence state (two pools)."""
    return _edited(_huge_device({"value.state": 1 << 63}), (_declared_estimate(64, (1 << 63, "sequence")),))


def _two_invocation_pools() -> dict[str, Any]:
    """``operation.main`` requiring a binding workspace, scratch and binding workspaces of 2^63 bytes each
    (two Invocation pools: scratch and binding usage) on a u64::MAX device."""
    required = ResourcePresenceRequirement.REQUIRED
    op = dataclasses.replace(operation(), resources=ResourceRequirements(16, required, required, required))
    scenario = base_scenario("plan_fixture")
    scenario["catalog"] = catalog_to_document(catalog_with_operation(op))
    scenario = with_policy(with_device_memory(scenario, _U64_MAX), capacity=_U64_MAX, reserve=128)
    return _edited(scenario, (_declared_estimate(1 << 63, (32, "plan"), binding=1 << 63),))


_BUCKET_TOKENS: Final = 1 << 14


def _token_workspace(bytes_per_token: int, scope: str, reuse: str) -> dict[str, Any]:
    """A declared workspace of ``bytes_per_token`` bytes per scheduled token."""
    return {**_workspace(16, scope, reuse), "size_formula": {"tokens": {"bytes_per_token": bytes_per_token}}}


def _reusable_sequential(estimate: dict[str, Any], *, binding: bool) -> dict[str, Any]:
    """``sequential_scratch`` on a u64::MAX device, 2^14 scheduled tokens and one reusable bucket of 2^14
    tokens, every node's estimator answering ``estimate`` (with ``binding``, ``operation.main`` requires a
    binding workspace). At the minimum shape a 2^49-byte-per-token workspace fits; at the bucket shape two
    of them, one per node, sum past u64."""
    scenario = base_scenario("sequential_scratch")
    if binding:
        required = ResourcePresenceRequirement.REQUIRED
        op = dataclasses.replace(operation(), resources=ResourceRequirements(16, required, required, required))
        scenario["catalog"] = catalog_to_document(catalog_with_operation(op))
    scenario = with_policy(
        with_device_memory(scenario, _U64_MAX), capacity=_U64_MAX, reserve=128, tokens=_BUCKET_TOKENS
    )
    reusable = {"maximum_reusable_lanes": 1, "buckets": [reusable_bucket("class.a", 1, _BUCKET_TOKENS, 1)]}
    scenario["policy"]["fields"]["reusable_execution"] = reusable
    scenario["registry"]["estimators"] = [
        {
            **{k: v for k, v in spec.items() if k != "scratch_bytes_by_node"},
            "behavior": "correct",
            "scratch_bytes": 0,
            "persistent_bytes": 0,
            "estimate": estimate,
        }
        for spec in scenario["registry"]["estimators"]
    ]
    return scenario


def _reusable_step_overflow() -> dict[str, Any]:
    """Each node's Step-scoped persistent workspace: two dedicated Step slots of 2^63 bytes at the bucket."""
    estimate = {
        "value_alignment_bytes": 16,
        "scratch": _workspace(64, "invocation", "overwrite_before_read"),
        "persistent": _token_workspace(1 << 49, "step", "preserve"),
        "binding": None,
    }
    return _reusable_sequential(estimate, binding=False)


def _reusable_concurrent_overflow() -> dict[str, Any]:
    """Each node's binding workspace: a conservative-concurrent pool of two 2^63-byte rows at the bucket."""
    estimate = {
        "value_alignment_bytes": 16,
        "scratch": _workspace(64, "invocation", "overwrite_before_read"),
        "persistent": _workspace(32, "plan", "preserve"),
        "binding": _token_workspace(1 << 49, "invocation", "overwrite_before_read"),
    }
    return _reusable_sequential(estimate, binding=True)


def _bucket_beyond_formula(formula: dict[str, Any], pages: int) -> dict[str, Any]:
    """``sequential_scratch`` with one reusable bucket (1 sequence, 4 tokens, ``pages`` pages) and every
    node's scratch workspace sized by ``formula``, which the bucket shape exceeds."""
    scenario = with_policy(base_scenario("sequential_scratch"), tokens=_BUCKET_TOKENS)
    reusable = {"maximum_reusable_lanes": 1, "buckets": [reusable_bucket("class.a", 1, 4, pages)]}
    scenario["policy"]["fields"]["reusable_execution"] = reusable
    estimate = {
        "value_alignment_bytes": 16,
        "scratch": {**_workspace(16, "invocation", "overwrite_before_read"), "size_formula": formula},
        "persistent": _workspace(32, "plan", "preserve"),
        "binding": None,
    }
    scenario["registry"]["estimators"] = [
        {
            **{k: v for k, v in spec.items() if k != "scratch_bytes_by_node"},
            "behavior": "correct",
            "scratch_bytes": 0,
            "persistent_bytes": 0,
            "estimate": estimate,
        }
        for spec in scenario["registry"]["estimators"]
    ]
    return scenario


_ONE_SMALL_BUCKET: Final = {
    "bounded_shape_buckets": {
        "buckets": [{"maximum_sequences": 1, "maximum_tokens": 2, "maximum_pages": 1, "bytes": 16}]
    }
}


def _token_scaled_step_state() -> dict[str, Any]:
    """``plan_fixture`` whose state is Step-scoped and token-scaled up to 2 tokens, with one reusable bucket
    of 4 tokens (within the policy's scheduled tokens, beyond the state's own maximum)."""
    scenario = with_policy(base_scenario("plan_fixture"))
    reusable = {"maximum_reusable_lanes": 1, "buckets": [reusable_bucket("class.a", 1, 4, 1)]}
    scenario["policy"]["fields"]["reusable_execution"] = reusable
    demand = {"token_scaled": {"bytes_per_token": 4, "maximum_tokens": 2}}
    profile_state = ("family", "document", "numerical_profiles", "profiles", 0, "states", 0)
    edits = [Edit((*state, "capacity_demand"), "set", demand) for state in ((*_PROGRAM, "states", 0), profile_state)]
    return _edited(scenario, (*_state_lifetime("step"), *edits))


_THREE_EIGHTHS: Final = (1 << 62) + (1 << 61)


def _declared_policy(**reported: int) -> dict[str, Any]:
    """``plan_fixture`` under a declared custom policy whose ``validate`` passes and whose members report the
    seed policy's values with ``reported`` changed: the build's capacity gate (05 §3 step 5) is the first
    check that sees a capacity or reserve the resolved policy's own ``validate`` would refuse."""
    scenario = base_scenario("plan_fixture")
    fields = {key: value for key, value in scenario["policy"]["wire"].items() if key != "fingerprint"}
    memory, admission = fields["memory"], fields["admission"]
    values = {
        "version": fields["version"],
        "memory_capacity_bytes": memory["capacity_bytes"],
        "memory_reserve_bytes": memory["reserve_bytes"],
        "maximum_active_sequences": memory["maximum_active_sequences"],
        "maximum_scheduled_tokens": admission["maximum_scheduled_tokens"],
        "attention_execution_policy": fields["attention_execution"],
        "execution_determinism_requirement": fields["execution_determinism"],
        "dynamic_storage_profile_order": memory["dynamic_storage_profile_order"],
        "reusable_execution_policy": fields["reusable_execution"],
        "checkpoint_capacity_policy": memory.get("checkpoint_capacity"),
        **reported,
    }
    scenario["policy"] = {"kind": "declared", "serialized": fields, "reported": values, "validate_error": None}
    return scenario


def _aliased_program_output() -> dict[str, Any]:
    """The graph family's producer then exact-alias pair (the alias node overwrites the producer's output in
    place, as its final consumer), the producer's output also listed as a program output."""
    scenario = graph_scenario("alias_terminal_intermediate")
    scenario["family"]["document"]["program"]["outputs"].append("value.intermediate")
    return scenario


_SEED_DEVICE: Final = 1 << 20


CELLS: Final[tuple[ScenarioCell, ...]] = (
    ScenarioCell(
        "retained_value_not_a_node_output",
        "05.2/retention_values_are_node_outputs",
        INVALID_PLAN,
        "retained completion value `value.input` is not a program node output",
        edits=(Edit(("completion_retention",), "set", ["value.input"]),),
    ),
    ScenarioCell(
        "token_work_axis_on_a_fixed_dimension",
        "05.4.6/token_axis_must_be_symbol",
        INVALID_PLAN,
        "token work axis is not a symbolic operation dimension",
        edits=(_token_work(),),
    ),
    ScenarioCell(
        "token_projection_of_a_state",
        "05.4.6/token_projection_activations_in_range",
        INVALID_PLAN,
        "token projection of `value.state` is not an activation axis in range",
        make=_state_on_token_axis,
    ),
    ScenarioCell(
        "token_symbol_on_two_axes",
        "05.4.6/token_symbol_one_axis_per_binding",
        INVALID_PLAN,
        "binding `value.input` mentions the token symbol on several axes",
        make=_token_symbol_twice,
    ),
    ScenarioCell(
        "values_of_two_nodes_overlap_without_alias",
        "05.4.4/undeclared_overlap_rejected",
        INVALID_PLAN,
        "overlap in `resource.sequential.input` without an exact alias",
        base="sequential_scratch",
        edits=(_second_output_storage("resource.sequential.input"),),
    ),
    ScenarioCell(
        "program_input_bound_by_no_node",
        "05.4.5/program_input_bound",
        INVALID_PLAN,
        "program values are not bound by any node: value.extra",
        edits=(Edit((*_PROGRAM, "inputs"), "append", "value.extra"),),
    ),
    ScenarioCell(
        "state_overwritten_through_an_exact_alias",
        "05.4.2/aliased_state_rejected",
        INVALID_PLAN,
        "state `value.state` cannot be overwritten through an exact alias",
        make=_state_overwritten_through_alias,
    ),
    ScenarioCell(
        "retained_value_overwritten_in_place",
        "05.7.10/retained_not_overwritten",
        INVALID_PLAN,
        "retained value `value.intermediate` is overwritten after it completes",
        make=_retained_then_overwritten,
    ),
    ScenarioCell(
        "token_projection_not_at_offset_zero",
        "05.7.4/token_projection_tiles_storage",
        INVALID_PLAN,
        "token projection of `value.input` does not tile its storage",
        make=_token_source_at_an_offset,
    ),
    ScenarioCell(
        "token_scaled_state_ends_past_bytes_per_token",
        "05.7.4/token_scaled_state_bytes_per_token_covers_end",
        INVALID_PLAN,
        "token-scaled state `state.cache` bytes per token is below its storage end",
        edits=(
            Edit((*_PROGRAM, "states", 0, "capacity_demand"), "set", _TOKEN_SCALED_STATE),
            Edit(
                ("family", "document", "numerical_profiles", "profiles", 0, "states", 0, "capacity_demand"),
                "set",
                _TOKEN_SCALED_STATE,
            ),
            Edit(
                ("resolutions", 0, "values", {"value_id": "value.state"}, "storage", "components", 0, "offset_bytes"),
                "set",
                16,
            ),
        ),
    ),
    ScenarioCell(
        "only_provider_dropped_for_its_own_storage",
        "05.6.1/no_candidate_left",
        INVALID_PLAN,
        "node `node.main` has no provider candidate with compatible storage",
        make=lambda: _split_storage_provider(secondary=False, preferred=None),
    ),
    ScenarioCell(
        "preferred_provider_dropped_without_evidence",
        "05.6.3/fallback_needs_evidence",
        INVALID_PLAN,
        "fell back from `provider.operation.reference` without rejection evidence",
        make=lambda: _split_storage_provider(secondary=True, preferred="provider.operation.reference"),
    ),
    ScenarioCell(
        "declared_materializer_rejects",
        "05.10.6/declared_materializer_refuses",
        INVALID_PLAN,
        "materializer refuses: no weights for this device",
        base="weights_derived_components",
        edits=_materialize({"reject": "materializer refuses: no weights for this device"}),
        operation="execute",
    ),
    ScenarioCell(
        "identity_materializer_of_two_sources",
        "05.10.6/declared_materializer_refuses",
        INVALID_PLAN,
        "identity weight materializer requires exactly one source component",
        base="weights_derived_components",
        edits=_materialize("identity", _LEFT_FROM_BOTH),
        operation="execute",
    ),
    ScenarioCell(
        "identity_materializer_of_a_renamed_component",
        "05.10.6/declared_materializer_refuses",
        INVALID_PLAN,
        "identity weight materializer cannot transform component `weight.execution.left`",
        base="weights_derived_components",
        edits=_materialize("identity"),
        operation="execute",
    ),
    ScenarioCell(
        "zero_pad_materializer_of_two_sources",
        "05.10.6/declared_materializer_refuses",
        INVALID_PLAN,
        "zero-pad weight materializer requires one source component",
        base="weights_derived_components",
        edits=_materialize("zero_pad", _LEFT_FROM_BOTH),
        operation="execute",
    ),
    ScenarioCell(
        "fill_materializer_missing_a_component",
        "05.10.6/declared_materializer_refuses",
        INVALID_PLAN,
        "unexpected derived execution component `weight.execution.right`",
        base="weights_derived_components",
        edits=_materialize({"fill": {"weight.execution.left": 1}}),
        operation="execute",
    ),
    ScenarioCell(
        "concat_materializer_overfills",
        "05.10.6/declared_materializer_refuses",
        INVALID_PLAN,
        "concatenated sources of `weight.execution.left` do not fill the execution component",
        base="weights_derived_components",
        edits=_materialize("concat", _LEFT_FROM_BOTH),
        operation="execute",
    ),
    ScenarioCell(
        "schema_edit_required_not_a_boolean",
        "01.5/struct_wrong_json_type",
        "serialization",
        "set_component.required: expected a boolean",
        base="weights_derived_components",
        edits=(Edit((*_MATERIALIZER, "execution_schema", "edits", 2, "set_component", "required"), "set", "yes"),),
        operation="select_weight_plan",
    ),
    ScenarioCell(
        "fill_payload_names_two_source_files",
        "05.10.6/materialize_payload_fields",
        INVALID_PLAN,
        "weight component `weight.execution.left` payload differs from its schema identity, source",
        base="weights_derived_components",
        edits=_materialize({"fill": {"weight.execution.left": 1, "weight.execution.right": 2}}, _LEFT_FROM_BOTH),
        operation="execute",
    ),
    ScenarioCell(
        "pools_fit_one_by_one_but_not_together",
        "05.7.11/minimum_runnable_fits",
        INVALID_PLAN,
        "minimum runnable plan requires 160 bytes, exceeding usable capacity 129",
        make=lambda: with_policy(base_scenario("plan_fixture"), capacity=257, reserve=128),
    ),
    ScenarioCell(
        "minimum_runnable_sum_overflows",
        "05.7.11/minimum_runnable_fits",
        INVALID_PLAN,
        "minimum runnable request bytes overflows",
        make=lambda: _huge_device({"value.input": 1 << 63, "value.state": 1 << 63}),
    ),
    ScenarioCell(
        "minimum_runnable_plus_static_overflows",
        "05.7.11/minimum_runnable_fits",
        INVALID_PLAN,
        "minimum runnable plan bytes overflows",
        make=lambda: _huge_device(
            {"value.input": _THREE_EIGHTHS, "value.state": _THREE_EIGHTHS}, persistent=_THREE_EIGHTHS
        ),
    ),
    ScenarioCell(
        "request_pool_minima_overflow",
        "05.7.11/minimum_runnable_fits",
        INVALID_PLAN,
        "minimum request bytes overflows",
        make=lambda: apply_edits(
            _huge_device({"value.input": 1 << 63, "value.state": 1 << 63}), _state_lifetime("request")
        ),
    ),
    ScenarioCell(
        "step_pool_minima_overflow",
        "05.7.11/minimum_runnable_fits",
        INVALID_PLAN,
        "minimum step bytes overflows",
        make=_two_step_pools,
    ),
    ScenarioCell(
        "sequence_pool_minima_overflow",
        "05.7.11/minimum_runnable_fits",
        INVALID_PLAN,
        "minimum sequence bytes overflows",
        make=_two_sequence_pools,
    ),
    ScenarioCell(
        "invocation_pool_minima_overflow",
        "05.7.11/minimum_runnable_fits",
        INVALID_PLAN,
        "invocation pool minimum bytes overflows",
        make=_two_invocation_pools,
    ),
    ScenarioCell(
        "reusable_step_budget_overflows",
        "05.7.14/reusable_memory_plan_checked",
        INVALID_PLAN,
        "reusable step workspace budget overflows",
        make=_reusable_step_overflow,
    ),
    ScenarioCell(
        "reusable_concurrent_invocation_budget_overflows",
        "05.7.14/reusable_memory_plan_checked",
        INVALID_PLAN,
        "reusable concurrent invocation budget overflows",
        make=_reusable_concurrent_overflow,
    ),
    ScenarioCell(
        "reusable_bucket_pages_beyond_the_page_formula",
        "04.7.1/bound_demand_overflow",
        INVALID_PLAN,
        "actual invocation shape exceeds its bounded resource formula",
        make=lambda: _bucket_beyond_formula({"pages": {"bytes_per_page": 16, "maximum_pages": 1}}, 2),
    ),
    ScenarioCell(
        "reusable_bucket_tokens_beyond_the_workspace_buckets",
        "04.7.1/bound_demand_overflow",
        INVALID_PLAN,
        "actual invocation shape exceeds workspace buckets",
        make=lambda: _bucket_beyond_formula(_ONE_SMALL_BUCKET, 1),
    ),
    ScenarioCell(
        "reusable_bucket_tokens_beyond_a_token_scaled_state",
        "04.7.1/bound_demand_overflow",
        INVALID_PLAN,
        "actual invocation shape exceeds its bounded resource formula",
        make=_token_scaled_step_state,
    ),
    ScenarioCell(
        "policy_capacity_zero_at_the_capacity_gate",
        "05.3/step05_capacity_nonzero",
        INVALID_PLAN,
        "runtime policy memory capacity must be non-zero",
        make=lambda: _declared_policy(memory_capacity_bytes=0, memory_reserve_bytes=0),
    ),
    ScenarioCell(
        "policy_reserve_equal_to_capacity_at_the_capacity_gate",
        "05.3/step05_reserve_below_capacity",
        INVALID_PLAN,
        "runtime policy memory reserve must be smaller than its capacity",
        make=lambda: _declared_policy(memory_reserve_bytes=4096),
    ),
    ScenarioCell(
        "fixture_policy_capacity_one_byte_over_the_device",
        "05.7.16/fixture_capacity_above_device_rejected",
        INVALID_PLAN,
        "runtime policy memory capacity exceeds the device memory",
        make=lambda: with_policy(base_scenario("plan_fixture"), capacity=_SEED_DEVICE + 1),
    ),
    ScenarioCell(
        "static_rows_over_usable_capacity",
        "05.7.15/i4_static_within_usable",
        INVALID_PLAN,
        "dynamic capacity (static memory exceeds usable capacity) underflows",
        make=lambda: with_policy(base_scenario("plan_fixture"), capacity=128 + 40, reserve=128),
    ),
    ScenarioCell(
        "graph_alias_may_alias_partial_overlap",
        "05.5.3/alias_may_partial_rejected",
        INVALID_PLAN,
        "output 0 partially aliases or aliases the wrong input",
        make=lambda: graph_scenario("alias", "may_alias_partial"),
    ),
    ScenarioCell(
        "graph_alias_may_alias_the_wrong_input",
        "05.5.3/alias_may_wrong_input_rejected",
        INVALID_PLAN,
        "output 0 partially aliases or aliases the wrong input",
        make=lambda: graph_scenario("alias", "may_alias_wrong_input"),
    ),
    ScenarioCell(
        "graph_alias_must_alias_distinct_storage",
        "05.5.3/alias_must_distinct_rejected",
        INVALID_PLAN,
        "output 0 does not exactly alias its declared input",
        make=lambda: graph_scenario("alias", "must_alias_distinct"),
    ),
    ScenarioCell(
        "graph_alias_late_consumer",
        "05.5.3/alias_late_consumer_rejected",
        INVALID_PLAN,
        "value `value.input.0` is overwritten before its final consumer",
        make=lambda: graph_scenario("alias_late_consumer"),
    ),
    ScenarioCell(
        "graph_alias_terminal_intermediate",
        "05.5.3/alias_terminal_intermediate",
        INVALID_PLAN,
        "resource `resource.graph.intermediate` has conflicting usage, dtype, lifetime or demand",
        make=lambda: graph_scenario("alias_terminal_intermediate"),
    ),
    ScenarioCell(
        "aliased_input_is_a_program_output",
        "05.4.2/aliased_input_not_program_output",
        INVALID_PLAN,
        "value `value.intermediate` is overwritten before its final consumer or is a program output",
        make=_aliased_program_output,
    ),
)
