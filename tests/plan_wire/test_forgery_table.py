"""The forged-plan table (05 §9.5, §13; seed ``rehash_plan_json``): no tampered wire is ever accepted.

For EVERY leaf of the payload a type-preserving semantic mutation (int + 1, bool flipped, an
enum's other spelling, a digest digit flipped, an id renamed, a u128 + 1, an empty container
filled) and for every array an element removed / duplicated, each **with and without** a
correct re-hash. Every row asserts its error kind and stage:

* ``payload.schema.*`` -> ``unsupported_plan_schema`` at decode;
* otherwise ``serialization`` at decode (a nested validator or the canonical round trip saw
  it) or ``invalid_execution_plan`` at the rebuild comparison (never accepted, never a hash
  mismatch: the payload comparison precedes the hash comparison);
* the outcome is the same whether or not the forger re-hashed (decode never reads the hash);
* a row that decodes re-serializes to exactly the forged payload (canonical round trip).

The rebuild is computed once per scenario (``compare_with_rebuild``); the full API path
(decode + rebuild + compare) is cross-checked on a sample of rows.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference.scenario.plan import revalidate_scenario_wire
from seeds.catalogs import sha

from .helpers import (
    Path,
    arrays,
    decoded_outcome,
    encode,
    get,
    leaves,
    mutate_leaf,
    outcome,
    put,
    raises_kind,
    rehash_plan_json,
    scenario,
    show,
    wire_value,
)

SER = ("decode", "serialization")
EP = ("revalidate", "invalid_execution_plan")
SCHEMA = ("decode", "unsupported_plan_schema")
TABLE_SCENARIOS = (
    "plan_fixture_0",
    "sequential_scratch",
    "paged_storage",
    "graph_alias",
    "graph_state_chain",
    "retained_output",
    "padded_dense_weights",
    "mixed_gptq_container",
)
#: Plain payload fields no nested validator reads: a change can only be caught by the rebuild.
REBUILD_ONLY = (
    ("payload", "family_id"),
    ("payload", "device_id"),
    ("payload", "device_runtime_implementation_fingerprint"),
    ("payload", "prepared_family_fingerprint"),
    ("payload", "program_fingerprint"),
    ("payload", "capability_catalog_fingerprint"),
    ("payload", "policy_version", "major"),
    ("payload", "policy_version", "minor"),
    ("payload", "policy_fingerprint"),
    ("payload", "maximum_scheduled_tokens"),
    ("payload", "weight_format"),
    ("payload", "execution_weights", "materializer_implementation_fingerprint"),
    ("payload", "nodes", 0, "operation_fingerprint"),
    ("payload", "nodes", 0, "provider_implementation_fingerprint"),
)


#: Large wires check the un-re-hashed twin of every ``PLAIN_EVERY``-th row only (decoding dominates the run time).
LARGE = {"sequential_scratch": 4, "graph_state_chain": 4}


def _row(name: str, base: dict[str, Any], path: Path, forged_value: Any, *, plain: bool = True) -> tuple[str, str]:
    """Outcome of one forged row (mutated in place, then restored), asserting the invariants of every row."""
    parent, key = get(base, path[:-1]), path[-1]
    payload = base["payload"]
    saved, saved_id, saved_hash = parent[key], payload["plan_id"], base["plan_hash"]
    parent[key] = forged_value
    try:
        where = f"{name} {show(path)}"
        if plain:
            without = outcome(name, encode(base))
        rehash_plan_json(base)
        assert base["plan_hash"] != saved_hash, f"{where}: the hash did not change with the payload"
        rehashed, decoded = decoded_outcome(name, encode(base))
        if plain:
            assert without == rehashed, f"{where}: {without} without re-hash, {rehashed} with"
        if path[:2] == ("payload", "schema"):
            assert rehashed == SCHEMA, where
        else:
            assert rehashed in (SER, EP), f"{where}: {rehashed}"
        if decoded is not None:
            assert decoded.payload_wire() == payload, f"{where}: the decoded payload does not re-serialize"
        return rehashed
    finally:
        parent[key] = saved
        payload["plan_id"], base["plan_hash"] = saved_id, saved_hash


@pytest.mark.parametrize("name", TABLE_SCENARIOS)
def test_every_leaf_mutation_is_rejected_with_or_without_rehash(name: str) -> None:
    base = wire_value(name)
    rows = 0
    stages = set()
    every = LARGE.get(name, 1)
    for index, (path, leaf) in enumerate(list(leaves(base["payload"], ("payload",)))):
        if path == ("payload", "plan_id"):
            continue  # its own rows below: a changed id alone is invalid, a re-hash restores it
        stages.add(_row(name, base, path, mutate_leaf(path[-1], leaf), plain=index % every == 0))
        rows += 1
    assert rows > 250
    assert stages == {SER, EP, SCHEMA}


@pytest.mark.parametrize("name", TABLE_SCENARIOS)
def test_every_array_element_removed_or_duplicated_is_rejected(name: str) -> None:
    base = wire_value(name)
    every = LARGE.get(name, 1)
    for index, (path, items) in enumerate(list(arrays(base["payload"], ("payload",)))):
        if not items:
            continue
        plain = index % every == 0
        _row(name, base, path, items[:-1], plain=plain)
        _row(name, base, path, [*items, items[0]], plain=plain)
        if len(items) > 1 and items != items[::-1]:
            _row(name, base, path, items[::-1], plain=plain)


@pytest.mark.parametrize("path", REBUILD_ONLY)
def test_plain_fields_are_caught_by_the_rebuild(path: Path) -> None:
    base = wire_value("plan_fixture_0")
    assert _row("plan_fixture_0", base, path, mutate_leaf(path[-1], _get(base, path))) == EP


def _get(value: Any, path: Path) -> Any:
    for part in path:
        value = value[part]
    return value


def test_the_full_api_path_agrees_with_the_cached_rebuild() -> None:
    """Sampled rows through ``revalidate_scenario_wire`` (decode, fresh trusted inputs, rebuild, compare)."""
    base = wire_value("plan_fixture_0")
    for index, (path, leaf) in enumerate(leaves(base["payload"], ("payload",))):
        if index % 9 or path == ("payload", "plan_id"):
            continue
        forged = copy.deepcopy(base)
        put(forged, path, mutate_leaf(path[-1], leaf))
        rehash_plan_json(forged)
        expected = outcome("plan_fixture_0", encode(forged))
        raises_kind(
            expected[1], lambda forged=forged: revalidate_scenario_wire(scenario("plan_fixture_0"), encode(forged))
        )


# --------------------------------------------------------------------------- pinned rows (05 §5.3, §9.5, seed tests)


@pytest.mark.parametrize(
    ("name", "path", "value", "expected"),
    [
        # GraphFamily wire mutations (05 §5.3)
        ("graph_alias", ("payload", "nodes", 0, "exact_aliases"), [], EP),
        ("graph_state_chain", ("payload", "nodes", 1, "state_effects", 0, "access"), "read", EP),
        ("graph_state_chain", ("payload", "nodes", 2, "dependencies"), [], EP),
        # seed 000 forgeries
        ("plan_fixture_0", ("payload", "nodes", 0, "provider_implementation_fingerprint"), sha("0"), EP),
        ("plan_fixture_0", ("payload", "device_runtime_implementation_fingerprint"), sha("f"), EP),
        ("plan_fixture_0", ("payload", "memory", "static_allocations", 0, "size_bytes"), 1024, SER),
        ("retained_output", ("payload", "retained_completion_values", 0, "resource_id"), "resource/forged", EP),
        # 05 §9.5 rows
        ("sequential_scratch", ("payload", "nodes", 1, "dependencies"), [], EP),
        ("plan_fixture_0", ("payload", "nodes", 0, "resources"), "reversed", EP),
        ("plan_fixture_0", ("payload", "memory", "dynamic_descriptors", 0, "alignment_bytes"), 3, SER),
        ("plan_fixture_0", ("payload", "memory", "dynamic_descriptors", 0, "usage"), "weights", SER),
        ("plan_fixture_0", ("payload", "memory", "minimum_invocation_peak_bytes"), 2**64 - 1, SER),
        ("plan_fixture_0", ("payload", "memory", "theoretical_ceiling_bytes"), "0384", SER),
        ("plan_fixture_0", ("payload", "quantization_formats"), ["quantization.forged"], EP),
        ("plan_fixture_0", ("payload", "nodes", 0, "required_capabilities"), ["capability.forged"], EP),
        ("paged_storage", ("payload", "nodes", 0, "selection", "requested_provider"), None, EP),
        ("plan_fixture_0", ("payload", "nodes", 0, "provider_resources", "estimate_fingerprint"), sha("1"), SER),
    ],
)
def test_pinned_forgeries(name: str, path: Path, value: Any, expected: tuple[str, str]) -> None:
    base = wire_value(name)
    if value == "reversed":
        value = list(reversed(_get(base, path)))
    assert _row(name, base, path, value) == expected


def test_a_stripped_weight_binding_is_rejected() -> None:
    """05 §9.5 footnote: the stripped ``weight`` fails ``ResolvedValueBinding`` decoding (or the rebuild)."""
    base = wire_value("plan_fixture_0")
    index = next(i for i, v in enumerate(base["payload"]["nodes"][0]["values"]) if v["usage"] == "weights")
    assert _row("plan_fixture_0", base, ("payload", "nodes", 0, "values", index, "weight"), None) in (SER, EP)


@pytest.mark.parametrize("name", TABLE_SCENARIOS)
def test_a_changed_plan_id_alone_is_invalid_and_a_rehash_restores_the_plan(name: str) -> None:
    base = wire_value(name)
    forged = copy.deepcopy(base)
    forged["payload"]["plan_id"] = "plan/sha256/" + sha("0")
    assert outcome(name, encode(forged)) == EP
    rehash_plan_json(forged)
    assert forged == base
    assert outcome(name, encode(forged)) == ("accepted", "")
