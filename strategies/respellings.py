"""Cosmetic respellings of a scenario document: rewrites the contract ignores, so the plan hash
(and the wire bytes) must not move (contract 01 §"Plan stability", 05 §8.2, 02 §12.1).

``RESPELLINGS``: order-insensitive rewrites (catalog / registry / resolution / weight-schema /
materializer-map / set-array / JSON key order, policy document kind). Each takes a *shuffler* (a
function returning a permutation of a list) so the same rule serves Hypothesis (``respelled``) and
the deterministic sensitivity matrix (``reverse_shuffler``). Inputs are never mutated.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import strategies as st

from reference.documents.policy import policy_from_document
from strategies.scenarios import Draw, Scenario

__all__ = ["RESPELLINGS", "Respelling", "Shuffler", "respelled", "reverse_shuffler"]

Shuffler = Callable[[list[Any]], list[Any]]


@dataclass(frozen=True, slots=True)
class Respelling:
    """``scenario`` spells ``original`` differently where the contract ignores order: same plan hash."""

    operator: str
    rule: str
    original: Scenario
    scenario: Scenario


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
