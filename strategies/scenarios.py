"""Whole scenario documents valid by construction, their cosmetic respellings and semantic changes.

* ``ScenarioCase``: a scenario document plus the small parameters it was built from
  (so a failing example reads as ``plan_fixture(behavior=correct, ...)``).
* Shapes: ``plan_fixture_cases`` (the seed plan fixture with generated resource ids,
  policy, accepted estimator behaviour and sizes, provider catalog, capabilities,
  materializers and preferred provider), ``chain_cases`` (``seeds/chain.py``'s
  linear chain with a generated length, ``target``-guided towards longer chains),
  ``graph_cases`` (the GraphFamily scenarios the reference builds) and
  ``sequential_scratch_cases``; ``scenario_cases`` draws any of them.
* ``RESPELLINGS``: order-insensitive rewrites (catalog / registry / resolution /
  weight-schema / materializer-map / set-array / JSON key order, policy document
  kind) that must keep the plan hash; ``SEMANTIC_CHANGES``: input changes (family
  config, program, catalog, device runtime fingerprint, policy, policy version,
  resolutions, ...) that must change it (contract 01 §"Plan stability", 05 §8.2, 02 §12.1).

Respellings take a *shuffler* (a function returning a permutation of a list) so the
same rule serves Hypothesis (``respelled``) and the deterministic sensitivity matrix
(``reverse_shuffler``). Every builder returns a fresh document (inputs are never mutated).
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
from strategies._guide import guide
from strategies.ids import hex_digests, id_strings
from strategies.policy import policy_fields
from strategies.storage import storage_profiles

__all__ = [
    "ACCEPTED_BEHAVIORS",
    "BUILDABLE_GRAPHS",
    "RESPELLINGS",
    "SEMANTIC_CHANGES",
    "SHAPES",
    "PlanFixtureParams",
    "Respelling",
    "ScenarioCase",
    "SemanticChange",
    "Shuffler",
    "chain_case",
    "chain_cases",
    "graph_case",
    "graph_cases",
    "plan_fixture_case",
    "plan_fixture_cases",
    "planning_policies",
    "respelled",
    "reverse_shuffler",
    "rich_fixture_case",
    "scenario_cases",
    "semantically_changed",
    "sequential_scratch_case",
    "sequential_scratch_cases",
]

Scenario = dict[str, Any]
Shuffler = Callable[[list[Any]], list[Any]]
#: ``draw`` of a composite strategy or of ``st.data()``.
Draw = Callable[[st.SearchStrategy[Any]], Any]

SHAPES: Final = ("plan_fixture", "chain", "graph", "sequential_scratch")
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


@dataclass(frozen=True, slots=True)
class Respelling:
    """``scenario`` spells ``original`` differently where the contract ignores order: same plan hash."""

    operator: str
    rule: str
    original: Scenario
    scenario: Scenario


@dataclass(frozen=True, slots=True)
class SemanticChange:
    """``scenario`` changes the ``input`` of ``original``: the plan hash must change."""

    operator: str
    input: str
    rule: str
    original: Scenario
    scenario: Scenario


# --------------------------------------------------------------------------- policies


@st.composite
def planning_policies(draw: st.DrawFn, *, device_bytes: int = _DEVICE_BYTES) -> dict[str, JsonValue]:
    """A ``resolved_fields`` policy document that fits the seed devices and every seed-shaped scenario.

    Capacity in [64 KiB, device], reserve <= 4 KiB, 1..8 sequences, 1..65536 tokens; the
    profile order always holds linear/contiguous (the seed devices' only profile) at a drawn
    position among up to two other profiles.
    """
    capacity = draw(st.one_of(st.just(device_bytes), st.integers(1 << 16, device_bytes)))
    reserve = draw(st.one_of(st.sampled_from([0, 128]), st.integers(0, 1 << 12)))
    sequences = draw(st.integers(1, 8))
    tokens = draw(st.one_of(st.sampled_from([4096, 1]), st.integers(1, 1 << 16)))
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
    from seeds.catalogs import catalog, catalog_with_secondary_provider
    from seeds.families import seed_family_document, seed_raw_config
    from seeds.scenarios import plan_fixture_scenario

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


@st.composite
def plan_fixture_cases(draw: st.DrawFn, *, family: str | None = None) -> ScenarioCase:
    """Plan-fixture scenarios; ``family`` pins ``test`` or ``ordered_schema``."""
    family_name = draw(st.sampled_from(["test", "ordered_schema"])) if family is None else family
    reverse_sources = family_name == "ordered_schema" and draw(st.booleans())
    # Distinct by construction (an index suffix), so nothing is filtered.
    resources = [f"{rid}.{k}" for k, rid in enumerate(draw(st.lists(id_strings("resource"), min_size=4, max_size=4)))]
    providers = draw(st.sampled_from(["single", "secondary"]))
    extra = [f"{cap}.{k}" for k, cap in enumerate(draw(st.lists(id_strings("capability.extra"), max_size=2)))]
    required = sorted(draw(st.sets(st.sampled_from(["capability.compute", *extra]))))
    materializers = [
        (f"{mid}.{k}", digest, fidelity)
        for k, (mid, digest, fidelity) in enumerate(
            draw(
                st.lists(
                    st.tuples(
                        id_strings("weight-materializer"), hex_digests(), st.sampled_from(["exact", "approximate"])
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
    from reference.documents.family import document_for
    from reference.model.registration import TypedFamilyRegistration
    from seeds.chain import ChainFamily, chain_values
    from seeds.scenarios import _resolution

    provider = ChainFamily(node_count)
    family = TypedFamilyRegistration(provider).prepare_with_profile({"width": 4}, "fixture.f32")
    document = document_for(provider, {"width": 4}, (("width", "u64"),), "config")
    resolutions = tuple(_resolution(f"node.{k:05d}", chain_values(k, node_count, family)) for k in range(node_count))
    return document, resolutions


def chain_case(
    node_count: int, policy: Mapping[str, JsonValue] | None = None, retention: tuple[str, ...] = ()
) -> ScenarioCase:
    """``ChainFamily(node_count)`` as a scenario (seed catalog and registry; ``policy(1 MiB)`` by default)."""
    from reference.documents.policy import policy_to_document
    from seeds.policies import policy as seed_policy
    from seeds.scenarios import seed_scenario

    document, resolutions = _chain_parts(node_count)
    scenario = seed_scenario(f"chain_{node_count}", resolutions=copy.deepcopy(list(resolutions)))
    scenario["family"]["document"] = copy.deepcopy(document)
    scenario["family"]["raw_config"] = {"width": 4}
    scenario["policy"] = copy.deepcopy(dict(policy)) if policy else policy_to_document(seed_policy(_DEVICE_BYTES))
    scenario["completion_retention"] = list(retention)
    return ScenarioCase("chain", {"nodes": node_count, "retained": len(retention)}, scenario)


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
    from seeds.scenarios import graph_scenario

    document = graph_scenario(scenario, alias_variant)
    if policy is not None:
        document["policy"] = copy.deepcopy(dict(policy))
    return ScenarioCase("graph", {"scenario": scenario, "alias": alias_variant}, document)


@st.composite
def graph_cases(draw: st.DrawFn) -> ScenarioCase:
    name, variant = draw(st.sampled_from(BUILDABLE_GRAPHS))
    return graph_case(name, variant, draw(st.one_of(st.none(), planning_policies())))


def sequential_scratch_case(policy: Mapping[str, JsonValue] | None = None) -> ScenarioCase:
    """Seed SequentialScratchFamily (scratch 64 then 96), optionally with another policy."""
    from seeds.scenarios import sequential_scratch_scenario

    document = sequential_scratch_scenario()
    if policy is not None:
        document["policy"] = copy.deepcopy(dict(policy))
    return ScenarioCase("sequential_scratch", {"seed_policy": policy is None}, document)


def sequential_scratch_cases() -> st.SearchStrategy[ScenarioCase]:
    return st.one_of(st.none(), planning_policies()).map(sequential_scratch_case)


def scenario_cases(*, max_chain: int = 4, guided: bool = False) -> st.SearchStrategy[ScenarioCase]:
    """Any seed-shaped scenario the reference builds (``guided``: see ``chain_cases``)."""
    return st.one_of(
        plan_fixture_cases(), chain_cases(max_nodes=max_chain, guided=guided), graph_cases(), sequential_scratch_cases()
    )


# --------------------------------------------------------------------------- respellings (cosmetic)


def reverse_shuffler(items: list[Any]) -> list[Any]:
    """The deterministic shuffler of the sensitivity matrix: reverse order."""
    return list(reversed(items))


def _shuffle_map(mapping: dict[str, Any], shuffle: Shuffler) -> dict[str, Any]:
    return {key: mapping[key] for key in shuffle(list(mapping))}


def _key_order(value: Any, shuffle: Shuffler) -> Any:
    if isinstance(value, dict):
        return {key: _key_order(value[key], shuffle) for key in shuffle(list(value))}
    if isinstance(value, list):
        return [_key_order(item, shuffle) for item in value]
    return value


def _catalog_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    document = s["catalog"]
    device = document["device"]
    device["capabilities"] = shuffle(device["capabilities"])
    device["dynamic_storage_profiles"] = shuffle(device["dynamic_storage_profiles"])
    for operation in document["operations"]:
        operation["provider"]["required_capabilities"] = shuffle(operation["provider"]["required_capabilities"])
        for contract in operation["inputs"] + operation["outputs"]:
            contract["element_types"] = shuffle(contract["element_types"])
            contract["layouts"] = shuffle(contract["layouts"])
        operation["attributes"]["entries"] = _shuffle_map(operation["attributes"]["entries"], shuffle)
    document["operations"] = shuffle(document["operations"])
    for key, rows in document["providers"].items():
        for row in rows:
            for name in ("capabilities", "accepted_weight_formats", "accepted_quantization_formats"):
                row[name] = shuffle(row[name])
        document["providers"][key] = shuffle(rows)
    document["providers"] = _shuffle_map(document["providers"], shuffle)
    for engine in document["engine_providers"]:
        engine["capabilities"] = shuffle(engine["capabilities"])
    document["engine_providers"] = shuffle(document["engine_providers"])
    return s


def _materializer_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    document = s["catalog"]
    document["weight_materializers"] = _shuffle_map(document["weight_materializers"], shuffle)
    for descriptor in document["weight_materializers"].values():
        descriptor["required_capabilities"] = shuffle(descriptor["required_capabilities"])
    return s


def _registry_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    s["registry"]["contracts"] = shuffle(s["registry"]["contracts"])
    s["registry"]["estimators"] = shuffle(s["registry"]["estimators"])
    return s


def _resolution_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    s["resolutions"] = shuffle(s["resolutions"])
    return s


def _schema_order(schema: dict[str, Any], shuffle: Shuffler) -> None:
    schema["components"] = shuffle(schema["components"])
    schema["tensors"] = shuffle(schema["tensors"])
    for tensor in schema["tensors"]:
        layout = tensor["physical_layout"]
        if isinstance(layout, dict) and "composite" in layout:
            layout["composite"]["parts"] = shuffle(layout["composite"]["parts"])


def _weight_schema_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    document = s["family"]["document"]
    _schema_order(document["weight_schema"], shuffle)
    for schema in document.get("specialized_weight_schemas", {}).values():
        _schema_order(schema, shuffle)
    return s


def _family_set_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    document = s["family"]["document"]
    document["external_metadata_ids"] = shuffle(document["external_metadata_ids"])
    return s


def _required_capability_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    for resolution in s["resolutions"]:
        resolution["required_capabilities"] = shuffle(resolution["required_capabilities"])
    return s


def _retention_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    s["completion_retention"] = shuffle(s["completion_retention"])
    return s


def _policy_document_kind(s: Scenario, shuffle: Shuffler) -> Scenario:
    """``resolved`` <-> ``resolved_fields``: the same ``ResolvedRuntimePolicy`` (its fingerprint is derived)."""
    del shuffle
    from reference.documents.policy import policy_from_document

    document = s["policy"]
    if document.get("kind") == "resolved":
        fields = {k: v for k, v in document["wire"].items() if k != "fingerprint"}
        s["policy"] = {"kind": "resolved_fields", "fields": fields}
    elif document.get("kind") == "resolved_fields":
        s["policy"] = {"kind": "resolved", "wire": policy_from_document(document).to_wire()}
    return s


def _json_key_order(s: Scenario, shuffle: Shuffler) -> Scenario:
    result: Scenario = _key_order(s, shuffle)
    return result


_Rewrite = Callable[[Scenario, Shuffler], Scenario]

#: operator -> (rule, rewrite). Every rewrite keeps the plan hash (and the wire bytes).
RESPELLINGS: Final[dict[str, tuple[str, _Rewrite]]] = {
    "json_key_order": (
        "01 §3.1: scenario documents are JSON objects; member order carries no meaning",
        _json_key_order,
    ),
    "catalog_order": (
        "03 §11 / D-07-8: catalog operations, providers, engines and identity sets are keyed, not ordered",
        _catalog_order,
    ),
    "materializer_map_order": (
        "03 §11.2 / 05 §10.4: the materializer descriptors are a map keyed by id",
        _materializer_order,
    ),
    "registry_order": ("04 §9: registry contracts and estimators are looked up by id", _registry_order),
    "resolution_order": ("05 §3 step 8: resolutions are indexed by node id", _resolution_order),
    "weight_schema_order": (
        "02 §8.8 / §12.1: define normalizes component, tensor and composite-part order (OrderedSchemaFamily)",
        _weight_schema_order,
    ),
    "family_set_order": ("02 §3: external metadata ids are a set", _family_set_order),
    "required_capability_order": ("04 §7: a resolution's required capabilities are a set", _required_capability_order),
    "completion_retention_order": ("05 §2: CompletionRetentionSpec.values is a BTreeSet", _retention_order),
    "policy_document_kind": (
        "04 §3: a resolved policy and its new() fields are the same policy (fingerprint derived)",
        _policy_document_kind,
    ),
}


def respelled(draw: Draw, original: Scenario, operator: str) -> Respelling:
    """Apply ``operator`` with Hypothesis-drawn permutations (call from inside a composite or ``data.draw``)."""

    def shuffle(items: list[Any]) -> list[Any]:
        return list(draw(st.permutations(items))) if len(items) > 1 else list(items)

    rule, rewrite = RESPELLINGS[operator]
    return Respelling(operator, rule, original, rewrite(copy.deepcopy(original), shuffle))


# --------------------------------------------------------------------------- semantic changes


def _other_hex(digest: str) -> str:
    return ("1" if digest[0] != "1" else "2") + digest[1:]


def _as_fields(s: Scenario) -> dict[str, Any] | None:
    """The policy's editable ``new`` fields (a ``resolved`` document is turned into ``resolved_fields``)."""
    document = s["policy"]
    if document.get("kind") == "resolved":
        s["policy"] = {
            "kind": "resolved_fields",
            "fields": {k: v for k, v in document["wire"].items() if k != "fingerprint"},
        }
    fields: dict[str, Any] | None = s["policy"].get("fields") if s["policy"].get("kind") == "resolved_fields" else None
    return fields


def _family_config(s: Scenario) -> Scenario | None:
    document = s["family"]["document"]
    raw = s["family"]["raw_config"]
    if not isinstance(raw, dict) or "note" in raw:
        return None
    document["config"]["fields"].append({"name": "note", "type": "string"})
    document["config"]["value"]["note"] = "changed"
    raw["note"] = "changed"
    return s


def _program(s: Scenario) -> Scenario | None:
    block = s["family"]["document"]["program"]["blocks"][0]
    block["id"] = block["id"] + ".changed"
    return s


def _catalog(s: Scenario) -> Scenario | None:
    engine = s["catalog"]["engine_providers"][0]
    engine["implementation_fingerprint"] = _other_hex(engine["implementation_fingerprint"])
    return s


def _device_runtime(s: Scenario) -> Scenario | None:
    device = s["catalog"]["device"]
    device["runtime_implementation_fingerprint"] = _other_hex(device["runtime_implementation_fingerprint"])
    return s


def _device_memory(s: Scenario) -> Scenario | None:
    s["catalog"]["device"]["total_memory_bytes"] += 4096
    return s


def _policy(s: Scenario) -> Scenario | None:
    fields = _as_fields(s)
    if fields is None:
        return None
    fields["admission"]["maximum_queue_depth"] = 1 if fields["admission"]["maximum_queue_depth"] != 1 else 2
    return s


def _policy_version(s: Scenario) -> Scenario | None:
    fields = _as_fields(s)
    if fields is None:
        return None
    fields["version"]["minor"] += 1
    return s


def _policy_capacity(s: Scenario) -> Scenario | None:
    fields = _as_fields(s)
    if fields is None:
        return None
    memory = fields["memory"]
    device = s["catalog"]["device"]["total_memory_bytes"]
    memory["capacity_bytes"] += 1 if memory["capacity_bytes"] < device else -1
    return s


def _policy_sequences(s: Scenario) -> Scenario | None:
    fields = _as_fields(s)
    if fields is None:
        return None
    fields["memory"]["maximum_active_sequences"] += 1
    return s


def _policy_profile_order(s: Scenario) -> Scenario | None:
    fields = _as_fields(s)
    if fields is None or len(fields["memory"]["dynamic_storage_profile_order"]) < 2:
        return None
    fields["memory"]["dynamic_storage_profile_order"].reverse()
    return s


def _resolutions(s: Scenario) -> Scenario | None:
    first = s["resolutions"][0]["values"][0]["storage"]["components"][0]["resource_id"]
    for resolution in s["resolutions"]:
        for value in resolution["values"]:
            for component in value["storage"]["components"]:
                if component["resource_id"] == first:
                    component["resource_id"] = "resource.renamed.by.change"
    return s


def _registry(s: Scenario) -> Scenario | None:
    for estimator in s["registry"]["estimators"]:
        estimator["persistent_bytes"] += 16
    return s


def _preferred_provider(s: Scenario) -> Scenario | None:
    resolution = s["resolutions"][0]
    changed = "provider.unregistered.by.change"
    resolution["preferred_provider"] = None if resolution["preferred_provider"] == changed else changed
    return s


def _completion_retention(s: Scenario) -> Scenario | None:
    output = next(v["value_id"] for v in s["resolutions"][0]["values"] if v["role"] == "output")
    retained = s["completion_retention"]
    s["completion_retention"] = [v for v in retained if v != output] if output in retained else [*retained, output]
    return s


_Change = Callable[[Scenario], Scenario | None]

#: operator -> (changed input, rule, change). ``None`` from a change: it does not apply to this scenario.
SEMANTIC_CHANGES: Final[dict[str, tuple[str, str, _Change]]] = {
    "family_config": ("family config", "05 §3 step 7: prepared_family_fingerprint covers the config", _family_config),
    "program": ("program", "05 §3 step 7: program_fingerprint", _program),
    "catalog": ("catalog", "05 §3 step 7: capability_catalog_fingerprint", _catalog),
    "device_runtime_fingerprint": (
        "device runtime fingerprint",
        "05 §3 step 7: device_runtime_implementation_fingerprint",
        _device_runtime,
    ),
    "device_memory": ("device memory", "05 §7: memory.device_capacity_bytes", _device_memory),
    "policy": ("policy", "05 §3 step 7: policy_fingerprint hashes the whole policy", _policy),
    "policy_version": ("policy version", "05 §8.1: policy_version", _policy_version),
    "policy_capacity": ("policy capacity", "05 §7: memory.policy_capacity_bytes", _policy_capacity),
    "policy_sequences": ("policy sequences", "05 §7: maximum_active_sequences", _policy_sequences),
    "policy_profile_order": (
        "policy profile order",
        "04 §2: dynamic_storage_profile_order is an ordered preference",
        _policy_profile_order,
    ),
    "resolutions": ("resolutions", "05 §8.3: node values are the resolution's bindings", _resolutions),
    "registry": ("registry (estimates)", "05 §8.3: provider_resources carry the estimate", _registry),
    "preferred_provider": ("preferred provider", "05 §6.3: selection evidence", _preferred_provider),
    "completion_retention": ("completion retention", "05 §7.10: retained_completion_values", _completion_retention),
}


def semantically_changed(original: Scenario, operator: str) -> SemanticChange | None:
    """Apply one semantic change (``None`` when it does not apply to ``original``)."""
    name, rule, change = SEMANTIC_CHANGES[operator]
    changed = change(copy.deepcopy(original))
    return None if changed is None else SemanticChange(operator, name, rule, original, changed)
