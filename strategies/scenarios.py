"""Whole scenario documents valid by construction (their respellings and semantic changes are
``strategies.respellings`` and ``strategies.semantic_changes``).

* ``ScenarioCase``: a scenario document plus the small parameters it was built from
  (so a failing example reads as ``plan_fixture(behavior=correct, ...)``).
* Shapes: ``plan_fixture_cases`` (the seed plan fixture with generated resource ids,
  policy, accepted estimator behaviour and sizes, provider catalog, capabilities,
  materializers and preferred provider), ``chain_cases`` (``seeds/chain.py``'s
  linear chain with a generated length, ``target``-guided towards longer chains),
  ``graph_cases`` (the GraphFamily scenarios the reference builds),
  ``sequential_scratch_cases`` and ``weights_cases`` (plans built with seed 002's
  schema-changing materializers, and dense bindings inside a container weight format,
  seed-fixed or generated); ``scenario_cases`` draws any of them.
  ``container_format_cases(quantized=True)`` draws container bindings with quantized
  components, which a dense-only provider refuses (``unsupported_operation``).

Every builder returns a fresh document.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from hypothesis import strategies as st

from reference.canonical import JsonValue
from reference.catalog.storage import DynamicStorageProfile
from reference.documents.family import document_for
from reference.documents.policy import policy_to_document
from reference.model.registration import TypedFamilyRegistration
from reference.model.weight_schema import WeightSchema
from seeds.catalogs import catalog, catalog_with_secondary_provider
from seeds.chain import ChainFamily, chain_values
from seeds.families import seed_family_document, seed_raw_config
from seeds.policies import policy as seed_policy
from seeds.scenarios import (
    WEIGHT_MATERIALIZER_PLANS,
    _resolution,
    container_format_scenario,
    graph_scenario,
    plan_fixture_scenario,
    seed_scenario,
    sequential_scratch_scenario,
    weight_schema_scenario,
    weights_plan_scenario,
)
from strategies._guide import guide
from strategies._reuse import reusable
from strategies.ids import hex_digests, id_strings
from strategies.policy import policy_fields
from strategies.storage import storage_profiles
from strategies.weights import container_weight_schemas

__all__ = [
    "ACCEPTED_BEHAVIORS",
    "BUILDABLE_GRAPHS",
    "SHAPES",
    "WEIGHT_PLANS",
    "PlanFixtureParams",
    "Draw",
    "Scenario",
    "ScenarioCase",
    "chain_case",
    "chain_cases",
    "container_format_case",
    "container_format_cases",
    "graph_case",
    "graph_cases",
    "plan_fixture_case",
    "plan_fixture_cases",
    "planning_policies",
    "rich_fixture_case",
    "scenario_cases",
    "sequential_scratch_case",
    "sequential_scratch_cases",
    "weights_case",
    "weights_cases",
]

Scenario = dict[str, Any]
#: ``draw`` of a composite strategy or of ``st.data()``.
Draw = Callable[[st.SearchStrategy[Any]], Any]

SHAPES: Final = ("plan_fixture", "chain", "graph", "sequential_scratch", "weights")
#: Fixed weight shapes: seed 002's schema-changing materializers and the seed mixed-gptq container.
WEIGHT_PLANS: Final = (*WEIGHT_MATERIALIZER_PLANS, "mixed_gptq_dense")
#: Estimate behaviours the plan build accepts (the other six are rejected, 04 §8).
ACCEPTED_BEHAVIORS: Final = ("correct", "arena_alignment64", "token_scaled_scratch")
#: GraphFamily (scenario, alias variant) pairs the reference builds (05 §5.3; the rest are rejections).
BUILDABLE_GRAPHS: Final = (
    ("state_chain", "must_alias_exact"),
    ("state_read_only", "must_alias_exact"),
    ("alias", "must_alias_exact"),
    ("alias", "may_alias_exact"),
    ("alias", "may_alias_distinct"),
    ("alias_late_consumer", "may_alias_distinct"),
)
_DEVICE_BYTES: Final = 1 << 20
_LINEAR: Final = DynamicStorageProfile.linear_contiguous()
_SEED_RESOURCES: Final = ("resource.input.0", "resource.weight.0", "resource.state.0", "resource.output.0")


@dataclass(frozen=True, slots=True)
class ScenarioCase:
    """A scenario document the reference builds, and the parameters it came from."""

    shape: str
    params: Mapping[str, JsonValue]
    scenario: Scenario

    @property
    def label(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.params.items() if k != "policy")
        return f"{self.shape}({inner})"


# --------------------------------------------------------------------------- policies


@reusable
@st.composite
def planning_policies(draw: st.DrawFn, *, device_bytes: int = _DEVICE_BYTES) -> dict[str, JsonValue]:
    """A ``resolved_fields`` policy document that fits the seed devices and every seed-shaped scenario.

    Capacity in [64 KiB, device], reserve <= 4 KiB, 1..8 sequences, 1..65536 tokens; the
    profile order always holds linear/contiguous (the seed devices' only profile) at a drawn
    position among up to two other profiles.
    """
    capacity = draw(st.one_of(st.just(device_bytes), st.integers(1 << 16, device_bytes)))
    reserve = draw(st.one_of(st.sampled_from((0, 128)), st.integers(0, 1 << 12)))
    sequences = draw(st.integers(1, 8))
    tokens = draw(st.one_of(st.sampled_from((4096, 1)), st.integers(1, 1 << 16)))
    others = draw(
        st.lists(storage_profiles(), max_size=2, unique_by=lambda p: p.sort_key()).map(
            lambda ps: [p for p in ps if p != _LINEAR]
        )
    )
    position = draw(st.integers(0, len(others)))
    order = [p.to_wire() for p in [*others[:position], _LINEAR, *others[position:]]]
    fields = draw(
        policy_fields(
            capacity=capacity, reserve=reserve, sequences=sequences, tokens=tokens, profiles=order, reusable=False
        )
    )
    return {"kind": "resolved_fields", "fields": fields}


# --------------------------------------------------------------------------- plan fixture


@dataclass(frozen=True, slots=True)
class PlanFixtureParams:
    """The knobs of a plan-fixture scenario (defaults = seed ``plan_fixture(0)`` with ``policy(4096)``)."""

    family: str = "test"
    reverse_sources: bool = False
    resources: tuple[str, str, str, str] = _SEED_RESOURCES
    providers: str = "single"
    extra_capabilities: tuple[str, ...] = ()
    required_capabilities: tuple[str, ...] = ()
    materializers: tuple[tuple[str, str, str], ...] = ()
    behavior: str = "correct"
    scratch_bytes: int = 64
    persistent_bytes: int = 32
    preferred_provider: str | None = None
    policy: Mapping[str, JsonValue] | None = None
    completion_retention: tuple[str, ...] = ()

    def summary(self) -> dict[str, JsonValue]:
        return {
            "family": self.family + ("/reverse_sources" if self.reverse_sources else ""),
            "providers": self.providers,
            "behavior": self.behavior,
            "scratch": self.scratch_bytes,
            "persistent": self.persistent_bytes,
            "preferred": self.preferred_provider,
            "capabilities": len(self.extra_capabilities),
            "materializers": len(self.materializers),
        }


def plan_fixture_case(params: PlanFixtureParams) -> ScenarioCase:
    """Seed ``plan_fixture`` assembled from ``params`` (a pure function of them)."""
    cat = catalog_with_secondary_provider() if params.providers == "secondary" else catalog()
    scenario: Scenario = plan_fixture_scenario(
        0,
        name="plan_fixture",
        catalog_value=cat,
        behavior=params.behavior,
        scratch_bytes=params.scratch_bytes,
        persistent_bytes=params.persistent_bytes,
        preferred_provider=params.preferred_provider,
    )
    if params.family != "test":
        family_params = {"reverse_sources": params.reverse_sources}
        scenario["family"]["document"] = seed_family_document(params.family, **family_params)
        scenario["family"]["raw_config"] = seed_raw_config(params.family, **family_params)
    renames = dict(zip(_SEED_RESOURCES, params.resources, strict=True))
    for value in scenario["resolutions"][0]["values"]:
        for component in value["storage"]["components"]:
            component["resource_id"] = renames[component["resource_id"]]
    document = scenario["catalog"]
    if params.extra_capabilities:
        document["device"]["capabilities"] = sorted([*document["device"]["capabilities"], *params.extra_capabilities])
        for rows in document["providers"].values():
            for row in rows:
                row["capabilities"] = sorted([*row["capabilities"], *params.extra_capabilities])
    scenario["resolutions"][0]["required_capabilities"] = sorted(params.required_capabilities)
    for materializer_id, digest, fidelity in params.materializers:
        document["weight_materializers"][materializer_id] = {
            "id": materializer_id,
            "version": {"major": 1, "minor": 0},
            "implementation_fingerprint": digest,
            "fidelity": fidelity,
            "required_capabilities": [],
        }
    if params.policy is not None:
        scenario["policy"] = copy.deepcopy(dict(params.policy))
    scenario["completion_retention"] = list(params.completion_retention)
    return ScenarioCase("plan_fixture", params.summary(), scenario)


@reusable
@st.composite
def plan_fixture_cases(draw: st.DrawFn, *, family: str | None = None) -> ScenarioCase:
    """Plan-fixture scenarios; ``family`` pins ``test`` or ``ordered_schema``."""
    family_name = draw(st.sampled_from(("test", "ordered_schema"))) if family is None else family
    reverse_sources = family_name == "ordered_schema" and draw(st.booleans())
    # Distinct by construction (an index suffix), so nothing is filtered.
    resources = [f"{rid}.{k}" for k, rid in enumerate(draw(st.lists(id_strings("resource"), min_size=4, max_size=4)))]
    providers = draw(st.sampled_from(("single", "secondary")))
    extra = [f"{cap}.{k}" for k, cap in enumerate(draw(st.lists(id_strings("capability.extra"), max_size=2)))]
    required = sorted(draw(st.sets(st.sampled_from(["capability.compute", *extra]))))
    materializers = [
        (f"{mid}.{k}", digest, fidelity)
        for k, (mid, digest, fidelity) in enumerate(
            draw(
                st.lists(
                    st.tuples(
                        id_strings("weight-materializer"), hex_digests(), st.sampled_from(("exact", "approximate"))
                    ),
                    max_size=2,
                )
            )
        )
    ]
    registered = ["provider.operation.reference"] + (
        ["provider.operation.secondary"] if providers == "secondary" else []
    )
    preferred = draw(st.one_of(st.none(), st.sampled_from(registered), id_strings("provider.unregistered")))
    params = PlanFixtureParams(
        family=family_name,
        reverse_sources=reverse_sources,
        resources=(resources[0], resources[1], resources[2], resources[3]),
        providers=providers,
        extra_capabilities=tuple(extra),
        required_capabilities=tuple(required),
        materializers=tuple(materializers),
        behavior=draw(st.sampled_from(ACCEPTED_BEHAVIORS)),
        scratch_bytes=draw(st.one_of(st.just(64), st.integers(1, 256))),
        persistent_bytes=draw(st.one_of(st.just(32), st.integers(1, 256))),
        preferred_provider=preferred,
        policy=draw(planning_policies()),
        completion_retention=tuple(draw(st.lists(st.just("value.output"), max_size=1))),
    )
    return plan_fixture_case(params)


def rich_fixture_case() -> ScenarioCase:
    """A fixed plan-fixture scenario on which every respelling and semantic change applies (the matrix base)."""
    policy = {
        "kind": "resolved_fields",
        "fields": {
            "policy_id": "runtime-policy.test",
            "version": {"major": 1, "minor": 0},
            "scheduling": "first_ready",
            "memory": {
                "capacity_bytes": 1 << 16,
                "reserve_bytes": 128,
                "maximum_active_sequences": 3,
                "dynamic_storage_profile_order": [
                    _LINEAR.to_wire(),
                    DynamicStorageProfile.paged(4096).to_wire(),
                ],
            },
            "admission": {
                "maximum_queue_depth": 8,
                "maximum_scheduled_tokens": 4096,
                "sequence_fit_policy": "immediate_only",
                "allow_defer": True,
                "cancellation_check_interval_steps": 1,
            },
            "attention_execution": "portable",
            "execution_determinism": "bitwise_same_runtime_with_replay",
            "reusable_execution": None,
        },
    }
    return plan_fixture_case(
        PlanFixtureParams(
            family="ordered_schema",
            resources=("resource.a", "resource.b", "resource.c", "resource.d"),
            providers="secondary",
            extra_capabilities=("capability.extra.a", "capability.extra.b"),
            required_capabilities=("capability.compute", "capability.extra.a", "capability.extra.b"),
            materializers=(
                ("weight-materializer.a", "a" * 64, "exact"),
                ("weight-materializer.b", "b" * 64, "approximate"),
            ),
            policy=policy,
        )
    )


# --------------------------------------------------------------------------- chains, graphs, sequential


@cache
def _chain_parts(node_count: int) -> tuple[dict[str, JsonValue], tuple[dict[str, JsonValue], ...]]:

    provider = ChainFamily(node_count)
    family = TypedFamilyRegistration(provider).prepare_with_profile({"width": 4}, "fixture.f32")
    document = document_for(provider, {"width": 4}, (("width", "u64"),), "config")
    resolutions = tuple(_resolution(f"node.{k:05d}", chain_values(k, node_count, family)) for k in range(node_count))
    return document, resolutions


def chain_case(
    node_count: int, policy: Mapping[str, JsonValue] | None = None, retention: tuple[str, ...] = ()
) -> ScenarioCase:
    """``ChainFamily(node_count)`` as a scenario (seed catalog and registry; ``policy(1 MiB)`` by default)."""

    document, resolutions = _chain_parts(node_count)
    scenario = seed_scenario(f"chain_{node_count}", resolutions=copy.deepcopy(list(resolutions)))
    scenario["family"]["document"] = copy.deepcopy(document)
    scenario["family"]["raw_config"] = {"width": 4}
    scenario["policy"] = copy.deepcopy(dict(policy)) if policy else policy_to_document(seed_policy(_DEVICE_BYTES))
    scenario["completion_retention"] = list(retention)
    return ScenarioCase("chain", {"nodes": node_count, "retained": len(retention)}, scenario)


@reusable
@st.composite
def chain_cases(draw: st.DrawFn, *, max_nodes: int = 6, guided: bool = False) -> ScenarioCase:
    """Linear chains of 1..``max_nodes`` nodes; ``guided`` asks ``target`` for longer chains (decision D-07H-5)."""
    count = draw(st.integers(1, max_nodes))
    if guided:
        guide(float(count), "chain node count")
    outputs = [f"value.chain.{k:05d}" for k in range(count - 1)] + ["value.output"]
    retention = draw(st.lists(st.sampled_from(outputs), max_size=2, unique=True))
    policy = draw(st.one_of(st.none(), planning_policies()))
    return chain_case(count, policy, tuple(retention))


def graph_case(scenario: str, alias_variant: str, policy: Mapping[str, JsonValue] | None = None) -> ScenarioCase:
    """A buildable GraphFamily scenario (``BUILDABLE_GRAPHS``), optionally with another policy."""

    document = graph_scenario(scenario, alias_variant)
    if policy is not None:
        document["policy"] = copy.deepcopy(dict(policy))
    return ScenarioCase("graph", {"scenario": scenario, "alias": alias_variant}, document)


@reusable
@st.composite
def graph_cases(draw: st.DrawFn) -> ScenarioCase:
    name, variant = draw(st.sampled_from(BUILDABLE_GRAPHS))
    return graph_case(name, variant, draw(st.one_of(st.none(), planning_policies())))


def sequential_scratch_case(policy: Mapping[str, JsonValue] | None = None) -> ScenarioCase:
    """Seed SequentialScratchFamily (scratch 64 then 96), optionally with another policy."""

    document = sequential_scratch_scenario()
    if policy is not None:
        document["policy"] = copy.deepcopy(dict(policy))
    return ScenarioCase("sequential_scratch", {"seed_policy": policy is None}, document)


def sequential_scratch_cases() -> st.SearchStrategy[ScenarioCase]:
    return st.one_of(st.none(), planning_policies()).map(sequential_scratch_case)


# --------------------------------------------------------------------------- weights and container formats


def _with_policy_and_retention(
    scenario: Scenario, policy: Mapping[str, JsonValue] | None, retention: tuple[str, ...]
) -> Scenario:
    if policy is not None:
        scenario["policy"] = copy.deepcopy(dict(policy))
    scenario["completion_retention"] = list(retention)
    return scenario


def weights_case(
    kind: str, policy: Mapping[str, JsonValue] | None = None, retention: tuple[str, ...] = ()
) -> ScenarioCase:
    """A ``WEIGHT_PLANS`` scenario: ``padded_dense`` / ``derived_components`` (built with that selected
    materializer, bindings for its execution schema) or ``mixed_gptq_dense`` (a dense container binding)."""
    scenario = container_format_scenario(kind) if kind == "mixed_gptq_dense" else weights_plan_scenario(kind)
    scenario = _with_policy_and_retention(scenario, policy, retention)
    return ScenarioCase("weights", {"weights": kind, "retained": len(retention)}, scenario)


def container_format_case(
    schema: WeightSchema, policy: Mapping[str, JsonValue] | None = None, retention: tuple[str, ...] = ()
) -> ScenarioCase:
    """``plan_fixture(0)`` over a TestFamily whose ``weight.matrix`` has ``schema``'s layout and container format."""
    scenario = _with_policy_and_retention(weight_schema_scenario("container_format", schema, None), policy, retention)
    quantized = bool(schema.quantization_formats())
    params: dict[str, JsonValue] = {"format": schema.format_id.value, "quantized": quantized}
    return ScenarioCase("weights", params, scenario)


@reusable
@st.composite
def container_format_cases(draw: st.DrawFn, *, quantized: bool = False) -> ScenarioCase:
    """Generated container-format bindings (``strategies.weights.container_weight_schemas``)."""
    schema = draw(container_weight_schemas(quantized=quantized))
    retention = tuple(draw(st.lists(st.just("value.output"), max_size=1)))
    return container_format_case(schema, draw(st.one_of(st.none(), planning_policies())), retention)


@reusable
@st.composite
def weights_cases(draw: st.DrawFn) -> ScenarioCase:
    """A fixed ``WEIGHT_PLANS`` scenario or a generated dense container binding, with a drawn policy and retention."""
    kind = draw(st.sampled_from([*WEIGHT_PLANS, "generated_container"]))
    if kind == "generated_container":
        return draw(container_format_cases())
    retention = tuple(draw(st.lists(st.just("value.output"), max_size=1)))
    return weights_case(kind, draw(st.one_of(st.none(), planning_policies())), retention)


def scenario_cases(*, max_chain: int = 4, guided: bool = False) -> st.SearchStrategy[ScenarioCase]:
    """Any seed-shaped scenario the reference builds (``guided``: see ``chain_cases``)."""
    return st.one_of(
        plan_fixture_cases(),
        chain_cases(max_nodes=max_chain, guided=guided),
        graph_cases(),
        sequential_scratch_cases(),
        weights_cases(),
    )
