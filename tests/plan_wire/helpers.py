"""Shared builders for the plan wire / decode / revalidation tests (05 §8-§9)."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reference.canonical import canonical_bytes, direct_bytes, sha256_hex
from reference.errors import VNextError
from reference.plan.decode import UnvalidatedExecutionPlan, decode_untrusted
from reference.plan.execution_plan import ExecutionPlan
from reference.plan.revalidate import compare_with_rebuild
from reference.scenario.plan import ScenarioTrustedInputs, scenario_trusted_inputs
from seeds.scenarios import (
    GRAPH_ALIAS_VARIANTS,
    container_format_scenario,
    graph_scenario,
    paged_storage_scenario,
    plan_fixture_scenario,
    sequential_scratch_scenario,
    weights_plan_scenario,
)
from seeds.scenarios import retention_scenario as seed_retention_scenario
from seeds.weights import seed_materializer_document

Path = tuple[str | int, ...]

SAME_SCHEMA_ID = "weight-materializer.test.same-schema"


def raises_kind(kind: str, fn: Callable[[], Any]) -> VNextError:
    """Run ``fn`` and assert it raises the contract error ``kind``."""
    with pytest.raises(VNextError) as info:
        fn()
    assert info.value.kind == kind, info.value
    return info.value


def same_schema_materializer_document(fingerprint_char: str = "9") -> dict[str, Any]:
    """A non-identity materializer whose execution schema equals the family's (edits: none): the plan
    differs from the identity plan by its execution-weight provenance only."""
    doc = copy.deepcopy(seed_materializer_document("padded_dense"))
    doc["descriptor"]["id"] = SAME_SCHEMA_ID
    doc["descriptor"]["implementation_fingerprint"] = fingerprint_char * 64
    doc["execution_schema"] = {"edits": []}
    doc["materialize"] = "identity"
    return doc


def weights_selection(fingerprint_char: str = "9", *, augment: bool = True) -> dict[str, Any]:
    return {
        "registry": {"materializers": [same_schema_materializer_document(fingerprint_char)]},
        "materializer_id": SAME_SCHEMA_ID,
        "augment_catalog": augment,
    }


def non_identity_weights_scenario(fingerprint_char: str = "9", *, augment: bool = True) -> dict[str, Any]:
    """``plan_fixture(0)`` built with a selected non-identity (same-schema) materializer."""
    scenario = plan_fixture_scenario(0, name="plan_fixture_same_schema_weights")
    scenario["weights"] = weights_selection(fingerprint_char, augment=augment)
    return scenario


def retention_scenario() -> dict[str, Any]:
    """``plan_fixture(0)`` retaining ``value.output`` for completion readback."""
    scenario = plan_fixture_scenario(0, name="plan_fixture_retained_output")
    scenario["completion_retention"] = ["value.output"]
    return scenario


def materializer_scenario(name: str, **descriptor: Any) -> dict[str, Any]:
    """``weights_plan_scenario(name)`` whose registered descriptor has ``descriptor``'s fields replaced."""
    value = weights_plan_scenario(name)
    value["weights"]["registry"]["materializers"][0]["descriptor"].update(descriptor)
    return value


#: Every seed scenario of ``seeds/scenarios.py`` that builds, plus the trusted-input variants.
SCENARIO_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "plan_fixture_0": lambda: plan_fixture_scenario(0),
    "sequential_scratch": sequential_scratch_scenario,
    "paged_storage": paged_storage_scenario,
    "graph_alias": lambda: graph_scenario("alias"),
    "graph_alias_may_alias_exact": lambda: graph_scenario("alias", "may_alias_exact"),
    "graph_alias_may_alias_distinct": lambda: graph_scenario("alias", "may_alias_distinct"),
    "graph_state_chain": lambda: graph_scenario("state_chain"),
    "graph_state_read_only": lambda: graph_scenario("state_read_only"),
    "retained_output": retention_scenario,
    "same_schema_weights": non_identity_weights_scenario,
    "padded_dense_weights": lambda: weights_plan_scenario("padded_dense"),
    "derived_components_weights": lambda: weights_plan_scenario("derived_components"),
    "mixed_gptq_container": lambda: container_format_scenario("mixed_gptq_dense"),
    "retained_intermediate": lambda: seed_retention_scenario("intermediate"),
}

#: GraphFamily cases the build rejects (05 §5.3); they have no wire.
REJECTED_GRAPH_CASES = (
    ("alias_late_consumer", "must_alias_exact"),
    ("alias_terminal_intermediate", "must_alias_exact"),
    ("alias", "may_alias_partial"),
    ("alias", "may_alias_wrong_input"),
    ("alias", "must_alias_distinct"),
)
assert {v for _, v in REJECTED_GRAPH_CASES} <= set(GRAPH_ALIAS_VARIANTS)


@functools.cache
def scenario(name: str) -> dict[str, Any]:
    return SCENARIO_BUILDERS[name]()


def fresh_scenario(name: str) -> dict[str, Any]:
    return copy.deepcopy(scenario(name))


@functools.cache
def trusted(name: str) -> ScenarioTrustedInputs:
    return scenario_trusted_inputs(scenario(name))


@functools.cache
def built(name: str) -> ExecutionPlan:
    return trusted(name).build()


def wire_value(name: str) -> dict[str, Any]:
    """A fresh mutable copy of the built plan's wire value."""
    value = json.loads(built(name).to_json())
    assert isinstance(value, dict)
    return value


def rehash_plan_json(value: dict[str, Any]) -> None:
    """Seed 000 ``rehash_plan_json``: drop plan_id, hash the canonical payload, write back id and hash."""
    payload = value["payload"]
    payload.pop("plan_id")
    digest = sha256_hex(canonical_bytes(payload))
    payload["plan_id"] = f"plan/sha256/{digest}"
    value["plan_hash"] = digest


def encode(value: Any) -> bytes:
    return direct_bytes(value)


def outcome(name: str, data: bytes) -> tuple[str, str]:
    """``(stage, kind)`` of decoding ``data`` then comparing it with the (cached) rebuild of scenario ``name``."""
    return decoded_outcome(name, data)[0]


def decoded_outcome(name: str, data: bytes) -> tuple[tuple[str, str], UnvalidatedExecutionPlan | None]:
    """``outcome`` plus the decoded plan (``None`` when decoding failed)."""
    try:
        unvalidated = decode_untrusted(data)
    except VNextError as exc:
        return ("decode", exc.kind), None
    try:
        compare_with_rebuild(unvalidated, built(name))
    except VNextError as exc:
        return ("revalidate", exc.kind), unvalidated
    return ("accepted", ""), unvalidated


# --------------------------------------------------------------------------- JSON walking


def get(value: Any, path: Path) -> Any:
    for part in path:
        value = value[part]
    return value


def put(value: Any, path: Path, new: Any) -> None:
    get(value, path[:-1])[path[-1]] = new


def leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every scalar leaf (and every empty array/object) with its path."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value


def objects(value: Any, path: Path = ()) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every JSON object with its path."""
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from objects(item, (*path, index))


def arrays(value: Any, path: Path = ()) -> Iterator[tuple[Path, list[Any]]]:
    """Every JSON array with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from arrays(item, (*path, key))
    elif isinstance(value, list):
        yield path, value
        for index, item in enumerate(value):
            yield from arrays(item, (*path, index))


def show(path: Path) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def dump_with_duplicate_key(value: Any, target: Path) -> bytes:
    """Compact JSON of ``value`` where the object at ``target`` repeats its first key (same value)."""

    def write(item: Any, path: Path) -> str:
        if isinstance(item, dict):
            parts = [f"{json.dumps(k)}:{write(v, (*path, k))}" for k, v in item.items()]
            if path == target and item:
                first = next(iter(item))
                parts.append(f"{json.dumps(first)}:{write(item[first], (*path, first))}")
            return "{" + ",".join(parts) + "}"
        if isinstance(item, list):
            return "[" + ",".join(write(v, (*path, i)) for i, v in enumerate(item)) + "]"
        return json.dumps(item, ensure_ascii=False)

    return write(value, ()).encode("utf-8")


# --------------------------------------------------------------------------- semantic leaf mutations

#: Alternatives for enum-valued leaves (by key): a mutation picks another valid spelling.
ENUM_ALTERNATIVES: dict[str, tuple[str, ...]] = {
    "access": ("read", "write", "read_write"),
    "lifetime": ("plan", "request", "sequence", "step", "invocation"),
    "usage": ("activations", "weights", "state", "scratch", "binding", "persistent"),
    "element_type": ("u8", "u32", "i32", "f16", "f32"),
    "logical_element_type": ("f32", "f16"),
    "initialization": ("none", "zero"),
    "invocation_liveness_mode": ("no_invocation_resources", "total_order_reuse", "conservative_concurrent"),
    "selection_reason": ("preferred_compatible", "canonical_compatible", "fallback_from_preferred"),
    "reuse_policy": ("overwrite_before_read", "preserve"),
    "scope": ("plan", "request", "sequence", "step", "invocation"),
    "alias": ("no_alias",),
    "layout": ("contiguous",),
}
_ROLE = {"input": "output", "output": "input", "values": "scales"}
_KIND = {"value": "initialization_scratch", "must_alias": "may_alias", "may_alias": "must_alias"}


def _flip_hex(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


def mutate_string(key: str | int, text: str) -> str:
    """Another value of the same kind: an enum alternative, a flipped digest digit, a u128 + 1, or another id."""
    key = str(key)
    if key in ENUM_ALTERNATIVES:
        options = [o for o in ENUM_ALTERNATIVES[key] if o != text]
        if options:
            return options[0]
    if key == "role" and text in _ROLE:
        return _ROLE[text]
    if key == "kind" and text in _KIND:
        return _KIND[text]
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text):
        return _flip_hex(text)
    if "/sha256/" in text:
        head, digest = text.rsplit("/", 1)
        return f"{head}/{_flip_hex(digest)}"
    if text.isdigit():
        return str(int(text) + 1)
    return text + ".x"


def mutate_leaf(key: str | int, leaf: Any) -> Any:
    """A type-preserving semantic change of one leaf (``None`` / empty containers: a same-kind filler)."""
    if isinstance(leaf, bool):
        return not leaf
    if isinstance(leaf, int):
        return leaf + 1
    if isinstance(leaf, str):
        return mutate_string(key, leaf)
    if leaf is None:
        return "resource.forged" if str(key).endswith(("resource", "provider")) else 1
    if isinstance(leaf, list):
        return ["capability.forged"] if key == "required_capabilities" else [0]
    return {"forged": 0}
