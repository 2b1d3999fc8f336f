"""Parametric variations of the seed planning scenarios for memory budgets and estimators (05 §7, 04 §10).

A *base* is one seed planning scenario of ``seeds/scenarios.py`` (the seed-002 materializer plans and the
mixed-gptq container binding included);
*knobs* rewrite its sections without touching anything else:

* ``with_policy``: the seed policy (``policy_with_tokens``) with another capacity,
  reserve, ``maximum_active_sequences`` or ``maximum_scheduled_tokens``, as a
  ``resolved_fields`` document (so an invalid combination is the backend's to refuse);
* ``with_device_memory``: the catalog device's ``total_memory_bytes``;
* ``with_estimates``: every declared estimator's scratch / persistent bytes,
  behaviour, or per-node scratch (``scratch_bytes_by_node``);
* ``blocked_input_scenario``: ``plan_fixture`` with its input in a zero-fill padded blocked layout.

Strategies draw :class:`BudgetCase` values (fitting or not: the reference decides),
u64 edge cases (``EdgeCase``, the outcome is the reference's typed error or a plan),
estimator behaviour cases, registry faults and preferred-provider cases. Every
value is built with ``st.builds``/``st.composite`` from small integer ranges, so
failures shrink to the seed numbers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import orjson
from hypothesis import strategies as st

from reference.canonical import JsonValue
from reference.catalog.tensor_contract import BlockedLayout
from reference.documents.catalog import catalog_to_document
from reference.documents.registry import ESTIMATE_BEHAVIORS
from reference.ints import U64_MAX
from seeds import catalogs
from seeds import scenarios as seeds
from strategies._reuse import reusable
from strategies.cases import copy_json

__all__ = [
    "BASES",
    "BLOCKED_INPUT_LAYOUT",
    "BLOCKED_INPUT_LAYOUT_CLASS",
    "BEHAVIOR_OUTCOMES",
    "EDGE_KINDS",
    "MULTI_NODE_BASES",
    "NODE_IDS",
    "REGISTRY_FAULTS",
    "SCRATCH_ORDER",
    "U32_MAX",
    "BudgetCase",
    "EdgeCase",
    "Knobs",
    "align_up",
    "base_scenario",
    "blocked_input_scenario",
    "budget_cases",
    "make_budget_case",
    "edge_cases",
    "estimator_cases",
    "policy_knobs",
    "registry_fault",
    "scratch_cases",
    "sequence_pairs",
    "with_device_memory",
    "with_estimates",
    "with_policy",
]

U32_MAX: Final = 2**32 - 1
#: The alignment every seed estimator declares for its workspaces (04 §10).
WORKSPACE_ALIGNMENT: Final = 16

_BUILDERS: Final[Mapping[str, Callable[[], dict[str, Any]]]] = {
    "plan_fixture": seeds.plan_fixture_scenario,
    "sequential_scratch": seeds.sequential_scratch_scenario,
    "graph_alias": lambda: seeds.graph_scenario("alias"),
    "graph_state_chain": lambda: seeds.graph_scenario("state_chain"),
    "graph_state_read_only": lambda: seeds.graph_scenario("state_read_only"),
    "paged_storage": seeds.paged_storage_scenario,
    "weights_padded_dense": lambda: seeds.weights_plan_scenario("padded_dense"),
    "weights_derived_components": lambda: seeds.weights_plan_scenario("derived_components"),
    "container_mixed_gptq": lambda: seeds.container_format_scenario("mixed_gptq_dense"),
}
#: Base scenario names, in a stable order (the first ones shrink best).
BASES: Final = tuple(_BUILDERS)
#: Program node ids of each base, in program order.
NODE_IDS: Final[Mapping[str, tuple[str, ...]]] = {
    "plan_fixture": ("node.main",),
    "sequential_scratch": ("node.first", "node.second"),
    "graph_alias": ("node.alias",),
    "graph_state_chain": ("node.state-read.0", "node.state-rw.0", "node.state-rw.1", "node.state-read.1"),
    "graph_state_read_only": ("node.state-read.0", "node.state-read.1"),
    "paged_storage": ("node.main",),
    "weights_padded_dense": ("node.main",),
    "weights_derived_components": ("node.main",),
    "container_mixed_gptq": ("node.main",),
}
#: How the scratch workspaces of a multi-node base are ordered (05 §7.9): ``total`` (each node
#: depends on the previous one: peak = max) or ``concurrent`` (independent: peak = sum).
SCRATCH_ORDER: Final[Mapping[str, str]] = {
    "sequential_scratch": "total",
    "graph_state_chain": "total",
    "graph_state_read_only": "concurrent",
}
MULTI_NODE_BASES: Final = tuple(SCRATCH_ORDER)

#: 04 §10: the documented outcome of each estimate behaviour in a direct plan build
#: (``None`` = accepted).
BEHAVIOR_OUTCOMES: Final[Mapping[str, str | None]] = {
    "correct": None,
    "arena_alignment64": None,
    "token_scaled_scratch": None,
    "wrong_estimator_id": "invalid_execution_plan",
    "wrong_estimator_version": "invalid_execution_plan",
    "wrong_implementation": "invalid_execution_plan",
    "wrong_input": "invalid_execution_plan",
    "invalid_alignment": "invalid_execution_plan",
    "missing_scratch": "invalid_execution_plan",
}
assert tuple(BEHAVIOR_OUTCOMES) == ESTIMATE_BEHAVIORS


def align_up(value: int, alignment: int = WORKSPACE_ALIGNMENT) -> int:
    """``value`` rounded up to a multiple of ``alignment`` (unbounded; callers check widths)."""
    return -(-value // alignment) * alignment


@functools.cache
def _frozen_base(name: str) -> dict[str, Any]:
    return _BUILDERS[name]()


@functools.cache
def _frozen_bytes(name: str) -> bytes | None:
    """The seed scenario's compact JSON when parsing it gives the scenario back exactly, else None."""
    base = _frozen_base(name)
    try:
        data = orjson.dumps(base)
    except orjson.JSONEncodeError:
        return None
    return data if orjson.loads(data) == base else None


def base_scenario(name: str) -> dict[str, Any]:
    """A fresh copy of the named seed scenario."""
    data = _frozen_bytes(name)
    if data is None:
        return copy_json(_frozen_base(name))
    copied: dict[str, Any] = orjson.loads(data)
    return copied


# --------------------------------------------------------------------------- knobs


@dataclass(frozen=True, slots=True)
class Knobs:
    """The four policy numbers the budget depends on."""

    capacity: int
    reserve: int
    sequences: int
    tokens: int


def _policy_fields(document: Mapping[str, Any]) -> dict[str, Any]:
    if document.get("kind") == "resolved":
        fields = copy_json(dict(document["wire"]))
        fields.pop("fingerprint", None)
        return fields
    if document.get("kind") == "resolved_fields":
        return copy_json(dict(document["fields"]))
    raise ValueError(f"not a resolved policy document: {document.get('kind')!r}")


def policy_knobs(scenario: Mapping[str, Any]) -> Knobs:
    """The capacity, reserve, sequences and tokens of a scenario's resolved policy."""
    fields = _policy_fields(scenario["policy"])
    memory, admission = fields["memory"], fields["admission"]
    return Knobs(
        memory["capacity_bytes"],
        memory["reserve_bytes"],
        memory["maximum_active_sequences"],
        admission["maximum_scheduled_tokens"],
    )


def with_policy(
    scenario: Mapping[str, Any],
    *,
    capacity: int | None = None,
    reserve: int | None = None,
    sequences: int | None = None,
    tokens: int | None = None,
) -> dict[str, Any]:
    """The scenario with its resolved policy's numbers replaced (a ``resolved_fields`` document, unchecked).

    The other sections are shared with ``scenario``, not copied: callers never change a section in place.
    """
    fields = _policy_fields(scenario["policy"])
    memory, admission = fields["memory"], fields["admission"]
    if capacity is not None:
        memory["capacity_bytes"] = capacity
    if reserve is not None:
        memory["reserve_bytes"] = reserve
    if sequences is not None:
        memory["maximum_active_sequences"] = sequences
    if tokens is not None:
        admission["maximum_scheduled_tokens"] = tokens
    out = dict(scenario)
    out["policy"] = {"kind": "resolved_fields", "fields": fields}
    return out


def with_device_memory(scenario: Mapping[str, Any], total_memory_bytes: int) -> dict[str, Any]:
    """The scenario with the catalog device's ``total_memory_bytes`` replaced."""
    out = dict(scenario)
    out["catalog"] = copy_json(dict(scenario["catalog"]))
    out["catalog"]["device"]["total_memory_bytes"] = total_memory_bytes
    return out


def with_estimates(
    scenario: Mapping[str, Any],
    *,
    scratch: int | None = None,
    persistent: int | None = None,
    behavior: str | None = None,
    scratch_by_node: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Every declared estimator of the registry with these sizes / behaviour.

    ``scratch_by_node`` switches the estimators to per-node fixed scratch (the seed's
    ``SequentialScratchEstimator``); ``scratch`` or ``behavior`` switch them back to the
    declared behaviour (``{}`` per-node map). The other sections are shared with ``scenario``.
    """
    out = dict(scenario)
    out["registry"] = copy_json(dict(scenario["registry"]))
    for spec in out["registry"]["estimators"]:
        if scratch is not None:
            spec["scratch_bytes"] = scratch
            spec.pop("scratch_bytes_by_node", None)
        if persistent is not None:
            spec["persistent_bytes"] = persistent
        if behavior is not None:
            spec["behavior"] = behavior
            spec.pop("scratch_bytes_by_node", None)
        if scratch_by_node is not None:
            spec["scratch_bytes_by_node"] = dict(sorted(scratch_by_node.items()))
    return out


#: The zero-fill blocked layout ``blocked_input_scenario`` gives ``value.input`` (``[4]`` f32 in blocks of 3:
#: a padded grid of 6 elements, 24 bytes), and its layout class (05 §7.2: the padding kind, not its dimensions).
BLOCKED_INPUT_LAYOUT: Final = {
    "blocked": {"block": [3], "axis_order": [0], "padding": {"zero_fill": {"physical_dimensions": [6]}}}
}
BLOCKED_INPUT_LAYOUT_CLASS: Final = {"blocked": {"block": [3], "axis_order": [0], "padding": "zero_fill"}}


def blocked_input_scenario() -> dict[str, Any]:
    """``plan_fixture`` whose ``operation.main`` takes input 0 in ``blocked([3], [0])`` layout and whose
    ``value.input`` binding is the zero-fill padded ``BLOCKED_INPUT_LAYOUT`` on 24 bytes of its resource."""
    op = catalogs.operation()
    inputs = (replace(op.inputs[0], layouts=(BlockedLayout((3,), (0,)),)), *op.inputs[1:])
    catalog = catalogs.catalog_with_operation(replace(op, inputs=inputs))
    scenario = base_scenario("plan_fixture")
    scenario["catalog"] = catalog_to_document(catalog)
    scenario["registry"] = catalogs.planning_document(catalog).to_wire()
    (binding,) = (v for v in scenario["resolutions"][0]["values"] if v["value_id"] == "value.input")
    binding["tensor"]["layout"] = copy_json(BLOCKED_INPUT_LAYOUT)
    binding["storage"]["components"][0]["length_bytes"] = 24
    return scenario


# --------------------------------------------------------------------------- budget cases


@dataclass(frozen=True, slots=True)
class BudgetCase:
    """A base scenario with drawn policy numbers and workspace sizes (the reference decides acceptance)."""

    base: str
    knobs: Knobs
    scratch: tuple[int, ...]
    persistent: int
    scenario: dict[str, Any] = field(repr=False, compare=False)

    @property
    def label(self) -> str:
        k = self.knobs
        return (
            f"{self.base}(cap={k.capacity}, res={k.reserve}, mas={k.sequences}, mst={k.tokens}, "
            f"scratch={list(self.scratch)}, persistent={self.persistent})"
        )


def _scratch_map(base: str, scratch: Sequence[int]) -> dict[str, int]:
    return dict(zip(NODE_IDS[base], scratch, strict=True))


def make_budget_case(
    base: str, knobs: Knobs, scratch: Sequence[int], persistent: int, *, device: int | None = None
) -> BudgetCase:
    """Apply the knobs to the base (per-node scratch for every base: one size per program node)."""
    scenario = with_policy(
        base_scenario(base),
        capacity=knobs.capacity,
        reserve=knobs.reserve,
        sequences=knobs.sequences,
        tokens=knobs.tokens,
    )
    scenario = with_estimates(scenario, persistent=persistent, scratch_by_node=_scratch_map(base, scratch))
    if device is not None:
        scenario = with_device_memory(scenario, device)
    return BudgetCase(base, knobs, tuple(scratch), persistent, scenario)


@reusable
@st.composite
def budget_cases(
    draw: st.DrawFn,
    bases: Sequence[str] = BASES,
    *,
    max_usable: int = 4096,
    max_sequences: int = 8,
) -> BudgetCase:
    """A base with a seed-shaped policy whose usable bytes are drawn in ``1..max_usable``.

    Capacity stays within the seed device (1 MiB), so only the budget (I4/I5) decides.
    """
    base = draw(st.sampled_from(tuple(bases)))
    reserve = draw(st.one_of(st.sampled_from((0, 128)), st.integers(0, 4096)))
    usable = draw(st.integers(1, max_usable))
    sequences = draw(st.integers(1, max_sequences))
    tokens = draw(st.one_of(st.sampled_from((4096, 1)), st.integers(1, 1 << 20)))
    scratch = draw(st.lists(st.integers(1, 256), min_size=len(NODE_IDS[base]), max_size=len(NODE_IDS[base])))
    persistent = draw(st.integers(1, 128))
    return make_budget_case(base, Knobs(reserve + usable, reserve, sequences, tokens), scratch, persistent)


@reusable
@st.composite
def scratch_cases(draw: st.DrawFn, bases: Sequence[str] = MULTI_NODE_BASES) -> BudgetCase:
    """A multi-node base with per-node scratch sizes and a roomy seed policy (capacity 1 MiB)."""
    base = draw(st.sampled_from(tuple(bases)))
    scratch = draw(st.lists(st.integers(1, 512), min_size=len(NODE_IDS[base]), max_size=len(NODE_IDS[base])))
    return make_budget_case(base, Knobs(1 << 20, 128, 3, 4096), scratch, 32)


@reusable
@st.composite
def sequence_pairs(draw: st.DrawFn, bases: Sequence[str] = BASES) -> tuple[BudgetCase, BudgetCase]:
    """The same base and workspaces under two ``maximum_active_sequences`` values (roomy capacity)."""
    base = draw(st.sampled_from(tuple(bases)))
    first, second = draw(st.lists(st.one_of(st.integers(1, 64), st.just(U32_MAX)), min_size=2, max_size=2))
    scratch = draw(st.lists(st.integers(1, 256), min_size=len(NODE_IDS[base]), max_size=len(NODE_IDS[base])))
    persistent = draw(st.integers(1, 128))

    def case(sequences: int) -> BudgetCase:
        return make_budget_case(base, Knobs(1 << 20, 128, sequences, 4096), scratch, persistent)

    return case(first), case(second)


# --------------------------------------------------------------------------- u64 edges

#: The u64/u32 edge classes ``edge_cases`` draws from. Out-of-range integers stay within the
#: i64/u64 JSON range (negative, or a u64 in a u32 field): the harness protocol (orjson)
#: cannot carry integers beyond u64, so such documents could not reach an ``exec:`` backend.
EDGE_KINDS: Final = (
    "capacity_at_u64_max",
    "reserve_just_below_capacity",
    "reserve_at_capacity",
    "capacity_negative",
    "capacity_over_device",
    "sequences_at_u32_max",
    "sequences_over_u32",
    "tokens_at_u64_max",
    "token_scratch_overflow",
    "scratch_at_u64_max",
    "persistent_at_u64_max",
    "zero_scratch",
    "device_at_u64_max",
)


@dataclass(frozen=True, slots=True)
class EdgeCase:
    """A scenario at a numeric edge; the outcome must be a plan or a typed error, as the reference says."""

    edge: str
    base: str
    values: Mapping[str, int]
    scenario: dict[str, Any] = field(repr=False, compare=False)


def _near(top: int) -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from((top, top - 1, top - 15, top // 2 + 1)), st.integers(top - 4096, top))


@reusable
@st.composite
def edge_cases(draw: st.DrawFn, edges: Sequence[str] = EDGE_KINDS, bases: Sequence[str] = BASES) -> EdgeCase:
    """One edge class applied to a base (the device grows to ``u64::MAX`` where the policy needs it)."""
    edge = draw(st.sampled_from(tuple(edges)))
    base = draw(st.sampled_from(tuple(bases)))
    scenario = base_scenario(base)
    values: dict[str, int] = {}
    huge = with_device_memory(scenario, U64_MAX)
    if edge == "capacity_at_u64_max":
        values = {"capacity": draw(_near(U64_MAX)), "reserve": draw(st.sampled_from((0, 128, 1 << 63)))}
        scenario = with_policy(huge, **values)
    elif edge == "reserve_just_below_capacity":
        capacity = draw(_near(U64_MAX))
        values = {"capacity": capacity, "reserve": capacity - draw(st.integers(1, 512))}
        scenario = with_policy(huge, **values)
    elif edge == "reserve_at_capacity":
        capacity = draw(_near(U64_MAX))
        values = {"capacity": capacity, "reserve": capacity + draw(st.integers(0, U64_MAX - capacity))}
        scenario = with_policy(huge, **values)
    elif edge == "capacity_negative":
        values = {"capacity": -draw(st.one_of(st.just(1), st.integers(1, 1 << 63)))}
        scenario = with_policy(huge, **values)
    elif edge == "capacity_over_device":
        values = {"capacity": (1 << 20) + draw(st.one_of(st.just(1), st.integers(1, U64_MAX - (1 << 20))))}
        scenario = with_policy(scenario, **values)
    elif edge == "sequences_at_u32_max":
        values = {"capacity": U64_MAX, "sequences": draw(_near(U32_MAX))}
        scenario = with_policy(huge, **values)
    elif edge == "sequences_over_u32":
        values = {"sequences": U32_MAX + draw(st.integers(1, 1 << 32))}
        scenario = with_policy(scenario, **values)
    elif edge == "tokens_at_u64_max":
        values = {"tokens": draw(_near(U64_MAX))}
        scenario = with_policy(scenario, **values)
    elif edge == "token_scratch_overflow":
        values = {"tokens": draw(_near(U64_MAX)), "scratch": draw(st.integers(2, 4096))}
        scenario = with_estimates(
            with_policy(scenario, tokens=values["tokens"]), scratch=values["scratch"], behavior="token_scaled_scratch"
        )
    elif edge == "scratch_at_u64_max":
        values = {"scratch": draw(_near(U64_MAX))}
        scenario = with_estimates(scenario, scratch_by_node=dict.fromkeys(NODE_IDS[base], values["scratch"]))
    elif edge == "persistent_at_u64_max":
        values = {"persistent": draw(_near(U64_MAX))}
        scenario = with_estimates(scenario, persistent=values["persistent"])
    elif edge == "zero_scratch":
        values = {"scratch": 0}
        scenario = with_estimates(scenario, scratch_by_node=dict.fromkeys(NODE_IDS[base], 0))
    elif edge == "device_at_u64_max":
        values = {"device": U64_MAX, "capacity": draw(_near(U64_MAX))}
        scenario = with_policy(huge, capacity=values["capacity"])
    else:
        raise ValueError(f"unknown edge {edge!r}")
    return EdgeCase(edge, base, values, scenario)


# --------------------------------------------------------------------------- estimators and registries


def estimator_cases(
    bases: Sequence[str] = ("plan_fixture", "graph_alias", "graph_state_chain"),
) -> st.SearchStrategy[tuple[str, str, int, dict[str, Any]]]:
    """``(base, behaviour, scratch bytes, scenario)``: every estimator of the base declares one behaviour."""

    def build(base: str, behavior: str, scratch: int) -> tuple[str, str, int, dict[str, Any]]:
        return base, behavior, scratch, with_estimates(base_scenario(base), scratch=scratch, behavior=behavior)

    return st.builds(
        build, st.sampled_from(tuple(bases)), st.sampled_from(tuple(ESTIMATE_BEHAVIORS)), st.integers(1, 256)
    )


#: Registry faults (04 §9 steps 7 and 13d; the registry document of ``reference/documents/registry.py``).
REGISTRY_FAULTS: Final = (
    "missing_contract",
    "duplicate_contract",
    "rejected_signature",
    "missing_estimator",
    "duplicate_estimator",
    "estimator_for_unknown_provider",
    "contract_for_unknown_operation",
)


def registry_fault(base: str, fault: str) -> dict[str, Any]:
    """The base scenario with its planning registry broken by ``fault``.

    The *last* contract / estimator is the one removed; ``plan_fixture`` (one of each) and
    ``graph_state_chain`` (last = ``state-rw``) use it, other graph bases may not."""
    scenario = base_scenario(base)
    registry: dict[str, Any] = scenario["registry"]
    contracts: list[dict[str, JsonValue]] = registry["contracts"]
    estimators: list[dict[str, JsonValue]] = registry["estimators"]
    if fault == "missing_contract":
        registry["contracts"] = contracts[:-1]
    elif fault == "duplicate_contract":
        registry["contracts"] = [contracts[0], *contracts]
    elif fault == "rejected_signature":
        registry["contracts"] = [{**c, "reject_signature": True} for c in contracts]
    elif fault == "missing_estimator":
        registry["estimators"] = estimators[:-1]
    elif fault == "duplicate_estimator":
        registry["estimators"] = [estimators[0], *estimators]
    elif fault == "estimator_for_unknown_provider":
        registry["estimators"] = [{**estimators[0], "provider_id": "provider.operation.unknown"}, *estimators[1:]]
    elif fault == "contract_for_unknown_operation":
        registry["contracts"] = [{**contracts[0], "operation_id": "operation.unknown"}, *contracts[1:]]
    else:
        raise ValueError(f"unknown registry fault {fault!r}")
    return scenario
