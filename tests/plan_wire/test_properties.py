"""Hypothesis properties of the plan wire (05 §8.2, §13): hash material, key order, random variants and forgeries."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import canonical_bytes, sha256_hex
from reference.errors import VNextError
from reference.plan.decode import decode_untrusted
from reference.plan.revalidate import revalidate
from reference.scenario.plan import scenario_trusted_inputs
from seeds.scenarios import plan_fixture_scenario

from .helpers import built, encode, leaves, mutate_leaf, put, rehash_plan_json, wire_value


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: _shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_hash_and_decode_are_invariant_to_key_order(seed: int) -> None:
    value = wire_value("sequential_scratch")
    shuffled = _shuffled(value, random.Random(seed))
    material = {k: v for k, v in shuffled["payload"].items() if k != "plan_id"}
    assert sha256_hex(canonical_bytes(material)) == built("sequential_scratch").plan_hash.value
    assert decode_untrusted(json.dumps(shuffled).encode()).payload == built("sequential_scratch").payload


@given(variant=st.integers(min_value=100, max_value=10**9))
def test_any_variant_round_trips_and_rejects_a_random_rehashed_forgery(variant: int) -> None:
    inputs = scenario_trusted_inputs(plan_fixture_scenario(variant))
    plan = inputs.build()
    wire = plan.to_json()
    restored = revalidate(decode_untrusted(wire), inputs.family, inputs.catalog, inputs.policy, inputs.resolutions)
    assert restored == plan and restored.to_json() == wire

    value = json.loads(wire)
    rows = [(p, leaf) for p, leaf in leaves(value["payload"], ("payload",)) if p != ("payload", "plan_id")]
    path, leaf = rows[variant % len(rows)]
    forged = copy.deepcopy(value)
    put(forged, path, mutate_leaf(path[-1], leaf))
    rehash_plan_json(forged)
    try:
        revalidate(decode_untrusted(encode(forged)), inputs.family, inputs.catalog, inputs.policy, inputs.resolutions)
    except VNextError as exc:
        assert exc.kind in ("serialization", "invalid_execution_plan", "unsupported_plan_schema"), exc
    else:
        raise AssertionError(f"forged {path} was accepted")
