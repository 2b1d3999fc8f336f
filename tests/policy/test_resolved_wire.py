"""``ResolvedRuntimePolicy`` wire, fingerprint and revalidation (spec 04 §3.1, §3.3, §3.4, §11)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.canonical import canonical_bytes, direct_bytes, fingerprint, loads_strict
from reference.errors import InvalidResolvedModelPlan, Serialization
from reference.policy import ResolvedRuntimePolicy, RuntimeMemoryPolicy, canonical_runtime_policy_fingerprint
from seeds.policies import policy
from tests.policy.helpers import build, expected_failure
from tests.policy.strategies import LINEAR, fixed, paged, policy_fields, with_fingerprint

SEED_OWN = "59a39ad6374e90e3ea6fd2dc3fc6ba9f498109e9e70cf42c85fa0e4d1592c4b1"
SEED_PAYLOAD = "e3c11a21a1188971e66a08c1421d7dfa0c6e1adf8c18fff0e4d70e981550c255"


def decode(raw: Any) -> ResolvedRuntimePolicy:
    return ResolvedRuntimePolicy.from_wire(raw)


def test_seed_vectors() -> None:
    p = policy(4096)
    assert p.fingerprint_str() == SEED_OWN
    assert canonical_runtime_policy_fingerprint(p) == SEED_PAYLOAD


def test_seed_wire_matches_spec_example() -> None:
    wire = policy(4096).to_wire()
    assert list(wire) == [
        "policy_id",
        "version",
        "scheduling",
        "memory",
        "admission",
        "attention_execution",
        "execution_determinism",
        "reusable_execution",
        "fingerprint",
    ]
    assert wire["reusable_execution"] is None
    assert "checkpoint_capacity" not in wire["memory"]
    assert wire["memory"]["dynamic_storage_profile_order"] == [LINEAR]
    assert wire["attention_execution"] == "portable"
    assert wire["fingerprint"] == SEED_OWN


@given(policy_fields(valid=True))
def test_round_trip_is_identity_and_byte_stable(fields: dict[str, Any]) -> None:
    p = build(fields)
    wire = p.to_wire()
    assert wire == with_fingerprint(fields)
    again = decode(json.loads(direct_bytes(wire)))
    assert again == p
    assert canonical_bytes(again.to_wire()) == canonical_bytes(wire)
    assert direct_bytes(again.to_wire()) == direct_bytes(wire)


@given(policy_fields(valid=True))
def test_payload_fingerprint_differs_from_own(fields: dict[str, Any]) -> None:
    p = build(fields)
    assert canonical_runtime_policy_fingerprint(p) != p.fingerprint_str()
    assert canonical_runtime_policy_fingerprint(p) == fingerprint(p.to_wire())
    assert p.fingerprint_str() == fingerprint({k: v for k, v in p.to_wire().items() if k != "fingerprint"})


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every leaf path of a JSON value (lists by index)."""
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _paths(item, (*prefix, key))]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _paths(item, (*prefix, i))] or [prefix]
    return [prefix]


def _mutated_leaf(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 if value < 2**32 - 1 else value - 1
    if value is None:
        return None
    if isinstance(value, list):
        return [LINEAR, LINEAR]
    if value == "portable":
        return "native-adaptive"
    if value == "native-adaptive":
        return "portable"
    return {
        "first_ready": "priority",
        "priority": "deadline",
        "deadline": "first_ready",
        "immediate_only": "full_input_must_fit",
        "full_input_must_fit": "immediate_only",
        "bitwise_same_runtime": "bitwise_same_runtime_with_replay",
        "bitwise_same_runtime_with_replay": "bitwise_same_runtime",
        "linear_arena": "linear_arena",
        "contiguous": "contiguous",
    }.get(value, value + "x")


def _set(wire: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    node: Any = wire
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _get(wire: dict[str, Any], path: tuple[Any, ...]) -> Any:
    node: Any = wire
    for key in path:
        node = node[key]
    return node


@given(policy_fields(valid=True), st.data())
def test_any_single_field_mutation_without_refingerprint_is_rejected(
    fields: dict[str, Any], data: st.DataObject
) -> None:
    wire = build(fields).to_wire()
    paths = [p for p in _paths(wire) if p != ("fingerprint",) and _get(wire, p) is not None]
    path = data.draw(st.sampled_from(paths))
    mutated = copy.deepcopy(wire)
    new = _mutated_leaf(_get(wire, path))
    if new == _get(wire, path):
        return
    _set(mutated, path, new)
    with pytest.raises(Serialization):
        decode(mutated)


@given(policy_fields())
def test_mutation_with_recomputed_fingerprint_accepted_iff_valid(fields: dict[str, Any]) -> None:
    wire = with_fingerprint(fields)
    if expected_failure(fields) is None:
        assert decode(wire).to_wire() == wire
    else:
        with pytest.raises(Serialization):
            decode(wire)


def test_seed_wire_with_zero_sequences_or_tokens_rejected_at_decode() -> None:
    wire = policy(4096).to_wire()
    for section, key in (("memory", "maximum_active_sequences"), ("admission", "maximum_scheduled_tokens")):
        bad = copy.deepcopy(wire)
        bad[section][key] = 0
        with pytest.raises(Serialization):
            decode(with_fingerprint({k: v for k, v in bad.items() if k != "fingerprint"}))


def test_unknown_top_level_key_rejected() -> None:
    wire = policy(4096).to_wire()
    wire["extra"] = 1
    with pytest.raises(Serialization):
        decode(wire)


@pytest.mark.parametrize("section", ["memory", "admission"])
def test_unknown_nested_key_is_dropped_so_fingerprint_decides(section: str) -> None:
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    extended = copy.deepcopy(fields)
    extended[section]["future_knob"] = 7
    # Fingerprint computed without the key: accepted, and the key is gone.
    accepted = decode({**extended, "fingerprint": fingerprint(fields)})
    assert "future_knob" not in accepted.to_wire()[section]
    assert accepted == policy(4096)
    # Fingerprint computed with the key: rejected.
    with pytest.raises(Serialization):
        decode(with_fingerprint(extended))


def test_missing_reusable_execution_means_null() -> None:
    wire = policy(4096).to_wire()
    del wire["reusable_execution"]
    assert decode(wire) == policy(4096)


def test_missing_checkpoint_capacity_and_explicit_null_accepted() -> None:
    wire = policy(4096).to_wire()
    wire["memory"]["checkpoint_capacity"] = None
    assert decode(wire) == policy(4096)


def test_checkpoint_capacity_zero_rejected_on_wire() -> None:
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    fields["memory"]["checkpoint_capacity"] = {"maximum_retained_bytes": 0}
    with pytest.raises(Serialization):
        decode(with_fingerprint(fields))
    fields["memory"]["checkpoint_capacity"] = {"maximum_retained_bytes": 1}
    assert decode(with_fingerprint(fields)).checkpoint_capacity_policy() is not None
    fields["memory"]["checkpoint_capacity"] = {"maximum_retained_bytes": 1, "x": 1}
    with pytest.raises(Serialization):
        decode(with_fingerprint(fields))


@pytest.mark.parametrize("value", ["native_adaptive", "Portable", "auto", "NATIVE-ADAPTIVE", 1, None])
def test_attention_spellings_rejected(value: Any) -> None:
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    fields["attention_execution"] = value
    with pytest.raises(Serialization):
        decode(with_fingerprint(fields))


def test_native_adaptive_accepted() -> None:
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    fields["attention_execution"] = "native-adaptive"
    assert decode(with_fingerprint(fields)).attention_execution().value == "native-adaptive"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("memory", "capacity_bytes"), -1),
        (("memory", "capacity_bytes"), 2**64),
        (("memory", "maximum_active_sequences"), 2**32),
        (("memory", "reserve_bytes"), 1.0),
        (("admission", "allow_defer"), 1),
        (("admission", "maximum_queue_depth"), True),
        (("version", "major"), 65536),
        (("scheduling",), "fifo"),
        (("execution_determinism",), "bitwise"),
        (("policy_id",), 7),
    ],
)
def test_ill_typed_fields_rejected(path: tuple[str, ...], value: Any) -> None:
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    _set(fields, path, value)
    wire = {**fields, "fingerprint": SEED_OWN}
    with pytest.raises(Serialization):
        decode(wire)


@pytest.mark.parametrize("key", ["policy_id", "version", "memory", "admission", "fingerprint", "scheduling"])
def test_missing_required_key_rejected(key: str) -> None:
    wire = policy(4096).to_wire()
    del wire[key]
    with pytest.raises(Serialization):
        decode(wire)


@pytest.mark.parametrize("key", ["capacity_bytes", "dynamic_storage_profile_order"])
def test_missing_memory_key_rejected(key: str) -> None:
    wire = policy(4096).to_wire()
    del wire["memory"][key]
    with pytest.raises(Serialization):
        decode(wire)


def test_fingerprint_not_format_checked_any_mismatch_fails() -> None:
    wire = policy(4096).to_wire()
    for forged in (SEED_OWN.upper(), "", "0" * 64, SEED_PAYLOAD):
        wire["fingerprint"] = forged
        with pytest.raises(Serialization) as info:
            decode(wire)
        assert info.value.context == "decode resolved runtime policy"


def test_decode_from_text_through_strict_loader() -> None:
    text = direct_bytes(policy(4096).to_wire())
    assert decode(loads_strict(text, context="decode resolved runtime policy")) == policy(4096)


# ----------------------------------------------------------------------- fingerprint sensitivity


@given(policy_fields(valid=True))
def test_fingerprint_changes_with_every_hash_material_leaf(fields: dict[str, Any]) -> None:
    base = build(fields)
    wire = base.to_wire()
    for path in _paths(wire):
        if path == ("fingerprint",) or path[0] == "reusable_execution":
            continue
        leaf = _get(wire, path)
        new = _mutated_leaf(leaf)
        if new == leaf:
            continue
        mutated = copy.deepcopy(fields)
        _set(mutated, path, new)
        if expected_failure(mutated) is not None:
            continue
        try:
            other = build(mutated)
        except Exception:  # a profile mutation may produce an unsupported allocator/view pair
            continue
        assert other.fingerprint_str() != base.fingerprint_str(), path


def test_profile_order_changes_fingerprint() -> None:
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    fields["memory"]["dynamic_storage_profile_order"] = [LINEAR, paged(16), fixed(64)]
    a = build(fields)
    fields["memory"]["dynamic_storage_profile_order"] = [paged(16), LINEAR, fixed(64)]
    b = build(fields)
    assert a.fingerprint_str() != b.fingerprint_str()
    assert canonical_runtime_policy_fingerprint(a) != canonical_runtime_policy_fingerprint(b)


def test_checkpoint_and_reusable_presence_change_fingerprint() -> None:
    fields = {k: v for k, v in policy(4096).to_wire().items() if k != "fingerprint"}
    fields["memory"]["checkpoint_capacity"] = {"maximum_retained_bytes": 65536}
    assert build(fields).fingerprint_str() != SEED_OWN


def test_fingerprint_independent_of_key_order() -> None:
    wire = policy(4096).to_wire()
    reordered = dict(reversed(list(wire.items())))
    reordered["memory"] = dict(reversed(list(wire["memory"].items())))
    assert decode(reordered) == policy(4096)


# ----------------------------------------------------------------------- validate() and immutability


def test_validate_detects_corrupted_fields() -> None:
    p = policy(4096)
    p.validate()
    corrupt = RuntimeMemoryPolicy(8192, 128, 3, p.memory().dynamic_storage_profile_order)
    object.__setattr__(p, "_memory", corrupt)
    with pytest.raises(InvalidResolvedModelPlan) as info:
        p.validate()
    assert info.value.field == "runtime_policy.fingerprint"
    with pytest.raises(InvalidResolvedModelPlan) as info:
        canonical_runtime_policy_fingerprint(p)
    assert info.value.field == "runtime_policy.fingerprint"


def test_validate_reruns_rows() -> None:
    p = policy(4096)
    object.__setattr__(p, "_policy_id", "bad id")
    with pytest.raises(InvalidResolvedModelPlan) as info:
        p.validate()
    assert info.value.field == "runtime_policy.policy_id"


def test_validate_detects_forged_fingerprint() -> None:
    p = policy(4096)
    object.__setattr__(p, "_fingerprint", "0" * 64)
    with pytest.raises(InvalidResolvedModelPlan) as info:
        p.validate()
    assert info.value.field == "runtime_policy.fingerprint"


def test_policy_is_immutable_and_not_directly_constructible() -> None:
    p = policy(4096)
    with pytest.raises(AttributeError):
        p._policy_id = "x"
    with pytest.raises(TypeError):
        ResolvedRuntimePolicy(_token=object(), values=())
