"""Semantic changes of a scenario document: input changes the plan hash must follow (contract 01
§"Plan stability", 05 §8.2).

``SEMANTIC_CHANGES``: family config, program, catalog, device runtime fingerprint and memory,
policy, policy version, capacity, sequences and profile order, resolutions, registry estimates,
preferred provider, completion retention and the weights selection. Inputs are never mutated.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from strategies.scenarios import Scenario

__all__ = ["SEMANTIC_CHANGES", "SemanticChange", "semantically_changed"]


@dataclass(frozen=True, slots=True)
class SemanticChange:
    """``scenario`` changes the ``input`` of ``original``: the plan hash must change."""

    operator: str
    input: str
    rule: str
    original: Scenario
    scenario: Scenario


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


def _weights(s: Scenario) -> Scenario | None:
    selection = s["weights"]
    if selection is None:
        return None
    for document in selection["registry"]["materializers"]:
        descriptor = document["descriptor"]
        if descriptor["id"] == selection["materializer_id"]:
            descriptor["implementation_fingerprint"] = _other_hex(descriptor["implementation_fingerprint"])
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
    "weights": ("weights selection", "05 §8.1, §10.5: execution_weights carries the materializer provenance", _weights),
}


def semantically_changed(original: Scenario, operator: str) -> SemanticChange | None:
    """Apply one semantic change (``None`` when it does not apply to ``original``)."""
    name, rule, change = SEMANTIC_CHANGES[operator]
    changed = change(copy.deepcopy(original))
    return None if changed is None else SemanticChange(operator, name, rule, original, changed)
